#!/usr/bin/env bash
# The PostgreSQL extension on a table of the shared URL lists repeated to
# about a million rows, in a throw-away cluster (pg_virtualenv): counts of
# uri_host, distinct crawler keys, uri_parse, and the same questions asked
# of pguri when it is installed (built from its source outside this
# repository, never part of it); then COPY of `uriscan parse --format=tsv`.
# Each query runs three times, serially (no parallel workers); the best
# time is printed. usage: tools/bench-postgres.sh [BUILD_DIR] (as root, after
# tools/postgres-test.sh has installed the extension)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${1:-build/postgres}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The URL lists (not the access log: pguri raises on lines that are not
# URIs, so its table holds only what it accepts).
cat ../shared/corpus/{kasztp,node_files,isaacs_files,userbait}.txt |
  /usr/bin/python3 -c '
import sys
lines = [l for l in sys.stdin.buffer.read().split(b"\n") if l]
out = sys.stdout.buffer
n = 0
while n < 1000000:
    for l in lines:
        out.write(l.replace(b"\\", b"\\\\") + b"\n")
        n += 1
' > "$work/urls.txt"
"$build/uriscan" parse --format=tsv --quiet "$work/urls.txt" > /dev/null 2>&1 || true  # warm
lscpu | sed -n 's/^Model name: *//p' > "$work/cpu"

cat > "$work/bench.sh" <<'RUN'
set -euo pipefail
cd "$1"
psql -X -q -c 'CREATE EXTENSION uriscan'
pguri=0
if [ -f "$(pg_config --sharedir)/extension/uri.control" ]; then
  psql -X -q -c 'CREATE EXTENSION uri' && pguri=1
fi
psql -X -q <<'SQL'
CREATE TABLE t (u text);
\copy t FROM 'urls.txt' (FORMAT text)
SQL
if [ $pguri = 1 ]; then
  # Only the rows pguri accepts, for both: it raises on any other.
  psql -X -q <<'SQL'
CREATE FUNCTION pguri_accepts(u text) RETURNS boolean LANGUAGE plpgsql AS
  $$ BEGIN PERFORM u::uri; RETURN true;
     EXCEPTION WHEN others THEN RETURN false; END $$;
CREATE TABLE accepted AS SELECT u FROM (SELECT DISTINCT u FROM t) d
  WHERE pguri_accepts(u);
CREATE TABLE kept AS SELECT t.u FROM t JOIN accepted USING (u);
DROP TABLE t;
ALTER TABLE kept RENAME TO t;
SQL
fi
psql -X -q -c 'VACUUM ANALYZE t'

# best of three, in milliseconds
best() {
  local name=$1 sql=$2 ms b=""
  for _ in 1 2 3; do
    ms=$(psql -X -q -d postgres -c '\timing on' -c "SET max_parallel_workers_per_gather = 0" \
      -c "$sql" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1)
    if [ -z "$b" ] || awk "BEGIN{exit !($ms < $b)}"; then b=$ms; fi
  done
  printf '%-58s %9.0f ms\n' "$name" "$b"
}
echo "rows: $(psql -X -At -c 'SELECT count(*) FROM t')"
best "count(u) (the table scan alone)" "SELECT count(u) FROM t"
best "uriscan: count(uri_host(u))" "SELECT count(uri_host(u)) FROM t"
best "uriscan: count(DISTINCT uri_key(u, 'crawler'))" \
  "SELECT count(DISTINCT uri_key(u, 'crawler')) FROM t"
best "uriscan: uri_parse(u), five components from one scan" \
  "SELECT count((p).scheme), count((p).host), count((p).path), count((p).query), count((p).fragment) FROM (SELECT uri_parse(u) AS p FROM t OFFSET 0) s"
best "uriscan: five functions uri_scheme ... uri_fragment" \
  "SELECT count(uri_scheme(u)), count(uri_host(u)), count(uri_path(u)), count(uri_query(u)), count(uri_fragment(u)) FROM t"
best "uriscan: count(uri_registrable_domain(u))" \
  "SELECT count(uri_registrable_domain(u)) FROM t"
if [ $pguri = 1 ]; then
  psql -X -q -c 'CREATE TABLE tu AS SELECT u::uri AS u FROM t' -c 'VACUUM ANALYZE tu'
  best "pguri: count(uri_host(u::uri)) from text" \
    "SELECT count(uri_host(u::uri)) FROM t"
  best "pguri: count(uri_host(u)) from a uri column" \
    "SELECT count(uri_host(u)) FROM tu"
  best "pguri: count(DISTINCT uri_normalize(u)) from a uri column" \
    "SELECT count(DISTINCT uri_normalize(u)) FROM tu"
  best "pguri: five functions uri_scheme ... uri_fragment (uri column)" \
    "SELECT count(uri_scheme(u)), count(uri_host(u)), count(uri_path(u)), count(uri_query(u)), count(uri_fragment(u)) FROM tu"
fi
RUN
cd "$work"
pg_virtualenv -t bash "$work/bench.sh" "$work" 2>"$work/bench.err" || { tail "$work/bench.err"; exit 1; } | grep -v '^Creating\|^Dropping'
# The load path: the command's TSV into a table, timed end to end.
cat > "$work/copy.sh" <<RUN
set -euo pipefail
psql -X -q -c 'CREATE TABLE parsed (line bigint, valid boolean, scheme text,
  userinfo text, host text, port text, path text, query text, fragment text,
  host_type text, error text)'
start=\$(date +%s%N)
"$root/$build/uriscan" parse --format=tsv --quiet "$work/urls.txt" |
  psql -X -q -c '\copy parsed FROM STDIN (FORMAT text, HEADER true)'
printf '%-58s %9.0f ms\n' "uriscan parse --format=tsv | COPY (all columns)" \
  \$(( (\$(date +%s%N) - start) / 1000000 ))
start=\$(date +%s%N)
psql -X -q -c 'CREATE TABLE raw (u text)' \
  -c "\\\\copy raw FROM '$work/urls.txt' (FORMAT text)"
printf '%-58s %9.0f ms\n' "COPY of the URLs alone (one text column)" \
  \$(( (\$(date +%s%N) - start) / 1000000 ))
RUN
pg_virtualenv -t bash "$work/copy.sh" 2>/dev/null | grep -v '^Creating\|^Dropping'
echo "CPU: $(cat "$work/cpu")"
