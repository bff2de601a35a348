// SPDX-License-Identifier: MIT
// uriscan parse: one record per line with its components (docs/design.md,
// "The command"), as JSON Lines or TSV; its options, help and run.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>
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

constexpr char kHelp[] =
    "  parse [--format=jsonl|tsv]  one record per line with its components;\n"
    "                              jsonl adds \"risks\":[...] (see audit)\n"
    "      [--columns=LIST]        tsv: these columns, in this order, from\n"
    "                              line, valid, scheme, userinfo, host,\n"
    "                              port, path, query, fragment, host_type,\n"
    "                              error and the derived ones:\n"
    "                              registrable_domain, public_suffix (of\n"
    "                              the lower-cased host, by the Public\n"
    "                              Suffix List; \\N for an IP address),\n"
    "                              surt (the Internet Archive surt\n"
    "                              library's key, com,example)/a?b=1),\n"
    "                              key (as dedup --keys under --profile),\n"
    "                              normalized (under --profile),\n"
    "                              surt_crawler (the crawler normal form\n"
    "                              in SURT shape), and for log analytics\n"
    "                              (text escaped as PostgreSQL's COPY):\n"
    "                              raw, at, file, repaired, authority,\n"
    "                              host_nowww, subdomain, extension,\n"
    "                              path_decoded, query_decoded,\n"
    "                              fragment_decoded, path_segments,\n"
    "                              param_names (JSON arrays), param:NAME\n"
    "                              (the first parameter NAME, decoded),\n"
    "                              param_raw:NAME (as written)\n"
    "      [--psl=FILE]            another Public Suffix List than libpsl's\n"
    "      [--no-header]           tsv: no header line (for COPY and cat)\n"
    "      [--decode=utf8|bytes]   the decoded columns: UTF-8 (an escape of\n"
    "                              no UTF-8 character stays as written) or\n"
    "                              the bytes as they are; %00 stays %00\n";

enum class Format { kJsonl, kTsv };

// parse --columns: what each chunk derives for all its rows, per worker
// thread (its batches allocate from that thread's heap).
thread_local DerivedRows derived_rows;

// One record per line, JSON Lines with the risk flags, or TSV with the
// line number (and with --columns, the derived columns).
class ParseRun : public CommandRun {
 public:
  using CommandRun::CommandRun;

  void AddOptions(CLI::App* app) override {
    AddValueOption(app, "--format", "jsonl|tsv", [this](const std::string& v) {
      if (v == "jsonl") format_ = Format::kJsonl;
      else if (v == "tsv") format_ = Format::kTsv;
      else throw UsageError(Allowed("--format", "jsonl or tsv", v));
    });
    AddValueOption(app, "--columns", "LIST", [this](const std::string& v) {
      std::string unknown;
      if (!ParseColumns(v, &columns_, &unknown))
        throw UsageError(Allowed("--columns", ColumnNames().c_str(), unknown));
    });
    AddFlag(app, "--no-header", [this] { header_ = false; });
    AddDecodeOption(app, &decode_);
    AddValueOption(app, "--psl", "FILE",
                   [this](const std::string& v) { psl_file_ = v; });
    // --columns=key,normalized are under a profile.
    AddProfileOptions(app, &profile_);
  }
  int Check() override {
    if (!columns_.empty() && format_ != Format::kTsv)
      return Usage("--columns needs --format=tsv");
    if (!header_ && format_ != Format::kTsv)
      return Usage("--no-header needs --format=tsv");
    // The surt_crawler column is of the crawler profile whatever --profile
    // says (--profile gives key and normalized).
    const bool surt_crawler =
        std::find(columns_.begin(), columns_.end(), Column::kSurtCrawler) !=
        columns_.end();
    return CheckProfileOptions(profile_, surt_crawler);
  }

  int Begin(size_t /*window*/, std::string* out) override {
    if (format_ == Format::kJsonl) return -1;
    if (columns_.empty()) {
      if (header_) AppendTsvHeader(out);
      return -1;
    }
    // libpsl's built-in list unless --psl names one.
    const int status = setup_.Begin(columns_, psl_file_, profile_.profile,
                                    profile_.normalize, decode_);
    if (status >= 0) return status;
    writer_ = setup_.writer();
    if (header_) writer_->AppendHeader(out);
    return -1;
  }
  bool NumberedRecords() const override { return format_ == Format::kTsv; }
  bool WantsRiskFlags() const override { return format_ == Format::kJsonl; }
  bool PrepareChunk(const Batch& rows, Chunk* c) override {
    if (writer_) {
      writer_->Prepare(rows, c->spans, &derived_rows);
      if (!WholeChunk(*c, true)) return true;
      // Each row's cells from the columns, no UriReference or Row() call.
      CountWholeChunk(c);
      for (size_t i = 0; i < c->spans.size(); ++i) {
        RowContext row = RowOf(i, *c);
        row.out_parts = &c->out_parts;
        writer_->AppendRow(i, row, SpanRow(c->spans, rows.data, i),
                           derived_rows, &c->out);
      }
      return false;
    }
    // The default records straight from the columns (records.h); the
    // JSON record of a line --lenient repaired carries the original.
    if (!WholeChunk(*c, format_ == Format::kTsv)) return true;
    CountWholeChunk(c);
    if (format_ == Format::kTsv) {
      AppendTsvRecords(c->spans, rows.data, 0, c->spans.size(), c->first_line,
                       &c->out);
    } else {
      AppendJsonRecords(c->spans, rows.data, c->risk_column.data(), 0,
                        c->spans.size(), &c->out);
    }
    return false;
  }
  bool Row(size_t i, const UriReference& uri, uint32_t risk_flags,
           Chunk* c) override {
    if (!uri.valid()) c->Diagnose(i, uri.error());
    if (format_ == Format::kJsonl) {
      AppendJsonRecord(uri, &c->out, risk_flags);
      if (c->Repaired(i)) AppendJsonRepaired(c->originals[i], &c->out);
      c->out.push_back('\n');
    } else if (writer_) {
      RowContext row = RowOf(i, *c);
      row.out_parts = &c->out_parts;
      writer_->AppendRow(i, row, uri, derived_rows, &c->out);
    } else {
      AppendTsvRecord(c->first_line + i, uri, &c->out);
    }
    return true;
  }

 private:
  Format format_ = Format::kJsonl;
  bool header_ = true;           // --no-header drops it
  std::vector<ColumnChoice> columns_;  // --columns
  std::string psl_file_;         // --psl
  ProfileOptions profile_;       // --columns=key,normalized
  ColumnSetup setup_;
  const ColumnWriter* writer_ = nullptr;  // --columns
  DecodedBytes decode_ = DecodedBytes::kUtf8;  // --decode
};

}  // namespace

const CommandSpec kParseCommand = {
    "parse", "[OPTIONS] [FILE...]", [] { return std::string(kHelp); }, true,
    false, MakeRun<ParseRun>};

}  // namespace cli
}  // namespace uriscan
