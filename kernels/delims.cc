// SPDX-License-Identifier: MIT
// Query splitting and decoding: '&' and '=' bitmasks, and copying runs of
// bytes that need no decoding ('%', and '+' for form data) a vector at a time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/delims.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <cstring>

#include "hwy/highway.h"
#include "kernels/kernels.h"
#include "kernels/ops-inl.h"

HWY_BEFORE_NAMESPACE();
namespace uriscan {
namespace HWY_NAMESPACE {
namespace {

// Bits of '&' and '=' among the 64 bytes at p.
HWY_INLINE void DelimBits(const uint8_t* HWY_RESTRICT p, uint64_t* amp,
                          uint64_t* eq) {
  const hn::CappedTag<uint8_t, 64> d;  // SVE vectors may be longer
  const size_t n = hn::Lanes(d);
  const auto a = hn::Set(d, uint8_t{'&'});
  const auto e = hn::Set(d, uint8_t{'='});
  for (size_t i = 0; i < 64; i += n) {
    const auto v = hn::LoadU(d, p + i);
    PutBits(d, hn::Eq(v, a), i, amp);
    PutBits(d, hn::Eq(v, e), i, eq);
  }
}

HWY_INLINE int HexValue(uint8_t c) {
  if (c >= '0' && c <= '9') return c - '0';
  c |= 0x20;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

void DelimMasks(const uint8_t* data, size_t size, uint64_t* amp,
                uint64_t* eq) {
  size_t i = 0;
  for (; i + 64 <= size; i += 64) DelimBits(data + i, amp++, eq++);
  if (i < size) {  // the tail through a zeroed copy: nothing past size is read
    HWY_ALIGN uint8_t tail[64] = {0};
    std::memcpy(tail, data + i, size - i);
    DelimBits(tail, amp, eq);
  }
}

size_t DecodeRun(const uint8_t* HWY_RESTRICT in, size_t size,
                 uint8_t* HWY_RESTRICT out, bool form) {
  const hn::ScalableTag<uint8_t> d;
  const size_t n = hn::Lanes(d);
  const auto pct = hn::Set(d, uint8_t{'%'});
  // Without form decoding '+' is looked for as '%' (no byte matches twice).
  const auto plus = hn::Set(d, form ? uint8_t{'+'} : uint8_t{'%'});
  size_t i = 0, o = 0;
  while (i < size) {
    // Whole vectors while they hold nothing to decode. The store is safe:
    // o <= i, so out + o + n <= out + size.
    while (i + n <= size) {
      const auto v = hn::LoadU(d, in + i);
      // A byte equal to either: the smaller XOR is zero. (ORing the two
      // compare masks gave an empty mask on SVE_256 with GCC 12 at -O2.)
      const auto special =
          hn::Eq(hn::Min(hn::Xor(v, pct), hn::Xor(v, plus)), hn::Zero(d));
      hn::StoreU(v, d, out + o);
      const intptr_t first = hn::FindFirstTrue(d, special);
      if (first >= 0) {
        i += static_cast<size_t>(first);
        o += static_cast<size_t>(first);
        break;
      }
      i += n;
      o += n;
    }
    // One byte: a special one after a vector, or the tail.
    if (i >= size) break;
    const uint8_t c = in[i];
    if (c == '%' && i + 2 < size) {
      const int hi = HexValue(in[i + 1]), lo = HexValue(in[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out[o++] = static_cast<uint8_t>(hi * 16 + lo);
        i += 3;
        continue;
      }
    }
    out[o++] = (form && c == '+') ? uint8_t{' '} : c;
    ++i;
  }
  return o;
}

void DecodeSpans(const uint8_t* data, const uint32_t* begin,
                 const uint32_t* end, size_t count, bool form, uint8_t* out,
                 uint32_t* out_offsets) {
  uint32_t o = 0;
  out_offsets[0] = 0;
  for (size_t k = 0; k < count; ++k) {
    o += static_cast<uint32_t>(
        DecodeRun(data + begin[k], end[k] - begin[k], out + o, form));
    out_offsets[k + 1] = o;
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace uriscan
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace uriscan {
namespace {
HWY_EXPORT(DelimMasks);
HWY_EXPORT(DecodeRun);
HWY_EXPORT(DecodeSpans);
}  // namespace

namespace kernels {
void DelimMasks(const uint8_t* data, size_t size, uint64_t* amp,
                uint64_t* eq) {
  ApplyTargetRequest();
  HWY_DYNAMIC_DISPATCH(DelimMasks)(data, size, amp, eq);
}
size_t DecodeRun(const uint8_t* in, size_t size, uint8_t* out, bool form) {
  ApplyTargetRequest();
  return HWY_DYNAMIC_DISPATCH(DecodeRun)(in, size, out, form);
}
void DecodeSpans(const uint8_t* data, const uint32_t* begin,
                 const uint32_t* end, size_t count, bool form, uint8_t* out,
                 uint32_t* out_offsets) {
  ApplyTargetRequest();
  HWY_DYNAMIC_DISPATCH(DecodeSpans)(data, begin, end, count, form, out,
                                    out_offsets);
}
}  // namespace kernels
}  // namespace uriscan
#endif  // HWY_ONCE
