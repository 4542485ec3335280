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
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any

from codewalk import sandbox
from codewalk.domain import Rejected
from codewalk.errors import InfraError, UsageError
from codewalk.loaders.verusbench import (
    FN_CLAUSES,
    SCALARS,
    Token,
    lex,
    mask,
    render,
    spec_type,
    strip,
    tokens,
)
from codewalk.records import Atom, Check, Composite

from . import cache as verdict_cache

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
            raise Rejected("not_chainable", f"{atoms[i - 2].id} cannot feed {atom.id}")
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
        raise Rejected("name_clash", f"driver parameters collide: {names}")
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
                     "reference_refused")
    run = verify(composite.reference, composite.verifier)
    evidence = {"verus": run.summary()}
    if not run.well_formed:
        why = f"the reference is not well formed: {run.message}"
        return Check(False, why, evidence, "reference_ill_formed")
    if not run.proved:
        return Check(False, f"the reference does not verify: {run.message}", evidence, "reference_fails")
    return Check(True, f"the reference verifies ({run.verified} verified, 0 errors)", evidence)


def check_unsolved(composite: Composite, position: int) -> Check:
    """Admission (1) on the whole stripped program, as in the paper: well formed, and it must fail."""
    run = verify(composite.prompt, composite.verifier)
    evidence = {"verus": run.summary()}
    if not run.well_formed:
        return Check(False, f"the task is not well formed: {run.message}", evidence, "task_ill_formed")
    if run.proved:
        return Check(False, "the stripped task already verifies", evidence, "task_proves")
    return Check(True, f"the stripped task fails ({run.errors} errors)", evidence)


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
        return Check(False, f"the candidate is not well formed: {run.message}", evidence, "ill_formed")
    if not run.proved:
        return Check(False, f"verus reports {run.errors} error(s): {run.message}", evidence)
    why = f"verified with the original step predicates and driver ({run.verified} verified)"
    return Check(True, why, evidence)


# -- what a candidate may change -------------------------------------------------------------------
# A candidate is the task token for token (comments and layout aside), except in these slots, which
# are what the task removed from the reference (strip() in the loader):
# - in a component's header: `ensures` and `decreases` clauses;
# - in its loops' headers: `invariant`, `invariant_except_break`, `ensures` and `decreases` clauses;
# - as statements in its body: `proof { .. }` blocks, `assert(..)` / `assert forall ..` (with `by`),
#   `reveal(..)` / `reveal_with_fuel(..)`, `let ghost` / `let tracked`;
# - as new items: lemmas, i.e. plain `proof fn`s with a body (the task removed the reference's lemmas).
# What a slot holds must be proof (_slot_refusal); anything else is refused, naming what was found.
FN_SLOTS = ("ensures", "decreases")
LOOP_SLOTS = ("invariant", "invariant_except_break", "invariant_ensures", "ensures", "decreases")
STATEMENT_SLOTS = {"assert": ("(", "forall"), "reveal": ("(",), "reveal_with_fuel": ("(",), "let": ("ghost", "tracked")}
MACROS = ("seq", "set", "map", "calc", "assert_seqs_equal", "assert_sets_equal", "assert_maps_equal",
          "assert_multisets_equal", "assert_by_contradiction")  # vstd's proof macros
# words that define items, leave ghost code or escape the checks: never in a proof slot, never new anywhere
KEYWORDS = ("unsafe", "extern", "fn", "struct", "enum", "union", "impl", "trait", "mod", "use", "static", "const",
            "type", "macro_rules", "broadcast", "axiom", "uninterp", "global", "layout", "assume_specification",
            "async", "await", "return", "break", "continue", "yield", "include", "include_str", "cfg")
# parts of the names of Verus's escapes (assume, admit, external_body, exec_allows_no_decreases_clause,
# builtin::assume_, ...): an identifier holding one that the task does not have is refused
# (not `axiom`: vstd's own axiom_* lemmas are its trusted base, callable like any lemma; the keyword is refused)
BANNED = ("assume", "admit", "builtin", "verifier", "external", "exec_allows", "no_decreases", "trusted")
ITEM_WORDS = {"#", "pub", "fn", "spec", "proof", "open", "closed", "exec", "struct", "enum", "union", "impl", "const",
              "use", "type", "trait", "broadcast", "global", "mod", "uninterp", "axiom", "static", "extern", "unsafe",
              "macro_rules", "layout", "assume_specification", "tracked"}


@dataclass(frozen=True)
class Accepted:
    components: list[str]  # the candidate's components, in the task's order, rebuilt from their tokens
    lemmas: list[str]  # its new lemmas, rebuilt the same way


@dataclass(frozen=True)
class Refused:
    why: str
    reason: str = "bypass"  # or malformed_candidate


@dataclass(frozen=True)
class _Item:
    key: tuple[str, str]  # (kind, name): ("fn", "f1_max"), ("struct", "S"), ("item", "") for anything else
    toks: list[Token]


def structure(task: str, candidate: str, components: Sequence[str]) -> Accepted | Refused:
    """Compare a candidate with its task, token for token outside the slots a proof may fill."""
    try:
        theirs, mine = lex(task), lex(candidate)
        if added := _added(theirs, mine):
            return Refused(f"the candidate adds {', '.join(added[:4])}, which the task does not have "
                           "and a proof may not use")
        t_in, m_in = _verus_block(theirs), _verus_block(mine)
        if m_in is None:
            return Refused("the candidate has no verus! { } block", "malformed_candidate")
        assert t_in is not None, "a task always has its verus! block"
        outside_t, outside_m = theirs[:t_in[0]] + theirs[t_in[1]:], mine[:m_in[0]] + mine[m_in[1]:]
        if why := _differs(outside_m, outside_t, "the text outside the verus! block was changed"):
            return Refused(why)
        return _compare(_items(theirs[t_in[0]:t_in[1]]), _items(mine[m_in[0]:m_in[1]]), components)
    except ValueError as e:  # a literal not lexed, brackets that do not balance, a function without parameters
        return Refused(f"the candidate cannot be read: {e}", "malformed_candidate")


def _compare(t_items: list[_Item], m_items: list[_Item], components: Sequence[str]) -> Accepted | Refused:
    """The task's items, each found once in the candidate (in any order) and compared; new items are lemmas."""
    given = {it.key: it for it in t_items}
    seen: dict[tuple[str, str], _Item] = {}
    new: list[_Item] = []
    for it in m_items:
        if it.key in given and it.key not in seen:
            seen[it.key] = it
        elif it.key in given:
            return Refused(f"the candidate defines {it.key[1]} twice")
        else:
            new.append(it)
    if missing := [key[1] or key[0] for key in given if key not in seen]:
        return Refused(f"the candidate omits {', '.join(missing)}", "malformed_candidate")
    rebuilt = []
    for key, it in given.items():
        name = key[1]
        if key[0] == "fn" and name in components:
            if why := _component_refusal(seen[key].toks, it.toks, name):
                return Refused(why)
            rebuilt.append(render(seen[key].toks))
        elif why := _differs(seen[key].toks, it.toks, f"{_what(name)} was changed"):
            return Refused(why)
    lemmas = []
    for it in new:
        if why := _lemma_refusal(it, {key[1] for key in given}):
            return Refused(why)
        lemmas.append(render(it.toks))
    return Accepted(rebuilt, lemmas)


def _what(name: str) -> str:
    if re.fullmatch(r"step\d+", name):
        return f"the step predicate {name}"
    return "chain_driver" if name == "chain_driver" else f"the given item {name or '(unnamed)'}"


def _verus_block(toks: list[Token]) -> tuple[int, int] | None:
    """[start, end) of the tokens inside the first `verus! { .. }`."""
    for k in range(len(toks) - 2):
        if [t.text for t in toks[k:k + 3]] == ["verus", "!", "{"]:
            return k + 3, _close(toks, k + 2)
    return None


def _close(toks: list[Token], at: int) -> int:
    """Index of the bracket closing the one at `at`."""
    depth = 0
    for j in range(at, len(toks)):
        if toks[j].text in "([{":
            depth += 1
        elif toks[j].text in ")]}":
            depth -= 1
            if depth == 0:
                return j
    raise ValueError(f"line {toks[at].line}: unbalanced {toks[at].text!r}")


def _items(toks: list[Token]) -> list[_Item]:
    """The items of a verus! block: each ends at a `;` or at a `}` back at depth 0 that another item follows."""
    items, start, depth = [], 0, 0
    for j, t in enumerate(toks):
        if t.text in "([{":
            depth += 1
        elif t.text in ")]}":
            depth -= 1
            if depth < 0:
                raise ValueError(f"line {t.line}: unbalanced {t.text!r}")
        if depth == 0 and (t.text == ";" or t.text == "}" and _item_follows(toks, j + 1)):
            items.append(_Item(_key(toks[start:j + 1]), toks[start:j + 1]))
            start = j + 1
    if depth:
        raise ValueError(f"line {toks[-1].line}: unbalanced brackets")
    if start < len(toks):
        raise ValueError(f"line {toks[start].line}: an item does not end inside the verus! block")
    return items


def _item_follows(toks: list[Token], k: int) -> bool:
    if k >= len(toks):
        return True
    if k + 1 < len(toks) and toks[k + 1].text == "!":  # a macro item: name!
        return True
    return toks[k].text in ITEM_WORDS


def _key(toks: list[Token]) -> tuple[str, str]:
    words = [t.text for t in _skip_attributes(toks)]
    for kind in ("fn", "struct", "enum", "union", "trait", "mod", "const", "static", "type"):
        if kind in words[:8] and words.index(kind) + 1 < len(words):
            return kind, words[words.index(kind) + 1]
    return "item", " ".join(words[:3])


def _skip_attributes(toks: list[Token]) -> list[Token]:
    k = 0
    while k + 1 < len(toks) and toks[k].text == "#":
        k = _close(toks, k + (2 if toks[k + 1].text == "!" else 1)) + 1
    return toks[k:]


def _differs(mine: list[Token], theirs: list[Token], what: str) -> str | None:
    """None if the tokens are the same, else `what` with where they first differ."""
    a, b = [t.text for t in mine], [t.text for t in theirs]
    if a == b:
        return None
    k = next((j for j, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    line = mine[min(k, len(mine) - 1)].line if mine else 0
    return (f"{what} (line {line}): `{' '.join(a[max(k - 4, 0):k + 8])}` "
            f"where the task has `{' '.join(b[max(k - 4, 0):k + 8])}`")


def _added(task: list[Token], candidate: list[Token]) -> list[str]:
    """What the candidate uses more often than the task: attributes, macros, item or escape keywords,
    identifiers naming an escape, string literals; each named as written."""
    given = Counter(_notable(task, set()))
    names = {t.text for t in task if _is_word(t.text)}
    out = []
    for what, count in Counter(_notable(candidate, names)).items():
        if count > given[what]:
            out.append(what)
    return out


def _notable(toks: list[Token], allowed_names: set[str]) -> list[str]:
    """The constructs a proof may not add, as they are written (`#[verifier::external_body]`, `include!`, ...)."""
    out, k = [], 0
    while k < len(toks):
        t = toks[k]
        nxt, after = (toks[j].text if j < len(toks) else "" for j in (k + 1, k + 2))
        if t.text == "#" and nxt in ("[", "!"):
            try:
                end = _close(toks, k + (2 if nxt == "!" else 1))
            except ValueError:
                end = len(toks) - 1
            inside = [x.text for x in toks[k:end + 1]]
            # #[trigger], #![trigger ..] and #![auto] are the only attributes a proof may hold
            trigger = inside in (["#", "[", "trigger", "]"], ["#", "!", "[", "auto", "]"]) or inside[1:4] == ["!", "[", "trigger"]
            if not trigger:  # reported whole: what it holds is not reported again
                out.append(f"the attribute `{''.join(inside)}`")
                k = end
        elif _is_word(t.text):
            if nxt == "!" and after in ("(", "[", "{") and t.text not in MACROS:
                out.append(f"the macro `{t.text}!`")
            elif t.text in KEYWORDS and t.text != "fn":
                out.append(f"`{t.text}`")
            elif t.text not in allowed_names and any(b in t.text.lower() for b in BANNED):
                out.append(f"`{t.text}`")
        elif t.text[:1] == '"' or t.text[:2] == 'b"':
            out.append(f"the string literal {t.text[:40]}")
        k += 1
    return out


def _is_word(text: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z_]\w*", text))


def _component_refusal(mine: list[Token], theirs: list[Token], name: str) -> str | None:
    """A component minus its proof slots must be the task's component; what the slots hold must be proof."""
    m_parts, t_parts = _fn_parts(mine), _fn_parts(theirs)
    if isinstance(m_parts, str):
        return f"{name} cannot be read: {m_parts}"
    assert not isinstance(t_parts, str), t_parts
    (m_head, m_clauses, m_body), (t_head, t_clauses, t_body) = m_parts, t_parts
    if why := _differs(m_head, t_head, f"the signature of {name} was changed"):
        return why
    kept = [(word, toks) for word, toks in m_clauses if word not in FN_SLOTS]
    if [w for w, _ in kept] != [w for w, _ in t_clauses]:
        extra = [w for w, _ in kept if w not in [x for x, _ in t_clauses]]
        if extra:
            return f"{name} adds a `{extra[0]}` clause: only ensures and decreases may be added to a function"
        return f"the requires clauses of {name} were changed (a clause is missing or moved)"
    for (word, toks), (_, given) in zip(kept, t_clauses):
        if why := _differs(toks, given, f"the {word} clauses of {name} were changed"):
            return why
    for word, toks in m_clauses:
        if word in FN_SLOTS and (why := _slot_refusal(toks, f"the {word} clause of {name}", ensures=word == "ensures")):
            return why
    m_fixed, m_slots = _body_slots(m_body)
    t_fixed, _ = _body_slots(t_body)
    if why := _differs(m_fixed, t_fixed, f"the code of {name} was changed"):
        return why
    for what, toks in m_slots:
        if why := _slot_refusal(toks, f"{what} in {name}"):
            return why
    return None


def _fn_parts(toks: list[Token]) -> tuple[list[Token], list[tuple[str, list[Token]]], list[Token]] | str:
    """(signature, [(clause word, clause tokens)], body with its braces) of a function item."""
    words = [t.text for t in toks]
    if "fn" not in words or words[-1] != "}":
        return "not a function with a body"
    paren = words.index("(", words.index("fn"))  # a ValueError without one: the candidate cannot be read
    after = _close(toks, paren) + 1
    body = _last_group(toks, after)
    if body is None:
        return "no body"
    marks = [k for k in _top_level(toks, after, body) if words[k] in FN_CLAUSES]
    head_end = marks[0] if marks else body
    clauses = [(words[k], toks[k:(marks[n + 1] if n + 1 < len(marks) else body)]) for n, k in enumerate(marks)]
    return toks[:head_end], clauses, toks[body:]


def _last_group(toks: list[Token], start: int) -> int | None:
    """The `{` of the last brace group at depth 0 from start: a function's body."""
    last, depth = None, 0
    for j in range(start, len(toks)):
        c = toks[j].text
        if c == "{" and depth == 0:
            last = j
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
    return last


def _top_level(toks: list[Token], start: int, end: int) -> list[int]:
    out, depth = [], 0
    for j in range(start, end):
        c = toks[j].text
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0:
            out.append(j)
    return out


def _lemma_refusal(item: _Item, given: set[str]) -> str | None:
    """A new item must be a lemma: `proof fn name(..) .. { .. }` (or `pub proof fn`), holding only proof."""
    words = [t.text for t in item.toks]
    head = words[:words.index("fn") + 2] if "fn" in words[:8] else words[:3]
    if found := _notable(item.toks, set()):
        return f"the candidate adds an item holding {', '.join(dict.fromkeys(found))}: only lemmas may be added"
    plain = head[:-1] in (["proof", "fn"], ["pub", "proof", "fn"])
    if not plain or words[-1] != "}":
        what = " ".join(head[:-1]) if "fn" in head else " ".join(head)
        return (f"the candidate adds `{what}` {head[-1] if 'fn' in head else ''}".rstrip()
                + ": only lemmas (plain `proof fn`s with a body) may be added")
    name = head[-1]
    if name in given:
        return f"the lemma {name} has the name of an item of the task"
    parts = _fn_parts(item.toks)
    if isinstance(parts, str):
        return f"the lemma {name} cannot be read: {parts}"
    _, clauses, body = parts
    for word, toks in clauses:
        if why := _slot_refusal(toks, f"the {word} clause of the lemma {name}", ensures=word == "ensures"):
            return why
    return _slot_refusal(body, f"the body of the lemma {name}")


def _body_slots(body: list[Token]) -> tuple[list[Token], list[tuple[str, list[Token]]]]:
    """(the body without its proof, [(what, tokens)] of the proof slots found in it)."""
    fixed: list[Token] = []
    slots: list[tuple[str, list[Token]]] = []
    i = 0
    while i < len(body):
        t, nxt = body[i].text, body[i + 1].text if i + 1 < len(body) else ""
        if t == "proof" and nxt == "{":
            end = _close(body, i + 1) + 1
            slots.append(("a proof block", body[i:end]))
        elif nxt in STATEMENT_SLOTS.get(t, ()):
            end = _statement_end(body, i)
            slots.append((f"`{t} {nxt}`" if t == "let" else f"`{t}`", body[i:end]))
        elif t in ("while", "for", "loop"):
            loop_body = _first_brace(body, i + 1)
            clause = next((j for j in _top_level(body, i + 1, loop_body) if body[j].text in LOOP_SLOTS), loop_body)
            fixed += body[i:clause]
            if clause < loop_body:
                slots.append((f"the {body[clause].text} clauses of a loop", body[clause:loop_body]))
            i = loop_body
            continue
        else:
            fixed.append(body[i])
            i += 1
            continue
        i = end
    return fixed, slots


def _first_brace(toks: list[Token], start: int) -> int:
    """The first `{` at depth 0 from start (a loop's body), or the end."""
    depth = 0
    for j in range(start, len(toks)):
        c = toks[j].text
        if c == "{" and depth == 0:
            return j
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
    return len(toks)


def _statement_end(toks: list[Token], at: int) -> int:
    """End of an assert/reveal/ghost statement: after its `;`, or after the `}` of a trailing `by { .. }`."""
    depth, by = 0, False
    j = at
    while j < len(toks):
        c = toks[j].text
        if c == "by" and depth == 0:
            by = True
        if c == "{" and depth == 0 and by:
            j = _close(toks, j) + 1
            return j + 1 if j < len(toks) and toks[j].text == ";" else j
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth < 0:
                return j
        elif c == ";" and depth == 0:
            return j + 1
        j += 1
    return j


def _slot_refusal(toks: list[Token], where: str, ensures: bool = False) -> str | None:
    """What a proof slot may not hold: anything _notable (attributes but triggers, macros but vstd's proof
    macros, item and escape keywords, strings), and `false` as a whole postcondition or assertion."""
    words = [t.text for t in toks]
    if found := _notable(toks, set()) + (["`fn` (a nested function)"] if "fn" in words else []):
        return f"{where} holds {', '.join(dict.fromkeys(found))}"
    if ensures:
        start = 1  # after the clause word
        for k in [*(j for j in _top_level(toks, 1, len(toks)) if words[j] == ","), len(toks)]:
            if words[start:k] in (["false"], ["(", "false", ")"]):
                return f"{where} is `false`"
            start = k + 1
    elif words[:4] == ["assert", "(", "false", ")"]:
        return f"{where} asserts `false`"
    return None


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

