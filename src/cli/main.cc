// SPDX-License-Identifier: MIT
// The uriscan command: parse, validate, stats, audit (risk flags, RFC 3986
// sec. 7), normalize, resolve and dedup over files or stdin; extract reads
// logs and free text; dedup --state=DIR keeps a seen-set across runs, and
// state DIR reports on one. Each command's options, help and run (its
// CommandRun) are in its cmd_*.cc, the pipeline they share in run.cc.
#include "src/cli/options.h"
#include "src/cli/run.h"
#include "src/cli/state_command.h"

int main(int argc, char** argv) {
  uriscan::cli::Options opt;
  const int early = uriscan::cli::ParseCommandLine(argc, argv, &opt);
  if (early >= 0) return early;
  if (opt.command == uriscan::cli::Command::kState)
    return uriscan::cli::RunStateCommand(opt.files[0], opt.verify,
                                         opt.compact);
  return uriscan::cli::Run(opt);
}
