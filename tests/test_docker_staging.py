"""An interrupted docker walk leaves no staging folder in the temp dir: each test run's tree and harness are
staged on the host (sandbox.workdir) before they go into the container, and Ctrl-C or SIGTERM mid-walk (the
main process and its verifier processes alike) removes them. Without a daemon it skips saying why."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from tests.test_containers_owned import WALK, _loaded

pytestmark = pytest.mark.usefixtures("shared_home")


def _staged(temp) -> bool:
    """A test run's tree and harness are staged in the temp dir: the walk is mid-run (folders come and go as
    it is read)."""
    return any("harness" in folders for _, folders, _ in os.walk(temp))


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "ctrl-c"])
def test_an_interrupted_docker_walk_leaves_no_staging_folder_in_the_temp_dir(daemon, fixture, module_home,
                                                                            tmp_path, stop):
    store = _loaded(fixture, module_home, tmp_path)
    temp = tmp_path / "temp"
    temp.mkdir()
    env = {**os.environ, "CODEWALK_HOME": str(module_home), "CODEWALK_RUNTIME": "docker", "TMPDIR": str(temp)}
    # SIGINT as a terminal gives it: a suite started as a background job (nohup, `&`) hands its children SIGINT
    # ignored, and a walk that cannot see Ctrl-C ends by itself
    walk = subprocess.Popen([sys.executable, "-m", "codewalk", "--store", store, *WALK, "--workers", "2"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 600
        while not _staged(temp):
            assert walk.poll() is None, f"the walk ended before it staged a run: {walk.communicate()}"
            assert time.monotonic() < deadline, "the walk staged no run"
            time.sleep(0.05)
        time.sleep(2)  # into its groups' runs (the fixture's 15 groups at N = 2 take several seconds more)
        assert walk.poll() is None, "the walk finished before it could be stopped"
        if stop == signal.SIGINT:
            os.killpg(walk.pid, signal.SIGINT)  # Ctrl-C reaches the whole process group
        else:
            walk.send_signal(signal.SIGTERM)
        _, err = walk.communicate(timeout=300)
    finally:
        walk.kill()
    assert walk.returncode in (130, 143), err
    left = sorted(str(p.relative_to(temp)) for p in temp.rglob("*"))
    assert left == [], f"left in the temp dir: {left[:10]}"


def _stage_then_die(_: int) -> None:
    """A verifier call killed outright while its staging folder exists (as the pool terminates a worker
    once another has died, mid-way through removing its folder)."""
    from codewalk.runtime import sandbox

    with sandbox.workdir() as scratch:
        (scratch / "tree").mkdir()
        (scratch / "tree" / "file.py").write_text("x = 1\n")
        os.kill(os.getpid(), signal.SIGKILL)


def test_a_walk_pools_workers_killed_mid_run_leave_no_staging_folder(tmp_path, monkeypatch):
    import tempfile
    from concurrent.futures.process import BrokenProcessPool

    from codewalk.executors import open_executor

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the temp dir of this process and its workers
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    pool, _ = open_executor("local", 2)
    try:
        with pytest.raises(BrokenProcessPool):
            list(pool.map(_stage_then_die, range(2)))
    finally:
        pool.shutdown(wait=True)
    left = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*"))
    assert left == [], f"left in the temp dir: {left[:10]}"
