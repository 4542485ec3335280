"""Where code from a repository or a model runs: the `local` runtime or the `docker` runtime.

`local` (the default, no daemon needed) runs host tools in the sandbox (codewalk.runtime.sandbox: bubblewrap where
installed). `docker` runs each test run in a fresh container of an image pinned to the task's environment,
as the paper and SWE-rebench run repair (codewalk.domains.repair.containers). A domain lists the runtimes
it supports in `Domain.runtimes`; asking another one is a usage error (exit 2). `cw load`, `cw walk`, `cw grade`
and `cw mine repair` take `--runtime`, else CODEWALK_RUNTIME, else local: the command builds its Runtime once
(`build`, `ready`) and hands it to the domain inside its Settings (codewalk.domain), in every worker too; callers
use it through its methods (LocalRuntime, DockerRuntime), never by comparing its name.

The docker runtime talks to the daemon at DOCKER_HOST through the `docker` SDK. Everything codewalk creates
there carries the label LABEL (value: CODEWALK_DOCKER_LABEL, else this host's name), so `docker ps -a --filter
label=codewalk` lists it, a test can find only its own, and Ctrl-C (or SIGTERM) removes the containers a process
started (`forget`, `release`). A container also names its owner process (OWNER: this machine, the pid, and the
process's boot and start time, so a recycled pid is not taken for it): a process killed outright (`kill -9`)
cannot remove its containers, so the first use of the daemon in every process removes those of the same LABEL
whose owner on this machine is gone (`reap`). A container whose work is done is removed behind the caller's back (`forget_later`),
off the path of the next run; `release` (the end of a walk or a grading, the end of the process, a worker
process's end) waits for those removals, drops what was started ahead of time (`on_release`) and removes
whatever is left. All of this state, and what a domain keeps per process beside it (`DockerRuntime.kept`), is
one object per process (`_Process`), which a forked worker gets new: the one fork hook of codewalk.
"""

from __future__ import annotations

import atexit
import os
import socket
import threading
import uuid
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from multiprocessing import util as mp_util
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

from ..errors import RuntimeUnavailable, UsageError

if TYPE_CHECKING:
    from docker import DockerClient

RUNTIMES = ("local", "docker")
ENV = "CODEWALK_RUNTIME"
LABEL = "codewalk"  # on every container and image codewalk makes
KIND = "codewalk.kind"  # "run" (a test run's container) or "environment" (an image codewalk built)
# A container's owner: this machine, and the process that must remove it (pid, and boot:start time of that pid)
OWNER_HOST, OWNER_PID, OWNER_START = "codewalk.owner.host", "codewalk.owner.pid", "codewalk.owner.start"

T = TypeVar("T")


class _Process:
    """What the docker runtime keeps in one process: its clients, the containers it started, the removals
    under way, the release hooks, and what a domain keeps per process beside them (`DockerRuntime.kept`:
    repair's images known present and its containers started ahead). A forked worker owns none of its
    parent's: it starts with a new one (`_in_a_new_child`, the one fork hook)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.clients: dict[str, DockerClient] = {}  # by DOCKER_HOST
        self.live: set[str] = set()  # names of the containers this process created (or is creating), not removed
        self.removals: list[Future] = []  # forget_later's, not yet waited for
        self.remover: ThreadPoolExecutor | None = None
        self.hooks: list[Callable[[], None]] = []  # on_release's
        self.finalized = False  # release registered for this process's end (a worker skips atexit)
        self.kept: dict[type, Any] = {}  # DockerRuntime.kept's, by their type


_process = _Process()


def _in_a_new_child() -> None:
    global _process
    _process = _Process()  # another thread may have held the old one's lock at the fork


os.register_at_fork(after_in_child=_in_a_new_child)


def resolve(name: str | None = None) -> str:
    """The runtime asked for (argument, else CODEWALK_RUNTIME, else local); an unknown name is a UsageError."""
    name = (name or os.environ.get(ENV) or "local").strip().lower()
    if name not in RUNTIMES:
        raise UsageError(f"unknown runtime {name!r} (--runtime or {ENV}): choose one of {', '.join(RUNTIMES)}")
    return name


class Runtime(Protocol):
    """Where code from a repository or a model runs. Built once (`build`) from --runtime or CODEWALK_RUNTIME,
    handed to the domain inside its Settings in the parent and in every worker; used through its methods."""

    @property
    def name(self) -> str: ...  # local or docker

    @property
    def containers(self) -> bool: ...  # True: each run in a fresh container (which isolates it by itself)

    @property
    def pull(self) -> bool: ...  # docker: pull an image that is not here (False: `--no-pull`, an error)

    def check(self) -> None:
        """RuntimeUnavailable when it cannot be used here (docker: no daemon answers)."""

    def release(self) -> None:
        """The end of a walk, a grading or a mining: what this process started there goes."""


@dataclass(frozen=True)
class LocalRuntime:
    """Host tools, in the sandbox (codewalk.runtime.sandbox: bubblewrap where installed)."""

    name: str = "local"
    containers: bool = False
    pull: bool = True

    def check(self) -> None:
        pass

    def release(self) -> None:
        pass


@dataclass(frozen=True)
class DockerRuntime:
    """A fresh container per run, of an image pinned to the task's environment, on the daemon at DOCKER_HOST:
    one client per process (`client`) and one set of labels for walks, grades, mining and the agent."""

    name: str = "docker"
    containers: bool = True
    pull: bool = True

    def check(self) -> None:
        client()

    def release(self) -> None:
        release()

    def client(self) -> DockerClient:
        return client()

    def labels(self, kind: str, **more: str) -> dict[str, str]:
        return labels(kind, **more)

    def container_labels(self, kind: str, **more: str) -> dict[str, str]:
        return container_labels(kind, **more)

    def container_name(self, kind: str) -> str:
        return container_name(kind)

    def forget(self, name: str) -> None:
        forget(name)

    def forget_later(self, name: str) -> None:
        forget_later(name)

    def on_release(self, hook: Callable[[], None]) -> None:
        on_release(hook)

    def kept(self, kind: type[T]) -> T:
        """This process's instance of kind (made on first use, none inherited by a forked worker): what a
        domain keeps per process beside the runtime's own state (repair: its images, its spare containers)."""
        with _process.lock:
            found = _process.kept.get(kind)
            if found is None:
                found = _process.kept[kind] = kind()
        return cast(T, found)


def build(name: str | None = None, *, pull: bool = True, check: bool = True) -> Runtime:
    """The runtime asked for (argument, else CODEWALK_RUNTIME, else local), built once per command; docker and
    check: RuntimeUnavailable now when no daemon answers (a worker gets the runtime its parent checked)."""
    found: Runtime = DockerRuntime(pull=pull)
    if resolve(name) == "local":
        found = LocalRuntime(pull=pull)
    if check:
        found.check()
    return found


def ready(asked: Runtime | str | None, domain: str, runtimes: tuple[str, ...], *, pull: bool = True) -> Runtime:
    """The runtime of a load, walk, grading or mining (the one given, else built from its name): a UsageError
    when the domain does not support it, RuntimeUnavailable when it cannot be used here."""
    found = build(asked, pull=pull, check=False) if asked is None or isinstance(asked, str) else asked
    if found.name not in runtimes:
        raise UsageError(f"domain {domain!r} does not support --runtime {found.name} "
                         f"(it supports: {', '.join(runtimes)})")
    found.check()
    return found


def labels(kind: str, **more: str) -> dict[str, str]:
    return {LABEL: _label_value(), KIND: kind, **more}


def container_labels(kind: str, **more: str) -> dict[str, str]:
    """A container's labels: labels(kind), and its owner, this process, so that once the process is gone
    (killed outright) the next process to use the daemon removes it (reap)."""
    return {**labels(kind, **more), OWNER_HOST: _host(), OWNER_PID: str(os.getpid()), OWNER_START: _start(os.getpid())}


def _label_value() -> str:
    return os.environ.get("CODEWALK_DOCKER_LABEL") or socket.gethostname()


def _host() -> str:
    """This machine: its machine id where there is one (a host name can be shared), else its name."""
    try:
        return Path("/etc/machine-id").read_text().strip() or socket.gethostname()
    except OSError:
        return socket.gethostname()


def _start(pid: int) -> str:
    """When pid started, as `boot:ticks` (the boot id and the start time since boot, /proc/PID/stat's 22nd
    field); "" where there is no /proc (then a live pid is taken for the owner); "gone" if pid is not alive."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return "gone"
        except PermissionError:
            pass
        return ""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return "gone"
    fields = stat.rsplit(")", 1)[1].split()
    return "gone" if fields[0] == "Z" else f"{boot}:{fields[19]}"  # a zombie owns nothing any more


def reap(found: Any) -> list[str]:
    """Remove the containers (of this LABEL) whose owner process on this machine is gone; their names."""
    from docker.errors import DockerException

    host, removed = _host(), []
    try:
        listed = found.api.containers(all=True, filters={"label": [f"{LABEL}={_label_value()}",
                                                                   f"{OWNER_HOST}={host}"]})
    except DockerException:
        return []
    for c in listed:
        owner = c.get("Labels") or {}
        pid = owner.get(OWNER_PID, "")
        if not pid.isdigit() or (owner.get(OWNER_START) or "") == _start(int(pid)):
            continue  # its owner runs
        try:
            found.api.remove_container(c["Id"], force=True)
            removed.append((c.get("Names") or [c["Id"]])[0].lstrip("/"))
        except DockerException:  # removed meanwhile (by its owner's last removals, or another reaper)
            pass
    return removed


def client() -> DockerClient:
    """The Docker client for DOCKER_HOST (else the SDK's default socket); RuntimeUnavailable if no daemon.
    One per daemon address and process: a process whose DOCKER_HOST changes talks to the new daemon."""
    host = os.environ.get("DOCKER_HOST", "")
    found = _process.clients.get(host)
    if found is None:
        found = _process.clients[host] = _connect()
    return found


def forget_client() -> None:
    """Drop the clients made so far: the next use connects again (a daemon started since is found)."""
    _process.clients.clear()


def _connect() -> DockerClient:
    from docker.errors import DockerException

    import docker

    where = os.environ.get("DOCKER_HOST") or "unix:///var/run/docker.sock (DOCKER_HOST is not set)"
    try:
        found = docker.from_env(timeout=120)
        found.ping()
    except (DockerException, OSError) as e:
        raise RuntimeUnavailable(f"--runtime docker: no Docker daemon answers at DOCKER_HOST={where} "
                                 f"({type(e).__name__}); start one (.ci/docker.sh) or use --runtime local") \
            from None
    reap(found)  # what processes killed outright left behind, before this one adds its own
    return found


def container_name(kind: str) -> str:
    """A new container's name, remembered before the container is asked for: Ctrl-C while the daemon creates
    it (the reply not yet read) or the end of the process still removes it by that name."""
    name = f"codewalk-{kind}-{uuid.uuid4().hex[:16]}"
    here = _process
    with here.lock:
        here.live.add(name)
        if not here.finalized:  # a multiprocessing worker ends by os._exit: atexit does not run there
            here.finalized = True
            mp_util.Finalize(None, release, exitpriority=10)
    return name


def forget(name: str) -> None:
    """Remove a container by name (forced: it may still run; absent: nothing to do) and stop tracking it."""
    from docker.errors import DockerException

    try:
        client().api.remove_container(name, force=True)
    except DockerException:  # never created, or already gone
        pass
    with _process.lock:
        _process.live.discard(name)


def forget_later(name: str) -> None:
    """forget(name) in a background thread: the caller goes on while the daemon removes it."""
    here = _process
    with here.lock:
        if here.remover is None:
            here.remover = ThreadPoolExecutor(1, thread_name_prefix="codewalk-remove")
        here.removals.append(here.remover.submit(forget, name))


def on_release(hook: Callable[[], None]) -> None:
    """Call hook (once) at the next release, before the containers left are removed."""
    with _process.lock:
        _process.hooks.append(hook)


@atexit.register
def release() -> None:
    """The end of a walk, a grading or the process (Ctrl-C, an exception, exit): the hooks run (what was started
    ahead of time is dropped), pending removals are waited for, and every container this process created and
    has not removed is removed."""
    here = _process
    with here.lock:
        hooks, here.hooks = here.hooks, []
    for hook in hooks:
        hook()
    with here.lock:
        pending, here.removals = here.removals, []
    for future in pending:
        future.result()
    with here.lock:
        left = sorted(here.live)
    for name in left:
        forget(name)
