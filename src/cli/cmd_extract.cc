// SPDX-License-Identifier: MIT
// uriscan extract: the URI references in logs and free text
// (docs/design.md, "Input"), its options, their checks and its run.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "src/cli/columns.h"
#include "src/cli/command_run.h"
#include "src/cli/ingest.h"
#include "src/cli/options.h"
#include "src/cli/report.h"

namespace uriscan {
namespace cli {
namespace {

constexpr char kHelp[] =
    "  extract [--from=F]          the URI references in the input, one per\n"
    "                              line, as written (a log's escapes such as\n"
    "                              \\x22 undone); F is text (default:\n"
    "                              RFC 3986 Appendix C), clf or combined\n"
    "                              (web server logs), tsv or csv (RFC 4180),\n"
    "                              jsonl\n"
    "      [--field=X]             clf, combined: target (default) or\n"
    "                              referer; tsv, csv: a column number (from\n"
    "                              1, default 1) or a name in the header row;\n"
    "                              jsonl: a top-level key (required)\n"
    "      [--base=URI]            clf, combined: resolve targets against URI\n"
    "      [--with-line]           each reference as LINE<TAB>REFERENCE\n"
    "      [--columns=LIST]        each reference as a TSV row of these\n"
    "                              columns: line (of the input), uri and,\n"
    "                              for clf and combined, client, time (UTC),\n"
    "                              method, status, bytes; for combined also\n"
    "                              referer, user_agent (\\N where the line\n"
    "                              has none); and any column of parse\n"
    "                              --columns, of the reference\n"
    "      [--profile=P] [--psl=FILE] [--decode=utf8|bytes]\n"
    "                              as parse takes them, for those columns\n";

// Microseconds since the epoch as "YYYY-MM-DD HH:MM:SS" (UTC; the text of
// a SQL TIMESTAMP): the proleptic Gregorian date of a day count (eras of
// 400 years, years counted from March).
void AppendUtcTime(int64_t micros, std::string* out) {
  int64_t seconds = micros / 1000000;
  if (micros % 1000000 < 0) --seconds;
  int64_t days = seconds / 86400, rest = seconds % 86400;
  if (rest < 0) {
    rest += 86400;
    --days;
  }
  const int64_t z = days + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t day = doy - (153 * mp + 2) / 5 + 1;
  const int64_t month = mp < 10 ? mp + 3 : mp - 9;
  const int64_t year = yoe + era * 400 + (month <= 2);
  char text[128];  // (room for any int64_t in each field)
  std::snprintf(text, sizeof(text), "%04lld-%02lld-%02lld %02lld:%02lld:%02lld",
                static_cast<long long>(year), static_cast<long long>(month),
                static_cast<long long>(day),
                static_cast<long long>(rest / 3600),
                static_cast<long long>(rest / 60 % 60),
                static_cast<long long>(rest % 60));
  out->append(text);
}

// extract reads records, not lines (a quoted field or a wrapped "<...>"
// may hold line breaks): its chunks are whole records, and not scanned.
class ExtractRun : public CommandRun {
 public:
  using CommandRun::CommandRun;

  void AddOptions(CLI::App* app) override;
  int Check() override;

  int Begin(size_t window, std::string* /*out*/) override {
    records_.resize(window);
    if (parsed_.empty()) return -1;
    // libpsl's built-in list unless --psl names one.
    const int status = setup_.Begin(parsed_, psl_file_, profile_.profile,
                                    profile_.normalize, decode_);
    if (status >= 0) return status;
    writer_ = setup_.writer();
    return -1;
  }
  bool NumberedRecords() const override { return extract_.with_line; }
  void Follow(LineReader* reader) override { cutter_.Follow(reader); }
  bool TakeRecords(LineReader* reader, Chunk* c, std::string* error) override;
  bool EmptyFile(const std::string& name, std::string* error) override {
    const std::string e = cutter_.EmptyFileError();
    if (e.empty()) return true;
    *error = name + ":1:1: error: log-format: " + e + "\n";
    return false;
  }
  void ProcessChunk(Chunk* c) override;
  int Report(const Totals& t, bool /*stopped*/, double /*wall*/) override {
    if (!opt_.quiet)
      std::fprintf(stderr,
                   "uriscan: %llu lines, %llu URI references, %llu "
                   "malformed%s%s\n",
                   static_cast<unsigned long long>(t.lines),
                   static_cast<unsigned long long>(t.extracted),
                   static_cast<unsigned long long>(t.malformed),
                   NoTargetSummary(t).c_str(), HeldBack(opt_, t).c_str());
    return 0;
  }

 private:
  using Records = RecordInfo;

  // --columns: extract's own, then kParsed for each of parse's (the next
  // cell of the ColumnWriter's row, in the order given).
  enum Column {
    kLine, kUri, kClient, kTime, kMethod, kStatus, kBytes, kReferer,
    kUserAgent, kParsed
  };
  static constexpr size_t kColumnCount = 9;
  static constexpr const char* kColumnNames[kColumnCount] = {
      "line", "uri", "client", "time", "method", "status", "bytes", "referer",
      "user_agent"};
  // The references of `lines` ("LINE\tREFERENCE\n" each) as --columns
  // rows, fields[k] the log fields of reference k; `file` names the input.
  void AppendRows(std::string_view lines,
                  const std::vector<ingest::LogFields>& fields,
                  std::string_view file, std::string* out) const;

  friend std::unique_ptr<CommandRun> cli::MakeExtractor(
      const Options&, const std::string&, const std::string&,
      const BaseOption&, int*,
      std::function<ingest::LogLineVisitor*(size_t)>);

  ExtractOptions extract_;
  std::string field_;          // --field, as given
  bool header_field_ = false;  // --field=NAME for tsv, csv
  BaseOption base_;            // --base
  RecordCutter cutter_{extract_, 0};  // set up by Check()
  std::vector<Column> columns_;  // --columns
  bool fields_ = false;          // ... names a field of the log
  std::vector<ColumnChoice> parsed_;  // ... names columns of parse's
  std::string psl_file_;              // --psl
  ProfileOptions profile_;            // --profile and the rest
  DecodedBytes decode_ = DecodedBytes::kUtf8;  // --decode
  ColumnSetup setup_;
  const ColumnWriter* writer_ = nullptr;  // of parsed_
  std::vector<Records> records_;  // per slot
  // stats --from: what a chunk's log lines are told to, by slot.
  std::function<ingest::LogLineVisitor*(size_t)> visitor_;
};

void ExtractRun::AddOptions(CLI::App* app) {
  AddValueOption(app, "--from", "F", [this](const std::string& v) {
    if (!ParseLogFormat(v, &extract_.from))
      throw UsageError(
          Allowed("--from", "text, clf, combined, tsv, csv or jsonl", v));
  });
  AddValueOption(app, "--field", "X", [this](const std::string& v) {
    if (v.empty()) throw UsageError("--field takes a name or number");
    field_ = v;
  });
  AddBaseOption(app, &base_);
  AddFlag(app, "--with-line", [this] { extract_.with_line = true; });
  AddValueOption(app, "--columns", "LIST", [this](const std::string& v) {
    columns_.clear();
    parsed_.clear();
    for (size_t pos = 0; pos <= v.size();) {
      const size_t comma = std::min(v.find(',', pos), v.size());
      const std::string name = v.substr(pos, comma - pos);
      size_t k = 0;
      while (k < kColumnCount && name != kColumnNames[k]) ++k;
      std::vector<ColumnChoice> one;
      std::string unknown;
      if (k < kColumnCount) {
        columns_.push_back(static_cast<Column>(k));
      } else if (ParseColumns(name, &one, &unknown)) {
        columns_.push_back(kParsed);
        parsed_.push_back(one[0]);
      } else {
        throw UsageError(Allowed(
            "--columns",
            ("a list of line, uri, client, time, method, status, bytes, "
             "referer, user_agent, or of parse's: " + ColumnNames())
                .c_str(),
            name));
      }
      pos = comma + 1;
    }
  });
  AddValueOption(app, "--psl", "FILE",
                 [this](const std::string& v) { psl_file_ = v; });
  AddDecodeOption(app, &decode_);
  AddProfileOptions(app, &profile_);
}

// --field and --base for the --from given.
int ExtractRun::Check() {
  ExtractOptions& x = extract_;
  x.lenient = opt_.lenient;
  x.max_record = opt_.max_line;
  const std::string& f = field_;
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
        const unsigned long n =
            f.size() > 9 ? 0 : std::strtoul(f.c_str(), nullptr, 10);
        if (n == 0)
          return Usage("--field numbers columns from 1 to 999999999");
        x.column = n - 1;
      } else if (!f.empty()) {
        header_field_ = true;
        x.field_name = f;
      }
      break;
    case LogFormat::kJsonl:
      if (f.empty()) return Usage("--from=jsonl needs --field=KEY");
      x.field_name = f;
      break;
  }
  const bool log = x.from == LogFormat::kClf || x.from == LogFormat::kCombined;
  for (const Column c : columns_) {
    if (c >= Column::kClient && !log)
      return Usage(std::string("--columns=") + kColumnNames[c] +
                   " needs --from=clf or --from=combined");
    if (c >= Column::kReferer && x.from != LogFormat::kCombined)
      return Usage(std::string("--columns=") + kColumnNames[c] +
                   " needs --from=combined");
    fields_ |= c >= Column::kClient;
  }
  if (!columns_.empty()) x.with_line = true;
  const bool surt_crawler =
      std::find(parsed_.begin(), parsed_.end(), cli::Column::kSurtCrawler) !=
      parsed_.end();
  const int profile_status = CheckProfileOptions(profile_, surt_crawler);
  if (profile_status >= 0) return profile_status;
  if (base_.given && x.from != LogFormat::kClf &&
      x.from != LogFormat::kCombined)
    return Usage("--base applies to --from=clf or --from=combined");
  if (base_.given && x.referer)
    return Usage("--base applies to request targets, not to --field=referer");
  cutter_ = RecordCutter(extract_, opt_.max_line);
  cutter_.set_header_field(header_field_);
  if (!base_.given) return -1;
  const int status = CheckBase(&base_);
  if (status >= 0) return status;
  x.base = &base_.uri;
  return -1;
}

bool ExtractRun::TakeRecords(LineReader* reader, Chunk* c,
                             std::string* error) {
  Records& r = records_[c->slot];
  r = RecordInfo{};
  const bool taken =
      c->too_long_line
          ? cutter_.TakeLongLine(reader, c->starts_file, &c->input, &r, error)
          : cutter_.Take(reader, c->starts_file, &c->input, &r, error);
  if (!taken) {
    *error = *c->name + ":1:1: error: log-format: " + *error + "\n";
    return false;
  }
  // A line too long is a run of its own; a record it opens (tsv, csv) is
  // dropped with it.
  c->too_long_line = false;
  c->skipped_lines = r.overlong_lines;
  return true;
}

void ExtractRun::ProcessChunk(Chunk* c) {
  // (A line too long is a record dropped: TakeRecords().)
  c->input_lines = CountLines(c->input.text);
  c->totals.lines = c->input_lines;
  c->totals.bytes = c->input.text.size();
  const Records& r = records_[c->slot];
  if (r.overlong_lines > 0) c->input_lines = c->totals.lines = r.overlong_lines;
  thread_local std::vector<ExtractProblem> problems;
  thread_local std::vector<ingest::LogFields> fields;
  thread_local std::string lines;
  problems.clear();
  fields.clear();
  lines.clear();
  const ExtractCounts counts = ExtractRecords(
      c->input.text, r, extract_, opt_.max_line, c->first_line,
      columns_.empty() ? &c->out : &lines, &problems,
      fields_ ? &fields : nullptr, visitor_ ? visitor_(c->slot) : nullptr);
  if (!columns_.empty()) AppendRows(lines, fields, *c->name, &c->out);
  c->totals.extracted = counts.references;
  c->totals.no_target = counts.no_target;
  for (const ExtractProblem& p : problems)
    c->diagnostics.push_back({p.line, p.column, p.kind, p.message});
  c->totals.malformed += problems.size();
}

void ExtractRun::AppendRows(std::string_view lines,
                            const std::vector<ingest::LogFields>& fields,
                            std::string_view file, std::string* out) const {
  // parse's columns: the references as one batch, scanned and derived at
  // once; row k's cells (TSV text, so never a TAB in one) split apart.
  thread_local std::string refs;
  thread_local std::vector<uint32_t> offsets;
  thread_local ComponentSpans spans;
  thread_local DerivedRows derived;
  thread_local std::string cells;
  thread_local std::vector<std::string_view> cell;
  Batch batch;
  if (writer_) {
    refs.clear();
    offsets.assign(1, 0);
    ingest::ForEachNumbered(lines, [&](std::string_view, std::string_view uri) {
      refs.append(uri);
      offsets.push_back(static_cast<uint32_t>(refs.size()));
    });
    batch = Batch{refs.data(), offsets.data(), offsets.size() - 1};
    Scan(batch, &spans);
    writer_->Prepare(batch, spans, &derived);
  }
  size_t k = 0;
  ingest::ForEachNumbered(lines, [&](std::string_view line,
                                     std::string_view uri) {
    const ingest::LogFields* f = fields_ ? &fields[k] : nullptr;
    if (writer_) {
      RowContext row;
      row.line = std::strtoull(std::string(line).c_str(), nullptr, 10);
      row.file = file;
      row.raw = uri;
      cells.clear();
      writer_->AppendRow(k, row, spans.Row(k, batch.data), derived, &cells,
                         false);
      cell.clear();
      for (size_t at = 0;;) {
        const size_t tab = std::min(cells.find('\t', at), cells.size());
        cell.emplace_back(cells.data() + at, tab - at);
        if (tab == cells.size()) break;
        at = tab + 1;
      }
    }
    size_t next_cell = 0;
    ++k;
    const auto number = [&](int64_t v) {
      if (v < 0) {
        out->append("\\N");
      } else {
        out->append(std::to_string(v));
      }
    };
    const auto text = [&](bool has, const std::string& v) {
      if (has) {
        AppendPgText(v, out);
      } else {
        out->append("\\N");
      }
    };
    for (size_t i = 0; i < columns_.size(); ++i) {
      if (i > 0) out->push_back('\t');
      switch (columns_[i]) {
        case kLine:
          out->append(line);
          break;
        case kUri:
          AppendPgText(uri, out);
          break;
        case kClient:
          text(true, f->client);
          break;
        case kTime:
          if (f->has_time) {
            AppendUtcTime(f->time, out);
          } else {
            out->append("\\N");
          }
          break;
        case kMethod:
          text(!f->method.empty(), f->method);
          break;
        case kStatus:
          number(f->status);
          break;
        case kBytes:
          number(f->bytes);
          break;
        case kReferer:
          text(f->has_referer, f->referer);
          break;
        case kUserAgent:
          text(f->has_user_agent, f->user_agent);
          break;
        case kParsed:
          out->append(cell[next_cell++]);
          break;
      }
    }
    out->push_back('\n');
  });
}

}  // namespace

std::unique_ptr<CommandRun> MakeExtractor(
    const Options& opt, const std::string& from, const std::string& field,
    const BaseOption& base, int* status,
    std::function<ingest::LogLineVisitor*(size_t slot)> visitor) {
  auto run = std::make_unique<ExtractRun>(opt);
  run->visitor_ = std::move(visitor);
  if (!ParseLogFormat(from, &run->extract_.from)) {
    *status = Usage(Allowed("--from", "text, clf, combined, tsv, csv or jsonl",
                            from));
    return nullptr;
  }
  run->field_ = field;
  run->base_ = base;
  *status = run->Check();
  if (*status >= 0) return nullptr;
  // The caller's scan repairs (and counts) what --lenient repairs.
  run->extract_.lenient = false;
  return run;
}

const CommandSpec kExtractCommand = {
    "extract", "[OPTIONS] [FILE...]", [] { return std::string(kHelp); }, true,
    false, MakeRun<ExtractRun>};

}  // namespace cli
}  // namespace uriscan
