"""The README's training loop (section "Training data"), as it is written there: its Python block collects
eight scripted attempts per task of the repair fixture, then its `cw` lines export the curriculum's pools and
report per-attempt success; the figures the README states are the ones that come out."""

from __future__ import annotations

import glob
import json
import re
import shlex
from pathlib import Path

import pytest

from codewalk.runtime import sandbox
from tests.run_cw import cw

README = Path(__file__).resolve().parents[1] / "README.md"
ROOT = README.parent


def _section() -> str:
    text = README.read_text(encoding="utf-8")
    return text.split("## Training data", 1)[1].split("\n## ", 1)[0]


def _blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", _section(), flags=re.S)


@pytest.mark.skipif(not sandbox.isolated(), reason="the repair agent's runtime=local needs bubblewrap")
def test_the_readmes_training_loop_runs_as_written_and_gives_the_figures_it_states(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CODEWALK_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CODEWALK_STORE", raising=False)
    monkeypatch.syspath_prepend(str(ROOT))  # `from tests import repair_fixture`, as in a checkout
    [loop] = _blocks("python")
    exec(compile(loop, "README.md", "exec"), {"__name__": "readme"})
    commands = _blocks("sh")[1].strip().splitlines()
    for line in commands:
        words = [w for word in shlex.split(line) for w in (sorted(glob.glob(word)) if "*" in word else [word])]
        assert words[0] == "cw"
        code, _, stderr = cw(capsys, *words[1:], "--json")
        assert code == 0, (line, stderr)
    l1 = (tmp_path / "rft-l1" / "trajectories.jsonl").read_text().splitlines()
    l12 = json.loads((tmp_path / "rft-l1-l2" / "manifest.json").read_text())["rows"]
    assert len(l1) == 1 and sorted(r["level"] for r in l12) == [1, 2]
    assert {r["split"] for r in l12} == {"train"} and {r["candidates"] for r in l12} == {3, 2}
    code, stdout, _ = cw(capsys, *shlex.split(commands[-1])[1:], "--json")
    rows = {r["level"]: r for r in json.loads(stdout)}
    assert (rows[1]["passed"], rows[1]["attempts"], rows[2]["passed"], rows[2]["attempts"]) == (3, 16, 2, 8)
    assert (rows[1]["pass_at_k"], rows[2]["pass_at_k"]) == (0.5, 1.0) and rows[1]["k"] == 8
