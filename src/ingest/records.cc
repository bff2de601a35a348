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
    : opt_(opt),
      max_line_(max_line),
      open_(std::make_shared<OpenRecord>(opt)) {}

void RecordCutter::Follow(LineReader* reader) {
  if (opt_.from != LogFormat::kTsv && opt_.from != LogFormat::kCsv) return;
  followed_ = true;
  reader->set_on_long_line([open = open_](std::string_view piece) {
    if (open->end.Feed(piece) != std::string_view::npos) open->ended = true;
  });
}

bool RecordCutter::TakeLongLine(LineReader* reader, bool starts_file,
                                Lines* lines, RecordInfo* info,
                                std::string* error) {
  *info = RecordInfo{};
  lines->text = {};
  if (open_->ended || !followed_) {
    *open_ = OpenRecord(opt_);
    info->overlong_lines = 1;
  } else {
    info->overlong_lines = ReadOn(reader, lines, 1);
  }
  if (starts_file && header_field_) {
    *error = LongHeader();
    return false;
  }
  return true;
}

std::string RecordCutter::LongHeader() const {
  return "the header row is longer than --max-line; no column named '" +
         opt_.field_name + "' can be found in it";
}

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
  if (starts_file && header_field_) {
    size_t header_end = 0;
    const bool found =
        info->overlong_lines == 0 &&
        FindColumn(lines->text, opt_, &file_column_, &header_end);
    // The header row's length, without its line break.
    std::string_view header = lines->text.substr(0, header_end);
    if (!header.empty() && header.back() == '\n') header.remove_suffix(1);
    if (!header.empty() && header.back() == '\r') header.remove_suffix(1);
    if (info->overlong_lines > 0 || header.size() > max_line_) {
      *error = LongHeader();
      return false;
    }
    if (!found) {
      *error = NoColumn();
      return false;
    }
    info->skip = header_end;
  }
  info->column = file_column_;
  return true;
}

uint64_t RecordCutter::TakeWholeRecords(LineReader* reader, Lines* lines) {
  // tsv, csv: text that holds no record's end is a record longer than
  // max_line once it is longer than max_line and a line break ("\r\n": the
  // input may end there, unknown to a pipe's reader until it reads again).
  // text: a "<...>" of up to max_line bytes may start at the end of a line
  // and end in a line of max_line.
  const size_t most = opt_.from == LogFormat::kText ? 3 * (max_line_ + 2)
                                                     : max_line_ + 3;
  size_t keep = RecordsEnd(lines->text, opt_, reader->at_end());
  size_t want = lines->text.size();
  while (keep == 0 && lines->text.size() < most) {
    const size_t had = lines->text.size();
    reader->Unread(had);
    // The next line may be longer than the text so far: doubling keeps the
    // reads linear, and below 2 * most.
    want *= 2;
    reader->set_min_bytes(want);
    const LineReader::Status st = reader->Next(lines);
    reader->set_min_bytes(0);
    if (st != LineReader::Status::kLines) return 0;
    keep = RecordsEnd(lines->text, opt_, reader->at_end());
    // Nothing more though a line of max_line would fit: a line too long
    // comes next (a pipe's reader hands out the lines before it).
    if (lines->text.size() == had && want > had + most) break;
  }
  if (keep > 0) {
    reader->Unread(lines->text.size() - keep);
    lines->text = lines->text.substr(0, keep);
    return 0;
  }
  if (opt_.from != LogFormat::kTsv && opt_.from != LogFormat::kCsv)
    return 0;  // text: an unclosed "<" is no reference; read on
  // The first record goes on past max_line: read to its end, in pieces of
  // bounded size, and keep nothing of it.
  return ReadOn(reader, lines, 0);
}

uint64_t RecordCutter::ReadOn(LineReader* reader, Lines* lines,
                              uint64_t lines_before) {
  OpenRecord& open = *open_;
  uint64_t lines_skipped = lines_before;
  bool open_line = false;  // the last piece did not end in "\n"
  for (;;) {
    const std::string_view piece = lines->text;
    open_line = !piece.empty() && piece.back() != '\n';
    const size_t end = open.end.Feed(piece);
    const size_t used = end == std::string_view::npos ? piece.size() : end;
    lines_skipped += std::count(piece.begin(), piece.begin() + used, '\n');
    if (end != std::string_view::npos) {
      reader->Unread(piece.size() - end);
      break;
    }
    const LineReader::Status st = reader->Next(lines);
    if (st == LineReader::Status::kTooLongLine) {
      // Its bytes went through open.end (Follow()): it may end the record.
      ++lines_skipped;
      lines->text = {};
      open_line = false;
      if (open.ended) break;
      continue;
    }
    if (st != LineReader::Status::kLines) {
      lines_skipped += open_line;
      break;
    }
  }
  lines->text = {};
  open = OpenRecord(opt_);  // the next record starts afresh
  return std::max<uint64_t>(lines_skipped, 1);
}

ExtractCounts ExtractRecords(std::string_view text, const RecordInfo& info,
                             const ExtractOptions& opt, size_t max_line,
                             uint64_t first_line, std::string* out,
                             std::vector<ExtractProblem>* problems,
                             std::vector<LogFields>* fields,
                             LogLineVisitor* visitor) {
  if (info.overlong_lines == 1) {  // dropped (RecordCutter): a long line
    problems->push_back({0, max_line + 1, ErrorKindName(ErrorKind::kTooLong),
                         ErrorKindMessage(ErrorKind::kTooLong)});
    return {};
  }
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
                             &long_lines,
                             opt.from == LogFormat::kText ? kLongLineInText
                                                          : std::string_view());
  for (const uint64_t line : long_lines)
    problems->push_back({header_lines + line, max_line + 1,
                         ErrorKindName(ErrorKind::kTooLong),
                         ErrorKindMessage(ErrorKind::kTooLong)});
  for (const uint64_t line : long_records)
    problems->push_back({header_lines + line, 1, kLogFormatKind,
                         kOverlongRecord});
  const size_t found = problems->size();
  const ExtractCounts counts =
      Extract(body, x, first_line + header_lines, out, problems, fields,
              visitor);
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
