// SPDX-License-Identifier: MIT
// The pipeline every command that reads input shares.
#ifndef URISCAN_SRC_CLI_RUN_H_
#define URISCAN_SRC_CLI_RUN_H_

#include "src/cli/command_run.h"
#include "src/cli/options.h"

namespace uriscan {
namespace cli {

// Reads opt.files in chunks and writes what `command` makes of them; the
// exit status (docs/design.md, "The command").
int RunPipeline(const Options& opt, CommandRun* command);

}  // namespace cli
}  // namespace uriscan

#endif  // URISCAN_SRC_CLI_RUN_H_
