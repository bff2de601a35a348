#!/usr/bin/env bash
# The Python package's tests, on one build of it: its sdist made from the
# checkout (python3 -m build, offline), unpacked outside the checkout and
# installed on its own, offline, into a fresh venv made from Debian's
# /usr/bin/python3 (with the system's NumPy, pandas, Dask and pybind11);
# pytest against the command built in BUILD_DIR (the reference the package
# must agree with), then the package's own `uriscan` and `python -m uriscan`
# compared with it. The checkout's `pip install ./python` runs the same
# setup.py and CMake build on the same sources (the sdist copies them), so
# it is configured here, not compiled a second time.
# usage: tools/python-test.sh [BUILD_DIR]   (default build/test)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=$(cd "${1:-build/test}" && pwd)
reference=$build/uriscan
[ -x "$reference" ] || { echo "python-test: no $reference" >&2; exit 2; }
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/uriscan-sdist.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The venv stays for the benchmarks that use the package
# (tools/bench-state.sh, tools/bench-scrapy.py).
venv=$build/python-venv
rm -rf "$venv"
/usr/bin/python3 -m venv --system-site-packages "$venv"

echo "python-test: the checkout's build configures (python/ in place)"
cmake -S python -B "$tmp/in-place" \
  -DPython_EXECUTABLE="$venv/bin/python" \
  -Dpybind11_DIR="$(/usr/bin/python3 -m pybind11 --cmakedir)" >/dev/null

echo "python-test: the sdist, installed outside the checkout"
/usr/bin/python3 -m build --sdist --no-isolation --outdir "$tmp" python \
  >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log" >&2; exit 1; }
tar -xzf "$tmp"/uriscan-*.tar.gz -C "$tmp"
# ccache's keys relative to the temporary directory: the next run's copy,
# in another one, compiles from the cache.
CCACHE_BASEDIR=$tmp "$venv/bin/pip" install --quiet --no-build-isolation \
  --no-index "$tmp"/uriscan-*/
# From outside python/, so that `import uriscan` is the installed package;
# two pytest workers, one per core, with pytest-xdist (tools/setup.sh test
# installs it; one process without it).
workers=()
/usr/bin/python3 -c 'import xdist' 2>/dev/null && workers=(-n 2)
(cd "$root/python/tests" &&
 URISCAN_CLI=$reference "$venv/bin/python" -m pytest -q "${workers[@]}" \
   -p no:cacheprovider .)

cd "$tmp"
printf 'HTTP://Example.COM:80/a/./b\nhttp://a b/\nmailto:x@y.example\n' >urls.txt
run() {  # FORM ARGS...: the sdist's command as a console script, or -m
  local form=$1; shift
  if [ "$form" = script ]; then "$venv/bin/uriscan" "$@"
  else "$venv/bin/python" -m uriscan "$@"; fi
}
same() {  # ARGS...: both forms give the reference's output and status
  local form want got status want_status=0
  want=$("$reference" "$@" 2>&1) || want_status=$?
  for form in script module; do
    status=0
    got=$(run "$form" "$@" 2>&1) || status=$?
    if [ "$got" != "$want" ] || [ "$status" != "$want_status" ]; then
      echo "python-test: uriscan $* ($form) gave, status $status:" >&2
      printf '%s\n' "$got" >&2
      echo "python-test: the reference gave, status $want_status:" >&2
      printf '%s\n' "$want" >&2
      exit 1
    fi
  done
}
same --version
same validate urls.txt
same normalize --profile=crawler urls.txt
"$venv/bin/python" - "$venv/" <<'EOF'
import sys
import uriscan
assert uriscan.__file__.startswith(sys.argv[1]), uriscan.__file__
assert uriscan.normalize(["HTTP://Example.COM:80/a/./b"]).tolist() == [
    "http://example.com/a/b"]
EOF
echo "python-test: the sdist installs and runs"
