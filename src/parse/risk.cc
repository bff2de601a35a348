// SPDX-License-Identifier: MIT
// The risk column (RFC 3986 sec. 7) from spans: each check reads only the
// component it is about, and only when the scan's flags say it can fire.
#include "uriscan/risk.h"

#include <cstring>
#include <string>

#include "src/char_class.h"
#include "src/parse/ip_value.h"

namespace uriscan {
namespace {

using chars::Is;

// Names in bit order: the FLAGS field of `uriscan audit` (docs/design.md,
// "Risk flags").
constexpr const char* kNames[risks::kCount] = {
    "credentials",         "password",
    "userinfo-host-like",  "ip-rare-form",
    "ip-loopback",         "ip-private",
    "ip-link-local",       "ip-unspecified",
    "ip-embedded-ipv4",    "host-pct-encoded",
    "encoded-delimiter",   "double-encoded",
    "encoded-control",     "dot-segment-above-root",
    "encoded-dot-segment", "script-scheme",
    "port-out-of-range"};

// The octet a valid "%HH" at s[i] stands for.
unsigned char PctOctet(std::string_view s, size_t i) {
  return static_cast<unsigned char>(
      chars::HexValue(static_cast<unsigned char>(s[i + 1])) * 16 +
      chars::HexValue(static_cast<unsigned char>(s[i + 2])));
}

bool EqualsIgnoreCase(std::string_view s, std::string_view lower) {
  if (s.size() != lower.size()) return false;
  for (size_t k = 0; k < s.size(); ++k)
    if ((s[k] | 0x20) != lower[k]) return false;
  return true;
}

uint32_t RangeBit(ip::Range r) {
  switch (r) {
    case ip::Range::kLoopback:
      return risks::kIpLoopback;
    case ip::Range::kPrivate:
      return risks::kIpPrivate;
    case ip::Range::kLinkLocal:
      return risks::kIpLinkLocal;
    case ip::Range::kUnspecified:
      return risks::kIpUnspecified;
    case ip::Range::kOther:
      break;
  }
  return 0;
}

uint32_t HostRisks(std::string_view host, HostKind kind) {
  switch (kind) {
    case HostKind::kIPv4:
      if (auto v = ip::ParseInetAton(host))
        return RangeBit(ip::ClassifyIPv4(*v));
      return 0;
    case HostKind::kIPv6: {
      const auto v = ip::ParseIPv6Value(host.substr(1, host.size() - 2));
      if (!v) return 0;
      const ip::IPv6Class c = ip::ClassifyIPv6(*v);
      return RangeBit(c.range) | (c.embeds_ipv4 ? risks::kIpEmbeddedIPv4 : 0);
    }
    case HostKind::kRegName:
      if (auto v = ip::ParseRegNameIPv4(host))
        return risks::kIpRareForm | RangeBit(ip::ClassifyIPv4(*v));
      return 0;
    case HostKind::kIPvFuture:
      break;
  }
  return 0;
}

// A path segment that is "." or ".." with some dot written %2E.
bool IsEncodedDotSegment(std::string_view seg) {
  int dots = 0;
  bool encoded = false;
  for (size_t k = 0; k < seg.size(); ++dots) {
    if (seg[k] == '.') {
      ++k;
    } else if (seg.size() - k >= 3 && seg[k] == '%' && seg[k + 1] == '2' &&
               (seg[k + 2] | 0x20) == 'e') {
      encoded = true;
      k += 3;
    } else {
      return false;
    }
  }
  return encoded && dots <= 2;
}

// The '%' triplets: where each sits and what it stands for (sec. 7.3).
uint32_t PctRisks(std::string_view s, const Boundaries& b) {
  uint32_t r = 0;
  const char* const base = s.data();
  for (const char* p =
           static_cast<const char*>(std::memchr(base, '%', s.size()));
       p != nullptr; p = static_cast<const char*>(
                         std::memchr(p + 3, '%', s.size() - (p + 3 - base)))) {
    const size_t i = static_cast<size_t>(p - base);
    const unsigned char octet = PctOctet(s, i);
    if (octet < 0x20 || octet == 0x7f) r |= risks::kEncodedControl;
    if (octet == '%' && i + 4 < s.size() && Is(s[i + 3], chars::kHexDig) &&
        Is(s[i + 4], chars::kHexDig))
      r |= risks::kDoubleEncoded;
    if (i >= b.host_begin && i < b.host_end) r |= risks::kHostPctEncoded;
    if (i >= b.path_begin && i < b.path_end) {
      if (std::strchr("/?#@:[]\\", octet) != nullptr && octet != 0)
        r |= risks::kEncodedDelimiter;
      if (octet == '.') {
        size_t seg_b = i, seg_e = i;
        while (seg_b > b.path_begin && s[seg_b - 1] != '/') --seg_b;
        while (seg_e < b.path_end && s[seg_e] != '/') ++seg_e;
        if (IsEncodedDotSegment(s.substr(seg_b, seg_e - seg_b)))
          r |= risks::kEncodedDotSegment;
      }
    }
    if (i + 3 >= s.size()) break;
  }
  return r;
}

// Walks the segments as remove_dot_segments (sec. 5.2.4) would: a ".." with
// no segment left to remove climbs above the root.
bool ClimbsAboveRoot(std::string_view path) {
  if (!path.empty() && path[0] == '/') path.remove_prefix(1);
  size_t depth = 0;
  for (;;) {
    const size_t slash = path.find('/');
    const std::string_view seg = path.substr(0, slash);
    if (seg == "..") {
      if (depth == 0) return true;
      --depth;
    } else if (seg != ".") {
      ++depth;
    }
    if (slash == std::string_view::npos) return false;
    path.remove_prefix(slash + 1);
  }
}

bool PortOutOfRange(std::string_view port) {
  uint32_t v = 0;
  for (char c : port) {
    v = v * 10 + static_cast<uint32_t>(c - '0');
    if (v > 65535) return true;
  }
  return false;
}

}  // namespace

const char* RiskFlagName(int bit) {
  return bit >= 0 && bit < risks::kCount ? kNames[bit] : nullptr;
}

std::string RiskFlagNames(uint32_t risk_flags) {
  if (risk_flags & risks::kInvalid) return "invalid";
  std::string out;
  for (int bit = 0; bit < risks::kCount; ++bit) {
    if (!(risk_flags & (1u << bit))) continue;
    if (!out.empty()) out.push_back(',');
    out.append(kNames[bit]);
  }
  return out;
}

namespace {

// A row as RowRisks reads it: from a UriReference, or straight from the
// columns of a scan (no UriReference is built, and a column is read only
// when a check needs it). Offsets are relative to the reference's start.
struct ReferenceRow {
  const UriReference& uri;
  bool valid() const { return uri.valid(); }
  uint16_t flags() const { return uri.flags(); }
  std::string_view text() const { return uri.text(); }
  const Boundaries& b() const { return uri.boundaries(); }
  uint32_t scheme_end() const { return b().scheme_end; }
  uint32_t authority_begin() const { return b().authority_begin; }
  uint32_t userinfo_end() const { return b().userinfo_end; }
  uint32_t host_begin() const { return b().host_begin; }
  uint32_t host_end() const { return b().host_end; }
  uint32_t port_begin() const { return b().port_begin; }
  uint32_t path_begin() const { return b().path_begin; }
  uint32_t path_end() const { return b().path_end; }
};

struct ColumnRow {
  const ComponentSpans& s;
  const char* data;
  size_t i;
  uint32_t base;
  bool valid() const { return s.error_kind[i] == 0; }
  uint16_t flags() const { return s.flags[i]; }
  std::string_view text() const {
    return std::string_view(data + base, s.uri_end[i] - base);
  }
  uint32_t scheme_end() const { return s.scheme_end[i] - base; }
  uint32_t authority_begin() const { return s.authority_begin[i] - base; }
  uint32_t userinfo_end() const { return s.userinfo_end[i] - base; }
  uint32_t host_begin() const { return s.host_begin[i] - base; }
  uint32_t host_end() const { return s.host_end[i] - base; }
  uint32_t port_begin() const { return s.port_begin[i] - base; }
  uint32_t path_begin() const { return s.path_begin[i] - base; }
  uint32_t path_end() const { return s.path_end[i] - base; }
};

template <class Row>
uint32_t RowRisks(const Row& row) {
  if (!row.valid()) return risks::kInvalid;
  const std::string_view s = row.text();
  const uint16_t f = row.flags();
  uint32_t r = 0;
  if (f & flags::kHasScheme) {
    const std::string_view scheme = s.substr(0, row.scheme_end());
    if (EqualsIgnoreCase(scheme, "javascript") ||
        EqualsIgnoreCase(scheme, "vbscript") ||
        EqualsIgnoreCase(scheme, "data"))
      r |= risks::kScriptScheme;
  }
  if (f & flags::kHasUserinfo) {
    r |= risks::kCredentials;
    const uint32_t begin = row.authority_begin();
    const std::string_view userinfo =
        s.substr(begin, row.userinfo_end() - begin);
    const size_t colon = userinfo.find(':');
    if (colon != std::string_view::npos && colon + 1 < userinfo.size())
      r |= risks::kPassword;
    if (colon == std::string_view::npos &&
        userinfo.find('.') != std::string_view::npos)
      r |= risks::kUserinfoHostLike;
  }
  if (f & flags::kHasAuthority) {
    const uint32_t begin = row.host_begin(), end = row.host_end();
    const auto kind = static_cast<HostKind>((f & flags::kHostKindMask) >>
                                            flags::kHostKindShift);
    // Most hosts are reg-names that no IPv4 reading can accept: one that
    // can starts with a digit or a '%' (checked here, before the call).
    const bool plain_name =
        kind == HostKind::kRegName &&
        (begin == end || !(Is(s[begin], chars::kDigit) || s[begin] == '%'));
    if (!plain_name) r |= HostRisks(s.substr(begin, end - begin), kind);
  }
  if (f & flags::kHasPort) {
    const uint32_t begin = row.port_begin(), end = row.path_begin();
    if (end - begin > 4 && PortOutOfRange(s.substr(begin, end - begin)))
      r |= risks::kPortOutOfRange;
  }
  if (f & (flags::kHasPctEncoded | flags::kHasDotSegment)) {
    Boundaries b;
    b.host_begin = row.host_begin();
    b.host_end = row.host_end();
    b.path_begin = row.path_begin();
    b.path_end = row.path_end();
    if (f & flags::kHasPctEncoded) r |= PctRisks(s, b);
    const std::string_view path =
        s.substr(b.path_begin, b.path_end - b.path_begin);
    const bool rooted = (f & (flags::kHasScheme | flags::kHasAuthority)) ||
                        (!path.empty() && path[0] == '/');
    if ((f & flags::kHasDotSegment) && rooted && ClimbsAboveRoot(path))
      r |= risks::kDotSegmentAboveRoot;
  }
  return r;
}

}  // namespace

uint32_t RiskFlagsOf(const UriReference& uri) {
  return RowRisks(ReferenceRow{uri});
}

void RiskFlags(const Batch& batch, const ComponentSpans& spans,
               std::vector<uint32_t>* out) {
  out->resize(spans.size());
  uint32_t* column = out->data();
  for (size_t i = 0; i < spans.size(); ++i)
    column[i] = RowRisks(ColumnRow{spans, batch.data, i, spans.uri_begin[i]});
}

}  // namespace uriscan
