#!/usr/bin/env bash
# The library users' path, end to end, with CMake's own tooling:
#   1. installs the static build STATIC_BUILD_DIR (default build/test, which
#      tools/test.sh has just built) to a temporary prefix and checks the
#      files and the public headers' includes;
#   2. builds and runs a consumer found with find_package(uriscan 0.2) (C++
#      and the C API test compiled as C), and the same two through
#      pkg-config --static;
#   3. builds the library and the command with -DBUILD_SHARED_LIBS=ON in
#      build/shared, installs it, checks the SONAME and, with nm -D, that
#      it exports the API and no Highway (hwy::) or mimalloc symbol, then
#      builds and runs both consumers against it.
#   The README's C++ and C examples are compiled and run against both
#   installs too.
# usage: tools/package-test.sh [STATIC_BUILD_DIR]   (URISCAN_JOBS=N, default 2)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
static_build=${1:-build/test}
jobs=${URISCAN_JOBS:-2}
bash tools/setup.sh package

tmp=$(mktemp -d "${TMPDIR:-/tmp}/uriscan-package.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "package-test: FAIL: $*" >&2; exit 1; }
version=$(sed -n 's/^project(uriscan VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
[ -n "$version" ] || fail "no version in CMakeLists.txt"

# Every #include of an installed public header names a standard header or
# another uriscan one.
check_headers() {
  local dir=$1/include/uriscan bad
  bad=$(grep -h '^[[:space:]]*#[[:space:]]*include' "$dir"/*.h |
        grep -vE '#include "uriscan/[a-z_]+\.h"' |
        grep -vE '#include <[a-z_]+>' |
        grep -vE '#include <(stddef|stdint)\.h>' || true)
  [ -z "$bad" ] || fail "public headers include non-standard headers: $bad"
  # Their code, comments stripped, names nothing of the private libraries.
  local h
  for h in "$dir"/*.h; do
    if g++ -x c++ -fpreprocessed -dD -E "$h" 2>/dev/null |
       grep -iE 'hwy|mimalloc|mi_heap|xxh'; then
      fail "$h uses Highway, mimalloc or xxHash"
    fi
  done
}

# The consumers against PREFIX: find_package, then pkg-config.
check_consumers() {
  local prefix=$1 kind=$2 out=$tmp/consumers-$2
  echo "== consumers against the $kind install: find_package(uriscan 0.2)"
  cmake -S tests/package/cmake_consumer -B "$out/cmake" \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$out/cmake" -j"$jobs" >/dev/null
  local said
  said=$("$out/cmake/cxx_consumer") || fail "find_package C++ consumer ($kind)"
  grep -q "uriscan $version on .*, $kind library: ok" <<<"$said" ||
    fail "find_package C++ consumer ($kind): $said"
  "$out/cmake/c_consumer"

  echo "== consumers against the $kind install: pkg-config"
  export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
  [ "$(pkg-config --modversion uriscan)" = "$version" ] ||
    fail "pkg-config --modversion uriscan"
  local static=()
  [ "$kind" = static ] && static=(--static)
  # shellcheck disable=SC2046  # pkg-config output is meant to be split
  g++ -std=c++17 -Wall -Wextra -Werror tests/package/consumer.cc \
    $(pkg-config --cflags uriscan) \
    $(pkg-config "${static[@]}" --libs uriscan) -Wl,-rpath,"$prefix/lib" \
    -o "$out/pc_cxx_consumer"
  said=$("$out/pc_cxx_consumer") || fail "pkg-config C++ consumer ($kind)"
  grep -q "uriscan $version on .*, $kind library: ok" <<<"$said" ||
    fail "pkg-config C++ consumer ($kind): $said"
  # shellcheck disable=SC2046
  gcc -std=c11 -Wall -Wextra -Werror -pedantic tests/c_api/c_api_test.c \
    $(pkg-config --cflags uriscan) \
    $(pkg-config "${static[@]}" --libs uriscan) -Wl,-rpath,"$prefix/lib" \
    -o "$out/pc_c_consumer"
  "$out/pc_c_consumer"
  # The README's C++ and C examples, as programs (tests/docs/readme_programs.py):
  # they compile against the install and give the values they show.
  /usr/bin/python3 tests/docs/readme_programs.py README.md "$out/readme"
  # shellcheck disable=SC2046
  g++ -std=c++17 -Wall -Wextra -Werror -Wno-unused-value \
    "$out/readme/readme_cpp.cc" $(pkg-config --cflags uriscan) \
    $(pkg-config "${static[@]}" --libs uriscan) -Wl,-rpath,"$prefix/lib" \
    -o "$out/readme_cpp"
  "$out/readme_cpp" || fail "the README's C++ example ($kind)"
  # shellcheck disable=SC2046
  gcc -std=c11 -Wall -Wextra -Werror -pedantic "$out/readme/readme_c.c" \
    $(pkg-config --cflags uriscan) \
    $(pkg-config "${static[@]}" --libs uriscan) -Wl,-rpath,"$prefix/lib" \
    -o "$out/readme_c"
  "$out/readme_c" || fail "the README's C example ($kind)"
  # The whole programs of docs/library.md, compiled and run the same way.
  local doc_program
  for doc_program in $(/usr/bin/python3 tests/docs/readme_programs.py \
                         --programs docs/library.md "$out/library"); do
    # shellcheck disable=SC2046
    g++ -std=c++17 -Wall -Wextra -Werror "$doc_program" \
      $(pkg-config --cflags uriscan) \
      $(pkg-config "${static[@]}" --libs uriscan) -Wl,-rpath,"$prefix/lib" \
      -o "${doc_program%.cc}" || fail "docs/library.md: $doc_program ($kind)"
    "${doc_program%.cc}" >/dev/null ||
      fail "docs/library.md: $doc_program gave another result ($kind)"
  done
  unset PKG_CONFIG_PATH
}

echo "== a user's build makes what a user runs"
# Configured as the docs show, with no option: the library and the command
# (and the DuckDB or PostgreSQL module when asked), never the tests or
# benchmarks, and every compile through ccache when it is installed.
unlaunched=(env -u CMAKE_C_COMPILER_LAUNCHER -u CMAKE_CXX_COMPILER_LAUNCHER)
"${unlaunched[@]}" cmake -S . -B "$tmp/plain" >/dev/null
targets=$(cmake --build "$tmp/plain" --target help)
for t in uriscan uriscan_cli; do
  grep -qx "\.\.\. $t" <<<"$targets" || fail "a plain build has no target $t"
done
for t in uriscan_tests uriscan_kernel_tests uriscan_bench uriscan_scan_count; do
  ! grep -qx "\.\.\. $t" <<<"$targets" || fail "a plain build builds $t"
done
if command -v ccache >/dev/null; then
  grep -qs "ccache " "$tmp/plain/CMakeFiles/uriscan_cli.dir/build.make" ||
    fail "a plain build does not compile through ccache"
  "${unlaunched[@]}" cmake -S . -B "$tmp/direct" -DURISCAN_CCACHE=OFF >/dev/null
  ! grep -qs "ccache " "$tmp/direct/CMakeFiles/uriscan_cli.dir/build.make" ||
    fail "-DURISCAN_CCACHE=OFF still compiles through ccache"
fi

echo "== install the static build ($static_build)"
[ -f "$static_build/CMakeCache.txt" ] || fail "$static_build is not configured"
cmake --build "$static_build" -j"$jobs" --target uriscan uriscan_cli >/dev/null
static_prefix=$tmp/static
cmake --install "$static_build" --prefix "$static_prefix" >/dev/null
for f in lib/liburiscan.a lib/cmake/uriscan/uriscanConfig.cmake \
         lib/cmake/uriscan/uriscanConfigVersion.cmake \
         lib/cmake/uriscan/uriscanTargets.cmake lib/pkgconfig/uriscan.pc \
         include/uriscan/uriscan.h include/uriscan/uriscan_c.h \
         include/uriscan/version.h include/uriscan/export.h bin/uriscan; do
  [ -f "$static_prefix/$f" ] || fail "not installed: $f"
done
"$static_prefix/bin/uriscan" --version | grep -q "^uriscan $version " ||
  fail "installed uriscan --version is not $version"
grep -q '^Requires.private: libhwy' "$static_prefix/lib/pkgconfig/uriscan.pc" ||
  fail "uriscan.pc has no Requires.private"
check_headers "$static_prefix"
check_consumers "$static_prefix" static

echo "== BUILD_SHARED_LIBS=ON build (build/shared)"
cmake -S . -B build/shared -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON \
  -DURISCAN_BUILD_TESTS=OFF -DURISCAN_BUILD_BENCH=OFF >/dev/null
cmake --build build/shared -j"$jobs" --target uriscan uriscan_cli >/dev/null
shared_prefix=$tmp/shared
cmake --install build/shared --prefix "$shared_prefix" >/dev/null
so=$shared_prefix/lib/liburiscan.so
[ -f "$so.$version" ] && [ -L "$so.0" ] && [ -L "$so" ] ||
  fail "liburiscan.so, .so.0 and .so.$version are not all installed"
[ ! -e "$shared_prefix/lib/liburiscan.a" ] || fail "a shared build installed liburiscan.a"
readelf -d "$so.0" | grep -q 'SONAME.*\[liburiscan\.so\.0\]' ||
  fail "the SONAME is not liburiscan.so.0"
exported=$(nm -D --defined-only "$so.0" | c++filt)
if grep -E 'hwy::' <<<"$exported"; then fail "liburiscan.so exports hwy:: symbols"; fi
if grep -E ' (mi|_mi)_' <<<"$exported"; then fail "liburiscan.so exports mimalloc symbols"; fi
if grep -E ' (psl|idn2)_' <<<"$exported"; then fail "liburiscan.so exports libpsl or libidn2 symbols"; fi
for want in ' uriscan_scan$' ' uriscan_normalize$' \
            'uriscan::Scanner::ScanLines\(' 'uriscan::ParseUriReference\(' \
            'uriscan::NormalizeBatch\(' 'uriscan::Dedup::Finish\(' \
            ' uriscan_query_params$' ' uriscan_decode_spans$' ' uriscan_decode$' \
            'uriscan::PublicSuffixList::Lookup\(' 'uriscan::AppendIaSurt\(' \
            'uriscan::SeenState::Open\(' ' uriscan_seen_state_open$'; do
  grep -qE -- "$want" <<<"$exported" || fail "liburiscan.so does not export $want"
done
# Internal functions stay hidden.
if grep -E 'uriscan::kernels::' <<<"$exported"; then
  fail "liburiscan.so exports internal kernels"
fi
echo "liburiscan.so.0: $(grep -c . <<<"$exported") dynamic symbols, none of Highway or mimalloc"
LD_LIBRARY_PATH=$shared_prefix/lib "$shared_prefix/bin/uriscan" --version |
  grep -q "^uriscan $version " || fail "the shared-linked command"
status=0
printf 'http://a/b\nhttp://a/%%zz\n' |
  LD_LIBRARY_PATH=$shared_prefix/lib "$shared_prefix/bin/uriscan" validate \
  >/dev/null 2>&1 || status=$?
[ "$status" -eq 1 ] || fail "the shared-linked validate exited $status, want 1"
check_headers "$shared_prefix"
check_consumers "$shared_prefix" shared

echo "package-test: all passed"
