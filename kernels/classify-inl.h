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
#include "kernels/class_tables.h"
#include "kernels/kernels.h"
#include "kernels/ops-inl.h"
#include "kernels/planes-inl.h"

HWY_BEFORE_NAMESPACE();
namespace uriscan {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;
using namespace kernels;  // NOLINT: the Class names

using BlockMasks = uint64_t[kNumClasses];

// How a target's stage 1 turns class bytes into masks:
//   kByteLoop      one lane (HWY_SCALAR): the rectangles tested byte by byte;
//   kMaskRegisters AVX-512: one test per class into a mask register;
//   kTopBits       every other target: each class brought to bit 7 of its
//                  bytes in as few operations as the tables allow, then one
//                  mask move (vpmovmskb on x86, the limit there).
enum class ClassifyVariant { kByteLoop, kMaskRegisters, kTopBits };
inline constexpr ClassifyVariant kClassifyVariant =
    HWY_TARGET == HWY_SCALAR ? ClassifyVariant::kByteLoop
    : URISCAN_MASK_REGISTERS ? ClassifyVariant::kMaskRegisters
                             : ClassifyVariant::kTopBits;

// A table pair's class byte for each byte of v: the entries of its low and
// of its high nibble ANDed. x86's byte shuffle reads only the low nibble of
// an index and gives 0 when its bit 7 is set (a byte the high-nibble table
// maps to 0 anyway), so there the bytes index the low table as they are.
template <class D, class V>
HWY_INLINE V LookupPair(D d, const uint8_t* low_table, const uint8_t* high_table,
                        V v) {
  const V nibble = hn::Set(d, 15);
#if HWY_ARCH_X86 && HWY_TARGET != HWY_EMU128
  const V low = v;
#else
  const V low = hn::And(v, nibble);
#endif
  return hn::And(hn::TableLookupBytes(hn::LoadDup128(d, low_table), low),
                 hn::TableLookupBytes(hn::LoadDup128(d, high_table),
                                      hn::And(hn::ShiftRight<4>(v), nibble)));
}

// The '%' bits among class bits (see kernels::Class).
HWY_INLINE uint64_t PercentBits(uint64_t colon_slash, uint64_t question_hash_at,
                                uint64_t digit_percent_colon_hash,
                                uint64_t not_alnum) {
  return digit_percent_colon_hash & not_alnum & ~(colon_slash | question_hash_at);
}

// kByteLoop: one lane has no 16-byte table lookup, so bytes go one by one
// through the same rectangles.
template <bool kLines>
HWY_INLINE uint64_t ClassifyBlockByBytes(const uint8_t* HWY_RESTRICT p,
                                         uint64_t* HWY_RESTRICT masks,
                                         uint64_t* pct) {
  BlockMasks out;
  for (int k = 0; k < kNumClasses; ++k) out[k] = 0;
  uint64_t hex = 0;
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
}

// The classes of the 64 bytes at p (all readable) into block j's words
// (masks[k * kMaskStride]), kStop without its '%' part; its '%' bits in
// *pct. Returns the block's HEXDIG bits when it or the block before holds
// a '%' (`wanted`; see PercentWithoutHex), else 0: '%' is rare, and a
// table lookup and a mask move or two per vector are saved almost always
// (on AVX-512 too, where testing HEXDIG in every block measured slower,
// also on the '%'-heavy generated corpus). The tables are loaded here; the
// loop that inlines this keeps them in registers.
template <bool kLines>
HWY_INLINE uint64_t ClassifyBlock(const uint8_t* HWY_RESTRICT p,
                                  uint64_t* HWY_RESTRICT masks, bool wanted,
                                  uint64_t* pct) {
  *pct = 0;
#if HWY_TARGET == HWY_SCALAR  // kByteLoop
  (void)wanted;
  return ClassifyBlockByBytes<kLines>(p, masks, pct);
#else
  {
    // At most 64 lanes: a block is 64 bytes (SVE vectors may be longer).
    const hn::CappedTag<uint8_t, 64> d;
    using V = hn::Vec<decltype(d)>;
    const size_t n = hn::Lanes(d);
    V c_any = hn::Zero(d);  // kTopBits: the table-C bits of the block's bytes
    V b_min = hn::Set(d, 0xFF);  // kTopBits: the least table-B byte
    for (size_t i = 0; i < 64; i += n) {
      const V v = hn::LoadU(d, p + i);
      const V a = LookupPair(d, kTableALow, kTableAHigh, v);
      const V b = LookupPair(d, kTableBLow, kTableBHigh, v);
      const V c = LookupPair(d, kTableCLow, kTableCHigh, v);
      if constexpr (kClassifyVariant == ClassifyVariant::kMaskRegisters) {
        // One test per class. The odd classes leave through a
        // general-purpose register, the others straight from the mask
        // register (see PutBits); '%' is a test of its own, moved out only
        // when there is one.
        PutBits(d, hn::Eq(b, hn::Zero(d)), i, masks + kStop * kMaskStride, false);
        PutBits(d, AnyBit(c, hn::Set(d, kCColonSlash)), i,
                masks + kColonSlash * kMaskStride, true);
        PutBits(d, AnyBit(c, hn::Set(d, kCQuestionHashAt)), i,
                masks + kQuestionHashAt * kMaskStride, false);
        PutBits(d, AnyBit(a, hn::Set(d, kADigitPercentColonHash)), i,
                masks + kDigitPercentColonHash * kMaskStride, true);
        PutBits(d, AnyBit(b, hn::Set(d, kBUpperDotAt)), i,
                masks + kUpperDotAt * kMaskStride, false);
        PutBits(d, NoBit(a, hn::Set(d, kAAlnum)), i,
                masks + kNotAlnum * kMaskStride, true);
        if (kLines) {
          PutBits(d, AnyBit(c, hn::Set(d, kCNewline)), i,
                  masks + kNewline * kMaskStride, false);
        }
        const auto percent = AnyBit(c, hn::Set(d, kCPercent));
        if (HWY_UNLIKELY(!hn::AllFalse(d, percent))) {
          *pct |= MaskBits(d, percent) << i;
        }
      } else {
        // '%' is rare: one test per block says whether there is one, and
        // only then are its bits found (below).
        const V to_top_20 = hn::Set(d, kFrom0x20ToTop);
        const V to_top_08 = hn::Set(d, kFrom0x08ToTop);
        const uint64_t question_hash_at =
            TopBits(d, hn::SaturatedAdd(c, to_top_20));
        // kStop (a table-B byte of 0) is rare too: see below.
        b_min = hn::Min(b_min, b);
        StoreBits(d,
                  TopBits(d, hn::SaturatedAdd(c, to_top_08)) & ~question_hash_at,
                  i, masks + kColonSlash * kMaskStride);
        StoreBits(d, question_hash_at, i, masks + kQuestionHashAt * kMaskStride);
        // DIGIT '%' ':' '#': its table-A bits are 0x08-0x38.
        StoreBits(d,
                  TopBits(d, hn::SaturatedAdd(
                                 hn::And(a, hn::Set(d, kADigitPercentColonHash)),
                                 to_top_08)),
                  i, masks + kDigitPercentColonHash * kMaskStride);
        StoreBits(d, TopBits(d, hn::SaturatedAdd(b, to_top_20)), i,
                  masks + kUpperDotAt * kMaskStride);
        StoreBits(d, TopBits(d, hn::SaturatedSub(hn::Set(d, kBelow0x20ToTop), a)),
                  i, masks + kNotAlnum * kMaskStride);
        if (kLines) {
          StoreBits(d, MaskBits(d, hn::Eq(c, hn::Set(d, kCNewline))), i,
                    masks + kNewline * kMaskStride);
        }
        c_any = hn::Or(c_any, c);
      }
    }
    if (kClassifyVariant == ClassifyVariant::kTopBits) {
      // A byte allowed nowhere is rare: one test per block says whether
      // there is one, and only then are its bits found (a mask move per
      // vector saved, the limit of this variant).
      masks[kStop * kMaskStride] = 0;
      if (HWY_UNLIKELY(!hn::AllFalse(d, hn::Eq(b_min, hn::Zero(d))))) {
        for (size_t i = 0; i < 64; i += n) {
          const V b = LookupPair(d, kTableBLow, kTableBHigh, hn::LoadU(d, p + i));
          PutBits(d, hn::Eq(b, hn::Zero(d)), i, masks + kStop * kMaskStride);
        }
      }
    }
    if (kClassifyVariant == ClassifyVariant::kTopBits &&
        HWY_UNLIKELY(!NoLaneHasBit(d, c_any, hn::Set(d, kCPercent)))) {
      for (size_t i = 0; i < 64; i += n) {
        const V c = LookupPair(d, kTableCLow, kTableCHigh, hn::LoadU(d, p + i));
        *pct |= MaskBits(d, AnyBit(c, hn::Set(d, kCPercent))) << i;
      }
    }
    uint64_t hex = 0;
    if (HWY_UNLIKELY(wanted || *pct != 0)) {
      for (size_t i = 0; i < 64; i += n) {
        const V h = LookupPair(d, kTableHLow, kTableHHigh, hn::LoadU(d, p + i));
        PutBits(d, hn::Ne(h, hn::Zero(d)), i, &hex);
      }
    }
    return hex;
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
    // In place (ScanLines), the text is often a mapped file, whose pages
    // lie anywhere: the hardware prefetchers stop at each page's end, so a
    // page ahead is asked for here, one line a block. (A hint: nothing is
    // read past the end.)
    if (kLines) __builtin_prefetch(data + j * 64 + 4096);
    uint64_t pct;
    const uint64_t hex =
        ClassifyBlock<kLines>(data + j * 64, masks + j, prev_pct != 0, &pct);
    settle(j, hex, pct);
  }
  if (whole < blocks) {
    HWY_ALIGN uint8_t tail[64] = {0};
    const size_t rest = size - whole * 64;
    std::memcpy(tail, data + whole * 64, rest);
    uint64_t pct;
    const uint64_t hex =
        ClassifyBlock<kLines>(tail, masks + whole, prev_pct != 0, &pct);
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
