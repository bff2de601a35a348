# SPDX-License-Identifier: MIT
"""Exact RFC 3986 URI scanning for batches, with NumPy columns.

Every call takes a whole batch of URI references and runs the C++ library
on it with the GIL released, so Python threads scale:

- ``scan(urls) -> Spans``: the components of every row as NumPy columns.
- ``normalize(urls, profile)`` and ``resolve(urls, base)``: str per row,
  None for invalid rows.
- ``fingerprint(urls, profile)``: uint64 keys, equal to the keys of
  ``uriscan dedup --keys`` (0 for an invalid row).
- ``first_occurrence(urls, profile)``: True where a row is the first of its
  class, as ``uriscan dedup`` keeps it (invalid rows: True).
- ``risks(urls)``: the risk flags of RFC 3986 section 7, as ``uriscan audit``.
- ``params(urls)``: every query parameter as a pandas DataFrame (``row``,
  ``name``, ``value``), as ``uriscan params``.
- ``read_log(path, format)``: the references of files (lists, text, web
  server logs with their fields, tables, JSON Lines; plain, gzip, zstd) as
  a pandas DataFrame, as ``uriscan extract`` and DuckDB's ``read_uris``.
- ``columns(urls, names)``: the columns of ``uriscan parse --columns``
  (components, decoded components, path segments, parameters, host parts
  from the Public Suffix List, SURT keys, keys and normal forms) as a
  pandas DataFrame.

Answers per row come back in the input's kind: for a pandas Series a
Series with its index (object dtype for text), for anything else a NumPy
array (object dtype for text). ``lenient=True`` (every call, as the
command's ``--lenient``) repairs each row first: IRIs and what logs hold
(spaces, bytes above 0x7f, a lone ``%``, a non-ASCII host in IDNA A-labels)
become URI references, which are then scanned strictly.

``urls`` is a list (or tuple) of str or bytes, a 1-D NumPy array of dtype
``str_``, ``bytes_`` or ``object``, a pandas Series (or Index), or a
``Batch(data, offsets)`` over an Arrow-layout buffer, which is read in place.
str is encoded as UTF-8; offsets in the results are byte offsets. A missing
value (None, NaN, ``pandas.NA``) is an invalid row (error ``disallowed-byte``
at byte 0): None, 0 or False in every answer, as any invalid row.

``uriscan.dask`` runs the same over Dask DataFrames and Series.
"""
from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as _np

from . import _uriscan
from ._uriscan import Batch, Spans, StateError, dispatched_target

__all__ = [
    "Batch", "Spans", "scan", "normalize", "resolve", "fingerprint",
    "first_occurrence", "risks", "risk_names", "error_name", "params",
    "columns", "COLUMNS", "DEFAULT_TRACKING_PARAMS",
    "dispatched_target", "PROFILES", "COMPONENTS", "read_log",
    "SeenState", "StateError", "__version__",
]

__version__: str = _uriscan.__version__

#: The normalization profiles: three in increasing order of merging, then
#: Scrapy's canonical form (w3lib.url.canonicalize_url).
PROFILES = ("syntax", "scheme", "crawler", "w3lib")
#: The names Spans.component() accepts.
COMPONENTS = ("scheme", "authority", "userinfo", "host", "port", "path",
              "query", "fragment")
#: The names columns() accepts, besides "param:NAME" and "param_raw:NAME":
#: those of the command's ``parse --columns`` but ``file``.
COLUMNS = ("line", "valid", "at", "error", "raw", "repaired", "scheme",
           "userinfo", "host", "port", "path", "query", "fragment",
           "host_type", "authority", "host_nowww", "subdomain",
           "registrable_domain", "public_suffix", "extension",
           "path_decoded", "query_decoded", "fragment_decoded",
           "path_segments", "param_names", "surt", "surt_crawler", "key",
           "normalized")
#: The crawler profile's default tracking parameters (a trailing ``*`` is
#: a prefix); ``tracking_params=["+ref"]`` adds to them, a list without
#: ``+`` replaces them, as ``--tracking-params`` of the command.
DEFAULT_TRACKING_PARAMS = tuple(_uriscan.default_tracking_params())
#: error_name() of every error kind, by kind.
_ERROR_NAMES = _np.array([_uriscan.error_name(k)
                         for k in range(_uriscan.error_kind_count())],
                        dtype=object)


def _rows(urls: Any) -> Any:
    """The object the extension reads: pandas data becomes a NumPy array
    (object dtype for pandas' own string types), everything else passes
    as is (the extension checks it)."""
    module = type(urls).__module__ or ""
    if module.startswith("pandas") and hasattr(urls, "to_numpy"):
        dtype = getattr(urls, "dtype", None)
        if isinstance(dtype, _np.dtype) and dtype.kind in "USO":
            return urls.to_numpy()
        return urls.to_numpy(dtype=object)
    if module.startswith("dask"):
        raise TypeError("urls: a Dask collection; use uriscan.dask instead")
    return urls


def _pandas_index(urls: Any) -> Any:
    """The index of a pandas Series (None for anything else)."""
    if (type(urls).__module__ or "").startswith("pandas"):
        return getattr(urls, "index", None)
    return None


def _shaped(values: Any, urls: Any) -> Any:
    """``values`` (one per row) in the kind of ``urls``: a pandas Series
    with its index for pandas input, else a NumPy array; text as objects
    (None stays None)."""
    if not isinstance(values, _np.ndarray):
        array = _np.empty(len(values), dtype=object)
        array[:] = values
        values = array
    index = _pandas_index(urls)
    if index is None:
        return values
    import pandas as pd
    return pd.Series(values, index=index, name=getattr(urls, "name", None),
                     copy=False)


def scan(urls: Any, lenient: bool = False) -> Spans:
    """Scans every URI reference of ``urls`` (RFC 3986 ``URI-reference``,
    strict) into a Spans: one row per input, every column a read-only NumPy
    array of byte offsets, ``valid``, and ``component(name)``.

    A scan never stops at an invalid row: its error_kind and error_offset
    say what broke where. Inputs of 4 GiB or more raise ValueError (the
    columns are 32-bit offsets): scan slices of them. ``lenient``: each row
    repaired first (see the module's help); the spans are then of the
    repaired text, which ``component()`` returns.
    """
    return _uriscan.scan(_rows(urls), bool(lenient))


def normalize(urls: Any, profile: str = "scheme",
              tracking_params: Optional[Sequence[str]] = None,
              fold_www: bool = False, lenient: bool = False) -> Any:
    """The normal form of every row under ``profile``: ``"syntax"`` (RFC
    3986 section 6.2.2), ``"scheme"`` (adds 6.2.3), ``"crawler"`` (adds:
    no fragment, sorted query without tracking or session-id parameters,
    no trailing dot on the host, IPv4 forms as dotted quads) or ``"w3lib"``
    (byte for byte what ``w3lib.url.canonicalize_url`` returns, for every
    row it canonicalizes, one RFC 3986 refuses included: ``?p[]=1``). None
    for an invalid row (under w3lib, one that w3lib refuses too). The same text as
    ``uriscan normalize --profile=P`` (its first field for crawler).
    ``tracking_params`` replaces the crawler profile's list of parameters
    to drop (``DEFAULT_TRACKING_PARAMS``; a trailing ``*`` makes a prefix),
    or adds to it when every name starts with ``+`` (``["+ref"]``), as the
    command's ``--tracking-params``; ``fold_www`` (crawler only, as
    ``--fold-www``) drops a leading ``www.`` from the host. A Series for a
    Series, else a NumPy array of objects.
    """
    return _shaped(_uriscan.normalize(_rows(urls), profile, tracking_params,
                                      bool(fold_www), bool(lenient)), urls)


def resolve(urls: Any, base: str, nonstrict: bool = False,
            lenient: bool = False) -> Any:
    """Every row resolved against ``base`` (RFC 3986 section 5.2), as
    ``uriscan resolve --base=BASE``; None for an invalid row. ``base`` must
    be a valid URI with a scheme (ValueError otherwise). ``nonstrict``:
    a reference with the base's scheme is relative ("http:g"). A Series
    for a Series, else a NumPy array of objects.
    """
    return _shaped(_uriscan.resolve(_rows(urls), base, nonstrict,
                                    bool(lenient)), urls)


def fingerprint(urls: Any, profile: str = "scheme",
                tracking_params: Optional[Sequence[str]] = None,
                fold_www: bool = False, lenient: bool = False) -> Any:
    """uint64 array: the 64-bit XXH3 key of every row's normal form under
    ``profile``, the keys ``uriscan dedup --keys --profile=P`` prints; 0 for
    an invalid row. Equal keys mean equal normal forms (up to 64-bit
    collisions); keys of different profiles never relate. A Series for a
    Series.
    """
    return _shaped(_uriscan.fingerprint(_rows(urls), profile,
                                        tracking_params, bool(fold_www),
                                        bool(lenient)), urls)


def first_occurrence(urls: Any, profile: str = "scheme",
                     tracking_params: Optional[Sequence[str]] = None,
                     fold_www: bool = False, lenient: bool = False) -> Any:
    """bool array: True where a row is the first of its class under
    ``profile`` (the rows ``uriscan dedup`` writes), and for every invalid
    row (as ``--on-error=keep``). ``frame[first_occurrence(frame.url)]``
    deduplicates a pandas DataFrame in input order (a Series for a Series,
    with its index).
    """
    return _shaped(_uriscan.first_occurrence(_rows(urls), profile,
                                             tracking_params, bool(fold_www),
                                             bool(lenient)), urls)


def risks(urls: Any, lenient: bool = False) -> Any:
    """uint32 array of risk flags (RFC 3986 section 7), bit k being the k-th
    name of ``uriscan audit``; ``1 << 31`` alone for an invalid row. See
    risk_names(). A Series for a Series.
    """
    return _shaped(_uriscan.risks(_rows(urls), bool(lenient)), urls)


def _names_of(flags: int) -> List[str]:
    text = _uriscan.risk_names(int(flags))
    return text.split(",") if text else []


def risk_names(flags: Any) -> Any:
    """The names of the risk flags set in ``flags``, in bit order
    (``["invalid"]`` for an invalid row's value). For an array or Series of
    flags (what ``risks()`` returns), a list with the names of each row,
    each distinct value looked up once.
    """
    if _np.ndim(flags) == 0:
        return _names_of(flags)
    values = _np.asarray(flags, dtype=_np.uint32)
    distinct, inverse = _np.unique(values, return_inverse=True)
    names = [_names_of(v) for v in distinct]
    return [list(names[k]) for k in inverse.ravel()]


def error_name(kind: Any) -> Any:
    """The name of an error kind (``Spans.error_kind``), as ``uriscan``
    prints it ("none" for 0). For an array or Series of kinds, a NumPy array
    of str (object dtype) of the same length. ValueError for a number that
    is no error kind.
    """
    if _np.ndim(kind) == 0:
        return _uriscan.error_name(int(kind))
    kinds = _np.asarray(kind)
    if kinds.dtype.kind not in "iu":
        raise TypeError(f"kind: expected integers, got dtype {kinds.dtype}")
    bad = (kinds < 0) | (kinds >= len(_ERROR_NAMES))
    if bad.any():
        at = int(_np.flatnonzero(bad.ravel())[0])
        raise ValueError(f"kind[{at}]: {kinds.ravel()[at]} is not an error "
                         "kind")
    return _ERROR_NAMES[kinds.astype(_np.intp)]


def params(urls: Any, raw: bool = False, lenient: bool = False) -> Any:
    """Every query parameter of every row as a pandas DataFrame with the
    columns ``row`` (the row's position in ``urls``, int64; for a pandas
    Series its index label, as columns() keeps the index), ``name`` and
    ``value`` (str), in row order and in each query's order: the rows of
    ``uriscan params`` (``--raw`` when ``raw``). A query splits on ``&``, a
    field at its first ``=``; empty fields give no row, nor do invalid rows
    and rows without a query. Names and values are form-decoded (``+`` is a
    space, then ``%HH`` that byte) unless ``raw``, as the command decodes:
    ``%00`` and escapes of no UTF-8 character (``%E9``) stay as written;
    other bytes that are not UTF-8 (only a repaired row can hold one)
    become lone surrogates (``errors="surrogateescape"``).
    """
    import pandas as pd
    row, names, values = _uriscan.params(_rows(urls), bool(raw),
                                         bool(lenient))
    index = _pandas_index(urls)
    if index is not None:  # the row's label, as columns() keeps it
        row = index.to_numpy()[row]
    return pd.DataFrame({"row": row, "name": names, "value": values})


def columns(urls: Any, names: Sequence[str], profile: str = "scheme",
            tracking_params: Optional[Sequence[str]] = None,
            fold_www: bool = False, lenient: bool = False) -> Any:
    """A pandas DataFrame with one column per name in ``names`` (COLUMNS,
    plus ``param:NAME`` and ``param_raw:NAME``), one row per row of
    ``urls`` (its index when ``urls`` is a Series), each cell what ``uriscan
    parse --format=tsv --columns=NAME`` writes, unescaped: str, a list of
    str for ``path_segments`` and ``param_names``, None where the command
    writes ``\\N`` (every column of an invalid row but ``line``, ``valid``,
    ``at``, ``error``, ``raw`` and ``repaired``). ``line`` is the row's
    number from 1 (int64), ``valid`` and ``repaired`` are bool, ``at`` the
    byte offset of an invalid row's first bad byte (pandas ``Int64``, NA on
    valid rows), ``raw`` the row as given. ``key`` (16 hex digits, as the
    command) and ``normalized`` follow ``profile``, ``tracking_params`` and
    ``fold_www`` as ``normalize()`` does; ``surt_crawler`` is the crawler
    normal form in SURT shape. Host parts come from libpsl's built-in
    Public Suffix List; ``surt`` is the key of the Internet Archive's surt
    library. Decoded columns keep ``%00`` and escapes of no UTF-8
    character as written, as the command does; other bytes that are not
    UTF-8 become lone surrogates (``errors="surrogateescape"``).
    """
    import pandas as pd
    if isinstance(names, str):
        raise TypeError("names: expected a list of str, got str "
                        "(wrap one name in a list)")
    names = list(names)
    data = _uriscan.columns(_rows(urls), names, profile, tracking_params,
                            bool(fold_www), bool(lenient))
    if "raw" in data and not isinstance(urls, Batch):
        # A missing value is a row of one NUL byte to the library: raw
        # gives None for it, as every other answer does.
        missing = pd.isna(_np.asarray(urls, dtype=object))
        data["raw"] = [None if m else v for v, m in zip(data["raw"], missing)]
    for name in names:
        if name in ("valid", "repaired"):
            data[name] = _np.array(data[name], dtype=bool)
        elif name == "line":
            data[name] = _np.array(data[name], dtype=_np.int64)
        elif name == "at":
            data[name] = pd.array(data[name], dtype="Int64")
    return pd.DataFrame(data, columns=names, index=_pandas_index(urls))


def read_log(path: Any, format: str = "lines", field: Optional[str] = None,
             base: Optional[str] = None, lenient: bool = False) -> Any:
    """The URI references of files as a pandas DataFrame, as DuckDB's
    ``read_uris`` and ``uriscan extract --with-line`` give them.

    ``path`` is a file name or a list of them (plain, gzip or zstd, told by
    their first bytes). ``format`` is ``lines`` (every line a reference),
    ``text``, ``clf``, ``combined``, ``tsv``, ``csv`` or ``jsonl``;
    ``field``, ``base`` and ``lenient`` are those of ``uriscan extract``.
    Columns: ``file``, ``line`` (uint64, from 1) and ``uri`` (str); for
    ``clf`` and ``combined`` also ``client``, ``time``
    (``datetime64[ns, UTC]``; missing outside 1677-2262), ``method``,
    ``status`` (``Int32``),
    ``bytes`` (``Int64``), and for ``combined`` ``referer`` and
    ``user_agent``; a field the line lacks (or writes as ``-``) is
    missing. The last column, ``problem``, marks a malformed line in its
    row: the diagnostic ``uriscan extract`` prints for it (``"log-format:
    expected [date]"``), None for the others; a line that gives no
    reference has a row of its own, ``uri`` None and every field missing
    (``frame[frame.uri.notna()]`` keeps the references). Text that is not
    UTF-8 reads with U+FFFD in place of each
    ill-formed part. Raises ValueError for options that do not hold
    together, FileNotFoundError for a missing file and OSError for another
    that cannot be opened or read (``filename`` is the file),
    RuntimeError naming a file that is damaged (gzip, zstd), cut short
    while it was read or without the header column named; Ctrl-C stops a
    read that waits for input.
    """
    import pandas as pd

    paths = [path] if isinstance(path, (str, bytes)) or hasattr(
        path, "__fspath__") else list(path)
    paths = [p.decode() if isinstance(p, bytes) else str(p) for p in paths]
    c = _uriscan._read_log(paths, format, field or "", base or "", lenient)
    n = len(c["uri"])
    data = {
        "file": pd.Series(c["file"], dtype=object),
        "line": _np.frombuffer(c["line"], dtype=_np.uint64),
        "uri": pd.Series(c["uri"], dtype=object),
    }
    if "client" in c:
        # Microseconds since 1970 as pandas' UTC timestamps, which hold
        # nanoseconds (1677 to 2262 in pandas 1.x): a time outside them is
        # missing, as a line without one is.
        us = _np.frombuffer(c["time"], dtype=_np.int64)
        bound = _np.iinfo(_np.int64).max // 1000
        ok = (_np.frombuffer(c["has_time"], dtype=_np.uint8) != 0) & \
            (us > -bound) & (us < bound)
        ns = _np.where(ok, _np.clip(us, -bound, bound) * 1000,
                       _np.iinfo(_np.int64).min)  # NaT
        time = pd.Series(ns.view("datetime64[ns]")).dt.tz_localize("UTC")
        status = pd.array(_np.frombuffer(c["status"], dtype=_np.int32),
                          dtype="Int32")
        status[_np.frombuffer(c["has_status"], dtype=_np.uint8) == 0] = pd.NA
        size = pd.array(_np.frombuffer(c["bytes"], dtype=_np.int64),
                        dtype="Int64")
        size[_np.frombuffer(c["has_bytes"], dtype=_np.uint8) == 0] = pd.NA
        data.update({
            "client": pd.Series(c["client"], dtype=object),
            "time": time,
            "method": pd.Series(c["method"], dtype=object),
            "status": status,
            "bytes": size,
        })
        if "referer" in c:
            data["referer"] = pd.Series(c["referer"], dtype=object)
            data["user_agent"] = pd.Series(c["user_agent"], dtype=object)
    data["problem"] = pd.Series(c["problem"], dtype=object)
    frame = pd.DataFrame(data)
    assert len(frame) == n
    return frame


class SeenState:
    """The seen-set of a state directory (that of ``uriscan dedup
    --state=DIR``), held open by a long-running program: ``add`` says which
    URLs are new, ``commit`` makes them part of the state, durably.

    ``profile`` (and, for the crawler profile, ``tracking_params`` and
    ``fold_www``), ``shards`` and ``keys_of`` are used when the state is
    made; an existing state's identity wins, and another one asked for
    raises StateError naming both. Without a profile an existing state's
    is taken (a new state gets "scheme"). ``keys_of="NAME"`` makes a state
    of 64-bit keys the caller computes (``add_keys`` only). ``memory``
    (bytes, default 1 GiB) bounds the keys added since the last commit
    (spilled to disk past a quarter of it) and the Bloom filters of the
    runs. ``read_only`` takes the shared lock: ``contains`` only.

    The state's lock is held until ``close()``: another process, the
    command included, is refused meanwhile. Merges run on a thread of
    their own (``background_merges=False``: inside each commit). Used in a
    ``with`` block, the state is committed when the block ends normally
    and what was added is discarded when it raises, as ``sqlite3`` does.
    Errors of the state (in use, damaged, another profile, a disk error)
    raise ``uriscan.StateError``, an OSError, with the command's message.
    """

    def __init__(self, path: Any, profile: Optional[str] = None,
                 shards: Optional[int] = None, memory: Optional[int] = None,
                 read_only: bool = False,
                 tracking_params: Optional[Sequence[str]] = None,
                 fold_www: bool = False, keys_of: Optional[str] = None,
                 background_merges: bool = True) -> None:
        import os
        self._path = os.fspath(path)
        self._read_only = read_only
        self._s: Any = _uriscan._SeenState(
            self._path, profile,
            None if tracking_params is None else list(tracking_params),
            fold_www, keys_of, shards, memory, read_only, background_merges)
        # The Scrapy filter's per-request calls, bound once.
        self.add_key = self._s.add_key
        self.contains_key = self._s.contains_key

    def add(self, urls: Any) -> Any:
        """A bool per row of ``urls``: True for a URL that is the first of
        its class since the last commit and absent from the state (it is
        then added); False for the others and for invalid rows."""
        return _shaped(self._s.add(_rows(urls)), urls)

    def contains(self, urls: Any) -> Any:
        """A bool per row: True for a URL added before (committed or not).
        Adds nothing."""
        return _shaped(self._s.contains(_rows(urls)), urls)

    def add_keys(self, keys: Any) -> Any:
        """``add`` for 64-bit keys the caller computes (a ``uint64`` array;
        key 0 is invalid)."""
        return self._s.add_keys(_np.asarray(keys, dtype=_np.uint64))

    def contains_keys(self, keys: Any) -> Any:
        """``contains`` for 64-bit keys."""
        return self._s.contains_keys(_np.asarray(keys, dtype=_np.uint64))

    def commit(self, output: Any = None) -> dict:
        """Makes what was added since the last commit part of the state.
        With ``output`` (a path), the new URLs since the last commit are
        written, one a line, to that new file, which appears whole with the
        commit (after a crash: both or neither). Returns ``written`` (lines
        in the output), ``rerun`` and ``note`` (these same rows were
        committed before: nothing was done)."""
        import os
        return self._s.commit(None if output is None else os.fspath(output))

    def discard(self) -> None:
        """Forgets what was added since the last commit."""
        self._s.discard()

    def wait_for_merges(self) -> None:
        """Returns once no background merge is due or under way."""
        self._s.wait_for_merges()

    def stats(self) -> dict:
        """keys (committed), pending, invalid, runs, shards, bytes,
        written_bytes, rewritten_bytes, commits, merges, merging,
        memory_bytes, disk_lookups."""
        return self._s.stats()

    @property
    def identity(self) -> str:
        return self._s.identity()

    def close(self) -> None:
        """Discards what was not committed and lets the lock go (a merge
        under way is cut short; the state stays whole)."""
        self._s.close()

    def __enter__(self) -> "SeenState":
        return self

    def __exit__(self, kind: Any, value: Any, traceback: Any) -> None:
        try:
            if kind is None and not self._read_only:
                self.commit()
        finally:
            self.close()

    def __repr__(self) -> str:
        return "uriscan.SeenState(%r)" % (self._path,)


# The namespace holds the API only (__all__), not the names it is made with.
del annotations, Any, List, Optional, Sequence
