"""`inspect eval codewalk/proofs_agent`: proof completion as the paper evaluates it (Sec. 4.1, App. B.2).

The paper runs every model in the AutoVerus scaffold: a generation phase, a refinement phase and up to 10
repair rounds fed by the verifier's errors, 16,000 tokens per call (4,096 for repair calls), 80 minutes per
task. This solver has those phases, on the task's own backend (ACSL with Frama-C/WP here; Verus where it is
installed):

- generation: one call (`max_tokens`) proposes the annotated program from the task's text;
- refinement: if that candidate does not verify, one call (`max_tokens`) rewrites its annotations, told what
  the verifier said (AutoVerus's refinement strengthens invariants generically; here it also sees the errors);
- repair: up to `rounds` calls (`repair_tokens` each), each given the current candidate and what the verifier
  said about it.
Every candidate goes through the `verify` step: the domain's own V_G (`ProofsDomain.grade`: the candidate's
annotations around the task's original step predicates and driver, the bypass guard first), whose verdict
is turned into what a person would read: the goals not proved, each with the line of the candidate it
comes from and the provers' status, or the guard's reason code and why; trimmed to `message_chars`. The run
ends when a candidate verifies, after the last repair round, or at `time_limit` (4,800 s); a run that ends
at the time limit is a failure (App. B.2: timeouts count as failures), with the limit recorded.

Scoring: the final candidate (the last one verified) is graded by V_G again on the host, in a fresh sandbox,
as `cw grade` grades a prediction (a verdict the loop computed on this host comes from the domain's verdict
cache, as in `cw grade`; one from a container is never reused), and stored as `(:Grade)-[:OF]->(:Task)` with run
`proofs_agent-<eval id>` (epoch k > 1: `.k` after it) and the eval id and epoch apart
(the prefix tells `cw grade report` the scaffold's runs from the one-call task's). The score's metadata
holds the trajectory: each round's phase, tokens, verdict, reason code and the message the model was shown.

Options (`-T KEY=VALUE`): store, export, level, require_isolation, workers as for `codewalk/proofs`;
rounds (10), time_limit (4800 s), max_tokens (16000), repair_tokens (4096), message_chars (4000);
runtime=local (the verify step in codewalk's sandbox on this host) or docker (a fresh container per call, of
an image with Frama-C, Why3 and the provers from Debian that codewalk builds: codewalk.evals.proofs_image).
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import anyio.to_thread
from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageUser, GenerateConfig, get_model
from inspect_ai.scorer import Score, Scorer, Target, accuracy, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import apply_limits, concurrency, time_limit

from codewalk.domain import get_domain
from codewalk.errors import InfraError, UsageError
from codewalk.grading import Graded, check_isolation
from codewalk.records import Composite
from codewalk.records import Task as CodewalkTask
from codewalk.runtime import Runtime, build

from .tasks import CORES, Attempts, _metrics, _task_name, _tasks, answer, offline_mock

log = logging.getLogger(__name__)

RUN_PREFIX = "proofs_agent-"  # the grades' run: `proofs_agent-<eval id>` (codewalk.report.AGENT_RUNS)
TRAJECTORY = "codewalk_trajectory"  # TaskState store keys: the rounds so far, how the run ended, the candidate
ENDED = "codewalk_ended"
FINAL = "codewalk_final"
VERIFIED = "verified"

LANGUAGE = {"acsl": "ACSL-annotated C, checked by `frama-c -wp -wp-rte`", "verus": "Verus (Rust), checked by `verus`"}
# AutoVerus's prompts (App. A.4 quotes the generation prompt's first lines), for the task's language.
GENERATION = (
    "Your mission is to add the proof annotations to the given program ({language}) so that the verifier "
    "proves every goal: the functions' postconditions, the loop invariants (with loop assigns and loop "
    "variants for ACSL, decreases for Verus) and any assertion a proof needs. The step predicates and "
    "chain_driver state what each function must do; they are fixed. Respond with the whole annotated "
    "program only, do not include any explanation. You should never change or delete existing code, "
    "requires clauses, the step predicates or the driver.\n\n{program}")
REFINEMENT = (
    "The annotated program below ({language}) does not verify yet; the verifier's messages follow it. Refine "
    "its annotations: keep those that prove; make each loop invariant inductive (bounds of the loop index, "
    "what the loop has done so far to every array it reads or writes, the values that stay fixed), give every "
    "loop its loop assigns and a variant, and state each function's postcondition strongly enough for the "
    "asserts of chain_driver to follow. Respond with the whole annotated program only, do not include any "
    "explanation. Never change or delete existing code, requires clauses, the step predicates or the driver."
    "\n\n{program}\n\nVerifier messages:\n{messages}")
REPAIR = (
    "The annotated program below ({language}) fails to verify; the verifier's messages follow it. Fix the "
    "annotations so that the failing goals prove. Respond with the whole annotated program only, do not "
    "include any explanation. Never change or delete existing code, requires clauses, the step predicates "
    "or the driver.\n\n{program}\n\nVerifier messages:\n{messages}")
FENCED = re.compile(r"```[^\n`]*\n(.*?)```", re.DOTALL)


@task(name=_task_name("proofs_agent"))
def proofs_agent(store: str | None = None, export: str | None = None, level: int = 0, runtime: str = "local",
                 rounds: int = 10, time_limit: float = 4800.0, max_tokens: int = 16_000, repair_tokens: int = 4_096,
                 message_chars: int = 4_000, require_isolation: bool | None = None, workers: int = CORES) -> Task:
    """Complete a chained program's proof in generation, refinement and repair rounds fed by the verifier
    (the paper's AutoVerus scaffold, App. B.2)."""
    if rounds < 0 or time_limit <= 0 or min(max_tokens, repair_tokens, message_chars, workers) < 1:
        raise UsageError("rounds must be 0 or more; time_limit, max_tokens, repair_tokens, message_chars and "
                         "workers must be positive")
    if level < 0:
        raise UsageError("level must be 1 or more (0 = all levels)")
    where = build(runtime or "local")  # docker: RuntimeUnavailable now when no daemon answers
    require = True if require_isolation is None else require_isolation
    warning = check_isolation(require, allow="-T require_isolation=false")  # V_G's runs, as cw grade
    if warning:
        log.warning(warning)
    tasks = _tasks("proofs", store, export, level)
    if where.containers and (verus := [t.id for t in tasks if t.verifier.get("backend") != "acsl"]):
        raise UsageError(f"runtime=docker verifies ACSL tasks only (its image has Frama-C, not Verus): "
                         f"{len(verus)} Verus task(s), first {verus[0]}; use runtime=local where Verus is installed")
    samples = [Sample(id=t.id, input=GENERATION.format(language=_language(t), program=t.prompt),
                      target=t.reference, metadata={"level": t.level, "atoms": list(t.atoms)}) for t in tasks]
    record = export is None or store is not None
    check = verifier_for(where)  # docker: the image is built here, before any sample's clock starts
    offline_mock()
    limits = Limits(rounds, time_limit, max_tokens, repair_tokens, message_chars)
    return Task(dataset=samples, solver=proof_loop(tasks, limits, check, workers),
                scorer=proofs_verifier(tasks, store, record, workers), metrics=_metrics("proofs"))


@dataclass(frozen=True)
class Limits:
    rounds: int  # repair rounds after refinement
    seconds: float
    max_tokens: int  # per generation and refinement call
    repair_tokens: int  # per repair call
    message_chars: int  # of the verifier's messages shown to the model


def _language(t: CodewalkTask) -> str:
    return LANGUAGE.get(t.verifier.get("backend", ""), "the task's language")


# -- the verify step --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Verdict:
    status: str  # passed, failed, error (no verdict)
    reason: str  # the grade's reason code ("" when it has none: a failed proof, a pass)
    detail: str
    evidence: dict[str, Any]

    @property
    def graded(self) -> Graded:
        evidence = {**self.evidence, "reason": self.reason} if self.reason else self.evidence
        return self.status, self.detail, evidence


Check = Callable[[Composite, str], Verdict]


def grade_here(composite: Composite, candidate: str) -> Verdict:
    """The domain's V_G on this host (codewalk's sandbox): `ProofsDomain.grade`, as `cw grade` runs it."""
    try:
        check = get_domain("proofs").grade(composite, candidate)
    except InfraError as e:
        return Verdict("error", "", f"no verdict: {e}", {})
    return Verdict("passed" if check.ok else "failed", str(check.reason or ""), check.detail, check.evidence)


def verifier_for(where: Runtime) -> Check:
    """Where the loop's verify step runs: this host's sandbox, or a fresh container per call (docker)."""
    if where.containers:
        from .proofs_image import ensure_image, grade_in_container  # the docker SDK only when asked for

        ensure_image()

        def in_container(composite: Composite, candidate: str) -> Verdict:
            return Verdict(**grade_in_container(composite, candidate))

        return in_container
    return grade_here


def messages(verdict: Verdict, composite: Composite, candidate: str, budget: int) -> str:
    """What a person would read of a verdict: the goals not proved, each with where it comes from in the
    candidate and the provers' status, or why the candidate was refused before any prover ran."""
    if verdict.status == "passed":
        return f"Verified: {verdict.detail}"
    if verdict.status == "error":
        return f"The verifier gave no verdict: {verdict.detail}"
    wp = verdict.evidence.get("wp")
    if verdict.reason and not wp:  # refused by the guard, no prover ran
        text = f"Refused before any prover ran ({verdict.reason}): {verdict.detail}"
    elif composite.verifier.get("backend") == "acsl" and isinstance(wp, dict):
        text = _wp_messages(verdict, wp, composite, candidate)
    else:
        text = f"Not verified{f' ({verdict.reason})' if verdict.reason else ''}: {verdict.detail}"
    return _trim(text, budget)


def _wp_messages(verdict: Verdict, wp: dict[str, Any], composite: Composite, candidate: str) -> str:
    from codewalk.domains.proofs import acsl

    provers = " and ".join(acsl._provers())
    lines = [f"Frama-C/WP proved {wp.get('proved', 0)} of {wp.get('goals', 0)} goals."]
    if verdict.reason:  # failed for a reason of its own (a goal of the task missing, \\false derivable)
        lines[0] += f" Not accepted ({verdict.reason}): {verdict.detail}"
    unproved = list(wp.get("unproved", []))
    status = wp.get("status") or {}  # each prover's word on a goal, where the run recorded it
    if unproved:
        lines.append(f"Goals not proved by {provers} ({acsl.WP_STEPS:,} steps per goal and prover):")
        functions = list(composite.verifier.get("functions", []))
        lines += [f"- {goal}: {where_in(goal, functions, candidate)}"
                  f" [{status.get(goal, 'unknown or timeout')}]" for goal in unproved]
    if missing := verdict.evidence.get("missing"):
        lines.append("Goals the task asks for that the run did not have (a postcondition or a loop variant "
                     "is missing):")
        lines += [f"- {goal}" for goal in missing]
    return "\n".join(lines)


_KIND_WORDS = {"loop_invariant": "loop invariant", "loop_assigns": "loop assigns", "loop_variant": "loop variant",
               "ensures": "ensures", "assert": "assert", "assigns": "assigns", "requires": "requires",
               "exits": "exits", "terminates": "terminates"}
_SUFFIXES = ("established", "preserved", "decrease", "positive", "part")


def where_in(goal: str, functions: list[str], candidate: str) -> str:
    """Where a WP goal comes from in the candidate: `line N: <text>` when it can be placed (a labelled
    clause, a call of the driver), else the function's lines."""
    lines = candidate.splitlines()
    caller, _, callee = goal.partition(":")
    name = caller if callee else next((f for f in sorted(functions, key=len, reverse=True)
                                       if goal.startswith(f + "_")), "")
    span = _function_lines(lines, name) if name else None
    if span is None:
        return "not placed in the program"
    start, end = span
    if callee:  # a call's precondition: the call in the caller
        called = next((f for f in sorted(functions, key=len, reverse=True) if callee.startswith(f + "_")), "")
        at = next((k for k in range(start, end + 1) if called and re.search(rf"\b{called}\s*\(", lines[k])), None)
        what = "a precondition of this call"
    else:
        rest = goal[len(name) + 1:]
        kind = next((k for k in _KIND_WORDS if rest == k or rest.startswith(k + "_")), "")
        label = [w for w in rest[len(kind):].strip("_").split("_")
                 if w and not w.isdigit() and w not in _SUFFIXES and not re.fullmatch(r"part\d+", w)]
        at = None
        if kind and label and label[0] != "rte":  # a labelled clause: `loop invariant bound: ...`
            pattern = re.compile(rf"\b{re.escape(_KIND_WORDS[kind])}\s+{re.escape('_'.join(label))}\s*:")
            at = next((k for k in range(start, end + 1) if pattern.search(lines[k])), None)
        elif kind and not label:  # an unlabelled one: the first clause of that kind (`assigns a[0..n-1];`)
            pattern = re.compile(rf"^\s*(?:/\*@|//@)?\s*{re.escape(_KIND_WORDS[kind])}\b")
            at = next((k for k in range(start, end + 1) if pattern.match(lines[k])), None)
        what = "a run-time error check (rte)" if "rte" in label else (_KIND_WORDS.get(kind) or "a goal")
    if at is None:
        return f"{what} of {name}() (lines {start + 1}-{end + 1})"
    return f"{what}, line {at + 1}: {lines[at].strip()[:160]}"


def _function_lines(lines: list[str], name: str) -> tuple[int, int] | None:
    """The lines (0-based, inclusive) of a function's contract and body in a program."""
    head = re.compile(rf"^\S.*\b{re.escape(name)}\s*\([^;]*$")
    at = next((k for k, line in enumerate(lines) if head.match(line)), None)
    if at is None:
        return None
    start = at
    if start > 0 and lines[start - 1].rstrip().endswith("*/"):  # its contract
        start = next((k for k in range(start - 1, -1, -1) if "/*@" in lines[k]), start)
    end = next((k for k in range(at + 1, len(lines)) if lines[k].startswith("}")), len(lines) - 1)
    return start, end


def _trim(text: str, budget: int) -> str:
    if len(text) <= budget:
        return text
    return f"{text[:budget]}\n[... {len(text) - budget} more characters of verifier messages left out ...]"


def program(completion: str) -> str:
    """The program in a model's answer: the answer without one fence around it (tasks.answer), or, when the
    model wrote prose around its code, the longest fenced block."""
    text = answer(completion)
    blocks = FENCED.findall(text)
    return max(blocks, key=len) if blocks and "```" in text else text


# -- the loop -----------------------------------------------------------------------------------------------
@solver
def proof_loop(tasks: list[CodewalkTask], limits: Limits, check: Check, workers: int) -> Solver:
    """Generation, refinement, then repair rounds; each candidate verified; ends on success or at a limit."""
    by_id = {t.id: t for t in tasks}

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        t = by_id[str(state.sample_id)]
        composite = Composite(t.prompt, t.reference, t.verifier)
        model = get_model()
        rounds: list[dict[str, Any]] = []
        state.store.set(TRAJECTORY, rounds)
        state.store.set(ENDED, f"round limit: {limits.rounds} repair rounds without a verified candidate")
        with apply_limits([time_limit(limits.seconds)], catch_errors=True) as scope:
            candidate, said = "", ""
            for k in range(limits.rounds + 2):
                phase = "generation" if k == 0 else "refinement" if k == 1 else "repair"
                if k == 0:
                    prompt: list[ChatMessage] = list(state.messages)
                else:
                    template = REFINEMENT if phase == "refinement" else REPAIR
                    prompt = [ChatMessageUser(content=template.format(language=_language(t), program=candidate,
                                                                       messages=said))]
                    state.messages.append(prompt[0])
                tokens = limits.repair_tokens if phase == "repair" else limits.max_tokens
                output = await model.generate(prompt, config=GenerateConfig(max_tokens=tokens))
                state.output = output
                state.messages.append(output.message if isinstance(output.message, ChatMessageAssistant)
                                      else ChatMessageAssistant(content=output.completion))
                candidate = program(output.completion)
                state.store.set(FINAL, candidate)
                started = time.monotonic()
                async with concurrency("codewalk-proofs-verifier", workers):
                    verdict = await anyio.to_thread.run_sync(check, composite, candidate)
                said = messages(verdict, composite, candidate, limits.message_chars)
                usage = output.usage
                rounds.append({"round": k, "phase": phase, "max_tokens": tokens,
                               "tokens": {"input": usage.input_tokens, "output": usage.output_tokens,
                                          "total": usage.total_tokens} if usage else None,
                               "status": verdict.status, "reason": verdict.reason, "message": said,
                               "verifier_seconds": round(time.monotonic() - started, 2)})
                state.store.set(TRAJECTORY, rounds)
                if verdict.status == "passed":
                    state.store.set(ENDED, VERIFIED)
                    break
                if verdict.status == "error":
                    state.store.set(ENDED, f"verifier error: {verdict.detail}")
                    break
        if scope.limit_error is not None:
            error = scope.limit_error
            state.store.set(ENDED, f"{error.type} limit: {error.message}")
        return state

    return solve


# -- scoring ------------------------------------------------------------------------------------------------
@scorer(metrics=[accuracy()])
def proofs_verifier(tasks: list[CodewalkTask], store: str | None, record: bool, workers: int) -> Scorer:
    """V_G on the final candidate, on the host in a fresh sandbox, stored as `cw grade` stores a grade."""
    by_id = {t.id: t for t in tasks}
    attempts = Attempts(store, record, prefix=RUN_PREFIX)

    async def score(state: TaskState, target: Target) -> Score:
        t = by_id[str(state.sample_id)]
        ended = state.store.get(ENDED, "the run did not finish")
        final = state.store.get(FINAL, "")
        rounds: list[dict[str, Any]] = state.store.get(TRAJECTORY, [])
        if ended.startswith("time limit"):  # App. B.2: timeouts count as failures
            verdict = Verdict("failed", "", f"no verdict sought: {ended}", {"ended": ended})
        else:
            async with concurrency("codewalk-proofs-verifier", workers):
                verdict = await anyio.to_thread.run_sync(grade_here, Composite(t.prompt, t.reference, t.verifier),
                                                         final)
        tokens = sum((r["tokens"] or {}).get("total", 0) for r in rounds)
        metadata = await attempts.grade(state, t, final, verdict.graded) | {
            "reason": verdict.reason, "ended": ended, "verifier_calls": len(rounds),
            "repair_rounds": sum(r["phase"] == "repair" for r in rounds), "tokens": tokens, "trajectory": rounds}
        if verdict.status == "error":  # no verdict: kept in the log, left out of every metric (as cw grade does)
            return Score.unscored(reason="scoring_failed", answer=final, explanation=verdict.detail,
                                  metadata=metadata)
        return Score(value=1.0 if verdict.status == "passed" else 0.0, answer=final, explanation=verdict.detail,
                     metadata=metadata)

    return score


def verdict_json(verdict: Verdict) -> str:
    """A verdict as the container's verify step prints it (codewalk.evals.proofs_image reads it back)."""
    return json.dumps(asdict(verdict), default=str)
