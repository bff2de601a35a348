// SPDX-License-Identifier: MIT
// The pipeline every command that reads input shares: files read in
// chunks, each chunk scanned and counted on a worker thread, then made into
// output by the command's CommandRun (cmd_*.cc), written out in input order
// with its diagnostics, and a summary.
#include "src/cli/run.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "src/cli/command_run.h"
#include "src/cli/ingest.h"
#include "src/cli/options.h"
#include "src/cli/output.h"
#include "src/cli/pipeline.h"
#include "src/cli/report.h"
#include "uriscan/lenient.h"
#include "uriscan/uriscan.h"

namespace uriscan {
namespace cli {
namespace {

// --lenient: each line of the chunk repaired (lenient.h), counted, and the
// chunk's text replaced by the repaired lines. A line longer than max_line
// is too long, not repaired, whether or not it came in a run of lines.
void RepairChunk(Chunk* c, size_t max_line) {
  c->lenient_text.clear();
  c->originals.clear();
  const std::string_view text = c->input.text;
  for (size_t pos = 0; pos < text.size();) {
    const size_t nl = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, nl - pos);
    const bool cr = !line.empty() && line.back() == '\r';
    if (cr) line.remove_suffix(1);
    const bool repaired =
        line.size() <= max_line && RepairReference(line, &c->lenient_text);
    if (!repaired && line.size() > max_line) c->lenient_text.append(line);
    c->originals.push_back(repaired ? line : std::string_view());
    c->totals.repaired += repaired;
    if (cr) c->lenient_text.push_back('\r');
    if (nl < text.size()) c->lenient_text.push_back('\n');
    pos = nl + 1;
  }
  c->input.text = c->lenient_text;
}

}  // namespace

bool ApplyOnError(OnError on_error, size_t i, const UriReference& uri,
                  bool empty_normalized, Chunk* c) {
  if (on_error == OnError::kFail) return false;
  if (on_error == OnError::kSkip) return true;
  const bool whole = uri.error().kind != ErrorKind::kTooLong;
  if (empty_normalized) {  // a column of two: a TAB in the line is escaped
    c->out.push_back('\t');
    if (whole) AppendPgText(c->AsRead(i, uri.text()), &c->out);
  } else if (whole) {
    c->out.append(c->AsRead(i, uri.text()));
  }
  c->out.push_back('\n');
  return true;
}

bool CommandRun::WholeChunk(const Chunk& c, bool lenient_ok) const {
  if (c.too_long_line || (opt_.lenient && !lenient_ok)) return false;
  const ComponentSpans& s = c.spans;
  uint32_t longest = 0;
  for (size_t i = 0; i < s.size(); ++i)
    longest = std::max(longest, s.uri_end[i] - s.uri_begin[i]);
  return longest <= opt_.max_line;
}

void CommandRun::CountWholeChunk(Chunk* c) const {
  CountColumns(c->spans, &c->totals);
  const uint8_t* kinds = c->spans.error_kind.data();
  ForEachInvalid(kinds, c->spans.size(),
                 [&](size_t i) { c->Diagnose(i, c->spans.Error(i)); });
  if (!WantsRiskFlags()) return;
  for (size_t i = 0; i < c->spans.size(); ++i) {
    if (c->risk_column[i] != 0 && kinds[i] == 0)
      CountRisks(c->risk_column[i], &c->totals);
  }
}

void CommandRun::ProcessChunk(Chunk* c) {
  // One scanner (its scratch) per worker thread.
  thread_local Scanner scanner;
  using Clock = std::chrono::steady_clock;
  if (c->too_long_line) c->input.text = {};  // one empty row stands in
  if (opt_.lenient && !c->too_long_line) {
    RepairChunk(c, opt_.max_line);
  } else {
    c->originals.clear();  // none repaired (views of a previous chunk else)
  }
  // (A line too long counts its bytes as it does in a run of lines.)
  c->totals.bytes = c->too_long_line ? c->dropped_bytes : c->input.text.size();
  c->row_base = 0;
  if (c->max_rows == 0 || c->too_long_line) {
    const auto t0 = Clock::now();
    const bool scanned =
        scanner.ScanLines(c->input.text, &c->spans, CountedLines(c->input));
    (void)scanned;  // a chunk is far below 4 GiB
    if (c->too_long_line) {
      c->spans.Resize(1);
      c->spans.SetRow(0, 0, ParseUriReference(""));
    }
    c->totals.scan_seconds =
        std::chrono::duration<double>(Clock::now() - t0).count();
    c->input_lines = c->spans.size();
    c->rows = c->spans.size();
    ProcessRows(c);
    return;
  }
  // The reader left the lines uncounted: at most max_rows of them at a
  // time, each run with its own text (the spans' offsets start there).
  const std::string_view whole = c->input.text;
  size_t pos = 0, n = 0;
  do {
    const auto t0 = Clock::now();
    n = scanner.ScanLinesUpTo(whole.substr(pos), &c->spans, c->max_rows);
    c->totals.scan_seconds +=
        std::chrono::duration<double>(Clock::now() - t0).count();
    c->input.text = whole.substr(pos, n);
    c->rows = c->row_base + c->spans.size();
    ProcessRows(c);
    if (c->failed) break;
    c->row_base += c->spans.size();
    pos += n;
  } while (pos < whole.size() && n != 0);  // (n is 0 only past 4 GiB)
  c->input.text = whole;
  if (!c->failed) c->rows = c->row_base;
  c->input_lines = c->row_base + (c->failed ? c->spans.size() : 0);
}

void CommandRun::ProcessRows(Chunk* c) {
  // The rows, for the stages after the scan: they read the bytes where the
  // spans point.
  const Batch rows{c->input.text.data(), nullptr, c->spans.size()};
  const bool want_risks = WantsRiskFlags();
  if (want_risks) RiskFlags(rows, c->spans, &c->risk_column);
  if (!PrepareChunk(rows, c)) return;
  const char* data = c->input.text.data();
  for (size_t i = 0; i < c->spans.size(); ++i) {
    UriReference uri = c->spans.Row(i, data);
    // Over-long lines are errors whether or not they fit in a chunk, so the
    // result never depends on how the input was read.
    if (c->too_long_line || uri.text().size() > opt_.max_line) {
      uri = UriReference(uri.text(), Boundaries{}, 0,
                         {ErrorKind::kTooLong,
                          static_cast<uint32_t>(opt_.max_line)});
    }
    Count(uri, &c->totals);
    const uint32_t risk_flags =
        !want_risks ? 0 : uri.valid() ? c->risk_column[i] : risks::kInvalid;
    CountRisks(risk_flags, &c->totals);
    if (!Row(i, uri, risk_flags, c)) {  // --on-error=fail
      c->failed = true;
      c->rows = c->row_base + i;
      break;
    }
  }
}

int CommandRun::Report(const Totals& t, bool stopped, double /*wall*/) {
  if (!opt_.quiet) PrintSummary(opt_, t, stopped, SummaryTail(t));
  return 0;
}

int CommandRun::Main() { return RunPipeline(opt_, this); }

namespace {

// The bytes of all `files` (regular files, "-" for stdin), or 0 when one's
// size is not known (a pipe, a terminal, a file that cannot be read).
uint64_t InputSize(const std::vector<std::string>& files) {
  uint64_t size = 0;
  for (const std::string& file : files) {
    struct stat st;
    const int got = file == "-" ? ::fstat(0, &st) : ::stat(file.c_str(), &st);
    if (got != 0 || !S_ISREG(st.st_mode)) return 0;
    size += static_cast<uint64_t>(st.st_size);
  }
  return size;
}

// One run: the chunks in flight, written out in input order.
class Pipeline {
 public:
  Pipeline(const Options& opt, CommandRun* command)
      : opt_(opt),
        command_(command),
        progress_(!opt.quiet, opt.progress),
        reader_(opt.chunk_bytes, opt.max_line),
        // One thread reads and writes; `threads` workers scan. With one
        // thread the reader does the work itself. Two chunks per worker keep
        // them all busy while the oldest is written; memory is bounded by
        // that window.
        workers_(opt.threads > 1 ? opt.threads : 0),
        window_(workers_ ? 2 * workers_ : 1),
        chunks_(window_),
        pool_(workers_, window_) {
    for (size_t slot = 0; slot < window_; ++slot) chunks_[slot].slot = slot;
    // Live input (a pipe that goes quiet): what was read is written out
    // before the reader waits for more.
    reader_.set_on_wait([this] { return WriteOutDone(); });
  }

  int Run();

 private:
  // Reads one file to its end (or the first failure); false when the run
  // must stop there.
  void ReadFile(const std::string& file);
  // Writes out the oldest chunk in flight, its diagnostics and counts.
  void EmitOldest();
  // Writes out the chunks done so far, in order, without waiting for the
  // others, and flushes the output: whether chunks are still in flight, or
  // the run must stop (an output error, --on-error=fail).
  LineReader::Flight WriteOutDone();
  // The output so far onto stdout, the progress line cleared first.
  void FlushOutput();
  // The diagnostics gathered so far onto stderr, after the output before
  // them, the progress line cleared first.
  void FlushDiagnostics();
  // Writes out every chunk in flight, then `message` on stderr; status 2.
  void FailWith(const std::string& message);

  const Options& opt_;
  CommandRun* const command_;
  Writer out_{stdout};
  Writer err_{stderr};
  Totals totals_;
  Progress progress_;
  LineReader reader_;
  const size_t workers_, window_;
  std::vector<Chunk> chunks_;
  OrderedPool pool_;
  int status_ = 0;
  bool stopped_ = false;  // --on-error=fail met an invalid line
  // The output cannot be written, or the command cannot succeed
  // (CommandRun::Halted()): nothing more is read.
  bool halted_ = false;
  uint64_t lines_written_ = 0;  // of the current file, by the chunks emitted
  uint64_t diagnostics_printed_ = 0;  // up to --max-errors
  // --line-numbers=global: the lines read in the files before this one.
  uint64_t lines_before_file_ = 0;
  // For the progress line: the size of all input files (0 when one of them
  // is not a regular file), and of the files read to their end.
  uint64_t input_size_ = 0, files_done_size_ = 0;
};

void Pipeline::FlushOutput() {
  progress_.Clear();
  out_.Flush();
}

void Pipeline::FlushDiagnostics() {
  if (err_.buffer().empty()) return;
  // The records before them first: on a terminal (2>&1) each diagnostic
  // follows the output of the lines before its own.
  FlushOutput();
  err_.Flush();
}

LineReader::Flight Pipeline::WriteOutDone() {
  while (pool_.NextDone()) EmitOldest();
  FlushDiagnostics();
  if (!out_.buffer().empty()) FlushOutput();
  halted_ = halted_ || out_.failed();
  if (halted_ || stopped_) return LineReader::Flight::kStop;
  return pool_.Pending() ? LineReader::Flight::kSome
                         : LineReader::Flight::kNone;
}

// A chunk's output this large is written from where it lies rather than
// copied into the output buffer first.
constexpr size_t kWriteThrough = 64 << 10;

void Pipeline::EmitOldest() {
  const size_t slot = pool_.Next();
  Chunk& c = chunks_[slot];
  if (stopped_ || halted_) {  // after the failure: read ahead, never written
    pool_.Release(slot);
    return;
  }
  if (c.input.mapped && c.input.mapped->faulted()) {
    // The file shrank under its mapping: this run read zeros past the
    // cut. Nothing of it is written; the run fails, as a failed read does.
    halted_ = true;
    status_ = 2;
    FlushDiagnostics();
    progress_.Clear();
    std::fputs(("uriscan: error reading '" + *c.name + "' after line " +
                std::to_string(lines_written_) +
                ": the file shrank while it was read: the lines after the "
                "cut were not read\n").c_str(),
               stderr);
    ReleaseRun(&c.input);
    pool_.Release(slot);
    return;
  }
  stopped_ = c.failed;
  command_->Emit(c, &out_.buffer(), &totals_);
  const auto write = [this](const std::string& text) {
    if (text.size() >= kWriteThrough) {
      progress_.Clear();
      out_.WriteThrough(text);
    } else {
      out_.buffer() += text;
    }
  };
  for (const std::string& part : c.out_parts) write(part);
  write(c.out);
  c.out_parts.clear();
  if (c.starts_file && !opt_.global_lines) lines_written_ = 0;
  for (const Diagnostic& d : c.diagnostics) {
    if (diagnostics_printed_ == opt_.max_errors) {
      ++totals_.held_back;
      continue;
    }
    ++diagnostics_printed_;
    AppendDiagnostic(*c.name, lines_written_ + d.row + 1, d.column, d.kind,
                     d.message, &err_.buffer());
  }
  lines_written_ += c.input_lines;
  Add(c.totals, &totals_);
  ReleaseRun(&c.input);  // memory follows the chunks in flight
  pool_.Release(slot);
  if (out_.Full()) FlushOutput();
  FlushDiagnostics();
  halted_ = out_.failed() || command_->Halted();
  progress_.Update(totals_, files_done_size_ + reader_.position(),
                   input_size_);
}

void Pipeline::FailWith(const std::string& message) {
  while (pool_.Pending()) EmitOldest();
  FlushDiagnostics();
  progress_.Clear();
  // (A run that read a cut file's lost pages said so already: EmitOldest.)
  if (status_ == 0) std::fputs(message.c_str(), stderr);
  status_ = 2;
}

void Pipeline::ReadFile(const std::string& file) {
  static const std::string kStdin = "<stdin>";
  const std::string* name = file == "-" ? &kStdin : &file;
  std::string error;
  reader_.set_map_files(true);  // (the command guards its mappings: main.cc)
  if (!reader_.Open(file, &error)) {
    FailWith("uriscan: cannot open '" + file + "': " + error + "\n");
    return;
  }
  command_->Follow(&reader_);
  // Only records that carry their line number need it before the scan.
  const bool numbered_records = command_->NumberedRecords();
  // Commands that can take a chunk a run of rows at a time bound its rows
  // themselves, so the lines are not counted here first.
  const bool segments =
      command_->SegmentRows() != 0 && !opt_.lenient && !numbered_records;
  reader_.set_count_rows(!segments);
  bool first_chunk = true;
  uint64_t lines_read = opt_.global_lines ? lines_before_file_ : 0;
  while (!stopped_ && !halted_) {
    if (pool_.Full()) EmitOldest();
    if (stopped_ || halted_) break;
    const size_t slot = pool_.Acquire();
    Chunk& c = chunks_[slot];
    const LineReader::Status st = reader_.Next(&c.input);
    if (st == LineReader::Status::kEnd) {
      pool_.Release(slot);
      break;
    }
    if (st == LineReader::Status::kError) {
      pool_.Release(slot);
      // The runs read before the error are written first, so that the
      // message names the last line written.
      while (pool_.Pending()) EmitOldest();
      if (reader_.damaged()) {  // docs/design.md, "Input"
        FailWith(*name + ": error: " + reader_.error() + "\n");
      } else {
        FailWith("uriscan: error reading '" + *name + "' after line " +
                 std::to_string(first_chunk ? 0 : lines_written_) + ": " +
                 reader_.error() + "\n");
      }
      break;
    }
    c.too_long_line = st == LineReader::Status::kTooLongLine;
    c.dropped_bytes = c.too_long_line ? reader_.dropped_bytes() : 0;
    c.skipped_lines = 0;
    c.max_rows = segments && !c.too_long_line
                     ? std::min(reader_.max_rows(), command_->SegmentRows())
                     : 0;
    c.starts_file = first_chunk;
    c.name = name;
    if (!command_->TakeRecords(&reader_, &c, &error)) {
      pool_.Release(slot);
      FailWith(error);
      break;
    }
    first_chunk = false;
    if (numbered_records) {
      c.first_line = lines_read + 1;
      lines_read +=
          c.too_long_line ? 1 : LineCount(c.input) + c.skipped_lines;
    }
    pool_.Submit(slot, [this, &c] {
      c.out.clear();
      c.out_parts.clear();
      c.diagnostics.clear();
      c.totals = Totals{};
      c.failed = false;
      command_->ProcessChunk(&c);
    });
  }
  if (first_chunk && !stopped_ && !halted_ && status_ == 0 &&
      !command_->EmptyFile(*name, &error))
    FailWith(error);
  totals_.boms += reader_.dropped_bom();
  lines_before_file_ = lines_read;
  files_done_size_ += reader_.size();
}

int Pipeline::Run() {
  const auto start = std::chrono::steady_clock::now();
  const int begun = command_->Begin(window_, &out_.buffer());
  if (begun >= 0) return begun;
  if (progress_.enabled()) input_size_ = InputSize(opt_.files);
  progress_.Start();
  for (const std::string& file : opt_.files) {
    if (stopped_ || halted_) break;
    ReadFile(file);
  }
  while (pool_.Pending()) EmitOldest();
  FlushDiagnostics();
  progress_.Clear();
  if (!command_->Finish(&out_, &totals_)) status_ = 2;
  out_.Flush();
  if (out_.failed()) return OutputError(out_.error());
  // What the run keeps changes only after a whole run (same input, same
  // output when a failed run is repeated), with its output written.
  if (status_ == 0 && !stopped_ && !command_->Commit()) status_ = 2;
  // A failed run reports no counts: after its error they would read as a
  // success, or as the counts of inputs that were not all read.
  if (status_ != 0) return status_;
  const double wall = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - start)
                          .count();
  const int reported = command_->Report(totals_, stopped_, wall);
  if (reported != 0) return reported;
  return stopped_ ? 1 : 0;  // --on-error=fail
}

}  // namespace

int RunPipeline(const Options& opt, CommandRun* command) {
  return Pipeline(opt, command).Run();
}

}  // namespace cli
}  // namespace uriscan
