"""The ACSL by Example source (fraunhoferfokus/acsl-by-example): C functions with ACSL contracts.

Layout: `subdirs.list` names the folders; each folder's `examples.list` names its examples; example X
is `X.h` (includes, then one `/*@ contract */` and the prototype) and `X.c` (includes, then the one
function definition, whose loop annotations, asserts and ghost code are the proof). Each example whose
function has a postcondition and an output the proof-completion relation can chain becomes an atom;
every other one is skipped with a one-line reason (`skipped()` lists them, for the report).

The output of a function (what flows to the next one in a chain):
- an array: a `void` function, or one returning a count, that `assigns` exactly one region `p[0..L-1]`
  of a pointer parameter p whose length L is a `size_type` parameter (fill, reverse, copy, partial_sum);
- otherwise a scalar return value (`value_type`, `size_type`, `bool`).
What it accepts: an array parameter p of length L (from `\\valid(p + (0..L-1))` or `\\valid_read`), or a
scalar parameter. Each atom carries the texts of the `.h`/`.acsl` files it includes, transitively
(`files`), so the tasks made from it do not depend on where the dataset lies. A malformed example
raises InputError naming the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codewalk.errors import InputError
from codewalk.records import Atom

SCALARS = ("value_type", "size_type", "bool", "int")

_PROTOTYPE = re.compile(
    r"/\*@(?P<contract>.*?)\*/\s*(?P<ret>[A-Za-z_][\w ]*?[\s*]+)(?P<name>\w+)\s*\((?P<params>[^)]*)\)\s*;", re.DOTALL
)
_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)
_VALID = re.compile(r"\\valid(?:_read)?\s*\(\s*(\w+)\s*\+\s*\(\s*0\s*\.\.\s*(\w+)\s*-\s*1\s*\)\s*\)")
_ASSIGNS_REGION = re.compile(r"^(\w+)\s*\[\s*0\s*\.\.\s*\(?\s*(\w+)\s*-\s*1\s*\)?\s*\]$")


@dataclass(frozen=True)
class Param:
    type: str  # as written, without a top-level const: "const value_type*", "size_type"
    name: str

    @property
    def pointer(self) -> bool:
        return self.type.endswith("*")

    @property
    def base(self) -> str:
        return self.type.replace("const", "").replace("*", "").strip()


def read(root: Path) -> tuple[list[Atom], list[tuple[str, str]]]:
    """Atoms of an acsl-by-example folder, and the (example, reason) pairs that were skipped."""
    root = Path(root).resolve()
    folders = _lines(root / "subdirs.list")
    atoms: list[Atom] = []
    skipped: list[tuple[str, str]] = []
    for folder in folders:
        for example in _lines(root / folder / "examples.list"):
            program = f"{folder}/{example}"
            try:
                atoms.append(_atom(root, folder, example))
            except _Skip as s:
                skipped.append((program, str(s)))
    return atoms, skipped


class _Skip(Exception):
    """The example is well formed but cannot be an atom (the reason is reported)."""


def _lines(path: Path) -> list[str]:
    return [line.strip() for line in _text(path).splitlines() if line.strip() and not line.startswith("#")]


def _text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as e:
        raise InputError(str(path), None, f"cannot read: {e.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(str(path), data[:e.start].count(b"\n") + 1, "not UTF-8") from None


def _atom(root: Path, folder: str, example: str) -> Atom:
    header, source = root / folder / f"{example}.h", root / folder / f"{example}.c"
    if not header.exists() or not source.exists():
        raise _Skip("no .h/.c pair")
    h = _text(header)
    found = list(_PROTOTYPE.finditer(h))
    if len(found) != 1:
        raise _Skip(f"{len(found)} contracted prototypes in {header.name} (need exactly one)")
    proto = found[0]
    name, ret = proto["name"], _norm_type(proto["ret"])
    params = _params(proto["params"], str(header))
    contract = proto["contract"]
    c = _text(source)
    try:
        definition = function_definition(c, name)
    except ValueError as e:
        raise InputError(str(source), None, str(e)) from None
    if definition is None:
        raise InputError(str(source), None, f"no definition of {name}() found")
    definitions = re.finditer(r"^[A-Za-z_][\w \*]*\b(\w+)\s*\([^;{]*\)\s*\{", c, re.MULTILINE)
    others = [m for m in definitions if m[1] != name]
    if others:
        raise _Skip(f"{source.name} defines more functions than {name}()")
    clauses = contract_clauses(contract)
    if not any(kind == "ensures" for kind, _ in clauses) and "behavior" not in contract:
        raise _Skip("no postcondition")
    lengths = {ptr: length for ptr, length in _VALID.findall(contract)}
    for p in params:
        if p.pointer and p.base != "value_type":
            raise _Skip(f"parameter {p.name} is a {p.type} (only value_type arrays and scalars chain)")
        if not p.pointer and p.base not in SCALARS:
            raise _Skip(f"parameter {p.name} is a {p.type}")
        if p.pointer and p.name not in lengths:
            raise _Skip(f"no \\valid range gives the length of array parameter {p.name}")
    written = _written_regions(clauses, {p.name for p in params if p.pointer})
    if len(written) == 1 and lengths.get(written[0][0]) == written[0][1]:  # one whole array p[0..L-1]
        output: dict[str, Any] = {"kind": "array", "ptr": written[0][0], "len": written[0][1]}
        out_type = "array"
    elif ret != "void" and ret in SCALARS and len(written) <= 1:
        output, out_type = {"kind": "scalar", "type": ret}, ret
    else:
        assigned = ", ".join(w for w, _ in written) or "nothing"
        raise _Skip(f"no chainable output (returns {ret}, assigns {assigned})")
    includes = [f for f in _INCLUDE.findall(h) + _INCLUDE.findall(c) if f != header.name]
    files = included_files(root, ["typedefs.h", *includes])
    program = f"{folder}/{example}"
    return Atom(
        id=f"proofs/acsl/{program}",
        domain="proofs",
        summary={"title": name, "source": f"acsl:{program}", "label": "acsl",
                 "in_type": ", ".join(p.type for p in params), "out_type": out_type},
        payload={
            "backend": "acsl", "root": str(root), "folder": folder, "program": program, "name": name,
            "ret": ret, "params": [[p.type, p.name] for p in params], "lengths": lengths,
            "output": output, "contract": contract, "definition": definition,
            "includes": list(dict.fromkeys(includes)),
            "files": files,  # what a task of this atom includes, so it travels with the task
        },
    )


def included_files(root: Path, names: list[str]) -> dict[str, str]:
    """{file name: text} of the dataset's files that `names` include, transitively. Files are found by
    name (in the dataset every name is unique across folders, so a task can lay them side by side);
    a name the dataset does not hold (limits.h) is the C library's."""
    index: dict[str, list[Path]] = {}
    for path in sorted([*root.glob("*.h"), *root.glob("*/*.h"), *root.glob("*/*.acsl")]):
        index.setdefault(path.name, []).append(path)
    files: dict[str, str] = {}
    todo = list(names)
    while todo:
        name = todo.pop(0)
        if name in files or name not in index:
            continue
        if len(index[name]) > 1:
            raise InputError(str(index[name][1]), None, f"{name} is also {index[name][0]}: an include is ambiguous")
        files[name] = _text(index[name][0])
        todo += _INCLUDE.findall(files[name])
    return dict(sorted(files.items()))


def _norm_type(text: str) -> str:
    text = " ".join(text.replace("*", " * ").split())
    return text.replace(" *", "*")


def _params(text: str, where: str) -> list[Param]:
    params = []
    for part in [p.strip() for p in text.split(",") if p.strip()]:
        if part == "void":
            continue
        m = re.fullmatch(r"(.+?)\s*(\b\w+)", part.replace("*", "* "))
        if not m:
            raise InputError(where, None, f"cannot read parameter {part!r}")
        ctype = _norm_type(m[1])
        if not ctype.endswith("*"):  # a top-level const on a scalar copy changes nothing for a caller
            ctype = ctype.replace("const ", "")
        params.append(Param(ctype, m[2]))
    return params


def _written_regions(clauses: list[tuple[str, str]], pointers: set[str]) -> list[tuple[str, str]]:
    """(pointer, length) for each `p[0..L-1]` in the function's assigns clauses."""
    regions = []
    for kind, text in clauses:
        if kind != "assigns":
            continue
        for item in split_top(text, ","):
            item = item.strip()
            if item == "\\nothing":
                continue
            m = _ASSIGNS_REGION.match(item)
            if not m or m[1] not in pointers:
                regions.append((item, ""))  # something other than one whole array: not chainable as one
            else:
                regions.append((m[1], m[2]))
    return regions


# -- small C / ACSL text helpers, shared with the ACSL backend ------------------------------------
CLAUSES = ("requires", "ensures", "assigns", "terminates", "exits", "behavior", "assumes", "complete",
           "disjoint", "decreases", "allocates", "frees")


def contract_clauses(contract: str) -> list[tuple[str, str]]:
    """A function contract as (keyword, text) clauses in order; a `behavior b:` opens one with text b.

    A clause ends at a `;` at bracket depth 0, except that `;` also ends a quantifier's binder
    (`\\forall integer i; ...`), so a piece that does not start with a clause keyword belongs to the one
    before it.
    """
    text = re.sub(r"//[^\n]*", "", contract)
    pieces: list[str] = []
    for piece in split_top(text, ";"):
        piece = piece.strip()
        # `behavior b:` has no `;`: split it off the clause it is glued to
        for part in re.split(r"(?=\bbehavior\s+\w+\s*:)", piece):
            part = part.strip()
            if not part:
                continue
            word = part.split(None, 1)[0].rstrip(":")
            if word in CLAUSES or not pieces:
                pieces.append(part)
            else:
                pieces[-1] += "; " + part
    clauses = []
    for piece in pieces:
        word = piece.split(None, 1)[0].rstrip(":")
        if word == "behavior":
            m = re.match(r"behavior\s+(\w+)\s*:\s*(.*)", piece, re.DOTALL)
            clauses.append(("behavior", m[1] if m else piece))
            rest = m[2].strip() if m else ""
            if rest:
                clauses.extend(contract_clauses(rest + ";"))
            continue
        body = piece[len(word):].strip()
        clauses.append((word, " ".join(body.split())))
    return clauses


def clause_body(text: str) -> str:
    """A clause's predicate without its optional name (`constant: AllEqual(a, n, v)` -> `AllEqual(a, n, v)`)."""
    m = re.match(r"^\s*[A-Za-z_]\w*\s*:(?!:)\s*(.*)$", text, re.DOTALL)
    return m[1] if m else text


def split_top(text: str, sep: str) -> list[str]:
    """Split at `sep` outside (), [] and {}."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def function_definition(c: str, name: str) -> str | None:
    """The text of `name`'s definition (return type to closing brace), or None."""
    m = re.search(rf"^[A-Za-z_][\w \*]*\b{re.escape(name)}\s*\([^;{{]*\)\s*\{{", c, re.MULTILINE)
    if not m:
        return None
    end = matching_brace(c, m.end() - 1)
    return c[m.start():end + 1]


def matching_brace(text: str, open_at: int) -> int:
    """Index of the `}` closing the `{` at open_at, skipping comments, strings and char literals."""
    depth, i = 0, open_at
    while i < len(text):
        if text.startswith("//", i):
            i = text.find("\n", i)
            i = len(text) if i < 0 else i
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = len(text) if end < 0 else end + 2  # an unclosed comment runs to the end, never back to 0
            continue
        ch = text[i]
        if ch in "\"'":
            j = i + 1
            while j < len(text) and text[j] != ch:
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ValueError("unbalanced braces")


_PIECES = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\])*"', re.DOTALL)


def strip_annotations(code: str) -> str:
    """C code without its ACSL annotations (`/*@ ... */`, `//@ ...`): loop annotations, asserts, ghost code.

    Plain comments and strings stay (an annotation marker inside a string is not one)."""
    code = _PIECES.sub(lambda m: "" if m[0].startswith(("/*@", "//@")) else m[0], code)
    # drop the lines an annotation leaves empty
    return "\n".join(line for line in code.splitlines() if line.strip() or not line) + "\n"
