// SPDX-License-Identifier: MIT
// The scalar URI-reference parser, read straight off RFC 3986 Appendix A.
// It is the fallback for hard cases and the oracle for every SIMD target.
#include <limits>
#include <string>

#include "src/char_class.h"
#include "uriscan/uri.h"

namespace uriscan {
namespace {

using chars::Is;

class Parser {
 public:
  explicit Parser(std::string_view text)
      : s_(reinterpret_cast<const unsigned char*>(text.data())),
        n_(static_cast<uint32_t>(text.size())) {}

  // URI-reference = URI / relative-ref (sec. 4.1). Returns false on the first
  // error, which error_ then holds.
  bool Run();

  Boundaries b_;
  uint16_t flags_ = 0;
  ScanError error_;

 private:
  bool Fail(ErrorKind kind, uint32_t at) {
    error_ = {kind, at};
    return false;
  }
  // The kind for an unexpected byte: kDisallowedByte when no URI may hold it.
  ErrorKind KindAt(uint32_t at, ErrorKind rule) const {
    return at < n_ && !Is(s_[at], chars::kAllowed) ? ErrorKind::kDisallowedByte
                                                   : rule;
  }
  // The first byte in [from, to) that is one of kSet, or `to`.
  template <char... kSet>
  uint32_t Find(uint32_t from, uint32_t to) const {
    for (uint32_t i = from; i < to; ++i)
      if (((s_[i] == static_cast<unsigned char>(kSet)) || ...)) return i;
    return to;
  }
  // The first byte in [from, to) not of class `cls` (a single class bit),
  // or `to`.
  uint32_t Skip(uint32_t from, uint32_t to, uint16_t cls) const;
  // *( cls / pct-encoded ) from `begin` up to the first byte that is one of
  // kEnd (none of them of `cls`) or to `limit`; *end gets where it stops.
  template <char... kEnd>
  bool CheckRunTo(uint32_t begin, uint32_t limit, uint16_t cls, ErrorKind rule,
                  uint32_t* end);
  // *( cls / pct-encoded ) over [begin, end).
  bool CheckRun(uint32_t begin, uint32_t end, uint16_t cls, ErrorKind rule) {
    uint32_t stop;
    return CheckRunTo<>(begin, end, cls, rule, &stop);
  }
  bool ParseScheme(uint32_t colon);
  bool ParseAuthority(uint32_t begin, uint32_t end);
  bool ParseIPLiteral(uint32_t open, uint32_t end);
  void MarkDotSegments(uint32_t begin, uint32_t end);

  const unsigned char* s_;
  uint32_t n_;
};

uint32_t Parser::Skip(uint32_t from, uint32_t to, uint16_t cls) const {
  // Eight bytes a step while all are of the class: the long query strings
  // of real traffic are the rows the batch scanner leaves to this parser.
  uint32_t i = from;
  for (; to - i >= 8; i += 8) {
    uint16_t all = cls;
    for (uint32_t k = 0; k < 8; ++k) all &= chars::kTable[s_[i + k]];
    if (all == 0) break;
  }
  while (i < to && Is(s_[i], cls)) ++i;
  return i;
}

template <char... kEnd>
bool Parser::CheckRunTo(uint32_t begin, uint32_t limit, uint16_t cls,
                        ErrorKind rule, uint32_t* end) {
  for (uint32_t i = Skip(begin, limit, cls); i < limit;
       i = Skip(i, limit, cls)) {
    const unsigned char c = s_[i];
    if (((c == static_cast<unsigned char>(kEnd)) || ...)) {
      *end = i;
      return true;
    }
    if (c != '%') return Fail(KindAt(i, rule), i);
    // pct-encoded = "%" HEXDIG HEXDIG (sec. 2.1); no end byte is a HEXDIG.
    if (i + 2 >= limit || !Is(s_[i + 1], chars::kHexDig) ||
        !Is(s_[i + 2], chars::kHexDig)) {
      return Fail(ErrorKind::kBadPercentEncoding, i);
    }
    flags_ |= flags::kHasPctEncoded;
    i += 3;
  }
  *end = limit;
  return true;
}

// scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) (sec. 3.1)
bool Parser::ParseScheme(uint32_t colon) {
  if (colon == 0) return Fail(ErrorKind::kBadScheme, 0);
  if (!Is(s_[0], chars::kAlpha)) return Fail(KindAt(0, ErrorKind::kBadScheme), 0);
  for (uint32_t i = 0; i < colon; ++i) {
    if (!Is(s_[i], chars::kSchemeChar))
      return Fail(KindAt(i, ErrorKind::kBadScheme), i);
    if (Is(s_[i], chars::kUpper)) flags_ |= flags::kHasUpperCase;
  }
  flags_ |= flags::kHasScheme;
  b_.scheme_end = colon;
  return true;
}

// IP-literal = "[" ( IPv6address / IPvFuture ) "]"; `open` is the '['.
bool Parser::ParseIPLiteral(uint32_t open, uint32_t end) {
  uint32_t close = open + 1;
  while (close < end && s_[close] != ']') ++close;
  const std::string_view inner(reinterpret_cast<const char*>(s_) + open + 1,
                               close - open - 1);
  const bool future = !inner.empty() && (inner[0] == 'v' || inner[0] == 'V');
  const std::optional<uint32_t> bad =
      future ? CheckIPvFuture(inner) : CheckIPv6Address(inner);
  // A literal that is fine up to the end of the authority lacks its ']'.
  if (bad) {
    const uint32_t at = open + 1 + *bad;
    return Fail(KindAt(at, ErrorKind::kBadIpLiteral), at);
  }
  if (close == end) return Fail(KindAt(end, ErrorKind::kBadIpLiteral), end);
  for (uint32_t i = open + 1; i < close; ++i)
    if (Is(s_[i], chars::kUpper)) flags_ |= flags::kHasUpperCase;
  const HostKind kind = future ? HostKind::kIPvFuture : HostKind::kIPv6;
  flags_ |= static_cast<uint16_t>(kind) << flags::kHostKindShift;
  b_.host_end = close + 1;
  return true;
}

// authority = [ userinfo "@" ] host [ ":" port ] (sec. 3.2), over [begin, end).
bool Parser::ParseAuthority(uint32_t begin, uint32_t end) {
  flags_ |= flags::kHasAuthority;
  b_.authority_begin = begin;
  uint32_t host = begin;
  // userinfo may not hold '@', nor may host: the first '@' ends userinfo.
  const uint32_t at = Find<'@'>(begin, end);
  b_.userinfo_end = begin;
  if (at < end) {
    if (!CheckRun(begin, at, chars::kUserinfo, ErrorKind::kBadUserinfo))
      return false;
    flags_ |= flags::kHasUserinfo;
    b_.userinfo_end = at;
    host = at + 1;
  }
  b_.host_begin = host;
  if (host < end && s_[host] == '[') {
    if (!ParseIPLiteral(host, end)) return false;
    if (b_.host_end < end && s_[b_.host_end] != ':') {
      return Fail(KindAt(b_.host_end, ErrorKind::kBadHost), b_.host_end);
    }
  } else {
    // reg-name cannot hold ':', so the first ':' ends the host.
    b_.host_end = Find<':'>(host, end);
    if (!CheckRun(host, b_.host_end, chars::kRegName, ErrorKind::kBadHost))
      return false;
    const std::string_view name(reinterpret_cast<const char*>(s_) + host,
                                b_.host_end - host);
    if (IsIPv4Address(name)) {
      flags_ |= static_cast<uint16_t>(HostKind::kIPv4) << flags::kHostKindShift;
    }
    for (uint32_t i = host; i < b_.host_end; ++i)
      if (Is(s_[i], chars::kUpper)) flags_ |= flags::kHasUpperCase;
  }
  b_.port_begin = b_.host_end;
  if (b_.host_end < end) {  // s_[host_end] == ':'
    flags_ |= flags::kHasPort;
    b_.port_begin = b_.host_end + 1;
    for (uint32_t i = b_.port_begin; i < end; ++i) {  // port = *DIGIT
      if (!Is(s_[i], chars::kDigit))
        return Fail(KindAt(i, ErrorKind::kBadPort), i);
    }
  }
  return true;
}

// Flags a path with a "." or ".." segment (sec. 3.3, sec. 5.2.4).
void Parser::MarkDotSegments(uint32_t begin, uint32_t end) {
  uint32_t seg = begin;
  for (uint32_t i = begin; i <= end; ++i) {
    if (i < end && s_[i] != '/') continue;
    const uint32_t len = i - seg;
    if ((len == 1 && s_[seg] == '.') ||
        (len == 2 && s_[seg] == '.' && s_[seg + 1] == '.')) {
      flags_ |= flags::kHasDotSegment;
      return;
    }
    seg = i + 1;
  }
}

bool Parser::Run() {
  // A ':' before any '/', '?' or '#' can only end a scheme: path-noscheme
  // forbids ':' in a relative reference's first segment (sec. 4.2).
  uint32_t pos = 0;
  const uint32_t first = Find<':', '/', '?', '#'>(0, n_);
  if (first < n_ && s_[first] == ':') {
    if (!ParseScheme(first)) return false;
    pos = first + 1;
  }
  b_.authority_begin = b_.userinfo_end = b_.host_begin = b_.host_end =
      b_.port_begin = pos;
  // hier-part / relative-part: "//" authority path-abempty, or a path that
  // cannot start with "//" (path-absolute, -rootless, -noscheme, -empty).
  if (pos + 1 < n_ && s_[pos] == '/' && s_[pos + 1] == '/') {
    const uint32_t end = Find<'/', '?', '#'>(pos + 2, n_);
    if (!ParseAuthority(pos + 2, end)) return false;
    pos = end;
  }
  // The path ends at the first '?' or '#', neither of which it may hold:
  // the first byte that is not a path byte ends or breaks it.
  b_.path_begin = pos;
  if (!CheckRunTo<'?', '#'>(pos, n_, chars::kPathChar, ErrorKind::kBadPath,
                            &b_.path_end))
    return false;
  MarkDotSegments(pos, b_.path_end);
  pos = b_.path_end;
  b_.query_begin = pos;
  if (pos < n_ && s_[pos] == '?') {  // query = *( pchar / "/" / "?" )
    flags_ |= flags::kHasQuery;
    b_.query_begin = pos + 1;
    if (!CheckRunTo<'#'>(pos + 1, n_, chars::kQueryChar, ErrorKind::kBadQuery,
                         &pos))
      return false;
  }
  b_.fragment_begin = n_;
  if (pos < n_) {  // '#': fragment = *( pchar / "/" / "?" )
    flags_ |= flags::kHasFragment;
    b_.fragment_begin = pos + 1;
    if (!CheckRun(pos + 1, n_, chars::kQueryChar, ErrorKind::kBadFragment))
      return false;
  }
  return true;
}

}  // namespace

UriReference ParseUriReference(std::string_view text) {
  if (text.size() >= std::numeric_limits<uint32_t>::max()) {
    return UriReference(text, Boundaries{}, 0,
                        {ErrorKind::kTooLong,
                         std::numeric_limits<uint32_t>::max()});
  }
  Parser parser(text);
  if (!parser.Run()) return UriReference(text, Boundaries{}, 0, parser.error_);
  return UriReference(text, parser.b_, parser.flags_, ScanError{});
}

std::optional<std::string_view> UriReference::scheme() const {
  if (!(flags_ & flags::kHasScheme)) return std::nullopt;
  return Slice(0, b_.scheme_end);
}
std::optional<std::string_view> UriReference::authority() const {
  if (!(flags_ & flags::kHasAuthority)) return std::nullopt;
  return Slice(b_.authority_begin, b_.path_begin);
}
std::optional<std::string_view> UriReference::userinfo() const {
  if (!(flags_ & flags::kHasUserinfo)) return std::nullopt;
  return Slice(b_.authority_begin, b_.userinfo_end);
}
std::optional<std::string_view> UriReference::host() const {
  if (!(flags_ & flags::kHasAuthority)) return std::nullopt;
  return Slice(b_.host_begin, b_.host_end);
}
std::optional<std::string_view> UriReference::port() const {
  if (!(flags_ & flags::kHasPort)) return std::nullopt;
  return Slice(b_.port_begin, b_.path_begin);
}
std::string_view UriReference::path() const {
  return Slice(b_.path_begin, b_.path_end);
}
std::optional<std::string_view> UriReference::query() const {
  if (!(flags_ & flags::kHasQuery)) return std::nullopt;
  const uint32_t end =
      (flags_ & flags::kHasFragment) ? b_.fragment_begin - 1 : size32();
  return Slice(b_.query_begin, end);
}
std::optional<std::string_view> UriReference::fragment() const {
  if (!(flags_ & flags::kHasFragment)) return std::nullopt;
  return Slice(b_.fragment_begin, size32());
}

// sec. 5.3 Component Recomposition.
std::string Recompose(const UriReference& uri) {
  std::string out;
  if (!uri.valid()) return out;
  if (auto v = uri.scheme()) out.append(*v).push_back(':');
  if (uri.authority()) {
    out.append("//");
    if (auto v = uri.userinfo()) out.append(*v).push_back('@');
    out.append(*uri.host());
    if (auto v = uri.port()) out.append(":").append(*v);
  }
  out.append(uri.path());
  if (auto v = uri.query()) out.append("?").append(*v);
  if (auto v = uri.fragment()) out.append("#").append(*v);
  return out;
}

}  // namespace uriscan
