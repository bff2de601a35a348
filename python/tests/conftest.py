# SPDX-License-Identifier: MIT
"""Fixtures: the uriscan command (the reference the package must agree
with), the corpora, and helpers to run the command and split lines as it
does."""
import os
import shutil
import subprocess
from pathlib import Path

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
    return path, split_lines(path.read_bytes())


@pytest.fixture(scope="session")
def shared_corpus():
    if not SHARED.is_dir():
        pytest.skip("the shared corpora are not beside the project")
    return SHARED
