"""Reads the Cypher files shipped in `codewalk.cypher` (the repository's top-level cypher/): the one place
a query's text comes from. It sits below the stores, which read their own statements here."""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from typing import Literal

from .errors import UsageError
from .records import REL_TYPES

Dialect = Literal["neo4j", "ladybug"]


@cache
def _text(name: str, dialect: Dialect) -> str:
    root = files("codewalk.cypher")
    for candidate in (f"{name}.{dialect}.cypher", f"{name}.cypher"):
        path = root.joinpath(*candidate.split("/"))
        if path.is_file():
            return path.read_text(encoding="utf-8")
    raise FileNotFoundError(f"no Cypher file for {name!r} ({dialect})")


def query(name: str, dialect: Dialect, rel: str | None = None) -> str:
    """The text of one named query. `rel` fills `${rel}` and must be a known relationship type."""
    text = _text(name, dialect)
    if "${rel}" not in text:
        return text
    if rel not in REL_TYPES:  # relationship types cannot be parameters: only the fixed set gets in
        raise UsageError(f"unknown relationship type {rel!r}; allowed: {', '.join(REL_TYPES)}")
    return text.replace("${rel}", rel)


def statements(name: str, dialect: Dialect) -> list[str]:
    """A multi-statement file (schema DDL) split into statements."""
    return [s.strip() for s in _text(name, dialect).split(";") if s.strip()]
