// SPDX-License-Identifier: MIT
// The commands that report on each URI reference as it is written: parse
// (its components, docs/design.md, "The command"), validate, stats and audit (the risks
// of RFC 3986 sec. 7); their options, help and run.
#include <CLI/CLI.hpp>
#include <libpsl.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "src/cli/columns.h"
#include "src/cli/command_run.h"
#include "src/cli/options.h"
#include "src/cli/output.h"
#include "src/cli/report.h"

namespace uriscan {
namespace cli {
namespace {

constexpr char kParseHelp[] =
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
    "      [--psl=FILE]            another Public Suffix List than libpsl's\n";

constexpr char kValidateHelp[] =
    "  validate                    diagnostics for invalid lines only;\n"
    "                              exit 1 if there is any\n";

constexpr char kStatsHelp[] =
    "  stats                       a summary: counts, error kinds, host\n"
    "                              kinds, risk flags, throughput\n";

constexpr char kAuditHelp[] =
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
    "                              port-out-of-range\n";

void AddParseOptions(CLI::App* app, Options* opt) {
  AddValueOption(app, "--format", "jsonl|tsv", [opt](const std::string& v) {
    if (v == "jsonl") opt->format = Format::kJsonl;
    else if (v == "tsv") opt->format = Format::kTsv;
    else throw UsageError(Allowed("--format", "jsonl or tsv", v));
  });
  AddValueOption(app, "--columns", "LIST", [opt](const std::string& v) {
    std::string unknown;
    if (!ParseColumns(v, &opt->columns, &unknown))
      throw UsageError(Allowed("--columns", ColumnNames().c_str(), unknown));
  });
  AddValueOption(app, "--psl", "FILE",
                 [opt](const std::string& v) { opt->psl_file = v; });
  // --columns=key,normalized are under a profile.
  AddProfileOptions(app, opt);
}

int CheckParse(Options* opt) {
  if (!opt->columns.empty() && opt->format != Format::kTsv)
    return Usage("--columns needs --format=tsv");
  return -1;
}

void AddNoOptions(CLI::App*, Options*) {}

// parse --columns: what each chunk derives for all its rows, per worker
// thread (its batches allocate from that thread's heap).
thread_local DerivedRows derived_rows;

// parse: one record per line, JSON Lines with the risk flags, or TSV with
// the line number (and with --columns, the derived columns).
class ParseRun : public CommandRun {
 public:
  explicit ParseRun(const Options& opt)
      : CommandRun(opt), fingerprinter_(opt.profile, opt.normalize) {}

  int Begin(size_t /*window*/, std::string* out) override {
    if (opt_.format == Format::kJsonl) return -1;
    if (opt_.columns.empty()) {
      AppendTsvHeader(out);
      return -1;
    }
    // libpsl's built-in list unless --psl names one.
    if (!opt_.psl_file.empty()) {
      psl_.reset(psl_load_file(opt_.psl_file.c_str()));
      if (!psl_) {
        std::fprintf(stderr, "uriscan: --psl: cannot load '%s'\n",
                     opt_.psl_file.c_str());
        return 2;
      }
    }
    columns_ = std::make_unique<ColumnWriter>(
        opt_.columns, psl_ ? psl_.get() : psl_builtin(), fingerprinter_,
        opt_.profile, opt_.normalize);
    columns_->AppendHeader(out);
    return -1;
  }
  bool NumberedRecords() const override {
    return opt_.format == Format::kTsv;
  }
  bool WantsRiskFlags() const override {
    return opt_.format == Format::kJsonl;
  }
  bool PrepareChunk(const Batch& rows, Chunk* c) override {
    if (columns_) columns_->Prepare(rows, c->spans, &derived_rows);
    return true;
  }
  bool Row(size_t i, const UriReference& uri, uint32_t risk_flags,
           Chunk* c) override {
    if (!uri.valid()) c->Diagnose(i, uri.error());
    if (opt_.format == Format::kJsonl) {
      AppendJsonRecord(uri, &c->out, risk_flags);
      if (opt_.lenient && !c->originals[i].empty())
        AppendJsonRepaired(c->originals[i], &c->out);
      c->out.push_back('\n');
    } else if (columns_) {
      columns_->AppendRow(i, c->first_line + i, uri, derived_rows, &c->out);
    } else {
      AppendTsvRecord(c->first_line + i, uri, &c->out);
    }
    return true;
  }

 private:
  const Fingerprinter fingerprinter_;  // --columns=key,normalized
  std::unique_ptr<psl_ctx_t, void (*)(psl_ctx_t*)> psl_{nullptr, psl_free};
  std::unique_ptr<ColumnWriter> columns_;  // --columns
};

// True when some row of `s` is longer than max_line bytes.
bool AnyLongerThan(const ComponentSpans& s, size_t max_line) {
  uint32_t longest = 0;
  for (size_t i = 0; i < s.size(); ++i)
    longest = std::max(longest, s.uri_end[i] - s.uri_begin[i]);
  return longest > max_line;
}

// validate: diagnostics only, and exit 1 when any line is invalid.
class ValidateRun : public CommandRun {
 public:
  using CommandRun::CommandRun;

  // With no over-long row, the columns are counted at once and only the
  // invalid rows are visited, without a UriReference per row.
  bool PrepareChunk(const Batch& /*rows*/, Chunk* c) override {
    if (c->too_long_line || AnyLongerThan(c->spans, opt_.max_line))
      return true;
    CountColumns(c->spans, &c->totals);
    for (size_t i = 0; i < c->spans.size(); ++i) {
      if (c->spans.error_kind[i] == 0) continue;
      c->Diagnose(i, c->spans.Error(i));
    }
    return false;
  }
  bool Row(size_t i, const UriReference& uri, uint32_t /*risk_flags*/,
           Chunk* c) override {
    if (!uri.valid()) c->Diagnose(i, uri.error());
    return true;
  }
  int Report(const Totals& t, bool stopped, double wall) override {
    CommandRun::Report(t, stopped, wall);
    return t.valid != t.lines ? 1 : 0;
  }
};

// stats: only the counts (the shared pipeline's), reported on stdout.
class StatsRun : public CommandRun {
 public:
  using CommandRun::CommandRun;

  bool WantsRiskFlags() const override { return true; }
  int Report(const Totals& t, bool /*stopped*/, double wall) override {
    PrintStats(opt_, t, wall);
    return WriteStdout("");
  }
};

// audit: LINE<TAB>FLAGS per line, the risks of RFC 3986 sec. 7.
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
};

}  // namespace

const CommandSpec kParseCommand = {"parse", Command::kParse, kParseHelp,
                                   AddParseOptions, CheckParse,
                                   MakeRun<ParseRun>};
const CommandSpec kValidateCommand = {"validate", Command::kValidate,
                                      kValidateHelp, AddNoOptions, nullptr,
                                      MakeRun<ValidateRun>};
const CommandSpec kStatsCommand = {"stats", Command::kStats, kStatsHelp,
                                   AddNoOptions, nullptr, MakeRun<StatsRun>};
const CommandSpec kAuditCommand = {"audit", Command::kAudit, kAuditHelp,
                                   AddNoOptions, nullptr, MakeRun<AuditRun>};

}  // namespace cli
}  // namespace uriscan
