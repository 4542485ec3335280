"""`cw grade report`: solve rate by level, the p^N baseline and the interference share (Sec. 4.2), computed
from a hand-made set of stored grades whose figures are worked out below."""

from __future__ import annotations

import json

import pytest

from codewalk.errors import UsageError
from codewalk.grading import grade_row
from codewalk.records import Atom, Run, Task
from codewalk.report import LevelRow, grade_report
from codewalk.store import GraphStore, open_store
from codewalk.store.columns import graph_tables
from tests.run_cw import cw

DOMAIN = "toy-sym"
A = [f"{DOMAIN}/a{i}" for i in range(4)]


def _task(*members: str) -> Task:
    return Task(id="t-" + "-".join(m.rsplit("/", 1)[1] for m in members), domain=DOMAIN, atoms=members,
                status="admitted", reason="admitted", seed=0, run="walk", created_at="", generator_version="")


# run "m": alone, a0 and a1 are solved, a2 fails, a3 has no verdict -> p = 2/3
GRADES = {
    "m": {(A[0],): "passed", (A[1],): "passed", (A[2],): "failed", (A[3],): "error",
          (A[0], A[1]): "failed",  # every atom solved alone: an interference error
          (A[0], A[2]): "failed",  # a2 fails alone: not interference
          (A[1], A[3]): "failed",  # a3 has no isolated verdict: not covered
          (A[2], A[3]): "passed",
          (A[0], A[1], A[2]): "error"},
    "k": {(A[0], A[1]): "passed"},  # no N = 1 tasks: no baseline, nothing covered
}


def _fill(store: GraphStore) -> None:
    store.write(*graph_tables([Atom(a, DOMAIN) for a in A], []))
    store.write_run(Run("walk", DOMAIN, 0, {}, ""))
    tasks = {members: _task(*members) for run in GRADES.values() for members in run}
    store.write_tasks(list(tasks.values()))
    store.write_grades([grade_row(run, f"model-{run}", tasks[members], "", (status, "", {}))
                        for run, graded in GRADES.items() for members, status in graded.items()])


def test_solve_rate_baseline_and_interference_share_by_run_and_level(store):
    _fill(store)
    rows = {(r.run, r.level): r for r in grade_report(store, DOMAIN).rows}
    assert rows == {
        ("k", 2): LevelRow("k", "model-k", 2, 1, 1, 0, 0, 1.0, None, 0, 0, None),
        ("m", 1): LevelRow("m", "model-m", 1, 4, 2, 1, 1, 0.6667, 0.6667, None, None, None),
        ("m", 2): LevelRow("m", "model-m", 2, 4, 1, 3, 0, 0.25, 0.4444, 2, 1, 0.5),
        ("m", 3): LevelRow("m", "model-m", 3, 1, 0, 0, 1, None, 0.2963, 0, 0, None),
    }


def test_one_run_is_reported_alone_and_a_run_without_grades_is_refused(store):
    _fill(store)
    assert {r.run for r in grade_report(store, DOMAIN, run="k").rows} == {"k"}
    with pytest.raises(UsageError, match="no grades of run 'x'"):
        grade_report(store, DOMAIN, run="x")


def test_cw_grade_report_prints_json_and_draws_the_plot(tmp_path, capsys):
    path = tmp_path / "graph.lbug"
    with open_store(path) as s:
        _fill(s)
    code, out, _ = cw(capsys, "--store", str(path), "grade", "report", "--domain", DOMAIN, "--run", "m", "--json",
                             "--plot", str(tmp_path / "plots" / "m.png"))
    assert code == 0
    report = json.loads(out)
    assert [(r["level"], r["interference_share"]) for r in report["rows"]] == [(1, None), (2, 0.5), (3, None)]
    assert report["plot"] == str(tmp_path / "plots" / "m.png") and (tmp_path / "plots" / "m.png").stat().st_size
    code, out, _ = cw(capsys, "--store", str(path), "grade", "report", "--domain", DOMAIN)
    assert code == 0 and "interference" in out and "p^N" in out
