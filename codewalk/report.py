"""`cw grade report`: the paper's analysis of stored grades (Sec. 4.2), per run.

For every run (a `cw grade` run or an inspect eval) and level N:

- the solve rate: passed / (passed + failed); a grade without verdict (error) is left out, as `cw grade`
  leaves it out;
- the independent-failure baseline p^N, with p the run's own N = 1 solve rate: what a level-N task would
  score if its N repairs succeeded or failed independently (a conjunctive success criterion);
- the interference share of failures: among the run's failed level-N tasks (N >= 2) whose every atom has
  an isolated evaluation in the same run (a graded N = 1 task composing that atom alone: full N = 1
  coverage), the share whose every atom was solved in isolation. Such a failure is an interference error:
  each bug is fixed alone, the joint task is not.

With --per-attempt (`per_attempt_report`), App. C's measure instead: per model (or checkpoint) and level, the
per-attempt success over every attempt graded (K epochs of an eval are K grades of each task), and pass@k.

Runs of an agent scaffold are told from one-call runs by their name: `codewalk/proofs_agent` stores its grades
under run `proofs_agent-<eval id>` (AGENT_RUNS), and its rows say so (scaffold), so the agent's solve rate
and p^N sit beside the one-call task's `<eval id>` rows in the same report.

Grades are read from the store (cypher/grades.cypher; a task's atoms through select_task_atoms).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field
from math import comb
from pathlib import Path
from typing import Any

from .errors import UsageError
from .store import BATCH, GraphStore

# run-name prefix -> the scaffold that made the run (a run of no listed prefix: "", as graded)
AGENT_RUNS = {"proofs_agent-": "proofs_agent"}


@dataclass(frozen=True)
class LevelRow:
    run: str
    model: str
    level: int
    graded: int  # grades at this level, errors included
    passed: int
    failed: int
    errors: int  # no verdict: left out of the rate
    solve_rate: float | None  # passed / (passed + failed)
    baseline: float | None  # p^N, p = this run's N = 1 solve rate; None without N = 1 verdicts
    covered_failures: int | None  # failed tasks whose every atom has an N = 1 verdict in this run (N >= 2)
    interference: int | None  # of those, failures whose every atom was solved in isolation
    interference_share: float | None  # interference / covered_failures
    scaffold: str = ""  # the agent scaffold that made the run (AGENT_RUNS), "" for a one-call run or cw grade


@dataclass
class Report:
    domain: str
    run: str  # "" = every run
    rows: list[LevelRow] = field(default_factory=list)
    plot: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def grade_report(store: GraphStore, domain: str, run: str = "", plot: Path | None = None) -> Report:
    """Solve rate, p^N baseline and interference share by run and level, from the stored grades."""
    grades = store.run(store.q("grades"), {"domain": domain, "run": run})
    if not grades:
        which = f"run {run!r} of domain {domain!r}" if run else f"domain {domain!r}"
        raise UsageError(f"no grades of {which} in {store.location}: grade a run first (cw grade, inspect eval)")
    atoms = _atoms(store, sorted({g["task"] for g in grades}))
    report = Report(domain, run, analyse(grades, atoms))
    if plot is not None:
        report.plot = draw(report, plot)
    return report


def _atoms(store: GraphStore, tasks: list[str]) -> dict[str, tuple[str, ...]]:
    linked: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for start in range(0, len(tasks), BATCH):
        for r in store.run(store.q("select_task_atoms"), {"ids": tasks[start:start + BATCH]}):
            linked[r["task"]].append((r["position"], r["atom"]))
    return {t: tuple(a for _, a in sorted(pairs)) for t, pairs in linked.items()}


def analyse(grades: list[dict[str, Any]], atoms: dict[str, tuple[str, ...]]) -> list[LevelRow]:
    """The report's rows from grade rows {run, model, task, level, status} and each task's atoms."""
    by_run: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for g in grades:
        by_run[g["run"]].append(g)
    rows: list[LevelRow] = []
    for run, mine in sorted(by_run.items()):
        model = ", ".join(sorted({g["model"] or "" for g in mine}))
        # an atom's isolated verdicts in this run: its N = 1 tasks that have one
        alone: dict[str, list[bool]] = defaultdict(list)
        for g in mine:
            if g["level"] == 1 and g["status"] != "error":
                for atom in atoms.get(g["task"], ()):
                    alone[atom].append(g["status"] == "passed")
        p = _rate(mine, 1)
        for level in sorted({g["level"] for g in mine}):
            at = [g for g in mine if g["level"] == level]
            passed = sum(g["status"] == "passed" for g in at)
            failed = sum(g["status"] == "failed" for g in at)
            covered: int | None = None
            interference: int | None = None
            if level >= 2:
                failures = [atoms.get(g["task"], ()) for g in at if g["status"] == "failed"]
                full = [group for group in failures if group and all(alone.get(a) for a in group)]
                covered = len(full)
                interference = sum(all(all(alone[a]) for a in group) for group in full)
            rows.append(LevelRow(
                run, model, level, len(at), passed, failed, len(at) - passed - failed,
                _round(passed / (passed + failed)) if passed + failed else None,
                _round(p ** level) if p is not None else None, covered, interference,
                _round(interference / covered) if covered and interference is not None else None,
                scaffold(run)))
    return rows


# -- per-attempt success (App. C) ---------------------------------------------------------------------
@dataclass(frozen=True)
class AttemptRow:
    model: str  # the model (or checkpoint) the attempts are of, over every run graded with it
    level: int
    tasks: int  # tasks with at least one verdict
    attempts: int  # grades, errors included
    passed: int
    failed: int
    errors: int  # no verdict: left out of the rates, as in the solve rate
    per_attempt: float | None  # passed / (passed + failed): App. C's per-attempt success
    k: int  # pass@k's k: the fewest verdicts any of these tasks has (unless asked for)
    pass_at_k: float | None  # mean over tasks with n >= k verdicts of 1 - C(n - c, k) / C(n, k)
    scaffold: str = ""  # the agent scaffold of these attempts (AGENT_RUNS): a model's agent runs are kept apart


def per_attempt_report(store: GraphStore, domain: str, run: str = "", k: int = 0) -> list[AttemptRow]:
    """Per-attempt success by model and level over every stored grade (each grade is one attempt: an eval's
    epoch, or a `cw grade` run), with the unbiased pass@k (Chen et al., 2021) of each task's attempts.
    `run`: one run, or one inspect eval with all its epochs (their runs are `<eval id>.k`)."""
    if k < 0:
        raise UsageError("k must be 1 or more (0: the fewest attempts any task has)")
    grades = store.run(store.q("attempts"), {"domain": domain, "run": run})
    if not grades:
        which = f"run or eval {run!r} of domain {domain!r}" if run else f"domain {domain!r}"
        raise UsageError(f"no grades of {which} in {store.location}: grade a run first (cw grade, inspect eval)")
    return per_attempt(grades, k)


def per_attempt(grades: list[dict[str, Any]], k: int = 0) -> list[AttemptRow]:
    """The per-attempt rows from grade rows {model, task, level, status}."""
    groups: dict[tuple[str, str, int], list[dict[str, Any]]] = defaultdict(list)
    for g in grades:
        groups[(g["model"] or "", scaffold(g.get("run") or ""), g["level"])].append(g)
    rows = []
    for (model, made_by, level), at in sorted(groups.items()):
        tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # task -> [verdicts, passed]
        for g in at:
            if g["status"] != "error":
                tally[g["task"]][0] += 1
                tally[g["task"]][1] += g["status"] == "passed"
        passed = sum(g["status"] == "passed" for g in at)
        failed = sum(g["status"] == "failed" for g in at)
        size = k or min((n for n, _ in tally.values()), default=0)
        counted = [(n, c) for n, c in tally.values() if n >= size] if size else []
        rows.append(AttemptRow(
            model, level, len(tally), len(at), passed, failed, len(at) - passed - failed,
            _round(passed / (passed + failed)) if passed + failed else None, size,
            _round(sum(pass_at_k(n, c, size) for n, c in counted) / len(counted)) if counted else None, made_by))
    return rows


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased estimator of pass@k from n attempts of which c passed: 1 - C(n - c, k) / C(n, k)."""
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def scaffold(run: str) -> str:
    """The agent scaffold a run's name says made it (AGENT_RUNS), "" for any other run."""
    return next((name for prefix, name in AGENT_RUNS.items() if run.startswith(prefix)), "")


def _rate(grades: list[dict[str, Any]], level: int) -> float | None:
    verdicts = [g["status"] == "passed" for g in grades if g["level"] == level and g["status"] != "error"]
    return sum(verdicts) / len(verdicts) if verdicts else None


def _round(x: float) -> float:
    return round(x, 4)


def draw(report: Report, path: Path) -> str:
    """Solve rate against N per run (solid) beside its p^N baseline (dashed), as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path.parent.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(6, 4))
    runs = sorted({r.run for r in report.rows})
    for k, run in enumerate(runs):
        rows = [r for r in report.rows if r.run == run]
        color = f"C{k % 10}"
        solved = [(r.level, 100 * r.solve_rate) for r in rows if r.solve_rate is not None]
        baseline = [(r.level, 100 * r.baseline) for r in rows if r.baseline is not None]
        if solved:
            ax.plot(*zip(*solved), marker="o", color=color, label=f"{run} ({rows[0].model})")
        if baseline:
            ax.plot(*zip(*baseline), linestyle="--", color=color, label=f"{run}: p^N")
    ax.set(title=f"{report.domain}: solve rate by level (dashed: the baseline p^N)",
           xlabel="level N", ylabel="solved (%)", ylim=(-5, 105))
    ax.set_xticks(sorted({r.level for r in report.rows}))
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return str(path)
