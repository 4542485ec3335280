"""The embedded default: LadybugDB (an in-process Cypher engine, fork of Kùzu) in one on-disk file."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import ladybug
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import QueryError, StoreError, StoreUnavailable
from ..records import SUMMARY_FIELDS, Atom
from . import GraphStore
from .columns import ATOM_SCHEMA, EDGE_SCHEMA, SEP, hashes, last_per_key

CHUNK = 500_000  # atoms per COPY or merge: the Python side holds one chunk at a time
# Edges go in larger chunks: they are small, and every edge table after the first is checked against the
# earlier ones for repeats (hashing its ends): 10 tables of 10^6 x 4.75 edges spent 2 s on it.
EDGE_CHUNK = 10 * CHUNK


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

    def write(self, atoms: Iterable[pa.Table], edges: Iterable[tuple[str, pa.Table]]) -> None:
        """GraphStore.write: the tables' columns go to the engine as they are, in one transaction.

        Rows that are new go in by COPY, about ten times cheaper than MERGE here; rows that may exist
        are merged, so writing the same graph twice changes nothing. An atom is new when its id is not
        stored; an edge is new when one of its ends is an atom this write created (any end, when the
        store held no atom before) and it was not copied already in this write. Within a table, the
        last row of an id (or of an edge's two ends) wins, as with MERGE.
        """
        created = _Created(everything=not self._rows(self.q("count_atoms"), {})[0]["atoms"])
        copied = _EdgeFilter()
        with self._transaction():
            for table in atoms:  # in slices: one COPY of 10^6 atoms once stored a row twice (ladybug 0.22)
                for part in _slices(table.select(ATOM_SCHEMA.names).cast(ATOM_SCHEMA), CHUNK):
                    self._write_atoms(part, created)
            for rel, table in edges:
                for part in _slices(table.select(EDGE_SCHEMA[rel].names).cast(EDGE_SCHEMA[rel]), EDGE_CHUNK):
                    self._write_edges(rel, part, created, copied)

    def _write_atoms(self, table: pa.Table, created: _Created) -> None:
        table = last_per_key(table, ["id"])
        if created.everything:  # the store held no atom: only this write's own are stored
            stored = created.among(table.column("id"))
        else:
            old = self._conn.execute(self.q("bulk_existing_atoms"), {"rows": table.select(["id"])})
            ids = old.get_as_arrow().column("id").combine_chunks()  # type: ignore[union-attr]
            stored = pc.is_in(table.column("id"), value_set=ids).to_numpy(zero_copy_only=False)
        if not stored.all():
            new = table.filter(~stored)
            self._conn.execute(self.q("bulk_copy_atoms"), {"rows": new})
            created.add(new.column("id"))
        if stored.any():
            self._conn.execute(self.q("bulk_merge_atoms"), {"rows": table.filter(stored)})

    def _write_edges(self, rel: str, table: pa.Table, created: _Created, copied: _EdgeFilter) -> None:
        if not table.num_rows:
            return
        table = last_per_key(table, ["src", "dst"])
        fresh = created.either(table.column("src"), table.column("dst"))
        fresh &= ~copied.seen_then_add(table.select(["src", "dst"]), fresh)
        if fresh.any():
            self._conn.execute(self.q("bulk_copy_edges", rel), {"rows": table.filter(fresh)})
        if not fresh.all():
            name = "bulk_merge_shares_file" if rel == "SHARES_FILE" else "bulk_merge_feeds"
            self._conn.execute(self.q(name), {"rows": table.filter(~fresh)})

    def _rows(self, cypher: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        result = self._conn.execute(cypher, params)
        names = result.get_column_names()  # type: ignore[union-attr]
        return [dict(zip(names, row, strict=True)) for row in result.get_all()]  # type: ignore[union-attr]

    def atom_row(self, atom: Atom) -> dict[str, Any]:
        blank = {k: ([] if t is list else "") for k, t in SUMMARY_FIELDS.items()}  # a table needs every column
        return {"id": atom.id, **blank, **self.atom_props(atom)}

    def stored_files(self, files: Sequence[str]) -> str:
        return SEP.join(files)

    def read_files(self, stored: Any) -> tuple[str, ...]:
        return tuple(stored.split(SEP)) if stored else ()

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


def _slices(table: pa.Table, rows: int) -> Iterator[pa.Table]:
    for start in range(0, table.num_rows, rows):
        yield table.slice(start, rows)


class _Created:
    """The ids of the atoms one write created, to tell which edges are new (an end among them)."""

    def __init__(self, everything: bool) -> None:
        self.everything = everything  # the store held no atom: every stored end was created now
        self.parts: list[pa.ChunkedArray] = []
        self._ids: pa.Array | None = None

    def add(self, ids: pa.ChunkedArray) -> None:
        self.parts.append(ids)
        self._ids = None

    def among(self, ids: pa.ChunkedArray) -> np.ndarray:
        """Which of these ids this write created."""
        if not self.parts:
            return np.zeros(len(ids), dtype=bool)
        if self._ids is None:
            self._ids = pa.chunked_array([c for p in self.parts for c in p.chunks], pa.string()).combine_chunks()
        return pc.is_in(ids, value_set=self._ids).to_numpy(zero_copy_only=False)

    def either(self, src: pa.ChunkedArray, dst: pa.ChunkedArray) -> np.ndarray:
        """Which edges have an end this write created (all of them, when the store held no atom: an end
        that is not stored makes the COPY fail)."""
        if self.everything:
            return np.ones(len(src), dtype=bool)
        return self.among(src) | self.among(dst)


class _EdgeFilter:
    """The 64-bit hashes of the (src, dst) of the edges copied in one write, so an edge listed twice is
    merged rather than copied twice, without keeping millions of strings. A collision (a new edge whose
    hash is an earlier one's) only sends that edge down the slower MERGE path, which creates it all the
    same. A table's edges are hashed only when another table follows, so a write of one table per type
    pays nothing here."""

    def __init__(self) -> None:
        self.seen = np.empty(0, dtype=np.uint64)  # sorted
        self.last: pa.Table | None = None  # the previous table's copied (src, dst), not yet in `seen`
        self.last_hashes: np.ndarray | None = None

    def seen_then_add(self, keys: pa.Table, which: np.ndarray) -> np.ndarray:
        """Which rows of `keys` (src, dst) among those `which` selects an earlier table added; then add them."""
        if self.last is not None:
            added = self.last_hashes if self.last_hashes is not None else hashes(self.last)
            self.seen = np.sort(np.concatenate([self.seen, added]))
        found = np.zeros(keys.num_rows, dtype=bool)
        these = None
        if len(self.seen):
            these = hashes(keys)
            order = np.argsort(these)  # lookups in sorted order: about 20x faster than in row order
            ordered = these[order]
            at = np.minimum(np.searchsorted(self.seen, ordered), len(self.seen) - 1)
            found[order] = self.seen[at] == ordered
        self.last = keys.filter(which)
        self.last_hashes = these[which] if these is not None else None
        return found & which
