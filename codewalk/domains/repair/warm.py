"""What makes the docker runtime's test runs cheap, kept apart from the plain path (containers.py): containers
started ahead of time, and codewalk's agent in each (harness/agent.py) serving runs over the attach stream.

Both pay for themselves (bench/README.md, "Repair in containers"). Without spares every session waits for a
container's start: on `bench/admission.py --domains repair --runtime docker` the workers spent 9-10 s starting
containers instead of 1-1.7 s. Without the agent every run waits for a `put_archive` and a `docker exec` (a runc
start each) and an interpreter's start: `bench/docker_steps.py` measured 0.25 s a run against 0.009 s.

- `Spares`: one container per image and memory limit in each process, started while the last group's tests
  run; a session takes the one ready and the next starts behind it. runtime.release drops them.
- `Agent`: the host's end of the agent. A run is one request on the container's stdin (the reset, the tar of
  the run's files, then the harness forked from the agent); the harness's output comes back framed by
  docker (the SDK's frames_iter reads it), ending with a mark and the exit code. The container is created
  with stdin_once: when this process's stream closes (its end, kill -9 too) the agent exits and the
  container stops.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import socket
import struct
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, NamedTuple

from codewalk import runtime
from codewalk.errors import InfraError
from codewalk.runtime import meter

from .runs import Image


class Agent:
    """The host's end of a container's agent (harness/agent.py): requests written to its stdin, its output
    read from the attach stream."""

    def __init__(self, attached: Any) -> None:
        self.attached = attached  # the SDK's attach socket: a read-only socket.SocketIO, or a socket (TLS)
        # the requests' way in: the socket itself, or (a SocketIO, opened for reading) a socket on a copy of
        # its descriptor
        self.writer = attached if hasattr(attached, "sendall") else socket.socket(fileno=os.dup(attached.fileno()))

    def run(self, container: Any, reset: str, files: bytes, timeout: float, harness: str, config: str) \
            -> tuple[int | None, str]:
        """One run: (the harness's exit code, what it printed); (None, "") when it outlived timeout (the
        container is killed, which ends the stream)."""
        from docker.utils.socket import frames_iter

        end = secrets.token_hex(8)
        header = json.dumps({"reset": reset, "tar": len(files), "end": end, "harness": harness,
                             "config": config}).encode()
        self.writer.settimeout(timeout)  # a copied descriptor may come non-blocking: wait as long as the run may
        self.writer.sendall(struct.pack(">Q", len(header)) + header + files)
        mark = re.compile(rb"\n" + end.encode() + rb" (\d+)\n")
        late = threading.Event()
        killer = threading.Timer(timeout, _kill, (container, late))
        killer.daemon = True
        killer.start()
        out = b""
        try:
            for _, chunk in frames_iter(self.attached, tty=False):
                out += chunk
                if found := mark.search(out, max(0, len(out) - len(chunk) - len(end) - 32)):
                    return int(found.group(1)), out[:found.start()].decode("utf-8", "replace")
        finally:
            killer.cancel()
        if late.is_set():
            return None, ""
        # the agent is gone (no Python in the image, killed): what the container said
        logs = container.logs(stdout=True, stderr=True, tail=20)
        return 127, (out + b"\n" + logs).decode("utf-8", "replace")

    def close(self) -> None:
        for end in {id(self.writer): self.writer, id(self.attached): self.attached}.values():
            try:
                end.close()
            except OSError:
                pass


def _kill(container: Any, late: threading.Event) -> None:
    from docker.errors import DockerException

    late.set()
    try:
        container.kill()
    except DockerException:  # it ended meanwhile
        pass


class Started(NamedTuple):
    """A container whose agent runs and is attached, ready for a run."""

    name: str
    container: Any
    agent: Agent


class Spares:
    """Containers started ahead of time, one per image and memory limit: a session takes the one ready (its
    start overlapped the last group's tests) and the next starts behind it. runtime.release drops them."""

    def __init__(self, start: Callable[[Image, int], Started]) -> None:
        self.start = start  # a new container of an image with a memory limit (containers.start)
        self.ready: dict[tuple[str, int], Future] = {}
        self.lock = threading.Lock()
        self.starter: ThreadPoolExecutor | None = None
        self.hooked = False

    def take(self, image: Image, memory_mb: int) -> Started:
        key = (image.tag, memory_mb)
        with self.lock:
            ahead = self.ready.pop(key, None)
        self.prime(image, memory_mb)
        meter.reuse("repair: container started ahead", ahead is not None)
        return ahead.result() if ahead else self.start(image, memory_mb)

    def prime(self, image: Image, memory_mb: int) -> None:
        """Start one of image (unless one is ready or starting): the first session of a process, told the
        image while its tree is still being prepared, waits less."""
        key = (image.tag, memory_mb)
        with self.lock:
            if key in self.ready:
                return
            if not self.hooked:  # the first since the last release: drop what is left at the next one
                runtime.on_release(self.drop)
                self.hooked = True
            if self.starter is None:
                self.starter = ThreadPoolExecutor(1, thread_name_prefix="codewalk-spare")
            self.ready[key] = self.starter.submit(self.start, image, memory_mb)

    def drop(self) -> None:
        with self.lock:
            ready, self.ready, self.hooked = list(self.ready.values()), {}, False
        for future in ready:
            try:
                started = future.result()
            except InfraError:  # never started; its name, if it got one, is removed by the release
                continue
            started.agent.close()
            runtime.forget(started.name)

