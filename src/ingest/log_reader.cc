// SPDX-License-Identifier: MIT
// LogReader (uriscan/ingest.h): files read a run of whole records at a time
// through the line reader, the record cutter and the extractors that the
// command drives too.
#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/ingest/extract.h"
#include "src/ingest/line_reader.h"
#include "src/ingest/records.h"
#include "uriscan/error.h"
#include "uriscan/ingest.h"
#include "uriscan/lenient.h"
#include "uriscan/normalize.h"
#include "uriscan/spans.h"
#include "uriscan/uri.h"

namespace uriscan {

using ingest::ExtractOptions;
using ingest::LineReader;
using ingest::LogFormat;

struct LogReader::Impl {
  std::vector<std::string> files;
  LogReaderOptions options;
  bool lines = true;  // format "lines": every line is a reference
  ExtractOptions extract;
  bool header_field = false;
  std::string base_text;
  UriReference base;
  ingest::RecordCutter cutter{extract, 0};
  LineReader reader;
  bool open = false, starts_file = false;
  size_t file = 0;
  uint64_t line = 0;  // lines of the file read so far

  Impl(std::vector<std::string> f, const LogReaderOptions& o)
      : files(std::move(f)), options(o), reader(o.chunk_bytes, o.max_line) {}

  [[noreturn]] static void Invalid(const std::string& message) {
    throw std::invalid_argument(message);
  }
  void Check();
  [[noreturn]] void Fail(const std::string& message,
                         int error_number = 0) const {
    throw LogReadError(files[file] + ": " + message, files[file],
                       error_number);
  }
  void Lines(std::string_view text, LogBatch* batch);
  // `taken`: the run was cut already (RecordCutter::TakeLongLine()).
  void Records(ingest::Lines* input, LogBatch* batch,
               const ingest::RecordInfo* taken = nullptr);
};

// The command's checks of --from, --field and --base (cmd_extract.cc), in
// the words of a function's arguments.
void LogReader::Impl::Check() {
  const std::string& format = options.format;
  const std::string& field = options.field;
  const bool has_field = !field.empty();
  ExtractOptions& x = extract;
  lines = format == "lines";
  if (!lines && !ingest::ParseLogFormat(format, &x.from))
    Invalid("format: '" + format +
            "' is not a format; expected lines, text, clf, combined, tsv, "
            "csv or jsonl");
  if (options.chunk_bytes == 0 || options.max_line == 0)
    Invalid("chunk_bytes and max_line: must be above 0");
  x.max_record = options.max_line;
  x.with_line = true;
  x.lenient = options.lenient;  // the extractor repairs, before base resolves
  if (lines || x.from == LogFormat::kText) {
    if (has_field) Invalid("field: format '" + format + "' takes no field");
  } else if (x.from == LogFormat::kClf || x.from == LogFormat::kCombined) {
    if (has_field && field != "target" && field != "referer")
      Invalid("field: '" + field + "'; expected target or referer");
    if (field == "referer" && x.from == LogFormat::kClf)
      Invalid("field: referer needs format 'combined' (the Common Log "
              "Format has no Referer)");
    x.referer = field == "referer";
  } else if (x.from == LogFormat::kTsv || x.from == LogFormat::kCsv) {
    if (has_field &&
        field.find_first_not_of("0123456789") == std::string::npos) {
      const unsigned long n =
          field.size() > 9 ? 0 : std::strtoul(field.c_str(), nullptr, 10);
      if (n == 0) Invalid("field: columns are numbered from 1 to 999999999");
      x.column = n - 1;
    } else if (has_field) {
      header_field = true;
      x.field_name = field;
    }
  } else if (x.from == LogFormat::kJsonl) {
    if (!has_field) Invalid("field: format 'jsonl' needs the key to read");
    x.field_name = field;
  }
  if (options.log_fields && (lines || (x.from != LogFormat::kClf &&
                                       x.from != LogFormat::kCombined)))
    Invalid("log_fields: applies to formats 'clf' and 'combined'");
  if (!options.base.empty()) {
    if (lines ||
        (x.from != LogFormat::kClf && x.from != LogFormat::kCombined))
      Invalid("base: applies to formats 'clf' and 'combined'");
    if (x.referer) Invalid("base: applies to request targets, not to referers");
    base_text = options.base;
    base = ParseUriReference(base_text);
    if (!base.valid() || !base.scheme())
      Invalid("base: '" + base_text +
              "' is not an absolute URI (RFC 3986 sec. 5.1)");
    x.base = &base;
  }
  cutter = ingest::RecordCutter(extract, options.max_line);
  cutter.set_header_field(header_field);
}

LogReader::LogReader(std::vector<std::string> files,
                     const LogReaderOptions& options)
    : impl_(std::make_unique<Impl>(std::move(files), options)) {
  impl_->Check();
}

LogReader::~LogReader() = default;

void LogReader::Stop() { impl_->reader.stop(); }

const std::vector<std::string>& LogReader::files() const {
  return impl_->files;
}

namespace {

TextSpan Append(std::string_view s, std::string* text) {
  TextSpan span;
  span.begin = static_cast<uint32_t>(text->size());
  text->append(s);
  span.end = static_cast<uint32_t>(text->size());
  return span;
}

void TooLong(uint64_t line, size_t max_line, LogBatch* batch) {
  batch->problems.push_back({line, max_line + 1,
                             ErrorKindName(ErrorKind::kTooLong),
                             ErrorKindMessage(ErrorKind::kTooLong)});
}

}  // namespace

// Format "lines": each line a row, as the other commands read them (a
// "\r" before the "\n" is no part of it; a line over max_line is a problem).
void LogReader::Impl::Lines(std::string_view text, LogBatch* batch) {
  thread_local std::string repaired;
  while (!text.empty()) {
    const size_t nl = std::min(text.find('\n'), text.size());
    std::string_view l = text.substr(0, nl);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    ++line;
    text.remove_prefix(std::min(nl + 1, text.size()));
    if (l.size() > options.max_line) {
      TooLong(line, options.max_line, batch);
      continue;
    }
    if (options.lenient) {
      repaired.clear();
      if (RepairReference(l, &repaired)) l = repaired;
    }
    LogRow row;
    row.line = line;
    row.uri = Append(l, &batch->text);
    batch->rows.push_back(row);
  }
}

// The other formats: whole records, their references as the command's
// extract finds them.
void LogReader::Impl::Records(ingest::Lines* input, LogBatch* batch,
                              const ingest::RecordInfo* taken) {
  ingest::RecordInfo info;
  std::string error;
  if (taken) {
    info = *taken;
  } else if (!cutter.Take(&reader, starts_file, input, &info, &error)) {
    Fail("1:1: " + error);
  }
  thread_local std::string out;
  thread_local std::vector<ingest::ExtractProblem> problems;
  thread_local std::vector<ingest::LogFields> fields;
  out.clear();
  problems.clear();
  fields.clear();
  ingest::ExtractRecords(input->text, info, extract, options.max_line,
                         line + 1, &out, &problems,
                         options.log_fields ? &fields : nullptr);
  for (const ingest::ExtractProblem& p : problems)
    batch->problems.push_back({line + 1 + p.line, p.column,
                               std::string(p.kind), std::string(p.message)});
  size_t k = 0;
  ingest::ForEachNumbered(out, [&](std::string_view number,
                                   std::string_view uri) {
    LogRow row;
    for (char c : number) row.line = row.line * 10 + static_cast<uint64_t>(c - '0');
    row.uri = Append(uri, &batch->text);
    if (options.log_fields && k < fields.size()) {
      const ingest::LogFields& f = fields[k];
      LogFieldsRow r;
      r.client = Append(f.client, &batch->text);
      r.method = Append(f.method, &batch->text);
      r.referer = Append(f.referer, &batch->text);
      r.user_agent = Append(f.user_agent, &batch->text);
      r.time = f.time;
      r.has_time = f.has_time;
      r.status = f.status;
      r.bytes = f.bytes;
      r.has_referer = f.has_referer;
      r.has_user_agent = f.has_user_agent;
      batch->fields.push_back(r);
    }
    ++k;
    batch->rows.push_back(row);
  });
  line += info.overlong_lines > 0 ? info.overlong_lines
                                  : CountLines(input->text);
}

bool LogReader::Next(LogBatch* batch) {
  Impl& s = *impl_;
  batch->text.clear();
  batch->rows.clear();
  batch->fields.clear();
  batch->problems.clear();
  for (;;) {
    if (!s.open) {
      if (s.file >= s.files.size()) return false;
      std::string error;
      if (!s.reader.Open(s.files[s.file], &error)) {
        if (error == "stopped") throw Interrupted();
        s.Fail(error, s.reader.error_number());
      }
      s.cutter.Follow(&s.reader);
      s.open = s.starts_file = true;
      s.line = 0;
    }
    batch->file = s.file;
    ingest::Lines input;
    const LineReader::Status st = s.reader.Next(&input);
    switch (st) {
      case LineReader::Status::kStopped:
        throw Interrupted();
      case LineReader::Status::kError:
        if (s.reader.damaged()) s.Fail(s.reader.error());
        s.Fail("error reading after line " + std::to_string(s.line) + ": " +
                   s.reader.error(),
               s.reader.error_number());
      case LineReader::Status::kEnd:
        if (s.starts_file && !s.cutter.EmptyFileError().empty())
          s.Fail("1:1: " + s.cutter.EmptyFileError());
        s.open = false;
        ++s.file;
        continue;
      case LineReader::Status::kTooLongLine:
        if (s.lines) {
          TooLong(++s.line, s.options.max_line, batch);
        } else {  // dropped with the record it opens (tsv, csv)
          ingest::RecordInfo info;
          std::string error;
          if (!s.cutter.TakeLongLine(&s.reader, s.starts_file, &input, &info,
                                     &error))
            s.Fail("1:1: " + error);
          s.Records(&input, batch, &info);
        }
        s.starts_file = false;
        return true;
      case LineReader::Status::kLines:
        break;
    }
    if (s.lines) {
      s.Lines(input.text, batch);
    } else {
      s.Records(&input, batch);
    }
    s.starts_file = false;
    return true;
  }
}

}  // namespace uriscan
