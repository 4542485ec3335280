"""Repair atoms mined from a repository's own history (`cw mine repair`): the paper's "code repository with
commit history, from which we extract bug instances", with git and test runs only.

Candidates are the commits of the main line (first parents from HEAD): a merge brings in what its
branch changed (base = first parent), a direct commit its own diff. A candidate's change must touch
both test files and non-test Python source. An author who commits the source and then its tests apart
gives a series: a commit touching tests but no source, with the direct commits just before it on the main
line by the same author that touch no test (at most SERIES_COMMITS of them, each at most SERIES_HOURS
before it by author date) is one candidate whose change runs from the parent of the earliest to it, its
commits listed in the row (`mined.commits`). The change is split by the repair domain's test-path
convention (`patch.is_test_path`) into the gold patch (the Python modules outside the tests, `.py` and `.pyi`:
what the grader lets a candidate change; documentation, data and configuration are recorded in the row as left
out, round 15a) and the test patch. Diffs are
taken without rename detection, so a renamed file is a deletion and an addition on its own side.

Each candidate is run in the repair domain's own machinery (its mirror, worktree pool, virtualenv cache
and `run_tests`): the Python test files the test patch touches, K times at base + test patch and K times
at base + test patch + gold. A test whose outcome changes between runs of one state is flaky: dropped
and counted. FAIL_TO_PASS: fails (or is absent) in every run before and passes in every run after;
PASS_TO_PASS: passes in every run of both. A candidate is kept only with a FAIL_TO_PASS test; every
other candidate is dropped with a reason (DROPS).

Under `--runtime docker` the environment is an image built from the install config (pre_install, pip and
install run in the image build, never on the host) and every test run is a fresh container, as SWE-bench
validates candidates; a requirement that names a file on this machine (`pkg @ file:///...`) is then not
in the build and the candidate is dropped with environment_failed. Locally the build and the runs are in
the sandbox. The environment is `--install-config` for every candidate, or inferred from the repository at the fix
commit (pyproject dependencies and test extras / dependency groups, setup.cfg, setup.py, requirements
files) and recorded in the row, so `cw load` and `cw walk` rebuild exactly the environment mining used.

Rows are SWE-rebench compatible plus `fix_commit`, `clone_from` (where `cw load repair` clones from
with no option) and `mined` (how the row was found). The summary ends with an account of each repository
in OUT (what limited the yield, `account`) and the largest level N the mined atoms support, by the bound
`cw walk` applies (codewalk.relations.largest_level over the repair domain's own edges, minegraph.py): no
walk is worth suggesting below N = 2. Mining is resumable: every commit decided is appended to OUT.state,
rows to OUT, both flushed at once; a re-run skips what either file holds.

Several repositories mine into one OUT in one run (`mine_many`): their candidates share one executor, taken
in turn from each repository so their test runs overlap, and each state line names its repository, so a
re-run resumes each one where it stopped.
"""

from __future__ import annotations

import ast
import configparser
import dataclasses
import json
import os
import platform
import re
import time
import tomllib
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from codewalk.domain import Settings
from codewalk.errors import InfraError, InputError, UsageError
from codewalk.executors import open_executor
from codewalk.loaders.diff import patch_files
from codewalk.runtime import LocalRuntime, Runtime, ready

from . import RepairDomain
from .env import EnvSpec, TestRun, run_tests
from .git import git
from .junit import node_key
from .minegraph import COMPOSES, PAIR_OUTCOMES, PAIRS, Level, mined_levels
from .patch import is_test_path
from .rules import MODULES

# Why a commit of the window is not a candidate.
SKIPS = {
    "root_commit": "the first commit: nothing to compare with",
    "no_test_change": "touches no test file (a fix without tests)",
    "no_source_change": "touches tests but no Python source outside tests and documentation, and no "
                        "source-only commit of its author's is just before it (a series)",
}
# Why a candidate is dropped.
DROPS = {
    "no_runnable_tests": "the test patch touches no Python test module that exists after it",
    "test_patch_does_not_apply": "the test patch does not apply to the base commit",
    "gold_does_not_apply": "the gold patch does not apply on top of the test patch",
    "environment_failed": "the environment could not be built",
    "tests_did_not_run": "a test run gave no verdict (timeout, crash, no report)",
    "only_flaky": "every test that went from failing to passing changed outcome between runs",
    "no_test_passes": "not one test passes even with the gold patch (often an incomplete environment)",
    "no_fail_to_pass": "no test fails before the gold patch and passes after it",
    "infra_error": "git or the sandbox failed; not recorded as decided, so the next run tries again",
}
# Extras, dependency groups and requirement files that hold what the tests need.
TEST_EXTRAS = ("test", "tests", "testing")
DEV_EXTRAS = ("dev",)  # used only when none of TEST_EXTRAS is declared anywhere
REQUIREMENT_FILES = ("requirements.txt", "requirements-test.txt", "requirements_test.txt", "requirements-tests.txt",
                     "test-requirements.txt", "test_requirements.txt", "requirements/test.txt",
                     "requirements/tests.txt", "requirements/testing.txt")
DEV_REQUIREMENT_FILES = ("requirements-dev.txt", "requirements_dev.txt", "dev-requirements.txt",
                         "requirements/dev.txt")
# A series: a test-only commit and the source-only commits just before it by the same author. Bounded so
# that unrelated work is not swept in: a few commits over two days by author date (a rebase keeps author
# dates; tests committed the next day are common: sqlparse's came 28 h after their source), and never
# across a merge, another author or a commit that touches tests.
SERIES_COMMITS = 5
SERIES_HOURS = 48
WALK_COUNT = 10  # cw walk's default --count
NAME = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")


@dataclass(frozen=True)
class Candidate:
    """A main-line change touching tests and source, split into its gold and test patches."""

    commit: str  # the fix commit (a merge, a direct commit, or the test-only commit closing a series)
    base: str  # its first parent (a series: the first parent of its earliest commit)
    kind: str  # "merge", "commit" or "series"
    date: str  # the fix's committer date, ISO 8601 in UTC
    message: str
    patch: str  # gold: the change's Python modules outside the tests (.py, .pyi)
    test_patch: str
    left_out: tuple[str, ...] = ()  # what else the change touched outside the tests, in neither patch
    commits: tuple[str, ...] = ()  # the main-line commits the change is made of, oldest first


@dataclass(frozen=True)
class Outcome:
    """What became of one commit of the window."""

    commit: str
    status: str  # "kept", "dropped" (a candidate), "skipped" (not a candidate) or "error" (retried on resume)
    reason: str  # "" when kept; a key of DROPS or SKIPS otherwise
    detail: str = ""
    flaky: tuple[str, ...] = ()  # tests dropped as flaky
    row: dict[str, Any] | None = None
    seconds: float = 0.0
    kind: str = ""  # a candidate's kind (Candidate.kind); "" when not a candidate, or decided before it was kept

    def state(self) -> dict[str, Any]:
        return {"commit": self.commit, "status": self.status, "reason": self.reason, "detail": self.detail,
                "flaky": list(self.flaky), "seconds": self.seconds, "kind": self.kind}


@dataclass
class MineSummary:
    repo: str
    out: str
    window: dict[str, str]
    runs: int
    scanned: int = 0  # main-line commits in the window
    candidates: int = 0
    kept: int = 0
    skipped: Counter[str] = field(default_factory=Counter)  # not candidates, by SKIPS reason
    dropped: Counter[str] = field(default_factory=Counter)  # candidates, by DROPS reason
    kinds: Counter[str] = field(default_factory=Counter)  # candidates, by Candidate.kind ("" when not recorded)
    flaky_tests: int = 0
    resumed: int = 0  # commits decided by an earlier run and not examined again
    seconds: float = 0.0
    graph: dict[str, Level] = field(default_factory=dict)  # repository -> its atoms in OUT and their level

    def add(self, outcome: Outcome) -> None:
        self.scanned += 1
        if outcome.status == "skipped":
            self.skipped[outcome.reason] += 1
            return
        self.candidates += 1
        self.kinds[outcome.kind] += 1
        self.flaky_tests += len(outcome.flaky)
        if outcome.status == "kept":
            self.kept += 1
        else:
            self.dropped[outcome.reason] += 1

    @property
    def yield_(self) -> float | None:
        return self.kept / self.candidates if self.candidates else None

    @property
    def largest_level(self) -> Level:
        """The largest level N the atoms in OUT support (the best of its repositories: edges stay in one)."""
        return max(self.graph.values(), key=lambda g: g.level, default=Level(0, 0, 0, "no atoms in the rows"))

    def account(self) -> list[dict[str, Any]]:
        """What limited the yield, per repository of OUT: the stages from commits scanned to the level a walk
        can reach, each with its count and why (this run's repository has every stage; others mined into the
        same OUT earlier, only their atoms and level)."""
        rows: list[dict[str, Any]] = []
        for repo in dict.fromkeys([self.repo, *sorted(self.graph)]):
            def stage(name: str, count: int, why: str = "") -> None:
                rows.append({"repository": repo, "stage": name, "count": count, "why": why})  # noqa: B023

            if repo == self.repo:
                stage("commits scanned", self.scanned, f"main line, {self.resumed} decided by an earlier run"
                      if self.resumed else "main line")
                for reason, n in sorted(self.skipped.items()):
                    stage(f"skipped: {reason}", n, SKIPS.get(reason, ""))
                stage("candidates", self.candidates, ", ".join(f"{k or 'earlier run'} {n}" for k, n in
                                                               sorted(self.kinds.items())))
                for reason, n in sorted(self.dropped.items()):
                    stage(f"dropped: {reason}", n, DROPS.get(reason, ""))
                stage("kept", self.kept, ("-" if self.yield_ is None else f"{self.yield_:.0%}") + " of the "
                      f"candidates; {self.flaky_tests} flaky test(s) left out of their rows")
            g = self.graph.get(repo, Level(0, 0, 0, "no atoms in the rows"))
            stage("atoms in the rows", g.atoms, "this repository's rows in the output file")
            stage("pairs sharing a file", g.edges, "SHARES_FILE edges: what a walk at N >= 2 follows"
                  + (f"; the first {PAIRS} composed" if g.edges > PAIRS and g.pairs else ""))
            stage("largest level N", g.level, g.basis)
            for outcome, n in sorted(g.pairs.items(), key=lambda p: p[0] != COMPOSES):
                stage(f"pairs: {outcome}", n, PAIR_OUTCOMES.get(outcome, ""))
        return rows

    def next_step(self) -> str:
        """What to run next, or why there is nothing to walk and what would change that."""
        best = self.largest_level
        ours = self.graph.get(self.repo, Level(0, 0, 0, ""))
        composed = ours.pairs
        # every pair of the only repository composed, none composing: no group of two survives compose
        if best.level >= 2 and list(self.graph) == [self.repo] and composed.total() == ours.edges \
                and not composed[COMPOSES]:
            return (f"No walk: the mined atoms support N up to {best.level}, but none of the "
                    f"{sum(composed.values())} pair(s) composed ({', '.join(f'{k} {n}' for k, n in composed.items())})"
                    ": a walk at N = 2 would reject every group before running a test. Mine a longer window (an "
                    "earlier --since) or another repository into the same --out.")
        if best.level >= 2:
            pairs = f"; of {composed.total()} pairs composed, {composed[COMPOSES]} compose" if composed else ""
            # every pair checked: no more tasks at N = 2 than pairs that compose, so ask for no more than
            # that (cw walk's default --count, 10, would end a walk that made them all with exit 7)
            every = list(self.graph) == [self.repo] and composed.total() == ours.edges
            count = f" --count {composed[COMPOSES]}" if every and composed[COMPOSES] < WALK_COUNT else ""
            return (f"Next: cw load repair {self.out} · cw walk --domain repair --n 2{count} (the mined atoms "
                    f"support N up to {best.level}: {best.basis}{pairs})")
        why = ("no atoms were kept" if not best.atoms else
               f"the mined atoms support N = {best.level} at most ({best.basis}): no two share a file")
        return (f"No walk: {why}, and a walk needs N >= 2. Mine a longer window (an earlier --since) or another "
                "repository into the same --out, then load and walk.")

    def line(self) -> dict[str, Any]:
        """This repository's line of the table of several mined at once."""
        own = self.graph.get(self.repo, Level(0, 0, 0, ""))
        return {"repository": self.repo, "commits decided": self.scanned, "resumed": self.resumed,
                "candidates": self.candidates, "kept": self.kept,
                "drops": ", ".join(f"{reason} {n}" for reason, n in sorted(self.dropped.items())) or "-",
                "largest N": own.level}

    def as_dict(self) -> dict[str, Any]:
        best = self.largest_level
        return {"repo": self.repo, "out": self.out, "window": self.window, "runs": self.runs,
                "scanned": self.scanned, "candidates": self.candidates, "kept": self.kept,
                "yield": self.yield_, "skipped": dict(sorted(self.skipped.items())),
                "dropped": dict(sorted(self.dropped.items())), "candidate_kinds": dict(sorted(self.kinds.items())),
                "flaky_tests": self.flaky_tests, "resumed": self.resumed, "seconds": round(self.seconds, 1),
                "largest_level": best.level, "largest_level_basis": best.basis,
                "graph": {repo: g.as_dict() for repo, g in sorted(self.graph.items())},
                "account": self.account(), "next": self.next_step()}


Progress = Callable[[int, int, MineSummary], None]  # (commits decided, commits in the window(s), that summary)


@dataclass(frozen=True)
class Source:
    """A repository to mine: where git reads it from, and the owner/name its rows carry ("": inferred)."""

    source: str
    name: str = ""


def mine(source: str, out: Path, *, name: str = "", since: str = "", until: str = "",
         install_config: str = "", runs: int = 3, runtime: Runtime | str | None = None, pull: bool = True, workers: int = 1,
         cache: Path | None = None, test_timeout: float = 900.0, on_progress: Progress | None = None,
         executor: str | None = None) -> MineSummary:
    """Mine source's main line into SWE-rebench rows appended to out; the summary of the whole window."""
    return mine_many([Source(source, name)], out, since=since, until=until, install_config=install_config,
                     runs=runs, runtime=runtime, pull=pull, workers=workers, cache=cache,
                     test_timeout=test_timeout, on_progress=on_progress, executor=executor)[0]


def mine_many(sources: list[Source], out: Path, *, since: str = "", until: str = "", install_config: str = "",
              runs: int = 3, runtime: Runtime | str | None = None, pull: bool = True, workers: int = 1,
              cache: Path | None = None, test_timeout: float = 900.0, on_progress: Progress | None = None,
              executor: str | None = None) -> list[MineSummary]:
    """Mine each source's main line into out, the candidates of all of them on one executor (taken in turn
    from each repository, so their test runs overlap); one summary per source, in the order given. Every
    source is read (and its mirror made) before anything is written: a bad one stops the run unwritten."""
    started = time.monotonic()
    if runs < 1:
        raise UsageError(f"--runs must be at least 1, got {runs}")
    if not sources:
        raise UsageError("no repository to mine")
    where = ready(runtime, RepairDomain.name, RepairDomain.runtimes, pull=pull)  # no daemon: one error now
    window = {"since": _date(since, "--since"), "until": _date(until, "--until")}
    config = read_install_config(install_config) if install_config else None
    domain = RepairDomain(cache, Settings(runtime=where))
    miners: list[tuple[Miner, list[str], MineSummary]] = []
    for s in sources:
        origin = _origin(s.source)
        name = s.name or default_name(origin)
        if not NAME.match(name):
            raise UsageError(f"--name {name!r} is not owner/name (letters, digits, '_', '.', '-')")
        if any(m.repo == name for m, _, _ in miners):
            raise UsageError(f"{s.source}: the repository {name} is given twice (name one with --name, or a "
                             "second field in --repos)")
        try:
            head = _head(origin)
            mirror = domain.mirrors.ensure(name, origin, [head])
        except InfraError as e:
            raise InputError(s.source, None, f"cannot read the repository: {e}") from None
        miner = Miner(name, origin, str(mirror), cache, config, runs, test_timeout, where)
        miners.append((miner, miner.main_line(head, window),
                       MineSummary(name, str(out), {k: v for k, v in window.items() if v}, runs)))
    store = Rows(out)
    done = store.decided()
    total = sum(len(commits) for _, commits, _ in miners)
    todo: list[list[tuple[Miner, str, MineSummary]]] = []
    for miner, commits, summary in miners:
        todo.append([])
        for commit in commits:
            earlier = done.get((miner.repo, commit)) or done.get(("", commit))
            if earlier:
                summary.add(earlier)
                summary.resumed += 1
            else:
                todo[-1].append((miner, commit, summary))
    count = sum(summary.scanned for _, _, summary in miners)

    def decided(miner: Miner, summary: MineSummary, outcome: Outcome) -> None:
        nonlocal count
        store.write(outcome, miner.repo)
        summary.add(outcome)
        count += 1
        if on_progress:
            on_progress(count, total, summary)

    if on_progress:
        on_progress(count, total, miners[0][2])
    pool, ahead = open_executor(executor or "local", workers)
    try:
        pending: list[tuple[Miner, MineSummary, Future[Outcome]]] = []
        for miner, commit, summary in _in_turn(todo):
            candidate = miner.candidate(commit)
            if isinstance(candidate, Outcome):
                decided(miner, summary, candidate)
                continue
            pending.append((miner, summary, pool.submit(miner.examine, candidate)))
            while len(pending) >= ahead:
                m, of, future = pending.pop(0)
                decided(m, of, future.result())
        for m, of, future in pending:
            decided(m, of, future.result())
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        where.release()  # the end of the mining, as of a walk: containers started ahead go too
    # OUT read once, each repository's pairs composed once; a summary shows the pairs of its own repository
    levels = mined_levels(out, domain, compose={miner.repo for miner, _, _ in miners})
    for miner, _, summary in miners:
        summary.graph = {repo: g if repo == miner.repo else dataclasses.replace(g, pairs=Counter())
                         for repo, g in levels.items()}
        summary.seconds = time.monotonic() - started
    return [summary for _, _, summary in miners]


def _in_turn(lists: list[list[Any]]) -> Iterable[Any]:
    """One item of each list in turn (a, b, a, b, ..., then the rest of the longer)."""
    for i in range(max(map(len, lists), default=0)):
        for items in lists:
            if i < len(items):
                yield items[i]


def read_repos(path: Path) -> list[Source]:
    """--repos FILE: one repository a line (a path or URL, optionally followed by its owner/name); `#` starts
    a comment, blank lines are skipped. A bad line is a usage error naming FILE:LINE."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"--repos {path}: cannot read it ({getattr(e, 'strerror', None) or e})") from None
    found: list[Source] = []
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        where = f"{path}:{number}"
        if len(fields) > 2:
            raise UsageError(f"{where}: expected a repository and at most its owner/name, got {len(fields)} fields")
        if len(fields) == 2 and not NAME.match(fields[1]):
            raise UsageError(f"{where}: {fields[1]!r} is not owner/name (letters, digits, '_', '.', '-')")
        if not _url(fields[0]) and not Path(fields[0]).expanduser().exists():
            raise UsageError(f"{where}: repository not found: {fields[0]} (a path to a git clone, or a URL)")
        if any(s.source == fields[0] for s in found):
            raise UsageError(f"{where}: {fields[0]} is listed twice")
        found.append(Source(*fields))
    return found


# -- the miner: scanning in the main process, examining in workers ---------------------------------
@dataclass(frozen=True)
class Miner:
    """Everything a worker needs to examine a candidate (picklable)."""

    repo: str
    origin: str
    mirror: str
    cache: Path | None
    install_config: dict[str, Any] | None
    runs: int
    test_timeout: float
    runtime: Runtime = LocalRuntime()  # docker: an image built from the install config, each run a container

    def git(self, *args: str, check: bool = True) -> str:
        return git(list(args), Path(self.mirror), check=check, git_dir=Path(self.mirror)).stdout

    def main_line(self, head: str, window: dict[str, str]) -> list[str]:
        """The first-parent commits from head inside the window, oldest first."""
        limits = [f"--since={window['since']}"] if window["since"] else []
        limits += [f"--until={window['until']}"] if window["until"] else []
        return self.git("rev-list", "--first-parent", "--reverse", *limits, head).split()

    def candidate(self, commit: str) -> Candidate | Outcome:
        """The commit as a candidate, or the outcome saying why it is not one."""
        parents, date, message = self.git("show", "-s", "--format=%P%x00%cI%x00%B", commit).split("\0", 2)
        if not parents.split():
            return Outcome(commit, "skipped", "root_commit")
        base = parents.split()[0]
        changed = [p for p in self.git("diff", "--name-only", "--no-renames", "-z", base, commit).split("\0") if p]
        tests = [p for p in changed if is_test_path(p)]
        source = [p for p in changed if not is_test_path(p) and not documentation(p) and p.endswith(".py")]
        if not tests:
            return Outcome(commit, "skipped", "no_test_change", f"changes {len(changed)} file(s), none a test")
        kind = "merge" if len(parents.split()) > 1 else "commit"
        commits: tuple[str, ...] = (commit,)
        if not source:
            series = self.series(commit, base) if kind == "commit" else []
            if series:  # the source came in the author's commits just before: one change made in steps
                base = self.git("rev-parse", f"{series[0]}^").strip()
                changed = [p for p in self.git("diff", "--name-only", "--no-renames", "-z", base, commit)
                           .split("\0") if p]
                tests = [p for p in changed if is_test_path(p)]
                source = [p for p in changed if not is_test_path(p) and not documentation(p) and p.endswith(".py")]
                kind, commits = "series", (*series, commit)
                message = "\n\n".join(self.git("show", "-s", "--format=%B", c).strip() for c in commits)
            if not tests or not source:
                return Outcome(commit, "skipped", "no_source_change", f"changes tests ({', '.join(tests[:3])}) and "
                               "no Python source" + (f", nor do the {len(series)} source-only commit(s) of the "
                                                     "author's just before" if series else ""))
        # round 15a: the grader refuses a change to any file but a Python module (rules.MODULES, not_source), so
        # the gold patch is the change's modules; the rest (documentation, data, configuration) is left out
        gold = [p for p in changed if not is_test_path(p) and not documentation(p) and p.endswith(MODULES)]
        return Candidate(commit, base, kind, _utc(date), message.strip(), self._diff(base, commit, gold),
                         self._diff(base, commit, tests),
                         tuple(p for p in changed if not is_test_path(p) and p not in gold), commits)

    def series(self, commit: str, base: str) -> list[str]:
        """The commits just before a test-only commit that make its change with it, oldest first: first
        parents back from its base while each is a direct commit by the same author (email or name), at
        most SERIES_HOURS older by author date, touching no test file; at most SERIES_COMMITS of them."""
        when, email, name = self.git("show", "-s", "--format=%at%x00%ae%x00%an", commit).strip().split("\0")
        found: list[str] = []
        at = base
        while len(found) < SERIES_COMMITS:
            parents, at_when, at_email, at_name = self.git("show", "-s", "--format=%P%x00%at%x00%ae%x00%an",
                                                           at).strip().split("\0")
            if (len(parents.split()) != 1 or (at_email != email and at_name != name)
                    or int(when) - int(at_when) > SERIES_HOURS * 3600):
                break
            touched = self.git("diff", "--name-only", "--no-renames", "-z", parents, at).split("\0")
            if any(is_test_path(p) for p in touched if p):
                break
            found.append(at)
            at = parents.strip()
        return found[::-1]

    def _diff(self, base: str, commit: str, paths: list[str]) -> str:
        return self.git("diff", "--binary", "--full-index", "--no-renames", "--no-color", "--no-ext-diff",
                        base, commit, "--", *[f":(literal){p}" for p in paths])

    def examine(self, c: Candidate) -> Outcome:
        """Run the candidate's tests K times before and after its gold patch; its row, or why it is dropped.
        An infrastructure failure (git, the sandbox) is an outcome with status "error", retried on resume."""
        started = time.monotonic()
        try:
            return self._examine(c, started)
        except InfraError as e:
            return Outcome(c.commit, "error", "infra_error", str(e)[-500:], (), None,
                           round(time.monotonic() - started, 2), c.kind)

    def _examine(self, c: Candidate, started: float) -> Outcome:
        def drop(reason: str, detail: str, flaky: Iterable[str] = ()) -> Outcome:
            return Outcome(c.commit, "dropped", reason, detail, tuple(flaky), None,
                           round(time.monotonic() - started, 2), c.kind)

        files = [p for p in patch_files(c.test_patch) if _test_module(p)
                 and self.git("cat-file", "-t", f"{c.commit}:{p}", check=False).strip() == "blob"]
        if not files:
            return drop("no_runnable_tests", f"test files touched: {', '.join(patch_files(c.test_patch))}")
        config = self.install_config or infer_install_config(lambda p: self._show(c.commit, p), self.repo)
        spec = EnvSpec.from_config(config)
        domain = RepairDomain(self.cache, Settings(runtime=self.runtime))
        v = {"repo": self.repo, "base_commit": c.base, "environment_setup_commit": c.commit, "clone_from": self.origin}
        with domain.worktrees.checkout(Path(self.mirror), c.base) as tree:
            try:
                env = domain._env(v, spec, tree)
            except InfraError as e:
                return drop("environment_failed", str(e)[-500:])
            if tree.apply(c.test_patch, ("strict",)) is None:
                return drop("test_patch_does_not_apply", f"to {c.base[:12]}")
            with_tests = tree.tree()
            if tree.apply(c.patch, ("strict",)) is None:
                return drop("gold_does_not_apply", f"on {c.base[:12]} with the test patch")
            with_gold = tree.tree()
            states: list[list[dict[str, str]]] = []
            for state in (with_tests, with_gold):
                tree.restore(state)
                found = []
                for _ in range(self.runs):
                    try:
                        # local: in place, what one run leaves the next sees; docker: a fresh container each
                        run = run_tests(env, tree, files, spec.test_cmd, self.test_timeout, domain.memory_mb,
                                        fresh=False)
                    except InfraError as e:
                        where = "before" if state == with_tests else "after"
                        return drop("tests_did_not_run", f"{where} the gold patch: {str(e)[-500:]}")
                    found.append(node_outcomes(run, files))
                states.append(found)
        fail_to_pass, pass_to_pass, flaky = classify(*states)
        if not any(status == "passed" for run in states[1] for status in run.values()):
            seen = sorted({n for run in states[1] for n in run})
            return drop("no_test_passes", f"{len(seen)} test(s) reported after the gold patch, none passed"
                        + (f", e.g. {seen[0]}" if seen else " (the test modules do not import)"), flaky)
        if not fail_to_pass:
            if flaky:
                return drop("only_flaky", f"flaky: {', '.join(flaky[:3])}", flaky)
            return drop("no_fail_to_pass", f"{len(pass_to_pass)} test(s) pass before and after", flaky)
        row = {
            "instance_id": f"{self.repo.replace('/', '__')}-{c.commit[:12]}", "repo": self.repo,
            "base_commit": c.base, "patch": c.patch, "test_patch": c.test_patch,
            "problem_statement": c.message, "hints_text": "", "version": "",
            "FAIL_TO_PASS": fail_to_pass, "PASS_TO_PASS": pass_to_pass, "created_at": c.date,
            "environment_setup_commit": c.commit, "install_config": config,
            "fix_commit": c.commit, "clone_from": self.origin,
            "mined": {"kind": c.kind, "commits": list(c.commits), "runs": self.runs, "flaky": flaky,
                      "test_files": files,
                      "left_out": list(c.left_out),
                      "runtime": self.runtime.name, "env": env.summary() | {"venv": None}},
        }
        return Outcome(c.commit, "kept", "", f"{len(fail_to_pass)} FAIL_TO_PASS, {len(pass_to_pass)} PASS_TO_PASS",
                       tuple(flaky), row, round(time.monotonic() - started, 2), c.kind)

    def _show(self, commit: str, path: str) -> str | None:
        done = git(["cat-file", "blob", f"{commit}:{path}"], Path(self.mirror), check=False, git_dir=Path(self.mirror))
        return done.stdout if done.returncode == 0 else None


def documentation(path: str) -> bool:
    """Prose the gold patch leaves out (docs folders, changelogs, .md/.rst): every fix touching a changelog
    would otherwise share a file with every other one, and their patches would conflict there."""
    parts = PurePosixPath(path).parts
    name = parts[-1].lower() if parts else ""
    return (parts[0].lower() in ("doc", "docs") or name.endswith((".md", ".rst", ".adoc"))
            or name.startswith(("changelog", "changes", "news", "history", "authors", "contributors")))


def _test_module(path: str) -> bool:
    name = PurePosixPath(path).name
    return is_test_path(path) and name.endswith(".py") and (name.startswith("test") or name.endswith("_test.py")
                                                            or name.endswith("_tests.py"))


def node_outcomes(run: TestRun, files: list[str]) -> dict[str, str]:
    """node id -> outcome for every test case a run of whole files reported (a collection error, which
    names no test, is left out: its tests are absent)."""
    modules = sorted(((re.sub(r"\.py$", "", f.replace("/", ".")), f) for f in files), key=lambda m: -len(m[0]))
    found: dict[str, str] = {}
    for (classname, name), status in run.cases.items():
        for module, file in modules:
            if classname == module:
                node = f"{file}::{name}"
            elif classname.startswith(module + "."):
                node = f"{file}::{classname[len(module) + 1:].replace('.', '::')}::{name}"
            else:
                continue
            if node_key(node) == (classname, name):
                found[node] = status
            break
    return found


def classify(before: list[dict[str, str]], after: list[dict[str, str]]) -> tuple[list[str], list[str], list[str]]:
    """(FAIL_TO_PASS, PASS_TO_PASS, flaky) from K runs before and K runs after the gold patch."""
    def kind(status: str | None) -> str:
        return "passed" if status == "passed" else "skipped" if status == "skipped" else "failed"

    nodes = list(dict.fromkeys(n for run in after for n in run))
    fail_to_pass, pass_to_pass, flaky = [], [], []
    for node in nodes:
        was = {kind(run.get(node)) for run in before}
        now = {kind(run.get(node)) for run in after}
        if len(was) > 1 or len(now) > 1:
            flaky.append(node)
        elif now == {"passed"} and was == {"failed"}:
            fail_to_pass.append(node)
        elif now == {"passed"} and was == {"passed"}:
            pass_to_pass.append(node)
    return fail_to_pass, pass_to_pass, flaky


# -- environments -------------------------------------------------------------------------------------
def read_install_config(value: str) -> dict[str, Any]:
    """--install-config: a JSON object, or a file holding one."""
    text, where = value, "--install-config"
    if not value.lstrip().startswith(("{", "[")):
        where = value
        try:
            text = Path(value).read_text(encoding="utf-8")
        except OSError as e:
            raise InputError(value, None, f"cannot read the install config: {e.strerror}") from None
    try:
        config = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(where, None, f"not JSON: {e}") from None
    if not isinstance(config, dict):
        raise InputError(where, None, "the install config must be a JSON object (SWE-rebench keys)")
    return config


def infer_install_config(read: Callable[[str], str | None], repo: str) -> dict[str, Any]:
    """SWE-rebench install_config keys from the repository's files (read(path) -> text or None): this
    interpreter's version, and as pip_packages the project's dependencies and test requirements."""
    own = {_canonical(repo.split("/")[-1])}
    test: list[str] = []
    dev: list[str] = []
    base: list[str] = []
    used: list[str] = []
    notes: list[str] = []

    pyproject = read("pyproject.toml")
    if pyproject is not None:
        try:
            data = tomllib.loads(pyproject)
        except tomllib.TOMLDecodeError as e:
            notes.append(f"pyproject.toml does not parse: {e}")
            data = {}
        project = data.get("project") or {}
        if project.get("name"):
            own.add(_canonical(str(project["name"])))
        if project or data.get("dependency-groups"):
            used.append("pyproject.toml")
        base += _strings(project.get("dependencies"))
        for table in (project.get("optional-dependencies") or {}, data.get("dependency-groups") or {}):
            for key, value in table.items():
                into = test if key in TEST_EXTRAS else dev if key in DEV_EXTRAS else None
                if into is not None:
                    into += _strings(value)
        if (data.get("tool") or {}).get("poetry"):
            notes.append("poetry dependencies ([tool.poetry]) are not read")
    setup_cfg = read("setup.cfg")
    if setup_cfg is not None:
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(setup_cfg)
        except configparser.Error as e:
            notes.append(f"setup.cfg does not parse: {e}")
        else:
            if parser.has_option("metadata", "name"):
                own.add(_canonical(parser.get("metadata", "name")))
            if parser.has_option("options", "install_requires"):
                base += _lines(parser.get("options", "install_requires"))
                used.append("setup.cfg")
            if parser.has_section("options.extras_require"):
                for key, value in parser.items("options.extras_require"):
                    into = test if key in TEST_EXTRAS else dev if key in DEV_EXTRAS else None
                    if into is not None:
                        into += _lines(value)
                        used.append("setup.cfg")
    setup_py = read("setup.py")
    if setup_py is not None:
        found = _setup_py(setup_py)
        if found is None:
            notes.append("setup.py does not parse")
        else:
            requires, extras = found
            base += requires
            for key, value in extras.items():
                into = test if key in TEST_EXTRAS else dev if key in DEV_EXTRAS else None
                if into is not None:
                    into += value
            if requires or extras:
                used.append("setup.py")
    for files, into in ((REQUIREMENT_FILES, test), (DEV_REQUIREMENT_FILES, dev)):
        for path in files:
            text = read(path)
            if text is not None:
                into += _requirements(path, text, read, notes)
                used.append(path)
    wanted = base + (test or dev)
    packages = list(dict.fromkeys(w for w in wanted if _canonical(_project(w)) not in own))
    return {"python": ".".join(platform.python_version_tuple()[:2]), "pip_packages": packages, "install": "",
            "test_cmd": "", "inferred_from": list(dict.fromkeys(used)), "notes": notes}


def _strings(value: Any) -> list[str]:
    return [v.strip() for v in value if isinstance(v, str) and v.strip()] if isinstance(value, list) else []


def _lines(value: str) -> list[str]:
    return [line.split("#")[0].strip() for line in value.splitlines() if line.split("#")[0].strip()]


def _requirements(path: str, text: str, read: Callable[[str], str | None], notes: list[str],
                  depth: int = 0) -> list[str]:
    """The requirement specifiers of a requirements file, following -r; options and paths are left out."""
    found: list[str] = []
    for line in _lines(text):
        if line.startswith(("-r ", "--requirement ")) and depth < 5:
            nested = str(PurePosixPath(path).parent / line.split(maxsplit=1)[1])
            nested_text = read(nested.removeprefix("./"))
            if nested_text is None:
                notes.append(f"{path} includes {nested}, which is not in the repository")
            else:
                found += _requirements(nested, nested_text, read, notes, depth + 1)
        elif line.startswith("-") or line.startswith((".", "/")) or line == ".":
            notes.append(f"{path}: {line!r} was not installed (an option or a path)")
        else:
            found.append(line)
    return found


def _setup_py(text: str) -> tuple[list[str], dict[str, list[str]]] | None:
    """install_requires and extras_require of setup.py's setup(...) call, where they are literals."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    requires: list[str] = []
    extras: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "setup"):
            continue
        for keyword in node.keywords:
            try:
                value = ast.literal_eval(keyword.value)
            except (ValueError, TypeError, SyntaxError, RecursionError):
                continue
            if keyword.arg == "install_requires":
                requires += _strings(list(value) if isinstance(value, list | tuple) else None)
            elif keyword.arg == "extras_require" and isinstance(value, dict):
                for key, listed in value.items():
                    extras[str(key)] = _strings(list(listed) if isinstance(listed, list | tuple) else None)
    return requires, extras


def _project(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;@(]", requirement, maxsplit=1)[0]


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


# -- the output file and its state --------------------------------------------------------------------
class Rows:
    """OUT (rows, JSON lines) and OUT.state (one line per decided commit), both appended and flushed."""

    def __init__(self, out: Path):
        self.out, self.state = out, out.with_name(out.name + ".state")

    def decided(self) -> dict[tuple[str, str], Outcome]:
        """Commits decided by an earlier run, by (repository, commit): from the state file, and kept rows whose
        state line was lost. A state line written before lines named their repository has repository ""."""
        found: dict[tuple[str, str], Outcome] = {}
        for path in (self.state, self.out):
            self._drop_partial_line(path)
        if self.state.is_file():
            for number, line in enumerate(self.state.read_text(encoding="utf-8").splitlines(), 1):
                try:
                    data = json.loads(line)
                    key = (str(data.get("repo", "")), data["commit"])
                    if data["status"] == "error":
                        found.pop(key, None)
                        continue
                    found[key] = Outcome(data["commit"], data["status"], data["reason"],
                                                    data.get("detail", ""), tuple(data.get("flaky", ())),
                                                    kind=data.get("kind", ""))
                except (ValueError, KeyError, TypeError):
                    raise InputError(str(self.state), number, "not a mining state line (delete the file to "
                                     "examine every commit again)") from None
        if self.out.is_file():
            for number, line in enumerate(self.out.read_text(encoding="utf-8").splitlines(), 1):
                try:
                    row = json.loads(line)
                    key = (str(row.get("repo", "")), row["fix_commit"])
                except (ValueError, KeyError, TypeError, AttributeError):
                    raise InputError(str(self.out), number, "not a row `cw mine repair` wrote (no fix_commit): "
                                     "mine into a new file") from None
                earlier = found.get(key) or found.get(("", key[1]))
                found[key] = Outcome(key[1], "kept", "", flaky=earlier.flaky if earlier else (),
                                        kind=earlier.kind if earlier else "")
        return found

    def write(self, outcome: Outcome, repo: str) -> None:
        if outcome.row is not None:  # the row first: a kill between the two lines leaves it decided
            self._append(self.out, outcome.row)
        self._append(self.state, {"repo": repo, **outcome.state()})

    @staticmethod
    def _append(path: Path, data: dict[str, Any]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(data) + "\n")
            f.flush()
            os.fsync(f.fileno())

    @staticmethod
    def _drop_partial_line(path: Path) -> None:
        """A line cut by a kill mid-write is removed: its commit is examined again."""
        if not path.is_file():
            return
        data = path.read_bytes()
        if data and not data.endswith(b"\n"):
            path.write_bytes(data[: data.rfind(b"\n") + 1])


# -- helpers ----------------------------------------------------------------------------------------
def _origin(source: str) -> str:
    """Where to clone from: a local repository's absolute path, or a URL as given."""
    if _url(source):
        return source
    path = Path(source).expanduser().resolve()
    if not path.exists():
        raise InputError(source, None, "no such repository (a path to a git clone, or a URL)")
    done = git(["rev-parse", "--git-dir"], path, check=False)
    if done.returncode != 0:
        raise InputError(source, None, "not a git repository")
    return str(path)


def _url(source: str) -> bool:
    return bool(re.match(r"^[a-z][a-z0-9+.-]*://", source) or re.match(r"^[\w.-]+@[\w.-]+:", source))


def _head(origin: str) -> str:
    """The commit the source's HEAD names."""
    if Path(origin).is_dir():
        done = git(["rev-parse", "--verify", "HEAD^{commit}"], Path(origin), check=False)
        if done.returncode != 0:
            raise InfraError("its HEAD names no commit (an empty repository?)")
        return done.stdout.strip()
    done = git(["ls-remote", origin, "HEAD"], Path.cwd())
    if not done.stdout.split():
        raise InfraError("the remote has no HEAD")
    return done.stdout.split()[0]


def default_name(origin: str) -> str:
    """owner/name: from a GitHub-style URL (the source's or its origin remote's), else local/<folder>."""
    url = origin
    if Path(origin).is_dir():
        url = git(["config", "--get", "remote.origin.url"], Path(origin), check=False).stdout.strip() or origin
    m = re.search(r"[/:]([\w.-]+)/([\w.-]+?)(?:\.git)?/?$", url)
    if m and not Path(url).is_dir():
        return f"{m.group(1)}/{m.group(2)}"
    folder = Path(origin).name.removesuffix(".git")
    return "local/" + (re.sub(r"[^A-Za-z0-9_.-]+", "-", folder) or "repository")


def _date(value: str, option: str) -> str:
    if not value:
        return ""
    try:
        stamp = datetime.fromisoformat(value.strip())
    except ValueError:
        raise UsageError(f"{option} {value!r} is not an ISO 8601 date (e.g. 2024-06-01)") from None
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=UTC)
    return stamp.isoformat()


def _utc(date: str) -> str:
    return datetime.fromisoformat(date.strip()).astimezone(UTC).isoformat(timespec="seconds")
