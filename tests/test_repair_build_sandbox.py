"""Environment builds run the repository's and the row's code (setup.py, build backends, `install`): in the
local runtime they run in the sandbox (no capabilities, only the checkout, the environment and the pip cache
writable, nothing else of the host seen), in the docker runtime in the image build, on the daemon's
default network unless CODEWALK_BUILD_NETWORK says otherwise."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from codewalk.domains.repair import RepairDomain, containers
from codewalk.domains.repair.env import EnvSpec
from codewalk.runtime import sandbox
from tests import repair_fixture

needs_isolation = pytest.mark.skipif(not sandbox.isolated() and not os.environ.get("CI"),
                                     reason=sandbox.isolation())


@needs_isolation
def test_a_rows_install_command_runs_in_the_sandbox(tmp_path, monkeypatch):
    monkeypatch.setenv("CODEWALK_HOME", str(tmp_path / "home"))
    fixture = repair_fixture.build(tmp_path / "tally")
    markers = tmp_path / "markers"  # outside the build's view: only a host process could write here
    markers.mkdir()
    secret = Path.home() / f".codewalk-build-secret-{os.getpid()}"
    secret.write_text("the user's secret")
    install = (f"echo ran > {markers}/install; cat {secret} > \"$VIRTUAL_ENV/seen\"; "
               "grep -E '^(CapEff|Uid)' /proc/self/status > \"$VIRTUAL_ENV/status\"; true")
    spec = EnvSpec.from_config({**repair_fixture.INSTALL_CONFIG, "install": install})
    domain = RepairDomain()
    mirror = domain.mirrors.ensure(repair_fixture.REPO, str(fixture.clone))
    try:
        with domain.worktrees.checkout(mirror, fixture.rows[0]["base_commit"]) as tree:
            env = domain.envs.get(repair_fixture.REPO, spec, tree)
    finally:
        secret.unlink()
    assert list(markers.iterdir()) == []
    assert (env.path / "seen").read_text() == ""
    status = dict(line.split(":", 1) for line in (env.path / "status").read_text().splitlines())
    assert int(status["CapEff"].strip(), 16) == 0 and status["Uid"].split()[0] == str(sandbox.UID)
    assert (env.path / "bin" / "pytest").exists()  # the build itself worked: pip reached its index


class _Api:
    def __init__(self) -> None:
        self.kwargs: dict = {}

    def build(self, **kwargs):
        self.kwargs = kwargs
        return iter([{"stream": "built"}])


@pytest.mark.parametrize("setting, mode", [(None, None), ("host", "host"), ("default", None)])
def test_an_image_build_uses_the_daemons_default_network_unless_told(setting, mode, tmp_path, monkeypatch):
    api = _Api()
    monkeypatch.setattr(containers.runtime, "client", lambda: type("C", (), {"api": api})())
    monkeypatch.setattr(containers, "_present", lambda tag: True)
    monkeypatch.setattr(containers, "_context_files", lambda spec, mirror, commit: {})
    if setting is None:
        monkeypatch.delenv("CODEWALK_BUILD_NETWORK", raising=False)
    else:
        monkeypatch.setenv("CODEWALK_BUILD_NETWORK", setting)
    containers._build("cw-env:test", "base:1", EnvSpec(pre_install=("true",)), tmp_path, "c0ffee", "a/b", True)
    assert api.kwargs["network_mode"] == mode
