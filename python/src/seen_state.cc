// SPDX-License-Identifier: MIT
// uriscan._uriscan._SeenState: uriscan::SeenState (uriscan/seen_state.h)
// for Python, wrapped by uriscan.SeenState. Every call that reads or writes
// the state runs with the GIL released.
#include "src/seen_state.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/rows.h"
#include "uriscan/seen_state.h"

namespace uriscan {
namespace python {
namespace {

class PySeenState {
 public:
  PySeenState(const std::string& path, std::optional<std::string> profile,
              std::optional<std::vector<std::string>> tracking_params,
              bool fold_www, std::optional<std::string> keys_of,
              std::optional<uint32_t> shards, std::optional<uint64_t> memory,
              bool read_only, bool background_merges) {
    SeenStateOptions o;
    if (profile) {
      Profile p;
      if (!ParseProfile(*profile, &p))
        throw py::value_error("profile: '" + *profile +
                              "' is not a profile; expected 'syntax', "
                              "'scheme', 'crawler' or 'w3lib'");
      o.profile = p;
    }
    if (tracking_params) o.normalize.tracking_params = *tracking_params;
    o.normalize.fold_www = fold_www;
    if (keys_of) o.keys_of = *keys_of;
    if (shards) o.shards = *shards;
    if (memory) {
      if (*memory == 0) throw py::value_error("memory: must be above 0");
      o.memory = static_cast<size_t>(*memory);
    }
    o.read_only = read_only;
    o.background_merges = background_merges;
    py::gil_scoped_release release;
    state_ = SeenState::Open(path, o);
  }

  SeenState& state() {
    if (!state_) throw py::value_error("the SeenState is closed");
    return *state_;
  }

  py::array_t<bool> Rows(const py::handle& urls, bool add) {
    SeenState& s = state();
    std::shared_ptr<const RowSet> rows = InputRows(urls, /*lenient=*/false);
    py::array_t<bool> out(static_cast<py::ssize_t>(rows->rows));
    std::vector<std::string_view> views;
    views.reserve(rows->rows);
    for (const Chunk& chunk : rows->chunks)
      for (size_t i = 0; i < chunk.batch.count; ++i)
        views.push_back(chunk.batch.Get(i));
    auto* flags = reinterpret_cast<uint8_t*>(out.mutable_data());
    py::gil_scoped_release release;
    if (add) {
      s.Add(views.data(), views.size(), flags);
    } else {
      s.Contains(views.data(), views.size(), flags);
    }
    return out;
  }

  py::array_t<bool> Keys(
      py::array_t<uint64_t, py::array::c_style | py::array::forcecast> keys,
      bool add) {
    SeenState& s = state();
    if (keys.ndim() != 1)
      throw py::value_error("keys: a 1-D array of uint64 is expected");
    py::array_t<bool> out(keys.shape(0));
    auto* flags = reinterpret_cast<uint8_t*>(out.mutable_data());
    const uint64_t* data = keys.data();
    const size_t n = static_cast<size_t>(keys.shape(0));
    py::gil_scoped_release release;
    if (add) {
      s.AddKeys(data, n, flags);
    } else {
      s.ContainsKeys(data, n, flags);
    }
    return out;
  }

  // One key: the Scrapy filter's call, without an array either way.
  bool Key(uint64_t key, bool add) {
    SeenState& s = state();
    uint8_t flag = 0;
    if (add) {
      s.AddKeys(&key, 1, &flag);
    } else {
      s.ContainsKeys(&key, 1, &flag);
    }
    return flag != 0;
  }

  py::dict Commit(std::optional<std::string> output) {
    SeenState& s = state();
    SeenStateCommit c;
    {
      py::gil_scoped_release release;
      if (output) {
        c = s.Commit(*output);
      } else {
        s.Commit();
      }
    }
    py::dict d;
    d["written"] = c.written;
    d["rerun"] = c.rerun;
    d["note"] = c.note;
    return d;
  }

  py::dict Stats() {
    const SeenStateStats st = state().stats();
    py::dict d;
    d["keys"] = st.keys;
    d["pending"] = st.pending;
    d["invalid"] = st.invalid;
    d["runs"] = st.runs;
    d["shards"] = st.shards;
    d["bytes"] = st.bytes;
    d["written_bytes"] = st.written_bytes;
    d["rewritten_bytes"] = st.rewritten_bytes;
    d["commits"] = st.commits;
    d["merges"] = st.merges;
    d["merging"] = st.merging;
    d["memory_bytes"] = st.memory_bytes;
    d["disk_lookups"] = st.disk_lookups;
    return d;
  }

  void Close() {
    std::unique_ptr<SeenState> closing = std::move(state_);
    py::gil_scoped_release release;
    closing.reset();  // waits for a merge to stop
  }

 private:
  std::unique_ptr<SeenState> state_;
};

}  // namespace

void BindSeenState(py::module_& m) {
  py::register_exception<SeenStateError>(m, "StateError", PyExc_OSError);
  py::class_<PySeenState>(m, "_SeenState")
      .def(py::init<const std::string&, std::optional<std::string>,
                    std::optional<std::vector<std::string>>, bool,
                    std::optional<std::string>, std::optional<uint32_t>,
                    std::optional<uint64_t>, bool, bool>(),
           py::arg("path"), py::arg("profile"), py::arg("tracking_params"),
           py::arg("fold_www"), py::arg("keys_of"), py::arg("shards"),
           py::arg("memory"), py::arg("read_only"),
           py::arg("background_merges"))
      .def("add", [](PySeenState& s, const py::handle& urls) {
             return s.Rows(urls, true);
           })
      .def("contains", [](PySeenState& s, const py::handle& urls) {
             return s.Rows(urls, false);
           })
      .def("add_keys",
           [](PySeenState& s,
              py::array_t<uint64_t, py::array::c_style | py::array::forcecast>
                  keys) { return s.Keys(keys, true); })
      .def("contains_keys",
           [](PySeenState& s,
              py::array_t<uint64_t, py::array::c_style | py::array::forcecast>
                  keys) { return s.Keys(keys, false); })
      .def("add_key",
           [](PySeenState& s, uint64_t key) { return s.Key(key, true); })
      .def("contains_key",
           [](PySeenState& s, uint64_t key) { return s.Key(key, false); })
      .def("commit", &PySeenState::Commit, py::arg("output") = py::none())
      .def("discard", [](PySeenState& s) { s.state().Discard(); })
      .def("wait_for_merges",
           [](PySeenState& s) {
             SeenState& state = s.state();
             py::gil_scoped_release release;
             state.WaitForMerges();
           })
      .def("stats", &PySeenState::Stats)
      .def("identity", [](PySeenState& s) { return s.state().identity(); })
      .def("close", &PySeenState::Close);
}

}  // namespace python
}  // namespace uriscan
