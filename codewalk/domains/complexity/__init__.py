"""The complexity-analysis domain (paper Sec. 3.3, App. A.2, B.3) on CodeComplex Python programs.

An atom c = (s, f, tau_in, tau_out, l) is a program s rewritten into a typed entry function f (see
codewalk.loaders.codecomplex), its size parameter's type, its return type and its class l.
At load time each atom is checked against its original program on generated inputs, then run on
inputs of growing size (n = 2^e, fixed seeds) with its cost counted (cost.py: line events plus the
C work of builtins, deterministic) and its output size recorded; both are fitted to the closed set of
classes. The atom rule: l is the measured cost class; the CodeComplex label is kept when they agree,
replaced when the measured class is another label, and the atom dropped when the cost fits no class
or one no label names ((log n)^2); `cw load` reports the counts (load_report).

FEEDS: c_i -> c_j when c_j takes a single parameter of c_i's return type and c_i's output grows with
its input (a constant-size value such as YES/NO would starve c_j, whose label then says nothing about
the answer: a trivial chain); neither function changes. The inputs of the chain's first atom are the
program's inputs, of size n. A later atom takes
nothing but the value handed to it: were it to read inputs of its own, its label (a bound in one n)
would not say how its cost splits between them and the chained value, and the derived class could be
a loose upper bound instead of the answer (solve(k, s) that loops over s, fed a k of n^2 elements, is
still linear). A level-N task is one program: the entry functions renamed solve_1 .. solve_N with their
helpers, and a driver that reads the inputs, chains the calls and prints the result. The reference is
the class derived from the labels and the output growths (growth.derive). Admission runs the cheap
check first: (1), on labels only, the reference differs from the largest atomic label, else the task is
solvable without composing (a single atom is its own task); then (2): the composite runs on stage 1's
inputs at growing sizes with its cost counted as an atom's is, and is admitted only if the fitted class
is the derived reference (a class no label names is `unlabelled_growth`); the measured cost points and
the sizes of the chained values are the task's evidence. Grading parses one of the seven labels.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib
import logging
import math
import os
import random
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

from codewalk.domain import Domain, Option, Rejected, Settings
from codewalk.errors import UsageError
from codewalk.loaders import codecomplex as loader
from codewalk.records import Atom, Check, Composite, Edge, Reason

from . import growth, inputs, measure, model, run, verify

log = logging.getLogger(__name__)

# App. A.2, verbatim.
INSTRUCTION = (
    'Determine the time complexity of this competitive programming code. Treat "n" as the primary input size '
    "(the value read as n, or the length of the main input array/string). Judge the complexity of the whole "
    "program, not just one function. Choose exactly one label: constant logn linear nlogn quadratic cubic np "
    "Return ONLY the label. Do not explain your answer."
)
RANK = {name: k for k, name in enumerate(growth.LABELS)}
# A label joined to another word by a hyphen is not that label: "non-linear" does not say linear, and
# "NP-hard" (a problem's hardness, not a running time) does not say np; such an answer names no label.
LABEL_WORD = re.compile(r"(?<![a-z0-9_-])(" + "|".join(growth.LABELS) + r")(?![a-z0-9_-])")

READ = {  # how the driver reads stage 1's parameters; the composite's input follows this format
    "int": "int(input())",
    "str": "input()",
    "list[int]": "list(map(int, input().split()))",
    "list[str]": "input().split()",
    "list[list[int]]": "[list(map(int, input().split())) for _ in range(int(input()))]",
    "list[list[str]]": "[input().split() for _ in range(int(input()))]",
}


class ComplexityDomain(Domain):
    name = "complexity"
    relation = "FEEDS"
    composer_version = "complexity-4"  # 2: the prompt states the size model; bounded links rejected; 3: sizes
    # below log n derived (growth.Growth.of: a bound), no longer derivation_indeterminate; 4: the runs' wall-clock
    # nets 60 s / 300 s (measure.COST_LIMIT): at 5 s / 30 s the load could end a measurement before the count did
    data_source = "CodeComplex (Baik et al., arXiv:2401.08719), sybaik1/CodeComplex@75ec12fc, Python test split"
    load_options = (Option("ids", "comma-separated program ids to load (default: all)"),
                    Option("workers", "processes that verify programs (default: every core this process may use)", int))
    description = "CodeComplex programs as typed functions chained by type; predict the complexity class."

    def __init__(self, settings: Settings | None = None) -> None:
        super().__init__(settings)
        self._report: dict[str, Any] = {}  # what the last load kept, relabelled and dropped

    # -- source -> atoms -> edges ------------------------------------------------------------------
    def load(self, source: Path, options: dict[str, Any]) -> Iterator[Atom]:
        """Options: workers=K (parallel verification, default: all cores), ids=ID,ID,... (a subset)."""
        programs = loader.read(Path(source))
        if "ids" in options:
            wanted = {i for i in options["ids"].split(",") if i}
            if unknown := wanted - {p.id for p in programs}:
                raise UsageError(f"ids not in {source}: {', '.join(sorted(unknown))}")
            programs = [p for p in programs if p.id in wanted]
        workers = options.get("workers", len(os.sched_getaffinity(0)))  # the cores this process may use
        done = 0

        def verified(program: Any, result: Any) -> None:
            nonlocal done
            done += 1
            if self.settings.on_progress:
                self.settings.on_progress(done, len(programs))

        kept, drops = verify.build(programs, workers=workers, progress=verified)
        for drop in drops:
            log.info("dropped %s: %s: %s", drop.program, drop.reason, drop.detail)
        self._report = atom_rule_counts(kept, drops, len(programs))
        if drops:
            log.warning("kept %d of %d programs; dropped: %s", len(kept), len(programs),
                        ", ".join(f"{r} {c}" for r, c in self._report["dropped"].items()))
        log.warning("atom rule (measured cost class against the label): %s",
                    ", ".join(f"{k} {v}" for k, v in self._report["atom_rule"].items()))
        for program, summary, payload in kept:
            yield Atom(f"complexity/{program.id}", self.name, summary, payload)

    def load_report(self) -> dict[str, Any]:
        return self._report

    def edges(self, atoms: Sequence[Atom]) -> Iterable[Edge]:
        """Type buckets: each atom whose output growth is known feeds every other single-parameter atom
        whose parameter has its return type (arg 0)."""
        by_in_type: dict[str, list[Atom]] = defaultdict(list)
        for atom in atoms:
            if len(atom.payload["params"]) == 1:
                by_in_type[atom.summary["in_type"]].append(atom)
        for src in atoms:
            if src.payload.get("growth") in (None, "constant") or bounded(src):
                # without a growth no derivation passes through this atom; a constant-size value (YES/NO,
                # or a count taken modulo 998244353) starves the next stage, whose cost then says nothing
                # about its label
                continue
            for dst in by_in_type[src.summary["out_type"]]:
                if dst.id != src.id:
                    yield Edge(src.id, dst.id, "FEEDS", arg=0)

    # -- composition ----------------------------------------------------------------------------------
    def compose(self, atoms: Sequence[Atom]) -> Composite:
        if not atoms:
            raise Rejected(Reason.EMPTY_GROUP, "no atoms")
        for a, b in pairwise(atoms):
            takes = f"{b.id} takes {', '.join(t for _, t in b.payload['params'])}"
            if len(b.payload["params"]) != 1:
                raise Rejected(Reason.READS_OWN_INPUTS, f"{takes}; a later stage takes only the value passed on")
            if a.summary["out_type"] != b.summary["in_type"]:
                raise Rejected(Reason.TYPE_MISMATCH, f"{a.id} returns {a.summary['out_type']}; {takes}")
            if a.payload.get("growth") is None:
                raise Rejected(Reason.GROWTH_UNKNOWN, f"no measured output growth for {a.id}")
            if a.payload["growth"] == "constant":
                raise Rejected(Reason.CONSTANT_LINK, f"{a.id} hands on a value of constant size; the next stage "
                                                     "would be starved")
            if c := bounded(a):
                raise Rejected(Reason.BOUNDED_LINK, f"{a.id} hands on a value reduced modulo {c}: bounded by a "
                                                    "constant, whatever its measured sizes up to the modulus")
        if len(atoms) > 1 and (pinned := model.unscaled_inputs(atoms[0].payload)):
            # the generator kept them small so that the program runs; the problem does not bound them, and
            # the value handed on may grow with them (n << k, 1 << max(a)): the reference would hang on them
            raise Rejected(Reason.UNSCALED_INPUT,
                           f"stage 1 ({atoms[0].id}) is measured with {', '.join(pinned)} held to a constant "
                           "range: the chained value may hang on an input that is not a size")
        derivation = derive(atoms)
        functions, driver, names = _program(atoms)
        program = functions + "\n\n\n" + driver
        return Composite(
            prompt=f"```python\n{program}```\n\n{model.describe(atoms[0].payload)}\n\n{INSTRUCTION}",
            reference=str(derivation.label),  # derive() refuses a chain without a label
            verifier={
                "label": derivation.label,
                "labels": [a.summary["label"] for a in atoms],
                "derivation": derivation.explain(),
                "links": [[g.exp, g.p, g.l, g.ll] for g in derivation.links],
                "functions": functions,
                "driver": driver,
                # the parameter whose size the driver run records: stage 1's n, then the chained value
                "stages": [[name, atoms[0].payload["size"] if i == 0 else 0] for i, name in enumerate(names)],
            },
        )

    # -- admission ---------------------------------------------------------------------------------------
    def check_reference(self, composite: Composite, atoms: Sequence[Atom]) -> Check:
        """(2): the composite is run on inputs of growing size (n = 2^e, fixed seed), its cost counted
        (cost.py) and fitted to a class; admitted only if that class is the derived reference. The
        measured sizes of the chained values are kept beside it, with whether they grow as derived."""
        # (1) is cheap (labels only) and (2) runs the composite: a group that fails (1) is rejected
        # here, by (1)'s reason, before anything runs.
        for position in range(len(atoms)):
            unsolved = self.check_unsolved(composite, atoms, position)
            if not unsolved.ok:
                return Check(False, unsolved.detail, {"check_1_first": True, **unsolved.evidence},
                             reason=unsolved.reason)
        if len(atoms) > 1 and (why := value_inputs(atoms[0])):
            return Check(False, why, {"first_link": atoms[0].payload["growth"]}, reason=Reason.VALUE_INPUT)
        runs: list[dict[str, Any]] = []  # evidence per seed: the first in front, the others beside it
        cap_at = None
        for seed in MEASURE_SEEDS:  # a class that holds on one draw of inputs only is not the task's
            measured = measure_composite(composite, atoms, seed, cap_at)
            if measured.stopped == "cap":  # the next seed's runs should end about there too
                cap_at = measure.exponents(atoms[0].payload)[len(measured.points)]
            runs.append({"seed": seed, **measured.evidence()})
            evidence = {**runs[0], **({"other_seeds": runs[1:]} if len(runs) > 1 else {})}
            if measured.failure:
                return Check(False, measured.failure, evidence, reason=Reason.COMPOSITE_FAILS)
            cost = measured.cost
            if cost is None:
                return Check(False, f"the composite's counted cost fits no class over {len(measured.points)} "
                                    f"sizes ({measured.stopped}; inputs of seed {seed})", evidence,
                             reason=Reason.COST_UNMEASURED)
            found = growth.label(cost)
            if found is None:
                return Check(False, f"the composite's counted cost grows like {cost}, which no label names",
                             evidence, reason=Reason.UNLABELLED_GROWTH)
            if found != composite.reference:
                reason = Reason.REFERENCE_MISMATCH if seed == MEASURE_SEEDS[0] else Reason.COST_UNSTABLE
                return Check(False, f"the derived reference is {composite.reference} but the composite's counted "
                                    f"cost grows like {cost} ({found}) on the inputs of seed {seed}", evidence,
                             reason=reason)
        largest = measured.points[-1][0]
        return Check(True, f"the composite's counted cost grows like {cost} ({found}), the derived reference, "
                           f"over {len(measured.points)} sizes up to n = 2^{largest:g}, on the inputs of "
                           f"{len(MEASURE_SEEDS)} seeds", evidence)

    def check_unsolved(self, composite: Composite, atoms: Sequence[Atom], position: int) -> Check:
        """(1): the paper's Ref(G) != max_i l_i (when the answer is the largest atomic label, the atom
        carrying it gives the answer away), and Ref(G) != l_1: stage 1 is the one stage that reads the
        program's own input, so when the answer is its label the rest of the chain adds nothing to the
        cost and reading stage 1 alone solves the task (without this, the answer was stage 1's label in
        about 60 % of admitted N = 3 tasks: a log-size value starving every later stage). A single atom
        is its own task and always unsolved."""
        labels = [a.summary["label"] for a in atoms]
        top = max(labels, key=RANK.__getitem__)
        mine = labels[position]
        evidence = {"reference": composite.reference, "max_label": top, "first_label": labels[0], "label": mine}
        stage = f"stage {position + 1}"
        if len(atoms) > 1 and composite.reference == top and mine == top:
            return Check(False, f"the reference {top} is the largest atomic label, that of {stage}: solvable "
                                "without composing", evidence, reason=Reason.REF_EQUALS_MAX_LABEL)
        if len(atoms) > 1 and position == 0 and composite.reference == mine:
            return Check(False, f"the reference {mine} is stage 1's label: the stages after it add nothing to "
                                "the cost, so stage 1 alone gives the answer", evidence,
                         reason=Reason.REF_EQUALS_FIRST_LABEL)
        return Check(True, f"{stage} ({mine}) does not give the answer {composite.reference} away", evidence)

    def grade(self, composite: Composite, candidate: str) -> Check:
        """V_G: the predicted label (one of the seven words) must be the reference; anything else,
        including an answer with no label or with several, is wrong."""
        predicted = parse_label(candidate)
        expected = composite.verifier.get("label", composite.reference)
        evidence = {"predicted": predicted, "expected": expected}
        if predicted is None:
            return Check(False, "no single label of " + " ".join(growth.LABELS) + " in the answer", evidence,
                         reason=Reason.UNPARSEABLE)
        if predicted != expected:
            return Check(False, f"predicted {predicted}, the reference is {expected}", evidence,
                         reason=Reason.WRONG_LABEL)
        return Check(True, f"predicted {predicted}", evidence)


def value_inputs(first: Atom) -> str | None:
    """Why the value stage 1 hands on hangs on ints it reads besides n, or None: its output growth changes
    when they are held in 1..3 instead of drawn up to n (str(m % (1 << n)) is log n digits with m <= n, but
    up to n digits with m unbounded, and a logn chain through it is linear). Such an int is a value the
    problem bounds on its own, not a size: a reference derived through it holds only if it grows with n."""
    names = model.other_ints(first.payload)
    if not names:
        return None
    pinned = model.pinned_growth(first.payload, first.id)
    if pinned == first.payload["growth"]:
        return None
    return (f"stage 1 hands on a value that grows like {first.payload['growth']} with {', '.join(names)} drawn "
            f"up to n, and like {pinned or 'no class'} with {'them' if len(names) > 1 else 'it'} held in 1..3: "
            "the chain hangs on an input that is not a size")


def bounded(atom: Atom) -> str | None:
    """The modulus an atom's int result is reduced by (model.modulus), or None."""
    if atom.summary["out_type"] != "int":
        return None
    return model.modulus(atom.payload["source"], atom.payload["entry"])


COST_DROPS = ("cost_unmeasured", "cost_unlabelled")  # the atom rule's drops (verify.label_rule)


def atom_rule_counts(kept: Sequence[tuple[Any, dict[str, Any], dict[str, Any]]], drops: Sequence[verify.Drop],
                     programs: int) -> dict[str, Any]:
    """What a load did: programs read, atoms kept, drops by reason, and the atom rule's counts: of the
    programs that reached the cost measurement, those whose label it confirmed (kept), changed
    (relabelled) or dropped (no class, or a class no label names)."""
    rules = Counter(payload["label_rule"] for _, _, payload in kept)
    cost_drops = sum(d.reason in COST_DROPS for d in drops)
    return {"programs": programs, "atoms": len(kept),
            "dropped": dict(Counter(d.reason for d in drops).most_common()),
            "atom_rule": {"kept": rules["kept"], "relabelled": rules["relabelled"], "dropped": cost_drops},
            "relabelled": dict(Counter(f"{p['stated_label']}->{s['label']}" for _, s, p in kept
                                       if p["label_rule"] == "relabelled").most_common())}


def parse_label(text: str) -> str | None:
    """The one label the answer names; if it names several, the one its last non-empty line names."""
    found = LABEL_WORD.findall(text.lower())
    if len(set(found)) == 1:
        return found[0]
    lines = [line for line in text.lower().splitlines() if line.strip()]
    last = set(LABEL_WORD.findall(lines[-1])) if lines else set()
    return last.pop() if len(last) == 1 else None


def derive(atoms: Sequence[Atom]) -> growth.Derivation:
    """Ref(G) by the derivation algebra; Rejected when it has no label the prompt allows."""
    try:
        derivation = growth.derive([a.summary["label"] for a in atoms],
                                   [growth.growth(a.payload["growth"]) for a in atoms[:-1]])
    except growth.Indeterminate as e:
        raise Rejected(Reason.DERIVATION_INDETERMINATE, str(e)) from None
    if derivation.label is None:
        raise Rejected(Reason.REF_OUTSIDE_LABELS, f"the chain costs {derivation.total}, which no label names: "
                                                  + "; ".join(derivation.explain()))
    return derivation


@dataclass(frozen=True)
class CompositeMeasurement:
    """Counted runs of a composite at n = 2^e: the cost points, their class, the chained values' sizes."""

    points: list[list[float]]  # [e, count]
    cost: growth.Growth | None
    error: float
    stopped: str
    links: list[dict[str, Any]]
    failure: str  # why the composite failed at some size ("" when it did not)

    def evidence(self) -> dict[str, Any]:
        cost = {"points": self.points, "class": self.cost and str(self.cost),
                "label": self.cost and growth.label(self.cost), "error": measure.round_error(self.error),
                "stopped": self.stopped, "cap": measure.COST_CAP, "sizes": "n = 2^e; points are [e, count]"}
        return {"cost": cost, "runs": len(self.points), "links": self.links}


# Check (2) measures a composite on the inputs of each of these seeds and needs the same class from all: a
# chain can be fast on one draw (a stage that returns early, a value that happens to be small) and not on
# another, and a stage can crash on inputs one draw never produced.
MEASURE_SEEDS = (0, 1)


def measure_composite(composite: Composite, atoms: Sequence[Atom], seed: int = 0,
                      cap_at: float | None = None) -> CompositeMeasurement:
    """Run the composite's driver on stage 1's inputs at n = 2^e (the atoms' own sizes and generator,
    seeded by the chain and `seed`), counting the stages' cost as an atom's is counted; the first run
    past the cap ends it. cap_at: where the cap stopped another seed's runs (else predicted from the
    atoms); it only saves making inputs the runs never reach."""
    spec = composite.verifier
    chain = "\x1f".join(a.id for a in atoms) + (f"\x1e{seed}" if seed else "")  # seed 0: the draw used so far
    rng = random.Random(hashlib.sha256(chain.encode()).hexdigest())
    stages = [(name, arg) for name, arg in spec["stages"]]
    ran = measure.run_batches(
        measure.exponents(atoms[0].payload), lambda e: composite_input(atoms, measure.scale_of(e), rng),
        lambda batch, budget: run.run_driver(spec["functions"], spec["driver"], stages, batch,
                                             limit=measure.COST_LIMIT, budget=budget, cap=measure.COST_CAP),
        first_end=(cap_at if cap_at is not None else predicted_cap(atoms)) + 1.0)  # + one doubling: the draws vary
    used, results = ran.used, ran.results
    done = [(e, r) for e, r in zip(used, results, strict=False) if "count" in r]
    failure = ""
    if len(done) < len(results) and "error" in results[len(done)] and not \
            results[len(done)]["error"].startswith(("MemoryError", "RecursionError")):
        # running out of memory or stack at a large size ends the measurement, as the cap does
        failure = f"the composite fails at n = 2^{used[len(done)]:g}: {results[len(done)]['error']}"
    points = [[e, r["count"]] for e, r in done]
    cost, error = measure.fit_points(points)
    links = []
    for k, key in enumerate(spec["links"], start=1):
        expected = growth.Growth(*key)
        sizes = [(measure.scale_of(e), r["inputs"][k]) for e, r in done]
        ok, fitted = growth.agrees(sizes, expected)
        links.append({"stage": k + 1, "derived": str(expected), "measured": fitted and str(fitted),
                      "points": [[e, r["inputs"][k]] for e, r in done], "agrees": ok})
    return CompositeMeasurement(points, cost, error, measure.stopped_by(results, len(used), ran.too_large), links,
                                failure)


def predicted_cap(atoms: Sequence[Atom]) -> float:
    """The first n = 2^e at which the chain should cost more than the cap, from its atoms' own
    measurements: stage 1 costs what its atom cost at n and hands on a value of the size its atom's output
    had there; the next stage costs what its atom cost at that size; and so on. inf if never."""
    for e in measure.exponents(atoms[0].payload):
        total, at = 0.0, e
        for k, atom in enumerate(atoms):
            total += _value_at(atom.payload.get("cost", {}).get("points", []), at)
            if k + 1 < len(atoms):
                at = math.log2(max(_value_at(atom.payload.get("growth_points", []), at), 1.0))
        if total > measure.COST_CAP:
            return e
    return math.inf


def _value_at(points: list[list[float]], e: float) -> float:
    """The value of [e, value] points at e: log-linear between two points, extended past the last two
    (or before the first two) as the power of n they grow by."""
    if len(points) < 2:
        return points[0][1] if points else 0.0
    k = next((i for i in range(1, len(points) - 1) if points[i][0] >= e), len(points) - 1)
    (e1, v1), (e2, v2) = points[k - 1], points[k]
    if e2 == e1:
        return v2
    l1, l2 = math.log2(max(v1, 1.0)), math.log2(max(v2, 1.0))
    return 2.0 ** min(l1 + (l2 - l1) * (e - e1) / (e2 - e1), 1000.0)


def composite_input(atoms: Sequence[Atom], scale: int, rng: random.Random) -> str:
    """Stdin for the composite's driver: the inputs of stage 1, generated at size `scale` by its atom's
    own generator and written in the driver's format."""
    first = atoms[0]
    _, args = inputs.generate(first.payload, scale, first.payload["strategy"], rng,
                              max_tokens=measure.COST_TOKENS)
    lines = []
    for group in _input_lines(first):
        if len(group) > 1:
            lines.append(" ".join(str(args[k]) for k in group))
            continue
        value, ptype = args[group[0]], first.payload["params"][group[0]][1]
        if ptype in ("int", "str"):
            lines.append(str(value))
        elif ptype in ("list[int]", "list[str]"):
            lines.append(" ".join(map(str, value)))
        else:
            lines += [str(len(value))] + [" ".join(map(str, row)) for row in value]
    return "\n".join(lines) + "\n"


def _input_lines(atom: Atom) -> list[list[int]]:
    """The parameters the driver reads, as groups of indices, one group per input line: consecutive
    ints share a line."""
    groups: list[list[int]] = []
    params = atom.payload["params"]
    for k, (_, ptype) in enumerate(params):
        if ptype == "int" and groups and params[groups[-1][-1]][1] == "int":
            groups[-1].append(k)
        else:
            groups.append([k])
    return groups


# -- the composite program -----------------------------------------------------------------------------------
def _program(atoms: Sequence[Atom]) -> tuple[str, str, list[str]]:
    """The functions part (each atom's module with its entry renamed solve_i, clashing top-level names
    renamed, identical statements kept once) and the driver. Also the entry names, in order."""
    emitted: dict[str, str] = {}  # top-level name -> the statement text that binds it
    seen_texts: set[str] = set()
    parts: list[str] = []
    shared: set[str] = set()  # names a `global` statement declares
    entries = [f"solve_{i}" for i in range(1, len(atoms) + 1)]
    prepared = [_prepared(atom.payload["source"]) for atom in atoms]
    # Each stage's globals are its own: a name one stage binds at top level (an import, a def, an
    # assignment) must not change what the same name means in another stage, where it may be a builtin
    # (a later stage's `from math import *` rebinding pow) or bound by a different statement.
    uses = [u for _, u, _ in prepared]
    binds = [b for _, _, b in prepared]
    for i, atom in enumerate(atoms, 1):
        stmts = _stage(atom.payload["source"], atom.payload["entry"], entries[i - 1])
        found = _clashes(stmts, i - 1, entries, emitted, uses, binds)
        if found:  # rename until no clash is left (renaming can change a statement that then clashes in turn)
            tree = ast.parse(prepared[i - 1][0])  # a tree of its own to rename in
            _rename(tree, {atom.payload["entry"]: entries[i - 1]})
            while found:
                _rename(tree, {name: f"{name}_{i}" for name in found})
                stmts = _statements(tree)
                found = _clashes(stmts, i - 1, entries, emitted, uses, binds)
        for s in stmts:
            if s.text in seen_texts:
                continue
            seen_texts.add(s.text)
            for name in s.binds:
                emitted[name] = s.text
            shared |= s.shared
            parts.append(s.text)
    functions = "\n\n".join(parts) + "\n"
    return functions, _driver(atoms, entries, set(emitted) | shared), entries


def _clashes(stmts: tuple[_Statement, ...], k: int, entries: list[str], emitted: dict[str, str],
             uses: list[frozenset[str]], binds: list[frozenset[tuple[str, str]]]) -> set[str]:
    """Names stage k binds at top level that an earlier stage bound by another statement, that are another
    stage's entry, or that another stage uses without binding them by the same statement."""
    bound = {(name, s.text) for s in stmts for name in s.binds}
    others_use = set().union(*(u for j, u in enumerate(uses) if j != k))
    found = {name for name, text in bound if name in emitted and emitted[name] != text}
    found |= {name for name, _ in bound if name in entries and name != entries[k]}
    return found | {name for name, text in bound if name in others_use and not all(
        (name, text) in b for j, b in enumerate(binds) if j != k and name in uses[j])}


@dataclass(frozen=True)
class _Statement:
    """One top-level statement of a stage: its text, the names it binds, the names its `global`s declare."""

    text: str
    binds: frozenset[str]
    shared: frozenset[str]


def _statements(tree: ast.Module) -> tuple[_Statement, ...]:
    return tuple(_Statement(ast.unparse(stmt), frozenset(_binds(stmt)), frozenset(
        n for node in ast.walk(stmt) if isinstance(node, ast.Global) for n in node.names)) for stmt in tree.body)


@functools.lru_cache(maxsize=4096)
def _stage(source: str, entry: str, name: str) -> tuple[_Statement, ...]:
    """An atom's statements with its entry renamed `name`: what the atom contributes to every group where
    nothing clashes, so a worker works it out once per position (unparsing is most of composing)."""
    tree = ast.parse(_prepared(source)[0])
    _rename(tree, {entry: name})
    return _statements(tree)


@functools.lru_cache(maxsize=2048)
def _prepared(source: str) -> tuple[str, frozenset[str], frozenset[tuple[str, str]]]:
    """An atom's module with standard star imports expanded (as text), the names it uses and what its
    top-level statements bind: the same in every group the atom is in, so a worker works them out once
    (composing is most of the cost of the many groups check (1) rejects without a run)."""
    tree = ast.parse(source)
    _expand_star_imports(tree)
    uses = frozenset(n.id for n in ast.walk(tree) if isinstance(n, ast.Name))
    binds = frozenset((name, ast.unparse(stmt)) for stmt in tree.body for name in _binds(stmt))
    return ast.unparse(tree), uses, binds


def _driver(atoms: Sequence[Atom], entries: list[str], taken: set[str]) -> str:
    """Read stage 1's inputs, chain the calls, print the result as the last program printed it."""
    taken = set(taken) | set(entries)

    def var(name: str) -> str:
        while name in taken:
            name += "_"
        taken.add(name)
        return name

    params = atoms[0].payload["params"]
    args = [var(name) for name, _ in params]
    lines = []
    for group in _input_lines(atoms[0]):
        if len(group) > 1:
            lines.append(f"{', '.join(args[k] for k in group)} = map(int, input().split())")
        else:
            lines.append(f"{args[group[0]]} = {READ[params[group[0]][1]]}")
    value = ", ".join(args)
    for i, entry in enumerate(entries, 1):
        result = "result" if i == len(entries) else var(f"x{i}")
        lines.append(f"{result} = {entry}({value})")
        value = result
    form = atoms[-1].payload["out_form"]
    lines.append({"value": "print(result)", "spread": "print(*result)"}.get(form, "print(result, end='')"))
    return "\n".join(lines) + "\n"


def _expand_star_imports(tree: ast.Module) -> None:
    """`from M import *` of a standard module becomes `from M import a, b` of the public names of M the
    atom uses, so that the names it binds are known and can be renamed (a star import of anything else
    is left as it is)."""
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    for stmt in tree.body:
        if not (isinstance(stmt, ast.ImportFrom) and stmt.level == 0 and stmt.module
                and any(a.name == "*" for a in stmt.names)):
            continue
        if stmt.module.split(".")[0] not in sys.stdlib_module_names:
            continue
        try:
            module = importlib.import_module(stmt.module)
        except ImportError:
            continue
        public = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
        names = sorted(used & set(public))
        if names:
            stmt.names = [ast.alias(name=n) for n in names]
        else:  # nothing used: keep a harmless import of the module itself
            stmt.names = [ast.alias(name=public[0])] if public else stmt.names


def _binds(stmt: ast.stmt) -> set[str]:
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {stmt.name}
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):  # a star import binds names nobody can rename
        return {(a.asname or a.name).split(".")[0] for a in stmt.names if a.name != "*"}
    return {n.id for t in getattr(stmt, "targets", [getattr(stmt, "target", None)]) if t is not None
            for n in ast.walk(t) if isinstance(n, ast.Name)}


def _rename(tree: ast.Module, mapping: dict[str, str]) -> None:
    """Rename names everywhere in one atom's module (uses, definitions, parameters, globals, imports)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in mapping:
            node.id = mapping[node.id]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in mapping:
            node.name = mapping[node.name]
        elif isinstance(node, ast.arg) and node.arg in mapping:
            node.arg = mapping[node.arg]
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            node.names = [mapping.get(n, n) for n in node.names]
        elif isinstance(node, ast.alias):
            bound = node.asname or node.name
            if bound in mapping:
                if "." in node.name and not node.asname:
                    raise Rejected(Reason.NAME_CLASH, f"cannot rename the module import {node.name}")
                node.asname = mapping[bound]
