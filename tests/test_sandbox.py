"""The sandbox under real faults: runaway loops, SIGTERM-proof grandchildren, memory hogs, leaked secrets."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from codewalk.errors import InfraError
from codewalk.sandbox import run, workdir

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


def test_grandchild_ignoring_sigterm_is_dead_after_a_timeout():
    done = python(SPAWN_STUBBORN_GRANDCHILD + "import time; time.sleep(60)", timeout=2)
    assert done.timed_out
    assert is_dead(int(done.stdout))


def test_grandchild_left_behind_by_a_normal_exit_is_killed_too():
    done = python(SPAWN_STUBBORN_GRANDCHILD)
    assert not done.timed_out and done.returncode == 0
    assert is_dead(int(done.stdout))


def test_memory_hog_gets_memory_error_and_a_nonzero_exit():
    done = python("block = bytearray(2 * 1024**3)", memory_mb=256)
    assert done.returncode != 0
    assert "MemoryError" in done.stderr


def test_cpu_limit_stops_a_busy_loop_before_the_wall_clock_timeout():
    done = python("while True: pass", timeout=10, cpu_seconds=1)
    assert not done.timed_out
    assert done.returncode != 0
    assert done.duration < 5


def test_output_beyond_the_file_size_limit_is_cut_off():
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
    # LC_CTYPE may be added by the child Python's own locale coercion
    assert set(env) - {"LC_CTYPE"} == {"PATH", "HOME", "LANG", "EXTRA"}
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
    done = python("import os; print(os.getsid(0) == os.getpid())")
    assert done.stdout.strip() == "True"
