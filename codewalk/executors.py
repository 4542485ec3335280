"""Where admission runs its verifiers: a `concurrent.futures.Executor` chosen by a spec string.

* ``local`` (the default): a process pool of ``workers`` processes on this machine, or this process
  itself when ``workers`` is 1.
* ``dask://HOST:PORT``: an existing Dask distributed scheduler, through ``Client.get_executor()``.
  Its workers need codewalk and the domain's plugin installed (and the domain's tools: git, javac,
  frama-c, ...), since each verifier call runs there.
* ``dask-local``: a Dask ``LocalCluster`` of ``workers`` single-threaded processes on this machine,
  the same engine as a remote cluster (for trying it, and for tests).

Only the verifier calls move; walks and store writes stay in the calling process, which takes results
in submission order, so every executor gives the same tasks for the same seed.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any

from .errors import UsageError
from .staging import StagedPool


class Inline(Executor):
    """One worker: run in this process, at submit, so Ctrl-C stops between attempts."""

    def submit(self, fn: Callable, /, *args: Any, **kwargs: Any) -> Future:
        future: Future = Future()
        future.set_result(fn(*args, **kwargs))
        return future


class DaskExecutor(Executor):
    """`Client.get_executor()` with the Executor protocol admission uses, closing what it opened."""

    def __init__(self, address: str | None, workers: int):
        try:
            from distributed import Client, LocalCluster
        except ImportError as e:
            raise UsageError("a Dask executor needs dask[distributed]: pip install 'codewalk[dask]'") from e
        self.cluster = None
        if address is None:
            self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                        dashboard_address=None)
            address = self.cluster.scheduler_address
        try:
            self.client = Client(address, timeout=30)
        except OSError as e:
            if self.cluster:
                self.cluster.close()
            raise UsageError(f"no Dask scheduler answers at {address}: {e}") from e
        # pure=False: a verifier call is run every time, never served from an earlier identical key
        self.inner = self.client.get_executor(pure=False)

    @property
    def slots(self) -> int:
        return max(1, sum(self.client.nthreads().values()))

    def submit(self, fn: Callable, /, *args: Any, **kwargs: Any) -> Future:
        return self.inner.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.inner.shutdown(wait=wait and not cancel_futures)
        self.client.close()
        if self.cluster:
            self.cluster.close()


def open_executor(spec: str | None, workers: int) -> tuple[Executor, int]:
    """The executor named by `spec` and how many calls to keep in flight on it."""
    spec = (spec or "local").strip()
    if spec == "local":
        if workers > 1:
            return StagedPool(workers), 2 * workers
        return Inline(), 1  # inline work runs at submit: keep nothing ahead
    if spec == "dask-local" or spec.startswith("dask://"):
        address = None if spec == "dask-local" else "tcp://" + spec.removeprefix("dask://")
        dask = DaskExecutor(address, workers)
        return dask, 2 * dask.slots
    raise UsageError(f"unknown executor {spec!r}: use local, dask-local or dask://HOST:PORT")
