// SPDX-License-Identifier: MIT
// Batches of URI references (Arrow string-array layout) and ComponentSpans,
// the struct-of-arrays output of a scan.
#ifndef URISCAN_SPANS_H_
#define URISCAN_SPANS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "uriscan/error.h"
#include "uriscan/export.h"
#include "uriscan/uri.h"

namespace uriscan {

// A batch: `count` URI references stored back to back in `data`; reference i
// is [offsets[i], offsets[i + 1]). `offsets` holds count + 1 non-decreasing
// values, the last <= the size of `data`. Both arrays belong to the caller.
struct Batch {
  const char* data = nullptr;
  const uint32_t* offsets = nullptr;
  size_t count = 0;

  std::string_view Get(size_t i) const {
    return std::string_view(data + offsets[i], offsets[i + 1] - offsets[i]);
  }
};

// A batch that owns its storage, for callers that start from text.
struct OwnedBatch {
  std::vector<char> data;
  std::vector<uint32_t> offsets{0};
  size_t size() const { return offsets.size() - 1; }
  Batch view() const { return Batch{data.data(), offsets.data(), size()}; }
};

// Builds a batch from newline-separated bytes: one reference per line, the
// "\n" dropped and a "\r" just before it too (a lone "\r" stays, and makes
// that line invalid). A last line without "\n" is kept; an empty input gives
// zero lines. `*out` is replaced, its capacity reused. Returns false (and
// leaves zero lines) when the lines add up to 4 GiB or more, as offsets are
// 32-bit: the caller cuts longer inputs into several batches.
[[nodiscard]] URISCAN_EXPORT bool BatchFromLines(std::string_view bytes,
                                                 OwnedBatch* out);
// How many lines BatchFromLines would make of `bytes`, without copying.
URISCAN_EXPORT size_t CountLines(std::string_view bytes);

// The boundary columns of ComponentSpans, in order: uri_begin, the inner
// boundaries of uri.h, uri_end.
#define URISCAN_SPAN_BOUNDARIES(X) \
  X(uri_begin) URISCAN_INNER_BOUNDARIES(X) X(uri_end)

// The result of a scan, one row per URI reference, one column per boundary.
// All offsets are absolute byte offsets into the scanned bytes (the batch's
// `data`, or the text given to ScanLines), so any component of row i is a
// [begin, end) slice with no copy. Each caret sits under the byte the
// column's offset names:
//
//   foo://user@example.com:8042/over?n=1#nose
//   ^  ^  ^   ^^          ^^   ^    ^^   ^   ^
//   |  |  |   ||          ||   |    ||   |   uri_end (one past the last byte)
//   |  |  |   ||          ||   |    ||   fragment_begin
//   |  |  |   ||          ||   |    |query_begin
//   |  |  |   ||          ||   |    path_end (the '?')
//   |  |  |   ||          ||   path_begin (the port ends here)
//   |  |  |   ||          |port_begin
//   |  |  |   ||          host_end (the ':')
//   |  |  |   |host_begin
//   |  |  |   userinfo_end (the '@')
//   |  |  authority_begin (userinfo begins here)
//   |  scheme_end (the ':')
//   uri_begin
//
// The query "n=1" is [query_begin, fragment_begin - 1) here, and the query
// ends at uri_end when there is no fragment.
// Undefined components are empty, placed where they would start, and the
// flags column says which are defined (flags::kHas*). For an invalid row
// every boundary column holds uri_begin except uri_end, flags is 0, and
// error_kind / error_offset say what broke where (offset from uri_begin).
struct URISCAN_EXPORT ComponentSpans {
#define URISCAN_SPAN_COLUMN(name) std::vector<uint32_t> name;
  URISCAN_SPAN_BOUNDARIES(URISCAN_SPAN_COLUMN)
#undef URISCAN_SPAN_COLUMN
  std::vector<uint16_t> flags;
  std::vector<uint8_t> error_kind;     // an ErrorKind; 0 = valid
  std::vector<uint32_t> error_offset;  // from uri_begin; 0 when valid

  size_t size() const { return uri_begin.size(); }
  // Sizes every column to n rows (one allocation per column, reused when the
  // capacity suffices).
  void Resize(size_t n);
  // Writes row i from a parse of the reference that starts at `begin`.
  void SetRow(size_t i, uint32_t begin, const UriReference& uri);
  // Row i as a UriReference over `data` (the scanned bytes).
  UriReference Row(size_t i, const char* data) const;
  ScanError Error(size_t i) const {
    return {static_cast<ErrorKind>(error_kind[i]), error_offset[i]};
  }
  // Invariant check: boundaries never decrease, the error columns agree
  // with flags, everything stays inside [uri_begin, uri_end].
  bool Validate(size_t i) const;
};

// Scans batches with the SIMD kernels of the best Highway target this CPU
// supports; rows the fast path cannot settle (invalid ones, IP literals,
// rows over 512 bytes) go to the scalar parser. A scan never stops at an
// invalid reference and allocates only when the columns grow. A Scanner
// owns the kernels' scratch (about 120 KiB): keep one per thread and reuse
// it; it is not safe to share one between threads.
class URISCAN_EXPORT Scanner {
 public:
  Scanner();
  ~Scanner();
  Scanner(const Scanner&) = delete;
  Scanner& operator=(const Scanner&) = delete;

  // Scans every reference of `batch` into `*spans` (resized to
  // batch.count). Reads no byte at or past data + offsets[count].
  void Scan(const Batch& batch, ComponentSpans* spans);
  // Scans newline-separated text in place: one row per line, split as
  // BatchFromLines() splits (the "\n" and a "\r" just before it are not part
  // of the row), with uri_begin / uri_end pointing into `text`, so nothing
  // is copied. `*spans` is resized to the number of lines. Returns false
  // (and zero rows) when text is 4 GiB or more: offsets are 32-bit.
  // `lines`, when the caller has counted them already (CountLines), sizes
  // the columns once instead of from a guess; a wrong count costs time,
  // never rows.
  [[nodiscard]] bool ScanLines(std::string_view text, ComponentSpans* spans,
                               size_t lines = 0);
  // ScanLines() on the first lines of `text` only, at most max_rows of
  // them: for a caller that bounds its memory by rows rather than bytes
  // (a chunk of empty lines is a row per byte). Returns the bytes those
  // lines take, their newlines included: scan text.substr(returned) next.
  // Returns 0 (and zero rows) when max_rows is 0 or text is 4 GiB or more.
  size_t ScanLinesUpTo(std::string_view text, ComponentSpans* spans,
                       size_t max_rows);

 private:
  size_t ScanFirstLines(std::string_view text, ComponentSpans* spans,
                        size_t lines, size_t max_rows);
  struct Scratch;
  std::unique_ptr<Scratch> scratch_;
};

// The Highway target the kernels dispatch to on this machine ("AVX3_DL",
// "AVX2", "NEON", "SVE2", ...). Thread-safe.
URISCAN_EXPORT const char* DispatchedTargetName();

// The environment variable URISCAN_TARGET, read once before the first scan,
// picks a lower target than the best one this CPU supports: a name as
// DispatchedTargetName() prints it (case does not matter) runs the kernels
// on that target, every better one disabled, when this build has it and
// the CPU supports it; any other value changes nothing. For measuring and
// for working around a CPU fault, never needed for correct results (every
// target gives the same output). Returns the variable's value, nullptr when
// it is unset or empty; *honoured (if given) says whether it took effect.
URISCAN_EXPORT const char* RequestedTarget(bool* honoured);

// Scanner::Scan() on a scanner of the calling thread's own (created on the
// thread's first call).
URISCAN_EXPORT void Scan(const Batch& batch, ComponentSpans* spans);
// The same with the scalar parser alone: the oracle. Every column of Scan()
// and ScanLines() is bit-identical to this one's, on every target.
URISCAN_EXPORT void ScanScalar(const Batch& batch, ComponentSpans* spans);

}  // namespace uriscan

#endif  // URISCAN_SPANS_H_
