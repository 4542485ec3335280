"""`cw demo`: build the demo graph in the store, walk it at N = 1, 2, 3, admit tasks, report yields."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .admission import WalkSummary, walk_and_admit
from .loading import LoadSummary, load
from .records import Task
from .runtime import sandbox
from .store import GraphStore

LEVELS = (1, 2, 3)


def run_demo(
    store: GraphStore,
    seed: int = 0,
    count: int = 5,
    workers: int = 1,
    on_task: Callable[[Task, WalkSummary], None] | None = None,
) -> tuple[LoadSummary, list[WalkSummary], str]:
    from .loaders.demo import CATALOGUE

    # the demo's atoms, references and candidates are codewalk's own code: without bubblewrap they may run
    # unisolated, which `note` tells the user (code from anywhere else is refused there)
    with sandbox.unisolated_for("the demo runs only codewalk's own code") as note:
        loaded = load(store, "demo", Path(CATALOGUE))
        runs = [
            walk_and_admit(store, "demo", n, count=count, seed=seed + n, max_attempts=10 * count,
                           workers=workers, on_task=on_task)
            for n in LEVELS
        ]
    return loaded, runs, note
