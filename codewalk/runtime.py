"""Where code from a repository or a model runs: the `local` runtime or the `docker` runtime.

`local` (the default, no daemon needed) runs host tools in the sandbox (codewalk.sandbox: bubblewrap where
installed). `docker` runs each test run in a fresh container of an image pinned to the task's environment,
as the paper and SWE-rebench run repair (codewalk.domains.repair.containers). A domain lists the runtimes
it supports in `Domain.runtimes`; asking another one is a usage error (exit 2). `cw load`, `cw walk` and
`cw grade` take `--runtime`, else CODEWALK_RUNTIME, else local.

The docker runtime talks to the daemon at DOCKER_HOST through the `docker` SDK. Everything codewalk creates
there carries the label LABEL (value: CODEWALK_DOCKER_LABEL, else this host's name), so `docker ps -a --filter
label=codewalk` lists it, a test can find only its own, and Ctrl-C removes the containers a process started
(`forget`, `remove_all`).
"""

from __future__ import annotations

import atexit
import os
import socket
import threading
import uuid
from functools import cache
from typing import TYPE_CHECKING, Any

from .errors import RuntimeUnavailable, UsageError

if TYPE_CHECKING:
    from .domain import Domain

RUNTIMES = ("local", "docker")
ENV = "CODEWALK_RUNTIME"
LABEL = "codewalk"  # on every container and image codewalk makes
KIND = "codewalk.kind"  # "run" (a test run's container) or "environment" (an image codewalk built)

_live: set[str] = set()  # names of the containers this process created (or is creating) and has not removed
_lock = threading.Lock()


def resolve(name: str | None = None) -> str:
    """The runtime asked for (argument, else CODEWALK_RUNTIME, else local); an unknown name is a UsageError."""
    name = (name or os.environ.get(ENV) or "local").strip().lower()
    if name not in RUNTIMES:
        raise UsageError(f"unknown runtime {name!r} (--runtime or {ENV}): choose one of {', '.join(RUNTIMES)}")
    return name


def choose(domain: Domain, name: str | None = None, *, pull: bool = True, check: bool = True) -> str:
    """Set the domain's runtime (and whether a missing image may be pulled): a UsageError when the domain
    does not support it, RuntimeUnavailable when docker is asked and no daemon answers (unless not check:
    a worker process, after its parent checked). Returns the runtime's name."""
    name = resolve(name)
    if name not in domain.runtimes:
        raise UsageError(f"domain {domain.name!r} does not support --runtime {name} "
                         f"(it supports: {', '.join(domain.runtimes)})")
    if name == "docker" and check:
        client()
    domain.runtime, domain.pull = name, pull
    return name


def labels(kind: str, **more: str) -> dict[str, str]:
    return {LABEL: os.environ.get("CODEWALK_DOCKER_LABEL") or socket.gethostname(), KIND: kind, **more}


@cache
def client() -> Any:  # docker.DockerClient (mypy takes the repository's docker/ folder for the SDK)
    """The Docker client for DOCKER_HOST (else the SDK's default socket); RuntimeUnavailable if no daemon."""
    from docker.errors import DockerException

    import docker

    where = os.environ.get("DOCKER_HOST") or "unix:///var/run/docker.sock (DOCKER_HOST is not set)"
    try:
        found = docker.from_env(timeout=120)  # type: ignore[attr-defined]
        found.ping()
    except (DockerException, OSError) as e:
        raise RuntimeUnavailable(f"--runtime docker: no Docker daemon answers at DOCKER_HOST={where} "
                                 f"({type(e).__name__}); start one (.ci/docker.sh) or use --runtime local") \
            from None
    return found


def container_name(kind: str) -> str:
    """A new container's name, remembered before the container is asked for: Ctrl-C while the daemon creates
    it (the reply not yet read) or the end of the process still removes it by that name."""
    name = f"codewalk-{kind}-{uuid.uuid4().hex[:16]}"
    with _lock:
        _live.add(name)
    return name


def forget(name: str) -> None:
    """Remove a container by name (forced: it may still run; absent: nothing to do) and stop tracking it."""
    from docker.errors import DockerException

    try:
        client().api.remove_container(name, force=True)
    except DockerException:  # never created, or already gone
        pass
    with _lock:
        _live.discard(name)


@atexit.register
def remove_all() -> None:
    """Remove every container this process created and has not removed (Ctrl-C, an exception, exit)."""
    with _lock:
        left = sorted(_live)
    for name in left:
        forget(name)
