"""CodeComplex: whole stdin/stdout Python programs turned into typed entry functions (paper Sec. 3.3).

A CodeComplex program reads stdin and prints. `extract` rewrites its AST into a function
`solve(p1: T1, ...) -> R` whose parameters are the values the program reads and whose return value is
what it prints; helper functions stay as they are. The rewrite, in order:

1. Reader plumbing is inlined: `input = sys.stdin.readline`, `I = lambda: int(input())`,
   `def li(): return list(map(int, input().split()))` and the like become the expressions they stand
   for, and fast-IO boilerplate that only wraps stdin/stdout is removed. A `main()` that the program
   ends by calling is the computation.
2. Each read becomes a parameter, typed by how it is parsed: `int(input())` an int,
   `map(int, input().split())` unpacked into names one int each, `list(map(int, input().split()))` a
   list[int], `input()` a str, `input().split()` a list[str]. A read inside a comprehension or a
   `for _ in range(c)` loop becomes one parameter holding every line (`[input() for _ in range(n)]` a
   list[str], a loop reading `u, v = map(int, ...)` a list[list[int]] iterated as `for u, v in rows`).
   Reads must run exactly once each, in program order: a read under an `if`, in a `while` loop or in a
   helper function is not supported.
3. A count that only says how long a later list is stops being a parameter: `n = int(input())` followed
   by `a = list(map(int, input().split()))` gives `solve(a: list[int])` with `n = len(a)` as its first
   line. The first int read, or the list it became the length of, is the size parameter: the "n" of
   the label, which the input generator scales.
4. Each print becomes a return when every print ends the program: followed by `exit()` or `return`,
   or the last statement executed (also through `if`/`else`, and before the `break` of a loop that is
   itself last). `print(x)` returns x, `print(*xs)` returns list(xs), `print(a, b)` the printed line.
   Otherwise the prints write to an io.StringIO and the function returns everything printed, a str.
5. Top-level code moves into the function; names it shares with helpers or module-level set-up are
   declared `global`. Helpers, classes and imports the function never reaches are dropped.

`verify` then keeps an atom only if the function reproduces the original program's output on
generated inputs (both run in the sandbox), and measures, on inputs of growing size, how the size of
its output and its counted cost (cost.py) grow with n; the atom rule (label_rule) sets its label from
the cost. `verify_cached` remembers the outcome by content, so a repeated load costs file reads."""

from __future__ import annotations

import ast
import copy
import hashlib
import json
import math
import os
import random
import symtable
import sys
import tempfile
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from codewalk import paths
from codewalk.errors import InfraError
from codewalk.loaders.codecomplex import ENTRY, Program

from . import growth, run


# -- what extraction produces -------------------------------------------------------------------------
class Unsupported(Exception):
    """The program is outside what the rewrite handles; `reason` is a short code for the drop report."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason, self.detail = reason, detail


@dataclass
class Item:
    """One read of the original program, in read order: what the generator writes to stdin for it.

    kind: "scalars" (one line of ints or words, one name each), "line" (a str), "list" (one line of
    ints or words), "rows" (count lines, each an int, a str, or a line of ints or words).
    elem: "int" or "str". count: Python expression for the number of rows, over scalar names (None:
    the generator's scale). width: number of tokens of each row of a "rows" item (expression, or None).
    inline_count: the program reads the number of rows itself on a line before them.
    """

    kind: str
    names: list[str]
    elem: str
    row: str = ""  # rows: "int", "line", "ints", "words"
    count: str | None = None
    width: str | None = None
    inline_count: bool = False


@dataclass
class Extraction:
    source: str  # the module: kept imports, constants and helpers, then def solve(...)
    entry: str  # the entry function's name: solve, unless a helper has that name
    params: list[tuple[str, str]]  # (name, type) in signature order
    size: int  # index of the size parameter
    items: list[Item]
    out_form: str  # how the original shows the result r: "value" print(r), "spread" print(*r), "write"
    # sys.stdout.write(r), "text" (the program printed more than once; r is everything it printed)
    alphabet: str  # characters for generated strings, from the program's one-character literals
    scalars: list[str] = field(default_factory=list)  # int names read alone, in order (the first is n)

    def as_payload(self) -> dict[str, Any]:
        return {"source": self.source, "entry": self.entry, "params": [list(p) for p in self.params],
                "size": self.size, "items": [vars(i) for i in self.items], "out_form": self.out_form,
                "alphabet": self.alphabet, "scalars": self.scalars}


# -- step 1: reader plumbing ------------------------------------------------------------------------------
EXITS = {"exit", "quit", "sys.exit", "os._exit"}


def _dump(node: ast.AST) -> str:
    return ast.unparse(node)


def _is_raw_read(node: ast.AST) -> bool:
    """A call that reads one line with its newline: sys.stdin.readline(), stdin.readline()."""
    return (isinstance(node, ast.Call) and not node.args and not node.keywords
            and _dump(node.func) in ("sys.stdin.readline", "stdin.readline"))


def _read_kind(node: ast.AST) -> str | None:
    """'line' for a read giving the line without its newline, 'raw' for one keeping it, else None."""
    if isinstance(node, ast.Call) and not node.keywords:
        func = node.func
        if isinstance(func, ast.Name) and func.id == "input" and not node.args:
            return "line"
        if _is_raw_read(node):
            return "raw"
        if (isinstance(func, ast.Attribute) and func.attr in ("strip", "rstrip")
                and _read_kind(func.value) is not None
                and all(isinstance(a, ast.Constant) and isinstance(a.value, str) and not a.value.strip()
                        for a in node.args)):
            return "line"
    return None


def _alias_template(value: ast.AST) -> ast.AST | None:
    """What a call of an alias stands for: `X = sys.stdin.readline` -> sys.stdin.readline()."""
    if _dump(value) in ("sys.stdin.readline", "stdin.readline", "input"):
        return ast.Call(value, [], [])
    if isinstance(value, ast.Lambda) and _no_arguments(value.args):
        return value.body
    return None


def _no_arguments(args: ast.arguments) -> bool:
    return not (args.args or args.vararg or args.kwonlyargs)


def _aliases(stmts: list[ast.stmt]) -> tuple[dict[str, ast.AST], list[ast.stmt]]:
    """Zero-argument reader aliases defined in stmts, and stmts without their definitions."""
    found: dict[str, ast.AST] = {}
    rest = []
    for stmt in stmts:
        template = None
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            template = _alias_template(stmt.value)
            name = stmt.targets[0].id
        elif (isinstance(stmt, ast.FunctionDef) and _no_arguments(stmt.args) and len(stmt.body) == 1
              and isinstance(stmt.body[0], ast.Return) and stmt.body[0].value is not None):
            template, name = stmt.body[0].value, stmt.name
        if template is not None and _mentions_input(template, found):
            found[name] = template
        else:
            rest.append(stmt)
    return found, rest


def _mentions_input(node: ast.AST, aliases: dict[str, ast.AST]) -> bool:
    return any(_read_kind(sub) or _calls(sub, aliases) for sub in ast.walk(node))


def _calls(node: ast.AST, names: dict[str, Any] | set[str]) -> bool:
    """node is a call of one of the names."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names


class _Inline(ast.NodeTransformer):
    """Replace calls of reader aliases by what they stand for (aliases may use earlier aliases)."""

    def __init__(self, aliases: dict[str, ast.AST]):
        self.aliases = aliases

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if _calls(node, self.aliases) and not node.args and not node.keywords:
            return self.visit(copy.deepcopy(self.aliases[node.func.id]))
        return node


def _io_plumbing(stmt: ast.stmt) -> bool:
    """Statements that only rewire stdin/stdout: `sys.stdin, sys.stdout = IOWrapper(...), ...`."""
    if isinstance(stmt, ast.Assign):
        targets = [t for target in stmt.targets
                   for t in (target.elts if isinstance(target, ast.Tuple) else [target])]
        return all(_dump(t) in ("sys.stdin", "sys.stdout") for t in targets)
    return False


# -- step 2: reads to parameters -------------------------------------------------------------------------
@dataclass
class _Parse:
    """A read and how its line is parsed: the parameter type and the expression replacing it."""

    kind: str  # int, line, words, ints, ints_iter
    raw: bool  # the program keeps the newline


def _parse_of(node: ast.AST) -> _Parse | None:
    """Match the largest parse pattern at node: int(R), R, R.split(), [list](map(int, R.split())), ..."""
    kind = _read_kind(node)
    if kind:
        return _Parse("line", kind == "raw")
    if isinstance(node, ast.Call) and not node.keywords:
        func, args = node.func, node.args
        if isinstance(func, ast.Name) and func.id == "int" and len(args) == 1 and _read_kind(args[0]):
            return _Parse("int", False)
        if isinstance(func, ast.Attribute) and func.attr == "split" and _read_kind(func.value) \
                and _spaces(node):
            return _Parse("words", False)
        if isinstance(func, ast.Name) and func.id == "map" and len(args) == 2 and _dump(args[0]) == "int":
            inner = _parse_of(args[1])
            if inner and inner.kind == "words":
                return _Parse("ints_iter", False)
        if isinstance(func, ast.Name) and func.id == "list" and len(args) == 1:
            inner = _parse_of(args[0])
            if inner and inner.kind == "ints_iter":
                return _Parse("ints", False)
    if (isinstance(node, ast.List) and len(node.elts) == 1 and isinstance(node.elts[0], ast.Starred)
            and (inner := _parse_of(node.elts[0].value)) and inner.kind == "ints_iter"):
        return _Parse("ints", False)
    if (isinstance(node, (ast.ListComp, ast.GeneratorExp)) and _one_loop(node)
            and _dump(node.elt) == f"int({node.generators[0].target.id})"):
        inner = _parse_of(node.generators[0].iter)
        if inner and inner.kind == "words":
            return _Parse("ints" if isinstance(node, ast.ListComp) else "ints_iter", False)
    return None


def _spaces(split: ast.Call) -> bool:
    """A split on whitespace or on single spaces (generated lines separate tokens by one space)."""
    args = split.args
    return not args or (len(args) == 1 and isinstance(args[0], ast.Constant) and args[0].value == " ")


def _one_loop(node: ast.ListComp | ast.GeneratorExp) -> bool:
    """A comprehension over one iterable, with no condition and a plain loop variable."""
    return (len(node.generators) == 1 and not node.generators[0].ifs
            and isinstance(node.generators[0].target, ast.Name))


FRESH = {"int": "x", "line": "s", "words": "words", "ints": "a", "ints_iter": "a"}  # names for unnamed reads
PARAM_TYPE = {"int": "int", "line": "str", "words": "list[str]", "ints": "list[int]",
              "ints_iter": "list[int]"}
ROW_OF = {"int": "int", "line": "line", "words": "words", "ints": "ints", "ints_iter": "ints"}
ROWS_TYPE = {"int": "list[int]", "line": "list[str]", "words": "list[list[str]]", "ints": "list[list[int]]"}
# What a row count may be made of: earlier int scalars and arithmetic (the generator evaluates it).
COUNT_NODES = (ast.Name, ast.Load, ast.Constant, ast.BinOp, ast.UnaryOp, ast.Add, ast.Sub, ast.Mult,
               ast.FloorDiv, ast.USub)
ITERABLE_CONSUMERS = {"list", "tuple", "set", "sorted", "sum", "max", "min", "frozenset", "Counter", "deque",
                      "enumerate", "reversed"}


def _contains_read(node: ast.AST) -> bool:
    return any(_read_kind(sub) for sub in ast.walk(node))


def _names_loaded(node: ast.AST) -> set[str]:
    return {sub.id for sub in ast.walk(node) if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load)}


def _names_stored(nodes: list[ast.AST]) -> set[str]:
    names: set[str] = set()
    for node in nodes:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                names.add(sub.id)
            elif isinstance(sub, (ast.FunctionDef, ast.ClassDef)):
                names.add(sub.name)
            elif isinstance(sub, ast.alias):
                names.add((sub.asname or sub.name).split(".")[0])
    return names


class _Reads:
    """Turns the reads of the entry body into parameters and generator items, in read order."""

    def __init__(self, body: list[ast.stmt]):
        self.taken = _names_stored(body) | _names_loaded(ast.Module(body, []))
        self.params: list[tuple[str, str]] = []
        self.items: list[Item] = []
        self.scalars: list[str] = []  # int scalars read alone, in order
        self.counts: dict[str, str] = {}  # a scalar that only counts a rows param -> that param

    def fresh(self, stem: str) -> str:
        name, k = stem, 1
        while name in self.taken:
            k += 1
            name = f"{stem}{k}"
        self.taken.add(name)
        return name

    def add(self, name: str, ptype: str, item: Item) -> None:
        self.params.append((name, ptype))
        self.items.append(item)

    # one statement of the body, at top level
    def statement(self, stmt: ast.stmt, stored_before: set[str]) -> list[ast.stmt]:
        if not _contains_read(stmt):
            return [stmt]
        target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
        # `x = <read>` can become parameter x only if nothing set x before the read.
        fresh_target = target is not None and not (_names_stored([target]) & stored_before)
        if fresh_target:
            done = self._assignment(target, stmt.value)
            if done is not None:
                return done
        if isinstance(stmt, ast.For):
            return [self._loop(stmt)]
        if isinstance(stmt, ast.While):
            raise Unsupported("read_in_while", "a read inside a while loop")
        if isinstance(stmt, (ast.If, ast.Try, ast.With, ast.FunctionDef, ast.ClassDef)):
            raise Unsupported("conditional_read", f"a read inside {type(stmt).__name__.lower()}")
        # `a = sorted(map(int, input().split()))` -> parameter a and `a = sorted(a)`
        reusable = (fresh_target and isinstance(target, ast.Name)
                    and target.id not in _names_loaded(stmt.value))
        return [self._substitute(stmt, target.id if reusable else None)]

    def _assignment(self, target: ast.expr, value: ast.expr) -> list[ast.stmt] | None:
        parse = _parse_of(value)
        if parse is None:
            if isinstance(target, ast.Name) and isinstance(value, ast.ListComp):
                rows = self._rows_comprehension(value, name=target.id)
                if isinstance(rows, ast.Name) and rows.id == target.id:
                    return []
                if rows is not None:
                    return [ast.Assign([target], rows)]
            return None
        if _names_tuple(target):
            if parse.kind not in ("ints_iter", "words", "ints"):
                raise Unsupported("unpacked_read", _dump(value))
            names = [e.id for e in target.elts]
            elem = "str" if parse.kind == "words" else "int"
            for name in names:
                self.params.append((name, elem))
            self.items.append(Item("scalars", names, elem))
            if elem == "int":
                self.scalars += names
            return []
        if isinstance(target, ast.Name):
            name = target.id
            if parse.kind == "int":
                self.add(name, "int", Item("scalars", [name], "int"))
                self.scalars.append(name)
                return []
            self.add(name, PARAM_TYPE[parse.kind], self._line_item(name, parse))
            if parse.raw:  # the program sees the newline: give it back
                return [ast.parse(f"{name} = {name} + '\\n'").body[0]]
            if parse.kind == "ints_iter":
                return [ast.parse(f"{name} = iter({name})").body[0]]
            return []
        return None

    def _line_item(self, name: str, parse: _Parse) -> Item:
        if parse.kind == "line":
            return Item("line", [name], "str")
        return Item("list", [name], "int" if parse.kind in ("ints", "ints_iter") else "str")

    def _substitute(self, stmt: ast.stmt, stem: str | None) -> ast.stmt:
        """Replace each parse inside a statement by a fresh parameter (a comprehension read by a list)."""
        reads = self

        class Sub(ast.NodeTransformer):
            def __init__(self) -> None:
                self.consumer = False

            def visit_Call(self, node: ast.Call) -> ast.AST:
                parse = _parse_of(node)
                if parse is None:
                    consumer = isinstance(node.func, ast.Name) and node.func.id in ITERABLE_CONSUMERS
                    node.func = self.visit(node.func)
                    new_args = []
                    for k, arg in enumerate(node.args):
                        self.consumer = consumer and k == 0
                        new_args.append(self.visit(arg))
                    self.consumer = False
                    node.args = new_args
                    node.keywords = [self.visit(kw) for kw in node.keywords]
                    return node
                return self.replace(node, parse)

            def visit_ListComp(self, node: ast.ListComp) -> ast.AST:
                return self.comprehension(node)

            def visit_GeneratorExp(self, node: ast.GeneratorExp) -> ast.AST:
                return self.comprehension(node)

            def comprehension(self, node: ast.ListComp | ast.GeneratorExp) -> ast.AST:
                if _parse_of(node) is not None:
                    return self.replace(node, _parse_of(node))
                rows = reads._rows_comprehension(node)
                if rows is not None:
                    return rows
                first = node.generators[0]
                if not _contains_read(ast.Module([ast.Expr(node.elt)] + node.generators[1:] + first.ifs, [])):
                    first.iter = self.visit(first.iter)  # the first iterable is evaluated once
                    return node
                return self.repeated(node)

            def visit_SetComp(self, node: ast.SetComp) -> ast.AST:
                return self.repeated(node)

            def visit_DictComp(self, node: ast.DictComp) -> ast.AST:
                return self.repeated(node)

            def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
                return self.repeated(node)

            def repeated(self, node: ast.AST) -> ast.AST:
                if _contains_read(node):
                    raise Unsupported("read_in_comprehension", _dump(node)[:80])
                return node

            def replace(self, node: ast.AST, parse: _Parse) -> ast.AST:
                nonlocal stem
                consumer, self.consumer = self.consumer, False
                name, stem = (stem, None) if stem else (reads.fresh(FRESH[parse.kind]), None)
                reads.add(name, PARAM_TYPE[parse.kind], reads._line_item(name, parse) if parse.kind != "int"
                          else Item("scalars", [name], "int"))
                if parse.kind == "int":
                    reads.scalars.append(name)
                if parse.raw:
                    return ast.parse(f"{name} + '\\n'", mode="eval").body
                if parse.kind == "ints_iter" and not consumer:
                    return ast.parse(f"iter({name})", mode="eval").body
                return ast.Name(name, ast.Load())

            def generic_visit(self, node: ast.AST) -> ast.AST:
                self.consumer = False
                return super().generic_visit(node)

        out = Sub().visit(stmt)
        if _contains_read(out):
            raise Unsupported("unsupported_read", _dump(stmt)[:80])
        return out

    def _rows_comprehension(self, node: ast.ListComp | ast.GeneratorExp,
                            name: str | None = None) -> ast.AST | None:
        """[P for _ in range(c)] (or P inside a larger element) -> a rows parameter."""
        if not _one_loop(node):
            return None
        gen = node.generators[0]
        count = self._range_count(gen.iter)
        parses = _outer_parses(node.elt)
        if count is None or len(parses) != 1 or _read_count(node.elt) != 1:
            return None
        sub, parse = parses[0]
        if parse.raw:
            raise Unsupported("raw_line_rows", _dump(node)[:80])
        name = name or self.fresh("rows")
        self._rows(name, parse, count, width=None)
        uses_var = gen.target.id in _names_loaded(node.elt)
        if sub is node.elt and isinstance(node, ast.ListComp) and parse.kind != "ints_iter" and not uses_var:
            return ast.Name(name, ast.Load())
        row = self.fresh("row")
        elt = _replace_node(node.elt, sub, ast.Name(row, ast.Load()))
        target, iter_ = _row_iteration(gen.target.id if uses_var else None, gen.iter, row, name)
        return type(node)(elt, [ast.comprehension(target, iter_, [], 0)])

    def _range_count(self, node: ast.expr) -> tuple[str | None, bool] | None:
        """The number of iterations of range(...) as an expression over earlier scalars, and whether
        the program reads it inline (range(int(input())))."""
        if not (isinstance(node, ast.Call) and _dump(node.func) == "range" and 1 <= len(node.args) <= 2
                and not node.keywords):
            return None
        if len(node.args) == 1 and _parse_of(node.args[0]) and _parse_of(node.args[0]).kind == "int":
            return (None, True)
        simple = all(isinstance(n, COUNT_NODES) for arg in node.args for n in ast.walk(arg))
        if _contains_read(node) or not simple:
            return None
        if not _names_loaded(node) - {"range"} <= set(self.scalars):
            return None
        return (f"len({_dump(node)})", False)

    def _rows(self, name: str, parse: _Parse, count: tuple[str | None, bool], width: str | None) -> None:
        expr, inline = count
        row = ROW_OF[parse.kind]
        ptype = ROWS_TYPE[row]
        self.params.append((name, ptype))
        self.items.append(Item("rows", [name], "str" if row in ("line", "words") else "int", row=row,
                               count=expr, width=width, inline_count=inline))
        # a count that is exactly one earlier int scalar becomes len(rows) (see _couple)
        if expr is not None:
            scalar = expr.removeprefix("len(range(").removesuffix("))")
            if scalar in self.scalars and scalar not in self.counts:
                self.counts[scalar] = name

    def _loop(self, loop: ast.For) -> ast.stmt:
        """for v in range(c): ... one read statement ... -> for <target> in rows: ..."""
        count = self._range_count(loop.iter)
        reading = [k for k, s in enumerate(loop.body) if _contains_read(s)]
        if count is None or loop.orelse and _contains_read(ast.Module(loop.orelse, [])):
            raise Unsupported("read_loop", "a read in a loop other than for _ in range(count)")
        if len(reading) != 1:
            raise Unsupported("read_loop", f"{len(reading)} reading statements in one loop")
        k = reading[0]
        stmt = loop.body[k]
        if isinstance(stmt, (ast.If, ast.While, ast.For, ast.Try, ast.With)):
            raise Unsupported("conditional_read", "a read nested inside a loop")
        var = loop.target.id if isinstance(loop.target, ast.Name) else None
        if var is None:
            raise Unsupported("read_loop", "loop target is not a name")
        uses_var = var in _names_loaded(ast.Module(loop.body + loop.orelse, []))
        name = self.fresh("rows")
        body = list(loop.body)
        target: ast.expr
        parse = _parse_of(stmt.value) if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
        if parse is not None and not parse.raw:
            t = stmt.targets[0]
            if _names_tuple(t) and parse.kind in ("ints_iter", "ints", "words"):  # u, v = map(int, ...)
                row = _Parse("words" if parse.kind == "words" else "ints", False)
                self._rows(name, row, count, width=str(len(t.elts)))
                target = t
            elif isinstance(t, ast.Name):
                self._rows(name, parse, count, width=None)
                target = t
                if parse.kind == "ints_iter":
                    body.insert(k + 1, ast.parse(f"{t.id} = iter({t.id})").body[0])
            else:
                raise Unsupported("read_loop", _dump(stmt)[:80])
            del body[k]
        else:
            parses = _outer_parses(stmt)
            if len(parses) != 1 or _read_count(stmt) != 1 or parses[0][1].raw:
                raise Unsupported("read_loop", _dump(stmt)[:80])
            sub, parse = parses[0]
            self._rows(name, parse, count, width=None)
            row = self.fresh("row")
            target = ast.Name(row, ast.Store())
            consumer = parse.kind == "ints_iter"
            value = ast.parse(f"iter({row})" if consumer else row, mode="eval").body
            body[k] = _replace_node(stmt, sub, value)
        target = copy.deepcopy(target)
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                node.ctx = ast.Store()
        target, iter_ = _row_iteration(var if uses_var else None, loop.iter, target, name)
        if not body:
            body = [ast.Pass()]
        return ast.For(target, iter_, body, loop.orelse, None)


def _row_iteration(var: str | None, range_call: ast.Call, row: ast.expr | str,
                   rows: str) -> tuple[ast.expr, ast.expr]:
    """Target and iterable that walk a rows parameter where the program looped over range(...):
    `row in rows`, or `i, row in enumerate(rows)` when the loop variable is used."""
    row = ast.Name(row, ast.Store()) if isinstance(row, str) else row
    rows_name = ast.Name(rows, ast.Load())
    if var is None:
        return row, rows_name
    if len(range_call.args) == 1:
        iter_ = ast.Call(ast.Name("enumerate", ast.Load()), [rows_name], [])
    else:
        iter_ = ast.Call(ast.Name("zip", ast.Load()), [range_call, rows_name], [])
    return ast.Tuple([ast.Name(var, ast.Store()), row], ast.Store()), iter_


def _names_tuple(node: ast.AST) -> bool:
    return isinstance(node, ast.Tuple) and all(isinstance(e, ast.Name) for e in node.elts)


def _outer_parses(node: ast.AST) -> list[tuple[ast.AST, _Parse]]:
    """The outermost parse patterns inside node (not the smaller ones they contain)."""
    parse = _parse_of(node)
    if parse is not None:
        return [(node, parse)]
    return [found for child in ast.iter_child_nodes(node) for found in _outer_parses(child)]


def _read_count(node: ast.AST) -> int:
    """How many reads node makes (`input().strip()` is one read, not two)."""
    if _read_kind(node):
        return 1
    return sum(_read_count(child) for child in ast.iter_child_nodes(node))


def _replace_node(tree: ast.AST, old: ast.AST, new: ast.AST) -> ast.AST:
    class R(ast.NodeTransformer):
        def visit(self, node: ast.AST) -> ast.AST:
            return new if node is old else super().visit(node)

    return R().visit(tree)


# -- step 4: prints to returns --------------------------------------------------------------------------
def _call_name(stmt: ast.stmt) -> str | None:
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        return _dump(stmt.value.func)
    return None


def _is_exit(stmt: ast.stmt) -> bool:
    if _call_name(stmt) not in EXITS:
        return False
    args = stmt.value.args
    if args and not (isinstance(args[0], ast.Constant) and args[0].value in (0, None)):
        raise Unsupported("exit_status", _dump(stmt))
    return True


class _Outputs:
    def __init__(self) -> None:
        self.forms: set[str] = set()

    def returned(self, stmt: ast.Expr) -> ast.Return:
        call = stmt.value
        name = _dump(call.func)
        if name in ("sys.stdout.write", "stdout.write"):
            self.forms.add("write")
            return ast.Return(call.args[0])
        if call.keywords:
            raise Unsupported("print_keywords", _dump(stmt)[:80])
        args = call.args
        if len(args) == 1 and isinstance(args[0], ast.Starred):
            self.forms.add("spread")
            return ast.Return(ast.Call(ast.Name("list", ast.Load()), [args[0].value], []))
        self.forms.add("value")
        if not args:
            return ast.Return(ast.Constant(""))
        if len(args) == 1:
            return ast.Return(args[0])
        if any(isinstance(a, ast.Starred) for a in args):
            raise Unsupported("print_starred", _dump(stmt)[:80])
        parts: list[ast.expr] = []
        for k, a in enumerate(args):
            if k:
                parts.append(ast.Constant(" "))
            parts.append(ast.FormattedValue(a, -1, None))
        return ast.Return(ast.JoinedStr(parts))

    def block(self, stmts: list[ast.stmt], tail: bool, loop_tail: bool | None) -> list[ast.stmt]:
        """Rewrite a block. tail: falling off its end ends the program. loop_tail: inside a loop
        (None: not in one), whether leaving that loop by break ends the program."""
        out: list[ast.stmt] = []
        k = 0
        while k < len(stmts):
            stmt = stmts[k]
            last = k == len(stmts) - 1
            nxt = stmts[k + 1] if not last else None
            if isinstance(stmt, ast.Expr) and _is_output(stmt.value):
                ends = (last and tail) or (nxt is not None and (
                    _is_exit(nxt) or (isinstance(nxt, ast.Return) and nxt.value is None)
                    or (isinstance(nxt, ast.Break) and loop_tail)))
                if not ends:
                    raise Unsupported("print_not_final", _dump(stmt)[:80])
                out.append(self.returned(stmt))
                k += 2 if nxt is not None and not last else 1
                continue
            if _is_exit(stmt):
                out.append(ast.Return(None))
            elif isinstance(stmt, ast.If):
                stmt.body = self.block(stmt.body, tail and last, loop_tail)
                stmt.orelse = self.block(stmt.orelse, tail and last, loop_tail)
                out.append(stmt)
            elif isinstance(stmt, (ast.For, ast.While)):
                stmt.body = self.block(stmt.body, False, tail and last)
                stmt.orelse = self.block(stmt.orelse, tail and last, loop_tail)
                out.append(stmt)
            elif isinstance(stmt, ast.With):
                stmt.body = self.block(stmt.body, tail and last, loop_tail)
                out.append(stmt)
            elif isinstance(stmt, ast.Try):
                plain = not stmt.orelse and not stmt.finalbody
                stmt.body = self.block(stmt.body, tail and last and plain, loop_tail)
                for h in stmt.handlers:
                    h.body = self.block(h.body, tail and last and plain, loop_tail)
                stmt.orelse = self.block(stmt.orelse, tail and last and not stmt.finalbody, loop_tail)
                stmt.finalbody = self.block(stmt.finalbody, False, loop_tail)
                out.append(stmt)
            else:
                if _prints(stmt):
                    raise Unsupported("print_not_final", _dump(stmt)[:80])
                out.append(stmt)
            k += 1
        return out


def _is_output(node: ast.AST) -> bool:
    """A call that writes to stdout: print (not to another file) or sys.stdout.write."""
    if not isinstance(node, ast.Call):
        return False
    name = _dump(node.func)
    if name == "print":
        file = next((kw.value for kw in node.keywords if kw.arg == "file"), None)
        return file is None or _dump(file) in ("sys.stdout", "stdout")
    return name in ("sys.stdout.write", "stdout.write")


def _prints(node: ast.AST) -> bool:
    return any(_is_output(sub) for sub in ast.walk(node))


def _collect(body: list[ast.stmt], buffer: str) -> list[ast.stmt]:
    """The fallback for programs that print more than once: every print writes to an io.StringIO
    `buffer` instead of stdout, and the function returns what was written."""
    value = ast.parse(f"{buffer}.getvalue()", mode="eval").body

    class Redirect(ast.NodeTransformer):
        def __init__(self) -> None:
            self.depth = 0  # inside a nested function: exit() and return mean something else there

        def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
            self.depth += 1
            self.generic_visit(node)
            self.depth -= 1
            return node

        visit_Lambda = visit_FunctionDef

        def visit_Call(self, node: ast.Call) -> ast.AST:
            self.generic_visit(node)
            if not _is_output(node):
                return node
            if _dump(node.func) != "print":
                node.func = ast.Attribute(ast.Name(buffer, ast.Load()), "write", ast.Load())
                return node
            node.keywords = [kw for kw in node.keywords if kw.arg != "file"]
            node.keywords.append(ast.keyword("file", ast.Name(buffer, ast.Load())))
            return node

        def visit_Expr(self, node: ast.Expr) -> ast.AST:
            if _is_exit(node):
                if self.depth:
                    raise Unsupported("exit_in_function", _dump(node))
                return ast.Return(copy.deepcopy(value))
            return self.generic_visit(node)

        def visit_Return(self, node: ast.Return) -> ast.AST:
            if not self.depth and node.value is None:
                return ast.Return(copy.deepcopy(value))
            return self.generic_visit(node)

    new = [Redirect().visit(stmt) for stmt in body]
    return [ast.parse(f"{buffer} = io.StringIO()").body[0], *new, ast.Return(value)]


# -- the whole rewrite ---------------------------------------------------------------------------------------
DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)


def _main_call(code: list[ast.stmt], defs: dict[str, ast.stmt]) -> str | None:
    """The zero-argument function that the program's top-level code ends by calling, if it does."""
    if not code:
        return None
    stmt = code[-1]
    if _main_guard(stmt):
        inner = [s for s in stmt.body if not _setup(s)]
        if len(inner) != 1:
            return None
        stmt = inner[0]
    if not isinstance(stmt, ast.Expr) or not isinstance(stmt.value, ast.Call):
        return None
    call = stmt.value
    # threading.Thread(target=main).start() runs main just the same
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "start" and isinstance(func.value, ast.Call):
        thread = func.value
        target = next((kw.value for kw in thread.keywords if kw.arg == "target"), None)
        if _dump(thread.func) in ("threading.Thread", "Thread") and target:
            call = ast.Call(target, [], [])
    name = _dump(call.func)
    function = defs.get(name)
    if isinstance(function, ast.FunctionDef) and not (call.args or call.keywords or function.args.args):
        return name
    return None


def _main_guard(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.If) and "__name__" in _dump(stmt.test) and not stmt.orelse


def _string_statement(stmt: ast.stmt) -> bool:
    """A bare string literal: a docstring or commented-out code, nothing the program computes."""
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) \
        and isinstance(stmt.value.value, str)


def _setup(stmt: ast.stmt) -> bool:
    """Interpreter set-up that is not the program's computation: recursion limit, thread stack size."""
    return _call_name(stmt) in ("sys.setrecursionlimit", "setrecursionlimit", "threading.stack_size")


def _alphabet(tree: ast.AST) -> str:
    """Characters for generated strings: the one-character literals the program compares with (at least
    two; filled up from "abc")."""
    chars = sorted({n.value for n in ast.walk(tree)
                    if isinstance(n, ast.Constant) and isinstance(n.value, str) and len(n.value) == 1
                    and n.value.isprintable() and not n.value.isspace()})
    letters = "".join(c for c in chars if c.isalnum() or c in "()[]{}<>+-*/.#?!&|^@$%=_")
    return letters if len(letters) >= 2 else "".join(dict.fromkeys(letters + "abc"))[:3]


UNSUPPORTED_INPUT = ("sys.stdin.read(", "stdin.read(", "open(0", "readlines", "sys.stdin.buffer", "raw_input")


@dataclass
class _Program:
    """A parsed program split into what stays at module level and the computation."""

    top: list[ast.stmt]  # module statements in order (reader aliases removed)
    helpers: list[ast.stmt]  # functions, classes and imports
    module_code: list[ast.stmt]  # set-up that stays at module level (constants, recursion limit)
    body: list[ast.stmt]  # the computation: becomes the entry function's body
    in_function: bool  # the body was a main() function's: its names are locals already
    aliases: dict[str, ast.AST]


def extract(src: str) -> Extraction:
    """The typed entry function of a stdin/stdout program; Unsupported says why not."""
    try:
        with warnings.catch_warnings():  # invalid escapes in old submissions are the program's business
            warnings.simplefilter("ignore")
            tree = ast.parse(src)
    except SyntaxError as e:
        raise Unsupported("syntax_error", str(e.msg)) from None
    if any(w in src for w in UNSUPPORTED_INPUT):
        raise Unsupported("unsupported_input", "reads stdin other than line by line")
    program = _split(tree)
    reads = _Reads(program.body + program.helpers + program.module_code)
    body: list[ast.stmt] = []
    for k, stmt in enumerate(program.body):
        body += reads.statement(stmt, _names_stored(program.body[:k]))
    if not reads.params:
        raise Unsupported("no_reads", "no read became a parameter")
    body = _couple(reads, body)
    body, out_form = _returns(body, reads, program)
    params = [(name, ptype) for name, ptype in reads.params if name not in reads.counts]
    body, spelled = _globals(body, {name for name, _ in params}, reads, program)
    taken = _names_stored(program.helpers + program.module_code)
    entry = ENTRY if ENTRY not in taken else f"{ENTRY}_entry"
    arguments = [ast.arg(spelled.get(name, name), ast.parse(ptype, mode="eval").body)
                 for name, ptype in params]
    function = ast.FunctionDef(name=entry, args=ast.arguments([], arguments, None, [], [], None, []),
                               body=body or [ast.Pass()], decorator_list=[], returns=None, type_params=[])
    kept = [s for s in program.top if any(s is k for k in program.helpers + program.module_code)]
    source = ast.unparse(ast.fix_missing_locations(ast.Module([*_reachable(kept, function), function], [])))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(source, "solve.py", "exec")
    except SyntaxError as e:
        raise Unsupported("rewrite_invalid", str(e)) from None
    return Extraction(source=source, entry=entry, params=params, size=_size_param(reads, params, function),
                      items=reads.items, out_form=out_form, alphabet=_alphabet(tree), scalars=reads.scalars)


def _noise(stmt: ast.stmt) -> bool:
    return _io_plumbing(stmt) or _string_statement(stmt)


def _split(tree: ast.Module) -> _Program:
    """Inline reader aliases, and find the computation: the body of a main() the program ends by
    calling, else its top-level code after the set-up that precedes the first read."""
    aliases, top = _aliases(tree.body)
    top = [_Inline(aliases).visit(s) for s in top if not _noise(s)]
    defs = {s.name: s for s in top if isinstance(s, (ast.FunctionDef, ast.ClassDef))}
    code = [s for s in top if not isinstance(s, DEFS)]
    main = _main_call(code, defs)
    if main is not None:
        helpers = [s for s in top if isinstance(s, DEFS) and getattr(s, "name", None) != main]
        module_code = code[:-1]
        if any(_contains_read(s) or _prints(s) for s in module_code):
            raise Unsupported("top_level_io", "reads or prints outside the main function")
        main_aliases, body = _aliases(defs[main].body)
        aliases |= main_aliases
        body = [_Inline(aliases).visit(s) for s in body if not _noise(s)]
        program = _Program(top, helpers, module_code, body, True, aliases)
    else:
        helpers = [s for s in top if isinstance(s, DEFS)]
        if len(code) == 1 and _main_guard(code[0]):  # if __name__ == "__main__": <the program>
            k = top.index(code[0])
            top = top[:k] + code[0].body + top[k + 1:]
            code = code[0].body
        first = next((k for k, s in enumerate(code) if _contains_read(s)), len(code))
        # Set-up before the first read stays at module level, where helpers can see it as before.
        setup = [s for s in code[:first]
                 if isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign)) or _setup(s)]
        body = [s for s in code if s not in setup]
        program = _Program(top, helpers, setup, body, False, aliases)
    for helper in program.helpers:
        if _contains_read(helper) or any(_calls(sub, aliases) for sub in ast.walk(helper)):
            raise Unsupported("read_in_helper", getattr(helper, "name", ""))
        if isinstance(helper, (ast.FunctionDef, ast.ClassDef)) and _prints(helper):
            raise Unsupported("print_in_helper", helper.name)
    if not any(_contains_read(s) for s in program.body):
        raise Unsupported("no_reads", "the program reads nothing line by line")
    return program


def _returns(body: list[ast.stmt], reads: _Reads, program: _Program) -> tuple[list[ast.stmt], str]:
    """Prints become returns; a program whose prints do not all end it returns what it printed."""
    if not _prints(ast.Module(body, [])):
        raise Unsupported("no_output", "the program prints nothing")
    try:
        outputs = _Outputs()
        returning = outputs.block(copy.deepcopy(body), tail=True, loop_tail=None)
        if len(outputs.forms) != 1 or _prints(ast.Module(returning, [])):
            raise Unsupported("print_not_final")
        return returning, outputs.forms.pop()
    except Unsupported as e:
        if e.reason not in ("print_not_final", "print_keywords", "print_starred"):
            raise
    io_import = ast.Import([ast.alias("io")])
    program.top.insert(0, io_import)
    program.helpers.insert(0, io_import)
    return _collect(body, reads.fresh("out")), "text"


def _globals(body: list[ast.stmt], params: set[str], reads: _Reads,
             program: _Program) -> tuple[list[ast.stmt], dict[str, str]]:
    """Declare global, at the top of the body, what must stay global: names the body declares global
    itself, and (for top-level code moved into the function, where they would become locals) names it
    shares with helpers or module-level set-up. A parameter cannot be global, so such a parameter takes
    another name in the signature (returned) and is assigned to the global first thing."""
    body, shared = _pop_globals(body)
    if not program.in_function:
        outside = _helper_globals(program.helpers) | _names_stored(program.module_code)
        shared |= outside & (_names_stored(body) | params)
    spelled = {name: reads.fresh(f"{name}_") for name in sorted(shared & params)}
    prologue: list[ast.stmt] = [ast.Global(sorted(shared))] if shared else []
    prologue += [ast.parse(f"{name} = {alias}").body[0] for name, alias in spelled.items()]
    return prologue + body, spelled


def _pop_globals(body: list[ast.stmt]) -> tuple[list[ast.stmt], set[str]]:
    """The body without its global statements (not those of functions it defines), and their names."""
    names: set[str] = set()

    class Pop(ast.NodeTransformer):
        def visit_Global(self, node: ast.Global) -> ast.AST:
            names.update(node.names)
            return ast.Pass()

        def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
            return node

        visit_Lambda = visit_ClassDef = visit_AsyncFunctionDef = visit_FunctionDef

    return [Pop().visit(stmt) for stmt in body], names


def _couple(reads: _Reads, body: list[ast.stmt]) -> list[ast.stmt]:
    """Counts that only give a list's length stop being parameters: `n = len(rows)` instead.

    Explicit counts come from comprehensions and loops (`range(n)`). The first int read alone is also
    taken as the length of the whole-line lists and strings read after it, the usual "n, then n
    values" input; the generator writes them that long, and it becomes len() of the first of them.
    """
    first = reads.scalars[0] if reads.scalars else None
    if first is not None and first not in reads.counts:
        seen = False
        for item in reads.items:
            if first in item.names:
                seen = True
            elif seen and item.kind in ("list", "line") and item.count is None:
                reads.counts[first] = item.names[0]
                break
    if first is not None:
        after = False
        for item in reads.items:
            if first in item.names:
                after = True
            elif after and item.kind in ("list", "line") and item.count is None:
                item.count = first
    return [ast.parse(f"{scalar} = len({rows})").body[0] for scalar, rows in reads.counts.items()] + body


def _size_param(reads: _Reads, params: list[tuple[str, str]], function: ast.FunctionDef) -> int:
    """The parameter the label's n measures, which the generator scales: the first int read alone, or
    the list it became the length of; without ints, the first list or str the function uses."""
    names = [name for name, _ in params]
    if reads.scalars:
        first = reads.scalars[0]
        return names.index(reads.counts.get(first, first))
    used = _names_loaded(function)
    return next((k for k, (name, t) in enumerate(params) if t != "int" and name in used),
                next((k for k, (name, _) in enumerate(params) if name in used), 0))


def _helper_globals(helpers: list[ast.stmt]) -> set[str]:
    """Names that helper functions (and methods, and functions nested in them) read or set as globals."""
    names: set[str] = set()

    def walk(table: symtable.SymbolTable) -> None:
        if isinstance(table, symtable.Function):
            names.update(table.get_globals())
        for child in table.get_children():
            walk(child)

    for helper in helpers:
        if isinstance(helper, (ast.FunctionDef, ast.ClassDef)):
            walk(symtable.symtable(ast.unparse(helper), "helper", "exec"))
    return names


def _reachable(stmts: list[ast.stmt], function: ast.FunctionDef) -> list[ast.stmt]:
    """The statements the entry function needs, transitively, in their original order. Statements that
    bind nothing (sys.setrecursionlimit(...)) and star imports are always kept."""
    needed = _uses(function)
    keep: set[int] = set()
    changed = True
    while changed:
        changed = False
        for k, stmt in enumerate(stmts):
            bound = _bound(stmt)
            if k not in keep and ("*" in bound or bound & needed or not (bound or isinstance(stmt, DEFS))):
                keep.add(k)
                needed |= _uses(stmt)
                changed = True
    kept = []
    for k, stmt in enumerate(stmts):
        if k not in keep:
            continue
        if isinstance(stmt, (ast.Import, ast.ImportFrom)) and "*" not in _bound(stmt):
            stmt.names = [a for a in stmt.names if (a.asname or a.name).split(".")[0] in needed]
            if not stmt.names:
                continue
        kept.append(stmt)
    return kept


def _bound(stmt: ast.stmt) -> set[str]:
    """The names a module-level statement binds (not the locals of a function it defines)."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {stmt.name}
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in stmt.names}
    return _names_stored([stmt])


def _uses(node: ast.AST) -> set[str]:
    """Names node reads, and the globals it declares (it may only write them)."""
    declared = {n for sub in ast.walk(node) if isinstance(sub, ast.Global) for n in sub.names}
    return _names_loaded(node) | declared

# -- inputs --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Strategy:
    """How the generator fills what the read pattern leaves open. The first strategy on which the
    original program runs cleanly is kept for the atom.

    free: ints read besides the first ("scale": 1..s, "small": 1..3); elems: list and row values
    ("scale": 1..s, "small": 1..9); words: str tokens ("alpha": letters of the program's alphabet,
    "digits": numbers); width: rows of tokens of unknown width ("pair": 2, "count": as many as rows).
    """

    name: str
    free: str
    elems: str
    words: str
    width: str


STRATEGIES = (
    Strategy("scaled", free="scale", elems="scale", words="alpha", width="pair"),
    Strategy("square", free="scale", elems="scale", words="alpha", width="count"),
    Strategy("digits", free="scale", elems="small", words="digits", width="pair"),
    Strategy("small", free="small", elems="small", words="alpha", width="pair"),
)
# Each strategy again with every int besides n held in 1..3: never tried at load; model.pinned_growth measures
# a chain's first link under it, to see whether the value handed on hangs on those ints rather than on n.
PINNED = {f"{s.name}-pinned": Strategy(f"{s.name}-pinned", "small", s.elems, s.words, s.width) for s in STRATEGIES}
STRATEGY = {s.name: s for s in STRATEGIES} | PINNED
MAX_TOKENS = 60_000  # the largest input the generator writes


class TooLarge(Exception):
    """The input at this scale would exceed MAX_TOKENS."""


def randints(rng: random.Random, high: int, n: int) -> list[int]:
    """n draws of rng.randint(1, high): the same values in the same order (randint(1, high) is 1 plus
    bits drawn until below high, as Random._randbelow does; tests/test_complexity_extract.py pins it),
    a few times faster than n calls. Inputs are drawn for every composite check (2) measures."""
    if n and high < 1:
        raise ValueError(f"empty range for randint(1, {high})")  # bits(0) is always 0: it would never end
    bits, k = rng.getrandbits, high.bit_length()
    out = []
    for _ in range(n):
        r = bits(k)
        while r >= high:
            r = bits(k)
        out.append(r + 1)
    return out


def generate(payload: dict[str, Any], scale: int, strategy: str, rng: random.Random,
             skip: str | None = None, max_tokens: int = MAX_TOKENS) -> tuple[str, list[Any]]:
    """A random input of size `scale`: the stdin text for the original program and the entry's arguments.

    The first int read is the scale itself; lists and strings after it are that long (a count that
    became len() stays consistent by construction). `skip` leaves one parameter out of the stdin
    text: the one a composite's previous stage supplies.
    """
    how = STRATEGY[strategy]
    items = [Item(**i) if isinstance(i, dict) else i for i in payload["items"]]
    alphabet = payload["alphabet"]
    first = payload["scalars"][0] if payload["scalars"] else None
    values: dict[str, Any] = {}
    tokens = 0

    def free() -> int:
        return rng.randint(1, scale if how.free == "scale" else 3)

    def elems(n: int) -> list[int]:
        return randints(rng, scale if how.elems == "scale" else 9, n)

    def text(length: int) -> str:
        if length > max_tokens:  # a word as long as a number of 4096 bits
            raise TooLarge(f"a string of {length} characters at scale {scale}")
        return "".join(rng.choice(alphabet) for _ in range(length))

    def word(length: int) -> str:
        return str(rng.randint(1, max(scale, 1))) if how.words == "digits" else text(max(length, 1))

    def count(expr: str | None) -> int:
        nonlocal tokens
        # expr is an arithmetic expression over scalar names, checked by _range_count (COUNT_NODES)
        n = scale if expr is None else max(0, eval(expr, {"__builtins__": {}, "len": len, "range": range},
                                                   dict(values)))
        tokens += n
        if tokens > max_tokens:
            raise TooLarge(f"more than {max_tokens} tokens at scale {scale}")
        return n

    for item in items:
        if item.kind == "scalars" and item.elem == "int":
            for name in item.names:
                values[name] = scale if name == first else free()
    lines: list[str] = []
    for item in items:
        name = item.names[0]
        if item.kind == "scalars":
            if item.elem == "str":
                for n in item.names:
                    values[n] = word(scale)
            line = " ".join(str(values[n]) for n in item.names)
        elif item.kind == "line":
            values[name] = line = text(count(item.count))
        elif item.kind == "list":
            length = count(item.count)
            values[name] = elems(length) if item.elem == "int" else [word(1) for _ in range(length)]
            line = " ".join(map(str, values[name]))
        else:  # rows
            rows = count(item.count)
            if item.width:
                width = count(item.width)
            else:
                width = scale if item.row == "line" else 2 if how.width == "pair" else rows
            count(str(rows * width))
            if item.row == "int":
                values[name] = elems(rows)
            elif item.row == "line":
                values[name] = [text(width) for _ in range(rows)]
            elif item.row == "ints":
                flat = elems(rows * width)  # row by row, as drawn one row at a time
                values[name] = [flat[r * width:(r + 1) * width] for r in range(rows)]
            else:
                values[name] = [[word(1) for _ in range(width)] for _ in range(rows)]
            row_lines = [" ".join(map(str, r)) if isinstance(r, list) else str(r) for r in values[name]]
            line = "\n".join(([str(rows)] if item.inline_count else []) + row_lines)
            if not row_lines and not item.inline_count:
                continue
        if name != skip:
            lines.append(line)
    args = [values[name] for name, _ in payload["params"]]
    return "\n".join(lines) + "\n", args


# -- verification by execution --------------------------------------------------------------------------
CHECK_SCALES = (1, 2, 4, 7, 12)  # inputs on which the function must reproduce the program
MIN_CHECKS = 4  # a slow program may stop early, but not before this many agree
PROGRAM_TIMEOUT = 3.0  # seconds per original run
# The sizes runs are measured at, n = 2^e: half powers of two up to 2^16 (a list of 65,536 elements);
# when the size parameter is one number its value goes on, doubling in bits, up to 2^4096, where log n
# is 4096 and (log n)^2 is 16 million, so logarithmic costs can be told from constant and from each other.
EXPONENTS = tuple(k / 2 for k in range(2, 33))
NUMBER_EXPONENTS = (24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096)
COST_CAP = 1_000_000  # counted steps (cost.py): the first run that costs more ends the measurement
COST_LIMIT = 5.0  # seconds per run: a safety net for C work the count does not see
COST_BUDGET = 30.0  # seconds of runs per measurement (the same net)
COST_TOKENS = 140_000  # the largest input a measurement run is given (pairs of 65,536 rows)


def scale_of(e: float) -> int:
    """n = 2^e, exactly for a whole e (2^4096 is far beyond a float)."""
    return 1 << int(e) if e == int(e) else round(2 ** e)


def exponents(payload: dict[str, Any]) -> tuple[float, ...]:
    number = payload["params"][payload["size"]][1] == "int"
    return EXPONENTS + NUMBER_EXPONENTS if number else EXPONENTS


@dataclass
class Batches:
    """What a measurement ran: the sizes inputs were made for (in order), one result per run that
    finished or ended it, and whether the next size's input would have passed COST_TOKENS."""

    used: list[float] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)
    too_large: bool = False


def run_batches(exps: Sequence[float], make: Callable[[float], Any],
                run_batch: Callable[[list[Any], float], list[dict[str, Any]]],
                first_end: float = math.inf) -> Batches:
    """Make the input of each size n = 2^e (in order, so a seeded generator gives the same inputs however
    they are batched) and run them, a batch at a time, while every run ends within the cap.
    Most of a measurement's input text is for its largest sizes, and most measurements end at the cap
    well before them, so a caller that can tell where the cap will stop the runs gives `first_end`:
    inputs past it are made only if the runs get there (the next batch then goes to where the counts
    so far say the cap will stop them: next_end). A wrong guess costs a process start (~50 ms), not a
    different result.
    The list sizes and the larger numbers never share a batch: arithmetic on numbers of millions of bits
    can hold the interpreter past any limit (2 ** n at n = 2^32); the harness is then killed, and only
    that batch's results are lost. Each run executes the module afresh (run.py), so the batching does
    not change what a run counts. run_batch(inputs, seconds) runs inputs within what is left of
    COST_BUDGET."""
    out = Batches()
    pending = list(exps)
    spent = 0.0
    while pending and not out.too_large:
        end = first_end if not out.results else next_end(out) if first_end < math.inf else math.inf
        end = max(end, pending[0])  # at least one size a batch
        if pending[0] <= EXPONENTS[-1]:
            end = min(end, EXPONENTS[-1])
        batch = []
        while pending and pending[0] <= end:
            try:
                batch.append(make(pending[0]))
            except TooLarge:
                out.too_large = True
                break
            out.used.append(pending.pop(0))
        if not batch:
            break
        if spent >= COST_BUDGET:
            break  # fewer results than sizes made: stopped_by says the budget ran out
        try:
            got = run_batch(batch, COST_BUDGET - spent)
        except InfraError as err:
            # the interpreter died or hung: an end of the measurement (not the program's failure)
            out.results.append({"hung": str(err)[:120]} if end > EXPONENTS[-1] else
                               {"error": f"InfraError: {str(err)[:120]}"})
            break
        out.results += got
        spent += sum(r.get("seconds", 0.0) for r in got)
        if len(got) < len(batch) or any("count" not in r for r in got):
            break
    return out


def next_end(ran: Batches) -> float:
    """The size the next batch goes up to: where the last two counts, extended as a power of n, pass
    COST_CAP, and one doubling of n more (the draws vary); every size when the counts do not grow."""
    counts = [(e, r["count"]) for e, r in zip(ran.used, ran.results) if r.get("count")]
    if len(counts) < 2 or counts[-1][1] <= counts[-2][1]:
        return math.inf
    (e1, c1), (e2, c2) = counts[-2:]
    return e2 + math.log2(COST_CAP / c2) / (math.log2(c2 / c1) / (e2 - e1)) + 1.0


@dataclass(frozen=True)
class Measurement:
    """Counted runs of a function on inputs of growing size: its output size and its cost at each n =
    2^e, the classes they fit (None: no class of the closed set fits), and what ended the runs."""

    output_points: list[list[float]]  # [e, output size]
    cost_points: list[list[float]]  # [e, cost]
    output: growth.Growth | None
    output_error: float
    cost: growth.Growth | None
    cost_error: float
    stopped: str  # "cap" (the next size costs more than COST_CAP), "largest size", "input too large", an error

    @staticmethod
    def of(outputs: list[list[float]], costs: list[list[float]], stopped: str) -> Measurement:
        out_class, out_error = fit_points(outputs, margin=0.02)  # random outputs are noisy
        cost_class, cost_error = fit_points(costs)
        return Measurement(outputs, costs, out_class, out_error, cost_class, cost_error, stopped)

    def cost_evidence(self) -> dict[str, Any]:
        return {"points": self.cost_points, "class": self.cost and str(self.cost),
                "label": self.cost and growth.label(self.cost), "error": round_error(self.cost_error),
                "stopped": self.stopped, "cap": COST_CAP, "sizes": "n = 2^e; points are [e, count]"}


def round_error(error: float) -> float | None:
    return round(error, 4) if error != float("inf") else None


def fit_points(points: list[list[float]], margin: float = growth.COST_MARGIN) -> tuple[growth.Growth | None, float]:
    """The class of [e, value] points (n = 2^e); counted costs by default, output sizes with margin 0.02."""
    return growth.fit([(scale_of(e), v) for e, v in points], margin)


def stopped_by(results: list[dict[str, Any]], planned: int, too_large: bool) -> str:
    if results and "over" in results[-1]:  # the last size made may be the one past the cap
        return "cap"
    if results and "error" in results[-1]:
        return results[-1]["error"][:120]
    if results and "hung" in results[-1]:
        return f"the interpreter died or hung beyond n = 2^{EXPONENTS[-1]:g}"
    if results and "timeout" in results[-1]:
        return f"a run took more than {COST_LIMIT:g}s"
    if len(results) < planned:
        return f"the runs took more than {COST_BUDGET:g}s"
    return "input too large" if too_large else "largest size"


def measure(payload: dict[str, Any], strategy: str, source: str, entry: str, seed: str) -> Measurement:
    """Run the entry on inputs of growing size (fixed seed), counting each run's cost (cost.py)."""
    rng = random.Random(f"{seed}/measure")
    ran = run_batches(exponents(payload), lambda e: generate(payload, scale_of(e), strategy, rng,
                                                            max_tokens=COST_TOKENS)[1],
                      lambda batch, budget: run.run_calls(source, entry, batch, form="value", text=False,
                                                          limit=COST_LIMIT, budget=budget, cap=COST_CAP))
    used, results = ran.used, ran.results
    done = [(e, r) for e, r in zip(used, results, strict=False) if "count" in r]
    outputs = [[e, r["size"]] for e, r in done if r.get("size") is not None]
    return Measurement.of(outputs, [[e, r["count"]] for e, r in done], stopped_by(results, len(used), ran.too_large))


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
        samples = []
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
MEASURE_VERSION = "atoms-4 counted cost"


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
    from concurrent.futures import ProcessPoolExecutor

    results: list[Any]
    if workers <= 1:
        results = []
        for program in programs:
            results.append(verify_cached(program))
            if progress:
                progress(program, results[-1])
    else:
        with ProcessPoolExecutor(workers) as pool:
            results = []
            for program, result in zip(programs, pool.map(verify_cached, programs, chunksize=1)):
                results.append(result)
                if progress:
                    progress(program, result)
    kept = [(p, *r) for p, r in zip(programs, results) if not isinstance(r, Drop)]
    return kept, [r for r in results if isinstance(r, Drop)]
