// SPDX-License-Identifier: MIT
// uriscan extract: the URI references in logs and free text (DESIGN.md
// sec. 8), its options, their checks and its run.
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

namespace uriscan {
namespace cli {
namespace {

constexpr char kHelp[] =
    "  extract [--from=F]          the URI references in the input, one per\n"
    "                              line, as written; F is text (default:\n"
    "                              RFC 3986 Appendix C), clf or combined\n"
    "                              (web server logs), tsv or csv (RFC 4180),\n"
    "                              jsonl\n"
    "      [--field=X]             clf, combined: target (default) or\n"
    "                              referer; tsv, csv: a column number (from\n"
    "                              1, default 1) or a name in the header row;\n"
    "                              jsonl: a top-level key (required)\n"
    "      [--base=URI]            clf, combined: resolve targets against URI\n"
    "      [--with-line]           each reference as LINE<TAB>REFERENCE\n";

void AddOptions(CLI::App* app, Options* opt) {
  AddValueOption(app, "--from", "F", [opt](const std::string& v) {
    if (!ParseLogFormat(v, &opt->extract.from))
      throw UsageError(
          Allowed("--from", "text, clf, combined, tsv, csv or jsonl", v));
  });
  AddValueOption(app, "--field", "X", [opt](const std::string& v) {
    if (v.empty()) throw UsageError("--field takes a name or number");
    opt->field = v;
  });
  AddValueOption(app, "--base", "URI", [opt](const std::string& v) {
    opt->has_base = true;
    opt->base_text = v;
  });
  AddFlag(app, "--with-line",
                         [opt] { opt->extract.with_line = true; });
}

// --field and --base for the --from given.
int Check(Options* opt) {
  ExtractOptions& x = opt->extract;
  const std::string& f = opt->field;
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
        const unsigned long n = std::strtoul(f.c_str(), nullptr, 10);
        if (n == 0) return Usage("--field numbers columns from 1");
        x.column = n - 1;
      } else if (!f.empty()) {
        opt->header_field = true;
        x.field_name = f;
      }
      break;
    case LogFormat::kJsonl:
      if (f.empty()) return Usage("--from=jsonl needs --field=KEY");
      x.field_name = f;
      break;
  }
  if (opt->has_base && x.from != LogFormat::kClf &&
      x.from != LogFormat::kCombined)
    return Usage("--base applies to --from=clf or --from=combined");
  if (opt->has_base && x.referer)
    return Usage("--base applies to request targets, not to --field=referer");
  if (!opt->has_base) return -1;
  const int status = CheckBase(opt);
  if (status >= 0) return status;
  x.base = &opt->base;
  return -1;
}

// extract reads records, not lines (a quoted field or a wrapped "<...>"
// may hold line breaks): its chunks are whole records, and not scanned.
class ExtractRun : public CommandRun {
 public:
  using CommandRun::CommandRun;

  bool NumberedRecords() const override { return opt_.extract.with_line; }
  bool TakeRecords(LineReader* reader, Chunk* c, std::string* error) override {
    c->skip = 0;
    if (c->starts_file) file_column_ = 0;
    if (c->too_long_line) return true;
    TakeWholeRecords(reader, &c->input);
    if (c->starts_file && opt_.header_field) {
      size_t header_end = 0;
      if (!FindColumn(c->input.text, opt_.extract, &file_column_,
                      &header_end)) {
        *error = *c->name + ":1:1: error: log-format: no column named '" +
                 opt_.extract.field_name + "' in the header row\n";
        return false;
      }
      c->skip = header_end;
    }
    c->column = file_column_;
    return true;
  }
  void ProcessChunk(Chunk* c) override;
  int Report(const Totals& t, bool /*stopped*/, double /*wall*/) override {
    if (!opt_.quiet)
      std::fprintf(stderr,
                   "uriscan: %llu lines, %llu URI references, %llu malformed\n",
                   static_cast<unsigned long long>(t.lines),
                   static_cast<unsigned long long>(t.extracted),
                   static_cast<unsigned long long>(t.malformed));
    return 0;
  }

 private:
  // Cuts `lines` back to whole records, reading more while not even one is
  // whole.
  void TakeWholeRecords(LineReader* reader, Lines* lines) const;

  size_t file_column_ = 0;  // --field=NAME: from the file's header row
};

void ExtractRun::TakeWholeRecords(LineReader* reader, Lines* lines) const {
  size_t keep = RecordsEnd(lines->text, opt_.extract, reader->at_end());
  size_t want = lines->text.size();
  while (keep == 0 && lines->text.size() < opt_.max_line) {
    reader->Unread(lines->text.size());
    want *= 2;  // the next line may be longer than the text so far
    reader->set_min_bytes(want);
    const LineReader::Status st = reader->Next(lines);
    reader->set_min_bytes(0);
    if (st != LineReader::Status::kLines) return;
    keep = RecordsEnd(lines->text, opt_.extract, reader->at_end());
  }
  if (keep == 0) return;  // past --max-line: as it is, with a diagnostic
  reader->Unread(lines->text.size() - keep);
  lines->text = lines->text.substr(0, keep);
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
  ExtractOptions x = opt_.extract;
  x.column = opt_.header_field ? c->column : x.column;
  const std::string_view header = c->input.text.substr(0, c->skip);
  const uint64_t header_lines = std::count(header.begin(), header.end(), '\n');
  // Lines longer than --max-line are diagnosed and left empty, whether or
  // not they fit in a chunk, so the output never depends on the chunking.
  std::string_view text = c->input.text.substr(c->skip);
  thread_local std::string trimmed;
  // (No line is longer than --max-line unless the whole text is.)
  for (size_t pos = 0, line = 0;
       text.size() > opt_.max_line && pos < text.size(); ++line) {
    const size_t nl = std::min(text.find('\n', pos), text.size());
    if (nl - pos > opt_.max_line) {
      if (text.data() != trimmed.data()) {
        trimmed.assign(text);
        text = trimmed;
      }
      trimmed.erase(pos, nl - pos);
      text = trimmed;
      c->diagnostics.push_back({header_lines + line, opt_.max_line + 1,
                                ErrorKindName(ErrorKind::kTooLong),
                                ErrorKindMessage(ErrorKind::kTooLong)});
      ++c->totals.malformed;
      pos += 1;
      continue;
    }
    pos = nl + 1;
  }
  thread_local std::vector<ExtractProblem> problems;
  problems.clear();
  c->totals.extracted =
      Extract(text, x, c->first_line + header_lines, &c->out, &problems);
  for (const ExtractProblem& p : problems)
    c->diagnostics.push_back({header_lines + p.line, p.column, p.kind,
                              p.message});
  c->totals.malformed += problems.size();
}

}  // namespace

const CommandSpec kExtractCommand = {"extract", Command::kExtract, kHelp,
                                     AddOptions, Check, MakeRun<ExtractRun>};

}  // namespace cli
}  // namespace uriscan
