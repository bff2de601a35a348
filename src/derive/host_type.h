// SPDX-License-Identifier: MIT
// The host_type names of `parse` output, shared by the command and the
// PostgreSQL extension.
#ifndef URISCAN_SRC_DERIVE_HOST_TYPE_H_
#define URISCAN_SRC_DERIVE_HOST_TYPE_H_

#include "uriscan/uri.h"

namespace uriscan {
namespace derive {

// "name", "ipv4", "ipv6", "ipvfuture" (docs/cli.md, `parse`).
inline const char* HostTypeName(HostKind kind) {
  switch (kind) {
    case HostKind::kRegName: return "name";
    case HostKind::kIPv4: return "ipv4";
    case HostKind::kIPv6: return "ipv6";
    case HostKind::kIPvFuture: return "ipvfuture";
  }
  return "name";
}

}  // namespace derive
}  // namespace uriscan

#endif  // URISCAN_SRC_DERIVE_HOST_TYPE_H_
