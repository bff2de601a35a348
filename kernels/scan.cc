// SPDX-License-Identifier: MIT
// The SIMD batch scanner: stage 1 classifies a window of a few KiB into an
// L1-resident set of class masks; stage 2 settles one URI per 64-bit lane
// on 64- to 512-byte windows of those masks.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/scan.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <algorithm>
#include <cstring>

#include "hwy/highway.h"
#include "kernels/classify-inl.h"
#include "kernels/kernels.h"
#include "kernels/rows-inl.h"
#include "kernels/structure-inl.h"

HWY_BEFORE_NAMESPACE();
namespace uriscan {
namespace HWY_NAMESPACE {
namespace {

// The position of the lowest set bit, 64 for none (tzcnt where BMI is).
HWY_INLINE uint32_t LowestBitOr64(uint64_t bits) {
  return bits ? static_cast<uint32_t>(hwy::Num0BitsBelowLS1Bit_Nonzero64(bits))
              : 64u;
}

// A row for the scalar parser alone.
HWY_INLINE void LeaveToScalar(const kernels::SpanColumns& cols, size_t row,
                              uint32_t b, uint32_t e) {
  cols.uri_begin[row] = b;
  cols.uri_end[row] = e;
  cols.error_kind[row] = kernels::kNeedsScalar;
  cols.error_offset[row] = 0;
}

}  // namespace

// Exported per target (HWY_EXPORT needs them outside the anonymous
// namespace).
void ScanBatch(const uint8_t* data, const uint32_t* offsets, size_t count,
               const kernels::ScanScratch& scratch,
               const kernels::SpanColumns& cols) {
  size_t i = 0;
  while (i < count) {
    const uint32_t base = offsets[i] & ~uint32_t{63};
    // The rows that end inside the window: offsets never decrease.
    const uint32_t* last = std::upper_bound(
        offsets + i + 1, offsets + count + 1,
        static_cast<uint32_t>(HWY_MIN(uint64_t{base} + kernels::kWindowBytes,
                                      uint64_t{0xFFFFFFFFu})));
    const size_t j = static_cast<size_t>(last - offsets) - 1;
    if (j == i) {  // a row longer than a window
      LeaveToScalar(cols, i, offsets[i], offsets[i + 1]);
      ++i;
      continue;
    }
    ClassifyWindow<false>(data + base, offsets[j] - base, scratch.masks);
    ScanWindowRows(data, scratch.masks, base,
                   RowSet{offsets + i, offsets + i + 1, j - i, i, nullptr},
                   scratch, cols);
    i = j;
  }
}

size_t ScanLines(const uint8_t* data, size_t size, size_t begin,
                 const kernels::ScanScratch& scratch,
                 const kernels::SpanColumns& cols, size_t row0,
                 size_t capacity, size_t* rows_out) {
  size_t pos = begin, row = row0;
  while (pos < size && row < capacity) {
    const size_t base = pos & ~size_t{63};
    const size_t window_end = HWY_MIN(size, base + kernels::kWindowBytes);
    ClassifyWindow<true>(data + base, window_end - base, scratch.masks);
    // The newlines from pos on, four per block without a branch per line
    // (simdjson's flattening), more in a loop; then as many rows as fit.
    uint32_t* ends = scratch.line_end;
    const uint64_t* newlines = scratch.masks + kNewline * kMaskStride;
    const size_t blocks = (window_end - base + 63) / 64;
    const size_t first = (pos - base) / 64;
    size_t n = 0;
    for (size_t k = first; k < blocks; ++k) {
      uint64_t bits = newlines[k];
      if (k == first) bits &= ~uint64_t{0} << ((pos - base) & 63);
      const uint32_t at = static_cast<uint32_t>(base + k * 64);
      const size_t count = hwy::PopCount(bits);
      for (size_t i = 0; i < 4; ++i) {
        ends[n + i] = at + LowestBitOr64(bits);
        bits &= bits - 1;
      }
      for (size_t i = 4; i < count; ++i) {
        ends[n + i] = at + LowestBitOr64(bits);
        bits &= bits - 1;
      }
      n += count;
    }
    n = HWY_MIN(n, capacity - row);
    // Each row ends at its "\n", or at a "\r" just before it.
    size_t line = pos;
    for (size_t i = 0; i < n; ++i) {
      const uint32_t nl = ends[i];
      const bool nonempty = nl > line;
      const bool cr = data[nl - nonempty] == '\r';  // data[nl] is '\n'
      scratch.line_begin[i] = static_cast<uint32_t>(line);
      ends[i] = nl - (nonempty && cr);
      line = nl + size_t{1};
    }
    if (window_end == size && line < size && row + n < capacity) {
      scratch.line_begin[n] = static_cast<uint32_t>(line);  // no "\n" at the end
      scratch.line_end[n] = static_cast<uint32_t>(size);
      ++n;
      line = size;
    }
    if (n == 0) {  // a line longer than a window
      const void* nl = std::memchr(data + pos, '\n', size - pos);
      size_t end = nl ? static_cast<size_t>(static_cast<const uint8_t*>(nl) - data) : size;
      const size_t next = nl ? end + 1 : size;
      if (nl && end > pos && data[end - 1] == '\r') --end;
      LeaveToScalar(cols, row++, static_cast<uint32_t>(pos),
                    static_cast<uint32_t>(end));
      pos = next;
      continue;
    }
    ScanWindowRows(data, scratch.masks, static_cast<uint32_t>(base),
                   RowSet{scratch.line_begin, scratch.line_end, n, row, nullptr},
                   scratch, cols);
    row += n;
    pos = line;
  }
  *rows_out = row;
  return pos;
}

void Classify(const uint8_t* data, size_t size, uint64_t* masks) {
  for (size_t at = 0; at < size; at += kernels::kWindowBytes)
    ClassifyWindow<false>(data + at, HWY_MIN(kernels::kWindowBytes, size - at),
                          masks);
}

void CountClasses(const uint8_t* data, size_t size,
                  uint64_t counts[kNumClasses]) {
  HWY_ALIGN uint64_t masks[kernels::kScratchMaskWords];
  for (size_t at = 0; at < size; at += kernels::kWindowBytes) {
    const size_t n = HWY_MIN(kernels::kWindowBytes, size - at);
    ClassifyWindow<true>(data + at, n, masks);
    for (int k = 0; k < kNumClasses; ++k) {
      for (size_t j = 0; j < (n + 63) / 64; ++j)
        counts[k] += hwy::PopCount(masks[k * kMaskStride + j]);
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace uriscan
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace uriscan {
namespace {
HWY_EXPORT(ScanBatch);
HWY_EXPORT(ScanLines);
HWY_EXPORT(Classify);
HWY_EXPORT(CountClasses);
}  // namespace

namespace kernels {
void ScanBatch(const uint8_t* data, const uint32_t* offsets, size_t count,
               const ScanScratch& scratch, const SpanColumns& cols) {
  ApplyTargetRequest();
  HWY_DYNAMIC_DISPATCH(ScanBatch)(data, offsets, count, scratch, cols);
}
size_t ScanLines(const uint8_t* data, size_t size, size_t begin,
                 const ScanScratch& scratch, const SpanColumns& cols,
                 size_t row0, size_t capacity, size_t* rows_out) {
  ApplyTargetRequest();
  return HWY_DYNAMIC_DISPATCH(ScanLines)(data, size, begin, scratch, cols,
                                         row0, capacity, rows_out);
}
void Classify(const uint8_t* data, size_t size, uint64_t* masks) {
  ApplyTargetRequest();
  HWY_DYNAMIC_DISPATCH(Classify)(data, size, masks);
}
void CountClasses(const uint8_t* data, size_t size,
                  uint64_t counts[kNumClasses]) {
  ApplyTargetRequest();
  HWY_DYNAMIC_DISPATCH(CountClasses)(data, size, counts);
}
}  // namespace kernels
}  // namespace uriscan
#endif  // HWY_ONCE
