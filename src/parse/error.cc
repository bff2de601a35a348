// SPDX-License-Identifier: MIT
// Names and messages of ErrorKind.
#include "uriscan/error.h"

namespace uriscan {

const char* ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kNone: return "none";
    case ErrorKind::kDisallowedByte: return "disallowed-byte";
    case ErrorKind::kBadPercentEncoding: return "pct-encoded";
    case ErrorKind::kBadScheme: return "scheme";
    case ErrorKind::kBadUserinfo: return "userinfo";
    case ErrorKind::kBadHost: return "host";
    case ErrorKind::kBadIpLiteral: return "IP-literal";
    case ErrorKind::kBadPort: return "port";
    case ErrorKind::kBadPath: return "path";
    case ErrorKind::kBadQuery: return "query";
    case ErrorKind::kBadFragment: return "fragment";
    case ErrorKind::kTooLong: return "too-long";
  }
  return "unknown";
}

const char* ErrorKindMessage(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kNone: return "valid";
    case ErrorKind::kDisallowedByte:
      return "byte not allowed anywhere in a URI (control, space, "
             "\" < > \\ ^ ` { | }, DEL or non-ASCII; percent-encode it)";
    case ErrorKind::kBadPercentEncoding:
      return "'%' not followed by two hex digits";
    case ErrorKind::kBadScheme:
      return "a ':' before any '/', '?' or '#' must end a scheme, and a "
             "scheme is a letter then letters, digits, '+', '-' or '.'";
    case ErrorKind::kBadUserinfo:
      return "'[' or ']' not allowed in userinfo";
    case ErrorKind::kBadHost:
      return "host must be a reg-name, an IPv4 address or a bracketed IP "
             "literal followed only by ':' port";
    case ErrorKind::kBadIpLiteral:
      return "malformed IP literal (IPv6address or IPvFuture in brackets)";
    case ErrorKind::kBadPort: return "port must be digits only";
    case ErrorKind::kBadPath: return "'[' or ']' not allowed in a path";
    case ErrorKind::kBadQuery: return "'[' or ']' not allowed in a query";
    case ErrorKind::kBadFragment:
      return "'#', '[' or ']' not allowed in a fragment";
    case ErrorKind::kTooLong: return "line too long";
  }
  return "unknown error";
}

}  // namespace uriscan
