"""The Frama-C/WP backend of the proof-completion domain: ACSL-annotated C (ACSL by Example).

A chain passes either an array (pointer + length: the region a function wrote) or a scalar return value
from one function to the next. The composite is one C file:
- the logic files and callee headers the components include (callees keep their contracts: auxiliaries);
- step predicates `step<i>{Before,After}(params.., r)`: S_i, each component's original postcondition
  (its `ensures` and its behaviors' `assumes ==> ensures`) over the states before and after the call;
- the components renamed f<i>_<name>, each with its contract and body;
- `chain_driver`, which calls them in turn and asserts `step<i>{L<i>,Here}(...)` right after each call,
  on the actual values and memory states.
ACSL function contracts see only the Pre and Post states, while an array's intermediate states exist only
at C labels inside the driver; so the driver states S_i as those labelled asserts (the paper's
existential, with the actual intermediates as witnesses) and has no `ensures` of its own.
The task strips component `ensures`, behaviors and every annotation inside component bodies (loop
invariants, loop assigns, loop variants, asserts, ghost code); it keeps code, `requires`, `assigns`,
`terminates`, `exits`, the step predicates and the driver. The reference restores the originals.
V_G runs `frama-c -wp -wp-rte` with Z3 and cvc5 on the component functions and the driver.
Admission (1) is per atom: a position must fail a goal of its own with the other components' reference
annotations restored. Grading refuses, before any prover runs, a candidate that is not the task plus
the annotations the task stripped (ensures and behaviors, loop invariants/assigns/variants, asserts):
no preprocessor directive the task lacks (-pp-annot preprocesses annotations too), no new logic
function, predicate, lemma, axiom, inductive, ghost code, global or type invariant or \\false; outside
the components it must be the task token by token. On top, a graded run has WP's smoke tests on the
requires: a candidate under which a function's context proves \\false is refused. What Frama-C reads is
checked on its own print (frame_differs: outside the components, the frame and the code must print as the
task's), and a candidate is solved only if its run has every goal of the task's goal set (frame_goals,
recorded from the reference's run at admission in verifier["goals"]) and proves all.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import subprocess
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from codewalk.domain import Rejected
from codewalk.errors import InfraError, UsageError
from codewalk.loaders.acsl import (
    clause_body,
    contract_clauses,
    strip_annotations,
)
from codewalk.records import Atom, Check, Composite, Reason
from codewalk.runtime import sandbox
from codewalk.runtime.locks import locked

from . import cache as verdict_cache
from .acsl_guard import FRAME, Refused, candidate_component, structure

log = logging.getLogger(__name__)

# Provers stop at a step budget (z3 rlimit, cvc5 --rlimit), not at a wall-clock limit, so a verdict does not
# depend on how busy the machine is: with 2-5 s timeouts, goals of proved references failed under load.
# The timeout only guards against a prover that ignores its budget.
WP_STEPS = 200_000  # per goal and prover
WP_TIMEOUT = 60  # seconds per goal and prover
RUN_TIMEOUT = 900.0  # seconds for one whole frama-c run
# WP's smoke tests on the requires only, for grading: can the provers derive \false from a function's
# context? Each such goal runs to its timeout (2 s) when all is well: a graded run of clamp took 8 s
# instead of 4, of fill + find 22 s instead of 12; admission verifies our own texts and skips them. The
# dead code/call/loop/assumes smoke tests made a run 2.7 to 7 times slower and are not run.
SMOKE = ("-wp-smoke-tests", "-wp-no-smoke-dead-code", "-wp-no-smoke-dead-call", "-wp-no-smoke-dead-loop",
         "-wp-no-smoke-dead-assumes")
HEADER = (
    "/* Proof completion. Add the annotations (function contracts' ensures and behaviors, loop\n"
    "   invariants, loop assigns, loop variants, asserts) that make `frama-c -wp -wp-rte` prove every\n"
    "   goal of the functions below and of chain_driver, whose asserts state each step's specification.\n"
    "   Change nothing else: not the code, the includes, the requires/assigns/terminates/exits clauses,\n"
    "   the step predicates or the driver. Not accepted: admit, axioms, lemmas, new logic functions or\n"
    "   predicates, ghost code, global or type invariants, \\false, preprocessor directives. */"
)

# Why3 1.5.1 predates cvc5; this entry lets it drive cvc5 1.0.3 through the CVC4 1.6+ SMT-LIB driver.
CVC5_PROVER = """
[prover]
name = "CVC5"
version = "1.0.3"
shortcut = "cvc5"
driver = "cvc4_16"
command = "cvc5 --tlimit-per=%t000 --lang=smt2 %f"
command_steps = "cvc5 --rlimit=%S --lang=smt2 %f"
in_place = false
interactive = false
"""


# -- relation ------------------------------------------------------------------------------------
def output_key(p: dict[str, Any]) -> str:
    return "array" if p["output"]["kind"] == "array" else p["output"]["type"]


def inputs(p: dict[str, Any]) -> list[tuple[int, str]]:
    """(argument index, type key) where a chained value can enter this function as a later chain member.

    An array can enter at a pointer parameter p of length L when every other pointer is the function's own
    output buffer of that same length (copy(a, n, b)); a scalar can enter a function whose parameters are
    all scalars. Every other argument becomes a driver input, so it must be a scalar. A function without a
    loop takes nothing (it can only start a chain): proving it is writing its postcondition, which the
    task states as its step predicate (heap_parent after any index was most N = 2 tasks).
    """
    if not has_loop(p):  # its whole proof would be its step predicate restated, which the task gives
        return []
    params, lengths, out = p["params"], p["lengths"], p["output"]
    pointers = [name for ctype, name in params if ctype.endswith("*")]
    found = []
    for k, (ctype, name) in enumerate(params):
        if ctype.endswith("*"):
            if out["kind"] == "array" and out["ptr"] == name and not reads_old(p):
                continue  # it overwrites the buffer without reading it (fill, iota): nothing would flow in
            buffers = [q for q in pointers if q != name]
            if all(out["kind"] == "array" and out["ptr"] == q and lengths[q] == lengths[name] for q in buffers):
                found.append((k, "array"))
        elif not pointers:
            found.append((k, ctype))
    return found


_LOOP = re.compile(r"\b(for|while|do)\b")
_PRE_STATE = re.compile(r"\\old\s*\(|\\at\s*\(|\{[^}]*\b(Old|Pre)\b")


def reads_old(p: dict[str, Any]) -> bool:
    """Whether the function's ensures speak of the state before the call (`\\old`, `\\at`, a predicate at
    label Old or Pre): an in-place function whose result depends on what its buffer held (reverse,
    replace, the sorts), unlike one that only writes it (fill, iota)."""
    return any(kind == "ensures" and _PRE_STATE.search(text) for kind, text in contract_clauses(p["contract"]))


def has_loop(p: dict[str, Any]) -> bool:
    """Whether the function's code (annotations and comments aside) has a loop."""
    return bool(_LOOP.search(re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\])*"', " ", p["definition"], flags=re.DOTALL)))


def connect(src: Atom, dst: Atom) -> int | None:
    """The argument of dst that receives src's output, or None when src cannot feed dst: no parameter
    takes it, or dst requires of it what src's contract does not state (unmet)."""
    want = output_key(src.payload)
    k = next((k for k, key in inputs(dst.payload) if key == want), None)
    return None if k is None or unmet(src.payload, dst.payload, k) else k


# Preconditions on a passed pointer that the call site proves from the chain's own memory facts: the
# driver's \valid and \separated requires, and the writer's, cover them.
_MEMORY = ("\\valid", "\\valid_read", "\\separated")


def unmet(src: dict[str, Any], dst: dict[str, Any], k: int) -> list[str]:
    """dst's preconditions on the value it receives at argument k (the array's contents, or the scalar)
    that src's ensures (outside behaviors) do not state word for word: a chain's reference cannot prove
    such a call (fill then lower_bound, which needs a sorted array; bubble_sort then lower_bound is fine).
    A precondition on an array's length only is no obstacle: the length is a driver input, assumed there."""
    chained = dst["params"][k][1]
    out = src["output"]
    if out["kind"] == "array":
        rename = {chained: out["ptr"], dst["lengths"][chained]: out["len"]}
    else:
        rename = {chained: "\\result"}
    stated = set()
    for kind, text in contract_clauses(src["contract"]):
        if kind == "behavior":
            break
        if kind == "ensures":
            stated.add(_words(clause_body(text)))
    missing = []
    for kind, text in contract_clauses(dst["contract"]):
        body = clause_body(text)
        if kind != "requires" or chained not in re.findall(r"\w+", body) or body.startswith(_MEMORY):
            continue
        if _words(_subst(body, rename)) not in stated:
            missing.append(body)
    return missing


def _words(text: str) -> str:
    return " ".join(re.findall(r"\\?\w+|\S", text))


# -- composition ---------------------------------------------------------------------------------
@dataclass
class _Step:
    atom: Atom
    fname: str  # renamed function
    args: list[str]  # driver expressions passed to the function, one per parameter
    result: str | None  # driver variable holding the return value


def compose(atoms: Sequence[Atom]) -> Composite:
    files: dict[str, str] = {}
    for atom in atoms:
        for name, text in atom.payload["files"].items():
            if files.setdefault(name, text) != text:
                raise Rejected(Reason.MIXED_SOURCES, f"the atoms' copies of {name} differ")
    steps, driver_params, driver_requires = _plan(atoms)
    includes = list(dict.fromkeys(["typedefs.h"] + [f for a in atoms for f in a.payload["includes"]]))
    head = "\n".join(f'#include "{f}"' for f in includes)
    predicates = "\n\n".join(_step_predicate(i, s) for i, s in enumerate(steps, 1))
    driver = _driver(steps, driver_params, driver_requires)
    components = [(s.fname, _contract(s.atom, stripped=False), _definition(s, stripped=False)) for s in steps]
    tasks = [(s.fname, _contract(s.atom, stripped=True), _definition(s, stripped=True)) for s in steps]
    verifier = {
        "backend": "acsl",
        # the texts the head includes, transitively: written beside task.c before Frama-C runs, so a task
        # needs no file of the machine it was made on
        "files": dict(sorted(files.items())),
        "head": head, "predicates": predicates, "driver": driver,
        "components": [{"name": name, "contract": c, "code": strip_annotations(d)} for name, c, d in tasks],
        "functions": [s.fname for s in steps] + ["chain_driver"],
    }
    return Composite(
        prompt=_file(HEADER + "\n\n" + head, predicates, tasks, driver),
        reference=_file(head, predicates, components, driver),
        verifier=verifier,
    )


def _plan(atoms: Sequence[Atom]) -> tuple[list[_Step], list[str], list[str]]:
    """The driver's calls: which driver expression goes to each argument, and its parameters and requires."""
    first = atoms[0].payload
    params = [f"{ctype} {name}" for ctype, name in first["params"]]
    requires = [clause_body(t) for kind, t in contract_clauses(first["contract"]) if kind == "requires"]
    regions = [(name, first["lengths"][name]) for ctype, name in first["params"] if ctype.endswith("*")]
    steps = [_Step(atoms[0], f"f1_{first['name']}", [name for _, name in first["params"]],
                   "x1" if first["ret"] != "void" else None)]
    value = _value(steps[0])
    for i, atom in enumerate(atoms[1:], 2):
        p = atom.payload
        k = connect(atoms[i - 2], atom)
        if k is None:
            raise Rejected(Reason.NOT_CHAINABLE, f"{atoms[i - 2].id} cannot feed {atom.id}")
        chained = p["params"][k][1]
        rename: dict[str, str] = {}
        args = []
        if value[0] == "array":
            ptr, length = value[1], value[2]
            rename[chained], rename[p["lengths"][chained]] = ptr, length
            for ctype, name in p["params"]:
                if ctype.endswith("*") and name != chained:  # the function's output buffer: the driver's
                    buffer = f"{name}_{i}"
                    params.append(f"value_type* {buffer}")
                    requires.append(f"\\valid({buffer} + (0..{length}-1))")
                    requires += [f"\\separated({buffer} + (0..{length}-1), {q} + (0..{n}-1))"
                                 for q, n in regions]
                    regions.append((buffer, length))
                    rename[name] = buffer
        else:
            rename[chained] = value[1]
        for ctype, name in p["params"]:
            if name not in rename:  # a scalar the driver takes as input
                rename[name] = f"{name}_{i}"
                params.append(f"{ctype} {rename[name]}")
            args.append(rename[name])
        for kind, text in contract_clauses(p["contract"]):
            # Later preconditions on the driver's inputs (scalars, output buffers, an array's length) are
            # collected; those on the chained value (an array's contents, a scalar result) must follow from
            # the upstream contracts (connect checks it), so the driver does not assume them.
            if kind == "requires" and chained not in re.findall(r"\b\w+\b", clause_body(text)):
                requires.append(_subst(clause_body(text), rename))
        steps.append(_Step(atom, f"f{i}_{p['name']}", args, f"x{i}" if p["ret"] != "void" else None))
        value = _value(steps[-1])
    names = [prm.rsplit(" ", 1)[1] for prm in params]
    if len(set(names)) != len(names):
        raise Rejected(Reason.NAME_CLASH, f"driver parameters collide: {names}")
    return steps, params, list(dict.fromkeys(requires))


def _value(step: _Step) -> tuple[str, ...]:
    """What a step passes on: ("array", pointer expr, length expr) or ("scalar", variable)."""
    out, names = step.atom.payload["output"], [n for _, n in step.atom.payload["params"]]
    if out["kind"] == "array":
        return ("array", step.args[names.index(out["ptr"])], step.args[names.index(out["len"])])
    return ("scalar", step.result or "")


def _subst(text: str, rename: dict[str, str]) -> str:
    if not rename:
        return text
    names = "|".join(map(re.escape, sorted(rename, key=len, reverse=True)))
    pattern = re.compile(rf"(?<![\w.>])({names})\b")
    return pattern.sub(lambda m: rename[m[1]], text)


def _result_name(p: dict[str, Any]) -> str:
    names = {n for _, n in p["params"]}
    return next(r for r in ("r", "res", "result_") if r not in names)


def _step_predicate(i: int, step: _Step) -> str:
    """S_i as a predicate over the states Before and After the call: the component's postcondition."""
    p = step.atom.payload
    r = _result_name(p)
    params = [f"{ctype.replace('const ', '')} {name}" for ctype, name in p["params"]]
    if p["ret"] != "void":  # also for an array output: remove_copy's count, partial_sum's n
        params.append(f"{'int' if p['ret'] == 'bool' else p['ret']} {r}")
    parts: list[str] = []
    ensures: list[str] = []
    behavior, assumes = None, ""

    def close() -> None:
        if behavior is not None and ensures:
            condition = assumes or "\\true"
            parts.append(f"(\\at({condition}, Before) ==> ({' && '.join(ensures)}))")

    for kind, text in contract_clauses(p["contract"]):
        if kind == "behavior":
            close()
            behavior, assumes, ensures = text, "", []
        elif kind == "assumes":
            assumes = f"({_post(text, r)})" if not assumes else f"{assumes} && ({_post(text, r)})"
        elif kind == "ensures":
            (ensures if behavior is not None else parts).append(f"({_post(clause_body(text), r)})")
    close()
    body = "\n      && ".join(parts)
    return (f"/*@ predicate step{i}{{Before, After}}({', '.join(params)}) =\n"
            f"      \\at({body},\n      After);\n*/")


def _post(text: str, result: str) -> str:
    """A contract formula as a two-state predicate body: \\old(e) -> \\at(e, Before), labels renamed."""
    text = re.sub(r"\b(Old|Pre)\b", "Before", text)
    text = re.sub(r"\b(Here|Post)\b", "After", text)
    text = text.replace("\\result", result)
    while (start := text.find("\\old(")) >= 0:
        end = _close_paren(text, start + 4)
        text = f"{text[:start]}\\at({text[start + 5:end]}, Before){text[end + 1:]}"
    return text


def _close_paren(text: str, open_at: int) -> int:
    depth = 0
    for j in range(open_at, len(text)):
        depth += {"(": 1, ")": -1}.get(text[j], 0)
        if depth == 0:
            return j
    raise Rejected(Reason.UNREADABLE_CONTRACT, f"unbalanced parentheses in {text!r}")


def _contract(atom: Atom, stripped: bool) -> str:
    """The original contract, or only its frame (requires, assigns, terminates, exits) for the task."""
    if not stripped:
        return f"/*@{atom.payload['contract']}*/"
    return _frame(atom.payload["contract"])


def _frame(contract: str) -> str:
    return "/*@\n" + "\n".join(f"  {kind:<11}{text};" for kind, text in _frame_clauses(contract)) + "\n*/"


def _frame_clauses(contract: str) -> list[tuple[str, str]]:
    """What the task keeps of a contract: its requires, assigns, terminates and exits before any behavior.

    Also applied to a candidate's contract: the candidate minus what it may add must be the task."""
    clauses = []
    for kind, text in contract_clauses(contract):
        if kind == "behavior":
            break  # behaviors are postconditions: everything from the first one on goes
        if kind in FRAME:
            clauses.append((kind, text))
    return clauses


def _definition(step: _Step, stripped: bool) -> str:
    text = step.atom.payload["definition"]
    name = step.atom.payload["name"]
    text = re.sub(rf"\b{re.escape(name)}(\s*\()", rf"{step.fname}\1", text, count=1)
    return strip_annotations(text).rstrip("\n") if stripped else text


def _driver(steps: list[_Step], params: list[str], requires: list[str]) -> str:
    contract = "\n".join(f"  requires {r};" for r in requires)
    signature = f"void chain_driver({', '.join(params) or 'void'})"
    lines = [f"/*@\n{contract}\n*/" if requires else "", signature, "{"]
    # C (before C23) cannot label a declaration: the results are declared first, the calls labelled
    lines += [f"  {s.atom.payload['ret']} {s.result};" for s in steps if s.result]
    for i, s in enumerate(steps, 1):
        call = f"{s.fname}({', '.join(s.args)})"
        lines.append(f"  L{i}: {s.result} = {call};" if s.result else f"  L{i}: {call};")
        args = s.args + ([s.result] if s.result else [])
        lines.append(f"  //@ assert S{i}: step{i}{{L{i}, Here}}({', '.join(args)});")
    lines.append("}")
    return "\n".join(line for line in lines if line)


def _file(head: str, predicates: str, components: list[tuple[str, str, str]], driver: str) -> str:
    body = "\n\n".join(f"{contract}\n{definition}" for _, contract, definition in components)
    return f"{head}\n\n{predicates}\n\n{body}\n\n{driver}\n"


# -- admission and grading -------------------------------------------------------------------------
def check_reference(composite: Composite) -> Check:
    """Check (2): the reference proves. Its run's frame goals (frame_goals) become the task's goal set,
    stored in the verifier (V_G) and the evidence: a candidate must have every one of them and prove all."""
    run = verify(composite.reference, composite.verifier)
    evidence: dict[str, Any] = {"wp": run.summary()}
    if not run.well_formed:
        why = f"the reference is not well formed: {run.message}"
        return Check(False, why, evidence, Reason.REFERENCE_ILL_FORMED)
    if not run.proved:
        return Check(False, f"the reference does not prove: {run.valid}/{run.total} goals, "
                     f"unproved {', '.join(run.failed[:5])}", evidence, Reason.REFERENCE_FAILS)
    composite.verifier["goals"] = evidence["goals"] = frame_goals(run, composite.verifier)
    return Check(True, f"the reference proves all {run.total} goals", evidence)


# -- the goal set: what the task asks to be proved, as the reference's run produced it -------------------
# Goals of a component whose names a candidate chooses (clause labels) are kept by kind, counted per
# function; the driver's goals (its asserts of each S_i, its calls' preconditions, RTE) have the task's names.
# Termination is counted (one variant per loop the reference bounds); ensures only need to be there, as a
# candidate may state the postcondition in fewer or more clauses than the reference.
GOAL_KINDS = {"ensures": False, "loop_variant": True, "terminates": True}  # kind: counted


def frame_goals(run: WPRun, spec: dict[str, Any]) -> list[dict[str, Any]]:
    """The goals of the reference's run that belong to the task's frame, by stable name and kind:
    {"kind": "driver", "name": goal} for each goal of chain_driver (smoke tests aside), and
    {"kind": k, "name": function, "count": n} for the n goals of kind k (GOAL_KINDS) of each component."""
    goals: list[dict[str, Any]] = [{"kind": "driver", "name": g} for g in run.goals
                                   if _function_of(g, spec) == "chain_driver" and "_wp_smoke_" not in g]
    for component in spec["components"]:
        for kind, counted in GOAL_KINDS.items():
            if n := _count(run.goals, component["name"], kind):
                goals.append({"kind": kind, "name": component["name"], "count": n if counted else 1})
    return goals


def _function_of(goal: str, spec: dict[str, Any]) -> str:
    """The function a goal belongs to: a call's precondition ("caller:callee_requires_x") is the caller's."""
    if ":" in goal:
        return goal.split(":", 1)[0]
    return next((f for f in spec["functions"] if goal.startswith(f + "_")), "")


# WP names a goal <function>_[<behavior>_]<kind>[_<label>][_<n>]: a variant or terminates goal has its kind
# first; an ensures may follow a behavior's name, but not another kind's (a label `x_ensures` of an invariant)
_OTHER_KINDS = ("loop_", "assert", "assigns", "complete", "disjoint", "exits", "terminates", "wp_smoke")


def _is_kind(rest: str, kind: str) -> bool:
    if kind != "ensures":
        return rest == kind or rest.startswith(kind + "_")
    return not rest.startswith(_OTHER_KINDS) and re.match(r"(?:[A-Za-z0-9]+_)*?ensures(?:_|$)", rest) is not None


def _count(goals: list[str], function: str, kind: str) -> int:
    prefix = function + "_"
    return sum(1 for g in goals if ":" not in g and g.startswith(prefix) and _is_kind(g[len(prefix):], kind))


def missing_goals(run: WPRun, wanted: list[dict[str, Any]]) -> list[str]:
    """The goals of the task's goal set that a candidate's run does not have, each named."""
    missing = []
    for goal in wanted:
        if goal["kind"] == "driver":
            if goal["name"] not in run.goals:
                missing.append(goal["name"])
        elif (n := _count(run.goals, goal["name"], goal["kind"])) < goal["count"]:
            missing.append(f"{goal['name']} {goal['kind']} ({n} of {goal['count']})")
    return missing


def task_goals(composite: Composite) -> list[dict[str, Any]]:
    """The task's goal set: recorded at admission, or, for a task stored before it was, computed from the
    reference's run (the verdict cache keeps that run, so this costs one frama-c run per task, once)."""
    spec = composite.verifier
    if "goals" in spec:
        return list(spec["goals"])
    run = verify(composite.reference, spec)
    if not run.proved:
        raise InfraError(f"the task's reference does not prove here ({run.valid}/{run.total}): no goal set")
    return frame_goals(run, spec)


def check_unsolved(composite: Composite, position: int) -> Check:
    """Admission (1) per atom: this position's own goals must fail when only its annotations are missing.

    The program verified is the task with every other component's reference annotations restored (with
    one component, the task itself). The position is unsolved only if a goal of its own fails: its
    function's, the driver's call of it, or the driver's assert of its step; a failure elsewhere is
    another position's, and the whole task failing says nothing about this one.
    """
    spec, i = composite.verifier, position + 1
    text, unreadable = others_restored(composite, position)
    if unreadable:
        return Check(False, f"the task cannot be read: {unreadable}", {}, Reason.TASK_ILL_FORMED)
    run = verify(text, spec)
    mine = [g for g in run.failed
            if g.startswith((f"f{i}_", f"chain_driver:f{i}_")) or g == f"chain_driver_assert_S{i}"]
    evidence = {"wp": run.summary(), "failed_here": mine}
    if not run.well_formed:
        return Check(False, f"the task is not well formed: {run.message}", evidence, Reason.TASK_ILL_FORMED)
    if run.proved:
        return Check(False, f"step {i} already proves without its annotations ({run.total} goals)", evidence,
                     Reason.TASK_PROVES)
    if not mine:
        return Check(False, f"without its annotations step {i} fails none of its own goals (the others "
                     f"restored; unproved elsewhere: {', '.join(run.failed[:5])})", evidence, Reason.ATOM_SOLVED)
    return Check(True, f"without its annotations step {i} fails {len(mine)} of its goals "
                 f"({len(run.failed)}/{run.total} unproved, the other steps' annotations restored)", evidence)


def others_restored(composite: Composite, position: int) -> tuple[str, str]:
    """(the task with every component but the one at `position` restored to the reference's, "") or ("",
    why a component cannot be read): the program check (1) verifies for that position."""
    text = composite.prompt
    for k, component in enumerate(composite.verifier["components"]):
        if k == position:
            continue
        task, ref = candidate_component(text, component["name"]), candidate_component(composite.reference,
                                                                                   component["name"])
        if isinstance(task, str) or isinstance(ref, str):
            return "", task if isinstance(task, str) else str(ref)
        text = f"{text[:task[2]]}{ref[0]}\n{ref[1]}{text[task[3]:]}"
    return text, ""


def check_without(composite: Composite, position: int) -> Check | None:
    """V_G on Ref(G) with the component at `position` as x_G has it, the others' proofs kept (`cw release`'s
    leave-one-out; ok=True: that atom is not needed). That program is the one check (1) verified for this
    position (others_restored: the task with the other components' reference annotations restored, the
    reference_without text with the task's header comment), verified here by the same command, so the
    verdict cache answers with admission's run and no Frama-C runs where the cache holds it. It passes as a
    graded candidate does: every goal proved and the task's goal set there. The smoke tests a graded run
    adds are left out: they try to derive \\false from the requires, the task's own, which only refuses more,
    so without them the check drops a task at least as often. None when a component cannot be read."""
    text, unreadable = others_restored(composite, position)
    if unreadable:
        return None
    run = verify(text, composite.verifier)
    if not run.well_formed:
        return Check(False, f"not well formed: {run.message}", {"wp": run.summary()}, Reason.ILL_FORMED)
    missing = missing_goals(run, task_goals(composite)) if run.proved else []
    ok = run.proved and not missing
    return Check(ok, f"{run.valid}/{run.total} goals proved" + (f"; lacks {', '.join(missing[:5])}" if missing else ""),
                 {"wp": run.summary()})


def reference_without(composite: Composite, position: int) -> str | None:
    """Ref(G) with the component at `position` as x_G has it (its frame contract, its code without
    annotations), the others' proofs kept: the leave-one-out candidate of `cw release`. None when either
    text has no readable component of that name."""
    name = composite.verifier["components"][position]["name"]
    task = candidate_component(composite.prompt, name)
    ref = candidate_component(composite.reference, name)
    if isinstance(task, str) or isinstance(ref, str):
        return None
    return f"{composite.reference[:ref[2]]}{task[0]}\n{task[1]}{composite.reference[ref[3]:]}"


def grade(composite: Composite, candidate: str) -> Check:
    """Verify the candidate's components with the original predicates and driver restored.

    A candidate is hostile input. Before any prover runs, it must be the task plus only the annotations
    the task stripped (acsl_guard.structure); what is verified is then rebuilt from the task's own head, step
    predicates and driver around the candidate's components, so nothing else it holds reaches Frama-C.
    """
    spec = composite.verifier
    shape = structure(composite.prompt, candidate, spec["components"])
    if isinstance(shape, Refused):
        return Check(False, shape.why, {}, shape.reason)
    text = _file(spec["head"], spec["predicates"], shape.parts, spec["driver"])
    if differs := frame_differs(composite.prompt, text, spec):
        return Check(False, differs[0], {}, differs[1])
    run = verify(text, spec, True)
    wanted = task_goals(composite)
    evidence = {"wp": run.summary(), "goal_set": len(wanted)}
    if not run.well_formed:
        return Check(False, f"the candidate is not well formed: {run.message}", evidence, Reason.ILL_FORMED)
    if smoke := [g for g in run.failed if "_wp_smoke_" in g]:  # a smoke test fails when \false proves
        return Check(False, f"the context is inconsistent: the provers derive \\false in {', '.join(smoke[:5])}",
                     evidence, Reason.INCONSISTENT_CONTEXT)
    if missing := missing_goals(run, wanted):
        evidence["missing"] = missing
    if not run.proved:
        unproved = ", ".join(run.failed[:5])
        return Check(False, f"{run.valid}/{run.total} goals proved; unproved: {unproved}", evidence)
    if missing:  # every goal it has proves, but goals the task asks for were never made
        return Check(False, f"the run lacks goals of the task's goal set: {', '.join(missing[:5])}", evidence,
                     Reason.MISSING_GOAL)
    return Check(True, f"all {run.total} goals proved with the original step predicates and driver, "
                 f"the task's {len(wanted)} frame goals among them", evidence)


# -- the frame on Frama-C's own reading ----------------------------------------------------------------
PRINT = ["frama-c", "-pp-annot", "-no-unicode", "-print", "-ocode", "printed.c", "task.c"]
_CLAUSE_START = re.compile(r"\n    (?=\S)")  # the printer puts a contract's own clauses 4 columns in
_FRAME_PRINTED = ("requires", "terminates", "exits", "assigns", "decreases", "allocates", "frees")


def frame_differs(task: str, text: str, spec: dict[str, Any]) -> tuple[str, Reason] | None:
    """Why the program about to be verified, as Frama-C parses it, has not the task's frame, compared on
    Frama-C's normalised print (-print) with the task's own print: everything outside the components (includes,
    logic, step predicates, the driver's contract, calls and asserts), each component's requires/terminates/
    exits/assigns and code (annotations aside) must print as the task's (frame_differs); a component's
    annotations may hold no admit, check, ghost, logic definition or \\false beyond the task's own (bypass)."""
    mine, theirs = reading(text, spec), reading(task, spec)
    if not theirs["well_formed"]:
        raise InfraError(f"frama-c cannot parse the task: {theirs['message']}")
    if not mine["well_formed"]:
        return f"the candidate is not well formed: {mine['message']}", Reason.ILL_FORMED
    names = [c["name"] for c in spec["components"]]
    ours, given = printed_frame(mine["printed"], names), printed_frame(theirs["printed"], names)
    for part in given:
        if part.endswith(" banned"):  # in a component's annotations: no more than the task's own (exits \false)
            if extra := Counter(ours.get(part, [])) - Counter(given[part]):
                return (f"as Frama-C reads the candidate, {part.removesuffix(' banned')}() has "
                        f"{', '.join(sorted(extra))} in its annotations"), Reason.BYPASS
        elif ours.get(part) != given[part]:
            return (f"as Frama-C reads the candidate, its {part} is not the task's: "
                    f"{str(ours.get(part))[:200]!r}"), Reason.FRAME_DIFFERS
    return None


def reading(text: str, spec: dict[str, Any]) -> dict[str, Any]:
    """Frama-C's normalised print of a program ({well_formed, message, printed}), cached by content."""
    digest = verdict_cache.key("acsl-print", text, PRINT, _versions(), _files(spec))
    result, _ = verdict_cache.cached(digest, lambda: _print(text, spec))
    return result


def _print(text: str, spec: dict[str, Any]) -> dict[str, Any]:
    with sandbox.workdir() as cwd:
        for name, content in _files(spec).items():
            (cwd / name).write_text(content)
        (cwd / "task.c").write_text(text)
        done = sandbox.run(PRINT, cwd=cwd, timeout=RUN_TIMEOUT, memory_mb=8192, sees=view(spec))
        if done.timed_out:
            raise InfraError(f"frama-c -print timed out after {RUN_TIMEOUT:g}s")
        output = done.stdout + done.stderr
        printed = cwd / "printed.c"
        if done.returncode != 0 and _input_error(output, {"task.c", *_files(spec)}):
            errors = [line for line in output.splitlines() if "rror" in line or _KERNEL_AT.match(line)]
            return {"well_formed": False, "message": " ".join(errors)[-600:] or output[-600:], "printed": ""}
        if done.returncode != 0 or not printed.exists():
            raise InfraError(f"frama-c -print exited with {done.returncode}: {output[-600:]}")
        return {"well_formed": True, "message": "", "printed": printed.read_text()}


# what no annotation of a component may hold, as Frama-C prints it: more than the task's own is a bypass
_BANNED_PRINTED = re.compile(r"\b(admit|check|ghost|axiomatic|axiom|lemma|inductive|logic|predicate)\b|\\false\b")


def printed_frame(printed: str, components: list[str]) -> dict[str, Any]:
    """The parts of a printed program the task fixes: {"outside": the program without its components,
    "predicates": [...], "driver": text, "<component> frame": [clauses], "<component> code": text,
    "<component> banned": [words in its annotations]}; a part Frama-C did not print is absent."""
    parts: dict[str, Any] = {"predicates": re.findall(r"/\*@ predicate step\d+\{.*?\*/", printed, re.DOTALL)}
    outside, at = [], 0
    for name in [*components, "chain_driver"]:
        m = re.search(rf"^[^\n]*\b{name}\([^;{{}}]*\)\n\{{\n", printed, re.MULTILINE)
        if not m:
            continue
        end = printed.find("\n}\n", m.end())
        body = printed[m.start():end + 3 if end >= 0 else len(printed)]
        before = printed[:m.start()]
        contract = before[before.rfind("/*@"):] if before.endswith("*/\n") else ""
        if name == "chain_driver":
            parts["driver"] = contract + body
            continue
        start = m.start() - len(contract)
        if start >= at:  # everything else (includes, logic, predicates, driver) must print as the task's
            outside += [printed[at:start], f"<{name}>"]
            at = start + len(contract) + len(body)
        annotations = " ".join([contract, *re.findall(r"/\*@.*?\*/", body, re.DOTALL)])
        parts[f"{name} banned"] = sorted(w[0] for w in _BANNED_PRINTED.finditer(annotations))
        clauses = []
        for clause in _CLAUSE_START.split(contract.removeprefix("/*@ ").removesuffix("*/\n")):
            if clause.startswith("behavior"):
                break
            if clause.split(" ", 1)[0] in _FRAME_PRINTED:
                clauses.append(" ".join(clause.split()))
        parts[f"{name} frame"] = sorted(clauses)  # the guard lets the frame come in any order
        # the code without annotations, nor the empty statements and blocks the printer gives an annotation to
        # hang on (an assert in an if's branch makes it a block, one in an empty else keeps the else, which
        # the task's print drops); the source's braces and else the guard compares token by token
        code = re.sub(r"\belse\s*(?:;|\{[\s;]*\})", " ", re.sub(r"/\*@.*?\*/", " ", body, flags=re.DOTALL))
        parts[f"{name} code"] = " ".join(t for t in code.split() if t not in (";", "{", "}"))
    parts["outside"] = "".join([*outside, printed[at:]])
    return parts


# -- running Frama-C -------------------------------------------------------------------------------
@dataclass(frozen=True)
class WPRun:
    well_formed: bool
    total: int = 0
    valid: int = 0
    failed: list[str] = field(default_factory=list)  # unproved goals: "<function>_<goal>" or "<caller>:<goal>"
    goals: list[str] = field(default_factory=list)  # every goal, named as above
    message: str = ""  # why it is not well formed
    seconds: float = 0.0
    cached: bool = False
    statuses: dict[str, str] = field(default_factory=dict)  # unproved goal -> each prover's status ("Z3:4.8.12 unknown 1")

    @property
    def proved(self) -> bool:
        return self.well_formed and self.total > 0 and self.valid == self.total

    def summary(self) -> dict[str, Any]:
        return {"goals": self.total, "proved": self.valid, "unproved": self.failed[:20],
                "status": {g: self.statuses[g] for g in self.failed[:20] if g in self.statuses},
                "seconds": round(self.seconds, 2), "cached": self.cached}


def verify(text: str, spec: dict[str, Any], smoke: bool = False) -> WPRun:
    provers = _provers()
    command = _command(spec, provers, smoke)
    digest = verdict_cache.key("acsl-goals", text, command, _versions(), _files(spec))  # -goals: runs name all goals
    result, hit = verdict_cache.cached(digest, lambda: asdict(_run(text, command, spec)))
    return WPRun(**{**result, "cached": hit})


def _command(spec: dict[str, Any], provers: list[str], smoke: bool = False) -> list[str]:
    # no -I: the included files lie beside task.c, where `#include "..."` looks first
    return ["frama-c", "-pp-annot", "-no-unicode",
            "-wp", "-wp-rte", "-warn-unsigned-overflow", "-warn-unsigned-downcast", "-wp-model", "Typed",
            *(SMOKE if smoke else ()),
            "-wp-split", "-wp-prover", ",".join(provers), "-wp-steps", str(WP_STEPS), "-wp-timeout", str(WP_TIMEOUT),
            "-wp-par", "2",
            "-wp-cache", "none", "-wp-fct", ",".join(spec["functions"]), "-wp-report-json", "report.json",
            "task.c"]


def _run(text: str, command: list[str], spec: dict[str, Any]) -> WPRun:
    with sandbox.workdir() as cwd:
        for name, content in _files(spec).items():
            (cwd / name).write_text(content)
        (cwd / "task.c").write_text(text)
        done = sandbox.run(command, cwd=cwd, timeout=RUN_TIMEOUT, memory_mb=8192,
                           env={"WHY3CONFIG": str(_why3_config())}, sees=view(spec))
        if done.timed_out:
            raise InfraError(f"frama-c timed out after {RUN_TIMEOUT:g}s")
        output = done.stdout + done.stderr
        errors = [line for line in output.splitlines() if "rror" in line or "syntax" in line or _KERNEL_AT.match(line)]
        if done.returncode != 0 and _input_error(output, {"task.c", *_files(spec)}):
            return WPRun(False, message=" ".join(errors)[-600:] or output[-600:], seconds=done.duration)
        if any("User Error" in e for e in errors):  # about its setup (Why3 config, files), not the program:
            raise InfraError(f"frama-c failed on its environment: {output[-600:]}")  # no verdict, not cached
        report = cwd / "report.json"
        if done.returncode != 0 or not report.exists():
            raise InfraError(f"frama-c exited with {done.returncode}: {output[-600:]}")
        data = json.loads(report.read_text())
    total = valid = 0
    failed, names = [], []
    statuses: dict[str, str] = {}
    for function, goals in data.get("wp:functions", {}).items():
        for goal, stats in goals.items():
            if goal == "wp:section":
                continue
            main = stats.get("wp:main", {})
            total += main.get("total", 0)
            valid += main.get("valid", 0)
            # a call's precondition is reported under the caller with the callee's name: say both
            names.append(goal if goal.startswith(function) else f"{function}:{goal}")
            if main.get("valid", 0) < main.get("total", 0):
                failed.append(names[-1])
                statuses[names[-1]] = _prover_status(stats)
    expected = {f for f in spec["functions"]}
    if total == 0 or not expected & set(data.get("wp:functions", {})):
        raise InfraError(f"frama-c reported no goals for {sorted(expected)}")
    return WPRun(True, total, valid, sorted(failed), sorted(names), seconds=done.duration, statuses=statuses)


def _prover_status(stats: dict[str, Any]) -> str:
    """What each prover said of an unproved goal, from its report entry: "Z3:4.8.12 unknown 1; CVC5:1.0.3
    timeout 1" (the counts of its split parts that were not valid)."""
    said = []
    for prover, counts in sorted(stats.items()):
        if prover == "wp:main" or not isinstance(counts, dict):
            continue
        bad = [f"{k} {v}" for k, v in sorted(counts.items()) if k not in ("total", "valid", "rank")]
        if bad:
            said.append(f"{prover} {', '.join(bad)}")
    return "; ".join(said) or "not proved"


# A kernel message placed in a file (`[kernel] AllSomeNot.acsl:3:`, `[kernel:annot-error] task.c:22:`): parsing
# and typing. Which file it names is no matter: a `#line`, a macro or a clause can move the place Frama-C reports
# into an included file, and the input is still the candidate's (or the reference's) and nothing of the machine's.
_KERNEL_AT = re.compile(r"^\[kernel[\w:-]*\] ([\w.-]+):\d+:", re.MULTILINE)


def _input_error(output: str, names: set[str]) -> bool:
    """Whether a failed run failed on its input (a verdict on the text) rather than on its environment."""
    return bool({m[1] for m in _KERNEL_AT.finditer(output)} & names) or 'stopping on file "task.c"' in output


def view(spec: dict[str, Any]) -> list[Path]:
    """What a Frama-C run sees besides the system directories and its work directory (read-only): the
    Why3 configuration and the file that tells Frama-C's plug-in loader (findlib) where OCaml libraries
    are. Frama-C, Why3 and the provers live under /usr; the task's included files are in its work directory."""
    return [Path("/etc/ocamlfind.conf"), _why3_config()]


_FILE_NAME = re.compile(r"[A-Za-z0-9_][\w.-]*\.(h|acsl)")


def _files(spec: dict[str, Any]) -> dict[str, str]:
    """The task's included files, {name: text}; the names are plain .h/.acsl file names (an exported task
    is read from a file: a name must not reach outside the work directory)."""
    if "files" not in spec:
        raise UsageError("this ACSL task was composed by an older codewalk (its includes are folders of the "
                         "machine it was made on): walk again to compose it with its files")
    files = spec["files"]
    if bad := [name for name in files if not _FILE_NAME.fullmatch(name)]:
        raise UsageError(f"the task's included files have names that are not plain .h/.acsl names: {bad[:3]}")
    return dict(files)


def _require_tools() -> None:
    missing = [t for t in ("frama-c", "why3", "z3") if not shutil.which(t)]
    if missing:
        raise UsageError(
            f"the ACSL backend needs {', '.join(missing)} on PATH: on Debian 12, "
            "`apt-get install -y frama-c-base why3 z3 cvc5`"
        )


@cache
def _provers() -> list[str]:
    _require_tools()
    return ["z3", "cvc5"] if shutil.which("cvc5") else ["z3"]


@cache
def _versions() -> tuple[str, ...]:
    _require_tools()
    out = []
    for tool in ("frama-c", "why3", "z3", "cvc5"):
        if shutil.which(tool):
            flag = "-version" if tool == "frama-c" else "--version"
            done = subprocess.run([tool, flag], capture_output=True, text=True, timeout=60, check=False)
            first = (done.stdout or done.stderr).strip().splitlines()
            out.append(f"{tool} {first[0] if first else '?'}")
    return tuple(out)


@cache
def _why3_config() -> Path:
    """A Why3 configuration of our own (the sandbox has no HOME): detected provers plus cvc5. Workers that
    start on an empty cache at once build it under a lock, one after the other: before, two detections
    wrote the same file and the first group of a `cw walk proofs --workers 2` could fail on its config."""
    path = verdict_cache.cache_dir() / "why3" / ("-".join(_provers()) + ".conf")
    if path.exists():
        return path
    with locked(path.with_suffix(".lock")):
        if path.exists():  # built while this worker waited
            return path
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        env = {"PATH": os.environ.get("PATH", os.defpath), "WHY3CONFIG": str(tmp), "HOME": str(path.parent)}
        done = subprocess.run(["why3", "config", "detect"], env=env, capture_output=True, text=True, timeout=120,
                              check=False)
        if done.returncode != 0 or not tmp.exists():
            raise InfraError(f"`why3 config detect` failed: {done.stderr[-400:]}")
        if "cvc5" in _provers():
            with tmp.open("a") as f:
                f.write(CVC5_PROVER)
        tmp.replace(path)
    return path
