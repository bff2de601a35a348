// SPDX-License-Identifier: MIT
// uriscan stats: the counts the shared pipeline makes, reported on stdout;
// with --from=clf|combined, of the request-targets of a server log.
#include <string>
#include <vector>

#include "src/cli/command_run.h"
#include "src/cli/extract.h"
#include "src/cli/options.h"
#include "src/cli/report.h"

namespace uriscan {
namespace cli {
namespace {

constexpr char kHelp[] =
    "  stats                       a summary: counts, error kinds, host\n"
    "                              kinds, risk flags, throughput\n"
    "      [--from=F]              clf or combined: of the request-targets\n"
    "                              of a web server log, and its lines by\n"
    "                              kind\n"
    "      [--field=X]             combined: target (default) or referer\n"
    "      [--base=URI]            clf, combined: targets resolved against\n"
    "                              URI first, as extract does\n";

class StatsRun : public CommandRun {
 public:
  using CommandRun::CommandRun;

  void AddOptions(CLI::App* app) override {
    AddValueOption(app, "--from", "F", [this](const std::string& v) {
      if (!ParseLogFormat(v, &log_.from) ||
          (log_.from != LogFormat::kClf && log_.from != LogFormat::kCombined))
        throw UsageError(Allowed("--from", "clf or combined", v));
      from_ = v;
    });
    AddValueOption(app, "--field", "X", [this](const std::string& v) {
      if (v != "target" && v != "referer")
        throw UsageError(Allowed("--field", "target or referer", v));
      field_ = v;
    });
    AddBaseOption(app, &base_);
  }
  int Check() override {
    if ((!field_.empty() || base_.given) && from_.empty())
      return Usage("--field and --base need --from=clf or --from=combined");
    log_.referer = field_ == "referer";
    if (log_.referer && log_.from == LogFormat::kClf)
      return Usage("--field=referer needs --from=combined (the Common Log "
                   "Format has no Referer)");
    if (!base_.given) return -1;
    if (log_.referer)
      return Usage("--base applies to request targets, not to "
                   "--field=referer");
    const int status = CheckBase(&base_);
    if (status >= 0) return status;
    log_.base = &base_.uri;
    return -1;
  }
  int Begin(size_t window, std::string* /*out*/) override {
    targets_.resize(window);
    return -1;
  }
  bool WantsRiskFlags() const override { return true; }
  // It keeps only totals: a chunk is taken 4096 rows at a time (see
  // validate). Not a log's: what extraction keeps per log line is bounded
  // by the reader's cap on a chunk's lines.
  size_t SegmentRows() const override { return from_.empty() ? 4096 : 0; }
  void ProcessChunk(Chunk* c) override;
  int Report(const Totals& t, bool /*stopped*/, double wall) override {
    PrintStats(opt_, t, wall,
               from_.empty() || !log_.referer ? from_ : from_ + ", referers");
    return WriteStdout("");
  }

 private:
  ExtractOptions log_;
  std::string from_;  // --from, or empty
  std::string field_;  // --field, or empty
  BaseOption base_;
  std::vector<std::string> targets_;  // per slot: what the log's lines give
};

// With --from, the references `extract --from=F` would write are scanned
// and counted, and the log's lines beside them; a line `extract` reports
// counts as malformed.
void StatsRun::ProcessChunk(Chunk* c) {
  if (from_.empty()) return CommandRun::ProcessChunk(c);
  Totals log;
  if (c->too_long_line) {
    log.log_lines = log.malformed = 1;
    c->rows = 0;
  } else {
    thread_local std::string kept;
    thread_local std::vector<uint64_t> long_lines;
    thread_local std::vector<ExtractProblem> problems;
    problems.clear();
    std::string& targets = targets_[c->slot];
    targets.clear();
    const ExtractCounts counts = Extract(
        WithoutLongLines(c->input.text, opt_.max_line, &kept, &long_lines),
        log_, 0, &targets, &problems);
    log.log_lines = CountLines(c->input.text);
    log.malformed = long_lines.size() + problems.size();
    log.extracted = counts.references;
    log.no_target = counts.no_target;
    c->input.text = targets;
    CommandRun::ProcessChunk(c);
  }
  c->input_lines = log.log_lines;
  Add(log, &c->totals);
}

}  // namespace

const CommandSpec kStatsCommand = {
    "stats", "[OPTIONS] [FILE...]", [] { return std::string(kHelp); }, true,
    false, MakeRun<StatsRun>};

}  // namespace cli
}  // namespace uriscan
