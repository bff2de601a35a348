#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The seen-set at crawl scale: builds states of 10^6 .. 10^9 keys by
# streaming generated URLs (bench/url_gen.cc) into `dedup --state`, then
# times days of 1,000, 10^6 and 10^8 lines (half seen, half new) against
# each, beside a stateless dedup of the same lines, with peak RSS and bytes
# per key; and the same insert-if-absent work on RocksDB (bench/
# rocksdb_seen.cc, when Debian's librocksdb-dev is installed) in the same
# run. Also the start-up of the command against /bin/true and wc -l.
# usage: tools/bench-state.sh [OPTION...]
#   --build-dir=DIR   a Release build dir, configured here when new
#                     (default build/release); its targets are built first
#   --sizes=LIST      state sizes, comma-separated (default
#                     1000000,10000000,100000000,1000000000; none to skip)
#   --rocksdb-max=N   the largest state built on RocksDB too (10000000: its
#                     build takes minutes per 10^7 keys here)
#   --big-day=N       the states that also get a 10^8-line day: those of at
#                     least N keys (default 100000000; 0 for none)
#   --runs=N          small days are timed N times, the best reported (5)
#   --work-dir=DIR    where states go (default a new directory under
#                     build/, removed at exit unless --keep)
#   --keep            keep the states
#   --shards=LIST     shard counts timed beside one state of the same
#                     keys (default 8,64,4096; none to skip), each run
#                     under ulimit -n 1024
#   --shard-keys=N    the keys of those states (default 10000000: more than
#                     a run of the top holds, so the shards hold them)
#   --loop-keys=N     the long-running row: a state of N keys held open by
#                     SeenState (bench/seen_state_loop.cc), batches of
#                     1,000 URLs added and committed one by one, merges in
#                     the background, then inline (default 100000000; 0
#                     for none)
#   --loop-batches=N  its batches (default 10000)
#   --scrapy=LIST     Scrapy's request_seen at these request counts
#                     (tools/bench-scrapy.py: RFPDupeFilter and
#                     uriscan.scrapy.DupeFilter, Scrapy's fingerprinter and
#                     uriscan's; default 1000000,10000000; none to skip;
#                     needs the Python package in --python)
#   --python=PATH     the Python with uriscan installed (default the venv
#                     tools/python-test.sh makes in build/test)
# Prints markdown tables. Run nothing else meanwhile.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=$root/build/release
sizes=1000000,10000000,100000000,1000000000
rocksdb_max=10000000
big_day=100000000
runs=5
work_dir=
keep=0
shard_list=8,64,4096
shard_keys=10000000
loop_keys=100000000
loop_batches=10000
scrapy=1000000,10000000
python=$root/build/test/python-venv/bin/python
usage() { sed -n '10,41p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
for a in "$@"; do
  case $a in
    --build-dir=*) build_dir=${a#*=} ;;
    --sizes=*) sizes=${a#*=} ;;
    --rocksdb-max=*) rocksdb_max=${a#*=} ;;
    --big-day=*) big_day=${a#*=} ;;
    --runs=*) runs=${a#*=} ;;
    --work-dir=*) work_dir=${a#*=} ;;
    --keep) keep=1 ;;
    --shards=*) shard_list=${a#*=} ;;
    --shard-keys=*) shard_keys=${a#*=} ;;
    --loop-keys=*) loop_keys=${a#*=} ;;
    --loop-batches=*) loop_batches=${a#*=} ;;
    --scrapy=*) scrapy=${a#*=} ;;
    --python=*) python=${a#*=} ;;
    *) usage ;;
  esac
done
if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release \
    -DURISCAN_BUILD_BENCH=ON >/dev/null
fi
targets=(uriscan_cli url_gen seen_state_loop)
grep -q '^ROCKSDB_FOUND:INTERNAL=1' "$build_dir/CMakeCache.txt" &&
  targets+=(rocksdb_seen)
cmake --build "$build_dir" -j2 --target "${targets[@]}" >/dev/null
uriscan=$build_dir/uriscan
gen=$build_dir/bench/url_gen
peer=$build_dir/bench/rocksdb_seen
[ -x "$peer" ] || peer=
if [ -z "$work_dir" ]; then
  mkdir -p "$root/build"
  work_dir=$(mktemp -d "$root/build/bench-state.XXXXXX")
fi
[ "$keep" = 1 ] || trap 'rm -rf "$work_dir"' EXIT
mkdir -p "$work_dir"
cd "$work_dir"

# ms and peak RSS (MB) of one command: "MS RSS"; its stdout to /dev/null.
timed() {
  local start end
  start=$(date +%s%N)
  /usr/bin/time -f %M -o rss.txt "$@" >/dev/null 2>err.txt ||
    { echo "bench-state: failed: $* ($(tail -1 err.txt))" >&2; exit 1; }
  end=$(date +%s%N)
  echo "$(( (end - start) / 1000000 )) $(( $(tail -1 rss.txt) / 1024 ))"
}
# The best ms of $runs runs of a command made by the function $1 with the
# run's number (each run a fresh day: days add their new keys), and the
# largest RSS: "MS RSS".
best_of() {
  local best=999999999 rss=0 r t m
  for r in $(seq 1 "$2"); do
    read -r t m < <("$1" "$r")
    [ "$t" -lt "$best" ] && best=$t
    [ "$m" -gt "$rss" ] && rss=$m
  done
  echo "$best $rss"
}
# A day of M lines for a state of N keys, run R: M/2 seen URLs (numbers
# spread over [0, N)) and M/2 new ones (numbers above 2^40, per run).
make_day() {  # N M R FILE
  local half=$(( $2 / 2 ))
  "$gen" $(( ($1 / 3 + $3 * half) % ($1 - half) )) \
    $(( ($1 / 3 + $3 * half) % ($1 - half) + half )) > "$4"
  "$gen" $(( (1 << 40) + $3 * $2 )) $(( (1 << 40) + $3 * $2 + $2 - half )) >> "$4"
}

# Streams URLs [0, N) into the command $3 in batches of $2: "MS RSS", the
# total time and the largest peak RSS.
build() {
  local ms=0 rss=0 from=0 to t m
  while [ "$from" -lt "$1" ]; do
    to=$(( from + $2 < $1 ? from + $2 : $1 ))
    read -r t m < <(timed sh -c "'$gen' $from $to | $3")
    ms=$(( ms + t )); [ "$m" -gt "$rss" ] && rss=$m
    from=$to
  done
  echo "$ms $rss"
}

echo "# tools/bench-state.sh on $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(date -u +%Y-%m-%d)"
echo
echo "## Start-up (best of 10, ms)"
for cmd in "/bin/true" "wc -l day.startup" "$uriscan --version" \
           "$uriscan dedup --quiet day.startup"; do
  [ -f day.startup ] || "$gen" 0 1000 > day.startup
  best=999999
  for i in $(seq 1 10); do
    start=$(date +%s%N); $cmd >/dev/null 2>&1; end=$(date +%s%N)
    t=$(( (end - start) / 1000 ))
    [ "$t" -lt "$best" ] && best=$t
  done
  printf '| %s | %d.%02d ms |\n' "${cmd/$build_dir\//}" $((best / 1000)) $((best % 1000 / 10))
done
if [ "$sizes" != none ]; then
echo
echo "## Days against a state (ms best of $runs for 1,000 lines, of 3 for 10^6, one 10^8; peak RSS MB)"
echo
echo "| state | store | build | keys/s | B/key | 1,000-line day | stateless | +ms | RSS | 10^6-line day | stateless | RSS | 10^8-line day | RSS |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
IFS=, read -r -a size_list <<< "$sizes"
for n in "${size_list[@]}"; do
  # The build: batches of at most 10^8 lines (a run's rows wait in its
  # spool until the state is consulted: 4 GB at 10^8).
  rm -rf st
  read -r build_ms build_rss < <(build "$n" 100000000 "'$uriscan' dedup --quiet --state=st --memory=4G")
  bpk=$("$uriscan" state st | awk '/^bytes/ {print $(NF-5)}')
  day_small() { make_day "$n" 1000 "$1" day.txt; timed "$uriscan" dedup --quiet --state=st day.txt; }
  day_small_stateless() { make_day "$n" 1000 "$1" day.txt; timed "$uriscan" dedup --quiet day.txt; }
  day_mid() { make_day "$n" 1000000 $(( $1 + 100 )) day.txt; timed "$uriscan" dedup --quiet --state=st day.txt; }
  day_mid_stateless() { make_day "$n" 1000000 $(( $1 + 100 )) day.txt; timed "$uriscan" dedup --quiet day.txt; }
  read -r s_ms s_rss < <(best_of day_small "$runs")
  read -r l_ms _ < <(best_of day_small_stateless "$runs")
  read -r m_ms m_rss < <(best_of day_mid 3)
  read -r ml_ms _ < <(best_of day_mid_stateless 3)
  big="-" big_rss="-"
  if [ "$big_day" -gt 0 ] && [ "$n" -ge "$big_day" ]; then
    half=50000000
    read -r big big_rss < <(timed sh -c "{ '$gen' 0 $half; '$gen' $(( 1 << 41 )) $(( (1 << 41) + half )); } | '$uriscan' dedup --quiet --state=st --memory=4G")
  fi
  printf '| %s | uriscan | %d.%02d s | %.2f M | %s | %d ms | %d ms | %+d | %d | %d ms | %d ms | %d | %s | %s |\n' \
    "$n" $((build_ms / 1000)) $((build_ms % 1000 / 10)) \
    "$(awk -v n="$n" -v ms="$build_ms" 'BEGIN {print n / ms / 1000}')" "$bpk" \
    "$s_ms" "$l_ms" $((s_ms - l_ms)) "$s_rss" "$m_ms" "$ml_ms" "$m_rss" \
    "$big${big:+$( [ "$big" = - ] || echo ' ms')}" "$big_rss"
  if [ -n "$peer" ] && [ "$n" -le "$rocksdb_max" ]; then
    rm -rf db
    read -r build_ms build_rss < <(build "$n" 1000000 "'$peer' db")
    rdb_bpk=$(du -sb db | awk -v n="$n" '{printf "%.2f", $1 / n}')
    peer_small() { make_day "$n" 1000 "$1" day.txt; timed sh -c "'$peer' db < day.txt"; }
    peer_mid() { make_day "$n" 1000000 $(( $1 + 100 )) day.txt; timed sh -c "'$peer' db < day.txt"; }
    read -r s_ms s_rss < <(best_of peer_small "$runs")
    read -r m_ms m_rss < <(best_of peer_mid 3)
    printf '| %s | RocksDB | %d.%02d s | %.2f M | %s | %d ms | %d ms | %+d | %d | %d ms | %d ms | %d | - | - |\n' \
      "$n" $((build_ms / 1000)) $((build_ms % 1000 / 10)) \
      "$(awk -v n="$n" -v ms="$build_ms" 'BEGIN {print n / ms / 1000}')" "$rdb_bpk" \
      "$s_ms" "$l_ms" $((s_ms - l_ms)) "$s_rss" "$m_ms" "$ml_ms" "$m_rss"
  elif [ -z "$peer" ]; then
    echo "| $n | RocksDB | (absent: install librocksdb-dev and reconfigure) |"
  fi
done

fi  # --sizes

# Sharded states: the same keys in one state and in S shards, days of
# 1,000 and 10^6 lines (half seen, half new), each command under a soft
# limit of 1024 descriptors.
echo
if [ "$shard_list" != none ]; then
echo "## Sharded states of $shard_keys keys (ms best of $runs for 1,000 lines, of 3 for 10^6; ulimit -n 1024)"
echo
echo "| shards | build | 1,000-line day | +ms vs one state | 10^6-line day | +ms vs one state | RSS MB |"
echo "|---|---|---|---|---|---|---|"
limited=(sh -c 'ulimit -n 1024; exec "$@"' sh)
one_small=0 one_mid=0
for s in 1 ${shard_list//,/ }; do
  rm -rf sst
  read -r build_ms _ < <(build "$shard_keys" 100000000 "'$uriscan' dedup --quiet --state=sst --shards=$s")
  shard_small() { make_day "$shard_keys" 1000 "$1" day.txt; timed "${limited[@]}" "$uriscan" dedup --quiet --state=sst day.txt; }
  shard_mid() { make_day "$shard_keys" 1000000 $(( $1 + 100 )) day.txt; timed "${limited[@]}" "$uriscan" dedup --quiet --state=sst day.txt; }
  read -r s_ms s_rss < <(best_of shard_small "$runs")
  read -r m_ms m_rss < <(best_of shard_mid 3)
  if [ "$s" = 1 ]; then one_small=$s_ms one_mid=$m_ms; fi
  printf '| %s | %d.%02d s | %d ms | %+d | %d ms | %+d | %d |\n' \
    "$s" $((build_ms / 1000)) $((build_ms % 1000 / 10)) "$s_ms" \
    $((s_ms - one_small)) "$m_ms" $((m_ms - one_mid)) \
    $(( s_rss > m_rss ? s_rss : m_rss ))
done

fi  # --shards

# The long-running frontier: a state held open by SeenState, batches of
# 1,000 URLs (a tenth seen in the batch before) added and committed one by
# one and timed one by one; merges on the object's thread, then inside
# each commit (as the command merges).
if [ "$loop_keys" != 0 ]; then
  echo
  echo "## A frontier's loop on SeenState: $loop_batches batches of 1,000 URLs, each added and committed"
  echo
  echo "| keys | merges | p50 | p99 | max | add p50 | add p99 | merges made | runs after | open | filters built | filters MB |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
  # The state is built by the command (the same files; far faster than a
  # key at a time), then held open by SeenState.
  rm -rf loop
  read -r loop_build_ms _ < <(build "$loop_keys" 100000000 "'$uriscan' dedup --quiet --state=loop")
  echo "(state of $loop_keys keys built by dedup --state in $((loop_build_ms / 1000)) s)"
  # Its half a gigabyte written back before the loop is timed: the loop
  # measures a frontier's steady state, not the build's writeback.
  sync
  echo
  for mode in background inline; do
    flag=
    [ "$mode" = inline ] && flag=--inline
    "$build_dir/bench/seen_state_loop" --dir=loop --keys=0 \
      --batches="$loop_batches" $flag > loop.json 2>loop.err ||
      { echo "bench-state: seen_state_loop failed: $(tail -1 loop.err)" >&2; exit 1; }
    /usr/bin/python3 - loop.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("| %d | %s | %.1f ms | %.1f ms | %.1f ms | %.2f ms | %.2f ms | %d | %d | %.3f s | %.1f s | %.0f |" % (
    r["keys"], r["merges"], r["p50_ms"], r["p99_ms"], r["max_ms"],
    r["add_p50_ms"], r["add_p99_ms"], r["background_merges_done"],
    r["runs"], r["open_s"], r["warm_s"], r["memory_bytes"] / 1e6))
PY
  done
fi

# Scrapy's duplicate filter at crawl scale (tools/bench-scrapy.py).
if [ "$scrapy" != none ]; then
  echo
  if [ -x "$python" ] && "$python" -c "import scrapy, uriscan.scrapy" 2>/dev/null; then
    "$python" "$root/tools/bench-scrapy.py" --requests="$scrapy" \
      --fingerprinter=both --filters=scrapy,uriscan
  else
    echo "(Scrapy rows: no $python with scrapy and uriscan: run tools/python-test.sh first)"
  fi
fi
