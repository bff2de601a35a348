# SPDX-License-Identifier: MIT
"""Every input type gives the same rows: lists and tuples of str or bytes,
NumPy str_/bytes_/object arrays, pandas Series, and Batch over Arrow-layout
buffers (read in place, int32, uint32 or int64 offsets)."""
import numpy as np
import pandas as pd
import pytest
import uriscan

URLS = ["http://a/b?c#d", "HTTP://Example.COM:80/%7Ex", "", "not a uri",
        "mailto:x@y", "//host", "http://[::1]/", "https://a/\u00e9",
        "urn:x:y", "http://a/./b/../c"]


def columns(spans):
    return {name: getattr(spans, name).tolist()
            for name in uriscan.Spans.columns}


def arrow_layout(urls, dtype):
    data = b"".join(u.encode() for u in urls)
    offsets = np.cumsum([0] + [len(u.encode()) for u in urls]).astype(dtype)
    return data, offsets


@pytest.fixture(scope="module")
def reference():
    spans = uriscan.scan(URLS)
    return (columns(spans), spans.component("host"),
            uriscan.fingerprint(URLS).tolist(),
            uriscan.normalize(URLS).tolist(), spans.valid.tolist())


def same(urls, reference):
    spans = uriscan.scan(urls)
    cols, hosts, keys, normal, valid = reference
    assert columns(spans) == cols
    assert spans.component("host") == hosts
    assert spans.valid.tolist() == valid
    assert uriscan.fingerprint(urls).tolist() == keys
    assert uriscan.normalize(urls).tolist() == normal
    assert uriscan.first_occurrence(urls).tolist() == \
        uriscan.first_occurrence(URLS).tolist()


@pytest.mark.parametrize("make", [
    lambda: list(URLS),
    lambda: tuple(URLS),
    lambda: [u.encode() for u in URLS],
    lambda: [u if i % 2 else u.encode() for i, u in enumerate(URLS)],
    lambda: np.array(URLS),                                  # str_ (UCS-4)
    lambda: np.array(URLS, dtype=">U40"),                   # big-endian
    lambda: np.array([u.encode() for u in URLS]),            # bytes_
    lambda: np.array(URLS, dtype=object),
    lambda: np.repeat(np.array(URLS), 2)[::2],               # strided
    lambda: pd.Series(URLS),
    lambda: pd.Series(URLS, dtype="string"),
    lambda: pd.Series(URLS, dtype="category"),
    lambda: pd.Series(URLS, index=range(100, 100 + len(URLS))),
    lambda: pd.Index(URLS),
    lambda: uriscan.Batch(*arrow_layout(URLS, np.int32)),
    lambda: uriscan.Batch(*arrow_layout(URLS, np.uint32)),
    lambda: uriscan.Batch(*arrow_layout(URLS, np.int64)),
], ids=["list-str", "tuple", "list-bytes", "list-mixed", "str_", "str_-be",
        "bytes_", "object", "strided", "series", "series-string",
        "series-category", "series-index", "index", "batch-int32",
        "batch-uint32", "batch-int64"])
def test_every_input_type(make, reference):
    urls = make()
    if isinstance(urls, np.ndarray) and urls.dtype.kind == "U" and \
            urls.dtype.itemsize // 4 < max(len(u) for u in URLS):
        pytest.fail("fixture too narrow")
    if isinstance(urls, np.ndarray) and urls.strides[0] != urls.itemsize:
        assert not urls.flags.c_contiguous
    same(urls, reference)


@pytest.mark.parametrize("wrap", [bytes, bytearray, memoryview,
                                  lambda b: np.frombuffer(b, np.uint8)])
def test_batch_data_types(wrap, reference):
    data, offsets = arrow_layout(URLS, np.int32)
    same(uriscan.Batch(wrap(data), offsets), reference)


def test_batch_reads_in_place():
    data = bytearray(b"http://a/http://b/")
    offsets = np.array([0, 9, 18], dtype=np.uint32)
    batch = uriscan.Batch(data, offsets)
    spans = uriscan.scan(batch)
    # The columns index the caller's buffer: Spans.data is that buffer.
    assert spans.data.__array_interface__["data"][0] == \
        np.frombuffer(data, np.uint8).__array_interface__["data"][0]
    assert spans.component("host") == ["a", "b"]
    assert batch.data is data and batch.offsets is offsets
    assert len(batch) == 2


def test_batch_offsets_changed_afterwards_change_nothing():
    # Offsets checked once and read again later could point anywhere: a
    # changed array killed the interpreter (SIGBUS) or read past the data.
    data = b"http://a/xhttps://b.example/"
    for dtype in (np.int32, np.uint32, np.int64):
        offs = np.array([0, 10, 28], dtype=dtype)
        batch = uriscan.Batch(data, offs)
        offs[2] = np.iinfo(dtype).max if dtype != np.uint32 else 2**32 - 1
        offs[1] = 27
        assert uriscan.normalize(batch).tolist() == ["http://a/x", "https://b.example/"]
        assert uriscan.scan(batch).component("host") == ["a", "b.example"]
        assert list(uriscan.fingerprint(batch) != 0) == [True, True]


def test_batch_offsets_may_start_past_zero():
    # An Arrow array sliced from a larger one: offsets start inside data.
    data = b"xxxxhttp://a/http://bb/yyyy"
    batch = uriscan.Batch(data, np.array([4, 13, 23], dtype=np.int64))
    spans = uriscan.scan(batch)
    assert spans.component("host") == ["a", "bb"]
    assert spans.uri_begin.tolist() == [4, 13]
    assert uriscan.fingerprint(batch).tolist() == \
        uriscan.fingerprint(["http://a/", "http://bb/"]).tolist()


def test_batch_offsets_from_a_list():
    batch = uriscan.Batch(b"http://a/x", [0, 9, 10])
    assert uriscan.scan(batch).component("path") == ["/", "x"]


def test_empty_inputs():
    for urls in ([], np.array([], dtype=object), np.array([], dtype="U1"),
                 pd.Series([], dtype=object),
                 uriscan.Batch(b"", np.array([0], np.int32))):
        spans = uriscan.scan(urls)
        assert len(spans) == 0
        assert spans.uri_begin.shape == (0,)
        assert spans.component("host") == []
        assert uriscan.fingerprint(urls).shape == (0,)
        assert uriscan.first_occurrence(urls).shape == (0,)
        assert uriscan.normalize(urls).tolist() == []
        assert uriscan.resolve(urls, "http://a/").tolist() == []


def test_non_ascii_and_surrogate_escapes():
    # Text read with errors="surrogateescape" gets its bytes back: the row
    # is invalid (a non-ASCII byte) at the same place as the bytes' row.
    raw = b"http://a/\xff\xfe"
    escaped = raw.decode("utf-8", "surrogateescape")
    for urls in ([escaped], np.array([escaped])):
        spans = uriscan.scan(urls)
        assert spans.data.tobytes() == raw
        assert not spans.valid[0] and spans.error_offset[0] == 9
    # str is UTF-8: offsets count bytes.
    spans = uriscan.scan(["\u00e9http://a/"])
    assert spans.uri_end[0] == len("\u00e9http://a/".encode())


def test_inputs_split_into_chunks():
    """Inputs past one batch's 4 GiB are cut into several; a lowered limit
    shows the cut changes no result, and that scan() refuses it."""
    urls = [f"http://h{i % 7}.example/{i % 5}" for i in range(1000)]
    urls[3] = "bad uri"
    keys = uriscan.fingerprint(urls)
    first = uriscan.first_occurrence(urls)
    normal = uriscan.normalize(urls).tolist()
    resolved = uriscan.resolve(urls, "http://b/").tolist()
    risks = uriscan.risks(urls)
    data, offsets = arrow_layout(urls, np.int64)
    saved = uriscan._uriscan._chunk_limit()
    try:
        uriscan._uriscan._set_chunk_limit(100)
        for source in (urls, np.array(urls), uriscan.Batch(data, offsets)):
            assert uriscan.fingerprint(source).tolist() == keys.tolist()
            assert uriscan.first_occurrence(source).tolist() == first.tolist()
            assert uriscan.normalize(source).tolist() == normal
            assert uriscan.resolve(source, "http://b/").tolist() == resolved
            assert uriscan.risks(source).tolist() == risks.tolist()
            with pytest.raises(ValueError, match="urls: past 4 GiB"):
                uriscan.scan(source)
        with pytest.raises(ValueError, match=r"urls\[0\]: 101 bytes"):
            uriscan.fingerprint(["x" * 101])
        with pytest.raises(ValueError, match="data: row 0 is 4 GiB"):
            uriscan.Batch(b"x" * 101, np.array([0, 101], np.int64))
    finally:
        uriscan._uriscan._set_chunk_limit(saved)
    assert uriscan._uriscan._chunk_limit() == 2**32 - 1
