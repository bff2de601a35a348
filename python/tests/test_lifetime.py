# SPDX-License-Identifier: MIT
"""Reference counting and lifetimes: a Spans outlives its input, columns
outlive their Spans, a Batch holds its buffers; nothing is freed early and
nothing leaks over many rounds. One test runs in a child interpreter under
Python's debug allocator and glibc's malloc checks."""
import gc
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import uriscan


def make_urls(n, salt=""):
    return [f"http://h{i}.example/{salt}path/{i}?q={i}" for i in range(n)]


def test_spans_outlive_their_input():
    urls = make_urls(5000)
    want_hosts = [f"h{i}.example" for i in range(5000)]
    spans = uriscan.scan(urls)
    del urls
    gc.collect()
    # Fresh allocations of the same size reuse freed memory, if any was.
    churn = [("x" * 60) + str(i) for i in range(20000)]
    assert spans.component("host") == want_hosts
    del churn


def test_columns_outlive_their_spans():
    spans = uriscan.scan(make_urls(1000))
    host_begin = spans.host_begin
    data = spans.data
    assert host_begin.base is not None
    refs = sys.getrefcount(spans)
    more = spans.uri_end
    with_view = sys.getrefcount(spans)
    del more
    without = sys.getrefcount(spans)
    assert (with_view, without) == (refs + 1, refs)  # a view holds its Spans
    del spans
    gc.collect()
    churn = [bytes(100) for _ in range(20000)]
    assert host_begin[0] == len("http://")
    assert data[host_begin[1]:host_begin[1] + 3].tobytes() == b"h1."
    del churn


def test_scan_keeps_no_reference_to_a_list():
    urls = make_urls(10)
    refs = sys.getrefcount(urls)
    item_refs = sys.getrefcount(urls[3])
    spans = uriscan.scan(urls)
    keys = uriscan.fingerprint(urls)
    # (Counted outside the asserts: pytest's rewriting holds what they name.)
    after, item_after = sys.getrefcount(urls), sys.getrefcount(urls[3])
    assert (after, item_after) == (refs, item_refs)
    del spans, keys


def test_batch_holds_its_buffers():
    data = bytearray(b"http://a/http://b/")
    offsets = np.array([0, 9, 18], dtype=np.int32)
    refs = sys.getrefcount(data)
    batch = uriscan.Batch(data, offsets)
    spans = uriscan.scan(batch)
    del batch
    gc.collect()
    # The Spans holds the Batch, which holds the buffer: it cannot move.
    with pytest.raises(BufferError):
        data.extend(b"more")
    assert spans.component("host") == ["a", "b"]
    del spans
    gc.collect()
    assert sys.getrefcount(data) == refs
    data.extend(b"more")  # released


def test_results_own_their_memory():
    keys = uriscan.fingerprint(make_urls(100))
    assert keys.flags.writeable and keys.flags.c_contiguous
    keys[0] = 7  # the caller's array, not a view of anything shared
    first = uriscan.first_occurrence(make_urls(100))
    assert first.all()


CHILD = textwrap.dedent("""
    import gc, sys
    import numpy as np
    import uriscan

    def urls(n, salt):
        return [f"http://h{i % 50}.example/{salt}/" for i in range(n)]

    views = []
    for round in range(300):
        u = urls(200 + round, round)
        spans = uriscan.scan(u)
        views.append((spans.host_begin, spans.data, round))
        keys = uriscan.fingerprint(np.array(u))
        first = uriscan.first_occurrence(u)
        assert first.sum() == min(50, len(u)), first.sum()
        norm = uriscan.normalize(u, "crawler").tolist()
        res = uriscan.resolve(u, "http://b/").tolist()
        data = bytearray(b"".join(x.encode() for x in u))
        off = np.cumsum([0] + [len(x) for x in u]).astype(np.int64)
        batch_spans = uriscan.scan(uriscan.Batch(data, off))
        del u, spans, keys, norm, res, batch_spans, data
        if len(views) > 20:
            views.pop(0)
        gc.collect()
    # The oldest views kept must still read what their Spans wrote.
    for host_begin, data, round in views:
        b = int(host_begin[1])
        assert data[b:b + 3].tobytes() == b"h1.", round
    print("ok")
""")


def test_repeated_create_destroy_under_debug_allocators():
    env = dict(os.environ, PYTHONMALLOC="debug", MALLOC_PERTURB_="165")
    # glibc's malloc checks (double frees, overruns) when its debug library
    # is there (Debian 12: libc6's libc_malloc_debug.so.0).
    debug = "/lib/x86_64-linux-gnu/libc_malloc_debug.so.0"
    if os.path.exists(debug):
        env["LD_PRELOAD"] = debug
        env["MALLOC_CHECK_"] = "3"
    done = subprocess.run([sys.executable, "-X", "dev", "-c", CHILD],
                          env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "ok"


def test_no_growth_over_many_rounds():
    """The process's resident memory settles: 200 rounds of 20,000 URLs
    (about 40 MB of Spans and strings in all) may not pile up."""
    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    urls = make_urls(20000)

    def round_trip():
        spans = uriscan.scan(urls)
        spans.component("host")
        uriscan.fingerprint(urls)
        uriscan.normalize(urls).tolist()
        del spans

    for _ in range(20):
        round_trip()
    gc.collect()
    before = rss()
    for _ in range(200):
        round_trip()
    gc.collect()
    assert rss() - before < 16 << 20
