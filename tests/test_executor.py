"""Admission on a Dask cluster (a LocalCluster of two worker processes here) gives what the local
process pool gives for the same seed: the same groups, verdicts, evidence and Task writes."""

from __future__ import annotations

import pytest

from codewalk.admission import walk_and_admit
from codewalk.errors import UsageError
from codewalk.executors import open_executor
from codewalk.store import open_store
from tests.test_admission import _composes_ok, _ring

distributed = pytest.importorskip("distributed")

FLAGS = {3: ["solved"], 5: ["badref"], 7: ["crash"]}  # every kind of verdict turns up


@pytest.fixture(scope="module")
def dask_address():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster):
        yield "dask://" + cluster.scheduler_address.removeprefix("tcp://")


def _tasks(store) -> list[dict]:
    """Every stored task with what admission decided and recorded, minus run id and time."""
    rows = store.list_tasks(domain="toychain", limit=1000)
    tasks = [store.get_task(r["id"]) for r in rows]
    keep = ("id", "atoms", "status", "reason", "evidence", "prompt", "reference", "verifier", "seed", "level")
    return sorted(({k: t[k] for k in keep} for t in tasks), key=lambda t: t["id"])


def test_dask_cluster_admits_the_same_tasks_as_the_local_pool(dask_address, tmp_path):
    stores = [open_store(tmp_path / f"{name}.lbug") for name in ("local", "dask")]
    try:
        for s in stores:
            _ring(s, n=12, flags=FLAGS)
        local = walk_and_admit(stores[0], "toychain", 3, count=8, seed=8, max_attempts=40, workers=2)
        dask = walk_and_admit(stores[1], "toychain", 3, count=8, seed=8, max_attempts=40, workers=2,
                              executor=dask_address)
        assert dask.admitted_ids == local.admitted_ids and dask.by_reason == local.by_reason
        assert {"admitted", "atom_solved", "infra_error"} <= set(local.by_reason)
        assert _tasks(stores[1]) == _tasks(stores[0]) and _composes_ok(stores[1])
        run = stores[1].run("MATCH (r:Run) RETURN r.params AS params")[0]["params"]
        assert dask_address in run
    finally:
        for s in stores:
            s.close()


def test_unknown_executor_is_a_usage_error():
    with pytest.raises(UsageError, match="unknown executor 'ray://x'"):
        open_executor("ray://x", 2)


def test_local_executor_is_the_default_and_one_worker_runs_inline():
    pool, depth = open_executor(None, 1)
    assert depth == 1 and pool.submit(sum, [1, 2]).result() == 3
    pool.shutdown()


def test_cw_walk_executor_flag_runs_admission_on_the_dask_cluster(dask_address, capsys, tmp_path):
    """`cw walk --executor dask://HOST:PORT` admits what `cw walk` admits with the local pool."""
    import json

    from tests.test_cli import cw

    out = {}
    for name, extra in (("local", []), ("dask", ["--executor", dask_address])):
        path = str(tmp_path / f"{name}.lbug")
        with open_store(path) as s:
            _ring(s, n=12, flags=FLAGS)
        code, text, err = cw(capsys, "--store", path, "walk", "--domain", "toychain", "--n", "3", "--count", "5",
                             "--seed", "4", "--max-attempts", "30", "--workers", "2", "--json", *extra)
        assert code == 0, err
        out[name] = json.loads(text)
    assert out["dask"]["admitted_ids"] == out["local"]["admitted_ids"] and out["local"]["admitted"] == 5


def test_cw_walk_rejects_an_unknown_executor(capsys, tmp_path):
    from tests.test_cli import cw

    path = str(tmp_path / "g.lbug")
    with open_store(path) as s:
        _ring(s, n=6, flags={})
    code, _, err = cw(capsys, "--store", path, "walk", "--domain", "toychain", "--n", "2", "--executor", "spark://x")
    assert code == 2 and "unknown executor 'spark://x'" in err
