// SPDX-License-Identifier: MIT
// Whole records out of the line reader's runs, and the references in them:
// the one way every front end (the command, read_uris, Python's read_log)
// reads a log or a table, so that each gives the same rows for the same
// bytes however the input is cut into runs.
#ifndef URISCAN_SRC_INGEST_RECORDS_H_
#define URISCAN_SRC_INGEST_RECORDS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "src/ingest/extract.h"
#include "src/ingest/line_reader.h"

namespace uriscan {
namespace ingest {

// What RecordCutter::Take() found in a run.
struct RecordInfo {
  size_t skip = 0;    // bytes of the header row at the run's start
  size_t column = 0;  // tsv, csv: the column --field named in that row
  // tsv, csv: a record longer than max_line, read to its end and dropped:
  // the run stands for that many lines and its text is empty (one: a line
  // too long, reported as such; more: a record too long).
  uint64_t overlong_lines = 0;
};

// Cuts each run the reader hands out back to whole records (a quoted field
// of tsv or csv, a wrapped "<...>" of text, may hold line breaks), reading
// on while not one is whole, up to max_line; a tsv or csv record longer than
// that is read to its end in pieces and dropped. One per file being read.
class RecordCutter {
 public:
  RecordCutter(const ExtractOptions& opt, size_t max_line);
  // `header_field`: tsv, csv with --field=NAME (the column is found in the
  // header row of each file).
  void set_header_field(bool on) { header_field_ = on; }
  // For a run that Next() returned as kLines in *lines (`starts_file` when
  // it is the file's first): false, with *error (a diagnostic's text,
  // without the file's name), when the file's header row names no such
  // column.
  bool Take(LineReader* reader, bool starts_file, Lines* lines,
            RecordInfo* info, std::string* error);
  // tsv, csv: follows the quotes through the lines longer than max_line
  // that `reader` drops (LineReader::set_on_long_line), so that a record
  // such a line leaves open is read to its end as it is when the line comes
  // inside a run. Before the reader's first run.
  void Follow(LineReader* reader);
  // For a run that Next() returned as kTooLongLine (`starts_file` when it
  // is the file's first): the line as a record of its own, dropped, in
  // info->overlong_lines = 1; or, when it leaves a quoted field open (tsv,
  // csv: Follow()), its whole record, read to its end and dropped, in as
  // many lines as it spans. *lines is left empty. False, with *error, when
  // it is the header row that --field=NAME needs.
  bool TakeLongLine(LineReader* reader, bool starts_file, Lines* lines,
                    RecordInfo* info, std::string* error);
  // The error of a file with no header row at all (it is empty), or "".
  std::string EmptyFileError() const;

 private:
  // The record being read on to its end; `ended` when a line the reader
  // dropped ended it.
  struct OpenRecord {
    explicit OpenRecord(const ExtractOptions& opt) : end(opt) {}
    RecordEnd end;
    bool ended = false;
  };
  uint64_t TakeWholeRecords(LineReader* reader, Lines* lines);
  // Reads the open record on from *lines to its end, keeping nothing; the
  // lines it spans after the `lines_before` already read.
  uint64_t ReadOn(LineReader* reader, Lines* lines, uint64_t lines_before);
  std::string NoColumn() const;
  std::string LongHeader() const;

  ExtractOptions opt_;
  size_t max_line_;
  bool header_field_ = false;
  size_t file_column_ = 0;
  // Shared with the reader's callback (Follow()), fresh between records.
  std::shared_ptr<OpenRecord> open_;
  bool followed_ = false;
};

// The references in `text`, a run of whole records cut by RecordCutter
// (`info`) whose first line is number first_line, appended to *out as
// Extract() writes them; what is wrong in it, lines longer than max_line
// included, in *problems (line numbers from the run's first line, in order).
// `fields`, when given (clf, combined), gets the log fields of each
// reference's line, one entry per reference; `visitor`, when given, is told
// of each line in the format (Extract()).
ExtractCounts ExtractRecords(std::string_view text, const RecordInfo& info,
                             const ExtractOptions& opt, size_t max_line,
                             uint64_t first_line, std::string* out,
                             std::vector<ExtractProblem>* problems,
                             std::vector<LogFields>* fields = nullptr,
                             LogLineVisitor* visitor = nullptr);

// Calls f(line, reference) for each "LINE\tREFERENCE\n" of `out` (what
// Extract() writes with_line), in order; `line` is the number as written.
template <class F>
void ForEachNumbered(std::string_view out, F f) {
  while (!out.empty()) {
    const size_t nl = out.find('\n');
    const std::string_view record = out.substr(0, nl);
    out.remove_prefix(nl + 1);
    const size_t tab = record.find('\t');
    f(record.substr(0, tab), record.substr(tab + 1));
  }
}

}  // namespace ingest
}  // namespace uriscan

#endif  // URISCAN_SRC_INGEST_RECORDS_H_
