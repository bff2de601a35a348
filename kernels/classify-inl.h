// SPDX-License-Identifier: MIT
// Stage 1, per target: 64 bytes in, one uint64_t bitmask per byte class out
// (bit i = byte i), by nibble-table lookups (on AVX3_DL CPUs with GFNI,
// by kernels/planes-inl.h instead). Included once per target.
#if defined(URISCAN_KERNELS_CLASSIFY_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef URISCAN_KERNELS_CLASSIFY_INL_H_
#undef URISCAN_KERNELS_CLASSIFY_INL_H_
#else
#define URISCAN_KERNELS_CLASSIFY_INL_H_
#endif

#include <cstring>

#include "hwy/highway.h"
#include "kernels/kernels.h"
#include "kernels/planes-inl.h"

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
// 3-4 lower case (6,1-F) (7,0-A); bit 5 '%' (2,5); bit 6 the hex letters
// (4 6,1-6); bit 7 '.' (2,E).
// Table B: the bytes the fast path accepts (unreserved, reserved but '['
// and ']', and '%'), as seven rectangles; a byte with no B bit is kStop.
alignas(16) inline constexpr uint8_t kTableALow[16] = {
    0x15, 0x5F, 0x5F, 0x5F, 0x5F, 0x7F, 0x5F, 0x1F,
    0x1F, 0x1F, 0x1E, 0x0A, 0x0A, 0x0A, 0x8A, 0x0A};
alignas(16) inline constexpr uint8_t kTableAHigh[16] = {
    0, 0, 0xA0, 0x01, 0x42, 0x04, 0x48, 0x10, 0, 0, 0, 0, 0, 0, 0, 0};
alignas(16) inline constexpr uint8_t kTableBLow[16] = {
    0x02, 0x01, 0x12, 0x01, 0x01, 0x01, 0x01, 0x01,
    0x01, 0x01, 0x01, 0x0C, 0x04, 0x0C, 0x24, 0x4C};
alignas(16) inline constexpr uint8_t kTableBHigh[16] = {
    0, 0, 0x05, 0x0B, 0x07, 0x43, 0x15, 0x23, 0, 0, 0, 0, 0, 0, 0, 0};
inline constexpr uint8_t kADigit = 0x01, kAUpper = 0x06, kAAlnum = 0x1F,
                         kAPercent = 0x20, kAHex = 0x41, kADot = 0x80;

// The four tables and the single-byte classes' bytes, set up once per
// window and kept in registers across its blocks.
struct ClassVectors {
#if HWY_TARGET != HWY_SCALAR
  using V = hn::Vec<hn::ScalableTag<uint8_t>>;
  V a_low, a_high, b_low, b_high, nibble;
  V colon, slash, question, hash, at, newline;
  V digit_or_percent, upper_or_dot, alnum, hexdig;
#endif
};
HWY_INLINE ClassVectors LoadClassVectors() {
  ClassVectors t;
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<uint8_t> d;
  t.a_low = hn::LoadDup128(d, kTableALow);
  t.a_high = hn::LoadDup128(d, kTableAHigh);
  t.b_low = hn::LoadDup128(d, kTableBLow);
  t.b_high = hn::LoadDup128(d, kTableBHigh);
  t.nibble = hn::Set(d, 15);
  t.colon = hn::Set(d, ':');
  t.slash = hn::Set(d, '/');
  t.question = hn::Set(d, '?');
  t.hash = hn::Set(d, '#');
  t.at = hn::Set(d, '@');
  t.newline = hn::Set(d, '\n');
  t.digit_or_percent = hn::Set(d, kADigit | kAPercent);
  t.upper_or_dot = hn::Set(d, kAUpper | kADot);
  t.alnum = hn::Set(d, kAAlnum);
  t.hexdig = hn::Set(d, kAHex);
#endif
  return t;
}

#if HWY_TARGET != HWY_SCALAR
// The lanes of a that hold any bit of `bits`, and those that hold none: one
// vptestmb / vptestnmb on AVX-512 (Highway's TestBit wants every bit).
// Elsewhere AnyBit costs one more operation (a vector NOT) than NoBit:
// ClassifyBlock takes NoBit there and complements the bits in a
// general-purpose register.
template <class V>
HWY_INLINE auto AnyBit(V a, V bits) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  return hn::Mask512<uint8_t>{_mm512_test_epi8_mask(a.raw, bits.raw)};
#else
  return hn::Ne(hn::And(a, bits), hn::Zero(hn::DFromV<V>()));
#endif
}
template <class V>
HWY_INLINE auto NoBit(V a, V bits) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  return hn::Mask512<uint8_t>{_mm512_testn_epi8_mask(a.raw, bits.raw)};
#else
  return hn::Eq(hn::And(a, bits), hn::Zero(hn::DFromV<V>()));
#endif
}
#endif

// The bits of mask m (lanes of d) as an integer, bit i = lane i.
template <class D, class M>
HWY_INLINE uint64_t MaskBits(D d, M m) {
  uint8_t bytes[8];
  hn::StoreMaskBits(d, m, bytes);
  // Exactly the bytes stored, so the load is forwarded from the store.
  uint64_t bits = 0;
  std::memcpy(&bits, bytes, (hn::MaxLanes(D()) + 7) / 8);
  return bits;  // x86 and Arm are little-endian here
}

// The bits of mask m (lanes of d) into *word from bit lane0 on, complemented
// when `negate`; returns them. Stored straight from the mask (a multiple of
// 8 lanes, x86 and Arm are little-endian here): no shifting and merging in
// general-purpose registers, which cost more than the mask moves
// themselves. On AVX-512 the bits go to memory without a general-purpose
// register unless `via_register`, and then 0 is returned; `negate` is not
// supported there (AnyBit is one operation).
template <class D, class M>
HWY_INLINE uint64_t PutBits(D d, M m, size_t lane0, uint64_t* word,
                            bool via_register = false, bool negate = false) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  // Zen 4 moves a mask register to memory, or to a general-purpose
  // register, every other cycle, but does both kinds at once: the caller
  // sends half the classes each way.
  (void)d;
  (void)lane0;
  (void)negate;
  if (via_register) {
    uint64_t bits = _cvtmask64_u64(m.raw);
    asm("" : "+r"(bits));  // else GCC stores the mask register directly
    *word = bits;
    return bits;
  }
  _store_mask64(reinterpret_cast<__mmask64*>(word), m.raw);
  return 0;
#else
  (void)via_register;
  constexpr size_t kLanes = hn::MaxLanes(D());
  uint64_t bits = MaskBits(d, m);
  if (negate) bits = ~bits & (kLanes >= 64 ? ~uint64_t{0} : (uint64_t{1} << kLanes) - 1);
  if constexpr (kLanes >= 8) {
    std::memcpy(reinterpret_cast<uint8_t*>(word) + lane0 / 8, &bits, kLanes / 8);
  } else {  // HWY_SCALAR: one lane, ORed in
    *word |= bits << lane0;
  }
  return bits;
#endif
}

// The classes of the 64 bytes at p (all readable) into block j's words
// (masks[k * kMaskStride]), kStop without its '%' part; its '%' bits in
// *pct. Returns the block's HEXDIG bits when it or the block before holds
// a '%' (`wanted`; see PercentWithoutHex), else 0: '%' is rare, and a
// table lookup and a mask move or two per vector are saved almost always
// (on AVX-512 too, where testing HEXDIG in every block measured slower,
// also on the '%'-heavy generated corpus).
template <bool kLines>
HWY_INLINE uint64_t ClassifyBlock(const uint8_t* HWY_RESTRICT p,
                                  const ClassVectors& t,
                                  uint64_t* HWY_RESTRICT masks, bool wanted,
                                  uint64_t* pct) {
  *pct = 0;
#if HWY_TARGET == HWY_SCALAR
  (void)t;
  (void)wanted;
  BlockMasks out;
  for (int k = 0; k < kNumClasses; ++k) out[k] = 0;
  uint64_t hex = 0;
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
    if (c == '@' || c == '#') out[kAtOrHash] |= bit;
    if (a & (kADigit | kAPercent)) out[kDigitOrPercent] |= bit;
    if (a & (kAUpper | kADot)) out[kUpperOrDot] |= bit;
    if (!(a & kAAlnum)) out[kNotAlnum] |= bit;
    if (kLines && c == '\n') out[kNewline] |= bit;
    if (a & kAHex) hex |= bit;
  }
  // kNewline is the last class, and written in line mode only.
  constexpr int kWritten = kLines ? kNumClasses : kNewline;
  for (int k = 0; k < kWritten; ++k) masks[k * kMaskStride] = out[k];
  *pct = out[kDigitOrPercent] & out[kNotAlnum];
  return hex;
#else
  const hn::ScalableTag<uint8_t> d;
  const size_t n = hn::Lanes(d);
  // A table pair's class byte for each byte of v: the entries of its low
  // and of its high nibble ANDed.
  using V = decltype(hn::LoadU(d, p));
  auto lookup = [&](V low_table, V high_table, V v) {
    return hn::And(hn::TableLookupBytes(low_table, hn::And(v, t.nibble)),
                   hn::TableLookupBytes(high_table,
                                        hn::And(hn::ShiftRight<4>(v), t.nibble)));
  };
  // On AVX-512 the odd classes leave through a general-purpose register
  // (see PutBits), kDigitOrPercent and kNotAlnum among them: their '%'
  // part is taken from those registers.
  static_assert(kDigitOrPercent % 2 == 1 && kNotAlnum % 2 == 1, "");
  for (size_t i = 0; i < 64; i += n) {
    const auto v = hn::LoadU(d, p + i);
    const auto a = lookup(t.a_low, t.a_high, v);
    const auto b = lookup(t.b_low, t.b_high, v);
    const auto hash = hn::Eq(v, t.hash);
    auto put = [&](int k, auto m, bool negate = false) {
      return PutBits(d, m, i, masks + k * kMaskStride, k % 2 == 1, negate);
    };
    // A class of the table A bits `bits`: AnyBit, or NoBit complemented.
    auto put_any = [&](int k, V bits) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
      return put(k, AnyBit(a, bits));
#else
      return put(k, NoBit(a, bits), true);
#endif
    };
    put(kStop, hn::Eq(b, hn::Zero(d)));
    put(kColon, hn::Eq(v, t.colon));
    put(kSlash, hn::Eq(v, t.slash));
    put(kQuery, hn::Or(hn::Eq(v, t.question), hash));
    put(kAtOrHash, hn::Or(hn::Eq(v, t.at), hash));
    const uint64_t digit_or_percent = put_any(kDigitOrPercent, t.digit_or_percent);
    put_any(kUpperOrDot, t.upper_or_dot);
    const uint64_t not_alnum = put(kNotAlnum, NoBit(a, t.alnum));
    *pct |= (digit_or_percent & not_alnum) << i;
    if (kLines) put(kNewline, hn::Eq(v, t.newline));
  }
  uint64_t hex = 0;
  if (HWY_UNLIKELY(wanted || *pct != 0)) {
    for (size_t i = 0; i < 64; i += n) {
      const auto a = lookup(t.a_low, t.a_high, hn::LoadU(d, p + i));
      PutBits(d, AnyBit(a, t.hexdig), i, &hex);
    }
  }
  return hex;
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
// blocks of zeros. kNewline is not written unless kLines. The whole blocks
// are read in place; the last partial one goes through a zeroed stack copy
// after the loop (no call inside it, so the class vectors stay in
// registers), and nothing past `size` is read.
template <bool kLines>
HWY_INLINE void ClassifyWindow(const uint8_t* HWY_RESTRICT data, size_t size,
                               uint64_t* HWY_RESTRICT masks) {
  const size_t whole = size / 64, blocks = (size + 63) / 64;
  auto pad = [&] {
    for (int k = 0; k < kNumClasses; ++k) {
      std::memset(masks + k * kMaskStride + blocks, 0,
                  kPadBlocks * sizeof(uint64_t));
    }
  };
#if HWY_TARGET == HWY_AVX3_DL
  if (CpuHasGfni()) {
    ClassifyWindowGfni<kLines>(data, size, masks);
    pad();
    return;
  }
#endif
  const ClassVectors t = LoadClassVectors();
  uint64_t prev_hex = 0, prev_pct = 0;
  // Settles block j - 1's '%' bits once block j's HEXDIG bits are known.
  auto settle = [&](size_t j, uint64_t hex, uint64_t pct) {
    if (prev_pct != 0) {
      masks[kStop * kMaskStride + j - 1] |=
          PercentWithoutHex(prev_pct, prev_hex, hex);
    }
    prev_hex = hex;
    prev_pct = pct;
  };
  for (size_t j = 0; j < whole; ++j) {
    uint64_t pct;
    const uint64_t hex =
        ClassifyBlock<kLines>(data + j * 64, t, masks + j, prev_pct != 0, &pct);
    settle(j, hex, pct);
  }
  if (whole < blocks) {
    HWY_ALIGN uint8_t tail[64] = {0};
    const size_t rest = size - whole * 64;
    std::memcpy(tail, data + whole * 64, rest);
    uint64_t pct;
    const uint64_t hex =
        ClassifyBlock<kLines>(tail, t, masks + whole, prev_pct != 0, &pct);
    const uint64_t keep = (uint64_t{1} << rest) - 1;
    for (int k = 0; k < (kLines ? kNumClasses : kNewline); ++k)
      masks[k * kMaskStride + whole] &= keep;
    settle(whole, hex & keep, pct);  // no '%' in the zeroed part
  }
  settle(blocks, 0, 0);
  pad();
}

}  // namespace HWY_NAMESPACE
}  // namespace uriscan
HWY_AFTER_NAMESPACE();

#endif  // include guard
