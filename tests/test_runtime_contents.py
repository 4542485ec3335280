"""What a repair test run is, in each runtime (docs/safety.md's table): uid 1000, no capabilities, no new
privileges, no network but loopback, no file of /proc, read from inside the run by the tests themselves."""

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

PROBE = '''import ctypes
import os
import socket


def test_contents():
    # read with system calls, not /proc/self/status: the kernel guard keeps /proc from the tests
    assert (os.getuid(), os.geteuid()) == (1000, 1000)
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.prctl(39, 0, 0, 0, 0) == 1  # PR_GET_NO_NEW_PRIVS
    header, data = (ctypes.c_uint32 * 2)(0x20080522, 0), (ctypes.c_uint32 * 6)()  # capget, version 3
    assert libc.capget(header, data) == 0
    effective, permitted = (data[0], data[3]), (data[1], data[4])  # two words each: low, high
    assert effective == (0, 0) and permitted == (0, 0), list(data)
    try:
        open("/proc/self/status").close()
    except PermissionError:
        pass
    else:
        raise AssertionError("the tests opened a file of /proc")
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
