"""Run one verifier command: own session, resource limits, a minimal environment and a hard timeout.

Every verifier call goes through `run`. The command starts a new session, so its whole process tree
shares one process group that is SIGKILLed when the call ends (on timeout, and also after a normal exit
so no stray grandchild outlives it). Limits are set between fork and exec. The environment carries
nothing of the caller's (no tokens, no store passwords). Known gaps, where containers are the stronger
boundary: a process that calls setsid() itself leaves the group and escapes the kill, and
RLIMIT_NPROC counts every process of the user and does not apply to root at all.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .errors import InfraError

MB = 1024 * 1024


@dataclass(frozen=True)
class Completed:
    returncode: int  # negative: killed by that signal (-9 after a timeout)
    stdout: str
    stderr: str
    timed_out: bool
    duration: float  # wall-clock seconds


def run(cmd: list[str], *, cwd: Path, timeout: float, stdin: str | None = None, memory_mb: int = 1024,
        cpu_seconds: int | None = None, max_procs: int | None = 256, max_file_mb: int = 64,
        env: dict | None = None) -> Completed:
    """Run cmd in cwd and capture its output; raise InfraError only if it cannot be started."""
    limits = {resource.RLIMIT_AS: memory_mb * MB, resource.RLIMIT_FSIZE: max_file_mb * MB,
              resource.RLIMIT_CORE: 0}
    if cpu_seconds is not None:  # without it the wall-clock timeout is the only bound on CPU
        limits[resource.RLIMIT_CPU] = cpu_seconds
    if max_procs is not None and os.geteuid() != 0:  # root ignores it: only the timeout stops a fork bomb
        limits[resource.RLIMIT_NPROC] = max_procs
    # An unprivileged process cannot raise a hard limit, so never ask for more than the current one.
    limits = {what: _at_most_hard(what, value) for what, value in limits.items()}

    def set_limits() -> None:  # runs in the child between fork and exec
        for what, value in limits.items():
            resource.setrlimit(what, (value, value))

    # Output goes to files, not pipes: RLIMIT_FSIZE then caps how much a runaway writer can produce, and
    # a grandchild holding the output open cannot make the call wait past its timeout.
    with tempfile.TemporaryFile() as inp, tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        inp.write((stdin or "").encode())
        inp.seek(0)
        base = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(cwd), "LANG": "C.UTF-8"}
        start = time.monotonic()
        try:
            proc = subprocess.Popen(cmd, cwd=cwd, stdin=inp, stdout=out, stderr=err, env=base | (env or {}),
                                    start_new_session=True, preexec_fn=set_limits)
        except OSError as e:
            raise InfraError(f"cannot start {cmd[0]}: {e}") from e
        try:
            proc.wait(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            # The group id is the leader's pid (new session); the kernel does not reuse it while any member
            # lives. SIGKILL cannot be trapped, so children that ignore SIGTERM die too.
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:  # nobody left in the group
                pass
            proc.wait()
        duration = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        return Completed(proc.returncode, out.read().decode(errors="replace"),
                         err.read().decode(errors="replace"), timed_out, duration)


def _at_most_hard(what: int, value: int) -> int:
    hard = resource.getrlimit(what)[1]
    return value if hard == resource.RLIM_INFINITY else min(value, hard)


@contextmanager
def workdir() -> Iterator[Path]:
    """A fresh temporary directory for one verifier call, removed afterwards whatever happened."""
    with tempfile.TemporaryDirectory(prefix="codewalk-", ignore_cleanup_errors=True) as path:
        yield Path(path)
