"""The embedded default: LadybugDB (an in-process Cypher engine, fork of Kùzu) in one on-disk file."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import ladybug

from ..errors import StoreError, StoreUnavailable
from . import GraphStore


class LadybugStore(GraphStore):
    dialect = "ladybug"

    def __init__(self, path: Path):
        self.location = str(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = ladybug.Database(str(path))
        except RuntimeError as e:
            if "lock" in str(e).lower():  # one writer per database file
                raise StoreUnavailable(f"store in use by another process: {path}") from e
            raise StoreError(f"cannot open embedded store {path}: {e}") from e
        self._conn = ladybug.Connection(self._db)
        self.ensure_schema()

    def run(self, cypher: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        try:
            result = self._conn.execute(cypher, params or {})
        except RuntimeError as e:
            raise StoreError(f"query failed: {e}") from e
        names = result.get_column_names()
        return [dict(zip(names, map(_plain, row), strict=True)) for row in result.get_all()]

    def transaction(self, steps: Sequence[tuple[str, dict[str, Any]]]) -> None:
        self._conn.execute("BEGIN TRANSACTION")
        try:
            for cypher, params in steps:
                self._conn.execute(cypher, params)
        except BaseException as e:  # Ctrl-C included: nothing half-written
            self._conn.execute("ROLLBACK")
            if isinstance(e, RuntimeError):
                raise StoreError(f"write failed, nothing was stored: {e}") from e
            raise
        self._conn.execute("COMMIT")

    def close(self) -> None:
        self._conn.close()
        self._db.close()


def _plain(value: Any) -> Any:
    """Nodes and relationships come back as dicts with internal keys; keep only properties."""
    if isinstance(value, dict) and "_LABEL" in value:
        props = {k: v for k, v in value.items() if not k.startswith("_") and v not in ("", [])}
        return {"_label": value["_LABEL"], **props}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
