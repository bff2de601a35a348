// SPDX-License-Identifier: MIT
// The uriscan command: parse, validate, stats, audit (risk flags, RFC 3986
// sec. 7), normalize, resolve and dedup over files or stdin; dedup
// --state=DIR keeps a seen-set across runs, and state DIR reports on one.
#include <libpsl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "src/cli/columns.h"
#include "src/cli/dedup_sink.h"
#include "src/cli/extract.h"
#include "src/cli/input.h"
#include "src/cli/lenient.h"
#include "src/cli/output.h"
#include "src/cli/pipeline.h"
#include "src/cli/state_command.h"
#include "uriscan/uriscan.h"

namespace uriscan {
namespace cli {
namespace {

constexpr char kUsage[] =
    "usage: uriscan COMMAND [OPTIONS] [FILE...]\n"
    "\n"
    "Reads one URI reference per line (RFC 3986) from each FILE, or from\n"
    "stdin when there is none or FILE is '-'. A \"\\r\" before \"\\n\" is\n"
    "dropped. Output keeps one record per input line, in order. gzip and\n"
    "zstd input is decoded (told by its first bytes, not by its name); a\n"
    "UTF-8 byte-order mark at the start of an input is dropped.\n"
    "\n"
    "commands:\n"
    "  extract [--from=F]          the URI references in the input, one per\n"
    "                              line, as written; F is text (default:\n"
    "                              RFC 3986 Appendix C), clf or combined\n"
    "                              (web server logs), tsv or csv (RFC 4180),\n"
    "                              jsonl\n"
    "      [--field=X]             clf, combined: target (default) or\n"
    "                              referer; tsv, csv: a column number (from\n"
    "                              1, default 1) or a name in the header row;\n"
    "                              jsonl: a top-level key (required)\n"
    "      [--base=URI]            clf, combined: resolve targets against URI\n"
    "      [--with-line]           each reference as LINE<TAB>REFERENCE\n"
    "  parse [--format=jsonl|tsv]  one record per line with its components;\n"
    "                              jsonl adds \"risks\":[...] (see audit)\n"
    "      [--columns=LIST]        tsv: these columns, in this order, from\n"
    "                              line, valid, scheme, userinfo, host,\n"
    "                              port, path, query, fragment, host_type,\n"
    "                              error and the derived ones:\n"
    "                              registrable_domain, public_suffix (of\n"
    "                              the lower-cased host, by the Public\n"
    "                              Suffix List; \\N for an IP address),\n"
    "                              surt (the SURT key, com,example)/a?b=1),\n"
    "                              key (as dedup --keys under --profile),\n"
    "                              normalized (under --profile)\n"
    "      [--psl=FILE]            another Public Suffix List than libpsl's\n"
    "  validate                    diagnostics for invalid lines only;\n"
    "                              exit 1 if there is any\n"
    "  stats                       a summary: counts, error kinds, host\n"
    "                              kinds, risk flags, throughput\n"
    "  audit                       LINE<TAB>FLAGS per line: the risks of\n"
    "                              RFC 3986 section 7, comma-separated in\n"
    "                              this order (empty when none; 'invalid'\n"
    "                              for an invalid line): credentials,\n"
    "                              password, userinfo-host-like,\n"
    "                              ip-rare-form, ip-loopback, ip-private,\n"
    "                              ip-link-local, ip-unspecified,\n"
    "                              ip-embedded-ipv4, host-pct-encoded,\n"
    "                              encoded-delimiter, double-encoded,\n"
    "                              encoded-control, dot-segment-above-root,\n"
    "                              encoded-dot-segment, script-scheme,\n"
    "                              port-out-of-range\n"
    "  normalize [--profile=P]     each line's normal form (RFC 3986 §6);\n"
    "                              P is syntax (§6.2.2), scheme (default,\n"
    "                              adds §6.2.3) or crawler (adds: no\n"
    "                              fragment, sorted query without tracking\n"
    "                              or empty parameters, no empty query;\n"
    "                              prints KEY<TAB>ORIGINAL, KEY empty for\n"
    "                              an invalid line)\n"
    "  resolve --base=URI          each line resolved against URI (§5.2)\n"
    "      [--nonstrict]           \"http:g\" is relative to an http base\n"
    "      [--draft-1997]          the 1997 draft's algorithm\n"
    "                              (draft-fielding-uri-syntax-01)\n"
    "      [--above-root=clamp|keep|reject]  \"..\" above the root\n"
    "                              (default clamp, as RFC 3986)\n"
    "  dedup [--profile=P]         the first line of each class of lines\n"
    "                              equal under P (default scheme), in\n"
    "                              input order; exact, by 64-bit XXH3 keys\n"
    "      [--keys]                each line as KEY<TAB>LINE (16 hex digits)\n"
    "      [--memory=SIZE]         memory budget, e.g. 512M or 4G (default\n"
    "                              1G); past it, sorted runs of keys go to\n"
    "                              --temp-dir (default $TMPDIR or /tmp)\n"
    "      [--bloom=N]             approximate instead: a Bloom filter for\n"
    "      [--fp-rate=P]           N distinct lines at false-positive rate\n"
    "                              P (default 0.001), which adds layers\n"
    "                              as it fills so the rate stays under P,\n"
    "                              and stops with exit 2 past --memory; a\n"
    "                              false positive drops a line that was new\n"
    "      [--state=DIR]           a seen-set kept in DIR across runs: only\n"
    "                              lines whose class no earlier run with DIR\n"
    "                              saw are written; the run's new classes\n"
    "                              are added to DIR when it ends with exit\n"
    "                              0 (crash-safe; one run at a time). DIR\n"
    "                              keeps one profile: another is an error\n"
    "  state DIR [--verify]        a state's profile, keys, bytes on disk and\n"
    "      [--compact]             runs; --verify decodes every run and checks\n"
    "                              its checksum (exit 2 when damaged);\n"
    "                              --compact first merges all runs into one\n"
    "\n"
    "normalize, resolve and dedup: --on-error=keep (default) echoes an\n"
    "invalid line unchanged, skip drops it, fail stops there with exit 1;\n"
    "each invalid line gets a diagnostic. --tracking-params=a,b,utm_*\n"
    "replaces the crawler profile's list of parameters to drop.\n"
    "\n"
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
    "  --quiet           no progress and no summary on stderr\n"
    "  --help, --version\n"
    "\n"
    "Diagnostics go to stderr as FILE:LINE:COL: error: KIND: MESSAGE\n"
    "(COL counts bytes from 1). Exit status: 0 success, 1 invalid input\n"
    "(validate), 2 usage or I/O error.\n";

enum class Command {
  kExtract, kParse, kValidate, kStats, kAudit, kNormalize, kResolve, kDedup, kState
};
enum class OnError { kKeep, kSkip, kFail };
enum class Format { kJsonl, kTsv };

struct Options {
  Command command = Command::kParse;
  Format format = Format::kJsonl;
  bool quiet = false;
  bool lenient = false;
  size_t max_line = 16u << 20;
  size_t threads = AvailableCores();
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

struct Totals {
  uint64_t lines = 0, valid = 0, bytes = 0;
  std::array<uint64_t, kErrorKindCount> by_error{};
  std::array<uint64_t, 4> by_host{};
  uint64_t scheme = 0, authority = 0, userinfo = 0, port = 0, query = 0,
           fragment = 0;
  uint64_t rewritten = 0;  // normalize: lines whose output differs
  uint64_t unresolved = 0;  // resolve: valid references refused
  uint64_t distinct = 0;  // dedup, for the progress line
  uint64_t flagged = 0;   // valid lines with any risk flag
  uint64_t extracted = 0, malformed = 0;  // extract
  uint64_t repaired = 0;  // --lenient: lines repaired
  uint64_t boms = 0;      // inputs that began with a byte-order mark
  std::array<uint64_t, risks::kCount> by_risk{};
  double scan_seconds = 0;
};

// A usage error: one line, then where the help is (as git and ripgrep do).
int Usage(const std::string& message) {
  std::fprintf(stderr, "uriscan: %s\ntry 'uriscan --help'\n",
               message.c_str());
  return 2;
}

// Writes `text` to stdout; 0, or 2 when the write fails (a full disk, a
// closed pipe), as for every other output of the command.
int WriteStdout(const std::string& text) {
  std::fputs(text.c_str(), stdout);
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::fprintf(stderr, "uriscan: error writing output\n");
    return 2;
  }
  return 0;
}

// "--opt takes a, b or c, not 'x'": the allowed values of an option.
std::string Allowed(const char* option, const char* values,
                    std::string_view got) {
  return std::string(option) + " takes " + values + ", not '" +
         std::string(got) + "'";
}

// A byte count with an optional binary suffix: 1500, 64K, 512M, 4G, 1T.
bool ParseBytes(const char* text, size_t* out) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (end == text || v == 0) return false;
  int shift = 0;
  if (*end != '\0') {
    const char* units = "KMGT";
    const char* u = std::strchr(units, *end & ~0x20);
    if (!u || (end[1] != '\0' && std::strcmp(end + 1, "iB") != 0 &&
               std::strcmp(end + 1, "B") != 0))
      return false;
    shift = 10 * static_cast<int>(u - units + 1);
  }
  if (v > (~0ull >> shift)) return false;
  *out = static_cast<size_t>(v << shift);
  return true;
}

// As ParseBytes, below 2^32 (offsets in a chunk are 32-bit).
bool ParseSize(const char* text, size_t* out) {
  size_t v = 0;
  if (!ParseBytes(text, &v) || v >= (size_t{1} << 32)) return false;
  *out = v;
  return true;
}

// The options that take a value, which may follow as the next argument
// ("--base URI") as well as after '=' ("--base=URI").
constexpr const char* kValueOptions[] = {
    "--format", "--on-error", "--profile", "--tracking-params", "--base",
    "--above-root", "--memory", "--temp-dir", "--bloom", "--fp-rate",
    "--state", "--max-line", "--chunk-size", "--threads", "--from",
    "--field", "--columns", "--psl"};

// argv[2...] with every "--opt value" pair joined into "--opt=value".
std::vector<std::string> JoinValues(int argc, char** argv) {
  std::vector<std::string> args;
  bool options_done = false;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    options_done |= a == "--";
    const bool takes_value =
        !options_done &&
        std::any_of(std::begin(kValueOptions), std::end(kValueOptions),
                    [&](const char* o) { return a == o; });
    if (takes_value && i + 1 < argc) a += std::string("=") + argv[++i];
    args.push_back(std::move(a));
  }
  return args;
}

// extract's --field and --base for its --from; -1 when fine, else the exit
// status.
int CheckExtractOptions(Options* opt) {
  ExtractOptions& x = opt->extract;
  const std::string& f = opt->field;
  switch (x.from) {
    case LogFormat::kText:
      if (!f.empty()) return Usage("--from=text takes no --field");
      break;
    case LogFormat::kClf:
    case LogFormat::kCombined:
      if (f == "referer" && x.from == LogFormat::kClf)
        return Usage("--field=referer needs --from=combined (the Common Log "
                     "Format has no Referer)");
      if (!f.empty() && f != "target" && f != "referer")
        return Usage(Allowed("--field", "target or referer", f));
      x.referer = f == "referer";
      break;
    case LogFormat::kTsv:
    case LogFormat::kCsv:
      if (!f.empty() && f.find_first_not_of("0123456789") == std::string::npos) {
        const unsigned long n = std::strtoul(f.c_str(), nullptr, 10);
        if (n == 0) return Usage("--field numbers columns from 1");
        x.column = n - 1;
      } else if (!f.empty()) {
        opt->header_field = true;
        x.field_name = f;
      }
      break;
    case LogFormat::kJsonl:
      if (f.empty()) return Usage("--from=jsonl needs --field=KEY");
      x.field_name = f;
      break;
  }
  if (opt->has_base && x.from != LogFormat::kClf &&
      x.from != LogFormat::kCombined)
    return Usage("--base applies to --from=clf or --from=combined");
  if (opt->has_base && x.referer)
    return Usage("--base applies to request targets, not to --field=referer");
  if (opt->has_base) x.base = &opt->base;
  return -1;
}

// Returns -1 when the options are fine, else the exit status.
int ParseOptions(int argc, char** argv, Options* opt) {
  if (argc < 2) return Usage("no command given");
  const std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help")
    return WriteStdout(kUsage);
  if (cmd == "--version") {
    std::printf("uriscan %s (Highway target %s)\n", URISCAN_VERSION_STRING,
                DispatchedTargetName());
    return WriteStdout("");
  }
  if (cmd == "extract") {
    opt->command = Command::kExtract;
  } else if (cmd == "parse") {
    opt->command = Command::kParse;
  } else if (cmd == "validate") {
    opt->command = Command::kValidate;
  } else if (cmd == "stats") {
    opt->command = Command::kStats;
  } else if (cmd == "audit") {
    opt->command = Command::kAudit;
  } else if (cmd == "normalize") {
    opt->command = Command::kNormalize;
  } else if (cmd == "resolve") {
    opt->command = Command::kResolve;
  } else if (cmd == "dedup") {
    opt->command = Command::kDedup;
  } else if (cmd == "state") {
    opt->command = Command::kState;
  } else {
    return Usage("unknown command '" + cmd + "'");
  }
  bool options_done = false;
  const std::vector<std::string> args = JoinValues(argc, argv);
  for (const std::string& arg : args) {
    const char* a = arg.c_str();
    if (options_done || a[0] != '-' || std::strcmp(a, "-") == 0) {
      opt->files.emplace_back(a);
    } else if (std::any_of(std::begin(kValueOptions), std::end(kValueOptions),
                           [&](const char* o) { return arg == o; })) {
      return Usage(arg + " needs a value");  // the last argument
    } else if (std::strcmp(a, "--") == 0) {
      options_done = true;
    } else if (std::strncmp(a, "--format=", 9) == 0 &&
               opt->command == Command::kParse) {
      const std::string v = a + 9;
      if (v == "jsonl") opt->format = Format::kJsonl;
      else if (v == "tsv") opt->format = Format::kTsv;
      else return Usage(Allowed("--format", "jsonl or tsv", v));
    } else if (std::strncmp(a, "--columns=", 10) == 0 &&
               opt->command == Command::kParse) {
      std::string unknown;
      if (!ParseColumns(a + 10, &opt->columns, &unknown))
        return Usage(Allowed("--columns", ColumnNames().c_str(), unknown));
    } else if (std::strncmp(a, "--psl=", 6) == 0 &&
               opt->command == Command::kParse) {
      opt->psl_file = a + 6;
    } else if (std::strncmp(a, "--on-error=", 11) == 0 &&
               (opt->command == Command::kNormalize ||
                opt->command == Command::kResolve ||
                opt->command == Command::kDedup)) {
      const std::string v = a + 11;
      if (v == "keep") opt->on_error = OnError::kKeep;
      else if (v == "skip") opt->on_error = OnError::kSkip;
      else if (v == "fail") opt->on_error = OnError::kFail;
      else return Usage(Allowed("--on-error", "keep, skip or fail", v));
    } else if (std::strncmp(a, "--profile=", 10) == 0 &&
               (opt->command == Command::kNormalize ||
                opt->command == Command::kParse ||
                opt->command == Command::kDedup)) {
      if (!ParseProfile(a + 10, &opt->profile))
        return Usage(Allowed("--profile", "syntax, scheme or crawler", a + 10));
    } else if (std::strncmp(a, "--tracking-params=", 18) == 0 &&
               (opt->command == Command::kNormalize ||
                opt->command == Command::kParse ||
                opt->command == Command::kDedup)) {
      opt->normalize.tracking_params.clear();
      std::string_view list = a + 18;
      while (!list.empty()) {
        const size_t comma = std::min(list.find(','), list.size());
        if (comma > 0) opt->normalize.tracking_params.emplace_back(list.substr(0, comma));
        list.remove_prefix(std::min(comma + 1, list.size()));
      }
    } else if (std::strncmp(a, "--from=", 7) == 0 &&
               opt->command == Command::kExtract) {
      if (!ParseLogFormat(a + 7, &opt->extract.from))
        return Usage(Allowed("--from", "text, clf, combined, tsv, csv or jsonl",
                             a + 7));
    } else if (std::strncmp(a, "--field=", 8) == 0 &&
               opt->command == Command::kExtract) {
      opt->field = a + 8;
      if (opt->field.empty()) return Usage("--field takes a name or number");
    } else if (std::strcmp(a, "--with-line") == 0 &&
               opt->command == Command::kExtract) {
      opt->extract.with_line = true;
    } else if (std::strncmp(a, "--base=", 7) == 0 &&
               (opt->command == Command::kResolve ||
                opt->command == Command::kExtract)) {
      opt->has_base = true;
      opt->base_text = a + 7;
    } else if (std::strcmp(a, "--nonstrict") == 0 &&
               opt->command == Command::kResolve) {
      opt->resolve.nonstrict = true;
    } else if (std::strcmp(a, "--draft-1997") == 0 &&
               opt->command == Command::kResolve) {
      opt->resolve.draft_1997 = true;
    } else if (std::strncmp(a, "--above-root=", 13) == 0 &&
               opt->command == Command::kResolve) {
      const std::string v = a + 13;
      if (v == "clamp") opt->resolve.above_root = AboveRoot::kClamp;
      else if (v == "keep") opt->resolve.above_root = AboveRoot::kKeep;
      else if (v == "reject") opt->resolve.above_root = AboveRoot::kReject;
      else return Usage(Allowed("--above-root", "clamp, keep or reject", v));
    } else if (std::strcmp(a, "--keys") == 0 &&
               opt->command == Command::kDedup) {
      opt->dedup.keys = true;
    } else if (std::strncmp(a, "--memory=", 9) == 0 &&
               opt->command == Command::kDedup) {
      if (!ParseBytes(a + 9, &opt->dedup.memory))
        return Usage("--memory takes a size such as 1500000, 64M or 4G");
    } else if (std::strncmp(a, "--temp-dir=", 11) == 0 &&
               opt->command == Command::kDedup) {
      opt->dedup.temp_dir = a + 11;
    } else if (std::strncmp(a, "--bloom=", 8) == 0 &&
               opt->command == Command::kDedup) {
      size_t n = 0;
      if (!ParseBytes(a + 8, &n))
        return Usage("--bloom takes the expected count of distinct lines");
      opt->dedup.bloom_expected = n;
    } else if (std::strncmp(a, "--fp-rate=", 10) == 0 &&
               opt->command == Command::kDedup) {
      char* end = nullptr;
      opt->dedup.fp_rate = std::strtod(a + 10, &end);
      if (end == a + 10 || *end != '\0' || !(opt->dedup.fp_rate > 0) ||
          !(opt->dedup.fp_rate < 1))
        return Usage("--fp-rate takes a probability between 0 and 1");
    } else if (std::strncmp(a, "--state=", 8) == 0 &&
               opt->command == Command::kDedup) {
      opt->state_dir = a + 8;
      if (opt->state_dir.empty()) return Usage("--state takes a directory");
    } else if (std::strcmp(a, "--verify") == 0 &&
               opt->command == Command::kState) {
      opt->verify = true;
    } else if (std::strcmp(a, "--compact") == 0 &&
               opt->command == Command::kState) {
      opt->compact = true;
    } else if (std::strcmp(a, "--lenient") == 0 &&
               opt->command != Command::kState) {
      opt->lenient = true;
      opt->extract.lenient = true;
    } else if (std::strcmp(a, "--quiet") == 0) {
      opt->quiet = true;
    } else if (std::strncmp(a, "--max-line=", 11) == 0) {
      if (!ParseSize(a + 11, &opt->max_line))
        return Usage("--max-line takes a size from 1 to 4294967295 bytes, "
                     "such as 65536 or 64K");
    } else if (std::strncmp(a, "--chunk-size=", 13) == 0) {
      if (!ParseSize(a + 13, &opt->chunk_bytes))
        return Usage("--chunk-size takes a size from 1 to 4294967295 bytes, "
                     "such as 4M");
    } else if (std::strncmp(a, "--threads=", 10) == 0) {
      char* end = nullptr;
      opt->threads = std::strtoul(a + 10, &end, 10);
      if (end == a + 10 || *end != '\0' || opt->threads == 0 ||
          opt->threads > 1024)
        return Usage("--threads takes a count from 1 to 1024");
    } else if (std::strcmp(a, "--help") == 0) {
      return WriteStdout(kUsage);
    } else {
      return Usage(std::string("unknown option '") + a + "' for " + cmd);
    }
  }
  if (!opt->columns.empty() && opt->format != Format::kTsv)
    return Usage("--columns needs --format=tsv");
  if (opt->command == Command::kExtract) {
    const int status = CheckExtractOptions(opt);
    if (status >= 0) return status;
  }
  if (opt->command == Command::kResolve || opt->has_base) {
    if (!opt->has_base) return Usage("resolve needs --base=URI");
    opt->base = ParseUriReference(opt->base_text);
    if (!opt->base.valid()) {
      std::fprintf(stderr, "uriscan: --base: invalid URI: %s at byte %u\n",
                   ErrorKindName(opt->base.error().kind),
                   opt->base.error().offset + 1);
      return 2;
    }
    if (!opt->base.scheme()) {
      std::fprintf(stderr,
                   "uriscan: --base: '%s' is a relative reference; a base "
                   "URI needs a scheme (RFC 3986 §5.1)\n",
                   opt->base_text.c_str());
      return 2;
    }
  }
  if (opt->command == Command::kDedup && opt->dedup.bloom_expected > 0) {
    const uint64_t need =
        BloomFilter::BytesFor(opt->dedup.bloom_expected,
                              opt->dedup.fp_rate / 2);  // the first layer
    if (need > opt->dedup.memory) {
      std::fprintf(stderr,
                   "uriscan: a Bloom filter for %llu lines at rate %g needs "
                   "%.1f MB, more than --memory; raise --memory or --fp-rate\n",
                   static_cast<unsigned long long>(opt->dedup.bloom_expected),
                   opt->dedup.fp_rate, need / 1e6);
      return 2;
    }
  }
  if (opt->command == Command::kDedup && !opt->state_dir.empty() &&
      opt->dedup.bloom_expected > 0)
    return Usage("--state keeps an exact seen-set; it cannot take --bloom");
  if (opt->command == Command::kState && opt->files.size() != 1)
    return Usage("state takes one directory");
  if (opt->files.empty()) opt->files.emplace_back("-");
  return -1;
}

class Progress {
 public:
  explicit Progress(bool enabled) : enabled_(enabled && isatty(2)) {}
  void Update(const Totals& t) {
    if (!enabled_) return;
    const auto now = Clock::now();
    if (now - last_ < std::chrono::milliseconds(500)) return;
    last_ = now;
    const double secs = std::chrono::duration<double>(now - start_).count();
    std::string distinct;
    if (t.distinct) distinct = ", " + std::to_string(t.distinct) + " distinct";
    std::fprintf(stderr, "\r%llu lines, %.1f MB, %.1f MB/s%s   ",
                 static_cast<unsigned long long>(t.lines), t.bytes / 1e6,
                 secs > 0 ? t.bytes / 1e6 / secs : 0.0, distinct.c_str());
    shown_ = true;
  }
  void Clear() {
    if (shown_) std::fputs("\r\033[K", stderr);
  }

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  bool shown_ = false;
  Clock::time_point start_ = Clock::now(), last_ = Clock::now();
};

void Count(const UriReference& uri, Totals* t) {
  ++t->lines;
  if (!uri.valid()) {
    ++t->by_error[static_cast<size_t>(uri.error().kind)];
    return;
  }
  ++t->valid;
  const uint16_t f = uri.flags();
  t->scheme += (f & flags::kHasScheme) != 0;
  t->userinfo += (f & flags::kHasUserinfo) != 0;
  t->port += (f & flags::kHasPort) != 0;
  t->query += (f & flags::kHasQuery) != 0;
  t->fragment += (f & flags::kHasFragment) != 0;
  if (f & flags::kHasAuthority) {
    ++t->authority;
    ++t->by_host[static_cast<size_t>(uri.host_kind())];
  }
}

// Count() for every row of `s` at once, column by column, when no row is
// over-long: what `validate` needs, without a UriReference per row.
void CountColumns(const ComponentSpans& s, Totals* t) {
  const size_t n = s.size();
  uint64_t valid = 0, scheme = 0, authority = 0, userinfo = 0, port = 0,
           query = 0, fragment = 0;
  std::array<uint64_t, 4> by_host{};
  for (size_t i = 0; i < n; ++i) {
    const uint16_t f = s.flags[i];  // 0 for an invalid row
    valid += s.error_kind[i] == 0;
    scheme += (f & flags::kHasScheme) != 0;
    userinfo += (f & flags::kHasUserinfo) != 0;
    port += (f & flags::kHasPort) != 0;
    query += (f & flags::kHasQuery) != 0;
    fragment += (f & flags::kHasFragment) != 0;
    authority += (f & flags::kHasAuthority) != 0;
    if (f & flags::kHasAuthority)
      ++by_host[(f & flags::kHostKindMask) >> flags::kHostKindShift];
    if (s.error_kind[i] != 0) ++t->by_error[s.error_kind[i]];
  }
  t->lines += n;
  t->valid += valid;
  t->scheme += scheme;
  t->authority += authority;
  t->userinfo += userinfo;
  t->port += port;
  t->query += query;
  t->fragment += fragment;
  for (size_t k = 0; k < by_host.size(); ++k) t->by_host[k] += by_host[k];
}

// True when some row of `s` is longer than max_line bytes.
bool AnyLongerThan(const ComponentSpans& s, size_t max_line) {
  uint32_t longest = 0;
  for (size_t i = 0; i < s.size(); ++i)
    longest = std::max(longest, s.uri_end[i] - s.uri_begin[i]);
  return longest > max_line;
}

void CountRisks(uint32_t risk_flags, Totals* t) {
  if (risk_flags == 0 || (risk_flags & risks::kInvalid)) return;
  ++t->flagged;
  for (int k = 0; k < risks::kCount; ++k)
    t->by_risk[k] += (risk_flags >> k) & 1;
}

void PrintStats(const Options& opt, const Totals& t, double wall) {
  auto pct = [&](uint64_t n) { return t.lines ? 100.0 * n / t.lines : 0.0; };
  std::printf("uriscan stats: RFC 3986 URI-reference, %s\n",
              opt.lenient ? "lenient (repaired, then strict)" : "strict");
  for (const std::string& f : opt.files)
    std::printf("  input            %s\n", f == "-" ? "<stdin>" : f.c_str());
  std::printf("  URIs scanned     %llu (%.1f MB)\n",
              static_cast<unsigned long long>(t.lines), t.bytes / 1e6);
  std::printf("  valid            %llu (%.2f %%)\n",
              static_cast<unsigned long long>(t.valid), pct(t.valid));
  std::printf("  invalid          %llu (%.2f %%)\n",
              static_cast<unsigned long long>(t.lines - t.valid),
              pct(t.lines - t.valid));
  for (int k = 1; k < kErrorKindCount; ++k) {
    if (t.by_error[k] == 0) continue;
    std::printf("    %-16s %llu\n", ErrorKindName(static_cast<ErrorKind>(k)),
                static_cast<unsigned long long>(t.by_error[k]));
  }
  if (opt.lenient)
    std::printf("  repaired         %llu (--lenient: percent-encoded bytes, "
                "lone %%, IDNA hosts)\n",
                static_cast<unsigned long long>(t.repaired));
  std::printf("  byte-order marks %llu dropped\n",
              static_cast<unsigned long long>(t.boms));
  std::printf("  host kinds       name %llu, ipv4 %llu, ipv6 %llu, "
              "ipvfuture %llu\n",
              static_cast<unsigned long long>(t.by_host[0]),
              static_cast<unsigned long long>(t.by_host[1]),
              static_cast<unsigned long long>(t.by_host[2]),
              static_cast<unsigned long long>(t.by_host[3]));
  std::printf("  defined          scheme %llu, authority %llu, userinfo %llu, "
              "port %llu, query %llu, fragment %llu\n",
              static_cast<unsigned long long>(t.scheme),
              static_cast<unsigned long long>(t.authority),
              static_cast<unsigned long long>(t.userinfo),
              static_cast<unsigned long long>(t.port),
              static_cast<unsigned long long>(t.query),
              static_cast<unsigned long long>(t.fragment));
  std::printf("  risk flags       %llu lines with any (RFC 3986 section 7)\n",
              static_cast<unsigned long long>(t.flagged));
  for (int k = 0; k < risks::kCount; ++k) {
    std::printf("    %-22s %llu\n", RiskFlagName(k),
                static_cast<unsigned long long>(t.by_risk[k]));
  }
  const double scan = t.scan_seconds > 0 ? t.scan_seconds : 1e-9;
  std::printf("  scan throughput  %.1f MB/s, %.2f M URIs/s per thread (SIMD "
              "scan, Highway target %s)\n",
              t.bytes / 1e6 / scan, t.lines / 1e6 / scan,
              DispatchedTargetName());
  std::printf("  wall time        %.3f s, %.1f MB/s with %zu thread%s "
              "(reading and counting included)\n",
              wall, wall > 0 ? t.bytes / 1e6 / wall : 0.0, opt.threads,
              opt.threads == 1 ? "" : "s");
}

void PrintSummary(const Options& opt, const Totals& t, bool stopped,
                  const DedupSink* dedup) {
  std::string s = "uriscan: " + std::to_string(t.lines) + " lines, " +
                  std::to_string(t.valid) + " valid, " +
                  std::to_string(t.lines - t.valid) + " invalid";
  const char* sep = " (";
  for (int k = 1; k < kErrorKindCount; ++k) {
    if (t.by_error[k] == 0) continue;
    s += sep;
    s += ErrorKindName(static_cast<ErrorKind>(k));
    s += ' ';
    s += std::to_string(t.by_error[k]);
    sep = ", ";
  }
  if (t.lines != t.valid) s += ')';
  if (opt.lenient) s += ", " + std::to_string(t.repaired) + " repaired";
  if (opt.command == Command::kNormalize)
    s += ", " + std::to_string(t.rewritten) + " rewritten";
  if (opt.command == Command::kAudit)
    s += ", " + std::to_string(t.flagged) + " with risk flags";
  if (opt.command == Command::kDedup && dedup) {
    s += ", " + std::to_string(dedup->distinct()) + " distinct, " +
         std::to_string(dedup->duplicates()) + " duplicates (" +
         dedup->Describe() + ")";
  }
  if (opt.command == Command::kResolve && t.unresolved)
    s += ", " + std::to_string(t.unresolved) + " above the root (not resolved)";
  if (stopped) s += "; stopped at the first invalid line (--on-error=fail)";
  std::fprintf(stderr, "%s\n", s.c_str());
}

// One chunk of input lines and everything the command makes of it. Chunks are
// processed on worker threads and written out in input order.
// A diagnostic of row `row` of a chunk. Line numbers are known only when
// the chunks before it are scanned, so the text is made as it is written.
struct Diagnostic {
  size_t row;
  uint64_t column;
  std::string_view kind, message;  // static strings
};

struct Chunk {
  Lines input;  // raw, as read (or mapped); rows are scanned where they lie
  bool too_long_line = false;
  bool starts_file = false;  // line numbers start again from 1 here
  // The number of the chunk's first line, for the records that carry one
  // (parse --format=tsv, audit); 0 for the others, where only diagnostics
  // have line numbers, made when the chunk is written.
  uint64_t first_line = 0;
  const std::string* name = nullptr;
  std::vector<Diagnostic> diagnostics;
  ComponentSpans spans;
  std::vector<uint64_t> keys;  // dedup: row i's key, 0 when invalid
  std::vector<uint32_t> risk_column;  // audit, stats, parse jsonl
  size_t rows = 0;             // rows processed (fewer after a failure)
  std::string out;
  Totals totals;
  bool failed = false;  // --on-error=fail met an invalid line: out stops there
  // extract: bytes of a header row to step over, the column the header
  // named, and how many input lines the chunk holds.
  size_t skip = 0;
  size_t column = 0;
  uint64_t input_lines = 0;
  // --lenient: the repaired lines (input.text then points here), and for
  // row i the original line when it was repaired (empty otherwise).
  std::string lenient_text;
  std::vector<std::string_view> originals;
};

// --lenient: each line of the chunk repaired (lenient.h), counted, and the
// chunk's text replaced by the repaired lines.
void RepairChunk(Chunk* c) {
  c->lenient_text.clear();
  c->originals.clear();
  const std::string_view text = c->input.text;
  for (size_t pos = 0; pos < text.size();) {
    const size_t nl = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, nl - pos);
    const bool cr = !line.empty() && line.back() == '\r';
    if (cr) line.remove_suffix(1);
    const bool repaired = RepairReference(line, &c->lenient_text);
    c->originals.push_back(repaired ? line : std::string_view());
    c->totals.repaired += repaired;
    if (cr) c->lenient_text.push_back('\r');
    if (nl < text.size()) c->lenient_text.push_back('\n');
    pos = nl + 1;
  }
  c->input.text = c->lenient_text;
}

// extract on one chunk of whole records.
void ExtractChunk(const Options& opt, Chunk* c) {
  c->input_lines = c->too_long_line ? 1 : CountLines(c->input.text);
  c->totals.lines = c->input_lines;
  c->totals.bytes = c->input.text.size();
  if (c->too_long_line) {
    c->diagnostics.push_back({0, opt.max_line + 1,
                              ErrorKindName(ErrorKind::kTooLong),
                              ErrorKindMessage(ErrorKind::kTooLong)});
    ++c->totals.malformed;
    return;
  }
  ExtractOptions x = opt.extract;
  x.column = opt.header_field ? c->column : x.column;
  const std::string_view header = c->input.text.substr(0, c->skip);
  const uint64_t header_lines = std::count(header.begin(), header.end(), '\n');
  // Lines longer than --max-line are diagnosed and left empty, whether or
  // not they fit in a chunk, so the output never depends on the chunking.
  std::string_view text = c->input.text.substr(c->skip);
  thread_local std::string trimmed;
  for (size_t pos = 0, line = 0; pos < text.size(); ++line) {
    const size_t nl = std::min(text.find('\n', pos), text.size());
    if (nl - pos > opt.max_line) {
      if (text.data() != trimmed.data()) {
        trimmed.assign(text);
        text = trimmed;
      }
      trimmed.erase(pos, nl - pos);
      text = trimmed;
      c->diagnostics.push_back({header_lines + line, opt.max_line + 1,
                                ErrorKindName(ErrorKind::kTooLong),
                                ErrorKindMessage(ErrorKind::kTooLong)});
      ++c->totals.malformed;
      pos += 1;
      continue;
    }
    pos = nl + 1;
  }
  thread_local std::vector<ExtractProblem> problems;
  problems.clear();
  Extract(text, x, c->first_line + header_lines, &c->out, &problems);
  for (const ExtractProblem& p : problems)
    c->diagnostics.push_back({header_lines + p.line, p.column, p.kind,
                              p.message});
  c->totals.malformed += problems.size();
  c->totals.extracted = std::count(c->out.begin(), c->out.end(), '\n');
}

// The text of the current document for a 1997 same-document reference: the
// base without its fragment, then the reference's fragment.
void AppendSameDocument(const UriReference& base, std::string_view fragment,
                        std::string* out) {
  const std::string_view text = base.text();
  const auto base_fragment = base.fragment();
  out->append(base_fragment ? text.substr(0, text.size() -
                                                 base_fragment->size() - 1)
                            : text);
  out->append(fragment);
}

void ProcessChunk(const Options& opt, const Fingerprinter& fingerprinter,
                  const ColumnWriter* columns, Chunk* c) {
  c->out.clear();
  c->diagnostics.clear();
  c->totals = Totals{};
  c->failed = false;
  // One scanner (its scratch) per worker thread.
  if (opt.command == Command::kExtract) return ExtractChunk(opt, c);
  thread_local Scanner scanner;
  const auto t0 = std::chrono::steady_clock::now();
  if (c->too_long_line) c->input.text = {};  // one empty row stands in
  if (opt.lenient && !c->too_long_line) RepairChunk(c);
  const bool scanned = scanner.ScanLines(c->input.text, &c->spans);
  (void)scanned;  // a chunk is far below 4 GiB
  if (c->too_long_line) {
    c->spans.Resize(1);
    c->spans.SetRow(0, 0, ParseUriReference(""));
  }
  c->totals.scan_seconds = std::chrono::duration<double>(
                               std::chrono::steady_clock::now() - t0)
                               .count();
  c->totals.bytes = c->input.text.size();
  // The rows, for the stages after the scan: they read the bytes where the
  // spans point.
  const Batch rows{c->input.text.data(), nullptr, c->spans.size()};
  // mimalloc heaps belong to the thread that made them: one arena per
  // worker thread, reused chunk after chunk.
  thread_local NormalizedBatch normalized;
  const bool want_risks =
      opt.command == Command::kAudit || opt.command == Command::kStats ||
      (opt.command == Command::kParse && opt.format == Format::kJsonl);
  if (want_risks) RiskFlags(rows, c->spans, &c->risk_column);
  // resolve: every row at once, most of them by ResolveBatch's fast path
  // (a path with no dot segment is the base's prefix plus its own bytes).
  thread_local ResolvedBatch resolved;
  if (opt.command == Command::kResolve) {
    thread_local std::vector<uint32_t> offsets;  // row i from uri_begin[i]
    offsets.assign(c->spans.uri_begin.begin(), c->spans.uri_begin.end());
    offsets.push_back(c->spans.size() ? c->spans.uri_end[c->spans.size() - 1]
                                      : 0);
    const Batch refs{c->input.text.data(), offsets.data(), c->spans.size()};
    ResolveBatch(opt.base, refs, c->spans, opt.resolve, false, &resolved);
  }
  thread_local DerivedRows derived;  // parse --columns
  if (columns) columns->Prepare(rows, c->spans, &derived);
  if (opt.command == Command::kNormalize) {
    NormalizeBatch(rows, c->spans, opt.profile, &normalized,
                   opt.normalize);
  } else if (opt.command == Command::kDedup) {
    fingerprinter.Batch64(rows, c->spans, &c->keys);
  }
  c->rows = c->spans.size();
  const char* data = c->input.text.data();
  if (opt.command == Command::kValidate && !c->too_long_line &&
      !AnyLongerThan(c->spans, opt.max_line)) {
    // validate writes only diagnostics: count the columns, then visit the
    // invalid rows alone.
    CountColumns(c->spans, &c->totals);
    for (size_t i = 0; i < c->spans.size(); ++i) {
      if (c->spans.error_kind[i] == 0) continue;
      const ScanError e = c->spans.Error(i);
      c->diagnostics.push_back({i, e.offset + uint64_t{1},
                                ErrorKindName(e.kind),
                                ErrorKindMessage(e.kind)});
    }
    return;
  }
  for (size_t i = 0; i < c->spans.size(); ++i) {
    UriReference uri = c->spans.Row(i, data);
    // Over-long lines are errors whether or not they fit in a chunk, so the
    // result never depends on how the input was read.
    if (c->too_long_line || uri.text().size() > opt.max_line) {
      uri = UriReference(uri.text(), Boundaries{}, 0,
                         {ErrorKind::kTooLong,
                          static_cast<uint32_t>(opt.max_line)});
    }
    Count(uri, &c->totals);
    const uint32_t risk_flags =
        !want_risks ? 0 : uri.valid() ? c->risk_column[i] : risks::kInvalid;
    CountRisks(risk_flags, &c->totals);
    const bool transform = opt.command == Command::kNormalize ||
                           opt.command == Command::kResolve;
    // A diagnostic's column, kind and message: the parse error, or a
    // resolution the options refuse.
    bool bad = !uri.valid();
    uint64_t column = uri.error().offset + uint64_t{1};
    std::string_view kind = ErrorKindName(uri.error().kind);
    std::string_view message = ErrorKindMessage(uri.error().kind);
    const size_t out_before = c->out.size();
    if (!bad && opt.command == Command::kResolve) {
      const ResolveStatus rs = resolved.status[i];
      if (rs == ResolveStatus::kOk) {
        c->out.append(resolved.Get(i));
      } else if (rs == ResolveStatus::kSameDocument) {
        AppendSameDocument(opt.base, resolved.Get(i), &c->out);
      } else if (rs != ResolveStatus::kOk) {  // only kAboveRoot can be left
        bad = true;
        column = 1;
        kind = ResolveStatusName(rs);
        message = "a \"..\" segment climbs above the root "
                  "(--above-root=reject)";
        ++c->totals.unresolved;
      }
    }
    if (bad && opt.command != Command::kStats)
      c->diagnostics.push_back({i, column, kind, message});
    if (opt.command == Command::kDedup) {  // the rest is on the main thread
      if (bad) c->keys[i] = 0;
      if (bad && opt.on_error == OnError::kFail) {
        c->failed = true;
        c->rows = i;
        break;
      }
    } else if (transform) {
      if (bad) {
        c->out.resize(out_before);
        if (opt.on_error == OnError::kFail) {
          c->failed = true;
          break;
        }
        if (opt.on_error == OnError::kSkip) continue;
        // keep: the line as it was; an over-long one is not held in memory
        // (whatever the chunking), so an empty line stands in for it. The
        // crawler profile's KEY<TAB>ORIGINAL gets an empty KEY, so every
        // line has the same two columns.
        if (opt.command == Command::kNormalize &&
            opt.profile == Profile::kCrawler)
          c->out.push_back('\t');
        if (uri.error().kind != ErrorKind::kTooLong) c->out.append(uri.text());
      } else if (opt.command == Command::kNormalize) {
        const std::string_view normal = normalized.Get(i);
        c->out.append(normal);
        c->totals.rewritten += normal != uri.text();
        if (opt.profile == Profile::kCrawler) {
          c->out.push_back('\t');
          c->out.append(uri.text());
        }
      }
      c->out.push_back('\n');
    } else if (opt.command == Command::kParse) {
      if (opt.format == Format::kJsonl) {
        AppendJsonRecord(uri, &c->out, risk_flags);
        if (opt.lenient && !c->originals[i].empty())
          AppendJsonRepaired(c->originals[i], &c->out);
        c->out.push_back('\n');
      } else {
        if (columns) {
          columns->AppendRow(i, c->first_line + i, uri, derived, &c->out);
        } else {
          AppendTsvRecord(c->first_line + i, uri, &c->out);
        }
      }
    } else if (opt.command == Command::kAudit) {
      AppendAuditRecord(c->first_line + i, risk_flags, &c->out);
    }
  }
}

void Add(const Totals& from, Totals* to) {
  to->lines += from.lines;
  to->valid += from.valid;
  to->bytes += from.bytes;
  for (size_t k = 0; k < from.by_error.size(); ++k)
    to->by_error[k] += from.by_error[k];
  for (size_t k = 0; k < from.by_host.size(); ++k)
    to->by_host[k] += from.by_host[k];
  to->scheme += from.scheme;
  to->authority += from.authority;
  to->userinfo += from.userinfo;
  to->port += from.port;
  to->query += from.query;
  to->fragment += from.fragment;
  to->rewritten += from.rewritten;
  to->unresolved += from.unresolved;
  to->flagged += from.flagged;
  to->extracted += from.extracted;
  to->repaired += from.repaired;
  to->boms += from.boms;
  to->malformed += from.malformed;
  for (size_t k = 0; k < from.by_risk.size(); ++k)
    to->by_risk[k] += from.by_risk[k];
  to->scan_seconds += from.scan_seconds;
}

// dedup --state: the run's new classes into the state.
bool CommitState(SeenState* state) {
  std::string error;
  if (state->Commit(&error)) return true;
  std::fprintf(stderr, "uriscan: dedup --state: %s; %s\n", error.c_str(),
               state->published()
                   ? "the state includes this run, but may not be durable"
                   : "the state is as before this run");
  return false;
}

// extract: cuts `lines` back to whole records (a quoted field or a wrapped
// "<...>" may hold line breaks), reading more while not even one is whole.
void TakeWholeRecords(const Options& opt, LineReader* reader, Lines* lines) {
  size_t keep = RecordsEnd(lines->text, opt.extract, reader->at_end());
  size_t want = lines->text.size();
  while (keep == 0 && lines->text.size() < opt.max_line) {
    reader->Unread(lines->text.size());
    want *= 2;  // the next line may be longer than the text so far
    reader->set_min_bytes(want);
    const LineReader::Status st = reader->Next(lines);
    reader->set_min_bytes(0);
    if (st != LineReader::Status::kLines) return;
    keep = RecordsEnd(lines->text, opt.extract, reader->at_end());
  }
  if (keep == 0) return;  // past --max-line: as it is, with a diagnostic
  reader->Unread(lines->text.size() - keep);
  lines->text = lines->text.substr(0, keep);
}

int Run(const Options& opt) {
  const auto start = std::chrono::steady_clock::now();
  Writer out(stdout);
  Writer err(stderr);
  Totals totals;
  Progress progress(!opt.quiet);
  LineReader reader(opt.chunk_bytes, opt.max_line);
  // One thread reads and writes; `threads` workers scan. With one thread the
  // reader does the work itself. Two chunks per worker keep them all busy
  // while the oldest is written; memory is bounded by that window.
  const size_t workers = opt.threads > 1 ? opt.threads : 0;
  const size_t window = workers ? 2 * workers : 1;
  std::vector<Chunk> chunks(window);
  OrderedPool pool(workers, window);
  int status = 0;
  const Fingerprinter fingerprinter(opt.profile, opt.normalize);
  // parse --columns, with libpsl's built-in list unless --psl names one.
  std::unique_ptr<psl_ctx_t, void (*)(psl_ctx_t*)> psl(nullptr, psl_free);
  std::unique_ptr<ColumnWriter> columns;
  if (!opt.columns.empty()) {
    if (!opt.psl_file.empty()) {
      psl.reset(psl_load_file(opt.psl_file.c_str()));
      if (!psl) {
        std::fprintf(stderr, "uriscan: --psl: cannot load '%s'\n",
                     opt.psl_file.c_str());
        return 2;
      }
    }
    columns = std::make_unique<ColumnWriter>(
        opt.columns, psl ? psl.get() : psl_builtin(), fingerprinter,
        opt.profile, opt.normalize);
  }
  if (opt.command == Command::kParse && opt.format == Format::kTsv) {
    if (columns) {
      columns->AppendHeader(&out.buffer());
    } else {
      AppendTsvHeader(&out.buffer());
    }
  }
  std::unique_ptr<DedupSink> dedup;
  std::unique_ptr<SeenState> state;  // dedup --state
  if (opt.command == Command::kDedup && !opt.state_dir.empty()) {
    state = OpenDedupState(opt.state_dir, fingerprinter, opt.normalize);
    if (!state) return 2;
  }
  if (opt.command == Command::kDedup) {
    // --memory bounds the process: the chunks in flight (their text, batch,
    // spans and keys, about 6 bytes per input byte) come off the top.
    DedupSink::Config config = opt.dedup;
    const size_t in_flight = window * 6 * opt.chunk_bytes;
    config.memory = std::max(config.memory / 4,
                             config.memory > in_flight ? config.memory - in_flight : 0);
    config.state = state.get();
    dedup = std::make_unique<DedupSink>(config);
  }

  bool stopped = false;  // --on-error=fail met an invalid line
  uint64_t lines_written = 0;  // of the current file, by the chunks emitted
  auto emit_oldest = [&] {
    const size_t slot = pool.Next();
    Chunk& c = chunks[slot];
    if (stopped) {  // after the failure: read ahead, never written
      pool.Release(slot);
      return;
    }
    stopped = c.failed;
    if (dedup) {
      for (size_t i = 0; i < c.rows; ++i) {
        if (c.keys[i] == 0 && opt.on_error == OnError::kSkip) continue;
        // An over-long line is not held in memory: an empty line stands in.
        std::string_view line = c.spans.Row(i, c.input.text.data()).text();
        if (c.too_long_line || line.size() > opt.max_line) line = {};
        dedup->Row(c.keys[i], line, &out.buffer());
      }
    }
    out.buffer() += c.out;
    if (c.starts_file) lines_written = 0;
    for (const Diagnostic& d : c.diagnostics) {
      AppendDiagnostic(*c.name, lines_written + d.row + 1, d.column, d.kind,
                       d.message, &err.buffer());
    }
    lines_written += opt.command == Command::kExtract ? c.input_lines
                     : c.too_long_line                 ? 1
                                                       : c.spans.size();
    Add(c.totals, &totals);
    if (dedup) totals.distinct = dedup->distinct();
    pool.Release(slot);
    out.MaybeFlush();
    err.MaybeFlush();
    progress.Update(totals);
  };
  for (const std::string& file : opt.files) {
    if (stopped) break;
    const std::string* name = &file;
    static const std::string kStdin = "<stdin>";
    if (file == "-") name = &kStdin;
    std::string open_error;
    if (!reader.Open(file, &open_error)) {
      while (pool.Pending()) emit_oldest();
      err.Flush();
      std::fprintf(stderr, "uriscan: cannot open '%s': %s\n", file.c_str(),
                   open_error.c_str());
      status = 2;
      continue;
    }
    bool first_chunk = true;
    // Only records that carry their line number need it before the scan:
    // counting the lines is a pass over every byte on this thread.
    const bool numbered_records =
        opt.command == Command::kAudit ||
        (opt.command == Command::kParse && opt.format == Format::kTsv) ||
        (opt.command == Command::kExtract && opt.extract.with_line);
    size_t file_column = 0;  // extract --field=NAME: from the header row
    uint64_t lines_read = 0;
    while (!stopped) {
      if (pool.Full()) emit_oldest();
      if (stopped) break;
      const size_t slot = pool.Acquire();
      Chunk& c = chunks[slot];
      const LineReader::Status st = reader.Next(&c.input);
      if (st == LineReader::Status::kEnd || st == LineReader::Status::kError) {
        pool.Release(slot);
        if (st == LineReader::Status::kError) {
          while (pool.Pending()) emit_oldest();
          err.Flush();
          if (reader.damaged()) {  // DESIGN.md sec. 8
            std::fprintf(stderr, "%s: error: %s\n", name->c_str(),
                         reader.error().c_str());
          } else {
            std::fprintf(stderr,
                       "uriscan: error reading '%s' after line %llu: %s\n",
                       name->c_str(),
                       static_cast<unsigned long long>(
                           first_chunk ? 0 : lines_written),
                       reader.error().c_str());
          }
          status = 2;
        }
        break;
      }
      c.too_long_line = st == LineReader::Status::kTooLongLine;
      c.skip = 0;
      if (opt.command == Command::kExtract && !c.too_long_line) {
        TakeWholeRecords(opt, &reader, &c.input);
        if (first_chunk && opt.header_field) {
          size_t header_end = 0;
          if (!FindColumn(c.input.text, opt.extract, &file_column,
                          &header_end)) {
            pool.Release(slot);
            while (pool.Pending()) emit_oldest();
            err.Flush();
            std::fprintf(stderr,
                         "%s:1:1: error: log-format: no column named '%s' "
                         "in the header row\n",
                         name->c_str(), opt.extract.field_name.c_str());
            status = 2;
            break;
          }
          c.skip = header_end;
        }
        c.column = file_column;
      }
      c.starts_file = first_chunk;
      first_chunk = false;
      c.name = name;
      if (numbered_records) {
        c.first_line = lines_read + 1;
        lines_read += c.too_long_line ? 1 : CountLines(c.input.text);
      }
      pool.Submit(slot, [&] {
        ProcessChunk(opt, fingerprinter, columns.get(), &c);
      });
    }
    totals.boms += reader.dropped_bom();
  }
  while (pool.Pending()) emit_oldest();
  err.Flush();
  if (dedup) {
    std::string error;
    if (!dedup->Finish(&out, &error)) {
      out.Flush();
      std::fprintf(stderr, "uriscan: dedup: %s\n", error.c_str());
      status = 2;
    }
    totals.distinct = dedup->distinct();
  }
  out.Flush();
  progress.Clear();
  if (out.failed()) {
    std::fprintf(stderr, "uriscan: error writing output\n");
    return 2;
  }
  // The state changes only after a whole run (same input, same output when
  // a failed run is repeated), with its output written.
  if (state && status == 0 && !stopped && !CommitState(state.get()))
    status = 2;
  const double wall = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - start)
                          .count();
  if (opt.command == Command::kExtract) {
    if (!opt.quiet)
      std::fprintf(stderr,
                   "uriscan: %llu lines, %llu URI references, %llu malformed\n",
                   static_cast<unsigned long long>(totals.lines),
                   static_cast<unsigned long long>(totals.extracted),
                   static_cast<unsigned long long>(totals.malformed));
  } else if (opt.command == Command::kStats) {
    PrintStats(opt, totals, wall);
    if (WriteStdout("") != 0) return 2;
  } else if (!opt.quiet) {
    PrintSummary(opt, totals, stopped, dedup.get());
  }
  if (status == 0 && opt.command == Command::kValidate &&
      totals.valid != totals.lines) {
    status = 1;
  }
  if (status == 0 && stopped) status = 1;  // --on-error=fail
  return status;
}

}  // namespace
}  // namespace cli
}  // namespace uriscan

int main(int argc, char** argv) {
  uriscan::cli::Options opt;
  const int early = uriscan::cli::ParseOptions(argc, argv, &opt);
  if (early >= 0) return early;
  if (opt.command == uriscan::cli::Command::kState)
    return uriscan::cli::RunStateCommand(opt.files[0], opt.verify,
                                         opt.compact);
  return uriscan::cli::Run(opt);
}
