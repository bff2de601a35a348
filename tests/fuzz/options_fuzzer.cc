// SPDX-License-Identifier: MIT
// libFuzzer harness for the command line. With the first byte odd, the rest
// is one size or count (--memory, --bloom, --max-line ...) read by
// ParseBytes(), which must agree with a reference reading of the grammar
// (digits, then K, M, G or T with an optional "iB" or "B"; 1 to the
// bound) in 128-bit arithmetic. With it even, the rest is a command line
// (arguments split at newlines) read by ParseCommandLine(): it must give a
// command with its sizes within their bounds, or an exit status of 0 (help,
// version) or 2 (a usage error); never a crash. A command line that
// parses is then run, on a file of every input format (OnlyParsed() says
// which are not: those that write files or ask for more than a fuzzing
// run has), and must end with an exit status of 0 to 2.
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
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

// Runs `f` with stdout and stderr (usage messages, diagnostics) sent to
// /dev/null.
template <class F>
void Quietly(F f) {
  static const int null = open("/dev/null", O_WRONLY);
  std::fflush(stdout);
  std::fflush(stderr);
  const int saved_out = dup(1), saved_err = dup(2);
  dup2(null, 1);
  dup2(null, 2);
  f();
  std::fflush(stdout);
  std::fflush(stderr);
  dup2(saved_out, 1);
  dup2(saved_err, 2);
  close(saved_out);
  close(saved_err);
}

// A file of a few lines of each input format and a line of 300 bytes, for
// the command to read with the options it was given (written once).
const std::string& InputFile() {
  static const std::string path = [] {
    const std::string p =
        "/tmp/uriscan-options-fuzz-" + std::to_string(::getpid()) + ".in";
    FILE* f = std::fopen(p.c_str(), "wb");
    if (!f) std::abort();
    std::fputs(
        "http://a.example/b?c=d&e#f\nHTTP://User@[::1]:80/./x/../y?\n"
        "u,n\n\"http://c.example/,x\",\"a\nb\"\n<URL:http://w.example/\n"
        " z> and \"http://q.example/\"\n"
        "127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] \"GET /a?b=1 HTTP/1.0\" "
        "200 2326 \"http://r.example/\" \"UA\"\n{\"u\":\"http://j/\"}\n",
        f);
    std::fputs(("http://long.example/" + std::string(280, 'x') + "\n").c_str(),
               f);
    std::fclose(f);
    return p;
  }();
  return path;
}

// Options that write files (a fuzzer writes none) or that ask for more
// memory or threads than a fuzzing run has: the command line is only
// parsed.
bool OnlyParsed(const std::vector<std::string>& args,
                const uriscan::cli::Options& opt) {
  for (const std::string& a : args) {
    for (const char* name : {"--state", "--output", "--html", "--man-pages",
                             "--memory", "--bloom", "--psl"}) {
      if (a.rfind(name, 0) == 0) return true;
    }
  }
  return opt.threads > 4 || opt.chunk_bytes > (64u << 20) ||
         opt.max_line > (64u << 20);
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
  // The command's whole run with these options, on a file it maps and
  // reads: whatever it says, never a crash, a hang or a sanitizer report.
  if (run && !OnlyParsed(args, opt)) {
    opt.files = {InputFile()};
    int status = -1;
    Quietly([&] { status = run->Main(); });
    if (status < 0 || status > 2) std::abort();
  }
  return 0;
}
