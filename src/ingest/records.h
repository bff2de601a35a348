// SPDX-License-Identifier: MIT
// Whole records out of the line reader's runs, and the references in them:
// the one way every front end (the command, read_uris, Python's read_log)
// reads a log or a table, so that each gives the same rows for the same
// bytes however the input is cut into runs.
#ifndef URISCAN_SRC_INGEST_RECORDS_H_
#define URISCAN_SRC_INGEST_RECORDS_H_

#include <cstddef>
#include <cstdint>
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
  // the run stands for that many lines and its text is empty.
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
  // The error of a file with no header row at all (it is empty), or "".
  std::string EmptyFileError() const;

 private:
  uint64_t TakeWholeRecords(LineReader* reader, Lines* lines) const;
  std::string NoColumn() const;

  ExtractOptions opt_;
  size_t max_line_;
  bool header_field_ = false;
  size_t file_column_ = 0;
};

// The references in `text`, a run of whole records cut by RecordCutter
// (`info`) whose first line is number first_line, appended to *out as
// Extract() writes them; what is wrong in it, lines longer than max_line
// included, in *problems (line numbers from the run's first line, in order).
// `fields`, when given (clf, combined), gets the log fields of each
// reference's line, one entry per reference.
ExtractCounts ExtractRecords(std::string_view text, const RecordInfo& info,
                             const ExtractOptions& opt, size_t max_line,
                             uint64_t first_line, std::string* out,
                             std::vector<ExtractProblem>* problems,
                             std::vector<LogFields>* fields = nullptr);

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
