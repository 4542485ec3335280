"""CodeComplex atoms: an extracted function is kept only if it reproduces the original program's
output on generated inputs (both run in the sandbox); it is then measured (measure.py) and the atom
rule (label_rule) sets its label from the cost. `verify_cached` remembers the outcome by content, so a
repeated load costs file reads."""

from __future__ import annotations

import ast
import hashlib
import json
import os
import random
import sys
import tempfile
from dataclasses import dataclass
from typing import Any

from codewalk import paths
from codewalk.errors import InfraError
from codewalk.loaders.codecomplex import Program

from . import growth, run
from .extract import extract
from .inputs import STRATEGIES, generate
from .measure import Measurement, measure, round_error
from .reads import Unsupported

CHECK_SCALES = (1, 2, 4, 7, 12)  # inputs on which the function must reproduce the program
MIN_CHECKS = 4  # a slow program may stop early, but not before this many agree
PROGRAM_TIMEOUT = 3.0  # seconds per original run


@dataclass(frozen=True)
class Drop:
    program: str
    reason: str
    detail: str


def measured(program: Program) -> tuple[dict[str, Any], dict[str, Any]] | Drop:
    """Extract, check the function against the program on generated inputs, and measure its output size
    and cost (the runs; no fit). Returns (summary, payload) with the CodeComplex label, or a Drop."""
    try:
        ex = extract(program.src)
    except Unsupported as e:
        return Drop(program.id, e.reason, e.detail)
    except RecursionError:
        return Drop(program.id, "too_deep", "the syntax tree is too deep to rewrite")
    payload = ex.as_payload()
    failure = ""
    for strategy in STRATEGIES:
        rng = random.Random(f"{program.id}/{strategy.name}")
        samples: list[tuple[str, list[Any], str]] = []  # (stdin, arguments, the program's output)
        for scale in CHECK_SCALES:
            stdin, args = generate(payload, scale, strategy.name, rng)
            done = run.run_program(program.src, stdin, PROGRAM_TIMEOUT)
            if not done.ok:
                if done.detail != "timeout":
                    failure = f"{strategy.name} scale {scale}: {done.detail}"
                    samples = []
                break
            samples.append((stdin, args, done.stdout))
        if len(samples) >= MIN_CHECKS and any(out.strip() for *_, out in samples):
            break
        failure = failure or f"{strategy.name}: fewer than {MIN_CHECKS} runs in time, or no output"
    else:
        return Drop(program.id, "no_valid_input", failure)
    try:
        results = run.run_calls(ex.source, ex.entry, [args for _, args, _ in samples], form=ex.out_form,
                                text=True, limit=2 * PROGRAM_TIMEOUT, budget=60.0)
    except InfraError as e:  # the interpreter died (a C stack overflow, say): nothing to compare
        return Drop(program.id, "entry_crashes", str(e)[:200])
    types = set()
    for (stdin, _, expected), result in zip(samples, results):
        if "text" not in result:
            return Drop(program.id, "entry_fails", f"{result.get('error', 'timeout')} on {stdin[:60]!r}")
        if not run.same_output(result["text"], expected):
            return Drop(program.id, "output_mismatch",
                        f"{result['text'][:40]!r} != {expected[:40]!r} on {stdin[:60]!r}")
        types.add(result["type"])
    if len(results) < len(samples):
        return Drop(program.id, "entry_fails", "the function overran a run the program finished")
    out_type = _merge_types(types)
    if out_type is None:
        return Drop(program.id, "output_type", f"returns {', '.join(sorted(types))}")
    m = measure(payload, strategy.name, ex.source, ex.entry, program.id)
    ptype = ex.params[ex.size][1]
    signature = ", ".join(f"{n}: {t}" for n, t in ex.params)
    summary = {"title": f"{ex.entry}({signature}) -> {out_type}", "in_type": ptype, "out_type": out_type,
               "label": program.label, "source": program.id}
    payload |= {"source": _annotate(ex.source, ex.entry, out_type), "out_type": out_type,
                "strategy": strategy.name, "growth_points": m.output_points, "cost_points": m.cost_points,
                "stopped": m.stopped}
    return summary, payload


def verify(program: Program) -> tuple[dict[str, Any], dict[str, Any]] | Drop:
    """Extract, check the function against the program on generated inputs, measure its output size
    and cost, and apply the atom rule. Returns (summary, payload) of the atom, or why it was dropped."""
    return classify(measured(program))


def classify(result: tuple[dict[str, Any], dict[str, Any]] | Drop) -> tuple[dict[str, Any], dict[str, Any]] | Drop:
    """Fit a measured atom's points and apply the atom rule (cheap: no run, so a cached measurement is
    classified again by the current fitter)."""
    if isinstance(result, Drop):
        return result
    summary, payload = result
    m = Measurement.of(payload["growth_points"], payload["cost_points"], payload["stopped"])
    stated = summary["label"]
    rule, label, why = label_rule(stated, m)
    if rule == "dropped":
        return Drop(summary["source"], why, f"labelled {stated}; " + _cost_text(m))
    g = m.output
    payload = {k: v for k, v in payload.items() if k not in ("cost_points", "stopped")}
    payload |= {"growth": growth.label(g) if g else None, "growth_error": round_error(m.output_error),
                "stated_label": stated, "label_rule": rule, "cost": m.cost_evidence()}
    return {**summary, "label": label}, payload


def label_rule(stated: str, measured: Measurement) -> tuple[str, str, str]:
    """The atom rule: an atom's label is its measured cost class. Kept when that is its CodeComplex
    label, relabelled when it is another of the seven labels, dropped when the cost fits no class
    (reason cost_unmeasured) or one no label names, like (log n)^2 (reason cost_unlabelled).
    Returns (rule, label, reason)."""
    if measured.cost is None:
        return "dropped", "", "cost_unmeasured"
    label = growth.label(measured.cost)
    if label is None:
        return "dropped", "", "cost_unlabelled"
    return ("kept" if label == stated else "relabelled"), label, ""


def _cost_text(m: Measurement) -> str:
    largest = m.cost_points[-1][0] if m.cost_points else None
    at = f" over {len(m.cost_points)} sizes up to n = 2^{largest:g}" if largest is not None else ""
    fitted = f"fits {m.cost}" if m.cost else "fits no class"
    return f"the counted cost {fitted}{at} (stopped: {m.stopped})"


def _merge_types(types: set[str]) -> str | None:
    """One type for every result; an empty list takes the element type of the others."""
    lists = {t for t in types if t.startswith("list[")}
    if types <= {"list"} | lists and len(lists) <= 1:
        return lists.pop() if lists else None
    return types.pop() if len(types) == 1 and types <= {"int", "str", "bool", "float"} else None


def _annotate(source: str, entry: str, out_type: str) -> str:
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == entry:
            node.returns = ast.parse(out_type, mode="eval").body
    return ast.unparse(tree)


# Part of the cache key: change it whenever extraction, the inputs or the measurement change what an
# atom comes out as.
MEASURE_VERSION = "atoms-5 counted cost, 60 s nets"


def verify_cached(program: Program) -> tuple[dict[str, Any], dict[str, Any]] | Drop:
    """`verify`, with the measurement remembered by content (program text, label, id, this module's
    version, Python's version) in the complexity cache folder, so a repeated load costs file reads and
    fits. Counted costs are deterministic, so a cached measurement is the one a new run would give."""
    digest = hashlib.sha256(json.dumps([MEASURE_VERSION, sys.version_info[:2], program.id, program.label,
                                        program.src]).encode()).hexdigest()
    path = paths.cache("complexity") / "atoms" / digest[:2] / f"{digest}.json"
    try:
        saved = json.loads(path.read_text())
        return classify(Drop(*saved["drop"]) if "drop" in saved else (saved["summary"], saved["payload"]))
    except (OSError, ValueError, KeyError, TypeError):  # absent, or a torn write: measure again
        pass
    result = measured(program)
    if isinstance(result, Drop) and result.reason in ("entry_crashes",):
        return result  # the interpreter died: an infrastructure failure, tried again next time
    saved = {"drop": [result.program, result.reason, result.detail]} if isinstance(result, Drop) else \
        {"summary": result[0], "payload": result[1]}
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp") as f:
        json.dump(saved, f)  # write, then rename: a parallel worker never reads half a file
    os.replace(f.name, path)
    return classify(result)


def build(programs: list[Program], workers: int = 1,
          progress: Any = None) -> tuple[list[tuple[Program, dict[str, Any], dict[str, Any]]], list[Drop]]:
    """Verify every program, `workers` at a time; kept atoms and drops come back in program order."""
    from codewalk.staging import StagedPool

    results: list[Any]
    if workers <= 1:
        results = []
        for program in programs:
            results.append(verify_cached(program))
            if progress:
                progress(program, results[-1])
    else:
        with StagedPool(workers) as pool:
            results = []
            for program, result in zip(programs, pool.map(verify_cached, programs, chunksize=1)):
                results.append(result)
                if progress:
                    progress(program, result)
    kept = [(p, *r) for p, r in zip(programs, results) if not isinstance(r, Drop)]
    return kept, [r for r in results if isinstance(r, Drop)]
