#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds ada (the WHATWG URL parser) from a local source tree into a prefix,
# as a static library, for the optional BM_ada_can_parse peer in bench/.
# usage: tools/build-ada-peer.sh ADA_SOURCE_DIR PREFIX [BUILD_DIR]
#   ADA_SOURCE_DIR  an ada source tree you already have (ada is not a Debian
#                   package; nothing is downloaded here)
#   PREFIX          where to install (then: cmake -DCMAKE_PREFIX_PATH=PREFIX,
#                   or -DURISCAN_ADA_DIR=PREFIX, when configuring uriscan)
#   BUILD_DIR       default PREFIX-build
# JOBS (default 1) sets the build's parallelism; it runs under nice -n 19.
# ada's tests, tools, benchmarks and simdutf stay off: each of those makes
# ada's CMake fetch code from the network (CPM).
set -euo pipefail
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  sed -n '5,13p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
src=$(realpath -e "$1")
prefix=$(realpath -m "$2")
build=$(realpath -m "${3:-$prefix-build}")
root=$(realpath -e "$(dirname "$0")/..")
[ -f "$src/include/ada.h" ] && [ -f "$src/src/ada.cpp" ] || {
  echo "build-ada-peer: $src is not an ada source tree (no include/ada.h)" >&2
  exit 2; }
# None of ada may end up inside this repository.
for d in "$src" "$prefix" "$build"; do
  case "$d/" in
    "$root"/*)
      echo "build-ada-peer: $d is inside $root; use a directory outside it" >&2
      exit 2 ;;
  esac
done
mkdir -p "$prefix" "$build"
# FETCHCONTENT_FULLY_DISCONNECTED turns any download attempt into an error.
nice -n 19 cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX="$prefix" -DBUILD_SHARED_LIBS=OFF \
  -DADA_TESTING=OFF -DADA_TOOLS=OFF -DADA_BENCHMARKS=OFF \
  -DADA_USE_SIMDUTF=OFF -DFETCHCONTENT_FULLY_DISCONNECTED=ON \
  --no-warn-unused-cli >/dev/null
nice -n 19 cmake --build "$build" -j"${JOBS:-1}" --target ada
nice -n 19 cmake --install "$build" >/dev/null
cfg=$(find "$prefix" -name ada-config.cmake -print -quit)
echo "build-ada-peer: installed ${cfg:-?}"
echo "configure uriscan with -DCMAKE_PREFIX_PATH=$prefix (or -DURISCAN_ADA_DIR=$prefix)"
