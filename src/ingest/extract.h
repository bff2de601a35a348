// SPDX-License-Identifier: MIT
// `uriscan extract`: the URI references in free text (RFC 3986 Appendix C),
// web server logs, RFC 4180 tables and JSON Lines (docs/design.md,
// "Input").
#ifndef URISCAN_SRC_INGEST_EXTRACT_H_
#define URISCAN_SRC_INGEST_EXTRACT_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "uriscan/uri.h"

namespace uriscan {
namespace ingest {

enum class LogFormat { kText, kClf, kCombined, kTsv, kCsv, kJsonl };
bool ParseLogFormat(std::string_view name, LogFormat* format);

struct ExtractOptions {
  LogFormat from = LogFormat::kText;
  bool referer = false;     // clf, combined: --field=referer
  size_t column = 0;        // tsv, csv: 0-based column
  std::string field_name;   // tsv, csv: a header name; jsonl: the key
  bool with_line = false;   // LINE<TAB> before each reference
  bool lenient = false;     // each reference repaired (lenient.h)
  const UriReference* base = nullptr;  // clf, combined: --base
  // tsv, csv: a record longer (its line break left out) is one diagnostic,
  // kOverlongRecord, and no reference. text: a "<...>" longer is none.
  size_t max_record = SIZE_MAX;
};

inline constexpr std::string_view kLogFormatKind = "log-format";
inline constexpr std::string_view kOverlongRecord =
    "the record is longer than --max-line";

// A malformed record: its line (0-based, from the start of the text given),
// its column (1-based byte) and what is wrong.
struct ExtractProblem {
  uint64_t line;
  uint64_t column;
  std::string_view kind;     // a static string
  std::string_view message;  // a static string
};

// clf, combined (--field=target): the lines that are in the format but
// whose request line gives no reference, and so no diagnostic either.
enum class NoTarget {
  kNoRequest,     // "-" (or ""): the connection closed before a request line
  kNotHttp,       // no method and space first: a TLS handshake, binary
  kAsteriskForm,  // "OPTIONS * HTTP/1.1" (RFC 9112 sec. 3.2.4)
};
inline constexpr size_t kNoTargetKinds = 3;
// "no-request", "not-http", "asterisk-form".
const char* NoTargetName(NoTarget kind);

struct ExtractCounts {
  uint64_t references = 0;  // written
  std::array<uint64_t, kNoTargetKinds> no_target{};  // by NoTarget
};

// clf, combined: the fields of a log line beside its reference (read_uris'
// columns, `extract --columns`). A field the line lacks, or writes as "-",
// is absent (has_* false, or -1).
struct LogFields {
  std::string client;  // %h, as written
  // %t as microseconds since 1970-01-01T00:00:00Z (its offset applied)
  int64_t time = 0;
  bool has_time = false;
  std::string method;  // of the request line, unescaped
  int32_t status = -1;  // %>s
  int64_t bytes = -1;   // %b
  std::string referer, user_agent;  // combined, unescaped
  bool has_referer = false, has_user_agent = false;
};

// clf, combined: told of every line in the format (its fields parsed),
// whether or not it gives a reference: `stats --from`'s log report.
class LogLineVisitor {
 public:
  virtual ~LogLineVisitor() = default;
  // `line` counts from the text's first line (0), as ExtractProblem's;
  // `references` is the number the line gave (written before the call).
  virtual void Line(uint64_t line, const LogFields& fields,
                    size_t references) = 0;
};

// Appends the references found in `text` (whole records) to *out, one per
// line, each after "LINE\t" with --with-line (`first_line` is the number of
// the text's first line). `fields` (clf, combined), when given, gets one
// entry per reference: the fields of its line; `visitor` (clf, combined),
// when given, is told of each line in the format.
ExtractCounts Extract(std::string_view text, const ExtractOptions& opt,
                      uint64_t first_line, std::string* out,
                      std::vector<ExtractProblem>* problems,
                      std::vector<LogFields>* fields = nullptr,
                      LogLineVisitor* visitor = nullptr);

// "[10/Oct/2000:13:55:36 -0700]"'s inside (strftime's %d/%b/%Y:%H:%M:%S %z,
// the time of the Common Log Format) as microseconds since the epoch, UTC;
// false when it is not that.
bool ParseLogTime(std::string_view s, int64_t* micros);

// For tsv and csv, whose quoted fields may hold line breaks: `text` with
// each record that holds a line longer than `max_line` left as empty lines
// (so the lines after it keep their numbers and the quotes their state):
// the first line of such a record of more than one line goes in
// *long_records, the line of a one-line record in *long_lines (as
// WithoutLongLines() says it). `text` itself when no line is too long.
std::string_view WithoutLongRecords(std::string_view text, size_t max_line,
                                    const ExtractOptions& opt,
                                    std::string* kept,
                                    std::vector<uint64_t>* long_lines,
                                    std::vector<uint64_t>* long_records);

// `text` with its lines longer than `max_line` (a "\r" before the "\n" not
// counted) left as `stand_in` (empty by default): `text` itself when none
// is, else *kept. Those lines' numbers (from 0) go in *long_lines.
std::string_view WithoutLongLines(std::string_view text, size_t max_line,
                                  std::string* kept,
                                  std::vector<uint64_t>* long_lines,
                                  std::string_view stand_in = {});
// What a line too long stands as in text: a byte no "<...>" may hold, so
// that one never spans it, as when the reader drops the line alone.
inline constexpr std::string_view kLongLineInText = "\x01";

// How much of `text` (whole lines) ends on a record boundary: a record of
// tsv or csv may hold line breaks inside quotes, and a reference of text in
// "<...>" may be wrapped over a few lines. 0 means that more input is
// needed; at the end of the input every byte is taken.
size_t RecordsEnd(std::string_view text, const ExtractOptions& opt,
                  bool at_end);

// The end of one tsv or csv record fed in pieces: for a record longer than
// --max-line, which is skipped rather than held. Its quotes are read as
// RecordsEnd() reads them.
class RecordEnd {
 public:
  explicit RecordEnd(const ExtractOptions& opt);
  // The offset in `piece` just after the record's line break, or npos when
  // the record goes on past it.
  size_t Feed(std::string_view piece);

 private:
  char delim_;
  bool field_start_ = true, in_quotes_ = false, quote_seen_ = false;
};

// The 0-based column named opt.field_name in the header row at the start of
// `text`, and where that row ends; false when there is none.
bool FindColumn(std::string_view text, const ExtractOptions& opt,
                size_t* column, size_t* header_end);

}  // namespace ingest
}  // namespace uriscan

#endif  // URISCAN_SRC_INGEST_EXTRACT_H_
