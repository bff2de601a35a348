# SPDX-License-Identifier: MIT
"""normalize, resolve, fingerprint, first_occurrence and risks equal the
command's normalize, resolve, dedup --keys, dedup and audit."""
import re

import numpy as np
import pytest
import uriscan
from conftest import run

BASES = ("http://a/b/c/d;p?q", "https://Example.COM:443/x/y/../z?k=v#f",
         "file:///etc/")


_PG_ESCAPES = {b"\\\\": b"\\", b"\\t": b"\t", b"\\n": b"\n", b"\\r": b"\r"}


def pg_unescape(field: bytes) -> bytes:
    """A field of PostgreSQL's text format (as `dedup --keys` echoes a line)
    back to its bytes."""
    return re.sub(rb"\\[\\tnr]", lambda m: _PG_ESCAPES[m.group(0)], field)


def text(line: bytes) -> str:
    return line.decode("utf-8", "surrogateescape")


@pytest.mark.parametrize("profile", uriscan.PROFILES)
def test_fingerprint_equals_dedup_keys(cli, corpus, profile):
    path, lines = corpus
    out = run(cli, "dedup", "--keys", "--profile=" + profile,
              "--memory=64M", data=b"".join(line + b"\n" for line in lines))
    # The command prints the key of each row it keeps: the first of each
    # class, and every invalid row (key 0).
    keys = uriscan.fingerprint(lines, profile=profile)
    assert keys.dtype == np.uint64 and keys.shape == (len(lines),)
    first = uriscan.first_occurrence(lines, profile=profile)
    assert first.dtype == np.bool_
    want_keys = [int(line.split(b"\t", 1)[0], 16) for line in out]
    want_lines = [pg_unescape(line.split(b"\t", 1)[1]) for line in out]
    assert [lines[i] for i in np.flatnonzero(first)] == want_lines
    assert keys[first].tolist() == want_keys
    valid = uriscan.scan(lines).valid
    if profile == "w3lib":  # it keys the invalid rows w3lib canonicalizes
        assert (keys[valid] != 0).all()
    else:
        assert ((keys == 0) == ~valid).all()


def test_first_occurrence_equals_dedup_on_repeats(cli, corpus):
    path, lines = corpus
    # Each line three times, interleaved, plus upper-cased schemes: many
    # classes with several members.
    rows = lines + [l.upper() for l in lines[::3]] + lines[::-2]
    out = run(cli, "dedup", data=b"".join(r + b"\n" for r in rows))
    first = uriscan.first_occurrence(rows)
    assert [rows[i] for i in np.flatnonzero(first)] == out


@pytest.mark.parametrize("profile", uriscan.PROFILES)
def test_normalize_equals_the_command(cli, corpus, profile):
    path, lines = corpus
    out = run(cli, "normalize", "--profile=" + profile, path=path)
    got = uriscan.normalize(lines, profile=profile).tolist()
    valid = uriscan.scan(lines).valid
    assert len(out) == len(got) == len(lines)
    for i, (g, o) in enumerate(zip(got, out)):
        # An invalid row has none (the command echoes it), but under w3lib
        # where w3lib canonicalizes it.
        if not valid[i] and (profile != "w3lib" or g is None):
            assert g is None
            continue
        if profile == "crawler":  # NORMAL<TAB>ORIGINAL
            o = o.split(b"\t", 1)[0]
        assert g == text(o), i


@pytest.mark.parametrize("base", BASES)
def test_resolve_equals_the_command(cli, corpus, base):
    path, lines = corpus
    out = run(cli, "resolve", "--base=" + base, path=path)
    got = uriscan.resolve(lines, base).tolist()
    valid = uriscan.scan(lines).valid
    assert len(out) == len(got)
    for i, (g, o) in enumerate(zip(got, out)):
        assert (g is None) == (not valid[i])
        if g is not None:
            assert g == text(o), i


def test_resolve_nonstrict(cli):
    lines = [b"http:g", b"g", b"https:g"]
    data = b"".join(line + b"\n" for line in lines)
    base = "http://a/b/c/d;p?q"
    want = [text(o) for o in run(cli, "resolve", "--base=" + base,
                                 "--nonstrict", data=data)]
    assert uriscan.resolve(lines, base, nonstrict=True).tolist() == want
    assert uriscan.resolve(lines, base).tolist()[0] == "http:g"


def test_risks_equal_audit(cli, corpus):
    path, lines = corpus
    out = run(cli, "audit", path=path)
    flags = uriscan.risks(lines)
    assert flags.dtype == np.uint32
    for f, o in zip(flags, out):
        names = o.split(b"\t", 1)[1].decode()
        assert ",".join(uriscan.risk_names(f)) == names


def test_tracking_params(cli):
    lines = [b"http://a/?utm_x=1&b=2", b"http://a/?b=2&ref=3",
             b"http://a/?b=2"]
    data = b"".join(line + b"\n" for line in lines)
    for params in (None, ["ref", "utm_*"], ["+ref"], ["+ref", "+b"]):
        # The command's list: one '+' in front adds every name after it.
        listed = ",".join(p.lstrip("+") for p in params or [])
        if params and params[0].startswith("+"):
            listed = "+" + listed
        args = [] if params is None else ["--tracking-params=" + listed]
        want = run(cli, "dedup", "--keys", "--profile=crawler", *args,
                   data=data)
        keys = uriscan.fingerprint(lines, "crawler", tracking_params=params)
        first = uriscan.first_occurrence(lines, "crawler", params)
        assert keys[first].tolist() == [int(w.split(b"\t")[0], 16)
                                        for w in want]
        norm = uriscan.normalize(lines, "crawler", params).tolist()
        want_norm = run(cli, "normalize", "--profile=crawler", *args,
                        data=data)
        assert norm == [text(w.split(b"\t")[0]) for w in want_norm]


def test_tracking_params_add_with_plus():
    # ["+foo"] was taken as a parameter named "+foo", the default list gone.
    assert "utm_*" in uriscan.DEFAULT_TRACKING_PARAMS
    url = ["http://a/?utm_source=1&foo=2&k=3"]
    assert uriscan.normalize(url, "crawler", ["+foo"]).tolist() == ["http://a/?k=3"]
    assert uriscan.normalize(url, "crawler", ["foo"]).tolist() == \
        ["http://a/?k=3&utm_source=1"]
    assert uriscan.normalize(url, "crawler",
                             list(uriscan.DEFAULT_TRACKING_PARAMS)).tolist() == \
        uriscan.normalize(url, "crawler").tolist()
    with pytest.raises(ValueError, match="every name starts with"):
        uriscan.normalize(url, "crawler", ["+foo", "bar"]).tolist()
    with pytest.raises(ValueError, match="control byte"):
        uriscan.normalize(url, "crawler", ["a\nb"]).tolist()


def test_profiles_give_unrelated_keys():
    keys = [uriscan.fingerprint(["http://a/"], p)[0]
            for p in uriscan.PROFILES]
    assert len(set(keys)) == len(uriscan.PROFILES) == 4


def test_fold_www_as_the_command(cli):
    lines = [b"http://www.a.example/x", b"http://a.example/x",
             b"http://WWW.b.example/", b"http://b.example/"]
    data = b"".join(line + b"\n" for line in lines)
    want = run(cli, "dedup", "--keys", "--profile=crawler", "--fold-www",
               data=data)
    keys = uriscan.fingerprint(lines, "crawler", fold_www=True)
    first = uriscan.first_occurrence(lines, "crawler", fold_www=True)
    assert first.tolist() == [True, False, True, False]
    assert keys[first].tolist() == [int(w.split(b"\t")[0], 16) for w in want]
    want_norm = run(cli, "normalize", "--profile=crawler", "--fold-www",
                    data=data)
    assert uriscan.normalize(lines, "crawler", fold_www=True).tolist() == \
        [text(w.split(b"\t")[0]) for w in want_norm]
    with pytest.raises(ValueError, match="fold_www: an option of the crawler"):
        uriscan.normalize(lines, "scheme", fold_www=True).tolist()
