"""A release balanced between classes (clones: eq and neq) walks only the class it still lacks, and a class
the graph cannot give stops the level with an account instead of looping. On a tiny clones graph of
int -> int methods, with V_G stubbed to pass (what is under test is the walk, not the Java check)."""

from __future__ import annotations

import random

import pytest

from codewalk import release
from codewalk.domain import Check, Settings
from codewalk.domains.clones import ClonesDomain
from codewalk.records import Atom
from codewalk.store import open_store
from codewalk.store.columns import graph_tables


def _atom(k: int, label: str) -> Atom:
    method = f"int method1(int a) {{\n    return a + {k};\n}}"
    return Atom(id=f"clones/p{k}", domain="clones",
                summary={"title": f"p{k}", "in_type": "int", "out_type": "int", "label": label, "source": f"s{k}"},
                payload={"pair_id": k, "method1": method, "method2": method.replace("method1", "method2"),
                         "imports": [], "return_type": "int", "params": ["int"], "param_names": ["a"],
                         "verification": {}})


@pytest.fixture
def clones_store(tmp_path, monkeypatch):
    """6 eq and 2 neq atoms, each feeding every other (all int -> int); every composite passes V_G."""
    monkeypatch.setattr(ClonesDomain, "check_reference", lambda self, composite, atoms: Check(True, "stub"))

    def make(labels: list[str]):
        atoms = [_atom(k, label) for k, label in enumerate(labels)]
        store = open_store(tmp_path / "g.lbug")
        store.write(*graph_tables(atoms, ClonesDomain().edges(atoms)))
        return store

    return make


def _plan(tmp_path, text: str) -> release.Plan:
    path = tmp_path / "plan.toml"
    path.write_text(f'balance = "class"\nattempts = 20\n{text}')
    return release.read_plan("clones", path)


def _attempted_by_class(store, n: int) -> dict[str, int]:
    rows = store.run("MATCH (t:Task) WHERE t.domain = 'clones' AND t.level = $n RETURN t.reference AS r, "
                     "count(*) AS c", {"n": n})
    return {{"VERDICT: 1": "eq", "VERDICT: 0": "neq"}[r["r"]]: r["c"] for r in rows}


def test_a_balanced_level_walks_each_class_only_until_its_quota_is_met(tmp_path, clones_store):
    plan = _plan(tmp_path, "[levels]\n2 = 10\n")
    with clones_store(["eq"] * 6 + ["neq"] * 2) as store:
        account, chosen = release.fill_level(store, plan, plan.levels[0])
        attempted = _attempted_by_class(store, 2)
    # Every attempt is admitted here, so a walk of both classes at once would overshoot one of them.
    assert attempted == {"eq": 5, "neq": 5}
    assert (account.released, account.by_class, account.short) == (10, {"eq": 5, "neq": 5}, "")
    assert sorted(t.verifier["label"] for t in chosen) == ["eq"] * 5 + ["neq"] * 5


def test_a_class_the_graph_cannot_give_stops_the_level_with_an_account_not_a_loop(tmp_path, clones_store):
    plan = _plan(tmp_path, "[levels]\n2 = 10\n")
    with clones_store(["eq"] * 8) as store:  # no neq atom: no negative chain exists
        account, chosen = release.fill_level(store, plan, plan.levels[0])
        attempted = _attempted_by_class(store, 2)
    assert attempted == {"eq": 5}  # the eq half is filled, and no attempt is spent past it
    assert account.released == 5 and account.by_class == {"eq": 5}
    assert account.short.startswith("N=2: 5 of 10 tasks")
    assert "the walks find no group of class neq of N=2 atoms" in account.short
    assert "no atom with label 'neq'" in account.short


def test_the_label_walk_option_makes_every_walk_of_that_class():
    for label in ("eq", "neq"):
        domain = ClonesDomain(settings=Settings(walk=ClonesDomain.parse_walk_options({"label": label})))
        plans = [domain.walk_plan(4, random.Random(k)).labels for k in range(50)]
        assert all(p.count("neq") == (label == "neq") and p.count("eq") == 4 - (label == "neq") for p in plans)
    assert {ClonesDomain().walk_plan(4, random.Random(k)).labels.count("neq") for k in range(50)} == {0, 1}
