#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The DuckDB extension against DuckDB's own regexp_extract and against the
# command, in one run, two threads, on about 1 GB of URLs (the shared lists
# repeated) and 1 GB of the shared Apache log (repeated, then gzipped):
#  1. five components (scheme, host, path, query, fragment) of every row of
#     a table, written as TSV: uri_scheme() ... uri_fragment(), uri_parse(),
#     and regexp_extract() with RFC 3986 Appendix B's expression;
#  2. the same from the file: read_uris() then the functions, against
#     `uriscan parse --format=tsv --columns=scheme,host,path,query,fragment`;
#  3. read_uris() of the gzipped log to Parquet against `uriscan extract`
#     to a file.
# Each timing is the best of three. With tools/postgres-test.sh's
# extension installed, tools/bench-postgres.sh runs after, for the
# PostgreSQL functions per row.
# usage: tools/bench-duckdb.sh [BUILD_DIR] [MB]   (default build/duckdb, 1000)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${1:-build/duckdb}
mb=${2:-1000}
bash tools/setup.sh duckdb
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DURISCAN_BUILD_DUCKDB=ON \
  -DURISCAN_BUILD_TESTS=OFF -DURISCAN_BUILD_BENCH=OFF > /dev/null
cmake --build "$build" -j2 --target uriscan_cli uriscan_duckdb_extension \
  uriscan_duckdb_shell > /dev/null
uriscan=$(pwd)/$build/uriscan
ext=$(cd "$build/duckdb" && pwd)/uriscan.duckdb_extension
host=$(pwd)/$build/duckdb/uriscan-duckdb
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
shared=../shared/corpus

# The inputs: whole copies of the lists (and of the log) up to MB.
repeat() {  # OUT MB FILE...
  local out=$1 limit=$(( $2 * 1000000 ))
  shift 2
  : > "$out"
  while [ "$(stat -c %s "$out")" -lt $limit ]; do cat "$@" >> "$out"; done
}
repeat "$work/urls.txt" "$mb" "$shared"/{kasztp,userbait,node_files,isaacs_files}.txt
repeat "$work/log.txt" "$mb" "$shared"/apache_access.log
gzip -1 -c "$work/log.txt" > "$work/log.gz"
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores;" \
  "urls: $(stat -c %s "$work/urls.txt") bytes, $(wc -l < "$work/urls.txt") lines;" \
  "log: $(stat -c %s "$work/log.txt") bytes ($(stat -c %s "$work/log.gz") gzipped)"

# best NAME COMMAND...: the best of three wall-clock times, in seconds.
best() {
  local name=$1 b="" t s
  shift
  for _ in 1 2 3; do
    s=$(date +%s%N)
    "$@" > /dev/null
    t=$(( ($(date +%s%N) - s) / 1000000 ))
    if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t; fi
  done
  printf '%-62s %8.2f s\n' "$name" "$(awk "BEGIN { print $b / 1000 }")"
}
# A DuckDB session: the table of URLs loaded (not timed), then the query
# timed inside DuckDB's own process by the host's wall clock around it.
db=$work/bench.duckdb
"$host" --mode=tsv "$ext" "SET threads = 2" \
  "ATTACH '$db' AS b" "CREATE TABLE b.t AS SELECT uri AS u FROM read_uris('$work/urls.txt')" > /dev/null
duck() { "$host" --mode=tsv "$ext" "SET threads = 2" "ATTACH '$db' AS b (READ_ONLY)" "USE b" "$@"; }
tsv="(FORMAT csv, DELIMITER '\t', HEADER false, QUOTE '')"
appendix_b='^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?'

echo "== 1. five components of a table of $(duck "SELECT count(*) FROM t") rows, as TSV"
best "DuckDB: count(u), the table scan alone" duck "SELECT count(u) FROM t"
best "DuckDB: five columns u, u, u, u, u as TSV (the writer's floor)" duck \
  "COPY (SELECT u, u, u, u, u FROM t) TO '/dev/null' $tsv"
best "extension: uri_valid(u) alone (copy in, scan, one boolean)" duck \
  "SELECT count(*) FROM t WHERE uri_valid(u)"
best "extension: uri_scheme(u) ... uri_fragment(u)" duck \
  "COPY (SELECT uri_scheme(u), uri_host(u), uri_path(u), uri_query(u), uri_fragment(u) FROM t) TO '/dev/null' $tsv"
best "extension: the five functions counted (no writer)" duck \
  "SELECT count(uri_scheme(u)), count(uri_host(u)), count(uri_path(u)), count(uri_query(u)), count(uri_fragment(u)) FROM t"
best "extension: uri_parse(u), one scan" duck \
  "COPY (SELECT p.scheme, p.host, p.path, p.query, p.fragment FROM (SELECT uri_parse(u) AS p FROM t)) TO '/dev/null' $tsv"
best "DuckDB: regexp_extract, RFC 3986 Appendix B" duck \
  "COPY (SELECT regexp_extract(u, '$appendix_b', 2), regexp_extract(u, '$appendix_b', 4), regexp_extract(u, '$appendix_b', 5), regexp_extract(u, '$appendix_b', 7), regexp_extract(u, '$appendix_b', 9) FROM t) TO '/dev/null' $tsv"

echo "== 2. from the file"
best "extension: read_uris alone, count(uri)" duck \
  "SELECT count(uri) FROM read_uris('$work/urls.txt')"
best "extension: read_uris, uri_scheme ... uri_fragment, TSV" duck \
  "COPY (SELECT uri_scheme(uri), uri_host(uri), uri_path(uri), uri_query(uri), uri_fragment(uri) FROM read_uris('$work/urls.txt')) TO '/dev/null' $tsv"
best "uriscan parse --format=tsv --columns=five --threads=2" \
  "$uriscan" parse --format=tsv --quiet --threads=2 2>/dev/null \
  --columns=scheme,host,path,query,fragment "$work/urls.txt"

echo "== 3. the gzipped log to a file"
best "extension: read_uris(format := 'combined') to Parquet" duck \
  "COPY (SELECT * FROM read_uris('$work/log.gz', format := 'combined')) TO '$work/out.parquet' (FORMAT parquet)"
best "extension: read_uris(format := 'combined') to TSV" duck \
  "COPY (SELECT * FROM read_uris('$work/log.gz', format := 'combined')) TO '$work/out.tsv' $tsv"
best "uriscan extract --from=combined --with-line to a file" \
  sh -c "'$uriscan' extract --from=combined --with-line --quiet --threads=2 '$work/log.gz' > '$work/out.txt' 2>/dev/null || true"

if [ -f "$(pg_config --sharedir 2>/dev/null)/extension/uriscan.control" ]; then
  echo "== PostgreSQL (tools/bench-postgres.sh: a million rows, serial)"
  bash tools/bench-postgres.sh
fi
