"""One narrow graph-store interface, two implementations (Neo4j over Bolt, embedded LadybugDB).

Both run the same named Cypher files from `codewalk.cypher`; one contract test suite
(tests/test_store_contract.py) runs against both.
"""

from __future__ import annotations

import json
import os
import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from .. import paths
from ..cypher_files import Dialect, query, statements
from ..errors import StoreError, StoreLocked
from ..records import SUMMARY_FIELDS, Atom, Edge, Run, Task

BATCH = 5_000  # rows per UNWIND
WAIT_POLL = 0.5  # seconds between tries of a store another process holds (open_store's wait)
# Each store's layout (cypher/schema.<dialect>.cypher): raise a store's version when a change makes its
# older stores unreadable, and say in SCHEMA_CHANGES what changed for a user of an older store.
SCHEMA_VERSIONS: dict[Dialect, int] = {"neo4j": 1, "ladybug": 2}
SCHEMA_CHANGES: dict[Dialect, dict[int, str]] = {
    "neo4j": {1: "the first versioned schema"},
    "ladybug": {1: "the first versioned schema",
                2: "a SHARES_FILE edge keeps its files as one string, which loads 10^6 atoms seven times faster"},
}


def default_store_path() -> Path:
    return paths.home() / "graph.lbug"


def open_store(location: str | os.PathLike | None = None, wait: bool = False,
               on_wait: Callable[[str], None] | None = None, reads: bool = False) -> GraphStore:
    """A `bolt://`, `neo4j://` (or +s/+ssc) URI opens Neo4j; anything else is an embedded store path.
    An embedded store another process holds is StoreLocked, naming the holder; with `wait`, it is tried again
    until free, and `on_wait` (else stderr) is told once per holder what it waits for. `reads` (a command that
    only reads): a held embedded store is opened read-only instead, as its holder has committed it, and
    `on_wait` is told so."""
    given = location or os.environ.get("CODEWALK_STORE")
    location = str(given or default_store_path())
    if location.split("://", 1)[0] in ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc"):
        from .. import dbserver
        from .neo4j import Neo4jStore

        # NEO4J_PASSWORD when set; else, for the server `cw db start` runs, the password it keeps
        user, password = os.environ.get("NEO4J_USER"), os.environ.get("NEO4J_PASSWORD")
        if password is None and (local := dbserver.local_credentials(location)):
            user, password = local
        return Neo4jStore(location, user, password, os.environ.get("NEO4J_DATABASE", "neo4j"))
    if "://" in location:
        raise StoreError(f"unsupported store URI {location!r}: use a path, bolt:// or neo4j://")
    from .ladybug import LadybugStore

    told: int | None = 0
    while True:
        try:
            return LadybugStore(Path(location).expanduser(), create_parent=not given)
        except StoreLocked as e:
            say = on_wait or (lambda line: print(line, file=sys.stderr, flush=True))
            who = f"pid {e.pid}" + (f" ({e.holder})" if e.holder else "") if e.pid else "another process"
            if reads:
                store = LadybugStore(Path(location).expanduser(), read_only=True)
                say(f"note: the store {location} is held for writing by {who}: reading it as committed so far")
                return store
            if not wait:
                raise
            if e.pid != told:  # said again when another process takes the store over
                say(f"waiting for the store {location}, held by {who} (Ctrl-C to stop waiting)")
                told = e.pid
            time.sleep(WAIT_POLL)


class GraphStore(ABC):
    dialect: Dialect
    location: str

    # -- the two primitives each implementation provides ---------------------------------------
    @abstractmethod
    def run(self, cypher: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run one statement in its own transaction; rows as plain dicts."""

    @abstractmethod
    def transaction(self, steps: Sequence[tuple[str, dict[str, Any]]]) -> None:
        """Run several statements atomically: all take effect or none."""

    @abstractmethod
    def table(self, cypher: str, params: dict[str, Any] | None = None) -> pa.Table:
        """Like `run`, as Arrow columns: for results of millions of rows (the walk reads its graph so)."""

    @abstractmethod
    def close(self) -> None: ...

    def ensure_schema(self) -> None:
        """Idempotent: constraints, indexes or tables IF NOT EXISTS."""
        for statement in statements("schema", self.dialect):
            self.run(statement)
        self._check_version()

    @property
    def schema_version(self) -> int:
        return SCHEMA_VERSIONS[self.dialect]

    def _check_version(self) -> None:
        """Refuse a store of another schema version; stamp a new store with this one, and one from
        before versions (whose layout is version 1's) when this one is 1."""
        found = self.run(self.q("schema_version"))[0]
        version, current = found["version"], self.schema_version
        if version is None:
            if not (found["atoms"] or found["tasks"]):
                version = current  # a new store
            else:
                version = 1  # written before versions were kept
            if version == current:
                self.run(self.q("stamp_schema"), {"version": current})
        if version > current:
            raise StoreError(f"the store {self.location} has schema version {version}, newer than this "
                             f"codewalk's {current}: upgrade codewalk (pip install -U codewalk)")
        if version < current:
            raise StoreError(f"the store {self.location} has schema version {version}, this codewalk needs "
                             f"{current} ({SCHEMA_CHANGES[self.dialect][current]}): export its tasks with the "
                             "codewalk that wrote it (`cw tasks export`), then load into a new store "
                             "(--store NEW_PATH), or keep using the older codewalk for it")

    # -- operations, the same on both stores -----------------------------------------------------
    def q(self, name: str, rel: str | None = None) -> str:
        return query(name, self.dialect, rel)

    @abstractmethod
    def write(self, atoms: Iterable[pa.Table], edges: Iterable[tuple[str, pa.Table]]) -> None:
        """The one way into the graph: atom tables (store.columns' ATOM_SCHEMA), then (type, edge table)
        pairs (EDGE_SCHEMA[type]), upserted in one transaction; a failure leaves the store as it was.
        Within a write the last row of an id (or of an edge's two ends) wins, as with MERGE, and writing
        the same graph twice changes nothing. The tables are read once, in order, so they may be made
        as they are read (store.columns.graph_tables makes them from records). `cw load` checks them
        (ids, domain, edge ends) before they come here: a store stores them as they are."""

    @abstractmethod
    def atom_row(self, atom: Atom) -> dict[str, Any]:
        """Row for upsert_atoms, one atom at a time (each store's query takes its own shape; from `atom_props`)."""

    @staticmethod
    def atom_props(atom: Atom) -> dict[str, Any]:
        """The properties of an atom's node that are set: domain, payload (JSON) and its summary fields."""
        props = {"domain": atom.domain, "payload": payload_json(atom.payload)}
        props.update({k: v for k, v in atom.summary.items() if v not in (None, "", [])})
        return props

    def edge_row(self, e: Edge) -> dict[str, Any]:
        """Row for upsert_shares_file / upsert_feeds, one edge at a time."""
        if e.type == "SHARES_FILE":
            return {"src": e.src, "dst": e.dst, "files": self.stored_files(e.files)}
        return {"src": e.src, "dst": e.dst, "arg": e.arg if e.arg is not None else 0, "via": e.via or ""}

    def stored_files(self, files: Sequence[str]) -> Any:
        """A SHARES_FILE edge's `files` as this store keeps them (here a list; see read_files)."""
        return list(files)

    def read_files(self, stored: Any) -> tuple[str, ...]:
        return tuple(stored or ())

    def edges(self, domain: str) -> list[Edge]:
        """Every edge leaving the atoms of a domain, as records: SHARES_FILE, then FEEDS, each sorted by
        (src, dst). An edge written with no `arg` reads back with 0."""
        shares = [Edge(r["src"], r["dst"], "SHARES_FILE", files=self.read_files(r["files"]))
                  for r in self.run(self.q("edges_shares_file"), {"domain": domain})]
        feeds = [Edge(r["src"], r["dst"], "FEEDS", arg=r["arg"], via=r["via"] or None)
                 for r in self.run(self.q("edges_feeds"), {"domain": domain})]
        return sorted(shares, key=lambda e: (e.src, e.dst)) + sorted(feeds, key=lambda e: (e.src, e.dst))

    def domains(self) -> dict[str, int]:
        return {r["domain"]: r["atoms"] for r in self.run(self.q("domains"))}

    def read_columns(self, name: str, params: dict[str, Any], rel: str | None = None) -> pa.Table:
        """A named bulk read (atom_index, relation_keys) as Arrow columns: the query's rows, unless a
        store's version of the query returns its columns otherwise (Neo4j: in pages of list columns)."""
        return self.table(self.q(name, rel), params)

    def atom_table(self, domain: str) -> pa.Table:
        """key, id, label, source of every atom of a domain, sorted by id in Python's string order.
        `key` is what `cypher/relation_keys` returns for an edge's ends (Ladybug: the node offset)."""
        table = self.read_columns("atom_index", {"domain": domain})
        return table.take(pc.sort_indices(table, [("id", "ascending")])) if table.num_rows else table

    def atom_index(self, domain: str) -> list[tuple[str, str, str]]:
        """(id, label, source) of every atom of a domain, sorted by id: the walk's start population."""
        t = self.atom_table(domain)
        columns = (t.column(c).to_pylist() for c in ("id", "label", "source"))
        return [(i, label or "", s or "") for i, label, s in zip(*columns, strict=True)]

    def get_atoms(self, ids: Sequence[str]) -> list[Atom]:
        """Atoms in the order asked for; a missing id is an error."""
        found = {}
        for r in self.run(self.q("get_atoms"), {"ids": list(ids)}):
            summary = {k: r[k] for k in SUMMARY_FIELDS if r.get(k) not in (None, "", [])}
            found[r["id"]] = Atom(r["id"], r["domain"], summary, json.loads(r["payload"] or "{}"))
        missing = [i for i in ids if i not in found]
        if missing:
            raise StoreError(f"atoms not in the store: {', '.join(missing[:5])}")
        return [found[i] for i in ids]

    def walk_step(self, rel: str, chain: bool, walks: list[dict[str, Any]]) -> dict[int, tuple[str, int]]:
        """One batched step: wid -> (picked atom id, frontier size). Dead-end walks are absent."""
        if not walks:
            return {}
        name = "walk_step_chain" if chain else "walk_step_frontier"
        rows = self.run(self.q(name, rel), {"walks": walks})
        return {r["wid"]: (r["pick"], r["frontier"]) for r in rows if r["pick"] is not None}

    def existing_tasks(self, ids: Iterable[str]) -> set[str]:
        ids = list(ids)
        return {r["id"] for r in self.run(self.q("existing_tasks"), {"ids": ids})} if ids else set()

    def write_run(self, run: Run) -> None:
        self.run(self.q("write_run"), {"id": run.id, "domain": run.domain, "seed": run.seed,
                                        "params": json.dumps(run.params, sort_keys=True),
                                        "started": run.started, "finished": run.finished})

    def write_tasks(self, tasks: Sequence[Task]) -> None:
        """Each task with its IN_RUN and COMPOSES edges; idempotent by Task.id."""
        rows = []
        for t in tasks:
            props = t.to_row()
            rows.append({"id": props.pop("id"), "atoms": props.pop("atoms"), "props": props})
        for chunk in _chunks(rows, 500):
            self.transaction([(self.q("write_tasks"), {"tasks": chunk})])

    def list_tasks(self, domain: str = "", status: str = "", level: int = 0, limit: int = 100) -> list[dict]:
        return self.run(self.q("list_tasks"), {"domain": domain, "status": status, "level": level,
                                                "limit": limit})

    def count_tasks(self, domain: str = "", status: str = "", level: int = 0) -> int:
        return self.run(self.q("count_tasks"), {"domain": domain, "status": status, "level": level})[0]["tasks"]

    def get_task(self, task_id: str) -> dict[str, Any] | None:
        rows = self.run(self.q("get_task"), {"id": task_id})
        if not rows:
            return None
        task = dict(rows[0])
        task["verifier"] = json.loads(task["verifier"] or "{}")
        task["evidence"] = json.loads(task["evidence"] or "{}")
        task["atoms"] = [r["atom"] for r in self.run(self.q("task_atoms"), {"id": task_id})]
        task["level"] = len(task["atoms"])
        return task

    def yields(self, domain: str) -> list[dict[str, Any]]:
        return self.run(self.q("yields"), {"domain": domain})

    # -- export and grading ------------------------------------------------------------------------
    def select_tasks(self, domain: str, status: str = "", level: int = 0, ids: Sequence[str] = ()) -> list[dict]:
        """Whole task rows of a selection (no `ids` = any id), each with `atoms` in order and the
        `positions` its COMPOSES edges carry, so a caller can tell a partly written task."""
        rows = self.run(self.q("select_tasks"), {"domain": domain, "status": status, "level": level,
                                                  "ids": list(ids)})
        linked: dict[str, list[tuple[int, str]]] = {r["id"]: [] for r in rows}
        names = list(linked)
        for start in range(0, len(names), BATCH):
            for r in self.run(self.q("select_task_atoms"), {"ids": names[start:start + BATCH]}):
                linked[r["task"]].append((r["position"], r["atom"]))
        for row in rows:
            pairs = sorted(linked[row["id"]])
            row["positions"] = [p for p, _ in pairs]
            row["atoms"] = [a for _, a in pairs]
        return rows

    def write_grades(self, grades: Sequence[dict[str, Any]]) -> None:
        """Rows {id, task, props}; idempotent by Grade.id (one per run and task)."""
        for chunk in _chunks(grades, 500):
            self.transaction([(self.q("write_grades"), {"grades": chunk})])

    def attempt_grades(self, evals: Sequence[str]) -> list[dict[str, Any]]:
        """The stored grades of these inspect evals' attempts: {grade, eval, epoch, task, domain, level, status,
        model}, one per (eval, epoch, task), in that order."""
        return self.run(self.q("attempt_grades"), {"evals": list(evals)}) if evals else []

    def write_trajectories(self, export: str, rows: Sequence[dict[str, Any]]) -> None:
        """The rows of one export, {id, task, props} (props.export = `export`): (:Trajectory {...})-[:OF]->(:Task),
        in place of the rows that export had, in one transaction; idempotent by Trajectory.id."""
        self.transaction([(self.q("delete_trajectories"), {"export": export})]
                         + [(self.q("write_trajectories"), {"rows": chunk}) for chunk in _chunks(rows, 500)])

    def training_rows(self, atom: str) -> list[dict[str, Any]]:
        """Every exported training row of a task composing `atom` (cypher/explore/training_rows)."""
        return self.run(self.q("explore/training_rows"), {"atom": atom})

    def solve_rates(self, domain: str) -> list[dict[str, Any]]:
        return self.run(self.q("explore/solve_rates"), {"domain": domain})

    def __enter__(self) -> GraphStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def payload_json(payload: dict[str, Any]) -> str:
    return json.dumps(payload, sort_keys=True) if payload else "{}"  # most atoms of a big load: 3 us saved each


def _chunks(rows: Iterable[dict], size: int = BATCH) -> Iterable[list[dict]]:
    chunk: list[dict] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
