"""Random-extension walks (paper Sec. 2.2), run as Cypher against the store.

Symmetric relation: start at a uniformly random atom; each step picks uniformly among the distinct
unvisited atoms adjacent to any atom already picked. Directed relation: the group is a chain, each step
extends from the last atom along outgoing edges. No candidate left: start over.

Randomness comes from one seeded client RNG: a uniform `u` per walk and step goes into the query, which
takes `f[floor(u * size(f))]` from the sorted distinct frontier. The same seed and graph give the same
groups on both stores. One query per step serves a whole batch of walks.

Two ways to run a step, with the same result for the same seed (tests/test_walk_fastpath.py):
* the Cypher step (`fast=False`, `cypher/walk_step_*.cypher`), the definition: the store computes each walk's
  frontier from the whole group and picks from it;
* the frontier path (`fast=True`, the default and what `cw walk` uses): the walker reads the relation once
  (`cypher/relation_keys*.cypher`, as Arrow columns) into integer arrays over the atoms' ranks in id
  order, 4 bytes per edge and direction, and keeps each walk's frontier as a set of ranks that grows
  incrementally. Rank order is id order, so the pick is the same `f[floor(u * size(f))]` over the same
  sorted, filtered frontier, with no query per step. It assumes edges stay inside one domain (`cw load`
  guarantees it) and that the graph does not change while it walks.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .domain import Domain, WalkPlan
from .errors import CodewalkError, UsageError
from .relations import largest_level
from .store import GraphStore


class LevelUnsupported(UsageError):
    """The level asked for is above what the graph can support: known before walking."""


class WalkExhausted(CodewalkError):
    """No group of the requested level can be found (the graph is too small or too sparse): a level above
    what the graph supports, found while walking, so the same exit code as LevelUnsupported."""

    exit_code = UsageError.exit_code


@dataclass(slots=True)
class _Walk:
    plan: WalkPlan
    constrained: bool = False  # the plan restricts labels or sources
    ids: list[int] = field(default_factory=list)  # ranks of the atoms picked so far
    frontier: set[int] = field(default_factory=set)  # fast path: unvisited neighbours of the group
    merged: int = 0  # fast path: how many of `ids` have their neighbours in `frontier`


class Walker:
    """Yields groups of `n` atoms forever (callers stop it), `batch` walks in flight at a time.

    Atoms are handled by rank, their position in id order (`self.ids`), and turned back into ids as
    groups are yielded."""

    def __init__(self, store: GraphStore, domain: Domain, n: int, rng: random.Random, batch: int = 256,
                 fast: bool = True):
        if n < 1:
            raise UsageError("the level N must be at least 1")
        self.store, self.domain, self.n, self.rng, self.batch = store, domain, n, rng, batch
        atoms = store.atom_table(domain.name)
        if not atoms.num_rows:
            raise UsageError(f"no atoms of domain {domain.name!r} in the store; run `cw load {domain.name} ...`")
        self.ids = _Ids(atoms.column("id").combine_chunks())
        # Only atoms that carry a label or source: at 10^6 atoms most carry neither.
        self.label = {r: x for r, x in enumerate(atoms.column("label").to_pylist()) if x}
        self.source = {r: x for r, x in enumerate(atoms.column("source").to_pylist()) if x}
        self.by_label: dict[str, list[int]] = {}
        for r, label in self.label.items():
            self.by_label.setdefault(label, []).append(r)
        # The frontier path holds the relation in memory; the Cypher step asks the store each step.
        self.neighbours = _Relation(store, domain, atoms.column("key")) if fast else None
        del atoms
        if n > (most := self.largest_level()[0]):  # decided before any walk: a usage error, not a long search
            raise LevelUnsupported(f"level N={n} is above what the graph of domain {domain.name!r} supports: "
                                   f"N <= {most} ({self.largest_level()[1]}; see `cw explore`)")
        # Give up when this many walks in a row restart without one completing.
        self.max_restarts = 100 * max(len(self.ids), batch)

    def largest_level(self) -> tuple[int, str]:
        """An upper bound on the level the graph supports, and why: a group lies inside one connected
        component (frontier walks), a chain inside a weakly connected one and, when the relation has no
        cycle, along its longest path. Without the relation in memory (the Cypher step), the atom count."""
        if self.neighbours is None:
            return len(self.ids), "the number of atoms"
        return self.neighbours.largest_level(self.domain.symmetric)

    def _start(self, walk: _Walk) -> None:
        want = self._label(walk, 0)
        pool = range(len(self.ids)) if not want else self.by_label.get(want, [])
        if not pool:
            raise WalkExhausted(f"no atom with label {want!r} to start a walk of domain {self.domain.name!r}")
        walk.ids = [pool[int(self.rng.random() * len(pool))]]
        walk.frontier, walk.merged = set(), 0

    def _new(self) -> _Walk:
        plan = self.domain.walk_plan(self.n, self.rng)
        walk = _Walk(plan, bool(plan.labels or plan.max_per_source))
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
        step = self._cypher_step if self.neighbours is None else self._frontier_step
        walks = [self._new() for _ in range(self.batch)]
        restarts = longest = 0
        while True:
            for w, walk in enumerate(walks):
                if len(walk.ids) == self.n:
                    # A symmetric group is a set: its canonical form is sorted. A chain keeps its order.
                    yield tuple(self.ids[r] for r in (walk.ids if chain else sorted(walk.ids)))
                    walks[w] = self._new()
                    restarts = 0
            growing = [w for w, walk in enumerate(walks) if len(walk.ids) < self.n]
            us = [self.rng.random() for _ in growing]
            for w, pick in zip(growing, step(walks, growing, us), strict=True):
                if pick is not None:
                    walks[w].ids.append(pick)
                else:  # dead end: start over
                    restarts += 1
                    longest = max(longest, len(walks[w].ids))
                    self._start(walks[w])
            if restarts > self.max_restarts:
                # the graph may still hold such groups: random extension reaches them too rarely to find one
                raise WalkExhausted(
                    f"no group of {self.n} atoms found in domain {self.domain.name!r} after {restarts} "
                    f"restarts: the longest walk reached {longest} atom(s) before a dead end; the graph does not "
                    "support this level, or random extension reaches its groups too rarely (see `cw explore`)"
                )

    def _cypher_step(self, walks: list[_Walk], growing: list[int], us: list[float]) -> list[int | None]:
        """The rank each growing walk picks (None: a dead end), from the store's step query."""
        params = []
        for w, u in zip(growing, us, strict=True):
            ids = [self.ids[r] for r in walks[w].ids]
            params.append({"wid": w, "ids": ids, "last": ids[-1], "u": u,
                           "label": self._label(walks[w], len(ids)), "blocked": self._blocked(walks[w])})
        picks = self.store.walk_step(self.domain.relation, not self.domain.symmetric, params)
        return [bisect_left(self.ids, picks[w][0]) if w in picks else None for w in growing]

    def _frontier_step(self, walks: list[_Walk], growing: list[int], us: list[float]) -> list[int | None]:
        """The same picks as `_cypher_step`, from the relation in memory (the hot loop of `cw walk`)."""
        chain = not self.domain.symmetric
        assert self.neighbours is not None  # this step is chosen only when the relation is in memory
        after, start = self.neighbours.next, self.neighbours.start
        picks: list[int | None] = []
        for w, u in zip(growing, us, strict=True):
            walk = walks[w]
            ids = walk.ids
            if chain:  # a chain extends from its last atom only
                candidates = set(after[start[ids[-1]]:start[ids[-1] + 1]])
            else:  # the frontier gains the neighbours of the atoms picked since the last step
                candidates = walk.frontier
                for x in ids[walk.merged:]:
                    candidates.update(after[start[x]:start[x + 1]])
                walk.merged = len(ids)
            candidates.difference_update(ids)
            if walk.constrained:
                label, blocked = self._label(walk, len(ids)), self._blocked(walk)
                candidates = {c for c in candidates
                              if (not label or self.label.get(c) == label) and self.source.get(c, "") not in blocked}
            if candidates:
                f = sorted(candidates)  # ranks: the same order as the ids
                picks.append(f[int(u * len(f))])
            else:
                picks.append(None)
        return picks


class _Ids(Sequence[str]):
    """Atom ids by rank, kept as one Arrow array: at 10^6 atoms a fifth of the memory of a list of str."""

    def __init__(self, ids: pa.StringArray):
        self._ids = ids

    def __len__(self) -> int:
        return len(self._ids)

    def __getitem__(self, rank: int) -> str:  # type: ignore[override]  # no slices needed
        return self._ids[rank].as_py()


class _Relation:
    """The domain's relation read once from the store, as compressed sparse rows over atom ranks:
    `next[start[r]:start[r + 1]]` are the ranks next to rank r (out-neighbours for a chain, both
    directions otherwise). 4 bytes per edge and direction, 8 per atom."""

    def __init__(self, store: GraphStore, domain: Domain, keys: pa.ChunkedArray):
        n = len(keys)
        parts = []
        for lo, hi in _slices(keys):
            edges = _one_row_per_edge(store.read_columns("relation_keys", {"domain": domain.name, "lo": lo, "hi": hi},
                                                         domain.relation))
            parts.append((_ranks(edges.column("src"), keys), _ranks(edges.column("dst"), keys)))
            del edges
        src, dst = (np.concatenate(p) for p in zip(*parts, strict=True))
        del parts
        inside = (src >= 0) & (dst >= 0)  # both ends in this domain
        if not inside.all():
            src, dst = src[inside], dst[inside]
        del inside
        pairs = [(src, dst), (dst, src)] if domain.symmetric else [(src, dst)]
        counts = sum(np.bincount(a, minlength=n) for a, _ in pairs)
        # Pack (from, to) into one int64 each and sort in place: no index array as big as the edges.
        packed = np.empty(len(src) * len(pairs), np.int64)
        for i, (a, b) in enumerate(pairs):
            part = packed[i * len(src):(i + 1) * len(src)]
            part[:] = a
            part <<= 32
            part |= b
        del src, dst, pairs, a, b
        packed.sort()
        np.bitwise_and(packed, 0xFFFFFFFF, out=packed)
        # Memoryviews: their slices and items are plain ints, as cheap to iterate as a list's.
        self.next = memoryview(packed.astype(np.int32))  # type: ignore[arg-type]  # an ndarray is a buffer
        self.start = memoryview(np.concatenate([[0], np.cumsum(counts)]).astype(np.int64))  # type: ignore[arg-type]

    def largest_level(self, symmetric: bool) -> tuple[int, str]:
        """See Walker.largest_level: the bound of codewalk.relations, on the relation read."""
        return largest_level(np.asarray(self.start), np.asarray(self.next), symmetric)

SLICE = 200_000  # atoms whose edges are read in one query (about a million edges in a repair-like graph)


def _slices(keys: pa.ChunkedArray) -> list[tuple[int | None, int | None]]:
    """[lo, hi) ranges of integer keys with SLICE atoms each; other keys are read in one go."""
    if not pa.types.is_integer(keys.type):
        return [(None, None)]
    bounds = np.sort(keys.to_numpy())[::SLICE].tolist()
    return list(zip(bounds, [*bounds[1:], int(pc.max(keys).as_py()) + 1], strict=True))


def _one_row_per_edge(edges: pa.Table) -> pa.Table:
    """A dialect may group its edges by source (`dst` a list): spread them to one row per edge."""
    if not pa.types.is_list(edges.schema.field("dst").type):
        return edges
    dst = edges.column("dst").combine_chunks()
    return pa.table({"src": edges.column("src").take(pc.list_parent_indices(dst)), "dst": pc.list_flatten(dst)})


def _ranks(values: pa.ChunkedArray, keys: pa.ChunkedArray) -> np.ndarray:
    """Each value's position in `keys` (int32), -1 where it is not one: a lookup table for integer keys
    (Ladybug's node offsets), a hash lookup otherwise. Built per call: a slice's 4 MB table at 10^6
    atoms takes milliseconds, and keeping one across slices raised the walk's peak memory."""
    if not len(values):
        return np.zeros(0, np.int32)
    if pa.types.is_integer(keys.type):
        k, v = keys.to_numpy(), values.to_numpy()
        table = np.full(max(int(k.max()), int(v.max())) + 1, -1, np.int32)
        table[k] = np.arange(len(k), dtype=np.int32)
        return table[v]
    found = pc.index_in(values, value_set=keys.combine_chunks())
    return pc.fill_null(found, -1).to_numpy().astype(np.int32)
