// SPDX-License-Identifier: MIT
// The SURT key of the Internet Archive's surt library (the urlkey of CDX
// indexes), for the `surt` column.
#ifndef URISCAN_SRC_DERIVE_SURT_H_
#define URISCAN_SRC_DERIVE_SURT_H_

#include <string>
#include <string_view>

namespace uriscan {
namespace derive {

// Appends what surt.surt(url) returns with its defaults (surt 0.3.1: its
// Google and IA canonicalizers, then the SURT form without scheme,
// "com,example)/path?query"), for a URL with a scheme. Returns false,
// appending nothing, where the library raises instead (a port above
// 65535). docs/cli.md lists the rules.
bool AppendIaSurt(std::string_view url, std::string* out);

}  // namespace derive
}  // namespace uriscan

#endif  // URISCAN_SRC_DERIVE_SURT_H_
