// SPDX-License-Identifier: MIT
// Record formats of the uriscan command (docs/design.md) and a buffered
// writer.
#ifndef URISCAN_SRC_CLI_OUTPUT_H_
#define URISCAN_SRC_CLI_OUTPUT_H_

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "uriscan/uri.h"

namespace uriscan {
namespace cli {

// Collects output and writes it in large blocks.
class Writer {
 public:
  explicit Writer(std::FILE* out) : out_(out) {}
  ~Writer() { Flush(); }
  std::string& buffer() { return buf_; }
  // A block's worth is gathered: time to write it.
  bool Full() const { return buf_.size() >= (1u << 20); }
  void MaybeFlush() {
    if (Full()) Flush();
  }
  bool Flush();
  // Writes what is gathered, then `text` straight from where it lies (a
  // chunk's output: no copy into the buffer). False once writing failed.
  bool WriteThrough(std::string_view text);
  bool failed() const { return failed_; }
  // The errno of the failed write (EPIPE: the reader closed the output).
  int error() const { return errno_; }

 private:
  void Fail() {
    if (!failed_) errno_ = errno;
    failed_ = true;
  }
  std::FILE* out_;
  std::string buf_;
  bool failed_ = false;
  int errno_ = 0;
};

// One JSON object (no newline): keys present exactly when defined, then
// "risks":[...] (names of uriscan/risk.h) when `risk_flags` has any.
void AppendJsonRecord(const UriReference& uri, std::string* out,
                      uint32_t risk_flags = 0);
// Ends a record of AppendJsonRecord with ,"repaired":true,"original":"..."}
// (--lenient): `original` is the line as it was read.
void AppendJsonRepaired(std::string_view original, std::string* out);
// One `uriscan audit` record: LINE<TAB>FLAGS<LF> (docs/design.md, "Risk
// flags").
void AppendAuditRecord(uint64_t line, uint32_t risk_flags, std::string* out);
// The TSV header line and one row, each with its "\n".
void AppendTsvHeader(std::string* out);
void AppendTsvRecord(uint64_t line, const UriReference& uri, std::string* out);

// A JSON string (RFC 8259) of s, quotes included; a byte that is not part
// of well-formed UTF-8 becomes U+FFFD.
void AppendJsonString(std::string_view s, std::string* out);
// s as HTML text or an attribute's value: & < > " ' as references, a
// control byte or a byte that is not part of well-formed UTF-8 as U+FFFD.
void AppendHtmlText(std::string_view s, std::string* out);
// s as a field of PostgreSQL's text format (COPY FROM, the default
// format): a backslash, TAB, LF and CR each become a backslash and then
// '\\', 't', 'n' or 'r'; every other byte is written as it is.
void AppendPgText(std::string_view s, std::string* out);

// An output that grows large, moved whole onto the end of `parts` (the
// output before it) and begun again, so that the output of huge records
// (a line of millions of parameters) grows without copying itself.
constexpr size_t kOutputPart = size_t{1} << 20;
inline void SpillOutput(std::string* out, std::vector<std::string>* parts) {
  if (out->size() < kOutputPart) return;
  parts->push_back(std::move(*out));
  *out = std::string();
  out->reserve(2 * kOutputPart);  // a record across kOutputPart: no copy
}

// FILE:LINE:COL: error: <kind>: <message>, with "\n". COL counts bytes from 1.
void AppendDiagnostic(std::string_view file, uint64_t line, ScanError error,
                      std::string* out);
// The same with any kind and message (resolution errors, for one).
void AppendDiagnostic(std::string_view file, uint64_t line, uint64_t column,
                      std::string_view kind, std::string_view message,
                      std::string* out);

}  // namespace cli
}  // namespace uriscan

#endif  // URISCAN_SRC_CLI_OUTPUT_H_
