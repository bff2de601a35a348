# SPDX-License-Identifier: MIT
"""uriscan.dask on a distributed.LocalCluster of two single-threaded worker
processes: dedup keeps the rows `uriscan dedup` writes for the same rows,
in the same order; normalize and fingerprint equal the batch calls."""
import numpy as np
import pytest
import uriscan
import uriscan.dask as ud
from dask_support import check, expected

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1,
                                       dashboard_address=None,
                                       processes=True)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


@pytest.mark.parametrize("profile", ["scheme", "crawler"])
def test_dedup_on_a_cluster(cli, client, frame, rows, profile):
    ddf = dd.from_pandas(frame, npartitions=7)
    result = ud.dedup(ddf, profile=profile)
    assert result.npartitions == 7
    result = client.compute(result).result()
    check(result, frame, expected(cli, rows, profile))


def test_dedup_on_a_cluster_unknown_divisions(cli, client, frame, rows):
    ddf = dd.from_pandas(frame, npartitions=5).clear_divisions()
    # An empty partition and a small split_out on top.
    ddf = ddf.map_partitions(lambda p: p.iloc[:0] if p["n"].iloc[0] == 0
                             else p)
    part0 = len(np.array_split(np.arange(len(frame)), 5)[0])
    result = ud.dedup(ddf, split_out=2).compute()
    check(result, frame, expected(cli, rows[part0:]))


def test_normalize_and_fingerprint_on_a_cluster(client, frame, rows):
    ddf = dd.from_pandas(frame, npartitions=4)
    keys = ud.fingerprint(ddf["url"], "crawler").compute()
    assert keys.dtype == np.uint64
    assert keys.tolist() == uriscan.fingerprint(rows, "crawler").tolist()
    assert (keys.index == frame.index).all()
    normal = ud.normalize(ddf["url"]).compute()
    assert normal.tolist() == uriscan.normalize(rows).tolist()


