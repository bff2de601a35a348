# SPDX-License-Identifier: MIT
"""uriscan.read_log: the rows of the command's extract (the same reading
layer), a log's fields beside them, its errors, and Ctrl-C while it waits
for input."""
import _thread
import gzip
import os
import re
import subprocess
import threading
import time

import numpy as np
import pandas as pd
import pytest

import uriscan
from conftest import SHARED, corpus_files, read_lines, run

LOG = SHARED / "apache_access.log"


def extracted(cli, path, *args):
    """(line, reference) pairs of `uriscan extract --with-line`."""
    rows = []
    for record in run(cli, "extract", "--with-line", *args, path=path):
        line, _, uri = record.partition(b"\t")
        rows.append((int(line), uri.decode("utf-8", "replace")))
    return rows


@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name)
def test_lines_are_the_files_lines(path):
    frame = uriscan.read_log(str(path))
    want = [line.decode("utf-8", "replace") for line in read_lines(path)]
    assert list(frame["uri"]) == want
    assert list(frame["line"]) == list(range(1, len(want) + 1))
    assert frame["line"].dtype == np.uint64
    assert set(frame["file"]) == {str(path)}


@pytest.mark.skipif(not LOG.is_file(), reason="no shared corpus")
@pytest.mark.parametrize("fmt,field", [("clf", None), ("combined", None),
                                       ("combined", "referer"),
                                       ("text", None)])
def test_formats_equal_extract(cli, fmt, field):
    args = ["--from=" + fmt] + (["--field=" + field] if field else [])
    want = extracted(cli, LOG, *args)
    frame = uriscan.read_log(LOG, format=fmt, field=field)
    refs = frame[frame["uri"].notna()]
    assert list(zip(refs["line"].tolist(), refs["uri"])) == want
    # A malformed line is marked in its row: the command's diagnostics.
    diagnostics = subprocess.run(
        [cli, "extract", "--quiet", *args, str(LOG)], capture_output=True,
        check=False).stderr.decode().splitlines()
    marked = frame[frame["problem"].notna()]
    assert [(int(d.split(":")[1]), d.split(": error: ", 1)[1])
            for d in diagnostics] == \
        list(zip(marked["line"].tolist(), marked["problem"]))


def test_malformed_lines_are_marked_in_their_rows(tmp_path):
    log = tmp_path / "a.log"
    log.write_bytes(
        b'1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET /a HTTP/1.0" 200 1 '
        b'"-" "ua"\n'
        b'not a log line\n'
        b'1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET /b HTTP/1.0" 404 2 '
        b'"-" "cut\n')
    frame = uriscan.read_log(log, format="combined")
    assert frame["line"].tolist() == [1, 2, 3]
    assert frame["uri"].tolist() == ["/a", None, "/b"]
    assert frame["problem"].tolist() == [
        None, "log-format: expected [date]",
        "log-format: expected a quoted user agent"]
    assert frame["status"].tolist()[0] == 200
    assert pd.isna(frame["status"][1]) and pd.isna(frame["time"][1])
    assert frame["status"][2] == 404
    assert list(frame.columns)[-1] == "problem"


# host ident user [time] "request" status bytes "referer" "agent"
COMBINED = re.compile(
    r'^(\S+) \S+ \S+ \[([^\]]+)\] "(\S+) [^"]*" (\d{3}) (\d+|-) '
    r'"([^"]*)" "([^"]*)"$')


@pytest.mark.skipif(not LOG.is_file(), reason="no shared corpus")
def test_combined_fields_match_the_log():
    frame = uriscan.read_log(LOG, format="combined")
    assert str(frame["time"].dtype) == "datetime64[ns, UTC]"
    assert str(frame["status"].dtype) == "Int32"
    assert str(frame["bytes"].dtype) == "Int64"
    by_line = frame.set_index("line")
    checked = 0
    for number, text in enumerate(LOG.read_text(errors="replace")
                                  .splitlines(), 1):
        m = COMBINED.match(text)
        if not m or number not in by_line.index or "\\" in text:
            continue
        row = by_line.loc[number]
        assert row["client"] == m.group(1)
        when = pd.to_datetime(m.group(2), format="%d/%b/%Y:%H:%M:%S %z")
        assert row["time"] == when.tz_convert("UTC")
        assert row["method"] == m.group(3)
        assert row["status"] == int(m.group(4))
        if m.group(5) == "-":
            assert row["bytes"] is pd.NA
        else:
            assert row["bytes"] == int(m.group(5))
        assert (row["referer"] is None) == (m.group(6) == "-")
        if m.group(6) != "-":
            assert row["referer"] == m.group(6)
        checked += 1
    assert checked > 9000


def test_missing_fields_are_missing(tmp_path):
    log = tmp_path / "a.log"
    log.write_bytes(
        b'1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET /a HTTP/1.0" 200 - '
        b'"-" "-"\n'
        b'5.6.7.8 - - [not a time] "POST /b HTTP/1.1" 404 12 "http://r/" '
        b'"agent \\"x\\""\n')
    frame = uriscan.read_log(log, format="combined")
    assert list(frame["uri"]) == ["/a", "/b"]
    assert frame["time"][0] == pd.Timestamp("2000-10-10 20:55:36", tz="UTC")
    assert pd.isna(frame["time"][1])
    assert list(frame["method"]) == ["GET", "POST"]
    assert list(frame["status"]) == [200, 404]
    assert pd.isna(frame["bytes"][0]) and frame["bytes"][1] == 12
    assert frame["referer"][0] is None and frame["referer"][1] == "http://r/"
    assert frame["user_agent"][0] is None
    assert frame["user_agent"][1] == 'agent "x"'


def test_times_are_utc_and_missing_outside_pandas_range(tmp_path):
    log = tmp_path / "a.log"
    log.write_bytes(
        b'1.2.3.4 - - [31/Dec/9999:23:59:59 +0000] "GET /a HTTP/1.0" 200 1\n'
        b'1.2.3.4 - - [01/Jan/1600:00:00:00 +0000] "GET /b HTTP/1.0" 200 1\n'
        b'1.2.3.4 - - [01/Jan/2262:00:00:00 +0100] "GET /c HTTP/1.0" 200 1\n')
    frame = uriscan.read_log(log, format="clf")
    assert list(frame["uri"]) == ["/a", "/b", "/c"]
    assert str(frame["time"].dtype) == "datetime64[ns, UTC]"
    assert pd.isna(frame["time"][0]) and pd.isna(frame["time"][1])
    assert frame["time"][2] == pd.Timestamp("2261-12-31 23:00:00", tz="UTC")


def test_unclosed_quote_equals_extract(cli, tmp_path):
    table = tmp_path / "c.csv"
    table.write_bytes(b'"http://a/\n' + b"http://b/,x\n" * 2000)
    want = extracted(cli, table, "--from=csv", "--max-line=1000")
    assert want == []
    frame = uriscan.read_log(table, format="csv")
    frame = frame[frame["uri"].notna()]
    assert list(zip(frame["line"].tolist(), frame["uri"])) == \
        extracted(cli, table, "--from=csv")


def test_gzip_and_lists_of_files(tmp_path):
    plain = tmp_path / "a.txt"
    plain.write_bytes(b"http://a/\nhttp://b/\n")
    packed = tmp_path / "b.txt.gz"
    packed.write_bytes(gzip.compress(b"http://c/\n"))
    frame = uriscan.read_log([plain, packed])
    assert list(frame["uri"]) == ["http://a/", "http://b/", "http://c/"]
    assert list(frame["file"]) == [str(plain)] * 2 + [str(packed)]


def test_errors_name_what_is_wrong(tmp_path):
    with pytest.raises(ValueError, match="format"):
        uriscan.read_log(tmp_path / "x", format="xml")
    with pytest.raises(ValueError, match="field"):
        uriscan.read_log(tmp_path / "x", format="jsonl")
    with pytest.raises(FileNotFoundError, match="nope.txt") as missing:
        uriscan.read_log(tmp_path / "nope.txt")
    assert missing.value.filename == str(tmp_path / "nope.txt")
    with pytest.raises(IsADirectoryError):  # an OSError, read() refused
        uriscan.read_log(tmp_path)
    bad = tmp_path / "bad.gz"
    bad.write_bytes(gzip.compress(b"http://a/\n" * 1000)[:60])
    with pytest.raises(RuntimeError, match="bad.gz"):
        uriscan.read_log(bad)


def test_ctrl_c_ends_a_wait_for_input(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    timer = threading.Timer(0.3, _thread.interrupt_main)
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        uriscan.read_log(fifo)
    assert time.monotonic() - start < 1.5
