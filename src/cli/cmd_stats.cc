// SPDX-License-Identifier: MIT
// uriscan stats: the counts the shared pipeline makes, reported on stdout.
#include <string>

#include "src/cli/command_run.h"
#include "src/cli/options.h"
#include "src/cli/report.h"

namespace uriscan {
namespace cli {
namespace {

constexpr char kHelp[] =
    "  stats                       a summary: counts, error kinds, host\n"
    "                              kinds, risk flags, throughput\n";

class StatsRun : public CommandRun {
 public:
  using CommandRun::CommandRun;

  bool WantsRiskFlags() const override { return true; }
  int Report(const Totals& t, bool /*stopped*/, double wall) override {
    PrintStats(opt_, t, wall);
    return WriteStdout("");
  }
};

}  // namespace

const CommandSpec kStatsCommand = {
    "stats", "[OPTIONS] [FILE...]", [] { return std::string(kHelp); }, true,
    false, MakeRun<StatsRun>};

}  // namespace cli
}  // namespace uriscan
