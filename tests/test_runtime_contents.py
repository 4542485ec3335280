"""What a repair test run is, in each runtime (docs/safety.md's table): uid 1000, no capabilities, no new
privileges, no network but loopback, read from inside the run by the tests themselves."""

from __future__ import annotations

import os

import pytest

from codewalk import runtime
from codewalk.domain import Settings
from codewalk.domains.repair import RepairDomain
from codewalk.domains.repair.env import EnvSpec, run_tests
from codewalk.runtime import sandbox
from tests import docker_runtime, repair_fixture

pytestmark = pytest.mark.usefixtures("shared_home")

PROBE = '''import socket


def test_contents():
    status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines())
    assert status["Uid"].split()[0] == "1000", status["Uid"]
    assert int(status["CapEff"].strip(), 16) == 0, status["CapEff"]
    assert int(status["CapPrm"].strip(), 16) == 0, status["CapPrm"]
    assert status["NoNewPrivs"].strip() == "1"
    assert [name for _, name in socket.if_nameindex()] == ["lo"]
'''


@pytest.fixture(scope="module")
def tally(tmp_path_factory):
    return repair_fixture.build(tmp_path_factory.mktemp("tally"))


@pytest.mark.parametrize("name", ["local", "docker"])
def test_a_test_run_is_uid_1000_without_capabilities_or_network(tally, name):
    if name == "docker":
        docker_runtime.require()
    elif not sandbox.isolated() and not os.environ.get("CI"):
        pytest.skip(sandbox.isolation())
    domain = RepairDomain(settings=Settings(runtime=runtime.build(name)))
    rows = tally.write_rows(tally.repos.parent / "w1.jsonl", ("W1",))
    v = domain.compose(list(domain.load(rows, {"repos": str(tally.repos)}))).verifier
    try:
        with domain.worktrees.fresh(domain._mirror(v), v["base_commit"]) as tree:
            env = domain._env(v, EnvSpec.from_config(v["install_config"]), tree)
            (tree.path / "tests" / "test_zz_contents.py").write_text(PROBE)
            x_g = tree.tree()
            run = run_tests(env, tree, ["tests/test_zz_contents.py::test_contents"], "", 300, config_from=x_g)
    finally:
        if name == "docker":
            runtime.release()  # the container started ahead goes, as at the end of a walk
    assert run.status == {"tests/test_zz_contents.py::test_contents": "passed"}
