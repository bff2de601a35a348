#!/usr/bin/env bash
# The kernels on 64-bit Arm: cross-builds the library with its kernel and
# API tests for aarch64 (Debian's g++-aarch64-linux-gnu, the arm64 -dev
# packages through multiarch) and runs them under qemu-aarch64 on five CPU
# settings, each Highway target forced in turn against the scalar parser:
#   neoverse-n1                 NEON, and the one-lane SCALAR target
#   a64fx                       SVE at 512 bits
#   max, 16-byte vectors        SVE2_128, and SVE2 at 128 bits
#   max, 32-byte vectors        SVE_256, and SVE2 at 256 bits
#   max, 256-byte vectors       SVE2 at 2048 bits
# The API suite runs once, on the NEON setting. Installs what it needs.
# Budget: about 3 minutes to build, 12 to run on two cores.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash tools/setup.sh cross
build=build/arm64
cmake -S . -B "$build" -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
  -DCMAKE_BUILD_TYPE=Release -DURISCAN_BUILD_CLI=OFF -DURISCAN_BUILD_TESTS=ON \
  -DURISCAN_MIMALLOC_ARENAS=OFF -DURISCAN_INSTALL=OFF >/dev/null
cmake --build "$build" -j2 --target uriscan_kernel_tests uriscan_tests

kernel_tests=$build/tests/uriscan_kernel_tests
per_target=$(QEMU_CPU=neoverse-n1 qemu-aarch64 "$kernel_tests" --gtest_list_tests --gtest_filter='*/SCALAR' |
             grep -c '^  ')
failed=0
# Runs BINARY [ARGS...] under qemu's CPU model CPU, reported as WHAT.
suite() {
  local what=$1 cpu=$2 log start
  shift 2
  start=$(date +%s)
  log=$build/qemu-${what// /_}-${cpu//[,=]/_}.log
  if QEMU_CPU=$cpu qemu-aarch64 "$@" --gtest_brief=1 >"$log" 2>&1; then
    echo "cross-test: $what on $cpu passed ($(( $(date +%s) - start )) s)"
  else
    echo "cross-test: $what on $cpu FAILED (log: $log)" >&2
    tail -n 30 "$log" >&2
    failed=1
  fi
}
# The kernel tests of TARGET on CPU; the CPU must offer the target (a
# filter that matches nothing would pass silently).
run() {
  local cpu=$1 target=$2 listed
  listed=$(QEMU_CPU=$cpu qemu-aarch64 "$kernel_tests" --gtest_list_tests \
             --gtest_filter="*/$target" | grep -c '^  ' || true)
  if [ "$listed" -ne "$per_target" ]; then
    echo "cross-test: $cpu offers $listed of $per_target $target tests" >&2
    failed=1
    return
  fi
  suite "$target ($per_target kernel tests)" "$cpu" "$kernel_tests" \
    --gtest_filter="*/$target"
}
run neoverse-n1 NEON
run neoverse-n1 SCALAR
run a64fx SVE
run max,sve-default-vector-length=16 SVE2_128
run max,sve-default-vector-length=16 SVE2
run max,sve-default-vector-length=32 SVE_256
run max,sve-default-vector-length=32 SVE2
run max,sve-default-vector-length=256 SVE2
suite "API suite" neoverse-n1 "$build/tests/uriscan_tests"
if [ "$failed" -ne 0 ]; then
  exit 1
fi
