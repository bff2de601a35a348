#!/usr/bin/env bash
# Builds TARGET... of the libFuzzer build (clang, ASan + UBSan) in
# build/fuzz, installing what it needs: shared by tools/fuzz.sh and
# tools/fuzz-inputs.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh fuzz
CC=clang CXX=clang++ cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DURISCAN_FUZZ=ON -DURISCAN_BUILD_TESTS=OFF -DURISCAN_BUILD_BENCH=OFF >/dev/null
cmake --build build/fuzz -j2 --target "$@"
