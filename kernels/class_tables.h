// SPDX-License-Identifier: MIT
// Stage 1's nibble tables, for every target, checked at compile time against
// the character classes of RFC 3986 (src/char_class.h): a table that
// classified one byte differently from the parser would not compile.
#ifndef URISCAN_KERNELS_CLASS_TABLES_H_
#define URISCAN_KERNELS_CLASS_TABLES_H_

#include <cstdint>

#include "src/char_class.h"

namespace uriscan {
namespace kernels {

// Table pairs classify a byte by its nibbles (each made below from the
// byte sets of its bits): a class bit is set when
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
// A table pair: a byte's class byte is low[its low nibble] & high[its high
// nibble].
struct NibbleTablePair {
  alignas(16) uint8_t low[16];
  alignas(16) uint8_t high[16];
};

// The pair whose bit b holds the bytes c with bit b of bits_of(c): each
// bit's entries are the nibbles of its bytes.
template <class BitsOf>
constexpr NibbleTablePair MakeTablePair(BitsOf bits_of) {
  NibbleTablePair t{};
  for (int c = 0; c < 256; ++c) {
    const int bits = bits_of(c);
    t.low[c & 15] = static_cast<uint8_t>(t.low[c & 15] | bits);
    t.high[c >> 4] = static_cast<uint8_t>(t.high[c >> 4] | bits);
  }
  return t;
}
// The lookup gives bits_of(c) for every byte: each bit's bytes are a
// rectangle of nibbles (all its highs with all its lows).
template <class BitsOf>
constexpr bool LooksUpExactly(const NibbleTablePair& t, BitsOf bits_of) {
  for (int c = 0; c < 256; ++c)
    if ((t.low[c & 15] & t.high[c >> 4]) != bits_of(c)) return false;
  return true;
}

constexpr bool IsIn(int x, int a, int b = -1, int c = -1, int d = -1) {
  return x == a || x == b || x == c || x == d;
}
constexpr int High(int c) { return c >> 4; }
constexpr int Low(int c) { return c & 15; }
constexpr int Bit(bool set, int bit) { return set ? 1 << bit : 0; }
// The bytes the fast path accepts: unreserved, reserved but the IP-literal
// brackets, and '%'.
constexpr bool Accepted(int c) {
  return (chars::kTable[c] & chars::kAllowed) != 0 && c != '[' && c != ']';
}

constexpr int TableABits(int c) {
  const uint16_t k = chars::kTable[c];
  const bool alpha = (k & chars::kAlpha) != 0;
  return Bit(c == '#' || c == '%', 3) | Bit(c == ':', 4) |
         Bit((k & chars::kDigit) != 0, 5) |
         Bit(alpha && IsIn(High(c), 4, 6) && Low(c) != 0, 6) |  // A-O a-o
         Bit(alpha && IsIn(High(c), 5, 7), 7);                   // P-Z p-z
}
constexpr int TableBBits(int c) {
  if (!Accepted(c)) return 0;
  const int h = High(c), l = Low(c);
  return Bit(IsIn(h, 3, 4, 5, 7) && l <= 0xA, 0) |
         Bit(IsIn(h, 2, 4, 6) && l != 0 && l != 2, 1) |
         Bit(IsIn(h, 6, 7) && IsIn(l, 2, 0xE), 2) |
         Bit(IsIn(h, 3, 4) && IsIn(l, 0xB, 0xD), 3) |
         Bit(IsIn(h, 3, 4, 5) && l == 0xF, 4) | Bit(c == '.', 5) |
         Bit(h == 5 && l <= 0xA, 6) |  // 'P'-'Z'
         Bit(h == 4, 7);               // '@' 'A'-'O'
}
constexpr int TableCBits(int c) {
  return Bit(c == '\n', 1) | Bit(c == '%', 2) | Bit(c == '/', 3) |
         Bit(c == ':', 4) | Bit(c == '@', 5) | Bit(c == '#', 6) |
         Bit(c == '?', 7);
}
constexpr int TableHBits(int c) {
  const uint16_t k = chars::kTable[c];
  return Bit((k & chars::kDigit) != 0, 0) |
         Bit((k & chars::kHexDig) != 0 && (k & chars::kAlpha) != 0, 1);
}

inline constexpr NibbleTablePair kTableA = MakeTablePair(TableABits);
inline constexpr NibbleTablePair kTableB = MakeTablePair(TableBBits);
inline constexpr NibbleTablePair kTableC = MakeTablePair(TableCBits);
inline constexpr NibbleTablePair kTableH = MakeTablePair(TableHBits);
static_assert(LooksUpExactly(kTableA, TableABits) &&
                  LooksUpExactly(kTableB, TableBBits) &&
                  LooksUpExactly(kTableC, TableCBits) &&
                  LooksUpExactly(kTableH, TableHBits),
              "a table bit's bytes are not a rectangle of nibbles");
inline constexpr const uint8_t* kTableALow = kTableA.low;
inline constexpr const uint8_t* kTableAHigh = kTableA.high;
inline constexpr const uint8_t* kTableBLow = kTableB.low;
inline constexpr const uint8_t* kTableBHigh = kTableB.high;
inline constexpr const uint8_t* kTableCLow = kTableC.low;
inline constexpr const uint8_t* kTableCHigh = kTableC.high;
inline constexpr const uint8_t* kTableHLow = kTableH.low;
inline constexpr const uint8_t* kTableHHigh = kTableH.high;
// Table A's, B's and C's bits of each class (see kernels::Class).
inline constexpr uint8_t kADigitPercentColonHash = 0x38, kBUpperDotAt = 0xE0,
                         kAAlnum = 0xE0, kCColonSlash = 0x18,
                         kCQuestionHashAt = 0xE0, kCPercent = 0x04,
                         kCNewline = 0x02;

// Byte values that the saturating adds and subtracts below bring to bit 7:
// "byte >= 0x20" (table B: 'A'-'Z' '.' '@'; table C: '?' '#' '@'), "byte >=
// 0x08" (table C: ':' '/' '?' '#' '@'), and the minuend whose saturating
// difference has bit 7 for "byte < 0x20" (table A: not ALPHA / DIGIT).
inline constexpr uint8_t kFrom0x20ToTop = 0x80 - 0x20,
                         kFrom0x08ToTop = 0x80 - 0x08,
                         kBelow0x20ToTop = 0x80 + 0x1F;

// A table pair's class byte for byte c, as the kernels look it up: x86's
// byte shuffle gives 0 for a byte >= 0x80, the high-nibble tables have 0
// from 8 on, and both forms agree.
constexpr uint8_t Lookup(const uint8_t* low, const uint8_t* high, int c) {
  return static_cast<uint8_t>(low[c & 15] & high[(c >> 4) & 15]);
}
constexpr uint8_t SaturatedAdd(int a, int b) {
  return a + b > 255 ? 255 : a + b;
}
constexpr uint8_t SaturatedSub(int a, int b) { return a < b ? 0 : a - b; }

// Every class that stage 1 derives from the tables, in both of the ways the
// targets derive it (one test per class on AVX-512; bit 7 after a
// saturating add or subtract elsewhere), holds exactly the bytes the
// RFC's classes say (see kernels::Class).
constexpr bool TablesMatchTheCharacterClasses() {
  using chars::Is;
  for (int c = 0; c < 256; ++c) {
    const uint8_t a = Lookup(kTableALow, kTableAHigh, c);
    const uint8_t b = Lookup(kTableBLow, kTableBHigh, c);
    const uint8_t t = Lookup(kTableCLow, kTableCHigh, c);
    const uint8_t h = Lookup(kTableHLow, kTableHHigh, c);
    const uint16_t cls = chars::kTable[c];
    const bool upper = (cls & chars::kUpper) != 0;
    const bool alnum = (cls & (chars::kAlpha | chars::kDigit)) != 0;
    const bool digit = (cls & chars::kDigit) != 0;
    // The fast path accepts every URI byte but the IP-literal brackets.
    const bool accepted = (cls & chars::kAllowed) != 0 && c != '[' && c != ']';
    if ((b != 0) != accepted) return false;
    const bool colon_slash = c == ':' || c == '/';
    const bool question_hash_at = c == '?' || c == '#' || c == '@';
    if (((t & kCColonSlash) != 0) != colon_slash) return false;
    if ((SaturatedAdd(t, kFrom0x08ToTop) >= 0x80 &&
         SaturatedAdd(t, kFrom0x20ToTop) < 0x80) != colon_slash)
      return false;
    if (((t & kCQuestionHashAt) != 0) != question_hash_at) return false;
    if ((SaturatedAdd(t, kFrom0x20ToTop) >= 0x80) != question_hash_at)
      return false;
    const bool digit_percent_colon_hash =
        digit || c == '%' || c == ':' || c == '#';
    if (((a & kADigitPercentColonHash) != 0) != digit_percent_colon_hash)
      return false;
    if ((SaturatedAdd(a & kADigitPercentColonHash, kFrom0x08ToTop) >= 0x80) !=
        digit_percent_colon_hash)
      return false;
    const bool upper_dot_at = upper || c == '.' || c == '@';
    if (((b & kBUpperDotAt) != 0) != upper_dot_at) return false;
    if ((SaturatedAdd(b, kFrom0x20ToTop) >= 0x80) != upper_dot_at) return false;
    if (((a & kAAlnum) == 0) != !alnum) return false;
    if ((SaturatedSub(kBelow0x20ToTop, a) >= 0x80) != !alnum) return false;
    if (((t & kCNewline) != 0) != (c == '\n') ||
        (t == kCNewline) != (c == '\n'))
      return false;
    if (((t & kCPercent) != 0) != (c == '%')) return false;
    if ((h != 0) != ((cls & chars::kHexDig) != 0)) return false;
  }
  return true;
}
static_assert(TablesMatchTheCharacterClasses(),
              "a stage-1 table disagrees with RFC 3986's character classes");

}  // namespace kernels
}  // namespace uriscan

#endif  // URISCAN_KERNELS_CLASS_TABLES_H_
