// SPDX-License-Identifier: MIT
// The counts of a run (lines, error kinds, host kinds, risk flags), the
// progress line, the stats report and the summary on stderr.
#ifndef URISCAN_SRC_CLI_REPORT_H_
#define URISCAN_SRC_CLI_REPORT_H_

#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "src/cli/ingest.h"
#include "src/cli/options.h"
#include "uriscan/uriscan.h"

namespace uriscan {
namespace cli {

struct Totals {
  uint64_t lines = 0, valid = 0, bytes = 0;
  std::array<uint64_t, kErrorKindCount> by_error{};
  std::array<uint64_t, 4> by_host{};
  uint64_t scheme = 0, authority = 0, userinfo = 0, port = 0, query = 0,
           fragment = 0;
  uint64_t rewritten = 0;  // normalize: lines whose output differs
  uint64_t unresolved = 0;  // resolve: valid references refused
  uint64_t distinct = 0;  // dedup, for the progress line
  uint64_t flagged = 0;   // valid lines with any risk flag
  uint64_t extracted = 0, malformed = 0;  // extract
  // extract, stats --from=clf|combined: log lines whose request line gives
  // no reference, by NoTarget (extract.h)
  std::array<uint64_t, kNoTargetKinds> no_target{};
  uint64_t log_lines = 0;  // stats --from: lines read (t.lines: references)
  uint64_t repaired = 0;  // --lenient: lines repaired
  uint64_t boms = 0;      // inputs that began with a byte-order mark
  uint64_t held_back = 0;  // diagnostics past --max-errors, not printed
  std::array<uint64_t, risks::kCount> by_risk{};
  double scan_seconds = 0;
};


// "; N diagnostics held back (--max-errors=M)" when --max-errors held
// any back, for a summary line; "" otherwise.
std::string HeldBack(const Options& opt, const Totals& t);

// Adds the counts of `from` (a chunk) to `to` (the run).
void Add(const Totals& from, Totals* to);

// Counts one reference.
void Count(const UriReference& uri, Totals* t);

// Calls f(i) for each i < n with kinds[i] != 0, in order: invalid rows are
// rare, so eight bytes at a time are skipped while all are 0.
template <class F>
void ForEachInvalid(const uint8_t* kinds, size_t n, F f) {
  for (size_t i = 0; i < n;) {
    uint64_t eight = 1;
    if (n - i >= 8) std::memcpy(&eight, kinds + i, 8);
    if (eight == 0) {
      i += 8;
      continue;
    }
    if (kinds[i] != 0) f(i);
    ++i;
  }
}

// Whether any of the n rows is invalid, eight kinds at a time.
inline bool AnyInvalid(const uint8_t* kinds, size_t n) {
  bool any = false;
  ForEachInvalid(kinds, n, [&](size_t) { any = true; });
  return any;
}

// Count() for every row of `s` at once, column by column, when no row is
// over-long: what `validate` needs, without a UriReference per row.
void CountColumns(const ComponentSpans& s, Totals* t);

// Counts the risk flags of one valid reference.
void CountRisks(uint32_t risk_flags, Totals* t);

// Long runs on a terminal: one line on stderr, rewritten in place at most
// twice a second, with the lines, megabytes and speed so far and, when the
// input's size is known, the share read and the time left. Whoever writes
// to stderr clears it first.
class Progress {
 public:
  // Shown when stderr is a terminal and stdout is not (the output itself
  // shows the progress otherwise), or always when `forced` (--progress).
  Progress(bool enabled, bool forced)
      : enabled_(enabled && (forced || (isatty(2) && !isatty(1)))) {}
  bool enabled() const { return enabled_; }
  // The run's clock starts now (after what a command does before reading).
  void Start() { start_ = last_ = Clock::now(); }
  // `done` of `size` input bytes are read (size 0: not known).
  void Update(const Totals& t, uint64_t done, uint64_t size);
  // Takes the line off the terminal before something else is written.
  void Clear() {
    if (shown_) std::fputs("\r\033[K", stderr);
    shown_ = false;
  }

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  bool shown_ = false;
  Clock::time_point start_ = Clock::now(), last_ = Clock::now();
};

// uriscan stats: the report on stdout; `from` is the log format of
// --from, which adds the log's lines by kind, or "".
void PrintStats(const Options& opt, const Totals& t, double wall,
                const std::string& from);

// ", 3 with no reference (no-request 1, not-http 1, asterisk-form 1)":
// the log lines of each NoTarget kind, or "" when there are none.
std::string NoTargetSummary(const Totals& t);

// The summary line on stderr at the end of a run (not under --quiet).
// `tail` is the command's own part (", 3 rewritten").
void PrintSummary(const Options& opt, const Totals& t, bool stopped,
                  const std::string& tail);

}  // namespace cli
}  // namespace uriscan

#endif  // URISCAN_SRC_CLI_REPORT_H_
