// SPDX-License-Identifier: MIT
// The shape of a well-formed UTF-8 sequence (RFC 3629, section 4) by its
// first byte: what the decoding kernel, the JSON writer and the IDNA host
// mapping check.
#ifndef URISCAN_KERNELS_UTF8_H_
#define URISCAN_KERNELS_UTF8_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace uriscan {

struct Utf8Lead {
  size_t length;  // of the sequence; 0: the byte begins none
  uint8_t second_low, second_high;  // the second byte's range
};

constexpr Utf8Lead Utf8LeadOf(uint8_t b) {
  if (b >= 0xC2 && b <= 0xDF) return {2, 0x80, 0xBF};
  if (b >= 0xE0 && b <= 0xEF)  // E0: no overlong form; ED: no surrogate
    return {3, b == 0xE0 ? uint8_t{0xA0} : uint8_t{0x80},
            b == 0xED ? uint8_t{0x9F} : uint8_t{0xBF}};
  if (b >= 0xF0 && b <= 0xF4)  // F0: no overlong form; F4: to U+10FFFF
    return {4, b == 0xF0 ? uint8_t{0x90} : uint8_t{0x80},
            b == 0xF4 ? uint8_t{0x8F} : uint8_t{0xBF}};
  return {0, 0, 0};
}

// The length of the well-formed UTF-8 sequence at s[i], or 0.
inline size_t Utf8SequenceAt(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  const Utf8Lead shape = Utf8LeadOf(byte(i));
  const size_t n = shape.length;
  if (n == 0 || i + n > s.size() || byte(i + 1) < shape.second_low ||
      byte(i + 1) > shape.second_high)
    return 0;
  for (size_t k = 2; k < n; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  return n;
}

}  // namespace uriscan

#endif  // URISCAN_KERNELS_UTF8_H_
