// SPDX-License-Identifier: MIT
// Newline splitting: one bit per input byte that is "\n", 64 bytes per word.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/lines.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <cstring>

#include "hwy/highway.h"
#include "kernels/classify-inl.h"
#include "kernels/kernels.h"

HWY_BEFORE_NAMESPACE();
namespace uriscan {
namespace HWY_NAMESPACE {
namespace {

// Bit i of the result is set when p[i] == '\n', for the 64 bytes at p.
HWY_INLINE uint64_t NewlineBits(const uint8_t* HWY_RESTRICT p) {
  const hn::CappedTag<uint8_t, 64> d;  // SVE vectors may be longer
  const size_t n = hn::Lanes(d);
  const auto nl = hn::Set(d, uint8_t{'\n'});
  uint64_t word = 0;
  for (size_t i = 0; i < 64; i += n)
    PutBits(d, hn::Eq(hn::LoadU(d, p + i), nl), i, &word);
  return word;
}

}  // namespace

size_t NewlineMasks(const uint8_t* data, size_t size, uint64_t* words) {
  size_t i = 0, count = 0;
  for (; i + 64 <= size; i += 64) {
    const uint64_t word = NewlineBits(data + i);
    count += hwy::PopCount(word);
    *words++ = word;
  }
  if (i < size) {  // the tail through a zeroed copy: nothing past size is read
    HWY_ALIGN uint8_t tail[64] = {0};
    std::memcpy(tail, data + i, size - i);
    *words = NewlineBits(tail);
    count += hwy::PopCount(*words);
  }
  return count;
}

}  // namespace HWY_NAMESPACE
}  // namespace uriscan
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace uriscan {
namespace {
HWY_EXPORT(NewlineMasks);
}  // namespace

namespace kernels {
size_t NewlineMasks(const uint8_t* data, size_t size, uint64_t* words) {
  ApplyTargetRequest();
  return HWY_DYNAMIC_DISPATCH(NewlineMasks)(data, size, words);
}
}  // namespace kernels
}  // namespace uriscan
#endif  // HWY_ONCE
