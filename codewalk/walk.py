"""Random-extension walks (paper Sec. 2.2), run as Cypher against the store.

Symmetric relation: start at a uniformly random atom; each step picks uniformly among the distinct
unvisited atoms adjacent to any atom already picked. Directed relation: the group is a chain, each step
extends from the last atom along outgoing edges. No candidate left: start over.

Randomness comes from one seeded client RNG: a uniform `u` per walk and step goes into the query, which
takes `f[floor(u * size(f))]` from the sorted distinct frontier. The same seed and graph give the same
groups on both stores. One query per step serves a whole batch of walks.

Two ways to run a step, with the same result for the same seed (tests/test_walk_fastpath.py):
* the Cypher step (`cypher/walk_step_*.cypher`), the definition: the store computes each walk's
  frontier from the whole group and picks from it;
* the frontier path (`fast=True`): each walk's frontier lives here and grows incrementally; one
  batched query per step fetches the neighbours of the atoms the walks gained last step and that a
  bounded cache does not hold yet (`cypher/adjacency*.cypher`), and the pick is the same
  `f[floor(u * size(f))]` over the same sorted, filtered frontier. It does not re-expand the whole
  group every step, so a step costs about the same at any level N. It reads labels and sources from
  the atom index, so it assumes edges stay inside one domain (`cw load` guarantees it) and that the
  graph does not change while it walks.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from .domain import Domain, WalkPlan
from .errors import CodewalkError, UsageError
from .store import GraphStore

ADJACENCY_CACHE = 100_000  # atoms whose neighbours the frontier path keeps (a hub is asked for again and again)


class WalkExhausted(CodewalkError):
    """No group of the requested level can be found (the graph is too small or too sparse)."""


@dataclass
class _Walk:
    plan: WalkPlan
    ids: list[str] = field(default_factory=list)
    frontier: set[str] = field(default_factory=set)  # fast path: unvisited neighbours of the group
    merged: int = 0  # fast path: how many of `ids` have their neighbours in `frontier`


class Walker:
    """Yields groups of `n` atoms forever (callers stop it), `batch` walks in flight at a time."""

    def __init__(self, store: GraphStore, domain: Domain, n: int, rng: random.Random, batch: int = 256,
                 fast: bool = False):
        if n < 1:
            raise UsageError("the level N must be at least 1")
        self.store, self.domain, self.n, self.rng, self.batch = store, domain, n, rng, batch
        self.step = self._frontier_step if fast else self._cypher_step
        self.adjacent: dict[str, list[str]] = {}  # fast path: neighbours fetched so far, bounded
        index = store.atom_index(domain.name)
        if not index:
            raise UsageError(f"no atoms of domain {domain.name!r} in the store; run `cw load {domain.name} ...`")
        self.ids = [i for i, _, _ in index]
        # Only atoms that carry a label or source: at 10^6 atoms most carry neither.
        self.label = {i: label for i, label, _ in index if label}
        self.source = {i: s for i, _, s in index if s}
        self.by_label: dict[str, list[str]] = {}
        for i, label in self.label.items():
            self.by_label.setdefault(label, []).append(i)
        # Give up when this many walks in a row restart without one completing.
        self.max_restarts = 100 * max(len(self.ids), batch)

    def _start(self, walk: _Walk) -> None:
        want = self._label(walk, 0)
        pool = self.ids if not want else self.by_label.get(want, [])
        if not pool:
            raise WalkExhausted(f"no atom with label {want!r} to start a walk of domain {self.domain.name!r}")
        walk.ids = [pool[int(self.rng.random() * len(pool))]]
        walk.frontier, walk.merged = set(), 0

    def _new(self) -> _Walk:
        walk = _Walk(self.domain.walk_plan(self.n, self.rng))
        self._start(walk)
        return walk

    @staticmethod
    def _label(walk: _Walk, position: int) -> str:
        return (walk.plan.labels[position] or "") if walk.plan.labels else ""

    def _blocked(self, walk: _Walk) -> list[str]:
        cap = walk.plan.max_per_source
        if not cap:
            return []
        counts = Counter(self.source[i] for i in walk.ids if i in self.source)
        return sorted(s for s, c in counts.items() if c >= cap)

    def __iter__(self) -> Iterator[tuple[str, ...]]:
        chain = not self.domain.symmetric
        walks = [self._new() for _ in range(self.batch)]
        restarts = 0
        while True:
            for w, walk in enumerate(walks):
                if len(walk.ids) == self.n:
                    # A symmetric group is a set: its canonical form is sorted. A chain keeps its order.
                    yield tuple(walk.ids) if chain else tuple(sorted(walk.ids))
                    walks[w] = self._new()
                    restarts = 0
            growing = [w for w, walk in enumerate(walks) if len(walk.ids) < self.n]
            us = [self.rng.random() for _ in growing]
            picks = self.step(walks, growing, us)
            for w in growing:
                if w in picks:
                    walks[w].ids.append(picks[w][0])
                else:  # dead end: start over
                    restarts += 1
                    self._start(walks[w])
            if restarts > self.max_restarts:
                raise WalkExhausted(
                    f"no group of {self.n} atoms found in domain {self.domain.name!r} after {restarts} "
                    "restarts: the graph may not support this level (see `cw explore`)"
                )

    def _cypher_step(self, walks: list[_Walk], growing: list[int], us: list[float]) -> dict[int, tuple[str, int]]:
        params = [
            {"wid": w, "ids": walks[w].ids, "last": walks[w].ids[-1], "u": u,
             "label": self._label(walks[w], len(walks[w].ids)), "blocked": self._blocked(walks[w])}
            for w, u in zip(growing, us, strict=True)
        ]
        return self.store.walk_step(self.domain.relation, not self.domain.symmetric, params)

    def _frontier_step(self, walks: list[_Walk], growing: list[int], us: list[float]) -> dict[int, tuple[str, int]]:
        chain = not self.domain.symmetric
        # A chain extends from its last atom; a frontier walk needs the atoms it gained since last step.
        gained = {w: walks[w].ids[-1:] if chain else walks[w].ids[walks[w].merged:] for w in growing}
        adjacent = self._adjacency(chain, {x for xs in gained.values() for x in xs})
        picks = {}
        for w, u in zip(growing, us, strict=True):
            walk = walks[w]
            if chain:
                candidates = set(adjacent.get(walk.ids[-1], ())).difference(walk.ids)
            else:
                for x in gained[w]:
                    walk.frontier.update(adjacent.get(x, ()))
                walk.frontier.difference_update(walk.ids)
                walk.merged = len(walk.ids)
                candidates = walk.frontier
            label, blocked = self._label(walk, len(walk.ids)), self._blocked(walk)
            if label or blocked:
                candidates = [c for c in candidates
                              if (not label or self.label.get(c) == label) and self.source.get(c, "") not in blocked]
            f = sorted(candidates)
            if f:
                picks[w] = (f[int(u * len(f))], len(f))
        return picks

    def _adjacency(self, chain: bool, ids: set[str]) -> dict[str, list[str]]:
        """Neighbours (chains: out-neighbours) of each atom, those not cached yet fetched in one query."""
        missing = [x for x in ids if x not in self.adjacent]
        if missing:
            if len(self.adjacent) + len(missing) > ADJACENCY_CACHE:
                self.adjacent.clear()  # simpler than LRU; this step's atoms are then all fetched again
                missing = list(ids)
            query = self.store.q("adjacency_out" if chain else "adjacency", self.domain.relation)
            self.adjacent.update((r["id"], r["next"]) for r in self.store.run(query, {"ids": missing}))
        return self.adjacent
