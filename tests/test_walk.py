"""Walk semantics (docs/graph.md, Walks), on both stores."""

from __future__ import annotations

import math
import random
from collections import Counter
from fractions import Fraction

import pytest

from codewalk.domain import WalkPlan, get_domain
from codewalk.records import Atom, Edge
from codewalk.store import open_store
from codewalk.store.columns import graph_tables
from codewalk.walk import LevelUnsupported, Walker, WalkExhausted

# A small symmetric graph with unequal multiplicities: c touches both a and b, hubs and a tail.
SYM_EDGES = [("a", "b"), ("a", "c"), ("b", "c"), ("a", "d"), ("b", "e"), ("e", "f"), ("c", "g"), ("g", "h")]


def _load(store, domain: str, edges, labels=None, sources=None) -> None:
    names = sorted({x for e in edges for x in e})
    atoms = [Atom(f"{domain}/{x}", domain, {k: v for k, v in (("label", (labels or {}).get(x)),
                                                               ("source", (sources or {}).get(x))) if v})
             for x in names]
    if get_domain(domain).symmetric:
        es = [Edge(*sorted((f"{domain}/{a}", f"{domain}/{b}")), "SHARES_FILE") for a, b in edges]
    else:
        es = [Edge(f"{domain}/{a}", f"{domain}/{b}", "FEEDS") for a, b in edges]
    store.write(*graph_tables(atoms, es))


def _exact_group_distribution(edges, n: int) -> dict[frozenset, float]:
    """The paper's process, enumerated: uniform start, uniform over the distinct frontier, restart on a
    dead end (so completed groups are distributed as the process conditioned on not dying)."""
    adj: dict[str, set[str]] = {}
    for a, b in edges:
        adj.setdefault(a, set()).add(b)
        adj.setdefault(b, set()).add(a)
    out: Counter = Counter()

    def grow(group: list[str], p: Fraction) -> None:
        if len(group) == n:
            out[frozenset(group)] += p
            return
        frontier = sorted({y for x in group for y in adj[x]} - set(group))
        for y in frontier:
            grow(group + [y], p / len(frontier))

    for start in adj:
        grow([start], Fraction(1, len(adj)))
    total = sum(out.values())
    return {g: float(p / total) for g, p in out.items()}


def _groups(store, domain, n, seed, k, batch=64):
    walker = Walker(store, get_domain(domain), n, random.Random(seed), batch=batch, fast=False)
    it = iter(walker)
    return [next(it) for _ in range(k)]


def test_step_is_uniform_over_distinct_frontier_not_edge_multiplicity(store):
    _load(store, "toysym", SYM_EDGES)
    # group {a, b}: frontier {c, d, e}; c is reached by two edges but must not be picked more often
    rng = random.Random(1)
    base = {"ids": ["toysym/a", "toysym/b"], "last": "toysym/b", "label": "", "blocked": []}
    picks = Counter()
    for _ in range(10):
        walks = [{**base, "wid": i, "u": rng.random()} for i in range(300)]
        picks.update(p for p, _ in store.walk_step("SHARES_FILE", False, walks).values())
    assert set(picks) == {"toysym/c", "toysym/d", "toysym/e"}
    for atom, count in picks.items():
        assert abs(count / 3000 - 1 / 3) < 4 * math.sqrt((1 / 3) * (2 / 3) / 3000), (atom, count)


def test_symmetric_groups_follow_the_papers_distribution(store):
    _load(store, "toysym", SYM_EDGES)
    exact = _exact_group_distribution(SYM_EDGES, 3)
    samples = 3000
    seen = Counter(frozenset(x.split("/")[1] for x in g) for g in _groups(store, "toysym", 3, 5, samples, 500))
    assert set(seen) <= set(exact)
    for group, p in exact.items():
        assert abs(seen[group] / samples - p) < 4.5 * math.sqrt(p * (1 - p) / samples) + 1e-3, (group, p)


def test_directed_walks_are_chains_along_outgoing_edges(store):
    edges = [("a", "b"), ("b", "c"), ("a", "d"), ("d", "c"), ("c", "e"), ("x", "a")]
    _load(store, "toychain", edges)
    allowed = {(f"toychain/{a}", f"toychain/{b}") for a, b in edges}
    groups = _groups(store, "toychain", 3, 11, 200)
    for g in groups:
        assert len(set(g)) == 3
        assert all((g[i], g[i + 1]) in allowed for i in range(2)), g
    # a chain extends from its last atom only: (x, a, c) would be a frontier pick, never a chain
    assert ("toychain/x", "toychain/a", "toychain/c") not in groups
    assert len(set(groups)) > 3


def test_same_seed_same_groups_different_seed_different_groups(store):
    _load(store, "toysym", SYM_EDGES)
    assert _groups(store, "toysym", 3, 42, 50) == _groups(store, "toysym", 3, 42, 50)
    assert _groups(store, "toysym", 3, 42, 50) != _groups(store, "toysym", 3, 43, 50)


@pytest.mark.neo4j
def test_same_seed_gives_same_groups_on_both_stores(neo4j, tmp_path):
    neo = neo4j
    lady = open_store(tmp_path / "g.lbug")
    try:
        for s in (neo, lady):
            _load(s, "toysym", SYM_EDGES)
            _load(s, "toychain", [("a", "b"), ("b", "c"), ("a", "c"), ("c", "d"), ("d", "a")])
        for domain in ("toysym", "toychain"):
            assert _groups(neo, domain, 3, 9, 100) == _groups(lady, domain, 3, 9, 100)
    finally:
        lady.close()


class _CountingStore:
    def __init__(self, store):
        self.store, self.steps = store, 0

    def __getattr__(self, name):
        return getattr(self.store, name)

    def walk_step(self, *args):
        self.steps += 1
        return self.store.walk_step(*args)


def test_one_query_per_step_for_a_whole_batch(store):
    _load(store, "toysym", SYM_EDGES)
    counting = _CountingStore(store)
    groups = _groups(counting, "toysym", 4, 3, 64, batch=64)
    assert len(groups) == 64
    # 64 walks of level 4 from a connected graph without dead ends below 4: three steps, one query each
    assert counting.steps == 3


def test_level_one_groups_are_single_atoms_without_a_query(store):
    _load(store, "toysym", SYM_EDGES)
    counting = _CountingStore(store)
    groups = _groups(counting, "toysym", 1, 3, 30)
    assert all(len(g) == 1 for g in groups) and counting.steps == 0


def test_position_labels_and_source_caps_constrain_the_walk(store, monkeypatch):
    edges = [("a", "b"), ("b", "c"), ("c", "d"), ("a", "e"), ("e", "d"), ("b", "f"), ("f", "d")]
    labels = {"a": "eq", "b": "eq", "c": "neq", "d": "eq", "e": "neq", "f": "eq"}
    sources = {"a": "p1", "b": "p2", "c": "p3", "d": "p1", "e": "p3", "f": "p3"}
    _load(store, "toychain", edges, labels, sources)
    domain = get_domain("toychain")
    monkeypatch.setattr(type(domain), "walk_plan",
                        lambda self, n, rng: WalkPlan(labels=("eq", "neq", "eq"), max_per_source=1))
    walker = Walker(store, domain, 3, random.Random(0), batch=32, fast=False)
    it = iter(walker)
    groups = {next(it) for _ in range(100)}
    for g in groups:
        assert [labels[x.split("/")[1]] for x in g] == ["eq", "neq", "eq"]
        assert max(Counter(sources[x.split("/")[1]] for x in g).values()) == 1
    # eq-neq-eq chains are a-e-d and b-c-d; a-e-d repeats source p1, so only b-c-d is left
    assert groups == {("toychain/b", "toychain/c", "toychain/d")}


def test_a_level_the_graph_cannot_support_stops_with_a_clear_error(store):
    _load(store, "toychain", [("a", "b"), ("c", "b")])  # three atoms, no chain of three
    walker = Walker(store, get_domain("toychain"), 3, random.Random(0), batch=4, fast=False)
    walker.max_restarts = 50
    with pytest.raises(WalkExhausted, match="no group of 3 atoms .* the longest walk reached 2 atom"):
        next(iter(walker))


@pytest.mark.parametrize("fast", [True, False])
def test_a_level_above_the_largest_possible_is_refused_before_walking(store, fast):
    _load(store, "toychain", [("a", "b"), ("b", "c"), ("d", "e")])  # the longest chain: a-b-c
    with pytest.raises(LevelUnsupported, match="N <= 3" if fast else "N <= 5"):
        Walker(store, get_domain("toychain"), 4 if fast else 6, random.Random(0), fast=fast)
    _load(store, "toysym", [("a", "b"), ("b", "c"), ("d", "e")])
    with pytest.raises(LevelUnsupported, match="N <= 3 \\(size of the largest connected component"):
        Walker(store, get_domain("toysym"), 4, random.Random(0))
    assert Walker(store, get_domain("toysym"), 3, random.Random(0)).largest_level()[0] == 3
