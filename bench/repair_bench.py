"""Admission throughput of the repair domain: cached path vs a naive baseline, in groups per minute.

Builds the test repository of tests/repair_fixture.py (a real package with ten bug instances) and admits
every level-2 and level-3 group of its SHARES_FILE graph:

- cached: one RepairDomain as `cw walk` uses it: one mirror of the repository, a worktree per c* reused
  across groups, one virtualenv per (repository, environment spec). The first group pays for building
  them, and that time is included.
- naive: each group gets a fresh clone and a freshly built virtualenv (a RepairDomain on an empty cache
  directory), as a script without caching would. It is slow, so it runs on the first --naive groups and
  its rate is measured on those. Both paths share pip's download cache, so neither measures the network.

The cost of admission is test execution; the target is a cached path at least 5x faster than the naive
one. Run from the repository root: python bench/repair_bench.py [--naive 6] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from codewalk.admission import evaluate
from codewalk.domains.repair import RepairDomain
from codewalk.records import Atom
from tests import repair_fixture


def groups_of(atoms: list[Atom], domain: RepairDomain) -> dict[int, list[tuple[str, ...]]]:
    """Every connected group of 2 and 3 atoms: the edges, and each edge grown by a neighbour of either end."""
    near: dict[str, set[str]] = defaultdict(set)
    for edge in domain.edges(atoms):
        near[edge.src].add(edge.dst)
        near[edge.dst].add(edge.src)
    pairs = sorted({tuple(sorted((a, b))) for a in near for b in near[a]})
    triples = sorted({tuple(sorted((a, b, c))) for a, b in pairs for c in (near[a] | near[b]) - {a, b}})
    return {2: pairs, 3: triples}


def admit(domain: RepairDomain, atoms: dict[str, Atom], group: tuple[str, ...]) -> str:
    return evaluate(domain, [atoms[i] for i in group]).reason


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--naive", type=int, default=6, help="groups to run through the naive baseline")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="repair-bench-") as scratch:
        work = Path(scratch)
        os.environ["PIP_CACHE_DIR"] = str(work / "pip")
        fixture = repair_fixture.build(work / "tally")
        rows = fixture.write_rows(work / "rows.jsonl")
        cached = RepairDomain(cache=work / "cached")
        atoms = {a.id: a for a in cached.load(rows, {"repos": str(fixture.repos)})}
        groups = groups_of(list(atoms.values()), cached)
        ordered = [(n, g) for n in (2, 3) for g in groups[n]]

        reasons: dict[int, Counter] = {2: Counter(), 3: Counter()}
        verdicts = {}
        started = time.monotonic()
        first = 0.0
        for n, group in ordered:
            verdicts[group] = admit(cached, atoms, group)
            reasons[n][verdicts[group]] += 1
            first = first or time.monotonic() - started
        cached_seconds = time.monotonic() - started

        sample = ordered[: args.naive]
        started = time.monotonic()
        agree = True
        for k, (_, group) in enumerate(sample):
            fresh = RepairDomain(cache=work / f"naive-{k}")  # compose clones, the first run builds a venv
            agree &= admit(fresh, atoms, group) == verdicts[group]
        naive_seconds = time.monotonic() - started

    cached_rate = 60 * len(ordered) / cached_seconds
    naive_rate = 60 * len(sample) / naive_seconds if sample else 0.0
    figures = {
        "groups": {n: len(groups[n]) for n in (2, 3)},
        "cached": {"groups": len(ordered), "seconds": round(cached_seconds, 1),
                   "first_group_seconds": round(first, 1), "groups_per_minute": round(cached_rate, 1)},
        "naive": {"groups": len(sample), "seconds": round(naive_seconds, 1),
                  "groups_per_minute": round(naive_rate, 1)},
        "speedup": round(cached_rate / naive_rate, 1) if naive_rate else None,
        "verdicts": {n: dict(sorted(c.items())) for n, c in reasons.items()},
        "naive_verdicts_agree": agree,
    }
    if args.json:
        print(json.dumps(figures, indent=1))
        return
    print(f"repair admission on the tally fixture: {figures['groups'][2]} level-2 and {figures['groups'][3]} "
          "level-3 groups")
    print(f"cached: {len(ordered)} groups in {cached_seconds:.1f} s = {cached_rate:.1f} groups/min "
          f"(the first group, which builds the mirror, worktree and virtualenv: {first:.1f} s)")
    print(f"naive:  {len(sample)} groups in {naive_seconds:.1f} s = {naive_rate:.1f} groups/min "
          "(a fresh clone and virtualenv per group)")
    print(f"speed-up: {figures['speedup']}x (target: at least 5x)")
    for n, counts in figures["verdicts"].items():
        print(f"level {n}: " + ", ".join(f"{reason} {k}" for reason, k in counts.items()))
    print(f"naive verdicts agree with the cached ones: {'yes' if agree else 'NO'}")


if __name__ == "__main__":
    main()
