// SPDX-License-Identifier: MIT
// The uriscan command: parse, validate, stats, audit (risk flags, RFC 3986
// sec. 7), normalize, resolve and dedup over files or stdin; extract reads
// logs and free text; dedup --state=DIR keeps a seen-set across runs, and
// state DIR reports on one. Each command's options, help and run are in
// its cmd_*.cc, the pipeline the commands that read input share in run.cc.
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <new>

#include "src/cli/command_run.h"
#include "src/cli/options.h"
#include "src/ingest/mapped_file.h"

namespace {

[[noreturn]] void Die(const char* message) {
  const ssize_t ignored = write(2, message, std::strlen(message));
  (void)ignored;
  _exit(2);
}

constexpr char kOutOfMemory[] =
    "uriscan: error: out of memory; lower --threads, --chunk-size or "
    "--memory (docs/cli.md, \"Limits and guarantees\")\n";

// An allocation that fails, on any thread, ends the run with a message and
// exit status 2 rather than an abort with none; so does a thread that
// cannot be started.
[[noreturn]] void OutOfMemory() { Die(kOutOfMemory); }

[[noreturn]] void Terminate() {
  if (const std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::bad_alloc&) {
      Die(kOutOfMemory);
    } catch (const std::exception& x) {
      static char text[512];
      std::snprintf(text, sizeof text, "uriscan: error: %s\n", x.what());
      Die(text);
    } catch (...) {
    }
  }
  Die("uriscan: error: internal error\n");
}

// Libraries below (Highway's aligned allocations) abort when memory runs
// out: that too is a message and exit status 2, not a core dump.
void OnAbort(int /*signal*/) {
  Die("uriscan: error: aborted, most likely out of memory; lower --threads, "
      "--chunk-size or --memory\n");
}

}  // namespace

// Highway's shared library (Debian's libhwy 1.0.3) measures the resolution
// of its benchmark timer when it is loaded, for its nanobenchmark, which
// the command never uses: a loop of timer reads whose serializing
// instructions took 4.7 ms of every start here, more than the rest of a
// 1,000-line dedup. The command's own definition takes the place of the
// library's (the dynamic linker binds the library's call to the
// executable's symbol first), so a crawler that calls it every few minutes
// does not pay for it. Nothing in uriscan reads the timer.
namespace hwy {
namespace platform {
uint64_t TimerResolution() { return 1; }
}  // namespace platform
}  // namespace hwy

int main(int argc, char** argv) {
  std::set_new_handler(OutOfMemory);
  std::set_terminate(Terminate);
  std::signal(SIGABRT, OnAbort);
  // A reader that closes the output (`| head`) is a failed write, handled
  // as one (OutputError()), not a kill that skips the clean-up.
  std::signal(SIGPIPE, SIG_IGN);
  // A file-size limit (ulimit -f) is a failed write too (EFBIG), named as
  // one, not a kill.
  std::signal(SIGXFSZ, SIG_IGN);
  // Input files are mapped, not copied; a file cut short while it is read
  // then gives an error (its pages read as zeros, never output), not a
  // SIGBUS (src/ingest/mapped_file.h).
  uriscan::ingest::GuardMappedFiles();
  uriscan::cli::Options opt;
  int status = -1;
  const std::unique_ptr<uriscan::cli::CommandRun> command =
      uriscan::cli::ParseCommandLine(argc, argv, &opt, &status);
  return command ? command->Main() : status;
}
