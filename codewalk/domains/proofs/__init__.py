"""The proof-completion domain (paper Sec. 3.2, App. A.4, B.2): chains of verified functions, proofs removed.

An atom a = (f, S_a) is a function with its precondition and supporting definitions; its original
postcondition is the fixed step predicate S_a. FEEDS links a_i to a_j (functions of different source
programs) when a_i's output can be passed to an argument of a_j, directly or through an allowed
conversion; a_j's other arguments must be scalars, which become driver inputs. A level-N task is a chain
composed under `chain_driver`, which asserts every S_i on the actual intermediate values; the task has the
component postconditions and proof annotations removed, the reference restores them. Admission: the
reference verifies, and each position fails a goal of its own when only its annotations are removed
(ACSL; Verus checks the whole stripped task).

Two verifier backends, one formulation. The backend is chosen by the source given to `cw load proofs`
(a Verus-Bench folder or an ACSL by Example folder; `--opt backend=verus|acsl` forces it) and stored in
every atom, so edges, and hence chains, never mix backends:
- verus (verus): Verus-Bench programs, verified by `verus` where it is installed
  (`--opt verus=PATH` names it); without it, admission stops with a UsageError saying Verus is needed.
- acsl (acsl): ACSL by Example, verified by Frama-C/WP with Z3 and cvc5.
Verification results are cached by content hash (cache).
"""

from __future__ import annotations

import logging
import random
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from types import ModuleType

from codewalk.domain import Domain, Option, Rejected, WalkPlan
from codewalk.errors import UsageError
from codewalk.loaders import acsl as acsl_loader
from codewalk.loaders import verusbench as verus_loader
from codewalk.records import Atom, Check, Composite, Edge

from . import acsl, verus

log = logging.getLogger(__name__)

BACKENDS: dict[str, ModuleType] = {"verus": verus, "acsl": acsl}


def detect_backend(source: Path) -> str:
    """acsl for an ACSL by Example folder (subdirs.list), verus for a Verus-Bench one (*/verified/*.rs)."""
    if (source / "subdirs.list").is_file():
        return "acsl"
    if source.is_dir() and any(source.glob("*/verified/*.rs")):
        return "verus"
    raise UsageError(
        f"cannot tell the proof backend of {source}: expected a Verus-Bench folder (<group>/verified/*.rs) "
        "or an ACSL by Example folder (subdirs.list); or pass --opt backend=verus|acsl"
    )


def read(source: Path, options: dict[str, str]) -> tuple[str, list[Atom], list[tuple[str, str]]]:
    """(backend, atoms, skipped (what, why)) of a source; used by `load` and by the bench report."""
    source = Path(source)
    backend = options.get("backend") or detect_backend(source)
    if backend not in BACKENDS:
        raise UsageError(f"unknown proof backend {backend!r}; choose verus or acsl")
    if backend == "acsl":
        atoms, skipped = acsl_loader.read(source)
    else:
        atoms, skipped = verus_loader.read(source)
        if options.get("verus"):  # where Verus lives on this machine, for admission and grading
            atoms = [Atom(a.id, a.domain, a.summary, {**a.payload, "verus": options["verus"]}) for a in atoms]
    return backend, atoms, skipped


class ProofsDomain(Domain):
    name = "proofs"
    relation = "FEEDS"
    composer_version = "proofs-1"
    data_source = "Verus-Bench (microsoft/verus-proof-synthesis@422077e3) or ACSL by Example; both MIT"
    load_options = (Option("backend", "verifier backend (default: detected from the folder)", choices=("verus", "acsl")),
                    Option("verus", "path of the verus binary used for admission and grading"))
    description = "Chains of verified functions, proofs removed (Verus or Frama-C/WP); graded by the verifier."

    def load(self, source: Path, options: dict[str, str]) -> Iterator[Atom]:
        backend, atoms, skipped = read(Path(source), options)
        for what, why in skipped:
            log.info("skipped %s: %s", what, why)
        log.info("%s: %d atoms, %d functions or programs skipped", backend, len(atoms), len(skipped))
        yield from atoms

    def edges(self, atoms: Sequence[Atom]) -> Iterable[Edge]:
        """Type buckets per backend: each output type meets the atoms that accept it."""
        accepts: dict[tuple[str, str], list[tuple[Atom, int]]] = defaultdict(list)
        for atom in atoms:
            backend = BACKENDS[atom.payload["backend"]]
            for k, key in backend.inputs(atom.payload):
                accepts[(atom.payload["backend"], key)].append((atom, k))
        for src in atoms:
            b = src.payload["backend"]
            seen = set()
            for dst, _ in self._candidates(accepts, src):
                if dst.id in seen or dst.summary["source"] == src.summary["source"]:
                    continue
                seen.add(dst.id)
                if b == "verus":
                    k, via = verus.connect(src, dst)  # type: ignore[misc]  # dst is in src's bucket: connected
                    yield Edge(src.id, dst.id, "FEEDS", arg=k, via=None if via == "direct" else via)
                else:
                    yield Edge(src.id, dst.id, "FEEDS", arg=acsl.connect(src, dst))

    @staticmethod
    def _candidates(accepts: dict[tuple[str, str], list[tuple[Atom, int]]], src: Atom) -> list[tuple[Atom, int]]:
        """The (atom, argument) pairs whose parameter type src's output can reach."""
        b, p = src.payload["backend"], src.payload
        if b == "acsl":
            return accepts[(b, acsl.output_key(p))]
        out = verus.output_key(p)  # a Vec<T> also reaches &Vec<T> and &[T] parameters
        elem = out[4:-1] if out.startswith("Vec<") else None
        keys = [out] + ([f"&Vec<{elem}>", f"&[{elem}]"] if elem else [])
        return [c for key in keys for c in accepts[(b, key)] if verus.connect(src, c[0])]

    def walk_plan(self, n: int, rng: random.Random) -> WalkPlan:
        return WalkPlan(max_per_source=2)  # each source program at most twice per chain

    def compose(self, atoms: Sequence[Atom]) -> Composite:
        backends = {a.payload["backend"] for a in atoms}
        if len(backends) != 1:
            raise Rejected("mixed_backends", f"the chain mixes backends {sorted(backends)}")
        return BACKENDS[backends.pop()].compose(atoms)

    def check_reference(self, composite: Composite, atoms: Sequence[Atom]) -> Check:
        return self._backend(composite).check_reference(composite)

    def check_unsolved(self, composite: Composite, atoms: Sequence[Atom], position: int) -> Check:
        return self._backend(composite).check_unsolved(composite, position)

    def grade(self, composite: Composite, candidate: str) -> Check:
        return self._backend(composite).grade(composite, candidate)

    @staticmethod
    def _backend(composite: Composite) -> ModuleType:
        return BACKENDS[composite.verifier["backend"]]
