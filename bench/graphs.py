"""Seeded synthetic graphs of realistic shape for the benchmarks, and the index-based edge builders.

* repair-like (`SHARES_FILE`, symmetric): atoms are fixes in repositories whose sizes are heavy-tailed;
  each fix touches one to three files of its repository, drawn with Zipf popularity, so a few files
  are touched by many fixes (hubs) and most by one. Two fixes of one repository that touch a common
  file are related: edges come from an inverted file index, never from all pairs.
* typed chains (`FEEDS`, directed): atoms are functions in program families of heavy-tailed size;
  each has an input and an output type drawn from its family's skewed type distribution; a -> b when
  a's output type is b's input type: edges come from type buckets.

Both are tuned to about five edges per atom (average degree ten), the density the walk baselines were measured at.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator

import numpy as np

from codewalk.records import Atom, Edge


def _sizes(rng: np.random.Generator, n: int, median: float, cap: int) -> list[int]:
    """Heavy-tailed cluster sizes (Pareto) that add up to n."""
    sizes: list[int] = []
    total = 0
    while total < n:
        s = int(min(cap, max(1, median * (1 + rng.pareto(1.2)) / 1.8)))
        s = min(s, n - total)
        sizes.append(s)
        total += s
    return sizes


def _cap(n: int) -> int:
    """Largest cluster: about 1,000 fixes, like the largest repositories of SWE-bench-style sets."""
    return max(5, min(1_000, n // 20))


def _zipf(rng: np.random.Generator, k: int, s: float, size: int) -> np.ndarray:
    w = 1.0 / np.arange(1, k + 1) ** s
    return rng.choice(k, size=size, p=w / w.sum())


def repair_atoms(n: int, seed: int = 0) -> Iterator[Atom]:
    rng = np.random.default_rng(seed)
    order = rng.permutation(n)  # ids carry no cluster locality
    k = 0
    for r, size in enumerate(_sizes(rng, n, median=30, cap=_cap(n))):
        files = 3 * size
        touched = rng.integers(1, 4, size=size)
        picks = _zipf(rng, files, 0.8, int(touched.sum()))
        at = 0
        for t in touched:
            names = sorted({f"src/m{f}.py" for f in picks[at:at + t]})
            at += t
            yield Atom(f"fix{order[k]:07d}", "benchrepair", {"repo": f"org{r}/repo{r}", "files": names})
            k += 1


def shares_file_edges(atoms: Iterable[Atom]) -> Iterator[Edge]:
    """Inverted index repo -> file -> fixes; one edge per related pair, stored once (src < dst) with
    the files the two share. Yields repository by repository, so only one repository's pairs are held."""
    index: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for a in atoms:
        for f in a.summary["files"]:
            index[a.summary["repo"]][f].append(a.id)
    for files in index.values():
        pairs: dict[tuple[str, str], list[str]] = defaultdict(list)
        for f, ids in files.items():
            ids.sort()
            for i, x in enumerate(ids):
                for y in ids[i + 1:]:
                    pairs[(x, y)].append(f)
        for (x, y), fs in pairs.items():
            yield Edge(x, y, "SHARES_FILE", files=tuple(fs))


def chain_atoms(n: int, seed: int = 0) -> Iterator[Atom]:
    rng = np.random.default_rng(seed + 1)
    order = rng.permutation(n)
    k = 0
    for fam, size in enumerate(_sizes(rng, n, median=40, cap=_cap(n))):
        types = max(2, size)
        ins, outs = _zipf(rng, types, 0.85, size), _zipf(rng, types, 0.85, size)
        for i, o in zip(ins, outs, strict=True):
            yield Atom(f"fn{order[k]:07d}", "benchchain", {"in_type": f"T{fam}.{i}", "out_type": f"T{fam}.{o}"})
            k += 1


def feeds_edges(atoms: list[Atom]) -> Iterator[Edge]:
    """Type buckets in_type -> functions; a -> b for each b whose input is a's output."""
    accepts: dict[str, list[str]] = defaultdict(list)
    for a in atoms:
        accepts[a.summary["in_type"]].append(a.id)
    for a in atoms:
        for b in accepts.get(a.summary["out_type"], ()):
            if b != a.id:
                yield Edge(a.id, b, "FEEDS", arg=0)
