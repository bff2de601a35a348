// SPDX-License-Identifier: MIT
// Reading URI references out of files: lists of references (one per line),
// free text (RFC 3986 Appendix C), web server logs (Common and Combined Log
// Format), RFC 4180 tables and JSON Lines; plain, gzip or zstd (told by the
// first bytes). The layer the uriscan command, DuckDB's read_uris and
// Python's read_log all read through, so each gives the same rows for the
// same bytes.
#ifndef URISCAN_INGEST_H_
#define URISCAN_INGEST_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "uriscan/export.h"

namespace uriscan {

struct LogReaderOptions {
  // lines (every line is a reference, as the other commands read them),
  // text, clf, combined, tsv, csv or jsonl (as `uriscan extract --from`).
  std::string format = "lines";
  // As `uriscan extract --field`: clf, combined: target (default) or
  // referer; tsv, csv: a column number from 1 or a name in the header row;
  // jsonl: a key (required). Empty: the default.
  std::string field;
  // clf, combined: request targets resolved against this absolute URI.
  std::string base;
  bool lenient = false;  // each reference repaired (uriscan/lenient.h)
  // clf, combined: each row also gets its line's fields (LogRow).
  bool log_fields = false;
  size_t chunk_bytes = size_t{4} << 20;  // read this much at a time
  // A line (a tsv or csv record) longer than this is skipped, as a
  // problem, never held in memory.
  size_t max_line = size_t{16} << 20;
};

// Bytes [begin, end) of LogBatch::text.
struct TextSpan {
  uint32_t begin = 0, end = 0;
};

// One reference and where it was read.
struct LogRow {
  uint64_t line = 0;  // from 1, in its file
  TextSpan uri;
};

// The fields of a reference's log line (LogReaderOptions::log_fields, clf
// and combined). A field the line lacks, or writes as "-", is absent
// (has_* false, an empty span, or -1).
struct LogFieldsRow {
  TextSpan client, method, referer, user_agent;
  int64_t time = 0;  // microseconds since 1970-01-01T00:00:00Z
  int64_t bytes = -1;
  int32_t status = -1;
  bool has_time = false, has_referer = false, has_user_agent = false;
};

// A record that gives no reference because it is malformed (or too long):
// the diagnostic the command prints for it.
struct LogProblem {
  uint64_t line = 0;    // from 1, in its file
  uint64_t column = 0;  // from 1, in bytes
  std::string kind, message;
};

// The rows read from one run of one file, in input order.
struct LogBatch {
  size_t file = 0;  // the index of its file in LogReader's list
  std::string text;
  std::vector<LogRow> rows;
  std::vector<LogFieldsRow> fields;  // with log_fields: one per row
  std::vector<LogProblem> problems;
  std::string_view Text(TextSpan s) const {
    return std::string_view(text).substr(s.begin, s.end - s.begin);
  }
  std::string_view uri(size_t i) const { return Text(rows[i].uri); }
};

// A file that could not be read: missing, unreadable, damaged (a gzip or
// zstd stream), cut short while it was read, or without the header column
// named. what() names the file; file() is its name, error_number() the
// errno of an open or a read that failed (ENOENT: missing), else 0.
class URISCAN_EXPORT LogReadError : public std::runtime_error {
 public:
  explicit LogReadError(const std::string& what, std::string file = {},
                        int error_number = 0)
      : std::runtime_error(what),
        file_(std::move(file)),
        error_number_(error_number) {}
  const std::string& file() const { return file_; }
  int error_number() const { return error_number_; }

 private:
  std::string file_;
  int error_number_;
};

// Reads files one after the other, a run of whole records at a time, in
// bounded memory: about two runs (LogReaderOptions::chunk_bytes) plus the
// batch handed out, whatever the size of the files or of their lines. Not
// thread-safe, but for Stop().
class URISCAN_EXPORT LogReader {
 public:
  // Checks the options as the command checks them: throws
  // std::invalid_argument, its message naming the option, when they do not
  // hold together. Files are opened as they are reached.
  LogReader(std::vector<std::string> files, const LogReaderOptions& options);
  ~LogReader();
  LogReader(const LogReader&) = delete;
  LogReader& operator=(const LogReader&) = delete;

  // The next run's rows and problems into *batch (cleared first; it may
  // hold no row); false after the last file. Throws LogReadError for a file
  // that cannot be read (after the rows read before the failure), and
  // Interrupted (uriscan/normalize.h) when Stop() or the calling thread's
  // interrupt check (SetInterruptCheck) said so while it waited for input
  // (a FIFO, a terminal) or read on.
  bool Next(LogBatch* batch);
  // Makes the reader stop (from any thread): its waits end within 100 ms,
  // and Next() throws Interrupted.
  void Stop();
  const std::vector<std::string>& files() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace uriscan

#endif  // URISCAN_INGEST_H_
