# SPDX-License-Identifier: MIT
"""Shared by the Dask tests: the rows, the frame, the command's answer."""
import random

import numpy as np
import pandas as pd
import pytest
from conftest import corpus_files, run, split_lines


def text(line: bytes) -> str:
    return line.decode("utf-8", "surrogateescape")


@pytest.fixture(scope="module")
def rows():
    """Every corpus line, then again a shuffled half of them and some with
    an upper-case scheme or host (equal under the scheme profile): classes
    with members spread over all partitions, invalid rows included."""
    lines = []
    for path in corpus_files():
        lines += split_lines(path.read_bytes())
    rng = random.Random(3986)
    again = rng.sample(lines, len(lines) // 2)
    upper = [line.replace(b"http://", b"HTTP://", 1)
             for line in rng.sample(lines, len(lines) // 4)]
    rows = lines + again + upper
    rng.shuffle(rows)
    return [text(r) for r in rows]


@pytest.fixture(scope="module")
def frame(rows):
    return pd.DataFrame({"url": rows, "n": np.arange(len(rows)) * 10},
                        index=pd.RangeIndex(5, 5 + len(rows), name="row"))


def expected(cli, rows, profile="scheme"):
    data = b"".join(r.encode("utf-8", "surrogateescape") + b"\n"
                    for r in rows)
    return [text(line) for line in run(cli, "dedup", "--profile=" + profile,
                                       data=data)]


def check(result, frame, want):
    """The rows kept are the command's, in its order, with their own
    index and other columns."""
    assert result["url"].tolist() == want
    assert list(result.columns) == list(frame.columns)
    assert result.index.name == frame.index.name
    assert (frame.loc[result.index, "url"] == result["url"]).all()
    assert (frame.loc[result.index, "n"] == result["n"]).all()


