// SPDX-License-Identifier: MIT
// Per-target byte classification: 64 bytes in, one uint64_t bitmask per
// RFC 3986 class out (bit i = byte i). Included once per target.
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

using kernels::kColon;
using kernels::kSlash;
using kernels::kQuestion;
using kernels::kHash;
using kernels::kAt;
using kernels::kPercent;
using kernels::kHex;
using kernels::kDigit;
using kernels::kDot;
using kernels::kUpper;
using kernels::kNotScheme;
using kernels::kReject;
using kernels::kNumClasses;

using BlockMasks = uint64_t[kNumClasses];

// lo <= v <= hi for unsigned bytes, without unsigned compares (absent for
// u8 on some 1.0.3 targets): v - lo wraps, and Min() clamps it to hi - lo
// only when it is out of range.
template <class D, class V>
HWY_INLINE auto InRange(D d, V v, uint8_t lo, uint8_t hi) {
  const V off = hn::Sub(v, hn::Set(d, lo));
  return hn::Eq(hn::Min(off, hn::Set(d, static_cast<uint8_t>(hi - lo))), off);
}

template <class D, class M>
HWY_INLINE void AddBits(D d, M m, size_t lane0, uint64_t* word) {
  uint8_t bytes[8] = {0};
  hn::StoreMaskBits(d, m, bytes);
  uint64_t bits;
  std::memcpy(&bits, bytes, 8);  // x86 and Arm are little-endian here
  const size_t n = hn::Lanes(d);
  if (n < 64) bits &= (uint64_t{1} << n) - 1;
  *word |= bits << lane0;
}

// Classifies the 64 bytes at p (all readable). Bits of bytes at or past
// `valid` are cleared.
HWY_INLINE void ClassifyBlock(const uint8_t* HWY_RESTRICT p, size_t valid,
                              BlockMasks& out) {
  const hn::ScalableTag<uint8_t> d;
  const size_t n = hn::Lanes(d);
  for (int k = 0; k < kNumClasses; ++k) out[k] = 0;
  for (size_t i = 0; i < 64; i += n) {
    const auto v = hn::LoadU(d, p + i);
    auto eq = [&](char c) { return hn::Eq(v, hn::Set(d, static_cast<uint8_t>(c))); };
    const auto lower = hn::Or(v, hn::Set(d, 0x20));
    const auto digit = InRange(d, v, '0', '9');
    const auto alpha = InRange(d, lower, 'a', 'z');
    AddBits(d, eq(':'), i, &out[kColon]);
    AddBits(d, eq('/'), i, &out[kSlash]);
    AddBits(d, eq('?'), i, &out[kQuestion]);
    AddBits(d, eq('#'), i, &out[kHash]);
    AddBits(d, eq('@'), i, &out[kAt]);
    AddBits(d, eq('%'), i, &out[kPercent]);
    AddBits(d, hn::Or(digit, InRange(d, lower, 'a', 'f')), i, &out[kHex]);
    AddBits(d, digit, i, &out[kDigit]);
    AddBits(d, eq('.'), i, &out[kDot]);
    AddBits(d, InRange(d, v, 'A', 'Z'), i, &out[kUpper]);
    const auto scheme = hn::Or(hn::Or(alpha, digit),
                               hn::Or(eq('+'), hn::Or(eq('-'), eq('.'))));
    AddBits(d, hn::Not(scheme), i, &out[kNotScheme]);
    const auto bad = hn::Or(
        hn::Not(InRange(d, v, 0x21, 0x7E)),
        hn::Or(hn::Or(hn::Or(eq('"'), eq('<')), hn::Or(eq('>'), eq('\\'))),
               hn::Or(hn::Or(eq('^'), eq('`')), InRange(d, v, '{', '}'))));
    // '[' ']' only belong in an IP literal, which the scalar parser takes.
    AddBits(d, hn::Or(bad, hn::Or(eq('['), eq(']'))), i, &out[kReject]);
  }
  if (valid < 64) {
    const uint64_t keep = (uint64_t{1} << valid) - 1;
    for (int k = 0; k < kNumClasses; ++k) out[k] &= keep;
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace uriscan
HWY_AFTER_NAMESPACE();

#endif  // include guard
