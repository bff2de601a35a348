#!/usr/bin/env bash
# The whole test suite: the Release-mode suite, then the packaging test
# (tools/package-test.sh: install, find_package, pkg-config, the C API from
# C, a shared build), then the Python package's pytest suite in a fresh venv
# (tools/python-test.sh), then the same suite under
# AddressSanitizer + UndefinedBehaviorSanitizer (a separate Debug build),
# then the shared CLI contract checker, then a 2-minute differential fuzzing
# run (clang, libFuzzer). Installs what it needs on Debian 12.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash tools/setup.sh test

echo "== build/test (RelWithDebInfo)"
cmake -S . -B build/test -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build/test -j2
ctest --test-dir build/test -j2 --output-on-failure

echo "== packaging: install, find_package, pkg-config, C, shared build"
bash tools/package-test.sh build/test

echo "== Python: offline install into a venv, pytest (Dask cluster included)"
bash tools/python-test.sh build/test

echo "== build/asan (Debug, -fsanitize=address,undefined)"
cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DURISCAN_SANITIZE=ON \
  -DURISCAN_BUILD_BENCH=OFF >/dev/null
cmake --build build/asan -j2
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build/asan -j2 --output-on-failure

if [ -f ../shared/tools/check_cli.py ]; then
  echo "== ../shared/tools/check_cli.py all"
  python3 ../shared/tools/check_cli.py build/test/uriscan all
fi

echo "== libFuzzer differential run (every Highway target against the oracle)"
bash tools/fuzz.sh 120
