// SPDX-License-Identifier: MIT
// uriscan audit: LINE<TAB>FLAGS per line, the risks of RFC 3986 sec. 7
// (docs/design.md, "Risk flags").
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "src/cli/columns.h"
#include "src/cli/command_run.h"
#include "src/cli/options.h"
#include "src/cli/output.h"
#include "src/cli/records.h"

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
  return HelpEntry("  audit", text) +
         HelpEntry("      [--columns=LIST]",
                   "after FLAGS, these columns of parse --columns (raw "
                   "prints the line itself)") +
         HelpEntry("      [--decode=utf8|bytes]",
                   "the decoded columns: UTF-8 (an escape of no UTF-8 "
                   "character stays as written) or the bytes as they are, "
                   "as in parse") +
         HelpEntry("      [--flagged]", "only the lines with a flag");
}

// audit --columns: what each chunk derives for its rows, per worker thread.
thread_local DerivedRows audit_derived;

class AuditRun : public CommandRun {
 public:
  using CommandRun::CommandRun;

  void AddOptions(CLI::App* app) override {
    AddValueOption(app, "--columns", "LIST", [this](const std::string& v) {
      std::string unknown;
      if (!ParseColumns(v, &columns_, &unknown))
        throw UsageError(Allowed("--columns", ColumnNames().c_str(), unknown));
    });
    AddFlag(app, "--flagged", [this] { flagged_only_ = true; });
    AddDecodeOption(app, &decode_);
  }
  int Begin(size_t /*window*/, std::string* /*out*/) override {
    if (columns_.empty()) return -1;
    const int status =
        setup_.Begin(columns_, {}, Profile::kScheme, {}, decode_);
    writer_ = setup_.writer();
    return status;
  }
  bool NumberedRecords() const override { return true; }
  bool WantsRiskFlags() const override { return true; }
  bool PrepareChunk(const Batch& rows, Chunk* c) override {
    if (writer_) {
      writer_->Prepare(rows, c->spans, &audit_derived);
      return true;
    }
    // LINE<TAB>FLAGS straight from the columns (records.h).
    if (!WholeChunk(*c, true)) return true;
    CountWholeChunk(c);
    AppendAuditRecords(c->spans, c->risk_column.data(), 0, c->spans.size(),
                       c->first_line, flagged_only_, &c->out);
    return false;
  }
  bool Row(size_t i, const UriReference& uri, uint32_t risk_flags,
           Chunk* c) override {
    if (!uri.valid()) c->Diagnose(i, uri.error());
    if (flagged_only_ && risk_flags == 0) return true;
    AppendAuditRecord(c->first_line + i, risk_flags, &c->out);
    if (writer_) {
      c->out.back() = '\t';  // the columns go before the line's end
      writer_->AppendRow(i, RowOf(i, *c), uri, audit_derived, &c->out);
    }
    return true;
  }
  std::string SummaryTail(const Totals& t) const override {
    return ", " + std::to_string(t.flagged) + " with risk flags";
  }

 private:
  std::vector<ColumnChoice> columns_;  // --columns
  bool flagged_only_ = false;          // --flagged
  ColumnSetup setup_;
  const ColumnWriter* writer_ = nullptr;
  DecodedBytes decode_ = DecodedBytes::kUtf8;  // --decode
};

}  // namespace

const CommandSpec kAuditCommand = {"audit", "[OPTIONS] [FILE...]", Help, true,
                                   false, MakeRun<AuditRun>};

}  // namespace cli
}  // namespace uriscan
