"""What an ACSL candidate may change: the task plus only the annotations the task stripped.

`structure` is the Frama-C/WP grader's guard (acsl.grade runs WP only on what it accepts, rebuilt from
the task's own head, step predicates and driver around the candidate's components). A candidate must
be the task plus ensures and behaviors in its components' contracts and loop invariants/assigns/variants
and asserts in their bodies: no preprocessor directive the task lacks (-pp-annot preprocesses
annotations too), no new logic function, predicate, lemma, axiom, inductive, ghost code, global or type
invariant or \\false; outside the components it must be the task token by token.

Frama-C does not read annotations as the C preprocessor does: with -pp-annot (Frama-C 25,
logic_preprocess.mll) each annotation's text is copied into one file between marker lines
(`////////////////__ANNOT_BEG__`, `..._END__`, `..._END_NL__`, `..._END_COMMENT__`), every backslash outside
its strings becomes `__ANNOT_BACKSLASH__`, the C text keeps `__ANNOT_CONTENT__` where each annotation was;
after cpp the texts are read back line by line between markers and the placeholder turned back into `\\`.
A candidate holding any of that text (`__ANNOT_`) could end an annotation early (a clause the guard sees and
Frama-C does not), give one annotation's text to the next (the driver's), or spell `\\false` and escape a
string's closing quote: refused (transport_marker). What is left is checked on Frama-C's own reading
(acsl.grade: its print of the driver, predicates and frame) and by the reference's goal set.

Hostile input never stops grading: over MAX_CHARS characters (too_large), text that is not UTF-8 (a lone
surrogate, malformed_candidate), or anything the checks cannot read gives a refusal, never a traceback; the
lexing is linear (an unclosed comment runs to the end of the text, read once).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from codewalk.errors import InfraError
from codewalk.loaders.acsl import function_definition
from codewalk.records import Reason

# The size cap: the largest composed reference of ACSL by Example (N = 4) is about 12,000 characters
MAX_CHARS = 200_000
TRANSPORT = "__ANNOT_"  # the prefix of every marker and placeholder of Frama-C's annotation transport
FRAME = ("requires", "assigns", "terminates", "exits")  # contract clauses a candidate must keep as given
# What a candidate may add is exactly what the task strips: after the frame, a contract's postconditions ...
POSTCONDITION = ("ensures", "behavior", "assumes", "assigns", "complete", "disjoint")  # (assigns: of a behavior)
# ... and, in a body, loop invariants/assigns/variants and asserts (_body_clause), every clause of every block.
# Words that define, assume or preprocess instead of prove: a candidate's annotations may not hold more of
# them than the task's own (its step predicates, its `exits \false`). Includes define nothing inline.
BANNED = {
    "admit": r"\badmit\b", "axiom": r"\baxiom\b", "axiomatic": r"\baxiomatic\b", "lemma": r"\blemma\b",
    "inductive": r"\binductive\b", "logic": r"\blogic\b", "predicate": r"\bpredicate\b",
    "ghost": r"\bghost\b", "global invariant": r"\bglobal\s+invariant\b", "type invariant": r"\btype\s+invariant\b",
    "\\false": r"\\false\b", "a preprocessor operator (#)": r"#|%:|\?\?=",
}


@dataclass(frozen=True)
class Accepted:
    parts: list[tuple[str, str, str]]  # (name, contract, definition) of each component, in the task's order


@dataclass(frozen=True)
class Refused:
    why: str
    reason: Reason = Reason.BYPASS  # or MALFORMED_CANDIDATE


def structure(task: str, candidate: str, components: Sequence[dict[str, Any]]) -> Accepted | Refused:
    """Compare a candidate with its task: whole-file refusals first, then each component, then the rest.
    Whatever the candidate holds, the answer is an Accepted or a Refused (InfraError: the task's fault)."""
    if len(candidate) > MAX_CHARS:
        return Refused(f"the candidate has {len(candidate):,} characters, over the cap of {MAX_CHARS:,}",
                       Reason.TOO_LARGE)
    try:
        candidate.encode("utf-8")
    except UnicodeEncodeError as e:  # a lone surrogate: no file can hold it, Frama-C could read nothing
        return Refused(f"the candidate is not UTF-8 text: {e.reason} at {e.start}", Reason.MALFORMED_CANDIDATE)
    if candidate.count(TRANSPORT) > task.count(TRANSPORT):
        return Refused(f"the candidate holds `{TRANSPORT}`, the text of Frama-C's annotation transport (its "
                       "markers and backslash placeholder)", Reason.TRANSPORT_MARKER)
    try:
        return _structure(task, candidate, components)
    except InfraError:
        raise
    except Exception as e:  # noqa: BLE001  a check that cannot read hostile text refuses it, never stops grading
        return Refused(f"the candidate cannot be read: {type(e).__name__}: {e}"[:300], Reason.MALFORMED_CANDIDATE)


def _structure(task: str, candidate: str, components: Sequence[dict[str, Any]]) -> Accepted | Refused:
    text = candidate.replace("\r\n", "\n")
    if unclosed := next((m for m in _LEXEME.finditer(text) if m[0].startswith("/*") and not _closed(m[0])), None):
        return Refused(f"the candidate has an unclosed comment at {unclosed.start()}", Reason.MALFORMED_CANDIDATE)
    if why := _bypass(task, text):
        return Refused(why)
    text = _decomment(text)  # a plain comment cannot hide a definition or code from the checks below
    parts, spans = [], []
    for component in components:
        found = candidate_component(text, component["name"])
        if isinstance(found, str):
            return Refused(found, Reason.MALFORMED_CANDIDATE)
        contract, definition, start, end = found
        if why := _refusal(component, contract, definition):
            return Refused(why)
        parts.append((component["name"], contract, definition))
        spans.append((start, end, component))
    if why := _differs_outside_components(text, spans, task):
        return Refused(why)
    return Accepted(parts)


# a plain comment, a string or char literal (so that a comment marker inside one is not one), an annotation;
# the one lexer of the guard: everything below splits and strips along these lexemes, never by a plain regex
# An unclosed `/*` or `/*@` runs to the end of the text (one lexeme, read once): retried at every `/*`, as a
# lazy `.*?\*/` alone would be, 8,000 unclosed comments took 12 s.
_LEXEME = re.compile(r'/\*(?!@)(?:.*?\*/|.*)|//(?!@)[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\''
                     r'|/\*@(?:.*?\*/|.*)|//@[^\n]*', re.DOTALL)
# inside an annotation: a `//` comment (ACSL allows them there), a string or char literal
_ANNOTATION_LEXEME = re.compile(r'//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
# C and ACSL tokens, longest first, so that `a++ +b` and `a+ ++b` differ
_TOKEN = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|\\?[A-Za-z_]\w*|\.?\d(?:[eEpP][+-]|\w|\.(?!\.))*'
                    r'|<==>|==>|<-->|-->|\^\^|\.\.\.|\.\.|<<=|>>=|->|\+\+|--|<<|>>|[-+*/%&|^!=<>]=|&&|\|\||##|\S')
# a directive: `#` (or its digraph `%:`, trigraph `??=`) first on a line (ACSL reads `@` as a blank);
# the preprocessor also runs inside annotations (-pp-annot): one there defines macros for the rest of the file
_DIRECTIVE = re.compile(r"^[ \t@]*(?:#|%:|\?\?=).*$", re.MULTILINE)
_HASH = re.compile(r"#|%:|\?\?=")
_SPLICE = re.compile(r"\\[ \t]*\n|\?\?/")  # a line splice joins the next line to a `//@` or `//` comment
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # a lone CR is a line break to cpp, not to these checks
# Words that open a clause (or change what one means: admit, check). A clause may hold none of them past its
# own keyword, so that no clause can hide in another, whatever the splitting below gets wrong.
_KEYWORDS = {"requires", "ensures", "assigns", "terminates", "exits", "behavior", "behaviors", "assumes", "complete",
             "disjoint", "decreases", "allocates", "frees", "admit", "check", "loop", "invariant", "variant",
             "assert", "ghost", "for", "reads", "writes", "calls"}
# binders, each closed by one `;` that does not end its clause: `\forall integer i; P`, `\let x = e; P`
_BINDERS = {"\\forall", "\\exists", "\\let", "\\lambda", "∀", "∃", "λ"}
_OPEN, _CLOSE = set("([{"), set(")]}")


def _bypass(task: str, text: str) -> str | None:
    """Whole-file refusals: characters, directives and definition words the task does not have."""
    if m := _CONTROL.search(text):
        return f"the candidate holds a control character ({ord(m[0]):#04x}) outside tabs and newlines"
    if len(_SPLICE.findall(text)) > len(_SPLICE.findall(task)):
        return "the candidate splices lines (a backslash or ??/ at a line end)"
    for find in (_directive_lines, _code_directives):
        if (mine := find(text)) != find(task):
            new = [d for d in mine if d not in task] or mine
            return f"the candidate adds or changes preprocessor directives: {', '.join(new[:3])}"
    ours, theirs = (" ".join(_annotation_bodies(t)) for t in (text, task))
    if banned := [w for w, p in BANNED.items() if len(re.findall(p, ours)) > len(re.findall(p, theirs))]:
        return f"the candidate uses {', '.join(banned)}"
    return None


def _closed(comment: str) -> bool:
    return len(comment) >= (5 if comment.startswith("/*@") else 4) and comment.endswith("*/")


def _directive_lines(text: str) -> list[str]:
    return [" ".join(d.split()) for d in _DIRECTIVE.findall(text)]


def _code_directives(text: str) -> list[str]:
    """The lines cpp reads a `#` on outside literals: a comment or an annotation is one space to it, so
    `/* x */ #define` and `*/ #define` after a contract start a directive that no line-start check sees."""
    view = _LEXEME.sub(lambda m: m[0] if m[0][0] in "\"'" else " ", text)
    lines = []
    for line in view.splitlines():
        if _HASH.search(re.sub(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', " ", line)):
            lines.append(" ".join(line.split()))
    return lines


def candidate_component(candidate: str, name: str) -> tuple[str, str, int, int] | str:
    """(contract, definition, start, end) of a component in a program, or why it cannot be found.

    The contract is exactly one `/*@ ... */` annotation (as the lexer reads it: strings and comments
    included) with only blanks between its `*/` and the definition: text there would be part of no
    component and of nothing compared with the task."""
    try:
        definition = function_definition(candidate, name)
    except ValueError as e:
        return f"the definition of {name}() cannot be read: {e}"
    if definition is None:
        return f"the candidate has no definition of {name}()"
    at = candidate.index(definition)
    end = len(candidate[:at].rstrip())
    contract = next((m for m in _LEXEME.finditer(candidate, 0, at) if m.end() == end), None)
    if contract is None or not contract[0].startswith("/*@"):
        return f"{name}() has no contract directly before its definition"
    return contract[0], definition, contract.start(), at + len(definition)


def _refusal(component: dict[str, Any], contract: str, definition: str) -> str | None:
    """A component minus what may be added (postconditions, body annotations) must be the task's."""
    name = component["name"]
    if _tokens(_strip(definition)) != _tokens(component["code"]):
        return f"the code of {name}() was changed"
    for body in _annotation_bodies(definition):
        for clause in _clauses(_TOKEN.findall(body)):
            if why := _body_clause(clause):
                return f"{name}() has an annotation other than loop invariants/assigns/variants and asserts: {why}"
    given, mine = _lexed_contract(component["contract"]), _lexed_contract(contract)
    if isinstance(mine, str):
        return f"{name}(): {mine}"
    if isinstance(given, str):
        raise InfraError(f"the task's contract of {name}() cannot be read: {given}")
    if sorted(_fixed(given)) != sorted(_fixed(mine)):  # in any order
        return f"the requires/assigns/terminates/exits clauses of {name}() were changed"
    in_behavior = False
    for kind, _ in mine:
        in_behavior = in_behavior or kind == "behavior"
        if kind == "requires" and in_behavior:
            return f"{name}() adds a requires clause in a behavior"
        if not (kind in FRAME and not in_behavior) and kind not in POSTCONDITION:
            return f"{name}() adds a {kind} clause: only ensures and behaviors may be added to a contract"
    return None


def _clauses(tokens: list[str]) -> list[list[str]]:
    """An annotation's tokens split into clauses at each `;` outside brackets that closes no binder."""
    clauses: list[list[str]] = []
    current: list[str] = []
    depth = binders = 0
    for t in tokens:
        if t == ";" and depth == 0:
            if binders:
                binders -= 1
            else:
                clauses.append(current)
                current = []
                continue
        elif t in _OPEN:
            depth += 1
        elif t in _CLOSE:
            depth -= 1
        elif t in _BINDERS and depth == 0:
            binders += 1
        current.append(t)
    if current:
        clauses.append(current)
    return clauses


def _lexed_contract(annotation: str) -> list[tuple[str, list[str]]] | str:
    """A contract's clauses as (keyword, tokens after it), a behavior's header as ("behavior", [name]);
    or why it is not a contract of the clauses a task's may hold."""
    if not annotation.startswith("/*@"):
        return "its contract is not one annotation"
    out: list[tuple[str, list[str]]] = []
    for clause in _clauses(_TOKEN.findall(_annotation_bodies(annotation)[0])):
        while clause[:1] == ["behavior"]:  # `behavior b:` is glued to its first clause
            if len(clause) < 3 or clause[2] != ":" or not re.fullmatch(r"[A-Za-z_]\w*", clause[1]):
                return f"a behavior without a name: {' '.join(clause[:6])}"
            out.append(("behavior", [clause[1]]))
            clause = clause[3:]
        if not clause:
            continue
        kind, rest = clause[0], clause[1:]
        if kind in ("complete", "disjoint"):
            if rest[:1] != ["behaviors"]:
                return f"a {kind} clause without `behaviors`"
            rest = rest[1:]
        if kind not in (*FRAME, *POSTCONDITION):
            return f"adds a {kind} clause: only ensures and behaviors may be added to a contract"
        if hidden := [t for t in rest if t in _KEYWORDS]:
            return f"a {kind} clause holds `{hidden[0]}`: {' '.join(clause[:8])}"
        out.append((kind, rest))
    return out


def _fixed(clauses: list[tuple[str, list[str]]]) -> list[tuple[str, ...]]:
    """The requires, assigns, terminates and exits before any behavior: what the task fixes."""
    frame = []
    for kind, rest in clauses:
        if kind == "behavior":
            break
        if kind in FRAME:
            frame.append((kind, *rest))
    return frame


def _body_clause(clause: list[str]) -> str | None:
    """Why a clause of an annotation in a body is not a loop invariant/assigns/variant or an assert."""
    rest = clause
    if not rest:  # `;;`: nothing
        return None
    if rest[:1] == ["for"]:  # `for b1, b2:` names behaviors
        colon = rest.index(":") if ":" in rest else len(rest)
        rest = rest[colon + 1:]
    if rest[:1] == ["loop"] and rest[1:2] in (["invariant"], ["assigns"], ["variant"]):
        rest = rest[2:]
    elif rest[:1] == ["assert"]:
        rest = rest[1:]
    else:
        return " ".join(clause[:8])
    if hidden := [t for t in rest if t in _KEYWORDS]:
        return f"`{hidden[0]}` inside {' '.join(clause[:8])}"
    return None


def _differs_outside_components(text: str, spans: list[tuple[int, int, dict[str, Any]]], task: str) -> str | None:
    """Outside its components (checked one by one), the candidate must be the task token by token:
    includes, step predicates, driver, no other definition or annotation; comments and spaces aside."""
    view, at = [], 0
    for start, end, component in sorted(spans, key=lambda s: s[0]):
        if start < at:
            return "the candidate's components overlap"
        view += [text[at:start], f"{component['contract']}\n{component['code']}"]
        at = end
    mine, theirs = _tokens("".join([*view, text[at:]])), _tokens(task)
    if mine == theirs:
        return None
    k = next((j for j, (a, b) in enumerate(zip(mine, theirs)) if a != b), min(len(mine), len(theirs)))
    return (f"the candidate differs from the task outside the annotations it may add: "
            f"`{' '.join(mine[max(k - 4, 0):k + 8])}` where the task has `{' '.join(theirs[max(k - 4, 0):k + 8])}`")


def _decomment(text: str) -> str:
    """The text without its plain comments (each one a space, as for the C preprocessor); annotations stay."""
    return _LEXEME.sub(lambda m: " " if m[0][:2] in ("/*", "//") and m[0][2:3] != "@" else m[0], text)


def _strip(code: str) -> str:
    """The code without its annotations, lexed (a `/*@` inside a literal is not one)."""
    return _LEXEME.sub(lambda m: " " if m[0].startswith(("/*@", "//@")) else m[0], code)


def _annotation_bodies(text: str) -> list[str]:
    """The inside of each annotation, lexed: without its `//` comments and the `@`s ACSL reads as blanks
    (outside string and char literals, which stay as they are: a `//` in a string starts no comment)."""
    bodies = []
    for m in _LEXEME.finditer(text):
        if m[0].startswith(("/*@", "//@")):
            inside = m[0][3:-2] if m[0].startswith("/*@") else m[0][3:]
            bodies.append(_ANNOTATION_LEXEME.sub(lambda t: " " if t[0].startswith("//") else t[0].replace("@", "\0"),
                                                 inside).replace("@", " ").replace("\0", "@"))
    return bodies


def _tokens(text: str) -> list[str]:
    """C and ACSL tokens, comments and spaces aside; an annotation is `/*@ <tokens> */` either way."""
    out: list[str] = []
    code, at = [], 0
    for m in _LEXEME.finditer(text):
        code.append(text[at:m.start()])
        at = m.end()
        if m[0].startswith(("/*@", "//@")):
            out += _TOKEN.findall("".join(code))
            out += ["/*@", *_TOKEN.findall(_annotation_bodies(m[0])[0]), "*/"]
            code = []
        else:
            code.append(" " if m[0].startswith(("/*", "//")) else m[0])
    return out + _TOKEN.findall("".join([*code, text[at:]]))
