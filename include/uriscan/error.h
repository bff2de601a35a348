// SPDX-License-Identifier: MIT
// ErrorKind and ScanError: what an invalid URI reference broke, and where.
#ifndef URISCAN_ERROR_H_
#define URISCAN_ERROR_H_

#include <cstdint>

#include "uriscan/export.h"

namespace uriscan {

// The RFC 3986 rule an invalid URI reference breaks. Stored in a uint8_t
// column; kNone (0) means valid. Each kind's offset is the first offending
// byte, counted from the start of the URI reference (0-based), scanning left
// to right as Appendix A reads.
enum class ErrorKind : uint8_t {
  kNone = 0,
  // A byte outside every RFC 3986 character class (sec. 2): CTL (0x00-0x1F),
  // SP, '"' '<' '>' '\' '^' '`' '{' '|' '}', DEL and every byte >= 0x80.
  kDisallowedByte = 1,
  // pct-encoded = "%" HEXDIG HEXDIG (sec. 2.1). The offset is the '%' itself.
  kBadPercentEncoding = 2,
  // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) (sec. 3.1). Raised
  // when a ':' comes before any '/', '?' or '#': a relative reference may not
  // have a ':' in its first segment (path-noscheme, sec. 4.2), so the text
  // before it must be a scheme. The offset is the first byte that is not (or
  // ':' when the scheme is empty).
  kBadScheme = 3,
  // userinfo = *( unreserved / pct-encoded / sub-delims / ":" ) (sec. 3.2.1):
  // a '[' or ']' before the '@'.
  kBadUserinfo = 4,
  // host = IP-literal / IPv4address / reg-name (sec. 3.2.2): a '@', '[' or ']'
  // inside a reg-name, or anything but ":" port after an IP-literal's ']'.
  kBadHost = 5,
  // IP-literal = "[" ( IPv6address / IPvFuture ) "]" (sec. 3.2.2): the first
  // byte where the literal stops matching; its ']' when it ends too early;
  // the end of the authority when ']' is missing.
  kBadIpLiteral = 6,
  // port = *DIGIT (sec. 3.2.3).
  kBadPort = 7,
  // path segments = *pchar (sec. 3.3): a '[' or ']' in the path.
  kBadPath = 8,
  // query = *( pchar / "/" / "?" ) (sec. 3.4): a '[' or ']' in the query.
  kBadQuery = 9,
  // fragment = *( pchar / "/" / "?" ) (sec. 3.5): a '#', '[' or ']' in it.
  kBadFragment = 10,
  // The reference does not fit: longer than 2^32 - 1 bytes, or than the
  // line limit of the uriscan command (the offset is then the limit).
  kTooLong = 11,
};

inline constexpr int kErrorKindCount = 12;

// The first offending byte of an invalid URI reference.
struct ScanError {
  ErrorKind kind = ErrorKind::kNone;
  uint32_t offset = 0;  // bytes from the start of the URI reference
};

// Stable short names used by the command's output ("pct-encoded", ...);
// ErrorKindName(kNone) is "none".
URISCAN_EXPORT const char* ErrorKindName(ErrorKind kind);
// One sentence for diagnostics.
URISCAN_EXPORT const char* ErrorKindMessage(ErrorKind kind);

}  // namespace uriscan

#endif  // URISCAN_ERROR_H_
