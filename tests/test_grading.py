"""`cw grade`: the verifier that admitted a task grades a model's output; grades live in the graph."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from codewalk.admission import walk_and_admit
from codewalk.errors import InfraError, InputError
from codewalk.grading import grade_predictions, read_predictions
from codewalk.loading import load
from codewalk.records import Check, Run, Task
from codewalk.store import open_store
from tests.run_cw import cw as run_cw
from tests.toy import ToyChain


class ToyGrade(ToyChain):
    """Grades by comparing with the reference; the output "crash" makes the verifier give no verdict."""

    name = "toygrade"

    def grade(self, composite, candidate):
        if candidate == "crash":
            raise InfraError("verifier crashed")
        same = candidate == composite.reference
        return Check(same, "same as the reference" if same else "differs from the reference")


DOMAINS = (ToyGrade,)  # registered for this module's tests by conftest's `_domains`


def _write(path, rows):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def _toy_tasks(store, tmp_path) -> dict[int, list[dict]]:
    source = tmp_path / "toy.txt"
    source.write_text("".join(f"a{i}\n" for i in range(8)))
    load(store, "toygrade", source)
    for n in (1, 2):
        walk_and_admit(store, "toygrade", n, count=3, seed=n)
    return {n: store.select_tasks("toygrade", "admitted", n) for n in (1, 2)}


def test_grades_are_stored_per_run_and_task_and_rates_count_verifier_errors_as_not_solved(store, tmp_path):
    tasks = _toy_tasks(store, tmp_path)
    one, two = tasks[1], tasks[2]
    outputs = [(one[0], one[0]["reference"]), (one[1], one[1]["reference"]), (one[2], "wrong"),
               (two[0], two[0]["reference"]), (two[1], "crash"), (two[2], "")]
    preds = _write(tmp_path / "model-a.jsonl",
                   [{"task_id": t["id"], "output": o, "model": "A"} for t, o in outputs])
    report = grade_predictions(store, "toygrade", preds)
    assert (report.run, report.graded, report.passed, report.errors) == ("model-a", 6, 3, 1)
    rates = {r["level"]: r for r in report.rates}
    assert (rates[1]["passed"], rates[1]["failed"], rates[1]["solve_rate"]) == (2, 1, 0.667)
    # the error is shown beside and counted: 1 solved of 3 graded, not 1 of the 2 with a verdict
    assert [rates[2][k] for k in ("passed", "failed", "errors", "solve_rate")] == [1, 1, 1, 0.333]
    assert rates[1]["tasks"] == 3 and rates[1]["model"] == "A"
    stored = store.run("MATCH (g:Grade)-[:OF]->(t:Task) "
                       "RETURN g.task AS task, t.id AS linked, g.status AS status ORDER BY task")
    assert len(stored) == 6 and all(r["task"] == r["linked"] for r in stored)
    assert {r["status"] for r in stored} == {"passed", "failed", "error"}
    # the same run graded again replaces its grades; another run appears beside it
    grade_predictions(store, "toygrade", preds)
    _write(tmp_path / "b.jsonl", [{"instance_id": one[0]["id"], "model_patch": "x",
                                   "model_name_or_path": "B"}])
    report = grade_predictions(store, "toygrade", tmp_path / "b.jsonl", run="model-b")
    assert store.run("MATCH (g:Grade) RETURN count(g) AS n") == [{"n": 7}]
    assert [(r["run"], r["model"], r["level"]) for r in report.rates] == [
        ("model-a", "A", 1), ("model-a", "A", 2), ("model-b", "B", 1)]


def test_demo_references_pass_and_buggy_prompts_fail_with_two_workers(demo_store_path, tmp_path):
    with open_store(demo_store_path) as store:
        tasks = store.select_tasks("demo", "admitted")
        _write(tmp_path / "oracle.jsonl", [{"task_id": t["id"], "output": t["reference"]} for t in tasks])
        _write(tmp_path / "buggy.jsonl", [{"task_id": t["id"], "output": t["prompt"]} for t in tasks])
        oracle = grade_predictions(store, "demo", tmp_path / "oracle.jsonl", workers=2)
        buggy = grade_predictions(store, "demo", tmp_path / "buggy.jsonl", plots=tmp_path / "plots")
        details = store.run("MATCH (g:Grade {run: 'buggy'}) RETURN g.detail AS detail")
    assert oracle.passed == oracle.graded == 9 and buggy.passed == 0 and buggy.errors == 0
    assert all("is false" in d["detail"] or "raised" in d["detail"] for d in details)
    by_run = {(r["run"], r["level"]): r["solve_rate"] for r in buggy.rates}
    assert by_run == {("buggy", 1): 0.0, ("buggy", 2): 0.0, ("buggy", 3): 0.0,
                      ("oracle", 1): 1.0, ("oracle", 2): 1.0, ("oracle", 3): 1.0}
    assert buggy.plots == [str(tmp_path / "plots" / "demo-solve-rate.png")]
    assert open(buggy.plots[0], "rb").read(4) == b"\x89PNG"


@pytest.mark.parametrize("line, reason", [
    ("{not json", "not valid JSON"),
    ('["a list"]', "not a JSON object"),
    ('{"output": "x"}', "needs a task id"),
    ('{"task_id": "", "output": "x"}', "needs a task id"),
    ('{"task_id": "t1"}', "needs the model's output"),
    ('{"task_id": "t1", "output": 3}', "needs the model's output"),
    ('{"task_id": "t1", "instance_id": "t2", "output": "x"}', "`task_id` and `instance_id` disagree"),
    ('{"task_id": "t0", "output": "x"}', "task 't0' again (first on line 1)"),
])
def test_a_malformed_prediction_names_its_line(tmp_path, line, reason):
    path = _write(tmp_path / "p.jsonl", [{"task_id": "t0", "output": "x"}, "", line])
    with pytest.raises(InputError, match=re.escape(reason)) as e:
        read_predictions(path)
    assert str(e.value).startswith(f"{path}:3: ")


def test_unknown_or_rejected_tasks_are_refused_before_anything_is_graded(tmp_path):
    with open_store(tmp_path / "g.lbug") as store:
        tasks = _toy_tasks(store, tmp_path)
        good = {"task_id": tasks[1][0]["id"], "output": "x"}
        with pytest.raises(InputError, match=r"p\.jsonl:2: no task 'nope' of domain 'toygrade'"):
            grade_predictions(store, "toygrade",
                              _write(tmp_path / "p.jsonl", [good, {"task_id": "nope", "output": ""}]))
        store.write_run(Run("r-x", "toygrade", 0, {}, "2026-01-01"))
        atom = tasks[1][0]["atoms"][0]
        store.write_tasks([Task("t-rejected", "toygrade", (atom,), "rejected", "atom_solved", 0, "r-x",
                                "2026-01-01", "toy")])
        with pytest.raises(InputError, match="t-rejected was not admitted \\(rejected: atom_solved\\)"):
            grade_predictions(store, "toygrade",
                              _write(tmp_path / "p.jsonl", [good, {"task_id": "t-rejected", "output": ""}]))
        with pytest.raises(InputError, match="no predictions"):
            grade_predictions(store, "toygrade", _write(tmp_path / "p.jsonl", []))
        assert store.run("MATCH (g:Grade) RETURN count(g) AS n") == [{"n": 0}]


def test_cli_grade_prints_rates_and_exits_3_on_a_bad_line(capsys, demo_store_path, tmp_path):
    def cw(*args):
        return run_cw(capsys, "--store", str(demo_store_path), *args)

    with open_store(demo_store_path) as store:
        tasks = store.select_tasks("demo", "admitted", 1)
    preds = _write(tmp_path / "m.jsonl", [{"task_id": t["id"], "output": t["reference"]} for t in tasks])
    code, out, _ = cw("grade", "--domain", "demo", str(preds))
    assert code == 0 and "Graded 3 predictions of run 'm'" in out and "100.0%" in out
    code, out, _ = cw("grade", "--domain", "demo", str(preds), "--run", "again", "--json")
    assert code == 0 and json.loads(out)["passed"] == 3
    code, _, err = cw("grade", "--domain", "demo", str(_write(tmp_path / "bad.jsonl", ["{oops"])))
    assert code == 3 and "bad.jsonl:1" in err


def test_grading_stands_on_records_and_the_store_without_admission_or_export():
    """Dependencies point down: grading rebuilds tasks (Task.from_row) and stamps grades (records.now)
    itself, so importing it loads neither the walk's admission nor the exporter."""
    probe = ("import sys, codewalk.grading; print(sorted(m for m in sys.modules "
             "if m in ('codewalk.admission', 'codewalk.export', 'codewalk.walk')))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
