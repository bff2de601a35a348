// SPDX-License-Identifier: MIT
// libFuzzer harness of the command as it reads its input: the whole of
// a command's run (options, the line reader, the record cutter, the
// pipeline's chunks and threads, the output) on the fuzzer's bytes written
// to a regular file, which the command maps, and through a pipe, which it
// reads. The first byte picks the command line (kCommands), the second its
// --max-line, --chunk-size and --threads, the third how the pipe splits
// the input; the rest is the file. The exit status, standard output and
// standard error (the input's name, stats' timings and where a decoder
// noticed damage left out) must be the same both ways, and again with
// other chunks and threads; any difference aborts.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "src/cli/command_run.h"
#include "src/cli/options.h"
#include "src/ingest/mapped_file.h"
#include "tests/fuzz/fuzz_input.h"

namespace {

using uriscan_fuzz::WithoutDamageOffset;

// Every command that reads input, with the options that change how it
// cuts and reads records.
const std::vector<std::vector<std::string>> kCommands = {
    {"parse"},
    {"parse", "--format=jsonl"},
    {"parse", "--columns=scheme,host,port,path,query,fragment,param:a"},
    {"parse", "--lenient"},
    {"validate"},
    {"validate", "--lenient", "--line-numbers=global"},
    {"stats"},
    {"stats", "--format=json", "--histograms"},
    {"stats", "--from=csv"},
    {"stats", "--from=combined", "--top=3"},
    {"audit"},
    {"audit", "--flagged", "--columns=host,path"},
    {"normalize"},
    {"normalize", "--profile=crawler"},
    {"normalize", "--profile=w3lib"},
    {"resolve", "--base=http://a/b/c/d;p?q"},
    {"dedup"},
    {"dedup", "--keys", "--profile=crawler"},
    {"params"},
    {"params", "--raw"},
    {"extract"},
    {"extract", "--with-line"},
    {"extract", "--from=clf"},
    {"extract", "--from=combined", "--field=referer"},
    {"extract", "--from=combined",
     "--columns=line,uri,client,time,method,status,bytes,referer,user_agent"},
    {"extract", "--from=clf", "--base=http://example.com/a/"},
    {"extract", "--from=tsv"},
    {"extract", "--from=tsv", "--field=u", "--with-line"},
    {"extract", "--from=csv"},
    {"extract", "--from=csv", "--field=2", "--with-line"},
    {"extract", "--from=jsonl", "--field=u"},
    {"extract", "--from=jsonl", "--field=u", "--with-line"},
};

struct Result {
  int status = -1;
  std::string out, err;
};

std::string ReadFile(const std::string& path) {
  std::string s;
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) std::abort();
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  std::fclose(f);
  return s;
}

// `s` with every `name` replaced by "INPUT".
std::string Unnamed(std::string s, const std::string& name) {
  for (size_t at = s.find(name); at != std::string::npos;
       at = s.find(name, at + 5))
    s.replace(at, name.size(), "INPUT");
  return s;
}

// stats' output without what it measured: the lines "  scan throughput"
// and "  wall time" of text, the "throughput" object of json (the last).
std::string Unmeasured(std::string s) {
  for (const char* head : {"\n  scan throughput ", "\n  wall time "}) {
    const size_t at = s.find(head);
    if (at != std::string::npos)
      s.erase(at + 1, s.find('\n', at + 1) - at);
  }
  const size_t json = s.find(",\"throughput\":{");
  if (json != std::string::npos) s.erase(json, s.find('}', json) + 1 - json);
  return s;
}

// Runs `uriscan args... input` with standard output and error sent to
// files; its status, output and errors (the input's name as "INPUT").
Result Run(std::vector<std::string> args, const std::string& input,
           const std::string& scratch) {
  args.insert(args.begin(), "uriscan");
  args.push_back(input);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string out_path = scratch + ".out", err_path = scratch + ".err";
  std::fflush(stdout);
  std::fflush(stderr);
  const int saved_out = ::dup(1), saved_err = ::dup(2);
  const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (saved_out < 0 || saved_err < 0 || out < 0 || err < 0) std::abort();
  ::dup2(out, 1);
  ::dup2(err, 2);
  ::close(out);
  ::close(err);
  Result r;
  {
    uriscan::cli::Options opt;
    const std::unique_ptr<uriscan::cli::CommandRun> command =
        uriscan::cli::ParseCommandLine(static_cast<int>(args.size()),
                                       argv.data(), &opt, &r.status);
    if (command) r.status = command->Main();
  }
  std::fflush(stdout);
  std::fflush(stderr);
  ::dup2(saved_out, 1);
  ::dup2(saved_err, 2);
  ::close(saved_out);
  ::close(saved_err);
  r.out = Unmeasured(Unnamed(ReadFile(out_path), input));
  r.err = WithoutDamageOffset(Unnamed(ReadFile(err_path), input));
  ::unlink(out_path.c_str());
  ::unlink(err_path.c_str());
  return r;
}

void Same(const Result& a, const Result& b, const char* what,
          const std::vector<std::string>& args) {
  if (a.status == b.status && a.out == b.out && a.err == b.err) return;
  std::string line;
  for (const std::string& s : args) line += " " + s;
  std::fprintf(stderr,
               "command fuzzer: %s differ for uriscan%s\n"
               "--- a: status %d\n%s--- a: stderr\n%s"
               "--- b: status %d\n%s--- b: stderr\n%s",
               what, line.c_str(), a.status, a.out.c_str(), a.err.c_str(),
               b.status, b.out.c_str(), b.err.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  // As main() does: a failed write is an error, a cut file reads as one.
  std::signal(SIGPIPE, SIG_IGN);
  uriscan::ingest::GuardMappedFiles();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  std::vector<std::string> args = kCommands[data[0] % kCommands.size()];
  // Lines longer than --max-line, chunks shorter than a line.
  if (data[1] & 1) args.push_back("--max-line=64");
  if (data[1] & 2) args.push_back("--chunk-size=" + std::to_string(
                                      16 + (data[1] >> 2) * 4));
  std::vector<std::string> other = args;
  other.push_back("--threads=2");
  other.push_back("--chunk-size=" + std::to_string(1 + (data[2] >> 3)));
  args.push_back("--threads=1");
  const std::string_view text(reinterpret_cast<const char*>(data) + 3,
                              size - 3);
  static const std::string scratch =
      "/tmp/uriscan-command-fuzz-" + std::to_string(::getpid());
  const std::string path = scratch + ".in";
  // The names of the input are left out of what is compared: an input
  // that holds one is not compared.
  if (text.find(path) != std::string_view::npos ||
      text.find("/dev/fd/") != std::string_view::npos)
    return 0;
  {
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || std::fwrite(text.data(), 1, text.size(), f) != text.size())
      std::abort();
    std::fclose(f);
  }
  const Result file = Run(args, path, scratch);

  // The same bytes through a pipe, in writes of 1 to 8 bytes.
  uriscan_fuzz::PipeInput pipe(text, (data[2] & 7) + 1);
  const Result piped = Run(args, pipe.path(), scratch);
  pipe.Close();  // a command that stopped reading ends the writer
  Same(file, piped, "a file and a pipe", args);

  // Other chunks, on two threads: output and diagnostics in the same order.
  Same(file, Run(other, path, scratch), "one thread and two", other);
  ::unlink(path.c_str());
  return 0;
}
