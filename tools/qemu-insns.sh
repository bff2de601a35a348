#!/usr/bin/env bash
# Instructions per URL of one scan, counted under qemu-user for each SIMD
# target of 64-bit Arm (NEON, SVE, SVE2_128, SVE_256, SCALAR) and x86 (AVX2,
# SSE4; qemu emulates no AVX-512): a baseline for a machine this one is
# not, and a count where a time says nothing (qemu's speed is not a CPU's).
#
# Builds uriscan_scan_count natively (build/insns) and for aarch64
# (build/arm64, as tools/cross-test.sh builds the tests), and runs it under
# qemu with block logging (-d in_asm,exec,nochain), once scanning the
# corpus once and once twice; tools/qemu-insns.py sums the executed
# blocks' instructions. The difference over the rows is one scan's
# instructions per URL: reading the file, the split and start-up cancel
# out. Each target is forced (URISCAN_TARGET) on a CPU model that offers it,
# and must scan each corpus as the others do (a checksum of the flags).
#
# Usage: tools/qemu-insns.sh [CORPUS_FILE...] (default: kasztp, userbait).
# Needs about 1.2 GB free in $TMPDIR (one log at a time). Budget: about 5
# minutes to build, 1 to count each target and corpus.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash tools/setup.sh cross
cmake -S . -B build/arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
  -DCMAKE_BUILD_TYPE=Release -DURISCAN_BUILD_CLI=OFF -DURISCAN_BUILD_TESTS=ON \
  -DURISCAN_MIMALLOC_ARENAS=OFF -DURISCAN_INSTALL=OFF >/dev/null
cmake --build build/arm64 -j2 --target uriscan_scan_count >/dev/null
cmake -S . -B build/insns -DCMAKE_BUILD_TYPE=Release -DURISCAN_BUILD_CLI=OFF \
  -DURISCAN_BUILD_TESTS=ON -DURISCAN_INSTALL=OFF >/dev/null
cmake --build build/insns -j2 --target uriscan_scan_count >/dev/null
shared=$root/../shared/corpus
if [ $# -eq 0 ]; then
  set -- "$shared/kasztp.txt" "$shared/userbait.txt"
fi
log=$(mktemp "${TMPDIR:-/tmp}/uriscan-insns.XXXXXX")
trap 'rm -f "$log"' EXIT
# QEMU PROGRAM CPU TARGET FILE REPEAT: the run's instructions.
insns() {
  QEMU_CPU=$3 URISCAN_TARGET=$4 "$1" -d in_asm,exec,nochain -D "$log" \
    "$2" "$5" "$6" </dev/null >/dev/null
  /usr/bin/python3 "$root/tools/qemu-insns.py" "$log"
}
declare -A checksums
printf '%-9s %-36s %-13s %7s %10s\n' target "qemu cpu" corpus rows insns/URL
while read -r qemu program target cpu; do
  for file in "$@"; do
    out=$(QEMU_CPU=$cpu URISCAN_TARGET=$target "$qemu" "$program" "$file" 1 </dev/null)
    if [ "${out%% *}" != "$target" ]; then
      echo "qemu-insns: $cpu ran ${out%% *}, not $target" >&2
      exit 1
    fi
    # Every target must give the scan the others give (the flags' checksum).
    sum=${out##*checksum=}
    key=$(basename "$file")
    if [ -z "${checksums[$key]:-}" ]; then
      checksums[$key]=$sum
    elif [ "${checksums[$key]}" != "$sum" ]; then
      echo "qemu-insns: $target on $cpu scanned $key differently" >&2
      exit 1
    fi
    rows=$(sed 's/.*rows=\([0-9]*\).*/\1/' <<<"$out")
    one=$(insns "$qemu" "$program" "$cpu" "$target" "$file" 1)
    two=$(insns "$qemu" "$program" "$cpu" "$target" "$file" 2)
    printf '%-9s %-36s %-13s %7s %10.1f\n' "$target" "$cpu" "$(basename "$file")" \
      "$rows" "$(/usr/bin/python3 -c "print(($two - $one) / $rows)")"
  done
done <<EOF_SETTINGS
qemu-x86_64 build/insns/uriscan_scan_count AVX2 max
qemu-x86_64 build/insns/uriscan_scan_count SSE4 max
qemu-aarch64 build/arm64/uriscan_scan_count NEON neoverse-n1
qemu-aarch64 build/arm64/uriscan_scan_count SVE a64fx
qemu-aarch64 build/arm64/uriscan_scan_count SVE2_128 max,sve-default-vector-length=16
qemu-aarch64 build/arm64/uriscan_scan_count SVE_256 max,sve-default-vector-length=32
qemu-aarch64 build/arm64/uriscan_scan_count SCALAR neoverse-n1
EOF_SETTINGS
