// SPDX-License-Identifier: MIT
// Numeric readings of IP hosts (inet_aton, WHATWG IPv4, IPv6address) and the
// special-purpose ranges they fall in.
#include "src/parse/ip_value.h"

#include <algorithm>
#include <string>

#include "src/char_class.h"
#include "uriscan/uri.h"

namespace uriscan {
namespace ip {
namespace {

using chars::Is;

constexpr uint64_t kTooBig = uint64_t{1} << 32;  // above every part's limit

int DigitValue(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 99;
}

// Joins parts as both grammars do: each part but the last is one byte, the
// last fills the 4 - (n - 1) bytes left. nullopt when a part does not fit.
std::optional<uint32_t> Join(const uint64_t* parts, int n) {
  uint32_t address = 0;
  for (int k = 0; k + 1 < n; ++k) {
    if (parts[k] > 0xff) return std::nullopt;
    address |= static_cast<uint32_t>(parts[k]) << (24 - 8 * k);
  }
  const int last_bits = 32 - 8 * (n - 1);
  if (parts[n - 1] >= (uint64_t{1} << last_bits)) return std::nullopt;
  return address | static_cast<uint32_t>(parts[n - 1]);
}

// Digits of one radix from `pos` up to the first byte that is not one;
// the value saturates at kTooBig.
uint64_t ReadDigits(std::string_view s, size_t* pos, int radix) {
  uint64_t v = 0;
  for (; *pos < s.size(); ++*pos) {
    const int d = DigitValue(static_cast<unsigned char>(s[*pos]));
    if (d >= radix) break;
    v = v * radix + d;
    if (v > kTooBig) v = kTooBig;
  }
  return v;
}

}  // namespace

std::optional<uint32_t> ParseInetAton(std::string_view s) {
  uint64_t parts[4];
  int n = 0;
  size_t pos = 0;
  for (;;) {
    // A part starts with a digit; its C prefix picks the radix. "0x" with
    // no hex digit after it is the number 0 followed by a stray 'x'.
    if (pos >= s.size() || !Is(s[pos], chars::kDigit)) return std::nullopt;
    int radix = 10;
    if (s[pos] == '0') {
      radix = 8;
      if (pos + 2 < s.size() && (s[pos + 1] | 0x20) == 'x' &&
          Is(s[pos + 2], chars::kHexDig)) {
        radix = 16;
        pos += 2;
      }
    }
    parts[n++] = ReadDigits(s, &pos, radix);
    if (pos == s.size()) break;
    if (s[pos] != '.' || n == 4) return std::nullopt;  // "08", "1.2.3.4.5"
    ++pos;
  }
  return Join(parts, n);
}

std::optional<uint32_t> ParseRegNameIPv4(std::string_view host) {
  if (host.empty() || !(Is(host[0], chars::kDigit) || host[0] == '%'))
    return std::nullopt;
  if (auto v = ParseInetAton(host)) return v;
  // WHATWG also lower-cases, which changes nothing its IPv4 parser reads.
  if (host.find('%') == std::string_view::npos) return ParseWhatwgIPv4(host);
  std::string decoded;  // rare: a percent-encoded host led by a digit or '%'
  for (size_t i = 0; i < host.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(host[i]);
    if (c == '%') {  // the scan checked that two hex digits follow
      c = static_cast<unsigned char>(chars::HexValue(host[i + 1]) * 16 +
                                     chars::HexValue(host[i + 2]));
      i += 2;
    }
    if (c >= 0x80) return std::nullopt;  // UTS #46 mapping: not done here
    decoded.push_back(static_cast<char>(c));
  }
  return ParseWhatwgIPv4(decoded);
}

std::optional<uint32_t> ParseWhatwgIPv4(std::string_view s) {
  if (!s.empty() && s.back() == '.' && s.size() > 1) s.remove_suffix(1);
  uint64_t parts[4];
  int n = 0;
  size_t pos = 0;
  for (;;) {
    if (n == 4) return std::nullopt;  // too many parts
    const size_t end = std::min(s.find('.', pos), s.size());
    const std::string_view part = s.substr(pos, end - pos);
    if (part.empty()) return std::nullopt;
    int radix = 10;
    size_t skip = 0;
    if (part.size() >= 2 && part[0] == '0' &&
        (part[1] == 'x' || part[1] == 'X')) {
      radix = 16;
      skip = 2;
    } else if (part.size() >= 2 && part[0] == '0') {
      radix = 8;
      skip = 1;
    }
    size_t digits_end = skip;
    parts[n++] = ReadDigits(part, &digits_end, radix);  // "0x" alone: 0
    if (digits_end != part.size()) return std::nullopt;
    if (end == s.size()) break;
    pos = end + 1;
  }
  return Join(parts, n);
}

std::optional<std::array<uint8_t, 16>> ParseIPv6Value(std::string_view s) {
  // Pieces before and after "::" (if any), as 16-bit values; an IPv4 tail
  // gives the last two.
  uint16_t head[8], tail[8];
  int n_head = 0, n_tail = 0;
  bool elided = false;
  size_t pos = 0;
  if (s.substr(0, 2) == "::") {
    elided = true;
    pos = 2;
  }
  while (pos < s.size()) {
    uint16_t* pieces = elided ? tail : head;
    int& count = elided ? n_tail : n_head;
    size_t end = pos;
    while (end < s.size() && s[end] != ':' && s[end] != '.') ++end;
    if (end < s.size() && s[end] == '.') {  // ls32 as IPv4address
      const std::string_view dotted = s.substr(pos);
      const auto v4 = ParseInetAton(dotted);
      if (!IsIPv4Address(dotted) || !v4 || count > 6) return std::nullopt;
      pieces[count++] = static_cast<uint16_t>(*v4 >> 16);
      pieces[count++] = static_cast<uint16_t>(*v4 & 0xffff);
      pos = s.size();
      break;
    }
    if (end == pos || end - pos > 4 || count == 8) return std::nullopt;
    size_t digits = pos;
    const uint64_t v = ReadDigits(s.substr(0, end), &digits, 16);
    if (digits != end) return std::nullopt;
    pieces[count++] = static_cast<uint16_t>(v);
    pos = end;
    if (pos == s.size()) break;
    if (s.substr(pos, 2) == "::") {
      if (elided) return std::nullopt;
      elided = true;
      pos += 2;
    } else {
      ++pos;
      if (pos == s.size()) return std::nullopt;  // a trailing single ':'
    }
  }
  const int total = n_head + n_tail;
  if (elided ? total > 7 : total != 8) return std::nullopt;
  std::array<uint8_t, 16> out{};
  for (int k = 0; k < n_head; ++k) {
    out[2 * k] = static_cast<uint8_t>(head[k] >> 8);
    out[2 * k + 1] = static_cast<uint8_t>(head[k]);
  }
  for (int k = 0; k < n_tail; ++k) {
    const int at = 8 - n_tail + k;
    out[2 * at] = static_cast<uint8_t>(tail[k] >> 8);
    out[2 * at + 1] = static_cast<uint8_t>(tail[k]);
  }
  return out;
}

Range ClassifyIPv4(uint32_t a) {
  const uint32_t first = a >> 24;
  if (first == 127) return Range::kLoopback;
  if (first == 10 || (a >> 20) == 0xac1 || (a >> 16) == 0xc0a8 ||
      (a >> 22) ==
          ((100u << 2) | 1u))  // 10/8, 172.16/12, 192.168/16, 100.64/10
    return Range::kPrivate;
  if ((a >> 16) == 0xa9fe) return Range::kLinkLocal;  // 169.254/16
  if (first == 0) return Range::kUnspecified;
  return Range::kOther;
}

IPv6Class ClassifyIPv6(const std::array<uint8_t, 16>& a) {
  IPv6Class c;
  bool zero80 = true;  // the first 80 bits are zero
  for (int k = 0; k < 10; ++k) zero80 = zero80 && a[k] == 0;
  const uint32_t low = (uint32_t{a[12]} << 24) | (uint32_t{a[13]} << 16) |
                       (uint32_t{a[14]} << 8) | a[15];
  const bool mapped = zero80 && a[10] == 0xff && a[11] == 0xff;
  const bool zero96 = zero80 && a[10] == 0 && a[11] == 0;
  bool nat64 = a[0] == 0 && a[1] == 0x64 && a[2] == 0xff && a[3] == 0x9b;
  for (int k = 4; k < 12; ++k) nat64 = nat64 && a[k] == 0;
  if (mapped || (zero96 && low > 1)) {
    c.embeds_ipv4 = true;
    c.range = ClassifyIPv4(low);
    return c;
  }
  c.embeds_ipv4 = nat64;
  if (zero96 && low == 0)
    c.range = Range::kUnspecified;
  else if (zero96 && low == 1)
    c.range = Range::kLoopback;
  else if ((a[0] & 0xfe) == 0xfc)
    c.range = Range::kPrivate;
  else if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
    c.range = Range::kLinkLocal;
  return c;
}

}  // namespace ip
}  // namespace uriscan
