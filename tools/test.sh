#!/usr/bin/env bash
# The test suite, each step timed (the README's "Tests and their time
# budget" gives the budget of each).
# usage: tools/test.sh [--full]
#   (default)  every unit, command-line, packaging, Python, PostgreSQL and
#              DuckDB test: the RelWithDebInfo suite (every x86 Highway
#              target forced), the packaging test (install, find_package,
#              pkg-config, the C API from C, a shared build), pytest in a
#              fresh venv with a Dask cluster, the shared CLI contract
#              checker, the PostgreSQL extension on a throw-away cluster,
#              the DuckDB extension in libduckdb.so
#   --full     then the suite again under AddressSanitizer +
#              UndefinedBehaviorSanitizer, the kernels on 64-bit Arm under
#              qemu (every Arm target forced), and fuzzing (clang,
#              libFuzzer): the scan against the scalar parser, and the
#              parsers of hostile input. What CI runs (.ci/run).
# Installs what it needs on Debian 12. With ccache installed (the setup
# installs it), every build goes through it, so a second run on the same
# machine, in any clone, rebuilds only what changed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

full=0
case "${1:-}" in
  "") ;;
  --full) full=1 ;;
  *) echo "usage: tools/test.sh [--full]" >&2; exit 2 ;;
esac

timings=()
# step NAME COMMAND...: runs COMMAND under a heading and records its time.
step() {
  local name=$1 start
  shift
  start=$(date +%s)
  echo "== $name"
  "$@"
  timings+=("$(printf '%5d s  %s' $(( $(date +%s) - start )) "$name")")
}

build_and_test() {
  cmake -S . -B build/test -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DURISCAN_BUILD_TESTS=ON -DURISCAN_BUILD_BENCH=ON >/dev/null
  cmake --build build/test -j2
  ctest --test-dir build/test -j2 --output-on-failure
}

sanitized() {
  # The DuckDB extension and its shell too (their tests follow), compiled
  # with the library's objects once.
  cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DURISCAN_SANITIZE=ON \
    -DURISCAN_BUILD_BENCH=OFF -DURISCAN_BUILD_TESTS=ON \
    -DURISCAN_BUILD_DUCKDB=ON >/dev/null
  cmake --build build/asan -j2
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build/asan -j2 --output-on-failure
  bash tools/duckdb-test.sh --sanitize build/asan
}

step "setup: Debian packages" bash tools/setup.sh test
# The compiler cache: CMake takes these variables as the default launcher
# of every build below (its own and those of the packaging, Python,
# PostgreSQL, DuckDB, Arm and fuzzing steps). Paths below the checkout are
# hashed relative to it, so a fresh clone elsewhere finds its objects.
if command -v ccache >/dev/null; then
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
  export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=1
fi
step "build/test (RelWithDebInfo) and ctest" build_and_test
step "packaging: install, find_package, pkg-config, C, shared build" \
  bash tools/package-test.sh build/test
step "Python: offline install into a venv, pytest (Dask cluster included)" \
  bash tools/python-test.sh build/test
if [ -f ../shared/tools/check_cli.py ]; then
  step "the shared command-line contract checker" \
    /usr/bin/python3 ../shared/tools/check_cli.py build/test/uriscan all
fi
# The two extensions in one build, build/ext (position-independent, arenas
# in malloc): the library compiled once for both, compared with build/test's
# command.
step "PostgreSQL 15 extension: pg_virtualenv cluster, SQL_ASCII and UTF8" \
  env URISCAN_CLI="$root/build/test/uriscan" bash tools/postgres-test.sh build/ext
step "DuckDB extension: libduckdb.so from npm, compared with the command" \
  env URISCAN_CLI="$root/build/test/uriscan" bash tools/duckdb-test.sh build/ext
if [ "$full" = 1 ]; then
  step "build/asan (Debug, -fsanitize=address,undefined): ctest, DuckDB" \
    sanitized
  step "aarch64 under qemu: NEON, SVE, SVE2, SVE_256, SVE2_128" \
    bash tools/cross-test.sh
  step "libFuzzer: the scan, every Highway target against the oracle" \
    bash tools/fuzz.sh 60
  step "libFuzzer: extract formats, gzip/zstd readers, state files" \
    bash tools/fuzz-inputs.sh 20
fi

echo "== time per step"
printf '%s\n' "${timings[@]}"
