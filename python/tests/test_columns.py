# SPDX-License-Identifier: MIT
"""Spans: every column and component equals what the C++ command reports
(`uriscan parse --format=jsonl`), on every corpus."""
import json

import numpy as np
import uriscan
from conftest import run

FIELDS = ("scheme", "userinfo", "host", "port", "path", "query", "fragment")


def test_components_equal_the_command(cli, corpus):
    path, lines = corpus
    records = [json.loads(line) for line in run(cli, "parse", "--format=jsonl",
                                                path=path)]
    assert len(records) == len(lines)
    spans = uriscan.scan(lines)
    assert len(spans) == len(lines)
    valid = spans.valid
    assert valid.dtype == np.bool_
    assert valid.tolist() == [r["valid"] for r in records]
    for name in FIELDS:
        got = spans.component(name)
        want = [r.get(name) if r["valid"] else None for r in records]
        assert got == want, name
    kinds = spans.error_kind
    offsets = spans.error_offset
    for i, r in enumerate(records):
        if not r["valid"]:
            assert uriscan.error_name(int(kinds[i])) == r["error"]
            assert int(offsets[i]) == r["at"]
        else:
            assert kinds[i] == 0 and offsets[i] == 0


def test_columns_slice_the_components(corpus):
    """The boundary columns are byte offsets into Spans.data: slicing it
    gives each defined component, and they never decrease."""
    _, lines = corpus
    spans = uriscan.scan(lines)
    data = spans.data.tobytes()
    assert data == b"".join(lines)
    columns = {name: getattr(spans, name) for name in uriscan.Spans.columns}
    for name in uriscan.Spans.columns:
        assert columns[name].shape == (len(lines),)
        assert not columns[name].flags.writeable
    boundaries = np.stack([columns[n] for n in uriscan.Spans.columns[:12]])
    assert (np.diff(boundaries.astype(np.int64), axis=0) >= 0).all()
    starts = np.cumsum([0] + [len(x) for x in lines])
    assert (columns["uri_begin"] == starts[:-1]).all()
    assert (columns["uri_end"] == starts[1:]).all()
    hosts = spans.component("host")
    paths = spans.component("path")
    for i in np.flatnonzero(spans.valid)[:2000]:
        if hosts[i] is not None:
            h = data[columns["host_begin"][i]:columns["host_end"][i]]
            assert h.decode() == hosts[i]
        p = data[columns["path_begin"][i]:columns["path_end"][i]]
        assert p.decode() == paths[i]


def test_flags_say_which_components_are_defined():
    spans = uriscan.scan(["http://a", "http://a?", "http://a#", "//h:", "x"])
    assert spans.component("query") == [None, "", None, None, None]
    assert spans.component("fragment") == [None, None, "", None, None]
    assert spans.component("port") == [None, None, None, "", None]
    assert spans.component("scheme") == ["http"] * 3 + [None, None]
    has_query = 1 << 4
    assert [(f & has_query) != 0 for f in spans.flags] == [
        False, True, False, False, False]
    assert spans.flags.dtype == np.uint16
    assert spans.error_kind.dtype == np.uint8
    assert spans.uri_begin.dtype == np.uint32


def test_authority_and_ip_literal():
    spans = uriscan.scan(["http://u:p@[::1]:8080/x", "mailto:a@b"])
    assert spans.component("authority") == ["u:p@[::1]:8080", None]
    assert spans.component("host") == ["[::1]", None]
    assert spans.component("userinfo") == ["u:p", None]
