#!/usr/bin/env bash
# The Python package's tests: install python/ offline into a fresh venv made
# from Debian's /usr/bin/python3 (with the system's NumPy, pandas, Dask and
# pybind11), exactly as the README says, then run pytest against the
# command built in BUILD_DIR (the reference the package must agree with).
# Then the sdist: made from the checkout, unpacked outside it, installed on
# its own into another fresh venv, and its command run from there.
# usage: tools/python-test.sh [BUILD_DIR]   (default build/test)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=$(cd "${1:-build/test}" && pwd)
reference=$build/uriscan
[ -x "$reference" ] || { echo "python-test: no $reference" >&2; exit 2; }
venv=$build/python-venv
rm -rf "$venv"
/usr/bin/python3 -m venv --system-site-packages "$venv"
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
"$venv/bin/pip" install --quiet --no-build-isolation --no-index ./python
# From outside python/, so that `import uriscan` is the installed package.
(cd "$root/python/tests" &&
 URISCAN_CLI=$reference "$venv/bin/python" -m pytest -q -p no:cacheprovider .)

echo "python-test: the sdist, installed outside the checkout"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/uriscan-sdist.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 -m build --sdist --no-isolation --outdir "$tmp" python \
  >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log" >&2; exit 1; }
tar -xzf "$tmp"/uriscan-*.tar.gz -C "$tmp"
/usr/bin/python3 -m venv --system-site-packages "$tmp/venv"
# ccache's keys relative to the temporary directory: the next run's copy,
# in another one, compiles from the cache.
CCACHE_BASEDIR=$tmp "$tmp/venv/bin/pip" install --quiet --no-build-isolation \
  --no-index "$tmp"/uriscan-*/
cd "$tmp"
printf 'HTTP://Example.COM:80/a/./b\nhttp://a b/\nmailto:x@y.example\n' >urls.txt
run() {  # FORM ARGS...: the sdist's command as a console script, or -m
  local form=$1; shift
  if [ "$form" = script ]; then "$tmp/venv/bin/uriscan" "$@"
  else "$tmp/venv/bin/python" -m uriscan "$@"; fi
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
"$tmp/venv/bin/python" - "$tmp/venv/" <<'EOF'
import sys
import uriscan
assert uriscan.__file__.startswith(sys.argv[1]), uriscan.__file__
assert uriscan.normalize(["HTTP://Example.COM:80/a/./b"]).tolist() == [
    "http://example.com/a/b"]
EOF
echo "python-test: the sdist installs and runs"
