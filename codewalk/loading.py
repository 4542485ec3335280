"""`cw load`: atoms from a source, edges from the domain's relation, one transaction into the store."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from .domain import get_domain
from .errors import InputError, UsageError
from .records import Atom
from .store import GraphStore


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
         bulk: bool = False) -> LoadSummary:
    """Read every record first, so a bad one fails the load before anything is written.

    The relation is computed over the atoms of this source; loading the same source again changes nothing.
    `bulk` writes through the store's bulk path (Neo4j: its importer into the empty database of the local
    server `cw db start` runs; the embedded store: its usual one-transaction COPY).
    """
    started = time.monotonic()
    domain = get_domain(domain_name)
    options = domain.parse_options(options or {})
    if not source.exists():
        raise UsageError(f"source not found: {source}")
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
