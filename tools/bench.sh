#!/usr/bin/env bash
# Builds uriscan_bench (Release, no -march) and runs it on every corpus, the
# peers in the same run. Extra arguments go to Google Benchmark, e.g.
#   bash tools/bench.sh --benchmark_filter=kasztp
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash tools/setup.sh bench
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DURISCAN_BUILD_BENCH=ON \
  >/dev/null
cmake --build build/release -j2 --target uriscan_bench >/dev/null
build/release/bench/uriscan_bench --benchmark_min_time=1 "$@"
