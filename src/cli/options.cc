// SPDX-License-Identifier: MIT
// The command line of uriscan, read with CLI11: which command, the options
// every command shares, usage errors in one line, and the help text.
#include "src/cli/options.h"
#include "src/cli/help_out.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "src/cli/command_run.h"
#include "src/cli/pipeline.h"

namespace uriscan {
namespace cli {

namespace {
// The command being read (ReadCommand()), for Usage()'s pointer to its help.
std::string& CurrentCommand() {
  static std::string name;
  return name;
}

// The edit distance of a and b (insertions, deletions, substitutions and
// swaps of two neighbours), for "did you mean".
size_t Distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1,
                                     std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1,
                          d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

// "; did you mean 'X'?" for the closest of `names` to `typed` (at most a
// third of its letters off, and at least one), or "".
std::string DidYouMean(std::string_view typed,
                       const std::vector<std::string>& names) {
  if (typed.size() > 64) return "";  // the table is quadratic
  const std::string* best = nullptr;
  size_t best_distance = std::max<size_t>(1, typed.size() / 3) + 1;
  for (const std::string& n : names) {
    const size_t d = Distance(typed, n);
    if (d < best_distance) {
      best = &n;
      best_distance = d;
    }
  }
  return best ? "; did you mean '" + *best + "'?" : "";
}
}  // namespace

int Usage(const std::string& message) {
  const std::string& command = CurrentCommand();
  std::fprintf(stderr, "uriscan: %s\ntry 'uriscan %s%s--help'\n",
               message.c_str(), command.c_str(), command.empty() ? "" : " ");
  return 2;
}

namespace {
std::string& OutputName() {
  static std::string name;
  return name;
}
}  // namespace

void SetOutputName(const std::string& name) { OutputName() = name; }

int OutputError(int error) {
  if (error == EPIPE) return 2;
  const std::string& name = OutputName();
  std::fprintf(stderr, "uriscan: error writing %s: %s\n",
               name.empty() ? "standard output"
                            : ("'" + name + "'").c_str(),
               error != 0 ? std::strerror(error) : "unknown error");
  return 2;
}

int WriteStdout(const std::string& text) {
  std::fputs(text.c_str(), stdout);
  if (std::fflush(stdout) != 0 || std::ferror(stdout))
    return OutputError(errno);
  return 0;
}

std::string Allowed(const char* option, const char* values,
                    std::string_view got) {
  return std::string(option) + " takes " + values + ", not '" +
         std::string(got) + "'";
}

bool ParseBytes(const char* text, size_t* out, uint64_t max) {
  // Digits first: strtoull would take "-1" (as 2^64 - 1), "+1" and " 1".
  if (*text < '0' || *text > '9') return false;
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (errno == ERANGE || v == 0) return false;
  int shift = 0;
  if (*end != '\0') {
    const char* units = "KMGT";
    // (A space masked to NUL would find strchr()'s terminator: letters only.)
    const char letter = static_cast<char>(*end & ~0x20);
    const char* u = letter != '\0' ? std::strchr(units, letter) : nullptr;
    if (!u || (end[1] != '\0' && std::strcmp(end + 1, "iB") != 0 &&
               std::strcmp(end + 1, "B") != 0))
      return false;
    shift = 10 * static_cast<int>(u - units + 1);
  }
  if (v > (max >> shift)) return false;
  *out = static_cast<size_t>(v << shift);
  return true;
}

int CheckBase(BaseOption* base) {
  base->uri = ParseUriReference(base->text);
  if (!base->uri.valid()) {
    std::fprintf(stderr, "uriscan: --base: invalid URI: %s at byte %u\n",
                 ErrorKindName(base->uri.error().kind),
                 base->uri.error().offset + 1);
    return 2;
  }
  if (!base->uri.scheme()) {
    // "\xc2\xa7" is the section sign in UTF-8 (sources stay ASCII).
    std::fprintf(stderr,
                 "uriscan: --base: '%s' is a relative reference; a base "
                 "URI needs a scheme (RFC 3986 \xc2\xa7" "5.1)\n",
                 base->text.c_str());
    return 2;
  }
  return -1;
}

namespace {

constexpr char kIntroduction[] =
    "usage: uriscan COMMAND [OPTIONS] [FILE...]\n"
    "\n"
    "Reads one URI reference per line (RFC 3986) from each FILE, or from\n"
    "stdin when there is none or FILE is '-'. A \"\\r\" before \"\\n\" is\n"
    "dropped. Output keeps one record per input line, in order. gzip and\n"
    "zstd input is decoded (told by its first bytes, not by its name); a\n"
    "UTF-8 byte-order mark at the start of an input is dropped.\n"
    "\n"
    "commands:\n";

constexpr char kOnErrorHelp[] =
    "normalize, resolve and dedup: --on-error=keep (default; skip for\n"
    "dedup --state) echoes an invalid line unchanged, skip drops it, fail\n"
    "stops there with exit 1; each invalid line gets a diagnostic and is\n"
    "counted in the summary.\n";

constexpr char kCrawlerOptionsHelp[] =
    "parse, extract, normalize and dedup: --tracking-params=a,b,utm_*\n"
    "replaces the crawler profile's list of parameters to drop, and\n"
    "--tracking-params=+a,b adds to it; --fold-www drops a leading\n"
    "\"www.\" from a host under the crawler profile.\n";

// A command that reads no input (state) takes only these.
constexpr char kNoInputHelp[] =
    "options: --help; --quiet and --progress are taken, as by the other\n"
    "commands (it prints no progress line and no summary)\n";

constexpr char kSharedHelp[] =
    "options (\"--opt=VALUE\" or \"--opt VALUE\"; sizes take K, M or G):\n"
    "  --max-line=BYTES  longer lines are reported as too-long (default\n"
    "                    16M); memory stays bounded by it\n"
    "  --threads=N       scan with N threads (default: the cores this\n"
    "                    process may use); output order is the same\n"
    "  --chunk-size=BYTES input is read and scanned in chunks of about this\n"
    "                    size (default 4M)\n"
    "  --lenient         repair each line before the strict scan, and\n"
    "                    flag it: IDNA A-labels for a non-ASCII host\n"
    "                    (UTS #46), percent-encoding of other non-ASCII\n"
    "                    bytes and of space \" < > \\ ^ ` { | } (RFC 3987\n"
    "                    section 3.1), %25 for a '%' without two hex digits\n"
    "  --line-numbers=file|global  LINE starts from 1 in each input file\n"
    "                    (file, the default) or counts on across them\n"
    "  --max-errors=N    print the first N diagnostics; count the others,\n"
    "                    and say in the summary how many were held back\n"
    "  --quiet           no progress and no summary on stderr\n"
    "  --progress        the progress line on stderr whatever it is (by\n"
    "                    default: when stderr is a terminal and stdout is\n"
    "                    not; --quiet turns it off)\n"
    "  --help, --version\n"
    "  uriscan --man-pages=DIR writes a man page per command (this text)\n"
    "  into DIR; uriscan --completion=bash|zsh|fish prints a completion\n"
    "  script\n"
    "\n"
    "Diagnostics go to stderr as FILE:LINE:COL: error: KIND: MESSAGE\n"
    "(COL counts bytes from 1). Exit status: 0 success, 1 invalid input\n"
    "(validate), 2 usage or I/O error.\n";

const CommandSpec* const kCommands[] = {
    &kExtractCommand,   &kParseCommand,   &kParamsCommand,
    &kValidateCommand,  &kStatsCommand,   &kAuditCommand,
    &kNormalizeCommand, &kResolveCommand, &kDedupCommand,
    &kStateCommand};

}  // namespace

// uriscan --help: every command.
std::string GeneralHelp() {
  std::string help = kIntroduction;
  for (const CommandSpec* c : kCommands) help += c->help();
  return help + "\n" + kOnErrorHelp + "\n" + kCrawlerOptionsHelp + "\n" +
         kSharedHelp;
}

// uriscan COMMAND --help: that command, and the options it shares.
std::string CommandHelp(const CommandSpec& c) {
  std::string help = std::string("usage: uriscan ") + c.name + " " +
                     c.usage + "\n\n" + c.help();
  if (!c.reads_input) return help + "\n" + kNoInputHelp;
  help += "\n";
  if (c.takes_on_error) help += std::string(kOnErrorHelp) + "\n";
  const std::string_view name = c.name;
  if (name == "parse" || name == "extract" || name == "normalize" ||
      name == "dedup")
    help += std::string(kCrawlerOptionsHelp) + "\n";
  if (name == "normalize" || name == "dedup") help += ProfileListsHelp() + "\n";
  return help + kSharedHelp;
}

namespace {

// --max-line and --chunk-size: a size below 2^32 (offsets in a chunk are
// 32-bit).
size_t ParseSize(const std::string& text, const char* message) {
  size_t v = 0;
  if (!ParseBytes(text.c_str(), &v) || v >= (size_t{1} << 32))
    throw UsageError(message);
  return v;
}

// The options every command takes (--lenient: those that read input).
void AddSharedOptions(CLI::App* app, bool reads_input, Options* opt) {
  AddFlag(app, "--quiet", [opt] { opt->quiet = true; });
  AddFlag(app, "--progress", [opt] { opt->progress = true; });
  if (!reads_input) return;
  AddValueOption(app, "--max-line", "BYTES", [opt](const std::string& v) {
    opt->max_line = ParseSize(v, "--max-line takes a size from 1 to "
                                 "4294967295 bytes, such as 65536 or 64K");
  });
  AddValueOption(app, "--chunk-size", "BYTES", [opt](const std::string& v) {
    opt->chunk_bytes = ParseSize(v, "--chunk-size takes a size from 1 to "
                                    "4294967295 bytes, such as 4M");
  });
  AddValueOption(app, "--threads", "N", [opt](const std::string& v) {
    char* end = nullptr;
    opt->threads = std::strtoul(v.c_str(), &end, 10);
    if (end == v.c_str() || *end != '\0' || opt->threads == 0 ||
        opt->threads > 1024)
      throw UsageError("--threads takes a count from 1 to 1024");
  });
  AddFlag(app, "--lenient", [opt] { opt->lenient = true; });
  {
    AddValueOption(app, "--max-errors", "N", [opt](const std::string& v) {
      // Digits only (0 allowed: every diagnostic counted, none printed).
      char* end = nullptr;
      errno = 0;
      const unsigned long long n = std::strtoull(v.c_str(), &end, 10);
      if (v.empty() || v[0] < '0' || v[0] > '9' || *end != '\0' ||
          errno == ERANGE || n > (uint64_t{1} << 50))
        throw UsageError("--max-errors takes a count from 0 to 2^50, such "
                         "as 100");
      opt->max_errors = n;
    });
    AddValueOption(app, "--line-numbers", "file|global",
                   [opt](const std::string& v) {
                     if (v == "global") opt->global_lines = true;
                     else if (v == "file") opt->global_lines = false;
                     else throw UsageError(Allowed("--line-numbers",
                                                   "file or global", v));
                   });
  }
}

// CLI11 reads "--opt=" with an empty value as "--opt" and takes the next
// argument as its value; here an empty value stays the value (and gets the
// option's own message), as "--opt=''" would.
std::vector<std::string> SplitEmptyValues(int argc, char** argv) {
  std::vector<std::string> args;
  bool options_done = false;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    options_done |= a == "--";
    if (!options_done && a.size() > 3 && a.compare(0, 2, "--") == 0 &&
        a.back() == '=' && a.find('=') == a.size() - 1) {
      a.pop_back();
      args.push_back(std::move(a));
      args.emplace_back();
      continue;
    }
    args.push_back(std::move(a));
  }
  return args;
}

// The message of a CLI11 parse error, in the command's wording.
std::string Describe(const CLI::ParseError& e) {
  std::string what = e.what();
  // "--format: 1 required TEXT missing": a value option given last.
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e)) {
    const size_t colon = what.find(": ");
    if (what.compare(0, 2, "--") == 0 && colon != std::string::npos)
      return what.substr(0, colon) + " needs a value";
  }
  // "--quiet was given a disallowed flag override": "--quiet=yes".
  const size_t space = what.find(" was given a disallowed flag override");
  if (space != std::string::npos)  // CLI11 names it without the "--"
    return "--" + what.substr(0, space) + " takes no value";
  return what;
}

}  // namespace

void AddValueOption(CLI::App* app, const char* name, const char* type,
                    std::function<void(const std::string&)> set) {
  // Under --help nothing is checked: the help wins wherever it is.
  app->add_option_function<std::string>(
         name,
         [app, set = std::move(set)](const std::string& v) {
           if (app->count("--help") == 0) set(v);
         })
      ->type_name(type);
}

void AddFlag(CLI::App* app, const char* name, std::function<void()> set) {
  app->add_flag_callback(name, std::move(set))->disable_flag_override();
}

std::string HelpEntry(const char* head, const std::string& text) {
  constexpr size_t kIndent = 30, kWidth = 70;
  std::string help = head;
  help.resize(kIndent, ' ');
  size_t column = kIndent;
  bool first_word = true;
  for (size_t pos = 0; pos < text.size();) {
    const size_t end = std::min(text.find(' ', pos), text.size());
    const size_t length = end - pos;
    if (!first_word && column + 1 + length > kWidth) {
      help += "\n" + std::string(kIndent, ' ');
      column = kIndent;
    } else if (!first_word) {
      help += ' ';
      ++column;
    }
    help.append(text, pos, length);
    column += length;
    first_word = false;
    pos = end + 1;
  }
  return help + "\n";
}

void AddProfileOptions(CLI::App* app, ProfileOptions* p) {
  AddValueOption(app, "--profile", "P", [p](const std::string& v) {
    if (!ParseProfile(v, &p->profile))
      throw UsageError(
          Allowed("--profile", "syntax, scheme, crawler or w3lib", v));
    p->profile_given = true;
  });
  // "a,b" replaces the list; "+a,b" adds to it.
  AddValueOption(app, "--tracking-params", "LIST", [p](const std::string& v) {
    // The list is written into a --state's MANIFEST, one name a line: no
    // name can hold a control byte or a space (nor does a query's).
    for (const char c : v) {
      if (static_cast<unsigned char>(c) <= ' ' || c == '\x7f')
        throw UsageError("--tracking-params takes names separated by ','; "
                         "a space or control byte is in none");
    }
    p->crawler_options = true;
    std::string_view list = v;
    if (!list.empty() && list[0] == '+') {
      list.remove_prefix(1);
    } else {
      p->normalize.tracking_params.clear();
    }
    while (!list.empty()) {
      const size_t comma = std::min(list.find(','), list.size());
      if (comma > 0)
        p->normalize.tracking_params.emplace_back(list.substr(0, comma));
      list.remove_prefix(std::min(comma + 1, list.size()));
    }
  });
  AddFlag(app, "--fold-www", [p] {
    p->normalize.fold_www = true;
    p->crawler_options = true;
  });
}

void AddDecodeOption(CLI::App* app, DecodedBytes* decode) {
  AddValueOption(app, "--decode", "utf8|bytes",
                 [decode](const std::string& v) {
                   if (v == "utf8") *decode = DecodedBytes::kUtf8;
                   else if (v == "bytes") *decode = DecodedBytes::kRaw;
                   else throw UsageError(Allowed("--decode", "utf8 or bytes", v));
                 });
}

int CheckProfileOptions(const ProfileOptions& p, bool crawler_used) {
  if (p.crawler_options && p.profile != Profile::kCrawler && !crawler_used)
    return Usage("--tracking-params and --fold-www are options of "
                 "--profile=crawler");
  return -1;
}

std::string ProfileListsHelp() {
  std::string help =
      "The crawler profile drops these tracking parameters (a trailing *\n"
      "is a prefix; --tracking-params=a,b replaces the list, =+a,b adds to\n"
      "it) and session ids, names compared without case:\n  ";
  std::string line;
  auto add = [&](const std::vector<std::string>& names) {
    for (const std::string& n : names) {
      if (line.size() + n.size() + 1 > 70) {
        help += line + "\n  ";
        line.clear();
      }
      line += n + " ";
    }
  };
  add(NormalizeOptions::DefaultTrackingParams());
  help += line + "\n  session ids (by value: 32 letters or digits, 24 letters\n"
                 "  after aspsessionid and 8 letters; cfid with cftoken): ";
  line.clear();
  add(SessionParams());
  help += line + "\n  ;jsessionid= in a path, ASP.NET's /(S(...))/ segment\n";
  return help;
}

void AddOnErrorOption(CLI::App* app, OnError* on_error, bool* given) {
  AddValueOption(app, "--on-error", "ACTION",
                 [on_error, given](const std::string& v) {
                   if (given) *given = true;
                   if (v == "keep") *on_error = OnError::kKeep;
                   else if (v == "skip") *on_error = OnError::kSkip;
                   else if (v == "fail") *on_error = OnError::kFail;
                   else throw UsageError(
                       Allowed("--on-error", "keep, skip or fail", v));
                 });
}

void AddBaseOption(CLI::App* app, BaseOption* base) {
  AddValueOption(app, "--base", "URI", [base](const std::string& v) {
    base->given = true;
    base->text = v;
  });
}

namespace {

// Every option of `spec`'s command onto `app`: the shared ones and its
// own (`command` reads them into its fields, `opt` the shared ones).
void AddCommandOptions(CLI::App* app, const CommandSpec& spec,
                       CommandRun* command, Options* opt) {
  // The help is this command's own text (CommandHelp), not CLI11's.
  app->set_help_flag();
  app->add_flag("--help");
  // An option given twice: the last one counts.
  app->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  // FILE arguments are what CLI11 leaves (a positional option would split a
  // name such as "[a,b]" into a list); unknown options are told from them.
  app->allow_extras();
  AddSharedOptions(app, spec.reads_input, opt);
  command->AddOptions(app);
}

// Where an option `typed` that `spec` does not take may have come from:
// "; did you mean '--X'?" for one of its own, or "; it is an option of
// C1, C2" when other commands take it as typed.
std::string AnotherCommands(const CommandSpec& spec, const std::string& typed) {
  const std::string name = typed.substr(0, typed.find('='));
  const auto names = [](const CommandSpec& c) {  // "--x", not "--x="
    std::vector<std::string> n = OptionNames(c);
    for (std::string& o : n)
      if (!o.empty() && o.back() == '=') o.pop_back();
    return n;
  };
  std::string others;
  for (const CommandSpec* c : kCommands) {
    const std::vector<std::string> its = names(*c);
    if (c != &spec && std::find(its.begin(), its.end(), name) != its.end())
      others += (others.empty() ? "" : ", ") + std::string(c->name);
  }
  if (!others.empty()) return "; it is an option of " + others;
  return DidYouMean(name, names(spec));
}

// The command named `name` with its options read from the rest of argv:
// null with *status after the help or a usage error.
std::unique_ptr<CommandRun> ReadCommand(const CommandSpec& spec, int argc,
                                        char** argv, Options* opt,
                                        int* status) {
  std::unique_ptr<CommandRun> command = spec.make(*opt);
  CurrentCommand() = spec.name;

  CLI::App app("", std::string("uriscan ") + spec.name);
  AddCommandOptions(&app, spec, command.get(), opt);
  try {
    std::vector<std::string> args = SplitEmptyValues(argc, argv);
    std::reverse(args.begin(), args.end());  // CLI11 takes them from the back
    app.parse(args);
  } catch (const UsageError& e) {
    *status = Usage(e.what());
    return nullptr;
  } catch (const CLI::ParseError& e) {
    *status = Usage(Describe(e));
    return nullptr;
  }
  if (app.count("--help")) {
    *status = WriteStdout(CommandHelp(spec));
    return nullptr;
  }
  bool options_done = false;
  for (const std::string& a : app.remaining()) {
    if (!options_done && a == "--") {
      options_done = true;
    } else if (!options_done && a.size() > 1 && a[0] == '-') {
      *status = Usage("unknown option '" + a + "' for " + spec.name +
                      AnotherCommands(spec, a));
      return nullptr;
    } else {
      opt->files.push_back(a);
    }
  }
  *status = command->Check();
  if (*status >= 0) return nullptr;
  if (opt->files.empty()) opt->files.emplace_back("-");
  return command;
}

}  // namespace

std::vector<const CommandSpec*> Commands() {
  return {std::begin(kCommands), std::end(kCommands)};
}

std::vector<std::string> OptionNames(const CommandSpec& spec) {
  Options opt;
  std::unique_ptr<CommandRun> command = spec.make(opt);
  CLI::App app("", std::string("uriscan ") + spec.name);
  AddCommandOptions(&app, spec, command.get(), &opt);
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options()) {
    for (const std::string& name : o->get_lnames())
      names.push_back("--" + name + (o->get_type_name().empty() ? "" : "="));
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::unique_ptr<CommandRun> ParseCommandLine(int argc, char** argv,
                                             Options* opt, int* status) {
  *status = -1;
  CurrentCommand().clear();
  if (argc < 2) {
    *status = Usage("no command given");
    return nullptr;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    *status = WriteStdout(GeneralHelp());
    return nullptr;
  }
  // For packagers: the man pages and shell completions, made from the
  // same text and tables as --help and the option parser.
  if (name.rfind("--man-pages=", 0) == 0) {
    std::string error;
    if (!WriteManPages(name.substr(12), &error)) {
      std::fprintf(stderr, "uriscan: %s\n", error.c_str());
      *status = 2;
    } else {
      *status = 0;
    }
    return nullptr;
  }
  if (name.rfind("--completion=", 0) == 0) {
    const std::string script = Completion(name.substr(13));
    *status = script.empty()
                  ? Usage("--completion takes bash, zsh or fish, not '" +
                          name.substr(13) + "'")
                  : WriteStdout(script);
    return nullptr;
  }
  if (name == "--version") {
    const char* target = DispatchedTargetName();  // URISCAN_TARGET applied
    bool honoured = false;
    const char* requested = RequestedTarget(&honoured);
    std::printf("uriscan %s (Highway target %s", URISCAN_VERSION_STRING, target);
    if (requested != nullptr) {
      std::printf(honoured ? ", chosen by URISCAN_TARGET=%s)\n"
                           : "; URISCAN_TARGET=%s ignored: not a target this "
                             "build has and this CPU supports)\n",
                  requested);
    } else {
      std::printf(")\n");
    }
    *status = WriteStdout("");
    return nullptr;
  }
  for (const CommandSpec* c : kCommands) {
    if (name != c->name) continue;
    opt->command = c->name;
    opt->threads = AvailableCores();
    return ReadCommand(*c, argc, argv, opt, status);
  }
  std::vector<std::string> names;
  for (const CommandSpec* c : kCommands) names.emplace_back(c->name);
  *status = Usage("unknown command '" + name + "'" + DidYouMean(name, names));
  return nullptr;
}

}  // namespace cli
}  // namespace uriscan
