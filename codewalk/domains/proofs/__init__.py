"""The proof-completion domain (paper Sec. 3.2, App. A.4, B.2): chains of verified functions, proofs removed.

An atom a = (f, S_a) is a function with its precondition and supporting definitions; its original
postcondition is the fixed step predicate S_a. FEEDS links a_i to a_j (functions of different source
programs) when a_i's output can be passed to an argument of a_j, directly or through an allowed
conversion; a_j's other arguments must be scalars, which become driver inputs. A level-N task is a chain
composed under `chain_driver`, which asserts every S_i on the actual intermediate values; the task has the
component postconditions and proof annotations removed, the reference restores them. Admission: the
reference verifies, and each position fails a goal of its own when only its annotations are removed
(ACSL; Verus checks the whole stripped task).

Only atoms whose own reference proves are walked. At load, each ACSL atom's level-1 reference (the atom
alone under `chain_driver`) is verified (cached, so a reload costs file reads); the atom keeps
`reference_proves` and the verifier's reason in its payload, and one that does not prove is labelled
`unproven` instead of its backend. A walk asks every position for the backend's label (walk_plan), so an
unproven atom stays in the store, with its edges, but no walk picks it. `--opt references=trust` skips
the check (every atom is walked, and admission rejects the chains a failing one joins).

Two verifier backends, one formulation. The backend is chosen by the source given to `cw load proofs`
(a Verus-Bench folder or an ACSL by Example folder; `--opt backend=verus|acsl` forces it) and stored in
every atom, so edges, and hence chains, never mix backends. A walk follows one backend, in a store that
holds both: `cw walk --domain proofs --opt backend=acsl|verus` (default acsl):
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
from typing import Any

from codewalk.domain import Domain, Option, Rejected, WalkPlan
from codewalk.errors import UsageError
from codewalk.loaders import acsl as acsl_loader
from codewalk.loaders import verusbench as verus_loader
from codewalk.records import Atom, Check, Composite, Edge, Reason

from . import acsl, verus

log = logging.getLogger(__name__)

BACKENDS: dict[str, ModuleType] = {"verus": verus, "acsl": acsl}
UNPROVEN = "unproven"  # the label of an atom whose own reference does not prove: no walk picks it


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
    if options.get("programs"):
        atoms = _only(atoms, options["programs"])
    return backend, atoms, skipped


def _only(atoms: list[Atom], programs: str) -> list[Atom]:
    """The atoms of the named programs (`Folder/example` for ACSL), in load order; an unknown name is an error."""
    wanted = {p.strip() for p in programs.split(",") if p.strip()}
    kept = [a for a in atoms if a.summary["source"].split(":", 1)[1] in wanted]
    missing = wanted - {a.summary["source"].split(":", 1)[1] for a in kept}
    if missing:
        raise UsageError(f"--opt programs: no atom of {', '.join(sorted(missing))} in the source")
    return kept


def own_reference(atom: Atom) -> Atom:
    """The ACSL atom with whether its own level-1 reference proves, and the verifier's reason; labelled
    unproven when it does not, so no walk picks it."""
    try:
        check = acsl.check_reference(acsl.compose([atom]))
        proves, why = check.ok, check.detail
    except Rejected as r:
        proves, why = False, f"it does not compose alone: {r.reason}: {r.detail}"
    summary = {**atom.summary, "label": atom.payload["backend"] if proves else UNPROVEN}
    return Atom(atom.id, atom.domain, summary, {**atom.payload, "reference_proves": proves, "reference": why})


class ProofsDomain(Domain):
    name = "proofs"
    relation = "FEEDS"
    composer_version = "proofs-2"  # 2: the included files travel in the composite
    data_source = "Verus-Bench (microsoft/verus-proof-synthesis@422077e3) or ACSL by Example; both MIT"
    load_options = (Option("backend", "verifier backend (default: detected from the folder)", choices=("verus", "acsl")),
                    Option("verus", "path of the verus binary used for admission and grading"),
                    Option("programs", "comma-separated programs to load, e.g. Mutating/fill (default: all)"),
                    Option("references", "check (default): verify each ACSL atom's own reference and walk only "
                           "those that prove; trust: walk every atom", choices=("check", "trust")))
    walk_options = (Option("backend", "the backend a walk follows, in a store holding both (default: acsl)",
                           choices=tuple(BACKENDS)),)
    description = "Chains of verified functions, proofs removed (Verus or Frama-C/WP); graded by the verifier."

    def load(self, source: Path, options: dict[str, str]) -> Iterator[Atom]:
        backend, atoms, skipped = read(Path(source), options)
        for what, why in skipped:
            log.info("skipped %s: %s", what, why)
        log.info("%s: %d atoms, %d functions or programs skipped", backend, len(atoms), len(skipped))
        if backend == "acsl" and options.get("references", "check") == "check":
            checked = []  # one Frama-C run per atom: minutes for a dataset, so the load reports each
            for atom in atoms:
                checked.append(own_reference(atom))
                if self.settings.on_progress:
                    self.settings.on_progress(len(checked), len(atoms))
            atoms = checked
        unproven = sorted(a.summary["source"] for a in atoms if a.summary["label"] == UNPROVEN)
        for atom in atoms:
            if atom.summary["label"] == UNPROVEN:
                log.info("not walked: %s: %s", atom.summary["source"], atom.payload["reference"])
        self._report = {"backend": backend, "skipped": len(skipped),
                        "reference_proves": sum(a.payload.get("reference_proves") is True for a in atoms),
                        "reference_fails": len(unproven), "not_walked": unproven}
        yield from atoms

    def load_report(self) -> dict[str, Any]:
        """The last load's counts: programs skipped, atoms whose own reference proves or fails (not walked)."""
        return getattr(self, "_report", {})

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
                elif (arg := acsl.connect(src, dst)) is not None:  # None: dst needs what src does not state
                    yield Edge(src.id, dst.id, "FEEDS", arg=arg)

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
        # Every position carries the backend's label: one backend per walk (acsl unless `--opt backend=`
        # says otherwise: the one that runs here), never an unproven atom. Each source program at most
        # twice per chain.
        backend = self.settings.walk.get("backend", "acsl")
        return WalkPlan(labels=(backend,) * n, max_per_source=2)

    def compose(self, atoms: Sequence[Atom]) -> Composite:
        backends = {a.payload["backend"] for a in atoms}
        if len(backends) != 1:
            raise Rejected(Reason.MIXED_BACKENDS, f"the chain mixes backends {sorted(backends)}")
        return BACKENDS[backends.pop()].compose(atoms)

    def check_reference(self, composite: Composite, atoms: Sequence[Atom]) -> Check:
        return self._backend(composite).check_reference(composite)

    def check_unsolved(self, composite: Composite, atoms: Sequence[Atom], position: int) -> Check:
        return self._backend(composite).check_unsolved(composite, position)

    def grade(self, composite: Composite, candidate: str) -> Check:
        return self._backend(composite).grade(composite, candidate)

    leave_one_out = True

    def reference_without(self, composite: Composite, atoms: Sequence[Atom], position: int) -> str | None:
        """Ref(G) with one atom's proof left out: its component as the task (x_G) has it, the others'
        annotations kept (`cw release`'s every-atom-must-matter check)."""
        if composite.verifier["backend"] == "acsl":
            return acsl.reference_without(composite, position)
        return verus.reference_without(composite, atoms[position], position)

    def check_without(self, composite: Composite, atoms: Sequence[Atom], position: int) -> Check | None:
        """ACSL: check (1)'s own program for that position (acsl.check_without), from the verdict cache where
        admission ran it; Verus, whose check (1) strips the whole task: the grading path."""
        if composite.verifier["backend"] == "acsl":
            return acsl.check_without(composite, position)
        return super().check_without(composite, atoms, position)

    @staticmethod
    def _backend(composite: Composite) -> ModuleType:
        return BACKENDS[composite.verifier["backend"]]
