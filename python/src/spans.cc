// SPDX-License-Identifier: MIT
// uriscan.Spans and uriscan.scan(): columns as NumPy views, components as
// lists of str.
#include "src/spans.h"

#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace uriscan {
namespace python {
namespace {

constexpr const char* kComponents[] = {"scheme", "authority", "userinfo",
                                       "host",   "port",      "path",
                                       "query",  "fragment"};

std::optional<std::string_view> Component(const UriReference& uri, int which) {
  switch (which) {
    case 0: return uri.scheme();
    case 1: return uri.authority();
    case 2: return uri.userinfo();
    case 3: return uri.host();
    case 4: return uri.port();
    case 5: return uri.path();
    case 6: return uri.query();
    default: return uri.fragment();
  }
}

py::list ComponentList(const Spans& self, const py::object& name) {
  if (!py::isinstance<py::str>(name)) {
    throw py::type_error("name: expected str, got " + TypeName(name));
  }
  const std::string wanted = name.cast<std::string>();
  int which = -1;
  for (int k = 0; k < 8; ++k) {
    if (wanted == kComponents[k]) which = k;
  }
  if (which < 0) {
    throw py::value_error("name: '" + wanted +
                          "' is not a component; expected one of scheme, "
                          "authority, userinfo, host, port, path, query, "
                          "fragment");
  }
  const ComponentSpans& s = self.spans();
  const size_t n = s.size();
  py::list out(n);
  for (size_t i = 0; i < n; ++i) {
    PyObject* item = Py_None;
    if (s.error_kind[i] == 0) {
      const std::optional<std::string_view> value =
          Component(s.Row(i, self.rows->base), which);
      if (value) {
        // A valid reference is ASCII (RFC 3986 sec. 2): nothing to decode.
        item = PyUnicode_FromStringAndSize(
            value->data(), static_cast<Py_ssize_t>(value->size()));
        if (!item) throw py::error_already_set();
      } else {
        Py_INCREF(item);
      }
    } else {
      Py_INCREF(item);
    }
    PyList_SET_ITEM(out.ptr(), static_cast<Py_ssize_t>(i), item);
  }
  return out;
}

template <class T>
py::array Column(const py::object& self, std::vector<T> ComponentSpans::*m) {
  const Spans& spans = self.cast<const Spans&>();
  const std::vector<T>& column = spans.spans().*m;
  return ReadOnlyView(column.data(), column.size(), self);
}

// Storage of dead Spans, for the next ones (guarded by the GIL). Only two
// entries of moderate size are kept (at most about 64 MB each).
struct Pool {
  static constexpr size_t kEntries = 2;
  static constexpr size_t kMaxRows = size_t{512} << 10;
  static constexpr size_t kMaxBytes = size_t{32} << 20;
  std::vector<std::unique_ptr<ComponentSpans>> columns;
  std::vector<std::shared_ptr<RowSet>> rows;
};

Pool& ThePool() {
  static Pool* pool = new Pool;  // never destroyed: no order at exit
  return *pool;
}

}  // namespace

Spans::Spans() {
  Pool& pool = ThePool();
  if (pool.columns.empty()) {
    columns = std::make_unique<ComponentSpans>();
  } else {
    columns = std::move(pool.columns.back());
    pool.columns.pop_back();
  }
}

Spans::~Spans() {
  Pool& pool = ThePool();
  if (columns && columns->uri_begin.capacity() <= Pool::kMaxRows &&
      pool.columns.size() < Pool::kEntries)
    pool.columns.push_back(std::move(columns));
  rows.reset();
  if (owned_rows && owned_rows.use_count() == 1 &&
      pool.rows.size() < Pool::kEntries) {
    size_t bytes = 0;
    for (const Bytes& b : owned_rows->bytes) bytes += b.capacity;
    if (bytes <= Pool::kMaxBytes && owned_rows->rows <= Pool::kMaxRows)
      pool.rows.push_back(std::move(owned_rows));
  }
}

namespace {
std::shared_ptr<RowSet> PooledRows() {
  Pool& pool = ThePool();
  if (pool.rows.empty()) return std::make_shared<RowSet>();
  std::shared_ptr<RowSet> rows = std::move(pool.rows.back());
  pool.rows.pop_back();
  return rows;
}
}  // namespace

py::object ScanToSpans(const py::handle& urls, bool lenient) {
  auto spans = std::make_unique<Spans>();
  std::shared_ptr<RowSet> storage;
  if (!py::isinstance<ArrowBatch>(urls)) storage = PooledRows();
  std::shared_ptr<const RowSet> rows = InputRows(urls, lenient, storage);
  spans->owned_rows = std::move(storage);
  if (rows->chunks.size() != 1 || rows->base == nullptr) {
    throw py::value_error(
        "urls: past 4 GiB of data; Spans columns are 32-bit offsets into "
        "one buffer, so scan() takes less than 4 GiB at once: scan slices "
        "of it (fingerprint, first_occurrence, normalize, resolve and risks "
        "split large inputs themselves)");
  }
  spans->rows = rows;
  if (py::isinstance<ArrowBatch>(urls)) {
    spans->owner = py::reinterpret_borrow<py::object>(urls);
  }
  {
    py::gil_scoped_release release;
    Scan(rows->chunks[0].batch, spans->columns.get());
  }
  return py::cast(std::move(spans));
}

void BindSpans(py::module_& m) {
  py::class_<Spans> cls(m, "Spans", R"doc(
The result of uriscan.scan(): one row per URI reference, one column per
boundary (RFC 3986 components), as read-only NumPy arrays that view the
C++ columns without a copy and keep this object alive.

Boundary columns (uint32, byte offsets into ``data``): uri_begin,
scheme_end, authority_begin, userinfo_end, host_begin, host_end,
port_begin, path_begin, path_end, query_begin, fragment_begin, uri_end.
Also flags (uint16: which components are defined, the host kind, hints),
error_kind (uint8, 0 for a valid row) and error_offset (uint32, from the
row's start). For an invalid row every boundary holds uri_begin except
uri_end, and flags is 0.
)doc");
#define URISCAN_PY_COLUMN(name)                                 \
  cls.def_property_readonly(#name, [](const py::object& self) { \
    return Column(self, &ComponentSpans::name);                 \
  });
  URISCAN_SPAN_BOUNDARIES(URISCAN_PY_COLUMN)
  URISCAN_PY_COLUMN(flags)
  URISCAN_PY_COLUMN(error_kind)
  URISCAN_PY_COLUMN(error_offset)
#undef URISCAN_PY_COLUMN
  cls.def_property_readonly(
      "valid",
      [](const Spans& self) {
        const std::vector<uint8_t>& kinds = self.spans().error_kind;
        py::array_t<bool> out(static_cast<py::ssize_t>(kinds.size()));
        bool* to = out.mutable_data();
        for (size_t i = 0; i < kinds.size(); ++i) to[i] = kinds[i] == 0;
        return out;
      },
      "bool array: True where the row is a valid RFC 3986 URI-reference.");
  cls.def_property_readonly(
      "data",
      [](const py::object& self) {
        const Spans& spans = self.cast<const Spans&>();
        return ReadOnlyView(
            reinterpret_cast<const uint8_t*>(spans.rows->base),
            spans.rows->base_size, self);
      },
      "uint8 array: the bytes the boundary columns index (the input's "
      "UTF-8 or bytes back to back, or a Batch's data).");
  cls.def("component", &ComponentList, py::arg("name"), R"doc(
The text of one component for every row: a list with a str per row, or
None where the component is undefined (RFC 3986 keeps an undefined query,
"http://a", apart from an empty one, "http://a?") and for every component
of an invalid row. name is one of scheme, authority, userinfo, host, port,
path, query, fragment. Values are raw: nothing is decoded; an IP literal
host keeps its brackets.
)doc");
  cls.def("__len__", [](const Spans& self) { return self.spans().size(); });
  cls.def("__repr__", [](const Spans& self) {
    size_t valid = 0;
    for (uint8_t kind : self.spans().error_kind) valid += kind == 0;
    return "<uriscan.Spans: " + std::to_string(self.spans().size()) +
           " rows, " + std::to_string(valid) + " valid>";
  });
  py::list columns;
#define URISCAN_PY_NAME(name) columns.append(#name);
  URISCAN_SPAN_BOUNDARIES(URISCAN_PY_NAME)
#undef URISCAN_PY_NAME
  columns.append("flags");
  columns.append("error_kind");
  columns.append("error_offset");
  cls.attr("columns") = py::tuple(columns);
}

}  // namespace python
}  // namespace uriscan
