"""Proof completion, Frama-C/WP backend: an exported task is self-contained.

The `.h`/`.acsl` files a task includes travel in its verifier spec (written beside task.c before Frama-C
runs), so it grades on a machine that has only the export and Frama-C; the verdict cache key covers
their contents. One real frama-c run (fill, level 1).
"""

from __future__ import annotations

import json
import os
import shutil

import pytest

from codewalk.domains.proofs import ProofsDomain, acsl, read
from codewalk.domains.proofs.acsl import WPRun
from codewalk.export import export_tasks
from codewalk.records import Composite, Run, Task, task_id
from codewalk.store import open_store
from codewalk.store.columns import graph_tables
from tests.shared_data import dataset, require

ACSL = dataset("acsl-bench", "acsl-by-example")

needs_frama_c = pytest.mark.skipif(
    not shutil.which("frama-c") and os.environ.get("CI") != "true",
    reason="frama-c is not installed (apt-get install frama-c-base why3 z3 cvc5)",
)


@pytest.fixture(autouse=True)
def _data(tmp_path, monkeypatch):
    require("acsl-bench", "acsl-by-example")
    monkeypatch.setenv("CODEWALK_CACHE", str(tmp_path / "cache"))


def _fill(root):
    _, atoms, _ = read(root, {"programs": "Mutating/fill", "references": "trust"})
    return atoms


@needs_frama_c
def test_an_exported_task_grades_from_another_folder_with_the_dataset_gone(tmp_path, monkeypatch):
    copy = tmp_path / "acsl-by-example"
    shutil.copytree(ACSL, copy)
    atoms = _fill(copy)
    domain = ProofsDomain()
    composite = domain.compose(atoms)
    store = open_store(str(tmp_path / "graph.lbug"))
    try:
        store.write(*graph_tables(atoms, []))
        run = Run("r-export", "proofs", 0, {"n": 1}, "2026-01-01T00:00:00+00:00")
        store.write_run(run)
        store.write_tasks([Task(task_id("proofs", [atoms[0].id], domain.composer_version), "proofs",
                                (atoms[0].id,), "admitted", "admitted", 0, run.id, run.started, "test",
                                composite.prompt, composite.reference, composite.verifier)])
        export_tasks(store, "proofs", tmp_path / "tasks.jsonl")
    finally:
        store.close()
    exported = (tmp_path / "tasks.jsonl").read_text()
    assert str(copy) not in exported and str(ACSL) not in exported  # no path of this machine
    shutil.rmtree(copy)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    row = json.loads(exported.splitlines()[0])
    verifier = json.loads(row["verifier"]) if isinstance(row["verifier"], str) else row["verifier"]
    assert "AllSomeNot.acsl" in verifier["files"] and "typedefs.h" in verifier["files"]
    task = Composite(row["prompt"], row["reference"], verifier)
    check = domain.grade(task, task.reference)
    assert check.ok, check.detail
    assert not check.evidence["wp"]["cached"]  # Frama-C really ran, on the files the export carries


def test_the_verdict_cache_key_covers_the_contents_of_every_included_file(monkeypatch):
    runs = []

    def fake_run(text, command, spec):
        runs.append(spec["files"]["AllSomeNot.acsl"])
        return WPRun(True, 1, 1)

    monkeypatch.setattr(acsl, "_run", fake_run)
    _no_tools(monkeypatch)
    composite = ProofsDomain().compose(_fill(ACSL))
    spec = composite.verifier
    changed = {**spec, "files": {**spec["files"], "AllSomeNot.acsl": spec["files"]["AllSomeNot.acsl"] + "\n"}}
    assert not acsl.verify(composite.reference, spec).cached
    assert not acsl.verify(composite.reference, changed).cached  # same text, another included file
    assert acsl.verify(composite.reference, spec).cached
    assert len(runs) == 2


def test_an_included_file_name_that_reaches_outside_the_work_directory_is_refused(monkeypatch):
    from codewalk.errors import UsageError

    monkeypatch.setattr(acsl, "_run", lambda *_: pytest.fail("a refused spec must not run"))
    _no_tools(monkeypatch)
    composite = ProofsDomain().compose(_fill(ACSL))
    spec = {**composite.verifier, "files": {"../../etc/evil.h": "x"}}
    with pytest.raises(UsageError, match="plain"):
        acsl.verify(composite.reference, spec)


def _no_tools(monkeypatch):
    """No Frama-C needed: fixed tool versions and provers."""
    monkeypatch.setattr(acsl, "_versions", lambda: ("frama-c test",))
    monkeypatch.setattr(acsl, "_provers", lambda: ["z3"])
