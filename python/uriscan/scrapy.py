# SPDX-License-Identifier: MIT
"""Scrapy request fingerprints, with the canonical URL from uriscan.

``RequestFingerprinter`` takes the place of Scrapy's own
(``scrapy.utils.request.RequestFingerprinter``) through a setting::

    REQUEST_FINGERPRINTER_CLASS = "uriscan.scrapy.RequestFingerprinter"
    REQUEST_FINGERPRINTER_IMPLEMENTATION = "2.7"

and gives the same 20 bytes for every request: the SHA-1 of the JSON text
(keys sorted) of the request's method, canonical URL, body (in hex) and
included headers (names and values in hex), as Scrapy 2.7 and later hash
it. Only the canonical URL is made another way: by the C++ library's
``w3lib`` profile (``uriscan.normalize(..., profile="w3lib")``), byte for
byte what ``w3lib.url.canonicalize_url`` returns, without its cost. Where
the profile has no answer (a URL that is no valid RFC 3986 reference, as
``Request`` leaves some: a ``"`` before the host, a bare ``%``, a port
that is no number, a host IDNA refused, ...), w3lib's own
``canonicalize_url`` makes it, so a fingerprint is always Scrapy's.

``fingerprint(request, include_headers=..., keep_fragments=...)`` is
``scrapy.utils.request.fingerprint`` (for fingerprinters of one's own, as
Scrapy's documentation writes them), ``canonical_url(url,
keep_fragments=...)`` is ``w3lib.url.canonicalize_url(url,
keep_fragments=...)``. Fingerprints are cached per request and options,
as Scrapy caches them, for as long as the request lives.
"""
from __future__ import annotations

import hashlib
import warnings
from json.encoder import encode_basestring_ascii as _json_text
from typing import Any, Dict, Iterable, Optional, Tuple, Union
from weakref import WeakKeyDictionary, ref as _ref

from scrapy.exceptions import ScrapyDeprecationWarning
from scrapy.utils.python import to_bytes as _to_bytes
from w3lib.url import canonicalize_url as _w3lib_canonicalize_url

from . import _uriscan

__all__ = ["RequestFingerprinter", "fingerprint", "canonical_url"]

_sha1 = hashlib.sha1
# What w3lib's quote() of a fragment leaves as it is: RFC 3986's unreserved
# and reserved characters, '|' and '%'.
_FRAGMENT_AS_IS = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    "-._~:/?#[]@!$&'()*+,;=|%")

try:  # one str in, a str or None out, when the extension has it
    _w3lib_profile = _uriscan.w3lib_canonical
except AttributeError:
    def _w3lib_profile(url: str, _normalize: Any = _uriscan.normalize
                       ) -> Optional[str]:
        """The w3lib profile's normal form of one URL, None if invalid."""
        return _normalize([url], "w3lib")[0]

_HeaderNames = Optional[Tuple[bytes, ...]]
_Options = Tuple[_HeaderNames, bool]
_Cache = "WeakKeyDictionary[Any, Any]"

# The caches, each a WeakKeyDictionary (an entry goes with its request):
# request -> its "2.7" fingerprint with the default options (the hot path:
# one weak reference per request and the bytes; read and written through
# the dictionary's own mapping of weak references, as its methods do, to
# spare their call); request -> {(header names, keep_fragments): bytes}
# for other options, and for "2.6".
_plain: _Cache = WeakKeyDictionary()
_plain_get = _plain.data.get
_plain_set = _plain.data.__setitem__
_plain_remove = _plain._remove
_with_options: _Cache = WeakKeyDictionary()
_with_options_26: _Cache = WeakKeyDictionary()


def canonical_url(url: str, keep_fragments: bool = False) -> str:
    """``w3lib.url.canonicalize_url(url, keep_fragments=keep_fragments)``:
    uriscan's w3lib profile, or w3lib itself for a URL the profile reads as
    invalid (the profile's answer is None)."""
    canonical = _w3lib_profile(url)
    if canonical is None:
        return _w3lib_canonicalize_url(url, keep_fragments=keep_fragments)
    if keep_fragments:
        # urlunparse() writes '#' only before a non-empty fragment. A valid
        # reference's holds only bytes w3lib leaves as they are; another's
        # may need w3lib's quoting ("#\u00e9"): w3lib's own answer then.
        at = url.find("#")
        if 0 <= at < len(url) - 1:
            if not _FRAGMENT_AS_IS.issuperset(url[at + 1:]):
                return _w3lib_canonicalize_url(url, keep_fragments=True)
            canonical += url[at:]
    return canonical


def _header_names(include_headers: Optional[Iterable[Union[bytes, str]]]
                  ) -> _HeaderNames:
    """The names to hash, as Scrapy takes them: sorted as given, then each
    lower-cased and as bytes (UTF-8)."""
    if not include_headers:
        return None
    return tuple(_to_bytes(name.lower()) for name in sorted(include_headers))


def _by_options(cache: _Cache, request: Any) -> Dict[_Options, bytes]:
    found = cache.get(request)
    if found is None:
        found = cache[request] = {}
    return found


def _method(request: Any) -> str:
    method = request.method
    return method if isinstance(method, str) else method.decode("utf-8")


def _headers_json(headers: Any, names: Tuple[bytes, ...]) -> str:
    """``json.dumps({name.hex(): [value.hex(), ...]}, sort_keys=True)`` of
    the names the request has (hex needs no escape)."""
    found = {}
    for name in names:
        if name in headers:
            found[name.hex()] = ", ".join(
                ['"' + value.hex() + '"' for value in headers.getlist(name)])
    if not found:
        return "{}"
    return "{" + ", ".join(['"%s": [%s]' % (name, found[name])
                            for name in sorted(found)]) + "}"


# json.dumps({"body": ..., "headers": ..., "method": ..., "url": ...},
# sort_keys=True): the keys in order, its separators; the method and the
# URL escaped by the function json.dumps() escapes str with (ensure_ascii,
# in C), the hex of the body and of the headers needs none.
_JSON = '{"body": "%s", "headers": %s, "method": %s, "url": %s}'


def fingerprint(request: Any, *,
                include_headers: Optional[Iterable[Union[bytes, str]]] = None,
                keep_fragments: bool = False) -> bytes:
    """The 20 bytes of ``scrapy.utils.request.fingerprint(request,
    include_headers=..., keep_fragments=...)``: SHA-1 of
    ``json.dumps({"body": ..., "headers": ..., "method": ..., "url": ...},
    sort_keys=True)``, the text written here directly."""
    if include_headers or keep_fragments:
        return _fingerprint_with_options(request, include_headers,
                                         keep_fragments)
    # A weak reference with the callback that drops the entry: the key to
    # look up, and to store when the request is new.
    key = _ref(request, _plain_remove)
    known = _plain_get(key)
    if known is not None:
        return known
    url = request.url
    canonical = _w3lib_profile(url)
    if canonical is None:
        canonical = _w3lib_canonicalize_url(url)
    method = request.method
    if not isinstance(method, str):
        method = method.decode("utf-8")
    # _JSON without headers, as an f-string (the fastest way to join).
    digest = _sha1((f'{{"body": "{(request.body or b"").hex()}", '
                    f'"headers": {{}}, "method": {_json_text(method)}, '
                    f'"url": {_json_text(canonical)}}}').encode("ascii")
                   ).digest()
    _plain_set(key, digest)
    return digest


def _fingerprint_with_options(request: Any, include_headers: Any,
                              keep_fragments: bool) -> bytes:
    names = _header_names(include_headers)
    cache = _by_options(_with_options, request)
    key = (names, keep_fragments)
    known = cache.get(key)
    if known is not None:
        return known
    text = _JSON % (
        (request.body or b"").hex(),
        "{}" if names is None else _headers_json(request.headers, names),
        _json_text(_method(request)),
        _json_text(canonical_url(request.url, keep_fragments)))
    cache[key] = digest = _sha1(text.encode("ascii")).digest()
    return digest


def _fingerprint_26(request: Any, *,
                    include_headers: Optional[Iterable[Union[bytes, str]]]
                    = None,
                    keep_fragments: bool = False) -> bytes:
    """Scrapy's deprecated fingerprint (REQUEST_FINGERPRINTER_IMPLEMENTATION
    "2.6") as bytes: SHA-1 of the method, the canonical URL, the body and
    each included header's name and values the request has, concatenated
    (a name given twice, twice)."""
    names = _header_names(include_headers)
    cache = _by_options(_with_options_26, request)
    key = (names, keep_fragments)
    known = cache.get(key)
    if known is not None:
        return known
    digest = _sha1(_to_bytes(request.method))
    digest.update(_to_bytes(canonical_url(request.url, keep_fragments)))
    digest.update(request.body or b"")
    if names:
        headers = request.headers
        for name in names:
            if name in headers:
                digest.update(name)
                for value in headers.getlist(name):
                    digest.update(value)
    cache[key] = result = digest.digest()
    return result


class RequestFingerprinter:
    """Scrapy's default request fingerprinter, the same fingerprints at a
    fraction of the cost (see the module's help).

    With a crawler, its REQUEST_FINGERPRINTER_IMPLEMENTATION setting picks
    the fingerprint as for Scrapy's: "2.7", or the deprecated "2.6" (with
    Scrapy's deprecation warning; it is Scrapy 2.8's default value); other
    values raise ValueError. Without a crawler it is "2.7" (Scrapy's own
    falls back to "2.6" there).
    """

    @classmethod
    def from_crawler(cls, crawler: Any) -> "RequestFingerprinter":
        return cls(crawler)

    def __init__(self, crawler: Any = None) -> None:
        implementation = "2.7"
        if crawler:
            implementation = crawler.settings.get(
                "REQUEST_FINGERPRINTER_IMPLEMENTATION")
        if implementation == "2.7":
            self._fingerprint = fingerprint
        elif implementation == "2.6":
            warnings.warn(
                "REQUEST_FINGERPRINTER_IMPLEMENTATION is '2.6' (Scrapy's "
                "default, and deprecated): uriscan.scrapy."
                "RequestFingerprinter gives the '2.6' fingerprints. Set it "
                "to '2.7' for the current ones (they differ: a cache or a "
                "job directory made with one does not match the other).",
                category=ScrapyDeprecationWarning, stacklevel=2)
            self._fingerprint = _fingerprint_26
        else:
            raise ValueError(
                "REQUEST_FINGERPRINTER_IMPLEMENTATION: "
                f"{implementation!r} is not an implementation; expected "
                "'2.7' (or the deprecated '2.6')")

    def fingerprint(self, request: Any) -> bytes:
        """The request's fingerprint: 20 bytes."""
        return self._fingerprint(request)


# The namespace holds the API only (__all__), not the names it is made with.
del annotations, Any, Dict, Iterable, Optional, Tuple, Union
from ._dupefilter import DupeFilter  # noqa: E402
__all__.append("DupeFilter")
