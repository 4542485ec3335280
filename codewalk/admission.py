"""The admission loop (paper Sec. 2.4), generic over domains.

A group G becomes a task only if (1) every atom is still unsolved in the composite and (2) the joint
reference Ref(G) passes the verifier V_G that later grades models. Every attempt is recorded as a Task
(admitted / rejected / error) with per-atom evidence; a verifier that cannot give a verdict (timeout,
crash) is an infrastructure error, never "unsolved". Work fans out over worker processes; only this
process writes to the store, in batches, so Ctrl-C loses nothing that was finished.
"""

from __future__ import annotations

import random
import time
import uuid
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field, replace
from itertools import islice
from typing import Any

from . import __version__
from .domain import Domain, Rejected, Settings, domain_class, get_domain
from .errors import InfraError, StoreUnavailable, UsageError
from .executors import Inline, open_executor
from .records import Atom, Composite, Reason, Run, Task, TaskStatus, now, task_id
from .runtime import Runtime, meter, ready, sandbox
from .store import GraphStore
from .walk import Walker

FLUSH_EVERY = 25  # tasks per write batch
FLUSH_SECONDS = 2.0
BACKLOG = 64  # finished groups allowed to wait behind the head, per group kept running


@dataclass(frozen=True)
class Verdict:
    status: TaskStatus
    reason: str  # short code: admitted, reference_fails, atom_solved, infra_error, or the domain's
    evidence: dict[str, Any]
    composite: Composite | None
    cost: meter.Cost | None = None  # where the worker's time went (set by the worker, not by evaluate)


@dataclass
class WalkSummary:
    run: str
    domain: str
    level: int
    seed: int
    store: str
    attempted: int = 0
    skipped: int = 0  # distinct groups the walks found that an earlier run attempted (not redone)
    redrawn: int = 0  # how many times the walks found a group already attempted, by any run (a used-up graph:
    # thousands, which `skipped` once counted and which read like a bug on a 3-atom graph)
    by_reason: Counter = field(default_factory=Counter)
    admitted_ids: list[str] = field(default_factory=list)
    seconds: float = 0.0
    interrupted: bool = False
    used_up: bool = False  # the walks kept finding groups already attempted: no fresh group is left
    workers: int = 1
    cost: meter.Cost = field(default_factory=meter.Cost)  # the workers': evaluation, tool processes, reuse
    # groups already running when --count was reached: finished (the pool cannot stop them), not kept
    dropped: meter.Cost = field(default_factory=meter.Cost)
    # this process's: walking, reading atoms, waiting for verdicts, writing tasks (seconds)
    main: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))

    @property
    def admitted(self) -> int:
        return len(self.admitted_ids)

    def as_dict(self) -> dict[str, Any]:
        return {"run": self.run, "domain": self.domain, "level": self.level, "seed": self.seed,
                "store": self.store, "attempted": self.attempted, "admitted": self.admitted,
                "rejected": {r: c for r, c in self.by_reason.items() if r not in (Reason.ADMITTED, Reason.INFRA_ERROR)},
                "errors": self.by_reason.get(Reason.INFRA_ERROR, 0), "skipped": self.skipped,
                "redrawn": self.redrawn, "admitted_ids": self.admitted_ids, "seconds": round(self.seconds, 3),
                "interrupted": self.interrupted, "used_up": self.used_up, "cost": self.cost_report()}

    def cost_report(self) -> dict[str, Any]:
        """Where the time went. `in_processes_share`: of the workers' time (wall clock x workers), the
        part inside tool processes (verifiers, git); the rest is codewalk's own or idle. `idle_at_the_end`:
        worker seconds left idle while the run's last groups finished."""
        slots = self.seconds * self.workers
        return {**self.cost.as_dict(), "workers": self.workers,
                "idle_at_the_end": round(meter.tail(self.cost.spans, self.workers), 3),
                "main": {k: round(v, 3) for k, v in sorted(self.main.items())},
                "dropped": {"groups": self.dropped.groups, "seconds": round(self.dropped.seconds, 3)},
                "in_processes_share": round(self.cost.busy / slots, 4) if slots else None}


def evaluate(domain: Domain, atoms: list[Atom]) -> Verdict:
    """Compose a group and run both admission checks. Runs in a worker process."""
    evidence: dict[str, Any] = {}
    try:
        composite = domain.compose(atoms)  # may run tools too (repair: git), so may raise InfraError
    except Rejected as r:
        return Verdict("rejected", r.reason, {"compose": r.detail}, None)
    except InfraError as e:
        return Verdict("error", Reason.INFRA_ERROR, {"error": str(e), "stage": "compose"}, None)
    order = _order(composite, [a.id for a in atoms])
    atoms = sorted(atoms, key=lambda a: order.index(a.id))  # positions follow the composite
    try:
        ref = domain.check_reference(composite, atoms)  # (2)
        evidence["reference"] = {"passes": ref.ok, "detail": ref.detail, **ref.evidence}
        if not ref.ok:
            return Verdict("rejected", ref.reason or Reason.REFERENCE_FAILS, evidence, composite)
        checks = [domain.check_unsolved(composite, atoms, i) for i in range(len(atoms))]  # (1)
    except InfraError as e:
        evidence["error"] = str(e)
        return Verdict("error", Reason.INFRA_ERROR, evidence, composite)
    evidence["atoms"] = [
        {"position": i, "atom": a.id, "unsolved": c.ok, "detail": c.detail, **c.evidence}
        for i, (a, c) in enumerate(zip(atoms, checks, strict=True))
    ]
    solved = [c for c in checks if not c.ok]
    if solved:
        return Verdict("rejected", solved[0].reason or Reason.ATOM_SOLVED, evidence, composite)
    return Verdict("admitted", Reason.ADMITTED, evidence, composite)


def _order(composite: Composite, ids: Sequence[str]) -> tuple[str, ...]:
    """The group's atom ids in the composite's order (Composite.order), when it gives one of these ids."""
    if composite.order and sorted(composite.order) == sorted(ids):
        return composite.order
    return tuple(ids)


def _evaluate_in_worker(domain_class: type[Domain], atoms: list[Atom], settings: Settings) -> Verdict:
    # The class, not its name: a worker (a Dask one too) imports it by reference, registered there or not.
    meter.take()  # counts from before this group (another caller's work) are not its cost
    started = time.monotonic()
    domain = domain_class(settings=settings)  # the runtime the walk's process built and checked
    verdict = evaluate(domain, atoms)
    return replace(verdict, cost=meter.take(started))


def walk_and_admit(
    store: GraphStore,
    domain_name: str,
    n: int,
    count: int,
    *,
    seed: int | None = None,
    max_attempts: int | None = None,
    workers: int = 1,
    on_task: Callable[[Task, WalkSummary], None] | None = None,
    executor: str | None = None,
    options: dict[str, str] | None = None,
    runtime: Runtime | str | None = None,
    pull: bool = True,
) -> WalkSummary:
    """Walk the graph and admit groups until `count` tasks are admitted or `max_attempts` are made.

    `executor` says where verifiers run (codewalk.executors): local (default), dask-local, dask://HOST:PORT.
    `options` are the domain's walk options (`cw walk --opt`, Domain.walk_options). `runtime` says
    where verifiers run their tools (codewalk.runtime: local, docker; default CODEWALK_RUNTIME, else local),
    `pull` whether the docker runtime may pull an image that is not here.
    """
    if count < 1 or workers < 1:
        raise UsageError("--count and --workers must be at least 1")
    kind = domain_class(domain_name)
    where = ready(runtime, kind.name, kind.runtimes, pull=pull)
    if not where.containers:  # refused before anything is stored, not found group by group
        sandbox.require_isolation(f"the {kind.name} domain's verifiers (code nobody reviewed)")
    settings = Settings(runtime=where, walk=kind.parse_walk_options(options or {}))
    domain = get_domain(domain_name, settings)
    seed = random.SystemRandom().randrange(2**31) if seed is None else seed
    max_attempts = max_attempts or 20 * count
    # Set up first: a level the graph cannot support is refused before anything is stored.
    started = time.monotonic()
    walker = Walker(store, domain, n, random.Random(seed))
    set_up = time.monotonic() - started
    run = Run(f"r{uuid.uuid4().hex[:12]}", domain.name, seed,
              {"n": n, "count": count, "max_attempts": max_attempts, "workers": workers,
               "executor": executor or "local", "runtime": where.name, **({"options": options} if options else {})},
              now())
    store.write_run(run)
    summary = WalkSummary(run.id, domain.name, n, seed, store.location, workers=workers)
    clock = summary.main  # this process's time, by what it was doing
    # The frontier path: the same groups as the Cypher step for the same seed (tests/test_walk_fastpath.py).
    groups = _fresh_groups(store, domain, walker, summary)
    clock["walk"] += set_up  # the walker's set-up: reading the relation
    read_atoms = _AtomReader(store)
    pending: list[Task] = []
    store_lost = False
    last_flush = time.monotonic()

    def flush() -> None:
        nonlocal last_flush
        if pending:
            mark = time.monotonic()
            store.write_tasks(pending)
            pending.clear()
            clock["writes"] += time.monotonic() - mark
        last_flush = time.monotonic()

    pool, depth = open_executor(executor, workers)
    # Verdicts are taken in submission order, so any --workers gives the same tasks. `depth` bounds the groups
    # still running (and so the work dropped past --count); finished ones may wait behind a slow group at the
    # head, up to BACKLOG x depth, so a worker that is done with cheap groups (most complexity groups end at
    # check (1) without a run) gets new ones instead of idling. Inline work is done at submit: nothing ahead.
    backlog = 1 if isinstance(pool, Inline) else BACKLOG * depth
    in_flight: deque[tuple[tuple[str, ...], list[Atom], Future]] = deque()
    try:
        while summary.admitted < count:
            while (len(in_flight) < backlog and sum(not f.done() for *_, f in in_flight) < depth
                   and summary.attempted + len(in_flight) < max_attempts):
                mark = time.monotonic()
                group = next(groups, None)
                clock["walk"] += time.monotonic() - mark
                if group is None:
                    break
                mark = time.monotonic()
                atoms = read_atoms(group)
                clock["atoms"] += time.monotonic() - mark
                in_flight.append((group, atoms, pool.submit(_evaluate_in_worker, type(domain), atoms, settings)))
            if not in_flight:
                break
            if not in_flight[0][2].done():
                mark = time.monotonic()  # until any group finishes: its worker is free for the next one
                wait([f for *_, f in in_flight if not f.done()], return_when=FIRST_COMPLETED)
                clock["wait"] += time.monotonic() - mark
                continue
            group, atoms, future = in_flight.popleft()
            verdict = future.result()
            if verdict.cost:
                summary.cost.add(verdict.cost)
            task = _task(domain, group, verdict, run)
            pending.append(task)
            summary.attempted += 1
            summary.by_reason[verdict.reason] += 1
            if verdict.status == "admitted":
                summary.admitted_ids.append(task.id)
            if on_task:
                on_task(task, summary)
            if len(pending) >= FLUSH_EVERY or time.monotonic() - last_flush > FLUSH_SECONDS:
                flush()
    except KeyboardInterrupt:
        summary.interrupted = True
        raise
    except StoreUnavailable:
        store_lost = True  # nothing more can be written: fail now rather than retry in `finally`
        raise
    finally:
        for *_, future in in_flight:  # started work beyond the count is dropped, not recorded
            future.cancel()
        pool.shutdown(wait=not summary.interrupted, cancel_futures=True)
        for *_, future in in_flight:  # what the dropped groups cost: verifier work, not codewalk's own
            if future.done() and not future.cancelled() and future.exception() is None and future.result().cost:
                summary.dropped.add(future.result().cost)
        where.release()  # docker: what this process started ahead of time, and removals still under way
        summary.seconds = time.monotonic() - started
        if not store_lost:
            flush()  # what finished is kept, even on Ctrl-C
            store.write_run(Run(run.id, run.domain, run.seed, run.params, run.started, now()))
    return summary


class _AtomReader:
    """The atoms of the groups walked, each read from the store once: a walk meets the same atoms again and
    again (1,000 complexity groups at N = 2 have 246 atoms), and a read is a query (about 0.5 ms)."""

    def __init__(self, store: GraphStore, keep: int = 100_000):
        self.store, self.keep = store, keep
        self.atoms: dict[str, Atom] = {}

    def __call__(self, ids: Sequence[str]) -> list[Atom]:
        if len(self.atoms) + len(ids) > self.keep:  # a huge graph: start again rather than grow
            self.atoms.clear()
        missing = [i for i in dict.fromkeys(ids) if i not in self.atoms]
        if missing:
            self.atoms.update((a.id, a) for a in self.store.get_atoms(missing))
        return [self.atoms[i] for i in ids]


def _fresh_groups(store: GraphStore, domain: Domain, walker: Walker, summary: WalkSummary) -> Iterator[tuple[str, ...]]:
    """Groups not attempted before (in this run or stored), looked up in the store in small batches."""
    seen: set[str] = set()
    earlier: set[str] = set()  # groups of earlier runs found again: `skipped` counts groups, not finds
    stale = 0
    limit = 1_000 + 50 * len(walker.ids)  # the walk keeps finding known groups: the graph is used up
    walks = iter(walker)
    while True:
        batch = list(islice(walks, 32))
        if not batch:  # the walker found no group at all
            summary.used_up = True
            return
        ids = [task_id(domain.name, g, domain.composer_version) for g in batch]
        known = store.existing_tasks(set(ids) - seen)
        for group, tid in zip(batch, ids, strict=True):
            if tid in seen or tid in known:
                summary.redrawn += 1
                if tid not in seen:
                    earlier.add(tid)
                    summary.skipped = len(earlier)
                stale += 1
                if stale > limit:
                    summary.used_up = True
                    return
                continue
            seen.add(tid)
            stale = 0
            yield group


def _task(domain: Domain, group: tuple[str, ...], verdict: Verdict, run: Run) -> Task:
    c = verdict.composite
    atoms = _order(c, group) if c else group  # as evaluate ordered them
    return Task(
        id=task_id(domain.name, group, domain.composer_version), domain=domain.name, atoms=atoms,
        status=verdict.status, reason=verdict.reason, seed=run.seed, run=run.id, created_at=now(),
        generator_version=f"codewalk {__version__} / {domain.composer_version}",
        prompt=c.prompt if c else "", reference=c.reference if c else "", verifier=c.verifier if c else {},
        evidence=verdict.evidence,
    )

