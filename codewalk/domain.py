"""The plugin contract: what a domain supplies, and how domains are found.

A domain is a plugin: a loader (atoms from a source), an edge relation, a composer and the two
admission checks, optionally a grader and an export hook. Built-in domains register through the
`codewalk.domains` entry-point group exactly as a third-party package would:
`[project.entry-points."codewalk.domains"] name = "pkg.module:Class"`. The demo domain
(`codewalk/domains/demo/`) is the smallest complete example to copy.

The rules a plugin author needs, in one place:
- `relation` is one of `records.REL_TYPES` (SHARES_FILE: symmetric, frontier walks; FEEDS: directed,
  chains). Atom summaries use only the closed set `records.SUMMARY_FIELDS`; the rest goes in `payload`.
- `load_options` declares every `--opt KEY=VALUE` the loader takes; `cw load` refuses any other key
  and converts values to the declared type before `load` sees them (a typo is an error, not a default).
  `walk_options` does the same for `cw walk --opt`; `walk_plan` reads them from `self.settings.walk`.
- `compose` raises `Rejected` for a group that cannot form a composite, `InfraError` when a tool
  failed; both are recorded and the walk goes on. The checks return a `Check`; `Check.ok` is True when
  the check passed: for `check_reference` Ref(G) passes V_G, for `check_unsolved` the atom is still
  unsolved. A verifier that gives no verdict raises `InfraError`, never returns ok=False.
- A source of millions of atoms may be loaded as columns (`load_columns`, `edge_columns`): no Python
  object per atom or edge, so 10^6 atoms load in seconds. `load` stays the path walks and admission use.
- Admission makes a fresh domain instance per group, in a worker process: keep no state between calls
  that a verdict depends on (caches of tool output keyed by content are fine).
- A domain is built with its `Settings` (`self.settings`): the runtime (codewalk.runtime: where the
  verifier runs, and whether docker may pull), the folder beside the store being loaded, the walk's
  options, and `on_progress` for a loader that works for minutes. The library builds them once and hands the
  same value to the domain in every worker process; nothing sets an attribute on a domain from outside.
- A loader that keeps files beside the store (clones' verdicts) writes them in `settings.store_folder`;
  a domain never reads the store setting itself.
- `runtimes` lists where the verifier can run (codewalk.runtime: local, docker); asking another is a usage
  error.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from .errors import UsageError
from .records import REL_TYPES, Atom, Check, Composite, Edge, RelType, Task
from .runtime import Runtime, build

if TYPE_CHECKING:
    import pyarrow as pa


class Rejected(Exception):
    """Raised by `Domain.compose` when a group cannot form a valid composite (a rejection, not an error)."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail


@dataclass(frozen=True)
class Option:
    """One `--opt KEY=VALUE` a domain's loader accepts."""

    name: str
    help: str
    type: type = str  # str or int
    choices: tuple[str, ...] = ()

    def parse(self, domain: str, value: str) -> Any:
        if self.choices and value not in self.choices:
            raise UsageError(f"--opt {self.name}={value}: {domain} takes one of {', '.join(self.choices)}")
        try:
            return self.type(value)
        except ValueError:
            raise UsageError(f"--opt {self.name}={value}: {domain} needs {self.type.__name__}") from None


@dataclass(frozen=True)
class WalkPlan:
    """Per-walk constraints, parameters of the generic walk rather than special code paths.

    labels: the label each position of the group must carry (None = any); clones put exactly one
    'neq' at a random position of a negative chain. max_per_source: how often one source program
    may appear in a group (proofs: 2).
    """

    labels: tuple[str | None, ...] | None = None
    max_per_source: int | None = None


def _from_env() -> Runtime:
    return build(check=False)  # a domain made without settings (a test, a notebook): CODEWALK_RUNTIME, else local


@dataclass(frozen=True)
class Settings:
    """What a domain is built with, the same in the parent and in every worker (picklable)."""

    runtime: Runtime = field(default_factory=_from_env)  # where the verifier runs (codewalk.runtime)
    store_folder: Path | None = None  # beside the store being loaded (paths.beside_store), for `cw load`
    walk: Mapping[str, Any] = field(default_factory=dict)  # the walk's options (Domain.parse_walk_options)
    # `cw load`'s progress: a loader that works for minutes (verifying each record) calls it with (done, total).
    # Load only, in the parent: a walk's settings, pickled for its workers, leave it None.
    on_progress: Callable[[int, int], None] | None = field(default=None, compare=False)


class Domain(ABC):
    name: ClassVar[str]
    relation: ClassVar[RelType]  # the edge type the walk follows
    composer_version: ClassVar[str]  # part of Task.id: a new composer gives new tasks
    description: ClassVar[str] = ""
    data_source: ClassVar[str] = ""  # where the atoms come from (dataset, licence), for exported tasks
    load_options: ClassVar[tuple[Option, ...]] = ()  # every --opt the loader takes
    walk_options: ClassVar[tuple[Option, ...]] = ()  # every --opt `cw walk` takes
    runtimes: ClassVar[tuple[str, ...]] = ("local",)  # where its verifier can run (codewalk.runtime)

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()

    def parse_options(self, raw: dict[str, str]) -> dict[str, Any]:
        """Validated, typed loader options; an unknown key is a UsageError that lists the known ones."""
        return self._parse(raw, self.load_options, "")

    @classmethod
    def parse_walk_options(cls, raw: dict[str, str]) -> dict[str, Any]:
        """Validated, typed `cw walk --opt` values (Settings.walk), checked as loader options are."""
        return cls._parse(raw, cls.walk_options, "walk ")

    @classmethod
    def _parse(cls, raw: dict[str, str], options: tuple[Option, ...], command: str) -> dict[str, Any]:
        declared = {o.name: o for o in options}
        unknown = sorted(set(raw) - set(declared))
        if unknown:
            known = ", ".join(declared) or "none"
            raise UsageError(f"unknown {command}--opt {', '.join(unknown)} for {cls.name} (known: {known})")
        return {k: declared[k].parse(cls.name, v) for k, v in raw.items()}

    @property
    def symmetric(self) -> bool:
        """Symmetric relations give frontier walks; directed ones give chains."""
        return REL_TYPES[self.relation]

    # -- source -> atoms -> edges ------------------------------------------------------------
    @abstractmethod
    def load(self, source: Path, options: dict[str, Any]) -> Iterator[Atom]:
        """Yield atoms from a source; raise InputError naming the file and line of a bad record.

        `options` has passed `parse_options`. Call the source's reader in `loaders/`, then do the
        domain's own work (extraction, verification); a reader never imports a domain."""

    def load_report(self) -> dict[str, Any]:
        """Counts from the last `load` for `cw load`'s result (what was kept, changed, dropped). Default: none."""
        return {}

    @abstractmethod
    def edges(self, atoms: Sequence[Atom]) -> Iterable[Edge]:
        """Compute the relation with an index (inverted file index, type buckets), never all pairs."""

    # -- the columnar path (optional): sources of millions of atoms, with no record per atom ---------
    def load_columns(self, source: Path, options: dict[str, Any]) -> pa.Table | None:
        """The atoms of a source as one Arrow table, or None (the default): this domain loads through
        `load`. Columns: id, domain, any of SUMMARY_FIELDS (files: a list of strings), payload (JSON
        text; absent = {}). `cw load` checks the table as it checks records, then writes it as it is."""
        return None

    def edge_columns(self, atoms: pa.Table) -> Iterable[tuple[RelType, pa.Table]]:
        """The relation over load_columns' table: (type, table) pairs with src, dst and the type's
        properties (SHARES_FILE: files, a list; codewalk.relations.shares_file computes it)."""
        raise NotImplementedError(f"{self.name}: load_columns needs edge_columns")

    # -- walk --------------------------------------------------------------------------------
    def walk_plan(self, n: int, rng: random.Random) -> WalkPlan:
        """Constraints for one walk of level n (`self.settings.walk` holds the walk's options). Default: none."""
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
        """Apply V_G to a model's output (ok=True: solved). The candidate is hostile: refuse, with a
        reason, anything that could change how the verifier starts or reports. Override to grade."""
        raise UsageError(f"domain {self.name!r} does not support grading yet")

    def export_row(self, task: Task) -> dict[str, Any]:
        """Fields `cw tasks export` adds to (or replaces in) a task's generic row. Default: none."""
        return {}

    # The leave-one-out check of `cw release` (every atom must matter): a domain that can leave one atom's
    # solution out of the reference says so here; the release then drops a task whose reference passes V_G
    # without some atom's solution (that task is really of a lower level).
    leave_one_out: ClassVar[bool] = False

    def reference_without(self, composite: Composite, atoms: Sequence[Atom], position: int) -> str | None:
        """Ref(G) with the solution of the atom at `position` (composite order) left out; None when the rest
        cannot be put together (then that atom is needed). Only for a domain with `leave_one_out`."""
        raise UsageError(f"domain {self.name!r} cannot leave one atom's solution out of a reference")

    def check_without(self, composite: Composite, atoms: Sequence[Atom], position: int) -> Check | None:
        """V_G on Ref(G) with the atom at `position` left out (ok=True: that atom is not needed); None when
        that text cannot be put together (the atom is needed). Default: the grading path on
        reference_without. A domain whose admission already verified that very program overrides it to
        verify the same input again, which its verdict cache answers. May raise InfraError (no verdict)."""
        without = self.reference_without(composite, atoms, position)
        return None if without is None else self.grade(composite, without)


_registered: dict[str, type[Domain]] = {}


def register(cls: type[Domain]) -> type[Domain]:
    """Register a domain class in this process (tests, notebooks); installed plugins use the entry point."""
    _registered[cls.name] = cls
    return cls


def unregister(name: str) -> None:
    """Undo `register` (a test's domain must not outlive the test)."""
    _registered.pop(name, None)


@cache
def _entry_points() -> dict[str, Any]:
    return {ep.name: ep for ep in entry_points(group="codewalk.domains")}


def domain_names() -> list[str]:
    return sorted({*_entry_points(), *_registered})


def get_domain(name: str, settings: Settings | None = None) -> Domain:
    """A new instance of the domain `name`, built with settings (default: Settings())."""
    return domain_class(name)(settings=settings)


def domain_class(name: str) -> type[Domain]:
    eps = _entry_points()
    if name in _registered:
        return _registered[name]
    if name not in eps:
        raise UsageError(f"unknown domain {name!r}; installed domains: {', '.join(domain_names()) or 'none'}")
    cls = eps[name].load()
    if not (isinstance(cls, type) and issubclass(cls, Domain)) or cls.name != name:
        raise UsageError(f"entry point {name!r} does not name a Domain subclass called {name!r}")
    return cls
