"""The embedded default: LadybugDB (an in-process Cypher engine, fork of Kùzu) in one on-disk file."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import islice
from pathlib import Path
from typing import Any

import ladybug
import numpy as np
import pyarrow as pa

from ..errors import QueryError, StoreError, StoreUnavailable
from ..records import SUMMARY_FIELDS, Atom, Edge
from . import GraphStore

CHUNK = 100_000  # rows per COPY or merge: the Python side holds one chunk at a time
_LIST = pa.list_(pa.string())
ATOM_SCHEMA = pa.schema([("id", pa.string()), ("domain", pa.string()),
                         *((k, _LIST if t is list else pa.string()) for k, t in SUMMARY_FIELDS.items()),
                         ("payload", pa.string())])  # the Atom table's columns, in order
EDGE_SCHEMA = {
    "SHARES_FILE": pa.schema([("src", pa.string()), ("dst", pa.string()), ("files", _LIST)]),
    "FEEDS": pa.schema([("src", pa.string()), ("dst", pa.string()), ("arg", pa.int64()), ("via", pa.string())]),
}


class LadybugStore(GraphStore):
    dialect = "ladybug"

    def __init__(self, path: Path, create_parent: bool = False):
        self.location = str(path)
        if create_parent:  # the default location only: a mistyped --store must not make folders
            path.parent.mkdir(parents=True, exist_ok=True)
        elif not path.parent.is_dir():
            raise StoreError(f"no folder {path.parent} for the store {path} (create it, or check --store)")
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
        except RuntimeError as e:  # an embedded store is always reachable: the statement was refused
            raise QueryError(f"query failed: {e}") from e
        names = result.get_column_names()  # type: ignore[union-attr]  # one statement, one result
        return [dict(zip(names, map(_plain, row), strict=True)) for row in result.get_all()]  # type: ignore[union-attr]

    def transaction(self, steps: Sequence[tuple[str, dict[str, Any]]]) -> None:
        with self._transaction():
            for cypher, params in steps:
                self._conn.execute(cypher, params)

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        self._conn.execute("BEGIN TRANSACTION")
        try:
            yield
        except BaseException as e:  # Ctrl-C included: nothing half-written
            try:
                self._conn.execute("ROLLBACK")
            except RuntimeError:
                pass  # a failed COPY has already ended the transaction, and rolled it back
            if isinstance(e, RuntimeError):
                raise StoreError(f"write failed, nothing was stored: {e}") from e
            raise
        self._conn.execute("COMMIT")

    def table(self, cypher: str, params: dict[str, Any] | None = None) -> pa.Table:
        try:
            return self._conn.execute(cypher, params or {}).get_as_arrow()  # type: ignore[union-attr]
        except RuntimeError as e:
            raise StoreError(f"query failed: {e}") from e

    def write_graph(self, atoms: Iterable[Atom], edges: Iterable[Edge]) -> None:
        """Stream atoms, then edges, into one transaction, CHUNK rows at a time (any iterables).

        Rows that are new go in by COPY from Arrow, about ten times cheaper than MERGE here; rows that
        may exist are merged, so writing the same graph twice changes nothing. An atom is new when
        its id is not stored; an edge is new when one of its ends is an atom this write created and
        it was not copied already in this write.
        """
        created: set[str] = set()
        copied = _EdgeFilter()
        with self._transaction():
            for chunk in _batched(atoms, CHUNK):
                self._write_atoms(chunk, created)
            pending: dict[str, list[Edge]] = {rel: [] for rel in EDGE_SCHEMA}
            for edge in edges:
                rows = pending[edge.type]
                rows.append(edge)
                if len(rows) == CHUNK:
                    self._write_edges(edge.type, rows, created, copied)
                    rows.clear()
            for rel, rows in pending.items():
                self._write_edges(rel, rows, created, copied)

    def _write_atoms(self, chunk: list[Atom], created: set[str]) -> None:
        latest = {a.id: a for a in chunk}  # an id twice in a chunk: the last one wins, as with MERGE
        stored = pa.table({"id": list(latest)})
        old = {r["id"] for r in self._rows(self.q("bulk_existing_atoms"), {"rows": stored})}
        new = [a for i, a in latest.items() if i not in old]
        if new:
            self._conn.execute(self.q("bulk_copy_atoms"), {"rows": _atom_table(map(self.atom_row, new))})
            created.update(a.id for a in new)
        if old:
            rows = (self.atom_row(a) for i, a in latest.items() if i in old)
            self._conn.execute(self.q("bulk_merge_atoms"), {"rows": _atom_table(rows)})

    def _write_edges(self, rel: str, chunk: list[Edge], created: set[str], copied: _EdgeFilter) -> None:
        if not chunk:
            return
        latest = {(e.src, e.dst): e for e in chunk}
        fresh = [e for e in latest.values() if e.src in created or e.dst in created]
        repeat = copied.seen_then_add(fresh)
        new = [e for e, r in zip(fresh, repeat, strict=True) if not r]
        maybe = [e for e, r in zip(fresh, repeat, strict=True) if r]
        maybe += [e for e in latest.values() if e.src not in created and e.dst not in created]
        if new:
            self._conn.execute(self.q("bulk_copy_edges", rel), {"rows": _edge_table(rel, new)})
        if maybe:
            name = "bulk_merge_shares_file" if rel == "SHARES_FILE" else "bulk_merge_feeds"
            self._conn.execute(self.q(name), {"rows": _edge_table(rel, maybe)})

    def _rows(self, cypher: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        result = self._conn.execute(cypher, params)
        names = result.get_column_names()  # type: ignore[union-attr]
        return [dict(zip(names, row, strict=True)) for row in result.get_all()]  # type: ignore[union-attr]

    def atom_row(self, atom: Atom) -> dict[str, Any]:
        blank = {k: ([] if t is list else "") for k, t in SUMMARY_FIELDS.items()}  # a table needs every column
        return {"id": atom.id, **blank, **self.atom_props(atom)}

    def close(self) -> None:
        self._conn.close()
        self._db.close()


def _plain(value: Any) -> Any:
    """Nodes and relationships come back as dicts with internal keys; keep only properties."""
    if isinstance(value, dict) and "_LABEL" in value:
        props = {k: v for k, v in value.items() if not k.startswith("_") and v not in ("", [])}
        return {"_label": value["_LABEL"], **props}
    if isinstance(value, list) and value and isinstance(value[0], (dict, list)):  # lists are homogeneous
        return [_plain(v) for v in value]
    return value


def _batched(items: Iterable, size: int) -> Iterator[list]:
    it = iter(items)
    while chunk := list(islice(it, size)):
        yield chunk


def _atom_table(rows: Iterable[dict[str, Any]]) -> pa.Table:
    return pa.Table.from_pylist(list(rows), schema=ATOM_SCHEMA)


def _edge_table(rel: str, edges: list[Edge]) -> pa.Table:
    columns: dict[str, list] = {"src": [e.src for e in edges], "dst": [e.dst for e in edges]}
    if rel == "SHARES_FILE":
        columns["files"] = [list(e.files) for e in edges]
    else:
        columns["arg"] = [e.arg if e.arg is not None else 0 for e in edges]
        columns["via"] = [e.via or "" for e in edges]
    return pa.table(columns, schema=EDGE_SCHEMA[rel])


class _EdgeFilter:
    """A Bloom filter (32 MiB, two probes) over the edges copied in one write, so an edge listed twice
    is merged rather than copied twice, without keeping millions of strings. A false alarm only sends
    a new edge down the slower MERGE path, which creates it all the same."""

    BITS = 1 << 28

    def __init__(self) -> None:
        self.bits = np.zeros(self.BITS // 8, dtype=np.uint8)

    def seen_then_add(self, edges: list[Edge]) -> list[bool]:
        if not edges:
            return []
        import pandas as pd  # here, not at the top: a walking process need not carry pandas (~40 MB)

        frame = pd.DataFrame({"src": [e.src for e in edges], "dst": [e.dst for e in edges]})
        h = pd.util.hash_pandas_object(frame, index=False).to_numpy()
        seen = np.ones(len(edges), dtype=bool)
        for probe in (h & (self.BITS - 1), (h >> np.uint64(32)) & (self.BITS - 1)):
            byte, bit = (probe >> np.uint64(3)).astype(np.intp), np.uint8(1) << (probe & np.uint64(7)).astype(np.uint8)
            seen &= (self.bits[byte] & bit) != 0
            np.bitwise_or.at(self.bits, byte, bit)
        return seen.tolist()
