#!/bin/sh
# SPDX-License-Identifier: MIT
# usage: append-footer.sh MODULE OUT PLATFORM CAPI_VERSION EXTENSION_VERSION
# OUT is MODULE followed by DuckDB's extension footer (534 bytes): a
# WebAssembly custom section header named "duckdb_signature", eight 32-byte
# fields (NUL-padded, the last first: three unused, the ABI type, the
# extension's version, the C API version, the platform, the magic "4"),
# then a 256-byte signature, all zero for an unsigned extension (loaded
# with allow_unsigned_extensions).
set -eu
[ $# -eq 5 ] || { sed -n '3,9p' "$0" >&2; exit 2; }
module=$1 out=$2 platform=$3 capi=$4 version=$5
field() {  # a NUL-padded 32-byte field
  [ ${#1} -le 32 ] || { echo "append-footer: '$1' is over 32 bytes" >&2; exit 2; }
  printf '%s' "$1"
  head -c $((32 - ${#1})) /dev/zero
}
tmp=$out.tmp
{
  cat "$module"
  printf '\000\223\004\020duckdb_signature\200\004'
  field ""; field ""; field ""
  field C_STRUCT; field "v$version"; field "$capi"; field "$platform"
  field 4
  head -c 256 /dev/zero
} > "$tmp"
mv "$tmp" "$out"
