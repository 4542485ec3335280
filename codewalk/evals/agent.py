"""`inspect eval codewalk/repair_agent`: repair as the paper evaluates it (Sec. 4.1, App. A.1 and B.1).

A minimal agent loop in the style of SWE-agent: one `bash` tool, each turn one model call followed by one
command run in a fresh shell inside the task's sandbox, where x_G (c* with the test patches applied) is at
/testbed. The prompt is the paper's (App. A.1), word for word: the union F of the failing tests, "there may
be more than one independent bug", do not edit tests; it does not reveal N. The run ends when the agent
submits (`echo COMPLETE_TASK_AND_SUBMIT`, as the paper's prompt says, or the `submit` tool), or at a limit:
`turns` (100), `time_limit` (1,500 s of wall-clock time), and optionally `token_limit` and `cost_limit`
(the paper's $1.50 needs the model's prices in inspect_ai). A run that ends at a limit is a failure (Sec.
4.1: runs that exhaust their budget count as failures), with the limit recorded.

Scoring never trusts the sandbox: /testbed is copied out, its changes against a fresh x_G made on the host
become one diff of the non-test Python modules (test files the agent changed, files a test run leaves behind,
such as __pycache__, and any file but a Python module, which the grader refuses, are left out and listed), and
that diff is graded by the repair domain's V_G exactly as `cw grade` grades a prediction (`grading.verdict`: same
refusals, a fresh worktree, F and PASS_TO_PASS run by the harness). The grade is stored as `(:Grade)-[:OF]->(:Task)` with run = the eval's id (epoch k > 1:
`<eval id>.k`) and the eval id and epoch apart, one grade per attempt (`cw train export` keeps by them); the score's
metadata carries the diff, how the run ended and the verdict's evidence.

Options (`-T KEY=VALUE`): store, export, level, require_isolation, workers as for `codewalk/repair`;
runtime=local (default: bubblewrap on this machine, codewalk.evals.testbed) or docker (a container per
sample, Docker SDK); turns, time_limit, token_limit, cost_limit; command_timeout (seconds per command).
"""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path, PurePosixPath

import anyio.to_thread
from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageTool, ChatMessageUser, ModelOutput, get_model
from inspect_ai.scorer import Score, Scorer, Target, accuracy, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import Tool, ToolCallError, tool
from inspect_ai.util import (
    SandboxEnvironmentSpec,
    apply_limits,
    concurrency,
    cost_limit,
    sandbox,
    time_limit,
    token_limit,
)

from codewalk.domain import get_domain
from codewalk.domains.repair import RepairDomain
from codewalk.domains.repair.patch import is_test_path
from codewalk.domains.repair.rules import MODULES
from codewalk.errors import UsageError
from codewalk.grading import Graded, check_isolation, verdict
from codewalk.loaders.diff import patch_files
from codewalk.records import Composite
from codewalk.records import Task as CodewalkTask
from codewalk.runtime import build
from codewalk.runtime import sandbox as cw_sandbox

from .tasks import CORES, Attempts, _metrics, _task_name, _tasks, offline_mock
from .testbed import Testbed, testbed_spec

log = logging.getLogger(__name__)

# App. A.1, word for word (the extracted text's ‘x‘ quotes are Markdown backticks).
PROMPT = ("A Python repo is at /testbed (conda env `testbed` active). There are MULTIPLE bugs in the library "
          "source. These tests FAIL: {tests} Fix the source so ALL of them pass. Note there may be more than one "
          "independent bug to fix. Use the bash tool, one command per turn (fresh shell, so prefix "
          "`cd /testbed && ...`). Run tests with `cd /testbed && python -m pytest <node id> -q`. Do NOT edit "
          "tests. When all pass, run `echo COMPLETE_TASK_AND_SUBMIT`.")
SUBMIT = "COMPLETE_TASK_AND_SUBMIT"
NO_CALL = "No command was run: call the bash tool with one command (or submit when all the tests pass)."
ONE_CALL = "Not run: one command per turn; only the first tool call of a turn runs."
ENDED = "codewalk_ended"  # the TaskState store key: how the run ended
OUTPUT_CHARS = 10_000  # of a command's output shown to the model (head and tail)
# What running the tests leaves in a tree: never part of the candidate.
LEFT_BY_RUNS = ("__pycache__", ".pytest_cache")


@task(name=_task_name("repair_agent"))
def repair_agent(store: str | None = None, export: str | None = None, level: int = 0, release: str | None = None,
                 split: str | None = None, levels: str | int | None = None,
                 runtime: str = "local", turns: int = 100, time_limit: float = 1500.0,
                 token_limit: int | None = None, cost_limit: float | None = None, command_timeout: int = 180,
                 require_isolation: bool | None = None, workers: int = CORES) -> Task:
    """Fix several bugs of a repository at /testbed with one bash tool (the paper's repair agent)."""
    where = build(runtime or "local", check=False)  # the agent's sandbox: local (bubblewrap) or docker
    if turns < 1 or time_limit <= 0 or command_timeout < 1 or workers < 1:
        raise UsageError("turns, time_limit, command_timeout and workers must be positive")
    if level < 0:
        raise UsageError("level must be 1 or more (0 = all levels)")
    require = True if require_isolation is None else require_isolation
    warning = check_isolation(require, allow="-T require_isolation=false")  # V_G's runs, as cw grade
    if warning:
        log.warning(warning)
    if not where.containers and not cw_sandbox.isolated():
        raise UsageError(f"runtime=local needs bubblewrap to show the repository at /testbed "
                         f"({cw_sandbox.isolation()}); use -T runtime=docker")
    tasks = _tasks("repair", store, export, level, release, split, levels)
    samples = [Sample(id=t.id, input=prompt(t.verifier["FAIL_TO_PASS"]), target=t.reference,
                      metadata={"level": t.level, "atoms": list(t.atoms), "testbed": testbed_spec(t.verifier)})
               for t in tasks]
    record = (export is None and release is None) or store is not None
    offline_mock()
    return Task(dataset=samples, solver=repair_loop(turns, time_limit, token_limit, cost_limit, command_timeout),
                scorer=repair_verifier(tasks, store, record, workers), metrics=_metrics("repair"),
                sandbox=SandboxEnvironmentSpec(f"codewalk-{where.name}"))


def prompt(tests: list[str]) -> str:
    return PROMPT.format(tests=" ".join(tests))


# -- the agent ------------------------------------------------------------------------------------------
@tool
def bash(timeout: int) -> Tool:
    async def execute(command: str) -> str:
        """Run one bash command in a fresh shell in the task's sandbox (the repository is at /testbed).

        Args:
          command: The command to run.

        Returns:
          The command's exit code, standard output and standard error.
        """
        try:
            done = await sandbox().exec(["bash", "-c", command], timeout=timeout, timeout_retry=False)
        except TimeoutError:
            return f"The command timed out after {timeout} seconds and was killed."
        return _shown(done.returncode, done.stdout, done.stderr)

    return execute


@tool
def submit() -> Tool:
    async def execute() -> str:
        """Submit the repository as it is now: the run ends and the tests are run.

        Returns:
          A confirmation.
        """
        return "Submitted."

    return execute


def _shown(code: int, stdout: str, stderr: str) -> str:
    def cut(text: str) -> str:
        if len(text) <= OUTPUT_CHARS:
            return text
        half = OUTPUT_CHARS // 2
        return f"{text[:half]}\n[... {len(text) - OUTPUT_CHARS} characters left out ...]\n{text[-half:]}"

    return f"exit code: {code}\nstdout:\n{cut(stdout)}\nstderr:\n{cut(stderr)}"


@solver
def repair_loop(turns: int, seconds: float, tokens: int | None, dollars: float | None, command_timeout: int) \
        -> Solver:
    """Each turn one model call and at most one command; ends on submission or at a limit (recorded)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        tools = [bash(command_timeout), submit()]
        state.tools = tools
        model = get_model()
        limits = [time_limit(seconds), token_limit(tokens)] + ([cost_limit(dollars)] if dollars else [])
        state.store.set(ENDED, f"turn limit: {turns} turns without a submission")
        with apply_limits(limits, catch_errors=True) as scope:
            for _turn in range(turns):
                output = await model.generate(state.messages, tools)
                state.output = output
                state.messages.append(output.message)
                if await _act(state, output, tools):
                    state.store.set(ENDED, "submitted")
                    break
        if scope.limit_error is not None:
            error = scope.limit_error
            state.store.set(ENDED, f"{error.type} limit: {error.message}")
        return state

    return solve


async def _act(state: TaskState, output: ModelOutput, tools: list[Tool]) -> bool:
    """Run the turn's first tool call; True when the agent submitted."""
    calls = output.message.tool_calls or []
    if not calls:
        state.messages.append(ChatMessageUser(content=NO_CALL))
        return False
    submitted = False
    for k, call in enumerate(calls):
        if k > 0:
            state.messages.append(ChatMessageTool(content="", tool_call_id=call.id, function=call.function,
                                                  error=ToolCallError("unknown", ONE_CALL)))
            continue
        if call.function == "submit":
            result, submitted = await tools[1](), True
        elif call.function == "bash" and isinstance(call.arguments.get("command"), str):
            command = call.arguments["command"]
            result = await tools[0](command=command)
            stdout = result.split("\nstdout:\n", 1)[-1] if isinstance(result, str) else ""
            lines = stdout.lstrip().splitlines()
            submitted = bool(lines) and lines[0].strip() == SUBMIT
        else:
            state.messages.append(ChatMessageTool(
                content="", tool_call_id=call.id, function=call.function,
                error=ToolCallError("parsing", "call bash with a string `command`, or submit")))
            continue
        state.messages.append(ChatMessageTool(content=str(result), tool_call_id=call.id, function=call.function))
    return submitted


# -- scoring ------------------------------------------------------------------------------------------
@scorer(metrics=[accuracy()])
def repair_verifier(tasks: list[CodewalkTask], store: str | None, record: bool, workers: int) -> Scorer:
    """V_G on the diff of /testbed's non-test files, graded outside the sandbox as `cw grade` does."""
    by_id = {t.id: t for t in tasks}
    attempts = Attempts(store, record)

    async def score(state: TaskState, target: Target) -> Score:
        t = by_id[str(state.sample_id)]
        ended = state.store.get(ENDED, "the run did not finish")
        with tempfile.TemporaryDirectory(prefix="codewalk-final-") as scratch:
            final = Path(scratch) / "testbed"
            await sandbox().as_type(Testbed).export(final)  # type: ignore[type-abstract]
            async with concurrency("codewalk-repair-verifier", workers):
                diff, left_out = await anyio.to_thread.run_sync(candidate, t, final)
                if ended == "submitted":
                    graded = await anyio.to_thread.run_sync(_verdict, t, diff)
                else:  # Sec. 4.1: a run that exhausts its budget is a failure
                    graded = ("failed", f"no submission: {ended}", {"ended": ended})
        metadata = await attempts.grade(state, t, diff, graded) | {"ended": ended, "diff": diff,
                                                                    "left_out": left_out}
        status, detail, _ = graded
        if status == "error":  # no verdict: kept in the log, left out of every metric (as cw grade does)
            return Score.unscored(reason="scoring_failed", answer=diff, explanation=detail, metadata=metadata)
        return Score(value=1.0 if status == "passed" else 0.0, answer=diff, explanation=detail, metadata=metadata)

    return score


def _verdict(t: CodewalkTask, diff: str) -> Graded:
    return verdict(get_domain("repair"), Composite(t.prompt, t.reference, t.verifier), diff)


def candidate(t: CodewalkTask, final: Path) -> tuple[str, list[str]]:
    """The agent's edit: `final` (the /testbed it left) against a fresh x_G made on the host, as one diff
    of the non-test files, and the changed paths left out of it (test files, what test runs leave)."""
    v = t.verifier
    protected = set(patch_files(v["test_patch"]))
    with RepairDomain().x_g(v) as (tree, _, x_g):
        # the index takes the final tree's files (not its .git: the agent's repository is not read)
        tree.git("--work-tree", str(final), "add", "-A", "--", ".")
        changed = tree.git("--work-tree", str(final), "diff", "--cached", "--name-only", "--no-renames", "-z",
                           x_g).stdout
        paths = [p for p in changed.split("\0") if p]
        kept = [p for p in paths if not _left_out(p, protected)]
        diff = tree.git("diff", "--cached", "--binary", "--full-index", "--no-renames", "--no-color",
                        "--no-ext-diff", x_g, "--", *(f":(literal){p}" for p in kept)).stdout if kept else ""
    return diff, [p for p in paths if p not in kept]


def _left_out(path: str, protected: set[str]) -> bool:
    parts = PurePosixPath(path).parts
    # round 15a: the grader refuses a change to any file but a Python module (rules.MODULES, not_source), so an
    # agent's edit of a changelog, a data file or the configuration is left out (and listed), not its whole fix
    return (is_test_path(path) or path in protected or any(p in LEFT_BY_RUNS for p in parts)
            or not path.endswith(MODULES))
