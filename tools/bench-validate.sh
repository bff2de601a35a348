#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Times `uriscan validate` on about 1 GB of real URLs against `wc -l`.
# usage: tools/bench-validate.sh [OPTION...]
#   --build-dir=DIR   a configured Release build dir; `cmake --build` of its
#                     uriscan_cli target runs first (default build/release)
#   --uriscan=PATH    time this binary instead; nothing is built
#   --size=BYTES      input size, suffixes K M G in powers of 1000 like the
#                     GB/s column (default 1G); whole copies of the corpora
#   --corpus-dir=DIR  where kasztp.txt, userbait.txt, node_files.txt and
#                     isaacs_files.txt are (default ../shared/corpus)
#   --work-dir=DIR    where the input file goes (default a new directory
#                     under build/, removed at exit unless --keep)
#   --runs=N          timed runs per command, the median is reported (3)
#   --keep            keep the generated input
# The input is generated, cached (cat > /dev/null), then `wc -l`, and
# `uriscan validate --threads=1` and `--threads=2` are each run N times with
# output and diagnostics to /dev/null. validate exits 1 when it finds
# invalid lines (the corpora have some): expected, not a failure. Wall time
# from bash's `time`. The build uses -j1 (JOBS to change); run the whole
# script under `nice -n 19` on a shared machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=$root/build/release
uriscan=
size_arg=1G
corpus_dir=$root/../shared/corpus
work_dir=
runs=3
keep=0

usage() { sed -n '4,21p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
die() { echo "bench-validate: $*" >&2; exit 2; }

for a in "$@"; do
  case "$a" in
    --build-dir=*) build_dir=${a#*=} ;;
    --uriscan=*) uriscan=${a#*=} ;;
    --size=*) size_arg=${a#*=} ;;
    --corpus-dir=*) corpus_dir=${a#*=} ;;
    --work-dir=*) work_dir=${a#*=} ;;
    --runs=*) runs=${a#*=} ;;
    --keep) keep=1 ;;
    -h|--help) usage ;;
    *) echo "bench-validate: unknown argument '$a'" >&2; usage ;;
  esac
done

case "$size_arg" in
  *[kK]) size=$(( ${size_arg%?} * 1000 )) ;;
  *[mM]) size=$(( ${size_arg%?} * 1000000 )) ;;
  *[gG]) size=$(( ${size_arg%?} * 1000000000 )) ;;
  *) size=$(( size_arg )) ;;
esac
[ "$size" -gt 0 ] || die "--size must be positive"
[ "$runs" -gt 0 ] 2>/dev/null || die "--runs must be a positive number"

# The binary: given, or built in the given Release dir.
if [ -z "$uriscan" ]; then
  [ -f "$build_dir/CMakeCache.txt" ] ||
    die "$build_dir is not configured; run: cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release"
  type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build_dir/CMakeCache.txt")
  [ "$type" = Release ] ||
    echo "bench-validate: warning: $build_dir is a '$type' build, not Release" >&2
  cmake --build "$build_dir" -j"${JOBS:-1}" --target uriscan_cli >/dev/null
  uriscan=$build_dir/uriscan
fi
[ -x "$uriscan" ] || die "no uriscan binary at $uriscan"

corpora=()
for n in kasztp userbait node_files isaacs_files; do
  f=$corpus_dir/$n.txt
  [ -f "$f" ] || die "missing $f (--corpus-dir)"
  corpora+=("$f")
done

if [ -z "$work_dir" ]; then
  mkdir -p "$root/build"
  work_dir=$(mktemp -d "$root/build/bench-validate.XXXXXX")
  [ "$keep" -eq 1 ] || trap 'rm -rf "$work_dir"' EXIT
else
  mkdir -p "$work_dir"
fi
input=$work_dir/urls-$size.txt
seed=$work_dir/seed.txt

# One copy of the four corpora; a file whose last line has no newline
# (kasztp.txt) gets one, so its last line is not glued to the next file's
# first.
: >"$seed"
for f in "${corpora[@]}"; do
  cat "$f" >>"$seed"
  [ -z "$(tail -c1 "$f")" ] || echo >>"$seed"
done
seed_bytes=$(stat -c %s "$seed")
copies=$(( (size + seed_bytes - 1) / seed_bytes ))
if [ ! -f "$input" ] || [ "$(stat -c %s "$input")" -ne $(( copies * seed_bytes )) ]; then
  echo "bench-validate: writing $copies copies of the corpora to $input" >&2
  : >"$input"
  for (( i = 0; i < copies; i++ )); do cat "$seed" >>"$input"; done
fi
rm -f "$seed"
bytes=$(stat -c %s "$input")
lines=$(wc -l <"$input")

# Page cache: the file and the binaries, so every run reads from memory.
cat "$input" "$uriscan" "$(command -v wc)" >/dev/null

# run NAME OK_STATUSES CMD...: times CMD $runs times, appends to the table.
names=(); medians=()
run() {
  local name=$1 ok=$2 t st times=()
  shift 2
  for (( r = 0; r < runs; r++ )); do
    TIMEFORMAT=%R
    # `time` reports on the group's stderr; the command's own goes nowhere.
    # A failing command still gets its time reported; st is its status.
    t=$( { time "$@" >/dev/null 2>&1; } 2>&1 ) && st=0 || st=$?
    case " $ok " in
      *" $st "*) ;;
      *) die "'$*' exited $st" ;;
    esac
    times+=("${t##*$'\n'}")
  done
  names+=("$name")
  medians+=("$(printf '%s\n' "${times[@]}" | sort -g | awk '{ v[NR] = $1 }
    END { m = int((NR + 1) / 2); print (NR % 2) ? v[m] : (v[m] + v[m + 1]) / 2 }')")
  echo "  $name: ${times[*]} s" >&2
}

echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)" \
  "($(nproc) usable)"
version=$("$uriscan" --version 2>/dev/null || true)
echo "uriscan: ${version:-unknown version}"
echo "input: $input"
echo "  $bytes bytes, $lines lines ($copies copies of" \
  "kasztp + userbait + node_files + isaacs_files)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "runs: $runs per command, median wall time" >&2

run "wc -l" "0" wc -l "$input"
run "validate --threads=1" "0 1" "$uriscan" validate --threads=1 "$input"
run "validate --threads=2" "0 1" "$uriscan" validate --threads=2 "$input"

echo
printf '%-22s %9s %8s %9s\n' command seconds GB/s "x wc -l"
for i in "${!names[@]}"; do
  awk -v n="${names[$i]}" -v t="${medians[$i]}" -v b="$bytes" \
      -v w="${medians[0]}" 'BEGIN {
    printf "%-22s %9.3f %8.2f %9.2f\n", n, t, (t > 0 ? b / t / 1e9 : 0),
           (w > 0 ? t / w : 0) }'
done
