// SPDX-License-Identifier: MIT
// IPv4address, IPv6address (all nine forms) and IPvFuture (RFC 3986
// sec. 3.2.2).
#include <optional>
#include <string_view>

#include "src/char_class.h"
#include "uriscan/uri.h"

namespace uriscan {
namespace {

using chars::Is;

// dec-octet "." dec-octet "." dec-octet "." dec-octet, starting at `pos`.
// dec-octet = DIGIT / %x31-39 DIGIT / "1" 2DIGIT / "2" %x30-34 DIGIT /
//             "25" %x30-35: 0-255 with no leading zero.
// Returns the offset of the first byte where the rule cannot go on, or
// nullopt when the text ends exactly after the fourth octet.
std::optional<uint32_t> ParseIPv4(std::string_view s, uint32_t pos) {
  const uint32_t n = static_cast<uint32_t>(s.size());
  for (int octet = 0; octet < 4; ++octet) {
    if (octet > 0) {
      if (pos >= n || s[pos] != '.') return pos;
      ++pos;
    }
    if (pos >= n || !Is(s[pos], chars::kDigit)) return pos;
    if (s[pos] == '0') {  // "0" alone: a leading zero ends the octet
      ++pos;
      continue;
    }
    int value = 0;
    for (int digits = 0; pos < n && Is(s[pos], chars::kDigit); ++digits) {
      value = value * 10 + (s[pos] - '0');
      if (digits == 3 || value > 255) return pos;
      ++pos;
    }
  }
  if (pos != n) return pos;
  return std::nullopt;
}

}  // namespace

bool IsIPv4Address(std::string_view text) {
  return !ParseIPv4(text, 0).has_value();
}

// IPv6address, the nine forms of Appendix A, read left to right as pieces:
// h16 (1-4 HEXDIG) separated by ':', at most one "::" standing for one or
// more zero pieces, and an IPv4address allowed as the last 32 bits (ls32).
// Without "::" there are exactly 8 pieces; with it, at most 7.
std::optional<uint32_t> CheckIPv6Address(std::string_view s) {
  const uint32_t n = static_cast<uint32_t>(s.size());
  uint32_t pos = 0;
  int pieces = 0;
  bool elided = false;  // seen "::"
  if (n >= 1 && s[0] == ':') {
    if (n < 2 || s[1] != ':') return 1;  // ':' alone can only open "::"
    elided = true;
    pos = 2;
    if (pos == n) return std::nullopt;  // "::"
  }
  for (;;) {
    const uint32_t start = pos;
    while (pos < n && pos - start < 4 && Is(s[pos], chars::kHexDig)) ++pos;
    if (pos < n && s[pos] == '.') {
      // ls32 as IPv4address: it fills the last two pieces.
      const bool fits = elided ? pieces <= 5 : pieces == 6;
      if (!fits) return pos;
      return ParseIPv4(s, start);
    }
    if (pos == start) return pos;  // a piece is needed here
    if (pos < n && Is(s[pos], chars::kHexDig)) return pos;  // fifth HEXDIG
    ++pieces;
    if (pos == n) break;
    if (s[pos] != ':') return pos;
    if (pos + 1 < n && s[pos + 1] == ':') {
      if (elided) return pos + 1;  // a second "::"
      if (pieces >= 8) return pos;
      elided = true;
      pos += 2;
      if (pos == n) return std::nullopt;  // "...::" (form 9)
      if (pieces >= 7) return pos;  // "::" must stand for at least one piece
      continue;
    }
    if (pieces + 1 > (elided ? 7 : 8)) return pos;
    ++pos;
    if (pos == n) return pos;  // a single trailing ':'
  }
  if (!elided && pieces != 8) return n;
  return std::nullopt;
}

// IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ); the "v"
// is case-insensitive (sec. 3.2.2).
std::optional<uint32_t> CheckIPvFuture(std::string_view s) {
  const uint32_t n = static_cast<uint32_t>(s.size());
  if (n == 0 || (s[0] != 'v' && s[0] != 'V')) return 0;
  uint32_t pos = 1;
  while (pos < n && Is(s[pos], chars::kHexDig)) ++pos;
  if (pos == 1 || pos >= n || s[pos] != '.') return pos;
  const uint32_t tail = ++pos;
  while (pos < n && Is(s[pos], chars::kUserinfo)) ++pos;
  if (pos < n || pos == tail) return pos;
  return std::nullopt;
}

}  // namespace uriscan
