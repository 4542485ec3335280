"""Verification results cached by content hash, so a repeated run costs a file read, not a prover run.

The key covers everything a verdict depends on: the program text, the command line and the tool
versions. Only verdicts are cached; an infrastructure error (timeout, crash) is not, so it is retried.
The folder is $CODEWALK_CACHE, else $CODEWALK_HOME/cache, else ~/.codewalk/cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from codewalk import paths
from codewalk.runtime import meter


def cache_dir() -> Path:
    path = paths.cache("proofs")
    path.mkdir(parents=True, exist_ok=True)
    return path


def key(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def cached(digest: str, compute: Callable[[], dict[str, Any]]) -> tuple[dict[str, Any], bool]:
    """The stored result for digest, or compute() stored under it; the flag says it came from the cache."""
    path = cache_dir() / digest[:2] / f"{digest}.json"
    try:
        found = json.loads(path.read_text())
        meter.reuse("proofs: verdict", True)
        return found, True
    except (OSError, ValueError):  # absent, or a torn write from a killed run: compute again
        pass
    meter.reuse("proofs: verdict", False)
    result = compute()
    path.parent.mkdir(exist_ok=True)
    # write-then-rename: a parallel worker never reads half a file
    with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp") as f:
        json.dump(result, f)
    os.replace(f.name, path)
    return result, False
