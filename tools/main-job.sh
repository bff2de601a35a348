#!/usr/bin/env bash
# The main job: build the uriscan command (Release) and scan the bundled
# corpora, printing a summary and a dedup summary. Installs what it needs
# on Debian 12.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash tools/setup.sh build
cmake -S . -B build/main -DCMAKE_BUILD_TYPE=Release \
  -DURISCAN_BUILD_TESTS=OFF -DURISCAN_BUILD_BENCH=OFF >/dev/null
cmake --build build/main -j2 --target uriscan_cli generated_corpus >/dev/null
inputs=(build/main/corpus/generated.txt corpus/handmade/tricky.txt)
for f in ../shared/corpus/*.txt; do [ -f "$f" ] && inputs+=("$f"); done
build/main/uriscan stats "${inputs[@]}"
# The same lines deduplicated under the scheme profile: the summary line.
echo
build/main/uriscan dedup "${inputs[@]}" 2>&1 >/dev/null | grep '^uriscan:'
