// SPDX-License-Identifier: MIT
// uriscan.Spans: the ComponentSpans of a scan, each column a read-only NumPy
// array over the C++ vector itself (no copy), kept alive by the Spans.
#ifndef URISCAN_PYTHON_SRC_SPANS_H_
#define URISCAN_PYTHON_SRC_SPANS_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <memory>
#include <vector>

#include "src/rows.h"
#include "uriscan/spans.h"

namespace uriscan {
namespace python {

// A scan's result. Its storage (the copied rows and the columns) comes from
// a small pool of dead Spans' storage and goes back to it: a call that
// scans batch after batch then writes into memory already mapped, instead
// of paying a page fault per 4 KiB of fresh columns (glibc returns large
// freed blocks to the system). Created and destroyed with the GIL held,
// which guards the pool.
struct Spans {
  Spans();
  ~Spans();
  Spans(const Spans&) = delete;
  Spans& operator=(const Spans&) = delete;

  std::shared_ptr<const RowSet> rows;  // the bytes the columns index
  std::shared_ptr<RowSet> owned_rows;  // == rows when copied from a list
  py::object owner;  // the uriscan.Batch whose buffers `rows` reads, or None
  std::unique_ptr<ComponentSpans> columns;
  const ComponentSpans& spans() const { return *columns; }
};

// Registers uriscan.Spans.
void BindSpans(py::module_& m);

// uriscan.scan(): the rows of `urls`, scanned with the GIL released.
py::object ScanToSpans(const py::handle& urls, bool lenient);

// A read-only 1-D array over `size` values at `data`, whose base is `owner`
// (an object that keeps the memory alive).
template <class T>
py::array ReadOnlyView(const T* data, size_t size, const py::handle& owner) {
  static const T kNone{};
  py::array_t<T> array({static_cast<py::ssize_t>(size)},
                       {static_cast<py::ssize_t>(sizeof(T))},
                       data ? data : &kNone, owner);
  py::detail::array_proxy(array.ptr())->flags &=
      ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return std::move(array);
}

// An array that takes over `values` (no copy): a capsule owns the vector.
template <class T>
py::array ArrayFromVector(std::vector<T>&& values) {
  auto* owned = new std::vector<T>(std::move(values));
  py::capsule owner(owned, [](void* p) {
    delete static_cast<std::vector<T>*>(p);
  });
  static const T kNone{};
  return py::array_t<T>({static_cast<py::ssize_t>(owned->size())},
                        {static_cast<py::ssize_t>(sizeof(T))},
                        owned->empty() ? &kNone : owned->data(), owner);
}

}  // namespace python
}  // namespace uriscan

#endif  // URISCAN_PYTHON_SRC_SPANS_H_
