"""Each evaluation line of the README, typed as it is there, with networking off (`unshare -n`): the offline
check and inspect's mock model work; a line that names a hosted model fails with a non-zero exit, never 0.
The store the lines read by default (~/.codewalk/graph.lbug) holds admitted demo and repair tasks."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codewalk.admission import walk_and_admit
from codewalk.demo import run_demo
from codewalk.loading import load
from codewalk.runtime import sandbox
from codewalk.store import open_store
from tests import repair_fixture

README = Path(__file__).resolve().parents[1] / "README.md"


def eval_lines() -> list[str]:
    """The README's indented command lines that run an evaluation, without their comments."""
    lines = []
    for line in README.read_text(encoding="utf-8").splitlines():
        command = line.strip().split("   #")[0].strip()
        if line.startswith("    ") and command.startswith(("inspect eval ", "python -m codewalk.evals.smoke ")):
            lines.append(command)
    return lines


def offline() -> list[str]:
    """The prefix that runs a command without any network: a fresh network namespace (root, as CI)."""
    if os.geteuid() == 0 and shutil.which("unshare") and subprocess.run(
            ["unshare", "-n", "true"], capture_output=True).returncode == 0:
        return ["unshare", "-n"]
    message = "running the README's eval lines offline needs `unshare -n` as root (CI runs as root)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture
def home(tmp_path, monkeypatch):
    """HOME with ~/.codewalk/graph.lbug holding admitted demo tasks and repair tasks of the tally fixture."""
    if not sandbox.isolated():
        pytest.skip("the repair_agent line (runtime=local) needs bubblewrap")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("CODEWALK_HOME", str(tmp_path / ".codewalk"))
    monkeypatch.delenv("CODEWALK_STORE", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    (tmp_path / ".codewalk").mkdir()
    fixture = repair_fixture.build(tmp_path / "tally")
    rows = fixture.write_rows(tmp_path / "tally" / "rows.jsonl", ("W1", "W2"))
    with open_store(tmp_path / ".codewalk" / "graph.lbug") as store:
        run_demo(store, count=2, workers=2)
        load(store, "repair", rows, {"repos": str(fixture.repos)})
        assert walk_and_admit(store, "repair", 1, count=2, seed=1, workers=2).admitted
    return tmp_path


def test_each_readme_eval_line_works_offline_or_fails_non_zero(home):
    lines = eval_lines()
    assert any("codewalk.evals.smoke codewalk/" in c for c in lines) and any("mockllm/model" in c for c in lines)
    for command in lines:
        typed = re.sub(r"^inspect ", f"{sys.executable} -m inspect_ai ", command)
        typed = re.sub(r"^python ", f"{sys.executable} ", typed)
        run = subprocess.run([*offline(), "bash", "-c", typed], cwd=home, capture_output=True, text=True,
                             timeout=600)
        said = f"{command}: exit {run.returncode}\n{run.stdout[-2000:]}\n{run.stderr[-2000:]}"
        if "codewalk.evals.smoke" in command:
            assert run.returncode == 0 and re.search(r"(\d+) samples, \1 scored, \1 solved", run.stdout), said
        elif "mockllm/model" in command:
            assert run.returncode == 0 and "accuracy" in run.stdout + run.stderr, said
        else:  # a hosted model: no key and no network here
            assert run.returncode != 0, said
