"""The GraphStore contract for training provenance, on both stores: attempts' grades found by eval and epoch,
exported rows stored as (:Trajectory)-[:OF]->(:Task), and the rows of one atom found by one named query."""

from __future__ import annotations

from codewalk.grading import grade_row
from codewalk.queries import run_named
from codewalk.records import Atom, Run, Task
from codewalk.store.columns import graph_tables

ATOMS = [Atom("d/a", "d", {"title": "A"}, {}), Atom("d/b", "d", {"title": "B"}, {}),
         Atom("d/c", "d", {"title": "C"}, {})]


def _task(tid: str, atoms: tuple[str, ...]) -> Task:
    return Task(tid, "d", atoms, "admitted", "admitted", 7, "r1", "2026-12-06T00:00:00+00:00", "test",
                "prompt", "ref", {"v": 1}, {})


def _stored(store) -> list[Task]:
    tasks = [_task("t1", ("d/a",)), _task("t2", ("d/a", "d/b")), _task("t3", ("d/c",))]
    store.write(*graph_tables(ATOMS, []))
    store.write_run(Run("r1", "d", 7, {}, "2026-12-06T00:00:00+00:00", "2026-12-06T00:00:01+00:00"))
    store.write_tasks(tasks)
    return tasks


def test_each_attempts_grade_is_stored_with_its_eval_and_epoch_and_found_by_them(store):
    t1, t2, _ = _stored(store)
    rows = [grade_row("E1" if k == 1 else f"E1.{k}", "m", t, "out", ("passed" if k == 2 else "failed", "", {}),
                      eval="E1", epoch=k) for t in (t1, t2) for k in (1, 2, 3)]
    rows.append(grade_row("cwrun", "m", t1, "out", ("passed", "", {})))  # a `cw grade` run: no eval
    store.write_grades(rows)
    found = store.attempt_grades(["E1"])
    assert [(g["eval"], g["epoch"], g["task"], g["status"], g["level"], g["domain"]) for g in found] == [
        ("E1", k, t, "passed" if k == 2 else "failed", level, "d") for k in (1, 2, 3) for t, level in
        (("t1", 1), ("t2", 2))]
    assert store.attempt_grades(["E2"]) == [] and store.attempt_grades([]) == []
    assert store.run("MATCH (g:Grade) RETURN count(g) AS n") == [{"n": 7}]  # three epochs: three grades each


def test_trajectories_are_linked_to_their_task_and_found_from_each_atom(store):
    _stored(store)
    rows = [{"id": f"j{i}", "task": task, "props": {
        "task": task, "eval": "E1", "epoch": 2, "grade": f"g{i}", "status": "passed", "model": "m", "level": level,
        "split": "train", "export": "/out", "row": i, "seed": 0, "exported_at": "2026-12-06T00:00:00+00:00"}}
        for i, (task, level) in enumerate((("t1", 1), ("t2", 2)))]
    store.write_trajectories("/out", rows)
    store.write_trajectories("/out", rows)  # idempotent
    assert store.run("MATCH (j:Trajectory)-[:OF]->(t:Task) RETURN j.id AS id, t.id AS task ORDER BY id") == [
        {"id": "j0", "task": "t1"}, {"id": "j1", "task": "t2"}]
    assert [(r["row"], r["task"], r["grade"]) for r in store.training_rows("d/a")] == [(0, "t1", "g0"),
                                                                                        (1, "t2", "g1")]
    assert [r["task"] for r in store.training_rows("d/b")] == ["t2"]
    assert store.training_rows("d/c") == []
    assert run_named(store, "training_rows", {"atom": "d/b"}) == store.training_rows("d/b")
    # grades and trajectories share OF: a grade query still sees grades only
    assert store.run("MATCH (g:Grade)-[:OF]->(t:Task) RETURN count(g) AS n") == [{"n": 0}]


def test_writing_an_export_again_replaces_its_rows_and_leaves_other_exports_alone(store):
    _stored(store)

    def row(export: str, task: str) -> dict:
        return {"id": f"{export}-{task}", "task": task, "props": {
            "task": task, "eval": "E1", "epoch": 1, "grade": "g", "status": "passed", "model": "m", "level": 1,
            "split": "", "export": export, "row": 0, "seed": 0, "exported_at": "2026-12-06T00:00:00+00:00"}}

    store.write_trajectories("/a", [row("/a", "t1")])
    store.write_trajectories("/b", [row("/b", "t1")])
    store.write_trajectories("/a", [row("/a", "t3")])
    assert [(r["export"], r["task"]) for r in store.training_rows("d/a")] == [("/b", "t1")]
    assert [(r["export"], r["task"]) for r in store.training_rows("d/c")] == [("/a", "t3")]
