"""`cw load`: atoms from a source, edges from the domain's relation, one transaction into the store."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from . import paths
from .domain import Domain, get_domain
from .errors import InputError, UsageError
from .records import Atom
from .runtime import choose as choose_runtime
from .store import GraphStore
from .store.columns import as_atom_table, as_edge_table, distinct


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


def load(store: GraphStore, domain_name: str, source: Path, options: dict[str, str] | None = None, *,
         bulk: bool = False, runtime: str | None = None, pull: bool = True) -> LoadSummary:
    """Read every record first, so a bad one fails the load before anything is written.

    The relation is computed over the atoms of this source; loading the same source again changes nothing.
    `bulk` writes through the store's bulk path (Neo4j: its importer into the empty database of the local
    server `cw db start` runs; the embedded store: its usual one-transaction COPY). `runtime` (and `pull`)
    is where the domain's verifier will run (codewalk.runtime); a domain may prepare it while loading
    (repair under docker: each environment's image is pulled or built).
    """
    started = time.monotonic()
    domain = get_domain(domain_name)
    choose_runtime(domain, runtime, pull=pull)
    domain.store_folder = paths.beside_store(store.location)
    options = domain.parse_options(options or {})
    if not source.exists():
        raise UsageError(f"source not found: {source}")
    table = domain.load_columns(source, options)
    if table is not None:
        return _load_columns(store, domain, source, table, bulk, started)
    atoms: dict[str, Atom] = {}
    for atom in domain.load(source, options):
        if atom.domain != domain.name:
            raise InputError(str(source), atom.id, f"atom of domain {atom.domain!r} from the {domain.name!r} loader")
        if atom.id in atoms:
            raise InputError(str(source), atom.id, "duplicate atom id")
        atoms[atom.id] = atom
    edges = list(domain.edges(list(atoms.values())))
    counts: dict[str, int] = {}
    for e in edges:
        if e.src not in atoms or e.dst not in atoms or e.src == e.dst:
            raise InputError(str(source), f"{e.src}->{e.dst}", "edge between unknown or identical atoms")
        counts[e.type] = counts.get(e.type, 0) + 1
    (store.bulk_load if bulk else store.write_graph)(list(atoms.values()), edges)
    return LoadSummary(domain.name, str(source), len(atoms), counts, time.monotonic() - started, store.location,
                       domain.load_report())


def _load_columns(store: GraphStore, domain: Domain, source: Path, table: pa.Table, bulk: bool,
                  started: float) -> LoadSummary:
    """`load` for a domain that gives its atoms as columns: the same checks, made on the columns, and
    the tables written as they are (no record per atom or edge)."""
    if "id" not in table.column_names:
        raise InputError(str(source), "-", "the atoms have no id column")
    atoms = as_atom_table(table)
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
        counts = pc.value_counts(ids)
        repeated = pc.filter(counts.field("values"), pc.greater(counts.field("counts"), 1))
        raise InputError(str(source), repeated[0].as_py(), "duplicate atom id")
    edges, counts = [], {}
    for rel, found in domain.edge_columns(table):
        edge_table = as_edge_table(rel, found)
        src, dst = edge_table.column("src"), edge_table.column("dst")
        bad = pc.invert(pc.and_(pc.and_(pc.is_in(src, value_set=ids), pc.is_in(dst, value_set=ids)),
                                pc.not_equal(src, dst)))
        if pc.any(bad).as_py():
            at = _first(bad)
            raise InputError(str(source), f"{src[at].as_py()}->{dst[at].as_py()}",
                             "edge between unknown or identical atoms")
        edges.append((rel, edge_table))
        counts[rel] = counts.get(rel, 0) + edge_table.num_rows
    (store.bulk_tables if bulk else store.write_tables)([atoms], edges)
    return LoadSummary(domain.name, str(source), atoms.num_rows, counts, time.monotonic() - started, store.location,
                       domain.load_report())


def _first(mask: pa.ChunkedArray | pa.Array) -> int:
    """The row of the first true value of a boolean column."""
    return pc.index(mask, True).as_py()
