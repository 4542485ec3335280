"""A process pool that leaves nothing in the temp dir, however its workers end (below the domains, which use
it too: the complexity load)."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path


class StagedPool(ProcessPoolExecutor):
    """A process pool whose workers make their temporary files (each verifier call's folder: a repair run's
    tree and harness, staged there before they go into a container) inside one folder of the pool's, removed
    at shutdown, once the workers are gone. A worker stopped mid-way (Ctrl-C or SIGTERM while it removes its
    own folder, or the pool terminating its workers once one has died) would otherwise leave its folder in
    the temp dir; this process removes them all."""

    EXIT_WAIT = 30.0  # seconds an interrupted worker gets to exit before its folder is removed all the same

    def __init__(self, workers: int) -> None:
        self.staging = Path(tempfile.mkdtemp(prefix="codewalk-pool-"))
        super().__init__(workers, initializer=_stage_in, initargs=(str(self.staging),))

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        workers = list((getattr(self, "_processes", None) or {}).values())  # gone from the pool after shutdown
        super().shutdown(wait=wait, cancel_futures=cancel_futures)
        deadline = time.monotonic() + self.EXIT_WAIT
        for worker in workers:
            worker.join(max(0.0, deadline - time.monotonic()))
        shutil.rmtree(self.staging, ignore_errors=True)


def _stage_in(folder: str) -> None:
    """A worker's temporary files (tempfile's, its tools' through TMPDIR) go in the pool's folder."""
    os.environ["TMPDIR"] = folder
    tempfile.tempdir = folder
