"""The demo domain: chains of tiny typed Python functions, each with one seeded bug.

An atom is a function with a contract: `pre` over its input x, `post` over x and its result y. FEEDS
links a to b when a's return type is b's parameter type. A level-N task is one module holding the N
buggy functions renamed stage_1..stage_N; the reference is the same module with the fixed functions.
V_G runs the stages in turn on the first atom's example inputs and checks every stage's pre and post on
the values that actually flowed. Both steps run for real, each in its own sandboxed interpreter: the
first executes the candidate and only records values; the second, which never sees candidate code,
decides. A timeout or a crash of either is an InfraError (no verdict), never a failure.
"""

from __future__ import annotations

import ast
import functools
import json
import logging
import sys
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from codewalk.domain import Domain, Settings
from codewalk.errors import InfraError
from codewalk.loaders import demo as loader
from codewalk.records import Atom, Check, Composite, Edge
from codewalk.runtime import sandbox

log = logging.getLogger(__name__)

HEADER = (
    '"""Fix the bugs so that pipeline(x) meets every stage\'s contract: given an x that satisfies its pre,\n'
    "each stage_i must return a y that satisfies its post (and the next stage's pre).\n"
    'Keep the function names and signatures."""'
)

# Runs in the sandbox together with candidate code. For each job it executes the module, calls
# stage_1..stage_n on every input and records the value after each stage, or what the stage raised.
# It decides nothing. The candidate's own prints go to stderr so they cannot garble the trace.
TRACE = r'''
import json, os, sys
sys.set_int_max_str_digits(0)  # a big int is a value like any other, not a reason to crash
channel = os.fdopen(os.dup(1), "w")  # the trace's own copy of stdout
os.dup2(2, 1)
sys.stdout = sys.stderr

def plain(v):
    # Copies a value made only of what the demo types are made of; a tuple or a bool is reported, not coerced.
    if type(v) in (int, str):
        return v
    if type(v) is list:
        return [plain(e) for e in v]
    raise TypeError(f"a {type(v).__name__}")

def trace(job):
    space = {"__name__": "candidate"}
    try:
        exec(compile(job["source"], "candidate.py", "exec"), space)
    except MemoryError:
        raise  # running out of memory, like a timeout, gives no verdict
    except BaseException as e:
        return {"module": f"raised {type(e).__name__}"}
    stages = [space.get(f"stage_{i}") for i in range(1, job["n"] + 1)]
    if not all(callable(stage) for stage in stages):
        return {"module": f"does not define stage_1..stage_{job['n']}"}
    runs = []
    for value in job["inputs"]:
        x, values, error = plain(value), [value], None
        for i, stage in enumerate(stages, 1):
            try:
                x = stage(x)
            except MemoryError:
                raise
            except BaseException as e:
                error = {"stage": i, "raised": type(e).__name__}
                break
            try:
                values.append(plain(x))  # a copy: later stages cannot change what was recorded
            except (TypeError, RecursionError) as e:
                error = {"stage": i, "returned": str(e)}
                break
        runs.append({"values": values, "error": error})
    return {"runs": runs}

json.dump([trace(job) for job in json.load(sys.stdin)], channel)
channel.close()
'''

# Runs in a second sandbox and never sees candidate code: only the recorded JSON values and the
# contracts. For each input it reports the first broken condition: which stage, pre or post, and why.
CHECK = r'''
import json, sys
sys.set_int_max_str_digits(0)

def is_a(v, t):
    if t == "int" or t == "str":
        return type(v) is {"int": int, "str": str}[t]
    return type(v) is list and all(is_a(e, t[5:-1]) for e in v)

def broken(expr, env):
    try:
        return None if eval(expr, dict(env)) else "is false"
    except Exception as e:
        return f"raised {type(e).__name__}"

def show(v):
    text = json.dumps(v)
    return text if len(text) <= 120 else text[:117] + "..."

def failure(stages, value, run):
    values, error = run["values"], run["error"]
    if values[0] != value:
        return 1, "pre", f"the recorded run does not start at the input {show(value)}"
    for i, stage in enumerate(stages, 1):
        x = values[i - 1]
        if not is_a(x, stage["in_type"]):
            return i, "pre", f"x = {show(x)} is not a {stage['in_type']}"
        if why := broken(stage["pre"], {"x": x}):
            return i, "pre", f"pre `{stage['pre']}` {why} for x = {show(x)}"
        if len(values) == i:
            what = f"raised {error['raised']}" if "raised" in error else f"returned {error['returned']}"
            return i, "raised", f"stage_{i} {what} for x = {show(x)}"
        y = values[i]
        if not is_a(y, stage["out_type"]):
            return i, "post", f"y = {show(y)} is not a {stage['out_type']}"
        if why := broken(stage["post"], {"x": x, "y": y}):
            return i, "post", f"post `{stage['post']}` {why} for x = {show(x)}, y = {show(y)}"
    return None

verdicts = []
for job in json.load(sys.stdin):
    if "module" in job["trace"]:
        verdicts.append([{"input": None, "stage": None, "condition": "module",
                          "detail": "the module " + job["trace"]["module"]}])
        continue
    failures = []
    for k, (value, run) in enumerate(zip(job["inputs"], job["trace"]["runs"], strict=True)):
        if found := failure(job["stages"], value, run):
            stage, condition, detail = found
            failures.append({"input": k, "stage": stage, "condition": condition, "detail": detail})
    verdicts.append(failures)
json.dump(verdicts, sys.stdout)
'''


class DemoDomain(Domain):
    name = "demo"
    relation = "FEEDS"
    composer_version = "demo-1"
    data_source = "codewalk's built-in demo catalogue (loaders/demo_atoms.jsonl, MIT)"
    description = "Chains of tiny typed Python functions with one seeded bug each; graded by running them."
    timeout = 10.0  # seconds for each sandboxed interpreter

    def __init__(self, settings: Settings | None = None) -> None:
        super().__init__(settings)
        # (module source, verifier spec) -> failures: the same module under the same spec always gets the
        # same verdict, so admission runs Ref(G) and every check (1) module in one pair of interpreters.
        self._verdicts: dict[str, list[dict[str, Any]]] = {}

    def load(self, source: Path, options: dict[str, str]) -> Iterator[Atom]:
        """Keep an atom only if, run as a level-1 task, its fixed version passes and its buggy one fails."""
        atoms = loader.read(Path(source))
        jobs = []
        for atom in atoms:
            single = self.compose([atom])
            jobs += [(single.reference, single.verifier), (single.prompt, single.verifier)]
        verdicts = self._verify(jobs)  # two interpreters for the whole catalogue
        for atom, fixed, buggy in zip(atoms, verdicts[0::2], verdicts[1::2]):
            if fixed:
                log.warning("dropped %s: the fixed version fails: %s", atom.id, fixed[0]["detail"])
            elif not buggy:
                log.warning("dropped %s: the buggy version passes every example", atom.id)
            else:
                yield atom

    def edges(self, atoms: Sequence[Atom]) -> Iterable[Edge]:
        by_in_type: dict[str, list[Atom]] = defaultdict(list)
        for atom in atoms:
            by_in_type[atom.summary["in_type"]].append(atom)
        for src in atoms:
            for dst in by_in_type[src.summary["out_type"]]:
                if dst.id != src.id:
                    yield Edge(src.id, dst.id, "FEEDS", arg=0)

    def compose(self, atoms: Sequence[Atom]) -> Composite:
        return Composite(
            prompt=_module(atoms, ["buggy"] * len(atoms)),
            reference=_module(atoms, ["fixed"] * len(atoms)),
            verifier={
                "inputs": atoms[0].payload["examples"],
                "stages": [
                    {"in_type": atom.summary["in_type"], "out_type": atom.summary["out_type"],
                     "pre": atom.payload["pre"], "post": atom.payload["post"]}
                    for atom in atoms
                ],
            },
        )

    def check_reference(self, composite: Composite, atoms: Sequence[Atom]) -> Check:
        # The modules check (1) will grade come along: two interpreters per group, not 2 (N + 1). The memo
        # holds one group's verdicts only.
        self._verdicts.clear()
        self._verify([(source, composite.verifier) for source in (composite.reference, *self._one_buggy(atoms))])
        return self.grade(composite, composite.reference)

    def check_unsolved(self, composite: Composite, atoms: Sequence[Atom], position: int) -> Check:
        """position is 0-based. Every other stage is fixed; the atom is unsolved iff V_G still fails."""
        verdict = self.grade(composite, self._one_buggy(atoms)[position])
        stage = f"stage_{position + 1} ({atoms[position].id})"
        if verdict.ok:
            return Check(False, f"{stage} is already solved: no input triggers its bug", verdict.evidence)
        return Check(True, f"{stage} is unsolved: {verdict.detail}", verdict.evidence)

    def grade(self, composite: Composite, candidate: str) -> Check:
        """V_G: pass iff on every input each stage got an x meeting its pre, did not raise, met its post."""
        failures = self._verify([(candidate, composite.verifier)])[0]
        inputs = len(composite.verifier["inputs"])
        evidence = {"inputs": inputs, "failures": failures}
        if not failures:
            return Check(True, f"all {inputs} inputs meet every stage's pre and post", evidence)
        first = failures[0]
        where = "" if first["input"] is None else f"input {first['input']}, stage_{first['stage']}: "
        return Check(False, where + first["detail"], evidence)

    @staticmethod
    def _one_buggy(atoms: Sequence[Atom]) -> list[str]:
        """For each position, the module with that stage buggy and every other stage fixed."""
        return [_module(atoms, ["buggy" if k == i else "fixed" for k in range(len(atoms))])
                for i in range(len(atoms))]

    # -- running --------------------------------------------------------------------------------
    def _verify(self, jobs: list[tuple[str, dict[str, Any]]]) -> list[list[dict[str, Any]]]:
        """For each (module source, verifier spec): the failures found, one per failing input."""
        keys = [json.dumps([source, spec], sort_keys=True) for source, spec in jobs]
        todo = {key: job for key, job in zip(keys, jobs) if key not in self._verdicts}
        if todo:
            self._verdicts.update(zip(todo, self._run(list(todo.values()))))
        return [self._verdicts[key] for key in keys]

    def _run(self, jobs: list[tuple[str, dict[str, Any]]]) -> list[list[dict[str, Any]]]:
        traces = self._interpret(TRACE, "candidate run", [
            {"source": source, "n": len(spec["stages"]), "inputs": spec["inputs"]} for source, spec in jobs
        ])
        if not (isinstance(traces, list) and len(traces) == len(jobs)):
            raise InfraError(f"candidate run returned a malformed trace for {len(jobs)} job(s)")
        return self._interpret(CHECK, "contract check", [
            {"stages": spec["stages"], "inputs": spec["inputs"], "trace": trace}
            for (_, spec), trace in zip(jobs, traces)
        ])

    def _interpret(self, program: str, what: str, payload: Any) -> Any:
        # -I: isolated mode (no PYTHON* variables, no user site, nothing from the working directory on
        # sys.path). -S: no site-packages either; the demo needs only the standard library, and skipping
        # site halves the interpreter's start-up.
        with sandbox.workdir() as cwd:
            done = sandbox.run([sys.executable, "-I", "-S", "-c", program], cwd=cwd, timeout=self.timeout,
                               stdin=json.dumps(payload), sees=sandbox.python_runtime())
        if done.timed_out:
            raise InfraError(f"{what} timed out after {self.timeout:g}s")
        if done.returncode != 0:
            raise InfraError(f"{what} exited with {done.returncode}: {done.stderr[-500:]}")
        try:
            return json.loads(done.stdout)
        except ValueError:
            raise InfraError(f"{what} printed no JSON: {done.stdout[:200]!r}") from None


def _module(atoms: Sequence[Atom], versions: Sequence[str]) -> str:
    """One module: the header, each atom's chosen version as stage_i, and pipeline(x) chaining them."""
    parts = [HEADER]
    call = "x"
    for i, (atom, version) in enumerate(zip(atoms, versions), 1):
        parts.append(_stage(atom, version, i))
        call = f"stage_{i}({call})"
    parts.append(f"def pipeline(x):\n    return {call}")
    return "\n\n\n".join(parts) + "\n"


def _stage(atom: Atom, version: str, i: int) -> str:
    """The atom's function renamed to stage_i (recursive calls too), typed, with its contract as docstring."""
    s, p = atom.summary, atom.payload
    return _stage_text(s["title"], p[version], s["in_type"], s["out_type"], p["pre"], p["post"], i)


@functools.lru_cache(maxsize=4096)  # a worker composes the same stage again and again: parse it once
def _stage_text(name: str, code: str, in_type: str, out_type: str, pre: str, post: str, i: int) -> str:
    new = f"stage_{i}"
    tree = ast.parse(code)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            node.name = new
        elif isinstance(node, ast.Name) and node.id == name:
            node.id = new
    function = tree.body[0]
    assert isinstance(function, ast.FunctionDef)  # the loader keeps only single-function atoms
    function.args.args[0].annotation = ast.parse(in_type, mode="eval").body
    function.returns = ast.parse(out_type, mode="eval").body
    contract = f"\n    pre:  {pre}\n    post: {post}\n    "
    function.body.insert(0, ast.Expr(ast.Constant(contract)))
    return ast.unparse(tree)
