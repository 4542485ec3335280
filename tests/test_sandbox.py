"""The sandbox under real faults: runaway loops, SIGTERM-proof grandchildren, memory hogs, leaked secrets."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

import pytest

from codewalk.errors import InfraError
from codewalk.runtime import sandbox
from codewalk.runtime.sandbox import run, workdir

# Network, filesystem and PID isolation need bubblewrap; CI installs it, so there its absence fails.
needs_isolation = pytest.mark.skipif(not sandbox._bwrap_works() and not os.environ.get("CI"),
                                     reason=f"this machine gives: {sandbox.isolation()}")

PY = sys.executable


def python(code: str, **kwargs):
    with workdir() as cwd:
        return run([PY, "-c", code], cwd=cwd, **{"timeout": 10, **kwargs})


def is_dead(pid: int, within: float = 2.0) -> bool:
    """Gone or a zombie. SIGKILL is delivered asynchronously, so allow it a moment to land."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except FileNotFoundError:
            return True
        if "\nState:\tZ" in status:
            return True
        time.sleep(0.05)
    return False


# A grandchild that ignores SIGTERM and would sleep for a minute; the child prints its pid once it is ready.
SPAWN_STUBBORN_GRANDCHILD = """
import subprocess, sys
grandchild = subprocess.Popen([sys.executable, "-c", "import signal, time; "
    "signal.signal(signal.SIGTERM, signal.SIG_IGN); print('ready', flush=True); time.sleep(60)"],
    stdout=subprocess.PIPE)
grandchild.stdout.readline()
print(grandchild.pid, flush=True)
"""


def test_infinite_loop_times_out_within_a_second_of_the_timeout():
    done = python("while True: pass", timeout=1)
    assert done.timed_out
    assert done.returncode == -9
    assert 1 <= done.duration < 2


# Without isolation the process group is what gets killed; the pids printed are then the host's.
def test_grandchild_ignoring_sigterm_is_dead_after_a_timeout():
    done = python(SPAWN_STUBBORN_GRANDCHILD + "import time; time.sleep(60)", timeout=2, isolate=False)
    assert done.timed_out
    assert is_dead(int(done.stdout))


def test_grandchild_left_behind_by_a_normal_exit_is_killed_too():
    done = python(SPAWN_STUBBORN_GRANDCHILD, isolate=False)
    assert not done.timed_out and done.returncode == 0
    assert is_dead(int(done.stdout))


# A grandchild that leaves the process group (setsid), ignores SIGTERM and touches a heartbeat file.
SPAWN_ESCAPING_GRANDCHILD = """
import subprocess, sys
beat = sys.argv[1]
subprocess.Popen([sys.executable, "-c", "import pathlib, signal, sys, time; "
    "signal.signal(signal.SIGTERM, signal.SIG_IGN)\\nwhile True: pathlib.Path(sys.argv[1]).touch(); time.sleep(0.05)",
    beat], start_new_session=True)
"""


def beating(beat: Path, within: float = 1.0) -> bool:
    before = beat.stat().st_mtime_ns
    time.sleep(within)
    return beat.stat().st_mtime_ns != before


@needs_isolation
def test_a_grandchild_that_escapes_the_process_group_dies_with_the_isolated_run():
    with workdir() as cwd, tempfile.TemporaryDirectory(dir="/var/tmp") as shared:
        beat = Path(shared) / "beat"
        done = run([PY, "-c", SPAWN_ESCAPING_GRANDCHILD + "import time; time.sleep(1)", str(beat)], cwd=cwd,
                   timeout=10, writable=[Path(shared)])
        assert done.returncode == 0, done.stderr
        assert beat.exists()  # it did run
        time.sleep(0.3)
        assert not beating(beat)


@needs_isolation
def test_an_isolated_run_cannot_reach_a_port_on_the_host():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        connect = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=3); print('in')"
        assert python(connect, isolate=False).stdout.strip() == "in"  # the probe itself works
        done = python(connect)
    assert done.returncode != 0 and "in" not in done.stdout
    assert "Error" in done.stderr


@needs_isolation
def test_an_isolated_run_cannot_write_outside_its_work_directory():
    with tempfile.TemporaryDirectory(dir="/var/tmp") as outside:
        target = Path(outside) / "escaped.txt"
        done = python(f"open({str(target)!r}, 'w').write('x')")
        assert done.returncode != 0 and "Read-only file system" in done.stderr
        assert not target.exists()
        allowed = python(f"open({str(target)!r}, 'w').write('x')", writable=[Path(outside)])
        assert allowed.returncode == 0 and target.read_text() == "x"


@needs_isolation
def test_an_isolated_run_cannot_write_to_tmp_and_gets_its_work_directory_as_tmpdir():
    with workdir() as cwd:
        done = run([PY, "-c", "import os, tempfile; print(tempfile.mkstemp()[1]); open('/tmp/x-codewalk', 'w')"],
                   cwd=cwd, timeout=10)
        assert done.stdout.startswith(str(cwd) + "/")  # temporary files land in the work directory
        assert "Read-only file system" in done.stderr
    assert not Path("/tmp/x-codewalk").exists()


FORK_BOMB = """
import os, time
made = 0
try:
    for _ in range(3000):  # bounded, so a machine without any cap survives the test
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        made += 1
except OSError:
    pass
print(made, flush=True)
"""


@pytest.fixture(params=["prlimit", "preexec"])
def launch(request, monkeypatch):
    """Both ways a run gets its limits and cgroup: prlimit (and a shell) before the command, so Popen can
    vfork; or, where prlimit is missing, Python in the child between fork and exec."""
    if request.param == "preexec":
        monkeypatch.setattr(sandbox, "_launcher", lambda limits, member: None)
    elif not sandbox._launcher({}, None):
        pytest.skip("prlimit (util-linux) is not installed")
    return request.param


@pytest.mark.parametrize("bwrap", [True, False], ids=["bwrap", "no-bwrap"])
def test_a_fork_bomb_is_capped_at_max_procs_with_or_without_bwrap(launch, bwrap, monkeypatch):
    if not bwrap:  # the cap is the caller's number either way: bwrap's own processes count only when it runs
        monkeypatch.setattr(sandbox, "_bwrap_works", lambda: False)
        monkeypatch.setattr(sandbox, "_unisolated_allowed", True)  # as --allow-unisolated, under CI too
    elif not sandbox._bwrap_works():
        pytest.skip("bubblewrap is not usable here")
    if "no process cap" in sandbox.isolation():
        if os.environ.get("CI"):
            pytest.fail(f"CI needs a process cap: {sandbox.isolation()}")
        pytest.skip(sandbox.isolation())
    done = python(FORK_BOMB, timeout=20, max_procs=64)
    assert not done.timed_out
    assert int(done.stdout) < 64
    again = python("print('fine')")
    assert again.returncode == 0 and again.stdout == "fine\n"


def _pids_group(out: str) -> str:
    return next(line.split(":")[-1] for line in out.splitlines() if ":pids:" in line or line.startswith("0::"))


def _needs_pids_cgroup() -> None:
    if "pids cgroup" not in sandbox.isolation():
        pytest.skip(sandbox.isolation())


def test_a_run_is_in_a_pids_cgroup_of_its_own_when_one_can_be_made(launch):
    # The child joins by moving its one thread (cgroup v1 `tasks`), the cheap move: it must still land there.
    _needs_pids_cgroup()
    with ThreadPoolExecutor(2) as pool:  # two runs at once never share a group
        outs = list(pool.map(lambda _: python("import time; time.sleep(0.5); print(open('/proc/self/cgroup').read())",
                                              max_procs=64).stdout, range(2)))
    groups = [_pids_group(out) for out in outs]
    assert all("/codewalk-" in g for g in groups) and groups[0] != groups[1], groups


@pytest.fixture
def own_groups(monkeypatch):
    """This test's runs start with no idle group to reuse, and remove theirs at its end."""
    monkeypatch.setattr(sandbox, "_idle_groups", {})
    yield
    sandbox._remove_idle_groups()


def test_an_emptied_pids_cgroup_is_reused_and_one_with_a_member_left_is_not(launch, own_groups):
    _needs_pids_cgroup()
    show = "print(open('/proc/self/cgroup').read())"
    first = _pids_group(python(show, max_procs=64).stdout)
    group = sandbox._pids_root() / Path(first).name
    deadline = time.monotonic() + 5
    while (group / "pids.current").read_text().strip() != "0" and time.monotonic() < deadline:
        time.sleep(0.01)  # the kernel reaps a killed run's last members a moment after it returns
    assert _pids_group(python(show, max_procs=64).stdout) == first  # its members are gone: reused
    straggler = subprocess.Popen(["sleep", "30"])
    try:
        (group / "cgroup.procs").write_text(str(straggler.pid))  # as if a process outlived its run
        assert _pids_group(python(show, max_procs=64).stdout) != first
    finally:
        straggler.kill()
        straggler.wait()


def test_runs_in_threads_never_take_the_same_idle_pids_cgroup(own_groups):
    """inspect scores samples in threads: two of them once both saw one idle group and the second popped an
    empty queue (IndexError), or both ran in one group."""
    _needs_pids_cgroup()
    held: set[Path] = set()
    guard = threading.Lock()
    errors: list[str] = []

    def take(_):
        for _ in range(200):
            with sandbox._pids_cgroup(64) as member:
                with guard:
                    if member in held:
                        errors.append(f"{member} held twice")
                    held.add(member)
                with guard:
                    held.discard(member)

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(take, range(8)))
    assert errors == []


@pytest.mark.parametrize("bwrap", [True, False], ids=["bwrap", "no-bwrap"])
def test_back_to_back_runs_each_get_their_whole_process_cap(bwrap, monkeypatch):
    """What an isolated run leaves charged to its group for a while (bwrap's namespace init, reaped late by
    PID 1) must not count against the next run: one group per worker would give the fork bomb fewer."""
    _needs_pids_cgroup()
    if not bwrap:
        monkeypatch.setattr(sandbox, "_bwrap_works", lambda: False)
        monkeypatch.setattr(sandbox, "_unisolated_allowed", True)
    elif not sandbox._bwrap_works():
        pytest.skip("bubblewrap is not usable here")
    for _ in range(5):
        with workdir() as cwd:
            run(["true"], cwd=cwd, timeout=10, max_procs=16)
    done = python(FORK_BOMB, timeout=20, max_procs=16)
    assert int(done.stdout) == 16 - 1  # the cap counts the bomb itself (bwrap's own two come on top)


def _run_true() -> int:
    with workdir() as cwd:
        run(["true"], cwd=cwd, timeout=10)
    return os.getpid()


@pytest.mark.parametrize("how", ["process", "pool worker"])
def test_a_process_removes_its_pids_cgroups_when_it_ends(how):
    _needs_pids_cgroup()
    if how == "process":
        code = "from tests.test_sandbox import _run_true; print(_run_true())"
        pid = int(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                                 check=True).stdout)
    else:
        with ProcessPoolExecutor(1) as pool:
            pid = pool.submit(_run_true).result()
    assert list(sandbox._pids_root().glob(f"codewalk-{pid}-*")) == []


def test_memory_hog_gets_memory_error_and_a_nonzero_exit(launch):
    done = python("block = bytearray(2 * 1024**3)", memory_mb=256)
    assert done.returncode != 0
    assert "MemoryError" in done.stderr


def test_cpu_limit_stops_a_busy_loop_before_the_wall_clock_timeout(launch):
    done = python("while True: pass", timeout=30, cpu_seconds=1)
    assert not done.timed_out  # stopped by the CPU limit, however loaded the machine, not by the clock
    # killed by the kernel for its CPU time: SIGXCPU or SIGKILL, directly or as a shell reports it
    assert done.returncode in (-signal.SIGXCPU, -signal.SIGKILL, 128 + signal.SIGXCPU, 128 + signal.SIGKILL)


def test_output_beyond_the_file_size_limit_is_cut_off(launch):
    done = python("import sys\nfor _ in range(4096): sys.stdout.write('x' * 1024)", max_file_mb=1)
    assert done.returncode != 0
    assert len(done.stdout) <= 1024 * 1024


def test_environment_holds_only_path_home_lang_and_what_the_caller_passes(monkeypatch):
    monkeypatch.setenv("CODEWALK_SECRET", "hunter2")
    with workdir() as cwd:
        done = run([PY, "-c", "import json, os; print(json.dumps(dict(os.environ)))"], cwd=cwd, timeout=10,
                   env={"EXTRA": "1"})
    env = json.loads(done.stdout)
    assert "CODEWALK_SECRET" not in env and "hunter2" not in done.stdout
    # LC_CTYPE may be added by the child Python's own locale coercion, PWD by bubblewrap, TMPDIR with it
    assert set(env) - {"LC_CTYPE", "PWD", "TMPDIR"} == {"PATH", "HOME", "LANG", "EXTRA"}
    assert env["HOME"] == str(cwd)


def test_stdout_stderr_stdin_and_exit_code_are_captured():
    done = python("import sys; print(sys.stdin.read().upper()); print('oops', file=sys.stderr); sys.exit(3)",
                  stdin="hello")
    assert (done.returncode, done.stdout, done.stderr, done.timed_out) == (3, "HELLO\n", "oops\n", False)


def test_runs_in_the_given_directory_which_workdir_removes_afterwards():
    with workdir() as cwd:
        done = run([PY, "-c", "open('made.txt', 'w').write('x')"], cwd=cwd, timeout=10)
        assert done.returncode == 0 and (cwd / "made.txt").exists()
    assert not cwd.exists()


def test_a_command_that_cannot_start_is_an_infra_error():
    with workdir() as cwd, pytest.raises(InfraError, match="cannot start"):
        run(["/nonexistent/tool"], cwd=cwd, timeout=10)


def test_the_child_leads_its_own_session():
    done = python("import os; print(os.getsid(0) == os.getpid())", isolate=False)
    assert done.stdout.strip() == "True"


def test_ci_machines_isolate_untrusted_code():
    if not os.environ.get("CI"):
        pytest.skip("checked where CI installs bubblewrap")
    assert sandbox._bwrap_works(), sandbox.isolation()


@pytest.mark.parametrize(("value", "ci"), [(None, False), ("", False), ("false", False), ("0", False),
                                           ("true", True), ("1", True), ("TRUE", True)])
def test_ci_is_set_only_by_a_true_value(monkeypatch, value, ci):
    if value is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", value)
    assert sandbox.under_ci() is ci
