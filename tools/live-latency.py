#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""How long `uriscan ARGS` takes to write a burst of input lines' output
while its input pipe stays open (as under `tail -f`).

Writes BURST lines of FILE (default: one line) to the command's stdin,
then waits until as many lines of output have come, ROUNDS times with a
pause between; prints the median and the largest time in milliseconds.

Usage: live-latency.py [--rounds=N] [--burst=N] [--pause=SECONDS]
                       FILE URISCAN ARGS...
Example: tools/live-latency.py --burst=100 access.log build/main/uriscan \\
           extract --from=combined --quiet
"""
import argparse
import os
import select
import statistics
import subprocess
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--burst", type=int, default=1)
    ap.add_argument("--pause", type=float, default=0.3)
    ap.add_argument("file")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    lines = open(args.file, "rb").read().split(b"\n")
    lines = [l + b"\n" for l in lines if l]
    proc = subprocess.Popen(args.command, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = proc.stdout.fileno()
    got = b""
    times = []
    at = 0
    for _ in range(args.rounds):
        burst = b"".join(lines[(at + k) % len(lines)]
                         for k in range(args.burst))
        at += args.burst
        want = got.count(b"\n") + args.burst
        t0 = time.monotonic()
        proc.stdin.write(burst)
        proc.stdin.flush()
        while got.count(b"\n") < want:
            ready, _, _ = select.select([out], [], [], 10)
            if not ready:
                print("no output within 10 s", file=sys.stderr)
                proc.kill()
                return 1
            got += os.read(out, 1 << 16)
        times.append((time.monotonic() - t0) * 1000)
        time.sleep(args.pause)
    proc.stdin.close()
    proc.wait()
    print("%d rounds of %d lines: median %.1f ms, max %.1f ms" %
          (args.rounds, args.burst, statistics.median(times), max(times)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
