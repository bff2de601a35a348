# SPDX-License-Identifier: MIT
"""uriscan.scrapy.RequestFingerprinter against Scrapy's own (Debian's
python3-scrapy, REQUEST_FINGERPRINTER_IMPLEMENTATION "2.7"): the same 20
bytes for every URL of the corpora (the log's request targets and
referers), with methods, bodies, fragments and included headers; the
deprecated "2.6"; made by a crawler's settings, and in Scrapy's duplicate
filter with a JOBDIR."""
import gc
import warnings

import pytest

scrapy = pytest.importorskip("scrapy")

from scrapy import Request  # noqa: E402
from scrapy.dupefilters import RFPDupeFilter  # noqa: E402
from scrapy.exceptions import ScrapyDeprecationWarning  # noqa: E402
from scrapy.utils.misc import create_instance  # noqa: E402
from scrapy.utils.request import (  # noqa: E402
    RequestFingerprinter as ScrapyFingerprinter,
    fingerprint as scrapy_fingerprint,
)
from scrapy.utils.test import get_crawler  # noqa: E402
from w3lib.url import canonicalize_url  # noqa: E402

import uriscan  # noqa: E402
import uriscan.scrapy as us  # noqa: E402
from conftest import corpus_files, read_lines  # noqa: E402

OURS = "uriscan.scrapy.RequestFingerprinter"
BASE = "http://www.example.com/"
METHODS = ("GET", "POST", "HEAD")
# Empty, ASCII, not UTF-8, and str (Request encodes it as UTF-8).
BODIES = (b"", b"a=1&b=2", b"\xff\xfe\x00\x80\"\\", "caf\u00e9 \"\u2603\"")


def scrapy_27():
    """Scrapy's own fingerprinter, "2.7", as a crawler makes it."""
    crawler = get_crawler(settings_dict={
        "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7"})
    return crawler.request_fingerprinter


def references(path):
    """The URL-like texts of a corpus file: every line of a list; the
    request target and the referer of a log line."""
    lines = [line.decode("utf-8", "replace") for line in read_lines(path)]
    if path.suffix != ".log":
        return lines
    log = uriscan.read_log(str(path), format="combined")
    assert len(log) == len(lines)
    texts = list(log["uri"])
    texts += [r for r in log["referer"] if isinstance(r, str)]
    return texts


def request(text, **kwargs):
    """A Request for the text (a relative one below BASE), or None when
    Scrapy makes none of it (no scheme, a bad port, ...): there is then
    nothing to fingerprint."""
    for url in (text, BASE + text.lstrip("/")):
        try:
            return Request(url, **kwargs)
        except ValueError:
            continue
    return None


def test_corpora_are_there():
    names = [p.name for p in corpus_files()]
    if len(names) < 2:
        pytest.skip("no shared corpora beside the project")
    assert "apache_access.log" in names and "kasztp.txt" in names


@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name)
def test_corpus_fingerprints_are_scrapys(path):
    """Every reference of a corpus: the fingerprinters of a crawler
    agree; each request with one of the methods and bodies in turn, and
    every 20th with a fragment added, with keep_fragments off and on."""
    theirs, ours = scrapy_27(), us.RequestFingerprinter()
    texts = references(path)
    made = differ = fallbacks = 0
    mismatches = []
    for i, text in enumerate(texts):
        kwargs = {"method": METHODS[i % 3], "body": BODIES[(i // 3) % 4]}
        if i % 20 == 7:
            text += "#Sec%20tion/a?b=1&a=%7e"
        req = request(text, **kwargs)
        if req is None:
            continue
        made += 1
        if us._w3lib_profile(req.url) is None:
            fallbacks += 1
        want, got = theirs.fingerprint(req), ours.fingerprint(req)
        if got != want:
            mismatches.append((req.url, kwargs, "default"))
        assert len(got) == 20 and isinstance(got, bytes)
        if "#" in req.url or i % 20 == 8:
            for keep in (False, True):
                want = scrapy_fingerprint(req, keep_fragments=keep)
                if us.fingerprint(req, keep_fragments=keep) != want:
                    mismatches.append((req.url, kwargs, keep))
            differ += (scrapy_fingerprint(req, keep_fragments=True) !=
                       scrapy_fingerprint(req))
    assert mismatches[:5] == []
    # Scrapy makes a request of nearly every line (with BASE).
    assert made >= 0.95 * len(texts), (made, len(texts))
    if len(texts) > 1000:  # a real-world list, not the tricky cases
        # Few URLs take w3lib's way (the profile reads them as invalid).
        assert fallbacks <= 0.01 * made, fallbacks
        # keep_fragments was tested where it matters.
        assert differ >= len(texts) // 25


def test_keep_fragments_and_fallbacks():
    urls = [
        "http://a.example/p?b=2&a=1#frag",
        "http://a.example/p#",                       # an empty fragment
        "http://a.example/p#f%20g/h?i",
        "http://a.example/p#!x=1",                   # Request's escape_ajax
        "https://\"www.example.com/a#f",             # '"': w3lib's way
        "\ufeffhttps://www.example.com/",            # a BOM: w3lib's way
        "http://a.example/%zz?q=|#f",                # a bare '%', a '|'
        "HTTP://A.EXAMPLE:80/a/./b/../c;p?;a=1;b=2#Z",
        "file:///etc/hosts#x",
        "data:text/plain;base64,SGVsbG8=#x",
        "http://a.example/caf\u00e9?q=\u2603#\u00e9",
        "http://xn--bcher-kva.example/\u00fcber#",
        "http://b\u00fccher.example/",
        "ftp://u:p@h.example:21/a%2Fb%3fc",
        "http://a.example" + "/x" * 5000 + "?" + "&".join(
            "k%d=%d" % (k % 7, k) for k in range(2000)) + "#end",
    ]
    fallbacks = 0
    for url in urls:
        # canonical_url() is w3lib's for any str, not only a request's URL.
        for keep in (False, True):
            assert us.canonical_url(url, keep) == canonicalize_url(
                url, keep_fragments=keep), (url, keep)
        req = Request(url)
        fallbacks += us._w3lib_profile(req.url) is None
        for keep in (False, True):
            assert us.canonical_url(req.url, keep) == canonicalize_url(
                req.url, keep_fragments=keep), (url, keep)
            assert us.fingerprint(req, keep_fragments=keep) == \
                scrapy_fingerprint(req, keep_fragments=keep), (url, keep)
    # Every request URL here has the profile's form, those RFC 3986 refuses
    # included (a '"', a bare '%'): w3lib is asked only for a fragment it
    # must quote (canonical_url with keep_fragments).
    assert fallbacks == 0


def test_one_url_profile_is_the_batch_profile():
    """The call per URL gives what uriscan.normalize() gives, None where
    that has no form (a lone surrogate)."""
    urls = ["http://a.example/b?d=1&c=2#f", "HTTP://A.example:80/%7e/./x",
            "https://\"www.example.com/", "http://a/%zz", "file:///a b",
            "http://a/\udcff", "", "data:,x", "//a/b;p?q;r"]
    batch = uriscan.normalize(urls, profile="w3lib").tolist()
    assert [us._w3lib_profile(u) for u in urls] == batch
    # (w3lib canonicalizes a '"' in the authority too: so does the profile)
    assert batch[0] == "http://a.example/b?c=2&d=1"
    assert batch[2] == canonicalize_url(urls[2]) == 'https://"www.example.com/'
    assert batch[5] is None  # a lone surrogate


HEADERS = {
    "Accept": "text/html",
    "X-Token": ["one", "two", "two"],           # repeated
    "cookie": b"s=\xff\xfe; t=\x00",            # not UTF-8
    "X-Empty": None,                            # present, no value
    "Accept-Language": "\u00e9",
}
INCLUDE = [
    None, [], ["accept"], ["ACCEPT"], [b"Accept"], ["x-token", "Accept"],
    ["Accept", "accept", "ACCEPT"], ["missing"], ["Missing", "Cookie"],
    [b"COOKIE", b"x-token", b"nope"], ["x-empty"], ["X-Empty", "accept"],
    ("accept-language", "Accept-Language"),
]


@pytest.mark.parametrize("include", INCLUDE, ids=repr)
def test_include_headers(include):
    """Names in any case, as str or bytes, repeated, missing, a header
    with two values, one without any; as a list and as an iterator."""
    for i, url in enumerate(["http://a.example/x?b=1&a=2#f",
                             "https://\"b.example/|", "file:///tmp/a b"]):
        req = Request(url, method=METHODS[i], body=BODIES[i],
                      headers=HEADERS)
        bare = Request(url, method=METHODS[i], body=BODIES[i])
        for keep in (False, True):
            for r in (req, bare):
                for given in (include, None if include is None
                              else iter(include)):
                    want = scrapy_fingerprint(
                        r, include_headers=given, keep_fragments=keep)
                    given = None if include is None else iter(include)
                    got = us.fingerprint(r, include_headers=given,
                                         keep_fragments=keep)
                    assert got == want, (url, include, keep)
        # A header the request has changes its fingerprint.
        has = [n for n in include or [] if n in req.headers]
        assert (us.fingerprint(req, include_headers=include) !=
                us.fingerprint(bare, include_headers=include)) == bool(has)


def test_json_text_is_json_dumps():
    """The hashed text, written by hand, is json.dumps(sort_keys=True):
    methods and URLs that need escapes, bodies and headers in hex."""
    for method in ("GET", "p\u00f6st", 'M"\\\t\u2028\U0001f600'):
        for body in BODIES:
            req = Request("https://\"q.example/\u00e9\\x|%", method=method,
                          body=body, headers=HEADERS)
            for include in (None, ["x-token", "Cookie", "x-empty"]):
                assert us.fingerprint(req, include_headers=include) == \
                    scrapy_fingerprint(req, include_headers=include)


def test_cache_is_per_request_and_options():
    req = Request("http://a.example/p?b=2&a=1#frag")
    first = us.fingerprint(req)
    assert us.fingerprint(req) is first           # cached
    kept = us.fingerprint(req, keep_fragments=True)
    assert kept != first and kept == scrapy_fingerprint(
        req, keep_fragments=True)
    assert us.fingerprint(req, keep_fragments=True) is kept
    with_headers = us.fingerprint(req, include_headers=["a"])
    assert us.fingerprint(req, include_headers=["A"]) is with_headers
    assert us.fingerprint(req, include_headers=["b"]) is not with_headers
    gc.collect()
    plain, options = len(us._plain), len(us._with_options)
    del req
    gc.collect()
    assert (len(us._plain), len(us._with_options)) == (plain - 1,
                                                       options - 1)


def test_from_crawler_and_dupefilter(tmp_path):
    settings = {"REQUEST_FINGERPRINTER_CLASS": OURS,
                "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7"}
    crawler = get_crawler(settings_dict=settings)
    fingerprinter = crawler.request_fingerprinter
    assert type(fingerprinter) is us.RequestFingerprinter
    assert type(us.RequestFingerprinter.from_crawler(crawler)) is \
        us.RequestFingerprinter
    theirs = scrapy_27()
    urls = ["http://a.example/?b=1&a=2", "http://A.example:80/./x#f",
            "https://\"c.example/", "http://a.example/?a=2&b=1"]
    for url in urls:
        req = Request(url, method="POST", body=b"\x80")
        assert fingerprinter.fingerprint(req) == theirs.fingerprint(req)

    # Scrapy's duplicate filter with each fingerprinter, into a JOBDIR:
    # the same answers, the same file; a filter opened again knows them.
    seen_files = []
    for name, fingerprinter_class in (
            ("ours", OURS),
            ("scrapy", "scrapy.utils.request.RequestFingerprinter")):
        jobdir = tmp_path / name
        job_settings = dict(settings, JOBDIR=str(jobdir),
                            REQUEST_FINGERPRINTER_CLASS=fingerprinter_class)
        crawler = get_crawler(settings_dict=job_settings)
        dupefilter = create_instance(RFPDupeFilter, crawler.settings, crawler)
        answers = [dupefilter.request_seen(Request(u)) for u in urls]
        assert answers == [False, False, False, True]
        dupefilter.close("finished")
        seen_files.append((jobdir / "requests.seen").read_bytes())
        again = create_instance(RFPDupeFilter, crawler.settings,
                                get_crawler(settings_dict=job_settings))
        assert again.request_seen(Request(urls[1]))
        assert not again.request_seen(Request("http://new.example/"))
        again.close("finished")
    assert seen_files[0] == seen_files[1]
    assert seen_files[0].count(b"\n") == 3


def test_implementation_setting():
    req = Request("http://a.example/?b=1&a=2#f", method="PUT", body=b"x",
                  headers={"Accept": "a"})
    # Without a crawler: "2.7" (Scrapy's own falls back to "2.6").
    assert us.RequestFingerprinter().fingerprint(req) == \
        scrapy_fingerprint(req)
    with pytest.warns(ScrapyDeprecationWarning, match="'2.6'"):
        crawler = get_crawler(settings_dict={
            "REQUEST_FINGERPRINTER_CLASS": OURS,
            "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.6"})
    assert type(crawler.request_fingerprinter) is us.RequestFingerprinter
    with pytest.warns(ScrapyDeprecationWarning, match="'2.6'"):
        ours = us.RequestFingerprinter(crawler)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ScrapyDeprecationWarning)
        theirs = ScrapyFingerprinter(crawler)
        from scrapy.utils.request import request_fingerprint
        for url in ("http://a.example/?b=1&a=2#f", "https://\"c.example/"):
            r = Request(url, method="POST", body=b"\xff",
                        headers={"Accept": "a", "X": ["1", "2"]})
            assert ours.fingerprint(r) == theirs.fingerprint(r)
            assert ours.fingerprint(r) != us.fingerprint(r)
            for include in (["x", "Accept", "ACCEPT"], ["missing"]):
                for keep in (False, True):
                    assert us._fingerprint_26(
                        r, include_headers=include,
                        keep_fragments=keep) == bytes.fromhex(
                            request_fingerprint(r, include_headers=include,
                                                keep_fragments=keep))
    for bad in ("2.8", None):
        with pytest.raises(ValueError, match="REQUEST_FINGERPRINTER"):
            get_crawler(settings_dict={
                "REQUEST_FINGERPRINTER_CLASS": OURS,
                "REQUEST_FINGERPRINTER_IMPLEMENTATION": bad})
