// SPDX-License-Identifier: MIT
// The seen-set state on the command line: opening it for `dedup --state`,
// and the `uriscan state DIR` report.
#ifndef URISCAN_SRC_CLI_STATE_COMMAND_H_
#define URISCAN_SRC_CLI_STATE_COMMAND_H_

#include <memory>
#include <string>

#include "uriscan/fingerprint.h"
#include "src/store/seen_state.h"

namespace uriscan {
namespace cli {

// What a state made with `fingerprinter`'s keys records about them.
SeenState::Identity StateIdentity(const Fingerprinter& fingerprinter,
                                  const NormalizeOptions& options);

// `dedup --state=DIR`: the state opened for update, or null with the
// message printed on stderr (the caller exits with 2).
std::unique_ptr<SeenState> OpenDedupState(const std::string& dir,
                                          const Fingerprinter& fingerprinter,
                                          const NormalizeOptions& options);

// `uriscan state DIR [--verify] [--compact]`: prints the profile, the key
// count, the bytes on disk and the runs; with `verify`, decodes every run
// and checks its checksum; with `compact`, first merges all runs into one.
// Returns the exit status (2 when the state is damaged or in use).
int RunStateCommand(const std::string& dir, bool verify, bool compact);

}  // namespace cli
}  // namespace uriscan

#endif  // URISCAN_SRC_CLI_STATE_COMMAND_H_
