// SPDX-License-Identifier: MIT
// One URI reference: parse it into components (RFC 3986 Appendix A).
#ifndef URISCAN_URI_H_
#define URISCAN_URI_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "uriscan/error.h"
#include "uriscan/export.h"

namespace uriscan {

// Which host rule matched (sec. 3.2.2). First match wins, as in the ABNF:
// "01.2.3.4" and "256.1.1.1" are reg-names.
enum class HostKind : uint8_t {
  kRegName = 0,
  kIPv4 = 1,
  kIPv6 = 2,
  kIPvFuture = 3,
};

// The host_type names of `uriscan parse`: "name", "ipv4", "ipv6",
// "ipvfuture".
inline const char* HostKindName(HostKind kind) {
  switch (kind) {
    case HostKind::kRegName: return "name";
    case HostKind::kIPv4: return "ipv4";
    case HostKind::kIPv6: return "ipv6";
    case HostKind::kIPvFuture: return "ipvfuture";
  }
  return "name";
}

// Bits of the uint16_t flags column. The kHas* component bits say which
// components are *defined* (their delimiter is present): "http://a" has no
// query, "http://a?" has an empty one. The path is always defined; the host
// is defined exactly when the authority is. Flags are 0 for an invalid URI.
namespace flags {
inline constexpr uint16_t kHasScheme = 1u << 0;
inline constexpr uint16_t kHasAuthority = 1u << 1;
inline constexpr uint16_t kHasUserinfo = 1u << 2;
inline constexpr uint16_t kHasPort = 1u << 3;
inline constexpr uint16_t kHasQuery = 1u << 4;
inline constexpr uint16_t kHasFragment = 1u << 5;
inline constexpr int kHostKindShift = 6;  // two bits: a HostKind
inline constexpr uint16_t kHostKindMask = 3u << kHostKindShift;
// Hints for later stages (normalization skips URIs without them):
inline constexpr uint16_t kHasPctEncoded = 1u << 8;  // a '%' anywhere
inline constexpr uint16_t kHasUpperCase = 1u << 9;   // A-Z in scheme or host
inline constexpr uint16_t kHasDotSegment = 1u << 10; // "." or ".." segment
}  // namespace flags

// The boundaries inside one URI reference, in the order they never
// decrease (see spans.h for the picture). This list is the one place that
// names them: Boundaries, the columns of ComponentSpans and the kernels are
// all written from it.
//   scheme_end       the ':' after the scheme
//   authority_begin  just after "//"
//   userinfo_end     the '@'
//   host_begin, host_end
//   port_begin       just after the ':'
//   path_begin
//   path_end         the '?', the '#' or the end
//   query_begin      just after the '?'
//   fragment_begin   just after the '#'
#define URISCAN_INNER_BOUNDARIES(X)                                          \
  X(scheme_end) X(authority_begin) X(userinfo_end) X(host_begin) X(host_end) \
  X(port_begin) X(path_begin) X(path_end) X(query_begin) X(fragment_begin)

// The boundaries of one URI reference, as byte offsets from its start:
//   0 <= scheme_end <= authority_begin <= ... <= fragment_begin <= size
// An undefined component is empty and sits where it would have started.
struct Boundaries {
#define URISCAN_BOUNDARY_FIELD(name) uint32_t name = 0;
  URISCAN_INNER_BOUNDARIES(URISCAN_BOUNDARY_FIELD)
#undef URISCAN_BOUNDARY_FIELD
};

// A parsed URI reference: a view over the caller's text (which must outlive
// it) plus its boundaries, flags and error.
class URISCAN_EXPORT UriReference {
 public:
  UriReference() = default;
  UriReference(std::string_view text, const Boundaries& b, uint16_t flags,
               ScanError error)
      : text_(text), b_(b), flags_(flags), error_(error) {}

  bool valid() const { return error_.kind == ErrorKind::kNone; }
  ScanError error() const { return error_; }
  uint16_t flags() const { return flags_; }
  const Boundaries& boundaries() const { return b_; }
  std::string_view text() const { return text_; }
  HostKind host_kind() const {
    return static_cast<HostKind>((flags_ & flags::kHostKindMask) >>
                                 flags::kHostKindShift);
  }

  // Each accessor returns nullopt for an undefined component (and for every
  // component of an invalid reference). Values are raw: nothing is decoded.
  std::optional<std::string_view> scheme() const;
  std::optional<std::string_view> authority() const;
  std::optional<std::string_view> userinfo() const;
  std::optional<std::string_view> host() const;  // IP literals keep [ ]
  std::optional<std::string_view> port() const;
  std::string_view path() const;  // always defined (maybe empty)
  std::optional<std::string_view> query() const;
  std::optional<std::string_view> fragment() const;

 private:
  uint32_t size32() const { return static_cast<uint32_t>(text_.size()); }
  std::string_view Slice(uint32_t begin, uint32_t end) const {
    return text_.substr(begin, end - begin);
  }
  std::string_view text_;
  Boundaries b_;
  uint16_t flags_ = 0;
  ScanError error_;
};

// Parses `text` as an RFC 3986 URI-reference (sec. 4.1) with the scalar parser.
// Never fails loudly: an invalid reference has valid() == false and error()
// holds the rule broken and the first offending byte. Text longer than
// 2^32 - 1 bytes gives kTooLong. Does not allocate.
[[nodiscard]] URISCAN_EXPORT UriReference
ParseUriReference(std::string_view text);

// Recomposes a valid reference from its components (RFC 3986 sec. 5.3). For any
// valid parse the result equals text() byte for byte.
URISCAN_EXPORT std::string Recompose(const UriReference& uri);

// Host-literal checks on their own (the text between '[' and ']' for the
// first two). Each returns the offset of the first offending byte, or
// std::nullopt when `text` matches the rule exactly.
URISCAN_EXPORT std::optional<uint32_t> CheckIPv6Address(std::string_view text);
URISCAN_EXPORT std::optional<uint32_t> CheckIPvFuture(std::string_view text);
// Dotted dec-octets, exactly.
URISCAN_EXPORT bool IsIPv4Address(std::string_view text);

}  // namespace uriscan

#endif  // URISCAN_URI_H_
