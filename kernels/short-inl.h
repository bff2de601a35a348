// SPDX-License-Identifier: MIT
// Stage 2's short path, per target: one row at a time in general-purpose
// registers, for the rows most real traffic holds,
//   scheme "://" reg-name [ ":" port ] path-abempty [ "?" query ] [ "#" fragment ]
// at most kShortRow bytes long, with no byte allowed nowhere, no userinfo
// and no "/." in the path. Each class's bits of the row are one unaligned
// 8-byte load and a shift; a few dozen bit operations (lowest set bit,
// "no bit in this range") settle the row. Any other row is left to the
// vector step (rows-inl.h), which knows every rule. On x86 the code is
// BMI1/BMI2 (tzcnt, blsi, shrx), on Arm rbit/clz.
// Included once per target, by kernels/rows-inl.h.
#if defined(URISCAN_KERNELS_SHORT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef URISCAN_KERNELS_SHORT_INL_H_
#undef URISCAN_KERNELS_SHORT_INL_H_
#else
#define URISCAN_KERNELS_SHORT_INL_H_
#endif

#include <cstring>

#include "hwy/highway.h"
#include "kernels/kernels.h"
#include "kernels/structure-inl.h"
#include "uriscan/uri.h"

HWY_BEFORE_NAMESPACE();
namespace uriscan {
namespace HWY_NAMESPACE {

// Rows of the stage the short path and the vector step write (rows-inl.h).
inline constexpr size_t kStageRows = 256;  // a multiple of every N

// The longest row the short path takes: an 8-byte load at the byte that
// holds the row's first bit has 57 bits from that bit on.
inline constexpr uint32_t kShortRow = 57;

// The position of the lowest set bit of a nonzero word (tzcnt).
HWY_INLINE uint32_t LowestBit(uint64_t bits) {
  return static_cast<uint32_t>(hwy::Num0BitsBelowLS1Bit_Nonzero64(bits));
}

// Bits [rel, rel + 57) of a class column (bit i = byte i of the window),
// as bits 0.. of the result. The masks are little-endian words, so byte
// rel / 8 of the column holds bit rel.
HWY_INLINE uint64_t RowBits(const uint8_t* HWY_RESTRICT column, uint32_t rel) {
  uint64_t word;
  std::memcpy(&word, column + (rel >> 3), sizeof(word));
  return word >> (rel & 7);
}

// Settles the row [b, b + len) (4 <= len <= kShortRow; its masks at bit
// rel of the window's columns, `masks` seen as bytes) if it has the common
// shape above, writing its boundary columns to out[c * kStageRows] (c in
// URISCAN_BOUNDARY_COLUMNS order, offsets from the data), its flags and
// error kind to *flags_out and *error_out, and returns true; returns false
// for any other row. It writes either way, without a branch on the row:
// what it wrote for a row it did not settle is garbage the vector step
// overwrites. What it writes is what Structurize and GroupBody write.
HWY_INLINE bool ShortRow(const uint8_t* HWY_RESTRICT data,
                         const uint8_t* HWY_RESTRICT masks, uint32_t rel,
                         uint32_t b, uint32_t len, uint32_t* HWY_RESTRICT out,
                         uint16_t* HWY_RESTRICT flags_out,
                         uint8_t* HWY_RESTRICT error_out) {
  constexpr size_t kColumn = kernels::kMaskStride * sizeof(uint64_t);
  const uint64_t end = uint64_t{1} << len;  // a sentinel bit past the row
  const uint64_t inside = end - 1;
  const uint64_t stop = RowBits(masks + kernels::kStop * kColumn, rel) & inside;
  const uint64_t cs = RowBits(masks + kernels::kColonSlash * kColumn, rel) & inside;
  const uint64_t qha = RowBits(masks + kernels::kQuestionHashAt * kColumn, rel) & inside;
  const uint64_t dpch =
      RowBits(masks + kernels::kDigitPercentColonHash * kColumn, rel) & inside;
  // Read only within ranges of the row, or through a clipped class.
  const uint64_t uda = RowBits(masks + kernels::kUpperDotAt * kColumn, rel);
  const uint64_t na = RowBits(masks + kernels::kNotAlnum * kColumn, rel);
  // The byte sets, split as kernels::Class says.
  const uint64_t colon = cs & dpch, slash = cs & ~dpch;
  const uint64_t query = qha & ~uda;  // '?' '#'
  const uint64_t hash = qha & dpch;
  const uint64_t digit = dpch & ~na;
  const uint64_t delims = cs | qha;
  // scheme ":" "//": the first of ": / ? # @" (bit `mark`) is a ':', the
  // bytes before it ALPHA / DIGIT and the first no DIGIT (an empty scheme
  // makes that first byte the ':', which dpch holds too), two '/' after it.
  const uint64_t mark = delims & (0 - delims);
  uint64_t bad = uint64_t{mark == 0} | stop | (mark & ~colon) | (na & (mark - 1)) | (dpch & 1) |
                 (((mark << 1) | (mark << 2)) & ~slash);
  const uint64_t after = ~((mark << 3) - 1);  // from the authority on
  // The authority ends at the first '/', '?' or '#' after it (or the row's
  // end, the sentinel); no '@' in it (userinfo goes to the vector step); a
  // ':' starts the port, all DIGIT (a second ':' is no DIGIT).
  const uint64_t authority_end = ((slash | query) & after) | end;
  const uint64_t ae = authority_end & (0 - authority_end);
  const uint64_t authority = after & (ae - 1);
  bad |= qha & uda & authority;
  const uint64_t port_colon = (colon & authority) | ae;
  const uint64_t pc = port_colon & (0 - port_colon);  // the ':', or ae
  const uint64_t host = authority & (pc - 1);
  bad |= authority & ~(pc | (pc - 1)) & ~digit;
  // The path runs to the first '?' or '#' (none can come earlier); "/." in
  // it may start a dot segment: the vector step says. No second '#'; no
  // '%' in the last two bytes (stage 1 saw the next row's bytes after it).
  const uint64_t path_end = query | end;
  const uint64_t pe = path_end & (0 - path_end);
  bad |= uda & na & ~qha & (slash << 1) & (pe - 1) & ~(ae - 1);
  bad |= hash & (hash - 1);
  const uint64_t pct = dpch & na & ~delims;
  bad |= pct & (uint64_t{3} << (len - 2));

  const uint32_t scheme_end = LowestBit(mark);
  const uint32_t authority_begin = scheme_end + 3;
  const uint32_t host_end = LowestBit(pc);
  const bool has_port = pc != ae;
  const uint32_t path_begin = LowestBit(ae);
  const uint32_t path_end_at = LowestBit(pe);
  const bool has_query = (pe & ~hash & inside) != 0;  // a '?' ends the path
  const uint32_t fragment_begin =
      hash != 0 ? LowestBit(hash) + 1 : len;
  uint16_t flags = flags::kHasScheme | flags::kHasAuthority;
  flags |= has_port ? flags::kHasPort : 0;
  flags |= has_query ? flags::kHasQuery : 0;
  flags |= hash != 0 ? flags::kHasFragment : 0;
  flags |= pct != 0 ? flags::kHasPctEncoded : 0;
  flags |= (uda & ~na & ((mark - 1) | host)) != 0 ? flags::kHasUpperCase : 0;
  // A host that starts with a DIGIT may be an IPv4address.
  if (HWY_UNLIKELY(bad == 0 && (digit & host & (mark << 3)) != 0) &&
      IsDottedQuad(data + b + authority_begin, host_end - authority_begin)) {
    flags |= static_cast<uint16_t>(static_cast<uint16_t>(HostKind::kIPv4)
                                   << flags::kHostKindShift);
  }
  const uint32_t values[] = {0,
                             scheme_end,
                             authority_begin,
                             authority_begin,  // userinfo_end: no userinfo
                             authority_begin,  // host_begin
                             host_end,
                             host_end + (has_port ? 1u : 0u),
                             path_begin,
                             path_end_at,
                             path_end_at + (has_query ? 1u : 0u),
                             fragment_begin,
                             len};
  static_assert(sizeof(values) / sizeof(values[0]) == kernels::kBoundaryColumns,
                "a value for every boundary column");
  for (int c = 0; c < kernels::kBoundaryColumns; ++c)
    out[c * kStageRows] = b + values[c];
  *flags_out = flags;
  *error_out = 0;
  return bad == 0;
}

// The short path over rows [0, n) with bounds b[j], e[j] (their masks in
// the window that starts at data + base): row j's boundaries go to
// stage[c][j], its flags and error kind to flags[j] and error_kind[j].
// The rows it does not settle go to left_b, left_e and left_row (output
// row out0 + j), in order; returns how many. Every row is appended there
// and kept unless settled: no branch on the row.
HWY_NOINLINE size_t ShortRows(const uint8_t* HWY_RESTRICT data,
                              const uint64_t* HWY_RESTRICT masks, uint32_t base,
                              const uint32_t* HWY_RESTRICT b,
                              const uint32_t* HWY_RESTRICT e, size_t n,
                              size_t out0, uint32_t (*HWY_RESTRICT stage)[kStageRows],
                              uint16_t* HWY_RESTRICT flags,
                              uint8_t* HWY_RESTRICT error_kind,
                              uint32_t* HWY_RESTRICT left_b,
                              uint32_t* HWY_RESTRICT left_e,
                              uint32_t* HWY_RESTRICT left_row) {
  const uint8_t* mask_bytes = reinterpret_cast<const uint8_t*>(masks);
  size_t left = 0;
  for (size_t j = 0; j < n; ++j) {
    const uint32_t begin = b[j], end = e[j], len = end - begin;
    const bool fits = len - 4 <= kShortRow - 4;  // 4 <= len <= kShortRow
    const uint32_t clamped = HWY_MIN(HWY_MAX(len, 4u), kShortRow);
    const bool settled = ShortRow(data, mask_bytes, begin - base, begin,
                                  clamped, &stage[0][j], flags + j,
                                  error_kind + j) &
                         fits;
    left_b[left] = begin;
    left_e[left] = end;
    left_row[left] = static_cast<uint32_t>(out0 + j);
    left += settled ? 0 : 1;
  }
  return left;
}

}  // namespace HWY_NAMESPACE
}  // namespace uriscan
HWY_AFTER_NAMESPACE();

#endif  // include guard
