// SPDX-License-Identifier: MIT
// RFC 3986 character classes (sec. 2, Appendix A) as a 256-entry table, and
// the values of HEXDIG: the one definition that the parser, the transforms,
// the command and (at compile time) the kernels' tables use.
#ifndef URISCAN_SRC_CHAR_CLASS_H_
#define URISCAN_SRC_CHAR_CLASS_H_

#include <array>
#include <cstdint>

namespace uriscan {
namespace chars {

// One bit per class. A byte's entry is the OR of every class it belongs to.
enum : uint16_t {
  kAlpha = 1u << 0,       // ALPHA = %x41-5A / %x61-7A
  kDigit = 1u << 1,       // DIGIT = %x30-39
  kHexDig = 1u << 2,      // HEXDIG = DIGIT / "A"-"F", any case (sec. 2.1)
  kUnreserved = 1u << 3,  // ALPHA / DIGIT / "-" / "." / "_" / "~" (sec. 2.3)
  kSubDelims = 1u << 4,   // "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" /
                          // "," / ";" / "=" (sec. 2.2)
  kGenDelims = 1u << 5,   // ":" / "/" / "?" / "#" / "[" / "]" / "@" (sec. 2.2)
  kSchemeChar = 1u << 6,  // ALPHA / DIGIT / "+" / "-" / "." (sec. 3.1)
  kUpper = 1u << 7,       // "A"-"Z"
  // Per-component sets, '%' excluded (pct-encoded is checked as a triplet):
  kRegName = 1u << 8,     // unreserved / sub-delims (sec. 3.2.2)
  kUserinfo = 1u << 9,    // unreserved / sub-delims / ":" (sec. 3.2.1)
  kPathChar = 1u << 10,   // pchar / "/" where pchar adds ":" "@" (sec. 3.3)
  kQueryChar = 1u << 11,  // pchar / "/" / "?" (sec. 3.4; fragment alike)
  kAllowed = 1u << 12,    // unreserved / reserved / "%": any URI byte
};

constexpr std::array<uint16_t, 256> MakeTable() {
  std::array<uint16_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    uint16_t v = 0;
    const bool upper = c >= 'A' && c <= 'Z';
    const bool alpha = upper || (c >= 'a' && c <= 'z');
    const bool digit = c >= '0' && c <= '9';
    if (upper) v |= kUpper;
    if (alpha) v |= kAlpha;
    if (digit) v |= kDigit;
    if (digit || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f')) v |= kHexDig;
    if (alpha || digit || c == '-' || c == '.' || c == '_' || c == '~')
      v |= kUnreserved;
    for (char s : {'!', '$', '&', '\'', '(', ')', '*', '+', ',', ';', '='})
      if (c == s) v |= kSubDelims;
    for (char g : {':', '/', '?', '#', '[', ']', '@'})
      if (c == g) v |= kGenDelims;
    if (alpha || digit || c == '+' || c == '-' || c == '.') v |= kSchemeChar;
    if (v & (kUnreserved | kSubDelims)) v |= kRegName;
    if ((v & kRegName) || c == ':') v |= kUserinfo;
    if ((v & kUserinfo) || c == '@' || c == '/') v |= kPathChar;
    if ((v & kPathChar) || c == '?') v |= kQueryChar;
    if ((v & (kUnreserved | kSubDelims | kGenDelims)) || c == '%') v |= kAllowed;
    t[c] = v;
  }
  return t;
}

inline constexpr std::array<uint16_t, 256> kTable = MakeTable();

inline bool Is(unsigned char c, uint16_t cls) { return (kTable[c] & cls) != 0; }

// The value of a HEXDIG (either case); anything for another byte.
constexpr int HexValue(unsigned char c) {
  return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

// The digits of pct-encoded triplets as written: upper case, the form
// RFC 3986 sec. 2.1 says producers should use.
inline constexpr char kUpperHexDigits[] = "0123456789ABCDEF";

}  // namespace chars
}  // namespace uriscan

#endif  // URISCAN_SRC_CHAR_CLASS_H_
