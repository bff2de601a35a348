# SPDX-License-Identifier: MIT
"""Benchmarks of the Python package, per URL, on a corpus (kasztp).

    python bench/python/bench.py [--corpus=FILE] [--cxx-bench=PATH]
        [--dask-count=N] [--uriscan=PATH] [--uriscan-gen=PATH] [--repeat=N]

1. scan(list[str]) beside a loop of urllib.parse.urlsplit over the same
   list (the usual pure-Python way to split URLs).
2. scan(Batch(data, offsets)) over the file's bytes (no copy) beside the
   C++ benchmark BM_Scan on the same corpus (--cxx-bench: the project's
   uriscan_bench binary; skipped without it).
3. fingerprint() of a pandas Series, first_occurrence(), normalize(),
   columns() of host parts (the Public Suffix List and SURT columns beside
   host_nowww), and normalize(profile="w3lib") beside a loop of w3lib.url.canonicalize_url
   (Debian's python3-w3lib; skipped without it) over the valid http(s)
   URLs.
4. With --dask-count=N and the two binaries: N URLs from uriscan_gen (30 %
   duplicates), deduplicated by uriscan.dask.dedup on a LocalCluster of
   two single-threaded workers, beside `uriscan dedup` on the same file.

Each timing is the best of --repeat runs (default 7), so other processes
on the machine inflate it as little as possible.
"""
import argparse
import hashlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

import numpy as np

import uriscan

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = HERE.parents[2] / "shared" / "corpus" / "kasztp.txt"


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def lines_of(data: bytes):
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return [line[:-1] if line.endswith(b"\r") else line for line in lines]


def cpu_name():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def cxx_scan_ns(bench, corpus_name, repeat):
    """ns per URI of BM_Scan on the corpus, from Google Benchmark's JSON."""
    out = subprocess.run(
        [bench, f"--benchmark_filter=BM_Scan/{corpus_name}",
         f"--benchmark_repetitions={repeat}", "--benchmark_format=json"],
        capture_output=True, text=True, check=True).stdout
    runs = [b for b in json.loads(out)["benchmarks"]
            if b.get("run_type") == "iteration"]
    per_uri = []
    for b in runs:
        items = b.get("items_per_second")
        if items:
            per_uri.append(1e9 / items)
    return min(per_uri) if per_uri else None, runs[0]["name"] if runs else ""


def dask_dedup(args):
    import distributed

    import uriscan.dask as ud

    path = Path(tempfile.gettempdir()) / f"uriscan-bench-{args.dask_count}.txt"
    if not path.exists():
        subprocess.run([args.uriscan_gen, "--seed=1",
                        f"--count={args.dask_count}", "--duplicate-percent=30",
                        f"--out={path}"], check=True)
    size = path.stat().st_size
    start = time.perf_counter()
    cli = subprocess.run([args.uriscan, "dedup", "--quiet", "--threads=2",
                          str(path)], stdout=subprocess.PIPE, check=True)
    cli_seconds = time.perf_counter() - start
    cli_rows = split_rows(cli.stdout)
    del cli

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        frame = ud.read_lines(str(path), blocksize=64 << 20)
        start = time.perf_counter()
        frame.map_partitions(len).compute()
        read_seconds = time.perf_counter() - start
        start = time.perf_counter()
        kept = ud.dedup(frame).map_partitions(len).compute()
        dask_seconds = time.perf_counter() - start
        # Not timed: the same rows in the same order as the command's? A
        # digest of each output partition against the command's output cut
        # at the same row counts.
        digests = ud.dedup(frame)["url"].map_partitions(
            _digest, meta=("url", object)).compute().tolist()
    want, at = [], 0
    for count in kept.tolist():
        want.append(_digest_rows(cli_rows[at:at + count]))
        at += count
    return {
        "urls": args.dask_count, "bytes": size,
        "partitions": int(len(kept)),
        "cli_seconds": cli_seconds, "cli_lines": len(cli_rows),
        "dask_seconds": dask_seconds, "dask_lines": int(kept.sum()),
        "read_seconds": read_seconds,
        "same": at == len(cli_rows) and digests == want,
    }


def split_rows(data: bytes):
    rows = data.split(b"\n")
    if rows and rows[-1] == b"":
        rows.pop()
    return rows


def _digest_rows(rows):
    return hashlib.sha256(b"\n".join(rows)).hexdigest()


def _digest(part):
    import pandas as pd
    rows = [r.encode("utf-8", "surrogateescape") for r in part]
    return pd.Series([_digest_rows(rows)], dtype=object, name=part.name)


def w3lib_against_loop(strs, repeat, ns):
    """normalize(profile="w3lib") beside a loop of w3lib's canonicalize_url
    over the valid http(s) URLs of the list (where the two agree)."""
    try:
        from w3lib.url import canonicalize_url
    except ImportError:
        print("w3lib: not installed (Debian's python3-w3lib); skipped")
        return
    spans = uriscan.scan(strs)
    schemes = spans.component("scheme")
    urls = [s for s, ok, scheme in zip(strs, spans.valid, schemes)
            if ok and scheme and scheme.lower() in ("http", "https")]
    t_ours = best(lambda: uriscan.normalize(urls, profile="w3lib"), repeat)

    def loop():
        for u in urls:
            canonicalize_url(u)
    t_loop = best(loop, max(3, repeat // 2))
    per = len(strs) / len(urls)  # ns() divides by the whole list
    print(f"normalize(w3lib)         {ns(t_ours) * per:8.1f} ns/URL   "
          f"({t_loop / t_ours:.0f}x canonicalize_url, {len(urls)} "
          f"valid http(s) URLs)")
    print(f"w3lib canonicalize_url   {ns(t_loop) * per:8.1f} ns/URL")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", default=str(DEFAULT_CORPUS))
    parser.add_argument("--cxx-bench", default=None)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--dask-count", type=int, default=0)
    parser.add_argument("--uriscan", default=None)
    parser.add_argument("--uriscan-gen", default=None)
    args = parser.parse_args()

    corpus = Path(args.corpus)
    raw = corpus.read_bytes()
    lines = lines_of(raw)
    n = len(lines)
    strs = [line.decode("utf-8", "surrogateescape") for line in lines]
    print(f"CPU: {cpu_name()}, {os.cpu_count()} cores; load average "
          f"{os.getloadavg()[0]:.2f}; Highway target "
          f"{uriscan.dispatched_target()}; Python {platform.python_version()}")
    print(f"corpus: {corpus.name}, {n} URLs, "
          f"{len(raw) / n:.1f} bytes per line\n")

    def ns(seconds):
        return seconds / n * 1e9

    # Every Spans kept: each call's columns then land on fresh pages (page
    # faults included), as when results accumulate. (Measured first: the
    # storage of dead Spans is recycled, and the loop below reuses it.)
    kept = [uriscan.scan(strs) for _ in range(3)]  # no recycled storage left
    t_scan_kept = best(lambda: kept.append(uriscan.scan(strs)), args.repeat)
    kept.clear()
    # Each Spans dropped before the next call, as a loop over batches does.
    t_scan_list = best(lambda: uriscan.scan(strs), args.repeat * 3)

    def urlsplit_loop():
        split = urllib.parse.urlsplit
        for s in strs:
            try:
                split(s)
            except ValueError:
                pass
    t_urlsplit = best(urlsplit_loop, max(3, args.repeat // 2))
    print(f"scan(list[str])          {ns(t_scan_list):8.1f} ns/URL   "
          f"({t_urlsplit / t_scan_list:.1f}x urlsplit)")
    print(f"  every Spans kept       {ns(t_scan_kept):8.1f} ns/URL   "
          f"({t_urlsplit / t_scan_kept:.1f}x urlsplit)")
    print(f"urllib.parse.urlsplit    {ns(t_urlsplit):8.1f} ns/URL")

    data = b"".join(lines)
    offsets = np.cumsum([0] + [len(x) for x in lines]).astype(np.uint32)
    batch = uriscan.Batch(data, offsets)
    t_scan_batch = best(lambda: uriscan.scan(batch), args.repeat * 3)
    print(f"scan(Batch)              {ns(t_scan_batch):8.1f} ns/URL")
    if args.cxx_bench:
        cxx, name = cxx_scan_ns(args.cxx_bench, corpus.stem, 3)
        if cxx:
            print(f"C++ {name:<20} {cxx:8.1f} ns/URL   "
                  f"(Python/C++ = {ns(t_scan_batch) / cxx:.2f})")

    import pandas as pd
    series = pd.Series(strs)
    t_fp = best(lambda: uriscan.fingerprint(series), args.repeat)
    t_fp_batch = best(lambda: uriscan.fingerprint(batch), args.repeat)
    t_first = best(lambda: uriscan.first_occurrence(series), args.repeat)
    t_norm = best(lambda: uriscan.normalize(series), args.repeat)
    print(f"fingerprint(Series)      {ns(t_fp):8.1f} ns/URL")
    print(f"fingerprint(Batch)       {ns(t_fp_batch):8.1f} ns/URL")
    print(f"first_occurrence(Series) {ns(t_first):8.1f} ns/URL")
    print(f"normalize(Series)        {ns(t_norm):8.1f} ns/URL  (a Series)")
    # columns(): the host parts beside host_nowww (a slice of the host),
    # so the Public Suffix List and SURT costs read as the difference.
    for names in (["host_nowww"], ["registrable_domain"], ["public_suffix"],
                  ["surt"], ["surt_crawler"]):
        t = best(lambda: uriscan.columns(series, names), args.repeat)
        print(f"columns({names[0]:<18}) {ns(t):8.1f} ns/URL")
    w3lib_against_loop(strs, args.repeat, ns)

    if args.dask_count:
        if not (args.uriscan and args.uriscan_gen):
            sys.exit("--dask-count needs --uriscan and --uriscan-gen")
        r = dask_dedup(args)
        print(f"\ndedup of {r['urls']:,} generated URLs "
              f"({r['bytes'] / 1e6:.0f} MB, 30 % duplicates):")
        print(f"  uriscan dedup --threads=2     {r['cli_seconds']:7.2f} s  "
              f"{r['cli_lines']:,} lines kept")
        print(f"  uriscan.dask.dedup, 2 workers {r['dask_seconds']:7.2f} s  "
              f"{r['dask_lines']:,} lines kept, {r['partitions']} partitions "
              f"(reading the file included)")
        print(f"  of which reading the lines  {r['read_seconds']:7.2f} s  "
              f"(read_lines alone, measured before)")
        print(f"  the same rows in the same order: "
              f"{'yes' if r['same'] else 'NO'}")


if __name__ == "__main__":
    main()
