# SPDX-License-Identifier: MIT
"""Differential tests of the two compatibility targets: the w3lib profile
against Debian's python3-w3lib (run here), and the surt column against the
Internet Archive's surt library (its answers, committed in corpus/surt/
by tools/surt-vectors.py), on generated URLs and on the shared corpora."""
import hashlib

import pytest
from w3lib.url import canonicalize_url

import uriscan
from compat_urls import generated_urls
from conftest import ROOT, SHARED, read_lines, run

SURT = ROOT / "corpus" / "surt"
CORPORA = ["kasztp.txt", "userbait.txt"]


def valid_http(cli, lines):
    """The lines the command reads as valid http or https references."""
    rows = run(cli, "parse", "--format=tsv", "--columns=valid,scheme",
               data=b"\n".join(lines) + b"\n")[1:]
    assert len(rows) == len(lines)
    return [line.decode() for line, row in zip(lines, rows)
            if row.split(b"\t")[0] == b"true"
            and row.split(b"\t")[1].lower() in (b"http", b"https")]


def w3lib_differences(cli, urls):
    got = run(cli, "normalize", "--profile=w3lib",
              data=("\n".join(urls) + "\n").encode())
    assert len(got) == len(urls)
    differ = []
    for url, ours in zip(urls, got):
        try:
            theirs = canonicalize_url(url)
        except ValueError:  # w3lib raises: nothing to match
            continue
        if ours.decode() != theirs:
            differ.append((url, theirs, ours.decode()))
    return differ


def test_w3lib_generated(cli):
    urls = valid_http(cli, [u.encode() for u in generated_urls()])
    assert len(urls) == 4000
    assert w3lib_differences(cli, urls)[:5] == []


@pytest.mark.parametrize("name", CORPORA)
def test_w3lib_shared_corpora(cli, name):
    if not (SHARED / name).is_file():
        pytest.skip("no shared corpus " + name)
    urls = valid_http(cli, read_lines(SHARED / name))
    assert w3lib_differences(cli, urls)[:5] == []


@pytest.mark.parametrize("name", CORPORA)
def test_w3lib_every_line_w3lib_canonicalizes(name):
    """Invalid lines included (PHP-style "?p[]=1", a leading quote):
    wherever w3lib gives a form, the profile gives the same, in the Python
    API as in the command."""
    if not (SHARED / name).is_file():
        pytest.skip("no shared corpus " + name)
    lines = []
    for raw in read_lines(SHARED / name):
        try:
            lines.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            pass
    ours = uriscan.normalize(lines, profile="w3lib").tolist()
    valid = uriscan.columns(lines, ["valid"])["valid"].tolist()
    differ, invalid = [], 0
    for line, form, ok in zip(lines, ours, valid):
        try:
            theirs = canonicalize_url(line)
        except ValueError:
            continue
        invalid += not ok
        if form != theirs:
            differ.append((line, theirs, form))
    assert differ[:5] == []
    assert invalid > 0  # the corpora have such lines


def test_w3lib_python_api_is_the_command():
    urls = generated_urls(count=500)
    assert uriscan.normalize(urls, profile="w3lib").tolist() == [
        canonicalize_url(u) for u in urls]


def surt_column(cli, urls):
    """The surt column of each URL, TSV escapes undone; "!" for \\N."""
    rows = run(cli, "parse", "--format=tsv", "--columns=surt",
               data=("\n".join(urls) + "\n").encode())[1:]
    assert len(rows) == len(urls)
    return ["!" if r == b"\\N" else r.decode().replace("\\\\", "\\")
            for r in rows]


def test_surt_vectors(cli):
    pairs = [line.split("\t") for line in
             (SURT / "vectors.tsv").read_text(encoding="utf-8").splitlines()]
    assert len(pairs) == 4000
    got = surt_column(cli, [url for url, _ in pairs])
    differ = [(url, want, ours) for (url, want), ours in zip(pairs, got)
              if want != ours]
    assert differ[:5] == []


@pytest.mark.parametrize("name", CORPORA)
def test_surt_shared_corpora(cli, name):
    if not (SHARED / name).is_file():
        pytest.skip("no shared corpus " + name)
    blocks = [line.split("\t") for line in
              (SURT / "shared-corpora.tsv").read_text().splitlines()[1:]
              if line.startswith(name + "\t")]
    urls = valid_http(cli, read_lines(SHARED / name))
    keys = surt_column(cli, urls)
    assert len(urls) == sum(int(b[2]) for b in blocks)
    for _, block, count, digest in blocks:
        begin = int(block) * 1000
        text = "\n".join(keys[begin:begin + int(count)])
        assert hashlib.sha256(text.encode()).hexdigest() == digest, (
            f"{name}: the keys of valid http(s) URLs {begin} to "
            f"{begin + int(count) - 1} differ from the surt library's")
