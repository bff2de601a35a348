// SPDX-License-Identifier: MIT
// A run of every command but state: files read in chunks, each chunk
// scanned on a worker thread and processed as the command asks, written
// out in input order, with diagnostics and a summary.
#include "src/cli/run.h"

#include <libpsl.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "src/cli/columns.h"
#include "src/cli/dedup_sink.h"
#include "src/cli/extract.h"
#include "src/cli/input.h"
#include "src/cli/lenient.h"
#include "src/cli/output.h"
#include "src/cli/pipeline.h"
#include "src/cli/report.h"
#include "src/cli/state_command.h"
#include "uriscan/uriscan.h"

namespace uriscan {
namespace cli {
namespace {

// True when some row of `s` is longer than max_line bytes.
bool AnyLongerThan(const ComponentSpans& s, size_t max_line) {
  uint32_t longest = 0;
  for (size_t i = 0; i < s.size(); ++i)
    longest = std::max(longest, s.uri_end[i] - s.uri_begin[i]);
  return longest > max_line;
}

// One chunk of input lines and everything the command makes of it. Chunks are
// processed on worker threads and written out in input order.
// A diagnostic of row `row` of a chunk. Line numbers are known only when
// the chunks before it are scanned, so the text is made as it is written.
struct Diagnostic {
  size_t row;
  uint64_t column;
  std::string_view kind, message;  // static strings
};

struct Chunk {
  Lines input;  // raw, as read (or mapped); rows are scanned where they lie
  bool too_long_line = false;
  bool starts_file = false;  // line numbers start again from 1 here
  // The number of the chunk's first line, for the records that carry one
  // (parse --format=tsv, audit); 0 for the others, where only diagnostics
  // have line numbers, made when the chunk is written.
  uint64_t first_line = 0;
  const std::string* name = nullptr;
  std::vector<Diagnostic> diagnostics;
  ComponentSpans spans;
  std::vector<uint64_t> keys;  // dedup: row i's key, 0 when invalid
  std::vector<uint32_t> risk_column;  // audit, stats, parse jsonl
  size_t rows = 0;             // rows processed (fewer after a failure)
  std::string out;
  Totals totals;
  bool failed = false;  // --on-error=fail met an invalid line: out stops there
  // extract: bytes of a header row to step over, the column the header
  // named, and how many input lines the chunk holds.
  size_t skip = 0;
  size_t column = 0;
  uint64_t input_lines = 0;
  // --lenient: the repaired lines (input.text then points here), and for
  // row i the original line when it was repaired (empty otherwise).
  std::string lenient_text;
  std::vector<std::string_view> originals;
};

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

// extract on one chunk of whole records.
void ExtractChunk(const Options& opt, Chunk* c) {
  c->input_lines = c->too_long_line ? 1 : CountLines(c->input.text);
  c->totals.lines = c->input_lines;
  c->totals.bytes = c->input.text.size();
  if (c->too_long_line) {
    c->diagnostics.push_back({0, opt.max_line + 1,
                              ErrorKindName(ErrorKind::kTooLong),
                              ErrorKindMessage(ErrorKind::kTooLong)});
    ++c->totals.malformed;
    return;
  }
  ExtractOptions x = opt.extract;
  x.column = opt.header_field ? c->column : x.column;
  const std::string_view header = c->input.text.substr(0, c->skip);
  const uint64_t header_lines = std::count(header.begin(), header.end(), '\n');
  // Lines longer than --max-line are diagnosed and left empty, whether or
  // not they fit in a chunk, so the output never depends on the chunking.
  std::string_view text = c->input.text.substr(c->skip);
  thread_local std::string trimmed;
  for (size_t pos = 0, line = 0; pos < text.size(); ++line) {
    const size_t nl = std::min(text.find('\n', pos), text.size());
    if (nl - pos > opt.max_line) {
      if (text.data() != trimmed.data()) {
        trimmed.assign(text);
        text = trimmed;
      }
      trimmed.erase(pos, nl - pos);
      text = trimmed;
      c->diagnostics.push_back({header_lines + line, opt.max_line + 1,
                                ErrorKindName(ErrorKind::kTooLong),
                                ErrorKindMessage(ErrorKind::kTooLong)});
      ++c->totals.malformed;
      pos += 1;
      continue;
    }
    pos = nl + 1;
  }
  thread_local std::vector<ExtractProblem> problems;
  problems.clear();
  Extract(text, x, c->first_line + header_lines, &c->out, &problems);
  for (const ExtractProblem& p : problems)
    c->diagnostics.push_back({header_lines + p.line, p.column, p.kind,
                              p.message});
  c->totals.malformed += problems.size();
  c->totals.extracted = std::count(c->out.begin(), c->out.end(), '\n');
}

// The text of the current document for a 1997 same-document reference: the
// base without its fragment, then the reference's fragment.
void AppendSameDocument(const UriReference& base, std::string_view fragment,
                        std::string* out) {
  const std::string_view text = base.text();
  const auto base_fragment = base.fragment();
  out->append(base_fragment ? text.substr(0, text.size() -
                                                 base_fragment->size() - 1)
                            : text);
  out->append(fragment);
}

void ProcessChunk(const Options& opt, const Fingerprinter& fingerprinter,
                  const ColumnWriter* columns, Chunk* c) {
  c->out.clear();
  c->diagnostics.clear();
  c->totals = Totals{};
  c->failed = false;
  // One scanner (its scratch) per worker thread.
  if (opt.command == Command::kExtract) return ExtractChunk(opt, c);
  thread_local Scanner scanner;
  const auto t0 = std::chrono::steady_clock::now();
  if (c->too_long_line) c->input.text = {};  // one empty row stands in
  if (opt.lenient && !c->too_long_line) RepairChunk(c);
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
  // The rows, for the stages after the scan: they read the bytes where the
  // spans point.
  const Batch rows{c->input.text.data(), nullptr, c->spans.size()};
  // mimalloc heaps belong to the thread that made them: one arena per
  // worker thread, reused chunk after chunk.
  thread_local NormalizedBatch normalized;
  const bool want_risks =
      opt.command == Command::kAudit || opt.command == Command::kStats ||
      (opt.command == Command::kParse && opt.format == Format::kJsonl);
  if (want_risks) RiskFlags(rows, c->spans, &c->risk_column);
  // resolve: every row at once, most of them by ResolveBatch's fast path
  // (a path with no dot segment is the base's prefix plus its own bytes).
  thread_local ResolvedBatch resolved;
  if (opt.command == Command::kResolve) {
    thread_local std::vector<uint32_t> offsets;  // row i from uri_begin[i]
    offsets.assign(c->spans.uri_begin.begin(), c->spans.uri_begin.end());
    offsets.push_back(c->spans.size() ? c->spans.uri_end[c->spans.size() - 1]
                                      : 0);
    const Batch refs{c->input.text.data(), offsets.data(), c->spans.size()};
    ResolveBatch(opt.base, refs, c->spans, opt.resolve, false, &resolved);
  }
  thread_local DerivedRows derived;  // parse --columns
  if (columns) columns->Prepare(rows, c->spans, &derived);
  if (opt.command == Command::kNormalize) {
    NormalizeBatch(rows, c->spans, opt.profile, &normalized,
                   opt.normalize);
  } else if (opt.command == Command::kDedup) {
    fingerprinter.Batch64(rows, c->spans, &c->keys);
  }
  c->rows = c->spans.size();
  const char* data = c->input.text.data();
  if (opt.command == Command::kValidate && !c->too_long_line &&
      !AnyLongerThan(c->spans, opt.max_line)) {
    // validate writes only diagnostics: count the columns, then visit the
    // invalid rows alone.
    CountColumns(c->spans, &c->totals);
    for (size_t i = 0; i < c->spans.size(); ++i) {
      if (c->spans.error_kind[i] == 0) continue;
      const ScanError e = c->spans.Error(i);
      c->diagnostics.push_back({i, e.offset + uint64_t{1},
                                ErrorKindName(e.kind),
                                ErrorKindMessage(e.kind)});
    }
    return;
  }
  for (size_t i = 0; i < c->spans.size(); ++i) {
    UriReference uri = c->spans.Row(i, data);
    // Over-long lines are errors whether or not they fit in a chunk, so the
    // result never depends on how the input was read.
    if (c->too_long_line || uri.text().size() > opt.max_line) {
      uri = UriReference(uri.text(), Boundaries{}, 0,
                         {ErrorKind::kTooLong,
                          static_cast<uint32_t>(opt.max_line)});
    }
    Count(uri, &c->totals);
    const uint32_t risk_flags =
        !want_risks ? 0 : uri.valid() ? c->risk_column[i] : risks::kInvalid;
    CountRisks(risk_flags, &c->totals);
    const bool transform = opt.command == Command::kNormalize ||
                           opt.command == Command::kResolve;
    // A diagnostic's column, kind and message: the parse error, or a
    // resolution the options refuse.
    bool bad = !uri.valid();
    uint64_t column = uri.error().offset + uint64_t{1};
    std::string_view kind = ErrorKindName(uri.error().kind);
    std::string_view message = ErrorKindMessage(uri.error().kind);
    const size_t out_before = c->out.size();
    if (!bad && opt.command == Command::kResolve) {
      const ResolveStatus rs = resolved.status[i];
      if (rs == ResolveStatus::kOk) {
        c->out.append(resolved.Get(i));
      } else if (rs == ResolveStatus::kSameDocument) {
        AppendSameDocument(opt.base, resolved.Get(i), &c->out);
      } else if (rs != ResolveStatus::kOk) {  // only kAboveRoot can be left
        bad = true;
        column = 1;
        kind = ResolveStatusName(rs);
        message = "a \"..\" segment climbs above the root "
                  "(--above-root=reject)";
        ++c->totals.unresolved;
      }
    }
    if (bad && opt.command != Command::kStats)
      c->diagnostics.push_back({i, column, kind, message});
    if (opt.command == Command::kDedup) {  // the rest is on the main thread
      if (bad) c->keys[i] = 0;
      if (bad && opt.on_error == OnError::kFail) {
        c->failed = true;
        c->rows = i;
        break;
      }
    } else if (transform) {
      if (bad) {
        c->out.resize(out_before);
        if (opt.on_error == OnError::kFail) {
          c->failed = true;
          break;
        }
        if (opt.on_error == OnError::kSkip) continue;
        // keep: the line as it was; an over-long one is not held in memory
        // (whatever the chunking), so an empty line stands in for it. The
        // crawler profile's KEY<TAB>ORIGINAL gets an empty KEY, so every
        // line has the same two columns.
        if (opt.command == Command::kNormalize &&
            opt.profile == Profile::kCrawler)
          c->out.push_back('\t');
        if (uri.error().kind != ErrorKind::kTooLong) c->out.append(uri.text());
      } else if (opt.command == Command::kNormalize) {
        const std::string_view normal = normalized.Get(i);
        c->out.append(normal);
        c->totals.rewritten += normal != uri.text();
        if (opt.profile == Profile::kCrawler) {
          c->out.push_back('\t');
          c->out.append(uri.text());
        }
      }
      c->out.push_back('\n');
    } else if (opt.command == Command::kParse) {
      if (opt.format == Format::kJsonl) {
        AppendJsonRecord(uri, &c->out, risk_flags);
        if (opt.lenient && !c->originals[i].empty())
          AppendJsonRepaired(c->originals[i], &c->out);
        c->out.push_back('\n');
      } else {
        if (columns) {
          columns->AppendRow(i, c->first_line + i, uri, derived, &c->out);
        } else {
          AppendTsvRecord(c->first_line + i, uri, &c->out);
        }
      }
    } else if (opt.command == Command::kAudit) {
      AppendAuditRecord(c->first_line + i, risk_flags, &c->out);
    }
  }
}

// dedup --state: the run's new classes into the state.
bool CommitState(SeenState* state) {
  std::string error;
  if (state->Commit(&error)) return true;
  std::fprintf(stderr, "uriscan: dedup --state: %s; %s\n", error.c_str(),
               state->published()
                   ? "the state includes this run, but may not be durable"
                   : "the state is as before this run");
  return false;
}

// extract: cuts `lines` back to whole records (a quoted field or a wrapped
// "<...>" may hold line breaks), reading more while not even one is whole.
void TakeWholeRecords(const Options& opt, LineReader* reader, Lines* lines) {
  size_t keep = RecordsEnd(lines->text, opt.extract, reader->at_end());
  size_t want = lines->text.size();
  while (keep == 0 && lines->text.size() < opt.max_line) {
    reader->Unread(lines->text.size());
    want *= 2;  // the next line may be longer than the text so far
    reader->set_min_bytes(want);
    const LineReader::Status st = reader->Next(lines);
    reader->set_min_bytes(0);
    if (st != LineReader::Status::kLines) return;
    keep = RecordsEnd(lines->text, opt.extract, reader->at_end());
  }
  if (keep == 0) return;  // past --max-line: as it is, with a diagnostic
  reader->Unread(lines->text.size() - keep);
  lines->text = lines->text.substr(0, keep);
}

}  // namespace

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
  const Fingerprinter fingerprinter(opt.profile, opt.normalize);
  // parse --columns, with libpsl's built-in list unless --psl names one.
  std::unique_ptr<psl_ctx_t, void (*)(psl_ctx_t*)> psl(nullptr, psl_free);
  std::unique_ptr<ColumnWriter> columns;
  if (!opt.columns.empty()) {
    if (!opt.psl_file.empty()) {
      psl.reset(psl_load_file(opt.psl_file.c_str()));
      if (!psl) {
        std::fprintf(stderr, "uriscan: --psl: cannot load '%s'\n",
                     opt.psl_file.c_str());
        return 2;
      }
    }
    columns = std::make_unique<ColumnWriter>(
        opt.columns, psl ? psl.get() : psl_builtin(), fingerprinter,
        opt.profile, opt.normalize);
  }
  if (opt.command == Command::kParse && opt.format == Format::kTsv) {
    if (columns) {
      columns->AppendHeader(&out.buffer());
    } else {
      AppendTsvHeader(&out.buffer());
    }
  }
  std::unique_ptr<DedupSink> dedup;
  std::unique_ptr<SeenState> state;  // dedup --state
  if (opt.command == Command::kDedup && !opt.state_dir.empty()) {
    state = OpenDedupState(opt.state_dir, fingerprinter, opt.normalize);
    if (!state) return 2;
  }
  if (opt.command == Command::kDedup) {
    // --memory bounds the process: the chunks in flight (their text, batch,
    // spans and keys, about 6 bytes per input byte) come off the top.
    DedupSink::Config config = opt.dedup;
    const size_t in_flight = window * 6 * opt.chunk_bytes;
    config.memory = std::max(config.memory / 4,
                             config.memory > in_flight ? config.memory - in_flight : 0);
    config.state = state.get();
    dedup = std::make_unique<DedupSink>(config);
  }

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
    if (dedup) {
      for (size_t i = 0; i < c.rows; ++i) {
        if (c.keys[i] == 0 && opt.on_error == OnError::kSkip) continue;
        // An over-long line is not held in memory: an empty line stands in.
        std::string_view line = c.spans.Row(i, c.input.text.data()).text();
        if (c.too_long_line || line.size() > opt.max_line) line = {};
        dedup->Row(c.keys[i], line, &out.buffer());
      }
    }
    out.buffer() += c.out;
    if (c.starts_file) lines_written = 0;
    for (const Diagnostic& d : c.diagnostics) {
      AppendDiagnostic(*c.name, lines_written + d.row + 1, d.column, d.kind,
                       d.message, &err.buffer());
    }
    lines_written += opt.command == Command::kExtract ? c.input_lines
                     : c.too_long_line                 ? 1
                                                       : c.spans.size();
    Add(c.totals, &totals);
    if (dedup) totals.distinct = dedup->distinct();
    pool.Release(slot);
    out.MaybeFlush();
    err.MaybeFlush();
    progress.Update(totals);
  };
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
    // Only records that carry their line number need it before the scan:
    // counting the lines is a pass over every byte on this thread.
    const bool numbered_records =
        opt.command == Command::kAudit ||
        (opt.command == Command::kParse && opt.format == Format::kTsv) ||
        (opt.command == Command::kExtract && opt.extract.with_line);
    size_t file_column = 0;  // extract --field=NAME: from the header row
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
          if (reader.damaged()) {  // DESIGN.md sec. 8
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
      c.skip = 0;
      if (opt.command == Command::kExtract && !c.too_long_line) {
        TakeWholeRecords(opt, &reader, &c.input);
        if (first_chunk && opt.header_field) {
          size_t header_end = 0;
          if (!FindColumn(c.input.text, opt.extract, &file_column,
                          &header_end)) {
            pool.Release(slot);
            while (pool.Pending()) emit_oldest();
            err.Flush();
            std::fprintf(stderr,
                         "%s:1:1: error: log-format: no column named '%s' "
                         "in the header row\n",
                         name->c_str(), opt.extract.field_name.c_str());
            status = 2;
            break;
          }
          c.skip = header_end;
        }
        c.column = file_column;
      }
      c.starts_file = first_chunk;
      first_chunk = false;
      c.name = name;
      if (numbered_records) {
        c.first_line = lines_read + 1;
        lines_read += c.too_long_line ? 1 : CountLines(c.input.text);
      }
      pool.Submit(slot, [&] {
        ProcessChunk(opt, fingerprinter, columns.get(), &c);
      });
    }
    totals.boms += reader.dropped_bom();
  }
  while (pool.Pending()) emit_oldest();
  err.Flush();
  if (dedup) {
    std::string error;
    if (!dedup->Finish(&out, &error)) {
      out.Flush();
      std::fprintf(stderr, "uriscan: dedup: %s\n", error.c_str());
      status = 2;
    }
    totals.distinct = dedup->distinct();
  }
  out.Flush();
  progress.Clear();
  if (out.failed()) {
    std::fprintf(stderr, "uriscan: error writing output\n");
    return 2;
  }
  // The state changes only after a whole run (same input, same output when
  // a failed run is repeated), with its output written.
  if (state && status == 0 && !stopped && !CommitState(state.get()))
    status = 2;
  const double wall = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - start)
                          .count();
  if (opt.command == Command::kExtract) {
    if (!opt.quiet)
      std::fprintf(stderr,
                   "uriscan: %llu lines, %llu URI references, %llu malformed\n",
                   static_cast<unsigned long long>(totals.lines),
                   static_cast<unsigned long long>(totals.extracted),
                   static_cast<unsigned long long>(totals.malformed));
  } else if (opt.command == Command::kStats) {
    PrintStats(opt, totals, wall);
    if (WriteStdout("") != 0) return 2;
  } else if (!opt.quiet) {
    PrintSummary(opt, totals, stopped, dedup.get());
  }
  if (status == 0 && opt.command == Command::kValidate &&
      totals.valid != totals.lines) {
    status = 1;
  }
  if (status == 0 && stopped) status = 1;  // --on-error=fail
  return status;
}

}  // namespace cli
}  // namespace uriscan
