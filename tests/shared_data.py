"""The real datasets, found through one setting: CODEWALK_SHARED (default ../shared, see codewalk.paths).

A test that needs one calls `require` when it runs, never at import, so a clone without the datasets
still collects and runs everything else. Absent data skips the test, naming the setting; under CI
(CI=true) it fails, as a missing Neo4j does.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from codewalk import paths


def dataset(name: str, *inside: str) -> Path:
    """`$CODEWALK_SHARED/data/<name>/<inside...>`, whether or not it exists (for module constants)."""
    return paths.dataset(name).joinpath(*inside)


def require(name: str, *inside: str) -> Path:
    """`$CODEWALK_SHARED/data/<name>/<inside...>`, or skip (fail under CI) saying how to point at it."""
    path = dataset(name, *inside)
    if not path.exists():
        message = (f"dataset {name!r} not found at {path}: get it with `cw data fetch {name}` "
                   f"(docs/datasets.md), or set CODEWALK_SHARED to the folder that holds data/{name} "
                   "(default: ../shared beside the checkout)")
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path
