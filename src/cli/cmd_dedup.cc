// SPDX-License-Identifier: MIT
// dedup (the first line of each class, exact or by a Bloom filter, with a
// seen-set kept across runs, DESIGN.md sec. 11) and state (a report on such
// a seen-set); their options, help and checks.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "src/cli/options.h"

namespace uriscan {
namespace cli {
namespace {

constexpr char kDedupHelp[] =
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
    "                              keeps one profile: another is an error\n";

constexpr char kStateHelp[] =
    "  state DIR [--verify]        a state's profile, keys, bytes on disk and\n"
    "      [--compact]             runs; --verify decodes every run and checks\n"
    "                              its checksum (exit 2 when damaged);\n"
    "                              --compact first merges all runs into one\n";

void AddDedupOptions(CLI::App* app, Options* opt) {
  AddProfileOptions(app, opt);
  AddOnErrorOption(app, opt);
  AddFlag(app, "--keys", [opt] { opt->dedup.keys = true; });
  AddValueOption(app, "--memory", "SIZE", [opt](const std::string& v) {
    if (!ParseBytes(v.c_str(), &opt->dedup.memory))
      throw UsageError("--memory takes a size such as 1500000, 64M or 4G");
  });
  AddValueOption(app, "--temp-dir", "DIR",
                 [opt](const std::string& v) { opt->dedup.temp_dir = v; });
  AddValueOption(app, "--bloom", "N", [opt](const std::string& v) {
    size_t n = 0;
    if (!ParseBytes(v.c_str(), &n))
      throw UsageError("--bloom takes the expected count of distinct lines");
    opt->dedup.bloom_expected = n;
  });
  AddValueOption(app, "--fp-rate", "P", [opt](const std::string& v) {
    char* end = nullptr;
    opt->dedup.fp_rate = std::strtod(v.c_str(), &end);
    if (end == v.c_str() || *end != '\0' || !(opt->dedup.fp_rate > 0) ||
        !(opt->dedup.fp_rate < 1))
      throw UsageError("--fp-rate takes a probability between 0 and 1");
  });
  AddValueOption(app, "--state", "DIR", [opt](const std::string& v) {
    if (v.empty()) throw UsageError("--state takes a directory");
    opt->state_dir = v;
  });
}

int CheckDedup(Options* opt) {
  if (opt->dedup.bloom_expected > 0) {
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
  if (!opt->state_dir.empty() && opt->dedup.bloom_expected > 0)
    return Usage("--state keeps an exact seen-set; it cannot take --bloom");
  return -1;
}

void AddStateOptions(CLI::App* app, Options* opt) {
  AddFlag(app, "--verify", [opt] { opt->verify = true; });
  AddFlag(app, "--compact", [opt] { opt->compact = true; });
}

int CheckState(Options* opt) {
  if (opt->files.size() != 1) return Usage("state takes one directory");
  return -1;
}

}  // namespace

const CommandSpec kDedupCommand = {"dedup", Command::kDedup, kDedupHelp,
                                   AddDedupOptions, CheckDedup};
const CommandSpec kStateCommand = {"state", Command::kState, kStateHelp,
                                   AddStateOptions, CheckState};

}  // namespace cli
}  // namespace uriscan
