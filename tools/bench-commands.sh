#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Times every output-producing uriscan command on about 1 GB of real URLs
# (and extract on about 1 GB of the Apache log) against `wc -l` in the same
# run, and the peak RSS of the memory-bound cases.
# usage: tools/bench-commands.sh [OPTION...]
#   --build-dir=DIR   a configured Release build dir; `cmake --build` of its
#                     uriscan_cli target runs first (default build/release)
#   --uriscan=PATH    time this binary instead; nothing is built
#   --size=BYTES      input size, suffixes K M G in powers of 1000
#                     (default 1G); whole copies of the corpora
#   --corpus-dir=DIR  where kasztp.txt, userbait.txt, node_files.txt,
#                     isaacs_files.txt and apache_access.log are
#                     (default ../shared/corpus)
#   --work-dir=DIR    where the inputs go (default a new directory under
#                     build/, removed at exit unless --keep)
#   --runs=N          rounds (every command once a round, wc -l too); the
#                     best of the rounds is reported (3)
#   --threads=N       --threads of every command (2)
#   --only=REGEX      only the commands whose name matches (grep -E)
#   --keep            keep the generated inputs
# Output and diagnostics go to /dev/null; wall time from bash's `time`;
# exit status 1 (invalid lines found) is expected. The build uses -j1
# (JOBS to change). Run nothing else meanwhile.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=$root/build/release
uriscan=
size_arg=1G
corpus_dir=$root/../shared/corpus
work_dir=
runs=3
threads=2
only=.
keep=0

usage() { sed -n '6,23p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
die() { echo "bench-commands: $*" >&2; exit 2; }

for a in "$@"; do
  case "$a" in
    --build-dir=*) build_dir=${a#*=} ;;
    --uriscan=*) uriscan=${a#*=} ;;
    --size=*) size_arg=${a#*=} ;;
    --corpus-dir=*) corpus_dir=${a#*=} ;;
    --work-dir=*) work_dir=${a#*=} ;;
    --runs=*) runs=${a#*=} ;;
    --threads=*) threads=${a#*=} ;;
    --only=*) only=${a#*=} ;;
    --keep) keep=1 ;;
    -h|--help) usage ;;
    *) echo "bench-commands: unknown argument '$a'" >&2; usage ;;
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

if [ -z "$uriscan" ]; then
  [ -f "$build_dir/CMakeCache.txt" ] ||
    die "$build_dir is not configured; run: cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release"
  cmake --build "$build_dir" -j"${JOBS:-1}" --target uriscan_cli >/dev/null
  uriscan=$build_dir/uriscan
fi
[ -x "$uriscan" ] || die "no uriscan binary at $uriscan"

if [ -z "$work_dir" ]; then
  mkdir -p "$root/build"
  work_dir=$(mktemp -d "$root/build/bench-commands.XXXXXX")
  [ "$keep" -eq 1 ] || trap 'rm -rf "$work_dir"' EXIT
else
  mkdir -p "$work_dir"
fi

# repeat OUT FILE...: whole copies of FILEs (each ending in a newline) up to
# $size bytes at least, unless OUT already has that size.
repeat() {
  local out=$1 seed=$work_dir/seed.txt f copies
  shift
  : >"$seed"
  for f in "$@"; do
    [ -f "$f" ] || die "missing $f (--corpus-dir)"
    cat "$f" >>"$seed"
    [ -z "$(tail -c1 "$f")" ] || echo >>"$seed"
  done
  copies=$(( (size + $(stat -c %s "$seed") - 1) / $(stat -c %s "$seed") ))
  if [ ! -f "$out" ] ||
     [ "$(stat -c %s "$out")" -ne $(( copies * $(stat -c %s "$seed") )) ]; then
    echo "bench-commands: writing $copies copies to $out" >&2
    : >"$out"
    for (( i = 0; i < copies; i++ )); do cat "$seed" >>"$out"; done
  fi
  rm -f "$seed"
}
urls=$work_dir/urls-$size.txt
log=$work_dir/log-$size.txt
repeat "$urls" "$corpus_dir"/{kasztp,userbait,node_files,isaacs_files}.txt
repeat "$log" "$corpus_dir/apache_access.log"
dedup_input=$work_dir/urls-3M.txt
head -n 3000000 "$urls" >"$dedup_input"
cat "$urls" "$log" "$uriscan" "$(command -v wc)" >/dev/null

echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)," \
  "$(nproc) usable; uriscan: $("$uriscan" --version 2>/dev/null | tr '\n' ' ')"
echo "urls: $(stat -c %s "$urls") bytes, $(wc -l <"$urls") lines;" \
  "log: $(stat -c %s "$log") bytes, $(wc -l <"$log") lines"
echo "threads: $threads; best of $runs; load before: $(cut -d' ' -f1-3 /proc/loadavg)"

# The commands, one per line: NAME<TAB>INPUT<TAB>ARGS (INPUT urls or log).
commands=$(cat <<'EOF2'
validate	urls	validate
stats	urls	stats
stats --top=20	urls	stats --top=20
stats --format=json	urls	stats --format=json
audit	urls	audit
parse --format=tsv	urls	parse --format=tsv
parse	urls	parse
parse --format=tsv --columns=host	urls	parse --format=tsv --columns=host
parse --format=tsv --columns=host,registrable_domain	urls	parse --format=tsv --columns=host,registrable_domain
parse --format=tsv --columns=host,public_suffix	urls	parse --format=tsv --columns=host,public_suffix
parse --format=tsv --columns=host,host_nowww	urls	parse --format=tsv --columns=host,host_nowww
parse --format=tsv --columns=host,surt	urls	parse --format=tsv --columns=host,surt
params	urls	params
normalize --profile=scheme	urls	normalize --profile=scheme
normalize --profile=crawler	urls	normalize --profile=crawler
normalize --profile=w3lib	urls	normalize --profile=w3lib
dedup	urls	dedup
dedup --profile=crawler	urls	dedup --profile=crawler
extract --from=combined (log)	log	extract --from=combined
stats --from=combined (log)	log	stats --from=combined
stats --from=combined --format=json (log)	log	stats --from=combined --format=json
EOF2
)
names=(); inputs=(); argv=()
while IFS=$'\t' read -r name input args; do
  echo "$name" | grep -Eq -- "$only" || continue
  names+=("$name"); inputs+=("$input"); argv+=("$args")
done <<<"$commands"

# seconds CMD...: one run's wall time (exit status 1, invalid lines, is
# expected).
seconds() {
  local t st
  TIMEFORMAT=%R
  t=$( { time "$@" >/dev/null 2>&1; } 2>&1 ) && st=0 || st=$?
  [ "$st" -le 1 ] || die "'$*' exited $st"
  echo "${t##*$'\n'}"
}
# min A B
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a < b) ? a : b }'; }

# Rounds: every command once per round, so that a slow spell of the
# machine falls on all of them alike; the best of the rounds is kept.
best_wc_urls= best_wc_log=
declare -a best
for (( r = 0; r < runs; r++ )); do
  best_wc_urls=$(min "$(seconds wc -l "$urls")" "$best_wc_urls")
  best_wc_log=$(min "$(seconds wc -l "$log")" "$best_wc_log")
  for i in "${!names[@]}"; do
    input=$urls; [ "${inputs[$i]}" = log ] && input=$log
    # shellcheck disable=SC2086  # ARGS is a word list
    t=$(seconds "$uriscan" ${argv[$i]} --threads="$threads" "$input")
    best[$i]=$(min "$t" "${best[$i]:-}")
  done
  echo "bench-commands: round $((r + 1)) of $runs done" >&2
done

printf '%-52s %8s %8s %7s\n' command seconds "x wc -l" GB/s
printf '%-52s %8.2f %8.2f\n' "wc -l (urls)" "$best_wc_urls" 1
printf '%-52s %8.2f %8.2f\n' "wc -l (log)" "$best_wc_log" 1
for i in "${!names[@]}"; do
  input=$urls wc=$best_wc_urls
  [ "${inputs[$i]}" = log ] && input=$log wc=$best_wc_log
  awk -v n="${names[$i]}" -v t="${best[$i]}" -v w="$wc" \
      -v b="$(stat -c %s "$input")" 'BEGIN {
    printf "%-52s %8.2f %8.2f %7.2f\n", n, t, t / w, b / t / 1e9 }'
done

# Peak RSS (MB, from GNU time's maximum resident set size).
rss() {  # rss NAME ARGS...
  local kb
  echo "$1" | grep -Eq -- "$only" || return 0
  shift
  /usr/bin/time -f '%M' -o "$work_dir/rss" "$uriscan" "$@" >/dev/null \
    2>/dev/null || true
  kb=$(tail -1 "$work_dir/rss")
  printf '%-52s %8s MB\n' "peak RSS: $name" "$(( kb / 1024 ))"
}
name="validate FILE (urls)"; rss "$name" validate --threads="$threads" "$urls"
name="dedup --memory=64M FILE (3 M lines)"
rss "$name" dedup --memory=64M --threads="$threads" "$dedup_input"
