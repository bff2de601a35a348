// SPDX-License-Identifier: MIT
// uriscan._uriscan: the batch calls of the Python package (the pure-Python
// uriscan package wraps them and adds pandas and Dask).
#include <algorithm>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/analytics.h"
#include "src/read_log.h"
#include "src/rows.h"
#include "src/seen_state.h"
#include "src/spans.h"
#include "src/store/state_dedup.h"
#include "src/store/state_identity.h"
#include "uriscan/uriscan.h"

namespace uriscan {
namespace python {
namespace {

Profile ProfileFrom(const py::handle& profile) {
  if (!py::isinstance<py::str>(profile)) {
    throw py::type_error("profile: expected str, got " + TypeName(profile));
  }
  const std::string name = profile.cast<std::string>();
  Profile out;
  if (!ParseProfile(name, &out)) {
    throw py::value_error("profile: '" + name +
                          "' is not a profile; expected 'syntax', 'scheme', "
                          "'crawler' or 'w3lib'");
  }
  return out;
}

NormalizeOptions TrackingFrom(const py::handle& tracking_params) {
  NormalizeOptions options;
  if (tracking_params.is_none()) return options;
  if (py::isinstance<py::str>(tracking_params) ||
      !py::isinstance<py::sequence>(tracking_params)) {
    throw py::type_error(
        "tracking_params: expected a list of str (parameter names, a "
        "trailing '*' for a prefix) or None, got " +
        TypeName(tracking_params));
  }
  // As the command's --tracking-params: names replace the default list;
  // names that all start with '+' are added to it ("+ref").
  std::vector<std::string> names;
  size_t i = 0, added = 0;
  for (const py::handle item : tracking_params) {
    if (!py::isinstance<py::str>(item)) {
      throw py::type_error(RowName("tracking_params", i) +
                           ": expected str, got " + TypeName(item));
    }
    std::string name = item.cast<std::string>();
    for (const char c : name) {
      if (static_cast<unsigned char>(c) <= ' ' || c == '\x7f') {
        throw py::value_error(RowName("tracking_params", i) +
                              ": a parameter name holds no space or "
                              "control byte");
      }
    }
    if (!name.empty() && name[0] == '+') {
      name.erase(0, 1);
      ++added;
    }
    names.push_back(std::move(name));
    ++i;
  }
  if (added != 0 && added != names.size()) {
    throw py::value_error(
        "tracking_params: either every name starts with '+' (added to the "
        "default list) or none does (the list replaced)");
  }
  if (added == 0) options.tracking_params.clear();
  for (std::string& name : names) {
    if (!name.empty()) options.tracking_params.push_back(std::move(name));
  }
  return options;
}

// The crawler profile's options; fold_www with another profile is an error,
// as the command's --fold-www without --profile=crawler.
NormalizeOptions OptionsFrom(Profile profile,
                             const py::handle& tracking_params,
                             bool fold_www) {
  NormalizeOptions options = TrackingFrom(tracking_params);
  if (fold_www && profile != Profile::kCrawler)
    throw py::value_error(
        "fold_www: an option of the crawler profile, not of '" +
        std::string(ProfileName(profile)) + "'");
  options.fold_www = fold_www;
  return options;
}

// 64-bit keys of every row, 0 for invalid ones: the keys of
// `uriscan dedup --keys`. Runs without the GIL.
std::vector<uint64_t> Keys(const RowSet& rows, const Fingerprinter& f,
                           ComponentSpans& spans) {
  std::vector<uint64_t> keys;
  if (rows.chunks.size() == 1) {
    Scan(rows.chunks[0].batch, &spans);
    f.Batch64(rows.chunks[0].batch, spans, &keys);
    return keys;
  }
  keys.resize(rows.rows);
  std::vector<uint64_t> part;
  for (const Chunk& chunk : rows.chunks) {
    Scan(chunk.batch, &spans);
    f.Batch64(chunk.batch, spans, &part);
    std::copy(part.begin(), part.end(), keys.begin() + chunk.first_row);
  }
  return keys;
}

py::array Fingerprint(const py::handle& urls, const py::handle& profile,
                      const py::handle& tracking_params, bool fold_www,
                      bool lenient) {
  const TrimScratchOnExit trim;
  const Profile p = ProfileFrom(profile);
  const Fingerprinter f(p, OptionsFrom(p, tracking_params, fold_www));
  std::shared_ptr<const RowSet> rows = InputRows(urls, lenient, Lease<RowSet>());
  std::shared_ptr<ComponentSpans> spans = Lease<ComponentSpans>();
  std::vector<uint64_t> keys;
  {
    py::gil_scoped_release release;
    keys = Keys(*rows, f, *spans);
  }
  return ArrayFromVector(std::move(keys));
}

py::array FirstOccurrence(const py::handle& urls, const py::handle& profile,
                          const py::handle& tracking_params, bool fold_www,
                          bool lenient) {
  const TrimScratchOnExit trim;
  const Profile p = ProfileFrom(profile);
  const Fingerprinter f(p, OptionsFrom(p, tracking_params, fold_www));
  std::shared_ptr<const RowSet> rows = InputRows(urls, lenient, Lease<RowSet>());
  py::array_t<bool> out(static_cast<py::ssize_t>(rows->rows));
  bool* first = out.mutable_data();
  std::shared_ptr<ComponentSpans> spans = Lease<ComponentSpans>();
  {
    py::gil_scoped_release release;
    const std::vector<uint64_t> keys = Keys(*rows, f, *spans);
    // The exact seen-set of `uriscan dedup` (while it fits in memory):
    // invalid rows (key 0) are always kept, as --on-error=keep does.
    SeenSet seen;
    for (size_t i = 0; i < keys.size(); ++i)
      first[i] = keys[i] == 0 || seen.Insert(keys[i]);
  }
  return std::move(out);
}

// uriscan.dask's task for one shard of a seen-state (or a whole state):
// the rows whose class the state has not seen go to `output`, committed
// with their keys as `uriscan dedup --state=STATE --output=FILE` commits.
py::dict DedupIntoStateRows(const py::handle& urls, const std::string& state,
                            const std::string& output, uint32_t shards,
                            const py::handle& profile,
                            const py::handle& tracking_params, bool fold_www,
                            bool lenient) {
  const TrimScratchOnExit trim;
  const Profile p = ProfileFrom(profile);
  const NormalizeOptions options = OptionsFrom(p, tracking_params, fold_www);
  std::shared_ptr<const RowSet> rows = InputRows(urls, lenient, Lease<RowSet>());
  StateDedupResult result;
  std::string error;
  bool ok;
  {
    py::gil_scoped_release release;
    std::vector<std::string_view> lines;
    lines.reserve(rows->rows);
    for (const Chunk& chunk : rows->chunks) {
      for (size_t i = 0; i < chunk.batch.count; ++i)
        lines.push_back(chunk.batch.Get(i));
    }
    ok = DedupIntoState(lines, state, p, options, shards, output, &result,
                        &error);
  }
  if (!ok) throw std::runtime_error("uriscan: dedup --state: " + error);
  py::dict out;
  out["written"] = result.written;
  out["rerun"] = result.rerun;
  return out;
}

py::array Risks(const py::handle& urls, bool lenient) {
  const TrimScratchOnExit trim;
  std::shared_ptr<const RowSet> rows = InputRows(urls, lenient, Lease<RowSet>());
  std::vector<uint32_t> all(rows->rows);
  std::shared_ptr<ComponentSpans> leased = Lease<ComponentSpans>();
  {
    py::gil_scoped_release release;
    ComponentSpans& spans = *leased;
    std::vector<uint32_t> part;
    for (const Chunk& chunk : rows->chunks) {
      Scan(chunk.batch, &spans);
      RiskFlags(chunk.batch, spans, &part);
      // (RiskFlags already gives an invalid row risks::kInvalid.)
      std::copy(part.begin(), part.end(), all.begin() + chunk.first_row);
    }
  }
  return ArrayFromVector(std::move(all));
}

PyObject* StrOrNone(bool ok, std::string_view text) {
  if (!ok) {
    Py_INCREF(Py_None);
    return Py_None;
  }
  PyObject* s = PyUnicode_FromStringAndSize(
      text.data(), static_cast<Py_ssize_t>(text.size()));
  if (!s) throw py::error_already_set();
  return s;
}

py::list NormalizeAll(const py::handle& urls, const py::handle& profile,
                      const py::handle& tracking_params, bool fold_www,
                      bool lenient) {
  const TrimScratchOnExit trim;
  const Profile p = ProfileFrom(profile);
  const NormalizeOptions options = OptionsFrom(p, tracking_params, fold_www);
  std::shared_ptr<const RowSet> rows = InputRows(urls, lenient, Lease<RowSet>());
  py::list out(static_cast<py::ssize_t>(rows->rows));
  std::shared_ptr<ComponentSpans> leased = Lease<ComponentSpans>();
  ComponentSpans& spans = *leased;
  // This thread's own: a NormalizedBatch is filled and destroyed on the
  // thread that made it.
  std::shared_ptr<NormalizedBatch> leased_batch = Lease<NormalizedBatch>();
  NormalizedBatch& normalized = *leased_batch;
  for (const Chunk& chunk : rows->chunks) {
    {
      py::gil_scoped_release release;
      Scan(chunk.batch, &spans);
      NormalizeBatch(chunk.batch, spans, p, &normalized, options);
    }
    thread_local std::string form;
    for (size_t i = 0; i < chunk.batch.count; ++i) {
      // An invalid row has no form, but under w3lib where w3lib
      // canonicalizes it ("?p[]=1"): that row alone.
      bool has_form = spans.error_kind[i] == 0;
      std::string_view text = has_form ? normalized.Get(i) : std::string_view();
      if (!has_form && p == Profile::kW3lib) {
        form.clear();
        has_form = Normalize(spans.Row(i, chunk.batch.data), p, &form);
        text = form;
      }
      PyList_SET_ITEM(out.ptr(), static_cast<Py_ssize_t>(chunk.first_row + i),
                      StrOrNone(has_form, text));
    }
  }
  if (rows->rows > (size_t{1} << 20)) {
    leased_batch.reset();
    Kept<NormalizedBatch>() = std::make_shared<NormalizedBatch>();
  }
  return out;
}

py::list ResolveAll(const py::handle& urls, const py::handle& base,
                    bool nonstrict, bool lenient) {
  const TrimScratchOnExit trim;
  std::string base_text;
  if (py::isinstance<py::str>(base)) {
    base_text = base.cast<std::string>();
  } else if (py::isinstance<py::bytes>(base)) {
    base_text = std::string(base.cast<py::bytes>());
  } else {
    throw py::type_error("base: expected str or bytes, got " +
                         TypeName(base));
  }
  const UriReference base_uri = ParseUriReference(base_text);
  if (!base_uri.valid()) {
    throw py::value_error(
        std::string("base: not a valid URI: ") +
        ErrorKindName(base_uri.error().kind) + " at byte " +
        std::to_string(base_uri.error().offset + 1));
  }
  if (!base_uri.scheme()) {
    throw py::value_error("base: '" + base_text +
                          "' is a relative reference; a base URI needs a "
                          "scheme (RFC 3986 sec. 5.1)");
  }
  ResolveOptions options;
  options.nonstrict = nonstrict;
  std::shared_ptr<const RowSet> rows = InputRows(urls, lenient, Lease<RowSet>());
  py::list out(static_cast<py::ssize_t>(rows->rows));
  std::shared_ptr<ComponentSpans> leased = Lease<ComponentSpans>();
  ComponentSpans& spans = *leased;
  std::shared_ptr<ResolvedBatch> leased_batch = Lease<ResolvedBatch>();
  ResolvedBatch& resolved = *leased_batch;
  for (const Chunk& chunk : rows->chunks) {
    {
      py::gil_scoped_release release;
      Scan(chunk.batch, &spans);
      ResolveBatch(base_uri, chunk.batch, spans, options, false, &resolved);
    }
    for (size_t i = 0; i < chunk.batch.count; ++i) {
      PyList_SET_ITEM(out.ptr(), static_cast<Py_ssize_t>(chunk.first_row + i),
                      StrOrNone(resolved.status[i] == ResolveStatus::kOk,
                                resolved.Get(i)));
    }
  }
  if (rows->rows > (size_t{1} << 20)) {
    leased_batch.reset();
    Kept<ResolvedBatch>() = std::make_shared<ResolvedBatch>();
  }
  return out;
}

}  // namespace
}  // namespace python
}  // namespace uriscan

PYBIND11_MODULE(_uriscan, m) {
  namespace py = pybind11;
  using namespace uriscan;          // NOLINT: the module's one scope
  using namespace uriscan::python;  // NOLINT
  m.doc() = "The C++ core of the uriscan package (use the uriscan module).";
  m.attr("__version__") = URISCAN_VERSION_STRING;

  py::class_<ArrowBatch>(m, "Batch", R"doc(
Batch(data, offsets): URI references in the Arrow string-array layout.
data is bytes-like (bytes, bytearray, memoryview, a NumPy uint8 array);
offsets is a 1-D int32, uint32 or int64 array of count + 1 non-decreasing
values, reference i being data[offsets[i]:offsets[i + 1]]. The offsets
are copied once, here, after they are checked (4 bytes a row), so changing
the array afterwards changes nothing; data is read in place (no copy) and
held, so a bytearray under it cannot be resized while the Batch or a Spans
scanned from it lives. Raises TypeError or ValueError naming the argument
at fault.
)doc")
      .def(py::init<const py::object&, const py::object&>(), py::arg("data"),
           py::arg("offsets"))
      .def("__len__", &ArrowBatch::size)
      .def_property_readonly("data", &ArrowBatch::data_object)
      .def_property_readonly("offsets", &ArrowBatch::offsets_object)
      .def("__repr__", [](const ArrowBatch& b) {
        return "<uriscan.Batch: " + std::to_string(b.size()) + " rows, " +
               std::to_string(b.data_size()) + " bytes>";
      });

  BindSpans(m);
  BindSeenState(m);

  m.def("scan", &ScanToSpans, py::arg("urls"), py::arg("lenient") = false,
        "Scans every row (see uriscan.scan).");
  // One URL's w3lib canonical form, without a batch: the Scrapy request
  // fingerprinter's call (uriscan.scrapy), once per request.
  m.def(
      "w3lib_canonical",
      [](const py::str& text) -> py::object {
        // A str that is no UTF-8 (a lone surrogate) has no canonical form
        // here: None, as for an invalid URL (the caller asks w3lib).
        Py_ssize_t size = 0;
        const char* data = PyUnicode_AsUTF8AndSize(text.ptr(), &size);
        if (!data) {
          PyErr_Clear();
          return py::none();
        }
        const std::string_view url(data, static_cast<size_t>(size));
        const UriReference u = ParseUriReference(url);
        std::string out;
        // (An invalid URL too, where w3lib canonicalizes it: "?p[]=1".)
        if (!Normalize(u, Profile::kW3lib, &out)) return py::none();
        return py::str(out.data(), out.size());
      },
      py::arg("url"),
      "The w3lib profile's normal form of one URL, None where it has none.");
  m.def("fingerprint", &Fingerprint, py::arg("urls"),
        py::arg("profile") = "scheme", py::arg("tracking_params") = py::none(),
        py::arg("fold_www") = false, py::arg("lenient") = false,
        "64-bit keys (see uriscan.fingerprint).");
  m.def("first_occurrence", &FirstOccurrence, py::arg("urls"),
        py::arg("profile") = "scheme", py::arg("tracking_params") = py::none(),
        py::arg("fold_www") = false, py::arg("lenient") = false,
        "First rows of each class (see uriscan.first_occurrence).");
  m.def("_dedup_into_state", &DedupIntoStateRows, py::arg("urls"),
        py::arg("state"), py::arg("output"), py::arg("shards") = 0,
        py::arg("profile") = "scheme", py::arg("tracking_params") = py::none(),
        py::arg("fold_www") = false, py::arg("lenient") = false,
        "One Dask task of uriscan.dask.dedup(state=...): rows against a "
        "seen-state, new ones committed to output.");
  m.def("normalize", &NormalizeAll, py::arg("urls"),
        py::arg("profile") = "scheme", py::arg("tracking_params") = py::none(),
        py::arg("fold_www") = false, py::arg("lenient") = false,
        "Normal forms (see uriscan.normalize).");
  m.def("resolve", &ResolveAll, py::arg("urls"), py::arg("base"),
        py::arg("nonstrict") = false, py::arg("lenient") = false,
        "Resolution against one base (see uriscan.resolve).");
  m.def("risks", &Risks, py::arg("urls"), py::arg("lenient") = false,
        "Risk flags (see uriscan.risks).");
  m.def("risk_names", [](uint32_t flags) { return RiskFlagNames(flags); },
        py::arg("flags"));
  m.def(
      "error_name",
      [](int kind) {
        if (kind < 0 || kind >= kErrorKindCount)
          throw py::value_error("kind: " + std::to_string(kind) +
                                " is not an error kind");
        return std::string(ErrorKindName(static_cast<ErrorKind>(kind)));
      },
      py::arg("kind"));
  m.def("error_kind_count", [] { return int{kErrorKindCount}; });
  m.def("params", &Params, py::arg("urls"), py::arg("raw") = false,
        py::arg("lenient") = false,
        "Query parameters (see uriscan.params).");
  m.def(
      "columns",
      [](const py::handle& urls, const py::handle& names,
         const py::handle& profile, const py::handle& tracking_params,
         bool fold_www, bool lenient) {
        const Profile p = ProfileFrom(profile);
        return Columns(urls, names, p,
                       OptionsFrom(p, tracking_params, fold_www), lenient);
      },
      py::arg("urls"), py::arg("names"), py::arg("profile") = "scheme",
      py::arg("tracking_params") = py::none(), py::arg("fold_www") = false,
      py::arg("lenient") = false, "Derived columns (see uriscan.columns).");
  m.def("dispatched_target",
        [] { return std::string(DispatchedTargetName()); });
  m.def("default_tracking_params", [] {
    py::list names;
    for (const std::string& name : NormalizeOptions::DefaultTrackingParams())
      names.append(py::str(name));
    return names;
  });
  m.def("_read_log", &ReadLog, py::arg("paths"), py::arg("format"),
        py::arg("field"), py::arg("base"), py::arg("lenient"),
        "The columns of uriscan.read_log.");
  m.def("_set_chunk_limit", &SetChunkLimit, py::arg("bytes"));
  m.def("_chunk_limit", &ChunkLimit);
}
