# SPDX-License-Identifier: MIT
"""uriscan over Dask DataFrames and Series (and pandas ones, without Dask).

- ``normalize(series, profile)``: the normal form of every row (None for an
  invalid one), a Series of object dtype.
- ``fingerprint(series, profile)``: the uint64 keys of
  ``uriscan dedup --keys``, 0 for an invalid row.
- ``dedup(frame, column="url", profile="scheme")``: the rows of ``frame``
  whose ``column`` is the first of its class across all partitions, in
  input order, invalid rows kept: the rows ``uriscan dedup`` writes for the
  concatenated input.
- ``dedup(frame, column, state=DIR, shards=N, output=DIR2)``: against a
  seen-state kept across runs (``uriscan dedup --state``), sharded by the
  keys' top bits: one task per shard, holding only that shard's lock,
  commits the shard's new lines to ``DIR2/part-NNNN.txt`` with its keys;
  then the driver seals the run (the whole state opened once more).
- ``read_lines(urlpath)``: text files (gzip and other compressed files
  too, by their name) as a Dask DataFrame with one ``url`` column, one row
  per line, split as the ``uriscan`` command splits them; ``write_lines``
  writes a Series back, one file per partition.

Each partition is one batch call into the C++ library, which releases the
GIL, so the threaded scheduler and multi-threaded workers scale too.
"""
import os
from typing import Any, Optional, Sequence

import numpy as np
import pandas as pd

import uriscan

__all__ = ["normalize", "fingerprint", "dedup", "read_lines", "write_lines"]

# The hidden columns dedup works with.
_KEY = "__uriscan_key"
_ORDER = "__uriscan_order"
_INDEX = "__uriscan_index"
_SHARD = "__uriscan_shard"
# A row's place in the input: (partition number << _SHIFT) + position in
# the partition, so rows of 2^40 per partition and 2^23 partitions fit an
# int64 and sort in input order.
_SHIFT = 40


def _is_dask(obj: Any) -> bool:
    return type(obj).__module__.startswith("dask")


def _check_profile(profile: Any) -> None:
    if not isinstance(profile, str):
        raise TypeError(f"profile: expected str, got {type(profile).__name__}")
    if profile not in uriscan.PROFILES:
        raise ValueError(f"profile: {profile!r} is not a profile; expected "
                         "'syntax', 'scheme', 'crawler' or 'w3lib'")


def _options(profile: str, tracking_params: Optional[Sequence[str]],
             fold_www: bool, lenient: bool) -> dict:
    """The keyword arguments of the batch calls, checked here (at once)
    rather than in a partition's task."""
    options = {"tracking_params": tracking_params, "fold_www": bool(fold_www),
               "lenient": bool(lenient)}
    uriscan.fingerprint([], profile, **options)  # raises on a bad option
    return options


def _check_series(series: Any) -> None:
    import dask.dataframe as dd
    if not isinstance(series, (pd.Series, dd.Series)):
        raise TypeError("series: expected a Dask or pandas Series, got "
                        f"{type(series).__name__}")


def _values(answer: Any) -> np.ndarray:
    """The NumPy values of an answer (a Series for pandas input), so that
    nothing is aligned on an index that may repeat labels."""
    return answer.to_numpy() if isinstance(answer, pd.Series) else answer


def _normalize_part(part: pd.Series, profile: str,
                    options: dict) -> pd.Series:
    return pd.Series(_values(uriscan.normalize(part, profile, **options)),
                     index=part.index, name=part.name, dtype=object)


def _fingerprint_part(part: pd.Series, profile: str,
                      options: dict) -> pd.Series:
    return pd.Series(_values(uriscan.fingerprint(part, profile, **options)),
                     index=part.index, name=part.name)


def normalize(series: Any, profile: str = "scheme",
              tracking_params: Optional[Sequence[str]] = None,
              fold_www: bool = False, lenient: bool = False) -> Any:
    """The normal form of every row of ``series`` under ``profile`` (see
    uriscan.normalize), None for an invalid row: a Series with the same
    index and partitions, of object dtype. Lazy for a Dask Series.
    ``tracking_params``, ``fold_www`` and ``lenient`` as uriscan.normalize
    takes them."""
    _check_series(series)
    _check_profile(profile)
    options = _options(profile, tracking_params, fold_www, lenient)
    if not _is_dask(series):
        return _normalize_part(series, profile, options)
    return series.map_partitions(_normalize_part, profile, options,
                                 meta=pd.Series([], dtype=object,
                                                name=series.name))


def fingerprint(series: Any, profile: str = "scheme",
                tracking_params: Optional[Sequence[str]] = None,
                fold_www: bool = False, lenient: bool = False) -> Any:
    """The uint64 key of every row of ``series`` under ``profile`` (the keys
    of ``uriscan dedup --keys``; 0 for an invalid row): a Series with the
    same index and partitions. Lazy for a Dask Series."""
    _check_series(series)
    _check_profile(profile)
    options = _options(profile, tracking_params, fold_www, lenient)
    if not _is_dask(series):
        return _fingerprint_part(series, profile, options)
    return series.map_partitions(_fingerprint_part, profile, options,
                                 meta=pd.Series([], dtype=np.uint64,
                                                name=series.name))


def _keyed(part: pd.DataFrame, column: str, profile: str, options: dict,
           partition_info: Optional[dict] = None) -> pd.DataFrame:
    """A partition with its rows' keys, their places in the input (as the
    index) and the original index (as a column)."""
    number = partition_info["number"] if partition_info else 0
    out = part.copy(deep=False)
    out[_KEY] = _values(uriscan.fingerprint(part[column], profile,
                                            **options))
    out[_INDEX] = part.index
    order = (np.int64(number) << _SHIFT) + np.arange(len(part),
                                                    dtype=np.int64)
    out.index = pd.Index(order, name=_ORDER)
    return out


def _keyed_frame(frame: Any, column: str, profile: str,
                 options: dict) -> Any:
    """_keyed() over every partition of a Dask DataFrame."""
    meta = frame._meta.copy()
    meta[_KEY] = np.array([], dtype=np.uint64)
    meta[_INDEX] = pd.Series([], dtype=frame._meta.index.dtype)
    meta.index = pd.Index([], dtype=np.int64, name=_ORDER)
    return frame.map_partitions(_keyed, column, profile, options, meta=meta,
                                enforce_metadata=False)


def _keep_first(part: pd.DataFrame, firsts: pd.DataFrame,
                index_name: Any) -> pd.DataFrame:
    """The rows of one partition that are invalid (key 0) or the first of
    their class (their place is in ``firsts``), with the original index."""
    keep = (part[_KEY].to_numpy() == 0) | part.index.isin(firsts.index)
    out = part[keep]
    index = pd.Index(out[_INDEX].to_numpy(), name=index_name)
    out = out.drop(columns=[_KEY, _INDEX])
    out.index = index
    return out


def _dedup_pandas(frame: pd.DataFrame, column: str, profile: str,
                  options: dict) -> pd.DataFrame:
    return frame[_values(uriscan.first_occurrence(frame[column], profile,
                                                  **options))]


def dedup(frame: Any, column: str = "url", profile: Optional[str] = None,
          tracking_params: Optional[Sequence[str]] = None,
          split_out: Optional[int] = None, fold_www: bool = False,
          lenient: bool = False, *, state: Any = None,
          shards: Optional[int] = None, output: Any = None) -> Any:
    """The rows of ``frame`` whose ``column`` holds the first URI of its
    class under ``profile`` across all partitions, in input order, with
    every invalid row kept: the rows ``uriscan dedup --profile=P`` writes
    for the partitions' rows concatenated in order. The result keeps the
    frame's columns, index and number of partitions (partition i holds
    the rows kept from input partition i).

    For a Dask DataFrame this is lazy and runs on Dask's own machinery: a
    groupby on the 64-bit key finds each class's first row (its
    aggregation is spread over ``split_out`` partitions by hash, default
    the frame's partition count), then a shuffle by range sends those rows'
    places back to their partitions. No partition ever holds the whole
    seen-set. A pandas DataFrame is deduplicated at once with
    uriscan.first_occurrence(). ``tracking_params``, ``fold_www`` and
    ``lenient`` as uriscan.first_occurrence takes them.

    With ``state=DIR`` the rows are deduplicated against a seen-state kept
    across runs, as ``uriscan dedup --state=DIR`` does (invalid rows are
    skipped), and this runs at once: each row goes to its key's shard by
    Dask's shuffle, then one task per shard, holding only that shard's
    lock, writes the shard's new rows (``column`` only, in input order) to
    ``output/part-NNNN.txt`` and commits them with their keys, so that a
    crash leaves both or neither. A new DIR gets ``shards`` shards (a power
    of 2, default 1); an existing one keeps its own (another count is an
    error). The same run again, after a killed worker or not, only
    completes the shards that did not commit (a committed part is left as
    it is). The union of the parts is what ``uriscan dedup --state=DIR``
    writes for the rows in order. When every task is done, the driver
    seals the run: it opens the whole state once more, so that its top
    MANIFEST records each shard's commit. Without ``profile``,
    ``tracking_params`` and ``fold_www``, an existing state's own profile
    and crawler options are taken, as the command takes them. Returns a
    pandas DataFrame with one row per shard: ``shard``, ``rows`` (its
    valid rows), ``written`` (the lines of its part, on a rerun too),
    ``invalid`` (the rows that are no URI reference, in no part; all on
    shard 0's row) and ``rerun``.
    """
    import dask.dataframe as dd
    if not isinstance(frame, (pd.DataFrame, dd.DataFrame)):
        raise TypeError("frame: expected a Dask or pandas DataFrame, got "
                        f"{type(frame).__name__}")
    if not isinstance(column, str):
        raise TypeError(f"column: expected str, got {type(column).__name__}")
    if column not in frame.columns:
        raise ValueError(f"column: {column!r} is not a column of frame "
                         f"(it has {list(frame.columns)!r})")
    if profile is None:
        profile = "scheme"
        # As `uriscan dedup --state=DIR` without --profile, --tracking-params
        # or --fold-www: the profile and options the state was made with.
        if state is not None and tracking_params is None and not fold_www:
            taken = _state_profile(os.fspath(state))
            if taken is not None:
                profile, tracking_params, fold_www = taken
    _check_profile(profile)
    for name in (_KEY, _ORDER, _INDEX):
        if name in frame.columns:
            raise ValueError(f"frame: the column name {name!r} is reserved")
    options = _options(profile, tracking_params, fold_www, lenient)
    if state is not None or output is not None or shards is not None:
        return _dedup_state(frame, column, profile, options, state, shards,
                            output)
    if not _is_dask(frame):
        return _dedup_pandas(frame, column, profile, options)

    n = frame.npartitions
    if n >= 1 << (63 - _SHIFT):
        raise ValueError(f"frame: {n} partitions; at most "
                         f"{(1 << (63 - _SHIFT)) - 1} are supported")
    if split_out is None:
        split_out = n
    elif not isinstance(split_out, int) or split_out < 1:
        raise ValueError("split_out: expected a positive int, got "
                         f"{split_out!r}")
    keyed = _keyed_frame(frame, column, profile, options)
    # Partition i holds the places [i << _SHIFT, (i + 1) << _SHIFT): these
    # divisions are true by construction, so declaring them costs nothing.
    divisions = tuple(i << _SHIFT for i in range(n)) + ((n << _SHIFT) - 1,)
    keyed.divisions = divisions

    valid = keyed[keyed[_KEY] != 0][[_KEY]].reset_index()
    # The first place of each class: Dask's groupby on the 64-bit key, its
    # result hash-partitioned over split_out partitions.
    firsts = valid.groupby(_KEY, sort=False)[_ORDER].min(split_out=split_out)
    # Back to the partitions the places came from: Dask's shuffle by range.
    firsts = firsts.to_frame().set_index(_ORDER, divisions=divisions)
    return keyed.map_partitions(_keep_first, firsts, frame._meta.index.name,
                                meta=frame._meta, align_dataframes=False)


def _state_manifest(state: str) -> Optional[dict]:
    """The lines of a state's (top) MANIFEST as a dict of their first word
    to the rest (the first line of each word), or None when there is no
    state there yet."""
    try:
        with open(os.path.join(state, "MANIFEST"), "rb") as f:
            text = f.read().decode("utf-8", "replace")
    except FileNotFoundError:
        return None
    fields: dict = {}
    for line in text.splitlines():
        word, _, rest = line.partition(" ")
        fields.setdefault(word, rest)
    return fields


def _state_shards(state: str) -> Optional[int]:
    """The shard count a state's MANIFEST names (1 when it names none), or
    None when there is no state there yet."""
    fields = _state_manifest(state)
    if fields is None:
        return None
    return int(fields.get("shards", "1"))


def _state_profile(state: str) -> Optional[tuple]:
    """(profile, tracking_params, fold_www) of the keys a state holds, as
    its MANIFEST names them (the command's TakeStateProfile), or None when
    there is no state there yet (or it names no profile)."""
    fields = _state_manifest(state)
    if fields is None or "profile" not in fields:
        return None
    profile = fields["profile"]
    if profile not in uriscan.PROFILES:
        raise ValueError(f"state: {state} holds keys of profile "
                         f"{profile!r}, which this uriscan does not know")
    if profile != "crawler":
        return profile, None, False
    # The tracking names, comma-separated, "+fold-www" last when www. is
    # folded; "-" for none.
    tracking = fields.get("tracking", "-")
    names, fold_www = [], False
    for name in ([] if tracking == "-" else tracking.split(",")):
        if name == "+fold-www":
            fold_www = True
        elif name:
            names.append(name)
    return profile, names, fold_www


def _shard_task(part: pd.DataFrame, column: str, profile: str,
                options: dict, state: str, shards: int, output: str,
                partition_info: Optional[dict] = None) -> pd.DataFrame:
    """One shard's rows, in input order, against that shard alone."""
    shard = partition_info["number"] if partition_info else 0
    rows = part.sort_values(_ORDER)[column]
    where = (os.path.join(state, f"shard-{shard:04d}") if shards > 1
             else state)
    part_name = os.path.join(output, f"part-{shard:04d}.txt")
    answer = uriscan._uriscan._dedup_into_state(
        uriscan._rows(rows), where, part_name,
        0, profile, options.get("tracking_params"),
        options.get("fold_www", False), options.get("lenient", False))
    written = answer["written"]
    if answer["rerun"]:  # the part a commit of these rows wrote: its lines
        written = _count_lines(part_name)
    return pd.DataFrame({"shard": [shard], "rows": [len(rows)],
                         "written": [written], "invalid": [0],
                         "rerun": [answer["rerun"]]})


def _count_lines(path: str) -> int:
    """The lines of a part (each ends in "\\n")."""
    count = 0
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            count += block.count(b"\n")
    return count


def _seal_or_create(state: str, shards: int, profile: str,
                    options: dict) -> None:
    """The whole state opened for update with no rows: makes a new state
    with its shards, or seals a run whose shard tasks are done (the top
    MANIFEST then records each shard's commit)."""
    uriscan._uriscan._dedup_into_state(
        uriscan._rows([]), state, "", shards, profile,
        options.get("tracking_params"), options.get("fold_www", False),
        options.get("lenient", False))


def _dedup_state(frame: Any, column: str, profile: str, options: dict,
                 state: Any, shards: Optional[int],
                 output: Any) -> pd.DataFrame:
    import dask
    import dask.dataframe as dd
    if state is None or output is None:
        raise ValueError("state and output: both are needed for a dedup "
                         "against a seen-state (shards only with them)")
    state, output = os.fspath(state), os.fspath(output)
    if shards is not None and (not isinstance(shards, int) or shards < 1 or
                               shards > 4096 or shards & (shards - 1)):
        raise ValueError(f"shards: expected a power of 2 from 1 to 4096, "
                         f"got {shards!r}")
    have = _state_shards(state)
    if have is None:  # made here, with its shards, before any task runs
        have = shards or 1
        _seal_or_create(state, have, profile, options)
    elif shards is not None and shards != have:
        raise ValueError(f"shards: {state} has {have} shard"
                         f"{'' if have == 1 else 's'}, not {shards}: a "
                         f"state's shards are fixed when it is made")
    os.makedirs(output, exist_ok=True)
    if not _is_dask(frame):
        frame = dd.from_pandas(frame, npartitions=1)
    keyed = _keyed_frame(frame, column, profile, options)
    # Invalid rows (key 0) go to no shard: counted where they are.
    invalid = (keyed[_KEY] == 0).sum()
    valid = keyed[keyed[_KEY] != 0][[column, _KEY]].reset_index()
    bits = have.bit_length() - 1
    valid[_SHARD] = valid[_KEY].map_partitions(
        lambda k: pd.Series((k.to_numpy() >> np.uint64(64 - bits)).astype(
            np.int64) if bits else np.zeros(len(k), dtype=np.int64),
            index=k.index), meta=(_SHARD, np.int64))
    # Dask's shuffle by range: partition i holds shard i's rows.
    divisions = tuple(range(have)) + (have - 1,)
    routed = valid.set_index(_SHARD, divisions=divisions)
    summary = pd.DataFrame({"shard": pd.Series([], dtype=np.int64),
                            "rows": pd.Series([], dtype=np.int64),
                            "written": pd.Series([], dtype=np.int64),
                            "invalid": pd.Series([], dtype=np.int64),
                            "rerun": pd.Series([], dtype=bool)})
    tasks = routed.map_partitions(_shard_task, column, profile, options,
                                  state, have, output, meta=summary,
                                  align_dataframes=False)
    # One computation: the rows' keys are computed once for both.
    result, invalid = dask.compute(tasks, invalid)
    result = result.reset_index(drop=True)
    result.loc[result["shard"] == 0, "invalid"] = int(invalid)
    # Every shard committed: the run is sealed.
    _seal_or_create(state, have, profile, options)
    return result


_BOM = b"\xef\xbb\xbf"


def _lines_frame(block: bytes, first_of_file: bool,
                 encoding: str) -> pd.DataFrame:
    """One block of a file (whole lines) as a one-column DataFrame, split as
    the command splits input: "\\n" ends a line, a "\\r" just before it is
    dropped, and so is a UTF-8 byte-order mark at the start of a file."""
    if first_of_file and block.startswith(_BOM):
        block = block[len(_BOM):]
    lines = block.decode(encoding, "surrogateescape").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    return pd.DataFrame({"url": pd.Series(lines, dtype=object)})


def read_lines(urlpath: Any, blocksize: Optional[int] = None,
               compression: str = "infer",
               encoding: str = "utf-8") -> Any:
    """Text files as a Dask DataFrame with one column, ``url``: one row per
    line, as the ``uriscan`` command reads its input files (the ``"\\n"``
    and a ``"\\r"`` just before it dropped, and a UTF-8 byte-order mark at
    the start of a file). ``urlpath`` is a path, a glob (``"logs/*.gz"``) or
    a list of them; compression is inferred from the file names (``.gz``,
    ``.bz2``, ``.xz``, ``.zst``), as fsspec does. One partition per file, or
    per ``blocksize`` bytes of an uncompressed file (compressed ones are
    read whole). Bytes that are not UTF-8 are decoded with surrogate
    escapes: they stay (invalid) rows, and write_lines() writes them back.
    """
    import dask
    import dask.dataframe as dd
    from dask.bytes import read_bytes
    from fsspec.core import get_fs_token_paths
    from fsspec.utils import infer_compression

    _, _, paths = get_fs_token_paths(urlpath, mode="rb")
    if not paths:
        raise ValueError(f"urlpath: no file matches {urlpath!r}")
    parts = []
    for path in paths:
        compressed = (infer_compression(path) if compression == "infer"
                      else compression)
        # A compressed file cannot be cut without reading it: whole.
        _, files = read_bytes(path, delimiter=b"\n",
                              blocksize=None if compressed else blocksize,
                              sample=False, compression=compression)
        parts += [dask.delayed(_lines_frame)(block, k == 0, encoding)
                  for blocks in files for k, block in enumerate(blocks)]
    meta = pd.DataFrame({"url": pd.Series([], dtype=object)})
    return dd.from_delayed(parts, meta=meta, verify_meta=False)


def write_lines(series: Any, urlpath: Any, compression: str = "infer",
                encoding: str = "utf-8") -> Any:
    """Writes a Dask Series of str as text, one row per line ending in
    ``"\\n"``, one file per partition: ``urlpath`` is a glob such as
    ``"out/part-*.txt.gz"`` (``*`` becomes the partition number,
    zero-padded to 4 digits or more so that the names sort in order, and
    the name's suffix picks the compression) or a list of names. Rows read by
    read_lines() from bytes that were not UTF-8 are written back as those
    bytes. Returns the names written."""
    import dask
    import dask.dataframe as dd
    from fsspec.core import get_fs_token_paths
    if not isinstance(series, dd.Series):
        raise TypeError("series: expected a Dask Series, got "
                        f"{type(series).__name__}")
    # Each partition encoded here, surrogate escapes back to their bytes,
    # and written whole to a temporary name first: Dask's to_textfiles
    # raised on surrogates and left partial files behind.
    # Zero-padded numbers (as the state's part-NNNN.txt), so that the
    # names sort in the partitions' order.
    width = max(4, len(str(series.npartitions - 1)))
    _, _, paths = get_fs_token_paths(
        urlpath, mode="wb", num=series.npartitions,
        name_function=lambda i: f"{i:0{width}d}")
    writes = [dask.delayed(_write_part)(part, path, compression, encoding)
              for part, path in zip(series.to_delayed(), paths)]
    return list(dask.compute(*writes))


def _write_part(part: Any, path: str, compression: str,
                encoding: str) -> str:
    """One partition's rows as lines of `path` (renamed into place whole)."""
    import os
    from fsspec import open as open_file
    from fsspec.utils import infer_compression
    if compression == "infer":
        compression = infer_compression(path)
    data = b"".join(str(row).encode(encoding, "surrogateescape") + b"\n"
                    for row in part)
    temporary = path + ".tmp"
    with open_file(temporary, "wb", compression=compression) as f:
        f.write(data)
    os.replace(temporary, path)
    return path
