"""What mined atoms can make (`cw mine repair`'s account): per repository of the rows file, its atoms, the
pairs of them sharing a file, the largest level a walk can reach, and what composing each pair gives.

The relation is the repair domain's own (`RepairDomain.edges`, as `cw load` builds it) and the level is the
bound `cw walk` refuses levels above (`codewalk.relations.largest_level`), so the number mining states is the
number the walk applies. Composing a pair is the walk's first step for a group of two (`RepairDomain.compose`:
test patches at c*, misplaced hunks, gold patches on top): git only, no test run (about a second a pair on
2 busy cores), so it is done for the first PAIRS pairs of the repository just mined; a pair that composes may still be rejected by the
admission checks, which run the tests.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from codewalk.domain import Rejected
from codewalk.errors import CodewalkError
from codewalk.loaders import swebench
from codewalk.records import Atom, Reason
from codewalk.relations import largest_level_of_edges

from . import RepairDomain

PAIRS = 50  # pairs composed per repository: enough to see what limits N = 2, bounded in time
COMPOSES = "composes"  # a pair whose test and gold patches apply at c* with no hunk misplaced
# What composing a pair gives, for the account.
PAIR_OUTCOMES = {
    COMPOSES: "test and gold patches apply at c* with no hunk misplaced: a walk goes on to run its tests",
    Reason.MISPLACED_HUNK: "a test patch lands a hunk in a function that is not, at x_G, what it was at its fix",
    Reason.TEST_PATCH_CONFLICT: "the two test patches do not apply together at c* (the earlier fix's base)",
    Reason.REFERENCE_CONFLICT: "the two gold patches do not apply together on top of the test patches",
    "error": "git failed while composing",
}


@dataclass(frozen=True)
class Level:
    """A repository's atoms in the rows file, the pairs of them sharing a file, and the level they support."""

    atoms: int
    edges: int
    level: int
    basis: str
    pairs: Counter[str] = field(default_factory=Counter)  # composed pairs by outcome (COMPOSES or a Reason)

    def as_dict(self) -> dict[str, Any]:
        return {"atoms": self.atoms, "edges": self.edges, "largest_level": self.level, "basis": self.basis,
                "pairs_composed": dict(sorted(self.pairs.items()))}


def mined_levels(out: Path, domain: RepairDomain, compose: Collection[str] = ()) -> dict[str, Level]:
    """Level of each repository of the rows file; the pairs of the repositories in `compose` are composed too."""
    if not out.is_file() or not out.read_text(encoding="utf-8").strip():
        return {}
    instances = swebench.read(out)
    atoms = [Atom(id=f"repair/{i.instance_id}", domain=RepairDomain.name,
                  summary={"title": i.instance_id, "repo": i.repo, "files": list(i.files)}, payload=i.row)
             for i in instances]
    rank = {a.id: r for r, a in enumerate(atoms)}
    edges = [(rank[e.src], rank[e.dst]) for e in domain.edges(atoms)]
    found = {}
    for repo in sorted({a.summary["repo"] for a in atoms}):
        ranks = [r for r, a in enumerate(atoms) if a.summary["repo"] == repo]
        local = {r: k for k, r in enumerate(ranks)}
        pairs = [(a, b) for a, b in edges if a in local]
        level, basis = largest_level_of_edges(len(ranks), np.array([local[a] for a, _ in pairs], np.int64),
                                              np.array([local[b] for _, b in pairs], np.int64), domain.symmetric)
        composed = Counter(compose_pair(domain, atoms[a], atoms[b]) for a, b in pairs[:PAIRS]) \
            if repo in compose else Counter()
        found[repo] = Level(len(ranks), len(pairs), level, basis, composed)
    return found


def compose_pair(domain: RepairDomain, a: Atom, b: Atom) -> str:
    """COMPOSES, or the reason the walk would reject the pair before running a test."""
    try:
        composite = domain.compose([a, b])
    except Rejected as e:
        return str(e.reason)
    except CodewalkError:
        return "error"
    return str(Reason.REFERENCE_CONFLICT) if composite.verifier.get("reference_conflict") else COMPOSES
