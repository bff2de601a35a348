# SPDX-License-Identifier: MIT
"""params(), columns(), and the vectorized error_name() and risk_names():
the same rows and cells as `uriscan params` and `uriscan parse --columns`,
on every corpus."""
import json

import numpy as np
import pandas as pd
import pytest
import uriscan
from conftest import run, text

ESCAPES = {b"\\": b"\\", b"t": b"\t", b"n": b"\n", b"r": b"\r"}


def unescape(cell: bytes):
    """A PostgreSQL text-format cell as the bytes it stands for; None for
    \\N."""
    if cell == b"\\N":
        return None
    out, i = bytearray(), 0
    while i < len(cell):
        if cell[i:i + 1] == b"\\" and i + 1 < len(cell):
            out += ESCAPES[cell[i + 1:i + 2]]
            i += 2
        else:
            out += cell[i:i + 1]
            i += 1
    return bytes(out)


@pytest.mark.parametrize("raw", [False, True])
def test_params_equal_the_command(cli, corpus, raw):
    path, lines = corpus
    args = ["params", "--raw"] if raw else ["params"]
    want = []
    for line in run(cli, *args, path=path):
        number, name, value = line.split(b"\t")
        want.append((int(number) - 1, text(unescape(name)),
                     text(unescape(value))))
    frame = uriscan.params([text(x) for x in lines], raw=raw)
    assert list(frame.columns) == ["row", "name", "value"]
    assert frame["row"].dtype == np.int64
    got = list(zip(frame["row"].tolist(), frame["name"], frame["value"]))
    assert got == want


def test_params_split_and_decode():
    frame = uriscan.params(["http://h/p?q=a+b%21&&lang&x=1=2#f&g=1", "bad x",
                            "/no-query", "?%E2%82%AC=%ff&n=%00"])
    # An escape of no UTF-8 character, and %00, stay as written.
    assert frame.to_dict("records") == [
        {"row": 0, "name": "q", "value": "a b!"},
        {"row": 0, "name": "lang", "value": ""},
        {"row": 0, "name": "x", "value": "1=2"},
        {"row": 3, "name": "\u20ac", "value": "%ff"},
        {"row": 3, "name": "n", "value": "%00"},
    ]
    # A Series' rows are its index labels, as in columns().
    labelled = uriscan.params(pd.Series(["/?a=1", "/", "/?b=2&c"],
                                        index=["x", "y", "z"]))
    assert labelled["row"].tolist() == ["x", "z", "z"]
    assert labelled["name"].tolist() == ["a", "b", "c"]
    raw = uriscan.params(pd.Series(["http://h/?a+b=%41"]), raw=True)
    assert raw.to_dict("records") == [{"row": 0, "name": "a+b",
                                       "value": "%41"}]
    empty = uriscan.params([])
    assert len(empty) == 0 and list(empty.columns) == ["row", "name", "value"]


# Every column of columns(), with two parameters: each as a TSV cell of the
# command, unescaped; the JSON arrays read back into lists.
NAMES = list(uriscan.COLUMNS) + ["param:q", "param_raw:id", "param:utm_source"]
LISTS = ("path_segments", "param_names")


def as_cell(value):
    """A typed cell as the command writes it: bool as true/false, int in
    decimal, pandas' NA as None."""
    if value is pd.NA:
        return None
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return str(value)
    return value


@pytest.mark.parametrize("options", [
    [], ["--profile=crawler", "--lenient"],
    ["--profile=crawler", "--tracking-params=+id", "--fold-www"]])
def test_columns_equal_the_command(cli, corpus, options):
    path, lines = corpus
    out = run(cli, "parse", "--format=tsv", "--columns=" + ",".join(NAMES),
              *options, path=path)
    assert out[0].split(b"\t") == [n.encode() for n in NAMES]
    kwargs = {}
    for option in options:
        key, _, value = option[2:].partition("=")
        kwargs[key.replace("-", "_")] = value.split(",") if \
            key == "tracking-params" else (value or True)
    frame = uriscan.columns([text(x) for x in lines], NAMES, **kwargs)
    assert list(frame.columns) == NAMES and len(frame) == len(lines)
    assert frame["valid"].dtype == bool and frame["line"].dtype == np.int64
    assert str(frame["at"].dtype) == "Int64"
    for name in NAMES:
        k = NAMES.index(name)
        column = [as_cell(v) for v in frame[name].tolist()]
        for i, line in enumerate(out[1:]):
            cell = unescape(line.split(b"\t")[k])
            got = column[i]
            if cell is None:
                assert got is None, (name, i)
            elif name in LISTS:
                # The command's JSON has U+FFFD for bytes that are not
                # UTF-8; the package keeps them as surrogate escapes.
                want = json.loads(cell.decode())
                assert [x.encode("utf-8", "surrogateescape").decode(
                    "utf-8", "replace") for x in got] == want, (name, i)
            else:
                assert got == text(cell), (name, i)


def test_columns_by_example():
    urls = pd.Series(["http://WWW.Example.co.uk:8080/a/b%20c/x.tar.gz?q=a+b&q=2",
                      "not a url", "mailto:a@b", "http://www.com/"],
                     index=[10, 11, 12, 13])
    frame = uriscan.columns(urls, ["host_nowww", "subdomain",
                                   "registrable_domain", "public_suffix",
                                   "path_segments", "extension", "param:q",
                                   "param_names", "surt", "authority"])
    assert frame.index.tolist() == [10, 11, 12, 13]
    first = frame.loc[10].to_dict()
    assert first == {
        "host_nowww": "Example.co.uk", "subdomain": "WWW",
        "registrable_domain": "example.co.uk", "public_suffix": "co.uk",
        "path_segments": ["a", "b c", "x.tar.gz"], "extension": "gz",
        "param:q": "a b", "param_names": ["q", "q"],
        "surt": "uk,co,example:8080)/a/b%20c/x.tar.gz?q=2&q=a+b",
        "authority": "WWW.Example.co.uk:8080"}
    assert frame.loc[11].isna().all()
    assert frame.loc[12, "path_segments"] == ["a@b"]
    assert frame.loc[12, "host_nowww"] is None
    assert frame.loc[13, "registrable_domain"] == "www.com"
    assert frame.loc[13, "subdomain"] == ""


def test_idn_hosts_map_as_the_surt_library():
    # One IDNA mapping (IDNA 2003's: sharp s is "ss") for every derived
    # host column and the crawler profile, as the command's.
    urls = ["http://www.fa%C3%9F.co.uk/x", "http://caf%C3%A9.fr/",
            "http://%FF.de/"]
    frame = uriscan.columns(urls, ["registrable_domain", "subdomain", "surt"])
    assert frame["registrable_domain"].tolist() == ["fass.co.uk",
                                                    "xn--caf-dma.fr", "%ff.de"]
    assert frame["subdomain"].tolist() == ["www", "", ""]
    assert frame["surt"].tolist() == ["uk,co,fass)/x", "fr,xn--caf-dma)/",
                                      "de,%ff)/"]
    keys = uriscan.fingerprint(["http://b%C3%BCcher.de/", "http://xn--bcher-kva.de/"],
                               profile="crawler")
    assert keys[0] == keys[1]


def test_columns_reject_bad_names():
    with pytest.raises(ValueError, match=r"names\[1\]: 'nope' is not a column"):
        uriscan.columns(["http://a/"], ["host_nowww", "nope"])
    with pytest.raises(TypeError, match="names"):
        uriscan.columns(["http://a/"], "host_nowww")
    with pytest.raises(TypeError, match=r"names\[0\]"):
        uriscan.columns(["http://a/"], [3])


def test_error_name_vectorized(corpus):
    _, lines = corpus
    spans = uriscan.scan(lines)
    names = uriscan.error_name(spans.error_kind)
    assert names.shape == (len(lines),) and names.dtype == object
    assert names.tolist() == [uriscan.error_name(int(k))
                              for k in spans.error_kind]
    assert uriscan.error_name(pd.Series([0, 1])).tolist() == [
        uriscan.error_name(0), uriscan.error_name(1)]
    with pytest.raises(ValueError, match=r"kind\[1\]"):
        uriscan.error_name(np.array([0, 99]))


def test_risk_names_vectorized(cli, corpus):
    path, lines = corpus
    flags = uriscan.risks(lines)
    names = uriscan.risk_names(flags)
    assert len(names) == len(lines)
    want = [line.split(b"\t")[1].decode() for line in run(cli, "audit",
                                                          path=path)]
    assert [",".join(n) for n in names] == want
    assert uriscan.risk_names(int(flags[0])) == names[0]
