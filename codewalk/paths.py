"""Where codewalk keeps its files: every path is computed here, from three settings.

- CODEWALK_HOME (default ~/.codewalk): the default embedded store and the local Neo4j server's folder.
- CODEWALK_CACHE (default $CODEWALK_HOME/cache): what verifiers build and answer (environments,
  compiled harnesses, verdicts), one folder per domain; safe to delete.
- CODEWALK_SHARED (default `shared/` beside the checkout, i.e. ../shared): the real datasets the tests
  and benchmarks read (CodeComplex, FEMPD, Verus-Bench, ACSL by Example). Never copied into the repository.
"""

from __future__ import annotations

import os
from pathlib import Path


def home() -> Path:
    return Path(os.environ.get("CODEWALK_HOME") or Path.home() / ".codewalk")


def neo4j_home() -> Path:
    """Where `cw db` keeps the local server's state, log and data."""
    return Path(os.environ.get("CODEWALK_NEO4J_HOME") or home() / "neo4j")


def cache(domain: str = "") -> Path:
    base = Path(os.environ.get("CODEWALK_CACHE") or home() / "cache")
    return base / domain if domain else base


def beside_store(store: str | None) -> Path:
    """The folder for files that belong with a store (clones' verdicts): an embedded store's own folder;
    CODEWALK_HOME for a server or when none is named (the default store lives there)."""
    if store and "://" not in store:
        return Path(store).expanduser().resolve().parent
    return home()


def shared() -> Path:
    return Path(os.environ.get("CODEWALK_SHARED") or Path(__file__).resolve().parents[1].parent / "shared")


def dataset(name: str) -> Path:
    """A dataset folder under CODEWALK_SHARED/data (it may not exist: callers say so)."""
    return shared() / "data" / name
