#!/usr/bin/env bash
# Regenerates the golden outputs of corpus/handmade from the scalar oracle
# (through the uriscan command). Review the diff before committing it.
set -euo pipefail
build=${1:?usage: tools/update-golden.sh BUILD_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
in=$root/corpus/handmade/tricky.txt
"$build/uriscan" parse --quiet --format=jsonl "$in" \
  > "$root/corpus/handmade/tricky.expected.jsonl" 2>/dev/null || true
"$build/uriscan" parse --quiet --format=tsv "$in" \
  > "$root/corpus/handmade/tricky.expected.tsv" 2>/dev/null || true
git -C "$root" diff --stat -- corpus/handmade
