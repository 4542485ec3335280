"""Train / validation / test splits whose units never cross (the paper's App. C: repair tasks split 161 / 53 / 54
with disjoint repositories).

A unit is what must not leak between splits: the repository of a repair task, the source program elsewhere. A task
may touch several units (a composite of atoms from two programs); every task that shares a unit with another lands
in the same split, so the split rule works on the connected groups of units that tasks tie together. The groups are
shuffled with the seed and each goes whole to the split furthest below its quota that it fits in; a group that fits
in none is left out and named. The same tasks, quotas and seed give the same splits on any machine.

`splits.json` in a release folder is `Splits.to_json()`; `cw train export` reads it back to refuse rows that leak.
"""

from __future__ import annotations

import json
import random
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .errors import InputError, UsageError
from .records import Atom

PAPER_REPAIR = {"train": 161, "validation": 53, "test": 54}  # App. C


def unit_of(atom: Atom, unit: str) -> str:
    """An atom's unit: its repository (unit "repository", repair), else its source program; an atom that names
    neither is its own program. The release and the training export both split by this one rule."""
    key = "repo" if unit == "repository" else "source"
    return str(atom.summary.get(key) or atom.id)


@dataclass(frozen=True)
class Splits:
    unit: str  # what stays disjoint: "repository" or "source program"
    seed: int
    quotas: dict[str, int]  # split -> tasks wanted, in the order given
    tasks: dict[str, list[str]]  # split -> task ids, sorted
    units: dict[str, list[str]]  # split -> units, sorted
    left_out: list[str] = field(default_factory=list)  # tasks whose group fitted no split

    def split_of(self, task_id: str) -> str | None:
        return next((name for name, ids in self.tasks.items() if task_id in ids), None)

    def split_of_unit(self, unit: str) -> str | None:
        return next((name for name, units in self.units.items() if unit in units), None)

    def leaks(self) -> list[str]:
        """Units found in more than one split (empty for splits made by `assign`)."""
        seen: dict[str, str] = {}
        out = []
        for name, units in self.units.items():
            for u in units:
                if u in seen and seen[u] != name:
                    out.append(f"{u} is in {seen[u]} and {name}")
                seen.setdefault(u, name)
        return out

    def to_json(self) -> str:
        return json.dumps({"unit": self.unit, "seed": self.seed, "quotas": self.quotas, "tasks": self.tasks,
                           "units": self.units, "left_out": self.left_out}, indent=1, sort_keys=False) + "\n"

    @classmethod
    def read(cls, path: Path) -> Splits:
        try:
            d = json.loads(path.read_text(encoding="utf-8"))
            return cls(unit=d["unit"], seed=int(d["seed"]), quotas={k: int(v) for k, v in d["quotas"].items()},
                       tasks={k: list(v) for k, v in d["tasks"].items()},
                       units={k: list(v) for k, v in d["units"].items()}, left_out=list(d.get("left_out", [])))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            raise InputError(str(path), None, f"not a splits file ({type(e).__name__}: {e})") from e


def assign(task_units: Mapping[str, Collection[str]], quotas: Mapping[str, int], seed: int,
           unit: str = "unit") -> Splits:
    """Split tasks so that no unit is in two splits. `task_units`: task id -> its units (at least one each)."""
    if any(q < 0 for q in quotas.values()) or not quotas:
        raise UsageError(f"split quotas must be non-negative counts, got {dict(quotas)}")
    empty = sorted(t for t, us in task_units.items() if not us)
    if empty:
        raise InputError(f"task {empty[0]}", None, f"no {unit} to split by ({len(empty)} such tasks)")
    groups = _groups(task_units)
    random.Random(seed).shuffle(groups)
    taken = {name: 0 for name in quotas}
    tasks: dict[str, list[str]] = {name: [] for name in quotas}
    units: dict[str, set[str]] = {name: set() for name in quotas}
    left_out: list[str] = []
    for group_tasks, group_units in groups:
        room = [name for name in quotas if taken[name] + len(group_tasks) <= quotas[name]]
        if not room:
            left_out += group_tasks
            continue
        # the split least filled for its quota (ties: the order the quotas were given in): a graph smaller than
        # the quotas still gets every split, in their proportions, not all in the first
        name = min(room, key=lambda s: (taken[s] / quotas[s], list(quotas).index(s)))
        taken[name] += len(group_tasks)
        tasks[name] += group_tasks
        units[name] |= group_units
    return Splits(unit=unit, seed=seed, quotas=dict(quotas), tasks={k: sorted(v) for k, v in tasks.items()},
                  units={k: sorted(v) for k, v in units.items()}, left_out=sorted(left_out))


def _groups(task_units: Mapping[str, Collection[str]]) -> list[tuple[list[str], set[str]]]:
    """The tasks tied together by shared units, each group's tasks sorted, groups in a fixed order."""
    parent: dict[str, str] = {}

    def find(u: str) -> str:
        while parent.setdefault(u, u) != u:
            parent[u] = parent[parent[u]]
            u = parent[u]
        return u

    for us in task_units.values():
        first, *rest = sorted(us)
        for u in rest:
            parent[find(u)] = find(first)
    by_root: dict[str, tuple[list[str], set[str]]] = {}
    for task, us in sorted(task_units.items()):
        ids, group_units = by_root.setdefault(find(min(us)), ([], set()))
        ids.append(task)
        group_units |= set(us)
    return sorted(by_root.values(), key=lambda g: g[0][0])
