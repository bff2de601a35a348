// SPDX-License-Identifier: MIT
// Stage 1, per target: 64 bytes in, one uint64_t bitmask per byte class out
// (bit i = byte i), by nibble-table lookups. Included once per target.
#if defined(URISCAN_KERNELS_CLASSIFY_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef URISCAN_KERNELS_CLASSIFY_INL_H_
#undef URISCAN_KERNELS_CLASSIFY_INL_H_
#else
#define URISCAN_KERNELS_CLASSIFY_INL_H_
#endif

#include <cstring>

#include "hwy/highway.h"
#include "kernels/kernels.h"

HWY_BEFORE_NAMESPACE();
namespace uriscan {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;
using namespace kernels;  // NOLINT: the Class names

using BlockMasks = uint64_t[kNumClasses];

// Two table pairs classify a byte by its nibbles: a class bit is set when
// both the low-nibble and the high-nibble entry hold it, so each bit is a
// rectangle of (high, low) nibbles. High nibbles 8-F select nothing.
// Table A: bit 0 DIGIT (3,0-9); bits 1-2 upper case (4,1-F) (5,0-A); bits
// 3-4 lower case (6,1-F) (7,0-A); bit 5 "+" "-" "." (2,B D E); bit 6 the
// hex letters (4 6,1-6).
// Table B: the bytes the fast path accepts (unreserved, reserved but '['
// and ']', and '%'), as seven rectangles; a byte with no B bit is kStop.
alignas(16) inline constexpr uint8_t kTableALow[16] = {
    0x15, 0x5F, 0x5F, 0x5F, 0x5F, 0x5F, 0x5F, 0x1F,
    0x1F, 0x1F, 0x1E, 0x2A, 0x0A, 0x2A, 0x2A, 0x0A};
alignas(16) inline constexpr uint8_t kTableAHigh[16] = {
    0, 0, 0x20, 0x01, 0x42, 0x04, 0x48, 0x10, 0, 0, 0, 0, 0, 0, 0, 0};
alignas(16) inline constexpr uint8_t kTableBLow[16] = {
    0x02, 0x01, 0x12, 0x01, 0x01, 0x01, 0x01, 0x01,
    0x01, 0x01, 0x01, 0x0C, 0x04, 0x0C, 0x24, 0x4C};
alignas(16) inline constexpr uint8_t kTableBHigh[16] = {
    0, 0, 0x05, 0x0B, 0x07, 0x43, 0x15, 0x23, 0, 0, 0, 0, 0, 0, 0, 0};
inline constexpr uint8_t kADigit = 0x01, kAUpper = 0x06, kAAlpha = 0x1E,
                         kAScheme = 0x3F, kAHex = 0x41;

// The four tables, loaded once per window (one 16-byte copy per 128 bits).
struct NibbleTables {
#if HWY_TARGET != HWY_SCALAR
  hn::Vec<hn::ScalableTag<uint8_t>> a_low, a_high, b_low, b_high;
#endif
};
HWY_INLINE NibbleTables LoadNibbleTables() {
  NibbleTables t;
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<uint8_t> d;
  t.a_low = hn::LoadDup128(d, kTableALow);
  t.a_high = hn::LoadDup128(d, kTableAHigh);
  t.b_low = hn::LoadDup128(d, kTableBLow);
  t.b_high = hn::LoadDup128(d, kTableBHigh);
#endif
  return t;
}

// ORs the bits of mask m (lanes of d) into *word at bit lane0.
template <class D, class M>
HWY_INLINE void AddBits(D d, M m, size_t lane0, uint64_t* word) {
  constexpr size_t kBytes = (hn::MaxLanes(D()) + 7) / 8;
  uint8_t bytes[8];
  hn::StoreMaskBits(d, m, bytes);
  // Exactly the bytes stored, so the load is forwarded from the store.
  uint64_t bits = 0;
  std::memcpy(&bits, bytes, kBytes);  // x86 and Arm are little-endian here
  *word |= bits << lane0;
}

// The classes of the 64 bytes at p (all readable), kStop without its '%'
// part, and the HEXDIG mask that part needs (see PercentTriplets).
template <bool kLines>
HWY_INLINE void ClassifyBlock(const uint8_t* HWY_RESTRICT p,
                              const NibbleTables& tables, BlockMasks& out,
                              uint64_t* hex) {
  for (int k = 0; k < kNumClasses; ++k) out[k] = 0;
  *hex = 0;
#if HWY_TARGET == HWY_SCALAR
  (void)tables;
  // One lane: a 16-byte table lookup is not available, so bytes go one by
  // one through the same rectangles.
  for (size_t i = 0; i < 64; ++i) {
    const uint8_t c = p[i], lo = c & 15, hi = c >> 4;
    const uint8_t a = kTableALow[lo] & kTableAHigh[hi];
    const uint8_t b = kTableBLow[lo] & kTableBHigh[hi];
    const uint64_t bit = uint64_t{1} << i;
    if (b == 0) out[kStop] |= bit;
    if (c == ':') out[kColon] |= bit;
    if (c == '/') out[kSlash] |= bit;
    if (c == '?' || c == '#') out[kQuery] |= bit;
    if (c == '#') out[kHash] |= bit;
    if (c == '@') out[kAt] |= bit;
    if (c == '%') out[kPercent] |= bit;
    if (a & kADigit) out[kDigit] |= bit;
    if (c == '.') out[kDot] |= bit;
    if (a & kAUpper) out[kUpper] |= bit;
    if (!(a & kAScheme)) out[kNotScheme] |= bit;
    if (!(a & kAAlpha)) out[kNotAlpha] |= bit;
    if (kLines && c == '\n') out[kNewline] |= bit;
    if (a & kAHex) *hex |= bit;
  }
#else
  const hn::ScalableTag<uint8_t> d;
  const size_t n = hn::Lanes(d);
  const auto zero = hn::Zero(d);
  const NibbleTables& t = tables;
  const auto nibble = hn::Set(d, 15);
  for (size_t i = 0; i < 64; i += n) {
    const auto v = hn::LoadU(d, p + i);
    const auto lo = hn::And(v, nibble);
    const auto hi = hn::And(hn::ShiftRight<4>(v), nibble);
    const auto a = hn::And(hn::TableLookupBytes(t.a_low, lo),
                           hn::TableLookupBytes(t.a_high, hi));
    const auto b = hn::And(hn::TableLookupBytes(t.b_low, lo),
                           hn::TableLookupBytes(t.b_high, hi));
    auto eq = [&](char c) { return hn::Eq(v, hn::Set(d, static_cast<uint8_t>(c))); };
    auto any = [&](uint8_t bits) { return hn::Ne(hn::And(a, hn::Set(d, bits)), zero); };
    const auto hash = eq('#');
    AddBits(d, hn::Eq(b, zero), i, &out[kStop]);
    AddBits(d, eq(':'), i, &out[kColon]);
    AddBits(d, eq('/'), i, &out[kSlash]);
    AddBits(d, hn::Or(eq('?'), hash), i, &out[kQuery]);
    AddBits(d, hash, i, &out[kHash]);
    AddBits(d, eq('@'), i, &out[kAt]);
    AddBits(d, eq('%'), i, &out[kPercent]);
    AddBits(d, any(kADigit), i, &out[kDigit]);
    AddBits(d, eq('.'), i, &out[kDot]);
    AddBits(d, any(kAUpper), i, &out[kUpper]);
    AddBits(d, hn::Not(any(kAScheme)), i, &out[kNotScheme]);
    AddBits(d, hn::Not(any(kAAlpha)), i, &out[kNotAlpha]);
    if (kLines) AddBits(d, eq('\n'), i, &out[kNewline]);
    AddBits(d, any(kAHex), i, hex);
  }
#endif
}

// pct-encoded = "%" HEXDIG HEXDIG (RFC 3986 section 2.1): the '%' bits of a
// block that two HEXDIG do not follow, given the HEXDIG bits of the block
// and of the next one (0 past the end of the bytes).
HWY_INLINE uint64_t PercentWithoutHex(uint64_t pct, uint64_t hex,
                                      uint64_t next_hex) {
  const uint64_t hex1 = (hex >> 1) | (next_hex << 63);
  const uint64_t hex2 = (hex >> 2) | (next_hex << 62);
  return pct & ~(hex1 & hex2);
}

// Stage 1 over data[0, size), at most kWindowBytes: class k's mask of block
// j at masks[k * kMaskStride + j], bits past `size` clear, then kPadBlocks
// blocks of zeros. kNewline is left zero unless kLines. The last partial block goes through a zeroed stack copy,
// so nothing past `size` is read.
template <bool kLines>
HWY_INLINE void ClassifyWindow(const uint8_t* HWY_RESTRICT data, size_t size,
                               uint64_t* HWY_RESTRICT masks) {
  const size_t blocks = (size + 63) / 64;
  const NibbleTables tables = LoadNibbleTables();
  uint64_t prev_hex = 0;
  for (size_t j = 0; j < blocks; ++j) {
    BlockMasks block;
    uint64_t hex;
    if ((j + 1) * 64 <= size) {
      ClassifyBlock<kLines>(data + j * 64, tables, block, &hex);
    } else {
      HWY_ALIGN uint8_t tail[64] = {0};
      std::memcpy(tail, data + j * 64, size - j * 64);
      ClassifyBlock<kLines>(tail, tables, block, &hex);
      const uint64_t keep = (uint64_t{1} << (size - j * 64)) - 1;
      for (int k = 0; k < kNumClasses; ++k) block[k] &= keep;
      hex &= keep;
    }
    for (int k = 0; k < kNumClasses; ++k) masks[k * kMaskStride + j] = block[k];
    if (j > 0) {
      masks[kStop * kMaskStride + j - 1] |= PercentWithoutHex(
          masks[kPercent * kMaskStride + j - 1], prev_hex, hex);
    }
    prev_hex = hex;
  }
  if (blocks > 0) {
    masks[kStop * kMaskStride + blocks - 1] |= PercentWithoutHex(
        masks[kPercent * kMaskStride + blocks - 1], prev_hex, 0);
  }
  for (int k = 0; k < kNumClasses; ++k) {
    std::memset(masks + k * kMaskStride + blocks, 0,
                kPadBlocks * sizeof(uint64_t));
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace uriscan
HWY_AFTER_NAMESPACE();

#endif  // include guard
