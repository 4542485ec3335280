"""Re-verifying FEMPD pairs by execution, with two independent methods (paper App. B.4).

(a) Type-driven generation: seeded inputs from the shared signature (every boundary value, boundary
values combined pairwise across parameters, then random values; then, for String and char parameters,
the Unicode and numeric families, then the representation families of round 4: see inputs.generate),
INPUTS per pair plus the families, or BUDGET_MS
of running; both methods run on each in one JVM per batch. An outcome is the
return value, the exception class, or the exit status, and the state of every array argument after the
call. eq is confirmed when no input separates them, neq when one does: the witness is an input on which
both methods terminated with different outcomes. A call past its deadline is re-run with 4x, then 20x
the deadline; an input on which only time separates the methods (one finished, the other never did) is
undecided and is never a witness. A pair whose only differences are such inputs is rejected as
`a:undecided_time`, whatever its label. A nondeterministic pair (different finished outcomes for the
same input) confirms neither label.

(b) Cross-substitution of the pair's own EvoSuite suites: method1's suite runs against method2 and
method2's suite against method1, each beside the same suite on its own method, under EvoSuite's own
runner. The pair passes when every test passes or fails alike on both methods. FEMPD ships suites for
the equivalent pairs only, so (b) can confirm eq labels; neq labels rest on (a) alone.

A pair is kept only when its label is confirmed: eq by (a) and (b), neq by (a). The LLM-written
FEMP-X witness tests never take part; their summary (`llm_status`) is carried along for reports.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codewalk.errors import InfraError
from codewalk.loaders.fempd import Pair

from .inputs import exhausted, generate, normalize, supported, verdict
from .java import JVMS, CallResult, CallUnit, Java, SuiteResult, SuiteUnit, digest

INPUTS = 1000  # type-driven inputs per pair (fewer when a pair passes BUDGET_MS)
BUDGET_MS = 6000  # per pair: no new input starts after this much running
DEADLINE_MS = 100  # per call; a disagreement is re-run with 4x, a one-sided timeout then with LONG_MS
LONG_MS = 2000
WITNESSES = 3  # (a) stops a pair after this many separating inputs
# (a) confirms equivalence only on this many inputs on which both methods finished and agreed (or all of a
# smaller input space): inputs on which both run out of time or memory agree vacuously, and the harness
# stops a pair after ten of them, so without this floor a pair could be "equivalent" on 44 real inputs.
MIN_TERMINATING = 200
BATCH = 120  # pairs per JVM job (the job's inputs are one JSON file read into a 256 MB heap)


@dataclass
class Verification:
    pair: Pair
    a: str  # eq / neq / slow (only time differs) / exhausted (too few inputs finish: MIN_TERMINATING) /
    #         nondeterministic / does_not_compile / unsupported_type
    b: str  # eq / neq / no_suites / does_not_compile / suite_broken / timeout / not_run
    seed: int = 0  # (a)'s inputs: generate(params, f"{seed}:{pair_id}", inputs)
    inputs: int = INPUTS
    a_evidence: dict[str, Any] = field(default_factory=dict)
    b_evidence: dict[str, Any] = field(default_factory=dict)
    witness: dict[str, Any] | None = None  # the first input that separates the methods under (a)

    @property
    def confirmed(self) -> bool:
        return self.reason == "confirmed"

    @property
    def reason(self) -> str:
        """'confirmed', or why not: which method disagrees with the label, or could not run."""
        label = self.pair.label
        if self.a == "slow":
            return "a:undecided_time"
        if self.a == "exhausted":
            return "a:undecided_exhausted"
        if self.a != label:
            return f"a:{self.a}" if self.a not in ("eq", "neq") else ("a:diverges" if label == "eq" else "a:no_witness")
        if label == "neq":  # FEMPD has no suites for non-equivalent pairs: (b) cannot speak
            return "confirmed"
        if self.b != "eq":
            return "b:diverges" if self.b == "neq" else f"b:{self.b}"
        return "confirmed"

    @classmethod
    def from_record(cls, pair: Pair, record: dict[str, Any]) -> Verification:
        """The verification a stored verdict (`record`) describes, for re-using it without re-running."""
        return cls(pair, record["a"], record["b"], record["seed"], record["planned_inputs"], record["a_evidence"],
                   record["b_evidence"], record["witness"])

    def record(self) -> dict[str, Any]:
        """The per-pair verdict kept for audit: status, reason, witness input and both outcomes, inputs, seed."""
        p = self.pair
        return {"pair_id": p.pair_id, "label": p.label, "status": "confirmed" if self.confirmed else "rejected",
                "reason": self.reason, "a": self.a, "b": self.b, "seed": self.seed, "planned_inputs": self.inputs,
                "inputs_tried": self.a_evidence.get("inputs", 0), "witness": self.witness,
                "a_evidence": self.a_evidence, "b_evidence": self.b_evidence}


def pair_class(pair: Pair) -> str:
    """The pair as one compilation unit, rebuilt from the very method texts the composer uses."""
    imports = "".join(f"{line}\n" for line in pair.imports)
    return (f"package {pair.package};\n\n{imports}\npublic class {pair.name} {{\n{pair.method1}\n\n"
            f"{pair.method2}\n}}\n")


def verify(pairs: Sequence[Pair], java: Java, seed: int = 0, inputs: int = INPUTS) -> list[Verification]:
    """Both methods over a batch of pairs: one JVM for (a), one for (b)."""
    runnable = [p for p in pairs if all(supported(t) for t in (*p.param_types, p.return_type))]
    def run(batch: Sequence[Pair]) -> list[tuple[Pair, CallUnit, CallResult]]:
        units = [pair_unit(p, pair_inputs(p, seed, inputs)) for p in batch]
        results = java.calls(units, DEADLINE_MS, timeout=600 + 3 * BUDGET_MS * len(units) / 1000)
        return list(zip(batch, units, results))

    batches = [runnable[start:start + BATCH] for start in range(0, len(runnable), BATCH)]
    if batches:
        java.harness()  # compiled once, before the batches run side by side
    with ThreadPoolExecutor(max(1, min(JVMS, len(batches)))) as pool:  # a batch is one JVM: JVMS side by side
        by_pair = {p.pair_id: (unit, result) for done in pool.map(run, batches) for p, unit, result in done}
    results = []
    for p in pairs:
        r = Verification(p, "unsupported_type", "not_run", seed, inputs)
        if p.pair_id in by_pair:
            _method_a(r, *by_pair[p.pair_id])
        results.append(r)
    cross_substitute([r for r in results if r.pair.label == "eq" and r.a == "eq" and r.pair.suites], java)
    for r in results:
        if r.b == "not_run" and r.pair.suites is None:
            r.b = "no_suites"
    return results


def pair_unit(p: Pair, inputs: list[list[Any]], stop_after: int = WITNESSES) -> CallUnit:
    """Both methods of a pair on the given inputs, under the pair's running budget."""
    return CallUnit({f"{p.name}.java": pair_class(p)},
                    ((f"{p.package}.{p.name}", "method1"), (f"{p.package}.{p.name}", "method2")),
                    tuple(normalize(t) for t in p.param_types), inputs, stop_after, BUDGET_MS, LONG_MS)


def pair_inputs(pair: Pair, seed: int, count: int = INPUTS) -> list[list[Any]]:
    return generate(pair.param_types, f"{seed}:{pair.pair_id}", count, families=True)


def _method_a(r: Verification, unit: CallUnit, result: CallResult) -> None:
    """Sets r.a, r.a_evidence and r.witness from the harness's answers for the pair's inputs."""
    if result.errors is not None:
        r.a, r.a_evidence = "does_not_compile", {"errors": result.errors[:2000]}
        return
    counts = {"agree": 0, "differ": 0, "slow": 0, "unstable": 0, "abandoned": 0, "agree_terminating": 0}
    slow = None
    for i, line in sorted(result.outcomes.items()):
        v = verdict(line)
        counts[v] += 1
        if v == "agree" and not all(exhausted(o) for o in line.get("final", line["out"])):
            counts["agree_terminating"] += 1
        if v == "differ" and r.witness is None:
            out = line["final"]
            r.witness = {"input": unit.inputs[i], "method1": out[0], "method2": out[1]}
        if v == "slow" and slow is None:
            slow = {"input": unit.inputs[i], "method1": line["final"][0], "method2": line["final"][1]}
    if len(result.outcomes) != len(unit.inputs) and result.end in (None, "all"):
        raise InfraError(f"{r.pair.name}: the harness answered {len(result.outcomes)} of {len(unit.inputs)} inputs")
    # A method with different outcomes for the same input cannot make a reliable atom, whatever its label.
    r.a = ("nondeterministic" if counts["unstable"] else "neq" if counts["differ"] else
           "slow" if counts["slow"] else
           "exhausted" if counts["agree_terminating"] < min(MIN_TERMINATING, len(unit.inputs)) else "eq")
    r.a_evidence = {"inputs": len(result.outcomes), "planned": len(unit.inputs), "end": result.end, **counts,
                    **({"slow_input": slow} if slow else {})}


# -- (b) EvoSuite cross-substitution ----------------------------------------------------------------------
def suite_unit(pair: Pair, suite_of: str, target: str) -> SuiteUnit:
    """`suite_of`'s EvoSuite suite against `target`, wrapped as `Target.__target__` in its own package."""
    assert pair.suites is not None, pair.pair_id  # only pairs with suites are cross-substituted
    suite = pair.suites[suite_of]
    test = Path(suite.test).read_text(encoding="utf-8")
    scaffolding = Path(suite.scaffolding).read_text(encoding="utf-8")
    method = re.sub(rf"\b{target}\b", "__target__", getattr(pair, target))
    imports = "".join(f"{line}\n" for line in pair.imports)
    package = "s" + digest(method, imports, test, scaffolding)
    target_src = f"package {package};\n\n{imports}\npublic class Target {{\n{method}\n}}\n"
    # The runtime finds the class under test by name: qualify it; inputs that happen to be "Target" stay.
    test = f"package {package};\n" + test.replace('verifyException("Target",', f'verifyException("{package}.Target",')
    scaffolding = f"package {package};\n" + scaffolding.replace('"Target"', f'"{package}.Target"')
    return SuiteUnit(package, {"Target.java": target_src, "Target_ESTest.java": test,
                               "Target_ESTest_scaffolding.java": scaffolding}, "Target_ESTest")


def cross_substitute(results: list[Verification], java: Java) -> None:
    """Method (b) for pairs with EvoSuite suites: sets each result's `b` and `b_evidence`. One JVM batch."""
    runs = [(r, s, t) for r in results for s in ("method1", "method2") for t in ("method1", "method2")]
    outcomes = java.suites([suite_unit(r.pair, s, t) for r, s, t in runs])
    got: dict[tuple[int, str, str], Any] = {(r.pair.pair_id, s, t): o for (r, s, t), o in zip(runs, outcomes)}
    for r in results:
        evidence: dict[str, Any] = {}
        verdicts = []
        for s in ("method1", "method2"):
            other = "method2" if s == "method1" else "method1"
            own, cross = got[(r.pair.pair_id, s, s)], got[(r.pair.pair_id, s, other)]
            verdicts.append(_suite_verdict(own, cross))
            evidence[s] = {"verdict": verdicts[-1], "tests": len(own.tests or {}),
                           "own_passes": sum(v == "pass" for v in (own.tests or {}).values()),
                           "cross_passes": sum(v == "pass" for v in (cross.tests or {}).values()),
                           "differs_on": sorted(t for t in (own.tests or {}) if cross.tests and
                                                (own.tests[t] == "pass") != (cross.tests.get(t) == "pass")),
                           **({"errors": (own.errors or cross.errors)[:2000]} if own.errors or cross.errors else {})}
        r.b = next((v for v in ("does_not_compile", "timeout", "suite_broken", "neq") if v in verdicts), "eq")
        r.b_evidence = evidence


def _suite_verdict(own: SuiteResult, cross: SuiteResult) -> str:
    """eq when every test passes, or fails, alike on the suite's own method and on the other one."""
    if own.errors or cross.errors:
        return "does_not_compile"
    if own.tests is None or cross.tests is None:
        return "timeout"
    if not own.tests or "(class)" in own.tests or "(class)" in cross.tests or set(own.tests) != set(cross.tests):
        return "suite_broken"
    return "eq" if all((own.tests[t] == "pass") == (cross.tests[t] == "pass") for t in own.tests) else "neq"
