// SPDX-License-Identifier: MIT
// The uriscan command: parse, validate, stats, audit (risk flags, RFC 3986
// sec. 7), normalize, resolve and dedup over files or stdin; extract reads
// logs and free text; dedup --state=DIR keeps a seen-set across runs, and
// state DIR reports on one. Each command's options, help and run are in
// its cmd_*.cc, the pipeline the commands that read input share in run.cc.
#include "src/cli/command_run.h"
#include "src/cli/options.h"

int main(int argc, char** argv) {
  uriscan::cli::Options opt;
  int status = -1;
  const std::unique_ptr<uriscan::cli::CommandRun> command =
      uriscan::cli::ParseCommandLine(argc, argv, &opt, &status);
  return command ? command->Main() : status;
}
