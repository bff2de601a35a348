#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Times log ingestion end to end: `uriscan extract` on a large combined log
# and on free text, gzip and zstd input beside `zcat` and `zstd -dc`, and
# the cost of parse --columns' derived columns per URL.
# usage: tools/bench-ingest.sh [--uriscan=PATH] [--corpus-dir=DIR]
#                              [--work-dir=DIR] [--copies=N] [--runs=N]
#   --uriscan=PATH    the binary to time (default build/release/uriscan)
#   --corpus-dir=DIR  apache_access.log and the URL lists (../shared/corpus)
#   --work-dir=DIR    where the inputs go (default a new directory in /tmp,
#                     removed at exit)
#   --copies=N        copies of the four URL lists in the URL input (65,
#                     about 400 MB); the log is 40 copies of the access log
#   --runs=N          timed runs per command, the median is reported (3)
# Inputs are in the page cache, output and diagnostics go to /dev/null, and
# wall time comes from bash's `time`. Run it under `nice -n 19` on a shared
# machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
uriscan=$root/build/release/uriscan
corpus_dir=$root/../shared/corpus
work_dir=
copies=65
runs=3
for a in "$@"; do
  case "$a" in
    --uriscan=*) uriscan=${a#*=} ;;
    --corpus-dir=*) corpus_dir=${a#*=} ;;
    --work-dir=*) work_dir=${a#*=} ;;
    --copies=*) copies=${a#*=} ;;
    --runs=*) runs=${a#*=} ;;
    *) sed -n '4,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
[ -x "$uriscan" ] || { echo "bench-ingest: no $uriscan" >&2; exit 2; }
[ -f "$corpus_dir/apache_access.log" ] ||
  { echo "bench-ingest: no corpora in $corpus_dir" >&2; exit 2; }
if [ -z "$work_dir" ]; then
  work_dir=$(mktemp -d /tmp/bench-ingest.XXXXXX)
  trap 'rm -rf "$work_dir"' EXIT
fi
cd "$work_dir"
lists=("$corpus_dir"/kasztp.txt "$corpus_dir"/node_files.txt
       "$corpus_dir"/isaacs_files.txt "$corpus_dir"/userbait.txt)

# The inputs: URLs (gzip -1 and zstd), a combined log, and free text that
# holds each URL of kasztp.txt in prose, bare, quoted or in angle brackets.
for _ in $(seq "$copies"); do cat "${lists[@]}"; done > urls.txt
gzip -1 -c urls.txt > urls.gz
zstd -q -c urls.txt > urls.zst
for _ in $(seq 40); do cat "$corpus_dir/apache_access.log"; done > access.log
for _ in $(seq 20); do
  awk '{ k = NR % 3
         if (k == 0) print "See " $0 ", or the page it links to.";
         else if (k == 1) print "The link <" $0 "> (quoted: \"" $0 "\") works.";
         else print "Note: nothing here is a URI; 10:30 is a time." }' \
    "$corpus_dir/kasztp.txt"
done > prose.txt
cat urls.txt urls.gz urls.zst access.log prose.txt > /dev/null

# seconds COMMAND...: its wall time (exit status 1, invalid lines, is fine).
seconds() {
  /usr/bin/time -o "$work_dir/time" -f %e "$@" > /dev/null 2>&1 || true
  tail -1 "$work_dir/time"
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
# time_it LABEL BYTES COMMAND...: the median wall time of `runs` runs.
time_it() {
  local label=$1 bytes=$2; shift 2
  local t
  t=$(for _ in $(seq "$runs"); do seconds "$@"; done | median)
  awk -v l="$label" -v t="$t" -v b="$bytes" \
    'BEGIN { printf "| %s | %.2f | %.0f |\n", l, t, b / t / 1e6 }'
}
size() { stat -c %s "$1"; }
echo "| command | seconds | MB/s (uncompressed input) |"
echo "| --- | ---: | ---: |"
time_it "\`extract --from=combined\` ($(wc -l < access.log) lines)" \
  "$(size access.log)" "$uriscan" extract --from=combined --quiet access.log
time_it "\`extract --from=combined --threads=1\`" "$(size access.log)" \
  "$uriscan" extract --from=combined --quiet --threads=1 access.log
time_it "\`extract --from=text\` (prose, $(size prose.txt) bytes)" \
  "$(size prose.txt)" "$uriscan" extract --quiet prose.txt
time_it "\`extract --from=text --threads=1\`" "$(size prose.txt)" \
  "$uriscan" extract --quiet --threads=1 prose.txt
u=$(size urls.txt)
time_it "\`zcat urls.gz\` (gzip -1, $(size urls.gz) bytes)" "$u" \
  sh -c 'exec zcat urls.gz'
time_it "\`uriscan validate --threads=2 urls.gz\`" "$u" \
  "$uriscan" validate --quiet --threads=2 urls.gz
time_it "\`uriscan validate --threads=2 urls.txt\` (plain)" "$u" \
  "$uriscan" validate --quiet --threads=2 urls.txt
time_it "\`zstd -dc urls.zst\` ($(size urls.zst) bytes)" "$u" \
  zstd -q -dc urls.zst
time_it "\`uriscan validate --threads=2 urls.zst\`" "$u" \
  "$uriscan" validate --quiet --threads=2 urls.zst
lines=$(wc -l < urls.txt)
echo
echo "Derived columns, $lines URLs, --threads=1, the cost per URL of adding"
echo "each to --columns=line,host:"
echo "| columns | seconds | ns per URL |"
echo "| --- | ---: | ---: |"
base=$(for _ in $(seq "$runs"); do
  seconds "$uriscan" parse --format=tsv --quiet --threads=1 \
    --columns=line,host urls.txt; done | median)
for cols in registrable_domain,public_suffix surt key normalized; do
  t=$(for _ in $(seq "$runs"); do
    seconds "$uriscan" parse --format=tsv --quiet --threads=1 \
      "--columns=line,host,$cols" urls.txt; done | median)
  awk -v c="$cols" -v t="$t" -v b="$base" -v n="$lines" \
    'BEGIN { printf "| %s | %.2f s | %+.0f ns |\n", c, t, (t - b) / n * 1e9 }'
done
echo "(--columns=line,host: $base s)"
