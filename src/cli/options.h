// SPDX-License-Identifier: MIT
// The command line of uriscan: the options every command shares, the usage
// errors (one line, then where the help is), and the help text.
#ifndef URISCAN_SRC_CLI_OPTIONS_H_
#define URISCAN_SRC_CLI_OPTIONS_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "src/cli/columns.h"
#include "src/cli/dedup_sink.h"
#include "src/cli/extract.h"
#include "uriscan/uriscan.h"

namespace CLI {
class App;
}

namespace uriscan {
namespace cli {

class CommandRun;  // command_run.h

enum class Command {
  kExtract, kParse, kValidate, kStats, kAudit, kNormalize, kResolve, kDedup,
  kState
};
enum class OnError { kKeep, kSkip, kFail };
enum class Format { kJsonl, kTsv };

// What the command line asks for, once parsed and checked.
struct Options {
  Command command = Command::kParse;
  Format format = Format::kJsonl;
  bool quiet = false;
  bool lenient = false;
  size_t max_line = 16u << 20;
  size_t threads = 1;  // AvailableCores() unless --threads
  OnError on_error = OnError::kKeep;
  Profile profile = Profile::kScheme;
  NormalizeOptions normalize;
  bool has_base = false;
  std::string base_text;
  UriReference base;  // over base_text
  ResolveOptions resolve;
  size_t chunk_bytes = 4u << 20;
  DedupSink::Config dedup;
  std::string state_dir;  // dedup --state
  bool verify = false;    // state --verify
  bool compact = false;   // state --compact
  ExtractOptions extract;  // extract
  std::string field;       // extract --field, as given
  bool header_field = false;  // extract --field=NAME for tsv, csv
  std::vector<Column> columns;  // parse --columns
  std::string psl_file;          // parse --psl
  std::vector<std::string> files;
};

// A usage error, thrown while the options are read: its message is the one
// line printed after "uriscan: ".
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Prints a usage error (one line, then where the help is, as git and
// ripgrep do); returns 2, the exit status of a usage error.
int Usage(const std::string& message);

// Writes `text` to stdout; 0, or 2 when the write fails (a full disk, a
// closed pipe), as for every other output of the command.
int WriteStdout(const std::string& text);

// "--opt takes a, b or c, not 'x'": the allowed values of an option.
std::string Allowed(const char* option, const char* values,
                    std::string_view got);

// A byte count with an optional binary suffix: 1500, 64K, 512M, 4G, 1T.
bool ParseBytes(const char* text, size_t* out);

// A base URI for --base: parsed into opt->base; -1 when it is an absolute
// URI, else the exit status after a message.
int CheckBase(Options* opt);

// One command: its name, its lines of the help, the options only it takes,
// and its checks once every option is read.
struct CommandSpec {
  const char* name;
  Command command;
  // Its entry under "commands:" in the help, each line ending in "\n".
  const char* help;
  // Adds its own options to `app`; the shared ones are added for it.
  void (*add_options)(CLI::App* app, Options* opt);
  // The checks across options: -1 when fine, else the exit status after a
  // message. May be null.
  int (*check)(Options* opt);
  // Its part of a run over the input files (command_run.h); null for
  // state, which reads no input files.
  std::unique_ptr<CommandRun> (*make_run)(const Options& opt);
};

// Adders of the options some commands share: --profile and
// --tracking-params (parse, normalize, dedup), --on-error (normalize,
// resolve, dedup).
void AddProfileOptions(CLI::App* app, Options* opt);
void AddOnErrorOption(CLI::App* app, Options* opt);
// A value option: `set` reads its text and throws UsageError when it is
// wrong. The value may follow after '=' or as the next argument.
void AddValueOption(CLI::App* app, const char* name, const char* type,
                    std::function<void(const std::string&)> set);

// A flag, an option with no value ("--quiet=yes" is a usage error).
void AddFlag(CLI::App* app, const char* name, std::function<void()> set);

// The commands, in the order of the help (cmd_*.cc).
extern const CommandSpec kExtractCommand;
extern const CommandSpec kParseCommand;
extern const CommandSpec kValidateCommand;
extern const CommandSpec kStatsCommand;
extern const CommandSpec kAuditCommand;
extern const CommandSpec kNormalizeCommand;
extern const CommandSpec kResolveCommand;
extern const CommandSpec kDedupCommand;
extern const CommandSpec kStateCommand;

// The entry of `command` in the table of commands.
const CommandSpec& FindCommand(Command command);

// Reads the command line into `opt`: -1 when the command should run, else
// the exit status (after the help, the version or a usage error).
int ParseCommandLine(int argc, char** argv, Options* opt);

}  // namespace cli
}  // namespace uriscan

#endif  // URISCAN_SRC_CLI_OPTIONS_H_
