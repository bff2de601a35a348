#!/usr/bin/env bash
# The Python package's tests: install python/ offline into a fresh venv made
# from Debian's /usr/bin/python3 (with the system's NumPy, pandas, Dask and
# pybind11), exactly as the README says, then run pytest against the
# command built in BUILD_DIR (the reference the package must agree with).
# usage: tools/python-test.sh [BUILD_DIR]   (default build/test)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=$(cd "${1:-build/test}" && pwd)
[ -x "$build/uriscan" ] || { echo "python-test: no $build/uriscan" >&2; exit 2; }
venv=$build/python-venv
rm -rf "$venv"
/usr/bin/python3 -m venv --system-site-packages "$venv"
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
"$venv/bin/pip" install --quiet --no-build-isolation --no-index ./python
# From outside python/, so that `import uriscan` is the installed package.
cd "$root/python/tests"
URISCAN_CLI="$build/uriscan" "$venv/bin/python" -m pytest -q \
  -p no:cacheprovider .
