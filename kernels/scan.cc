// SPDX-License-Identifier: MIT
// The SIMD batch scanner: one classification pass over the whole batch into
// bitmasks, then every URI's boundaries and character sets by bit
// arithmetic on those masks, at the URI's own bit positions.
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

constexpr uint32_t C(int k) { return 1u << k; }

// The masks of a batch: word (i / 64) of class k is at [i / 64 * N + k].
class Masks {
 public:
  explicit Masks(const uint64_t* words) : w_(words) {}
  uint64_t Word(int k, uint32_t block) const {
    return w_[static_cast<size_t>(block) * kNumClasses + k];
  }
  bool Bit(int k, uint32_t i) const { return (Word(k, i >> 6) >> (i & 63)) & 1; }
  // The first byte in [from, to) whose class is in kClasses (a bit set of
  // Class values), or `to`. A template so each union of masks folds to a
  // few ORs.
  template <uint32_t kClasses>
  HWY_INLINE uint32_t First(uint32_t from, uint32_t to) const {
    if (from >= to) return to;
    uint32_t block = from >> 6;
    const uint32_t last = (to - 1) >> 6;
    uint64_t bits = Union<kClasses>(block) & (~uint64_t{0} << (from & 63));
    for (;;) {
      if (bits) {
        const uint32_t pos =
            block * 64 + hwy::Num0BitsBelowLS1Bit_Nonzero64(bits);
        return pos < to ? pos : to;
      }
      if (++block > last) return to;
      bits = Union<kClasses>(block);
    }
  }
  template <uint32_t kClasses>
  HWY_INLINE bool Any(uint32_t from, uint32_t to) const {
    return First<kClasses>(from, to) < to;
  }

 private:
  template <uint32_t kClasses>
  HWY_INLINE uint64_t Union(uint32_t block) const {
    const uint64_t* w = w_ + static_cast<size_t>(block) * kNumClasses;
    uint64_t u = 0;
    for (int k = 0; k < kNumClasses; ++k)
      if (kClasses & (1u << k)) u |= w[k];
    return u;
  }
  const uint64_t* w_;
};



// One URI reference [b, e) of `p`: fills its boundaries (relative to b) and
// flags, or returns false when the scalar parser must settle it (an error
// to locate, an IP literal). Only references the grammar accepts are
// settled here, each by the same rule the scalar parser applies.
HWY_INLINE bool ScanOne(const uint8_t* p, uint32_t b, uint32_t e,
                        const Masks& m, Boundaries* out, uint16_t* flags_out) {
  if (m.Any<C(kReject)>(b, e)) return false;
  uint16_t f = 0;
  // pct-encoded = "%" HEXDIG HEXDIG: hex digits are never delimiters, so a
  // triplet cannot straddle two components; only the end can cut it.
  for (uint32_t i = m.First<C(kPercent)>(b, e); i < e;
       i = m.First<C(kPercent)>(i + 1, e)) {
    if (i + 2 >= e || !m.Bit(kHex, i + 1) || !m.Bit(kHex, i + 2)) return false;
    f |= flags::kHasPctEncoded;
  }
  uint32_t pos = b;
  const uint32_t first =
      m.First<C(kColon) | C(kSlash) | C(kQuestion) | C(kHash)>(b, e);
  if (first < e && p[first] == ':') {  // scheme = ALPHA *( ... ) (§3.1)
    if (first == b || m.Any<C(kNotScheme)>(b, first) || m.Bit(kDigit, b) ||
        p[b] == '+' || p[b] == '-' || p[b] == '.') {
      return false;
    }
    if (m.Any<C(kUpper)>(b, first)) f |= flags::kHasUpperCase;
    f |= flags::kHasScheme;
    out->scheme_end = first - b;
    pos = first + 1;
  } else {
    out->scheme_end = 0;
  }
  out->authority_begin = out->userinfo_end = out->host_begin =
      out->host_end = out->port_begin = pos - b;
  if (pos + 1 < e && p[pos] == '/' && p[pos + 1] == '/') {  // authority
    f |= flags::kHasAuthority;
    const uint32_t a = pos + 2;
    const uint32_t end = m.First<C(kSlash) | C(kQuestion) | C(kHash)>(a, e);
    const uint32_t at = m.First<C(kAt)>(a, end);
    uint32_t h = a;
    out->authority_begin = out->userinfo_end = a - b;
    if (at < end) {  // userinfo: with '[' ']' gone, every other byte is fine
      f |= flags::kHasUserinfo;
      out->userinfo_end = at - b;
      h = at + 1;
      if (m.Any<C(kAt)>(h, end)) return false;  // '@' in host or port
    }
    const uint32_t colon = m.First<C(kColon)>(h, end);
    out->host_begin = h - b;
    out->host_end = out->port_begin = colon - b;
    if (m.Any<C(kUpper)>(h, colon)) f |= flags::kHasUpperCase;
    if (colon > h && m.Bit(kDigit, h) &&
        IsIPv4Address(std::string_view(reinterpret_cast<const char*>(p) + h,
                                       colon - h))) {
      f |= static_cast<uint16_t>(HostKind::kIPv4) << flags::kHostKindShift;
    }
    if (colon < end) {  // port = *DIGIT
      f |= flags::kHasPort;
      out->port_begin = colon + 1 - b;
      for (uint32_t i = colon + 1; i < end; ++i)
        if (!m.Bit(kDigit, i)) return false;
    }
    pos = end;
  }
  out->path_begin = pos - b;
  const uint32_t path_end = m.First<C(kQuestion) | C(kHash)>(pos, e);
  out->path_end = path_end - b;
  // A "." or ".." segment: a dot that starts a segment, followed by the
  // segment's end, or by one more dot and the end.
  for (uint32_t i = m.First<C(kDot)>(pos, path_end); i < path_end;
       i = m.First<C(kDot)>(i + 1, path_end)) {
    if (i != pos && p[i - 1] != '/') continue;
    uint32_t j = i + 1;
    if (j < path_end && p[j] == '.') ++j;
    if (j == path_end || p[j] == '/') {
      f |= flags::kHasDotSegment;
      break;
    }
  }
  uint32_t query_end = path_end;
  out->query_begin = path_end - b;
  if (path_end < e && p[path_end] == '?') {
    f |= flags::kHasQuery;
    out->query_begin = path_end + 1 - b;
    query_end = m.First<C(kHash)>(path_end + 1, e);
  }
  out->fragment_begin = e - b;
  if (query_end < e) {  // '#', and no second '#' in the fragment
    if (m.Any<C(kHash)>(query_end + 1, e)) return false;
    f |= flags::kHasFragment;
    out->fragment_begin = query_end + 1 - b;
  }
  *flags_out = f;
  return true;
}

// Classifies every 64-byte block of [data, data + size) in order and hands
// each block's masks to `visit`. The last partial block goes through a
// zeroed stack copy, so nothing past `size` is read.
template <class Visit>
HWY_INLINE void ForEachBlock(const uint8_t* data, size_t size, Visit visit) {
  BlockMasks block;
  size_t i = 0;
  for (; i + 64 <= size; i += 64) {
    ClassifyBlock(data + i, 64, block);
    visit(block);
  }
  if (i < size) {
    HWY_ALIGN uint8_t tail[64] = {0};
    std::memcpy(tail, data + i, size - i);
    ClassifyBlock(tail, size - i, block);
    visit(block);
  }
}

}  // namespace

// Exported per target (HWY_EXPORT needs them outside the anonymous
// namespace).
void ScanBatch(const uint8_t* data, const uint32_t* offsets, size_t count,
               uint64_t* masks, const kernels::SpanColumns& c) {
  if (count == 0) return;
  // Stage 1: the masks of the whole batch, block after block.
  uint64_t* next = masks;
  ForEachBlock(data, offsets[count], [&next](const BlockMasks& block) {
    std::memcpy(next, block, sizeof(BlockMasks));
    next += kNumClasses;
  });
  const Masks m(masks);
  for (size_t i = 0; i < count; ++i) {
    const uint32_t begin = offsets[i];
    const uint32_t end = offsets[i + 1];
    c.uri_begin[i] = begin;
    c.uri_end[i] = end;
    c.error_offset[i] = 0;
    Boundaries b;
    uint16_t f = 0;
    if (!ScanOne(data, begin, end, m, &b, &f)) {
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

void CountClasses(const uint8_t* data, size_t size,
                  uint64_t counts[kNumClasses]) {
  ForEachBlock(data, size, [counts](const BlockMasks& block) {
    for (int k = 0; k < kNumClasses; ++k) counts[k] += hwy::PopCount(block[k]);
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace uriscan
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace uriscan {
namespace {
HWY_EXPORT(ScanBatch);
HWY_EXPORT(CountClasses);
}  // namespace

namespace kernels {
void ScanBatch(const uint8_t* data, const uint32_t* offsets, size_t count,
               uint64_t* masks, const SpanColumns& cols) {
  HWY_DYNAMIC_DISPATCH(ScanBatch)(data, offsets, count, masks, cols);
}
void CountClasses(const uint8_t* data, size_t size,
                  uint64_t counts[kNumClasses]) {
  HWY_DYNAMIC_DISPATCH(CountClasses)(data, size, counts);
}
}  // namespace kernels
}  // namespace uriscan
#endif  // HWY_ONCE
