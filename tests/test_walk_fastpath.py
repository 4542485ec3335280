"""The walk's frontier path (Walker(fast=True)) yields exactly the groups of the Cypher-step path, the
definition of a step, for the same seed, on both stores."""

from __future__ import annotations

import random

import pytest

from codewalk.domain import WalkPlan, get_domain
from codewalk.records import Atom, Edge
from codewalk.store import open_store
from codewalk.store.columns import graph_tables
from codewalk.walk import Walker

# Names whose byte order and case order differ, so a sort that is not the engines' would show.
NAMES = [f"{p}{i}" for p in ("a", "B", "z_", "é", "Z") for i in range(14)]


def _random_graph(store, domain: str, seed: int) -> None:
    """70 atoms with skewed degrees (a few hubs), labels eq/neq and five source programs."""
    rng = random.Random(seed)
    weights = [1 / (k + 1) for k in range(len(NAMES))]
    edges = set()
    while len(edges) < 180:
        a, b = rng.choices(NAMES, weights, k=2)[0], rng.choice(NAMES)
        if a != b:
            edges.add((a, b) if not get_domain(domain).symmetric else tuple(sorted((a, b))))
    atoms = [Atom(f"{domain}/{x}", domain, {"label": rng.choice(["eq", "eq", "neq"]),
                                            "source": rng.choice(["p1", "p2", "p3", "p4", "p5"])})
             for x in NAMES]
    rel = "SHARES_FILE" if get_domain(domain).symmetric else "FEEDS"
    store.write(*graph_tables(atoms, [Edge(f"{domain}/{a}", f"{domain}/{b}", rel) for a, b in sorted(edges)]))


def _constrained(self, n: int, rng: random.Random) -> WalkPlan:
    """Like clones and proofs: one 'neq' at a random position, each source program at most twice."""
    k = int(rng.random() * n)
    return WalkPlan(labels=tuple("neq" if i == k else "eq" for i in range(n)), max_per_source=2)


def _groups(store, domain: str, n: int, seed: int, fast: bool, count: int = 150, batch: int = 40):
    walker = Walker(store, get_domain(domain), n, random.Random(seed), batch=batch, fast=fast)
    it = iter(walker)
    return [next(it) for _ in range(count)]


# Long chains restart often in this sparse graph: level 4 is enough to exercise restarts.
@pytest.mark.parametrize("domain,n", [("toysym", 2), ("toysym", 4), ("toysym", 7), ("toychain", 2), ("toychain", 4)])
def test_frontier_path_gives_the_cypher_steps_groups(store, domain, n):
    _random_graph(store, domain, seed=n)
    for seed in (1, 2):
        assert _groups(store, domain, n, seed, fast=True) == _groups(store, domain, n, seed, fast=False)


@pytest.mark.parametrize("domain", ["toysym", "toychain"])
def test_frontier_path_keeps_labels_and_source_caps_like_the_cypher_step(store, domain, monkeypatch):
    _random_graph(store, domain, seed=3)
    monkeypatch.setattr(type(get_domain(domain)), "walk_plan", _constrained)
    fast = _groups(store, domain, 3, 5, fast=True, count=60)
    assert fast == _groups(store, domain, 3, 5, fast=False, count=60)
    rows = store.run("MATCH (a:Atom) WHERE a.domain = $d RETURN a.id AS id, a.label AS label", {"d": domain})
    labels = {r["id"]: r["label"] for r in rows}
    assert all(sorted(labels[x] for x in g) == ["eq", "eq", "neq"] for g in fast)


@pytest.mark.neo4j
def test_frontier_path_gives_the_same_groups_on_both_stores(neo4j, tmp_path):
    lady = open_store(tmp_path / "g.lbug")
    try:
        for domain in ("toysym", "toychain"):
            for s in (neo4j, lady):
                _random_graph(s, domain, seed=11)
            assert _groups(neo4j, domain, 5, 9, fast=True) == _groups(lady, domain, 5, 9, fast=False)
    finally:
        lady.close()


class _CountingQueries:
    """A store that counts what the walker asks of it."""

    def __init__(self, store):
        self.store, self.tables, self.runs, self.steps = store, [], 0, 0

    def __getattr__(self, name):
        return getattr(self.store, name)

    def table(self, cypher, params=None):
        self.tables.append(cypher)
        return self.store.table(cypher, params)

    def read_columns(self, name, params, rel=None):
        self.tables.append(name if rel is None else (name, rel))
        return self.store.read_columns(name, params, rel)

    def run(self, cypher, params=None):
        self.runs += 1
        return self.store.run(cypher, params)

    def walk_step(self, *args):
        self.steps += 1
        return self.store.walk_step(*args)


def test_frontier_path_reads_the_relation_once_and_sends_no_query_per_step(store):
    _random_graph(store, "toysym", seed=4)
    counting = _CountingQueries(store)
    walker = Walker(counting, get_domain("toysym"), 4, random.Random(0), batch=30, fast=True)
    it = iter(walker)
    groups = [next(it) for _ in range(90)]  # three batches' worth
    assert len(groups) == 90 and counting.steps == 0 and counting.runs == 0
    assert counting.tables == [("relation_keys", "SHARES_FILE")]  # (the atoms come through atom_table)


def test_frontier_path_ignores_edges_that_leave_the_domain(store):
    """`cw load` keeps edges inside a domain; an edge written around it must not put a foreign atom in a group."""
    _random_graph(store, "toysym", seed=5)
    store.write(*graph_tables([Atom("other/x", "other", {})], [Edge("toysym/a0", "other/x", "SHARES_FILE"),
                                                        Edge("other/x", "toysym/B3", "SHARES_FILE")]))
    it = iter(Walker(store, get_domain("toysym"), 5, random.Random(2), batch=20, fast=True))
    assert all(x.startswith("toysym/") for _ in range(100) for x in next(it))


@pytest.mark.neo4j
def test_a_relation_read_in_many_pages_walks_the_groups_of_one_read(neo4j, monkeypatch):
    """Neo4j returns the atom index and the relation in pages of TABLE_CHUNK atoms, one record each:
    page boundaries must not change what is read."""
    import codewalk.store.neo4j as neo4j_store

    store = neo4j
    _random_graph(store, "toysym", seed=6)

    def read():
        table = store.atom_table("toysym")
        it = iter(Walker(store, get_domain("toysym"), 4, random.Random(1), batch=25, fast=True))
        return table, [next(it) for _ in range(60)]

    whole = read()
    monkeypatch.setattr(neo4j_store, "TABLE_CHUNK", 3)
    chunked = read()
    assert chunked[0].equals(whole[0]) and whole[0].num_rows > 3
    assert chunked[1] == whole[1]
