# SPDX-License-Identifier: MIT
"""uriscan.dask.dedup against a sharded seen-state on a LocalCluster of two
worker processes: the union of each day's parts is what one unsharded
`uriscan dedup --state` writes for the same days, through a killed worker
and a rerun; each shard's part holds its lines in input order. And on
Dask's local scheduler: the profile a state was made with, the summary of
a rerun, the sealing call, write_lines' part names."""
import gzip
import os
import random
import shutil
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
        assert again["written"].sum() == len(want[1])
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


def crawler_rows(day: int, n: int = 600, pool: int = 300):
    """Rows whose classes differ by profile: tracking parameters, www.,
    a `ref` parameter, and invalid rows."""
    rng = random.Random(2000 + day)
    rows = []
    for _ in range(n):
        u = rng.randrange(pool)
        kind = rng.randrange(6)
        if kind == 0:
            rows.append(f"http://www.h{u % 23}.example/p/{u}?utm_source=x")
        elif kind == 1:
            rows.append(f"http://h{u % 23}.example/p/{u}?ref=r{day}")
        elif kind == 2:
            rows.append(f"http://bad host/{u}")
        else:
            rows.append(f"http://h{u % 23}.example/p/{u}")
    return rows


def test_a_state_the_command_made_gives_its_profile(cli, tmp_path):
    """Without a profile, a state's own profile and crawler options are
    taken, as the command takes them (the tasks raised an error naming the
    command's flags)."""
    days = [crawler_rows(d) for d in range(2)]
    for name, flags in (("plain", ["--profile=crawler"]),
                        ("options", ["--profile=crawler", "--fold-www",
                                     "--tracking-params=+ref",
                                     "--shards=2"])):
        state, reference = tmp_path / name, tmp_path / f"{name}-command"
        subprocess.run([cli, "dedup", "--quiet", f"--state={state}", *flags],
                       input=("\n".join(days[0]) + "\n").encode(),
                       capture_output=True, check=True)
        shutil.copytree(state, reference)
        want = command_days(cli, reference, days[1:])[0]
        frame = dd.from_pandas(pd.DataFrame({"url": days[1]}), npartitions=2)
        with pytest.raises(Exception, match="profile"):
            ud.dedup(frame, state=state, profile="scheme",
                     output=tmp_path / f"{name}-scheme")
        summary = ud.dedup(frame, state=state, output=tmp_path / f"{name}-out")
        assert summary["written"].sum() == len(want)
        assert sorted(parts(tmp_path / f"{name}-out")) == sorted(want)


def test_a_rerun_reports_its_parts_and_the_invalid_rows(tmp_path):
    """`written` on a rerun is the lines its part holds (it was 0), and
    `invalid` counts the rows that are no URI reference, once each, on a
    rerun too."""
    rows = day_rows(0)
    invalid = int((uriscan.fingerprint(rows) == 0).sum())
    assert invalid > 0
    frame = dd.from_pandas(pd.DataFrame({"url": rows}), npartitions=3)
    state, output = tmp_path / "seen", tmp_path / "day0"
    first = ud.dedup(frame, state=state, shards=4, output=output)
    assert list(first.columns) == ["shard", "rows", "written", "invalid",
                                   "rerun"]
    assert first["invalid"].sum() == invalid
    assert first["rows"].sum() + invalid == len(rows)
    assert first["written"].sum() == len(parts(output)) > 0
    again = ud.dedup(frame, state=state, output=output)
    assert again["rerun"].all()
    assert again["invalid"].sum() == invalid
    for shard, written in zip(again["shard"], again["written"]):
        part = output / f"part-{shard:04d}.txt"
        assert written == len(part.read_text().splitlines())
    assert again["written"].sum() == len(parts(output))
    assert again[["shard", "rows", "written", "invalid"]].equals(
        first[["shard", "rows", "written", "invalid"]])


def test_a_run_is_sealed_when_its_tasks_are_done(tmp_path, monkeypatch):
    """After every shard's task, the driver opens the whole state once
    more, with no rows and no output, with the run's profile, options and
    shards."""
    calls = []
    real = uriscan._uriscan._dedup_into_state

    def recorded(urls, state, output, *args):
        calls.append((len(urls), state, output, args))
        return real(urls, state, output, *args)

    monkeypatch.setattr(uriscan._uriscan, "_dedup_into_state", recorded)
    state = tmp_path / "seen"
    options = dict(profile="crawler", tracking_params=["+ref"],
                   fold_www=True)
    for day in range(2):
        frame = dd.from_pandas(pd.DataFrame({"url": crawler_rows(day)}),
                               npartitions=2)
        calls.clear()
        ud.dedup(frame, state=state, shards=4, output=tmp_path / f"d{day}",
                 **options)
        seal = (0, str(state), "", (4, "crawler", ["+ref"], True, False))
        assert calls[-1] == seal
        tasks = [c for c in calls if c[2]]
        assert len(tasks) == 4 and calls[-5:-1] == tasks


def test_write_lines_names_sort_in_partition_order(tmp_path):
    """Parts are numbered with 4 digits, so the shell's glob order is the
    rows' order (part-10 came before part-2)."""
    rows = [f"http://h{i}.example/" for i in range(130)]
    frame = dd.from_pandas(pd.DataFrame({"url": rows}), npartitions=13)
    assert frame.npartitions == 13
    names = ud.write_lines(frame["url"], str(tmp_path / "part-*.txt.gz"))
    assert Path(names[0]).name == "part-0000.txt.gz"
    assert Path(names[12]).name == "part-0012.txt.gz"
    glob = sorted(tmp_path.glob("part-*.txt.gz"))
    assert [str(p) for p in glob] == names
    lines = []
    for part in glob:
        lines.extend(gzip.open(part, "rt").read().splitlines())
    assert lines == rows
