"""`cw train export`: graded agent runs turned into fine-tuning data, as the paper made it (Sec. 5, App. C).

The agent attempts each task K times (`inspect eval codewalk/repair_agent --epochs K`); each attempt's grade is
stored by V_G as `(:Grade {eval, epoch})-[:OF]->(:Task)`. The export reads the inspect logs, looks every attempt's
grade up in the store by task, eval and epoch (never the model's own claim, nor the log's score: a log can be
edited, the store is what V_G wrote), and keeps the passing attempts: at most one per task across every log given
("at most one successful trajectory per task is retained from the accumulated rollouts"), chosen with a seeded
generator. `levels` keeps only the tasks of those levels, so the curriculum's cumulative pools (L1, L1+L2,
L1+L2+L3) are three exports of the same logs.

With a release's `splits.json` (codewalk.splits), a passing attempt of a task outside the train split, or of a task
one of whose units (repository for repair, source program elsewhere) is in another split, refuses the whole export
(InputError naming it): nothing is written.

Written to OUT: `trajectories.jsonl`, one row per kept attempt, `{"messages": [...], "tools": [...]}` in the OpenAI
chat format that common fine-tuning tools read (assistant `tool_calls`, `tool` role replies); `manifest.json`, the
row-by-row provenance (task, domain, level, split, eval, epoch, grade, model, log) and how the rows were chosen.
In the graph, each row is `(:Trajectory {export, row, eval, epoch, grade, ...})-[:OF]->(:Task)`, so the rows that
came from one atom are one query (cypher/explore/training_rows, `cw query --name training_rows`).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .errors import InputError, UsageError
from .records import now
from .splits import Splits, unit_of
from .store import BATCH, GraphStore

TRAIN = "train"
ROWS = "trajectories.jsonl"
MANIFEST = "manifest.json"


@dataclass(frozen=True)
class Attempt:
    """One sample of one epoch in an inspect log: an agent's attempt at a task."""

    log: str
    eval: str
    epoch: int
    task: str
    model: str
    messages: list[dict[str, Any]]  # OpenAI chat format
    tools: list[dict[str, Any]]  # OpenAI function definitions the agent was offered


@dataclass
class Export:
    out: str
    seed: int
    levels: list[int]
    release: str
    logs: list[str]
    attempts: int  # samples read from the logs
    ungraded: int  # attempts with no stored grade (not kept)
    passed: int  # attempts whose stored grade passed, at the levels asked for
    rows: list[dict[str, Any]] = field(default_factory=list)  # the manifest's rows, one per kept attempt

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def export_trajectories(store: GraphStore, logs: list[Path], out: Path, *, release: Path | None = None,
                        seed: int = 0, levels: list[int] | None = None) -> Export:
    """Keep at most one passing attempt per task (by the stored grade), refuse any that leaks out of the
    release's train split, and write the rows, the manifest and their provenance in the graph."""
    if not logs:
        raise UsageError("give at least one inspect log (.eval or .json) to export from")
    if levels is not None and any(n < 1 for n in levels):
        raise UsageError(f"levels must be 1 or more, got {levels}")
    splits = Splits.read(release / "splits.json") if release is not None else None
    attempts = read_attempts(logs)
    grades = {(g["eval"], g["epoch"], g["task"]): g
              for g in store.attempt_grades(sorted({a.eval for a in attempts}))}
    if not grades:  # every attempt ungraded: the logs were graded into another store (or not recorded)
        raise UsageError(f"no stored grade for any attempt of these logs in {store.location}: export from the "
                         "store the evals wrote their grades to (--store, as -T store= was)")
    passing: dict[str, list[tuple[Attempt, dict[str, Any]]]] = defaultdict(list)
    ungraded = 0
    for a in attempts:
        grade = grades.get((a.eval, a.epoch, a.task))
        if grade is None:
            ungraded += 1
        elif grade["status"] == "passed" and (not levels or grade["level"] in levels):
            passing[a.task].append((a, grade))
    split_of = _check_splits(store, splits, release, passing) if splits is not None else {}
    rng = random.Random(seed)
    chosen = []
    for task in sorted(passing):
        candidates = sorted(passing[task], key=lambda c: (c[0].eval, c[0].epoch, c[0].log))
        chosen.append((rng.choice(candidates), len(candidates)))
    report = Export(str(out), seed, sorted(levels or []), str(release or ""), [str(p) for p in logs],
                    len(attempts), ungraded, sum(len(c) for c in passing.values()))
    export_id = str(out.resolve())
    stamp = now()
    lines = []
    provenance = []
    for row, ((a, grade), among) in enumerate(chosen):
        report.rows.append({"row": row, "task": a.task, "domain": grade["domain"], "level": grade["level"],
                            "split": split_of.get(a.task, ""), "eval": a.eval, "epoch": a.epoch,
                            "grade": grade["grade"], "status": grade["status"], "model": grade["model"] or a.model,
                            "log": a.log, "candidates": among})
        lines.append(json.dumps({"messages": a.messages, "tools": a.tools}, ensure_ascii=False))
        provenance.append({"id": _trajectory_id(export_id, a), "task": a.task, "props": {
            "task": a.task, "eval": a.eval, "epoch": a.epoch, "grade": grade["grade"], "status": grade["status"],
            "model": grade["model"] or a.model, "level": grade["level"], "split": split_of.get(a.task, ""),
            "export": export_id, "row": row, "seed": seed, "exported_at": stamp}})
    manifest = {"seed": seed, "levels": report.levels, "release": report.release, "logs": report.logs,
                "attempts": report.attempts, "ungraded": report.ungraded, "passed": report.passed,
                "rule": "at most one attempt per task whose stored V_G grade passed; chosen by "
                        "random.Random(seed).choice over its passing attempts sorted by (eval, epoch, log), "
                        "tasks in sorted order",
                "rows": report.rows}
    _write(out, store, export_id, lines, manifest, provenance)
    return report


def _write(out: Path, store: GraphStore, export: str, lines: list[str], manifest: dict[str, Any],
           provenance: list[dict[str, Any]]) -> None:
    """The files beside each other under temporary names, the graph's rows in one transaction (replacing
    what an earlier export to the same folder recorded), then the files renamed into place: a failed store
    write leaves no export behind."""
    out.mkdir(parents=True, exist_ok=True)
    staged = {out / ROWS: "".join(line + "\n" for line in lines),
              out / MANIFEST: json.dumps(manifest, indent=1, ensure_ascii=False) + "\n"}
    temps = {}
    try:
        for path, text in staged.items():
            temps[path] = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            temps[path].write_text(text, encoding="utf-8")
        store.write_trajectories(export, provenance)
        for path, temp in temps.items():
            temp.replace(path)
    finally:
        for temp in temps.values():
            temp.unlink(missing_ok=True)


def _trajectory_id(export: str, a: Attempt) -> str:
    return "j" + hashlib.sha256(f"{export}\x1f{a.eval}\x1f{a.epoch}\x1f{a.task}".encode()).hexdigest()[:20]


def _check_splits(store: GraphStore, splits: Splits, release: Path | None,
                  passing: dict[str, list[tuple[Attempt, dict[str, Any]]]]) -> dict[str, str]:
    """Each passing task's split; an InputError for the first task held out, by itself or by one of its units."""
    units = task_units(store, sorted(passing), splits.unit)
    where = str((release or Path(".")) / "splits.json")
    found = {}
    for task in sorted(passing):
        a = passing[task][0][0]
        split = splits.split_of(task)
        if split is not None and split != TRAIN:
            raise InputError(a.log, None, f"a passing trajectory of task {task} (eval {a.eval}, epoch {a.epoch}) "
                                          f"is in the {split} split of {where}: held-out tasks never go into "
                                          "training data; nothing was written")
        for unit in sorted(units.get(task, ())):
            other = splits.split_of_unit(unit)
            if other is not None and other != TRAIN:
                raise InputError(a.log, None, f"a passing trajectory of task {task} (eval {a.eval}, epoch "
                                              f"{a.epoch}) shares its {splits.unit} {unit} with the {other} split "
                                              f"of {where}: it would leak into training data; nothing was written")
        found[task] = split or ""
    return found


def task_units(store: GraphStore, tasks: list[str], unit: str = "repository") -> dict[str, set[str]]:
    """Each task's units: its atoms' repository (unit "repository", repair) or source program (elsewhere),
    an atom's own id where it names neither."""
    linked: dict[str, set[str]] = defaultdict(set)
    for start in range(0, len(tasks), BATCH):
        for r in store.run(store.q("select_task_atoms"), {"ids": tasks[start:start + BATCH]}):
            linked[r["task"]].add(r["atom"])
    atom_ids = sorted({a for ids in linked.values() for a in ids})
    atoms = {a.id: a for a in store.get_atoms(atom_ids)} if atom_ids else {}
    return {t: {unit_of(atoms[a], unit) for a in ids} for t, ids in linked.items()}


# -- inspect logs ---------------------------------------------------------------------------------
def read_attempts(logs: list[Path]) -> list[Attempt]:
    """Every sample of every log, once per (eval, epoch, task) even when a log is given twice."""
    from inspect_ai.log import read_eval_log

    seen: set[tuple[str, int, str]] = set()
    out = []
    for path in logs:
        try:
            log = read_eval_log(str(path), resolve_attachments=True)
        except Exception as e:  # inspect_ai raises what its readers raise: a file that is not a log
            raise InputError(str(path), None, f"not an inspect log ({type(e).__name__}: {e})") from e
        if not log.samples:
            raise InputError(str(path), None, "the log holds no samples (an eval that did not run, or a header)")
        for s in log.samples:
            key = (log.eval.eval_id, s.epoch, str(s.id))
            if key in seen:
                continue
            seen.add(key)
            out.append(Attempt(str(path), log.eval.eval_id, s.epoch, str(s.id), log.eval.model,
                               chat_messages(s.messages), _tools(s.events)))
    return out


def chat_messages(messages: list[Any]) -> list[dict[str, Any]]:
    """inspect's messages in the OpenAI chat format; what follows the last assistant turn (the reply to the
    submission) is left out, as it teaches nothing."""
    out: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "assistant":
            row: dict[str, Any] = {"role": "assistant", "content": m.text or None}
            if m.tool_calls:
                row["tool_calls"] = [{"id": c.id, "type": "function", "function": {
                    "name": c.function, "arguments": json.dumps(c.arguments, ensure_ascii=False)}}
                    for c in m.tool_calls]
            out.append(row)
        elif m.role == "tool":
            text = m.text if not m.error else (m.text or f"Error: {m.error.message}")
            out.append({"role": "tool", "tool_call_id": m.tool_call_id, "content": text})
        else:
            out.append({"role": m.role, "content": m.text})
    last = max((i for i, r in enumerate(out) if r["role"] == "assistant"), default=len(out) - 1)
    return out[:last + 1]


def _tools(events: list[Any]) -> list[dict[str, Any]]:
    """The tools offered at the attempt's first model call, as OpenAI function definitions."""
    for e in events:
        if getattr(e, "event", "") == "model" and e.tools:
            return [{"type": "function", "function": {
                "name": t.name, "description": t.description,
                "parameters": t.parameters.model_dump(exclude_none=True)}} for t in e.tools]
    return []
