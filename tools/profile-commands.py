#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Where each uriscan command's CPU goes per row: scan, count, transform,
format and write, from `perf record` samples of one thread.

Usage: tools/profile-commands.py URISCAN INPUT [NAME=ARGS ...]

Runs each command with --threads=1 on INPUT under `perf record` (Debian's
linux-perf), sorts the samples' symbols into the stages below, and prints
each stage's share and its nanoseconds per input line (the run's user and
system CPU time split by the shares). With no NAME=ARGS, the commands of
tools/bench-commands.sh are profiled.
"""
import os
import re
import resource
import subprocess
import sys
import tempfile

# First match wins: (stage, regular expression over the symbol).
STAGES = [
    ("scan", r"N_AVX|N_SSE|N_AVX3|N_NEON|N_SVE|N_EMU|kernels::|ScanLines|"
             r"ScanRows|Scanner::|NewlineMasks|CutAtRows|ParseUriReference"),
    ("count", r"CountColumns|cli::Count\b|CountRisks|CountWholeChunk|"
              r"ForEachInvalid"),
    ("risk", r"RiskFlags|risks::"),
    ("transform", r"Normaliz|W3lib|AlreadyNormal|MarkAlreadyNormal|"
                  r"RemoveDotSegments|AppendPctNormal|Fingerprint|XXH|"
                  r"Dedup|SeenSet|Bloom|PublicSuffix|Surt|Psl|psl_|"
                  r"QueryParams|DecodeSpans|SplitQueries|Decode|ParamMatches|"
                  r"Lookup|Rule|Label"),
    ("format", r"Append|Record|Tsv|Json|PgText|LineCounter|ColumnWriter|"
               r"memmove|memcpy|memset|_M_append|_M_replace|to_chars|"
               r"PrepareChunk|::Row\b|ProcessRows|Emit|DedupSink"),
    ("write", r"fwrite|write|Writer::"),
]

DEFAULT = [
    ("parse --format=tsv", "parse --format=tsv"),
    ("parse", "parse"),
    ("parse --columns=host", "parse --format=tsv --columns=host"),
    ("parse --columns=host,registrable_domain",
     "parse --format=tsv --columns=host,registrable_domain"),
    ("parse --columns=host,surt", "parse --format=tsv --columns=host,surt"),
    ("audit", "audit"),
    ("params", "params"),
    ("normalize --profile=scheme", "normalize --profile=scheme"),
    ("normalize --profile=crawler", "normalize --profile=crawler"),
    ("normalize --profile=w3lib", "normalize --profile=w3lib"),
    ("dedup", "dedup"),
    ("dedup --profile=crawler", "dedup --profile=crawler"),
]


def stage_of(symbol):
    for name, pattern in STAGES:
        if re.search(pattern, symbol):
            return name
    return "other"


def profile(uriscan, args, path, work):
    data = os.path.join(work, "perf.data")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(["perf", "record", "-q", "-o", data, uriscan] +
                   args.split() + ["--threads=1", path],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    report = subprocess.run(
        ["perf", "report", "-i", data, "--no-children", "--sort", "sym",
         "--stdio", "-q"], capture_output=True, text=True).stdout
    shares = {}
    for line in report.splitlines():
        m = re.match(r"\s*([0-9.]+)%\s+\[[^\]]*\]\s+(.*)", line)
        if m:
            stage = stage_of(m.group(2))
            shares[stage] = shares.get(stage, 0.0) + float(m.group(1))
    return cpu, shares


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    uriscan, path = sys.argv[1], sys.argv[2]
    commands = [tuple(a.split("=", 1)) for a in sys.argv[3:]] or DEFAULT
    with open(path, "rb") as f:
        lines = sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))
    names = [s for s, _ in STAGES] + ["other"]
    print("%-42s %7s  %s" % ("command (ns/line, one thread)", "total",
                             "  ".join("%9s" % n for n in names)))
    with tempfile.TemporaryDirectory() as work:
        for name, args in commands:
            cpu, shares = profile(uriscan, args, path, work)
            total = sum(shares.values()) or 1.0
            ns = cpu * 1e9 / max(lines, 1)
            print("%-42s %7.1f  %s" % (name, ns, "  ".join(
                "%9.1f" % (ns * shares.get(n, 0.0) / total) for n in names)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
