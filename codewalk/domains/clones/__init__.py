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
compiles both snippets and runs `outer` on inputs of the task's own, drawn and steered through the
stages (steer.py), in one JVM per round: a positive task must agree on every input drawn, a negative one
must diverge on an input that reaches its non-equivalent stage on both sides and on which both snippets
terminate (an input on which only time separates them is undecided: a positive task with one is not
admitted, nor is a negative task with no other witness). Every task's evidence gives the share of its
input set that runs every stage on both sides (`complete_share`) and that reaches the last stage
(`reach_last_share`); a task needs a complete_share of at least MIN_COMPLETE_SHARE. Grading reads
`VERDICT: 0|1` from a model's answer; no verdict, or both, is wrong.
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

from codewalk import paths
from codewalk.domain import Domain, Option, Rejected, Settings, WalkPlan
from codewalk.errors import InfraError, UsageError
from codewalk.loaders import fempd
from codewalk.loaders.fempd import blank_literals
from codewalk.records import Atom, Check, Composite, Edge, Reason
from codewalk.runtime import meter

from . import steer, verdicts
from .inputs import normalize, verdict
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
DEADLINE_MS = 100  # per call of `outer`; a disagreement is re-run with four times as much
# An admitted task needs at least this share of its input set (steer.INPUT_SET inputs) to run every stage on
# both sides (outer returns a value on both). Half: then most of what the verdict rests on is values computed
# through the whole chain, not the first stages' exceptions (on unsteered random inputs 190-199 of 200 ended
# in one), while a chain whose later stages accept only a narrow set of values can still be admitted
# when steering finds 100 inputs that pass them all. The draw aims higher (steer.AIM), so a task that stops
# at half is one the steering found hard; it is rejected below half as `few_complete_runs`.
MIN_COMPLETE_SHARE = 0.5


class ClonesDomain(Domain):
    name = "clones"
    relation = "FEEDS"
    composer_version = "clones-2"  # clones-2: the check draws inputs of the task's own
    data_source = "FEMPD / FEMP-X (Higo 2024, doi:10.5281/zenodo.19543614), CC BY-NC 4.0, non-commercial"
    load_options = (Option("pairs", "comma-separated FEMPD pair ids to load (default: all)"),
                    Option("seed", "seed of the type-driven inputs", int),
                    Option("inputs", "inputs per pair", int),
                    Option("verdicts", "file for every pair's verdict (default: clones-verdicts.jsonl beside the store)"))
    # A balanced release walks the class it still lacks (codewalk.release): at N = 10 the negative tasks are
    # admitted far less often (28 %) than the positive ones (65 %), and half-and-half walks spent a third of
    # the level's attempts on positive chains past the positive quota.
    walk_options = (Option("label", "walk only tasks of this class: eq (every atom eq) or neq (exactly one neq "
                           "atom); default: half of each", choices=("eq", "neq")),)
    description = "FEMPD Java method pairs (CC BY-NC 4.0) chained into two snippets; is A equivalent to B?"

    def __init__(self, java: Java | None = None, settings: Settings | None = None) -> None:
        super().__init__(settings)
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
        where = options.get("verdicts") or (self.settings.store_folder or paths.home()) / verdicts.NAME
        kept = verdicts.save([r.record() for r in results], where)
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
        """About half the walks are negative: exactly one neq atom at a random position, eq elsewhere
        (`--opt label=eq|neq`: every walk of that class)."""
        labels = ["eq"] * n
        want = self.settings.walk.get("label")
        if want == "neq" or (want is None and rng.random() < 0.5):
            labels[rng.randrange(n)] = "neq"
        return WalkPlan(labels=tuple(labels))

    # -- composition -----------------------------------------------------------------------------------
    def compose(self, atoms: Sequence[Atom]) -> Composite:
        if not atoms:
            raise Rejected(Reason.EMPTY_GROUP, "a task needs at least one atom")
        neq = [k for k, a in enumerate(atoms) if a.summary["label"] == "neq"]
        if len(neq) > 1:
            raise Rejected(Reason.SEVERAL_NEQ, f"a negative task injects exactly one neq atom, not {len(neq)}")
        args = [None] + [_chained_arg(prev, nxt) for prev, nxt in pairwise(atoms)]
        params = [normalize(t) for t in atoms[0].payload["params"]]
        for a, k in zip(atoms[1:], args[1:]):
            params += [normalize(t) for j, t in enumerate(a.payload["params"]) if j != k]
        stages = [0] * len(atoms[0].payload["params"])
        for i, a in enumerate(atoms[1:], 1):
            stages += [i] * (len(a.payload["params"]) - 1)
        snippets = {side: _snippet(side, atoms, args, params) for side in ("SnippetA", "SnippetB")}
        probes = {f"Depth{side[-1]}": _snippet(side, atoms, args, params, depth=True) for side in snippets}
        user = f"Snippet A:\n```java\n{snippets['SnippetA']}```\n\nSnippet B:\n```java\n{snippets['SnippetB']}```\n"
        label = "neq" if neq else "eq"
        return Composite(
            prompt=f"{SYSTEM_PROMPT}\n\n{user}",
            reference=REFERENCE[label],
            verifier={"label": label, "neq_position": neq[0] if neq else None, "snippets": snippets,
                      "probes": probes, "params": params, "stages": stages, "stage_count": len(atoms),
                      "input_seed": "\x1f".join(a.id for a in atoms),
                      "system_prompt": SYSTEM_PROMPT, "user_prompt": user},
        )

    # -- admission ---------------------------------------------------------------------------------------
    def check_reference(self, composite: Composite, atoms: Sequence[Atom]) -> Check:
        """(2): both snippets compile end to end, and `outer` on the task's own inputs returns Ref(G)."""
        return self.run_composites([composite])[0]

    def run_composites(self, composites: Sequence[Composite]) -> list[Check]:
        """Check (2) for many composites: each round of drawing runs all of them in one JVM (each composite
        compiled once, cached by content; one that is done drawing stays in the batch with no inputs, so the
        compile batches, and their cache keys, stay the same)."""
        drawings = [_Drawing(c) for c in composites]
        for round_ in range(steer.ROUNDS):
            batches = [d.next_inputs(round_) for d in drawings]
            if not any(batches):
                break
            units = [unit for d, batch in zip(drawings, batches) for unit in d.units(batch)]
            results = self.java.calls(units, DEADLINE_MS)
            for k, (d, batch) in enumerate(zip(drawings, batches)):
                d.add(batch, results[2 * k], results[2 * k + 1])
        return [_reference_check(d) for d in drawings]

    def check_unsolved(self, composite: Composite, atoms: Sequence[Atom], position: int) -> Check:
        """(1): every atom compiles and its own verifier confirms its label. The store holds only atoms whose
        label both methods confirmed at load (deterministic runs, recorded in the payload), so this reads
        that record instead of re-running it for every group; the atom's methods compiled with the composite."""
        a = atoms[position]
        record = a.payload["verification"]
        meter.reuse("clones: atom label (load's verdict)", True)
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
            return Check(False, f"unparseable answer ({why}): scored wrong", evidence, reason=Reason.UNPARSEABLE)
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
    raise Rejected(Reason.TYPES_DO_NOT_CHAIN,
                   f"{prev.id} returns {out}; {nxt.id} takes ({nxt.summary['in_type']})")


# -- snippets ---------------------------------------------------------------------------------------------
def _snippet(side: str, atoms: Sequence[Atom], args: list[int | None], params: list[str], depth: bool = False) -> str:
    """One side: the atoms' method1 (Snippet A) or method2 (Snippet B) as static step1..stepN, and `outer`.

    With `depth`, the check's probe copy instead (class DepthA or DepthB, never shown): the same steps and,
    in place of `outer`, `depth` with its parameters, which returns how many stages ran without an exception."""
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
    head = "".join(f"{line}\n" for line in imports) + ("\n" if imports else "")
    if depth:
        steps = "".join(f"    {line}\n            done = {i};\n" for i, line in enumerate(lines, 1))
        driver = (f"    static int depth({signature}) {{\n        int done = 0;\n        try {{\n{steps}"
                  "        } catch (ThreadDeath stopped) {  // the harness stopping a call past its deadline\n"
                  "            throw stopped;\n        } catch (Throwable thrown) {  // stage done + 1 threw\n"
                  "        }\n        return done;\n    }")
        return head + f"class Depth{side[-1]} {{\n" + "\n\n".join([*body, driver]) + "\n}\n"
    outer = (f"    static {normalize(atoms[-1].summary['out_type'])} outer({signature}) {{\n" + "\n".join(lines)
             + f"\n        return x{len(atoms)};\n    }}")
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


class _Drawing:
    """One composite's check (2) as its inputs are drawn: every input so far, its `outer` line, its depth."""

    def __init__(self, composite: Composite) -> None:
        self.composite = composite
        v = composite.verifier
        self.params: list[str] = v["params"]
        self.n_stages: int = v["stage_count"]
        self.sources = {f"{name}.java": text for name, text in {**v["snippets"], **v["probes"]}.items()}
        self.inputs: list[list[Any]] = []
        self.lines: list[dict[str, Any] | None] = []  # the harness line of `outer` (None: not run)
        self.depths: list[int | None] = []  # stages both snippets completed (None: unknown)
        self.errors: str | None = None
        self.rounds = 0
        self.by_round: list[tuple[int, int]] = []  # (inputs drawn, of them complete) per round
        self.stalled = False  # steering found no new input
        self.rng = random.Random(v["input_seed"])

    def units(self, batch: list[list[Any]]) -> tuple[CallUnit, CallUnit]:
        """`outer` on both sides, and the probes' `depth` on both sides, on the same inputs."""
        params = tuple(self.params)
        return (CallUnit(self.sources, (("SnippetA", "outer"), ("SnippetB", "outer")), params, batch),
                CallUnit(self.sources, (("DepthA", "depth"), ("DepthB", "depth")), params, batch))

    def drawing(self) -> bool:
        """Whether another round is worth drawing: no verdict is certain yet, or too few inputs run every stage."""
        if self.errors is not None or self.stalled:
            return False
        label = self.composite.verifier["label"]
        if label == "eq" and any(_v(line) in ("differ", "slow", "unstable") for line in self.lines):
            return False  # rejected whatever comes next
        enough = len(self.complete()) >= steer.AIM * steer.INPUT_SET
        return not (enough and (label == "eq" or self.witnesses()[0]))

    def next_inputs(self, round_: int) -> list[list[Any]]:
        """This round's inputs (none when this composite is done drawing)."""
        if not self.drawing():
            return []
        if round_ == 0:
            return steer.first_draw(self.params, self.composite.verifier["input_seed"])
        tried = list(zip(self.inputs, self.depths))
        batch = steer.steered(self.params, self.composite.verifier["stages"], tried, self.n_stages, self.rng)
        self.stalled = not batch
        return batch

    def add(self, batch: list[list[Any]], outer: CallResult, depth: CallResult) -> None:
        if not batch:
            return
        self.rounds += 1
        if outer.errors is not None or depth.errors is not None:
            self.errors = outer.errors or depth.errors
            return
        for result in (outer, depth):
            if len(result.outcomes) < len(batch) and result.end in (None, "all"):
                raise InfraError(f"the harness answered {len(result.outcomes)} of {len(batch)} inputs")
        self.inputs += batch
        self.lines += [outer.outcomes.get(i) for i in range(len(batch))]
        self.depths += [_depth(depth.outcomes.get(i)) for i in range(len(batch))]
        done = len(self.complete())
        self.by_round.append((len(batch), done - sum(c for _, c in self.by_round)))

    def ran(self) -> list[int]:
        return [i for i, line in enumerate(self.lines) if line is not None and not line.get("abandoned")]

    def final(self, i: int) -> list[str]:
        """Both snippets' decided outcomes on input i, which ran."""
        line = self.lines[i]
        assert line is not None, i
        return _final(line)

    def depth(self, i: int) -> int:
        """Stages both snippets completed on input i; -1 when unknown."""
        d = self.depths[i]
        return -1 if d is None else d

    def complete(self) -> list[int]:
        """Inputs on which both snippets ran every stage: `outer` returned a value on both sides (an exception
        in any stage ends `outer` with it; a stage that catches its own still ran)."""
        return [i for i in self.ran() if all(o.startswith("r:") for o in self.final(i))]

    def witnesses(self) -> tuple[list[int], list[int]]:
        """Separating inputs (both snippets terminated, with different outcomes): those that reach the
        non-equivalent stage on both sides (a negative task's witnesses), and the others."""
        differ = [i for i in self.ran() if _v(self.lines[i]) == "differ"]
        at = self.composite.verifier["neq_position"]
        if at is None:
            return differ, []
        reach = [i for i in differ if self.depth(i) >= at]
        return reach, [i for i in differ if i not in reach]


def _v(line: dict[str, Any] | None) -> str:
    return verdict(line) if line is not None else "not_run"


def _final(line: dict[str, Any]) -> list[str]:
    return line.get("final", line["out"])


def _depth(line: dict[str, Any] | None) -> int | None:
    """Stages both probe copies completed on an input (None: a probe ran out of time or was not run)."""
    if line is None or line.get("abandoned"):
        return None
    heads = [o.split("\n")[0] for o in _final(line)]
    if not all(h.startswith("r:") for h in heads):
        return None
    return min(int(h[2:]) for h in heads)


def _reference_check(d: _Drawing) -> Check:
    composite = d.composite
    label = composite.verifier["label"]
    if d.errors is not None:
        return Check(False, f"the composite does not compile: {d.errors[:500]}",
                     {"errors": d.errors[:2000]}, reason=Reason.DOES_NOT_COMPILE)
    ran = d.ran()
    counts = Counter(_v(d.lines[i]) for i in range(len(d.lines)))
    reach, before = d.witnesses()
    first = reach[0] if reach else None  # eq: every separating input (none is before a neq stage)
    slow = next((i for i in ran if _v(d.lines[i]) == "slow"), None)
    unstable = [i for i in ran if _v(d.lines[i]) == "unstable"]
    complete = set(d.complete())
    last = d.n_stages - 1
    kept = steer.input_set([i for i in (first, slow, *unstable[:1]) if i is not None],
                           [i for i in ran if i in complete], [i for i in ran if i not in complete])
    reached = [i for i in kept if d.depth(i) >= last]
    share = lambda n: round(n / len(kept), 3) if kept else 0.0
    evidence: dict[str, Any] = {
        "label": label, "neq_position": composite.verifier["neq_position"], "input_seed": composite.verifier["input_seed"],
        "rounds": d.rounds, "drawn": len(ran), "drawn_complete": len(complete),
        "drawn_by_round": [n for n, _ in d.by_round], "complete_by_round": [c for _, c in d.by_round], **counts,
        "inputs": len(kept), "complete": sum(i in complete for i in kept),
        "complete_share": share(sum(i in complete for i in kept)), "reach_last": len(reached),
        "reach_last_share": share(len(reached)), "input_set": [d.inputs[i] for i in kept]}

    def shown(i: int) -> dict[str, Any]:
        out = d.final(i)
        return {"input": d.inputs[i], "SnippetA": out[0], "SnippetB": out[1], "depth": d.depths[i]}

    if first is not None:  # both snippets terminated on it, with different outcomes
        evidence["witness"] = shown(first)
    if slow is not None:
        evidence["slow_input"] = shown(slow)
    if label == "eq":
        if first is not None:
            return Check(False, f"the positive composite diverges on input {first}", evidence,
                         reason=Reason.POSITIVE_DIVERGES)
        if unstable:
            return Check(False, "the composite is nondeterministic", evidence, reason=Reason.NONDETERMINISTIC)
        if slow is not None:  # one snippet finished, the other never did: undecided, so not admitted
            return Check(False, f"only time separates the snippets on input {slow}: undecided", evidence,
                         reason=Reason.UNDECIDED_TIME)
        if evidence["complete_share"] < MIN_COMPLETE_SHARE:
            return _few_complete(evidence)
        return Check(True, f"both snippets agree on all {len(ran)} inputs drawn", evidence)
    if first is None and before:
        evidence["early_witness"] = shown(before[0])
        return Check(False, f"the snippets diverge only on inputs that do not reach the non-equivalent stage "
                     f"{composite.verifier['neq_position'] + 1} on both sides ({len(before)})", evidence,
                     reason=Reason.WITNESS_BEFORE_NEQ_STAGE)
    if first is None and slow is not None:
        return Check(False, f"only time separates the snippets (input {slow}): a timeout is no witness",
                     evidence, reason=Reason.UNDECIDED_TIME)
    if first is None:
        return Check(False, f"no input separates the snippets ({counts['agree']} agree): the neq atom is masked",
                     evidence, reason=Reason.NEGATIVE_MASKED)
    if evidence["complete_share"] < MIN_COMPLETE_SHARE:
        return _few_complete(evidence)
    return Check(True, f"the snippets diverge on input {first}, which reaches the non-equivalent stage", evidence)


def _few_complete(evidence: dict[str, Any]) -> Check:
    return Check(False, f"only {evidence['complete']} of {evidence['inputs']} inputs run every stage on both sides "
                 f"(share {evidence['complete_share']} < {MIN_COMPLETE_SHARE})", evidence,
                 reason=Reason.FEW_COMPLETE_RUNS)
