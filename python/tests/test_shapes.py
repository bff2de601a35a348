# SPDX-License-Identifier: MIT
"""Answers in the input's kind (a Series for a Series, NumPy otherwise) and
lenient=, as the command's --lenient."""
import numpy as np
import pandas as pd
import pytest
import uriscan
from conftest import run

URLS = ["http://A.example/x", "http://a b/", "HTTP://a.example/x"]


def test_series_in_series_out():
    series = pd.Series(URLS, index=[7, 3, 7], name="url")
    normal = uriscan.normalize(series)
    assert isinstance(normal, pd.Series) and normal.dtype == object
    assert normal.index.tolist() == [7, 3, 7] and normal.name == "url"
    assert normal.tolist() == ["http://a.example/x", None,
                               "http://a.example/x"]
    resolved = uriscan.resolve(series, "http://b/")
    assert resolved.index.tolist() == [7, 3, 7]
    keys = uriscan.fingerprint(series)
    assert keys.dtype == np.uint64 and keys.index.tolist() == [7, 3, 7]
    assert keys.iloc[0] == keys.iloc[2] != 0 and keys.iloc[1] == 0
    risks = uriscan.risks(series)
    assert risks.dtype == np.uint32 and risks.index.tolist() == [7, 3, 7]
    first = uriscan.first_occurrence(series)
    assert first.dtype == bool and first.tolist() == [True, True, False]
    # A frame whose index repeats a label still selects by position.
    frame = pd.DataFrame({"url": series})
    assert frame[first.to_numpy()]["url"].tolist() == URLS[:2]


@pytest.mark.parametrize("make", [list, tuple, np.array,
                                  lambda u: np.array(u, dtype=object)])
def test_anything_else_gives_numpy(make):
    normal = uriscan.normalize(make(URLS))
    assert isinstance(normal, np.ndarray) and normal.dtype == object
    assert normal.tolist() == ["http://a.example/x", None,
                               "http://a.example/x"]
    assert isinstance(uriscan.resolve(make(URLS), "http://b/"), np.ndarray)
    assert isinstance(uriscan.fingerprint(make(URLS)), np.ndarray)
    assert isinstance(uriscan.first_occurrence(make(URLS)), np.ndarray)
    assert isinstance(uriscan.risks(make(URLS)), np.ndarray)
    empty = uriscan.normalize(make(URLS)[:0])
    assert isinstance(empty, np.ndarray) and len(empty) == 0


IRI = "http://B\u00fccher.example/stra\u00dfe?q=a b&x=100%"


def test_lenient_repairs_every_call(cli):
    rows = [IRI, "http://ok.example/"]
    repaired = "http://xn--bcher-kva.example/stra%C3%9Fe?q=a%20b&x=100%25"
    want = run(cli, "normalize", "--lenient",
               data="\n".join(rows).encode() + b"\n")
    got = uriscan.normalize(rows, lenient=True)
    assert [x.encode() for x in got] == want
    assert got[0] == repaired
    assert uriscan.normalize(rows).tolist() == [None, "http://ok.example/"]
    spans = uriscan.scan(rows, lenient=True)
    assert spans.valid.tolist() == [True, True]
    assert spans.component("host") == ["xn--bcher-kva.example",
                                       "ok.example"]
    assert uriscan.resolve(["b c"], "http://a/", lenient=True).tolist() == \
        ["http://a/b%20c"]
    keys = uriscan.fingerprint([IRI, repaired], lenient=True)
    assert keys[0] == keys[1] != 0
    assert uriscan.first_occurrence([IRI, repaired], lenient=True).tolist() \
        == [True, False]
    assert uriscan.risks([IRI], lenient=True)[0] == uriscan.risks(
        [repaired])[0]
    params = uriscan.params([IRI], lenient=True)
    assert params["name"].tolist() == ["q", "x"]
    assert params["value"].tolist() == ["a b", "100%"]
    frame = uriscan.columns(pd.Series(rows, index=["a", "b"]),
                            ["raw", "repaired", "host", "valid"],
                            lenient=True)
    assert frame.index.tolist() == ["a", "b"]
    assert frame["raw"].tolist() == rows
    assert frame["repaired"].tolist() == [True, False]
    assert frame["host"].tolist() == ["xn--bcher-kva.example", "ok.example"]


def test_columns_take_every_column_of_the_command():
    frame = uriscan.columns(
        ["HTTP://www.Example.com:80/a/../b?utm_source=x&b=1#f", "a b"],
        ["line", "valid", "at", "error", "scheme", "host", "port", "path",
         "query", "fragment", "host_type", "normalized", "key",
         "surt_crawler"], profile="crawler")
    assert frame["line"].tolist() == [1, 2]
    assert frame["valid"].tolist() == [True, False]
    assert frame["at"].isna().tolist() == [True, False]
    assert frame["at"].iloc[1] == 1
    assert frame["error"].tolist() == [None, "disallowed-byte"]
    first = frame.iloc[0]
    assert (first["scheme"], first["host"], first["port"], first["path"],
            first["query"], first["fragment"], first["host_type"]) == \
        ("HTTP", "www.Example.com", "80", "/a/../b", "utm_source=x&b=1", "f",
         "name")
    assert first["normalized"] == "http://www.example.com/b?b=1"
    key = uriscan.fingerprint(["http://www.example.com/b?b=1"],
                              profile="crawler")[0]
    assert first["key"] == format(key, "016x")
    assert first["surt_crawler"] == "com,example)/b?b=1"
    assert frame.iloc[1][["scheme", "normalized", "key"]].isna().all()
    with pytest.raises(ValueError, match="'file' names the command's"):
        uriscan.columns(URLS, ["file"])
    with pytest.raises(ValueError, match="fold_www"):
        uriscan.columns(URLS, ["key"], fold_www=True)


def test_missing_values_have_no_raw_text():
    frame = uriscan.columns(pd.Series(["http://a/", None, float("nan"), pd.NA]),
                            ["raw", "valid", "error"])
    assert frame["raw"].tolist() == ["http://a/", None, None, None]
    assert frame["valid"].tolist() == [True, False, False, False]
    assert uriscan.columns(["x", None], ["raw"])["raw"].tolist() == ["x", None]

