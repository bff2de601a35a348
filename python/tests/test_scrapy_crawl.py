# SPDX-License-Identifier: MIT
"""uriscan.scrapy.DupeFilter (Scrapy's DUPEFILTER_CLASS on a SeenState).

Crawls: a generated site on 127.0.0.1 (pages linking to each other, with
fragments, query-order and percent-encoding variants, relative and
absolute links, redirects, missing pages and POST forms) crawled by a
Scrapy spider in a child process, with RFPDupeFilter and Scrapy's
fingerprinter, with DupeFilter and Scrapy's fingerprinter, and with
DupeFilter and uriscan.scrapy.RequestFingerprinter: each in one go, and
stopped by CLOSESPIDER_PAGECOUNT then resumed from its JOBDIR. Every crawl
fetches the same requests, each once.

And the filter by itself: keys, names of fingerprinters, a JOBDIR kept
across crawls, a resumed crawl with another fingerprinter refused, the
temporary state without JOBDIR, commits, logs and the statistic."""
import json
import logging
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

import pytest

scrapy = pytest.importorskip("scrapy")

from scrapy import Request, Spider  # noqa: E402
from scrapy.dupefilters import RFPDupeFilter  # noqa: E402
from scrapy.utils.test import get_crawler  # noqa: E402
from w3lib.url import canonicalize_url  # noqa: E402

import uriscan.scrapy as us  # noqa: E402
from uriscan import SeenState, StateError  # noqa: E402
from uriscan._dupefilter import DupeFilter, fingerprinter_name  # noqa: E402

FILTER = "uriscan.scrapy.DupeFilter"
RFP = "scrapy.dupefilters.RFPDupeFilter"
SCRAPY_FP = "scrapy.utils.request.RequestFingerprinter"
OUR_FP = "uriscan.scrapy.RequestFingerprinter"

# ---- The site ----

PAGES = 100
STRIDES = (1, 7, 13, 29, 31, 57, 71)  # 7 links in, 7 out
FORMS = 11


def links(page):
    """The hrefs of a page: every target in a few spellings."""
    out = []
    for k, stride in enumerate(STRIDES):
        t = (page + stride) % PAGES
        kind = (page + k) % 8
        out.append([f"/page/{t}", f"/page/{t}#s{page}", "{base}/page/%d" % t,
                    f"../page/{t}", f"/q/{t}?a={t}&b=z", f"/q/{t}?b=z&a={t}",
                    f"/~p/{t}", f"/%7Ep/{t}"][kind])
    out.append(out[0])                                 # a duplicate
    if page % 5 == 0:
        out.append(f"/go/{(page * 3) % PAGES}")        # a redirect
    if page % 7 == 0:
        out.append(f"/missing/{page % 20}")            # a 404
    return out


def html(page, base):
    body = "".join('<a href="%s">x</a>' % href.replace("{base}", base)
                   for href in links(page))
    body += ('<form method="post" action="/form/%d"><input name="v" '
             'value="%d"></form>' % (page % FORMS, page % 3))
    return f"<html><body>{body}</body></html>".encode()


class Site:
    """The site, served from a thread; `log` holds (method, target, body)
    of every request it answered."""

    def __init__(self):
        site = self
        self.log = []
        self.lock = threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"   # persistent connections
            disable_nagle_algorithm = True  # no delayed ACK on each body

            def log_message(self, *args):
                pass

            def answer(self, body=b""):
                with site.lock:
                    site.log.append((self.command, self.path, body))
                path = unquote(urlsplit(self.path).path)
                parts = path.strip("/").split("/")
                number = int(parts[1]) if len(parts) == 2 and \
                    parts[1].isdigit() else -1
                if parts[0] == "go" and number >= 0:
                    self.send_response(302)
                    self.send_header("Location", f"/page/{number}")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if parts[0] in ("page", "q", "~p", "form") and number >= 0:
                    page = number if parts[0] != "form" else \
                        (number * 17 + len(body)) % PAGES
                    data = html(page, site.base)
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html")
                else:
                    data = b"not here"
                    self.send_response(404)
                    self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                self.answer()

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                self.answer(self.rfile.read(length))

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = "http://127.0.0.1:%d" % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       daemon=True)
        self.thread.start()

    def take_log(self):
        with self.lock:
            log, self.log = self.log, []
        return log

    def canonical(self, entry):
        method, target, body = entry
        return method, canonicalize_url(self.base + target), body


@pytest.fixture(scope="module")
def site():
    s = Site()
    yield s
    s.server.shutdown()
    s.server.server_close()


# ---- Crawls in a child process ----

CRAWL = r'''
import json, sys
import scrapy
from scrapy.crawler import CrawlerProcess

config = json.load(open(sys.argv[1]))


class Site(scrapy.Spider):
    name = "site"

    def start_requests(self):
        # Filtered like any other (not dont_filter): a resumed crawl's
        # start request is a duplicate.
        yield scrapy.Request(config["start"], callback=self.parse)

    def parse(self, response):
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href, callback=self.parse)
        for form in response.css("form"):
            data = {i.attrib["name"]: i.attrib["value"]
                    for i in form.css("input")}
            yield scrapy.FormRequest(response.urljoin(form.attrib["action"]),
                                     formdata=data, callback=self.parse)


process = CrawlerProcess(config["settings"])
crawler = process.create_crawler(Site)
failures = []
process.crawl(crawler).addErrback(
    lambda failure: failures.append(failure.getTraceback()))
process.start()
with open(config["out"], "w") as out:
    json.dump({"stats": crawler.stats.get_stats(), "failures": failures},
              out, default=str)
'''


def crawl(site, tmp_path, name, dupefilter, fingerprinter, jobdir=None,
          pages=None, **settings):
    """Runs one crawl of the site; returns (fetched, stats, failures,
    stderr): fetched is the site's log of it."""
    script = tmp_path / "crawl.py"
    if not script.exists():
        script.write_text(CRAWL)
    config = {
        "start": site.base + "/page/0",
        "out": str(tmp_path / f"{name}.json"),
        "settings": {
            "ROBOTSTXT_OBEY": False, "RETRY_ENABLED": False,
            "CONCURRENT_REQUESTS": 16, "CONCURRENT_REQUESTS_PER_DOMAIN": 16,
            "DOWNLOAD_DELAY": 0, "LOG_LEVEL": "WARNING",
            "TELNETCONSOLE_ENABLED": False, "COOKIES_ENABLED": False,
            "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7",
            "REQUEST_FINGERPRINTER_CLASS": fingerprinter,
            "DUPEFILTER_CLASS": dupefilter,
            **settings,
        },
    }
    if jobdir:
        config["settings"]["JOBDIR"] = str(jobdir)
    if pages:
        config["settings"]["CLOSESPIDER_PAGECOUNT"] = pages
    (tmp_path / f"{name}.config.json").write_text(json.dumps(config))
    site.take_log()
    done = subprocess.run([sys.executable, str(tmp_path / "crawl.py"),
                           str(tmp_path / f"{name}.config.json")],
                          capture_output=True, text=True, timeout=120)
    fetched = site.take_log()
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp_path / f"{name}.json").read_text())
    # No request failed (nothing is retried).
    assert "log_count/ERROR" not in result["stats"] or result["failures"], \
        done.stderr
    return fetched, result["stats"], result["failures"], done.stderr


CRAWLS = [
    ("rfp", RFP, SCRAPY_FP),
    ("ours", FILTER, SCRAPY_FP),
    ("ours-fast", FILTER, OUR_FP),
]


@pytest.fixture(scope="module")
def crawls(site, tmp_path_factory):
    """Every crawl, in one go and stopped then resumed: {(name, "full" or
    "resumed"): (fetched, [stats of each run])}."""
    if not hasattr(us, "RequestFingerprinter"):
        pytest.skip("no uriscan.scrapy.RequestFingerprinter yet")
    results = {}
    for name, dupefilter, fingerprinter in CRAWLS:
        tmp = tmp_path_factory.mktemp(name)
        extra = {}
        if dupefilter == FILTER:
            # Several commits per crawl; a small memory budget.
            extra = {"URISCAN_DUPEFILTER_COMMIT_EVERY": 37,
                     "URISCAN_DUPEFILTER_MEMORY": "1M"}
        fetched, stats, failures, err = crawl(
            site, tmp, "full", dupefilter, fingerprinter, **extra)
        assert not failures, failures
        assert stats["finish_reason"] == "finished", err
        results[name, "full"] = (fetched, [stats])
        jobdir = tmp / "job"
        first, stats1, failures, err = crawl(
            site, tmp, "stopped", dupefilter, fingerprinter, jobdir=jobdir,
            pages=60, **extra)
        assert not failures, failures
        assert stats1["finish_reason"] == "closespider_pagecount", err
        second, stats2, failures, err = crawl(
            site, tmp, "resumed", dupefilter, fingerprinter, jobdir=jobdir,
            **extra)
        assert not failures, failures
        assert stats2["finish_reason"] == "finished", err
        assert first and second
        if dupefilter == FILTER:
            assert (jobdir / "uriscan-seen").is_dir()
            assert not (jobdir / "requests.seen").exists()
        results[name, "resumed"] = (first + second, [stats1, stats2])
    return results


def test_every_filter_fetches_the_same_requests_once(site, crawls):
    want = None
    for (name, how), (fetched, _) in crawls.items():
        canonical = [site.canonical(entry) for entry in fetched]
        assert len(canonical) == len(set(canonical)), (name, how)
        if want is None:
            want = set(canonical)
            # The whole site: every page in some spelling, some forms,
            # redirects and missing pages.
            kinds = {urlsplit(url).path.split("/")[1]
                     for _, url, _ in canonical}
            assert kinds == {"page", "q", "~p", "go", "missing", "form"}
            assert sum(1 for m, _, _ in canonical if m == "POST") >= FORMS
            assert len(want) > PAGES * 2
        assert set(canonical) == want, (name, how)


def test_no_request_is_fetched_twice_across_a_resume(site, crawls):
    for name, _, _ in CRAWLS:
        fetched, (stopped, resumed) = crawls[name, "resumed"]
        targets = [(m, t, b) for m, t, b in fetched]
        assert len(targets) == len(set(targets)), name
        # The first crawl stopped early; the second did the rest.
        full = crawls[name, "full"][1][0]
        assert 60 <= stopped["response_received_count"] < len(fetched) / 2
        assert stopped["response_received_count"] + \
            resumed["response_received_count"] == \
            full["response_received_count"]
        assert stopped["scheduler/dequeued"] + resumed["scheduler/dequeued"] \
            == full["scheduler/dequeued"]


def test_the_filtered_statistic_is_reported(crawls):
    full = {name: crawls[name, "full"][1][0]["dupefilter/filtered"]
            for name, _, _ in CRAWLS}
    # Every page is parsed once, so every crawl yields the same requests
    # and filters as many.
    assert len(set(full.values())) == 1 and full["rfp"] > 100, full
    for name, _, _ in CRAWLS:
        stopped, resumed = crawls[name, "resumed"][1]
        assert stopped["dupefilter/filtered"] > 0
        # The same again, and the resumed crawl's start request.
        assert stopped["dupefilter/filtered"] + \
            resumed["dupefilter/filtered"] == full[name] + 1, name


def test_resuming_with_another_fingerprinter_is_refused(site, tmp_path):
    jobdir = tmp_path / "job"
    first, stats, failures, _ = crawl(site, tmp_path, "stopped", FILTER,
                                      SCRAPY_FP, jobdir=jobdir, pages=20)
    assert not failures
    before = sorted(os.listdir(jobdir))
    (tmp_path / "myfp.py").write_text(
        "from scrapy.utils.request import fingerprint\n"
        "class Mine:\n"
        "    def fingerprint(self, request):\n"
        "        return fingerprint(request, keep_fragments=True)\n")
    env_path = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(tmp_path) + (
        os.pathsep + env_path if env_path else "")
    try:
        fetched, _, failures, err = crawl(site, tmp_path, "resumed", FILTER,
                                          "myfp.Mine", jobdir=jobdir)
    finally:
        if env_path is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = env_path
    assert fetched == []
    text = "\n".join(failures) + err
    assert "StateError" in text
    assert "keys:scrapy-2.7" in text and "keys:scrapy-myfp.Mine" in text
    # The filter failed as it was made, before the JOBDIR was touched: the
    # crawl resumes with its own fingerprinter, as if nothing happened.
    assert sorted(os.listdir(jobdir)) == before
    fetched, stats, failures, err = crawl(site, tmp_path, "again", FILTER,
                                          SCRAPY_FP, jobdir=jobdir)
    assert not failures and stats["finish_reason"] == "finished", err
    assert "log_count/ERROR" not in stats, err
    both = first + fetched
    assert fetched and len(both) == len(set(both))


# ---- The filter by itself ----

def crawler_of(**settings):
    settings.setdefault("REQUEST_FINGERPRINTER_IMPLEMENTATION", "2.7")
    return get_crawler(Spider, settings_dict=settings)


def requests(n, salt=""):
    return [Request(f"http://example.com/{salt}{i}?b=2&a={i}")
            for i in range(n)]


def test_it_is_exported_from_uriscan_scrapy():
    assert us.DupeFilter is DupeFilter
    assert "DupeFilter" in getattr(us, "__all__", ["DupeFilter"])


def test_fingerprints_and_keys_are_the_crawlers():
    for fingerprinter in (SCRAPY_FP, OUR_FP):
        crawler = crawler_of(REQUEST_FINGERPRINTER_CLASS=fingerprinter)
        f = DupeFilter.from_crawler(crawler)
        assert f.fingerprinter is crawler.request_fingerprinter
        assert f.keys_of == "scrapy-2.7"
        try:
            for r in requests(50):
                fp = crawler.request_fingerprinter.fingerprint(r)
                assert f.request_fingerprint(r) == fp.hex()
                assert f.request_seen(r) is False
                assert f.state.contains_key(
                    int.from_bytes(fp[:8], "little")) is True
            for r in requests(50):
                again = Request(r.url.replace("?b=2&a=", "?a=") + "&b=2#x")
                assert f.request_seen(again) is True
            assert f.request_seen(
                Request("http://example.com/0", method="POST")) is False
            assert f.request_seen(
                Request("http://example.com/0", method="POST")) is True
            assert f.state.stats()["keys"] == 0   # no JOBDIR: no commits
        finally:
            f.close("finished")


def test_names_of_fingerprinters():
    class Mine:
        def fingerprint(self, request):
            return b"\0" * 20

    for cls in (SCRAPY_FP, OUR_FP):
        for implementation, name in (("2.7", "2.7"), ("2.6", "2.6")):
            with pytest.warns(Warning) if implementation == "2.6" else \
                    _nothing():
                crawler = crawler_of(
                    REQUEST_FINGERPRINTER_CLASS=cls,
                    REQUEST_FINGERPRINTER_IMPLEMENTATION=implementation)
            assert fingerprinter_name(crawler.request_fingerprinter) == name
    assert fingerprinter_name(Mine()) == __name__ + "." + \
        "test_names_of_fingerprinters.<locals>.Mine"
    # A key of 0 is taken as 1.
    f = DupeFilter(fingerprinter=Mine())
    try:
        assert f.request_seen(Request("http://a.example/")) is False
        assert f.request_seen(Request("http://b.example/")) is True
        assert f.state.contains_key(1)
    finally:
        f.close("finished")


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *args):
        return False


def test_a_jobdir_is_kept_across_crawls(tmp_path):
    settings = {"JOBDIR": str(tmp_path / "job"),
                "URISCAN_DUPEFILTER_COMMIT_EVERY": 10}
    f = DupeFilter.from_crawler(crawler_of(**settings))
    f.open()                                     # made open: nothing to do
    assert f.path == str(tmp_path / "job" / "uriscan-seen")
    assert [f.request_seen(r) for r in requests(25)] == [False] * 25
    stats = f.state.stats()
    assert (stats["commits"], stats["keys"], stats["pending"]) == (2, 20, 5)
    # Another crawl on the same JOBDIR meanwhile is refused.
    with pytest.raises(StateError, match="in use"):
        DupeFilter.from_crawler(crawler_of(**settings))
    f.close("closespider_pagecount")                 # commits the rest
    with SeenState(tmp_path / "job" / "uriscan-seen", read_only=True) as s:
        assert s.identity == "keys:scrapy-2.7"
        assert s.stats()["keys"] == 25
    f = DupeFilter.from_crawler(crawler_of(**settings))
    try:
        assert [f.request_seen(r) for r in requests(30)] == \
            [True] * 25 + [False] * 5
        f.close("shutdown")
        assert f.state is None
        # Opened again by open(), or else by the next request.
        assert f.request_seen(requests(31)[30]) is False
        assert f.request_seen(requests(1)[0]) is True
    finally:
        f.close("shutdown")
    f = DupeFilter.from_crawler(crawler_of(
        REQUEST_FINGERPRINTER_CLASS=OUR_FP, **settings))
    assert all(f.request_seen(r) for r in requests(30))
    f.close("finished")
    f.close("finished")                              # twice is harmless


def test_another_fingerprinter_on_a_jobdir_is_an_error_naming_both(
        tmp_path):
    class Other:
        def fingerprint(self, request):
            return b"\1" * 20

    job = str(tmp_path / "job")
    f = DupeFilter(job, fingerprinter=crawler_of().request_fingerprinter)
    f.request_seen(Request("http://a.example/"))
    f.close("finished")
    with pytest.raises(StateError) as caught:
        DupeFilter(job, fingerprinter=Other())
    message = str(caught.value)
    assert "keys:scrapy-2.7" in message and "Other" in message
    assert "REQUEST_FINGERPRINTER_CLASS" in message
    with SeenState(f.path, read_only=True) as s:
        assert s.stats()["keys"] == 1
    # The state's own message is the cause.
    assert "keys:scrapy-2.7" in str(caught.value.__cause__)


def test_without_jobdir_the_state_is_temporary():
    f = DupeFilter.from_crawler(crawler_of())
    where = f.path
    assert os.path.isdir(os.path.dirname(where))
    f.request_seen(Request("http://a.example/"))
    f.close("finished")
    assert not os.path.exists(os.path.dirname(where))


def test_settings():
    f = DupeFilter.from_crawler(crawler_of(URISCAN_DUPEFILTER_MEMORY="2M",
                                           DUPEFILTER_DEBUG=True))
    assert (f.memory, f.debug, f.commit_every) == (2 << 20, True, 10000)
    f.close("finished")
    f = DupeFilter.from_crawler(crawler_of(URISCAN_DUPEFILTER_MEMORY=12345,
                                           URISCAN_DUPEFILTER_COMMIT_EVERY=0))
    assert (f.memory, f.commit_every) == (12345, 0)
    f.close("finished")
    with pytest.raises(ValueError, match="URISCAN_DUPEFILTER_MEMORY"):
        DupeFilter.from_crawler(crawler_of(URISCAN_DUPEFILTER_MEMORY="lots"))
    with pytest.raises(ValueError, match="COMMIT_EVERY"):
        DupeFilter.from_crawler(crawler_of(
            URISCAN_DUPEFILTER_COMMIT_EVERY=-1))
    # from_settings, as RFPDupeFilter's (Scrapy's fingerprinter, made
    # without a crawler).
    with pytest.warns(Warning):
        f = DupeFilter.from_settings(crawler_of().settings)
    assert f.keys_of == "scrapy-2.6"
    f.close("finished")


def test_commit_every_zero_commits_on_close_only(tmp_path):
    f = DupeFilter.from_crawler(crawler_of(
        JOBDIR=str(tmp_path), URISCAN_DUPEFILTER_COMMIT_EVERY=0))
    for r in requests(2500):
        f.request_seen(r)
    assert f.state.stats()["commits"] == 0
    f.close("finished")
    with SeenState(f.path, read_only=True) as s:
        assert s.stats()["keys"] == 2500


def test_log_and_statistic(caplog):
    crawler = crawler_of()
    spider = crawler._create_spider("s")
    for debug in (False, True):
        f = DupeFilter.from_crawler(crawler_of(DUPEFILTER_DEBUG=debug))
        r = Request("http://a.example/", headers={"Referer": "http://r/"})
        with caplog.at_level(logging.DEBUG, logger="uriscan.scrapy"):
            caplog.clear()
            f.log(r, spider)
            f.log(r, spider)
        messages = [rec.getMessage() for rec in caplog.records
                    if rec.name == "uriscan.scrapy"]
        if debug:
            assert messages == [
                "Filtered duplicate request: <GET http://a.example/> "
                "(referer: http://r/)"] * 2
        else:
            assert messages == [
                "Filtered duplicate request: <GET http://a.example/> - no "
                "more duplicates will be shown (see DUPEFILTER_DEBUG to "
                "show all duplicates)"]
        f.close("finished")
    assert crawler.stats.get_value("dupefilter/filtered", spider=spider) == 4


def test_a_jobdir_rfpdupefilter_began_is_taken_over(tmp_path):
    crawler = crawler_of(JOBDIR=str(tmp_path))
    rfp = RFPDupeFilter.from_crawler(crawler)
    assert not any(rfp.request_seen(r) for r in requests(40))
    rfp.close("shutdown")
    f = DupeFilter.from_crawler(crawler)
    assert [f.request_seen(r) for r in requests(45)] == \
        [True] * 40 + [False] * 5
    f.close("finished")


def test_a_subclass_request_fingerprint_makes_the_keys(tmp_path):
    class ByHost(DupeFilter):
        def request_fingerprint(self, request):
            return urlsplit(request.url).hostname

    f = ByHost.from_crawler(crawler_of(JOBDIR=str(tmp_path)))
    assert f.keys_of.endswith("ByHost")
    assert [f.request_seen(Request(u)) for u in (
        "http://a.example/1", "http://a.example/2", "http://b.example/")] \
        == [False, True, False]
    f.close("finished")
