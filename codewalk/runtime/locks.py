"""A file lock between worker processes, for a result one of them builds and all of them use (a repair
environment, the clone harness). Time spent blocked is counted (codewalk.runtime.meter): it is neither a tool's
time nor codewalk's own."""

from __future__ import annotations

import fcntl
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from . import meter


@contextmanager
def locked(path: Path, blocking: bool = True) -> Iterator[bool]:
    """An exclusive lock on a file for the duration of the block; yields False if non-blocking and busy."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        started = time.monotonic()
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
            meter.waited(time.monotonic() - started)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
