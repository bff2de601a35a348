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

#include "src/cli/command_run.h"
#include "src/cli/extract.h"
#include "src/cli/input.h"
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
    "      [--with-line]           each reference as LINE<TAB>REFERENCE\n";

// extract reads records, not lines (a quoted field or a wrapped "<...>"
// may hold line breaks): its chunks are whole records, and not scanned.
class ExtractRun : public CommandRun {
 public:
  using CommandRun::CommandRun;

  void AddOptions(CLI::App* app) override;
  int Check() override;

  int Begin(size_t window, std::string* /*out*/) override {
    records_.resize(window);
    return -1;
  }
  bool NumberedRecords() const override { return extract_.with_line; }
  bool TakeRecords(LineReader* reader, Chunk* c, std::string* error) override;
  bool EmptyFile(const std::string& name, std::string* error) override {
    if (!header_field_) return true;
    *error = NoColumn(name);
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
  // A chunk's records: bytes of a header row to step over, and the column
  // the header named.
  struct Records {
    size_t skip = 0;
    size_t column = 0;
    // A tsv or csv record longer than --max-line, skipped: the chunk is
    // that record alone, of this many lines, and its text is empty.
    uint64_t overlong_lines = 0;
  };

  // Cuts `lines` back to whole records, reading more while not even one is
  // whole (up to --max-line). Returns the lines of a tsv or csv record
  // longer than that, read to its end and dropped from `lines`; 0 else.
  uint64_t TakeWholeRecords(LineReader* reader, Lines* lines) const;

  std::string NoColumn(const std::string& name) const {
    return name + ":1:1: error: log-format: no column named '" +
           extract_.field_name + "' in the header row\n";
  }

  friend std::unique_ptr<CommandRun> cli::MakeExtractor(const Options&,
                                                   const std::string&,
                                                   const std::string&,
                                                   const BaseOption&, int*);

  ExtractOptions extract_;
  std::string field_;          // --field, as given
  bool header_field_ = false;  // --field=NAME for tsv, csv
  BaseOption base_;            // --base
  size_t file_column_ = 0;     // --field=NAME: from the file's header row
  std::vector<Records> records_;  // per slot
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
  if (base_.given && x.from != LogFormat::kClf &&
      x.from != LogFormat::kCombined)
    return Usage("--base applies to --from=clf or --from=combined");
  if (base_.given && x.referer)
    return Usage("--base applies to request targets, not to --field=referer");
  if (!base_.given) return -1;
  const int status = CheckBase(&base_);
  if (status >= 0) return status;
  x.base = &base_.uri;
  return -1;
}

bool ExtractRun::TakeRecords(LineReader* reader, Chunk* c,
                             std::string* error) {
  Records& r = records_[c->slot];
  r.skip = 0;
  r.overlong_lines = 0;
  if (c->starts_file) file_column_ = 0;
  if (c->too_long_line) return true;
  r.overlong_lines = TakeWholeRecords(reader, &c->input);
  c->skipped_lines = r.overlong_lines;
  if (r.overlong_lines > 0 && !(c->starts_file && header_field_)) return true;
  if (c->starts_file && header_field_) {
    size_t header_end = 0;
    if (!FindColumn(c->input.text, extract_, &file_column_, &header_end)) {
      *error = NoColumn(*c->name);
      return false;
    }
    r.skip = header_end;
  }
  r.column = file_column_;
  return true;
}

uint64_t ExtractRun::TakeWholeRecords(LineReader* reader,
                                      Lines* lines) const {
  // A record may end a line break after --max-line bytes ("\r\n").
  const size_t most = opt_.max_line + 2;
  size_t keep = RecordsEnd(lines->text, extract_, reader->at_end());
  size_t want = lines->text.size();
  while (keep == 0 && lines->text.size() < most) {
    reader->Unread(lines->text.size());
    // The next line may be longer than the text so far: doubling keeps the
    // reads linear, and below 2 * --max-line.
    want *= 2;
    reader->set_min_bytes(want);
    const LineReader::Status st = reader->Next(lines);
    reader->set_min_bytes(0);
    if (st != LineReader::Status::kLines) return 0;
    keep = RecordsEnd(lines->text, extract_, reader->at_end());
  }
  if (keep > 0) {
    reader->Unread(lines->text.size() - keep);
    lines->text = lines->text.substr(0, keep);
    return 0;
  }
  if (extract_.from != LogFormat::kTsv && extract_.from != LogFormat::kCsv)
    return 0;  // text: an unclosed "<" is no reference; read on
  // The first record is longer than --max-line: read to its end, in pieces
  // of bounded size, and keep nothing of it.
  RecordEnd record(extract_);
  uint64_t lines_skipped = 0;
  bool open_line = false;  // the last piece did not end in "\n"
  for (;;) {
    const std::string_view piece = lines->text;
    open_line = !piece.empty() && piece.back() != '\n';
    const size_t end = record.Feed(piece);
    const size_t used = end == std::string_view::npos ? piece.size() : end;
    lines_skipped += std::count(piece.begin(), piece.begin() + used, '\n');
    if (end != std::string_view::npos) {
      reader->Unread(piece.size() - end);
      break;
    }
    const LineReader::Status st = reader->Next(lines);
    if (st == LineReader::Status::kTooLongLine) ++lines_skipped;
    if (st != LineReader::Status::kLines &&
        st != LineReader::Status::kTooLongLine) {
      lines_skipped += open_line;
      break;
    }
  }
  lines->text = {};
  return std::max<uint64_t>(lines_skipped, 1);
}

void ExtractRun::ProcessChunk(Chunk* c) {
  c->input_lines = c->too_long_line ? 1 : CountLines(c->input.text);
  c->totals.lines = c->input_lines;
  c->totals.bytes = c->input.text.size();
  if (c->too_long_line) {
    c->Diagnose(0, {ErrorKind::kTooLong, static_cast<uint32_t>(opt_.max_line)});
    ++c->totals.malformed;
    return;
  }
  const Records& r = records_[c->slot];
  if (r.overlong_lines > 0) {  // dropped whole (TakeWholeRecords)
    c->input_lines = c->totals.lines = r.overlong_lines;
    c->diagnostics.push_back({0, 1, kLogFormatKind, kOverlongRecord});
    ++c->totals.malformed;
    return;
  }
  ExtractOptions x = extract_;
  x.column = header_field_ ? r.column : x.column;
  const std::string_view header = c->input.text.substr(0, r.skip);
  const uint64_t header_lines = std::count(header.begin(), header.end(), '\n');
  // Lines longer than --max-line are diagnosed and left empty, whether or
  // not they fit in a chunk, so the output never depends on the chunking.
  thread_local std::string kept;
  // In tsv and csv a record with such a line is left out whole, and the
  // quotes read on after it as they were.
  thread_local std::vector<uint64_t> long_lines, long_records;
  long_records.clear();
  const std::string_view text =
      extract_.from == LogFormat::kTsv || extract_.from == LogFormat::kCsv
          ? WithoutLongRecords(c->input.text.substr(r.skip), opt_.max_line,
                               extract_, &kept, &long_lines, &long_records)
          : WithoutLongLines(c->input.text.substr(r.skip), opt_.max_line,
                             &kept, &long_lines);
  for (const uint64_t line : long_lines)
    c->diagnostics.push_back({header_lines + line, opt_.max_line + 1,
                              ErrorKindName(ErrorKind::kTooLong),
                              ErrorKindMessage(ErrorKind::kTooLong)});
  for (const uint64_t line : long_records)
    c->diagnostics.push_back({header_lines + line, 1, kLogFormatKind,
                              kOverlongRecord});
  c->totals.malformed += long_lines.size() + long_records.size();
  thread_local std::vector<ExtractProblem> problems;
  problems.clear();
  const ExtractCounts counts =
      Extract(text, x, c->first_line + header_lines, &c->out, &problems);
  c->totals.extracted = counts.references;
  c->totals.no_target = counts.no_target;
  for (const ExtractProblem& p : problems)
    c->diagnostics.push_back({header_lines + p.line, p.column, p.kind,
                              p.message});
  c->totals.malformed += problems.size();
  // In the order of their lines, as a reader of stderr expects.
  std::stable_sort(c->diagnostics.begin(), c->diagnostics.end(),
                   [](const Diagnostic& a, const Diagnostic& b) {
                     return a.row < b.row;
                   });
}

}  // namespace

std::unique_ptr<CommandRun> MakeExtractor(const Options& opt,
                                          const std::string& from,
                                          const std::string& field,
                                          const BaseOption& base,
                                          int* status) {
  auto run = std::make_unique<ExtractRun>(opt);
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
