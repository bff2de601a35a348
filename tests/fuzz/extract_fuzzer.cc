// SPDX-License-Identifier: MIT
// libFuzzer harness for `extract`: the first byte picks the format (and
// --with-line, --max-line), the rest is the input. Each input is extracted
// whole, then cut where RecordsEnd() says a chunk may end and extracted in
// two pieces: the references and the diagnostics must be the same, as the
// command promises at every chunk size. Any difference aborts.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "src/ingest/extract.h"

namespace {

using uriscan::ingest::Extract;
using uriscan::ingest::ExtractOptions;
using uriscan::ingest::ExtractProblem;
using uriscan::ingest::LogFormat;

// References and "LINE:COL kind message" lines of `text`, its first line
// numbered `first`.
std::string Run(std::string_view text, const ExtractOptions& opt,
                uint64_t first) {
  std::string out;
  std::vector<ExtractProblem> problems;
  Extract(text, opt, first, &out, &problems);
  for (const ExtractProblem& p : problems) {
    out += std::to_string(first + p.line) + ":" + std::to_string(p.column) +
           " " + std::string(p.kind) + " " + std::string(p.message) + "\n";
  }
  return out;
}

// The line breaks of `s`.
uint64_t Lines(std::string_view s) {
  uint64_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  static constexpr LogFormat kFormats[] = {
      LogFormat::kText, LogFormat::kClf, LogFormat::kCombined,
      LogFormat::kTsv,  LogFormat::kCsv, LogFormat::kJsonl};
  ExtractOptions opt;
  opt.from = kFormats[data[0] % 6];
  opt.with_line = true;
  opt.field_name = "u";
  opt.column = (data[0] >> 3) & 1;
  opt.referer = opt.from == LogFormat::kCombined && (data[0] & 0x40);
  if (data[0] & 0x80) opt.max_record = 64;
  const std::string_view text(reinterpret_cast<const char*>(data) + 2,
                              size - 2);
  const std::string whole = Run(text, opt, 1);
  // A chunk of whole lines ends where RecordsEnd() says; the rest follows.
  const size_t line_end = text.find('\n', text.size() * data[1] / 256);
  if (line_end == std::string_view::npos) return 0;
  const size_t cut = uriscan::ingest::RecordsEnd(text.substr(0, line_end + 1),
                                              opt, false);
  if (cut == 0 || cut > line_end + 1) return 0;
  const std::string_view head = text.substr(0, cut), tail = text.substr(cut);
  const std::string a = Run(head, opt, 1);
  const std::string b = Run(tail, opt, 1 + Lines(head));
  // The references of both pieces, then the diagnostics of both, against
  // the whole's: compare as sets of lines in order within each kind.
  std::string refs, diags;
  for (const std::string* piece : {&a, &b}) {
    size_t pos = 0;
    while (pos < piece->size()) {
      const size_t nl = piece->find('\n', pos);
      const std::string line = piece->substr(pos, nl - pos + 1);
      (line.find('\t') != std::string::npos ? refs : diags) += line;
      pos = nl + 1;
    }
  }
  std::string whole_refs, whole_diags;
  size_t pos = 0;
  while (pos < whole.size()) {
    const size_t nl = whole.find('\n', pos);
    const std::string line = whole.substr(pos, nl - pos + 1);
    (line.find('\t') != std::string::npos ? whole_refs : whole_diags) += line;
    pos = nl + 1;
  }
  if (refs != whole_refs || diags != whole_diags) {
    std::fprintf(stderr, "extract differs when cut at byte %zu\n--- whole\n%s"
                 "--- pieces\n%s%s", cut, whole.c_str(), a.c_str(), b.c_str());
    std::abort();
  }
  return 0;
}
