// SPDX-License-Identifier: MIT
// A run of the command over its input files (every command but state).
#ifndef URISCAN_SRC_CLI_RUN_H_
#define URISCAN_SRC_CLI_RUN_H_

#include "src/cli/options.h"

namespace uriscan {
namespace cli {

// Reads opt.files and writes what opt.command makes of them; the exit
// status (docs/design.md, "The command").
int Run(const Options& opt);

}  // namespace cli
}  // namespace uriscan

#endif  // URISCAN_SRC_CLI_RUN_H_
