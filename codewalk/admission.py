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
from collections import Counter, deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import islice
from typing import Any

from . import __version__
from .domain import Domain, Rejected, get_domain
from .errors import InfraError, StoreUnavailable, UsageError
from .executors import open_executor
from .records import Atom, Composite, Reason, Run, Task, TaskStatus, task_id
from .store import GraphStore
from .walk import Walker

FLUSH_EVERY = 25  # tasks per write batch
FLUSH_SECONDS = 2.0


@dataclass(frozen=True)
class Verdict:
    status: TaskStatus
    reason: str  # short code: admitted, reference_fails, atom_solved, infra_error, or the domain's
    evidence: dict[str, Any]
    composite: Composite | None


@dataclass
class WalkSummary:
    run: str
    domain: str
    level: int
    seed: int
    store: str
    attempted: int = 0
    skipped: int = 0  # groups found again that were already attempted (this run or an earlier one)
    by_reason: Counter = field(default_factory=Counter)
    admitted_ids: list[str] = field(default_factory=list)
    seconds: float = 0.0
    interrupted: bool = False
    used_up: bool = False  # the walks kept finding groups already attempted: no fresh group is left

    @property
    def admitted(self) -> int:
        return len(self.admitted_ids)

    def as_dict(self) -> dict[str, Any]:
        return {"run": self.run, "domain": self.domain, "level": self.level, "seed": self.seed,
                "store": self.store, "attempted": self.attempted, "admitted": self.admitted,
                "rejected": {r: c for r, c in self.by_reason.items() if r not in (Reason.ADMITTED, Reason.INFRA_ERROR)},
                "errors": self.by_reason.get(Reason.INFRA_ERROR, 0), "skipped": self.skipped,
                "admitted_ids": self.admitted_ids, "seconds": round(self.seconds, 3),
                "interrupted": self.interrupted, "used_up": self.used_up}


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


def _evaluate_in_worker(domain_class: type[Domain], atoms: list[Atom]) -> Verdict:
    # The class, not its name: a worker (a Dask one too) imports it by reference, registered there or not.
    return evaluate(domain_class(), atoms)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


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
) -> WalkSummary:
    """Walk the graph and admit groups until `count` tasks are admitted or `max_attempts` are made.

    `executor` says where verifiers run (codewalk.executors): local (default), dask-local, dask://HOST:PORT.
    `options` are the domain's walk options (`cw walk --opt`, Domain.walk_options).
    """
    if count < 1 or workers < 1:
        raise UsageError("--count and --workers must be at least 1")
    domain = get_domain(domain_name)
    domain.configure_walk(options or {})
    seed = random.SystemRandom().randrange(2**31) if seed is None else seed
    max_attempts = max_attempts or 20 * count
    run = Run(f"r{uuid.uuid4().hex[:12]}", domain.name, seed,
              {"n": n, "count": count, "max_attempts": max_attempts, "workers": workers,
               "executor": executor or "local", **({"options": options} if options else {})}, now())
    store.write_run(run)
    summary = WalkSummary(run.id, domain.name, n, seed, store.location)
    # The frontier path: the same groups as the Cypher step for the same seed (tests/test_walk_fastpath.py).
    groups = _fresh_groups(store, domain, Walker(store, domain, n, random.Random(seed)), summary)
    pending: list[Task] = []
    store_lost = False
    last_flush = time.monotonic()
    started = time.monotonic()

    def flush() -> None:
        nonlocal last_flush
        if pending:
            store.write_tasks(pending)
            pending.clear()
        last_flush = time.monotonic()

    pool, depth = open_executor(executor, workers)
    in_flight: deque[tuple[tuple[str, ...], list[Atom], Future]] = deque()
    try:
        while summary.admitted < count:
            # Keep the pool busy; results are taken in submission order so any --workers gives the same tasks.
            while len(in_flight) < depth and summary.attempted + len(in_flight) < max_attempts:
                group = next(groups, None)
                if group is None:
                    break
                atoms = store.get_atoms(group)
                in_flight.append((group, atoms, pool.submit(_evaluate_in_worker, type(domain), atoms)))
            if not in_flight:
                break
            group, atoms, future = in_flight.popleft()
            verdict = future.result()
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
        summary.seconds = time.monotonic() - started
        if not store_lost:
            flush()  # what finished is kept, even on Ctrl-C
            store.write_run(Run(run.id, run.domain, run.seed, run.params, run.started, now()))
    return summary


def _fresh_groups(store: GraphStore, domain: Domain, walker: Walker, summary: WalkSummary) -> Iterator[tuple[str, ...]]:
    """Groups not attempted before (in this run or stored), looked up in the store in small batches."""
    seen: set[str] = set()
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
                summary.skipped += 1
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

