#!/usr/bin/env bash
# Builds the libFuzzer differential harness with clang (ASan + UBSan) and
# runs it for SECONDS (default 120) from a seed corpus of the project's own
# lines. Any difference between a Highway target and the scalar oracle
# aborts with the input saved as crash-*.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=${1:-120}
bash tools/fuzz-build.sh uriscan_fuzz uriscan_gen
seeds=build/fuzz/seeds
rm -rf "$seeds" && mkdir -p "$seeds"
split -l 4 corpus/handmade/tricky.txt "$seeds/tricky-"
build/fuzz/uriscan_gen --seed=7 --count=400 | split -l 8 - "$seeds/gen-"
build/fuzz/uriscan_fuzz -max_total_time="$seconds" -max_len=512 \
  -artifact_prefix=build/fuzz/ "$seeds"
