# SPDX-License-Identifier: MIT
"""uriscan.dask without a cluster: the threaded scheduler, pandas alone,
gzipped inputs through read_lines, and argument errors."""
import gzip

import pandas as pd
import pytest
import uriscan
import uriscan.dask as ud
from conftest import run, text
from dask_support import check, expected

dd = pytest.importorskip("dask.dataframe")
np = pytest.importorskip("numpy")


def test_dedup_threaded_scheduler(cli, frame, rows):
    ddf = dd.from_pandas(frame, npartitions=3)
    result = ud.dedup(ddf).compute(scheduler="threads")
    check(result, frame, expected(cli, rows))


def test_dedup_pandas_alone(cli, frame, rows):
    result = ud.dedup(frame)
    assert isinstance(result, pd.DataFrame)
    check(result, frame, expected(cli, rows))
    keys = ud.fingerprint(frame["url"])
    assert isinstance(keys, pd.Series) and keys.dtype == np.uint64
    assert ud.normalize(frame["url"], "syntax").tolist() == \
        uriscan.normalize(rows, "syntax").tolist()


def test_crawler_options_and_lenient_as_the_command(cli):
    rows = ["http://www.b\u00fccher.example/a?utm_source=1&ref=x",
            "http://xn--bcher-kva.example/a", "http://B%C3%BCcher.example/a?ref=y",
            "not a url", "http://other.example/"]
    frame = pd.DataFrame({"url": rows}, index=[4, 4, 9, 2, 0])
    ddf = dd.from_pandas(frame, npartitions=2, sort=False)
    args = dict(profile="crawler", tracking_params=["+ref"], fold_www=True,
                lenient=True)
    want = run(cli, "dedup", "--profile=crawler", "--tracking-params=+ref",
               "--fold-www", "--lenient",
               data="\n".join(rows).encode() + b"\n")
    for result in (ud.dedup(ddf, **args).compute(scheduler="threads"),
                   ud.dedup(frame, **args)):
        assert [r.encode() for r in result["url"]] == want
    normal = ud.normalize(ddf["url"], **args).compute(scheduler="threads")
    assert normal.tolist() == uriscan.normalize(rows, **args).tolist()
    assert normal.iloc[0] == "http://xn--bcher-kva.example/a"
    keys = ud.fingerprint(ddf["url"], **args).compute(scheduler="threads")
    assert keys.tolist() == uriscan.fingerprint(rows, **args).tolist()
    with pytest.raises(ValueError, match="fold_www"):
        ud.normalize(ddf["url"], fold_www=True)


def test_read_lines_gzip(cli, tmp_path, rows):
    """A directory of gzipped URL lists, one partition per file."""
    pieces = [rows[i::3] for i in range(3)]
    for i, piece in enumerate(pieces):
        data = "".join(r + ("\r\n" if j % 5 == 0 else "\n")
                       for j, r in enumerate(piece))
        with gzip.open(tmp_path / f"part{i}.txt.gz", "wb") as f:
            f.write(data.encode("utf-8", "surrogateescape"))
    ddf = ud.read_lines(str(tmp_path / "*.txt.gz"))
    assert ddf.npartitions == 3
    result = ud.dedup(ddf).compute(scheduler="threads")
    concatenated = pieces[0] + pieces[1] + pieces[2]
    want = expected(cli, concatenated)
    assert result["url"].tolist() == want
    # Written back, one gzip file per partition, and read again.
    out = tmp_path / "out"
    names = ud.write_lines(ud.dedup(ddf)["url"], str(out / "part-*.txt.gz"))
    assert len(names) == 3
    raw = b"".join(gzip.open(name).read() for name in sorted(names))
    assert raw == b"".join(w.encode("utf-8", "surrogateescape") + b"\n"
                           for w in want)


def test_write_lines_round_trips_bytes_that_are_not_utf8(tmp_path):
    """Rows read_lines() took from Latin-1 bytes are written back as those
    bytes (write_lines raised UnicodeEncodeError and left partial files)."""
    raw = b"http://a/\nhttp://b/caf\xe9\n\xff\xfe\nhttp://c/\n"
    (tmp_path / "in.txt").write_bytes(raw)
    frame = ud.read_lines(str(tmp_path / "in.txt"), blocksize=16)
    out = tmp_path / "out"
    out.mkdir()
    for pattern in ("part-*.txt", "part-*.txt.gz"):
        names = ud.write_lines(frame["url"], str(out / pattern))
        assert len(names) == frame.npartitions
        opener = gzip.open if pattern.endswith(".gz") else open
        back = b"".join(opener(name, "rb").read() for name in
                        sorted(names, key=lambda n: int(
                            n.rsplit("-", 1)[1].split(".")[0])))
        assert back == raw
    assert not list(out.glob("*.tmp"))


def test_read_lines_as_the_command_reads_files(cli, tmp_path):
    """Blocks of a large file, gzip, CRLF, a byte-order mark at the start
    of a file (dropped) and in the middle of one (kept), bytes that are not
    UTF-8, a last line without a newline."""
    plain = b"\xef\xbb\xbfhttp://a/\r\n\xef\xbb\xbfhttp://b/\nhttp://\xff/\n"
    plain += b"".join(b"http://h%d/%d\n" % (i % 97, i) for i in range(5000))
    plain += b"HTTP://H1/1"
    (tmp_path / "a.txt").write_bytes(plain)
    with gzip.open(tmp_path / "b.txt.gz", "wb") as f:
        f.write(b"\xef\xbb\xbfhttp://h2/2\nhttp://c/\r\n")
    paths = [str(tmp_path / "a.txt"), str(tmp_path / "b.txt.gz")]
    frame = ud.read_lines(paths, blocksize=4096)
    assert frame.npartitions > 3
    want_lines = run(cli, "dedup", "--profile=syntax", "--quiet", *paths)
    got = ud.dedup(frame, profile="syntax").compute(scheduler="sync")
    assert got["url"].tolist() == [text(w) for w in want_lines]
    rows = frame.compute(scheduler="sync")["url"].tolist()
    assert rows[:3] == ["http://a/", "\ufeffhttp://b/",
                        "http://\udcff/"]
    assert rows[-3:] == ["HTTP://H1/1", "http://h2/2", "http://c/"]


def test_dedup_errors(frame):
    ddf = dd.from_pandas(frame, npartitions=2)
    with pytest.raises(TypeError, match=r"^frame: expected a Dask or pandas "
                       r"DataFrame, got list"):
        ud.dedup([1, 2])
    with pytest.raises(ValueError, match=r"^column: 'link' is not a column"):
        ud.dedup(ddf, column="link")
    with pytest.raises(TypeError, match=r"^column: expected str"):
        ud.dedup(ddf, column=1)
    with pytest.raises(ValueError, match=r"^profile: 'x' is not a profile"):
        ud.dedup(ddf, profile="x")
    with pytest.raises(ValueError, match=r"^split_out: expected a positive"):
        ud.dedup(ddf, split_out=0)
    with pytest.raises(TypeError, match=r"^series: expected a Dask or pandas "
                       r"Series, got DataFrame"):
        ud.fingerprint(ddf)
    with pytest.raises(ValueError, match=r"^profile: "):
        ud.normalize(ddf["url"], "nope")
    with pytest.raises(TypeError, match=r"^urls: a Dask collection"):
        uriscan.fingerprint(ddf["url"])
