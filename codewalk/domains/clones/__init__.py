"""Clone equivalence on FEMPD Java method pairs (paper Sec. 3.4, App. A.3, B.4, D).

Data: FEMPD (Higo, IEICE Trans. Inf. & Syst. E107-D(6), 2024) in its FEMP-X release (Higo, Zenodo
doi:10.5281/zenodo.19543614), code from IJADataset. Licence CC BY-NC 4.0: non-commercial use only,
credit FEMP-X and IJADataset. The data is read from outside the repository (`../shared/data/fempd`).

An atom e = (p1, p2, T, lambda) is a labeled pair of Java methods with the same signature. `cw load
clones DIR` re-verifies every pair by execution (`verify`: type-driven inputs, and EvoSuite
cross-substitution for the equivalent pairs), keeps only the pairs whose label is confirmed, and writes
every pair's verdict (confirmed or rejected, reason, witness) to a file (`verdicts`). FEEDS
links e_i to e_j when e_i's return type is the type of a parameter of e_j (the first such parameter
receives it; the others become extra inputs of the driver). A level-N task chains the first methods
under a driver `outer` as Snippet A and the second methods as Snippet B (App. A.3); Ref(G) is eq when
every atom is eq and neq when the walk put exactly one neq atom in the chain (a walk constraint). V_G
compiles both snippets and runs the merged suite on `outer` in one JVM: a positive task must agree on
every input, a negative one must diverge on at least one on which both snippets terminate (an input on
which only time separates them is undecided: a positive task with one is not admitted, nor is a negative
task with no other witness). Every admitted task reports the share of its inputs that run every stage on
both sides (`complete_share`) and needs at least MIN_COMPLETE_SHARE. Grading reads `VERDICT: 0|1` from a model's
answer; no verdict, or both, is wrong.
"""

from __future__ import annotations

import logging
import random
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

from codewalk.domain import Domain, Option, Rejected, WalkPlan
from codewalk.errors import InfraError, UsageError
from codewalk.loaders import fempd
from codewalk.loaders.fempd import blank_literals
from codewalk.records import Atom, Check, Composite, Edge

from . import verdicts
from .inputs import generate, normalize, verdict
from .java import CallResult, CallUnit, Java
from .verify import INPUTS, Verification, verify

log = logging.getLogger(__name__)

# App. A.3, verbatim: identical across every level and model; the user prompt is the two snippets.
SYSTEM_PROMPT = (
    "You are a program equivalence judge. You will be shown two Java code snippets, each possibly composed of "
    "several helper classes and an outer method that calls them in sequence. Decide whether the two snippets are "
    "semantically equivalent (compute the same results / have the same observable behavior for the same inputs "
    "to the outer method), regardless of variable/class names or formatting. Respond with exactly one line: "
    "VERDICT: 1 (equivalent) or VERDICT: 0 (not equivalent)."
)
REFERENCE = {"eq": "VERDICT: 1", "neq": "VERDICT: 0"}
VERDICT = re.compile(r"\bVERDICT\s*:\s*([01])(?![0-9])", re.IGNORECASE)
GENERATED = 100  # type-driven inputs for `outer`
MERGED = 60  # inputs merged from the atoms' own suites (the chain's first atom and every atom's extras)
DEADLINE_MS = 100  # per call of `outer`; a disagreement is re-run with four times as much
# An admitted task needs at least this share of its inputs to run every stage on both sides (outer returns a
# value): below it the verdict rests mostly on exception paths of the first stages. A quarter keeps >= 40 of
# the ~160 inputs comparing values computed by every stage; half (the issue's example) would reject the
# level-3 positive chain of the tests (0.34) and most chains, whose inputs are not yet steered through each
# stage's preconditions.
MIN_COMPLETE_SHARE = 0.25


class ClonesDomain(Domain):
    name = "clones"
    relation = "FEEDS"
    composer_version = "clones-1"
    data_source = "FEMPD / FEMP-X (Higo 2024, doi:10.5281/zenodo.19543614), CC BY-NC 4.0, non-commercial"
    load_options = (Option("pairs", "comma-separated FEMPD pair ids to load (default: all)"),
                    Option("seed", "seed of the type-driven inputs", int),
                    Option("inputs", "inputs per pair", int),
                    Option("verdicts", "file for every pair's verdict (default: clones-verdicts.jsonl beside the store)"))
    description = "FEMPD Java method pairs (CC BY-NC 4.0) chained into two snippets; is A equivalent to B?"

    def __init__(self, java: Java | None = None) -> None:
        self._java = java  # made on first use: loading the plugin needs no JDK

    @property
    def java(self) -> Java:
        if self._java is None:
            self._java = Java()
        return self._java

    # -- source -> atoms -> edges ------------------------------------------------------------------
    def load(self, source: Path, options: dict[str, Any]) -> Iterator[Atom]:
        """Options (load_options): pairs, seed (input generation, default 0), inputs (per pair), verdicts."""
        try:
            only = {int(i) for i in options["pairs"].split(",")} if options.get("pairs") else None
        except ValueError:
            raise UsageError(f"--opt pairs takes comma-separated pair ids, not {options['pairs']!r}") from None
        seed, count = options.get("seed", 0), options.get("inputs", INPUTS)
        results = self.verify(fempd.read(Path(source), only), seed, count)
        kept = verdicts.save([r.record() for r in results], options.get("verdicts") or None)
        log.warning("clones: every pair's verdict is in %s", kept)
        reasons = Counter(f"{r.pair.label} {r.reason}" for r in results)
        log.warning("clones: kept %d of %d pairs (%s)", reasons["eq confirmed"] + reasons["neq confirmed"],
                    len(results), ", ".join(f"{k}: {v}" for k, v in sorted(reasons.items())))
        for r in results:
            if r.confirmed:
                yield atom(r)
            else:
                log.info("dropped %s (%s): %s", r.pair.name, r.pair.label, r.reason)

    def verify(self, pairs: Sequence[fempd.Pair], seed: int = 0, inputs: int = INPUTS) -> list[Verification]:
        return verify(pairs, self.java, seed, inputs)

    def edges(self, atoms: Sequence[Atom]) -> Iterable[Edge]:
        by_param: dict[str, list[tuple[Atom, int]]] = defaultdict(list)  # type -> (atom, its first such param)
        for a in atoms:
            firsts: dict[str, int] = {}
            for k, t in enumerate(a.payload["params"]):
                firsts.setdefault(normalize(t), k)
            for t, k in firsts.items():
                by_param[t].append((a, k))
        for src in atoms:
            for dst, k in by_param[normalize(src.summary["out_type"])]:
                if dst.id != src.id:
                    yield Edge(src.id, dst.id, "FEEDS", arg=k)

    # -- walk ----------------------------------------------------------------------------------------
    def walk_plan(self, n: int, rng: random.Random) -> WalkPlan:
        """About half the walks are negative: exactly one neq atom at a random position, eq elsewhere."""
        labels = ["eq"] * n
        if rng.random() < 0.5:
            labels[rng.randrange(n)] = "neq"
        return WalkPlan(labels=tuple(labels))

    # -- composition -----------------------------------------------------------------------------------
    def compose(self, atoms: Sequence[Atom]) -> Composite:
        if not atoms:
            raise Rejected("empty_group", "a task needs at least one atom")
        neq = [k for k, a in enumerate(atoms) if a.summary["label"] == "neq"]
        if len(neq) > 1:
            raise Rejected("several_neq", f"a negative task injects exactly one neq atom, not {len(neq)}")
        args = [None] + [_chained_arg(prev, nxt) for prev, nxt in pairwise(atoms)]
        params = [normalize(t) for t in atoms[0].payload["params"]]
        for a, k in zip(atoms[1:], args[1:]):
            params += [normalize(t) for j, t in enumerate(a.payload["params"]) if j != k]
        snippets = {side: _snippet(side, atoms, args, params) for side in ("SnippetA", "SnippetB")}
        user = f"Snippet A:\n```java\n{snippets['SnippetA']}```\n\nSnippet B:\n```java\n{snippets['SnippetB']}```\n"
        label = "neq" if neq else "eq"
        return Composite(
            prompt=f"{SYSTEM_PROMPT}\n\n{user}",
            reference=REFERENCE[label],
            verifier={"label": label, "neq_position": neq[0] if neq else None, "snippets": snippets,
                      "params": params, "inputs": merged_suite(atoms, args, params),
                      "system_prompt": SYSTEM_PROMPT, "user_prompt": user},
        )

    # -- admission ---------------------------------------------------------------------------------------
    def check_reference(self, composite: Composite, atoms: Sequence[Atom]) -> Check:
        """(2): both snippets compile end to end, and the merged suite on `outer` returns Ref(G)."""
        return self.run_composites([composite])[0]

    def run_composites(self, composites: Sequence[Composite]) -> list[Check]:
        """Check (2) for many composites in one JVM (each compiled once, cached by content)."""
        units = [CallUnit({f"{side}.java": text for side, text in c.verifier["snippets"].items()},
                          (("SnippetA", "outer"), ("SnippetB", "outer")), tuple(c.verifier["params"]),
                          c.verifier["inputs"])  # all of them: the share that runs every stage is measured
                 for c in composites]
        return [_reference_check(c, r) for c, r in zip(composites, self.java.calls(units, DEADLINE_MS))]

    def check_unsolved(self, composite: Composite, atoms: Sequence[Atom], position: int) -> Check:
        """(1): every atom compiles and its own verifier confirms its label. The store holds only atoms whose
        label both methods confirmed at load (deterministic runs, recorded in the payload), so this reads
        that record instead of re-running it for every group; the atom's methods compiled with the composite."""
        a = atoms[position]
        record = a.payload["verification"]
        how = "a witness input under (a)" if a.summary["label"] == "neq" else "(a) and EvoSuite cross-substitution (b)"
        return Check(True, f"{a.id}: label {a.summary['label']} confirmed at load by {how}", {"verification": record})

    # -- grading -------------------------------------------------------------------------------------
    def grade(self, composite: Composite, candidate: str) -> Check:
        """V_G on a model's answer: the one `VERDICT: 0|1` in it must match Ref(G). None or both: wrong."""
        label = composite.verifier["label"]
        expected = 1 if label == "eq" else 0
        found = {int(v) for v in VERDICT.findall(candidate)}
        evidence: dict[str, Any] = {"class": label, "expected": expected, "verdict": None}
        if len(found) != 1:
            why = "no VERDICT: 0|1 line" if not found else "both VERDICT: 0 and VERDICT: 1"
            return Check(False, f"unparseable answer ({why}): scored wrong", evidence, reason="unparseable")
        evidence["verdict"] = given = found.pop()
        if given != expected:
            return Check(False, f"answered VERDICT: {given}, the reference is {REFERENCE[label]}", evidence)
        return Check(True, f"correct: {REFERENCE[label]}", evidence)


# -- atoms ---------------------------------------------------------------------------------------------
def atom(r: Verification) -> Atom:
    """The atom of a confirmed pair: summary fields for exploring the graph, the rest in the payload."""
    p = r.pair
    params = ", ".join(p.param_types)
    return Atom(
        id=f"clones/{p.name}", domain="clones",
        summary={"title": f"{p.name}: {p.return_type}({params})", "in_type": params, "out_type": p.return_type,
                 "label": p.label, "source": p.path},
        payload={"pair_id": p.pair_id, "method1": p.method1, "method2": p.method2, "imports": list(p.imports),
                 "return_type": p.return_type, "params": list(p.param_types), "param_names": list(p.param_names),
                 "verification": {"seed": r.seed, "inputs": r.inputs, "reason": r.reason, "a": r.a,
                                  "a_evidence": r.a_evidence, "b": r.b, "b_evidence": r.b_evidence,
                                  "witness": r.witness},
                 "femp_x": {"llm_status": p.llm_status, "difference_types": list(p.difference_types)}},
    )


def _chained_arg(prev: Atom, nxt: Atom) -> int:
    """Which parameter of `nxt` receives `prev`'s result: its first of exactly that type."""
    out = normalize(prev.summary["out_type"])
    for k, t in enumerate(nxt.payload["params"]):
        if normalize(t) == out:
            return k
    raise Rejected("types_do_not_chain", f"{prev.id} returns {out}; {nxt.id} takes ({nxt.summary['in_type']})")


# -- snippets ---------------------------------------------------------------------------------------------
def _snippet(side: str, atoms: Sequence[Atom], args: list[int | None], params: list[str]) -> str:
    """One side: the atoms' method1 (Snippet A) or method2 (Snippet B) as static step1..stepN, and `outer`."""
    method = "method1" if side == "SnippetA" else "method2"
    imports = sorted({line for a in atoms for line in a.payload["imports"]})
    body = [_as_static(a.payload[method], method, f"step{i}") for i, a in enumerate(atoms, 1)]
    names = [f"a{k}" for k in range(1, len(params) + 1)]
    lines, taken = [], 0
    for i, (a, k) in enumerate(zip(atoms, args), 1):
        n = len(a.payload["params"])
        if k is None:
            call, taken = names[:n], n
        else:
            extra = names[taken:taken + n - 1]
            taken += n - 1
            call = extra[:k] + [f"x{i - 1}"] + extra[k:]
        lines.append(f"        {normalize(a.summary['out_type'])} x{i} = step{i}({', '.join(call)});")
    signature = ", ".join(f"{t} {name}" for t, name in zip(params, names))
    outer = (f"    static {normalize(atoms[-1].summary['out_type'])} outer({signature}) {{\n" + "\n".join(lines)
             + f"\n        return x{len(atoms)};\n    }}")
    head = "".join(f"{line}\n" for line in imports) + ("\n" if imports else "")
    return head + f"class {side} {{\n" + "\n\n".join([*body, outer]) + "\n}\n"


def _as_static(method: str, old: str, new: str) -> str:
    """The method renamed (its recursive calls too, never text in literals) and made static."""
    renamed = method
    for m in reversed(list(re.finditer(rf"\b{old}\b", blank_literals(method)))):
        renamed = renamed[:m.start()] + new + renamed[m.end():]
    code = blank_literals(renamed)
    call = re.search(rf"\b{new}\s*\(", code)
    assert call is not None, new  # the method declares itself
    at = call.start()
    line = code.rfind("\n", 0, at) + 1
    line += re.match(r"[ \t]*(?:@[\w.]+(?:\([^)]*\))?\s*)*", code[line:at]).end()  # type: ignore[union-attr]  # matches empty
    return renamed[:line] + "static " + renamed[line:]


def merged_suite(atoms: Sequence[Atom], args: list[int | None], params: list[str]) -> list[list[Any]]:
    """Inputs for `outer`: first the atoms' own suites merged (the first atom's inputs, every other atom's
    extra arguments; neq atoms contribute their witness), then type-driven inputs for the whole signature."""
    own = [generate(a.payload["params"], f"{a.payload['verification']['seed']}:{a.payload['pair_id']}",
                    a.payload["verification"]["inputs"]) for a in atoms]
    witnesses = {i: a.payload["verification"]["witness"]["input"] for i, a in enumerate(atoms)
                 if a.summary["label"] == "neq" and a.payload["verification"].get("witness")}
    inputs: list[list[Any]] = []
    for k in range(MERGED):
        chosen = {i: (witnesses[i] if i in witnesses and k % 2 == 0 else own[i][k % len(own[i])])
                  for i in range(len(atoms))}
        row = list(chosen[0])
        for i in range(1, len(atoms)):
            row += [v for j, v in enumerate(chosen[i]) if j != args[i]]
        inputs.append(row)
    seed = "\x1f".join(a.id for a in atoms)
    inputs += generate(params, seed, GENERATED)
    unique: dict[str, list[Any]] = {}
    for row in inputs:
        unique.setdefault(repr(row), row)
    return list(unique.values())


def complete(result: CallResult) -> int:
    """Inputs on which both snippets ran every stage of the chain: `outer` returned a value on both sides
    (an exception in any stage ends `outer` with that exception; a stage that catches its own still ran)."""
    return sum(1 for line in result.outcomes.values() if not line.get("abandoned")
               and all(o.startswith("r:") for o in line.get("final", line["out"])))


def complete_share(result: CallResult) -> float:
    ran = sum(1 for line in result.outcomes.values() if not line.get("abandoned"))
    return round(complete(result) / ran, 3) if ran else 0.0


def _reference_check(composite: Composite, result: CallResult) -> Check:
    label = composite.verifier["label"]
    if result.errors is not None:
        return Check(False, f"the composite does not compile: {result.errors[:500]}",
                     {"errors": result.errors[:2000]}, reason="does_not_compile")
    counts = Counter(verdict(line) for line in result.outcomes.values())
    first = next((line for _, line in sorted(result.outcomes.items()) if verdict(line) == "differ"), None)
    slow = next((line for _, line in sorted(result.outcomes.items()) if verdict(line) == "slow"), None)
    evidence: dict[str, Any] = {"label": label, "inputs": len(result.outcomes), **counts,
                                "complete": complete(result), "complete_share": complete_share(result)}
    if first is not None:  # both snippets terminated on it, with different outcomes
        out = first["final"]
        evidence["witness"] = {"input": composite.verifier["inputs"][first["i"]], "SnippetA": out[0], "SnippetB": out[1]}
    if slow is not None:
        out = slow["final"]
        evidence["slow_input"] = {"input": composite.verifier["inputs"][slow["i"]], "SnippetA": out[0], "SnippetB": out[1]}
    expected_inputs = len(composite.verifier["inputs"])
    if len(result.outcomes) < expected_inputs and result.end in (None, "all"):
        raise InfraError(f"the harness answered {len(result.outcomes)} of {expected_inputs} inputs")
    if label == "eq":
        if first is not None:
            return Check(False, f"the positive composite diverges on input {first['i']}", evidence,
                         reason="positive_diverges")
        if counts["unstable"]:
            return Check(False, "the composite is nondeterministic", evidence, reason="nondeterministic")
        if slow is not None:  # one snippet finished, the other never did: undecided, so not admitted
            return Check(False, f"only time separates the snippets on input {slow['i']}: undecided", evidence,
                         reason="undecided_time")
        if evidence["complete_share"] < MIN_COMPLETE_SHARE:
            return _few_complete(evidence)
        return Check(True, f"both snippets agree on all {counts['agree']} inputs", evidence)
    if first is None and slow is not None:
        return Check(False, f"only time separates the snippets (input {slow['i']}): a timeout is no witness",
                     evidence, reason="undecided_time")
    if first is None:
        return Check(False, f"no input separates the snippets ({counts['agree']} agree): the neq atom is masked",
                     evidence, reason="negative_masked")
    if evidence["complete_share"] < MIN_COMPLETE_SHARE:
        return _few_complete(evidence)
    return Check(True, f"the snippets diverge on input {first['i']}", evidence)


def _few_complete(evidence: dict[str, Any]) -> Check:
    return Check(False, f"only {evidence['complete']} of {evidence['inputs']} inputs run every stage on both sides "
                 f"(share {evidence['complete_share']} < {MIN_COMPLETE_SHARE})", evidence, reason="few_complete_runs")
