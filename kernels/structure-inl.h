// SPDX-License-Identifier: MIT
// Stage 2, per target: the boundaries of one URI reference per 64-bit lane,
// found on its class masks by bit arithmetic, with no branch on content.
// Included once per target.
#if defined(URISCAN_KERNELS_STRUCTURE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef URISCAN_KERNELS_STRUCTURE_INL_H_
#undef URISCAN_KERNELS_STRUCTURE_INL_H_
#else
#define URISCAN_KERNELS_STRUCTURE_INL_H_
#endif

#include "hwy/highway.h"
#include "kernels/classify-inl.h"
#include "kernels/kernels.h"
#include "kernels/ops-inl.h"
#include "uriscan/uri.h"

HWY_BEFORE_NAMESPACE();
namespace uriscan {
namespace HWY_NAMESPACE {

// Lanes a V64 can have on this target (on the scalable ones, a bound on
// the run-time count).
inline constexpr size_t kMaxLanes = hn::MaxLanes(D64());

// One lane per URI reference, in memory: vectors are never members of a
// struct or elements of an array (SVE's are sizeless), so what stage 2
// keeps of several words or fields lives in lane arrays, loaded where it
// is used (the compiler keeps them in registers where it can).
using Lanes = uint64_t[kMaxLanes];
HWY_INLINE V64 Get(const uint64_t* lanes) { return hn::Load(D64(), lanes); }
HWY_INLINE void Put(uint64_t* lanes, V64 v) { hn::Store(v, D64(), lanes); }
HWY_INLINE M64 GetMask(const uint64_t* lanes) { return hn::MaskFromVec(Get(lanes)); }
HWY_INLINE void PutMask(uint64_t* lanes, M64 m) { Put(lanes, hn::VecFromMask(D64(), m)); }

// A URI's window of one class: bit i of the NW words is byte i of the URI.
template <size_t NW>
struct Bits {
  HWY_ALIGN Lanes w[NW];
};
template <size_t NW>
HWY_INLINE V64 Word(const Bits<NW>& a, size_t j) { return Get(a.w[j]); }

// The lesser of two positions or lengths (below 2^32, so their upper
// halves are zero and the minimum of the 32-bit halves is exact): one
// instruction where a 64-bit minimum is a compare and a blend (AVX2, whose
// blend is three micro-ops on Intel cores, and NEON).
HWY_INLINE V64 MinPos(V64 a, V64 b) {
#if HWY_TARGET == HWY_SCALAR
  return hn::Min(a, b);
#else
  const hn::Repartition<uint32_t, D64> d32;
  return hn::BitCast(D64(), hn::Min(hn::BitCast(d32, a), hn::BitCast(d32, b)));
#endif
}

template <size_t NW>
HWY_INLINE Bits<NW> And(const Bits<NW>& a, const Bits<NW>& b) {
  Bits<NW> r;
  for (size_t j = 0; j < NW; ++j) Put(r.w[j], hn::And(Word(a, j), Word(b, j)));
  return r;
}
template <size_t NW>
HWY_INLINE Bits<NW> Or(const Bits<NW>& a, const Bits<NW>& b) {
  Bits<NW> r;
  for (size_t j = 0; j < NW; ++j) Put(r.w[j], hn::Or(Word(a, j), Word(b, j)));
  return r;
}
// ~a & b
template <size_t NW>
HWY_INLINE Bits<NW> AndNot(const Bits<NW>& a, const Bits<NW>& b) {
  Bits<NW> r;
  for (size_t j = 0; j < NW; ++j) Put(r.w[j], hn::AndNot(Word(a, j), Word(b, j)));
  return r;
}
// The OR of a's words: nonzero in the lanes with some bit set.
template <size_t NW>
HWY_INLINE V64 Union(const Bits<NW>& a) {
  V64 u = Word(a, 0);
  for (size_t j = 1; j < NW; ++j) u = hn::Or(u, Word(a, j));
  return u;
}
template <size_t NW>
HWY_INLINE M64 Any(const Bits<NW>& a) {
  return hn::Ne(Union(a), hn::Zero(D64()));
}

// The lowest set bit's position; 64 * NW when none is set.
template <size_t NW>
HWY_INLINE V64 First(const Bits<NW>& a) {
#if URISCAN_CHEAP_TRAILING_ZEROS
  // From the last word back: a word's count, plus what follows it when
  // the word is empty (its count is then 64). No blend: a compare, an AND
  // and an add a word.
  V64 r = TrailingZeros(Word(a, NW - 1));
  for (size_t j = NW - 1; j-- > 0;) {
    const V64 t = TrailingZeros(Word(a, j));
    r = hn::Add(t, hn::IfThenElseZero(hn::Eq(t, K(64)), r));
  }
#else
  V64 r = K(64 * NW);
  for (size_t j = NW; j-- > 0;) {
    r = hn::IfThenElse(hn::Ne(Word(a, j), hn::Zero(D64())),
                       hn::Add(LowestBit(Word(a, j)), K(64 * j)), r);
  }
#endif
  return r;
}

// The bits below position p, for 0 <= p <= 64 * NW.
template <size_t NW>
HWY_INLINE Bits<NW> Below(V64 p) {
  Bits<NW> r;
  // Word j: (1 << q) - 1 for q = p - 64 j, which is all ones from q = 64
  // on (OneAt gives 0 there), and none below q = 0.
  Put(r.w[0], hn::Sub(OneAt(p), K(1)));
  for (size_t j = 1; j < NW; ++j) {
    const V64 q = hn::Sub(p, K(64 * j));  // below 0 as a signed value
    Put(r.w[j], hn::IfThenZeroElse(Less(q, K(0)), hn::Sub(OneAt(q), K(1))));
  }
  return r;
}
// The bit at position p alone; none when p is outside [0, 64 * NW).
template <size_t NW>
HWY_INLINE Bits<NW> BitAt(V64 p) {
  Bits<NW> r;
  for (size_t j = 0; j < NW; ++j) Put(r.w[j], OneAt(hn::Sub(p, K(64 * j))));
  return r;
}
// Bit i of the result is bit i + S of a (S = 1 or 2).
template <int S, size_t NW>
HWY_INLINE Bits<NW> Down(const Bits<NW>& a) {
  Bits<NW> r;
  for (size_t j = 0; j < NW; ++j) {
    V64 w = hn::ShiftRight<S>(Word(a, j));
    if (j + 1 < NW) w = hn::Or(w, hn::ShiftLeft<64 - S>(Word(a, j + 1)));
    Put(r.w[j], w);
  }
  return r;
}
// Bit i of the result is bit i - 1 of a.
template <size_t NW>
HWY_INLINE Bits<NW> Up1(const Bits<NW>& a) {
  Bits<NW> r;
  for (size_t j = 0; j < NW; ++j) {
    V64 w = hn::ShiftLeft<1>(Word(a, j));
    if (j > 0) w = hn::Or(w, hn::ShiftRight<63>(Word(a, j - 1)));
    Put(r.w[j], w);
  }
  return r;
}
// The set bits but the lowest.
template <size_t NW>
HWY_INLINE Bits<NW> Later(const Bits<NW>& a) {
  if (NW == 1) {  // x & (x - 1) clears the lowest bit
    Bits<NW> r;
    Put(r.w[0], hn::And(Word(a, 0), hn::Sub(Word(a, 0), K(1))));
    return r;
  }
  return AndNot(BitAt<NW>(First(a)), a);
}

// The six class windows Structurize reads (see kernels::Class).
template <size_t NW>
struct Windows {
  Bits<NW> stop, colon_slash, question_hash_at, digit_percent_colon_hash,
      upper_dot_at, not_alnum;
};

// Row values of the whole group, relative to each URI's start, one lane
// per row.
struct Structure {
#define URISCAN_LANE_BOUNDARY(name) HWY_ALIGN Lanes name;
  URISCAN_INNER_BOUNDARIES(URISCAN_LANE_BOUNDARY)
#undef URISCAN_LANE_BOUNDARY
  HWY_ALIGN Lanes flags;
  HWY_ALIGN Lanes slow;     // all ones: the scalar parser settles it (error,
                            // IP literal, ...)
  HWY_ALIGN Lanes ipv4;     // all ones: the host starts with a digit, so a
                            // dotted-quad check is needed
  HWY_ALIGN Lanes stop_at;  // kFaultsBeforeStop only: the first kStop byte
                            // (64 * NW when none), and `slow` says whether
                            // a fault precedes it
};

// Some byte of `bad` breaks a rule; with kFaultsBeforeStop, only those
// before the first kStop byte count.
template <bool kFaultsBeforeStop, size_t NW>
HWY_INLINE M64 Fault(const Bits<NW>& before_stop, const Bits<NW>& bad) {
  return kFaultsBeforeStop ? Any(And(bad, before_stop)) : Any(bad);
}

HWY_INLINE V64 FlagIf(M64 m, uint16_t flag) { return hn::IfThenElseZero(m, K(flag)); }

HWY_INLINE M64 NoLane() { return hn::FirstN(D64(), 0); }
// Some lane's bits are set: the rare parts of the rules below run only for
// groups where some row needs them (a branch that is almost always taken
// the same way). One vptest on AVX2 and SSE4, where a lane compare, its
// complement and a mask move cost three more.
template <size_t NW>
HWY_INLINE bool SomeLane(const Bits<NW>& a) {
  const V64 u = Union(a);
  return !NoLaneHasBit(D64(), u, u);
}

// The rules of RFC 3986 Appendix A on the class windows of URIs of `len`
// bytes (at most 64 * NW), into *s. The classes that hold several byte
// sets are split by one another (as kernels::Class says) where the rules
// first need them.
//
// With kFaultsBeforeStop, `slow` instead says whether the row breaks a
// rule before its first kStop byte (s.stop_at). The scalar parser reports
// the leftmost byte where a rule breaks, and where each rule applies
// depends on ':' '/' '?' '#' '@' alone, never on a byte allowed nowhere;
// so when that first stop byte is allowed nowhere and nothing breaks
// before it, the row's error is that byte (kDisallowedByte).
template <size_t NW, bool kFaultsBeforeStop = false>
HWY_INLINE void Structurize(const Windows<NW>& win, V64 len, Structure* s) {
  // Bytes allowed nowhere, brackets, a '%' without two HEXDIG: every
  // triplet must also end inside the URI.
  const Bits<NW>& stop = win.stop;
  const V64 stop_at = kFaultsBeforeStop ? First(stop) : hn::Zero(D64());
  Put(s->stop_at, stop_at);
  // (read only with kFaultsBeforeStop)
  const Bits<NW> before_stop = kFaultsBeforeStop ? Below<NW>(stop_at) : stop;
  M64 slow = kFaultsBeforeStop ? NoLane() : Any(stop);
  // Bytes that break a rule (those that count).
  const Bits<NW>& not_alnum = win.not_alnum;
  const Bits<NW>& digit_percent_colon_hash = win.digit_percent_colon_hash;
  const Bits<NW>& colon_slash = win.colon_slash;
  const Bits<NW>& question_hash_at = win.question_hash_at;
  const Bits<NW>& upper_dot_at = win.upper_dot_at;
  const Bits<NW> digit = AndNot(not_alnum, digit_percent_colon_hash);
  const Bits<NW> pct = AndNot(Or(colon_slash, question_hash_at),
                              And(digit_percent_colon_hash, not_alnum));
  // The flags of the rare parts, set where those parts run (so that the
  // common step spends nothing on them).
  V64 rare_flags = hn::Zero(D64());
  if (HWY_UNLIKELY(SomeLane(pct))) {
    rare_flags = FlagIf(Any(pct), flags::kHasPctEncoded);
    const V64 last_start = hn::IfThenElseZero(Less(K(1), len), hn::Sub(len, K(2)));
    slow = hn::Or(slow, Fault<kFaultsBeforeStop>(before_stop, AndNot(Below<NW>(last_start), pct)));
  }
  // scheme ":" when the first of ":/?#" is a ':' (section 3.1, 4.2).
  const Bits<NW> colon = And(colon_slash, digit_percent_colon_hash);
  const Bits<NW> slash = AndNot(digit_percent_colon_hash, colon_slash);
  const Bits<NW> query = AndNot(upper_dot_at, question_hash_at);  // '?' '#'
  const V64 first = First(Or(colon_slash, query));
  const M64 has_scheme = Any(And(colon, BitAt<NW>(first)));
  const Bits<NW> scheme = Below<NW>(first);
  // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ): no byte of it is
  // outside ALPHA / DIGIT (a "+", "-" or "." sends the row to the scalar
  // parser, which settles it), and the row's first byte is ALPHA (when
  // the scheme is empty, that byte is the ':', outside ALPHA / DIGIT).
  Bits<NW> bad_scheme = And(not_alnum, scheme);
  Put(bad_scheme.w[0],
      hn::Or(Word(bad_scheme, 0),
             hn::And(hn::Or(Word(not_alnum, 0), Word(digit_percent_colon_hash, 0)),
                     K(1))));
  slow = hn::Or(slow, hn::And(has_scheme, Fault<kFaultsBeforeStop>(before_stop, bad_scheme)));
  Put(s->scheme_end, hn::IfThenElseZero(has_scheme, first));
  // Where hier-part or relative-part starts: after "scheme:", if any.
  const V64 after_scheme = hn::IfThenElseZero(has_scheme, hn::Add(first, K(1)));
  // "//" authority, up to the first of "/?#" (section 3.2).
  const M64 has_authority =
      Any(And(And(slash, Down<1>(slash)), BitAt<NW>(after_scheme)));
  const V64 after_slashes = hn::Add(after_scheme, K(2));
  const V64 authority_begin = AddIf<2>(has_authority, after_scheme);
  const V64 authority_end =
      MinPos(First(AndNot(Below<NW>(after_slashes), Or(slash, query))), len);
  const Bits<NW> authority =
      AndNot(Below<NW>(after_slashes), Below<NW>(authority_end));
  // userinfo "@" (section 3.2.1); a second '@' is in the host, which no
  // reg-name allows.
  V64 host_at = after_slashes;  // the host's first byte
  // Without any '@' in the step, the userinfo is empty and the host starts
  // where the authority does (no blends: they are costly on AVX2).
  V64 userinfo_end = authority_begin, host_begin = authority_begin;
  const Bits<NW> at = And(And(question_hash_at, upper_dot_at), authority);
  if (HWY_UNLIKELY(SomeLane(at))) {
    const M64 has_userinfo = hn::And(has_authority, Any(at));
    rare_flags = hn::Or(rare_flags, FlagIf(has_userinfo, flags::kHasUserinfo));
    host_at =
        hn::IfThenElse(has_userinfo, hn::Add(First(at), K(1)), after_slashes);
    slow = hn::Or(slow, hn::And(has_authority, Fault<kFaultsBeforeStop>(before_stop, Later(at))));
    userinfo_end = hn::IfThenElse(has_userinfo, hn::Sub(host_at, K(1)), authority_begin);
    host_begin = hn::IfThenElse(has_authority, host_at, after_scheme);
  }
  const Bits<NW> host_port = AndNot(Below<NW>(host_at), authority);
  // ":" port, and the port is *DIGIT (section 3.2.3).
  const Bits<NW> port_colon = And(colon, host_port);
  V64 host_stop = authority_end;  // the port's ':', or the authority's end
  // Where hier-part's path starts; without a port in the step, where the
  // host ends too.
  const V64 path_begin =
      hn::IfThenElse(has_authority, authority_end, after_scheme);
  V64 host_end = path_begin, port_begin = path_begin;
  if (HWY_UNLIKELY(SomeLane(port_colon))) {
    const M64 has_port = hn::And(has_authority, Any(port_colon));
    rare_flags = hn::Or(rare_flags, FlagIf(has_port, flags::kHasPort));
    host_stop = MinPos(First(port_colon), authority_end);
    const Bits<NW> port =
        AndNot(Below<NW>(hn::Add(host_stop, K(1))), authority);
    slow = hn::Or(slow, hn::And(has_port, Fault<kFaultsBeforeStop>(before_stop, AndNot(digit, port))));
    host_end = hn::IfThenElse(has_authority, host_stop, after_scheme);
    port_begin = hn::IfThenElse(has_port, hn::Add(host_stop, K(1)), host_end);
  }
  const Bits<NW> host = AndNot(Below<NW>(host_at), Below<NW>(host_stop));
  PutMask(s->ipv4,
          hn::AndNot(slow,
                     hn::And(has_authority,
                             Any(And(digit, And(host, BitAt<NW>(host_at)))))));
  Bits<NW> cased;
  for (size_t j = 0; j < NW; ++j) {
    Put(cased.w[j], hn::Or(hn::IfThenElseZero(has_scheme, Word(scheme, j)),
                           hn::IfThenElseZero(has_authority, Word(host, j))));
  }
  Put(s->authority_begin, authority_begin);
  Put(s->userinfo_end, userinfo_end);
  Put(s->host_begin, host_begin);
  Put(s->host_end, host_end);
  Put(s->port_begin, port_begin);
  // The path, up to the first '?' or '#' (section 3.3). Neither can come
  // earlier (a scheme ends at the first of ":/?#", an authority at the
  // first of "/?#"), so that is the first of the whole row, found without
  // waiting for the scheme and authority.
  const V64 path_end = MinPos(First(query), len);
  Put(s->path_begin, path_begin);
  Put(s->path_end, path_end);
  // A "." or ".." segment: it starts the path or follows a '/', and a '/'
  // or the path's end follows it.
  const Bits<NW> starts = Or(Up1(slash), BitAt<NW>(path_begin));
  const Bits<NW> dot_bytes =
      AndNot(question_hash_at, And(upper_dot_at, not_alnum));
  if (HWY_UNLIKELY(SomeLane(And(dot_bytes, starts)))) {
    const Bits<NW> dots =
        And(dot_bytes, AndNot(Below<NW>(path_begin), Below<NW>(path_end)));
    const Bits<NW> dot = And(And(dots, starts),
                             Or(Down<1>(slash), BitAt<NW>(hn::Sub(path_end, K(1)))));
    const Bits<NW> dot_dot =
        And(And(And(dots, Down<1>(dots)), starts),
            Or(Down<2>(slash), BitAt<NW>(hn::Sub(path_end, K(2)))));
    rare_flags = hn::Or(rare_flags, FlagIf(Any(Or(dot, dot_dot)),
                                           flags::kHasDotSegment));
  }
  // Query up to the first '#', fragment after it; no second '#'. Without
  // any '#', whatever ends the path is a '?'.
  M64 has_query = Less(path_end, len);
  V64 fragment_begin = len;
  const Bits<NW> hash = And(question_hash_at, digit_percent_colon_hash);
  if (HWY_UNLIKELY(SomeLane(hash))) {
    has_query = Any(And(AndNot(hash, query), BitAt<NW>(path_end)));
    const M64 has_fragment = Any(hash);  // all after the path, as above
    rare_flags = hn::Or(rare_flags, FlagIf(has_fragment, flags::kHasFragment));
    fragment_begin = hn::IfThenElse(has_fragment, hn::Add(First(hash), K(1)), len);
    slow = hn::Or(slow, Fault<kFaultsBeforeStop>(before_stop, Later(hash)));
  }
  Put(s->fragment_begin, fragment_begin);
  Put(s->query_begin, AddIf<1>(has_query, path_end));
  PutMask(s->slow, slow);
  Put(s->flags,
      hn::Or(hn::Or(hn::Or(FlagIf(has_scheme, flags::kHasScheme),
                           FlagIf(has_authority, flags::kHasAuthority)),
                    hn::Or(FlagIf(has_query, flags::kHasQuery),
                           FlagIf(Any(And(AndNot(not_alnum, upper_dot_at), cased)),
                                  flags::kHasUpperCase))),
             rare_flags));
}

// IPv4address = dec-octet "." dec-octet "." dec-octet "." dec-octet, with
// dec-octet 0-255 and no leading zero (section 3.2.2): the host of the rare
// rows whose host starts with a digit.
HWY_INLINE bool IsDottedQuad(const uint8_t* p, size_t n) {
  size_t i = 0;
  for (int octet = 0; octet < 4; ++octet) {
    if (octet > 0 && (i >= n || p[i++] != '.')) return false;
    const size_t start = i;
    unsigned value = 0;
    while (i < n && p[i] >= '0' && p[i] <= '9' && i - start < 3)
      value = value * 10 + (p[i++] - '0');
    const size_t digits = i - start;
    if (digits == 0 || value > 255 || (digits > 1 && p[start] == '0'))
      return false;
  }
  return i == n;
}

}  // namespace HWY_NAMESPACE
}  // namespace uriscan
HWY_AFTER_NAMESPACE();

#endif  // include guard
