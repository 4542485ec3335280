"""The Verus backend of the proof-completion domain (paper Sec. 3.2, App. A.4, B.2), on Verus-Bench.

The composite is one Verus program: each component renamed f<i>_<name> (with its program's spec fns,
types and exec helpers renamed the same way), step predicates `spec fn step<i>(.., outp) -> bool` holding
each component's original `ensures` over sequence views (`v@`), and `chain_driver`, which calls the
components in turn (passing a `Vec<T>` on by borrow or `as_slice()`, scalars directly), requires the
first component's preconditions and the later ones that do not mention the chained value, ensures
`exists|v1, ..| step1(x0, v1) && .. && stepN(v_{N-1}, r_final)`, and asserts every step on the actual
intermediate values. The task strips component `ensures`, exec `decreases`, loop invariants and
decreases, proof blocks, asserts, ghost lets and lemmas (proof fns); the reference keeps them.
V_G runs `verus` on the file: it must report `N verified, 0 errors`. Before it runs, a candidate must be
the task token for token outside the places a proof may go (`structure`), and what Verus reads is rebuilt
from the task's own parts around the candidate's components and lemmas.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any

from codewalk.domain import Rejected
from codewalk.errors import InfraError, UsageError
from codewalk.loaders.verus_scan import mask, tokens
from codewalk.loaders.verusbench import SCALARS, spec_type, strip
from codewalk.records import Atom, Check, Composite, Reason
from codewalk.runtime import sandbox

from . import cache as verdict_cache
from .verus_guard import Refused, structure

RUN_TIMEOUT = 600.0  # seconds for one verus run
HEADER = (
    "// Proof completion. Make Verus verify this program by adding only: ensures and decreases clauses of\n"
    "// functions; invariant, ensures and decreases clauses of loops; proof blocks, asserts, reveals and ghost\n"
    "// lets in bodies; lemmas (proof fns). Everything else must stay as it is, token for token (the code, the\n"
    "// requires clauses, the step predicates and chain_driver); attributes other than triggers, macros other\n"
    "// than vstd's proof macros, assume, admit and any other new item are refused."
)


# -- relation ------------------------------------------------------------------------------------
def _vec_elem(t: str) -> str | None:
    m = re.fullmatch(r"Vec<(.+)>", t.strip())
    return m[1].strip() if m else None


def conversion(out_type: str, param_type: str) -> str | None:
    """How a value of out_type is passed to a parameter of param_type: 'direct', 'borrow', 'as_slice'."""
    out_type, param_type = out_type.strip(), param_type.strip()
    if out_type == param_type and (out_type in SCALARS or _vec_elem(out_type)):
        return "direct"
    elem = _vec_elem(out_type)
    if elem is not None:
        if re.fullmatch(rf"&\s*Vec<\s*{re.escape(elem)}\s*>", param_type):
            return "borrow"
        if re.fullmatch(rf"&\s*\[\s*{re.escape(elem)}\s*\]", param_type):
            return "as_slice"
    return None


def output_key(p: dict[str, Any]) -> str:
    return p["ret"][1]


def inputs(p: dict[str, Any]) -> list[tuple[int, str]]:
    """(argument index, parameter type) where a chained value can enter; every other argument is a scalar."""
    params = p["params"]
    found = []
    for k, (_, ptype) in enumerate(params):
        if all(t in SCALARS for j, (_, t) in enumerate(params) if j != k):
            found.append((k, ptype))
    return found


def connect(src: Atom, dst: Atom) -> tuple[int, str] | None:
    """(argument of dst, conversion) receiving src's return value, or None."""
    out = output_key(src.payload)
    for k, ptype in inputs(dst.payload):
        via = conversion(out, ptype)
        if via:
            return k, via
    return None


# -- composition ---------------------------------------------------------------------------------
def compose(atoms: Sequence[Atom]) -> Composite:
    parts = [_component(i, atom) for i, atom in enumerate(atoms, 1)]
    steps, driver = _driver(atoms)
    support = "\n\n".join(text for part in parts for text in part["support"])
    lemmas = "\n\n".join(text for part in parts for text in part["lemmas"])
    reference = [text for part in parts for text in part["reference"]]
    task = [text for part in parts for text in part["task"]]
    verifier = {
        "backend": "verus", "verus": atoms[0].payload.get("verus", ""),
        "support": support, "steps": steps, "driver": driver,
        "components": [{"name": name, "tokens": tokens(text)} for part in parts
                       for name, text in zip(part["exec_names"], part["task"])],
    }
    return Composite(
        prompt=_program(HEADER, [support, *task, steps, driver]),
        reference=_program("", [support, lemmas, *reference, steps, driver]),
        verifier=verifier,
    )


def _component(i: int, atom: Atom) -> dict[str, Any]:
    """Atom i's items renamed f<i>_<name>: kept support (spec fns, types), lemmas, and exec functions."""
    p = atom.payload
    rename = {name: f"f{i}_{name}" for name in p["names"]}
    out: dict[str, Any] = {"support": [], "lemmas": [], "reference": [], "task": [], "exec_names": []}
    for item in [*p["support"], {"kind": "exec", "name": p["name"], "text": p["text"]}]:
        text = _rename(item["text"], rename)
        if item["kind"] == "exec":
            out["reference"].append(text)
            out["task"].append(strip(text).rstrip("\n"))
            out["exec_names"].append(rename[item["name"]])
        elif item["kind"] == "proof":
            out["lemmas"].append(text)
        else:
            out["support"].append(text)
    return out


def _rename(text: str, rename: dict[str, str]) -> str:
    """Rename identifiers (not fields, methods or paths) outside comments and strings."""
    masked = mask(text)
    names = "|".join(map(re.escape, sorted(rename, key=len, reverse=True)))
    pattern = re.compile(rf"(?<![\w.:'])({names})\b")
    out, last = [], 0
    for m in pattern.finditer(masked):
        out += [text[last:m.start()], rename[m[1]]]
        last = m.end()
    return "".join(out + [text[last:]])


def _views(params: list[list[str]]) -> list[tuple[str, str, bool]]:
    """(name, spec type, is a sequence view) per parameter."""
    out = []
    for name, ptype in params:
        st = spec_type(ptype)
        out.append((name, st or ptype, st is not None and st not in SCALARS))
    return out


def _step(i: int, atom: Atom) -> str:
    """S_i: the component's ensures over the views of its parameters and of its result `outp`."""
    p = atom.payload
    rename = {name: f"f{i}_{name}" for name in p["names"]}
    ret_name, ret_type = p["ret"]
    names = {n for n, _ in p["params"]}
    outp = next(o for o in ("outp", "outp_", "outp__") if o not in names)
    params = [f"{n}: {st}" for n, st, _ in _views(p["params"])] + [f"{outp}: {spec_type(ret_type)}"]
    seqs = {n for n, _, seq in _views(p["params"]) if seq}
    conjuncts = []
    for clause in p["ensures"]:
        text = _rename(clause, rename)
        text = re.sub(rf"(?<![\w.]){re.escape(ret_name)}\b(@|\.view\(\))?", outp, text)
        for name in seqs:  # the parameter already is the view
            text = re.sub(rf"(?<![\w.]){re.escape(name)}(@|\.view\(\))", name, text)
        conjuncts.append(f"({text})")
    body = "\n        && ".join(conjuncts)
    return f"spec fn step{i}({', '.join(params)}) -> bool {{\n    {body}\n}}"


def _driver(atoms: Sequence[Atom]) -> tuple[str, str]:
    """The step predicates and chain_driver: calls, requires, the existential ensures and the asserts."""
    first = atoms[0].payload
    params = [f"{n}: {t}" for n, t in first["params"]]
    requires = [_rename(r, {name: f"f1_{name}" for name in first["names"]}) for r in first["requires"]]
    args0 = [_view_of(n, t) for n, t in first["params"]]
    lets = [f"let x1 = f1_{first['name']}({', '.join(n for n, _ in first['params'])});"]
    spec_args: list[list[str | None]] = [list(args0)]  # the step predicates' arguments at each position, in terms of actual values
    asserts_out = [_view_of("x1", first["ret"][1])]
    moved: set[str] = set()
    snapshots = []
    for i, atom in enumerate(atoms[1:], 2):
        p = atom.payload
        found = connect(atoms[i - 2], atom)
        if found is None:
            raise Rejected(Reason.NOT_CHAINABLE, f"{atoms[i - 2].id} cannot feed {atom.id}")
        k, via = found
        prev = f"x{i - 1}"
        call_args: list[str] = []
        pred_args: list[str | None] = []
        rename = {name: f"f{i}_{name}" for name in p["names"]}
        for j, (name, ptype) in enumerate(p["params"]):
            if j == k:
                call_args.append({"direct": prev, "borrow": f"&{prev}", "as_slice": f"{prev}.as_slice()"}[via])
                pred_args.append(None)  # the chained value
                if via == "direct" and _vec_elem(ptype):
                    moved.add(prev)
            else:
                driver_name = f"{name}_{i}"
                params.append(f"{driver_name}: {ptype}")
                rename[name] = driver_name
                call_args.append(driver_name)
                pred_args.append(driver_name)
        chained = p["params"][k][0]
        for clause in p["requires"]:
            if not re.search(rf"(?<![\w.]){re.escape(chained)}\b", clause):
                requires.append(_rename(clause, rename))
        lets.append(f"let x{i} = f{i}_{p['name']}({', '.join(call_args)});")
        spec_args.append(pred_args)
        asserts_out.append(_view_of(f"x{i}", p["ret"][1]))
    for name in sorted(moved):  # a Vec moved into the next call: its view is taken before the move
        index = int(name[1:])
        snapshots.append((index, f"let ghost {name}_view = {name}@;"))
        asserts_out[index - 1] = f"{name}_view"
    n = len(atoms)
    # the asserts: every S_i on the actual values
    asserts = []
    for i in range(1, n + 1):
        # position 1's arguments are all inputs (no None): the filter only tells the type checker so
        ins = [a for a in spec_args[0] if a is not None] if i == 1 else \
            [asserts_out[i - 2] if a is None else a for a in spec_args[i - 1]]
        asserts.append(f"assert(step{i}({', '.join(ins + [asserts_out[i - 1]])}));")
    # the postcondition: exists v1..v_{N-1} with S_1(x0, v1) && .. && S_N(v_{N-1}, r_final)
    ret_types = [spec_type(a.payload["ret"][1]) for a in atoms]
    terms = []
    for i in range(1, n + 1):
        out = "r_final" if i == n else f"v{i}"
        if i == n and _is_seq(atoms[-1].payload["ret"][1]):
            out = "r_final@"
        ins = [a for a in spec_args[0] if a is not None] if i == 1 else \
            [f"v{i - 1}" if a is None else a for a in spec_args[i - 1]]
        term = f"step{i}({', '.join(ins + [out])})"
        terms.append(f"#[trigger] {term}" if i < n else term)
    if n == 1:
        ensures = terms[0]
    else:
        bound = ", ".join(f"v{i}: {ret_types[i - 1]}" for i in range(1, n))
        ensures = f"exists|{bound}| {' && '.join(terms)}"
    body = []
    for i, let in enumerate(lets, 1):
        body.append(let)
        body += [s for index, s in snapshots if index == i]
    lines = [f"fn chain_driver({', '.join(params)}) -> (r_final: {atoms[-1].payload['ret'][1]})"]
    if requires:
        lines += ["    requires"] + [f"        {r}," for r in requires]
    lines += ["    ensures", f"        {ensures},", "{"]
    lines += [f"    {line}" for line in body]
    lines += ["    proof {"] + [f"        {a}" for a in asserts] + ["    }", f"    x{n}", "}"]
    steps = "\n\n".join(_step(i, atom) for i, atom in enumerate(atoms, 1))
    names = [prm.split(":")[0] for prm in params]
    if len(set(names)) != len(names):
        raise Rejected(Reason.NAME_CLASH, f"driver parameters collide: {names}")
    return steps, "\n".join(lines)


def _is_seq(rust_type: str) -> bool:
    st = spec_type(rust_type)
    return st is not None and st not in SCALARS


def _view_of(var: str, rust_type: str) -> str:
    return f"{var}@" if _is_seq(rust_type) else var


def _program(header: str, parts: list[str]) -> str:
    body = "\n\n".join(p for p in parts if p.strip())
    head = f"{header}\n" if header else ""
    return f"{head}use vstd::prelude::*;\n\nfn main() {{}}\n\nverus! {{\n\n{body}\n\n}} // verus!\n"


# -- admission and grading -------------------------------------------------------------------------
def check_reference(composite: Composite) -> Check:
    # a reference the grader would refuse means a task no honest candidate can pass: not admitted
    shape = structure(composite.prompt, composite.reference, [c["name"] for c in composite.verifier["components"]])
    if isinstance(shape, Refused):
        return Check(False, f"the grader would refuse the reference: {shape.why}", {"refused": shape.why},
                     Reason.REFERENCE_REFUSED)
    run = verify(composite.reference, composite.verifier)
    evidence = {"verus": run.summary()}
    if not run.well_formed:
        why = f"the reference is not well formed: {run.message}"
        return Check(False, why, evidence, Reason.REFERENCE_ILL_FORMED)
    if not run.proved:
        return Check(False, f"the reference does not verify: {run.message}", evidence, Reason.REFERENCE_FAILS)
    return Check(True, f"the reference verifies ({run.verified} verified, 0 errors)", evidence)


def check_unsolved(composite: Composite, position: int) -> Check:
    """Admission (1) on the whole stripped program, as in the paper: well formed, and it must fail."""
    run = verify(composite.prompt, composite.verifier)
    evidence = {"verus": run.summary()}
    if not run.well_formed:
        return Check(False, f"the task is not well formed: {run.message}", evidence, Reason.TASK_ILL_FORMED)
    if run.proved:
        return Check(False, "the stripped task already verifies", evidence, Reason.TASK_PROVES)
    return Check(True, f"the stripped task fails ({run.errors} errors)", evidence)


def reference_without(composite: Composite, atom: Atom, position: int) -> str | None:
    """Ref(G) with the atom at `position` as x_G has it (its exec function stripped of proof, its lemmas
    gone), the others' proofs kept: the leave-one-out candidate of `cw release`. None when the reference
    does not hold that atom's parts as compose wrote them."""
    part = _component(position + 1, atom)
    text = composite.reference
    for old, new in [*zip(part["reference"], part["task"], strict=True), *((lemma, "") for lemma in part["lemmas"])]:
        if old not in text:
            return None
        text = text.replace(old, new, 1)
    return text


def grade(composite: Composite, candidate: str) -> Check:
    """Verify the candidate's functions and lemmas with the original step predicates, support and driver.

    A candidate is hostile input. Before Verus runs, `structure` must find it to be the task plus proof
    in the places a proof may go; what Verus verifies is then rebuilt from the task's own support, step
    predicates and driver around the candidate's components and lemmas, rebuilt from their tokens (so a
    comment or literal read differently by Verus cannot carry anything the comparison did not see)."""
    spec = composite.verifier
    shape = structure(composite.prompt, candidate, [c["name"] for c in spec["components"]])
    if isinstance(shape, Refused):
        return Check(False, shape.why, {"refused": shape.why}, shape.reason)
    text = _program("", [spec["support"], *shape.lemmas, *shape.components, spec["steps"], spec["driver"]])
    run = verify(text, spec)
    evidence = {"verus": run.summary()}
    if not run.well_formed:
        return Check(False, f"the candidate is not well formed: {run.message}", evidence, Reason.ILL_FORMED)
    if not run.proved:
        return Check(False, f"verus reports {run.errors} error(s): {run.message}", evidence)
    why = f"verified with the original step predicates and driver ({run.verified} verified)"
    return Check(True, why, evidence)


# -- running Verus ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class VerusRun:
    well_formed: bool
    verified: int = 0
    errors: int = 0
    message: str = ""
    seconds: float = 0.0
    cached: bool = False

    @property
    def proved(self) -> bool:
        return self.well_formed and self.errors == 0 and self.verified > 0

    def summary(self) -> dict[str, Any]:
        return {"verified": self.verified, "errors": self.errors, "seconds": round(self.seconds, 2),
                "cached": self.cached, "message": self.message[:300]}


def verus_command(configured: str = "") -> str:
    """The verus executable: $CODEWALK_VERUS, else the one named at load (--opt verus=PATH), else `verus` on PATH.

    The variable comes first so that tasks loaded on one machine can be graded where Verus lives elsewhere."""
    configured = os.environ.get("CODEWALK_VERUS") or configured
    found = configured if configured and Path(configured).is_file() else shutil.which(configured or "verus")
    if not found:
        raise UsageError(
            "the Verus backend needs Verus to verify: put `verus` on PATH, set CODEWALK_VERUS=PATH "
            "or load with `--opt verus=PATH` "
            "(Verus cannot be installed on every machine; composing and exploring work without it)"
        )
    return found


def verify(text: str, spec: dict[str, Any]) -> VerusRun:
    verus = verus_command(spec.get("verus", ""))
    digest = verdict_cache.key("verus", text, _version(verus))
    result, hit = verdict_cache.cached(digest, lambda: asdict(_run(verus, text)))
    return VerusRun(**{**result, "cached": hit})


@cache
def _version(verus: str) -> str:
    done = subprocess.run([verus, "--version"], capture_output=True, text=True, timeout=120, check=False)
    return done.stdout.strip()


def view(verus: str) -> tuple[list[Path], dict[str, str]]:
    """What a Verus run sees besides the system directories and its work directory (read-only), and the
    environment that points it there: Verus's own folder (rust_verify, its Z3, vstd), the Rust toolchains
    rustup keeps (RUSTUP_HOME) and rustup itself (CARGO_HOME/bin: not CARGO_HOME, which may hold a
    registry token). HOME is the work directory, so no dotfile of the user's is reachable."""
    rustup = Path(os.environ.get("RUSTUP_HOME") or Path.home() / ".rustup")
    cargo = Path(os.environ.get("CARGO_HOME") or Path.home() / ".cargo")
    sees = [Path(verus).resolve().parent, rustup, cargo / "bin"]
    return [p for p in sees if p.exists()], {"RUSTUP_HOME": str(rustup), "CARGO_HOME": str(cargo),
                                            "PATH": f"{cargo / 'bin'}:{os.environ.get('PATH', os.defpath)}"}


def _run(verus: str, text: str) -> VerusRun:
    sees, env = view(verus)
    with sandbox.workdir() as cwd:
        (cwd / "task.rs").write_text(text)
        done = sandbox.run([verus, "task.rs"], cwd=cwd, timeout=RUN_TIMEOUT, memory_mb=16384,
                           env={**env, "HOME": str(cwd)}, sees=sees)
    if done.timed_out:
        raise InfraError(f"verus timed out after {RUN_TIMEOUT:g}s")
    output = done.stdout + done.stderr
    m = re.search(r"verification results::\s*(\d+)\s+verified,\s*(\d+)\s+errors?", output)
    if m is None:
        if re.search(r"^error(\[E\d+\])?:", output, re.MULTILINE):  # rejected before verifying: ill formed
            return VerusRun(False, message=_errors(output), seconds=done.duration)
        raise InfraError(f"verus exited with {done.returncode} and no verification results: {output[-600:]}")
    return VerusRun(True, int(m[1]), int(m[2]), _errors(output), done.duration)


def _errors(output: str) -> str:
    return " | ".join(line.strip() for line in output.splitlines() if line.startswith("error"))[:1000]

