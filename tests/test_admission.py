"""The generic admission loop: every attempt recorded, infra errors kept apart, nothing twice, resumable."""

from __future__ import annotations

import pytest

from codewalk.admission import walk_and_admit
from codewalk.records import Atom
from codewalk.store.columns import graph_tables
from tests import toy


def _ring(store, domain="toychain", n=12, flags=None):
    atoms = [Atom(f"{domain}/{i:02d}", domain, {}, {"flags": (flags or {}).get(i, [])}) for i in range(n)]
    d = toy.ToyChain() if domain == "toychain" else toy.ToySym()
    store.write(*graph_tables(atoms, d.edges(atoms)))


def _composes_ok(store):
    """Every Task has exactly `level` COMPOSES edges with positions 0..N-1."""
    rows = store.run("MATCH (t:Task)-[c:COMPOSES]->(:Atom) RETURN t.id AS id, t.level AS level, "
                     "collect(c.position) AS ps")
    return all(sorted(r["ps"]) == list(range(r["level"])) for r in rows)


def test_admits_until_count_and_records_every_attempt(store):
    _ring(store)
    s = walk_and_admit(store, "toychain", 3, count=4, seed=1)
    assert s.admitted == 4 and s.attempted == 4
    assert len(store.list_tasks(domain="toychain", status="admitted")) == 4
    assert _composes_ok(store)


def test_a_solved_atom_rejects_the_group_with_per_atom_evidence(store):
    _ring(store, flags={3: ["solved"]})
    s = walk_and_admit(store, "toychain", 2, count=30, seed=2, max_attempts=30)
    assert s.by_reason["atom_solved"] > 0
    rejected = store.list_tasks(domain="toychain", status="rejected", limit=1000)
    for row in rejected:
        task = store.get_task(row["id"])
        assert "toychain/03" in task["atoms"] and task["reason"] == "atom_solved"
        flags = {a["atom"]: a["unsolved"] for a in task["evidence"]["atoms"]}
        assert flags["toychain/03"] is False and sum(flags.values()) == 1
        assert task["evidence"]["reference"]["passes"] is True
    assert len(rejected) == s.by_reason["atom_solved"]


def test_reference_failure_rejects_before_checking_atoms(store):
    _ring(store, flags={5: ["badref"]})
    walk_and_admit(store, "toychain", 2, count=30, seed=3, max_attempts=30)
    rows = store.list_tasks(domain="toychain", status="rejected", limit=1000)
    assert rows and all(r["reason"] == "reference_fails" for r in rows)
    task = store.get_task(rows[0]["id"])
    assert task["evidence"]["reference"]["passes"] is False and "atoms" not in task["evidence"]


def test_infra_error_while_composing_is_recorded_and_the_walk_goes_on(store):
    _ring(store, flags={7: ["compose_crash"]})
    s = walk_and_admit(store, "toychain", 2, count=15, seed=4, max_attempts=24)
    errors = [store.get_task(row["id"]) for row in store.list_tasks(domain="toychain", status="error", limit=1000)]
    assert errors and len(errors) == s.by_reason["infra_error"] and s.admitted == s.attempted - len(errors)
    for task in errors:
        assert "toychain/07" in task["atoms"] and task["evidence"]["stage"] == "compose"
        assert "git timed out" in task["evidence"]["error"]


def test_verifier_crash_is_an_infrastructure_error_not_unsolved(store):
    _ring(store, flags={7: ["crash"]})
    s = walk_and_admit(store, "toychain", 2, count=30, seed=4, max_attempts=30)
    errors = store.list_tasks(domain="toychain", status="error", limit=1000)
    assert errors and len(errors) == s.by_reason["infra_error"]
    for row in errors:
        task = store.get_task(row["id"])
        assert "toychain/07" in task["atoms"] and task["evidence"]["error"] == "verifier crashed"


def test_rerun_never_attempts_a_group_twice(store):
    _ring(store)
    first = walk_and_admit(store, "toychain", 2, count=5, seed=7)
    second = walk_and_admit(store, "toychain", 2, count=5, seed=7)  # same seed: same walks, all known
    assert second.skipped >= 5 and not set(first.admitted_ids) & set(second.admitted_ids)
    ids = [r["id"] for r in store.list_tasks(domain="toychain", limit=1000)]
    assert len(ids) == len(set(ids)) == 10


def test_interrupt_keeps_finished_tasks_and_a_rerun_continues(store):
    _ring(store)

    def stop_after_three(task, summary):
        if summary.attempted == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        walk_and_admit(store, "toychain", 3, count=10, seed=5, on_task=stop_after_three)
    assert len(store.list_tasks(domain="toychain", limit=100)) == 3
    rest = walk_and_admit(store, "toychain", 3, count=7, seed=5)
    ids = [r["id"] for r in store.list_tasks(domain="toychain", limit=100)]
    assert rest.admitted == 7 and len(ids) == len(set(ids)) == 10
    assert _composes_ok(store)


def test_workers_give_the_same_tasks_as_one_process(store, tmp_path):
    from codewalk.store import open_store

    _ring(store)
    other = open_store(tmp_path / "other.lbug")
    _ring(other)
    a = walk_and_admit(store, "toychain", 3, count=6, seed=8, workers=2)
    b = walk_and_admit(other, "toychain", 3, count=6, seed=8, workers=1)
    other.close()
    assert a.admitted_ids == b.admitted_ids


def test_symmetric_groups_are_sets(store):
    _ring(store, domain="toysym")
    walk_and_admit(store, "toysym", 3, count=8, seed=9)
    for row in store.list_tasks(domain="toysym", limit=100):
        atoms = store.get_task(row["id"])["atoms"]
        assert atoms == sorted(atoms)


def test_exhausted_graph_stops_instead_of_spinning(store):
    _ring(store, n=3)  # 3 atoms: three groups of level 1 exist
    s = walk_and_admit(store, "toychain", 1, count=10, seed=1)
    assert s.admitted == 3 and s.attempted == 3


def test_skipped_counts_the_groups_an_earlier_run_attempted_not_how_often_the_walks_found_them(store):
    """A 3-atom ring has a handful of chains of 2: the first walk uses them up, finding them again over a
    thousand times (`redrawn`), which is not `skipped 1155`. A second walk skips exactly those groups."""
    _ring(store, n=3)
    first = walk_and_admit(store, "toychain", 2, count=10, seed=1)
    assert first.attempted <= 6 and (first.skipped, first.used_up) == (0, True) and first.redrawn > 1000
    second = walk_and_admit(store, "toychain", 2, count=10, seed=1)
    assert (second.attempted, second.skipped, second.used_up) == (0, first.attempted, True)
    assert second.as_dict()["skipped"] == first.attempted and second.as_dict()["redrawn"] > 1000
