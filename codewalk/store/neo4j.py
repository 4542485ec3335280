"""Neo4j 5.x over Bolt with the official driver (local, Docker, Aura: anything that speaks Bolt)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import islice
from pathlib import Path
from typing import Any

import neo4j
import pyarrow as pa
import pyarrow.compute as pc
from neo4j.exceptions import AuthError, DriverError, Neo4jError, ServiceUnavailable
from neo4j.graph import Node, Relationship
from neo4j.graph import Path as GraphPath

from .. import dbserver
from ..errors import QueryError, ServerError, StoreError, StoreUnavailable
from ..records import SUMMARY_FIELDS, Atom
from . import BATCH, GraphStore
from .columns import ATOM_SCHEMA, EDGE_SCHEMA, SEP, last_per_key

TABLE_CHUNK = 100_000  # records per Arrow chunk in table(); atoms per page in read_columns()


class Neo4jStore(GraphStore):
    dialect = "neo4j"

    def __init__(self, uri: str, user: str | None, password: str | None, database: str = "neo4j"):
        self.location = uri
        self.database = database
        self._auth = (user or "neo4j", password) if password else None
        self.user = self._auth[0] if self._auth else None  # who logs in (the Browser address names them)
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
            given = "refused the credentials" if self._auth else "asks for a password and none was given"
            raise StoreUnavailable(f"Neo4j at {uri} {given} (NEO4J_USER / NEO4J_PASSWORD; the server `cw db start` "
                                   f"runs keeps its password in {dbserver.PASSWORD_FILE} under CODEWALK_NEO4J_HOME, "
                                   "and cw uses it by itself)") from e
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

    def write(self, atoms: Iterable[pa.Table], edges: Iterable[tuple[str, pa.Table]]) -> None:
        """GraphStore.write: UNWIND batches of BATCH rows in one explicit transaction. The Python side
        holds one table and one batch, Neo4j the transaction state until COMMIT (10^6 atoms and 5x10^6
        edges need a few GB: dbms.memory.transaction.total.max). Not retried, as the tables may be
        made as they are read: a transient error fails the write and nothing is stored."""
        queries = {"SHARES_FILE": self.q("upsert_shares_file"), "FEEDS": self.q("upsert_feeds")}
        with self._errors("write failed, nothing was stored"), \
                self._driver.session(database=self.database) as session, session.begin_transaction() as tx:
            for table in atoms:
                for rows in _row_batches(table.select(ATOM_SCHEMA.names).cast(ATOM_SCHEMA)):
                    tx.run(self.q("upsert_atoms"), {"rows": list(map(_atom_row, rows))}).consume()
            for rel, table in edges:
                for rows in _row_batches(table.select(EDGE_SCHEMA[rel].names).cast(EDGE_SCHEMA[rel])):
                    if rel == "SHARES_FILE":  # stored as a list of names
                        rows = [{**r, "files": r["files"].split(SEP) if r["files"] else []} for r in rows]
                    tx.run(queries[rel], {"rows": rows}).consume()
            tx.commit()

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


def importable_server(home: Path) -> dbserver.ServerInfo:
    """The server `cw db import` may rebuild: the Java one `cw db start` runs from ``home``, running,
    its database holding no atom and no task (the importer replaces a database, where `cw load` merges
    into it). Raises ServerError, saying what to do, for any other."""
    home = Path(home).expanduser().resolve()
    info = dbserver.status(home)
    if info is None or not info.running:
        raise ServerError(f"`cw db import` rebuilds the database of the local server `cw db start` runs, and "
                          f"none runs from {home}: start it (`cw db start`), or load into any server with "
                          "`cw --store URI load` (UNWIND upserts)")
    if info.kind != "java-harness":
        raise ServerError(f"the server recorded in {home} runs in Docker; `cw db import` needs the Java one "
                          f"(`cw db stop`, then {dbserver.ENV_BACKEND}=java cw db start)")
    with Neo4jStore(info.bolt_uri, *(dbserver.credentials(home) or (None, None))) as store:
        found = store.run(store.q("schema_version"))[0]
    if found["atoms"] or found["tasks"]:
        raise ServerError(f"`cw db import` builds a fresh database, and the one at {info.bolt_uri} holds "
                          f"{found['atoms']} atoms and {found['tasks']} tasks: load with `cw --store "
                          f"{info.bolt_uri} load` instead (it merges into them)")
    return info


def import_graph(home: Path, atoms: Iterable[pa.Table], edges: Iterable[tuple[str, pa.Table]], *,
                 bolt_port: int | None = None, http_port: int | None = None) -> Neo4jStore:
    """A fresh database for the local server of `home`, built by Neo4j's importer from the tables
    GraphStore.write takes (dbserver.import_database: the server stopped, or started, and served
    with its data kept), opened, constraints and indexes created after. What was in it before is
    gone: `cw db import` (codewalk.loading.db_import) checks there was nothing first."""
    home = Path(home).expanduser()
    home.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=home, prefix="import-csv-") as folder:
        nodes, rels, multiline = import_files(atoms, edges, Path(folder))
        info = dbserver.import_database(home, nodes, rels, array_delimiter=SEP, multiline=multiline,
                                        bolt_port=bolt_port, http_port=http_port)
    store = Neo4jStore(info.bolt_uri, *(dbserver.credentials(home) or (None, None)))
    store.run(store.q("await_indexes"))
    return store


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


def _row_batches(table: pa.Table) -> Iterator[list[dict[str, Any]]]:
    """A table's rows as dicts, BATCH at a time (one UNWIND each)."""
    for start in range(0, table.num_rows, BATCH):
        yield table.slice(start, BATCH).to_pylist()


def _atom_row(row: dict[str, Any]) -> dict[str, Any]:
    """upsert_atoms' row for an ATOM_SCHEMA row: its id, and of its properties only those that are set
    (as atom_row gives for a record)."""
    props = {"domain": row["domain"], "payload": row["payload"]}
    props.update((k, row[k]) for k in SUMMARY_FIELDS if row[k] not in (None, "", []))
    return {"id": row["id"], "props": props}


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
