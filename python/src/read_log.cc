// SPDX-License-Identifier: MIT
// uriscan.read_log(): the rows of LogReader (uriscan/ingest.h), the layer
// the command and DuckDB's read_uris read through, as columns for a pandas
// DataFrame.
#include <Python.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "src/read_log.h"
#include "uriscan/ingest.h"
#include "uriscan/normalize.h"

namespace uriscan {
namespace python {
namespace {

namespace py = pybind11;

// A KeyboardInterrupt (or any signal handler's exception) raised while the
// reader waits with the GIL released: kept here until the call re-raises it.
thread_local PyObject* pending_type = nullptr;
thread_local PyObject* pending_value = nullptr;
thread_local PyObject* pending_traceback = nullptr;

// The reader's interrupt check (SetInterruptCheck): Python's signal
// handlers run, and an exception they raise stops the reader.
bool SignalRaised() {
  PyGILState_STATE gil = PyGILState_Ensure();
  const bool raised = PyErr_CheckSignals() != 0;
  if (raised)
    PyErr_Fetch(&pending_type, &pending_value, &pending_traceback);
  PyGILState_Release(gil);
  return raised;
}

// Text as str: UTF-8, each ill-formed part U+FFFD (errors="replace"), as
// read_uris gives VARCHAR.
PyObject* Str(std::string_view s) {
  return PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()),
                              "replace");
}

struct Columns {
  py::list file, uri, client, method, referer, user_agent, problem;
  std::vector<uint64_t> line;
  std::vector<int64_t> time, bytes;
  std::vector<int32_t> status;
  std::vector<uint8_t> has_time, has_status, has_bytes;
};

void Append(py::list* list, PyObject* item) {
  if (!item) throw py::error_already_set();
  list->append(py::reinterpret_steal<py::object>(item));
}

}  // namespace

py::dict ReadLog(const std::vector<std::string>& paths,
                 const std::string& format, const std::string& field,
                 const std::string& base, bool lenient) {
  LogReaderOptions options;
  options.format = format;
  options.field = field;
  options.base = base;
  options.lenient = lenient;
  const bool logs = format == "clf" || format == "combined";
  options.log_fields = logs;
  LogReader reader(paths, options);  // std::invalid_argument: ValueError
  Columns c;
  LogBatch batch;
  std::vector<py::object> names;
  for (const std::string& p : paths) names.push_back(py::str(p));
  for (;;) {
    bool more = false;
    try {
      py::gil_scoped_release release;
      SetInterruptCheck(SignalRaised);
      try {
        more = reader.Next(&batch);
      } catch (...) {
        SetInterruptCheck(nullptr);
        throw;
      }
      SetInterruptCheck(nullptr);
    } catch (const Interrupted&) {
      if (pending_type) {
        PyErr_Restore(pending_type, pending_value, pending_traceback);
        pending_type = pending_value = pending_traceback = nullptr;
        throw py::error_already_set();
      }
      throw;
    } catch (const LogReadError& e) {
      if (e.error_number() == 0) throw std::runtime_error(e.what());
      // OSError(errno, text, filename): FileNotFoundError for ENOENT,
      // PermissionError for EACCES, ... as Python's own open() raises.
      std::string text = e.what();
      if (text.rfind(e.file() + ": ", 0) == 0)
        text.erase(0, e.file().size() + 2);
      const py::object error = py::module_::import("builtins")
                                   .attr("OSError")(e.error_number(), text,
                                                    e.file());
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())),
                      error.ptr());
      throw py::error_already_set();
    }
    if (!more) break;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    // Rows in line order, a malformed line marked in its row (problem):
    // the row of its reference, or one of its own (uri None, no field).
    const auto problem_text = [&](size_t k) {
      const LogProblem& q = batch.problems[k];
      return q.kind + ": " + q.message;
    };
    size_t k = 0;
    const auto problem_rows_before = [&](uint64_t line) {
      for (; k < batch.problems.size() && batch.problems[k].line < line; ++k) {
        c.file.append(names[batch.file]);
        c.line.push_back(batch.problems[k].line);
        c.uri.append(py::none());
        Append(&c.problem, Str(problem_text(k)));
        if (!logs) continue;
        c.client.append(py::none());
        c.time.push_back(0);
        c.has_time.push_back(0);
        c.method.append(py::none());
        c.status.push_back(-1);
        c.has_status.push_back(0);
        c.bytes.push_back(-1);
        c.has_bytes.push_back(0);
        if (format != "combined") continue;
        c.referer.append(py::none());
        c.user_agent.append(py::none());
      }
    };
    for (size_t i = 0; i < batch.rows.size(); ++i) {
      const LogRow& r = batch.rows[i];
      problem_rows_before(r.line);
      c.file.append(names[batch.file]);
      c.line.push_back(r.line);
      Append(&c.uri, Str(batch.uri(i)));
      if (k < batch.problems.size() && batch.problems[k].line == r.line) {
        Append(&c.problem, Str(problem_text(k++)));
      } else {
        c.problem.append(py::none());
      }
      if (!logs) continue;
      const LogFieldsRow& f = batch.fields[i];
      Append(&c.client, Str(batch.Text(f.client)));
      c.time.push_back(f.time);
      c.has_time.push_back(f.has_time);
      if (f.method.begin == f.method.end) {
        c.method.append(py::none());
      } else {
        Append(&c.method, Str(batch.Text(f.method)));
      }
      c.status.push_back(f.status);
      c.has_status.push_back(f.status >= 0);
      c.bytes.push_back(f.bytes);
      c.has_bytes.push_back(f.bytes >= 0);
      if (format != "combined") continue;
      if (f.has_referer) {
        Append(&c.referer, Str(batch.Text(f.referer)));
      } else {
        c.referer.append(py::none());
      }
      if (f.has_user_agent) {
        Append(&c.user_agent, Str(batch.Text(f.user_agent)));
      } else {
        c.user_agent.append(py::none());
      }
    }
    problem_rows_before(UINT64_MAX);
  }
  py::dict out;
  out["file"] = c.file;
  out["line"] = py::bytes(reinterpret_cast<const char*>(c.line.data()),
                          c.line.size() * sizeof(uint64_t));
  out["uri"] = c.uri;
  out["problem"] = c.problem;
  if (logs) {
    const auto raw = [](const auto& v) {
      return py::bytes(reinterpret_cast<const char*>(v.data()),
                       v.size() * sizeof(v[0]));
    };
    out["client"] = c.client;
    out["time"] = raw(c.time);
    out["has_time"] = raw(c.has_time);
    out["method"] = c.method;
    out["status"] = raw(c.status);
    out["has_status"] = raw(c.has_status);
    out["bytes"] = raw(c.bytes);
    out["has_bytes"] = raw(c.has_bytes);
    if (format == "combined") {
      out["referer"] = c.referer;
      out["user_agent"] = c.user_agent;
    }
  }
  return out;
}

}  // namespace python
}  // namespace uriscan
