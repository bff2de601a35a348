#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Writes the surt column's test vectors from the Internet Archive's surt
library itself (not in Debian: run from a checkout of
github.com/internetarchive/surt, which needs six and tldextract).

usage: PYTHONPATH=SURT_CHECKOUT /usr/bin/python3 tools/surt-vectors.py \\
           BUILD_DIR/uriscan

corpus/surt/vectors.tsv: URL<TAB>surt.surt(URL) for the generated URLs of
python/tests/compat_urls.py ("!" for a URL the library raises on).
corpus/surt/shared-corpora.tsv: for each shared corpus, per block of 1000
valid http(s) lines, the SHA-256 of their keys joined by "\\n": checks of
the library's answers that copy no line of the corpora.
"""
import hashlib
import subprocess
import sys
from pathlib import Path

import surt

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python" / "tests"))
from compat_urls import generated_urls  # noqa: E402

SHARED = ROOT.parent / "shared" / "corpus"
CORPORA = ["kasztp.txt", "userbait.txt"]
BLOCK = 1000


def read_lines(path):
    data = Path(path).read_bytes()
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return [line[:-1] if line.endswith(b"\r") else line for line in lines]


def valid_http(cli, lines):
    """The lines uriscan reads as valid http or https references."""
    out = subprocess.run(
        [cli, "parse", "--format=tsv", "--quiet", "--columns=valid,scheme"],
        input=b"\n".join(lines) + b"\n", capture_output=True,
        check=True).stdout.split(b"\n")[1:-1]
    assert len(out) == len(lines)
    return [line.decode() for line, row in zip(lines, out)
            if row.split(b"\t")[0] == b"true"
            and row.split(b"\t")[1].lower() in (b"http", b"https")]


def key(url):
    try:
        return surt.surt(url)
    except ValueError:
        return "!"


def main():
    cli = sys.argv[1]
    urls = valid_http(cli, [u.encode() for u in generated_urls()])
    with open(ROOT / "corpus" / "surt" / "vectors.tsv", "w",
              encoding="utf-8", newline="\n") as f:
        for url in urls:
            f.write(f"{url}\t{key(url)}\n")
    with open(ROOT / "corpus" / "surt" / "shared-corpora.tsv", "w",
              encoding="utf-8", newline="\n") as f:
        f.write("corpus\tblock\turls\tsha256\n")
        for name in CORPORA:
            urls = valid_http(cli, read_lines(SHARED / name))
            for b in range(0, len(urls), BLOCK):
                keys = "\n".join(key(u) for u in urls[b:b + BLOCK])
                digest = hashlib.sha256(keys.encode("utf-8")).hexdigest()
                f.write(f"{name}\t{b // BLOCK}\t"
                        f"{len(urls[b:b + BLOCK])}\t{digest}\n")


if __name__ == "__main__":
    main()
