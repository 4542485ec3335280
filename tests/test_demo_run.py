"""`cw demo` on a fresh store: builds the graph, walks N = 1, 2, 3, admits, reports. On both stores."""

from __future__ import annotations

import json
import os
import subprocess
from collections import Counter

import pytest


def _demo(store: str, *args: str) -> dict:
    env = {**os.environ, "CODEWALK_STORE": store}
    done = subprocess.run(["cw", "demo", "--json", *args], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _check(result: dict) -> None:
    assert result["load"]["atoms"] >= 12 and result["load"]["edges"]["FEEDS"] > 0
    assert [r["level"] for r in result["runs"]] == [1, 2, 3]
    for run in result["runs"]:
        assert run["admitted"] == 5 and run["errors"] == 0
    # the demo graph holds groups that admission must reject, for both reasons
    rejected = Counter()
    for run in result["runs"][1:]:
        rejected.update(run["rejected"])
    assert rejected["reference_fails"] > 0 and rejected["atom_solved"] > 0


def test_demo_admits_at_three_levels_on_the_embedded_store(tmp_path):
    store = str(tmp_path / "demo.lbug")
    first = _demo(store)
    _check(first)
    # a second demo on the same store attempts new groups only: no task is written twice
    second = _demo(store)
    ids = [i for r in first["runs"] + second["runs"] for i in r["admitted_ids"]]
    assert len(ids) == len(set(ids))


@pytest.mark.neo4j
def test_demo_runs_the_same_against_neo4j(neo4j, tmp_path):
    neo_result = _demo(neo4j.location)
    _check(neo_result)
    lady_result = _demo(str(tmp_path / "demo.lbug"))
    # same seeds, same graph: the same tasks on both stores
    assert [r["admitted_ids"] for r in neo_result["runs"]] == [r["admitted_ids"] for r in lady_result["runs"]]
