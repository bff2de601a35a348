# SPDX-License-Identifier: MIT
"""uriscan.SeenState from Python: answers aligned with the input (list,
NumPy array, pandas Series), True for new across commits and reopenings,
the with block, read-only states, the lock, identities, commit(output),
stats; the command and the library reading and writing the same state
both ways; and a writer killed with SIGKILL at random moments, after which
every key it reported committed is there and the state verifies."""
import random
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pandas as pd
import pytest
import uriscan
from uriscan import SeenState, StateError

from conftest import run, text


def urls(n, salt="u"):
    return [f"http://h{i % 37}.example/{salt}/{i}?q={i}" for i in range(n)]


STATS = {"keys", "pending", "invalid", "runs", "shards", "bytes",
         "written_bytes", "rewritten_bytes", "commits", "merges", "merging",
         "memory_bytes", "disk_lookups"}


# ---- Answers per row ----

def test_add_and_contains_are_aligned_with_the_input(tmp_path):
    rows = ["http://a.example/x", "HTTP://A.EXAMPLE/x", "http://bad host/",
            "http://b.example/", "http://a.example/x", None,
            "http://c.example/#f"]
    # First of its class, absent from the state, valid:
    want = [True, False, False, True, False, False, True]
    for kind in ("list", "object", "str_", "bytes_", "series"):
        state = tmp_path / kind
        if kind == "list":
            given = rows
        elif kind == "object":
            given = np.array(rows, dtype=object)
        elif kind == "str_":
            given = np.array([r or "" for r in rows])
        elif kind == "bytes_":
            given = np.array([(r or "").encode() for r in rows])
        else:
            given = pd.Series(rows, index=pd.Index([9, 7, 5, 3, 1, -1, -3]),
                              name="url")
        expect = list(want)
        if kind in ("str_", "bytes_"):
            expect[5] = True   # "": a valid (empty) reference, and new
        with SeenState(state) as s:
            added = s.add(given)
            if kind == "series":
                assert isinstance(added, pd.Series)
                assert list(added.index) == list(given.index)
                assert added.name == "url"
                added = added.to_numpy()
            else:
                assert isinstance(added, np.ndarray)
            assert added.dtype == np.bool_
            assert list(added) == expect, kind
            seen = s.contains(given)
            if kind == "series":
                assert list(seen.index) == list(given.index)
                seen = seen.to_numpy()
            # Every valid row is in the state now.
            valid = [r is not None and r != "http://bad host/"
                     for r in rows]
            if kind in ("str_", "bytes_"):
                valid[5] = True
            assert list(seen) == valid, kind
            assert list(s.add(given)) == [False] * len(rows)
        with SeenState(state) as s:
            assert s.stats()["keys"] == sum(expect)


def test_empty_inputs(tmp_path):
    with SeenState(tmp_path / "s") as s:
        assert s.add([]).shape == (0,)
        assert s.contains(np.array([], dtype=object)).shape == (0,)
        assert s.add_keys(np.array([], dtype=np.uint64)).shape == (0,)
        series = s.add(pd.Series([], dtype=object))
        assert isinstance(series, pd.Series) and len(series) == 0


def test_new_across_commits_reopenings_and_discards(tmp_path):
    path = tmp_path / "s"
    first, second, third = urls(500, "a"), urls(500, "b"), urls(500, "c")
    s = SeenState(path)
    assert s.add(first).all()
    assert not s.add(first).any()           # added, not committed: seen
    assert s.contains(first).all()
    assert s.commit() == {"written": 0, "rerun": False, "note": ""}
    assert not s.add(first).any()           # committed: seen
    assert s.add(second).all()
    s.discard()                             # second is forgotten
    assert not s.contains(second).any()
    assert s.add(second).all()
    s.commit()
    assert s.add(third).all()               # not committed: lost on close
    s.close()
    with pytest.raises(ValueError, match="closed"):
        s.add(first)
    s = SeenState(path)
    assert s.contains(first).all() and s.contains(second).all()
    assert not s.contains(third).any()
    assert s.add(third[:250] + first[:10]).tolist() == [True] * 250 + \
        [False] * 10
    stats = s.stats()
    assert stats["keys"] == 1000 and stats["pending"] == 250
    s.close()


def test_classes_follow_the_profile(tmp_path):
    plain = "http://example.com/a?utm_source=x&b=1"
    variants = ["HTTP://EXAMPLE.COM:80/a?utm_source=x&b=1",
                "http://www.example.com/a?b=1"]
    with SeenState(tmp_path / "scheme") as s:
        assert s.add([plain] + variants).tolist() == [True, False, True]
    with SeenState(tmp_path / "crawler", profile="crawler",
                   fold_www=True) as s:
        assert s.add([plain] + variants).tolist() == [True, False, False]
    with SeenState(tmp_path / "crawler") as s:      # its profile is kept
        assert "crawler" in s.identity
        assert s.add(variants).tolist() == [False, False]
    with SeenState(tmp_path / "own", profile="crawler",
                   tracking_params=["b"]) as s:
        # b is dropped, utm_source is kept (the list was replaced).
        assert s.add(["http://example.com/a?utm_source=x",
                      "http://example.com/a?utm_source=x&b=2",
                      "http://example.com/a"]).tolist() == [True, False, True]


def test_keys(tmp_path):
    path = tmp_path / "k"
    big = np.array([1, 2, 2**63, 2**64 - 1, 0, 2, 12345], dtype=np.uint64)
    with SeenState(path, keys_of="test") as s:
        assert s.identity == "keys:test"
        assert s.add_keys(big).tolist() == [True, True, True, True, False,
                                            False, True]
        assert s.add_keys([7, 8]).tolist() == [True, True]   # a list
        assert s.add_key(9) is True
        assert s.add_key(9) is False
        assert s.add_key(2**64 - 1) is False
        assert s.contains_key(2**63) is True
        assert s.contains_key(10) is False
        assert s.contains_key(0) is False
        assert s.stats()["invalid"] == 1
        with pytest.raises(StateError, match="made by the caller"):
            s.add(["http://a.example/"])
        with pytest.raises(ValueError):
            s.add_keys(np.zeros((2, 2), dtype=np.uint64))
    with SeenState(path) as s:                     # the identity is taken
        assert s.identity == "keys:test"
        assert s.contains_keys(big).tolist() == [True] * 4 + [False] + \
            [True] * 2
        assert s.contains_keys(np.arange(7, 11, dtype=np.uint64)).tolist() \
            == [True, True, True, False]
        assert s.stats()["keys"] == 8


# ---- The with block, read-only, the lock, identities ----

def test_with_commits_on_a_clean_exit_and_discards_on_an_exception(tmp_path):
    path = tmp_path / "s"
    with SeenState(path) as s:
        s.add(urls(100, "a"))
    with pytest.raises(KeyError):
        with SeenState(path) as s:
            assert s.add(urls(100, "b")).all()
            raise KeyError("stop")
    with SeenState(path) as s:                 # the lock was let go
        assert s.contains(urls(100, "a")).all()
        assert not s.contains(urls(100, "b")).any()
    with pytest.raises(ValueError, match="closed"):
        s.contains(urls(1))


def test_read_only(tmp_path, cli):
    path = tmp_path / "s"
    with SeenState(path) as s:
        s.add(urls(50))
    with SeenState(path, read_only=True) as r:
        assert r.contains(urls(60)).tolist() == [True] * 50 + [False] * 10
        assert r.contains_key(1) is False
        with pytest.raises(StateError, match="read-only"):
            r.add(urls(60))
        with pytest.raises(StateError, match="read-only"):
            r.add_keys([1])
        with pytest.raises(StateError, match="read-only"):
            r.commit()
        # Readers share the lock; a writer is refused meanwhile.
        with SeenState(path, read_only=True) as other:
            assert other.contains(urls(1)).all()
        with pytest.raises(StateError, match="in use"):
            SeenState(path)
    # The with block commits nothing for a reader, and raises nothing.
    with SeenState(path) as s:
        assert s.stats()["keys"] == 50
    with pytest.raises(StateError):
        SeenState(tmp_path / "none", read_only=True)


def test_the_lock_is_held_until_close(tmp_path, cli):
    path = tmp_path / "s"
    s = SeenState(path)
    s.add(urls(10))
    s.commit()
    with pytest.raises(StateError, match="in use") as caught:
        SeenState(path)
    assert isinstance(caught.value, OSError)
    with pytest.raises(StateError, match="in use"):
        SeenState(path, read_only=True)
    done = subprocess.run([cli, "dedup", "--quiet", f"--state={path}"],
                          input=b"http://x.example/\n", capture_output=True)
    assert done.returncode != 0 and b"in use" in done.stderr
    s.close()
    s.close()                                    # closing twice is harmless
    with SeenState(path) as again:
        assert again.contains(urls(10)).all()


def test_another_identity_is_an_error_naming_both(tmp_path):
    path = tmp_path / "s"
    with SeenState(path, profile="scheme") as s:
        s.add(urls(5))
    with pytest.raises(StateError) as caught:
        SeenState(path, profile="crawler")
    message = str(caught.value)
    assert "'scheme'" in message and "'crawler'" in message
    with pytest.raises(StateError) as caught:
        SeenState(path, keys_of="mine")
    assert "'scheme'" in str(caught.value) and "keys:mine" in str(caught.value)
    keys = tmp_path / "k"
    with SeenState(keys, keys_of="one") as s:
        s.add_keys([1, 2, 3])
    with pytest.raises(StateError) as caught:
        SeenState(keys, keys_of="two")
    assert "keys:one" in str(caught.value) and "keys:two" in str(caught.value)
    with pytest.raises(StateError) as caught:
        SeenState(keys, profile="syntax")
    assert "keys:one" in str(caught.value) and "syntax" in str(caught.value)
    # What was refused changed nothing.
    with SeenState(path) as s:
        assert s.identity.startswith("'scheme'")
    with pytest.raises(ValueError, match="not a profile"):
        SeenState(tmp_path / "x", profile="nope")
    with pytest.raises(StateError, match="not both"):
        SeenState(tmp_path / "x", profile="scheme", keys_of="k")
    with pytest.raises(StateError, match="printable"):
        SeenState(tmp_path / "x", keys_of="a b")
    with pytest.raises(ValueError, match="memory"):
        SeenState(tmp_path / "x", memory=0)


# ---- commit(output), stats ----

def test_commit_writes_the_new_urls(tmp_path):
    path = tmp_path / "s"
    rows = urls(300) + urls(100) + ["http://bad host/", "http://n.example/"]
    with SeenState(path) as s:
        s.add(urls(50))                         # committed before
    s = SeenState(path)
    new = s.add(rows)
    out = tmp_path / "new.txt"
    done = s.commit(out)
    want = [r for r, n in zip(rows, new) if n]
    assert len(want) == 251
    assert done == {"written": 251, "rerun": False, "note": ""}
    assert out.read_text().splitlines() == want
    # A later commit into another file holds only what came after.
    s.add(["http://n.example/", "http://m.example/", "http://m.example/"])
    assert s.commit(str(tmp_path / "next.txt"))["written"] == 1
    assert (tmp_path / "next.txt").read_text() == "http://m.example/\n"
    # An existing file is never overwritten.
    (tmp_path / "taken.txt").write_text("mine\n")
    s.add(["http://o.example/"])
    with pytest.raises(StateError, match="exists"):
        s.commit(tmp_path / "taken.txt")
    assert (tmp_path / "taken.txt").read_text() == "mine\n"
    s.close()


def test_commit_of_the_same_rows_to_the_same_output_is_a_rerun(tmp_path):
    path, out = tmp_path / "s", tmp_path / "out.txt"
    rows = urls(200)
    with SeenState(path) as s:
        s.add(rows)
        assert s.commit(out)["written"] == 200
    # As a program that died before it knew the commit was made, again:
    with SeenState(path) as s:
        assert not s.add(rows).any()
        done = s.commit(out)
        assert done["rerun"] is True and done["written"] == 0
        assert "same rows" in done["note"]
    assert out.read_text().splitlines() == rows
    # Other rows into that output are an error, nothing added.
    with SeenState(path) as s:
        s.add(["http://other.example/"])
        with pytest.raises(StateError, match="other rows"):
            s.commit(out)
        assert s.contains(["http://other.example/"]).all()
    with SeenState(path) as s:   # the with block committed it (no output)
        assert s.contains(["http://other.example/"]).all()


def test_stats(tmp_path):
    with SeenState(tmp_path / "s", shards=4) as s:
        stats = s.stats()
        assert set(stats) == STATS
        assert stats["shards"] == 4 and stats["keys"] == 0
        s.add(urls(1000) + ["http://bad host/"])
        s.contains(["http://bad host/"])
        stats = s.stats()
        assert (stats["pending"], stats["invalid"]) == (1000, 2)
        assert stats["memory_bytes"] > 0
        s.commit()
        s.add(urls(10, "z"))
        s.commit()
        s.wait_for_merges()
        stats = s.stats()
        assert stats["keys"] == 1010 and stats["pending"] == 0
        assert stats["commits"] == 2 and stats["runs"] >= 1
        assert stats["bytes"] > 0 and stats["written_bytes"] >= stats["bytes"]
        assert isinstance(stats["merging"], bool)
    assert repr(s).startswith("uriscan.SeenState(")


def test_a_small_memory_budget_spills_and_stays_exact(tmp_path):
    keys = np.random.default_rng(5).integers(1, 2**64 - 1, size=60000,
                                             dtype=np.uint64)
    path = tmp_path / "k"
    with SeenState(path, keys_of="spill", memory=256 << 10) as s:
        for part in np.array_split(keys[:50000], 10):
            assert s.add_keys(part).all()
        assert s.stats()["pending"] == 50000
        assert s.contains_keys(keys).tolist() == [True] * 50000 + \
            [False] * 10000
    with SeenState(path, memory=256 << 10) as s:
        assert s.contains_keys(keys[:50000]).all()
        assert s.add_keys(keys).tolist() == [False] * 50000 + [True] * 10000


# ---- The command and the library on the same state ----

def test_a_state_the_command_made_is_the_librarys(cli, corpus, tmp_path):
    path, lines = corpus
    state = tmp_path / "state"
    written = run(cli, "dedup", f"--state={state}", path=path)
    valid = uriscan.fingerprint(lines, "scheme") != 0
    with SeenState(state, read_only=True) as s:
        assert s.contains(lines).tolist() == valid.tolist()
        assert s.stats()["keys"] == len(written)
    # What the library adds, the command knows: none of the corpus lines
    # nor the library's URLs come out again, only lines never seen.
    mine = [f"http://library.example/{i}" for i in range(300)]
    with SeenState(state) as s:
        assert not s.add(lines).any()
        assert s.add(mine).all()
    unseen = [f"http://never.example/{i}" for i in range(50)]
    given = mine + [b.decode("utf-8", "surrogateescape")
                    for b in lines[:200]] + unseen + mine[:10]
    data = "\n".join(given).encode("utf-8", "surrogateescape") + b"\n"
    out = run(cli, "dedup", f"--state={state}", data=data)
    assert [text(line) for line in out] == unseen


@pytest.mark.parametrize("shards", [None, 4])
def test_a_state_the_library_made_is_the_commands(cli, tmp_path, shards):
    state = tmp_path / "state"
    mine = urls(2000, "lib") + ["HTTP://H1.EXAMPLE:80/x", "http://bad host/"]
    with SeenState(state, profile="crawler", tracking_params=["sid", "t"],
                   shards=shards) as s:
        s.add(mine)
    # The command takes the state's profile and options: a tracking
    # parameter of the state's list is dropped, utm_source is not.
    given = ["http://h1.example/x?t=9", "http://h1.example/x?utm_source=a"] \
        + mine[:500] + ["http://fresh.example/"]
    out = run(cli, "dedup", f"--state={state}",
              data=("\n".join(given) + "\n").encode())
    assert [text(line) for line in out] == [
        "http://h1.example/x?utm_source=a", "http://fresh.example/"]
    info = subprocess.run([cli, "state", str(state), "--verify"],
                          capture_output=True, text=True)
    assert info.returncode == 0, info.stderr
    assert "crawler" in info.stdout
    with SeenState(state) as s:
        assert s.contains(["http://fresh.example/#x"]).all()
        assert s.stats()["keys"] == 2003
        assert s.stats()["shards"] == (shards or 1)


def test_output_of_the_library_and_of_the_command_agree(cli, corpus,
                                                        tmp_path):
    """The same input, split into the same days: the library's commit
    outputs are the command's --output files."""
    path, lines = corpus
    days = [lines[i::3] for i in range(3)]
    for day, rows in enumerate(days):
        data = b"".join(r + b"\n" for r in rows)
        run(cli, "dedup", f"--state={tmp_path / 'cmd'}",
            f"--output={tmp_path / f'cmd-{day}.txt'}", data=data)
        with SeenState(tmp_path / "lib") as s:
            s.add(rows)
            s.commit(tmp_path / f"lib-{day}.txt")
        assert (tmp_path / f"lib-{day}.txt").read_bytes() == \
            (tmp_path / f"cmd-{day}.txt").read_bytes(), day


# ---- A writer killed at random moments ----

CHILD = textwrap.dedent("""
    import sys
    import numpy as np
    import uriscan

    path, first = sys.argv[1], int(sys.argv[2])

    def batch(number):
        return np.random.default_rng(number).integers(
            1, 2**64 - 1, size=1500 + number % 7 * 300, dtype=np.uint64)

    s = uriscan.SeenState(path, keys_of="kill", memory=128 << 10)
    number = first
    while True:
        s.add_keys(batch(number))
        s.commit()
        print(number, flush=True)
        number += 1
""")


def test_killed_writers_lose_nothing_they_committed(cli, tmp_path):
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    path = tmp_path / "state"
    rng = random.Random(9)
    reported = []
    next_batch = 0
    for round_ in range(8):
        child = subprocess.Popen([sys.executable, str(script), str(path),
                                  str(next_batch)],
                                 stdout=subprocess.PIPE, text=True)
        # Wait for its first commit, then kill it at a random moment
        # (inside an add, a commit, a background merge, ...).
        line = child.stdout.readline()
        assert line, "the writer ended before its first commit"
        time.sleep(rng.uniform(0, 0.4))
        child.send_signal(signal.SIGKILL)
        rest, _ = child.communicate()
        assert child.returncode == -signal.SIGKILL
        numbers = [int(n) for n in (line + rest).split()]
        assert numbers == list(range(next_batch, next_batch + len(numbers)))
        reported += numbers
        # The next writer starts a little before where this one stopped:
        # batches committed again are no new keys.
        next_batch = max(0, numbers[-1] - rng.randrange(3)) + 1
    assert len(set(reported)) > 8

    def batch(number):
        return np.random.default_rng(number).integers(
            1, 2**64 - 1, size=1500 + number % 7 * 300, dtype=np.uint64)

    with SeenState(path, read_only=True) as s:
        assert s.identity == "keys:kill"
        for number in sorted(set(reported)):
            assert s.contains_keys(batch(number)).all(), number
        absent = np.random.default_rng(10**6).integers(
            1, 2**64 - 1, size=5000, dtype=np.uint64)
        assert not s.contains_keys(absent).any()
        keys = s.stats()["keys"]
    # No key twice, none lost: the state holds the reported batches and at
    # most the one each writer was committing when it died.
    want = len(np.unique(np.concatenate(
        [batch(n) for n in sorted(set(reported))])))
    assert want <= keys <= want + 8 * 3300
    done = subprocess.run([cli, "state", str(path), "--verify"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "verified" in done.stdout
