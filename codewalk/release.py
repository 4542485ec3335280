"""`cw release`: a benchmark release as the paper built one, reproducible and verifiable by anyone.

A plan (TOML, `codewalk/plans/<domain>.toml` by default: the paper's shape) says which levels, how many tasks
each, how they are chosen (a uniform draw from a larger pool of admitted tasks, a balance between the
classes of a domain whose tasks have one, a cap on atoms from one source program) and how they are split
(the unit kept disjoint: the repository for repair, the source program elsewhere; codewalk.splits).

`build` walks each level with the admission loop `cw walk` runs (admission.walk_and_admit, seed + N per
level) until the level's quota is met, counting what the store already admitted first, so Ctrl-C and a
rerun continue; a level the graph cannot fill stops with an account instead of looping. A task the store
admitted counts only once today's grading passes it again (`Recheck`: its reference against V_G, and with
every_atom_matters the leave-one-out check): one admitted before a stricter verifier is stale, counted in the
level's account and not released. It writes:

- `<domain>/<split>.parquet`, a Hugging Face dataset with its card (README.md) as `cw tasks export --format
  hf` writes it, rows without the fields that differ between two builds of the same tasks (run id, creation
  time, the walk's worker count);
- `splits.json` (`Splits.to_json()`), which `cw train export` reads to refuse leaks;
- `report.md` (yields by level beside the plan and the paper, the accounts of levels left short);
- `manifest.json`: codewalk's version and commit, the digests of the plan and the input graph, seeds, tool
  versions and every file's sha256.

The same graph, plan and seed give byte-identical data files. `verify` re-checks the digests and runs every
task's reference through the domain's own grading path (V_G, in a fresh domain instance).
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import random
import subprocess
import tomllib
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from importlib import resources
from itertools import repeat
from pathlib import Path
from typing import Any

from . import __version__, card, export, gitsafe, paths
from .admission import WalkSummary, walk_and_admit
from .domain import Domain, Settings, domain_class, get_domain
from .errors import CodewalkError, InfraError, InputError, RuntimeUnavailable, UsageError
from .executors import open_executor
from .grading import grade_in_worker, verdict
from .records import Atom, Composite, Task
from .runtime import client, ready, resolve
from .splits import Splits, assign, unit_of
from .staging import StagedPool
from .store import GraphStore
from .walk import Walker, WalkExhausted

KEYS = ("domain", "seed", "attempts", "balance", "every_atom_matters", "levels", "pool", "per_program", "splits")
# Domains whose tasks have a class: the verifier field that names it, which is also the walk option (`cw walk
# --opt label=eq`) that makes every walk of one class: a balanced level walks only the classes it still lacks,
# not half-and-half walks that keep admitting a class whose quota is met.
CLASSES = {"clones": "label"}
UNITS = {"repair": ("repository",)}  # the units a domain's tasks can be split by; others: the source program
DEFAULT_UNITS = ("source program",)
ONE_SPLIT = "test"  # the split of a plan that names no quota (as `cw tasks export --format hf`)
# The paper's counts per domain and level (Sec. 4, App. B), shown beside a release's.
PAPER = {"repair": {1: 200, 2: 200, 3: 168}, "proofs": {1: 100, 2: 100, 3: 100, 10: 100},
         "complexity": {1: 80, 2: 80, 3: 80, 10: 80}, "clones": {1: 86, 2: 82, 3: 84, 10: 166}}
MANIFEST = "manifest.json"
PLOT = "yield.png"
SPLITS = "splits.json"


class ReleaseMismatch(CodewalkError):
    """`cw release verify` found a file or a reference that does not check out (exit 1)."""


# -- the plan -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Level:
    n: int
    tasks: int  # released at this level
    pool: int  # admitted to gather before the uniform draw of `tasks` (>= tasks)
    per_program: int | None = None  # at most this many atoms of one source program in a task


@dataclass(frozen=True)
class Plan:
    domain: str
    seed: int
    attempts: int  # attempts per task wanted before a level stops short
    balance: str  # "" or "class"
    levels: tuple[Level, ...]
    unit: str
    quotas: dict[str, int]  # split -> tasks; empty: one split, ONE_SPLIT, of every task
    rest: str  # the split of the tasks the quotas leave out ("" : left out of the release)
    text: str  # the plan as read (its digest goes in the manifest)
    every_atom_matters: bool = False  # the leave-one-out check: drop a task some atom of which is not needed

    @property
    def digest(self) -> str:
        return "sha256:" + hashlib.sha256(self.text.encode()).hexdigest()

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("text")
        return {**d, "digest": self.digest}


def default_plan(domain: str) -> Path | None:
    """The plan shipped for a built-in domain (codewalk/plans/<domain>.toml), None for another."""
    path = resources.files("codewalk") / "plans" / f"{domain}.toml"
    return Path(str(path)) if path.is_file() else None


def read_plan(domain: str, path: Path | None = None, seed: int | None = None) -> Plan:
    """The plan at `path` (default: the domain's shipped plan); any fault is a UsageError of one line that
    names the plan's key. Checks what it can without a graph (the levels against the graph: `check_levels`)."""
    path = path or default_plan(domain)
    if path is None:
        raise UsageError(f"no default plan for domain {domain!r}: give one with --plan FILE")
    where = f"plan {path}"
    try:
        text = path.read_text(encoding="utf-8")
        raw = tomllib.loads(text)
    except OSError as e:
        raise UsageError(f"{where}: cannot read it ({e.strerror or e})") from None
    except tomllib.TOMLDecodeError as e:
        raise UsageError(f"{where}: not TOML ({e})") from None
    unknown = sorted(set(raw) - set(KEYS))
    if unknown:
        raise UsageError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(KEYS)})")
    if raw.get("domain", domain) != domain:
        raise UsageError(f"{where}: domain: the plan is for {raw['domain']!r}, not {domain!r}")

    def count(key: str, value: Any, least: int = 0) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise UsageError(f"{where}: {key}: needs a whole number of at least {least}, got {value!r}")
        return value

    def by_level(key: str) -> dict[int, int]:
        table = raw.get(key, {})
        if not isinstance(table, dict):
            raise UsageError(f"{where}: {key}: needs a table of level = count")
        out = {}
        for k, v in table.items():
            if not k.isdigit() or int(k) < 1:
                raise UsageError(f"{where}: {key}.{k}: a level is a whole number N >= 1")
            out[int(k)] = count(f"{key}.{k}", v, 1)
        return out

    levels = by_level("levels")
    if not levels:
        raise UsageError(f"{where}: levels: no level asked for (a table of N = tasks)")
    pool, caps = by_level("pool"), by_level("per_program")
    for key, table in (("pool", pool), ("per_program", caps)):
        for n in table:
            if n not in levels:
                raise UsageError(f"{where}: {key}.{n}: level {n} is not in levels")
    for n, p in pool.items():
        if p < levels[n]:
            raise UsageError(f"{where}: pool.{n}: {p} is fewer than the {levels[n]} tasks of levels.{n}")
    balance = raw.get("balance", "")
    if balance not in ("", "class"):
        raise UsageError(f"{where}: balance: \"class\" or nothing, got {balance!r}")
    if balance and domain not in CLASSES:
        raise UsageError(f"{where}: balance: tasks of domain {domain!r} have no class to balance")
    splits = raw.get("splits", {})
    if not isinstance(splits, dict):
        raise UsageError(f"{where}: splits: needs a table (unit = ..., and split = count)")
    units = UNITS.get(domain, DEFAULT_UNITS)
    unit = splits.get("unit", units[0])
    if unit not in units:
        raise UsageError(f"{where}: splits.unit: domain {domain!r} has no {unit!r} to split by "
                         f"(it has: {', '.join(units)})")
    rest = splits.get("rest", "")
    if not isinstance(rest, str) or (rest and not rest.isidentifier()):
        raise UsageError(f"{where}: splits.rest: the name of a split, got {rest!r}")
    quotas = {k: count(f"splits.{k}", v) for k, v in splits.items() if k not in ("unit", "rest")}
    for name in [*quotas, rest]:
        if name and not name.replace("-", "_").isidentifier():
            raise UsageError(f"{where}: splits.{name}: a split's name is a word (letters, digits, _ or -)")
    if rest in quotas:
        raise UsageError(f"{where}: splits.rest: {rest!r} is also a split with a quota")
    supports = domain_class(domain).leave_one_out
    matters = raw.get("every_atom_matters", supports)
    if not isinstance(matters, bool):
        raise UsageError(f"{where}: every_atom_matters: true or false, got {matters!r}")
    if matters and not supports:
        raise UsageError(f"{where}: every_atom_matters: domain {domain!r} cannot leave one atom's solution out "
                         "of a reference")
    return Plan(domain=domain, seed=count("seed", raw.get("seed", 0)) if seed is None else seed,
                attempts=count("attempts", raw.get("attempts", 20), 1), balance=balance,
                levels=tuple(Level(n, t, pool.get(n, t), caps.get(n)) for n, t in sorted(levels.items())),
                unit=unit, quotas=quotas, rest=rest, text=text, every_atom_matters=matters)


def check_levels(store: GraphStore, plan: Plan, path: Path | None) -> None:
    """A level above what the graph supports is the plan's fault, named before anything is walked."""
    most, why = Walker(store, get_domain(plan.domain), 1, random.Random(0)).largest_level()
    for level in plan.levels:
        if level.n > most:
            raise UsageError(f"plan {path or default_plan(plan.domain)}: levels.{level.n}: the graph of domain "
                             f"{plan.domain!r} supports N <= {most} ({why})")


# -- walking the levels ---------------------------------------------------------------------------
@dataclass
class LevelAccount:
    n: int
    wanted: int  # tasks to release
    pool: int  # admitted wanted before the draw
    admitted: int = 0  # eligible admitted tasks in the store at the end (within the per-program cap, passing
    # today's checks: the reference again, leave-one-out)
    by_class: dict[str, int] = field(default_factory=dict)
    attempted: int = 0  # attempts stored at this level, by any run
    walked: int = 0  # attempts this build made
    released: int = 0
    rechecked: int = 0  # admitted tasks whose reference was run against today's V_G again (now or cached)
    stale: int = 0  # of those, tasks whose reference fails or gives no verdict today: not released
    stale_reasons: dict[str, int] = field(default_factory=dict)  # the most common of V_G's details, with counts
    checked: int = 0  # multi-atom tasks the leave-one-out check ran on
    not_needed: int = 0  # of those, tasks whose reference passed V_G without some atom's solution: dropped
    unchecked_runs: int = 0  # leave-one-out runs that gave no verdict (the atom then counts as needed)
    short: str = ""  # why the level has fewer tasks than wanted ("" : it is full)
    pool_short: str = ""  # full, but drawn from fewer admitted tasks than the plan's pool, and why

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class ReleaseSummary:
    domain: str
    out: str
    plan: dict[str, Any]
    levels: list[LevelAccount]
    splits: dict[str, int]
    tasks: int
    files: dict[str, str]

    @property
    def short(self) -> list[LevelAccount]:
        return [a for a in self.levels if a.short]

    def as_dict(self) -> dict[str, Any]:
        return {"domain": self.domain, "out": self.out, "plan": self.plan,
                "levels": [a.as_dict() for a in self.levels], "splits": self.splits, "tasks": self.tasks,
                "files": self.files}


@dataclass(frozen=True)
class Rechecked:
    """What today's grading says of one admitted task (`Recheck`)."""

    reference: str  # V_G on the joint reference: "passed", "failed" or "error" (no verdict)
    why: str  # V_G's detail when the reference did not pass ("" when it did)
    needed: str | None = None  # leave-one-out: "" every atom needed, else the first atom that is not; None: not run

    @property
    def ok(self) -> bool:
        return self.reference == "passed" and not self.needed


class Recheck:
    """A task the store admitted earlier is a task under today's grading only if it still passes the checks,
    run again for each task a release may use, a task per worker of the walk's executor:

    - admission's check (2): Ref(G) passes V_G, the grading `cw release verify` runs (a task admitted before a
      stricter verifier, such as a run-time guard of a later round, may now fail or give no verdict: stale);
      a task this build's walks admitted has just passed it (`admitted_now`) and is not run again;
    - with `leave_one_out` (the plan's every_atom_matters), for N >= 2 and after (2) passed: every atom must
      matter, Ref(G) with one atom's solution left out must fail V_G (N extra runs).

    Each task's verdicts are kept in the home's cache (`recheck.jsonl` of the domain, by task id and the
    codewalk that graded them, its version and the digest of its source: other grading code may judge
    otherwise, while a commit that changes no code, docs or tests, keeps them), so a rerun of a
    release runs none again. A run without a verdict is not kept, so the next build checks that task again (a
    timeout under load must not drop a task for good): a reference without one makes the task stale for this
    build; a leave-one-out run without one counts as the atom being needed and is counted. A domain that grades
    nothing (no `grade`: no V_G to run, nor a release to verify) has its tasks taken as admitted."""

    def __init__(self, domain: str, store: GraphStore, runtime: str | None, pull: bool, *, leave_one_out: bool,
                 workers: int = 1, executor: str | None = None,
                 on_check: Callable[[int, int], None] | None = None):
        kind = domain_class(domain)
        self.domain, self.leave_one_out = domain, leave_one_out
        self.grades = kind.grade is not Domain.grade
        self.settings = Settings(runtime=ready(runtime, kind.name, kind.runtimes, pull=pull))
        self.store = store
        self.workers, self.executor, self.on_check = workers, executor, on_check
        self.record = paths.cache(domain) / "recheck.jsonl"
        self.graded_by = f"{__version__} {grading_code()}"
        self.verdicts: dict[str, Rechecked] = self._recorded()
        self.errors: Counter[str] = Counter()  # task id -> leave-one-out runs without a verdict

    def _recorded(self) -> dict[str, Rechecked]:
        try:
            lines = self.record.read_text(encoding="utf-8").splitlines()
        except OSError:
            return {}
        found = {}
        for line in lines:
            try:
                row = json.loads(line)
                if row["codewalk"] == self.graded_by:
                    found[str(row["task"])] = Rechecked(str(row["reference"]), str(row["why"]), row["needed"])
            except (ValueError, TypeError, KeyError):  # a line cut short by an interrupted build: checked again
                continue
        return found

    def _done(self, task: Task) -> bool:
        seen = self.verdicts.get(task.id)
        return seen is not None and (seen.needed is not None or not self._leave_one_out(task)
                                     or seen.reference != "passed")

    def _leave_one_out(self, task: Task) -> bool:
        return self.leave_one_out and task.level >= 2  # one atom left out is x_G, which check (1) already failed

    def check(self, tasks: list[Task]) -> None:
        """Check the tasks not checked yet, in parallel."""
        todo = [t for t in tasks if not self._done(t)]
        if not todo or not self.grades:
            return
        wanted = sorted({a for t in todo if self._leave_one_out(t) for a in t.atoms})
        atoms = {a.id: a for a in self.store.get_atoms(wanted)} if wanted else {}
        pool, ahead = open_executor(self.executor, self.workers)
        try:
            pending: list[tuple[Task, Any]] = []
            for done, task in enumerate(todo):
                if self.on_check:
                    self.on_check(done, len(todo))
                known = self.verdicts.get(task.id)
                pending.append((task, pool.submit(recheck_in_worker, self.domain, self.settings,
                                                  Composite(task.prompt, task.reference, task.verifier),
                                                  [atoms[a] for a in task.atoms] if self._leave_one_out(task)
                                                  else [], reference_passed=known is not None and known.reference == "passed")))
                while len(pending) >= ahead:
                    self._keep(*pending.pop(0))
            for task, future in pending:
                self._keep(task, future)
            if self.on_check:
                self.on_check(len(todo), len(todo))
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def _keep(self, task: Task, future: Any) -> None:
        seen, errors = future.result()
        self.verdicts[task.id] = seen
        if errors:
            self.errors[task.id] = errors
        if errors or seen.reference == "error":  # no verdict: checked again by the next build
            return
        self._write(task.id, seen)

    def admitted_now(self, ids: list[str]) -> None:
        """Tasks this build's walks just admitted: check (2) ran on their reference by today's grading, so it
        is not run again (leave-one-out still is)."""
        for task_id in ids:
            if task_id not in self.verdicts:
                self.verdicts[task_id] = Rechecked("passed", "")
                self._write(task_id, self.verdicts[task_id])

    def _write(self, task_id: str, seen: Rechecked) -> None:
        self.record.parent.mkdir(parents=True, exist_ok=True)
        with self.record.open("a", encoding="utf-8") as out:
            out.write(json.dumps({"task": task_id, **asdict(seen), "codewalk": self.graded_by}) + "\n")

    def __call__(self, task: Task) -> bool:
        """Whether the task passes today's checks (run now if not known yet)."""
        if not self.grades:
            return True
        if not self._done(task):
            self.check([task])
        return self.verdicts[task.id].ok


def recheck_in_worker(domain: str, settings: Settings, composite: Composite,
                      atoms: list[Atom], reference_passed: bool = False) -> tuple[Rechecked, int]:
    """(what today's grading says, leave-one-out runs without a verdict), in a worker process. Leave-one-out
    runs over `atoms` (none: not asked) only once the reference passed (now, or `reference_passed` by
    today's grading already)."""
    plugin = get_domain(domain, settings)  # the runtime the parent built and checked
    status, detail = "passed", ""
    if not reference_passed:
        status, detail, _ = verdict(plugin, composite, composite.reference)
    if status != "passed":
        return Rechecked(status, detail), 0
    if not atoms:
        return Rechecked(status, ""), 0
    errors = 0
    for position, atom in enumerate(atoms):
        try:
            check = plugin.check_without(composite, atoms, position)
        except InfraError:  # no verdict: the atom counts as needed, and the run is counted
            errors += 1
            continue
        if check is not None and check.ok:
            return Rechecked(status, "", atom.id), errors
    return Rechecked(status, "", ""), errors


def _class(domain: str, task: Task) -> str:
    return str(task.verifier.get(CLASSES[domain], "")) if domain in CLASSES else ""


def _candidates(store: GraphStore, plan: Plan, level: Level, atoms: dict[str, Atom]) -> list[Task]:
    """The admitted tasks at this level of the current composer within the plan's per-program cap."""
    tasks = _current(plan.domain, [Task.from_row(r) for r in store.select_tasks(plan.domain, "admitted", level.n)])
    if level.per_program:
        missing = sorted({a for t in tasks for a in t.atoms} - set(atoms))
        atoms.update((a.id, a) for a in store.get_atoms(missing))
        tasks = [t for t in tasks
                 if max(Counter(unit_of(atoms[a], "source program") for a in t.atoms).values()) <= level.per_program]
    return sorted(tasks, key=lambda t: t.id)


def _eligible(store: GraphStore, plan: Plan, level: Level, atoms: dict[str, Atom], recheck: Recheck) -> list[Task]:
    """The candidates that pass today's checks (run now for those not checked yet): what the plan may
    release, by id."""
    tasks = _candidates(store, plan, level, atoms)
    recheck.check(tasks)
    return [t for t in tasks if recheck(t)]


def _composer(domain: str) -> str:
    """The end of the generator_version of the tasks the domain's composer writes today (admission.py)."""
    return f"/ {domain_class(domain).composer_version}"


def _current(domain: str, tasks: list[Task]) -> list[Task]:
    """The tasks of the current composer: one of an older composer (stored before an upgrade of codewalk) was
    composed and judged by other rules, and a rerun walks its group again under a new id."""
    return [t for t in tasks if t.generator_version.endswith(_composer(domain))]


def _counts(store: GraphStore, domain: str, n: int) -> list[dict[str, Any]]:
    """The current composer's attempts at level n, by status and reason."""
    return store.run(store.q("release_yields"), {"domain": domain, "level": n, "composer": _composer(domain)})


def _lacking(plan: Plan, level: Level, tasks: list[Task]) -> list[tuple[str, int]]:
    """(class, admitted tasks still wanted) for each class short of its quota when the plan balances
    classes, else ("", tasks still wanted); empty when the level's pool is full."""
    if not plan.balance:
        need = level.pool - len(tasks)
        return [("", need)] if need > 0 else []
    have = Counter(_class(plan.domain, t) for t in tasks)
    return [(c, want - have[c]) for c, want in _class_quotas(plan.domain, level.pool).items() if want > have[c]]


def _class_quotas(domain: str, total: int) -> dict[str, int]:
    """Half each (clones: eq, neq); an odd count gives the first class the extra task."""
    names = {"clones": ("eq", "neq")}[domain]
    return {c: total // len(names) + (k < total % len(names)) for k, c in enumerate(names)}


def fill_level(store: GraphStore, plan: Plan, level: Level, *, workers: int = 1, executor: str | None = None,
               runtime: str | None = None, pull: bool = True, atoms: dict[str, Atom] | None = None,
               recheck: Recheck | None = None,
               on_task: Callable[[Task, WalkSummary], None] | None = None) -> tuple[LevelAccount, list[Task]]:
    """Walk level N until the store holds the plan's pool of eligible admitted tasks (or the graph gives no
    more), then draw the level's tasks from them. Each round asks the walk for what is still missing, and a
    balanced level walks one class it lacks at a time (CLASSES); the walk skips groups attempted before,
    so a rerun after Ctrl-C continues where the last one stopped. An admitted task is eligible only once
    `recheck` passed it under today's grading (default: a Recheck of the plan's checks); one that does not
    pass is counted (stale, not needed) and the walk goes on to groups not attempted yet. A class the graph
    gives no more of is not walked again: the level stops with an account of it instead of looping."""
    atoms = {} if atoms is None else atoms
    recheck = recheck or Recheck(plan.domain, store, runtime, pull, leave_one_out=plan.every_atom_matters,
                                 workers=workers, executor=executor)
    account = LevelAccount(level.n, level.tasks, level.pool)
    budget = plan.attempts * level.pool  # attempts this build may make at this level
    spent: dict[str, str] = {}  # class ("" : the whole level) -> why the graph gives no more of it
    while lacking := [(c, need) for c, need in _lacking(plan, level, _eligible(store, plan, level, atoms, recheck))
                      if c not in spent]:
        if account.walked >= budget:
            account.short = (f"stopped after {account.walked} attempts this build (plan key attempts = "
                             f"{plan.attempts} per task of the pool of {level.pool})")
            break
        cls, need = lacking[0]
        of = f" of class {cls}" if cls else ""
        options = {CLASSES[plan.domain]: cls} if cls and plan.domain in CLASSES else None
        try:
            summary = walk_and_admit(store, plan.domain, level.n, need, seed=plan.seed + level.n,
                                     max_attempts=budget - account.walked, workers=workers, on_task=on_task,
                                     executor=executor, options=options, runtime=runtime, pull=pull)
            recheck.admitted_now(summary.admitted_ids)
        except WalkExhausted as e:  # the walks found no group of N atoms: what was admitted is stored
            spent[cls] = f"the walks find no group{of} of N={level.n} atoms ({e})"
            continue
        account.walked += summary.attempted
        if summary.used_up:
            spent[cls] = (f"the graph is used up at N={level.n}{of}: every group the walks find has been "
                          f"attempted ({summary.redrawn:,} redraws)")
    eligible = _eligible(store, plan, level, atoms, recheck)
    if not account.short:  # why the classes still short of their quota stopped
        account.short = "; ".join(spent[c] for c, _ in _lacking(plan, level, eligible) if c in spent)
    account.admitted = len(eligible)
    seen = [(t.id, recheck.verdicts[t.id]) for t in _candidates(store, plan, level, atoms)
            if t.id in recheck.verdicts]  # none for a domain that grades nothing
    stale = [v for _, v in seen if v.reference != "passed"]
    account.rechecked, account.stale = len(seen), len(stale)
    account.stale_reasons = dict(Counter(_stale_reason(v) for v in stale).most_common(3))
    account.checked = sum(v.needed is not None for _, v in seen)
    account.not_needed = sum(bool(v.needed) for _, v in seen)
    account.unchecked_runs = sum(recheck.errors.get(i, 0) for i, _ in seen)
    account.by_class = dict(sorted(Counter(_class(plan.domain, t) for t in eligible if plan.domain in CLASSES)
                                   .items()))
    counted = _counts(store, plan.domain, level.n)
    account.attempted = sum(r["tasks"] for r in counted)
    chosen = _draw(plan, level, eligible)
    account.released = len(chosen)
    why, account.short = account.short, ""
    if why:
        by_reason = Counter({r["reason"]: r["tasks"] for r in counted if r["status"] != "admitted"})
        top = ", ".join(f"{r} {c}" for r, c in by_reason.most_common(3))
        gave = (f"the graph gave {account.admitted} admitted of {account.attempted} attempted"
                f"{f' (rejected: {top})' if top else ''}{_stale(account, '; ')}; {why}")
        if account.released < level.tasks:
            account.short = f"N={level.n}: {account.released} of {level.tasks} tasks; {gave}"
        else:  # the level is full; only the pool its tasks were drawn from is smaller than planned
            account.pool_short = f"N={level.n}: drawn from {account.admitted} admitted, not {level.pool}; {gave}"
    return account, chosen


def _draw(plan: Plan, level: Level, eligible: list[Task]) -> list[Task]:
    """The level's tasks: a uniform draw (seeded by the plan's seed and N) from the eligible, by class when
    the plan balances classes; all of them when there are no more than wanted."""
    rng = random.Random(f"{plan.seed}:{level.n}")
    if not plan.balance:
        return sorted(rng.sample(eligible, min(level.tasks, len(eligible))), key=lambda t: t.id)
    out: list[Task] = []
    for c, want in _class_quotas(plan.domain, level.tasks).items():
        of_class = [t for t in eligible if _class(plan.domain, t) == c]
        out += rng.sample(of_class, min(want, len(of_class)))
    return sorted(out, key=lambda t: t.id)


# -- the release folder ---------------------------------------------------------------------------
def task_units(plan: Plan, tasks: list[Task], atoms: dict[str, Atom]) -> dict[str, set[str]]:
    """Each task's units (codewalk.splits.unit_of: the repositories of its atoms for repair, else their
    source programs)."""
    return {t.id: {unit_of(atoms[a], plan.unit) for a in t.atoms} for t in tasks}


def build(store: GraphStore, plan: Plan, out: Path, *, plan_path: Path | None = None, workers: int = 1,
          executor: str | None = None, runtime: str | None = None, pull: bool = True,
          on_level: Callable[[Level, LevelAccount | None], None] | None = None,
          on_task: Callable[[Task, WalkSummary], None] | None = None,
          on_check: Callable[[int, int], None] | None = None) -> ReleaseSummary:
    """Walk every level of the plan, then write the release folder `out` (which must be empty or absent).
    `on_check(done, total)`: the progress of each batch of tasks `Recheck` runs."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UsageError(f"--out {out}: not an empty folder (a release is written into a new one)")
    check_levels(store, plan, plan_path)
    atoms: dict[str, Atom] = {}
    recheck = Recheck(plan.domain, store, runtime, pull, leave_one_out=plan.every_atom_matters, workers=workers,
                      executor=executor, on_check=on_check)
    accounts, chosen = [], []
    for level in plan.levels:
        if on_level:
            on_level(level, None)  # starting it
        account, tasks = fill_level(store, plan, level, workers=workers, executor=executor, runtime=runtime,
                                    pull=pull, atoms=atoms, recheck=recheck, on_task=on_task)
        if on_level:
            on_level(level, account)  # done with it
        accounts.append(account)
        chosen += tasks
    if not chosen:
        raise UsageError(f"nothing to release: no admitted task at any level of the plan "
                         f"({'; '.join(a.short for a in accounts)})")
    missing = sorted({a for t in chosen for a in t.atoms} - set(atoms))
    atoms.update((a.id, a) for a in store.get_atoms(missing))
    units = task_units(plan, chosen, atoms)
    quotas = plan.quotas or {ONE_SPLIT: len(chosen)}
    splits = assign(units, quotas, plan.seed, unit=plan.unit)
    by_split = {name: ids for name, ids in splits.tasks.items() if ids}
    if splits.left_out and plan.rest:
        by_split[plan.rest] = splits.left_out
    out.mkdir(parents=True, exist_ok=True)
    rows = {r["id"]: r for r in export.release_rows(store, plan.domain, [t.id for t in chosen], atoms)}
    facts = card.facts(plan.domain, get_domain(plan.domain).data_source, [atoms[a] for a in sorted(atoms)])
    for name, ids in by_split.items():
        export.write_split(out, plan.domain, name, sorted((rows[i] for i in ids),
                                                         key=lambda r: (r["level"], r["id"])), facts)
    (out / SPLITS).write_text(splits.to_json(), encoding="utf-8")
    yields = _yields(store, plan, accounts)
    _plot(plan, accounts, out / PLOT)
    (out / "report.md").write_text(_report(plan, accounts, splits, by_split, yields), encoding="utf-8")
    (out / "README.md").write_text(card.render(out, release=_card_section(plan, accounts, by_split, chosen)),
                                   encoding="utf-8")
    files = _digests(out)
    manifest = {"codewalk": {"version": __version__, "commit": _commit()}, "domain": plan.domain,
                "plan": plan.as_dict(), "seeds": {"plan": plan.seed, "levels": {str(lv.n): plan.seed + lv.n
                                                                                 for lv in plan.levels},
                                                  "splits": plan.seed},
                "inputs": _inputs(store, plan.domain), "tools": _tools(),
                "images": _images(plan.domain, {str(r["image_name"]) for r in rows.values() if r.get("image_name")},
                                  runtime),
                # what the graph gave each level (not how much this build walked: a rerun walks less)
                "levels": [{k: v for k, v in a.as_dict().items() if k != "walked"} for a in accounts],
                "files": files}
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return ReleaseSummary(plan.domain, str(out), plan.as_dict(), accounts,
                          {k: len(v) for k, v in by_split.items()}, sum(len(v) for v in by_split.values()), files)


def _yields(store: GraphStore, plan: Plan, accounts: list[LevelAccount]) -> list[dict[str, Any]]:
    paper = PAPER.get(plan.domain, {})
    return [{"level": a.n, "attempted": a.attempted, "admitted": a.admitted,
             "yield": f"{a.admitted / a.attempted:.0%}" if a.attempted else "-", "released": a.released,
             "planned": a.wanted, "paper": paper.get(a.n, "-"), "reference fails today": f"{a.stale} of {a.rechecked}",
             **({"some atom not needed": _not_needed(a)} if plan.every_atom_matters else {})}
            for a in accounts]


def _stale_reason(seen: Rechecked) -> str:
    """A stale task's reason for the account: V_G's detail, first line, cut short ("failed: ..." or "no
    verdict: ...")."""
    line = (seen.why.splitlines() or [""])[0]
    line = line if len(line) <= 160 else line[:157] + "..."
    return line if seen.reference == "error" else f"{seen.reference}: {line}"


def _stale(a: LevelAccount, lead: str = "") -> str:
    """The stale tasks of a level in words ("" when none)."""
    if not a.stale:
        return ""
    why = "; ".join(f"{r} ({n})" for r, n in a.stale_reasons.items())
    return f"{lead}{a.stale} admitted before fail today's V_G and are not released ({why})"


def _not_needed(a: LevelAccount) -> str:
    """The leave-one-out share, with the runs that gave no verdict: their atoms count as needed, so a share of
    0 % over tasks whose runs all failed to give one would claim a check that never happened."""
    share = f"{a.not_needed} of {a.checked}" + (f" ({a.not_needed / a.checked:.0%})" if a.checked else "")
    return share + (f"; {a.unchecked_runs} runs gave no verdict (atom counted as needed)" if a.unchecked_runs
                    else "")


def _md_table(rows: list[dict[str, Any]]) -> list[str]:
    if not rows:
        return []
    head = list(rows[0])
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head),
            *("| " + " | ".join(str(r[h]) for h in head) + " |" for r in rows)]


def _plot(plan: Plan, accounts: list[LevelAccount], path: Path) -> None:
    """Admission yield by level (admitted / attempted) beside the tasks released, planned and the paper's."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    levels = [str(a.n) for a in accounts]
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5))
    left.bar(levels, [100 * a.admitted / a.attempted if a.attempted else 0 for a in accounts])
    left.set(title=f"{plan.domain}: admission yield", xlabel="level N", ylabel="admitted / attempted (%)")
    paper = PAPER.get(plan.domain, {})
    width = 0.27
    for k, (label, values) in enumerate((("released", [a.released for a in accounts]),
                                         ("planned", [a.wanted for a in accounts]),
                                         ("paper", [paper.get(a.n, 0) for a in accounts]))):
        right.bar([i + (k - 1) * width for i in range(len(levels))], values, width, label=label)
    right.set_xticks(range(len(levels)), levels)
    right.set(title="tasks by level", xlabel="level N", ylabel="tasks")
    right.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})  # no version stamp: the same bytes again
    plt.close(fig)


def _report(plan: Plan, accounts: list[LevelAccount], splits: Splits, by_split: dict[str, list[str]],
            yields: list[dict[str, Any]]) -> str:
    lines = [f"# Release report: {plan.domain}", "", f"Plan {plan.digest}, seed {plan.seed}.", "",
             "## Yield by level", "", *_md_table(yields), "", f"![yield by level]({PLOT})", "",
             "Every admitted task was checked again under today's grading before it could be released: its "
             "reference against V_G (admission's check (2), as `cw release verify` runs it). A task admitted "
             "before a stricter verifier whose reference now fails or gives no verdict is not released "
             "(`reference fails today`) and the level walked on.", ""]
    stale = [f"- N={a.n}: {_stale(a)}" for a in accounts if a.stale]
    if stale:
        lines += ["## Admitted tasks that fail today's V_G", "", *stale, ""]
    if plan.every_atom_matters:
        lines += ["Every atom must matter: a task of N >= 2 whose reference passed V_G with one atom's solution "
                  "left out was dropped (it is really of a lower level); `admitted` counts the tasks kept.", ""]
    short = [a.short for a in accounts if a.short]
    lines += ["## Levels left short", "", *(f"- {s}" for s in short or ["none: every level is full"]), ""]
    pools = [a.pool_short for a in accounts if a.pool_short]
    if pools:
        lines += ["## Draws from a smaller pool than planned", "", *(f"- {s}" for s in pools), ""]
    lines += ["## Splits", "", f"Unit kept disjoint: {splits.unit}.", "",
              *_md_table([{"split": k, "tasks": len(v)} for k, v in by_split.items()]), ""]
    if splits.left_out:
        where = f"released in the `{plan.rest}` split" if plan.rest else "left out of the release"
        lines += [f"{len(splits.left_out)} tasks fit no split quota ({where}; listed in splits.json).", ""]
    return "\n".join(lines)


def _card_section(plan: Plan, accounts: list[LevelAccount], by_split: dict[str, list[str]],
                  chosen: list[Task]) -> list[str]:
    """What the card says of the release: counts per level, split and class, yields beside the paper's."""
    level_of = {t.id: t.level for t in chosen}
    class_of = {t.id: _class(plan.domain, t) for t in chosen}
    paper = PAPER.get(plan.domain, {})
    rows = [{"level": a.n, "released": a.released, "planned": a.wanted, "paper": paper.get(a.n, "-"),
             "admitted / attempted": f"{a.admitted} / {a.attempted}",
             "reference fails today": f"{a.stale} of {a.rechecked}",
             **{s: sum(level_of[i] == a.n for i in ids) for s, ids in by_split.items()},
             **({"classes": ", ".join(f"{c} {n}" for c, n in sorted(
                 Counter(class_of[t.id] for t in chosen if t.level == a.n).items()))}
                if plan.domain in CLASSES else {})}
            for a in accounts]
    lines = ["## Release", "",
             f"Made by `cw release {plan.domain}` with the plan {plan.digest} (seed {plan.seed}; level N walked "
             f"with seed {plan.seed} + N; splits keep each {plan.unit} in one split, seed {plan.seed}). "
             "`manifest.json` gives every input's digest and every file's sha256; `cw release verify` checks "
             "them and every reference.", "", *_md_table(rows), ""]
    lines += [f"- {a.short}" for a in accounts if a.short]
    return [*lines, ""] if any(a.short for a in accounts) else lines


def _digests(out: Path) -> dict[str, str]:
    return {p.relative_to(out).as_posix(): "sha256:" + hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(out.rglob("*")) if p.is_file() and p.name != MANIFEST}


def _inputs(store: GraphStore, domain: str) -> dict[str, Any]:
    """The digest of the graph the walks ran on: every atom of the domain (id, summary, payload) and every
    edge, in id order: two stores loaded from the same sources give the same."""
    table = store.atom_table(domain)
    ids = sorted(table.column("id").to_pylist())
    h = hashlib.sha256()
    for start in range(0, len(ids), 5_000):
        for a in sorted(store.get_atoms(ids[start:start + 5_000]), key=lambda a: a.id):
            h.update(json.dumps([a.id, a.summary, a.payload], sort_keys=True, default=str).encode() + b"\n")
    edges = sorted(json.dumps([e.src, e.dst, e.type, list(e.files), e.arg, e.via]) for e in store.edges(domain))
    h.update("\n".join(edges).encode())
    return {"graph": {"atoms": len(ids), "edges": len(edges), "digest": "sha256:" + h.hexdigest()},
            "data_source": get_domain(domain).data_source}


def _images(domain: str, names: set[str], runtime: str | None) -> list[dict[str, Any]]:
    """The images a release's tasks run in, each with its id and registry digests on the docker daemon
    (id None: the daemon does not have it, or no daemon was asked): the environments the rows name (repair:
    SWE-bench's image_name), and for proofs the image of codewalk/proofs_agent's verify step when the daemon
    has it. The daemon is asked when the build ran under --runtime docker or DOCKER_HOST names one."""
    docker = None
    if resolve(runtime) == "docker" or os.environ.get("DOCKER_HOST"):
        try:
            docker = client()
        except RuntimeUnavailable:
            docker = None
    found = {name: _image_id(docker, name) for name in sorted(names)}
    if domain == "proofs" and docker is not None:
        from .domains.proofs.image import image_tag

        tag = image_tag()
        if (seen := _image_id(docker, tag))["id"]:
            found[tag] = {**seen, "use": "the verify step of codewalk/proofs_agent under docker"}
    return [{"name": name, **ids} for name, ids in found.items()]


def _image_id(docker: Any, name: str) -> dict[str, Any]:
    if docker is None:
        return {"id": None, "repo_digests": []}
    from docker.errors import DockerException

    try:
        image = docker.images.get(name)
    except DockerException:  # not on this daemon (a local build of repair, an image never pulled)
        return {"id": None, "repo_digests": []}
    return {"id": image.id, "repo_digests": sorted(image.attrs.get("RepoDigests") or [])}


def _tools() -> dict[str, str]:
    import pyarrow

    return {"python": platform.python_version(), "pyarrow": pyarrow.__version__, "platform": platform.platform()}


def grading_code() -> str:
    """A digest of codewalk's own source (every file of the package, by path and content): what grades a
    task. A checkout's commit would also change with docs and tests, and a pip install has none."""
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def _commit() -> str:
    """The git commit of the codewalk that made the release ("unknown" outside a checkout; "+dirty" when
    its source differs from that commit)."""
    root = Path(__file__).resolve().parents[1]
    if not (root / ".git").exists():
        return "unknown"
    try:
        run = [gitsafe.argv(["-C", str(root), *a]) for a in (["rev-parse", "HEAD"],
                                                              ["status", "--porcelain", "--", "codewalk"])]
        head, dirty = (subprocess.run(a, capture_output=True, text=True, timeout=30, check=True,
                                      env={**gitsafe.clean_environ(), **gitsafe.ENV}).stdout.strip() for a in run)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


# -- verify ----------------------------------------------------------------------------------------
@dataclass
class VerifyReport:
    release: str
    files: list[dict[str, Any]]  # {file, expected, actual, ok}
    tasks: list[dict[str, Any]]  # {task, split, level, status, detail, ok}

    @property
    def ok(self) -> bool:
        return all(f["ok"] for f in self.files) and all(t["ok"] for t in self.tasks)

    def as_dict(self) -> dict[str, Any]:
        return {"release": self.release, "ok": self.ok, "files": self.files, "tasks": self.tasks}


def verify(folder: Path, *, runtime: str | None = None, pull: bool = True, store: GraphStore | None = None,
           on_task: Callable[[int, int], None] | None = None, workers: int = 1) -> VerifyReport:
    """Every file's sha256 against the manifest (a file missing, changed or not listed is a mismatch), the
    input graph's digest when a store holding the inputs is given, and every task's reference through V_G,
    the domain's grading path, in a fresh domain instance (in `workers` processes, as `cw grade`: a
    verifier run per task, minutes each for proofs; the table keeps the tasks' order)."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        listed, domain = dict(manifest["files"]), str(manifest["domain"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise InputError(str(folder / MANIFEST), None, f"not a release manifest ({type(e).__name__}: {e})") from None
    actual = _digests(folder)
    files = [{"file": name, "expected": listed.get(name, "not listed"), "actual": actual.get(name, "missing"),
              "ok": listed.get(name) == actual.get(name)} for name in sorted(set(listed) | set(actual))]
    if store is not None:
        expected = str(manifest.get("inputs", {}).get("graph", {}).get("digest", "not listed"))
        found = _inputs(store, domain)["graph"]["digest"]
        files.append({"file": f"(input graph in {store.location})", "expected": expected, "actual": found,
                      "ok": expected == found})
    if workers < 1:
        raise UsageError("--workers must be at least 1")
    kind = domain_class(domain)
    settings = Settings(runtime=ready(runtime, kind.name, kind.runtimes, pull=pull))
    plugin = get_domain(domain, settings)
    tasks: list[dict[str, Any]] = []
    data = sorted((folder / domain).glob("*.parquet"))
    loaded = [(p.stem, t) for p in data for t in _readable(p, domain, tasks)]
    jobs = [(Composite(t.prompt, t.reference, t.verifier), t.reference) for _, t in loaded]
    pool = StagedPool(workers) if workers > 1 and len(jobs) > 1 else None
    verdicts = (pool.map(grade_in_worker, repeat(domain), repeat(settings), *zip(*jobs)) if pool
                else map(verdict, repeat(plugin), *zip(*jobs)) if jobs else iter(()))
    try:
        for done, ((split, t), (status, detail, _)) in enumerate(zip(loaded, verdicts), 1):
            tasks.append({"task": t.id, "split": split, "level": t.level, "status": status, "detail": detail,
                          "ok": status == "passed"})
            if on_task:
                on_task(done, len(loaded))
    finally:
        if pool:
            pool.shutdown(cancel_futures=True)
    return VerifyReport(str(folder), files, tasks)


def _readable(path: Path, domain: str, tasks: list[dict[str, Any]]) -> list[Task]:
    """The tasks of one data file; one that cannot be read is a failed row of the table, not a crash."""
    try:
        return export.read_export(path, domain)
    except InputError as e:
        tasks.append({"task": f"({path.name})", "split": path.stem, "level": 0, "status": "unreadable",
                      "detail": str(e), "ok": False})
        return []


# -- the release as samples (inspect tasks) ---------------------------------------------------------
def release_tasks(folder: Path, domain: str, split: str | None = None, levels: tuple[int, ...] = ()) -> list[Task]:
    """The tasks of a release folder: one split (default: every split) and some levels (default: all). What
    `inspect eval codewalk/<domain> -T release=DIR` and the repair agent load."""
    data = folder / domain
    files = sorted(data.glob("*.parquet"))
    if not files:
        raise UsageError(f"{folder} is not a release of domain {domain!r}: no {domain}/*.parquet in it")
    if split is not None:
        files = [p for p in files if p.stem == split]
        if not files:
            known = ", ".join(p.stem for p in sorted(data.glob("*.parquet")))
            raise UsageError(f"release {folder} has no split {split!r} (it has: {known})")
    return [t for p in files for t in export.read_export(p, domain) if not levels or t.level in levels]
