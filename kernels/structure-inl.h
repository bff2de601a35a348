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
#include "uriscan/uri.h"

HWY_BEFORE_NAMESPACE();
namespace uriscan {
namespace HWY_NAMESPACE {

using D64 = hn::ScalableTag<uint64_t>;
using V64 = hn::Vec<D64>;
using M64 = hn::Mask<D64>;

// A URI's window of one class: bit i of the NW words is byte i of the URI.
template <size_t NW>
struct Bits {
  V64 w[NW];
};

HWY_INLINE V64 K(uint64_t c) { return hn::Set(D64(), c); }
// Positions are small, so signed compares are exact (and exist on every
// 1.0.3 target).
HWY_INLINE M64 Less(V64 a, V64 b) {
  const hn::RebindToSigned<D64> di;
  return hn::RebindMask(D64(), hn::Lt(hn::BitCast(di, a), hn::BitCast(di, b)));
}
HWY_INLINE V64 MinPos(V64 a, V64 b) { return hn::IfThenElse(Less(a, b), a, b); }

// f applied word by word.
template <size_t NW, class F>
HWY_INLINE Bits<NW> EachWord(const Bits<NW>& a, const Bits<NW>& b, F f) {
  Bits<NW> r;
  for (size_t j = 0; j < NW; ++j) r.w[j] = f(a.w[j], b.w[j]);
  return r;
}
template <size_t NW>
HWY_INLINE Bits<NW> And(const Bits<NW>& a, const Bits<NW>& b) {
  return EachWord(a, b, [](V64 x, V64 y) { return hn::And(x, y); });
}
template <size_t NW>
HWY_INLINE Bits<NW> Or(const Bits<NW>& a, const Bits<NW>& b) {
  return EachWord(a, b, [](V64 x, V64 y) { return hn::Or(x, y); });
}
// ~a & b
template <size_t NW>
HWY_INLINE Bits<NW> AndNot(const Bits<NW>& a, const Bits<NW>& b) {
  return EachWord(a, b, [](V64 x, V64 y) { return hn::AndNot(x, y); });
}
template <size_t NW>
HWY_INLINE M64 Any(const Bits<NW>& a) {
  V64 u = a.w[0];
  for (size_t j = 1; j < NW; ++j) u = hn::Or(u, a.w[j]);
  return hn::Ne(u, hn::Zero(D64()));
}
// The position of the lowest set bit of a nonzero word (anything for 0).
HWY_INLINE V64 LowestBit(V64 x) {
#if HWY_TARGET == HWY_SCALAR
  return hn::PopulationCount(hn::AndNot(x, hn::Sub(x, K(1))));
#else
  // That bit alone, converted to double, is 2^i: i is in the exponent.
  // (A population count is a dozen operations on targets without one.)
  const hn::Repartition<double, D64> df;
  const V64 bit = hn::And(x, hn::Sub(hn::Zero(D64()), x));
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  // Unsigned, so 2^63 has no sign bit to mask off.
  const V64 f = hn::BitCast(D64(), hn::ConvertTo(df, bit));
  return hn::Sub(hn::ShiftRight<52>(f), K(1023));
#else
  const hn::RebindToSigned<D64> di;
  const V64 f = hn::BitCast(D64(), hn::ConvertTo(df, hn::BitCast(di, bit)));
  return hn::Sub(hn::And(hn::ShiftRight<52>(f), K(0x7FF)), K(1023));
#endif
#endif
}

// Where a population count is cheap, the trailing zeros of x are the ones
// of ~x & (x - 1), which is 64 for x = 0: First needs no compare and blend
// per word. VPOPCNTDQ does it in one operation; SSSE3 to AVX2 count the
// nibbles with a table lookup and add the bytes of each lane with psadbw.
#undef URISCAN_CHEAP_TRAILING_ZEROS
#if HWY_TARGET == HWY_AVX3_DL || HWY_TARGET == HWY_AVX2 || \
    HWY_TARGET == HWY_SSE4 || HWY_TARGET == HWY_SSSE3
#define URISCAN_CHEAP_TRAILING_ZEROS 1
alignas(16) inline constexpr uint8_t kNibbleOnes[16] = {0, 1, 1, 2, 1, 2, 2, 3,
                                                        1, 2, 2, 3, 2, 3, 3, 4};
HWY_INLINE V64 TrailingZeros(V64 x) {
  const V64 m = hn::AndNot(x, hn::Sub(x, K(1)));
#if HWY_TARGET == HWY_AVX3_DL
  return hn::PopulationCount(m);
#else
  const hn::Repartition<uint8_t, D64> d8;
  const auto bytes = hn::BitCast(d8, m);
  const auto ones = hn::LoadDup128(d8, kNibbleOnes);
  const auto low = hn::And(bytes, hn::Set(d8, 15));
  const auto high = hn::ShiftRight<4>(bytes);
  return hn::SumsOf8(hn::Add(hn::TableLookupBytes(ones, low),
                             hn::TableLookupBytes(ones, high)));
#endif
}
#else
#define URISCAN_CHEAP_TRAILING_ZEROS 0
#endif

// The lowest set bit's position; 64 * NW when none is set.
template <size_t NW>
HWY_INLINE V64 First(const Bits<NW>& a) {
#if URISCAN_CHEAP_TRAILING_ZEROS
  V64 r = hn::Add(TrailingZeros(a.w[NW - 1]), K(64 * (NW - 1)));
  for (size_t j = NW - 1; j-- > 0;) {
    const V64 t = TrailingZeros(a.w[j]);
    r = hn::IfThenElse(Less(t, K(64)), hn::Add(t, K(64 * j)), r);
  }
#else
  V64 r = K(64 * NW);
  for (size_t j = NW; j-- > 0;) {
    r = hn::IfThenElse(hn::Ne(a.w[j], hn::Zero(D64())),
                       hn::Add(LowestBit(a.w[j]), K(64 * j)), r);
  }
#endif
  return r;
}
// x86 vector shifts by 64 or more give 0 (vpsllvq, and psllq lane by
// lane), which makes the two helpers below two operations a word there.
#undef URISCAN_WIDE_SHIFTS_ARE_ZERO
// (Not the emulated targets: their shifts are C++ shifts.)
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
#define URISCAN_WIDE_SHIFTS_ARE_ZERO 1
#else
#define URISCAN_WIDE_SHIFTS_ARE_ZERO 0
#endif

// 1 << q for 0 <= q < 64, else 0 (q < 0 arrives as a huge unsigned value).
HWY_INLINE V64 OneAt(V64 q) {
#if URISCAN_WIDE_SHIFTS_ARE_ZERO
  return hn::Shl(K(1), q);
#else
  return hn::IfThenElseZero(hn::Eq(hn::ShiftRight<6>(q), hn::Zero(D64())),
                            hn::Shl(K(1), hn::And(q, K(63))));
#endif
}

// The bits below position p, for 0 <= p <= 64 * NW.
template <size_t NW>
HWY_INLINE Bits<NW> Below(V64 p) {
  Bits<NW> r;
  // Word 0: (1 << p) - 1, all ones from p = 64 on.
  r.w[0] = hn::Sub(OneAt(p), K(1));
#if !URISCAN_WIDE_SHIFTS_ARE_ZERO
  r.w[0] = hn::IfThenElse(Less(p, K(64)), r.w[0], K(~uint64_t{0}));
#endif
  for (size_t j = 1; j < NW; ++j) {
    const V64 q = hn::Sub(p, K(64 * j));  // below 0 as a signed value
    const V64 ones = hn::Sub(OneAt(q), K(1));
    r.w[j] = hn::IfThenElseZero(Less(K(0), q),
                                hn::IfThenElse(Less(q, K(64)), ones,
                                               K(~uint64_t{0})));
  }
  return r;
}
// The bit at position p alone; none when p is outside [0, 64 * NW).
template <size_t NW>
HWY_INLINE Bits<NW> BitAt(V64 p) {
  Bits<NW> r;
  for (size_t j = 0; j < NW; ++j) r.w[j] = OneAt(hn::Sub(p, K(64 * j)));
  return r;
}
// Bit i of the result is bit i + S of a (S = 1 or 2).
template <int S, size_t NW>
HWY_INLINE Bits<NW> Down(const Bits<NW>& a) {
  Bits<NW> r;
  for (size_t j = 0; j < NW; ++j) {
    r.w[j] = hn::ShiftRight<S>(a.w[j]);
    if (j + 1 < NW) r.w[j] = hn::Or(r.w[j], hn::ShiftLeft<64 - S>(a.w[j + 1]));
  }
  return r;
}
// Bit i of the result is bit i - 1 of a.
template <size_t NW>
HWY_INLINE Bits<NW> Up1(const Bits<NW>& a) {
  Bits<NW> r;
  for (size_t j = 0; j < NW; ++j) {
    r.w[j] = hn::ShiftLeft<1>(a.w[j]);
    if (j > 0) r.w[j] = hn::Or(r.w[j], hn::ShiftRight<63>(a.w[j - 1]));
  }
  return r;
}
// The set bits but the lowest.
template <size_t NW>
HWY_INLINE Bits<NW> Later(const Bits<NW>& a) {
  if (NW == 1) {  // x & (x - 1) clears the lowest bit
    Bits<NW> r;
    r.w[0] = hn::And(a.w[0], hn::Sub(a.w[0], K(1)));
    return r;
  }
  return AndNot(BitAt<NW>(First(a)), a);
}

// Row values of the whole group, relative to each URI's start.
struct Structure {
#define URISCAN_LANE_BOUNDARY(name) V64 name;
  URISCAN_INNER_BOUNDARIES(URISCAN_LANE_BOUNDARY)
#undef URISCAN_LANE_BOUNDARY
  V64 flags;
  M64 slow;     // the scalar parser settles it (error, IP literal, ...)
  M64 ipv4;     // the host starts with a digit: dotted-quad check needed
  V64 stop_at;  // kFaultsBeforeStop only: the first kStop byte (64 * NW
                // when none), and `slow` says whether a fault precedes it
};

HWY_INLINE V64 FlagIf(M64 m, uint16_t flag) { return hn::IfThenElseZero(m, K(flag)); }

HWY_INLINE M64 NoLane() { return hn::FirstN(D64(), 0); }
// Some lane's bits are set: the rare parts of the rules below run only for
// groups where some row needs them (a branch that is almost always taken
// the same way).
template <size_t NW>
HWY_INLINE bool SomeLane(const Bits<NW>& a) {
  return !hn::AllFalse(D64(), Any(a));
}

// The rules of RFC 3986 Appendix A on the windows, for URIs of `len` bytes
// (at most 64 * NW). win(k) makes class k's window. The six windows are
// made first, since the classes that hold several byte sets are split by
// one another (as kernels::Class says); the splits are made where the
// rules first need them.
//
// With kFaultsBeforeStop, `slow` instead says whether the row breaks a
// rule before its first kStop byte (s.stop_at). The scalar parser reports
// the leftmost byte where a rule breaks, and where each rule applies
// depends on ':' '/' '?' '#' '@' alone, never on a byte allowed nowhere;
// so when that first stop byte is allowed nowhere and nothing breaks
// before it, the row's error is that byte (kDisallowedByte).
template <size_t NW, bool kFaultsBeforeStop = false, class MakeWindow>
HWY_INLINE Structure Structurize(const MakeWindow& win, V64 len) {
  Structure s;
  // Bytes allowed nowhere, brackets, a '%' without two HEXDIG: every
  // triplet must also end inside the URI.
  const Bits<NW> stop = win(kStop);
  s.stop_at = kFaultsBeforeStop ? First(stop) : hn::Zero(D64());
  // (read only with kFaultsBeforeStop)
  const Bits<NW> before_stop = kFaultsBeforeStop ? Below<NW>(s.stop_at) : stop;
  M64 slow = kFaultsBeforeStop ? NoLane() : Any(stop);
  // Bytes that break a rule (those that count).
  auto fault = [&](const Bits<NW>& bad) {
    return kFaultsBeforeStop ? Any(And(bad, before_stop)) : Any(bad);
  };
  const Bits<NW> not_alnum = win(kNotAlnum);
  const Bits<NW> digit_percent_colon_hash = win(kDigitPercentColonHash);
  const Bits<NW> colon_slash = win(kColonSlash);
  const Bits<NW> question_hash_at = win(kQuestionHashAt);
  const Bits<NW> upper_dot_at = win(kUpperDotAt);
  const Bits<NW> digit = AndNot(not_alnum, digit_percent_colon_hash);
  const Bits<NW> pct = AndNot(Or(colon_slash, question_hash_at),
                              And(digit_percent_colon_hash, not_alnum));
  M64 has_pct = NoLane();
  if (HWY_UNLIKELY(SomeLane(pct))) {
    has_pct = Any(pct);
    const V64 last_start = hn::IfThenElseZero(Less(K(1), len), hn::Sub(len, K(2)));
    slow = hn::Or(slow, fault(AndNot(Below<NW>(last_start), pct)));
  }
  // scheme ":" when the first of ":/?#" is a ':' (section 3.1, 4.2).
  const Bits<NW> colon = And(colon_slash, digit_percent_colon_hash);
  const Bits<NW> slash = AndNot(digit_percent_colon_hash, colon_slash);
  const Bits<NW> query = AndNot(upper_dot_at, question_hash_at);  // '?' '#'
  const V64 first = First(Or(colon_slash, query));
  const M64 has_scheme = Any(And(colon, BitAt<NW>(first)));
  const Bits<NW> scheme = Below<NW>(first);
  // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ): the first byte
  // is no DIGIT, and none is outside ALPHA / DIGIT (a "+", "-" or "."
  // sends the row to the scalar parser, which settles it).
  const M64 first_is_digit = hn::Ne(hn::And(digit.w[0], K(1)), hn::Zero(D64()));
  M64 bad_first = hn::Or(hn::Eq(first, K(0)), first_is_digit);
  if (kFaultsBeforeStop) bad_first = hn::And(bad_first, Less(K(0), s.stop_at));
  slow = hn::Or(slow, hn::And(has_scheme,
                              hn::Or(bad_first, fault(And(not_alnum, scheme)))));
  s.scheme_end = hn::IfThenElseZero(has_scheme, first);
  const V64 pos = hn::IfThenElseZero(has_scheme, hn::Add(first, K(1)));
  // "//" authority, up to the first of "/?#" (section 3.2).
  const M64 has_authority =
      Any(And(And(slash, Down<1>(slash)), BitAt<NW>(pos)));
  const V64 a = hn::Add(pos, K(2));
  const V64 a_end = MinPos(First(AndNot(Below<NW>(a), Or(slash, query))), len);
  const Bits<NW> authority = AndNot(Below<NW>(a), Below<NW>(a_end));
  // userinfo "@" (section 3.2.1); a second '@' is in the host, which no
  // reg-name allows.
  M64 has_userinfo = NoLane();
  V64 h = a;
  const Bits<NW> at = And(And(question_hash_at, upper_dot_at), authority);
  if (HWY_UNLIKELY(SomeLane(at))) {
    has_userinfo = hn::And(has_authority, Any(at));
    h = hn::IfThenElse(has_userinfo, hn::Add(First(at), K(1)), a);
    slow = hn::Or(slow, hn::And(has_authority, fault(Later(at))));
  }
  const Bits<NW> host_port = AndNot(Below<NW>(h), authority);
  // ":" port, and the port is *DIGIT (section 3.2.3).
  const Bits<NW> port_colon = And(colon, host_port);
  M64 has_port = NoLane();
  V64 c = a_end;
  if (HWY_UNLIKELY(SomeLane(port_colon))) {
    has_port = hn::And(has_authority, Any(port_colon));
    c = MinPos(First(port_colon), a_end);
    const Bits<NW> port = AndNot(Below<NW>(hn::Add(c, K(1))), authority);
    slow = hn::Or(slow, hn::And(has_port, fault(AndNot(digit, port))));
  }
  const Bits<NW> host = AndNot(Below<NW>(h), Below<NW>(c));
  s.ipv4 = hn::AndNot(slow, hn::And(has_authority,
                                    Any(And(digit, And(host, BitAt<NW>(h))))));
  Bits<NW> cased = host;
  for (size_t j = 0; j < NW; ++j) {
    cased.w[j] = hn::Or(hn::IfThenElseZero(has_scheme, scheme.w[j]),
                        hn::IfThenElseZero(has_authority, host.w[j]));
  }
  s.authority_begin = hn::IfThenElse(has_authority, a, pos);
  s.userinfo_end = hn::IfThenElse(has_userinfo, hn::Sub(h, K(1)), s.authority_begin);
  s.host_begin = hn::IfThenElse(has_authority, h, pos);
  s.host_end = hn::IfThenElse(has_authority, c, pos);
  s.port_begin = hn::IfThenElse(has_port, hn::Add(c, K(1)), s.host_end);
  // The path, up to the first '?' or '#' (section 3.3). Neither can come
  // earlier (a scheme ends at the first of ":/?#", an authority at the
  // first of "/?#"), so that is the first of the whole row, found without
  // waiting for the scheme and authority.
  const V64 path_begin = hn::IfThenElse(has_authority, a_end, pos);
  const V64 path_end = MinPos(First(query), len);
  s.path_begin = path_begin;
  s.path_end = path_end;
  // A "." or ".." segment: it starts the path or follows a '/', and a '/'
  // or the path's end follows it.
  M64 has_dot_segment = NoLane();
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
    has_dot_segment = Any(Or(dot, dot_dot));
  }
  // Query up to the first '#', fragment after it; no second '#'. Without
  // any '#', whatever ends the path is a '?'.
  M64 has_query = Less(path_end, len);
  M64 has_fragment = NoLane();
  s.fragment_begin = len;
  const Bits<NW> hash = And(question_hash_at, digit_percent_colon_hash);
  if (HWY_UNLIKELY(SomeLane(hash))) {
    has_query = Any(And(AndNot(hash, query), BitAt<NW>(path_end)));
    has_fragment = Any(hash);  // all after the path, as above
    s.fragment_begin =
        hn::IfThenElse(has_fragment, hn::Add(First(hash), K(1)), len);
    slow = hn::Or(slow, fault(Later(hash)));
  }
  s.query_begin = hn::IfThenElse(has_query, hn::Add(path_end, K(1)), path_end);
  s.slow = slow;
  s.flags = hn::Or(
      hn::Or(hn::Or(FlagIf(has_scheme, flags::kHasScheme),
                    FlagIf(has_authority, flags::kHasAuthority)),
             hn::Or(FlagIf(has_userinfo, flags::kHasUserinfo),
                    FlagIf(has_port, flags::kHasPort))),
      hn::Or(hn::Or(FlagIf(has_query, flags::kHasQuery),
                    FlagIf(has_fragment, flags::kHasFragment)),
             hn::Or(hn::Or(FlagIf(has_pct, flags::kHasPctEncoded),
                           FlagIf(Any(And(AndNot(not_alnum, upper_dot_at), cased)),
                                  flags::kHasUpperCase)),
                    FlagIf(has_dot_segment, flags::kHasDotSegment))));
  return s;
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
