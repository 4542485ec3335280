"""One-call inspect_ai tasks for codewalk's domains: `inspect eval codewalk/<domain> --model <provider/model>`.

An optional extra (`pip install 'codewalk[inspect]'`); inspect_ai finds these tasks through the
`inspect_ai` entry point, so `codewalk/demo`, `codewalk/repair`, `codewalk/clones`, `codewalk/complexity`
and `codewalk/proofs` resolve once codewalk is installed. Each task takes, as `-T KEY=VALUE`:

- `store`: where the admitted tasks are read and the grades written (default: the store `cw` uses,
  $CODEWALK_STORE or ~/.codewalk/graph.lbug); `export`: read the tasks from a file `cw tasks export`
  wrote instead (grades are then recorded only if `store` is given too, and holds those tasks);
- `release`: read the tasks from a release folder `cw release` wrote (`split`: only that split, default
  every split; grades are recorded only if `store` is given too, and holds those tasks);
- `level`: only tasks of that level N (default 0: every level); `levels`: several, as `levels=1,2`;
- `require_isolation`: refuse to grade where candidates cannot be isolated (default: on everywhere, as
  `cw grade`); `workers`: verifier runs at a time (default: one per core).

The scorer is `cw grade`'s: the domain's V_G on the model's answer (one Markdown fence around the whole
answer is removed first, and the text graded is what is stored); a verifier that gives no verdict scores 0
with status "error" in its metadata (as `cw grade` counts it: not solved, shown apart); each grade
is stored as `(:Grade)-[:OF]->(:Task)` with run = the eval's id (epoch k > 1: `<eval id>.k`), and the eval id
and epoch apart (`--epochs K`: K grades per task, which `cw train export` finds by them). Metrics: accuracy overall, by level, and for clones by class
and by level and class (the paper's Table 4).
"""

from __future__ import annotations

import json
import logging
import os
import re
import uuid
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.scorer import Metric, Score, Scorer, Target, accuracy, grouped, scorer
from inspect_ai.solver import TaskState, generate
from inspect_ai.util import concurrency

from codewalk.domain import get_domain
from codewalk.errors import UsageError
from codewalk.export import read_export
from codewalk.grading import Graded, check_isolation, grade_id, grade_row, verdict
from codewalk.records import Composite
from codewalk.records import Task as CodewalkTask
from codewalk.release import release_tasks
from codewalk.store import open_store

log = logging.getLogger(__name__)

CORES = os.cpu_count() or 1
# What each domain's model must return, after the task's own text (which already says what to do).
TEMPLATES = {
    "demo": "{prompt}\n\nAnswer with the whole corrected module: Python source only, no explanation.",
    "repair": "{prompt}\n\nAnswer with one unified diff (as `git diff` prints it) against that commit that "
              "fixes the library source: the diff only, no explanation.",
    "clones": "{prompt}",  # asks for exactly one line VERDICT: 1 or VERDICT: 0
    "complexity": "{prompt}",  # asks for the label alone
    "proofs": "{prompt}\n\nAnswer with the whole annotated program: the text above with your annotations "
              "added, nothing else.",
}
FENCE = re.compile(r"\A\s*```[^\n`]*\n(.*\n)```\s*\Z", re.DOTALL)


def _task_name(short: str) -> str:
    """The name `inspect eval codewalk/<short>` looks up. inspect_ai puts the package's name in front only
    where it sees codewalk installed, which a codewalk.egg-info folder on sys.path hides (a checkout's root
    after `pip install -e .`: pytest, a notebook started there); there the whole name is given."""
    from inspect_ai._util.package import get_installed_package_name  # what inspect_ai itself decides by

    return short if get_installed_package_name(_task_name) == "codewalk" else f"codewalk/{short}"


@task(name=_task_name("demo"))
def demo(store: str | None = None, export: str | None = None, level: int = 0, release: str | None = None,
         split: str | None = None, levels: str | int | None = None,
         require_isolation: bool | None = None, workers: int = CORES) -> Task:
    """Repair chains of tiny typed Python functions (the demo domain): answer, the fixed module."""
    return codewalk_task("demo", store, export, level, require_isolation, workers, release, split, levels)


@task(name=_task_name("repair"))
def repair(store: str | None = None, export: str | None = None, level: int = 0, release: str | None = None,
           split: str | None = None, levels: str | int | None = None,
           require_isolation: bool | None = None, workers: int = CORES) -> Task:
    """Fix several bugs of one repository at once (SWE-bench style): answer, a unified diff."""
    return codewalk_task("repair", store, export, level, require_isolation, workers, release, split, levels)


@task(name=_task_name("clones"))
def clones(store: str | None = None, export: str | None = None, level: int = 0, release: str | None = None,
           split: str | None = None, levels: str | int | None = None,
           require_isolation: bool | None = None, workers: int = CORES) -> Task:
    """Are two chained Java snippets equivalent: answer, VERDICT: 1 or VERDICT: 0."""
    return codewalk_task("clones", store, export, level, require_isolation, workers, release, split, levels)


@task(name=_task_name("complexity"))
def complexity(store: str | None = None, export: str | None = None, level: int = 0, release: str | None = None,
               split: str | None = None, levels: str | int | None = None,
               require_isolation: bool | None = None, workers: int = CORES) -> Task:
    """The time complexity of a chained program: answer, one of the seven labels."""
    return codewalk_task("complexity", store, export, level, require_isolation, workers, release, split, levels)


@task(name=_task_name("proofs"))
def proofs(store: str | None = None, export: str | None = None, level: int = 0, release: str | None = None,
           split: str | None = None, levels: str | int | None = None,
           require_isolation: bool | None = None, workers: int = CORES) -> Task:
    """Complete the proof annotations of a chained program (ACSL or Verus): answer, the annotated program."""
    return codewalk_task("proofs", store, export, level, require_isolation, workers, release, split, levels)


def codewalk_task(domain: str, store: str | None, export: str | None, level: int,
                  require_isolation: bool | None, workers: int, release: str | None = None,
                  split: str | None = None, levels: str | int | None = None) -> Task:
    """The admitted tasks of `domain` (at `level`, 0 = all) as samples, graded by the domain's V_G."""
    if level < 0:
        raise UsageError("level must be 1 or more (0 = all levels)")
    if workers < 1:
        raise UsageError("workers must be at least 1")
    require = True if require_isolation is None else require_isolation  # as cw grade
    warning = check_isolation(require, allow="-T require_isolation=false")
    if warning:
        log.warning(warning)
    tasks = _tasks(domain, store, export, level, release, split, levels)
    record = (export is None and release is None) or store is not None
    samples = [_sample(domain, t) for t in tasks]
    offline_mock()
    return Task(dataset=samples, solver=generate(), scorer=verifier(domain, tasks, store, record, workers),
                metrics=_metrics(domain))


def offline_mock() -> None:
    """`inspect eval codewalk/... --model mockllm/model` offline: inspect's mock model counts the tokens of an
    answer that states no usage with tiktoken's o200k_base encoding, which tiktoken downloads on first use,
    so offline the eval died on the download and still exited 0. Its answers are given a usage here (as
    `python -m codewalk.evals.smoke` gives its own); any other model is left alone."""
    from inspect_ai.model import ModelUsage, get_model
    from inspect_ai.model._providers.mockllm import MockLLM  # the mock's outputs: no public accessor in 0.3

    try:
        api = get_model().api  # the eval's model, active while its tasks are made
    except Exception:  # no model yet (a task made outside an eval): nothing to do
        return
    if not isinstance(api, MockLLM) or callable(api.outputs):  # a function's outputs are its own business
        return
    outputs = api.outputs

    def with_usage():
        for output in outputs:
            if output.usage is None:
                output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
            yield output

    api.outputs = with_usage()


def _tasks(domain: str, store: str | None, export: str | None, level: int, release: str | None = None,
           split: str | None = None, levels: str | int | list | None = None) -> list[CodewalkTask]:
    """The tasks to evaluate, for every task here and the repair agent: a release folder (`release`, one
    `split` of it, some `levels`), a file `cw tasks export` wrote (`export`), else the store's admitted tasks."""
    get_domain(domain)  # an unknown or uninstalled domain says so before anything is read
    wanted = _levels(level, levels)
    if release is not None and export is not None:
        raise UsageError("give release or export, not both")
    if split is not None and release is None:
        raise UsageError("split is a split of a release: give release=DIR too")
    source = release or export
    if release is not None:
        tasks = release_tasks(Path(release), domain, split, wanted)
    elif export is not None:
        tasks = [t for t in read_export(Path(export), domain) if not wanted or t.level in wanted]
    else:
        with open_store(store) as graph:
            tasks = [CodewalkTask.from_row(row) for row in graph.select_tasks(domain, "admitted", level)
                     if not wanted or row["level"] in wanted]
    if source is not None and store is not None:  # the grades will be recorded there: the tasks must be its own
        with open_store(store) as graph:
            stored = {r["id"]: r["status"] for r in graph.select_tasks(domain, ids=[t.id for t in tasks])}
        absent = [t.id for t in tasks if stored.get(t.id) != "admitted"]
        if absent:
            raise UsageError(f"{len(absent)} task(s) of {source} are not admitted tasks of the store "
                             f"{graph.location} (first: {absent[0]}); leave out store to grade "
                             "without recording")
    if not tasks:
        which = f"level {', '.join(map(str, sorted(wanted)))}" if wanted else "any level"
        raise UsageError(f"nothing to evaluate: no admitted tasks of domain {domain!r} at {which} in "
                         f"{source or store or 'the default store'}")
    return tasks


def _levels(level: int, levels: str | int | list | tuple | None) -> tuple[int, ...]:
    """`level=N` and `levels=1,2` (inspect gives "1,2" as text, 2 as a number, [1, 2] as a list) as one set."""
    if levels is None or levels == "":
        return (level,) if level else ()
    items = levels if isinstance(levels, list | tuple) else str(levels).split(",")
    try:
        found = tuple(sorted({int(str(x).strip()) for x in items}))
    except ValueError:
        raise UsageError(f"levels: whole numbers separated by commas, e.g. levels=1,2 (got {levels!r})") from None
    if any(n < 1 for n in found) or (level and found != (level,)):
        raise UsageError(f"levels: levels of 1 or more, agreeing with level when both are given (got {levels!r})")
    return found


def _sample(domain: str, t: CodewalkTask) -> Sample:
    metadata: dict[str, Any] = {"level": t.level, "atoms": list(t.atoms)}
    if domain == "clones":  # the class the verdict is scored against (eq / neq), for the by-class metrics
        metadata["class"] = t.verifier["label"]
        metadata["level_class"] = f"{t.level}_{t.verifier['label']}"
    return Sample(id=t.id, input=TEMPLATES[domain].format(prompt=t.prompt), target=t.reference,
                  metadata=metadata)


def _metrics(domain: str) -> list[Metric | dict[str, list[Metric]]]:
    """Accuracy overall, by level and, for clones, by class and by level and class. A task whose verifier
    gave no verdict is unscored, so these are `cw grade`'s solve rates."""
    metrics: list[Metric | dict[str, list[Metric]]] = [
        accuracy(), grouped(accuracy(), "level", all=False, name_template="level_{group_name}")]
    if domain == "clones":
        metrics += [grouped(accuracy(), "class", all=False, name_template="{group_name}"),
                    grouped(accuracy(), "level_class", all=False, name_template="level_{group_name}")]
    return metrics


@scorer(metrics=[accuracy()])
def verifier(domain: str, tasks: list[CodewalkTask], store: str | None, record: bool, workers: int) -> Scorer:
    """V_G, the verifier `cw grade` runs, on the model's answer; the grade is stored as `cw grade` stores it."""
    by_id = {t.id: t for t in tasks}
    attempts = Attempts(store, record)

    async def score(state: TaskState, target: Target) -> Score:
        t = by_id[str(state.sample_id)]
        output = answer(state.output.completion)
        async with concurrency(f"codewalk-{domain}-verifier", workers):
            graded = await anyio.to_thread.run_sync(_verdict, domain, t, output)
        metadata = await attempts.grade(state, t, output, graded)
        status, detail, _ = graded
        return Score(value=1.0 if status == "passed" else 0.0, answer=output, explanation=detail,
                     metadata=metadata)

    return score


class Attempts:
    """An eval's graded attempts: each named by its run (the eval's id, `.k` for epoch k > 1, after `prefix`)
    and, when `record`, stored as `cw grade` stores a grade, with its eval and epoch."""

    def __init__(self, store: str | None, record: bool, prefix: str = ""):
        self.grades, self.record, self.prefix = _GradeWriter(store), record, prefix
        self.fallback = f"inspect-{uuid.uuid4().hex[:12]}"  # only if inspect_ai stops telling the eval's id

    async def grade(self, state: TaskState, t: CodewalkTask, output: str, graded: Graded) -> dict[str, Any]:
        """Store the attempt's grade; the score metadata every codewalk scorer gives."""
        eval_id = _eval_id() or self.fallback
        run = self.prefix + (eval_id if state.epoch == 1 else f"{eval_id}.{state.epoch}")
        if self.record:
            await self.grades.write(grade_row(run, str(state.model), t, output, graded,
                                              eval=eval_id, epoch=state.epoch))
        status, _, evidence = graded
        return {"status": status, "evidence": json.loads(json.dumps(evidence, default=str)), "run": run,
                "eval": eval_id, "epoch": state.epoch, "grade": grade_id(run, t.id) if self.record else None}


class _GradeWriter:
    """Grades into the store, the store opened only while writing (so `cw` can use it between writes).
    Writes are group commits: whoever takes the lock writes every grade waiting by then, so a busy eval
    opens the store once per batch, not once per sample, and each score returns once its grade is stored."""

    def __init__(self, store: str | None):
        self.store = store
        self.pending: list[dict[str, Any]] = []
        self.lock = anyio.Lock()

    async def write(self, row: dict[str, Any]) -> None:
        self.pending.append(row)
        async with self.lock:
            if not self.pending:  # a batch written while this one waited held the row
                return
            batch, self.pending = self.pending, []
            try:
                await anyio.to_thread.run_sync(self._write, batch)
            except BaseException:
                self.pending[:0] = batch  # the next writer tries these again
                raise

    def _write(self, batch: list[dict[str, Any]]) -> None:
        with open_store(self.store) as graph:
            graph.write_grades(batch)


def _verdict(domain: str, t: CodewalkTask, output: str) -> tuple[str, str, dict[str, Any]]:
    # a domain instance per grade, as a `cw grade` worker makes: it keeps no state between verdicts
    return verdict(get_domain(domain), Composite(t.prompt, t.reference, t.verifier), output)


def answer(completion: str) -> str:
    """The completion without one Markdown fence around all of it (models wrap code in one)."""
    fenced = FENCE.match(completion)
    if fenced and not re.search(r"^```", fenced[1], re.MULTILINE):
        return fenced[1]
    return completion


def _eval_id() -> str:
    """The running eval's id. inspect_ai 0.3 has no public accessor; its active sample carries it."""
    try:
        from inspect_ai.log._samples import sample_active
    except ImportError:
        return ""
    active = sample_active()
    return active.eval_id if active else ""
