// SPDX-License-Identifier: MIT
// --lenient: what real logs hold, repaired into a URI reference that the
// strict scanner then checks (docs/design.md, "Input").
#ifndef URISCAN_SRC_CLI_LENIENT_H_
#define URISCAN_SRC_CLI_LENIENT_H_

#include <string>
#include <string_view>

namespace uriscan {
namespace cli {

// Appends the repaired form of `line` (one reference, no line break) to
// *out and returns true when it differs from `line`:
// - a host name with non-ASCII bytes becomes IDNA A-labels (UTS #46,
//   non-transitional processing, through libidn2), or is percent-encoded
//   when that fails;
// - bytes >= 0x80 and the ASCII bytes no URI may hold (space, " < > \ ^ `
//   { | }) are percent-encoded as UTF-8 octets (RFC 3987 sec. 3.1);
// - a '%' not followed by two hex digits becomes "%25".
// Other bytes (controls, for one) are left for the strict scan to report.
bool RepairReference(std::string_view line, std::string* out);

}  // namespace cli
}  // namespace uriscan

#endif  // URISCAN_SRC_CLI_LENIENT_H_
