"""The docker runtime in tests: a real daemon (DOCKER_HOST) and a base image, or a skip that says why.

Under CI (CI=true) a missing daemon or base image fails the test instead: CI runs .ci/docker.sh first, which
starts dockerd and imports a Debian base image built without any registry (CODEWALK_DOCKER_BASE)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from codewalk import runtime
from codewalk.domains.repair import containers
from codewalk.domains.repair.env import EnvSpec
from codewalk.errors import RuntimeUnavailable
from codewalk.runtime import sandbox

# This session's label value: what it leaves behind can be told from anyone else's on the same daemon.
os.environ.setdefault("CODEWALK_DOCKER_LABEL", f"test-{uuid.uuid4().hex[:12]}")


def require() -> None:
    """Skip (fail under CI) unless a daemon answers and the base image the fixtures need is here."""
    why = _missing()
    if why:
        if sandbox.under_ci():
            pytest.fail(f"CI needs the docker runtime: {why}")
        pytest.skip(why)


def _missing() -> str:
    try:
        client = runtime.client()
    except RuntimeUnavailable as e:
        runtime.forget_client()  # a daemon started later is found
        return f"{e} (.ci/docker.sh starts one)"
    base = containers.base_image(EnvSpec(python=f"{sys.version_info.major}.{sys.version_info.minor}"))
    if not client.images.list(name=base):
        return (f"the base image {base} is not here and this machine may reach no registry: set "
                f"{containers.BASE} to a local image (.ci/docker.sh builds codewalk-base:bookworm)")
    return ""


def ours(kind: str | None = None) -> list:
    """The containers this test session made that are still there (there should be none); with `kind`, only
    those of that kind ("run": a test run's, not an image build's step)."""
    from docker.errors import NotFound

    labels = [f"{runtime.LABEL}={os.environ['CODEWALK_DOCKER_LABEL']}"] + ([f"{runtime.KIND}={kind}"] if kind else [])
    for _ in range(20):
        try:
            return runtime.client().containers.list(all=True, filters={"label": labels})
        except NotFound:  # removed (in the background) between the listing and its inspection: list again
            time.sleep(0.1)
    return runtime.client().containers.list(all=True, filters={"label": labels})


@contextmanager
def registry(root: Path) -> Iterator[str]:
    """An image registry of the test's own (Debian's docker-registry, on a free port of 127.0.0.1, which
    dockerd reaches without TLS); yields its host:port. Skips (fails under CI) when it is not installed."""
    binary = shutil.which("docker-registry")
    if not binary:
        why = "no docker-registry (apt-get install docker-registry; .ci/docker.sh installs it)"
        if sandbox.under_ci():
            pytest.fail(f"CI needs a registry for the pull test: {why}")
        pytest.skip(why)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    (root / "storage").mkdir(parents=True)
    config = root / "config.yml"
    config.write_text(f"version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: {root / 'storage'}\n"
                      f"http:\n  addr: 127.0.0.1:{port}\n")
    proc = subprocess.Popen([binary, "serve", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        else:
            pytest.fail("the test's registry did not start listening within 10 s")
        yield f"127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(30)
