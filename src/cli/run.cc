// SPDX-License-Identifier: MIT
// The pipeline every command but state shares: files read in chunks, each
// chunk scanned and counted on a worker thread, then made into output by
// the command's CommandRun (cmd_*.cc), written out in input order with its
// diagnostics, and a summary.
#include "src/cli/run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "src/cli/command_run.h"
#include "src/cli/input.h"
#include "src/cli/lenient.h"
#include "src/cli/options.h"
#include "src/cli/output.h"
#include "src/cli/pipeline.h"
#include "src/cli/report.h"
#include "uriscan/uriscan.h"

namespace uriscan {
namespace cli {
namespace {

// --lenient: each line of the chunk repaired (lenient.h), counted, and the
// chunk's text replaced by the repaired lines.
void RepairChunk(Chunk* c) {
  c->lenient_text.clear();
  c->originals.clear();
  const std::string_view text = c->input.text;
  for (size_t pos = 0; pos < text.size();) {
    const size_t nl = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, nl - pos);
    const bool cr = !line.empty() && line.back() == '\r';
    if (cr) line.remove_suffix(1);
    const bool repaired = RepairReference(line, &c->lenient_text);
    c->originals.push_back(repaired ? line : std::string_view());
    c->totals.repaired += repaired;
    if (cr) c->lenient_text.push_back('\r');
    if (nl < text.size()) c->lenient_text.push_back('\n');
    pos = nl + 1;
  }
  c->input.text = c->lenient_text;
}

}  // namespace

void CommandRun::ProcessChunk(Chunk* c) {
  // One scanner (its scratch) per worker thread.
  thread_local Scanner scanner;
  const auto t0 = std::chrono::steady_clock::now();
  if (c->too_long_line) c->input.text = {};  // one empty row stands in
  if (opt_.lenient && !c->too_long_line) RepairChunk(c);
  const bool scanned = scanner.ScanLines(c->input.text, &c->spans);
  (void)scanned;  // a chunk is far below 4 GiB
  if (c->too_long_line) {
    c->spans.Resize(1);
    c->spans.SetRow(0, 0, ParseUriReference(""));
  }
  c->totals.scan_seconds = std::chrono::duration<double>(
                               std::chrono::steady_clock::now() - t0)
                               .count();
  c->totals.bytes = c->input.text.size();
  c->input_lines = c->spans.size();
  c->rows = c->spans.size();
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
      c->rows = i;
      break;
    }
  }
}

int CommandRun::Report(const Totals& t, bool stopped, double /*wall*/) {
  if (!opt_.quiet) PrintSummary(opt_, t, stopped, nullptr);
  return 0;
}

int Run(const Options& opt) {
  const auto start = std::chrono::steady_clock::now();
  Writer out(stdout);
  Writer err(stderr);
  Totals totals;
  Progress progress(!opt.quiet);
  LineReader reader(opt.chunk_bytes, opt.max_line);
  // One thread reads and writes; `threads` workers scan. With one thread the
  // reader does the work itself. Two chunks per worker keep them all busy
  // while the oldest is written; memory is bounded by that window.
  const size_t workers = opt.threads > 1 ? opt.threads : 0;
  const size_t window = workers ? 2 * workers : 1;
  std::vector<Chunk> chunks(window);
  OrderedPool pool(workers, window);
  int status = 0;
  const std::unique_ptr<CommandRun> command =
      FindCommand(opt.command).make_run(opt);
  const int begun = command->Begin(window, &out.buffer());
  if (begun >= 0) return begun;

  bool stopped = false;  // --on-error=fail met an invalid line
  uint64_t lines_written = 0;  // of the current file, by the chunks emitted
  auto emit_oldest = [&] {
    const size_t slot = pool.Next();
    Chunk& c = chunks[slot];
    if (stopped) {  // after the failure: read ahead, never written
      pool.Release(slot);
      return;
    }
    stopped = c.failed;
    command->Emit(c, &out.buffer(), &totals);
    out.buffer() += c.out;
    if (c.starts_file) lines_written = 0;
    for (const Diagnostic& d : c.diagnostics) {
      AppendDiagnostic(*c.name, lines_written + d.row + 1, d.column, d.kind,
                       d.message, &err.buffer());
    }
    lines_written += c.input_lines;
    Add(c.totals, &totals);
    pool.Release(slot);
    out.MaybeFlush();
    err.MaybeFlush();
    progress.Update(totals);
  };
  // Only records that carry their line number need it before the scan.
  const bool numbered_records = command->NumberedRecords();
  for (const std::string& file : opt.files) {
    if (stopped) break;
    const std::string* name = &file;
    static const std::string kStdin = "<stdin>";
    if (file == "-") name = &kStdin;
    std::string open_error;
    if (!reader.Open(file, &open_error)) {
      while (pool.Pending()) emit_oldest();
      err.Flush();
      std::fprintf(stderr, "uriscan: cannot open '%s': %s\n", file.c_str(),
                   open_error.c_str());
      status = 2;
      continue;
    }
    bool first_chunk = true;
    uint64_t lines_read = 0;
    while (!stopped) {
      if (pool.Full()) emit_oldest();
      if (stopped) break;
      const size_t slot = pool.Acquire();
      Chunk& c = chunks[slot];
      const LineReader::Status st = reader.Next(&c.input);
      if (st == LineReader::Status::kEnd || st == LineReader::Status::kError) {
        pool.Release(slot);
        if (st == LineReader::Status::kError) {
          while (pool.Pending()) emit_oldest();
          err.Flush();
          if (reader.damaged()) {  // docs/design.md, "Input"
            std::fprintf(stderr, "%s: error: %s\n", name->c_str(),
                         reader.error().c_str());
          } else {
            std::fprintf(stderr,
                       "uriscan: error reading '%s' after line %llu: %s\n",
                       name->c_str(),
                       static_cast<unsigned long long>(
                           first_chunk ? 0 : lines_written),
                       reader.error().c_str());
          }
          status = 2;
        }
        break;
      }
      c.too_long_line = st == LineReader::Status::kTooLongLine;
      c.starts_file = first_chunk;
      c.name = name;
      std::string records_error;
      if (!command->TakeRecords(&reader, &c, &records_error)) {
        pool.Release(slot);
        while (pool.Pending()) emit_oldest();
        err.Flush();
        std::fputs(records_error.c_str(), stderr);
        status = 2;
        break;
      }
      first_chunk = false;
      if (numbered_records) {
        c.first_line = lines_read + 1;
        lines_read += c.too_long_line ? 1 : CountLines(c.input.text);
      }
      pool.Submit(slot, [&] {
        c.out.clear();
        c.diagnostics.clear();
        c.totals = Totals{};
        c.failed = false;
        command->ProcessChunk(&c);
      });
    }
    totals.boms += reader.dropped_bom();
  }
  while (pool.Pending()) emit_oldest();
  err.Flush();
  if (!command->Finish(&out, &totals)) status = 2;
  out.Flush();
  progress.Clear();
  if (out.failed()) {
    std::fprintf(stderr, "uriscan: error writing output\n");
    return 2;
  }
  // What the run keeps changes only after a whole run (same input, same
  // output when a failed run is repeated), with its output written.
  if (status == 0 && !stopped && !command->Commit()) status = 2;
  const double wall = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - start)
                          .count();
  const int reported = command->Report(totals, stopped, wall);
  if (reported == 2) return 2;
  if (status == 0) status = reported;
  if (status == 0 && stopped) status = 1;  // --on-error=fail
  return status;
}

}  // namespace cli
}  // namespace uriscan
