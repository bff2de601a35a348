#!/usr/bin/env bash
# Installs the Debian 12 packages a job needs, only when some are missing.
# usage: tools/setup.sh build|test|bench|fuzz|package|python|cross|postgres|duckdb
set -euo pipefail
build=(g++ make cmake pkgconf libhwy-dev libmimalloc-dev libxxhash-dev
       libisal-dev libzstd-dev libpsl-dev libidn2-dev libcli11-dev
       publicsuffix)  # the file libpsl's built-in list was made from (hosts.cc)
# The packaging test: a C compiler, and binutils for nm, readelf, c++filt.
package=("${build[@]}" gcc binutils)
# The Python package (python/): built offline in a venv from Debian's
# Python, pybind11, NumPy, pandas, Dask and pytest; python3-build makes
# its sdist.
python=(python3 python3-dev python3-venv python3-pip python3-setuptools
        python3-wheel python3-pybind11 pybind11-dev python3-numpy
        python3-pandas python3-dask python3-distributed python3-pytest
        python3-build)
# python3-pytest-xdist: pytest on both cores (tools/python-test.sh).
# python3-w3lib: the w3lib profile is tested against it (python/tests);
# python3-scrapy: uriscan.scrapy is tested against it, crawling a local site.
# time: /usr/bin/time measures the tests' peak RSS (a fresh Debian has none).
test=("${package[@]}" libgtest-dev nlohmann-json3-dev liburiparser-dev
      gzip zstd zsh fish chromium time "${python[@]}" python3-pytest-xdist
      python3-w3lib python3-scrapy)
bench=("${build[@]}" libbenchmark-dev liburiparser-dev libboost-url1.81-dev
       libcurl4-openssl-dev)
# The aarch64 cross build (tools/cross-test.sh): Debian's cross compiler,
# qemu-user, and the arm64 -dev packages the library and its tests link
# (multiarch; libisal-dev:arm64 is never wanted: it would replace the
# amd64 one the command links, so the cross build reads no gzip).
cross=(g++-aarch64-linux-gnu qemu-user cmake make pkgconf nlohmann-json3-dev
       libhwy-dev:arm64 libgtest-dev:arm64 libxxhash-dev:arm64
       libpsl-dev:arm64 libidn2-dev:arm64 libzstd-dev:arm64)
# The PostgreSQL extension (tools/postgres-test.sh): the server, its
# headers and pg_config, and pg_virtualenv for a throw-away cluster.
postgres=("${build[@]}" python3 postgresql-15 postgresql-server-dev-15
          postgresql-common)
# The DuckDB extension (tools/duckdb-test.sh): curl fetches DuckDB 1.4.4's
# npm packages (its C API headers and libduckdb.so), checked against the
# registry's sha512 sums, into a folder outside the source tree.
duckdb=("${build[@]}" curl ca-certificates openssl gzip zstd python3 time)
case "${1:-}" in
  build) want=("${build[@]}") ;;
  test) want=("${test[@]}" libbenchmark-dev clang libclang-rt-14-dev ccache) ;;
  bench) want=("${bench[@]}" libgtest-dev nlohmann-json3-dev) ;;
  fuzz) want=("${build[@]}" clang libclang-rt-14-dev gzip zstd) ;;
  package) want=("${package[@]}") ;;
  python) want=("${build[@]}" "${python[@]}") ;;
  cross) want=("${cross[@]}") ;;
  postgres) want=("${postgres[@]}") ;;
  duckdb) want=("${duckdb[@]}") ;;
  *) echo "usage: $0 build|test|bench|fuzz|package|python|cross|postgres|duckdb" >&2
     exit 2 ;;
esac
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
    missing+=("$p")
done
install_missing() {
  echo "setup: installing ${missing[*]}" >&2
  sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || {
      echo "setup: run as root, or install: ${missing[*]}" >&2; exit 2; }
    sudo=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  if [[ " ${missing[*]}" == *:arm64* ]] &&
     ! dpkg --print-foreign-architectures | grep -qx arm64; then
    "${sudo[@]}" dpkg --add-architecture arm64
  fi
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
[ ${#missing[@]} -eq 0 ] || install_missing

# DuckDB's npm packages, from the registry (no npm needed), each checked
# against its sha512 before it is unpacked; kept across runs.
fetch_npm() {  # NAME URL SHA512-BASE64 DIR
  local name=$1 url=$2 sum=$3 dir=$4
  [ -f "$dir/$name/.complete" ] && return 0
  rm -rf "$dir/$name" "$dir/$name.tgz"
  mkdir -p "$dir"
  curl -sSfL --retry 3 -o "$dir/$name.tgz" "$url"
  if [ "$(openssl dgst -sha512 -binary "$dir/$name.tgz" | base64 -w0)" != "$sum" ]; then
    echo "setup: $url does not have the expected sha512" >&2
    rm -f "$dir/$name.tgz"
    exit 2
  fi
  mkdir "$dir/$name"
  tar -xzf "$dir/$name.tgz" -C "$dir/$name" --strip-components=1
  rm -f "$dir/$name.tgz"
  touch "$dir/$name/.complete"
}
if [ "$1" = duckdb ]; then
  dir=${URISCAN_DUCKDB_DIR:-$HOME/.cache/uriscan/duckdb-1.4.4}
  fetch_npm duckdb https://registry.npmjs.org/duckdb/-/duckdb-1.4.4.tgz \
    hEJJ5hyVF0VLj3dmOLpsWrQR0b3d4Ykqtygm6iUXjHJDDnSqg/USKxcb5qvNrOhFYPgktayU6dXCtgPqcmmpog== \
    "$dir"
  fetch_npm node-bindings-linux-x64 \
    https://registry.npmjs.org/@duckdb/node-bindings-linux-x64/-/node-bindings-linux-x64-1.4.4-r.4.tgz \
    jBTL/WvfwxLToFa/pVHfT6elMtltJGnc3wSuxZD9OfMltit9YUdVFS37vBFQzXMT1Z8OWjtSjMh+zPKxOwHLHA== \
    "$dir"
fi
