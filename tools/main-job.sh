#!/usr/bin/env bash
# The main job: build the uriscan command (Release) and scan the bundled
# corpora, printing a summary and a dedup summary; then the log-ingestion
# path on a gzipped Combined Log Format file generated from the synthetic
# corpus: extract the referers, count error kinds and top hosts, normalize
# and deduplicate. Installs what it needs on Debian 12.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash tools/setup.sh build
cmake -S . -B build/main -DCMAKE_BUILD_TYPE=Release \
  -DURISCAN_BUILD_TESTS=OFF -DURISCAN_BUILD_BENCH=OFF >/dev/null
cmake --build build/main -j2 --target uriscan_cli generated_corpus >/dev/null
u=build/main/uriscan
inputs=(build/main/corpus/generated.txt corpus/handmade/tricky.txt)
for f in ../shared/corpus/*.txt; do [ -f "$f" ] && inputs+=("$f"); done
$u stats "${inputs[@]}"
# The same lines deduplicated under the scheme profile: the summary line.
echo
$u dedup "${inputs[@]}" 2>&1 >/dev/null | grep '^uriscan:'

# A web server's access log, gzipped: each generated reference is a
# Referer, its path and query the request-target (a reference with a space
# makes a malformed log line, as in real logs).
log=build/main/corpus/access.log.gz
awk '{ t = $0; sub(/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\/?#]*/, "", t)
       sub(/#.*/, "", t); if (t !~ /^\//) t = "/" t
       printf "10.0.%d.%d - - [23/Nov/2026:10:%02d:%02d +0000] \"GET %s HTTP/1.1\" 200 %d \"%s\" \"Mozilla/5.0\"\n",
              NR % 250, NR % 199, NR / 60 % 60, NR % 60, t, NR % 5000, $0 }' \
  build/main/corpus/generated.txt | gzip -c > "$log"
echo
echo "== log ingestion: $log ($(stat -c %s "$log") bytes gzipped)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
$u extract --from=combined --field=referer "$log" > "$work/referers" \
  2> "$work/extract.err" || true
grep '^uriscan:' "$work/extract.err" | sed 's/^uriscan:/  extract:/'
echo "  first malformed line: $(grep -m1 ': error: ' "$work/extract.err" || echo none)"
echo "  error kinds of the referers (strict RFC 3986):"
$u stats "$work/referers" | sed -n '/^  invalid/,/^  repaired\|^  byte-order/p' |
  grep -v 'byte-order' | sed 's/^/  /'
echo "  top registrable domains:"
$u parse --format=tsv --columns=registrable_domain --quiet "$work/referers" \
  2>/dev/null |
  tail -n +2 | grep -v '^\\N$' | sort | uniq -c | sort -rn | head -5
$u normalize --profile=crawler --on-error=skip --quiet "$work/referers" \
  2>/dev/null |
  cut -f1 > "$work/normal"
$u dedup --quiet "$work/normal" > "$work/distinct"
echo "  distinct URLs under the crawler profile: $(wc -l < "$work/distinct")" \
  "of $(wc -l < "$work/referers") referers"
