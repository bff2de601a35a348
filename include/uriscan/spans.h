// SPDX-License-Identifier: MIT
// Batches of URI references (Arrow string-array layout) and ComponentSpans,
// the struct-of-arrays output of a scan.
#ifndef URISCAN_SPANS_H_
#define URISCAN_SPANS_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "uriscan/error.h"
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
[[nodiscard]] bool BatchFromLines(std::string_view bytes, OwnedBatch* out);
// How many lines BatchFromLines would make of `bytes`, without copying.
size_t CountLines(std::string_view bytes);

// The result of a scan, one row per URI reference, one column per boundary.
// All offsets are absolute byte offsets into the batch's `data`, so any
// component of row i is a [begin, end) slice with no copy.
//
//   f o o : / / u s e r @ e x a m p l e . c o m : 8 0 4 2 / o v e r ? n = 1 # n o s e
//   ^      ^    ^       ^^                       ^^        ^          ^^     ^^        ^
//   |      |    |       ||                       ||        |          ||     ||        uri_end
//   |      |    |       ||                       ||        |          ||     |fragment_begin
//   |      |    |       ||                       ||        |          ||     '#' (query end)
//   |      |    |       ||                       ||        |          |query_begin
//   |      |    |       ||                       ||        |          path_end ('?')
//   |      |    |       ||                       ||        path_begin (port end)
//   |      |    |       ||                       |port_begin
//   |      |    |       ||                       host_end (':')
//   |      |    |       |host_begin
//   |      |    |       userinfo_end ('@')
//   |      |    authority_begin (userinfo begins here)
//   |      scheme_end (':')
//   uri_begin
//
// Undefined components are empty, placed where they would start, and the
// flags column says which are defined (flags::kHas*). For an invalid row
// every boundary column holds uri_begin except uri_end, flags is 0, and
// error_kind / error_offset say what broke where (offset from uri_begin).
struct ComponentSpans {
  std::vector<uint32_t> uri_begin, scheme_end, authority_begin, userinfo_end,
      host_begin, host_end, port_begin, path_begin, path_end, query_begin,
      fragment_begin, uri_end;
  std::vector<uint16_t> flags;
  std::vector<uint8_t> error_kind;     // an ErrorKind; 0 = valid
  std::vector<uint32_t> error_offset;  // from uri_begin; 0 when valid

  size_t size() const { return uri_begin.size(); }
  // Sizes every column to n rows (one allocation per column, reused when the
  // capacity suffices).
  void Resize(size_t n);
  // Writes row i from a parse of the reference that starts at `begin`.
  void SetRow(size_t i, uint32_t begin, const UriReference& uri);
  // Row i as a UriReference over `data` (the batch's data).
  UriReference Row(size_t i, const char* data) const;
  ScanError Error(size_t i) const {
    return {static_cast<ErrorKind>(error_kind[i]), error_offset[i]};
  }
  // Invariant check: boundaries never decrease, the error columns agree
  // with flags, everything stays inside [uri_begin, uri_end].
  bool Validate(size_t i) const;

  // Scratch for Scan(): the byte-class bitmasks of the batch (about 1.5
  // bytes per input byte), kept to be reused by the next scan.
  std::vector<uint64_t> masks_;
};

// Scans every reference of `batch` into `*spans` (resized to batch.count)
// with the SIMD kernels of the best Highway target this CPU supports; rows
// the fast path cannot settle (invalid ones, IP literals) go to the scalar
// parser. Never stops at an invalid reference;
// allocates only when growing columns. Reads no byte at or past
// data + offsets[count].
void Scan(const Batch& batch, ComponentSpans* spans);
// The same with the scalar parser alone: the oracle. Every column of Scan()
// is bit-identical to this one's, on every target.
void ScanScalar(const Batch& batch, ComponentSpans* spans);

}  // namespace uriscan

#endif  // URISCAN_SPANS_H_
