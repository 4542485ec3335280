"""Neo4j 5.x over Bolt with the official driver (local, Docker, Aura: anything that speaks Bolt)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import islice
from typing import Any

import neo4j
import pyarrow as pa
from neo4j.exceptions import AuthError, DriverError, Neo4jError, ServiceUnavailable
from neo4j.graph import Node, Path, Relationship

from ..errors import QueryError, StoreError, StoreUnavailable
from ..records import Atom, Edge
from . import BATCH, GraphStore

TABLE_CHUNK = 100_000  # records per Arrow chunk in table()


class Neo4jStore(GraphStore):
    dialect = "neo4j"

    def __init__(self, uri: str, user: str | None, password: str | None, database: str = "neo4j"):
        self.location = uri
        self.database = database
        auth = (user or "neo4j", password) if password else None
        # Bounded: a dead server makes `cw` fail within seconds instead of hanging.
        self._driver = neo4j.GraphDatabase.driver(
            uri, auth=auth, connection_timeout=5, connection_acquisition_timeout=10, max_transaction_retry_time=10,
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
        self.ensure_schema()

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
    if isinstance(value, Path):
        return [_plain(n) for n in value.nodes]
    if isinstance(value, list):
        # a list of plain strings (thousands of ids, say) is returned as it is
        return value if all(type(v) is str for v in value) else [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if hasattr(value, "iso_format"):  # neo4j temporal types
        return value.iso_format()
    return value
