// SPDX-License-Identifier: MIT
// Lenient reading (the command's --lenient): what real logs and IRIs hold,
// repaired into a URI reference that the strict scanner then checks.
#ifndef URISCAN_LENIENT_H_
#define URISCAN_LENIENT_H_

#include <string>
#include <string_view>

#include "uriscan/export.h"

namespace uriscan {

// Appends the repaired form of `line` (one reference, no line break) to
// *out and returns true when it differs from `line`:
// - a host name with non-ASCII bytes becomes IDNA A-labels, the one mapping
//   of every derived host column (AppendIdnaHost(): "fa\xC3\x9F.de" is
//   "fass.de"), or is percent-encoded when that fails;
// - bytes >= 0x80 and the ASCII bytes no URI may hold (space, " < > \ ^ `
//   { | }) are percent-encoded as UTF-8 octets (RFC 3987 sec. 3.1);
// - a '%' not followed by two hex digits becomes "%25".
// Other bytes (controls, for one) are left for the strict scan to report.
URISCAN_EXPORT bool RepairReference(std::string_view line, std::string* out);

}  // namespace uriscan

#endif  // URISCAN_LENIENT_H_
