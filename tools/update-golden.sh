#!/usr/bin/env bash
# Regenerates the golden outputs of corpus/handmade from the scalar oracle
# (through the uriscan command), and those of corpus/extract (the cases are
# listed in corpus/extract/cases.tsv). Review the diff before committing it.
set -euo pipefail
build=${1:?usage: tools/update-golden.sh BUILD_DIR}
build=$(cd "$build" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
in=$root/corpus/handmade/tricky.txt
"$build/uriscan" parse --quiet --format=jsonl "$in" \
  > "$root/corpus/handmade/tricky.expected.jsonl" 2>/dev/null || true
"$build/uriscan" parse --quiet --format=tsv "$in" \
  > "$root/corpus/handmade/tricky.expected.tsv" 2>/dev/null || true
cd "$root/corpus/extract"
while IFS=$'\t' read -r name file args; do
  # shellcheck disable=SC2086  # args is a list of options
  "$build/uriscan" extract --quiet --with-line $args "$file" \
    > "$name.expected" 2> "$name.expected.err" || true
done < cases.tsv
git -C "$root" diff --stat -- corpus/handmade corpus/extract
