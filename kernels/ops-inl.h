// SPDX-License-Identifier: MIT
// The kernels' per-target islands: the few operations where one target has
// an instruction that Highway 1.0.3 does not offer, each with the portable
// Highway form beside it (the one NEON, SVE, SVE2, SSE4 and the emulated
// targets take). Nothing else in kernels/ names an instruction set.
// Included once per target.
#if defined(URISCAN_KERNELS_OPS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef URISCAN_KERNELS_OPS_INL_H_
#undef URISCAN_KERNELS_OPS_INL_H_
#else
#define URISCAN_KERNELS_OPS_INL_H_
#endif

#include <cstring>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace uriscan {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// AVX-512 (AVX3, AVX3_DL): compares land in mask registers, which move to
// memory or to a general-purpose register one at a time.
#undef URISCAN_MASK_REGISTERS
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
#define URISCAN_MASK_REGISTERS 1
#else
#define URISCAN_MASK_REGISTERS 0
#endif

// SSSE3 to AVX2: one vpmovmskb turns bit 7 of every byte into an integer.
#undef URISCAN_BYTE_MOVEMASK
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_SSE4 || \
    HWY_TARGET == HWY_SSSE3
#define URISCAN_BYTE_MOVEMASK 1
#else
#define URISCAN_BYTE_MOVEMASK 0
#endif

// AVX2: four 64-bit lanes, but no 64-bit lane permute by vector and
// gathers that cost more than loads: stage 2 loads each lane's adjacent
// class words as one 16-byte pair (see Window in rows-inl.h).
#undef URISCAN_LANE_PAIR_LOADS
#if HWY_TARGET == HWY_AVX2
#define URISCAN_LANE_PAIR_LOADS 1
#else
#define URISCAN_LANE_PAIR_LOADS 0
#endif

// AVX3_DL (VBMI2): one vpcompressb packs the bytes a mask keeps.
#undef URISCAN_BYTE_COMPRESS
#if HWY_TARGET == HWY_AVX3_DL
#define URISCAN_BYTE_COMPRESS 1
#else
#define URISCAN_BYTE_COMPRESS 0
#endif

// The bytes of the 64-byte vector v whose bit of `keep` is set, packed to
// its front. Highway 1.0.3 emulates an 8-bit Compress with a table lookup
// per 8 bytes; that is the portable form.
template <class D, class V>
HWY_INLINE V CompressBytes(D d, V v, uint64_t keep) {
  static_assert(hn::MaxLanes(D()) == 64, "a whole 64-byte block");
#if URISCAN_BYTE_COMPRESS
  (void)d;
  return V{_mm512_maskz_compress_epi8(keep, v.raw)};
#else
  uint8_t bytes[8];
  std::memcpy(bytes, &keep, sizeof(keep));  // little-endian, as MaskBits
  return hn::Compress(v, hn::LoadMaskBits(d, bytes));
#endif
}

// The lanes of a that hold any bit of `bits`, and those that hold none (one
// vptestmb / vptestnmb on AVX-512; Highway's TestBit wants every bit).
template <class V>
HWY_INLINE auto AnyBit(V a, V bits) {
#if URISCAN_MASK_REGISTERS
  return hn::Mask512<uint8_t>{_mm512_test_epi8_mask(a.raw, bits.raw)};
#else
  return hn::Ne(hn::And(a, bits), hn::Zero(hn::DFromV<V>()));
#endif
}
template <class V>
HWY_INLINE auto NoBit(V a, V bits) {
#if URISCAN_MASK_REGISTERS
  return hn::Mask512<uint8_t>{_mm512_testn_epi8_mask(a.raw, bits.raw)};
#else
  return hn::Eq(hn::And(a, bits), hn::Zero(hn::DFromV<V>()));
#endif
}

// No lane of a (lanes of d, any width) holds any bit of `bits` (one
// vptest on SSE4 and AVX2).
template <class D, class V>
HWY_INLINE bool NoLaneHasBit(D d, V a, V bits) {
#if HWY_TARGET == HWY_AVX2
  (void)d;
  return _mm256_testz_si256(a.raw, bits.raw) != 0;
#elif HWY_TARGET == HWY_SSE4
  (void)d;
  return _mm_testz_si128(a.raw, bits.raw) != 0;
#else
  return hn::AllFalse(d, hn::Ne(hn::And(a, bits), hn::Zero(d)));
#endif
}

// The bits of mask m (lanes of d, at most 64) as an integer, bit i = lane
// i. Highway's StoreMaskBits is the portable form (NEON has no movemask;
// Highway narrows and adds there).
template <class D, class M>
HWY_INLINE uint64_t MaskBits(D d, M m) {
  uint8_t bytes[8] = {0};
  hn::StoreMaskBits(d, m, bytes);
  uint64_t bits = 0;
  // Exactly the bytes stored, so the load is forwarded from the store.
  static_assert(hn::MaxLanes(D()) <= 64, "a block is at most 64 lanes");
  std::memcpy(&bits, bytes, (hn::MaxLanes(D()) + 7) / 8);
  return bits;  // x86 and Arm are little-endian here
}

// The lanes of v (lanes of d) whose byte has bit 7 set, as an integer.
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

// `bits`, the bits of lanes lane0.. of a 64-lane block (lanes of d), into
// *word. Where the lane count is a constant, a store of their bytes (no
// shift and merge in general-purpose registers, which cost more than the
// mask moves themselves); on the scalable targets, shifted and merged.
template <class D>
HWY_INLINE void StoreBits(D d, uint64_t bits, size_t lane0, uint64_t* word) {
  constexpr size_t kLanes = hn::MaxLanes(D());
  if constexpr (!HWY_HAVE_SCALABLE && kLanes >= 8) {
    (void)d;
    std::memcpy(reinterpret_cast<uint8_t*>(word) + lane0 / 8, &bits, kLanes / 8);
  } else {
    const size_t n = hn::Lanes(d);
    const uint64_t mine = n >= 64 ? ~uint64_t{0} : ((uint64_t{1} << n) - 1) << lane0;
    *word = (lane0 == 0 ? 0 : (*word & ~mine)) | (bits << lane0);
  }
}

// The bits of mask m (lanes of d) into *word from bit lane0 on. On AVX-512
// they go to memory without a general-purpose register unless
// `via_register`: Zen 4 moves a mask register to memory, or to a
// general-purpose register, every other cycle, but does both kinds at
// once, so a caller sends half its masks each way.
template <class D, class M>
HWY_INLINE void PutBits(D d, M m, size_t lane0, uint64_t* word,
                        bool via_register = false) {
#if URISCAN_MASK_REGISTERS
  (void)d;
  (void)lane0;
  if (via_register) {
    uint64_t bits = _cvtmask64_u64(m.raw);
    asm("" : "+r"(bits));  // else GCC stores the mask register directly
    *word = bits;
    return;
  }
  _store_mask64(reinterpret_cast<__mmask64*>(word), m.raw);
#else
  (void)via_register;
  StoreBits(d, MaskBits(d, m), lane0, word);
#endif
}

// 64-bit lanes from here on: stage 2 holds one URI reference per lane.
using D64 = hn::ScalableTag<uint64_t>;
using V64 = hn::Vec<D64>;
using M64 = hn::Mask<D64>;

HWY_INLINE V64 K(uint64_t c) { return hn::Set(D64(), c); }

// x86 vector shifts by 64 or more give 0 (vpsllvq, and psllq lane by lane),
// which makes OneAt two operations there. Not the emulated targets: their
// shifts are C++ shifts.
#undef URISCAN_WIDE_SHIFTS_ARE_ZERO
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
#define URISCAN_WIDE_SHIFTS_ARE_ZERO 1
#else
#define URISCAN_WIDE_SHIFTS_ARE_ZERO 0
#endif

// A funnel shift: bits `shift`.. of word, then next's, where `back` is
// FunnelBack(shift). One vpshrdvq with AVX-512 VBMI2; where a shift by 64
// gives 0, next shifted left by 64 - shift; elsewhere by 63 - shift and 1
// more (a shift by 64 is undefined there).
HWY_INLINE V64 FunnelBack(V64 shift) {
  return hn::Sub(K(URISCAN_WIDE_SHIFTS_ARE_ZERO ? 64 : 63), shift);
}
HWY_INLINE V64 Funnel(V64 word, V64 next, V64 shift, V64 back) {
#if HWY_TARGET == HWY_AVX3_DL
  (void)back;
  return V64{_mm512_shrdv_epi64(word.raw, next.raw, shift.raw)};
#elif URISCAN_WIDE_SHIFTS_ARE_ZERO
  return hn::Or(hn::Shr(word, shift), hn::Shl(next, back));
#else
  return hn::Or(hn::Shr(word, shift), hn::ShiftLeft<1>(hn::Shl(next, back)));
#endif
}

// v + kC in the lanes of m, v elsewhere. Where masks are vectors of all
// ones (-1), an AND and an add (a subtraction for 1): a blend is three
// micro-ops on Intel's AVX2 cores. Where they are mask registers or
// predicates, a masked add.
template <uint64_t kC>
HWY_INLINE V64 AddIf(M64 m, V64 v) {
#if URISCAN_MASK_REGISTERS || HWY_HAVE_SCALABLE
  return hn::IfThenElse(m, hn::Add(v, K(kC)), v);
#else
  if constexpr (kC == 1) return hn::Sub(v, hn::VecFromMask(D64(), m));
  return hn::Add(v, hn::IfThenElseZero(m, K(kC)));
#endif
}

// Positions are small, so signed compares are exact (and exist on every
// 1.0.3 target).
HWY_INLINE M64 Less(V64 a, V64 b) {
  const hn::RebindToSigned<D64> di;
  return hn::RebindMask(D64(), hn::Lt(hn::BitCast(di, a), hn::BitCast(di, b)));
}

// Entry `at` (below 2N, N lanes) of the 2N-entry table t0:t1, in each
// lane. AVX-512 has it in one instruction (vpermt2q), which Highway 1.0.3
// does not offer: three operations become one.
HWY_INLINE V64 TwoTableLookup(V64 t0, V64 t1, V64 at) {
#if URISCAN_MASK_REGISTERS
  return V64{_mm512_permutex2var_epi64(t0.raw, at.raw, t1.raw)};
#else
  const D64 d;
  const size_t N = hn::Lanes(d);
  const auto index = hn::IndicesFromVec(d, hn::And(at, K(N - 1)));
  return hn::IfThenElse(Less(at, K(N)), hn::TableLookupLanes(t0, index),
                        hn::TableLookupLanes(t1, index));
#endif
}

// 1 << q for 0 <= q < 64, else 0 (q < 0 arrives as a huge unsigned value).
HWY_INLINE V64 OneAt(V64 q) {
#if URISCAN_WIDE_SHIFTS_ARE_ZERO
  return hn::Shl(K(1), q);
#else
  return hn::IfThenElseZero(hn::Eq(hn::ShiftRight<6>(q), hn::Zero(D64())),
                            hn::Shl(K(1), hn::And(q, K(63))));
#endif
}

// Trailing zeros of each lane, 64 for a zero lane, where a population count
// is cheap: they are the ones of ~x & (x - 1). VPOPCNTDQ, NEON's CNT and
// SVE's CNT count them directly; SSSE3 to AVX2 count nibbles with a table
// lookup and add each lane's bytes with psadbw. Elsewhere (AVX3 without
// VPOPCNTDQ, the emulated targets) First() takes LowestBit instead.
#undef URISCAN_CHEAP_TRAILING_ZEROS
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_SSE4 || \
    HWY_TARGET == HWY_SSSE3 || HWY_TARGET == HWY_AVX3_DL || HWY_ARCH_ARM
#define URISCAN_CHEAP_TRAILING_ZEROS 1
alignas(16) inline constexpr uint8_t kNibbleOnes[16] = {0, 1, 1, 2, 1, 2, 2, 3,
                                                        1, 2, 2, 3, 2, 3, 3, 4};
HWY_INLINE V64 TrailingZeros(V64 x) {
  const V64 m = hn::AndNot(x, hn::Sub(x, K(1)));
#if URISCAN_BYTE_MOVEMASK
  const hn::Repartition<uint8_t, D64> d8;
  const auto bytes = hn::BitCast(d8, m);
  const auto ones = hn::LoadDup128(d8, kNibbleOnes);
  const auto low = hn::And(bytes, hn::Set(d8, 15));
  const auto high = hn::ShiftRight<4>(bytes);
  return hn::SumsOf8(hn::Add(hn::TableLookupBytes(ones, low),
                             hn::TableLookupBytes(ones, high)));
#else
  return hn::PopulationCount(m);
#endif
}
#else
#define URISCAN_CHEAP_TRAILING_ZEROS 0
#endif

// The position of the lowest set bit of a nonzero lane (anything for 0),
// where there is no cheap population count: that bit alone, converted to
// double, is 2^i, so i is in the exponent.
HWY_INLINE V64 LowestBit(V64 x) {
#if HWY_TARGET == HWY_SCALAR
  return hn::PopulationCount(hn::AndNot(x, hn::Sub(x, K(1))));
#else
  const hn::Repartition<double, D64> df;
  const V64 bit = hn::And(x, hn::Sub(hn::Zero(D64()), x));
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  // Unsigned, so 2^63 has no sign bit to mask off.
  const V64 f = hn::BitCast(D64(), hn::ConvertTo(df, bit));
  return hn::Sub(hn::ShiftRight<52>(f), K(1023));
#else
  const hn::RebindToSigned<D64> di;
  const V64 f = hn::BitCast(D64(), hn::ConvertTo(df, hn::BitCast(di, bit)));
  return hn::Sub(hn::And(hn::ShiftRight<52>(f), K(0x7FF)), K(1023));
#endif
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace uriscan
HWY_AFTER_NAMESPACE();

#endif  // include guard
