#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Runs the shell examples of the documentation and compares their output.

An example is a fenced code block whose first line starts with "$ ". Each
"$ " line is a command (a line after one that ends in "|" or "\\" goes on
with it); the lines up to the next command are what it writes, stdout and
stderr together, as a terminal shows them. In the expected text a line
"..." stands for any number of lines (output that depends on the CPU, say).
The blocks of one document run in order, each in a fresh directory that
holds the fixtures the examples name:

  access.log.gz  the shared Apache access log, gzipped
  urls.txt       the first 1000 lines of the shared kasztp URL list

with `uriscan` and `uriscan_gen` from --bin first on PATH. A block right
after a line "<!-- example: not run (REASON) -->" is skipped.

Usage: check_examples.py --bin DIR --corpus DIR FILE.md...
Exit status 0 when every example gives its output, 1 otherwise.
"""
import argparse
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = re.compile(r"<!-- example: not run \((.+)\) -->")


def blocks(path):
    """(line number, [lines]) of each example block of `path`."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        if lines[i].startswith("```"):
            skipped = i > 0 and SKIP.search(lines[i - 1])
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            body = lines[i + 1:j]
            if body and body[0].startswith("$ ") and not skipped:
                yield i + 2, body
            i = j + 1
        else:
            i += 1


def steps(body):
    """(command, expected lines) pairs of one block."""
    out = []
    i = 0
    while i < len(body):
        assert body[i].startswith("$ "), body[i]
        cmd = body[i][2:]
        while cmd.rstrip().endswith(("|", "\\")) and i + 1 < len(body):
            i += 1
            cmd += "\n" + body[i]
        i += 1
        expected = []
        while i < len(body) and not body[i].startswith("$ "):
            expected.append(body[i])
            i += 1
        out.append((cmd, expected))
    return out


def matches(expected, actual):
    """Whether `actual` lines match `expected`, where "..." is any lines."""
    if not expected:
        return not actual
    if expected[0] == "...":
        return any(matches(expected[1:], actual[k:])
                   for k in range(len(actual) + 1))
    return bool(actual) and actual[0] == expected[0] and \
        matches(expected[1:], actual[1:])


def fixtures(where, corpus):
    log = os.path.join(corpus, "apache_access.log")
    with open(log, "rb") as src, gzip.open(
            os.path.join(where, "access.log.gz"), "wb") as dst:
        shutil.copyfileobj(src, dst)
    with open(os.path.join(corpus, "kasztp.txt"), "rb") as src, open(
            os.path.join(where, "urls.txt"), "wb") as dst:
        for k, line in enumerate(src):
            if k == 1000:
                break
            dst.write(line)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("docs", nargs="+")
    args = ap.parse_args()
    if not os.path.exists(os.path.join(args.corpus, "apache_access.log")):
        print("check_examples: no shared corpus at %s" % args.corpus)
        return 1
    env = dict(os.environ, LC_ALL="C.UTF-8",
               PATH=os.path.abspath(args.bin) + os.pathsep +
               os.environ.get("PATH", "/usr/bin:/bin"))
    env.pop("URISCAN_TARGET", None)
    failures = count = 0
    for doc in args.docs:
        for line, body in blocks(doc):
            with tempfile.TemporaryDirectory(prefix="uriscan_doc_") as where:
                fixtures(where, args.corpus)
                for cmd, expected in steps(body):
                    count += 1
                    run = subprocess.run(
                        ["bash", "-c", cmd], cwd=where, env=env,
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                        timeout=600)
                    actual = run.stdout.decode("utf-8", "replace").split("\n")
                    if actual and actual[-1] == "":
                        actual.pop()
                    if not matches(expected, actual):
                        failures += 1
                        print("%s:%d: example gives other output\n$ %s\n"
                              "--- expected\n%s\n--- actual (exit %d)\n%s\n" %
                              (doc, line, cmd, "\n".join(expected),
                               run.returncode, "\n".join(actual)))
    print("check_examples: %d commands, %d with other output" %
          (count, failures))
    return 1 if failures or count == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
