// SPDX-License-Identifier: MIT
// Python inputs to Arrow-layout batches: lists and NumPy arrays are copied
// once into one buffer; a uriscan.Batch is read in place.
#include "src/rows.h"

#include <pybind11/numpy.h>

#include <algorithm>
#include <cmath>
#include <atomic>
#include <cstring>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include "uriscan/lenient.h"

namespace uriscan {
namespace python {
namespace {

std::atomic<size_t> chunk_limit{std::numeric_limits<uint32_t>::max()};

// Chunk boundaries for rows of the given byte lengths: each chunk holds as
// many whole rows as fit in ChunkLimit() bytes. Allocates the owned bytes
// and offsets of every chunk; the caller then fills the bytes of row r at
// RowDestination(). Raises ValueError for a row that fits in no chunk.
class Layout {
 public:
  Layout(const std::vector<size_t>& lengths, const char* arg, RowSet* out)
      : out_(out) {
    const size_t limit = ChunkLimit();
    out->rows = lengths.size();
    out->chunks.clear();
    out->base = nullptr;
    out->base_size = 0;
    size_t r = 0;
    do {
      const size_t first = r;
      size_t bytes = 0;
      while (r < lengths.size() && lengths[r] <= limit - bytes) {
        bytes += lengths[r++];
      }
      if (r < lengths.size() && r == first) {
        throw py::value_error(
            RowName(arg, r) + ": " + std::to_string(lengths[r]) +
            " bytes; one URI reference must be shorter than 4 GiB (the "
            "library's offsets are 32-bit)");
      }
      const size_t c = first_rows_.size();
      if (out->offsets.size() <= c) out->offsets.emplace_back();
      if (out->bytes.size() <= c) out->bytes.emplace_back();
      std::vector<uint32_t>& offsets = out->offsets[c];
      offsets.resize(r - first + 1);
      uint32_t at = 0;
      for (size_t i = first; i < r; ++i) {
        offsets[i - first] = at;
        at += static_cast<uint32_t>(lengths[i]);
      }
      offsets.back() = at;
      out->bytes[c].Resize(bytes);
      first_rows_.push_back(first);
    } while (r < lengths.size());
  }

  // Where row r's bytes go (rows are visited in order, so chunk_ only
  // moves forward).
  char* RowDestination(size_t r) {
    while (chunk_ + 1 < first_rows_.size() && first_rows_[chunk_ + 1] <= r)
      ++chunk_;
    return out_->bytes[chunk_].data.get() +
           out_->offsets[chunk_][r - first_rows_[chunk_]];
  }

  // Points the chunks at the owned storage, once it is filled.
  void Finish() {
    static const char kEmpty = 0;
    for (size_t c = 0; c < first_rows_.size(); ++c) {
      const Bytes& bytes = out_->bytes[c];
      const std::vector<uint32_t>& offsets = out_->offsets[c];
      out_->chunks.push_back(
          {Batch{bytes.size == 0 ? &kEmpty : bytes.data.get(), offsets.data(),
                 offsets.size() - 1},
           first_rows_[c]});
    }
    if (out_->chunks.size() == 1) {
      out_->base = out_->chunks[0].batch.data;
      out_->base_size = out_->bytes[0].size;
    }
  }

 private:
  RowSet* out_;
  std::vector<size_t> first_rows_;
  size_t chunk_ = 0;
};

std::string ItemTypeError(const char* arg, size_t row, PyObject* item) {
  return RowName(arg, row) + ": expected str or bytes, got " +
         TypeName(py::handle(item));
}

// A missing value (None, a float NaN, pandas.NA) is an invalid row, as the
// command reads a line it cannot parse: its one byte, a NUL, is one no URI
// may hold (error kind disallowed-byte at byte 0), so every answer for it
// is None, 0 or False like any invalid row's.
bool IsMissing(PyObject* item) {
  if (item == Py_None) return true;
  if (PyFloat_Check(item)) return std::isnan(PyFloat_AS_DOUBLE(item));
  const std::string_view type = Py_TYPE(item)->tp_name;
  return type == "NAType" || type == "pandas._libs.missing.NAType";
}
constexpr char kMissingRow[] = {'\0'};

// Per-row scratch of the copies below, reused call after call.
struct RowScratch {
  std::vector<const char*> pointers;
  std::vector<size_t> lengths, widths;
};

// A list, a tuple or an object array: the items' UTF-8 (str) or bytes,
// copied while the GIL is held (the items are Python objects).

void FromObjects(PyObject* const* items, size_t n, const char* arg,
                 RowSet* rows) {
  std::shared_ptr<RowScratch> scratch = Lease<RowScratch>();
  std::vector<const char*>& pointers = scratch->pointers;
  std::vector<size_t>& lengths = scratch->lengths;
  pointers.resize(n);
  lengths.resize(n);
  std::vector<py::object> escaped;  // bytes made for surrogate escapes
  for (size_t i = 0; i < n; ++i) {
    PyObject* item = items[i];
    Py_ssize_t length = 0;
    if (PyUnicode_Check(item)) {
      // ASCII strings (nearly every URI) hand out their own storage here;
      // others get a UTF-8 copy cached inside the str object.
      pointers[i] = PyUnicode_AsUTF8AndSize(item, &length);
      if (!pointers[i]) {
        // Text decoded with errors="surrogateescape" (how Python reads
        // bytes that are not UTF-8) gets its original bytes back, which
        // then scan as an invalid row like any other non-ASCII byte.
        PyErr_Clear();
        PyObject* bytes =
            PyUnicode_AsEncodedString(item, "utf-8", "surrogateescape");
        if (!bytes) {
          PyErr_Clear();
          throw py::value_error(RowName(arg, i) +
                                ": cannot be encoded as UTF-8 (it holds a "
                                "surrogate)");
        }
        escaped.push_back(py::reinterpret_steal<py::object>(bytes));
        pointers[i] = PyBytes_AS_STRING(bytes);
        length = PyBytes_GET_SIZE(bytes);
      }
    } else if (PyBytes_Check(item)) {
      pointers[i] = PyBytes_AS_STRING(item);
      length = PyBytes_GET_SIZE(item);
    } else if (IsMissing(item)) {
      pointers[i] = kMissingRow;
      length = 1;
    } else {
      throw py::type_error(ItemTypeError(arg, i, item));
    }
    lengths[i] = static_cast<size_t>(length);
  }
  Layout layout(lengths, arg, rows);
  for (size_t i = 0; i < n; ++i) {
    if (lengths[i] != 0)
      std::memcpy(layout.RowDestination(i), pointers[i], lengths[i]);
  }
  layout.Finish();
}

// NumPy bytes_ ("S<w>"): fixed-width items, shorter ones padded with NULs,
// which NumPy strips when it reads an item; so do we.
void FromFixedBytes(const char* data, size_t n, size_t width, const char* arg,
                    RowSet* rows) {
  std::shared_ptr<RowScratch> scratch = Lease<RowScratch>();
  std::vector<size_t>& lengths = scratch->lengths;
  lengths.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const char* item = data + i * width;
    size_t length = width;
    while (length > 0 && item[length - 1] == '\0') --length;
    lengths[i] = length;
  }
  Layout layout(lengths, arg, rows);
  for (size_t i = 0; i < n; ++i) {
    if (lengths[i] != 0)
      std::memcpy(layout.RowDestination(i), data + i * width, lengths[i]);
  }
  layout.Finish();
}

// U+DC80..U+DCFF: a byte 0x80..0xFF that was not UTF-8, as Python's
// "surrogateescape" error handler decodes it; encoded back to that byte.
bool IsEscape(uint32_t c) { return c >= 0xDC80 && c <= 0xDCFF; }

size_t Utf8Length(uint32_t c) {
  return c < 0x80 || IsEscape(c) ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
}

char* EncodeUtf8(uint32_t c, char* out) {
  if (IsEscape(c)) {
    *out++ = static_cast<char>(c - 0xDC00);
  } else if (c < 0x80) {
    *out++ = static_cast<char>(c);
  } else if (c < 0x800) {
    *out++ = static_cast<char>(0xC0 | (c >> 6));
    *out++ = static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    *out++ = static_cast<char>(0xE0 | (c >> 12));
    *out++ = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    *out++ = static_cast<char>(0x80 | (c & 0x3F));
  } else {
    *out++ = static_cast<char>(0xF0 | (c >> 18));
    *out++ = static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    *out++ = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    *out++ = static_cast<char>(0x80 | (c & 0x3F));
  }
  return out;
}

// NumPy str_ ("U<w>"): w UCS-4 code points per item, NUL-padded; encoded
// to UTF-8 as a list's str would be. Runs without the GIL: only the array's
// memory is read, and the caller holds the array.
void FromFixedUcs4(const uint32_t* data, size_t n, size_t width,
                   const char* arg, RowSet* rows) {
  std::shared_ptr<RowScratch> scratch = Lease<RowScratch>();
  std::vector<size_t>& lengths = scratch->lengths;
  std::vector<size_t>& widths = scratch->widths;
  lengths.resize(n);
  widths.resize(n);
  size_t bad_row = n;
  {
    py::gil_scoped_release release;
    for (size_t i = 0; i < n && bad_row == n; ++i) {
      const uint32_t* item = data + i * width;
      size_t w = width;
      while (w > 0 && item[w - 1] == 0) --w;
      size_t length = 0;
      for (size_t k = 0; k < w; ++k) {
        const uint32_t c = item[k];
        if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF && !IsEscape(c))) {
          bad_row = i;
          break;
        }
        length += Utf8Length(c);
      }
      widths[i] = w;
      lengths[i] = length;
    }
  }
  if (bad_row != n) {
    throw py::value_error(RowName(arg, bad_row) +
                          ": cannot be encoded as UTF-8 (a surrogate that "
                          "is no escaped byte, or a code point past "
                          "U+10FFFF)");
  }
  Layout layout(lengths, arg, rows);
  {
    py::gil_scoped_release release;
    for (size_t i = 0; i < n; ++i) {
      const uint32_t* item = data + i * width;
      char* out = layout.RowDestination(i);
      for (size_t k = 0; k < widths[i]; ++k) out = EncodeUtf8(item[k], out);
    }
  }
  layout.Finish();
}

void FromArray(const py::handle& urls, const char* arg, RowSet* rows) {
  py::array array = py::reinterpret_borrow<py::array>(urls);
  if (array.ndim() != 1) {
    throw py::value_error(std::string(arg) + ": expected a 1-D array, got " +
                          std::to_string(array.ndim()) + " dimensions");
  }
  const char kind = array.dtype().kind();
  if (kind != 'U' && kind != 'S' && kind != 'O') {
    throw py::type_error(std::string(arg) +
                         ": expected a NumPy array of dtype str_, bytes_ or "
                         "object, got dtype " +
                         py::str(array.dtype()).cast<std::string>());
  }
  // Strided or non-native views are copied into a plain array first.
  array = py::array::ensure(array, py::array::c_style);
  if (!array) throw py::error_already_set();
  const size_t n = static_cast<size_t>(array.shape(0));
  const size_t width = static_cast<size_t>(array.itemsize());
  if (kind == 'O') {
    return FromObjects(static_cast<PyObject* const*>(array.data()), n, arg,
                       rows);
  }
  if (kind == 'S') {
    return FromFixedBytes(static_cast<const char*>(array.data()), n, width,
                          arg, rows);
  }
  if (!array.dtype().attr("isnative").cast<bool>()) {
    py::object native = array.dtype().attr("newbyteorder")("=");
    array = py::reinterpret_steal<py::array>(
        array.attr("astype")(native).release());
  }
  return FromFixedUcs4(static_cast<const uint32_t*>(array.data()), n,
                       width / 4, arg, rows);
}

// Integer offsets read from a buffer of one of the three accepted types.
enum class OffsetType { kInt32, kUInt32, kInt64 };

OffsetType OffsetTypeOf(const Py_buffer& view) {
  const char* format = view.format ? view.format : "B";
  char order = '@';
  if (std::strchr("@=<>!", *format)) order = *format++;
  const bool native = order == '@' || order == '=' ||
                      (order == '<') == (PY_BIG_ENDIAN == 0);
  if (native && format[0] != '\0' && format[1] == '\0') {
    const bool is_signed = std::strchr("bhilq", format[0]) != nullptr;
    const bool is_unsigned = std::strchr("BHILQ", format[0]) != nullptr;
    if (is_signed && view.itemsize == 4) return OffsetType::kInt32;
    if (is_unsigned && view.itemsize == 4) return OffsetType::kUInt32;
    if (is_signed && view.itemsize == 8) return OffsetType::kInt64;
  }
  throw py::type_error(
      std::string("offsets: expected int32, uint32 or int64 values in "
                  "native byte order, got buffer format '") +
      (view.format ? view.format : "B") + "' of " +
      std::to_string(view.itemsize) + "-byte items");
}

int64_t OffsetAt(const Py_buffer& view, OffsetType type, size_t i) {
  switch (type) {
    case OffsetType::kInt32:
      return static_cast<const int32_t*>(view.buf)[i];
    case OffsetType::kUInt32:
      return static_cast<const uint32_t*>(view.buf)[i];
    case OffsetType::kInt64:
      break;
  }
  return static_cast<const int64_t*>(view.buf)[i];
}

void GetBuffer(const py::object& object, Py_buffer* view, bool* held,
               const char* arg, const char* expected) {
  if (!PyObject_CheckBuffer(object.ptr())) {
    throw py::type_error(std::string(arg) + ": expected " + expected +
                         ", got " + TypeName(object));
  }
  if (PyObject_GetBuffer(object.ptr(), view,
                         PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
    PyErr_Clear();
    throw py::value_error(std::string(arg) +
                          ": the buffer must be C-contiguous (use "
                          "numpy.ascontiguousarray)");
  }
  *held = true;
}

}  // namespace

TrimScratchOnExit::~TrimScratchOnExit() {
  constexpr size_t kKeepBytes = size_t{16} << 20;
  constexpr size_t kKeepRows = size_t{1} << 20;
  std::shared_ptr<RowSet>& rows = Kept<RowSet>();
  if (rows && rows.use_count() == 1) {
    size_t bytes = 0;
    for (const Bytes& b : rows->bytes) bytes += b.capacity;
    if (bytes > kKeepBytes || rows->rows > kKeepRows)
      rows = std::make_shared<RowSet>();
  }
  std::shared_ptr<RowScratch>& scratch = Kept<RowScratch>();
  if (scratch && scratch.use_count() == 1 &&
      scratch->lengths.capacity() > kKeepRows)
    scratch = std::make_shared<RowScratch>();
  std::shared_ptr<ComponentSpans>& spans = Kept<ComponentSpans>();
  if (spans && spans.use_count() == 1 && spans->size() > kKeepRows)
    spans = std::make_shared<ComponentSpans>();
}

size_t ChunkLimit() { return chunk_limit.load(std::memory_order_relaxed); }

void SetChunkLimit(size_t bytes) {
  chunk_limit.store(
      std::min<size_t>(std::max<size_t>(bytes, 1),
                       std::numeric_limits<uint32_t>::max()),
      std::memory_order_relaxed);
}

std::string RowName(const char* arg, size_t row) {
  return std::string(arg) + "[" + std::to_string(row) + "]";
}

std::string TypeName(const py::handle& object) {
  return Py_TYPE(object.ptr())->tp_name;
}

ArrowBatch::View::~View() {
  if (held) PyBuffer_Release(&view);
}

ArrowBatch::ArrowBatch(const py::object& data, const py::object& offsets)
    : data_object_(data), offsets_object_(offsets) {
  if (PyUnicode_Check(data.ptr())) {
    throw py::type_error(
        "data: expected bytes-like data (bytes, bytearray, memoryview, a "
        "NumPy uint8 array), got str: encode it first");
  }
  GetBuffer(data, &data_view_.view, &data_view_.held, "data",
            "bytes-like data (bytes, bytearray, memoryview, a NumPy uint8 "
            "array)");
  const Py_buffer& bytes = data_view_.view;
  if (bytes.itemsize != 1 || bytes.ndim > 1) {
    throw py::type_error(
        "data: expected a 1-D buffer of bytes (items of 1 byte), got " +
        std::to_string(bytes.ndim) + "-D items of " +
        std::to_string(bytes.itemsize) + " bytes");
  }
  // A list or tuple of offsets becomes an int64 array (the values are
  // copied below in any case).
  if (PyList_Check(offsets.ptr()) || PyTuple_Check(offsets.ptr())) {
    offsets_object_ = py::array_t<int64_t>(offsets);
  }
  GetBuffer(offsets_object_, &offsets_view_.view, &offsets_view_.held,
            "offsets", "a 1-D array of int32, uint32 or int64");
  const Py_buffer& view = offsets_view_.view;
  const OffsetType type = OffsetTypeOf(view);
  if (view.ndim != 1) {
    throw py::value_error("offsets: expected a 1-D array, got " +
                          std::to_string(view.ndim) + " dimensions");
  }
  const size_t n = static_cast<size_t>(view.len / view.itemsize);
  if (n == 0) {
    throw py::value_error(
        "offsets: expected count + 1 values (at least one), got none");
  }
  const int64_t size = static_cast<int64_t>(bytes.len);
  auto rows = std::make_shared<RowSet>();
  rows->rows = n - 1;
  // The offsets are read once, into a copy that is checked and then used:
  // the caller's array may change afterwards (a Batch is immutable), and
  // values checked in one read and used in another could pass the check
  // and still point past the data.
  std::vector<int64_t> values(n);
  std::string problem;
  {
    py::gil_scoped_release release;
    for (size_t i = 0; i < n; ++i) values[i] = OffsetAt(view, type, i);
    if (values[0] < 0) {
      problem = "offsets[0] is " + std::to_string(values[0]) +
                "; offsets must not be negative";
    }
    for (size_t i = 1; i < n && problem.empty(); ++i) {
      if (values[i] < values[i - 1]) {
        problem = "offsets[" + std::to_string(i) + "] = " +
                  std::to_string(values[i]) + " is less than offsets[" +
                  std::to_string(i - 1) + "] = " +
                  std::to_string(values[i - 1]) +
                  "; offsets must not decrease";
      }
    }
    if (problem.empty() && values[n - 1] > size) {
      problem = "the last offset, " + std::to_string(values[n - 1]) +
                ", is past the end of data (" + std::to_string(size) +
                " bytes)";
    }
  }
  if (!problem.empty()) throw py::value_error("offsets: " + problem);

  static const char kEmpty = 0;
  const char* base = static_cast<const char*>(bytes.buf);

  const size_t limit = ChunkLimit();
  const size_t last = static_cast<size_t>(values[n - 1]);
  if (last <= limit) {
    // One chunk, offsets relative to data as given.
    std::vector<uint32_t> copied(n);
    for (size_t i = 0; i < n; ++i) copied[i] = static_cast<uint32_t>(values[i]);
    rows->offsets.push_back(std::move(copied));
    rows->chunks.push_back(
        {Batch{base ? base : &kEmpty, rows->offsets.back().data(), n - 1}, 0});
    rows->base = base ? base : &kEmpty;
    rows->base_size = static_cast<size_t>(size);
  } else {
    // Past 32-bit offsets: chunks of whole rows, each with its own data
    // pointer and offsets rebased to it. Only calls that return no offsets
    // (fingerprint, normalize, ...) accept this; scan() refuses it.
    size_t r = 0;
    while (r < n - 1) {
      const size_t first = r;
      const size_t start = static_cast<size_t>(values[first]);
      while (r < n - 1 && static_cast<size_t>(values[r + 1]) - start <= limit)
        ++r;
      if (r == first) {
        throw py::value_error(
            "data: row " + std::to_string(r) +
            " is 4 GiB or longer; one URI reference must be shorter (the "
            "library's offsets are 32-bit)");
      }
      std::vector<uint32_t> rebased(r - first + 1);
      for (size_t i = first; i <= r; ++i) {
        rebased[i - first] =
            static_cast<uint32_t>(static_cast<size_t>(values[i]) - start);
      }
      rows->offsets.push_back(std::move(rebased));
      rows->chunks.push_back(
          {Batch{base + start, rows->offsets.back().data(), r - first},
           first});
    }
  }
  rows_ = std::move(rows);
}

std::shared_ptr<const RowSet> RowsFrom(
    const py::handle& urls, const char* arg,
    const std::shared_ptr<RowSet>& storage) {
  if (py::isinstance<ArrowBatch>(urls))
    return urls.cast<const ArrowBatch&>().rows();
  PyObject* object = urls.ptr();
  const bool sequence = PyList_Check(object) || PyTuple_Check(object);
  if (sequence || py::isinstance<py::array>(urls)) {
    std::shared_ptr<RowSet> rows =
        storage ? storage : std::make_shared<RowSet>();
    if (sequence) {
      FromObjects(PySequence_Fast_ITEMS(object),
                  static_cast<size_t>(PySequence_Fast_GET_SIZE(object)), arg,
                  rows.get());
    } else {
      FromArray(urls, arg, rows.get());
    }
    return rows;
  }
  if (PyUnicode_Check(object) || PyBytes_Check(object)) {
    throw py::type_error(std::string(arg) + ": expected a batch of URI "
                         "references, got a single " + TypeName(urls) +
                         " (wrap it in a list)");
  }
  throw py::type_error(std::string(arg) +
                       ": expected a list of str or bytes, a NumPy array "
                       "(str_, bytes_ or object), a pandas Series or a "
                       "uriscan.Batch, got " + TypeName(urls));
}

std::shared_ptr<const RowSet> Repaired(const RowSet& given,
                                       std::vector<uint8_t>* repaired) {
  if (repaired) repaired->assign(given.rows, 0);
  auto out = std::make_shared<RowSet>();
  py::gil_scoped_release release;
  std::string text;
  std::vector<size_t> lengths;
  lengths.reserve(given.rows);
  for (const Chunk& chunk : given.chunks) {
    const Batch& b = chunk.batch;
    for (size_t i = 0; i < b.count; ++i) {
      const size_t at = text.size();
      const bool changed = RepairReference(
          std::string_view(b.data + b.offsets[i],
                           b.offsets[i + 1] - b.offsets[i]),
          &text);
      if (repaired) (*repaired)[chunk.first_row + i] = changed;
      lengths.push_back(text.size() - at);
    }
  }
  Layout layout(lengths, "urls", out.get());
  size_t at = 0;
  for (size_t r = 0; r < lengths.size(); ++r) {
    std::memcpy(layout.RowDestination(r), text.data() + at, lengths[r]);
    at += lengths[r];
  }
  layout.Finish();
  return out;
}

std::shared_ptr<const RowSet> InputRows(const py::handle& urls, bool lenient,
                                        const std::shared_ptr<RowSet>& storage) {
  std::shared_ptr<const RowSet> given = RowsFrom(urls, "urls", storage);
  return lenient ? Repaired(*given, nullptr) : given;
}

std::string_view RowText(const RowSet& rows, size_t row, size_t* chunk) {
  while (row >= rows.chunks[*chunk].first_row + rows.chunks[*chunk].batch.count)
    ++*chunk;
  const Batch& b = rows.chunks[*chunk].batch;
  const size_t i = row - rows.chunks[*chunk].first_row;
  return {b.data + b.offsets[i], b.offsets[i + 1] - b.offsets[i]};
}

}  // namespace python
}  // namespace uriscan
