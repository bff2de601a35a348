# SPDX-License-Identifier: MIT
"""Shared by the Dask tests: the command's answer, and the check of a
result against it (the rows and the frame are fixtures in conftest)."""
from conftest import run, text


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


