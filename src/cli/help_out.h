// SPDX-License-Identifier: MIT
// The --help text as man pages, and shell completions (help_out.cc).
#ifndef URISCAN_SRC_CLI_HELP_OUT_H_
#define URISCAN_SRC_CLI_HELP_OUT_H_

#include <string>
#include <string_view>

namespace uriscan {
namespace cli {

struct CommandSpec;

// The man page (roff) of `spec`'s command, uriscan-NAME(1), or of
// uriscan(1) for null: its DESCRIPTION is the --help text, verbatim.
std::string ManPage(const CommandSpec* spec);
// uriscan.1 and uriscan-NAME.1 for every command, into `dir`.
bool WriteManPages(const std::string& dir, std::string* error);
// The completion script for `shell` (bash, zsh or fish); "" for another.
std::string Completion(std::string_view shell);

}  // namespace cli
}  // namespace uriscan

#endif  // URISCAN_SRC_CLI_HELP_OUT_H_
