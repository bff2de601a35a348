# SPDX-License-Identifier: MIT
"""Calls from many threads at once (the GIL is released while C++ runs, and
each thread keeps its own scratch) give the answers of one thread."""
import threading

import numpy as np
import uriscan


def batch(seed):
    rng = np.random.default_rng(seed)
    hosts = [f"H{k}.Example" for k in range(40)]
    return [f"http://{hosts[rng.integers(40)]}/{rng.integers(50)}/../x"
            f"?q={rng.integers(9)}" if i % 17 else "bad uri"
            for i in range(20000)]


def answers(urls):
    spans = uriscan.scan(urls)
    return (spans.component("host"), spans.path_end.tolist(),
            uriscan.fingerprint(urls, "crawler").tolist(),
            uriscan.first_occurrence(urls).tolist(),
            uriscan.normalize(np.array(urls)).tolist(),
            uriscan.resolve(urls, "http://b/c/d").tolist(),
            uriscan.risks(urls).tolist())


def test_threads_agree_with_one_thread():
    inputs = [batch(seed) for seed in range(6)]
    want = [answers(urls) for urls in inputs]
    got = [None] * len(inputs)
    errors = []

    def work(k):
        try:
            for _ in range(5):
                result = answers(inputs[k])
                if result != want[k]:
                    errors.append(k)
            got[k] = result
        except Exception as e:  # reported below, with the thread's input
            errors.append((k, repr(e)))

    threads = [threading.Thread(target=work, args=(k,))
               for k in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert got == want


def test_a_spans_is_shared_between_threads():
    spans = uriscan.scan(batch(7))
    want = spans.component("host")
    seen = []
    threads = [threading.Thread(target=lambda: seen.append(
        spans.component("host") == want and
        int(spans.host_end.sum()) == int(spans.host_end.sum())))
        for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == [True] * 8
