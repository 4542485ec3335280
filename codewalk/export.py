"""`cw tasks export`: stored tasks as a benchmark file in the formats evaluators read.

One schema per domain. Every row carries the task id, level, ordered atom ids, prompt, reference, the
verifier spec grading needs (JSON text, so rows of one domain share one column type), and what it takes
to reproduce the task: seed, run id and the run's parameters, generator version, the data source and a
content hash of the atoms it was built from (`data_revision`). A domain may add or replace fields with
`export_row(task) -> dict` (repair: SWE-bench instances); the generic fields stay unless it replaces them.

Formats: `jsonl`; `parquet`; `hf`, a Hugging Face dataset folder (README card with one config per
domain, `<domain>/test.parquet`) that `datasets.load_dataset(PATH, DOMAIN)` reads; `inspect`, inspect_ai
samples (id, input, target, metadata) as JSONL. `read_export` reads any of them back as Tasks (what the
inspect_ai tasks of codewalk.evals evaluate).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from . import card, jsonl
from .domain import get_domain
from .errors import InputError, UsageError
from .records import STATUSES, Reason, Task
from .store import GraphStore

FORMATS = ("jsonl", "parquet", "hf", "inspect")
SPLIT = "test"


@dataclass(frozen=True)
class ExportSummary:
    domain: str
    format: str
    path: str
    tasks: int
    by_level: dict[int, int]

    def as_dict(self) -> dict[str, Any]:
        return {"domain": self.domain, "format": self.format, "path": self.path, "tasks": self.tasks,
                "by_level": self.by_level}


def export_tasks(
    store: GraphStore, domain: str, out: Path, fmt: str = "jsonl", level: int = 0, status: str = "admitted"
) -> ExportSummary:
    """Write the selected tasks to `out`; refuses an empty selection or a task stored incompletely."""
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if status not in STATUSES:
        raise UsageError(f"unknown status {status!r}; choose one of {', '.join(STATUSES)}")
    if level < 0:
        raise UsageError("--level must be 1 or more (0 = all levels)")
    if fmt == "hf" and out.is_file():
        raise UsageError(f"--out {out} is a file; --format hf writes a folder")
    if fmt != "hf" and out.is_dir():
        raise UsageError(f"--out {out} is a folder; --format {fmt} writes a file")
    plugin = get_domain(domain)
    selected = store.select_tasks(domain, status, level)
    if not selected:
        which = f"level {level}" if level else "any level"
        raise UsageError(f"nothing to export: no {status} tasks of domain {domain!r} at {which} in the store")
    atoms = {a.id: a for a in store.get_atoms(sorted({a for row in selected for a in row["atoms"]}))}
    rows = [_row(plugin, Task.from_row(row), row["run_params"] or "", atoms) for row in selected]
    _check_schema(domain, rows)
    if fmt == "hf":
        _write_hf(rows, out, domain, card.facts(domain, plugin.data_source, atoms.values()))
    else:
        {"jsonl": _write_jsonl, "parquet": _write_parquet, "inspect": _write_inspect}[fmt](rows, out, domain)
    by_level = dict(sorted(Counter(row["level"] for row in rows).items()))
    return ExportSummary(domain, fmt, str(out), len(rows), by_level)


# Fields that differ between two builds of the same tasks (which run made them, when, with how many workers):
# a release (codewalk.release) leaves them out, so the same graph, plan and seed give the same bytes.
RUN_FIELDS = ("run", "run_params", "created_at")


def release_rows(store: GraphStore, domain: str, ids: list[str], atoms: dict) -> list[dict[str, Any]]:
    """The export rows of these admitted tasks, without RUN_FIELDS; `atoms`: id -> Atom of every atom used."""
    plugin = get_domain(domain)
    rows = []
    for stored in store.select_tasks(domain, "admitted", ids=ids):
        task = Task.from_row(stored)
        kept = set(plugin.export_row(task))  # a domain's own field of that name comes from its inputs: kept
        rows.append({k: v for k, v in _row(plugin, task, "", atoms).items() if k not in RUN_FIELDS or k in kept})
    if rows:
        _check_schema(domain, rows)
    return rows


def write_split(out: Path, domain: str, split: str, rows: list[dict[str, Any]], facts: dict[str, Any]) -> None:
    """`<out>/<domain>/<split>.parquet` of a release, with the card's facts in its schema metadata."""
    table = _table(rows, domain)
    table = table.replace_schema_metadata({card.META_KEY: json.dumps(facts, sort_keys=True).encode()})
    (out / domain).mkdir(parents=True, exist_ok=True)
    pq.write_table(table, out / domain / f"{split}.parquet")


def read_export(path: Path, domain: str) -> list[Task]:
    """The admitted tasks of `domain` in a file `cw tasks export` wrote: JSONL (`--format jsonl` or
    `inspect`), parquet, or an hf folder. A row of another domain, a task that was not admitted or a row
    without the fields grading needs is an InputError naming the row."""
    if path.is_dir():
        path = path / domain / f"{SPLIT}.parquet"
    if path.suffix == ".parquet":
        try:
            rows = list(enumerate(pq.read_table(path).to_pylist(), 1))
        except (OSError, pa.ArrowInvalid) as e:
            raise InputError(str(path), None, f"cannot read as parquet: {e}") from None
    else:
        rows = list(jsonl.objects(path))
    if not rows:
        raise InputError(str(path), None, "no tasks in the file")
    return [_exported_task(row, domain, partial(InputError, str(path), number)) for number, row in rows]


def _exported_task(row: dict[str, Any], domain: str, bad: Callable[[str], InputError]) -> Task:
    if "input" in row and "metadata" in row:  # --format inspect: the generic row under inspect_ai's names
        row = {**row["metadata"], "id": row["id"], "prompt": row["input"], "reference": row["target"]}
    missing = [k for k in ("id", "domain", "atoms", "status", "prompt", "reference", "verifier") if k not in row]
    if missing:
        raise bad(f"not a task `cw tasks export` wrote: no {', '.join(missing)}")
    if row["domain"] != domain:
        raise bad(f"task {row['id']} is of domain {row['domain']!r}, not {domain!r}")
    if row["status"] != "admitted":
        raise bad(f"task {row['id']} was not admitted ({row['status']}); only admitted tasks are graded")
    verifier = row["verifier"]
    try:
        verifier = json.loads(verifier) if isinstance(verifier, str) else verifier
    except json.JSONDecodeError:
        raise bad(f"task {row['id']}: the verifier is not JSON") from None
    if not (row["prompt"] and row["reference"] and isinstance(verifier, dict) and verifier):
        raise bad(f"task {row['id']} has no prompt, reference or verifier")
    return Task(id=row["id"], domain=domain, atoms=tuple(row["atoms"]), status="admitted",
                reason=row.get("reason", Reason.ADMITTED), seed=row.get("seed", 0), run=row.get("run", ""),
                created_at=row.get("created_at", ""), generator_version=row.get("generator_version", ""),
                prompt=row["prompt"], reference=row["reference"], verifier=verifier)


def _row(plugin, task: Task, run_params: str, atoms: dict) -> dict[str, Any]:
    # The atoms' content, in order, pins the data a task was made from, whatever file it was read from.
    content = json.dumps([[a, atoms[a].summary, atoms[a].payload] for a in task.atoms], sort_keys=True)
    row = {
        "id": task.id, "domain": task.domain, "level": task.level, "atoms": list(task.atoms),
        "prompt": task.prompt, "reference": task.reference,
        "verifier": json.dumps(task.verifier, sort_keys=True),
        "status": task.status, "seed": task.seed, "run": task.run, "run_params": run_params,
        "created_at": task.created_at, "generator_version": task.generator_version,
        "data_source": plugin.data_source,
        "data_revision": "sha256:" + hashlib.sha256(content.encode()).hexdigest(),
    }
    extra = plugin.export_row(task)
    if not isinstance(extra, dict) or not all(isinstance(k, str) for k in extra):
        raise UsageError(f"domain {task.domain!r}: export_row({task.id}) must return a dict with text keys")
    return {**row, **extra}


def _check_schema(domain: str, rows: list[dict[str, Any]]) -> None:
    keys = list(rows[0])
    for row in rows[1:]:
        if list(row) != keys:
            raise UsageError(f"domain {domain!r} gave rows of different shapes (task {row['id']} differs "
                             f"from task {rows[0]['id']} in {sorted(set(row) ^ set(keys))}): "
                             "one schema per domain")


def _table(rows: list[dict[str, Any]], domain: str) -> pa.Table:
    try:
        return pa.Table.from_pylist(rows)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
        raise UsageError(f"domain {domain!r}: a field's type differs between rows ({e})") from None


def _write_jsonl(rows: list[dict[str, Any]], out: Path, domain: str) -> None:
    _lines(out, rows)


def _write_inspect(rows: list[dict[str, Any]], out: Path, domain: str) -> None:
    """inspect_ai's Sample fields: id, input, target, metadata (everything else)."""
    samples = [{"id": r["id"], "input": r["prompt"], "target": r["reference"],
                "metadata": {k: v for k, v in r.items() if k not in ("id", "prompt", "reference")}}
               for r in rows]
    _lines(out, samples)


def _lines(out: Path, rows: list[dict[str, Any]]) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def _write_parquet(rows: list[dict[str, Any]], out: Path, domain: str) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(_table(rows, domain), out)


def _write_hf(rows: list[dict[str, Any]], out: Path, domain: str, facts: dict[str, Any]) -> None:
    """`<out>/<domain>/test.parquet` (with what the card says of it in the schema metadata), then the card
    is rewritten from every domain folder present, so exporting several domains into one folder gives one
    dataset with a config per domain (codewalk.card)."""
    table = _table(rows, domain)
    table = table.replace_schema_metadata({**(table.schema.metadata or {}),
                                           card.META_KEY: json.dumps(facts, sort_keys=True).encode()})
    (out / domain).mkdir(parents=True, exist_ok=True)
    pq.write_table(table, out / domain / f"{SPLIT}.parquet")
    (out / "README.md").write_text(card.render(out), encoding="utf-8")
