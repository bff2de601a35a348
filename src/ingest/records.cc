// SPDX-License-Identifier: MIT
// RecordCutter and ExtractRecords(): whole records and their references.
#include "src/ingest/records.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "uriscan/error.h"
#include "uriscan/spans.h"

namespace uriscan {
namespace ingest {

RecordCutter::RecordCutter(const ExtractOptions& opt, size_t max_line)
    : opt_(opt), max_line_(max_line) {}

std::string RecordCutter::NoColumn() const {
  return "no column named '" + opt_.field_name + "' in the header row";
}

std::string RecordCutter::EmptyFileError() const {
  return header_field_ ? NoColumn() : std::string();
}

bool RecordCutter::Take(LineReader* reader, bool starts_file, Lines* lines,
                        RecordInfo* info, std::string* error) {
  *info = RecordInfo{};
  if (starts_file) file_column_ = 0;
  info->overlong_lines = TakeWholeRecords(reader, lines);
  if (info->overlong_lines > 0 && !(starts_file && header_field_)) return true;
  if (starts_file && header_field_) {
    size_t header_end = 0;
    if (!FindColumn(lines->text, opt_, &file_column_, &header_end)) {
      *error = NoColumn();
      return false;
    }
    info->skip = header_end;
  }
  info->column = file_column_;
  return true;
}

uint64_t RecordCutter::TakeWholeRecords(LineReader* reader,
                                        Lines* lines) const {
  // A record may end a line break after max_line bytes ("\r\n").
  const size_t most = max_line_ + 2;
  size_t keep = RecordsEnd(lines->text, opt_, reader->at_end());
  size_t want = lines->text.size();
  while (keep == 0 && lines->text.size() < most) {
    reader->Unread(lines->text.size());
    // The next line may be longer than the text so far: doubling keeps the
    // reads linear, and below 2 * max_line.
    want *= 2;
    reader->set_min_bytes(want);
    const LineReader::Status st = reader->Next(lines);
    reader->set_min_bytes(0);
    if (st != LineReader::Status::kLines) return 0;
    keep = RecordsEnd(lines->text, opt_, reader->at_end());
  }
  if (keep > 0) {
    reader->Unread(lines->text.size() - keep);
    lines->text = lines->text.substr(0, keep);
    return 0;
  }
  if (opt_.from != LogFormat::kTsv && opt_.from != LogFormat::kCsv)
    return 0;  // text: an unclosed "<" is no reference; read on
  // The first record is longer than max_line: read to its end, in pieces
  // of bounded size, and keep nothing of it.
  RecordEnd record(opt_);
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

ExtractCounts ExtractRecords(std::string_view text, const RecordInfo& info,
                             const ExtractOptions& opt, size_t max_line,
                             uint64_t first_line, std::string* out,
                             std::vector<ExtractProblem>* problems,
                             std::vector<LogFields>* fields) {
  if (info.overlong_lines > 0) {  // dropped whole (RecordCutter)
    problems->push_back({0, 1, kLogFormatKind, kOverlongRecord});
    return {};
  }
  const size_t first = problems->size();
  const std::string_view header = text.substr(0, info.skip);
  const uint64_t header_lines = std::count(header.begin(), header.end(), '\n');
  ExtractOptions x = opt;
  if (!opt.field_name.empty() &&
      (opt.from == LogFormat::kTsv || opt.from == LogFormat::kCsv))
    x.column = info.column;
  // Lines longer than max_line are diagnosed and left empty, whether or not
  // they fit in a run, so the rows never depend on how the input was cut.
  // In tsv and csv a record with such a line is left out whole, and the
  // quotes read on after it as they were.
  thread_local std::string kept;
  thread_local std::vector<uint64_t> long_lines, long_records;
  long_records.clear();
  const std::string_view body =
      opt.from == LogFormat::kTsv || opt.from == LogFormat::kCsv
          ? WithoutLongRecords(text.substr(info.skip), max_line, opt, &kept,
                               &long_lines, &long_records)
          : WithoutLongLines(text.substr(info.skip), max_line, &kept,
                             &long_lines);
  for (const uint64_t line : long_lines)
    problems->push_back({header_lines + line, max_line + 1,
                         ErrorKindName(ErrorKind::kTooLong),
                         ErrorKindMessage(ErrorKind::kTooLong)});
  for (const uint64_t line : long_records)
    problems->push_back({header_lines + line, 1, kLogFormatKind,
                         kOverlongRecord});
  const size_t found = problems->size();
  const ExtractCounts counts =
      Extract(body, x, first_line + header_lines, out, problems, fields);
  for (size_t k = found; k < problems->size(); ++k)
    (*problems)[k].line += header_lines;
  // In the order of their lines, as a reader of stderr expects (Extract()
  // finds its problems in that order; the long lines came first).
  if (found > first)
    std::stable_sort(problems->begin() + first, problems->end(),
                     [](const ExtractProblem& a, const ExtractProblem& b) {
                       return a.line < b.line;
                     });
  return counts;
}

}  // namespace ingest
}  // namespace uriscan
