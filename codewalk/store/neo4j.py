"""Neo4j 5.x over Bolt with the official driver (local, Docker, Aura: anything that speaks Bolt)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import islice
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import neo4j
import pyarrow as pa
import pyarrow.compute as pc
from neo4j.exceptions import AuthError, DriverError, Neo4jError, ServiceUnavailable
from neo4j.graph import Node, Relationship
from neo4j.graph import Path as GraphPath

from .. import dbserver, paths
from ..errors import QueryError, StoreError, StoreUnavailable
from ..records import Atom, Edge
from . import BATCH, GraphStore
from .columns import ATOM_SCHEMA, EDGE_SCHEMA, SEP, last_per_key

TABLE_CHUNK = 100_000  # records per Arrow chunk in table(); atoms per page in read_columns()


class Neo4jStore(GraphStore):
    dialect = "neo4j"

    def __init__(self, uri: str, user: str | None, password: str | None, database: str = "neo4j"):
        self.location = uri
        self.database = database
        self._auth = (user or "neo4j", password) if password else None
        self._connect()
        self.ensure_schema()

    def _connect(self) -> None:
        uri = self.location
        # Bounded: a dead server makes `cw` fail within seconds instead of hanging.
        self._driver = neo4j.GraphDatabase.driver(
            uri, auth=self._auth, connection_timeout=5, connection_acquisition_timeout=10, max_transaction_retry_time=10,
            # No server notifications: "property `label` does not exist" on a graph without labels is
            # expected here, and the driver would log each one as a warning on stderr.
            notifications_min_severity="OFF",
        )
        try:
            self._driver.verify_connectivity()
        except AuthError as e:
            self._driver.close()
            raise StoreUnavailable(f"Neo4j at {uri} refused the credentials (NEO4J_USER / NEO4J_PASSWORD)") from e
        except (ServiceUnavailable, DriverError, OSError) as e:
            self._driver.close()
            raise StoreUnavailable(f"cannot reach Neo4j at {uri}: {e}. Is it running? (`cw db start`)") from e

    def run(self, cypher: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        with self._errors("query failed"):
            records, _, keys = self._driver.execute_query(cypher, params or {}, database_=self.database)
        return [{k: _plain(r[k]) for k in keys} for r in records]

    def transaction(self, steps: Sequence[tuple[str, dict[str, Any]]]) -> None:
        def work(tx: neo4j.ManagedTransaction) -> None:
            for cypher, params in steps:
                tx.run(cypher, params).consume()

        with self._errors("write failed, nothing was stored"), self._driver.session(database=self.database) as session:
            session.execute_write(work)  # retried on transient errors; the steps are idempotent

    def table(self, cypher: str, params: dict[str, Any] | None = None) -> pa.Table:
        """Streamed, TABLE_CHUNK records at a time, so millions of rows never exist as Python objects at once."""
        with self._errors("query failed"), self._driver.session(database=self.database) as session:
            result = session.run(cypher, params or {})
            keys = list(result.keys())
            parts = [pa.table(dict(zip(keys, map(list, zip(*chunk)), strict=True)))
                     for chunk in _batched(result, TABLE_CHUNK)]
        if not parts:
            return pa.table({k: pa.array([], pa.null()) for k in keys})
        return pa.concat_tables(parts, promote_options="default")  # a chunk of all-null values is typed null

    def read_columns(self, name: str, params: dict[str, Any], rel: str | None = None) -> pa.Table:
        """Neo4j's bulk reads (cypher/atom_index.neo4j, relation_keys.neo4j) come in pages of TABLE_CHUNK
        atoms in id order, one record each, whose fields are lists (columns): the Python driver costs about
        30 us per record, while the values inside a record are decoded in bulk by its Rust extension, and a
        page bounds the server's transaction memory (a whole 10^6-atom relation in one record passed the
        default 512 MiB). The first field holds the page's atom ids; a short page is the last."""
        cypher, parts, after = self.q(name, rel), [], ""  # every id sorts after ""
        with self._errors("query failed"), self._driver.session(database=self.database) as session:
            while True:
                record = session.run(cypher, {**params, "after": after, "chunk": TABLE_CHUNK}).single(strict=True)
                columns = dict(record.items())
                ids = next(iter(columns.values()))
                if ids:
                    parts.append(pa.table(columns))
                if len(ids) < TABLE_CHUNK:
                    break
                after = ids[-1]
        if not parts:
            return pa.table({k: pa.array([], pa.null()) for k in columns})
        return pa.concat_tables(parts, promote_options="default")

    def write_graph(self, atoms: Iterable[Atom], edges: Iterable[Edge]) -> None:
        """Stream UNWIND batches of BATCH rows into one explicit transaction (any iterables): the
        Python side holds one batch, Neo4j holds the transaction state until COMMIT (10^6 atoms and
        5x10^6 edges need a few GB: dbms.memory.transaction.total.max). Not retried, as a generator
        cannot be replayed: a transient error fails the write and nothing is stored."""
        queries = {"SHARES_FILE": self.q("upsert_shares_file"), "FEEDS": self.q("upsert_feeds")}
        with self._errors("write failed, nothing was stored"), \
                self._driver.session(database=self.database) as session, session.begin_transaction() as tx:
            for chunk in _batched(map(self.atom_row, atoms), BATCH):
                tx.run(self.q("upsert_atoms"), {"rows": chunk}).consume()
            pending: dict[str, list[dict]] = {rel: [] for rel in queries}
            for edge in edges:
                rows = pending[edge.type]
                rows.append(self.edge_row(edge))
                if len(rows) == BATCH:
                    tx.run(queries[edge.type], {"rows": rows}).consume()
                    rows.clear()
            for rel, rows in pending.items():
                if rows:
                    tx.run(queries[rel], {"rows": rows}).consume()
            tx.commit()

    def bulk_tables(self, atoms: Iterable[pa.Table], edges: Iterable[tuple[str, pa.Table]],
                    home: Path | None = None) -> None:
        """Build this (empty) database with Neo4j's importer instead of UNWIND upserts: it must be the
        database of the local server `cw db start` runs from `home` (the Java one), which is stopped for
        the import and started again with its data kept; constraints and indexes are created after."""
        home = home or paths.neo4j_home()
        info = dbserver.status(home)
        if info is None or not info.running or not _same_server(info.bolt_uri, self.location) \
                or self.database != "neo4j":
            raise StoreError(f"a bulk load rebuilds the database of the local server `cw db start` runs "
                             f"(recorded in {home}); {self.location} (database {self.database}) is not it: load "
                             "without --bulk (UNWIND upserts, for any server)")
        found = self.run(self.q("schema_version"))[0]
        if found["atoms"] or found["tasks"]:
            raise StoreError(f"a bulk load builds a fresh database, and {self.location} holds {found['atoms']} "
                             f"atoms and {found['tasks']} tasks: load without --bulk (it merges into them)")
        self._driver.close()
        _import(home, atoms, edges, _port(info.bolt_uri), _port(info.http_uri))
        self._connect()
        self.ensure_schema()
        self.run(self.q("await_indexes"))

    def atom_row(self, atom: Atom) -> dict[str, Any]:
        return {"id": atom.id, "props": self.atom_props(atom)}  # only the fields that are set

    def close(self) -> None:
        self._driver.close()

    @contextmanager
    def _errors(self, what: str) -> Iterator[None]:
        """The one place where the driver's errors become codewalk's: a statement refused as written is a
        QueryError, any other refusal a StoreError, a lost connection StoreUnavailable."""
        try:
            yield
        except Neo4jError as e:
            kind = QueryError if (e.code or "").startswith("Neo.ClientError.Statement.") else StoreError
            raise kind(f"{what}: {e.message}") from e
        except (ServiceUnavailable, DriverError, OSError) as e:
            raise StoreUnavailable(f"lost Neo4j at {self.location} ({what}): {e}") from e


def import_graph(home: Path, atoms: Iterable[pa.Table], edges: Iterable[tuple[str, pa.Table]], *,
                 bolt_port: int | None = None, http_port: int | None = None) -> Neo4jStore:
    """A fresh database for the local server of `home`, built by Neo4j's importer from columnar
    tables (codewalk.store.columns' layout), served by that server (started, or restarted with its
    data kept) and opened, constraints and indexes created after. What was in it before is gone."""
    info = _import(home, atoms, edges, bolt_port, http_port)
    store = Neo4jStore(info.bolt_uri, None, None)  # auth is off on the local server
    store.run(store.q("await_indexes"))
    return store


def _import(home: Path, atoms: Iterable[pa.Table], edges: Iterable[tuple[str, pa.Table]],
            bolt_port: int | None, http_port: int | None) -> dbserver.ServerInfo:
    home = Path(home).expanduser()
    home.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=home, prefix="import-csv-") as folder:
        nodes, rels, multiline = import_files(atoms, edges, Path(folder))
        return dbserver.import_database(home, nodes, rels, array_delimiter=SEP, multiline=multiline,
                                        bolt_port=bolt_port, http_port=http_port)


# The importer's CSV headers: the columns' names and Neo4j types (an atom's id is its :ID and its
# property `id`; lists are SEP-joined strings in the tables, split by the importer).
_ATOM_HEADER = {"id": "id:ID", "files": "files:string[]"}
_EDGE_HEADER = {"src": ":START_ID", "dst": ":END_ID", "files": "files:string[]", "arg": "arg:long"}


def import_files(atoms: Iterable[pa.Table], edges: Iterable[tuple[str, pa.Table]],
                 folder: Path) -> tuple[list[tuple[str, Path]], list[tuple[str, Path]], bool]:
    """CSV files for the importer: (label, file) pairs, (type, file) pairs, and whether a value spans
    lines. Each kind's tables are joined and deduplicated first, the last row of an id (or of an
    edge's ends) winning, as with the upserts: the importer itself would fail on a repeated id and
    store a repeated edge twice."""
    import pyarrow.csv as csv

    def write(name: str, table: pa.Table, header: dict[str, str]) -> Path:
        path = folder / f"{name}.csv"
        csv.write_csv(table.rename_columns([header.get(c, c) for c in table.column_names]), path)
        return path

    def spans_lines(table: pa.Table) -> bool:
        return any(pc.any(pc.match_substring_regex(table.column(f.name), "[\r\n]")).as_py()
                   for f in table.schema if f.type == pa.string())

    atom_rows = last_per_key(pa.concat_tables(t.select(ATOM_SCHEMA.names).cast(ATOM_SCHEMA) for t in atoms), ["id"])
    atom_rows = atom_rows.set_column(atom_rows.schema.get_field_index("files"), "files",
                                     pc.binary_join(atom_rows.column("files"), SEP))
    nodes = [("Atom", write("atoms", atom_rows, _ATOM_HEADER))]
    multiline = spans_lines(atom_rows)
    by_type: dict[str, list[pa.Table]] = {}
    for rel, table in edges:
        by_type.setdefault(rel, []).append(table.select(EDGE_SCHEMA[rel].names).cast(EDGE_SCHEMA[rel]))
    rels = []
    for rel, tables in by_type.items():
        rows = last_per_key(pa.concat_tables(tables), ["src", "dst"])
        rels.append((rel, write(rel.lower(), rows, _EDGE_HEADER)))
        multiline = multiline or spans_lines(rows)
    return nodes, rels, multiline


def _same_server(a: str, b: str) -> bool:
    """Two Bolt URIs of one local server (127.0.0.1 and localhost are the same host)."""
    local = {"127.0.0.1", "localhost", "::1"}
    ua, ub = urlsplit(a), urlsplit(b)
    host_a, host_b = ua.hostname or "", ub.hostname or ""
    return (host_a == host_b or {host_a, host_b} <= local) and (ua.port or 7687) == (ub.port or 7687)


def _port(uri: str) -> int:
    return urlsplit(uri).port or 7687


def _batched(items: Iterable, size: int) -> Iterator[list]:
    it = iter(items)
    while chunk := list(islice(it, size)):
        yield chunk


def _plain(value: Any) -> Any:
    if isinstance(value, str | int | float | bool | None):  # most values: skip the checks below
        return value
    if isinstance(value, Node):
        return {"_label": ":".join(sorted(value.labels)), **dict(value)}
    if isinstance(value, Relationship):
        return {"_label": value.type, **dict(value)}
    if isinstance(value, GraphPath):
        return [_plain(n) for n in value.nodes]
    if isinstance(value, list):
        # a list of plain strings (thousands of ids, say) is returned as it is
        return value if all(type(v) is str for v in value) else [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if hasattr(value, "iso_format"):  # neo4j temporal types
        return value.iso_format()
    return value
