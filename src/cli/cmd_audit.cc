// SPDX-License-Identifier: MIT
// uriscan audit: LINE<TAB>FLAGS per line, the risks of RFC 3986 sec. 7
// (docs/design.md, "Risk flags").
#include <string>

#include "src/cli/command_run.h"
#include "src/cli/options.h"
#include "src/cli/output.h"

namespace uriscan {
namespace cli {
namespace {

// The help lists the flags from the library's own table of names.
std::string Help() {
  std::string text =
      "LINE<TAB>FLAGS per line: the risks of RFC 3986 section 7, "
      "comma-separated in this order (empty when none; 'invalid' for an "
      "invalid line):";
  for (int bit = 0; bit < risks::kCount; ++bit) {
    text += ' ';
    text += RiskFlagName(bit);
    if (bit + 1 < risks::kCount) text += ',';
  }
  return HelpEntry("  audit", text);
}

class AuditRun : public CommandRun {
 public:
  using CommandRun::CommandRun;

  bool NumberedRecords() const override { return true; }
  bool WantsRiskFlags() const override { return true; }
  bool Row(size_t i, const UriReference& uri, uint32_t risk_flags,
           Chunk* c) override {
    if (!uri.valid()) c->Diagnose(i, uri.error());
    AppendAuditRecord(c->first_line + i, risk_flags, &c->out);
    return true;
  }
  std::string SummaryTail(const Totals& t) const override {
    return ", " + std::to_string(t.flagged) + " with risk flags";
  }
};

}  // namespace

const CommandSpec kAuditCommand = {"audit", "[OPTIONS] [FILE...]", Help, true,
                                   false, MakeRun<AuditRun>};

}  // namespace cli
}  // namespace uriscan
