"""What a domain supplies, and how domains are found.

A domain is a plugin: a loader (atoms from a source), an edge relation, a composer and the two
admission checks. Built-in domains register through the `codewalk.domains` entry-point group exactly
as a third-party package would: `[project.entry-points."codewalk.domains"] name = "pkg.module:Class"`.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, ClassVar

from .errors import UsageError
from .records import REL_TYPES, Atom, Check, Composite, Edge, RelType


class Rejected(Exception):
    """Raised by `Domain.compose` when a group cannot form a valid composite (a rejection, not an error)."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail


@dataclass(frozen=True)
class WalkPlan:
    """Per-walk constraints, parameters of the generic walk rather than special code paths.

    labels: the label each position of the group must carry (None = any); clones put exactly one
    'neq' at a random position of a negative chain. max_per_source: how often one source program
    may appear in a group (proofs: 2).
    """

    labels: tuple[str | None, ...] | None = None
    max_per_source: int | None = None


class Domain(ABC):
    name: ClassVar[str]
    relation: ClassVar[RelType]  # the edge type the walk follows
    composer_version: ClassVar[str]  # part of Task.id: a new composer gives new tasks
    description: ClassVar[str] = ""
    data_source: ClassVar[str] = ""  # where the atoms come from (dataset, licence), for exported tasks

    @property
    def symmetric(self) -> bool:
        """Symmetric relations give frontier walks; directed ones give chains."""
        return REL_TYPES[self.relation]

    # -- source -> atoms -> edges ------------------------------------------------------------
    @abstractmethod
    def load(self, source: Path, options: dict[str, str]) -> Iterator[Atom]:
        """Yield atoms from a source; raise InputError naming the file and line of a bad record."""

    @abstractmethod
    def edges(self, atoms: Sequence[Atom]) -> Iterable[Edge]:
        """Compute the relation with an index (inverted file index, type buckets), never all pairs."""

    # -- walk --------------------------------------------------------------------------------
    def walk_plan(self, n: int, rng: random.Random) -> WalkPlan:
        """Constraints for one walk of level n. Default: none."""
        return WalkPlan()

    # -- composition and admission (paper Sec. 2.3-2.4) ----------------------------------------
    @abstractmethod
    def compose(self, atoms: Sequence[Atom]) -> Composite:
        """Cmp(G): the task input x_G, the reference Ref(G) and the verifier spec V_G."""

    @abstractmethod
    def check_reference(self, composite: Composite, atoms: Sequence[Atom]) -> Check:
        """Admission (2): Ref(G) passes V_G. Raise InfraError when no verdict can be had."""

    @abstractmethod
    def check_unsolved(self, composite: Composite, atoms: Sequence[Atom], position: int) -> Check:
        """Admission (1) for one atom: it is still unsolved in the composite (ok=True means unsolved)."""

    def grade(self, composite: Composite, candidate: str) -> Check:
        """Apply V_G to a model's output. Domains that support grading override this."""
        raise UsageError(f"domain {self.name!r} does not support grading yet")


_registered: dict[str, type[Domain]] = {}


def register(cls: type[Domain]) -> type[Domain]:
    """Register a domain class in this process (tests, notebooks); installed plugins use the entry point."""
    _registered[cls.name] = cls
    return cls


@cache
def _entry_points() -> dict[str, Any]:
    return {ep.name: ep for ep in entry_points(group="codewalk.domains")}


def domain_names() -> list[str]:
    return sorted({*_entry_points(), *_registered})


def get_domain(name: str) -> Domain:
    eps = _entry_points()
    if name in _registered:
        return _registered[name]()
    if name not in eps:
        raise UsageError(f"unknown domain {name!r}; installed domains: {', '.join(domain_names()) or 'none'}")
    cls = eps[name].load()
    if not (isinstance(cls, type) and issubclass(cls, Domain)) or cls.name != name:
        raise UsageError(f"entry point {name!r} does not name a Domain subclass called {name!r}")
    return cls()
