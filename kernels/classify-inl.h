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

// Table pairs classify a byte by its nibbles: a class bit is set when
// both the low-nibble and the high-nibble entry hold it, so each bit is a
// rectangle of (high, low) nibbles. High nibbles 8-F select nothing.
// Table A: bit 3 '#' '%' (2,3 5); bit 4 ':' (3,A); bit 5 DIGIT (3,0-9);
// bits 6-7 ALPHA (4 6,1-F) (5 7,0-A). ALPHA / DIGIT are the top three
// bits: those bytes are the ones >= 0x20.
// Table B: the bytes the fast path accepts (unreserved, reserved but '['
// and ']', and '%'); a byte with no B bit is kStop. Its top three bits are
// exactly kUpperDotAt: bit 5 '.' (2,E), bit 6 upper case (5,0-A), bit 7
// '@' and upper case (4,0-F), so those bytes are the ones >= 0x20; five
// more rectangles cover the rest: (3 4 5 7,0-A) (2 4 6,1 3-F) (6 7,2 E)
// (3 4,B D) (3 4 5,F).
// Table C, one bit per byte value: bit 1 '\n' (0,A); bit 2 '%' (2,5); bit 3
// '/' (2,F); bit 4 ':' (3,A); bit 5 '@' (4,0); bit 6 '#' (2,3); bit 7 '?'
// (3,F). '?' '#' '@' are the bytes >= 0x20, ':' '/' the bytes 0x08-0x1F.
// Table H, looked up next to a '%' only: bit 0 DIGIT, bit 1 the hex
// letters (4 6,1-6).
alignas(16) inline constexpr uint8_t kTableALow[16] = {
    0xA0, 0xE0, 0xE0, 0xE8, 0xE0, 0xE8, 0xE0, 0xE0,
    0xE0, 0xE0, 0xD0, 0x40, 0x40, 0x40, 0x40, 0x40};
alignas(16) inline constexpr uint8_t kTableAHigh[16] = {
    0, 0, 0x08, 0x30, 0x40, 0x80, 0x40, 0x80, 0, 0, 0, 0, 0, 0, 0, 0};
alignas(16) inline constexpr uint8_t kTableBLow[16] = {
    0xC1, 0xC3, 0xC5, 0xC3, 0xC3, 0xC3, 0xC3, 0xC3,
    0xC3, 0xC3, 0xC3, 0x8A, 0x82, 0x8A, 0xA6, 0x92};
alignas(16) inline constexpr uint8_t kTableBHigh[16] = {
    0, 0, 0x22, 0x19, 0x9B, 0x51, 0x06, 0x05, 0, 0, 0, 0, 0, 0, 0, 0};
alignas(16) inline constexpr uint8_t kTableCLow[16] = {
    0x20, 0, 0, 0x40, 0, 0x04, 0, 0, 0, 0, 0x12, 0, 0, 0, 0, 0x88};
alignas(16) inline constexpr uint8_t kTableCHigh[16] = {
    0x02, 0, 0x4C, 0x90, 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
alignas(16) inline constexpr uint8_t kTableHLow[16] = {
    1, 3, 3, 3, 3, 3, 3, 1, 1, 1, 0, 0, 0, 0, 0, 0};
alignas(16) inline constexpr uint8_t kTableHHigh[16] = {
    0, 0, 0, 1, 2, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0};
// Table A's, B's and C's bits of each class (see kernels::Class).
inline constexpr uint8_t kADigitPercentColonHash = 0x38, kBUpperDotAt = 0xE0,
                         kAAlnum = 0xE0, kCColonSlash = 0x18,
                         kCQuestionHashAt = 0xE0, kCPercent = 0x04,
                         kCNewline = 0x02;

// The tables and the single-byte classes' bytes, set up once per window
// and kept in registers across its blocks.
struct ClassVectors {
#if HWY_TARGET != HWY_SCALAR
  using V = hn::Vec<hn::ScalableTag<uint8_t>>;
  V a_low, a_high, b_low, b_high, c_low, c_high, nibble;
  V digit_percent_colon_hash, upper_dot_at, alnum;
  V colon_slash, question_hash_at, percent, newline;
  // Saturating addends that bring "byte >= 0x20" (table B: 'A'-'Z' '.'
  // '@'; table C: '?' '#' '@') and "byte >= 0x08" (table C: ':' '/' '?'
  // '#' '@') to bit 7, and the minuend whose saturating difference has
  // bit 7 for "byte < 0x20" (table A: not ALPHA / DIGIT).
  V from_0x20_to_top, from_0x08_to_top, below_0x20_to_top;
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
  t.c_low = hn::LoadDup128(d, kTableCLow);
  t.c_high = hn::LoadDup128(d, kTableCHigh);
  t.nibble = hn::Set(d, 15);
  t.digit_percent_colon_hash = hn::Set(d, kADigitPercentColonHash);
  t.upper_dot_at = hn::Set(d, kBUpperDotAt);
  t.alnum = hn::Set(d, kAAlnum);
  t.colon_slash = hn::Set(d, kCColonSlash);
  t.question_hash_at = hn::Set(d, kCQuestionHashAt);
  t.percent = hn::Set(d, kCPercent);
  t.newline = hn::Set(d, kCNewline);
  t.from_0x20_to_top = hn::Set(d, 0x80 - 0x20);
  t.from_0x08_to_top = hn::Set(d, 0x80 - 0x08);
  t.below_0x20_to_top = hn::Set(d, 0x80 + 0x1F);
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

#if HWY_TARGET != HWY_SCALAR
// No lane of a holds any bit of `bits`: one vptest on SSE4 and AVX2.
template <class V>
HWY_INLINE bool NoLaneHasBit(V a, V bits) {
#if HWY_TARGET == HWY_AVX2
  return _mm256_testz_si256(a.raw, bits.raw) != 0;
#elif HWY_TARGET == HWY_SSE4
  return _mm_testz_si128(a.raw, bits.raw) != 0;
#else
  return hn::AllTrue(hn::DFromV<V>(), NoBit(a, bits));
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

// Bits of lanes of d (an integer, bit i = lane i) into *word from bit
// lane0 on: a store of their bytes (a multiple of 8 lanes, x86 and Arm are
// little-endian here), no shifting and merging in general-purpose
// registers, which cost more than the mask moves themselves.
template <class D>
HWY_INLINE void StoreBits(D, uint64_t bits, size_t lane0, uint64_t* word) {
  constexpr size_t kLanes = hn::MaxLanes(D());
  if constexpr (kLanes >= 8) {
    std::memcpy(reinterpret_cast<uint8_t*>(word) + lane0 / 8, &bits, kLanes / 8);
  } else {  // HWY_SCALAR: one lane, ORed in
    *word |= bits << lane0;
  }
}

// The bits of mask m (lanes of d) into *word from bit lane0 on; returns
// them. On AVX-512 they go to memory without a general-purpose register
// unless `via_register`, and then 0 is returned.
template <class D, class M>
HWY_INLINE uint64_t PutBits(D d, M m, size_t lane0, uint64_t* word,
                            bool via_register = false) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  // Zen 4 moves a mask register to memory, or to a general-purpose
  // register, every other cycle, but does both kinds at once: the caller
  // sends half the classes each way.
  (void)d;
  (void)lane0;
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
  const uint64_t bits = MaskBits(d, m);
  StoreBits(d, bits, lane0, word);
  return bits;
#endif
}

#if HWY_TARGET != HWY_SCALAR
// The lanes of v whose byte has bit 7 set, as an integer (bit i = lane i):
// one vpmovmskb on x86.
template <class D, class V>
HWY_INLINE uint64_t TopBits(D d, V v) {
#if HWY_TARGET == HWY_AVX2
  (void)d;
  return static_cast<uint32_t>(_mm256_movemask_epi8(v.raw));
#elif HWY_TARGET == HWY_SSE4 || HWY_TARGET == HWY_SSSE3
  (void)d;
  return static_cast<uint32_t>(_mm_movemask_epi8(v.raw));
#else
  const hn::RebindToSigned<D> di;
  return MaskBits(d, hn::RebindMask(d, hn::Lt(hn::BitCast(di, v), hn::Zero(di))));
#endif
}
#endif

// The '%' bits among class bits (see kernels::Class).
HWY_INLINE uint64_t PercentBits(uint64_t colon_slash, uint64_t question_hash_at,
                                uint64_t digit_percent_colon_hash,
                                uint64_t not_alnum) {
  return digit_percent_colon_hash & not_alnum & ~(colon_slash | question_hash_at);
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
    if (c == ':' || c == '/') out[kColonSlash] |= bit;
    if (c == '?' || c == '#' || c == '@') out[kQuestionHashAt] |= bit;
    if (a & kADigitPercentColonHash) out[kDigitPercentColonHash] |= bit;
    if (b & kBUpperDotAt) out[kUpperDotAt] |= bit;
    if (!(a & kAAlnum)) out[kNotAlnum] |= bit;
    if (kLines && c == '\n') out[kNewline] |= bit;
    if (kTableHLow[lo] & kTableHHigh[hi]) hex |= bit;
  }
  // kNewline is the last class, and written in line mode only.
  constexpr int kWritten = kLines ? kNumClasses : kNewline;
  for (int k = 0; k < kWritten; ++k) masks[k * kMaskStride] = out[k];
  *pct = PercentBits(out[kColonSlash], out[kQuestionHashAt],
                     out[kDigitPercentColonHash], out[kNotAlnum]);
  return hex;
#else
  const hn::ScalableTag<uint8_t> d;
  const size_t n = hn::Lanes(d);
  // A table pair's class byte for each byte of v: the entries of its low
  // and of its high nibble ANDed. x86's byte shuffle reads only the low
  // nibble of an index, and gives 0 when its bit 7 is set (a byte the
  // high-nibble table maps to 0 anyway), so the bytes index the low table
  // as they are there.
  using V = decltype(hn::LoadU(d, p));
  auto lookup = [&](V low_table, V high_table, V v) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_EMU128
    const V low = v;
#else
    const V low = hn::And(v, t.nibble);
#endif
    return hn::And(hn::TableLookupBytes(low_table, low),
                   hn::TableLookupBytes(high_table,
                                        hn::And(hn::ShiftRight<4>(v), t.nibble)));
  };
#if !(HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL)
  V c_any = hn::Zero(d);  // the table-C bits of the block's bytes
#endif
  for (size_t i = 0; i < 64; i += n) {
    const auto v = hn::LoadU(d, p + i);
    const auto a = lookup(t.a_low, t.a_high, v);
    const auto b = lookup(t.b_low, t.b_high, v);
    const auto c = lookup(t.c_low, t.c_high, v);
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    // One test per class. The odd classes leave through a general-purpose
    // register, the others straight from the mask register (see PutBits);
    // '%' is a test of its own, moved out only when there is one.
    auto put = [&](int k, auto m) {
      PutBits(d, m, i, masks + k * kMaskStride, k % 2 == 1);
    };
    put(kStop, hn::Eq(b, hn::Zero(d)));
    put(kColonSlash, AnyBit(c, t.colon_slash));
    put(kQuestionHashAt, AnyBit(c, t.question_hash_at));
    put(kDigitPercentColonHash, AnyBit(a, t.digit_percent_colon_hash));
    put(kUpperDotAt, AnyBit(b, t.upper_dot_at));
    put(kNotAlnum, NoBit(a, t.alnum));
    if (kLines) put(kNewline, AnyBit(c, t.newline));
    const auto percent = AnyBit(c, t.percent);
    if (HWY_UNLIKELY(!hn::AllFalse(d, percent))) *pct |= MaskBits(d, percent) << i;
#else
    // Every mask leaves through a general-purpose register (vpmovmskb on
    // x86, the limit here), so each class is brought to bit 7 of its bytes
    // in as few operations as the tables allow: one saturating add or
    // subtract for the classes that are the bytes above or below a
    // threshold; an AND and an add for DIGIT '%' ':' '#' (its table-A bits
    // are 0x08-0x38). '%' is rare: one test per block says whether there
    // is one, and only then are its bits found.
    auto put = [&](int k, uint64_t bits) {
      StoreBits(d, bits, i, masks + k * kMaskStride);
    };
    const uint64_t question_hash_at =
        TopBits(d, hn::SaturatedAdd(c, t.from_0x20_to_top));
    put(kStop, MaskBits(d, hn::Eq(b, hn::Zero(d))));
    put(kColonSlash,
        TopBits(d, hn::SaturatedAdd(c, t.from_0x08_to_top)) & ~question_hash_at);
    put(kQuestionHashAt, question_hash_at);
    put(kDigitPercentColonHash,
        TopBits(d, hn::SaturatedAdd(hn::And(a, t.digit_percent_colon_hash),
                                    t.from_0x08_to_top)));
    put(kUpperDotAt, TopBits(d, hn::SaturatedAdd(b, t.from_0x20_to_top)));
    put(kNotAlnum, TopBits(d, hn::SaturatedSub(t.below_0x20_to_top, a)));
    if (kLines) put(kNewline, MaskBits(d, hn::Eq(c, t.newline)));
    c_any = hn::Or(c_any, c);
#endif
  }
#if !(HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL)
  if (HWY_UNLIKELY(!NoLaneHasBit(c_any, t.percent))) {
    for (size_t i = 0; i < 64; i += n) {
      const auto c = lookup(t.c_low, t.c_high, hn::LoadU(d, p + i));
      *pct |= MaskBits(d, AnyBit(c, t.percent)) << i;
    }
  }
#endif
  uint64_t hex = 0;
  if (HWY_UNLIKELY(wanted || *pct != 0)) {
    const V h_low = hn::LoadDup128(d, kTableHLow);
    const V h_high = hn::LoadDup128(d, kTableHHigh);
    for (size_t i = 0; i < 64; i += n) {
      const auto h = lookup(h_low, h_high, hn::LoadU(d, p + i));
      PutBits(d, hn::Ne(h, hn::Zero(d)), i, &hex);
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
