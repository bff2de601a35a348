#!/usr/bin/env bash
# Builds the libFuzzer harnesses of the parsers of hostile input (clang,
# ASan + UBSan, in build/fuzz as tools/fuzz.sh) and runs each for SECONDS
# (default 20): extract's formats, the gzip and zstd readers (with a
# dictionary of their magic bytes), and the files of a --state directory.
# Seeds come from the tests' inputs. A crash or a broken invariant aborts
# with the input saved as build/fuzz/<harness>-crash-*.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=${1:-20}
bash tools/fuzz-build.sh uriscan_fuzz_extract uriscan_fuzz_decompress \
  uriscan_fuzz_state uriscan_cli
seeds=build/fuzz/seeds-inputs
rm -rf "$seeds" && mkdir -p "$seeds"/{extract,decompress,state}

# extract: the golden inputs of every format, each behind a byte that picks
# its format (text clf combined tsv csv jsonl = 0..5) and a cut at the middle.
i=0
for f in text.txt:0 clf.log:1 combined.log:2 table.tsv:3 table.csv:4 \
         events.jsonl:5; do
  name=${f%%:*} format=${f##*:}
  { printf "\\$(printf %o "$format")\\200"; cat "corpus/extract/$name"; } \
    > "$seeds/extract/$i"
  i=$((i + 1))
done
split -l 4 corpus/handmade/tricky.txt "$seeds/extract/tricky-"

# gzip and zstd: the same lines as one and as two members (frames), a
# skippable zstd frame first, and a truncated member.
head -c 2000 corpus/handmade/tricky.txt > "$seeds/plain"
gzip -c "$seeds/plain" > "$seeds/decompress/one.gz"
{ gzip -1c "$seeds/plain"; gzip -9c "$seeds/plain"; } > "$seeds/decompress/two.gz"
head -c 100 "$seeds/decompress/one.gz" > "$seeds/decompress/cut.gz"
zstd -qc "$seeds/plain" > "$seeds/decompress/one.zst"
{ printf 'P*M\030\004\000\000\000skip'; zstd -qc --no-check "$seeds/plain"; } \
  > "$seeds/decompress/skip.zst"
rm "$seeds/plain"
cat > "$seeds/magic.dict" <<'DICT'
"\x1f\x8b\x08\x00"
"\x1f\x8b\x08\x08"
"\x28\xb5\x2f\xfd"
"\x50\x2a\x4d\x18"
"\x5f\x2a\x4d\x18"
"\x00\x00\x00\x00"
"\xff\xff\xff\xff"
DICT

# state: a MANIFEST and a key run of a real state, behind the byte that
# says which it is (0: MANIFEST, 1: key run).
state=build/fuzz/seeds-state-dir
rm -rf "$state"
build/fuzz/uriscan dedup --quiet --state="$state" corpus/handmade/tricky.txt \
  > /dev/null
{ printf '\000'; cat "$state/MANIFEST"; } > "$seeds/state/manifest"
for run in "$state"/run-*.keys; do
  { printf '\001'; cat "$run"; } > "$seeds/state/$(basename "$run")"
done
rm -rf "$state"

for harness in extract decompress state; do
  dict=()
  [ "$harness" = decompress ] && dict=(-dict="$seeds/magic.dict")
  echo "== uriscan_fuzz_$harness ($seconds s)"
  mkdir -p "build/fuzz/corpus-$harness"
  "build/fuzz/uriscan_fuzz_$harness" -max_total_time="$seconds" \
    -max_len=65536 -timeout=20 -rss_limit_mb=2048 "${dict[@]}" \
    -artifact_prefix="build/fuzz/$harness-" \
    "build/fuzz/corpus-$harness" "$seeds/$harness"
done
