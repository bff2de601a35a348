// SPDX-License-Identifier: MIT
// The SIMD batch scanner: classify each URI's bytes into bitmasks, then find
// every boundary and check every character set with bit arithmetic.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/scan.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include <cstring>
#include <string_view>

#include "hwy/highway.h"
#include "kernels/classify-inl.h"
#include "kernels/kernels.h"
#include "uriscan/uri.h"

HWY_BEFORE_NAMESPACE();
namespace uriscan {
namespace HWY_NAMESPACE {
namespace {

// URIs up to this many bytes take the fast path; longer ones are rare and
// go to the scalar parser.
constexpr uint32_t kMaxWords = 4;
constexpr uint32_t kMaxFast = 64 * kMaxWords;

struct UriMasks {
  uint64_t m[kNumClasses][kMaxWords];
};

// The first set bit of mask `w` in [from, to), or `to`.
HWY_INLINE uint32_t FirstSet(const uint64_t* w, uint32_t from, uint32_t to) {
  if (from >= to) return to;
  uint32_t word = from >> 6;
  uint64_t bits = w[word] & (~uint64_t{0} << (from & 63));
  const uint32_t last = (to - 1) >> 6;
  for (;;) {
    if (bits) {
      const uint32_t pos = word * 64 + hwy::Num0BitsBelowLS1Bit_Nonzero64(bits);
      return pos < to ? pos : to;
    }
    if (++word > last) return to;
    bits = w[word];
  }
}

HWY_INLINE bool AnySet(const uint64_t* w, uint32_t from, uint32_t to) {
  return FirstSet(w, from, to) < to;
}

HWY_INLINE bool Bit(const uint64_t* w, uint32_t i) {
  return (w[i >> 6] >> (i & 63)) & 1;
}

// Classifies [p, p + n), reading up to 64-byte blocks while they stay before
// `end`; the last partial block is copied to the stack so nothing past
// `end` is read.
HWY_INLINE void Classify(const uint8_t* p, uint32_t n, const uint8_t* end,
                         UriMasks* um) {
  BlockMasks block;
  const uint32_t words = (n + 63) / 64;
  for (uint32_t w = 0; w < words; ++w) {
    const uint8_t* q = p + w * 64;
    const uint32_t valid = n - w * 64 < 64 ? n - w * 64 : 64;
    if (end - q >= 64) {
      ClassifyBlock(q, valid, block);
    } else {
      HWY_ALIGN uint8_t tail[64] = {0};
      std::memcpy(tail, q, static_cast<size_t>(end - q));
      ClassifyBlock(tail, valid, block);
    }
    for (int k = 0; k < kNumClasses; ++k) um->m[k][w] = block[k];
  }
  for (uint32_t w = words; w < kMaxWords; ++w)  // whole-word ORs stay defined
    for (int k = 0; k < kNumClasses; ++k) um->m[k][w] = 0;
}

// One URI reference [p, p + n): fills row i, or returns false when the
// scalar parser must settle it (an error to locate, an IP literal, ...).
// Only URIs the RFC grammar accepts are settled here, and for them every
// column equals the scalar parser's by construction: the same rules, read
// off the masks.
HWY_INLINE bool ScanOne(const uint8_t* p, uint32_t n, const UriMasks& um,
                        Boundaries* b, uint16_t* flags_out) {
  const auto& m = um.m;
  if (AnySet(m[kBad], 0, n) || AnySet(m[kBracket], 0, n)) return false;
  uint16_t f = 0;
  // pct-encoded = "%" HEXDIG HEXDIG: hex digits are never delimiters, so a
  // triplet cannot straddle two components; only the end can cut it.
  for (uint32_t i = FirstSet(m[kPercent], 0, n); i < n;
       i = FirstSet(m[kPercent], i + 1, n)) {
    if (i + 2 >= n || !Bit(m[kHex], i + 1) || !Bit(m[kHex], i + 2))
      return false;
    f |= flags::kHasPctEncoded;
  }
  uint64_t delims[kMaxWords];
  for (uint32_t w = 0; w < kMaxWords; ++w)
    delims[w] = m[kColon][w] | m[kSlash][w] | m[kQuestion][w] | m[kHash][w];
  uint32_t pos = 0;
  const uint32_t first = FirstSet(delims, 0, n);
  if (first < n && p[first] == ':') {  // scheme (§3.1)
    if (first == 0 || AnySet(m[kNotScheme], 0, first) || Bit(m[kDigit], 0) ||
        p[0] == '+' || p[0] == '-' || p[0] == '.') {
      return false;
    }
    if (AnySet(m[kUpper], 0, first)) f |= flags::kHasUpperCase;
    f |= flags::kHasScheme;
    b->scheme_end = first;
    pos = first + 1;
  } else {
    b->scheme_end = 0;
  }
  b->authority_begin = b->userinfo_end = b->host_begin = b->host_end =
      b->port_begin = pos;
  if (pos + 1 < n && p[pos] == '/' && p[pos + 1] == '/') {  // authority
    f |= flags::kHasAuthority;
    const uint32_t a = pos + 2;
    uint64_t ends[kMaxWords];
    for (uint32_t w = 0; w < kMaxWords; ++w)
      ends[w] = m[kSlash][w] | m[kQuestion][w] | m[kHash][w];
    const uint32_t e = FirstSet(ends, a, n);
    const uint32_t at = FirstSet(m[kAt], a, e);
    uint32_t h = a;
    b->authority_begin = b->userinfo_end = a;
    if (at < e) {  // userinfo: '[' ']' are gone, every other byte is fine
      f |= flags::kHasUserinfo;
      b->userinfo_end = at;
      h = at + 1;
      if (AnySet(m[kAt], h, e)) return false;  // '@' in host or port
    }
    b->host_begin = h;
    const uint32_t colon = FirstSet(m[kColon], h, e);
    b->host_end = colon;
    if (AnySet(m[kUpper], h, colon)) f |= flags::kHasUpperCase;
    if (colon > h && Bit(m[kDigit], h) &&
        IsIPv4Address(std::string_view(reinterpret_cast<const char*>(p) + h,
                                       colon - h))) {
      f |= static_cast<uint16_t>(HostKind::kIPv4) << flags::kHostKindShift;
    }
    b->port_begin = colon;
    if (colon < e) {  // port = *DIGIT
      f |= flags::kHasPort;
      b->port_begin = colon + 1;
      for (uint32_t i = colon + 1; i < e; ++i)
        if (!Bit(m[kDigit], i)) return false;
    }
    pos = e;
  }
  b->path_begin = pos;
  uint64_t query_or_fragment[kMaxWords];
  for (uint32_t w = 0; w < kMaxWords; ++w)
    query_or_fragment[w] = m[kQuestion][w] | m[kHash][w];
  const uint32_t path_end = FirstSet(query_or_fragment, pos, n);
  b->path_end = path_end;
  // A "." or ".." segment: a dot that starts a segment and is followed by
  // the segment's end, or by one more dot and the end.
  for (uint32_t i = FirstSet(m[kDot], pos, path_end); i < path_end;
       i = FirstSet(m[kDot], i + 1, path_end)) {
    if (i != pos && p[i - 1] != '/') continue;
    uint32_t j = i + 1;
    if (j < path_end && p[j] == '.') ++j;
    if (j == path_end || p[j] == '/') {
      f |= flags::kHasDotSegment;
      break;
    }
  }
  uint32_t q_end = path_end;
  b->query_begin = path_end;
  if (path_end < n && p[path_end] == '?') {
    f |= flags::kHasQuery;
    b->query_begin = path_end + 1;
    q_end = FirstSet(m[kHash], path_end + 1, n);
  }
  b->fragment_begin = n;
  if (q_end < n) {  // '#': no second '#' in a fragment
    if (AnySet(m[kHash], q_end + 1, n)) return false;
    f |= flags::kHasFragment;
    b->fragment_begin = q_end + 1;
  }
  *flags_out = f;
  return true;
}

void ScanRows(const uint8_t* data, const uint32_t* offsets, size_t count,
              const kernels::SpanColumns& c) {
  if (count == 0) return;
  const uint8_t* end = data + offsets[count];
  UriMasks um;
  for (size_t i = 0; i < count; ++i) {
    const uint32_t begin = offsets[i];
    const uint32_t n = offsets[i + 1] - begin;
    c.uri_begin[i] = begin;
    c.uri_end[i] = begin + n;
    c.error_offset[i] = 0;
    Boundaries b;
    uint16_t f = 0;
    bool settled = false;
    if (n <= kMaxFast) {
      Classify(data + begin, n, end, &um);
      settled = ScanOne(data + begin, n, um, &b, &f);
    }
    if (!settled) {
      c.error_kind[i] = kernels::kNeedsScalar;
      continue;
    }
    c.scheme_end[i] = begin + b.scheme_end;
    c.authority_begin[i] = begin + b.authority_begin;
    c.userinfo_end[i] = begin + b.userinfo_end;
    c.host_begin[i] = begin + b.host_begin;
    c.host_end[i] = begin + b.host_end;
    c.port_begin[i] = begin + b.port_begin;
    c.path_begin[i] = begin + b.path_begin;
    c.path_end[i] = begin + b.path_end;
    c.query_begin[i] = begin + b.query_begin;
    c.fragment_begin[i] = begin + b.fragment_begin;
    c.flags[i] = f;
    c.error_kind[i] = 0;
  }
}

uint64_t CountDelims(const uint8_t* data, size_t size) {
  uint64_t total = 0;
  BlockMasks block;
  size_t i = 0;
  for (; i + 64 <= size; i += 64) {
    ClassifyBlock(data + i, 64, block);
    total += hwy::PopCount(block[kColon] | block[kSlash] | block[kQuestion] |
                           block[kHash]);
  }
  if (i < size) {
    HWY_ALIGN uint8_t tail[64] = {0};
    std::memcpy(tail, data + i, size - i);
    ClassifyBlock(tail, size - i, block);
    total += hwy::PopCount(block[kColon] | block[kSlash] | block[kQuestion] |
                           block[kHash]);
  }
  return total;
}

}  // namespace
// Exported names live outside the anonymous namespace for HWY_EXPORT.
void ScanBatch(const uint8_t* data, const uint32_t* offsets, size_t count,
               const kernels::SpanColumns& cols) {
  ScanRows(data, offsets, count, cols);
}
uint64_t CountGenDelims(const uint8_t* data, size_t size) {
  return CountDelims(data, size);
}
}  // namespace HWY_NAMESPACE
}  // namespace uriscan
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace uriscan {
namespace {
HWY_EXPORT(ScanBatch);
HWY_EXPORT(CountGenDelims);
}  // namespace

namespace kernels {
void ScanBatch(const uint8_t* data, const uint32_t* offsets, size_t count,
               const SpanColumns& cols) {
  HWY_DYNAMIC_DISPATCH(ScanBatch)(data, offsets, count, cols);
}
uint64_t CountGenDelims(const uint8_t* data, size_t size) {
  return HWY_DYNAMIC_DISPATCH(CountGenDelims)(data, size);
}
}  // namespace kernels
}  // namespace uriscan
#endif  // HWY_ONCE
