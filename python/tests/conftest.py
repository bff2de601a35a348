# SPDX-License-Identifier: MIT
"""Fixtures: the uriscan command (the reference the package must agree
with), the corpora, and helpers to run the command and split lines as it
does."""
import os
import random
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]          # the project
SHARED = ROOT.parent / "shared" / "corpus"          # real-world corpora
HANDMADE = ROOT / "corpus" / "handmade" / "tricky.txt"


def _find_cli():
    env = os.environ.get("URISCAN_CLI")
    if env:
        return env
    for build in ("test", "release", "dev"):
        candidate = ROOT / "build" / build / "uriscan"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which("uriscan")


@pytest.fixture(scope="session")
def cli():
    path = _find_cli()
    if not path:
        pytest.skip("no uriscan command: build it, or set URISCAN_CLI")
    return path


def split_lines(data: bytes):
    """Lines as the command splits them: "\\n" ends a line and a "\\r"
    just before it is dropped; a last line without "\\n" counts."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return [line[:-1] if line.endswith(b"\r") else line for line in lines]


def read_lines(path):
    """A file's lines as the command reads a file: split_lines() after a
    UTF-8 byte-order mark at its start is dropped."""
    data = Path(path).read_bytes()
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return split_lines(data)


def run(cli, *args, data=None, path=None):
    """The command's stdout, as lines (bytes)."""
    command = [cli, *args, "--quiet"]
    if path is not None:
        command.append(str(path))
    done = subprocess.run(command, input=data, capture_output=True,
                          check=False)
    assert done.returncode in (0, 1), done.stderr.decode(errors="replace")
    return split_lines(done.stdout)


def corpus_files():
    """The project's hand-written cases, and the shared real-world corpora
    when they are beside the project."""
    files = [HANDMADE]
    if SHARED.is_dir():
        files += sorted(p for p in SHARED.iterdir()
                        if p.suffix in (".txt", ".log"))
    return files


@pytest.fixture(params=corpus_files(), ids=lambda p: p.name)
def corpus(request):
    """(path, lines as bytes) of one corpus file."""
    path = request.param
    return path, read_lines(path)


def text(line: bytes) -> str:
    """A line as str, bytes that are not UTF-8 kept as surrogate escapes."""
    return line.decode("utf-8", "surrogateescape")


@pytest.fixture(scope="session")
def rows():
    """Every corpus line, then again a shuffled half of them and some with
    an upper-case scheme or host (equal under the scheme profile): classes
    with members spread over all partitions, invalid rows included."""
    lines = []
    for path in corpus_files():
        lines += read_lines(path)
    rng = random.Random(3986)
    again = rng.sample(lines, len(lines) // 2)
    upper = [line.replace(b"http://", b"HTTP://", 1)
             for line in rng.sample(lines, len(lines) // 4)]
    rows = lines + again + upper
    rng.shuffle(rows)
    return [text(r) for r in rows]


@pytest.fixture(scope="session")
def frame(rows):
    return pd.DataFrame({"url": rows, "n": np.arange(len(rows)) * 10},
                        index=pd.RangeIndex(5, 5 + len(rows), name="row"))
