#!/usr/bin/env bash
# The PostgreSQL extension on a real server: installs Debian's PostgreSQL 15
# and its server headers (tools/setup.sh postgres), builds uriscan with
# -DURISCAN_BUILD_POSTGRES=ON in BUILD_DIR, installs the extension into
# the system's PostgreSQL 15 (as root), then in a throw-away cluster
# (pg_virtualenv) runs, in a SQL_ASCII and a UTF8 database, the edge cases
# against their expected output (postgres/test/expected/) and every function
# against the command's own output on the shared corpora, with a parallel
# plan. Prints PASS or FAIL; exits non-zero on failure. KEEP_OUTPUT=DIR
# copies an edge case's output that differs into DIR (to review, then make
# it the expected output).
# usage: tools/postgres-test.sh [BUILD_DIR]   (default build/postgres; one
#   that exists keeps its configuration and other targets, as tools/test.sh's
#   build/ext does). URISCAN_CLI=PATH: the command to compare with (then it is
#   not built here).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ "$(id -u)" -eq 0 ] || { echo "postgres-test: run as root" >&2; exit 2; }

bash tools/setup.sh postgres
build=${1:-build/postgres}
# A new build directory gets the extension alone, RelWithDebInfo; one that
# exists keeps its configuration and other targets and adds it.
fresh=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DURISCAN_BUILD_TESTS=OFF
       -DURISCAN_BUILD_BENCH=OFF)
[ -f "$build/CMakeCache.txt" ] && fresh=()
cmake -S . -B "$build" -DURISCAN_BUILD_POSTGRES=ON "${fresh[@]}" >/dev/null
if [ -n "${URISCAN_CLI:-}" ]; then
  uriscan=$URISCAN_CLI
  cmake --build "$build" -j2 --target uriscan_pg
else
  uriscan=$build/uriscan
  cmake --build "$build" -j2 --target uriscan_pg uriscan_cli
fi
cmake --install "$build" --component postgres >/dev/null

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
corpora=()
for f in ../shared/corpus/*.txt ../shared/corpus/*.log; do
  [ -f "$f" ] && corpora+=("$f")
done
if [ ${#corpora[@]} -eq 0 ]; then
  echo "postgres-test: FAIL: no shared corpora in ../shared/corpus" >&2
  exit 1
fi
/usr/bin/python3 postgres/test/prepare.py "$uriscan" "$work" \
  "${corpora[@]}"
# The UTF8 database loads only the lines that are UTF-8.
mkdir "$work/utf8"
for f in "$work"/*.tsv; do ln -s "$f" "$work/utf8/"; done
ln -sf "$work/lines_utf8.tsv" "$work/utf8/lines.tsv"
ln -sf "$work/params_utf8.tsv" "$work/utf8/params.tsv"
ln -sf "$work/params_lines_utf8.tsv" "$work/utf8/params_lines.tsv"
cp postgres/test/*.sql "$work/"
mkdir "$work/out"
# What the command writes for hostile lines (NUL and non-UTF-8 escapes,
# backslashes, control bytes, a Latin-1 byte, a tab), to be loaded with
# COPY into both databases: no row may be refused.
printf '%s\n' 'http://a/?q=%00&r=x%00y' 'http://b/p%E9?x=%E9&y=caf%C3%A9' \
  'http://c/%5C?b=%5C%5C&t=%09%0A%0D&n=%5CN' 'http://d/?z=%FF%C0%AF#%00' \
  > "$work/hostile.txt"
printf 'http://e/\\x?\001=\351\thttp://f/\n' >> "$work/hostile.txt"
"$uriscan" params --quiet "$work/hostile.txt" \
  > "$work/hostile_params.tsv" 2>/dev/null
"$uriscan" parse --quiet --format=tsv --no-header \
  --columns=line,valid,at,error,path_decoded,query_decoded,fragment_decoded,path_segments,param_names,param:x \
  "$work/hostile.txt" > "$work/hostile_parse.tsv" 2>/dev/null

# Runs inside the cluster: PGHOST and friends are set by pg_virtualenv.
cat > "$work/run.sh" <<'RUN'
set -euo pipefail
cd "$1"
status=0
for db in sql_ascii utf8; do
  if [ $db = sql_ascii ]; then
    createdb -T template0 -E SQL_ASCII --locale=C $db
  else
    createdb -T template0 -E UTF8 --locale=C.UTF-8 $db
  fi
  psql -X -q -d $db -c 'CREATE EXTENSION uriscan'
  for t in edge enc_$db; do
    psql -X -a -d $db -f $t.sql > out/$t.$db.out 2>&1 || true
  done
  # The command's output of hostile lines loads as it is, every row.
  if ! psql -X -q -At -d $db > out/hostile.$db.out 2>&1 <<'SQL' ||
CREATE TABLE hp (line bigint, name text, value text);
\copy hp FROM 'hostile_params.tsv'
CREATE TABLE hq (line bigint, valid boolean, at bigint, error text,
  path text, query text, fragment text, segments json, names json, x text);
\copy hq FROM 'hostile_parse.tsv'
SELECT count(*) FROM hp;
SELECT count(*) FROM hq;
SQL
     [ "$(sed -n 1p out/hostile.$db.out)" != "$(wc -l < hostile_params.tsv)" ] ||
     [ "$(sed -n 2p out/hostile.$db.out)" != "$(wc -l < hostile_parse.tsv)" ]; then
    echo "postgres-test: COPY of hostile output into $db:" >&2
    cat out/hostile.$db.out >&2
    status=1
  fi
  dir=.
  [ $db = utf8 ] && dir=utf8
  (cd $dir && psql -X -q -d $db -f "$1/compare.sql") > out/compare.$db.out 2>&1 ||
    status=1
done

# Every call that can run long is cancelled by statement_timeout (the
# bridge stops for a pending interrupt, the library's long loops ask it
# too, the row loop checks), within a few seconds rather than after the
# whole call (10 s and more before): a query of 30 million parameters.
big="'http://a/?' || repeat('x&', 30000000)"
for call in "count(*) FROM uri_params($big)" "uri_param($big, 'y')" \
            "uri_key($big, 'crawler')" "uri_normalize($big, 'w3lib')" \
            "length(uri_surt($big))"; do
  start=$(date +%s%N)
  finished=0
  psql -X -q -d utf8 -c "SET statement_timeout = '1s'" \
    -c "SELECT $call" > out/timeout.out 2>&1 && finished=1
  elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
  # A call may end before the timeout fires (uri_param walks 30 million
  # fields in about a second); one that runs on must be cancelled.
  if [ "$finished" = 1 ] && [ "$elapsed_ms" -le 2000 ]; then
    continue
  fi
  if ! grep -q 'canceling statement due to statement timeout' out/timeout.out ||
     [ "$elapsed_ms" -gt 5000 ]; then
    echo "postgres-test: statement_timeout of SELECT $call took" \
         "${elapsed_ms} ms:" >&2
    cat out/timeout.out >&2
    status=1
  fi
done
# pg_cancel_backend stops such a call as well.
psql -X -q -d utf8 -c "SELECT uri_key($big, 'crawler')" \
  > out/cancel.out 2>&1 &
victim=$!
pid=
for _ in $(seq 100); do
  pid=$(psql -X -q -At -d utf8 -c "SELECT pid FROM pg_stat_activity
          WHERE query LIKE 'SELECT uri_key(%' AND pid <> pg_backend_pid()")
  [ -n "$pid" ] && break
  sleep 0.05
done
sleep 0.5  # inside the call
start=$(date +%s%N)
psql -X -q -At -d utf8 -c "SELECT pg_cancel_backend(${pid:-0})" \
  > /dev/null 2>&1 || true
wait $victim || true
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
if [ -z "$pid" ] || ! grep -q 'canceling statement due to user request' \
     out/cancel.out || [ "$elapsed_ms" -gt 5000 ]; then
  echo "postgres-test: pg_cancel_backend took ${elapsed_ms} ms:" >&2
  cat out/cancel.out >&2
  status=1
fi
# What a call needed is given back: after calls on 3 million parameters
# (6 MB) by every function that works on them, the idle backend's private
# memory is small (it kept hundreds of MB before).
psql -X -q -At -d utf8 > out/rss.out 2>&1 <<'SQL' || status=1
SELECT count(*) FROM uri_params('http://a/?' || repeat('x&', 3000000));
SELECT uri_key('http://a/?' || repeat('x&', 3000000), 'crawler') <> 0;
SELECT length(uri_normalize('http://a/?' || repeat('x&', 3000000), 'w3lib'));
SELECT length(uri_normalize('http://a/' || repeat('%7e/', 1500000)));
SELECT length(uri_surt('http://a/?' || repeat('x&', 3000000)));
SELECT length(uri_resolve('http://a/b', repeat('c/../', 1200000)));
SELECT uri_param('http://a/?' || repeat('x&', 3000000), 'y') IS NULL;
SELECT pg_backend_pid() AS pid \gset
\setenv BACKEND :pid
\! grep RssAnon /proc/$BACKEND/status
SQL
rss_kb=$(awk '/RssAnon/ { print $2 }' out/rss.out)
if [ -z "$rss_kb" ] || [ "$rss_kb" -gt 65536 ]; then
  echo "postgres-test: the backend keeps ${rss_kb:-?} kB after uri_params:" >&2
  cat out/rss.out >&2
  status=1
fi
exit $status
RUN
compare_status=0
pg_virtualenv -t bash "$work/run.sh" "$work" >"$work/cluster.log" 2>&1 ||
  compare_status=$?

# What the server said stays in BUILD_DIR/test-out for a look later.
rm -rf "$build/test-out"
cp -r "$work/out" "$build/test-out"
cp "$work/cluster.log" "$build/test-out/"
failed=0
expected=postgres/test/expected
for db in sql_ascii utf8; do
  for t in edge enc_$db; do
    if ! diff -u "$expected/$t.out" "$work/out/$t.$db.out" \
         > "$work/out/$t.$db.diff"; then
      echo "postgres-test: $t.sql in the $db database differs:"
      head -40 "$work/out/$t.$db.diff"
      [ -z "${KEEP_OUTPUT:-}" ] || cp "$work/out/$t.$db.out" "$KEEP_OUTPUT/"
      failed=1
    fi
  done
  if [ -f "$work/out/compare.$db.out" ]; then
    cat "$work/out/compare.$db.out"
  fi
done
if [ "$compare_status" -ne 0 ]; then
  echo "postgres-test: the comparison with the command failed:"
  tail -20 "$work/cluster.log"
  failed=1
fi
if [ "$failed" -ne 0 ]; then
  echo "postgres-test: FAIL"
  exit 1
fi
echo "postgres-test: PASS (${#corpora[@]} corpora, SQL_ASCII and UTF8)"
