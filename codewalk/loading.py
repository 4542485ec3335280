"""`cw load` and `cw db import`: atoms from a source and edges from the domain's relation, as Arrow tables
checked once, written into the store in one transaction or built into Neo4j's database by its importer."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from . import paths
from .domain import Domain, Settings, domain_class, get_domain
from .errors import InputError, UsageError
from .runtime import Runtime, ready
from .store import GraphStore
from .store.columns import as_atom_table, as_edge_table, atom_table, distinct, edge_tables


@dataclass(frozen=True)
class LoadSummary:
    domain: str
    source: str
    atoms: int
    edges: dict[str, int]
    seconds: float
    store: str
    report: dict = field(default_factory=dict)  # the domain's own account of what it kept (load_report)

    def as_dict(self) -> dict:
        return {"domain": self.domain, "source": self.source, "atoms": self.atoms, "edges": self.edges,
                "seconds": round(self.seconds, 3), "store": self.store, **({"report": self.report} if self.report else {})}


@dataclass(frozen=True)
class Graph:
    """A source's atoms and the domain's relation on them, checked, as the tables GraphStore.write takes."""

    domain: Domain
    source: Path
    atoms: pa.Table
    edges: list[tuple[str, pa.Table]]

    def summary(self, started: float, store: str) -> LoadSummary:
        counts: dict[str, int] = {}
        for rel, table in self.edges:
            counts[rel] = counts.get(rel, 0) + table.num_rows
        return LoadSummary(self.domain.name, str(self.source), self.atoms.num_rows, counts,
                           time.monotonic() - started, store, self.domain.load_report())


def load(store: GraphStore, domain_name: str, source: Path, options: dict[str, str] | None = None, *,
         runtime: Runtime | str | None = None, pull: bool = True) -> LoadSummary:
    """`cw load`: read and check the whole source first (`read`), so a bad record fails the load before
    anything is written, then write it in one transaction (UNWIND upserts into Neo4j, COPY and MERGE into
    the embedded store). The relation is computed over the atoms of this source; loading the same
    source again changes nothing."""
    started = time.monotonic()
    graph = read(domain_name, source, options, runtime=runtime, pull=pull, store=store.location)
    store.write([graph.atoms], graph.edges)
    return graph.summary(started, store.location)


def load_briefly(open_store: Callable[[bool], GraphStore], domain_name: str, source: Path,
                 options: dict[str, str] | None = None, *, runtime: str | None = None, pull: bool = True,
                 on_progress: Callable[[int, int], None] | None = None) -> LoadSummary:
    """`cw load` holding the store only while writing: `load`, but the source is read and checked (minutes,
    for a domain that verifies every record) with the store closed, so other commands use it meanwhile.
    `open_store(wait)` opens it: first once to check it opens (its schema, whether another process holds
    it), then to write, waiting for a holder then (the reading is done: it is not thrown away)."""
    started = time.monotonic()
    with open_store(False) as store:
        location = store.location
    graph = read(domain_name, source, options, runtime=runtime, pull=pull, store=location, on_progress=on_progress)
    with open_store(True) as store:
        store.write([graph.atoms], graph.edges)
        return graph.summary(started, store.location)


def db_import(home: Path, domain_name: str, source: Path, options: dict[str, str] | None = None, *,
              runtime: Runtime | str | None = None, pull: bool = True) -> LoadSummary:
    """`cw db import`: the source, read and checked as `cw load` reads it, becomes the database of the
    local server `cw db start` runs from `home`, by Neo4j's own importer (the server stopped, the database
    built offline from CSV files, the server started again with its data kept). Only into that server,
    holding no atom and no task yet (store.neo4j.importable_server says why not, before the source is read)."""
    from .store.neo4j import import_graph, importable_server

    started = time.monotonic()
    importable_server(home)
    graph = read(domain_name, source, options, runtime=runtime, pull=pull)
    with import_graph(home, [graph.atoms], graph.edges) as store:
        return graph.summary(started, store.location)


def read(domain_name: str, source: Path, options: dict[str, str] | None = None, *,
         runtime: Runtime | str | None = None, pull: bool = True, store: str = "",
         on_progress: Callable[[int, int], None] | None = None) -> Graph:
    """Every atom of a source and the domain's relation on them, as tables, checked once whichever way the
    domain gives them: as columns (`Domain.load_columns`, no record per atom) or as records, made into
    columns here. `runtime` (and `pull`) is where the domain's verifier will run (codewalk.runtime); a
    domain may prepare it while loading (repair under docker: each environment's image is pulled or built).
    `store` is where the graph goes (files that belong with it go beside it: paths.beside_store).
    `on_progress(done, total)`: a domain that verifies its records reports them (Settings.on_progress)."""
    kind = domain_class(domain_name)
    where = ready(runtime, kind.name, kind.runtimes, pull=pull)
    domain = get_domain(domain_name, Settings(runtime=where, store_folder=paths.beside_store(store),
                                              on_progress=on_progress))
    options = domain.parse_options(options or {})
    if not source.exists():
        raise UsageError(f"source not found: {source}")
    table = domain.load_columns(source, options)
    found: Iterable[tuple[str, pa.Table]]
    if table is not None:
        if "id" not in table.column_names:
            raise InputError(str(source), "-", "the atoms have no id column")
        atoms = _checked_atoms(source, domain, as_atom_table(table))
        found = ((rel, as_edge_table(rel, edges)) for rel, edges in domain.edge_columns(table))
    else:
        records = list(domain.load(source, options))
        atoms = _checked_atoms(source, domain, atom_table(records))
        related = list(domain.edges(records))
        found = edge_tables(related, len(related) or 1)
    ids = atoms.column("id")
    return Graph(domain, source, atoms, [(rel, _checked_edges(source, ids, edges)) for rel, edges in found])


def _checked_atoms(source: Path, domain: Domain, atoms: pa.Table) -> pa.Table:
    """Atoms in ATOM_SCHEMA, each with an id, of this domain, and no id twice; at least one (a load of
    nothing is a wrong file, not a success)."""
    if atoms.num_rows == 0:
        raise InputError(str(source), None, f"no {domain.name} atom in it (an empty file, or no record the "
                                            f"{domain.name} loader reads)")
    ids = atoms.column("id")
    blank = pc.fill_null(pc.equal(ids, ""), True)
    if pc.any(blank).as_py():
        raise InputError(str(source), f"row {_first(blank) + 1}", "atom without an id")
    foreign = pc.not_equal(atoms.column("domain"), domain.name)
    if pc.any(foreign).as_py():
        at = _first(foreign)
        raise InputError(str(source), ids[at].as_py(),
                         f"atom of domain {atoms.column('domain')[at].as_py()!r} from the {domain.name!r} loader")
    if not distinct(atoms.select(["id"])):
        seen: set[str] = set()
        for i in ids.to_pylist():  # the first id met a second time, as a reader going row by row meets it
            if i in seen:
                raise InputError(str(source), i, "duplicate atom id")
            seen.add(i)
    return atoms


def _checked_edges(source: Path, ids: pa.ChunkedArray, edges: pa.Table) -> pa.Table:
    """Edges between two atoms of the source, each between two different atoms."""
    src, dst = edges.column("src"), edges.column("dst")
    bad = pc.invert(pc.and_(pc.and_(pc.is_in(src, value_set=ids), pc.is_in(dst, value_set=ids)),
                            pc.not_equal(src, dst)))
    if pc.any(bad).as_py():
        at = _first(bad)
        raise InputError(str(source), f"{src[at].as_py()}->{dst[at].as_py()}", "edge between unknown or identical atoms")
    return edges


def _first(mask: pa.ChunkedArray | pa.Array) -> int:
    """The row of the first true value of a boolean column."""
    return pc.index(mask, True).as_py()
