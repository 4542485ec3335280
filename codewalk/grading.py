"""`cw grade`: a model's outputs graded by the very verifier V_G that admitted the tasks.

Predictions are JSONL, one object per line: the task id as `task_id` (or SWE-bench's `instance_id`),
the model's output as `output` (or `model_patch`), and optionally the model's name as `model` (or
`model_name_or_path`). Every line is checked before anything is graded; a malformed line, an unknown
task or a task that was not admitted is an InputError naming the line.

The composite is rebuilt from the stored task (prompt, reference, verifier) and the domain's
`grade(composite, output)` decides. A verifier that gives no verdict (InfraError) is recorded as an
error, apart from failures, but the solve rate counts every graded prediction: an error is not solved
(otherwise a candidate that makes its own run give no verdict would launder its failure; a domain
decides first whether the reference errs the same way, as repair does). The errors are shown beside. Grades go to the graph as
`(:Grade {id, run, model, task, level, status, detail, evidence, output, graded_at})-[:OF]->(:Task)`,
one per run and task: grading a run again replaces its grades. `cw grade` and the inspect_ai scorer
(codewalk.evals) share the verdict (`verdict`), the stored row (`grade_row`) and the isolation refusal
(`check_isolation`).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import partial
from itertools import repeat
from pathlib import Path
from typing import Any

import pandas as pd

from . import jsonl
from .domain import Settings, domain_class, get_domain
from .errors import InfraError, InputError, UsageError
from .records import Composite, Task, now
from .runtime import Runtime, ready, sandbox
from .staging import StagedPool
from .store import GraphStore

FLUSH_EVERY = 25  # grades per write


@dataclass(frozen=True)
class Prediction:
    line: int
    task: str
    output: str
    model: str


@dataclass
class GradeReport:
    domain: str
    run: str
    graded: int
    passed: int
    errors: int
    rates: list[dict[str, Any]]  # every run by level: {run, model, level, tasks, ..., solve_rate}
    seconds: float
    plots: list[str] = field(default_factory=list)
    # this run's accuracy by level and class, for domains whose verdict names the class (clones: eq / neq,
    # the paper's Table 4): {level, class, graded, passed, accuracy}; errors left out (no verdict names a class)
    by_class: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def read_predictions(path: Path) -> list[Prediction]:
    out: list[Prediction] = []
    first: dict[str, int] = {}
    for number, row in jsonl.objects(path):
        prediction = _prediction(row, number, partial(InputError, str(path), number))
        if prediction.task in first:
            raise InputError(str(path), number,
                             f"task {prediction.task!r} again (first on line {first[prediction.task]})")
        first[prediction.task] = number
        out.append(prediction)
    if not out:
        raise InputError(str(path), None, "no predictions in the file")
    return out


def _prediction(row: dict, number: int, bad: Callable[[str], InputError]) -> Prediction:
    task = _field(row, ("task_id", "instance_id"), bad)
    if not isinstance(task, str) or not task:
        raise bad("needs a task id: `task_id` (or `instance_id`) as a non-empty string")
    output = _field(row, ("output", "model_patch"), bad)
    if output is ... or not isinstance(output, str | None):
        raise bad("needs the model's output: `output` (or `model_patch`) as a string")
    model = _field(row, ("model", "model_name_or_path"), bad)
    if model is not ... and not isinstance(model, str | None):
        raise bad("`model` must be a string")
    return Prediction(number, task, output or "", model if isinstance(model, str) else "")


def _field(row: dict, names: tuple[str, str], bad: Callable[[str], InputError]) -> Any:
    """The value under either name (... when neither is there); both with different values is an error."""
    present = [row[n] for n in names if n in row]
    if len(present) == 2 and present[0] != present[1]:
        raise bad(f"`{names[0]}` and `{names[1]}` disagree")
    return present[0] if present else ...


def grade_predictions(
    store: GraphStore,
    domain: str,
    predictions: Path,
    *,
    run: str | None = None,
    workers: int = 1,
    plots: Path | None = None,
    on_grade: Callable[[int, int], None] | None = None,
    runtime: Runtime | str | None = None,
    pull: bool = True,
) -> GradeReport:
    """Grade every prediction, store the grades, and report solve rates by level for every run graded
    in this domain so far (so a second model appears beside the first)."""
    if workers < 1:
        raise UsageError("--workers must be at least 1")
    kind = domain_class(domain)
    where = ready(runtime, kind.name, kind.runtimes, pull=pull)  # codewalk.runtime: where V_G runs
    settings = Settings(runtime=where)
    plugin = get_domain(domain, settings)
    run = run or predictions.stem
    preds = read_predictions(predictions)
    tasks = _admitted_tasks(store, domain, predictions, preds)
    jobs = [(Composite(tasks[p.task].prompt, tasks[p.task].reference, tasks[p.task].verifier), p.output)
            for p in preds]
    started = time.monotonic()
    pool = StagedPool(workers) if workers > 1 else None
    verdicts = (pool.map(grade_in_worker, repeat(domain), repeat(settings), *zip(*jobs)) if pool
                else map(verdict, repeat(plugin), *zip(*jobs)))
    pending: list[dict[str, Any]] = []
    counts = {"passed": 0, "failed": 0, "error": 0}
    classes: dict[tuple[int, str], list[int]] = {}
    try:
        for done, (p, (status, detail, evidence)) in enumerate(zip(preds, verdicts), 1):
            counts[status] += 1
            if status != "error" and isinstance(evidence.get("class"), str):
                tally = classes.setdefault((tasks[p.task].level, evidence["class"]), [0, 0])
                tally[0] += 1
                tally[1] += status == "passed"
            pending.append(grade_row(run, p.model or run, tasks[p.task], p.output, (status, detail, evidence)))
            if len(pending) >= FLUSH_EVERY:
                store.write_grades(pending)
                pending.clear()
            if on_grade:
                on_grade(done, len(preds))
    finally:
        store.write_grades(pending)  # what was graded is kept, even on Ctrl-C
        if pool:
            pool.shutdown(cancel_futures=True)
        where.release()  # docker: what this process started ahead of time, and removals still under way
    report = GradeReport(domain, run, len(preds), counts["passed"], counts["error"],
                         solve_rates(store, domain), time.monotonic() - started)
    report.by_class = [{"level": level, "class": c, "graded": n, "passed": ok, "accuracy": round(ok / n, 3)}
                       for (level, c), (n, ok) in sorted(classes.items())]
    if plots is not None:
        report.plots = [draw(report, plots)]
    return report


def _admitted_tasks(store: GraphStore, domain: str, path: Path, preds: list[Prediction]) -> dict[str, Task]:
    """The stored task of every prediction; an unknown task or one that was not admitted names its line."""
    stored = {r["id"]: r for r in store.select_tasks(domain, ids=[p.task for p in preds])}
    for p in preds:
        row = stored.get(p.task)
        if row is None:
            raise InputError(str(path), p.line, f"no task {p.task!r} of domain {domain!r} in the store")
        if row["status"] != "admitted":
            raise InputError(str(path), p.line, f"task {p.task} was not admitted ({row['status']}: "
                                                f"{row['reason']}); only admitted tasks are graded")
    return {p.task: Task.from_row(stored[p.task]) for p in preds}


def grade_id(run: str, task: str) -> str:
    return "g" + hashlib.sha256(f"{run}\x1f{task}".encode()).hexdigest()[:20]


# what grading one output gives (admission.Verdict is what admitting a group gives):
# status (passed, failed, error), detail, evidence
Graded = tuple[str, str, dict[str, Any]]


def verdict(plugin, composite: Composite, output: str) -> Graded:
    """V_G on one output; a verifier that gives no verdict (InfraError) is status "error", not "failed"."""
    try:
        check = plugin.grade(composite, output)
    except InfraError as e:
        return "error", f"no verdict: {e}", {}
    return ("passed" if check.ok else "failed"), check.detail, check.evidence


def grade_in_worker(domain: str, settings: Settings, composite: Composite, output: str) -> Graded:
    plugin = get_domain(domain, settings)  # the runtime the parent built and checked
    return verdict(plugin, composite, output)


def grade_row(run: str, model: str, task: Task, output: str, graded: Graded, eval: str = "",
              epoch: int = 0) -> dict[str, Any]:
    """One grade as `GraphStore.write_grades` takes it: (:Grade {...})-[:OF]->(:Task), one per run and task.
    `eval`, `epoch`: the inspect eval and the attempt (epoch) graded, for `cw train export` to find it by."""
    status, detail, evidence = graded
    return {"id": grade_id(run, task.id), "task": task.id, "props": {
        "run": run, "model": model, "task": task.id, "level": task.level, "status": status,
        "detail": _storable(detail), "output": _storable(output), "graded_at": now(),
        "evidence": json.dumps(evidence, sort_keys=True, default=str), "eval": eval, "epoch": epoch}}


def _storable(text: str) -> str:
    """Text a store can hold: a lone surrogate (JSON can spell one, UTF-8 cannot) is kept as its escape,
    so one hostile output cannot stop the whole file's grades being stored."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def check_isolation(require: bool, allow: str = "--allow-unisolated") -> str:
    """Refuse to grade (UsageError) where candidates cannot be isolated and isolation is required;
    otherwise the warning to show, "" where they are isolated. `allow` is the option that grades anyway."""
    if sandbox.isolated():
        return ""
    if require:
        raise UsageError(f"candidates cannot be isolated here ({sandbox.isolation()}); install bubblewrap "
                         f"or pass {allow} to grade anyway")
    sandbox.allow_unisolated()  # the user chose to: runs go ahead unisolated even under CI
    return f"candidates run without isolation here: {sandbox.isolation()}"


def solve_rates(store: GraphStore, domain: str) -> list[dict[str, Any]]:
    """Every run's solve rate by level (passed / graded, errors included), beside the number of admitted
    tasks at that level and the number of errors."""
    columns = ["run", "model", "level", "graded", "passed", "failed", "errors", "solve_rate"]
    rates = pd.DataFrame(store.solve_rates(domain), columns=columns)
    yields = pd.DataFrame(store.yields(domain), columns=["level", "status", "reason", "tasks"])
    admitted = yields[yields["status"] == "admitted"].groupby("level")["tasks"].sum()
    table = rates.merge(admitted, left_on="level", right_index=True, how="left")
    table = table[["run", "model", "level", "tasks", "graded", "passed", "failed", "errors", "solve_rate"]]
    return json.loads(table.round({"solve_rate": 3}).to_json(orient="records"))  # plain ints, NaN as None


def draw(report: GradeReport, directory: Path) -> str:
    """Accuracy against N, one line per run and model (the paper's Table 2 as a picture)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    directory.mkdir(parents=True, exist_ok=True)
    rates = pd.DataFrame(report.rates)
    fig, ax = plt.subplots(figsize=(6, 4))
    for (run, model), rows in rates.groupby(["run", "model"], sort=True):
        rows = rows.dropna(subset=["solve_rate"]).sort_values("level")
        label = run if model == run else f"{run} ({model})"
        ax.plot(rows["level"], 100 * rows["solve_rate"], marker="o", label=label)
    ax.set(title=f"{report.domain}: solve rate by composition level", xlabel="level N", ylabel="solved (%)",
           ylim=(-5, 105))
    ax.set_xticks(sorted(rates["level"].unique()))
    ax.legend()
    fig.tight_layout()
    path = directory / f"{report.domain}-solve-rate.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return str(path)
