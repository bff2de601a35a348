#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs every command, format and profile with two uriscan binaries on the
# same inputs and reports any byte of stdout, stderr or exit status that
# differs: speed work must leave output unchanged.
# usage: tools/compare-commands.sh OLD NEW [INPUT...]
#   INPUT defaults to the shared corpora (../shared/corpus: the four URL
#   lists, the Apache log) and the project's hand-made cases.
# Exit 0 when every run matches, 1 otherwise.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 2 ] || { sed -n '6,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
old=$1 new=$2
shift 2
inputs=("$@")
if [ ${#inputs[@]} -eq 0 ]; then
  c=$root/../shared/corpus
  inputs=("$c"/kasztp.txt "$c"/userbait.txt "$c"/node_files.txt
          "$c"/isaacs_files.txt "$c"/apache_access.log
          "$root"/corpus/handmade/tricky.txt)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One argument list per line; INPUT stands for the input file.
commands=$(cat <<'EOF'
parse INPUT
parse --format=tsv INPUT
parse --format=tsv --columns=line,valid,scheme,userinfo,host,port,path,query,fragment,host_type,error INPUT
parse --format=tsv --columns=registrable_domain,public_suffix,host_nowww,subdomain,surt INPUT
parse --format=tsv --columns=key,normalized,surt_crawler INPUT
parse --format=tsv --profile=crawler --columns=key,normalized INPUT
parse --format=tsv --profile=w3lib --columns=key,normalized INPUT
parse --format=tsv --columns=raw,at,file,repaired,authority,extension,path_decoded,query_decoded,fragment_decoded,path_segments,param_names,param:q,param_raw:q INPUT
parse --lenient INPUT
parse --format=tsv --lenient --columns=line,raw,repaired,host,path,at,error INPUT
parse --format=tsv --max-line=64 --columns=line,raw,host,at,error,surt INPUT
parse --format=tsv --lenient INPUT
validate INPUT
stats INPUT
audit INPUT
audit --flagged INPUT
parse --max-line=64 INPUT
parse --format=tsv --max-line=64 INPUT
audit --max-line=64 INPUT
params INPUT
params --raw INPUT
normalize INPUT
normalize --profile=syntax INPUT
normalize --profile=scheme INPUT
normalize --profile=crawler INPUT
normalize --profile=w3lib INPUT
normalize --on-error=keep INPUT
normalize --on-error=skip INPUT
normalize --on-error=fail INPUT
normalize --profile=crawler --on-error=skip INPUT
dedup --on-error=fail INPUT
dedup --on-error=keep --max-line=64 INPUT
params --max-line=64 INPUT
normalize --max-line=64 INPUT
resolve --base=http://a/b/c/d;p?q INPUT
dedup INPUT
dedup --profile=crawler INPUT
dedup --profile=syntax --on-error=keep INPUT
dedup --bloom=1M INPUT
extract INPUT
extract --from=combined INPUT
extract --from=combined --field=referer --lenient INPUT
stats --from=combined INPUT
EOF
)

status=0 n=0
for input in "${inputs[@]}"; do
  while IFS= read -r line; do
    args=(${line//INPUT/$input})
    for t in 1 2; do
      for bin in old new; do
        b=$old; [ $bin = new ] && b=$new
        "$b" "${args[@]}" --threads=$t >"$work/$bin.out" 2>"$work/$bin.err"
        echo "$?" >"$work/$bin.rc"
        # Timings (stats' throughput and wall time) change from run to run.
        sed -i '/MB\/s/d' "$work/$bin.out" "$work/$bin.err"
      done
      n=$((n + 1))
      for part in out err rc; do
        if ! cmp -s "$work/old.$part" "$work/new.$part"; then
          echo "differs ($part): ${args[*]} --threads=$t" >&2
          status=1
        fi
      done
    done
  done <<<"$commands"
done
echo "compare-commands: $n runs, $([ $status -eq 0 ] && echo all identical || echo differences found)"
exit $status
