// SPDX-License-Identifier: MIT
// Stage 2's short path, per target: one row at a time in general-purpose
// registers, for the rows most real traffic holds,
//   scheme "://" reg-name [ ":" port ] path-abempty [ "?" query ] [ "#" fragment ]
// with no byte allowed nowhere, no userinfo, no "/." in the path and the
// authority within the row's first 64 bytes. A handful of mask operations a
// row (first set bit, "no bit in this range") settle it; any other row is
// left to the vector step (rows-inl.h), which knows every rule. The code is
// scalar on every target: on x86 it compiles to BMI1/BMI2 (tzcnt, blsi,
// bzhi, shrx), on Arm to rbit/clz.
// Included once per target, by kernels/rows-inl.h.
#if defined(URISCAN_KERNELS_SHORT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef URISCAN_KERNELS_SHORT_INL_H_
#undef URISCAN_KERNELS_SHORT_INL_H_
#else
#define URISCAN_KERNELS_SHORT_INL_H_
#endif

#include "hwy/highway.h"
#include "kernels/kernels.h"
#include "kernels/structure-inl.h"
#include "uriscan/uri.h"

HWY_BEFORE_NAMESPACE();
namespace uriscan {
namespace HWY_NAMESPACE {

// The position of the lowest set bit, 64 for none (tzcnt where BMI is).
HWY_INLINE uint32_t LowestBitOr64(uint64_t bits) {
  return bits ? static_cast<uint32_t>(hwy::Num0BitsBelowLS1Bit_Nonzero64(bits))
              : 64u;
}
// The bits below position n, all of them from n = 64 on (bzhi).
HWY_INLINE uint64_t BitsBelow(uint32_t n) {
  return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
}

// One class's 64 bits from a row's byte 64 k on: the window words blk + k
// and blk + k + 1 funnel-shifted by sh (shrd; the shift by 63 - sh and 1
// more is defined for sh = 0).
HWY_INLINE uint64_t RowWord(const uint64_t* HWY_RESTRICT column, size_t at,
                            uint32_t sh) {
  return (column[at] >> sh) | ((column[at + 1] << 1) << (63 - sh));
}

// Settles the row [b, e) (offsets from data; its masks in the window that
// starts at data + base) if it has the common shape above, writing output
// row r of cols, and returns true; returns false, writing nothing, for any
// other row. What it writes is what Structurize and GroupBody write for the
// same row.
HWY_INLINE bool ShortRow(const uint8_t* HWY_RESTRICT data,
                         const uint64_t* HWY_RESTRICT masks, uint32_t base,
                         uint32_t b, uint32_t e, const kernels::SpanColumns& cols,
                         size_t r) {
  using kernels::kMaskStride;
  const uint32_t len = e - b;
  // "a://" is the shortest; a '%' in the last two bytes lacks its HEXDIG
  // (stage 1 saw the next row's bytes after it).
  if (len < 4 || data[e - 1] == '%' || data[e - 2] == '%') return false;
  const uint32_t rel = b - base, sh = rel & 63;
  const size_t blk = rel >> 6;
  auto word = [&](int c, size_t k) {
    return RowWord(masks + c * kMaskStride, blk + k, sh);
  };
  const uint64_t inside = BitsBelow(len);
  // Classes split as kernels::Class says. Those whose bits are only read
  // inside ranges of the row go unclipped.
  const uint64_t stop = word(kernels::kStop, 0) & inside;
  const uint64_t cs = word(kernels::kColonSlash, 0) & inside;
  const uint64_t qha = word(kernels::kQuestionHashAt, 0) & inside;
  const uint64_t dpch = word(kernels::kDigitPercentColonHash, 0) & inside;
  const uint64_t uda = word(kernels::kUpperDotAt, 0);
  const uint64_t na = word(kernels::kNotAlnum, 0);
  const uint64_t colon = cs & dpch, slash = cs & ~dpch;
  const uint64_t query = qha & ~uda;  // '?' '#'
  const uint64_t digit = dpch & ~na;
  // scheme ":" "//": the first of ": / ? # @" is a ':' (bit `mark`), the
  // bytes before it are ALPHA / DIGIT and the first is no DIGIT (an empty
  // scheme makes that first byte the ':', which dpch holds too), and two
  // '/' follow it.
  const uint64_t delims = cs | qha;
  const uint64_t mark = delims & (0 - delims);  // blsi
  bool ok = (stop | (mark & ~colon) | (na & (mark - 1)) | (dpch & 1)) == 0;
  ok &= (slash & (mark << 1)) != 0 && (slash & (mark << 2)) != 0;
  const uint32_t scheme_end = LowestBitOr64(mark);
  const uint32_t authority_begin = scheme_end + 3;
  // The authority ends at the first '/', '?' or '#' after it, which the
  // first 64 bytes must hold (or the row's end).
  const uint64_t after = ~BitsBelow(authority_begin);
  uint32_t authority_end = LowestBitOr64((slash | query) & after);
  ok &= authority_end < 64 || len <= 64;
  authority_end = HWY_MIN(authority_end, len);
  const uint64_t authority = after & BitsBelow(authority_end);
  // No '@' (userinfo goes to the vector step); a ':' starts the port, all
  // DIGIT (a second ':' is no DIGIT).
  ok &= (qha & uda & authority) == 0;
  const uint64_t port_colon = colon & authority;
  const uint32_t port_at = LowestBitOr64(port_colon);  // 64 when none
  const bool has_port = port_colon != 0;
  ok &= (authority & ~BitsBelow(port_at + 1) & ~digit) == 0;
  const uint32_t host_end = HWY_MIN(port_at, authority_end);
  const uint32_t port_begin = has_port ? port_at + 1 : authority_end;
  const uint64_t host = authority & BitsBelow(host_end);
  // The path runs to the first '?' or '#' of the row (none can come
  // earlier); a '/' then '.' in it may start a dot segment: the vector step
  // says.
  const uint64_t dot = uda & na & ~qha;
  const uint64_t starts = slash << 1;
  uint32_t path_end = LowestBitOr64(query);
  uint64_t hash = qha & dpch;
  uint32_t hashes = static_cast<uint32_t>(hwy::PopCount(hash));
  ok &= (dot & starts & ~BitsBelow(authority_end) & BitsBelow(path_end)) == 0;
  uint32_t fragment_at = LowestBitOr64(hash);
  uint64_t pct = dpch & na & ~delims;
  uint64_t fault = 0, last_slash = slash;
  // Past the first 64 bytes: no stop byte, the path's end and "/." in it,
  // the '#'s and '%'s.
  for (size_t k = 1; 64 * k < len && ok; ++k) {
    const uint32_t at = static_cast<uint32_t>(64 * k);
    const uint64_t in = BitsBelow(len - at);
    const uint64_t cs_k = word(kernels::kColonSlash, k) & in;
    const uint64_t qha_k = word(kernels::kQuestionHashAt, k) & in;
    const uint64_t dpch_k = word(kernels::kDigitPercentColonHash, k) & in;
    const uint64_t uda_k = word(kernels::kUpperDotAt, k);
    const uint64_t na_k = word(kernels::kNotAlnum, k);
    fault |= word(kernels::kStop, k) & in;
    const uint64_t slash_k = cs_k & ~dpch_k;
    const uint64_t starts_k = (slash_k << 1) | (last_slash >> 63);
    const uint32_t query_k = LowestBitOr64(qha_k & ~uda_k);
    if (path_end >= at) {  // the path has not ended before this word
      fault |= uda_k & na_k & ~qha_k & starts_k & BitsBelow(query_k);
      path_end = at + query_k;
    }
    const uint64_t hash_k = qha_k & dpch_k;
    hashes += static_cast<uint32_t>(hwy::PopCount(hash_k));
    if (fragment_at >= at) fragment_at = at + LowestBitOr64(hash_k);
    pct |= dpch_k & na_k & ~(cs_k | qha_k);
    last_slash = slash_k;
  }
  ok &= fault == 0 && hashes <= 1;
  if (!ok) return false;
  path_end = HWY_MIN(path_end, len);
  const bool has_fragment = hashes != 0;
  // Whatever ends the path is a '?' unless it is the '#'.
  const bool has_query = path_end < len && path_end != fragment_at;
  uint16_t flags = flags::kHasScheme | flags::kHasAuthority;
  flags |= has_port ? flags::kHasPort : 0;
  flags |= has_query ? flags::kHasQuery : 0;
  flags |= has_fragment ? flags::kHasFragment : 0;
  flags |= pct != 0 ? flags::kHasPctEncoded : 0;
  flags |= (uda & ~na & (BitsBelow(scheme_end) | host)) != 0
               ? flags::kHasUpperCase
               : 0;
  // A host that starts with a DIGIT may be an IPv4address.
  if (HWY_UNLIKELY((digit & host & (mark << 3)) != 0) &&
      IsDottedQuad(data + b + authority_begin, host_end - authority_begin)) {
    flags |= static_cast<uint16_t>(static_cast<uint16_t>(HostKind::kIPv4)
                                   << flags::kHostKindShift);
  }
  cols.uri_begin[r] = b;
  cols.scheme_end[r] = b + scheme_end;
  cols.authority_begin[r] = b + authority_begin;
  cols.userinfo_end[r] = b + authority_begin;
  cols.host_begin[r] = b + authority_begin;
  cols.host_end[r] = b + host_end;
  cols.port_begin[r] = b + port_begin;
  cols.path_begin[r] = b + authority_end;
  cols.path_end[r] = b + path_end;
  cols.query_begin[r] = b + path_end + (has_query ? 1 : 0);
  cols.fragment_begin[r] = has_fragment ? b + fragment_at + 1 : e;
  cols.uri_end[r] = e;
  cols.flags[r] = flags;
  cols.error_kind[r] = 0;  // and error_offset 0: the caller's
  return true;
}

}  // namespace HWY_NAMESPACE
}  // namespace uriscan
HWY_AFTER_NAMESPACE();

#endif  // include guard
