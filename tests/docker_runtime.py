"""The docker runtime in tests: a real daemon (DOCKER_HOST) and a base image, or a skip that says why.

Under CI (CI=true) a missing daemon or base image fails the test instead: CI runs .ci/docker.sh first, which
starts dockerd and imports a Debian base image built without any registry (CODEWALK_DOCKER_BASE)."""

from __future__ import annotations

import os
import sys
import uuid

import pytest

from codewalk import runtime, sandbox
from codewalk.domains.repair import containers
from codewalk.domains.repair.env import EnvSpec
from codewalk.errors import RuntimeUnavailable

# This session's label value: what it leaves behind can be told from anyone else's on the same daemon.
os.environ.setdefault("CODEWALK_DOCKER_LABEL", f"test-{uuid.uuid4().hex[:12]}")


def require() -> None:
    """Skip (fail under CI) unless a daemon answers and the base image the fixtures need is here."""
    why = _missing()
    if why:
        if sandbox.required_by_default():
            pytest.fail(f"CI needs the docker runtime: {why}")
        pytest.skip(why)


def _missing() -> str:
    try:
        client = runtime.client()
    except RuntimeUnavailable as e:
        runtime.client.cache_clear()  # a daemon started later is found
        return f"{e} (.ci/docker.sh starts one)"
    base = containers.base_image(EnvSpec(python=f"{sys.version_info.major}.{sys.version_info.minor}"))
    if not client.images.list(name=base):
        return (f"the base image {base} is not here and this machine may reach no registry: set "
                f"{containers.BASE} to a local image (.ci/docker.sh builds codewalk-base:bookworm)")
    return ""


def ours() -> list:
    """The containers this test session made that are still there (there should be none)."""
    label = f"{runtime.LABEL}={os.environ['CODEWALK_DOCKER_LABEL']}"
    return runtime.client().containers.list(all=True, filters={"label": label})
