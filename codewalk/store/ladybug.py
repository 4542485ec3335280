"""The embedded default: LadybugDB (an in-process Cypher engine, fork of Kùzu) in one on-disk file.

A full disk fails the command, never the store. ladybug 0.22 (the newest release) aborts the process when it
runs out of room mid-write, or when it is closed after that, and leaves a write-ahead log (STORE.wal) cut
short, which it then refuses to open ("the WAL file is corrupted") although everything committed before is in
it. So codewalk (1) checks the room on the store's disk before every write (MIN_FREE, plus twice the data of
a load's slice): short of it, the write is refused before it starts (StoreFull), the store untouched;
(2) when the engine runs out of room all the same (another process filled the disk), raises StoreFull
`broken`; (3) never closes a store that has run out of room, or whose disk has not the room the checkpoint
of closing needs (closing copies the log into the store file): the engine's handles are left open until the
process ends, and the log, which holds every commit, is replayed at the next open; (4) opens a store only
with room to replay its log, and one whose log was cut short by replaying it up to the damage (the engine's
own throw_on_wal_replay_failure=False: every transaction committed before it), after keeping a copy of the
log as STORE.wal.damaged-TIME, and checkpoints at once.
"""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import ladybug
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import QueryError, StoreError, StoreFull, StoreLocked
from ..records import SUMMARY_FIELDS, Atom, Run
from . import GraphStore
from .columns import ATOM_SCHEMA, EDGE_SCHEMA, SEP, hashes, last_per_key

CHUNK = 500_000  # atoms per COPY or merge: the Python side holds one chunk at a time
# Edges go in larger chunks: they are small, and every edge table after the first is checked against the
# earlier ones for repeats (hashing its ends): 10 tables of 10^6 x 4.75 edges spent 2 s on it.
EDGE_CHUNK = 10 * CHUNK
# Room a write needs on the store's disk beyond its data: the log grows up to the engine's checkpoint threshold
# (16 MiB) before it is copied into the store file. CODEWALK_MIN_FREE_MB changes it (0: no check).
MIN_FREE_MB = 64
READ_ONLY_TRIES = 100  # a read-only open is refused while the writer checkpoints: 21 of 30 opens beside a writer
# committing 200 rows and checkpointing every 2,000 went through at once, 9 were refused so, none failed otherwise


class LadybugStore(GraphStore):
    dialect = "ladybug"

    def __init__(self, path: Path, create_parent: bool = False, read_only: bool = False):
        self.location, self.read_only = str(path), read_only
        if read_only:
            self._open_read_only(path)
            return
        if create_parent:  # the default location only: a mistyped --store must not make folders
            path.parent.mkdir(parents=True, exist_ok=True)
        elif not path.parent.is_dir():
            raise StoreError(f"no folder {path.parent} for the store {path} (create it, or check --store)")
        self._path, self.broken, self.recovered = path, False, ""
        wal = Path(f"{path}.wal")
        if wal.exists() and self._free() < self._to_replay(wal):  # opening replays the log: room for it first
            raise StoreFull(f"the store {path} must replay its log on opening and its disk has not the "
                            f"{self._to_replay(wal) / (1 << 20):.0f} MiB that needs: free some space and run the "
                            "command again (nothing is lost)")
        try:
            self._db = ladybug.Database(str(path))
        except RuntimeError as e:
            if "lock" in str(e).lower():  # one writer per database file
                raise _locked(path, str(e)) from e
            if "wal" not in str(e).lower():
                raise StoreError(f"cannot open embedded store {path}: {e}") from e
            self._db = self._recover(e)
        self._conn = ladybug.Connection(self._db)
        if self.recovered:
            self._conn.execute("CHECKPOINT")  # the store file holds what was replayed; the log starts afresh
        self.ensure_schema()

    def _open_read_only(self, path: Path) -> None:
        """Open for reading only, beside the process that holds the store for writing: ladybug 0.22 allows it
        and reads what that process has committed; it refuses while that process checkpoints (tried again
        for up to READ_ONLY_TRIES x 0.1 s). Nothing is written: the schema is checked, not made."""
        self._path, self.broken, self.recovered = path, False, ""
        for attempt in range(READ_ONLY_TRIES):
            try:
                self._db = ladybug.Database(str(path), read_only=True)
                break
            except RuntimeError as e:
                if "checkpoint" not in str(e).lower() or attempt == READ_ONLY_TRIES - 1:
                    raise StoreError(f"cannot open embedded store {path} for reading: {e}") from e
                time.sleep(0.1)
        self._conn = ladybug.Connection(self._db)
        self._check_version()

    def _recover(self, error: RuntimeError) -> ladybug.Database:
        """Open a store whose log was cut short (a full disk, a crash mid-write): replayed up to the damage,
        a copy of the log kept beside it."""
        wal = Path(f"{self._path}.wal")
        if self._free() < 2 * self._to_replay(wal):  # its copy too
            raise StoreFull(f"the store {self._path} must replay its log ({error}) and its disk has not the "
                            f"{2 * self._to_replay(wal) / (1 << 20):.0f} MiB that needs: free some space and run "
                            "the command again (nothing is lost)")
        kept = Path(f"{wal}.damaged-{time.strftime('%Y%m%dT%H%M%S')}")
        if wal.exists():
            shutil.copy2(wal, kept)
        try:
            db = ladybug.Database(str(self._path), throw_on_wal_replay_failure=False)
        except RuntimeError as e:
            raise StoreError(f"cannot open embedded store {self._path}: {error}; replaying its log up to the "
                             f"damage failed too: {e}") from e
        self.recovered = (f"the store's log ended in a damaged record ({error}): replayed up to it, which keeps "
                          f"every committed transaction; the log as it was is kept in {kept}")
        sys.stderr.write(f"warning: {self.recovered}\n")
        return db

    def _free(self) -> int:
        disk = os.statvfs(self._path.parent)
        return disk.f_bavail * disk.f_frsize

    @staticmethod
    def _to_replay(wal: Path) -> int:
        """Room to replay a log into the store file and checkpoint it (bytes)."""
        return 2 * (wal.stat().st_size if wal.exists() else 0) + (1 << 20)

    def _room(self, need: int = 0) -> None:
        """StoreFull unless the store's disk has MIN_FREE_MB + need bytes free (and the engine has not run out
        of room already: it is not asked anything more then)."""
        if self.broken:
            raise self._filled_up()
        floor = int(float(os.environ.get("CODEWALK_MIN_FREE_MB", MIN_FREE_MB)) * (1 << 20))
        if not floor:
            return
        free = self._free()
        if free < floor + need:
            raise StoreFull(f"no room on the disk of the store {self._path} for a write: {free / (1 << 20):.1f} MiB "
                            f"free, {(floor + need) / (1 << 20):.0f} MiB needed; nothing of it was written and "
                            "everything stored before is kept: free some space and run the command again")

    def _failed(self, e: RuntimeError, then: type[StoreError], message: str) -> StoreError:
        """The error a failed statement raises: StoreFull (broken) when the engine ran out of room."""
        text = str(e)
        if "IO exception" in text or "No space left" in text:
            if "No space left" in text or self._free() < (1 << 20):
                self.broken = True
                return self._filled_up()
        return then(f"{message}: {e}")

    def _filled_up(self) -> StoreFull:
        return StoreFull(f"the disk of the store {self._path} filled up during a write: nothing of it was stored "
                         "and everything committed before is kept (the next open replays it): free some space and "
                         "run the command again", broken=True)

    def run(self, cypher: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        if self.broken:
            self._room()
        try:
            result = self._conn.execute(cypher, params or {})
        except RuntimeError as e:  # an embedded store is always reachable: the statement was refused
            raise self._failed(e, QueryError, "query failed") from e
        names = result.get_column_names()  # type: ignore[union-attr]  # one statement, one result
        return [dict(zip(names, map(_plain, row), strict=True)) for row in result.get_all()]  # type: ignore[union-attr]

    def transaction(self, steps: Sequence[tuple[str, dict[str, Any]]]) -> None:
        with self._transaction():
            for cypher, params in steps:
                self._conn.execute(cypher, params)

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        self._room()
        self._conn.execute("BEGIN TRANSACTION")
        try:
            yield
            self._conn.execute("COMMIT")
        except BaseException as e:  # Ctrl-C included: nothing half-written
            failed = self._failed(e, StoreError, "write failed, nothing was stored") \
                if isinstance(e, RuntimeError) else None
            if not self.broken:  # out of room, the engine aborts on anything more: the next open rolls back
                try:
                    self._conn.execute("ROLLBACK")
                except RuntimeError:
                    pass  # a failed COPY has already ended the transaction, and rolled it back
            if failed is not None:
                raise failed from e
            raise

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
                    self._room(2 * part.nbytes)
                    self._write_atoms(part, created)
            for rel, table in edges:
                for part in _slices(table.select(EDGE_SCHEMA[rel].names).cast(EDGE_SCHEMA[rel]), EDGE_CHUNK):
                    self._room(2 * part.nbytes)
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

    def write_run(self, run: Run) -> None:
        self._room()
        super().write_run(run)

    def close(self) -> None:
        if self.read_only:
            self._conn.close()
            self._db.close()
            return
        if self.broken or self._free() < self._to_replay(Path(f"{self._path}.wal")):
            # Closing checkpoints the log into the store file, and the engine aborts the process when a write
            # fails there (or once it has run out of room): its handles stay open until the process ends, never
            # freed; the log holds every commit, and the next open replays it.
            for handle in (self._conn, self._db):
                ctypes.pythonapi.Py_IncRef(ctypes.py_object(handle))
            return
        self._conn.close()
        self._db.close()


def _locked(path: Path, error: str) -> StoreLocked:
    """The lock error, naming the process that holds the store (the engine names its pid) and its command,
    and how to wait for it."""
    found = re.search(r"held by PID (\d+)", error)
    pid = int(found.group(1)) if found else None
    holder = command_of(pid) if pid else ""
    who = f"pid {pid}" + (f" ({holder})" if holder else "") if pid else "another process"
    return StoreLocked(f"store in use by another process: {path} is held by {who}, one writer at a time; "
                       "`cw --wait ...` waits until it is free (or run the command again when it ends)", pid, holder)


def command_of(pid: int, width: int = 200) -> str:
    """A process's command line, as `ps` would show it (programs by their name), or "" when it cannot be read
    (gone, another machine's, no /proc)."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().rstrip(b"\0").split(b"\0")
    except OSError:
        return ""
    words = [w.decode(errors="replace") for w in argv if w]
    if words and words[0].startswith("/"):
        words[0] = Path(words[0]).name
    if len(words) > 1 and words[0].startswith("python") and words[1].startswith("/"):
        words[1] = Path(words[1]).name  # python /venv/bin/cw load ...: "python cw load ..."
    words = [" ".join(w.split()) for w in words]  # one line: a `python -c` program's newlines too
    for i in range(1, len(words)):
        if words[i - 1] == "-c" and len(words[i]) > 40:
            words[i] = words[i][:37] + "..."  # the program, shortened: the arguments after it say more
    text = " ".join(words)
    return text if len(text) <= width else text[:width - 3] + "..."


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
