// SPDX-License-Identifier: MIT
// One command of uriscan: its own options, their checks, and what it does
// with the chunks of a run, around the pipeline that run.cc shares.
#ifndef URISCAN_SRC_CLI_COMMAND_RUN_H_
#define URISCAN_SRC_CLI_COMMAND_RUN_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "src/cli/columns.h"
#include "src/cli/ingest.h"
#include "src/cli/options.h"
#include "src/cli/output.h"
#include "src/cli/report.h"
#include "uriscan/uriscan.h"

namespace CLI {
class App;
}

namespace uriscan {
namespace cli {

// A diagnostic of row `row` of a chunk. Line numbers are known only when
// the chunks before it are scanned, so the text is made as it is written.
struct Diagnostic {
  size_t row;
  uint64_t column;
  std::string_view kind, message;  // static strings
};

// One chunk of input lines and what every command makes of it. Chunks are
// processed on worker threads and written out in input order. What only
// one command keeps per chunk, it keeps itself, indexed by `slot`.
struct Chunk {
  size_t slot = 0;  // its place in the window of chunks in flight
  Lines input;  // raw, as read (or mapped); rows are scanned where they lie
  bool too_long_line = false;
  uint64_t dropped_bytes = 0;  // too_long_line: the line's bytes, not kept
  bool starts_file = false;  // line numbers start again from 1 here
  // The number of the chunk's first line, for the records that carry one
  // (CommandRun::NumberedRecords()); 0 for the others, where only
  // diagnostics have line numbers, made when the chunk is written.
  uint64_t first_line = 0;
  uint64_t input_lines = 0;  // lines of input the chunk stands for
  // Nonzero when the reader left the lines uncounted
  // (CommandRun::SegmentRows()): the chunk is scanned and processed this
  // many rows at a time at most, rows from row_base on.
  size_t max_rows = 0;
  size_t row_base = 0;
  // Lines read and dropped by TakeRecords() (extract: a record longer than
  // --max-line), not in `input`.
  uint64_t skipped_lines = 0;
  const std::string* name = nullptr;
  std::vector<Diagnostic> diagnostics;
  ComponentSpans spans;
  std::vector<uint32_t> risk_column;  // CommandRun::WantsRiskFlags()
  size_t rows = 0;  // rows processed (fewer after a failure)
  // The chunk's output: out_parts, then out (SpillOut()).
  std::vector<std::string> out_parts;
  std::string out;
  Totals totals;
  bool failed = false;  // --on-error=fail met an invalid line: out stops there
  // --lenient: the repaired lines (input.text then points here), and for
  // row i the original line when it was repaired (empty otherwise).
  std::string lenient_text;
  std::vector<std::string_view> originals;

  // Only for commands whose output nothing reads before it is written.
  void SpillOut() { SpillOutput(&out, &out_parts); }

  // The diagnostic of row `row`'s scan error (docs/design.md, "The
  // command").
  void Diagnose(size_t row, ScanError e) {
    std::string_view message = ErrorKindMessage(e.kind);
    // A byte-order mark past the start of an input (`cat a.txt b.txt`)
    // is still a disallowed byte, but is named as what it is.
    if (e.kind == ErrorKind::kDisallowedByte && row < spans.size()) {
      const size_t at = size_t{spans.uri_begin[row]} + e.offset;
      if (at + 3 <= input.text.size() &&
          input.text.substr(at, 3) == "\xEF\xBB\xBF")
        message = kByteOrderMarkMessage;
    }
    diagnostics.push_back({row_base + row, e.offset + uint64_t{1},
                           ErrorKindName(e.kind), message});
  }
  static constexpr const char* kByteOrderMarkMessage =
      "a UTF-8 byte-order mark (EF BB BF), which is dropped only at the "
      "start of an input: here it is a byte not allowed in a URI (remove "
      "it, e.g. when concatenating files)";
  // Row i's line as it was read, where `scanned` is the text the scan saw:
  // the same, unless --lenient repaired the line. What a command promises to
  // echo (dedup's lines, the crawler profile's ORIGINAL, --on-error=keep) is
  // this; the repaired text goes only into what is derived from it.
  std::string_view AsRead(size_t i, std::string_view scanned) const {
    return Repaired(i) ? originals[i] : scanned;
  }
  bool Repaired(size_t i) const {
    return i < originals.size() && !originals[i].empty();
  }
};

// A command, made by its CommandSpec once its name is read. First the
// command line: AddOptions() (its own options, read into its own fields),
// then Check() once every option is read. Then Main(), which by default
// runs the pipeline (run.cc) over the input files and calls the hooks in
// this order: Begin() once; per chunk TakeRecords() on the main thread,
// ProcessChunk() (PrepareChunk(), then Row() per row) on a worker thread,
// Emit() on the main thread in input order; then Finish(), Commit() and
// Report() once. One object serves every worker thread, so the hooks that
// run there keep per-thread scratch in thread_locals, and per-chunk state
// by Chunk::slot.
class CommandRun {
 public:
  explicit CommandRun(const Options& opt) : opt_(opt) {}
  virtual ~CommandRun() = default;
  CommandRun(const CommandRun&) = delete;
  CommandRun& operator=(const CommandRun&) = delete;

  // The options only this command takes.
  virtual void AddOptions(CLI::App* /*app*/) {}
  // The checks across options: -1 when fine, else the exit status after a
  // message.
  virtual int Check() { return -1; }
  // The whole command; the exit status.
  virtual int Main();

  // Before the first chunk: what the run needs, and the first output (a
  // header) into `out`. At most `window` chunks are in flight at once, in
  // slots 0 to window - 1. -1, or the exit status after a message.
  virtual int Begin(size_t /*window*/, std::string* /*out*/) { return -1; }
  // True when records carry their input line number (Chunk::first_line):
  // counting lines is a pass over every byte on the main thread.
  virtual bool NumberedRecords() const { return false; }
  // Nonzero when the command keeps nothing of a row past its diagnostics
  // and totals, so that a chunk can be scanned and processed a run of at
  // most this many rows at a time (Chunk::max_rows): then the main thread
  // does not count each chunk's lines to bound its rows (a pass over every
  // byte), and a run's columns can stay in the cache for what follows the
  // scan.
  virtual size_t SegmentRows() const { return 0; }
  // Once a file is open, before its first chunk is read: what the command
  // needs the reader to tell it (extract: the quotes of the lines too long
  // to keep).
  virtual void Follow(LineReader* /*reader*/) {}
  // Right after a chunk is read: its text cut back to whole records (extract),
  // reading more from `reader` if need be. False, with *error (the line to
  // print), when the rest of the file cannot be read.
  virtual bool TakeRecords(LineReader* /*reader*/, Chunk* /*c*/,
                           std::string* /*error*/) {
    return true;
  }

  // A file that held no byte at all: false, with *error (the line to
  // print), when the command needs something from it (a header row).
  virtual bool EmptyFile(const std::string& /*name*/, std::string* /*error*/) {
    return true;
  }

  // The whole of a chunk, on a worker thread. By default (run.cc) its lines
  // are scanned and counted, then PrepareChunk() and Row() make the output.
  virtual void ProcessChunk(Chunk* c);
  // True when Row() needs the risk flags of RFC 3986 sec. 7.
  virtual bool WantsRiskFlags() const { return false; }
  // What the command computes once for every scanned row of `rows`: false
  // when that is the whole chunk, so no Row() follows.
  virtual bool PrepareChunk(const Batch& /*rows*/, Chunk* /*c*/) {
    return true;
  }
  // Row i, `uri` (an over-long line comes as an error of kind kTooLong),
  // counted already: its record, its diagnostic. False to stop the chunk
  // there (--on-error=fail).
  virtual bool Row(size_t /*i*/, const UriReference& /*uri*/,
                   uint32_t /*risk_flags*/, Chunk* /*c*/) {
    return true;
  }

  // On the main thread, in input order, before the chunk's own output:
  // what must see the rows in order (dedup's seen-set).
  virtual void Emit(const Chunk& /*c*/, std::string* /*out*/,
                    Totals* /*totals*/) {}
  // True, after an Emit(), when the run can no longer succeed (dedup's
  // spill failed): nothing more is read, and Finish() says why.
  virtual bool Halted() const { return false; }
  // After the last chunk: the output held back. False after a message.
  virtual bool Finish(Writer* /*out*/, Totals* /*totals*/) { return true; }
  // After a whole run with no error, its output written: what it keeps
  // across runs (dedup --state). False after a message.
  virtual bool Commit() { return true; }
  // The summary (on stderr unless --quiet; stats writes its report), after
  // a run that did not fail (a run with exit status 2 has none); the exit
  // status the command asks for: 0, 1 for invalid input (validate), 2 when
  // the report cannot be written.
  virtual int Report(const Totals& t, bool stopped, double wall_seconds);
  // What the summary line says after the shared counts (", 3 rewritten").
  virtual std::string SummaryTail(const Totals& /*t*/) const { return {}; }

 protected:
  // Whether PrepareChunk() can take the chunk's rows from its columns at
  // once, with no Row() call: no row is over-long (Row() gets those as
  // errors of kind too-long) and, unless `lenient_ok`, no line was
  // repaired by --lenient.
  bool WholeChunk(const Chunk& c, bool lenient_ok = false) const;
  // What ProcessChunk() counts of each row before Row(), and the
  // diagnostics of the invalid rows, for such a chunk (its risk flags
  // too, when the command wants them).
  void CountWholeChunk(Chunk* c) const;

  const Options& opt_;

 private:
  // The rows of c->spans, scanned from c->input.text: PrepareChunk(), then
  // Row() for each.
  void ProcessRows(Chunk* c);
};

// A line that has no rewrite (invalid, or a resolution --above-root=reject
// refuses), its diagnostic made, as --on-error says: false to stop (fail);
// skip drops it; keep writes row i's line as it was read. An over-long one is not
// held in memory (whatever the chunking), so an empty line stands in for
// it. With `empty_normalized`, the crawler profile's NORMALIZED<TAB>ORIGINAL
// gets an empty NORMALIZED, so every line has the same two columns.
bool ApplyOnError(OnError on_error, size_t i, const UriReference& uri,
                  bool empty_normalized, Chunk* c);

// Row i of a chunk beside its reference, for the columns of ColumnWriter:
// its line number (a record's), file name and the line as read.
inline RowContext RowOf(size_t i, const Chunk& c) {
  RowContext row;
  row.line = c.first_line + i;
  row.file = *c.name;
  row.repaired = c.Repaired(i);
  if (!c.too_long_line) {  // (an over-long line is not held: no raw text)
    row.raw = c.AsRead(
        i, std::string_view(c.input.text.data() + c.spans.uri_begin[i],
                            c.spans.uri_end[i] - c.spans.uri_begin[i]));
  }
  return row;
}

// One command in the table of commands (options.cc).
struct CommandSpec {
  const char* name;
  // Its usage line after "uriscan ", and its entry under "commands:" in
  // the help, each line ending in "\n" (made once, from the name tables
  // where it lists names).
  const char* usage;
  std::string (*help)();
  // Whether it reads input files (and so takes --lenient), and whether it
  // takes --on-error (its help then explains it).
  bool reads_input;
  bool takes_on_error;
  std::unique_ptr<CommandRun> (*make)(const Options& opt);
};

struct BaseOption;
// extract's reading of FILEs for another command (stats --from): its
// records, header row and extraction, with --from, --field and --base as
// extract takes them; each chunk's references in Chunk::out, one a line,
// and its counts (lines, extracted, malformed, no_target) in Chunk::totals.
// The references are extracted as written (the caller's --lenient applies
// to its own scan of them). Null with *status after a usage error.
// `visitor`, when given, names what each chunk's log lines (clf,
// combined) are told to, by the chunk's slot (ingest::LogLineVisitor).
std::unique_ptr<CommandRun> MakeExtractor(
    const Options& opt, const std::string& from, const std::string& field,
    const BaseOption& base, int* status,
    std::function<ingest::LogLineVisitor*(size_t slot)> visitor = nullptr);

// CommandSpec::make of a command whose class is `Run`.
template <typename Run>
std::unique_ptr<CommandRun> MakeRun(const Options& opt) {
  return std::make_unique<Run>(opt);
}

// The commands, in the order of the help (cmd_*.cc).
extern const CommandSpec kExtractCommand;
extern const CommandSpec kParseCommand;
extern const CommandSpec kParamsCommand;
extern const CommandSpec kValidateCommand;
extern const CommandSpec kStatsCommand;
extern const CommandSpec kAuditCommand;
extern const CommandSpec kNormalizeCommand;
extern const CommandSpec kResolveCommand;
extern const CommandSpec kDedupCommand;
extern const CommandSpec kStateCommand;

}  // namespace cli
}  // namespace uriscan

#endif  // URISCAN_SRC_CLI_COMMAND_RUN_H_
