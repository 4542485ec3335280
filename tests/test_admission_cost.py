"""Where admission's time goes (codewalk.runtime.meter) and how the loop keeps its workers busy."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from pathlib import Path

from codewalk.admission import walk_and_admit
from codewalk.errors import InfraError
from codewalk.records import Atom, Check, Composite
from codewalk.runtime import meter, sandbox
from codewalk.store.columns import graph_tables
from tests import toy


class ToyBarrier(toy.ToyChain):
    """The first group to start its reference check waits until `others` other groups have finished
    theirs: it can finish only if the other workers keep getting groups while it runs."""

    name = "toybarrier"

    def check_reference(self, composite: Composite, atoms: Sequence[Atom]) -> Check:
        folder, others = Path(atoms[0].payload["barrier"]), atoms[0].payload["others"]
        try:
            os.close(os.open(folder / "head", os.O_CREAT | os.O_EXCL))
        except FileExistsError:  # not the first group: finish at once, and say so
            (folder / f"done-{os.getpid()}-{time.monotonic_ns()}").touch()
            return Check(True, "reference ran")
        deadline = time.monotonic() + 30
        while len(list(folder.glob("done-*"))) < others:
            if time.monotonic() > deadline:
                raise InfraError(f"no {others} other groups finished while the first one ran")
            time.sleep(0.01)
        return Check(True, "reference ran after the others")


class ToySlowTail(toy.ToyChain):
    """The first group to start its reference check is quick; every other one takes a second."""

    name = "toyslowtail"

    def check_reference(self, composite: Composite, atoms: Sequence[Atom]) -> Check:
        try:
            os.close(os.open(Path(atoms[0].payload["folder"]) / "first", os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            time.sleep(1.0)
        return Check(True, "reference ran")


DOMAINS = (ToyBarrier, ToySlowTail)


def test_a_slow_group_at_the_head_does_not_leave_the_other_workers_idle(store, tmp_path):
    """Verdicts are taken in submission order; a slow first group must not stop the pool from running
    the groups behind it (before: at most 2 x workers groups were in flight, finished or not)."""
    atoms = [Atom(f"toybarrier/{i:02d}", "toybarrier", {}, {"barrier": str(tmp_path), "others": 12})
             for i in range(24)]
    store.write(*graph_tables(atoms, ToyBarrier().edges(atoms)))
    s = walk_and_admit(store, "toybarrier", 2, count=20, seed=3, max_attempts=20, workers=2)
    assert s.by_reason == {"admitted": 20}, s.by_reason
    assert len(store.list_tasks(domain="toybarrier", limit=100)) == 20


def test_every_process_is_counted_under_its_program_and_take_starts_afresh(tmp_path):
    meter.take()
    for _ in range(2):
        sandbox.run(["true"], cwd=tmp_path, timeout=30)
    sandbox.run(["sh", "-c", "exit 3"], cwd=tmp_path, timeout=30)
    cost = meter.take(started=time.monotonic() - 9.0)
    assert cost.process_runs == {"true": 2, "sh": 1} and 9.0 <= cost.seconds < 60
    assert 0 < cost.busy <= sum(cost.process_seconds.values()) + 1e-9
    assert cost.start_up > 0  # forking and exec'ing is codewalk's time, outside the tools' spans
    assert meter.take().process_runs == {}


def test_a_run_counts_its_start_up_apart_from_the_tools_time(tmp_path, monkeypatch):
    # Starting a process before its exec is codewalk's share, not the tool's (bench/admission.py).
    real = sandbox.subprocess.Popen

    def slow_start(*args, **kwargs):
        time.sleep(0.3)
        return real(*args, **kwargs)

    monkeypatch.setattr(sandbox.subprocess, "Popen", slow_start)
    meter.take()
    done = sandbox.run(["true"], cwd=tmp_path, timeout=30)
    cost = meter.take()
    assert cost.start_up >= 0.3 and cost.busy < 0.3 <= done.duration, (cost.start_up, cost.busy)


def test_idle_time_at_the_end_is_what_the_last_groups_leave_unused():
    # two workers, both busy until 5; then one group runs alone until 10: 5 worker seconds unused
    assert meter.tail([(0, 4), (0, 2), (2, 4), (4, 10), (4, 5)], 2) == 5.0
    assert meter.tail([(0, 4), (0, 4)], 2) == 0.0
    assert meter.tail([(0, 3)], 2) == 0.0  # never were both busy: nothing counts as the end's


def test_time_in_processes_that_overlap_is_counted_once():
    assert meter._union([(0.0, 2.0), (1.0, 3.0), (5.0, 6.0), (5.5, 5.7)]) == 4.0
    assert meter._union([]) == 0.0


def test_a_cache_lookup_is_counted_as_a_miss_then_a_hit(monkeypatch, tmp_path):
    from codewalk.domains.proofs import cache

    monkeypatch.setenv("CODEWALK_CACHE", str(tmp_path))
    meter.take()
    digest = cache.key("program text", "frama-c -wp")
    assert cache.cached(digest, lambda: {"proved": True}) == ({"proved": True}, False)
    assert cache.cached(digest, lambda: {"proved": False}) == ({"proved": True}, True)
    cost = meter.take()
    assert (cost.misses["proofs: verdict"], cost.hits["proofs: verdict"]) == (1, 1)


def test_a_walk_reports_the_time_its_verifiers_took(tmp_path, capsys):
    """The demo's checks run sandboxed Python: `cw walk --json` says how long, per group and in all."""
    from tests.test_cli import cw

    store = str(tmp_path / "g.lbug")
    code, _, err = cw(capsys, "--store", store, "demo")
    assert code == 0, err
    code, text, err = cw(capsys, "--store", store, "walk", "--domain", "demo", "--n", "3", "--count", "4",
                         "--seed", "2", "--max-attempts", "12", "--workers", "2", "--json")
    assert code == 0, err
    s = json.loads(text)
    cost = s["cost"]
    assert cost["groups"] == s["attempted"] > 0 and cost["workers"] == 2
    assert cost["processes"]["python"]["runs"] >= s["attempted"]  # at least the reference check per group
    assert 0 < cost["in_processes"] <= cost["seconds"]
    assert 0 < cost["in_processes_share"] <= 1
    assert {"walk", "atoms", "writes"} <= set(cost["main"])


def test_a_process_that_never_measures_keeps_no_counts(tmp_path):
    """Grading and loading run many processes and never take the counts: nothing may pile up there."""
    import subprocess
    import sys

    code = ("from pathlib import Path; from codewalk.runtime import meter, sandbox\n"
            f"for _ in range(3): sandbox.run(['true'], cwd=Path({str(tmp_path)!r}), timeout=30)\n"
            "meter.reuse('x', True); print(len(meter._process_spans), sum(meter._now.hits.values()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["0", "0"]


def test_each_atom_is_read_from_the_store_once_per_walk_and_groups_get_their_own_atoms(store, monkeypatch):
    from codewalk.admission import _AtomReader
    atoms = toy.atoms("toychain", 6)
    store.write(*graph_tables(atoms, toy.ToyChain().edges(atoms)))
    asked: list[list[str]] = []
    real = store.get_atoms
    monkeypatch.setattr(store, "get_atoms", lambda ids: asked.append(list(ids)) or real(ids))
    read = _AtomReader(store, keep=4)
    ids = [a.id for a in atoms]
    assert [a.id for a in read([ids[0], ids[1]])] == [ids[0], ids[1]]
    assert [a.id for a in read([ids[1], ids[0]])] == [ids[1], ids[0]]  # both known: no query
    assert asked == [[ids[0], ids[1]]]
    assert [a.id for a in read([ids[2], ids[0], ids[3]])] == [ids[2], ids[0], ids[3]]  # past keep: read afresh
    assert asked[-1] == [ids[2], ids[0], ids[3]]
    assert read([ids[0]])[0] == atoms[0]


def test_groups_still_running_when_the_count_is_reached_are_counted_as_dropped_not_as_the_walks(store, tmp_path):
    """The pool cannot stop a group it started: the walk waits for it and keeps nothing of it. Its time is
    reported apart (cost.dropped), not among the kept groups' and not as codewalk's idle time."""
    atoms = [Atom(f"toyslowtail/{i:02d}", "toyslowtail", {}, {"folder": str(tmp_path)}) for i in range(8)]
    store.write(*graph_tables(atoms, ToySlowTail().edges(atoms)))
    s = walk_and_admit(store, "toyslowtail", 2, count=1, seed=3, max_attempts=8, workers=2)
    assert s.admitted == 1 and s.cost.groups == 1
    assert s.dropped.groups >= 1 and s.dropped.seconds >= 0.9  # a one-second group finished after the count
    assert s.as_dict()["cost"]["dropped"]["groups"] == s.dropped.groups
    assert len(store.list_tasks(domain="toyslowtail", limit=100)) == 1
