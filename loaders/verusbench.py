"""The Verus-Bench source (microsoft/verus-proof-synthesis, benchmarks/Verus-Bench): verified Rust programs.

Layout: `<group>/verified/<program>.rs`, each one self-contained: `use vstd::prelude::*; fn main() {..}
verus! { items }`. Every exec function with a named return value (`-> (r: T)`) and an `ensures` clause
is an atom; every other one, and every program that cannot be read, is skipped with a reason.

Parser: a small bracket-aware scanner (verus_scan.py, shared with the candidate guard). Verus's clause
syntax (`requires`/`ensures`/`invariant`/`decreases` between a signature and its body, `proof { }` blocks,
`assert(..) by { }`) is not Rust, and the Rust parsers at hand (tree-sitter-rust, syn) see the whole
`verus! { }` body as one opaque token tree. The scanner first masks comments, strings and character
literals, so brackets and keywords are found on the masked text while the original text is what gets
sliced out. `strip()` is checked against the benchmark's own `unverified/` files in the tests.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from codewalk.errors import InputError
from codewalk.loaders.verus_scan import (
    FN_CLAUSES,
    LOOP_CLAUSES,
    close,
    decomment,
    first_group,
    last_group,
    mask,
    statement_end,
    top_level,
    units,
)
from codewalk.records import Atom

SCALARS = {"u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "bool",
           "char"}
_ITEM_START = re.compile(
    r"\s*(#|pub\b|fn\b|spec\b|proof\b|open\b|closed\b|exec\b|struct\b|enum\b|impl\b|const\b|use\b|type\b"
    r"|trait\b|broadcast\b|global\b|mod\b|uninterp\b|axiom\b|\}|$)"
)
_FN = re.compile(r"(?:pub(?:\([^)]*\))?\s+)?(?:(?:open|closed)\s+)?(?:(spec|proof|exec)(?:\(checked\))?\s+)?fn\s+(\w+)")
_OTHER = re.compile(r"(?:pub\s+)?(struct|enum|const|type|trait|use|impl|mod)\s+(\w+)?")


# -- brackets, on masked text ----------------------------------------------------------------------
def close_of(masked: str, open_at: int) -> int:
    """Index of the bracket closing the one at open_at (on masked text)."""
    end = close(masked, open_at)
    if end is None:
        raise ValueError(f"unbalanced {masked[open_at]!r} at offset {open_at}")
    return end


# -- items ----------------------------------------------------------------------------------------
@dataclass
class Fn:
    mode: str  # spec / proof / exec
    name: str
    text: str  # the whole item, attributes included
    params: list[tuple[str, str]] = field(default_factory=list)  # (name, type)
    ret: tuple[str, str] | None = None  # (name, type) of a named return value
    ret_type: str = ""  # the return type, named or not
    clauses: dict[str, list[str]] = field(default_factory=dict)  # requires/ensures/... -> expressions


@dataclass
class Item:
    kind: str  # fn / struct / enum / const / use / ...
    name: str
    text: str
    fn: Fn | None = None


def program_items(text: str, where: str) -> list[Item]:
    """The items inside a program's `verus! { ... }` block."""
    masked = mask(text)
    m = re.search(r"verus!\s*\{", masked)
    if not m:
        raise InputError(where, None, "no verus! { } block")
    start = m.end() - 1
    try:
        end = close_of(masked, start)
    except ValueError as e:
        raise InputError(where, None, str(e)) from None
    items: list[Item] = []
    i = start + 1
    while True:
        while i < end and masked[i].isspace():
            i += 1
        if i >= end:
            return items
        try:
            j = _item_end(masked, i, end, where)
            items.append(_item(text[i:j], masked[i:j], where))
        except ValueError as e:  # unbalanced brackets or a function without a body
            raise InputError(where, masked.count("\n", 0, i) + 1, str(e)) from None
        i = j


def _item_end(masked: str, i: int, end: int, where: str) -> int:
    depth = 0
    j = i
    while j < end:
        c = masked[j]
        if c == "#" and depth == 0 and masked[j + 1:j + 2] in "[!":  # an attribute: skip its brackets
            j = close_of(masked, masked.index("[", j)) + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            # a brace group ends the item when another item (or the block's end) follows, not `else`
            ends = _ITEM_START.match(masked, j + 1) and not re.match(r"\s*else\b", masked[j + 1:])
            if depth == 0 and c == "}" and ends:
                return j + 1
        elif c == ";" and depth == 0:
            return j + 1
        j += 1
    raise InputError(where, masked.count("\n", 0, i) + 1, "item does not end inside the verus! block")


def _item(text: str, masked: str, where: str) -> Item:
    head = masked.lstrip()
    while head.startswith("#"):  # attributes
        head = head[close_of(head, head.index("[")) + 1:].lstrip()
    m = _FN.match(head)
    if m:
        fn = _fn(text, masked, m[1] or "exec", m[2], where)
        return Item("fn", fn.name, text, fn)
    o = _OTHER.match(head)
    if o:
        return Item(o[1], o[2] or "", text)
    return Item("other", "", text)


def _fn(text: str, masked: str, mode: str, name: str, where: str) -> Fn:
    found = re.search(rf"\bfn\s+{re.escape(name)}\b", masked)
    assert found is not None, name  # the caller found this fn in the same text
    at = found.end()
    if masked[at:].lstrip().startswith("<"):
        at = close_of(masked, masked.index("<", at)) + 1
    open_paren = masked.index("(", at)
    close_paren = close_of(masked, open_paren)
    params = []
    for k0, k1 in _split_commas(masked, open_paren + 1, close_paren):
        part = text[k0:k1].strip()
        if part:
            pname, _, ptype = part.partition(":")
            ptype = masked[k0:k1].partition(":")[2]
            params.append((pname.replace("mut ", "").strip(), " ".join(ptype.split())))
    body_open = _body_open(masked, close_paren + 1)
    sig = close_paren + 1
    ret, ret_type = None, ""
    arrow = re.match(r"\s*->\s*", masked[sig:body_open])
    clause_at = _first_clause(masked, sig, body_open, FN_CLAUSES)
    if arrow:
        r0 = sig + arrow.end()
        rtext = masked[r0:clause_at].strip()  # the masked text: a comment here is not part of the type
        named = re.fullmatch(r"\(\s*(\w+)\s*:\s*(.*)\)", rtext, re.DOTALL)
        if named:
            ret, ret_type = (named[1], " ".join(named[2].split())), " ".join(named[2].split())
        else:
            ret_type = " ".join(rtext.split())
    clauses = _clauses(text, masked, clause_at, body_open, FN_CLAUSES)
    return Fn(mode, name, text, params, ret, ret_type, clauses)


def _body_open(masked: str, start: int) -> int:
    """The `{` that opens a function's body: the last depth-0 brace group of the item."""
    last = last_group(masked, start)
    if last is None:
        raise ValueError("function without a body")
    return last


def _first_clause(masked: str, start: int, end: int, words: tuple[str, ...]) -> int:
    pattern = re.compile(r"\b(" + "|".join(words) + r")\b")
    tops = set(top_level(masked, start, end))
    for m in pattern.finditer(masked, start, end):
        if m.start() in tops:
            return m.start()
    return end


def _clauses(text: str, masked: str, start: int, end: int, words: tuple[str, ...]) -> dict[str, list[str]]:
    pattern = re.compile(r"\b(" + "|".join(words) + r")\b")
    tops = set(top_level(masked, start, end))
    marks = [m for m in pattern.finditer(masked, start, end) if m.start() in tops]
    out: dict[str, list[str]] = {}
    for k, m in enumerate(marks):
        stop = marks[k + 1].start() if k + 1 < len(marks) else end
        # one line per clause: a comment inside one would swallow the rest of it, so comments go first
        exprs = [" ".join(decomment(text[a:b]).split()) for a, b in _split_commas(masked, m.end(), stop)]
        out.setdefault(m[1], []).extend(e for e in exprs if e)
    return out


def _split_commas(masked: str, start: int, end: int) -> list[tuple[int, int]]:
    """(start, end) spans of the comma-separated parts of masked[start:end] at depth 0 (`<..>` too)."""
    spans, depth, angle, k0 = [], 0, 0, start
    for j in range(start, end):
        c = masked[j]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "<" and depth == 0 and re.match(r"[\w:]", masked[j - 1:j] or " ") \
                and re.match(r"\s*[\w(&\[]", masked[j + 1:]):
            angle += 1  # a generic argument list (Vec<T>), not a comparison
        elif c == ">" and angle and masked[j - 1] not in "=-":
            angle -= 1
        elif c == "," and depth == 0 and angle == 0:
            spans.append((k0, j))
            k0 = j + 1
    spans.append((k0, end))
    return spans


# -- stripping proofs -----------------------------------------------------------------------------
def strip(fn_text: str, keep_ensures: bool = False) -> str:
    """An exec function without its proof: loop invariants and decreases, proof blocks, asserts, assumes,
    reveals, ghost/tracked lets; and, unless keep_ensures, its `ensures` and `decreases` clauses."""
    masked = mask(fn_text)
    cut: list[tuple[int, int]] = []
    body_open = _body_open(masked, masked.index("("))
    if not keep_ensures:
        marks = _clause_marks(masked, masked.index("("), body_open, FN_CLAUSES)
        for k, (word, at) in enumerate(marks):
            stop = marks[k + 1][1] if k + 1 < len(marks) else body_open
            if word in ("ensures", "decreases"):
                cut.append((at, stop))
    for m in re.finditer(r"\b(while|for|loop)\b", masked[body_open:]):
        at = body_open + m.end()
        loop_body = _loop_body(masked, at)
        first = _first_clause(masked, at, loop_body, LOOP_CLAUSES)
        if first < loop_body:
            cut.append((first, loop_body))
    for m in re.finditer(r"\bproof\s*\{", masked[body_open:]):
        at = body_open + m.start()
        cut.append((at, close_of(masked, body_open + m.end() - 1) + 1))
    statements = r"\b(assert|assume|reveal|reveal_with_fuel)\b\s*[(a-z]|\blet\s+(ghost|tracked)\b"
    words = units(masked)
    for m in re.finditer(statements, masked[body_open:]):
        at = body_open + m.start()
        cut.append((at, statement_end(words, at)))
    return _remove(fn_text, cut)


def _clause_marks(masked: str, start: int, end: int, words: tuple[str, ...]) -> list[tuple[str, int]]:
    start = close_of(masked, start) + 1
    pattern = re.compile(r"\b(" + "|".join(words) + r")\b")
    tops = set(top_level(masked, start, end))
    return [(m[1], m.start()) for m in pattern.finditer(masked, start, end) if m.start() in tops]


def _loop_body(masked: str, at: int) -> int:
    """The `{` opening a loop's body: the first one at the loop header's depth."""
    body = first_group(masked, at)
    if body == len(masked):
        raise ValueError("loop without a body")
    return body


def _remove(text: str, cuts: list[tuple[int, int]]) -> str:
    keep, last = [], 0
    for a, b in sorted(_merge(cuts)):
        keep.append(text[last:a])
        last = b
    keep.append(text[last:])
    lines = "".join(keep).splitlines()
    # a cut leaves blank or whitespace-only lines and dangling spaces before `{`
    out = ["{" if line.strip() == "{" else re.sub(r"\s+\{$", " {", line.rstrip()) if line.strip() else ""
           for line in lines]
    text = "\n".join(out)
    text = re.sub(r"\n(\s*\n)+", "\n", text)
    text = re.sub(r"\)\s*\n\s*\{", ") {", text)  # `fn f(..)\n{` once the clauses between went
    return text.strip("\n") + "\n"


def _merge(cuts: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for a, b in sorted(cuts):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


# -- atoms ----------------------------------------------------------------------------------------
def spec_type(rust_type: str) -> str | None:
    """The spec-level type of a parameter or return type (the view for vectors, slices and strings)."""
    t = rust_type.strip()
    if t in SCALARS:
        return t
    m = re.fullmatch(r"&?\s*(?:Vec<(.+)>|\[(.+)\])", t)
    if m:
        inner = (m[1] or m[2]).strip()
        return f"Seq<{inner}>"
    if t in ("String", "&str"):
        return "Seq<char>"
    return None


def read(root: Path) -> tuple[list[Atom], list[tuple[str, str]]]:
    """Atoms of a verus-bench folder, and the (program or function, reason) pairs that were skipped."""
    root = Path(root).resolve()
    files = sorted(root.glob("*/verified/*.rs"))
    if not files:
        raise InputError(str(root), None, "no <group>/verified/*.rs programs (is this a Verus-Bench folder?)")
    atoms, skipped = [], []
    for path in files:
        program = f"{path.parent.parent.name}/{path.stem}"
        text = path.read_text(encoding="utf-8")
        items = program_items(text, str(path))
        kinds = ("fn", "struct", "enum", "const", "type", "trait")
        names = {it.name for it in items if it.name and it.kind in kinds}
        candidates = [it.fn for it in items if it.fn and it.fn.mode == "exec" and it.fn.name != "main"]
        if not candidates:
            skipped.append((program, "no exec function"))
        for fn in candidates:
            why = _unusable(fn)
            if why:
                skipped.append((f"{program}::{fn.name}", why))
                continue
            atoms.append(_atom(root, path, program, fn, items, names))
    return atoms, skipped


def _unusable(fn: Fn) -> str | None:
    if not fn.ret:
        return "no named return value" if fn.ret_type else "returns nothing"
    if "ensures" not in fn.clauses:
        return "no ensures clause"
    if spec_type(fn.ret[1]) is None:
        return f"return type {fn.ret[1]} has no sequence or scalar view"
    for name, ptype in fn.params:
        if ptype.startswith("&mut"):
            return f"parameter {name} is {ptype} (the chain passes values, not places)"
        if spec_type(ptype) is None:
            return f"parameter {name}: {ptype} has no sequence or scalar view"
    if re.search(r"\bfn\s+\w+\s*<", fn.text.split("(")[0] + "("):
        return "generic function"
    return None


def _atom(root: Path, path: Path, program: str, fn: Fn, items: list[Item], names: set[str]) -> Atom:
    used = _dependencies(fn.name, items, names)
    support = [it for it in items if it.name in used and it.name != fn.name]
    return Atom(
        id=f"proofs/verus/{program}/{fn.name}",
        domain="proofs",
        summary={"title": fn.name, "source": f"verus:{program}", "label": "verus",
                 "in_type": ", ".join(t for _, t in fn.params), "out_type": fn.ret[1] if fn.ret else ""},
        payload={
            "backend": "verus", "program": program, "file": str(path), "name": fn.name,
            "params": [list(p) for p in fn.params], "ret": list(fn.ret) if fn.ret else None,
            "requires": fn.clauses.get("requires", []), "ensures": fn.clauses.get("ensures", []),
            "text": fn.text.strip(),
            # the items of the same program this function needs: spec fns and types stay as they are, exec
            # helpers are stripped like the function, proof fns (lemmas) are proof and go from the task
            "support": [{"kind": it.fn.mode if it.fn else it.kind, "name": it.name, "text": it.text.strip()}
                        for it in support],
            "names": sorted(used),
        },
    )


def _dependencies(name: str, items: list[Item], names: set[str]) -> set[str]:
    by_name = {it.name: it for it in items if it.name in names}
    seen, todo = set(), [name]
    while todo:
        current = todo.pop()
        if current in seen or current not in by_name:
            continue
        seen.add(current)
        words = re.findall(r"\b\w+\b", mask(by_name[current].text))
        todo += [w for w in words if w in by_name and w not in seen]
    return seen
