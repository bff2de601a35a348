// SPDX-License-Identifier: MIT
// uriscan_scan_count FILE REPEAT: splits FILE's lines into a batch and scans
// it REPEAT times with the dispatched kernels (URISCAN_TARGET forces one),
// then prints the target, the rows and a checksum of the flags. Built
// without the benchmark library, so that cross builds have it: under an
// emulator, the instructions of REPEAT = 2 minus those of REPEAT = 1 are one
// scan's (tools/qemu-insns.sh).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "uriscan/uriscan.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: uriscan_scan_count FILE REPEAT\n");
    return 2;
  }
  char* rest = nullptr;
  const long repeat = std::strtol(argv[2], &rest, 10);
  if (*argv[2] == '\0' || *rest != '\0' || repeat < 1) {
    std::fprintf(stderr,
                 "uriscan_scan_count: REPEAT must be 1 or more, not '%s'\n",
                 argv[2]);
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)),
                         std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) {
    std::fprintf(stderr, "uriscan_scan_count: cannot read %s\n", argv[1]);
    return 1;
  }
  uriscan::OwnedBatch batch;
  if (!uriscan::BatchFromLines(text, &batch)) {
    std::fprintf(stderr, "uriscan_scan_count: %s does not fit a batch\n", argv[1]);
    return 1;
  }
  uriscan::ComponentSpans spans;
  for (long i = 0; i < repeat; ++i) uriscan::Scan(batch.view(), &spans);
  unsigned long sum = 0;
  for (size_t i = 0; i < spans.size(); ++i) sum = sum * 31 + spans.flags[i];
  std::printf("%s rows=%zu checksum=%lu\n", uriscan::DispatchedTargetName(),
              spans.size(), sum);
  return 0;
}
