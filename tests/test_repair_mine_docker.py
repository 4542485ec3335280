"""`cw mine repair --runtime docker`: the environment is an image built from the install config (the
repository's code runs in the image build, never on the host) and every test run is a fresh container."""

from __future__ import annotations

import json
from pathlib import Path

from codewalk.domains.repair.mine import mine
from tests import docker_runtime, mine_fixture


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_mining_under_docker_runs_in_containers_and_keeps_what_local_mining_keeps(tmp_path, monkeypatch):
    docker_runtime.require()
    monkeypatch.setenv("CODEWALK_HOME", str(tmp_path / "home"))
    fx = mine_fixture.build(tmp_path / "calc")
    out = tmp_path / "rows.jsonl"
    summary = mine(str(fx.clone), out, name="calc/calc", runs=2, runtime="docker", workers=1)
    state = {s["commit"]: s for s in _lines(out.with_name(out.name + ".state"))}
    got = {name: (state[fx.commits[name]]["status"], state[fx.commits[name]]["reason"]) for name in mine_fixture.EXPECTED}
    # the dependency is a wheel on this machine (a file:// URL): not in an image build, unlike the sandbox's
    assert got == {**mine_fixture.EXPECTED, "dependency": ("dropped", "environment_failed")}
    rows = _lines(out)
    assert rows and summary.kept == len(rows)
    for row in rows:
        assert row["mined"]["runtime"] == "docker"
        assert row["mined"]["env"]["image"].startswith("codewalk-env/")
    assert docker_runtime.ours() == []  # no container outlives the mining
