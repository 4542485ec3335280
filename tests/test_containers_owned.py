"""No container outlives its owner, and every container codewalk starts is hardened alike.

A walk under `--runtime docker` on the tally fixture, stopped for real: SIGTERM is Ctrl-C (finished work saved,
a message, the walk's containers removed, exit 143); after `kill -9` the container's agent sees its input end
and exits (the container stops), and the next run removes what is left; either way a rerun resumes without
duplicates. The tests touch only containers of this session's label (tests/docker_runtime.py). Without a
daemon they skip saying why; under CI they fail."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import docker.errors
import pytest

from codewalk import runtime
from tests import docker_runtime
from tests.stored import whole_unique_tasks

pytestmark = pytest.mark.usefixtures("shared_home")  # one home: mirrors, worktrees, the images


def _cw(home: Path, *args: str) -> subprocess.Popen:
    env = {**os.environ, "CODEWALK_HOME": str(home), "CODEWALK_RUNTIME": "docker"}
    return subprocess.Popen([sys.executable, "-m", "codewalk", *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _loaded(fixture, module_home, tmp_path) -> str:
    store = str(tmp_path / "graph.lbug")
    rows = fixture.write_rows(tmp_path / "rows.jsonl")
    load = _cw(module_home, "--store", store, "load", "repair", str(rows), "--opt", f"repos={fixture.repos}")
    out, err = load.communicate(timeout=900)
    assert load.returncode == 0, err
    return store


def _once_containers_run(proc: subprocess.Popen) -> list:
    """Wait until the walk has containers (it is mid-walk), then a second longer, into its groups' tests (the
    fixture's 15 groups at N = 2 take several seconds more)."""
    deadline = time.monotonic() + 600
    while not docker_runtime.ours():
        if proc.poll() is not None:
            pytest.fail(f"the walk ended before its containers were seen: {proc.communicate()}")
        assert time.monotonic() < deadline, "no container of the walk appeared"
        time.sleep(0.2)
    time.sleep(1)
    assert proc.poll() is None, "the walk finished before it could be stopped"
    return docker_runtime.ours()


WALK = ("walk", "--domain", "repair", "--n", "2", "--count", "100", "--seed", "11")


def test_sigterm_mid_walk_saves_the_work_removes_the_containers_and_exits_143(daemon, fixture, module_home,
                                                                             tmp_path):
    store = _loaded(fixture, module_home, tmp_path)
    walk = _cw(module_home, "--store", store, *WALK, "--workers", "2")
    try:
        _once_containers_run(walk)
        walk.send_signal(signal.SIGTERM)
        _, err = walk.communicate(timeout=300)
    finally:
        walk.kill()
    assert walk.returncode == 143, err
    assert "terminated (SIGTERM)" in err and "attempts saved" in err
    assert docker_runtime.ours() == []
    before = whole_unique_tasks(store)
    rerun = _cw(module_home, "--store", store, *WALK, "--workers", "2")
    _, err = rerun.communicate(timeout=900)
    assert rerun.returncode in (0, 7), err  # 7: the fixture's groups at N = 2 are used up before 100
    after = whole_unique_tasks(store)
    assert set(before) <= set(after)
    assert docker_runtime.ours() == []


def test_after_kill_9_the_containers_stop_and_the_next_run_removes_them_and_resumes(daemon, fixture, module_home,
                                                                                   tmp_path):
    store = _loaded(fixture, module_home, tmp_path)
    walk = _cw(module_home, "--store", store, *WALK, "--workers", "1")  # every container is the killed process's
    try:
        left = _once_containers_run(walk)
        walk.send_signal(signal.SIGKILL)
        walk.communicate(timeout=60)
    finally:
        walk.kill()
    assert {c.labels[runtime.OWNER_PID] for c in left} == {str(walk.pid)}
    for container in left:  # the agent's input ended with its owner: it exits, mid-run too, and the container stops
        try:
            container.wait(timeout=120)
        except docker.errors.NotFound:  # one its owner had removed (a finished run's) before it was killed
            pass
    assert docker_runtime.ours(), "nothing left to remove: the test shows nothing"
    rerun = _cw(module_home, "--store", store, *WALK, "--workers", "1")
    _, err = rerun.communicate(timeout=900)
    assert rerun.returncode in (0, 7), err
    assert docker_runtime.ours() == []
    assert whole_unique_tasks(store)


def test_a_container_whose_owner_is_gone_is_removed_and_one_whose_owner_runs_is_kept(daemon):
    from codewalk.domains.repair.containers import BASE

    client = runtime.client()
    gone = subprocess.Popen(["true"])
    gone.wait()
    mine = runtime.container_labels("run")
    dead = {**mine, runtime.OWNER_PID: str(gone.pid)}
    recycled = {**mine, runtime.OWNER_START: mine[runtime.OWNER_START] + "0"}  # our pid, another start: not us
    made = {name: client.containers.create(os.environ[BASE], ["true"], labels=labels, name=f"cw-test-{name}-{os.getpid()}")
            for name, labels in (("dead", dead), ("recycled", recycled), ("live", mine))}
    try:
        removed = set(runtime.reap(client))  # (a container an earlier test left behind may go too)
        assert {made["dead"].name, made["recycled"].name} <= removed and made["live"].name not in removed
        assert made["live"].name in [c.name for c in docker_runtime.ours()]
    finally:
        for container in made.values():
            runtime.forget(container.name)


def test_the_agent_tasks_container_is_hardened_as_the_grade_containers(daemon, fixture, tmp_path):
    """The repair agent's container (inspect's codewalk-docker sandbox) and a grade's: no new privileges, a CPU
    limit, memory with no swap beyond it, a process limit, and an owner to remove it if its process dies."""
    pytest.importorskip("inspect_ai")
    from codewalk.domains.repair import RepairDomain, containers
    from codewalk.domains.repair.env import EnvSpec
    from codewalk.evals import testbed

    domain = RepairDomain()
    atoms = list(domain.load(fixture.write_rows(tmp_path / "rows.jsonl", ("W1",)), {"repos": str(fixture.repos)}))
    verifier = domain.compose(atoms).verifier
    agent = testbed._start(testbed.testbed_spec(verifier), "sample-1")
    try:
        agent.reload()
        host = agent.attrs["HostConfig"]
        image = containers.image_for(verifier, EnvSpec.from_config(verifier["install_config"]),
                                     domain._mirror(verifier))
        name, grade, attached = containers.start(image, 4096)
        attached.close()
        grade.reload()
        graded = grade.attrs["HostConfig"]
    finally:
        agent.remove(force=True)
    runtime.forget(name)
    for config in (host, graded):
        assert "no-new-privileges" in config["SecurityOpt"]
        assert config["NanoCpus"] == int(min(2, os.cpu_count() or 1) * 1e9)
        assert config["Memory"] == 4096 << 20 and config["MemorySwap"] == config["Memory"]
        assert config["PidsLimit"] == 512
    assert agent.labels[runtime.OWNER_PID] == str(os.getpid())
    assert agent.labels["codewalk.sample"] == "sample-1"


def test_a_forked_worker_starts_with_none_of_its_parents_docker_state():
    """The docker runtime's state for a process (clients, containers started, removals, release hooks, and
    what the repair domain keeps beside them: its images, its spare containers) is one object, renewed in
    a forked child by the one fork hook of codewalk (issue 45); no daemon needed."""
    from codewalk.domains.repair import containers

    docker = runtime.DockerRuntime()
    kept = docker.kept(containers._Here)
    kept.images["key"] = "an image"  # type: ignore[assignment]
    name = runtime.container_name("test")
    runtime.on_release(lambda: None)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report what it sees, then leave without running the parent's exit hooks
        fresh = docker.kept(containers._Here)
        seen = (fresh is not kept, not fresh.images, not runtime._process.live, not runtime._process.hooks,
                not runtime._process.clients)
        os.write(write, b"ok" if all(seen) else repr(seen).encode())
        os._exit(0)
    os.close(write)
    answer = os.read(read, 200)
    os.waitpid(pid, 0)
    assert answer == b"ok"
    assert docker.kept(containers._Here) is kept and name in runtime._process.live  # the parent keeps its own
    with runtime._process.lock:
        runtime._process.live.discard(name)
        runtime._process.hooks.clear()
    kept.images.clear()


def test_the_fork_reset_is_in_one_place():
    # codewalk's own process; the repair harness runs in the tests' interpreter, a process of its own
    from codewalk.domains.repair import channel

    root = Path(__file__).resolve().parents[1] / "codewalk"
    hooks = [str(p.relative_to(root)) for p in root.rglob("*.py")
             if "register_at_fork(after" in p.read_text() and channel.HARNESS.resolve() not in p.parents]
    assert hooks == ["runtime/__init__.py"]
