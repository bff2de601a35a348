// SPDX-License-Identifier: MIT
// The command line of uriscan: the options every command shares, the groups
// of options some share, usage errors (one line, then where the help is),
// and the help text.
#ifndef URISCAN_SRC_CLI_OPTIONS_H_
#define URISCAN_SRC_CLI_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "uriscan/uriscan.h"

namespace CLI {
class App;
}

namespace uriscan {
namespace cli {

class CommandRun;  // command_run.h

// What the command line asks of every command, once parsed and checked.
// Each command's own options are fields of its CommandRun (cmd_*.cc).
struct Options {
  const char* command = "";  // its name
  bool quiet = false;
  bool progress = false;  // --progress: the progress line on any stderr
  bool lenient = false;
  size_t max_line = 16u << 20;
  size_t threads = 1;  // AvailableCores() unless --threads
  size_t chunk_bytes = 4u << 20;
  // --line-numbers=global: lines count on across the input files (records
  // and diagnostics) instead of starting from 1 in each.
  bool global_lines = false;
  // --max-errors: the diagnostics printed; those after are only counted.
  uint64_t max_errors = ~uint64_t{0};
  std::vector<std::string> files;
};

// --profile and --tracking-params (parse, normalize, dedup).
struct ProfileOptions {
  Profile profile = Profile::kScheme;
  NormalizeOptions normalize;
  bool crawler_options = false;  // --tracking-params or --fold-www given
  bool profile_given = false;    // --profile given
};
void AddProfileOptions(CLI::App* app, ProfileOptions* p);
// The crawler profile's options without it (`crawler_used`: the command
// runs that profile, whatever --profile says) are a usage error, not
// ignored: -1 when fine, else the exit status after the message.
int CheckProfileOptions(const ProfileOptions& p, bool crawler_used = false);
// The crawler profile's default tracking and session-id names, for help.
std::string ProfileListsHelp();

// --decode=utf8|bytes (params, parse and audit --columns): what the decoded
// columns give (analytics.h, DecodedBytes); utf8 unless given.
void AddDecodeOption(CLI::App* app, DecodedBytes* decode);

// --on-error (normalize, resolve, dedup); *given (when not null) is set
// when the option is on the command line.
enum class OnError { kKeep, kSkip, kFail };
void AddOnErrorOption(CLI::App* app, OnError* on_error, bool* given = nullptr);

// --base=URI (resolve, extract).
struct BaseOption {
  bool given = false;
  std::string text;
  UriReference uri;  // over text, once CheckBase() has parsed it
};
void AddBaseOption(CLI::App* app, BaseOption* base);
// Parses the base: -1 when it is an absolute URI, else the exit status
// after a message.
int CheckBase(BaseOption* base);

// A usage error, thrown while the options are read: its message is the one
// line printed after "uriscan: ".
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CommandSpec;
// The commands, in the order of the help.
std::vector<const CommandSpec*> Commands();
// uriscan --help, and uriscan COMMAND --help.
std::string GeneralHelp();
std::string CommandHelp(const CommandSpec& c);
// Every option `c` takes, as written on its command line: "--quiet" for a
// flag, "--format=" for an option that takes a value.
std::vector<std::string> OptionNames(const CommandSpec& c);

// Prints a usage error (one line, then where the help is, as git and
// ripgrep do); returns 2, the exit status of a usage error.
int Usage(const std::string& message);

// Writes `text` to stdout; 0, or 2 when the write fails (a full disk, a
// closed pipe), as for every other output of the command.
int WriteStdout(const std::string& text);
// A write to stdout failed with `error` (an errno): "uriscan: error writing
// standard output: <strerror>" (or 'FILE', SetOutputName()) on stderr, unless the reader closed the pipe (EPIPE: `| head`
// has what it wanted, so the run ends quietly); exit status 2 either way.
int OutputError(int error);
// The file the output goes to (dedup --output=FILE), for OutputError()'s
// message; standard output else.
void SetOutputName(const std::string& name);

// "--opt takes a, b or c, not 'x'": the allowed values of an option.
std::string Allowed(const char* option, const char* values,
                    std::string_view got);

// The largest size or count an option takes: 2^50 (1 PiB, or a quadrillion
// lines); more is a typing error, and the arithmetic on it stays exact.
inline constexpr uint64_t kMaxOptionBytes = uint64_t{1} << 50;
// A byte count (or a count) with an optional binary suffix: 1500, 64K,
// 512M, 4G, 1T; from 1 to `max`. False for anything else: a sign, a
// space, another suffix, 0, or more than `max`.
bool ParseBytes(const char* text, size_t* out,
                uint64_t max = kMaxOptionBytes);

// A value option: `set` reads its text and throws UsageError when it is
// wrong. The value may follow after '=' or as the next argument.
void AddValueOption(CLI::App* app, const char* name, const char* type,
                    std::function<void(const std::string&)> set);

// A flag, an option with no value ("--quiet=yes" is a usage error).
void AddFlag(CLI::App* app, const char* name, std::function<void()> set);

// An entry of the help made from `text`, for the parts generated from a
// table of names: `head` ("  audit") padded to column 30, then the words
// of `text` filled to 70 columns, each line indented to column 30.
std::string HelpEntry(const char* head, const std::string& text);

// Reads the command line into `opt` and the command it names: the command
// when it should run, else null with *status the exit status (after the
// help, the version or a usage error).
std::unique_ptr<CommandRun> ParseCommandLine(int argc, char** argv,
                                             Options* opt, int* status);

}  // namespace cli
}  // namespace uriscan

#endif  // URISCAN_SRC_CLI_OPTIONS_H_
