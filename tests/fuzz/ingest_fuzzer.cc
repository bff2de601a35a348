// SPDX-License-Identifier: MIT
// libFuzzer harness of the ingest layer as every front end drives it
// (LogReader, uriscan/ingest.h). The first byte picks the format (its low
// three bits) and its options (the others), the second the run size, the third how a pipe splits the input
// and where a truncation cuts it; the rest is the file. The rows and
// problems must not depend on how the bytes arrive: read from the file in
// small runs, in one large run, and through a pipe in short writes, they
// are the same, or the same error. A file cut short while it is read must
// end in rows and an error, never a crash or a hang. Any difference aborts.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tests/fuzz/fuzz_input.h"
#include "uriscan/ingest.h"

namespace {

using uriscan_fuzz::WithoutDamageOffset;

// Rows, then problems, as text (each in input order; how they fall into
// batches may differ), then the error that ended the read.
std::string ReadAll(const std::string& path, const uriscan::LogReaderOptions& o,
                    size_t truncate_after_batch = SIZE_MAX,
                    off_t truncate_to = 0) {
  std::string out, problems;
  try {
    uriscan::LogReader reader({path}, o);
    uriscan::LogBatch batch;
    size_t batches = 0;
    while (reader.Next(&batch)) {
      for (size_t i = 0; i < batch.rows.size(); ++i) {
        const uriscan::LogRow& r = batch.rows[i];
        out += std::to_string(r.line) + "\t" + std::string(batch.uri(i));
        if (o.log_fields) {
          const uriscan::LogFieldsRow& f = batch.fields.at(i);
          out += "\t" + std::string(batch.Text(f.client)) + "\t" +
                 std::to_string(f.has_time ? f.time : -1) + "\t" +
                 std::string(batch.Text(f.method)) + "\t" +
                 std::to_string(f.status) + "\t" + std::to_string(f.bytes) +
                 "\t" + std::string(batch.Text(f.referer)) + "\t" +
                 std::string(batch.Text(f.user_agent));
        }
        out += "\n";
      }
      for (const uriscan::LogProblem& p : batch.problems)
        problems += std::to_string(p.line) + ":" + std::to_string(p.column) +
                    " " + p.kind + " " + p.message + "\n";
      if (++batches == truncate_after_batch &&
          ::truncate(path.c_str(), truncate_to) != 0)
        std::abort();
    }
  } catch (const uriscan::LogReadError& e) {
    // The file's name and "error reading after line N" differ between a
    // file and a pipe; what failed must not.
    const std::string what = e.what();
    problems += "error:" + what.substr(what.find(": ") + 1) + "\n";
  }
  return out + problems;
}

void Check(bool ok, const char* what, const std::string& a,
           const std::string& b) {
  if (ok) return;
  std::fprintf(stderr, "ingest fuzzer: %s\n--- a (%zu bytes)\n", what,
               a.size());
  std::fwrite(a.data(), 1, a.size(), stderr);
  std::fprintf(stderr, "--- b (%zu bytes)\n", b.size());
  std::fwrite(b.data(), 1, b.size(), stderr);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  static const char* const kFormats[] = {"lines", "text", "clf",  "combined",
                                         "tsv",   "csv",  "jsonl"};
  uriscan::LogReaderOptions o;
  o.format = kFormats[(data[0] & 7) % 7];
  const bool table = o.format == "tsv" || o.format == "csv";
  const bool log = o.format == "clf" || o.format == "combined";
  if (o.format == "jsonl") o.field = "u";
  if (table && (data[0] & 0x08)) o.field = (data[0] & 0x20) ? "u" : "2";
  if (o.format == "combined" && (data[0] & 0x40)) o.field = "referer";
  o.log_fields = log && (data[0] & 0x10);
  o.max_line = (data[0] & 0x80) ? 64 : 4096;
  o.chunk_bytes = std::min<size_t>(8 + size_t{data[1]} * 2, o.max_line / 2);
  const std::string_view text(reinterpret_cast<const char*>(data) + 3,
                              size - 3);
  static const std::string path =
      "/tmp/uriscan-ingest-fuzz-" + std::to_string(::getpid());
  const auto write_file = [&] {
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || std::fwrite(text.data(), 1, text.size(), f) != text.size())
      std::abort();
    std::fclose(f);
  };
  write_file();
  const std::string small = ReadAll(path, o);
  // Runs shorter than a line may be (the front ends read 1 to 4 MiB at a
  // time, with lines up to 16 MiB), but of other sizes.
  uriscan::LogReaderOptions big = o;
  big.chunk_bytes = o.max_line / 2;
  const std::string large = ReadAll(path, big);
  Check(WithoutDamageOffset(small) == WithoutDamageOffset(large),
        "small and large runs differ", small, large);

  // Through a pipe, in writes of 1 to 8 bytes.
  uriscan_fuzz::PipeInput pipe(text, (data[2] & 7) + 1);
  const std::string piped = ReadAll(pipe.path(), o);
  pipe.Close();
  Check(WithoutDamageOffset(piped) == WithoutDamageOffset(small),
        "a pipe and a file differ", piped, small);

  // Cut short after the first run: rows, then an error or the end.
  write_file();
  ReadAll(path, o, 1, static_cast<off_t>(text.size() * data[2] / 256));
  return 0;
}
