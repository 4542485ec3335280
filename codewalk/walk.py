"""Random-extension walks (paper Sec. 2.2), run as Cypher against the store.

Symmetric relation: start at a uniformly random atom; each step picks uniformly among the distinct
unvisited atoms adjacent to any atom already picked. Directed relation: the group is a chain, each step
extends from the last atom along outgoing edges. No candidate left: start over.

Randomness comes from one seeded client RNG: a uniform `u` per walk and step goes into the query, which
takes `f[floor(u * size(f))]` from the sorted distinct frontier. The same seed and graph give the same
groups on both stores. One query per step serves a whole batch of walks.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from .domain import Domain, WalkPlan
from .errors import CodewalkError, UsageError
from .store import GraphStore


class WalkExhausted(CodewalkError):
    """No group of the requested level can be found (the graph is too small or too sparse)."""


@dataclass
class _Walk:
    plan: WalkPlan
    ids: list[str] = field(default_factory=list)


class Walker:
    """Yields groups of `n` atoms forever (callers stop it), `batch` walks in flight at a time."""

    def __init__(self, store: GraphStore, domain: Domain, n: int, rng: random.Random, batch: int = 256):
        if n < 1:
            raise UsageError("the level N must be at least 1")
        self.store, self.domain, self.n, self.rng, self.batch = store, domain, n, rng, batch
        index = store.atom_index(domain.name)
        if not index:
            raise UsageError(f"no atoms of domain {domain.name!r} in the store; run `cw load {domain.name} ...`")
        self.ids = [i for i, _, _ in index]
        self.source = {i: s for i, _, s in index}
        self.by_label: dict[str, list[str]] = {}
        for i, label, _ in index:
            self.by_label.setdefault(label, []).append(i)
        # Give up when this many walks in a row restart without one completing.
        self.max_restarts = 100 * max(len(self.ids), batch)

    def _start(self, walk: _Walk) -> None:
        want = self._label(walk, 0)
        pool = self.ids if not want else self.by_label.get(want, [])
        if not pool:
            raise WalkExhausted(f"no atom with label {want!r} to start a walk of domain {self.domain.name!r}")
        walk.ids = [pool[int(self.rng.random() * len(pool))]]

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
        counts = Counter(self.source[i] for i in walk.ids if self.source[i])
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
            params = [
                {"wid": w, "ids": walks[w].ids, "last": walks[w].ids[-1], "u": self.rng.random(),
                 "label": self._label(walks[w], len(walks[w].ids)), "blocked": self._blocked(walks[w])}
                for w in growing
            ]
            picks = self.store.walk_step(self.domain.relation, chain, params)
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
