# SPDX-License-Identifier: MIT
"""uriscan.dask.dedup against a sharded seen-state on a LocalCluster of two
worker processes: the union of each day's parts is what one unsharded
`uriscan dedup --state` writes for the same days, through a killed worker
and a rerun; each shard's part holds its lines in input order."""
import os
import random
import subprocess
from pathlib import Path

import pandas as pd
import pytest
import uriscan
import uriscan.dask as ud

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
dask = pytest.importorskip("dask")


def day_rows(day: int, n: int = 3000, pool: int = 5000):
    rng = random.Random(1000 + day)
    rows = []
    for _ in range(n):
        u = rng.randrange(pool)
        kind = rng.randrange(10)
        if kind == 0:
            rows.append(f"HTTP://H{u % 97}.EXAMPLE:80/p/{u}")
        elif kind == 1:
            rows.append(f"http://bad host/{u}")
        else:
            rows.append(f"http://h{u % 97}.example/p/{u}")
    return rows


def command_days(cli, state, days):
    """The lines one unsharded `uriscan dedup --state` writes, day by day."""
    out = []
    for rows in days:
        run = subprocess.run([cli, "dedup", "--quiet", f"--state={state}"],
                             input=("\n".join(rows) + "\n").encode(),
                             capture_output=True, check=True)
        out.append(run.stdout.decode().splitlines())
    return out


def parts(directory):
    lines = []
    for part in sorted(Path(directory).glob("part-*.txt")):
        lines.extend(part.read_text().splitlines())
    return lines


def cluster(env=None):
    old = dict(os.environ)
    os.environ.update(env or {})
    try:  # the worker processes inherit the environment they start in
        return distributed.LocalCluster(n_workers=2, threads_per_worker=1,
                                        dashboard_address=None,
                                        processes=True)
    finally:
        os.environ.clear()
        os.environ.update(old)


def test_sharded_state_on_a_cluster_matches_the_command(cli, tmp_path):
    days = [day_rows(d) for d in range(3)]
    want = command_days(cli, tmp_path / "plain", days)
    state = tmp_path / "seen"
    # Day 0 on a healthy cluster: a new state of 4 shards.
    with cluster() as c, distributed.Client(c):
        frame = dd.from_pandas(pd.DataFrame({"url": days[0]}), npartitions=3)
        summary = ud.dedup(frame, state=state, shards=4,
                           output=tmp_path / "day0")
        assert sorted(summary["shard"]) == [0, 1, 2, 3]
        assert summary["written"].sum() == len(want[0])
        assert not summary["rerun"].any()
    assert sorted(parts(tmp_path / "day0")) == sorted(want[0])
    # Within a part, lines keep their input order.
    for part in (tmp_path / "day0").glob("part-*.txt"):
        lines = part.read_text().splitlines()
        assert lines == sorted(lines, key=want[0].index)
    # Day 1: every commit kills its worker after its MANIFEST is in place
    # (before its part is renamed); Dask gives up on the task.
    frame = dd.from_pandas(pd.DataFrame({"url": days[1]}), npartitions=3)
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        with cluster({"URISCAN_TEST_CRASH_AT": "manifest-named"}) as c, \
                distributed.Client(c):
            with pytest.raises(Exception):
                ud.dedup(frame, state=state, output=tmp_path / "day1")
    # The rerun completes it: the shards that committed put their parts in
    # place and have nothing to do, the others run.
    with cluster() as c, distributed.Client(c):
        summary = ud.dedup(frame, state=state, output=tmp_path / "day1")
        assert summary["rerun"].any()
        assert sorted(parts(tmp_path / "day1")) == sorted(want[1])
        # And once more: every shard is a rerun, nothing changes.
        again = ud.dedup(frame, state=state, output=tmp_path / "day1")
        assert again["rerun"].all()
        assert sorted(parts(tmp_path / "day1")) == sorted(want[1])
        frame = dd.from_pandas(pd.DataFrame({"url": days[2]}), npartitions=2)
        ud.dedup(frame, state=state, output=tmp_path / "day2")
    assert sorted(parts(tmp_path / "day2")) == sorted(want[2])
    # The command reads the sharded state the tasks wrote.
    report = subprocess.run([cli, "state", "--verify", str(state)],
                            capture_output=True, check=True, text=True)
    keys = sum(len(w) for w in want)
    assert f"\nkeys      {keys}\n" in report.stdout
    assert "shards    4" in report.stdout


def test_state_arguments_are_checked(tmp_path):
    frame = pd.DataFrame({"url": ["http://a/", "http://b/"]})
    with pytest.raises(ValueError, match="state and output"):
        ud.dedup(frame, state=tmp_path / "s")
    with pytest.raises(ValueError, match="power of 2"):
        ud.dedup(frame, state=tmp_path / "s", shards=3, output=tmp_path / "o")
    summary = ud.dedup(frame, state=tmp_path / "s", shards=2,
                       output=tmp_path / "o")
    assert summary["written"].sum() == 2
    with pytest.raises(ValueError, match="has 2 shards, not 4"):
        ud.dedup(frame, state=tmp_path / "s", shards=4, output=tmp_path / "p")
    # Other rows into a part a commit wrote: an error, nothing added.
    other = pd.DataFrame({"url": ["http://c/"]})
    with pytest.raises(Exception, match="committed"):
        ud.dedup(other, state=tmp_path / "s", output=tmp_path / "o")
