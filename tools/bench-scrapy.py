#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Scrapy's duplicate filter with its own request fingerprinter and with
uriscan's (uriscan.scrapy.RequestFingerprinter), and other filter classes.

For every filter, fingerprinter and request count N, a child process of
its own makes the filter from a crawler's settings (JOBDIR a fresh
temporary directory, REQUEST_FINGERPRINTER_IMPLEMENTATION "2.7"), as
Scrapy's scheduler makes it, and calls request_seen() on N synthetic GET
requests to distinct URLs (3,000 hosts, paths, queries, a few escapes and
fragments, the same URLs for every row), made 1,000 at a time outside the
timed loop. A second child resumes: it opens the same JOBDIR's filter
and calls request_seen() twice (a request seen before, and a new one).
Another table gives fingerprint() alone, per fingerprinter, on fresh
requests.

Columns: request_seen() in microseconds per call; `seen`, the calls that
answered True (0 for distinct URLs); the child's peak RSS (ru_maxrss,
with Python and Scrapy loaded) and how much of it came with the
requests (the peak minus the peak before the first); the JOBDIR's size and a digest of its
files (for RFPDupeFilter, whose requests.seen holds nothing else, equal
digests mean the same fingerprints written); the resume's time
(the crawler, the filter, open() and the two calls; imports excluded) and
peak RSS. A filter or fingerprinter whose class does not import prints
"unavailable".

Run it with the Python that has uriscan installed (bash tools/python-test.sh
build/test makes build/test/python-venv):

    build/test/python-venv/bin/python tools/bench-scrapy.py \\
        --requests=1000000,10000000 --fingerprinter=both

A filter is a row more: add it to FILTERS (name -> class path).
"""
import argparse
import hashlib
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time

# name -> the class's path, as DUPEFILTER_CLASS takes it.
FILTERS = {
    "scrapy": "scrapy.dupefilters.RFPDupeFilter",
    "uriscan": "uriscan.scrapy.DupeFilter",
}
# name -> the class's path, as REQUEST_FINGERPRINTER_CLASS takes it.
FINGERPRINTERS = {
    "scrapy": "scrapy.utils.request.RequestFingerprinter",
    "uriscan": "uriscan.scrapy.RequestFingerprinter",
}
BATCH = 1000

WORDS = ("news", "products", "item", "category", "blog", "2023", "search",
         "page", "en", "de", "static", "img", "about", "user", "tag",
         "article", "forum", "thread", "video", "list", "Shop", "detail")
PARAMS = ("id", "page", "q", "sort", "lang", "ref", "utm_source", "sessionid",
          "color", "size", "offset", "cat")
TLDS = ("com", "org", "net", "de", "co.uk", "io", "fr", "info", "com.au")


def crawl_hosts(count=3000, seed=1):
    rng = random.Random(seed)
    hosts = []
    for k in range(count):
        name = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz")
                       for _ in range(rng.randrange(4, 12)))
        hosts.append("%s%s%d.%s" % (rng.choice(("www.", "", "shop.", "m.",
                                                "blog.")),
                                    name, k, rng.choice(TLDS)))
    return hosts


def crawl_urls(first, count, seed=0):
    """URLs first .. first + count - 1 of a synthetic crawl: distinct also
    once canonical (the number is in the path). Each block of BATCH URLs
    has a generator of its own, so any URL is made without those before."""
    hosts = crawl_hosts()
    for block in range(first // BATCH, (first + count - 1) // BATCH + 1):
        rng = random.Random(seed * 1_000_003 + block)
        for i in range(block * BATCH, (block + 1) * BATCH):
            url = crawl_url(rng, hosts, i)
            if first <= i < first + count:
                yield url


def crawl_url(rng, hosts, i):
    segments = [rng.choice(WORDS) for _ in range(rng.randrange(1, 4))]
    url = "%s://%s/%s/%d%s" % (
        "https" if rng.random() < 0.7 else "http",
        hosts[rng.randrange(len(hosts))], "/".join(segments), i,
        rng.choice(("", ".html", "/", ".php", "", "")))
    r = rng.random()
    if r < 0.45:
        url += "?" + "&".join(
            "%s=%s" % (rng.choice(PARAMS),
                       rng.choice(("%d" % rng.randrange(1000), "a+b",
                                   "x%2Fy", "", "red")))
            for _ in range(rng.randrange(1, 4)))
    elif r < 0.5:
        url += "?q=caf%C3%A9%20au%20lait"
    if rng.random() < 0.05:
        url += "#section-%d" % rng.randrange(10)
    return url


def batches(first, count, seed=0):
    """Lists of at most BATCH URLs."""
    urls = crawl_urls(first, count, seed)
    while True:
        batch = [u for _, u in zip(range(BATCH), urls)]
        if not batch:
            return
        yield batch


def crawler_for(filter_name, fingerprinter_name, jobdir):
    from scrapy.utils.test import get_crawler
    return get_crawler(settings_dict={
        "JOBDIR": jobdir,
        "DUPEFILTER_CLASS": FILTERS[filter_name],
        "REQUEST_FINGERPRINTER_CLASS": FINGERPRINTERS[fingerprinter_name],
        "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7",
        "LOG_ENABLED": False,
    })


def make_filter(crawler):
    """The filter, as Scrapy's scheduler makes and opens it."""
    from scrapy.utils.misc import create_instance, load_object
    cls = load_object(crawler.settings["DUPEFILTER_CLASS"])
    dupefilter = create_instance(cls, crawler.settings, crawler)
    dupefilter.open()
    return dupefilter


def peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def directory_size_and_digest(path):
    size = 0
    digest = hashlib.sha256()
    for root, dirs, files in sorted(os.walk(path)):
        dirs.sort()
        for name in sorted(files):
            full = os.path.join(root, name)
            size += os.path.getsize(full)
            digest.update(os.path.relpath(full, path).encode() + b"\0")
            with open(full, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    digest.update(block)
    return size, digest.hexdigest()[:12]


def child_run(args):
    """request_seen() on --requests URLs into --jobdir."""
    from scrapy import Request
    dupefilter = make_filter(crawler_for(args.filter, args.fingerprinter,
                                         args.jobdir))
    request_seen = dupefilter.request_seen
    # Python, Scrapy and the filter made: what its requests add is the
    # filter's.
    before = peak_rss_mib()
    elapsed, seen = 0.0, 0
    for batch in batches(0, args.requests):
        requests = [Request(u) for u in batch]
        start = time.perf_counter()
        seen += sum(map(request_seen, requests))
        elapsed += time.perf_counter() - start
    dupefilter.close("finished")
    return {"us": elapsed / args.requests * 1e6, "seen": seen,
            "rss": peak_rss_mib(), "before": before}


def child_resume(args):
    """A new process: the filter of --jobdir, a seen and a new request."""
    from scrapy import Request
    seen_url = next(crawl_urls(0, 1))
    new_url = next(crawl_urls(args.requests, 1))
    from scrapy.utils.misc import load_object
    load_object(FILTERS[args.filter])       # imported before the clock
    load_object(FINGERPRINTERS[args.fingerprinter])
    start = time.perf_counter()
    dupefilter = make_filter(crawler_for(args.filter, args.fingerprinter,
                                         args.jobdir))
    answers = (dupefilter.request_seen(Request(seen_url)),
               dupefilter.request_seen(Request(new_url)))
    elapsed = time.perf_counter() - start
    dupefilter.close("finished")
    return {"s": elapsed, "ok": answers == (True, False),
            "rss": peak_rss_mib()}


def child_fingerprint(args):
    """fingerprint() alone on --requests fresh requests."""
    from scrapy import Request
    from scrapy.utils.misc import create_instance, load_object
    crawler = crawler_for("scrapy", args.fingerprinter, args.jobdir)
    fingerprinter = create_instance(
        load_object(FINGERPRINTERS[args.fingerprinter]), crawler.settings,
        crawler)
    fingerprint = fingerprinter.fingerprint
    elapsed = 0.0
    for batch in batches(0, args.requests, seed=1):
        requests = [Request(u) for u in batch]
        start = time.perf_counter()
        for request in requests:
            fingerprint(request)
        elapsed += time.perf_counter() - start
    return {"us": elapsed / args.requests * 1e6}


def run_child(mode, **options):
    command = [sys.executable, os.path.abspath(__file__), "--child=" + mode]
    command += ["--%s=%s" % (k, v) for k, v in options.items()]
    done = subprocess.run(command, capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["exit %d" %
                                                     done.returncode])[-1]
        return {"error": last}
    return json.loads(done.stdout.strip().splitlines()[-1])


def importable(path):
    """Whether the class at `path` imports, in a child (so that the parent
    stays free of Scrapy and uriscan)."""
    code = ("import sys\nfrom scrapy.utils.misc import load_object\n"
            "load_object(sys.argv[1])\n")
    return subprocess.run([sys.executable, "-c", code, path],
                          capture_output=True, check=False).returncode == 0


def names(text, registry, option):
    chosen = list(registry) if text in ("both", "all") else text.split(",")
    for name in chosen:
        if name not in registry:
            sys.exit("%s: '%s' is none of %s" % (option, name,
                                                 ", ".join(registry)))
    return chosen


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", default="100000",
                    help="request counts, comma-separated (default 100000)")
    ap.add_argument("--fingerprinter", default="both",
                    help="scrapy, uriscan or both (default)")
    ap.add_argument("--filters", default=",".join(FILTERS),
                    help="filter names, comma-separated (default: all: %s)"
                    % ", ".join(FILTERS))
    ap.add_argument("--fingerprint-requests", type=int, default=100000,
                    help="requests for the fingerprint() table (0: none)")
    ap.add_argument("--tmp", default=None,
                    help="where the JOBDIRs are made (default: $TMPDIR)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--filter", help=argparse.SUPPRESS)
    ap.add_argument("--jobdir", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.child:
        args.requests = int(args.requests)
        run = {"run": child_run, "resume": child_resume,
               "fingerprint": child_fingerprint}[args.child]
        print(json.dumps(run(args)))
        return 0

    counts = [int(n.replace("_", "")) for n in args.requests.split(",")]
    fingerprinters = names(args.fingerprinter, FINGERPRINTERS,
                           "--fingerprinter")
    filters = names(args.filters, FILTERS, "--filters")
    have = {path: importable(path) for path in
            [FILTERS[f] for f in filters] +
            [FINGERPRINTERS[f] for f in fingerprinters]}
    print("Python %s, %s" % (sys.version.split()[0], sys.executable))
    print()
    if args.fingerprint_requests > 0:
        print("| fingerprinter | fingerprint() us |")
        print("| --- | ---: |")
        for name in fingerprinters:
            if not have[FINGERPRINTERS[name]]:
                print("| %s | unavailable |" % name)
                continue
            with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
                got = run_child("fingerprint", fingerprinter=name,
                                requests=args.fingerprint_requests,
                                jobdir=os.path.join(tmp, "job"))
            print("| %s | %s |" % (name, got.get("error") or
                                   "%.2f" % got["us"]), flush=True)
        print()
    print("| filter | fingerprinter | requests | request_seen us | seen "
          "| peak RSS MiB | of it the requests' | JOBDIR MiB | JOBDIR digest "
          "| resume s | resume peak RSS MiB |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- "
          "| ---: | ---: |")
    for n in counts:
        for filter_name in filters:
            for fp_name in fingerprinters:
                head = "| %s | %s | %d |" % (filter_name, fp_name, n)
                missing = [p for p in (FILTERS[filter_name],
                                       FINGERPRINTERS[fp_name])
                           if not have[p]]
                if missing:
                    print(head + " unavailable (%s) | | | | | | |"
                          % ", ".join(missing), flush=True)
                    continue
                tmp = tempfile.mkdtemp(prefix="bench-scrapy-", dir=args.tmp)
                try:
                    jobdir = os.path.join(tmp, "job")
                    options = dict(filter=filter_name, fingerprinter=fp_name,
                                   requests=n, jobdir=jobdir)
                    got = run_child("run", **options)
                    if "error" in got:
                        print(head + " error: %s | | | | | | |"
                              % got["error"], flush=True)
                        continue
                    size, digest = directory_size_and_digest(jobdir)
                    back = run_child("resume", **options)
                    resume = ("error: " + back["error"], "") \
                        if "error" in back else (
                            "%.3f%s" % (back["s"],
                                        "" if back["ok"] else " (WRONG)"),
                            "%.0f" % back["rss"])
                    print(head + " %.2f | %d | %.0f | %.0f | %.1f | %s | %s "
                          "| %s |" % (got["us"], got["seen"], got["rss"],
                                      got["rss"] - got["before"],
                                      size / 2**20, digest, *resume),
                          flush=True)
                finally:
                    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
