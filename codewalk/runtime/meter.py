"""Where admission's time goes, counted in each process: time inside tool processes, and results reused.

`sandbox.run` reports every process it runs (`process`), from the moment the tool started (its exec:
forking, limits and the sandbox's set-up before it are codewalk's time); a cache reports each lookup (`reuse`); a lock
shared between workers, the time spent waiting for it (`waited`). Admission
takes the counts around each group (`take`), so a walk can say how much of its time the verifiers took
and how often a cached answer was used instead of a run (`cw walk --json`'s "cost", bench/admission.py).
Counts stay in the process that made them: admission carries each group's back with its verdict.
Nothing is kept before the first `take`, so a process that never measures (grading, loading) never grows.
"""

from __future__ import annotations

import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Cost:
    """What one or more groups cost. `busy` is the time at least one tool process was running (a domain
    may run several side by side: clone JVM lanes), `seconds` the time spent evaluating, processes included."""

    groups: int = 0
    seconds: float = 0.0
    busy: float = 0.0
    waited: float = 0.0  # blocked on a lock another worker held (while it built something both need)
    start_up: float = 0.0  # starting tool processes before their exec (fork, limits, cgroup): codewalk's
    process_seconds: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))  # summed
    process_runs: Counter = field(default_factory=Counter)  # program name -> processes run
    hits: Counter = field(default_factory=Counter)  # cache name -> answers reused
    misses: Counter = field(default_factory=Counter)  # cache name -> answers computed (then kept)
    spans: list[tuple[float, float]] = field(default_factory=list)  # each group's evaluation (time.monotonic)
    # named costs of running a tool that are neither the tool's time nor codewalk's (a container's start)
    overheads: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))

    def add(self, other: Cost) -> None:
        self.groups += other.groups
        self.seconds += other.seconds
        self.busy += other.busy
        self.waited += other.waited
        self.start_up += other.start_up
        self.spans += other.spans
        for program, seconds in other.process_seconds.items():
            self.process_seconds[program] += seconds
        for name, seconds in other.overheads.items():
            self.overheads[name] += seconds
        for mine, theirs in ((self.process_runs, other.process_runs), (self.hits, other.hits),
                             (self.misses, other.misses)):
            mine.update(theirs)

    def as_dict(self) -> dict[str, Any]:
        caches = sorted(set(self.hits) | set(self.misses))
        return {"groups": self.groups, "seconds": round(self.seconds, 3), "in_processes": round(self.busy, 3),
                "waited_on_locks": round(self.waited, 3), "process_start_up": round(self.start_up, 3),
                "processes": {p: {"runs": self.process_runs[p], "seconds": round(s, 3)}
                              for p, s in sorted(self.process_seconds.items())},
                "reuse": {c: {"hits": self.hits[c], "misses": self.misses[c]} for c in caches},
                **({"overheads": {k: round(v, 3) for k, v in sorted(self.overheads.items())}}
                   if self.overheads else {})}


_lock = threading.Lock()  # clone lanes run processes from threads
_process_spans: list[tuple[float, float]] = []
_now = Cost()
_armed = False  # set by the first take: until then nobody reads the counts


def process(program: str, started: float, ended: float, start_up: float = 0.0) -> None:
    """A tool process ran from `started` (its exec) to `ended` (time.monotonic); starting it took `start_up`."""
    if not _armed:
        return
    with _lock:
        _now.start_up += start_up
        _process_spans.append((started, ended))
        _now.process_seconds[program] += ended - started
        _now.process_runs[program] += 1


def reuse(cache: str, hit: bool) -> None:
    """One lookup in `cache`: a stored answer was used (hit), or it had to be computed (miss)."""
    if not _armed:
        return
    with _lock:
        (_now.hits if hit else _now.misses)[cache] += 1


def overhead(name: str, seconds: float) -> None:
    """Time spent setting up or tearing down where a tool runs (a container's start, copy, removal)."""
    if not _armed:
        return
    with _lock:
        _now.overheads[name] += seconds


def waited(seconds: float) -> None:
    """Time spent blocked on a lock that another worker held."""
    if not _armed:
        return
    with _lock:
        _now.waited += seconds


def take(started: float | None = None) -> Cost:
    """The counts since the last take, as the cost of one group evaluated from `started` (time.monotonic)
    until now; counting starts afresh."""
    global _now, _armed
    ended = time.monotonic()
    with _lock:
        cost, _now, _armed = _now, Cost(), True
        spans = sorted(_process_spans)
        _process_spans.clear()
    cost.groups, cost.busy = 1, _union(spans)
    if started is not None:
        cost.seconds, cost.spans = ended - started, [(started, ended)]
    return cost


def tail(spans: list[tuple[float, float]], workers: int) -> float:
    """Worker time left idle at the end of a run: from the last moment all `workers` were evaluating a
    group until the last group ended (a finite run's last groups finish one by one). CLOCK_MONOTONIC is
    one clock for every process of a machine, so spans from worker processes compare."""
    events = sorted([(s, 1) for s, _ in spans] + [(e, -1) for _, e in spans])
    running, full_until = 0, None
    for moment, step in events:
        if running >= workers and step < 0:
            full_until = moment  # all busy until this group ended
        running += step
    if full_until is None:
        return 0.0
    end = max(e for _, e in spans)
    used = sum(e - max(s, full_until) for s, e in spans if e > full_until)
    return workers * (end - full_until) - used


def _union(spans: list[tuple[float, float]]) -> float:
    """The length of the union of sorted intervals."""
    total, end = 0.0, float("-inf")
    for start, stop in spans:
        if stop > end:
            total += stop - max(start, end)
            end = stop
    return total
