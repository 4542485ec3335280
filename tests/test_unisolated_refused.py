"""Code nobody reviewed never runs on the host unless the user says so: where bubblewrap cannot run, walks and
grades are refused on every machine (CI or not), naming what to install and the setting that lifts it; `cw demo`,
whose code is codewalk's own, runs and says it ran unisolated. The machine's bubblewrap is hidden by patching
the probe (this machine has it; a machine without it behaves the same)."""

from __future__ import annotations

import json

import pytest

from codewalk.runtime import sandbox
from tests.run_cw import cw


@pytest.fixture
def no_bwrap(monkeypatch):
    monkeypatch.setattr(sandbox, "_bwrap_works", lambda: False)
    monkeypatch.setattr(sandbox, "_unisolated_allowed", False)
    monkeypatch.delenv(sandbox.ALLOW_UNISOLATED, raising=False)
    monkeypatch.delenv("CI", raising=False)  # not a CI rule: the same on a developer's machine


def test_a_walk_without_isolation_is_refused_before_anything_is_stored(capsys, tmp_path, no_bwrap, monkeypatch):
    store = str(tmp_path / "g.lbug")
    code, _, err = cw(capsys, "--store", store, "load", "demo", "loaders/demo_atoms.jsonl")  # verifies atoms: runs rows
    assert code == 10 and sandbox.ALLOW_UNISOLATED in err and "bubblewrap" in err
    monkeypatch.setenv(sandbox.ALLOW_UNISOLATED, "1")
    code, _, err = cw(capsys, "--store", store, "load", "demo", "loaders/demo_atoms.jsonl")
    assert code == 0, err
    monkeypatch.delenv(sandbox.ALLOW_UNISOLATED)
    code, _, err = cw(capsys, "--store", store, "walk", "--domain", "demo", "--n", "2", "--count", "1")
    assert code == 10 and sandbox.ALLOW_UNISOLATED in err and "bubblewrap" in err
    code, out, err = cw(capsys, "--store", store, "query", "MATCH (t:Task) RETURN count(t) AS n", "--json")
    assert code == 0 and json.loads(out)[0]["n"] == 0, err
    monkeypatch.setenv(sandbox.ALLOW_UNISOLATED, "1")  # the user's choice lifts it
    code, _, err = cw(capsys, "--store", store, "walk", "--domain", "demo", "--n", "2", "--count", "1",
                      "--workers", "1")
    assert code == 0, err


def test_cw_demo_runs_its_own_code_unisolated_and_says_so(capsys, tmp_path, no_bwrap):
    code, out, err = cw(capsys, "--store", str(tmp_path / "g.lbug"), "demo", "--count", "1", "--workers", "1")
    assert code == 0, err
    assert "note:" in err and "unisolated" in err and "Admission by level" in out
    assert not sandbox.unisolated_allowed()  # lifted for the demo's own runs only


def test_grading_without_isolation_is_refused_by_default(capsys, tmp_path, no_bwrap):
    predictions = tmp_path / "p.jsonl"
    predictions.write_text(json.dumps({"task_id": "t1", "output": "x"}) + "\n")
    code, _, err = cw(capsys, "--store", str(tmp_path / "g.lbug"), "grade", str(predictions), "--domain", "demo")
    assert code == 2 and "cannot be isolated" in err and "--allow-unisolated" in err
