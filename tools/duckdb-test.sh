#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The DuckDB extension's tests: builds it (build/duckdb, Release) against
# DuckDB 1.4.4's npm packages (tools/setup.sh duckdb fetches them), loads it
# into libduckdb.so through the test host, and compares every function
# with the command on the shared corpora and the hand-made cases (0
# differences allowed), read_uris with `uriscan extract` on the log in
# every format and compression, one thread against two, NULL, empty,
# invalid and 1 MiB inputs, and a Parquet file written and read back.
# usage: tools/duckdb-test.sh [--sanitize] [BUILD_DIR]
#   (default build/duckdb; --sanitize: a Debug build under AddressSanitizer
#   and UndefinedBehaviorSanitizer in build/duckdb-asan, the extension and
#   the shell both instrumented: the sanitizer tier of tools/test.sh --full)
#   A BUILD_DIR that exists keeps its configuration and targets and gets
#   the extension beside them, compiled with the library objects it has
#   (tools/test.sh: build/ext, which the PostgreSQL test made).
#   URISCAN_CLI=PATH: the command to compare with (then it is not built
#   here), as the Python tests take it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
config=(-DCMAKE_BUILD_TYPE=Release)
build=build/duckdb
sanitize=0
if [ "${1:-}" = --sanitize ]; then
  shift
  sanitize=1
  config=(-DCMAKE_BUILD_TYPE=Debug -DURISCAN_SANITIZE=ON)
  build=build/duckdb-asan
  # libduckdb.so is not instrumented: what it allocates and frees itself
  # is not checked, what the extension and the shell do with it is.
  export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fi
build=${1:-$build}
bash tools/setup.sh duckdb
bash tools/setup.sh build
# A new build directory gets the extension alone, configured as above; one
# that exists keeps its configuration and other targets and adds it.
fresh=("${config[@]}" -DURISCAN_BUILD_TESTS=OFF -DURISCAN_BUILD_BENCH=OFF)
[ -f "$build/CMakeCache.txt" ] && fresh=()
cmake -S . -B "$build" -DURISCAN_BUILD_DUCKDB=ON "${fresh[@]}" > /dev/null
if [ -n "${URISCAN_CLI:-}" ]; then
  cmake --build "$build" -j2 --target uriscan_duckdb uriscan_duckdb_shell \
    > /dev/null
  uriscan=$URISCAN_CLI
else
  cmake --build "$build" -j2 > /dev/null
  uriscan=$build/uriscan
fi
ext=$(cd "$build/duckdb" && pwd)/uriscan.duckdb_extension
host=$build/duckdb/uriscan-duckdb
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
sql() { "$host" --mode=tsv "$ext" "$@"; }
# References as read_uris gives them: `extract` writes bytes as they are,
# VARCHAR holds UTF-8 (U+FFFD for each maximal ill-formed part).
raw_sql() { "$host" --mode=tsv --raw "$ext" "$@"; }
utf8() { /usr/bin/python3 -c 'import sys; sys.stdout.write(sys.stdin.buffer.read().decode("utf-8", "replace"))'; }

# compare NAME FILE_A FILE_B: the two outputs must be byte-identical.
compare() {
  if cmp -s "$2" "$3"; then
    echo "duckdb-test: $1: $(wc -l < "$2") rows identical"
  else
    echo "duckdb-test: $1 differs:"
    diff "$2" "$3" | head -10 || true
    status=1
  fi
}

shared=$root/../shared/corpus
if [ "$sanitize" = 1 ] && [ -d "$shared" ]; then
  # Under the sanitizers every check runs, on the first 3,000 lines of
  # each corpus file (memory errors show on any input; the whole corpora
  # are the Release run's).
  mkdir "$work/corpus"
  for f in "$shared"/*; do head -n 3000 "$f" > "$work/corpus/$(basename "$f")"; done
  shared=$work/corpus
fi
inputs=("$root"/corpus/handmade/tricky.txt)
if [ -d "$shared" ]; then
  inputs+=("$shared"/kasztp.txt "$shared"/userbait.txt "$shared"/node_files.txt
           "$shared"/isaacs_files.txt "$shared"/apache_access.log)
fi

components=line,valid,scheme,userinfo,host,port,path,query,fragment,host_type,error
for f in "${inputs[@]}"; do
  name=$(basename "$f")
  # (A line that is not UTF-8 is no VARCHAR: read_uris gives U+FFFD for
  # its bad bytes, which leaves it as invalid, with the same error, as the
  # command finds it.)
  in=$f
  from="read_uris('$f')"
  "$uriscan" parse --format=tsv --no-header --quiet --columns=$components "$in" > "$work/want" 2>/dev/null || true
  sql "SELECT line, uri_valid(uri), uri_scheme(uri), uri_userinfo(uri), uri_host(uri), uri_port(uri), uri_path(uri), uri_query(uri), uri_fragment(uri), uri_host_type(uri), uri_error(uri) FROM $from" > "$work/got"
  compare "$name components" "$work/want" "$work/got"
  # uri_parse: the same from one call.
  sql "SELECT line, p.valid, p.scheme, p.userinfo, p.host, p.port, p.path, p.query, p.fragment, p.host_type, p.error FROM (SELECT line, uri_parse(uri) AS p FROM $from)" > "$work/got"
  compare "$name uri_parse" "$work/want" "$work/got"
  for p in syntax scheme crawler w3lib; do
    "$uriscan" parse --format=tsv --no-header --quiet --profile=$p --columns=line,normalized,key "$in" > "$work/want" 2>/dev/null || true
    sql "SELECT line, uri_normalize(uri, '$p'), lpad(lower(hex(uri_key(uri, '$p'))), 16, '0') FROM $from" > "$work/got"
    compare "$name $p normal forms and keys" "$work/want" "$work/got"
  done
  "$uriscan" parse --format=tsv --no-header --quiet --columns=line,normalized,key "$in" > "$work/want" 2>/dev/null || true
  sql "SELECT line, uri_normalize(uri), lpad(lower(hex(uri_key(uri))), 16, '0') FROM $from" > "$work/got"
  compare "$name default profile" "$work/want" "$work/got"
  "$uriscan" parse --format=tsv --no-header --quiet --columns=line,registrable_domain,public_suffix,surt,param:q,param:id "$in" > "$work/want" 2>/dev/null || true
  sql "SELECT line, uri_registrable_domain(uri), uri_public_suffix(uri), uri_surt(uri), uri_param(uri, 'q'), uri_param(uri, 'id') FROM $from" > "$work/got"
  compare "$name host parts, surt, uri_param" "$work/want" "$work/got"
  "$uriscan" audit --quiet "$in" > "$work/want" 2>/dev/null || true
  sql "SELECT line, CASE WHEN uri_valid(uri) THEN coalesce(array_to_string(uri_risks(uri), ','), '') ELSE 'invalid' END FROM $from" > "$work/got"
  compare "$name uri_risks" "$work/want" "$work/got"
  "$uriscan" params --quiet "$in" > "$work/want" 2>/dev/null || true
  sql "SELECT line, p.name, p.value FROM (SELECT line, unnest(uri_params(uri)) AS p FROM $from)" > "$work/got"
  compare "$name uri_params" "$work/want" "$work/got"
  # netquack's and ClickHouse's names: the same answers as ours.
  "$uriscan" parse --format=tsv --no-header --quiet --columns=line,scheme,host,port,path,query,registrable_domain,public_suffix,scheme,host,host_nowww,path,query,fragment,registrable_domain,param:q "$in" > "$work/want" 2>/dev/null || true
  sql "SELECT line, extract_schema(uri), extract_host(uri), extract_port(uri), extract_path(uri), extract_query_string(uri), extract_domain(uri), extract_tld(uri), protocol(uri), domain(uri), domainWithoutWWW(uri), path(uri), queryString(uri), fragment(uri), cutToFirstSignificantSubdomain(uri), extractURLParameter(uri, 'q') FROM $from" > "$work/got"
  compare "$name netquack and ClickHouse names" "$work/want" "$work/got"
  # Every other column a reference alone gives: one function each, a list
  # as the command's JSON array.
  "$uriscan" parse --format=tsv --no-header --quiet --columns=line,at,authority,host_nowww,subdomain,extension,path_decoded,query_decoded,fragment_decoded,path_segments,param_names,surt_crawler,param_raw:q,param_raw:id "$in" > "$work/want" 2>/dev/null || true
  sql "SELECT line, uri_error_at(uri), uri_authority(uri), uri_host_nowww(uri), uri_subdomain(uri), uri_extension(uri), uri_path_decoded(uri), uri_query_decoded(uri), uri_fragment_decoded(uri), to_json(uri_path_segments(uri)), to_json(uri_param_names(uri)), uri_surt_crawler(uri), uri_param_raw(uri, 'q'), uri_param_raw(uri, 'id') FROM $from" > "$work/got"
  compare "$name derived columns" "$work/want" "$work/got"
  # The other names that answer with a column, or with a URL whose
  # components are the reference's (each count is of rows that break it).
  checks=$(sql "$(cat <<SQL
SELECT
 count(*) FILTER (WHERE uri_valid(uri) AND (uri_host(cutWWW(uri)) IS DISTINCT FROM uri_host_nowww(uri) OR uri_path(cutWWW(uri)) IS DISTINCT FROM uri_path(uri) OR uri_query(cutWWW(uri)) IS DISTINCT FROM uri_query(uri) OR uri_fragment(cutWWW(uri)) IS DISTINCT FROM uri_fragment(uri))) AS cutwww,
 count(*) FILTER (WHERE uri_valid(uri) AND (uri_query(cutQueryString(uri)) IS NOT NULL OR uri_host(cutQueryString(uri)) IS DISTINCT FROM uri_host(uri) OR uri_path(cutQueryString(uri)) IS DISTINCT FROM uri_path(uri) OR uri_fragment(cutQueryString(uri)) IS DISTINCT FROM uri_fragment(uri))) AS cutquery,
 count(*) FILTER (WHERE uri_valid(uri) AND (uri_fragment(cutFragment(uri)) IS NOT NULL OR uri_host(cutFragment(uri)) IS DISTINCT FROM uri_host(uri) OR uri_path(cutFragment(uri)) IS DISTINCT FROM uri_path(uri) OR uri_query(cutFragment(uri)) IS DISTINCT FROM uri_query(uri))) AS cutfragment,
 count(*) FILTER (WHERE uri_valid(uri) AND coalesce(array_to_string(extractURLParameters(uri), '&'), '') IS DISTINCT FROM regexp_replace(trim(coalesce(uri_query(uri), ''), '&'), '&+', '&', 'g')) AS params,
 count(*) FILTER (WHERE uri_valid(uri) AND len(extractURLParameters(uri)) <> len(uri_param_names(uri))) AS params_count,
 count(*) FILTER (WHERE uri_valid(uri) AND uri_scheme(uri) IS NOT NULL AND uri_host(uri) IS NOT NULL AND (URLHierarchy(uri)[-1] IS DISTINCT FROM cutFragment(uri) OR len(list_filter(URLHierarchy(uri), x -> NOT starts_with(uri, x))) > 0)) AS hierarchy,
 count(*) FILTER (WHERE uri_valid(uri) AND uri_scheme(uri) IS NOT NULL AND uri_host(uri) IS NOT NULL AND len(URLPathHierarchy(uri)) > 0 AND NOT ends_with(cutFragment(uri), URLPathHierarchy(uri)[-1])) AS path_hierarchy,
 count(*) FILTER (WHERE uri_valid(uri) AND (decodeURLComponent(uri_path(uri)) IS DISTINCT FROM uri_path_decoded(uri) OR decodeURLComponent(uri_query(uri)) IS DISTINCT FROM uri_query_decoded(uri))) AS decode,
 count(*) FILTER (WHERE decodeURLComponent(encodeURLComponent(uri)) <> uri) AS encode_roundtrip,
 count(*) FILTER (WHERE port(uri) IS DISTINCT FROM CASE WHEN uri_valid(uri) AND TRY_CAST(uri_port(uri) AS BIGINT) <= 65535 THEN CAST(uri_port(uri) AS INTEGER) END) AS port,
 count(*) FILTER (WHERE firstSignificantSubdomain(uri) IS DISTINCT FROM split_part(uri_registrable_domain(uri), '.', 1)) AS first_significant,
 count(*) FILTER (WHERE netloc(uri) IS DISTINCT FROM uri_authority(uri) OR extract_subdomain(uri) IS DISTINCT FROM uri_subdomain(uri) OR extract_extension(uri) IS DISTINCT FROM uri_extension(uri) OR extract_path_segments(uri) IS DISTINCT FROM uri_path_segments(uri) OR extractURLParameterNames(uri) IS DISTINCT FROM uri_param_names(uri) OR extract_query_parameters(uri) IS DISTINCT FROM uri_params(uri)) AS same_as_columns
FROM $from
SQL
)")
  if [ "$checks" != "0	0	0	0	0	0	0	0	0	0	0	0" ]; then
    echo "duckdb-test: $name ClickHouse and netquack names against the columns (rows that differ:"
    echo "  cutWWW cutQueryString cutFragment extractURLParameters (text, count) URLHierarchy URLPathHierarchy decodeURLComponent encodeURLComponent port firstSignificantSubdomain column aliases): $checks"
    status=1
  else
    echo "duckdb-test: $name ClickHouse and netquack names agree with the columns"
  fi
  "$uriscan" resolve --quiet --on-error=skip --base=http://a/b/c/d\;p\?q "$in" > "$work/want" 2>/dev/null || true
  sql "SELECT uri_resolve('http://a/b/c/d;p?q', uri) AS r FROM $from WHERE r IS NOT NULL" > "$work/got"
  compare "$name uri_resolve" "$work/want" "$work/got"
done

# The other tools' own documented examples, where their answer is ours:
# ClickHouse's URL functions, then netquack's.
doc_examples=(
  "URLHierarchy('https://example.com/browse/CONV-6788')|['https://example.com/', 'https://example.com/browse/', 'https://example.com/browse/CONV-6788']"
  "URLPathHierarchy('https://example.com/browse/CONV-6788')|[/browse/, /browse/CONV-6788]"
  "cutFragment('http://example.com/path?query=value#fragment123')|http://example.com/path?query=value"
  "cutQueryString('http://example.com/?page=1&lr=213#top')|http://example.com/#top"
  "cutWWW('http://www.example.com/path?query=value#fragment')|http://example.com/path?query=value#fragment"
  "extractURLParameters('http://example.com/?page=1&lr=213')|['page=1', 'lr=213']"
  "extractURLParameterNames('http://example.com/?page=1&lr=213')|[page, lr]"
  "decodeURLComponent('http://127.0.0.1:8123/?query=SELECT%201%3B')|http://127.0.0.1:8123/?query=SELECT 1;"
  "encodeURLComponent('http://127.0.0.1:8123/?query=SELECT 1;')|http%3A%2F%2F127.0.0.1%3A8123%2F%3Fquery%3DSELECT%201%3B"
  "netloc('http://paul@www.example.com:80/')|paul@www.example.com:80"
  "port('http://paul@www.example.com:80/')|80"
  "port('http://example.com/', 443)|443"
  "firstSignificantSubdomain('https://news.clickhouse.com/')|clickhouse"
  "extract_subdomain('http://a.b.example.com/path')|a.b"
  "extract_extension('http://example.com/image.jpg')|jpg"
  "extract_path_segments('https://example.com/path/to/page?q=1')|[path, to, page]"
  "extract_query_parameters('http://example.com/path/?a=1&b=2')|[{'name': a, 'value': 1}, {'name': b, 'value': 2}]"
)
for e in "${doc_examples[@]}"; do
  got=$(sql "SELECT ${e%%|*}")
  if [ "$got" != "${e#*|}" ]; then
    echo "duckdb-test: ${e%%|*} gave '$got', not '${e#*|}'"
    status=1
  fi
done
echo "duckdb-test: ${#doc_examples[@]} documented examples of ClickHouse and netquack checked"

# read_uris against `uriscan extract`, in every log format, plain, gzip
# and zstd, a list of files and a glob.
if [ -d "$shared" ]; then
  log=$shared/apache_access.log
  gzip -c "$log" > "$work/log.gz"
  zstd -q -c "$log" > "$work/log.zst"
  for args in "combined target" "combined referer" "clf target" "text -"; do
    set -- $args
    opts=(--from="$1") fmt="format := '$1'"
    if [ "$2" != - ]; then opts+=(--field="$2"); fmt="$fmt, field := '$2'"; fi
    for input in "$log" "$work/log.gz" "$work/log.zst"; do
      "$uriscan" extract --quiet --with-line "${opts[@]}" "$input" 2>/dev/null | utf8 > "$work/want"
      raw_sql "SELECT line, uri FROM read_uris('$input', $fmt) WHERE uri IS NOT NULL" > "$work/got"
      compare "read_uris $args $(basename "$input")" "$work/want" "$work/got"
    done
  done
  # A malformed line is marked in its row (problem): the command's
  # diagnostics, line for line, for a line that gave a reference or none.
  for args in "combined target" "combined referer" "clf target"; do
    set -- $args
    base=() base_sql=
    if [ "$2" = target ]; then
      base=(--base=http://www.semicomplete.com/)
      base_sql=", base := 'http://www.semicomplete.com/'"
    fi
    { "$uriscan" extract --quiet --from="$1" --field="$2" "${base[@]}" "$log" 2>&1 >/dev/null || true; } |
      sed -n 's/^[^:]*:\([0-9]*\):[0-9]*: error: /\1\t/p' > "$work/want"
    raw_sql "SELECT line, problem FROM read_uris('$log', format := '$1', field := '$2'$base_sql) WHERE problem IS NOT NULL" > "$work/got"
    compare "read_uris $args problems" "$work/want" "$work/got"
  done
  # (The problems themselves are compared above; under the sanitizers the
  # log is its first 3,000 lines, which have none.)
  [ "$(sql "SELECT count(*) FILTER (WHERE uri IS NULL AND problem IS NULL) FROM read_uris('$log', format := 'combined', base := 'http://www.semicomplete.com/')")" = 0 ] ||
    { echo "duckdb-test: read_uris: a row with neither a reference nor a problem"; status=1; }
  "$uriscan" extract --quiet --with-line --from=combined --base=http://www.semicomplete.com/ "$log" 2>/dev/null | utf8 > "$work/want"
  raw_sql "SELECT line, uri FROM read_uris('$log', format := 'combined', base := 'http://www.semicomplete.com/') WHERE uri IS NOT NULL" > "$work/got"
  compare "read_uris combined with base" "$work/want" "$work/got"
  # The README's example as a reader runs it, on this log: a host on every
  # row (the log's targets are relative: the example gives a base).
  awk '/^```sql$/ {f = 1; next} /^```$/ {if (f) exit} f' "$root/README.md" \
    | grep -v '^LOAD ' \
    | sed -e "s|'access.log.gz'|'$work/log.gz'|" \
          -e "s|'requests.parquet'|'$work/requests.parquet'|" > "$work/readme.sql"
  sql "$(cat "$work/readme.sql")" > /dev/null
  sql "SELECT count(*), count(host), count(*) FILTER (WHERE host = 'example.com'),
              count(time), count(status) FROM '$work/requests.parquet'" > "$work/got"
  rows=$(grep -c '' < <(raw_sql "SELECT line FROM read_uris('$log', format := 'combined', base := 'https://example.com/') WHERE uri IS NOT NULL"))
  printf '%s\t%s\t%s\t%s\t%s\n' "$rows" "$rows" "$rows" "$rows" "$rows" > "$work/want"
  compare "the README's example: a host, a time and a status on every row" "$work/want" "$work/got"
  "$uriscan" extract --quiet --from=combined --field=referer --lenient "$log" 2>/dev/null | utf8 > "$work/want"
  raw_sql "SELECT uri FROM read_uris('$log', format := 'combined', field := 'referer', lenient := true) WHERE uri IS NOT NULL" > "$work/got"
  compare "read_uris lenient" "$work/want" "$work/got"
  # A target --lenient repairs (a "|" and a "{") is resolved against the base
  # as repaired; strict, it is no reference.
  printf '1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET /a|b?c=d{e HTTP/1.0" 200 5 "-" "x"\n' > "$work/unsafe.log"
  "$uriscan" extract --quiet --with-line --from=combined --lenient --base=http://h/ "$work/unsafe.log" 2>/dev/null | utf8 > "$work/want"
  raw_sql "SELECT line, uri FROM read_uris('$work/unsafe.log', format := 'combined', base := 'http://h/', lenient := true)" > "$work/got"
  compare "read_uris lenient with a base" "$work/want" "$work/got"
  cat "$log" "$log" > "$work/want.log"
  "$uriscan" extract --quiet --from=combined "$work/want.log" 2>/dev/null | utf8 > "$work/want"
  raw_sql "SELECT uri FROM read_uris(['$log', '$work/log.gz'], format := 'combined')" > "$work/got"
  compare "read_uris list of files" "$work/want" "$work/got"
  raw_sql "SELECT uri FROM read_uris('$work/log.*', format := 'combined')" > "$work/got"
  compare "read_uris glob" "$work/want" "$work/got"

  # A damaged gzip stream: the rows before the damage, then an error
  # naming the file; a LIMIT stops the reading early.
  head -c $(( $(stat -c %s "$work/log.gz") / 2 )) "$work/log.gz" > "$work/cut.gz"
  if sql "SELECT count(*) FROM read_uris('$work/cut.gz', format := 'combined')" > /dev/null 2> "$work/err"; then
    echo "duckdb-test: a cut gzip file read without an error"
    status=1
  elif ! grep -q "cut.gz: gzip:" "$work/err"; then
    echo "duckdb-test: a cut gzip file: $(cat "$work/err")"
    status=1
  fi
  sql "SELECT line FROM read_uris(['$log', '$log', '$log'], format := 'combined') LIMIT 3" > "$work/got"
  printf '1\n2\n3\n' > "$work/want"
  compare "read_uris with a LIMIT" "$work/want" "$work/got"

  # csv, tsv and jsonl made from the log's referers.
  "$uriscan" extract --quiet --from=combined --field=referer "$log" > "$work/all-refs" 2>/dev/null || true
  head -2000 "$work/all-refs" > "$work/refs"
  awk 'BEGIN { print "n,url" } { gsub(/"/, "\"\""); printf "%d,\"%s\"\n", NR, $0 }' "$work/refs" > "$work/t.csv"
  awk 'BEGIN { print "n\turl" } { printf "%d\t%s\n", NR, $0 }' "$work/refs" > "$work/t.tsv"
  awk '{ gsub(/\\/, "\\\\"); gsub(/"/, "\\\""); printf "{\"n\":%d,\"url\":\"%s\"}\n", NR, $0 }' "$work/refs" > "$work/t.jsonl"
  for t in "csv url" "tsv url" "csv 2" "jsonl url"; do
    set -- $t
    gzip -c "$work/t.$1" > "$work/t.$1.gz"
    zstd -q -c "$work/t.$1" > "$work/t.$1.zst"
    for input in "$work/t.$1" "$work/t.$1.gz" "$work/t.$1.zst"; do
      "$uriscan" extract --quiet --with-line --from="$1" --field="$2" "$input" 2>/dev/null | utf8 > "$work/want"
      raw_sql "SELECT line, uri FROM read_uris('$input', format := '$1', field := '$2')" > "$work/got"
      compare "read_uris $1 field $2 $(basename "$input")" "$work/want" "$work/got"
    done
  done

  # The log's fields beside each reference, as `extract --columns` gives
  # them, plain and compressed.
  cols=line,client,time,method,status,bytes,referer,user_agent,uri
  for input in "$log" "$work/log.zst"; do
    "$uriscan" extract --quiet --from=combined --columns=$cols "$input" 2>/dev/null | utf8 > "$work/want"
    sql "SELECT line, client, time, method, status, bytes, referer, user_agent, uri FROM read_uris('$input', format := 'combined')" > "$work/got"
    compare "read_uris log fields $(basename "$input")" "$work/want" "$work/got"
  done
  "$uriscan" extract --quiet --from=clf --columns=line,client,time,method,status,bytes,uri "$log" 2>/dev/null | utf8 > "$work/want"
  sql "SELECT line, client, time, method, status, bytes, uri FROM read_uris('$log', format := 'clf')" > "$work/got"
  compare "read_uris clf fields" "$work/want" "$work/got"
fi

# Records as the command cuts them: a csv record left open by a quote and
# longer than --max-line (skipped whole, as one problem), and quoted fields
# with line breaks across read_uris' 1 MiB runs, plain and compressed.
/usr/bin/python3 - "$work" <<'PY'
import sys
work = sys.argv[1]
with open(work + "/open.csv", "w") as f:
    f.write('"http://a/\n' + "http://b/,x\n" * 1600000)
with open(work + "/quoted.csv", "w") as f:
    f.write("u,note,v\n")
    for i in range(200000):
        f.write('"http://q.example/%d","a ""note""\nover %s\nlines",http://v/%d\n'
                % (i, "x" * (i % 97), i))
PY
gzip -c "$work/quoted.csv" > "$work/quoted.csv.gz"
zstd -q -c "$work/quoted.csv" > "$work/quoted.csv.zst"
for t in "open.csv 1" "quoted.csv u" "quoted.csv v" "quoted.csv.gz 3" "quoted.csv.zst u"; do
  set -- $t
  "$uriscan" extract --quiet --with-line --from=csv --field="$2" "$work/$1" 2>/dev/null | utf8 > "$work/want"
  raw_sql "SELECT line, uri FROM read_uris('$work/$1', format := 'csv', field := '$2') WHERE uri IS NOT NULL" > "$work/got"
  compare "read_uris csv records $1 field $2" "$work/want" "$work/got"
done

# A file cut short while read_uris reads it (logrotate's copytruncate):
# the count, or an error naming the file; never a signal that takes the
# database with it.
(yes 'http://a.example/b?c=d' || true) | head -c 200M > "$work/cut.txt"
(st=0; sql "SELECT count(*) FROM read_uris('$work/cut.txt')" > "$work/got" 2> "$work/err" || st=$?; echo $st > "$work/status") &
sleep 0.1
truncate -s 1M "$work/cut.txt"
wait
cut_status=$(cat "$work/status")
if [ "$cut_status" -ge 128 ]; then
  echo "duckdb-test: a file cut while read_uris reads it: killed by a signal ($cut_status)"
  status=1
elif [ "$cut_status" != 0 ] && ! grep -q "cut.txt: .*shrank" "$work/err"; then
  echo "duckdb-test: a file cut while read_uris reads it: $(cat "$work/err")"
  status=1
else
  echo "duckdb-test: a file cut while read: exit $cut_status, no signal"
fi
# Emptied while read: the message gives the size it has now (it gave the
# bytes read before the cut: "shrank to 4194304 bytes").
(yes 'http://a.example/b?c=d' || true) | head -c 200M > "$work/cut.txt"
(st=0; sql "SELECT count(*) FROM read_uris('$work/cut.txt')" > "$work/got" 2> "$work/err" || st=$?; echo $st > "$work/status") &
sleep 0.1
truncate -s 0 "$work/cut.txt"
wait
if [ "$(cat "$work/status")" != 0 ] &&
   ! grep -q "cut.txt: .*shrank to 0 bytes while it was read (it had 209715200)" "$work/err"; then
  echo "duckdb-test: a file emptied while read_uris reads it: $(cat "$work/err")"
  status=1
else
  echo "duckdb-test: a file emptied while read: exit $(cat "$work/status"), its size named"
fi

# An interrupt ends read_uris within a second whatever it waits for: data
# that brings no row (/dev/zero), a FIFO with no writer, a glob that
# reaches one.
mkfifo "$work/fifo" "$work/g-2.txt"
printf 'http://a/\n' > "$work/g-1.txt"
for target in "'/dev/zero'" "'$work/fifo'" "'$work/g-*.txt'"; do
  start=$(date +%s%N)
  if "$host" --mode=tsv --interrupt-after=300 "$ext" "SELECT count(*) FROM read_uris($target)" > /dev/null 2> "$work/err"; then
    echo "duckdb-test: read_uris($target) was not interrupted"
    status=1
  fi
  took=$(( ($(date +%s%N) - start) / 1000000 ))
  if [ "$took" -gt 1300 ] || ! grep -q "interrupted" "$work/err"; then
    echo "duckdb-test: read_uris($target) interrupted after ${took} ms: $(cat "$work/err")"
    status=1
  else
    echo "duckdb-test: read_uris($target) interrupted after ${took} ms"
  fi
done
# A LIMIT met ends the reader, which waits on a FIFO whose writer never
# closes it.
(printf 'http://f/\n'; sleep 30) > "$work/fifo" &
writer=$!
start=$(date +%s%N)
sql "SELECT uri FROM read_uris(['$work/g-1.txt', '$work/fifo']) LIMIT 1" > "$work/got"
took=$(( ($(date +%s%N) - start) / 1000000 ))
kill $writer 2>/dev/null || true
printf 'http://a/\n' > "$work/want"
compare "read_uris LIMIT over a FIFO (${took} ms)" "$work/want" "$work/got"
if [ "$took" -gt 2000 ]; then
  echo "duckdb-test: the LIMIT took ${took} ms"
  status=1
fi

# Memory stays that of the runs in flight: a 1 GiB file in at most 64 MB
# (not under the sanitizers, whose shadow memory is no measure).
if [ "$sanitize" = 0 ]; then
  (yes 'http://a.example/some/path/to/a/page.html?query=1&x=2' || true) | head -c 1G > "$work/big.txt"
  /usr/bin/time -f %M -o "$work/rss" "$host" --mode=tsv "$ext" "SELECT count(*) FROM read_uris('$work/big.txt')" > "$work/got"
  rm -f "$work/big.txt"
  rss=$(tail -1 "$work/rss")
  echo "duckdb-test: read_uris over 1 GiB: $(cat "$work/got") rows, peak RSS $((rss / 1024)) MB"
  if [ "$rss" -gt 65536 ]; then
    echo "duckdb-test: read_uris over 1 GiB took more than 64 MB"
    status=1
  fi
fi

if [ -d "$shared" ]; then
  # One thread and two give the same answers: a table of several row
  # groups (122,880 rows each), which two threads scan at once.
  make="CREATE TABLE t AS SELECT uri FROM read_uris('$shared/*.txt'), range(4)"
  q="SELECT count(*), sum(hash(uri_normalize(uri, 'crawler'), uri_key(uri), uri_surt(uri), uri_params(uri), uri_registrable_domain(uri), uri_parse(uri), uri_risks(uri), uri_param(uri, 'q'), uri_resolve('http://a/b', uri))) FROM t"
  sql "SET threads = 1" "$make" "$q" > "$work/want"
  sql "SET threads = 2" "$make" "$q" > "$work/got"
  compare "threads 1 and 2" "$work/want" "$work/got"

  # Parquet from a log and back.
  sql "COPY (SELECT file, line, uri, uri_host(uri) AS host FROM read_uris('$work/log.gz', format := 'combined', field := 'referer') WHERE uri IS NOT NULL) TO '$work/refs.parquet' (FORMAT parquet)"
  raw_sql "SELECT line, uri FROM read_parquet('$work/refs.parquet')" > "$work/got"
  "$uriscan" extract --quiet --with-line --from=combined --field=referer "$log" 2>/dev/null | utf8 > "$work/want"
  compare "Parquet written and read back" "$work/want" "$work/got"
fi

# NULL, empty, invalid, long and hostile inputs, against expected output.
sql "SELECT uri_valid(u), uri_error(u), length(uri_path(u)), uri_host(u), length(uri_normalize(u)), uri_key(u) IS NULL, uri_risks(u), uri_params(u), uri_param(u, 'a') FROM (VALUES (NULL), (''), ('a b'), ('http://a/?a=%00&a=2'), ('http://[::1/'), ('/' || repeat('a', 1048576))) t(u)" > "$work/got"
cat > "$work/want" <<'EOF'
\N	\N	\N	\N	\N	true	\N	\N	\N
true	\N	0	\N	0	false	[]	\N	\N
false	disallowed-byte	\N	\N	\N	true	\N	\N	\N
true	\N	1	a	19	false	[encoded-control]	[{'name': a, 'value': %00}, {'name': a, 'value': 2}]	%00
false	IP-literal	\N	\N	\N	true	\N	\N	\N
true	\N	1048577	\N	1048577	false	[]	\N	\N
EOF
compare "NULL, empty, invalid and long inputs" "$work/want" "$work/got"
for bad in "uri_normalize('http://a/', 'nope')" "uri_key('http://a/', 'nope')" \
           "* FROM read_uris('$work/none.txt')" \
           "* FROM read_uris('$root/README.md', format := 'jsonl')" \
           "* FROM read_uris('$root/README.md', field := 'x')" \
           "* FROM read_uris('$root/README.md', format := 'csv', field := 'nope')" \
           "* FROM read_uris('$root/*.nothing')" "* FROM read_uris(42)" \
           "* FROM read_uris('$root/README.md', format := 'clf', base := 'rel/x')" \
           "topLevelDomain('http://a.example.co.uk/')"; do
  if sql "SELECT $bad" > /dev/null 2> "$work/err"; then
    echo "duckdb-test: SELECT $bad did not fail"
    status=1
  else
    echo "duckdb-test: SELECT $bad fails: $(head -1 "$work/err")"
  fi
done
# A NULL in the list of paths is named as such, not an internal error.
sql "SELECT * FROM read_uris(['$root/README.md', NULL])" > /dev/null 2> "$work/err" || true
if ! grep -q "read_uris: path: NULL" "$work/err" || grep -q INTERNAL "$work/err"; then
  echo "duckdb-test: a NULL path: $(head -1 "$work/err")"
  status=1
else
  echo "duckdb-test: a NULL path: as expected"
fi

# uri_param with its arguments swapped is an error that says so; a name
# that only looks odd is not.
if sql "SELECT uri_param('q', 'http://a/?q=1')" > /dev/null 2> "$work/err"; then
  echo "duckdb-test: uri_param with swapped arguments did not fail"
  status=1
elif ! grep -q "uri_param(uri, name) takes the URI first" "$work/err"; then
  echo "duckdb-test: uri_param with swapped arguments: $(cat "$work/err")"
  status=1
fi
sql "SELECT uri_param('http://a/?q=1', 'q'), uri_param('http://a/?x=1', 'http://b/?q'), extractURLParameter('http://a/?q=%41', 'q')" > "$work/got"
printf '1\t\\N\tA\n' > "$work/want"
compare "uri_param argument order" "$work/want" "$work/got"

# The shell: output modes, SQL from arguments, -f FILE and stdin, dot
# commands, the extension found beside it, and an install.
check() {  # NAME WANT GOT: the two must be equal
  if [ "$2" = "$3" ]; then
    echo "duckdb-test: shell $1: as expected"
  else
    echo "duckdb-test: shell $1 differs:"; printf 'want: %s\ngot:  %s\n' "$2" "$3"
    status=1
  fi
}
q="SELECT uri_host('http://a.example/x') AS host, 'say \"hi\", then' AS s, NULL AS n, 42 AS k"
check csv "$(printf 'host,s,n,k\na.example,"say ""hi"", then",,42')" \
  "$("$host" --mode=csv "$ext" "$q")"
check json '[{"host":"a.example","s":"say \"hi\", then","n":null,"k":42}]' \
  "$("$host" --mode=json "$ext" "$q")"
check table "$(printf '+-----------+----------------+------+----+\n| host      | s              |    n |  k |\n+-----------+----------------+------+----+\n| a.example | say "hi", then | NULL | 42 |\n+-----------+----------------+------+----+\n1 row')" \
  "$("$host" "$ext" "$q")"
check "found beside it" "a.example" "$("$host" --mode=tsv -c "SELECT uri_host('http://a.example/')")"
printf "LOAD '%s';\nSELECT uri_scheme('HTTP://x/')\n  AS s;\n.mode csv\n.headers on\nSELECT 1 AS one, 2 AS two;\n" "$ext" > "$work/q.sql"
check "stdin with a LOAD and dot commands" "$(printf 'HTTP\none,two\n1,2')" \
  "$("$host" --no-extension --mode=tsv < "$work/q.sql")"
check "-f FILE" "$(printf 'HTTP\none,two\n1,2')" \
  "$("$host" --no-extension --mode=tsv -f "$work/q.sql")"
if "$host" "$ext" "SELECT nope()" > /dev/null 2> "$work/err"; then
  echo "duckdb-test: shell: a failed statement exited 0"; status=1
fi
check "a failed statement's message" 1 "$(grep -c '^uriscan-duckdb: Catalog Error' "$work/err")"
# A statement that does not parse: DuckDB's message, which the shell once
# read after freeing it (and printed bytes of freed memory).
if "$host" "$ext" "SELEC oops" > /dev/null 2> "$work/err"; then
  echo "duckdb-test: shell: a statement that does not parse exited 0"; status=1
fi
check "a statement that does not parse, DuckDB's message" 1 \
  "$(grep -c '^uriscan-duckdb: Parser Error: syntax error at or near "SELEC"' "$work/err")"
check "--timer" 1 "$("$host" --timer "$ext" "SELECT 1" 2>&1 >/dev/null | grep -c '^Run Time (s): real')"
# A LIMIT met by rows in hand ends the query though the input never ends
# (DuckDB's limit over a scan finishes on the chunk after the one that
# met it): a line skipped for ever, a FIFO whose writer stays quiet.
printf 'http://a/1\nhttp://a/2\n' > "$work/two.txt"
check "LIMIT before a file that never ends" "http://a/1" \
  "$(timeout 60 "$host" --mode=tsv -c "SELECT uri FROM read_uris(['$work/two.txt', '/dev/zero']) LIMIT 1" 2>&1)"
rm -f "$work/fifo"
mkfifo "$work/fifo"
( printf 'http://f/%d\n' 1 2 3 4 5 6 7 8 9 10; sleep 30 ) > "$work/fifo" &
writer=$!
start=$(date +%s)
check "LIMIT on a FIFO whose writer is quiet" "http://f/1" \
  "$(timeout 60 "$host" --mode=tsv -c "SELECT uri FROM read_uris('$work/fifo') LIMIT 1" 2>&1)"
[ $(( $(date +%s) - start )) -lt 20 ] ||
  { echo "duckdb-test: LIMIT on a FIFO waited for its writer"; status=1; }
kill "$writer" 2>/dev/null || true
wait "$writer" 2>/dev/null || true
check "every row still comes in order" "48010 http://e/48010" \
  "$(seq 1 48010 | sed 's|^|http://e/|' > "$work/many.txt"; timeout 60 "$host" --mode=tsv -c "SELECT count(*) || ' ' || last(uri) FROM read_uris(['$work/many.txt'])" 2>&1)"
cmake --install "$build" --prefix "$work/prefix" --component duckdb > /dev/null
check "installed" "b.example" \
  "$("$work/prefix/bin/uriscan-duckdb" --mode=tsv -c "SELECT uri_host('http://b.example/')")"
# --mode=json: numbers, booleans, NULL, lists, structs and maps as JSON's
# own (Python's ascii() tells 1 from 1.0, "1" and True); NaN and infinity
# null; dates, UUIDs and blobs as DuckDB spells them; control characters
# escaped and bytes that are no UTF-8 (a column's name here) as U+FFFD.
"$host" --mode=json "$ext" "SELECT 9126 AS n, ['POST', 'GET'] AS m, 1.5 AS d, 0.1::FLOAT AS f,
  'nan'::DOUBLE AS nan, '-inf'::DOUBLE AS inf, true AS b, NULL AS z,
  {'host': uri_host('http://a.example/'), 'port': 8080} AS s, MAP {'k': 1} AS mk, MAP {2: [true]} AS mi,
  [1, 2]::INT[2] AS arr, uri_params('http://a/?x=1') AS p, uri_key('http://a/') > 0 AS kb,
  170141183460469231731687303715884105727::HUGEINT AS h, -1.50::DECIMAL(5,2) AS dec,
  DATE '2024-01-02' AS day, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::UUID AS u, '\xAA'::BLOB AS bl,
  'sad'::ENUM('sad', 'ok') AS e, 'tab' || chr(9) || 'quote\"' || chr(1) AS esc,
  1 AS \"bad$(printf '\xff')name\"" > "$work/typed.json"
check "json types" "[{'n': 9126, 'm': ['POST', 'GET'], 'd': 1.5, 'f': 0.1, 'nan': None, 'inf': None, 'b': True, 'z': None, 's': {'host': 'a.example', 'port': 8080}, 'mk': {'k': 1}, 'mi': {'2': [True]}, 'arr': [1, 2], 'p': [{'name': 'x', 'value': '1'}], 'kb': True, 'h': 170141183460469231731687303715884105727, 'dec': -1.5, 'day': '2024-01-02', 'u': 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'bl': '\\\\xAA', 'e': 'sad', 'esc': 'tab\\tquote\"\\x01', 'bad\\ufffdname': 1}]" \
  "$(/usr/bin/python3 -c 'import json, sys; print(ascii(json.load(open(sys.argv[1], encoding="utf-8"))))' "$work/typed.json" 2>&1)"
check "json escapes" 1 "$(grep -c '"esc":"tab\\u0009quote\\"\\u0001"' "$work/typed.json")"
# Rows across DuckDB's chunks of 2,048, and a nested column in one of
# several statements (the other modes show those only one at a time).
check "json over chunks" "3000 {'i': 2999, 'l': [2999]} [{'a': [1]}] [{'b': {'x': 2}}]" \
  "$(printf 'SELECT range AS i, [range] AS l FROM range(3000);\nSELECT [1] AS a; SELECT {"x": 2} AS b;\n' \
     | "$host" --mode=json "$ext" \
     | /usr/bin/python3 -c 'import json, sys
text = sys.stdin.read()
big, rest = text.split("]\n", 1)
rows = json.loads(big + "]")
print(len(rows), rows[-1], *(json.loads(line) for line in rest.splitlines()))' 2>&1)"
# markdown and box, as DuckDB's shell draws them: the names centred, the
# values to the left; markdown marks a number column ":" and escapes "|".
q="SELECT * FROM (VALUES (1, 'a|b', NULL), (22, 'wide value', 'x')) t(n, text, z) ORDER BY n"
check markdown "$(printf '%s\n' '| n  |    text    |  z   |' '|---:|------------|------|' \
  '| 1  | a\|b       | NULL |' '| 22 | wide value | x    |')" "$("$host" --mode=markdown "$ext" "$q")"
# (Drawn here in ASCII stand-ins, then turned into the box characters, so
# that this file stays ASCII.)
box_chars() {
  sed -e $'s/\\[/\xe2\x94\x8c/g; s/T/\xe2\x94\xac/g; s/]/\xe2\x94\x90/g' \
      -e $'s/{/\xe2\x94\x9c/g; s/+/\xe2\x94\xbc/g; s/}/\xe2\x94\xa4/g' \
      -e $'s/</\xe2\x94\x94/g; s/\\^/\xe2\x94\xb4/g; s/>/\xe2\x94\x98/g' \
      -e $'s/-/\xe2\x94\x80/g; s/!/\xe2\x94\x82/g'
}
check box "$(printf '%s\n' '[----T------------T------]' '! n  !    text    !  z   !' \
  '{----+------------+------}' '! 1  ! a|b        ! NULL !' '! 22 ! wide value ! x    !' \
  '<----^------------^------>' | box_chars)" "$(printf '.mode box\n%s;\n' "$q" | "$host" "$ext")"
# .tables and .schema after CREATEs; .read of a file (its dot commands
# too); an unknown dot command and a missing file are errors after which
# the statements still run, and the status is 1.
printf '.mode csv\nSELECT 7 AS seven;\n' > "$work/inner.sql"
cat > "$work/dots.sql" <<EOF
CREATE TABLE hosts(host VARCHAR, n INTEGER);
CREATE VIEW busy AS SELECT host FROM hosts WHERE n > 10;
CREATE INDEX hosts_n ON hosts(n);
.tables
.schema hosts
.tables b%
.nope
SELECT 'still runs' AS s;
.read $work/inner.sql
.read $work/none.sql
SELECT 8 AS eight;
EOF
st=0
"$host" --mode=tsv "$ext" < "$work/dots.sql" > "$work/got" 2> "$work/err" || st=$?
check "dot commands: .tables, .schema, .read" "$(printf '%s\n' 'busy   hosts' \
  'CREATE TABLE hosts(host VARCHAR, n INTEGER);' 'CREATE INDEX hosts_n ON hosts(n);' busy \
  'still runs' 7 8)" "$(cat "$work/got")"
check "dot commands: the errors" "$(printf '%s\n' \
  'uriscan-duckdb: unknown command: .nope; .help lists them' \
  "uriscan-duckdb: cannot read $work/none.sql: No such file or directory")" "$(cat "$work/err")"
check "dot commands: status 1 after an error" 1 "$st"
st=0
check "a dot command as an SQL argument" "$(printf '%s\n' 1 hosts 2)" \
  "$("$host" --mode=tsv "$ext" "SELECT 1" "CREATE TABLE hosts(h VARCHAR)" ".tables" ".foo" "SELECT 2" 2>/dev/null)"
"$host" --mode=tsv "$ext" ".foo" "SELECT 2" > /dev/null 2>&1 || st=$?
check "an unknown dot command as an argument: status 1" 1 "$st"
st=0
"$host" --mode=nope "$ext" "SELECT 1" > /dev/null 2>&1 || st=$?
check "--mode=nope: a usage error" 2 "$st"

if [ $status -eq 0 ]; then echo "duckdb-test: PASS"; else echo "duckdb-test: FAIL"; fi
exit $status
