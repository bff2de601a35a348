#!/usr/bin/env bash
# Builds the libFuzzer harnesses of the parsers of hostile input (clang,
# ASan + UBSan, in build/fuzz as tools/fuzz.sh) and runs each for SECONDS
# (default 20): extract's formats, the gzip and zstd readers (with a
# dictionary of their magic bytes), the files of a --state directory (and
# entries of other kinds planted among them), the command line (parsed,
# then run on a file of every input format), and the command's whole run
# on an input read from a file and through a pipe.
# Seeds come from the tests' inputs. A crash or a broken invariant aborts
# with the input saved as build/fuzz/<harness>-crash-*.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=${1:-20}
bash tools/fuzz-build.sh uriscan_fuzz_extract uriscan_fuzz_decompress \
  uriscan_fuzz_ingest uriscan_fuzz_command uriscan_fuzz_state \
  uriscan_fuzz_options uriscan_cli
seeds=build/fuzz/seeds-inputs
rm -rf "$seeds" && mkdir -p "$seeds"/{extract,decompress,ingest,command,state,options}

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

# ingest: the same inputs whole, behind three bytes: the format (lines
# text clf combined tsv csv jsonl = 0..6, with bits for --field and
# log fields), the run size and the pipe's write size and truncation.
i=0
for f in handmade/tricky.txt:0:0 extract/text.txt:1:0 extract/clf.log:2:16 \
         extract/combined.log:3:16 extract/table.tsv:4:8 \
         extract/table.csv:5:40 extract/events.jsonl:6:0; do
  IFS=: read -r name format bits <<< "$f"
  for run in 3 200; do
    { printf "\\$(printf %o $((format + bits)))\\$(printf %o "$run")\\200"
      head -c 6000 "corpus/$name"; } > "$seeds/ingest/$i-$run"
  done
  i=$((i + 1))
done
gzip -c corpus/extract/combined.log | head -c 3000 \
  | { printf '\023\020\100'; cat; } > "$seeds/ingest/cut.gz"

# command: the same inputs behind three bytes: the command line (an index
# into the harness's kCommands), --max-line and --chunk-size, the pipe's
# write size; each input under the commands that read its format.
for f in handmade/tricky.txt:0,4,6,10,12,14,15,16,17,18,20 \
         extract/text.txt:20,21 extract/clf.log:22,25 \
         extract/combined.log:9,23,24 extract/table.tsv:26,27 \
         extract/table.csv:8,28,29 extract/events.jsonl:30,31; do
  name=${f%%:*}
  for command in $(echo "${f##*:}" | tr , ' '); do
    { printf "\\$(printf %o "$command")\\003\\202"
      head -c 3000 "corpus/$name"; } > "$seeds/command/$command-${name##*/}"
  done
done
{ printf '\034\000\007'; printf '"a\nb'; } > "$seeds/command/open-quote"
{ printf '\024\000\007'; printf 'http://a/\n<\nb'; } \
  > "$seeds/command/open-angle"

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
# The MANIFEST of a state of no keys (a run on empty input), which an
# update can open: alone, and with each kind of entry planted under each
# name (the first byte's bits 1-6).
build/fuzz/uriscan dedup --quiet --state="$state" < /dev/null > /dev/null
for plant in 0 2 6 10 14 18 38 50 66 86 102 118; do
  { printf "\\$(printf %o "$plant")"; cat "$state/MANIFEST"; } \
    > "$seeds/state/empty-$plant"
done
rm -rf "$state"

# options: sizes (first byte odd) and command lines of every command, one
# argument a line (first byte even).
i=0
for size in 64M 1 1500 4G 2T 16MiB 1KB 0 -1 +5 '1 ' 99999999999999999999; do
  printf '\001%s' "$size" > "$seeds/options/size-$i"
  i=$((i + 1))
done
i=0
for line in 'dedup --memory=64M --bloom=1G --profile=crawler' \
            'dedup --state=s --tracking-params=+a,b --fold-www' \
            'parse --format=tsv --columns=host,param:x --max-line=1M' \
            'extract --from=csv --field=url --threads=2 --chunk-size=1M' \
            'normalize --profile=w3lib --on-error=skip' \
            'resolve --base=http://a/b/c' 'state --verify s' '--help' \
            'params --raw --line-numbers=global'; do
  printf '\000%s' "$line" | tr ' ' '\n' > "$seeds/options/line-$i"
  i=$((i + 1))
done

for harness in extract decompress ingest command state options; do
  dict=()
  [ "$harness" = decompress ] && dict=(-dict="$seeds/magic.dict")
  # The command runs three times an input, in chunks down to one byte.
  max_len=65536
  [ "$harness" = command ] && max_len=16384
  echo "== uriscan_fuzz_$harness ($seconds s)"
  mkdir -p "build/fuzz/corpus-$harness"
  "build/fuzz/uriscan_fuzz_$harness" -max_total_time="$seconds" \
    -max_len=$max_len -timeout=20 -rss_limit_mb=2048 -close_fd_mask=1 \
    "${dict[@]}" \
    -artifact_prefix="build/fuzz/$harness-" \
    "build/fuzz/corpus-$harness" "$seeds/$harness"
done
