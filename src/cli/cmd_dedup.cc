// SPDX-License-Identifier: MIT
// dedup (the first line of each class, exact or by a Bloom filter, with a
// seen-set kept across runs, docs/design.md, "The state") and state (a report on such
// a seen-set); their options, help, checks and the run of dedup.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "src/cli/command_run.h"
#include "src/cli/dedup_sink.h"
#include "src/cli/options.h"
#include "src/cli/report.h"
#include "src/cli/state_command.h"

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

// dedup: each row's key (its fingerprint under --profile) on the worker
// threads; the seen-set, which must see the keys in input order, on the
// main thread.
class DedupRun : public CommandRun {
 public:
  explicit DedupRun(const Options& opt)
      : CommandRun(opt), fingerprinter_(opt.profile, opt.normalize) {}

  int Begin(size_t window, std::string* /*out*/) override {
    if (!opt_.state_dir.empty()) {
      state_ = OpenDedupState(opt_.state_dir, fingerprinter_, opt_.normalize);
      if (!state_) return 2;
    }
    // --memory bounds the process: the chunks in flight (their text, batch,
    // spans and keys, about 6 bytes per input byte) come off the top.
    DedupSink::Config config = opt_.dedup;
    const size_t in_flight = window * 6 * opt_.chunk_bytes;
    config.memory = std::max(
        config.memory / 4,
        config.memory > in_flight ? config.memory - in_flight : 0);
    config.state = state_.get();
    sink_ = std::make_unique<DedupSink>(config);
    return -1;
  }
  bool PrepareChunk(const Batch& rows, Chunk* c) override {
    fingerprinter_.Batch64(rows, c->spans, &c->keys);
    return true;
  }
  bool Row(size_t i, const UriReference& uri, uint32_t /*risk_flags*/,
           Chunk* c) override {
    if (uri.valid()) return true;
    c->Diagnose(i, uri.error());
    c->keys[i] = 0;  // echoed, or skipped, by Emit()
    return opt_.on_error != OnError::kFail;
  }
  void Emit(const Chunk& c, std::string* out, Totals* totals) override {
    for (size_t i = 0; i < c.rows; ++i) {
      if (c.keys[i] == 0 && opt_.on_error == OnError::kSkip) continue;
      // An over-long line is not held in memory: an empty line stands in.
      std::string_view line = c.spans.Row(i, c.input.text.data()).text();
      if (c.too_long_line || line.size() > opt_.max_line) line = {};
      sink_->Row(c.keys[i], line, out);
    }
    totals->distinct = sink_->distinct();
  }
  bool Finish(Writer* out, Totals* totals) override {
    std::string error;
    const bool finished = sink_->Finish(out, &error);
    if (!finished) {
      out->Flush();
      std::fprintf(stderr, "uriscan: dedup: %s\n", error.c_str());
    }
    totals->distinct = sink_->distinct();
    return finished;
  }
  // --state: the run's new classes into the state.
  bool Commit() override {
    if (!state_) return true;
    std::string error;
    if (state_->Commit(&error)) return true;
    std::fprintf(stderr, "uriscan: dedup --state: %s; %s\n", error.c_str(),
                 state_->published()
                     ? "the state includes this run, but may not be durable"
                     : "the state is as before this run");
    return false;
  }
  int Report(const Totals& t, bool stopped, double /*wall*/) override {
    if (!opt_.quiet) PrintSummary(opt_, t, stopped, sink_.get());
    return 0;
  }

 private:
  const Fingerprinter fingerprinter_;
  std::unique_ptr<SeenState> state_;  // --state
  std::unique_ptr<DedupSink> sink_;
};

}  // namespace

const CommandSpec kDedupCommand = {"dedup", Command::kDedup, kDedupHelp,
                                   AddDedupOptions, CheckDedup,
                                   MakeRun<DedupRun>};
const CommandSpec kStateCommand = {"state", Command::kState, kStateHelp,
                                   AddStateOptions, CheckState, nullptr};

}  // namespace cli
}  // namespace uriscan
