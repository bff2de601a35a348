# SPDX-License-Identifier: MIT
"""``uriscan.scrapy.DupeFilter``: Scrapy's duplicate filter on a
``uriscan.SeenState`` (see the class's help)."""
from __future__ import annotations

import logging
import os
import re
import tempfile
from hashlib import sha1
from typing import Any, Optional

from scrapy.dupefilters import BaseDupeFilter
from scrapy.utils.job import job_dir
from scrapy.utils.request import RequestFingerprinter as _ScrapyFingerprinter
from scrapy.utils.request import referer_str

from . import SeenState, StateError

#: The directory under JOBDIR that holds the filter's state.
STATE_NAME = "uriscan-seen"
#: New fingerprints between two commits, by default.
COMMIT_EVERY = 10000

_from_bytes = int.from_bytes


def _fingerprint_key(fingerprint: bytes) -> int:
    """A fingerprint's key in the state: its first 8 bytes, little-endian
    (0, the state's invalid key, is taken as 1)."""
    return _from_bytes(fingerprint[:8], "little") or 1


def _text_key(text: str) -> int:
    """The key of a fingerprint given as text, as ``request_fingerprint``
    returns it: that of its bytes when it is hexadecimal (so the key of
    ``fingerprint(request).hex()`` is that of ``fingerprint(request)``),
    else that of the SHA-1 of its UTF-8 bytes."""
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        raw = b""
    if not raw:
        raw = sha1(text.encode("utf-8", "surrogatepass")).digest()
    return _fingerprint_key(raw)


def fingerprinter_name(fingerprinter: Any) -> str:
    """The short name of what a fingerprinter computes, kept in the state
    (as ``keys:scrapy-NAME``): "2.7" for Scrapy's default fingerprinter
    with REQUEST_FINGERPRINTER_IMPLEMENTATION "2.7" and for
    ``uriscan.scrapy.RequestFingerprinter`` (the same fingerprints), "2.6"
    for either with the deprecated "2.6", and otherwise the class's
    qualified name (``module.Class``)."""
    from scrapy.utils import request as scrapy_request

    from . import scrapy as ours
    kind = type(fingerprinter)
    if kind is _ScrapyFingerprinter or kind is ours.RequestFingerprinter:
        made_by = getattr(fingerprinter, "_fingerprint", None)
        if made_by is not None:
            if made_by is scrapy_request.fingerprint or \
                    made_by is getattr(ours, "fingerprint", None):
                return "2.7"
            if made_by is getattr(scrapy_request,
                                  "_request_fingerprint_as_bytes", None) or \
                    made_by is getattr(ours, "_fingerprint_26", None):
                return "2.6"
    return kind.__module__ + "." + kind.__qualname__


def _describe(name: str) -> str:
    """What a fingerprinter's name stands for, in a message."""
    if name in ("2.6", "2.7"):
        return "Scrapy's \"%s\" request fingerprints" % name
    return "the request fingerprints of " + name


def _size(value: Any) -> Optional[int]:
    """A memory size setting: bytes as an int, or text such as "512M" or
    "2G" (K, M, G: powers of 1024); None or "" for the default."""
    if value is None or value == "":
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        size = int(value)
    else:
        match = re.fullmatch(r"\s*(\d+)\s*([KMGkmg]?)[iI]?[bB]?\s*",
                             str(value))
        if not match:
            raise ValueError("URISCAN_DUPEFILTER_MEMORY: %r is not a size "
                             "(bytes, or a number with K, M or G)" % (value,))
        size = int(match.group(1)) << (
            10 * " KMG".index(match.group(2).upper() or " "))
    if size <= 0:
        raise ValueError("URISCAN_DUPEFILTER_MEMORY: must be above 0")
    return size


class DupeFilter(BaseDupeFilter):
    """Scrapy's duplicate filter (``RFPDupeFilter``), with the seen
    fingerprints in a ``uriscan.SeenState`` on disk instead of a Python set
    and a ``requests.seen`` file. In the project's settings::

        DUPEFILTER_CLASS = "uriscan.scrapy.DupeFilter"
        # and, for faster fingerprints (the same ones):
        REQUEST_FINGERPRINTER_CLASS = "uriscan.scrapy.RequestFingerprinter"

    A request is a duplicate when the crawler's request fingerprinter
    (``crawler.request_fingerprinter``, REQUEST_FINGERPRINTER_CLASS: a
    fingerprinter of one's own is honoured) gives a fingerprint seen
    before. The state keeps the first 8 bytes of each fingerprint: two
    different fingerprints are taken as equal with a probability of about
    n^2 / 2^65 over n requests (one in 37 million for a million requests).
    Otherwise a crawl fetches exactly what it fetches with RFPDupeFilter,
    whose log messages (DUPEFILTER_DEBUG) and ``dupefilter/filtered``
    statistic this filter keeps too.

    With JOBDIR, the state is the directory ``JOBDIR/uriscan-seen``: a
    paused crawl resumes without reading the fingerprints back into memory
    (lookups go to the state on disk, through Bloom filters of about 1.25
    bytes a fingerprint) and a crawl of any size stays within
    URISCAN_DUPEFILTER_MEMORY. The new fingerprints are committed every
    URISCAN_DUPEFILTER_COMMIT_EVERY of them and when the crawl closes,
    whatever its reason (``finished``, ``shutdown``, a CLOSESPIDER_*
    limit, ...): every fingerprint added belongs to a request the scheduler
    took. A process that is killed loses at most the fingerprints since
    the last commit, and the state stays whole (Scrapy itself saves its
    queue of requests only on a clean close, so such a crawl resumes
    without the requests it had queued in any case). The state names
    the fingerprinter it was made with: resuming with a fingerprinter
    whose fingerprints differ raises ``uriscan.StateError`` naming both,
    rather than letting every request through again. A JOBDIR that
    RFPDupeFilter started (``requests.seen``, no state yet) is taken over:
    its fingerprints are added to the new state once.

    Without JOBDIR, the state is in a temporary directory, removed when
    the crawl closes.

    Settings:

    - ``URISCAN_DUPEFILTER_COMMIT_EVERY`` (default 10000): new fingerprints
      between two commits (with JOBDIR). A commit writes a run and syncs it
      (a few ms, up to 20 on a busy disk): every 10,000 new requests, well
      under a microsecond a request. A crash loses the fingerprints since
      the last commit (Scrapy's own filter loses its unflushed writes too).
      0 commits only when the crawl closes.
    - ``URISCAN_DUPEFILTER_MEMORY`` (bytes, or "512M", "2G"; default 1 GiB,
      SeenState's): memory for the fingerprints since the last commit and
      the Bloom filters of those on disk; past it, lookups read the disk.
    - ``DUPEFILTER_DEBUG``: log every filtered request, not only the first.

    The filter logs through the logger ``uriscan.scrapy``.
    """

    def __init__(self, path: Optional[str] = None, debug: bool = False, *,
                 fingerprinter: Any = None,
                 commit_every: int = COMMIT_EVERY,
                 memory: Optional[int] = None) -> None:
        """``path``: the job directory (JOBDIR) or None; ``fingerprinter``:
        the request fingerprinter (default: Scrapy's, made without a
        crawler, as RFPDupeFilter makes it)."""
        if commit_every < 0:
            raise ValueError("URISCAN_DUPEFILTER_COMMIT_EVERY: must be 0 "
                             "(commit on close only) or more")
        self.jobdir = path or None
        self.debug = debug
        self.logdupes = True
        self.logger = logging.getLogger("uriscan.scrapy")
        self.fingerprinter = fingerprinter or _ScrapyFingerprinter()
        self.commit_every = commit_every
        self.memory = memory
        # A subclass's own request_fingerprint() makes the keys, as in
        # RFPDupeFilter, and names the state.
        own = type(self).request_fingerprint is not \
            DupeFilter.request_fingerprint
        if own:
            kind = type(self)
            self.keys_of = "scrapy-%s.%s" % (kind.__module__,
                                             kind.__qualname__)
        else:
            self.keys_of = "scrapy-" + fingerprinter_name(self.fingerprinter)
        self._fingerprint = self.fingerprinter.fingerprint
        self._own_text = own
        self.path: Optional[str] = None   # the state's directory, once open
        self.state: Optional[SeenState] = None
        self._tmp: Optional[tempfile.TemporaryDirectory] = None
        self._add_key: Any = None
        self._added = 0                   # new since the last commit
        # Opened now, as RFPDupeFilter opens its file: when Scrapy makes
        # the filter, a state in use or of another fingerprinter fails the
        # crawl before anything in JOBDIR is read or written.
        self.open()

    @classmethod
    def from_settings(cls, settings: Any, *,
                      fingerprinter: Any = None) -> "DupeFilter":
        """The filter of these settings (JOBDIR, DUPEFILTER_DEBUG and the
        URISCAN_DUPEFILTER_* ones), as ``RFPDupeFilter.from_settings``."""
        return cls(job_dir(settings), settings.getbool("DUPEFILTER_DEBUG"),
                   fingerprinter=fingerprinter,
                   commit_every=settings.getint(
                       "URISCAN_DUPEFILTER_COMMIT_EVERY", COMMIT_EVERY),
                   memory=_size(settings.get("URISCAN_DUPEFILTER_MEMORY")))

    @classmethod
    def from_crawler(cls, crawler: Any) -> "DupeFilter":
        """The filter Scrapy makes: the crawler's settings and its request
        fingerprinter."""
        return cls.from_settings(crawler.settings,
                                 fingerprinter=crawler.request_fingerprinter)

    # ---- The state ----

    def open(self) -> None:
        """Opens the state. The filter is made open, and Scrapy calls this
        when the crawl starts: it opens the state again after ``close``.
        Raises ``uriscan.StateError`` when the state is in use by another
        crawl, damaged, or was made with another fingerprinter."""
        if self.state is not None:
            return
        if self.jobdir:
            os.makedirs(self.jobdir, exist_ok=True)
            path = os.path.join(self.jobdir, STATE_NAME)
            fresh = not os.path.exists(path)
        else:
            self._tmp = tempfile.TemporaryDirectory(
                prefix="uriscan-dupefilter-")
            path = os.path.join(self._tmp.name, STATE_NAME)
            fresh = True
        try:
            self.state = self._open_state(path)
        except BaseException:
            self._remove_tmp()
            raise
        self.path = path
        self._add_key = self.state.add_key
        self._added = 0
        if self.jobdir and fresh:
            self._take_over_requests_seen()
        elif self.jobdir:
            self.logger.info(
                "Resuming with %(keys)d request fingerprints in %(path)s",
                {"keys": self.state.stats()["keys"], "path": path})

    def _open_state(self, path: str) -> SeenState:
        try:
            return SeenState(path, keys_of=self.keys_of, memory=self.memory)
        except StateError as error:
            stored = self._stored_identity(path)
            if stored is None or stored == "keys:" + self.keys_of:
                raise
            raise StateError(
                "%s holds %s (%s), and this crawl makes %s (keys:%s): "
                "they would not match, "
                "and requests seen before would be fetched again. Resume "
                "with the REQUEST_FINGERPRINTER_CLASS and "
                "REQUEST_FINGERPRINTER_IMPLEMENTATION the crawl began with, "
                "or use another JOBDIR." % (
                    path, _describe(stored[len("keys:scrapy-"):]
                                    if stored.startswith("keys:scrapy-")
                                    else stored),
                    stored, _describe(self.keys_of[len("scrapy-"):]),
                    self.keys_of)) from error

    @staticmethod
    def _stored_identity(path: str) -> Optional[str]:
        """The identity of an existing state, or None when it cannot be
        read."""
        try:
            peek = SeenState(path, read_only=True)
        except (StateError, ValueError):
            return None
        try:
            return peek.identity
        finally:
            peek.close()

    def _take_over_requests_seen(self) -> None:
        """The fingerprints of RFPDupeFilter's ``JOBDIR/requests.seen`` (one
        in hex a line), into a new state, a million at a time."""
        import numpy as np
        seen = os.path.join(self.jobdir, "requests.seen")
        if not os.path.isfile(seen):
            return
        new = 0
        keys = []
        with open(seen, encoding="utf-8", errors="replace") as lines:
            for line in lines:
                line = line.strip()
                if line:
                    keys.append(_text_key(line))
                if len(keys) == 1 << 20:
                    new += int(self.state.add_keys(
                        np.array(keys, dtype=np.uint64)).sum())
                    keys = []
        new += int(self.state.add_keys(np.array(keys, dtype=np.uint64)).sum())
        if new:
            self.state.commit()
        self.logger.info(
            "Took %(new)d request fingerprints from %(seen)s into %(path)s",
            {"new": new, "seen": seen, "path": self.path})

    def commit(self) -> None:
        """Makes the fingerprints added so far durable (the filter does it
        by itself: every URISCAN_DUPEFILTER_COMMIT_EVERY new ones, and on
        closing)."""
        if self.state is not None:
            self.state.commit()
        self._added = 0

    def close(self, reason: str) -> None:
        """Commits what was added (with JOBDIR, whatever the reason: the
        scheduler took every request added), then lets the state go; the
        temporary directory without JOBDIR is removed."""
        state, self.state, self._add_key = self.state, None, None
        try:
            if state is not None:
                try:
                    if self.jobdir:
                        state.commit()
                finally:
                    state.close()
        finally:
            self._remove_tmp()

    def _remove_tmp(self) -> None:
        if self._tmp is not None:
            tmp, self._tmp = self._tmp, None
            tmp.cleanup()

    # ---- Requests ----

    def request_fingerprint(self, request: Any) -> str:
        """The request's fingerprint in hex, as RFPDupeFilter gives it."""
        return self._fingerprint(request).hex()

    def request_seen(self, request: Any) -> bool:
        """True when a request of the same fingerprint was seen before;
        otherwise the fingerprint is added and False is returned."""
        add_key = self._add_key
        if add_key is None:
            self.open()
            add_key = self._add_key
        if self._own_text:
            key = _text_key(self.request_fingerprint(request))
        else:
            key = _from_bytes(self._fingerprint(request)[:8], "little") or 1
        if not add_key(key):
            return True
        self._added += 1
        if self._added == self.commit_every and self.jobdir:
            self.commit()
        return False

    def log(self, request: Any, spider: Any) -> None:
        """Logs a filtered request (the first only, unless DUPEFILTER_DEBUG)
        and counts it in the ``dupefilter/filtered`` statistic."""
        if self.debug:
            self.logger.debug(
                "Filtered duplicate request: %(request)s "
                "(referer: %(referer)s)",
                {"request": request, "referer": referer_str(request)},
                extra={"spider": spider})
        elif self.logdupes:
            self.logger.debug(
                "Filtered duplicate request: %(request)s - no more "
                "duplicates will be shown (see DUPEFILTER_DEBUG to show "
                "all duplicates)",
                {"request": request}, extra={"spider": spider})
            self.logdupes = False
        spider.crawler.stats.inc_value("dupefilter/filtered", spider=spider)

    def __repr__(self) -> str:
        return "<uriscan.scrapy.DupeFilter %s>" % (
            self.path or self.jobdir or "(not open)",)


__all__ = ["DupeFilter", "fingerprinter_name"]

del annotations, Any, Optional
