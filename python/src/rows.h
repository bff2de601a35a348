// SPDX-License-Identifier: MIT
// The rows a Python call hands to the library: a list, a NumPy array or a
// uriscan.Batch, turned into one or more Arrow-layout batches of under
// 4 GiB each (the library's offsets are 32-bit).
#ifndef URISCAN_PYTHON_SRC_ROWS_H_
#define URISCAN_PYTHON_SRC_ROWS_H_

#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "uriscan/spans.h"

namespace uriscan {
namespace python {

namespace py = pybind11;

// Bytes written before they are read, so never zero-filled; a reused
// buffer only grows.
struct Bytes {
  std::unique_ptr<char[]> data;
  size_t size = 0, capacity = 0;
  void Resize(size_t n) {
    if (n > capacity) {
      data.reset(new char[n]);
      capacity = n;
    }
    size = n;
  }
};

// A thread-local T for the calling thread, or a new one when it is lent
// out already (a re-entrant call: a finalizer run by the garbage collector
// while a call builds Python objects). Reusing one keeps large transient
// buffers out of malloc's trim-and-fault cycle from call to call.
template <class T>
std::shared_ptr<T>& Kept() {
  thread_local std::shared_ptr<T> kept = std::make_shared<T>();
  return kept;
}
template <class T>
std::shared_ptr<T> Lease() {
  std::shared_ptr<T>& kept = Kept<T>();
  if (kept.use_count() == 1) return kept;
  return std::make_shared<T>();
}

// Declared first in a call that leases (so destroyed last): a thread keeps
// no more than a few MiB of scratch after a call on a large input.
struct TrimScratchOnExit {
  ~TrimScratchOnExit();
};

// One batch of rows [first_row, first_row + batch.count) of the whole input.
struct Chunk {
  Batch batch;
  size_t first_row = 0;
};

// The input of a call, ready for the library. Chunks read either bytes this
// object owns (a copy of a list's strings) or the buffers of a uriscan.Batch
// (no copy), which then must outlive it. A RowSet holds no Python object, so
// it may be used with the GIL released.
struct RowSet {
  size_t rows = 0;
  std::vector<Chunk> chunks;
  // Owned storage, when the input was copied or its offsets converted.
  std::vector<Bytes> bytes;
  std::vector<std::vector<uint32_t>> offsets;
  // What the offsets of chunk 0 index when there is one chunk: the owned
  // bytes or the whole Batch buffer (spans' columns are relative to it).
  const char* base = nullptr;
  size_t base_size = 0;
};

// The most bytes one chunk may hold: 2^32 - 1 (32-bit offsets), lowered by
// tests through _set_chunk_limit() to exercise the splitting.
size_t ChunkLimit();
void SetChunkLimit(size_t bytes);

// uriscan.Batch: `data` (a contiguous buffer of bytes) and `offsets` (a 1-D
// contiguous int32, uint32 or int64 array of count + 1 non-decreasing
// values), the Arrow string-array layout. The offsets are read once into a
// copy that is checked and then used (4 bytes a row), so no later change
// of the caller's array can point a row outside the data; the data is read
// in place and held (it cannot be resized while the batch lives).
class ArrowBatch {
 public:
  ArrowBatch(const py::object& data, const py::object& offsets);
  size_t size() const { return rows_->rows; }
  const std::shared_ptr<const RowSet>& rows() const { return rows_; }
  // The buffers as given (for the Python properties).
  const py::object& data_object() const { return data_object_; }
  const py::object& offsets_object() const { return offsets_object_; }
  size_t data_size() const {
    return static_cast<size_t>(data_view_.view.len);
  }

 private:
  struct View {  // a Py_buffer, released with the batch (under the GIL)
    Py_buffer view{};
    bool held = false;
    ~View();
  };
  py::object data_object_, offsets_object_;
  View data_view_, offsets_view_;
  std::shared_ptr<const RowSet> rows_;
};

// The rows of `urls`: a uriscan.Batch (shared, no copy), a list or tuple of
// str/bytes, or a 1-D NumPy array of dtype str_, bytes_ or object (copied
// into one buffer, str as UTF-8). Raises TypeError or ValueError naming
// `arg` (and the row). Needs the GIL; releases it while copying a NumPy
// str_ array. A copy goes to `storage` when given (its buffers reused),
// else to a new RowSet.
std::shared_ptr<const RowSet> RowsFrom(
    const py::handle& urls, const char* arg,
    const std::shared_ptr<RowSet>& storage = nullptr);

// The rows of `given`, each repaired as the command's --lenient repairs a
// line (RepairReference), in a new RowSet; `repaired` (when given) gets one
// flag per row, 1 where the repair changed it. Needs the GIL, and releases
// it while it works.
std::shared_ptr<const RowSet> Repaired(const RowSet& given,
                                       std::vector<uint8_t>* repaired);

// RowsFrom(urls, "urls", storage), Repaired() when `lenient`.
std::shared_ptr<const RowSet> InputRows(
    const py::handle& urls, bool lenient,
    const std::shared_ptr<RowSet>& storage = nullptr);

// The text of row `row` of `rows`, found from chunk `*chunk` on (a cursor
// for rows visited in order).
std::string_view RowText(const RowSet& rows, size_t row, size_t* chunk);

// "urls[12]" style names and Python type names, for messages.
std::string RowName(const char* arg, size_t row);
std::string TypeName(const py::handle& object);

}  // namespace python
}  // namespace uriscan

#endif  // URISCAN_PYTHON_SRC_ROWS_H_
