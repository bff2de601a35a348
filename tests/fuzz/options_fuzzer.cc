// SPDX-License-Identifier: MIT
// libFuzzer harness for the command line. With the first byte odd, the rest
// is one size or count (--memory, --bloom, --max-line ...) read by
// ParseBytes(), which must agree with a reference reading of the grammar
// (digits, then K, M, G or T with an optional "iB" or "B"; 1 to the
// bound) in 128-bit arithmetic. With it even, the rest is a command line
// (arguments split at newlines) read by ParseCommandLine(): it must give a
// command with its sizes within their bounds, or an exit status of 0 (help,
// version) or 2 (a usage error); never a crash.
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "src/cli/command_run.h"
#include "src/cli/options.h"

namespace {

using uriscan::cli::kMaxOptionBytes;

// The grammar of docs/cli.md's sizes, read another way: false when `text`
// is not a size or is out of [1, max].
bool ReferenceBytes(const std::string& text, uint64_t max, uint64_t* out) {
  size_t i = 0;
  unsigned __int128 v = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    v = v * 10 + static_cast<unsigned>(text[i] - '0');
    if (v > (static_cast<unsigned __int128>(1) << 100)) v = ~v >> 1;  // huge
    ++i;
  }
  if (i == 0) return false;
  const std::string unit = text.substr(i);
  static const char* const kUnits[] = {"K", "M", "G", "T"};
  int shift = -1;
  if (unit.empty()) shift = 0;
  for (int k = 0; k < 4 && shift < 0; ++k) {
    for (const char* tail : {"", "iB", "B"}) {
      for (const char letter : {kUnits[k][0], char(kUnits[k][0] | 0x20)}) {
        if (unit == std::string(1, letter) + tail) shift = 10 * (k + 1);
      }
    }
  }
  if (shift < 0 || v == 0) return false;
  const unsigned __int128 bytes = v << shift;
  if ((bytes >> shift) != v || bytes > max) return false;
  *out = static_cast<uint64_t>(bytes);
  return true;
}

// Runs `f` with stderr (usage messages) sent to /dev/null.
template <class F>
void Quietly(F f) {
  static const int null = open("/dev/null", O_WRONLY);
  const int saved = dup(2);
  dup2(null, 2);
  f();
  dup2(saved, 2);
  close(saved);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 1) {
    if (rest.find('\0') != std::string::npos) return 0;  // a C string
    for (const uint64_t max : {kMaxOptionBytes, uint64_t{1} << 40,
                               uint64_t{1000}}) {
      size_t got = 0;
      uint64_t want = 0;
      const bool ok = uriscan::cli::ParseBytes(rest.c_str(), &got, max);
      if (ok != ReferenceBytes(rest, max, &want) || (ok && got != want))
        std::abort();
    }
    return 0;
  }
  std::vector<std::string> args = {"uriscan"};
  size_t begin = 0;
  while (begin <= rest.size() && args.size() < 64) {
    const size_t end = std::min(rest.find('\n', begin), rest.size());
    args.push_back(rest.substr(begin, end - begin));
    begin = end + 1;
  }
  // --man-pages=DIR writes files (the one option that does without a
  // command): not from a fuzzer, which must write nothing.
  if (args.size() > 1 && args[1].rfind("--man-pages", 0) == 0) return 0;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  uriscan::cli::Options opt;
  int status = -1;
  std::unique_ptr<uriscan::cli::CommandRun> run;
  Quietly([&] {
    run = uriscan::cli::ParseCommandLine(static_cast<int>(args.size()),
                                         argv.data(), &opt, &status);
  });
  if (!run && status != 0 && status != 2) std::abort();
  if (run && (opt.max_line < 1 || opt.max_line > kMaxOptionBytes ||
              opt.threads < 1 || opt.chunk_bytes < 1 ||
              opt.chunk_bytes > kMaxOptionBytes))
    std::abort();
  return 0;
}
