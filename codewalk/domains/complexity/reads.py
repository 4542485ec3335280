"""CodeComplex extraction, steps 1 and 2 (extract.py has the whole rewrite): reader plumbing is inlined,
and each read of the program becomes a parameter of the entry function and an input item (inputs.Item),
in read order. Unsupported says why a program is outside what the rewrite handles."""

from __future__ import annotations

import ast
import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, overload

from .inputs import Item


class Unsupported(Exception):
    """The program is outside what the rewrite handles; `reason` is a short code for the drop report."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason, self.detail = reason, detail



# -- step 1: reader plumbing ------------------------------------------------------------------------------


def dump(node: ast.AST) -> str:
    return ast.unparse(node)


def _is_raw_read(node: ast.AST) -> bool:
    """A call that reads one line with its newline: sys.stdin.readline(), stdin.readline()."""
    return (isinstance(node, ast.Call) and not node.args and not node.keywords
            and dump(node.func) in ("sys.stdin.readline", "stdin.readline"))


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


def _alias_template(value: ast.expr) -> ast.expr | None:
    """What a call of an alias stands for: `X = sys.stdin.readline` -> sys.stdin.readline()."""
    if dump(value) in ("sys.stdin.readline", "stdin.readline", "input"):
        return ast.Call(value, [], [])
    if isinstance(value, ast.Lambda) and _no_arguments(value.args):
        return value.body
    return None


def _no_arguments(args: ast.arguments) -> bool:
    return not (args.args or args.vararg or args.kwonlyargs)


def reader_aliases(stmts: list[ast.stmt]) -> tuple[dict[str, ast.expr], list[ast.stmt]]:
    """Zero-argument reader aliases defined in stmts, and stmts without their definitions."""
    found: dict[str, ast.expr] = {}
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


def _mentions_input(node: ast.AST, aliases: dict[str, ast.expr]) -> bool:
    return any(_read_kind(sub) or calls(sub, aliases) for sub in ast.walk(node))


def calls(node: ast.AST, names: dict[str, Any] | set[str]) -> bool:
    """node is a call of one of the names."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names


class Inline(ast.NodeTransformer):
    """Replace calls of reader aliases by what they stand for (aliases may use earlier aliases)."""

    def __init__(self, aliases: dict[str, ast.expr]):
        self.aliases = aliases

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Name) and func.id in self.aliases and not node.args and not node.keywords:
            return self.visit(copy.deepcopy(self.aliases[func.id]))
        return node


def io_plumbing(stmt: ast.stmt) -> bool:
    """Statements that only rewire stdin/stdout: `sys.stdin, sys.stdout = IOWrapper(...), ...`."""
    if isinstance(stmt, ast.Assign):
        targets = [t for target in stmt.targets
                   for t in (target.elts if isinstance(target, ast.Tuple) else [target])]
        return all(dump(t) in ("sys.stdin", "sys.stdout") for t in targets)
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
        if isinstance(func, ast.Name) and func.id == "map" and len(args) == 2 and dump(args[0]) == "int":
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
    if (isinstance(node, (ast.ListComp, ast.GeneratorExp)) and (var := _loop_var(node)) is not None
            and dump(node.elt) == f"int({var})"):
        inner = _parse_of(node.generators[0].iter)
        if inner and inner.kind == "words":
            return _Parse("ints" if isinstance(node, ast.ListComp) else "ints_iter", False)
    return None


def _spaces(split: ast.Call) -> bool:
    """A split on whitespace or on single spaces (generated lines separate tokens by one space)."""
    args = split.args
    return not args or (len(args) == 1 and isinstance(args[0], ast.Constant) and args[0].value == " ")


def _loop_var(node: ast.ListComp | ast.GeneratorExp) -> str | None:
    """The loop variable of a comprehension over one iterable, with no condition and a plain loop
    variable; None for any other comprehension."""
    if len(node.generators) != 1 or node.generators[0].ifs:
        return None
    target = node.generators[0].target
    return target.id if isinstance(target, ast.Name) else None


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


def contains_read(node: ast.AST) -> bool:
    return any(_read_kind(sub) for sub in ast.walk(node))


def names_loaded(node: ast.AST) -> set[str]:
    return {sub.id for sub in ast.walk(node) if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load)}


def names_stored(nodes: Sequence[ast.AST]) -> set[str]:
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


class Reads:
    """Turns the reads of the entry body into parameters and generator items, in read order."""

    def __init__(self, body: list[ast.stmt]):
        self.taken = names_stored(body) | names_loaded(ast.Module(body, []))
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
        if not contains_read(stmt):
            return [stmt]
        stem = None
        # `x = <read>` can become parameter x only if nothing set x before the read.
        if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                and not (names_stored([stmt.targets[0]]) & stored_before)):
            target = stmt.targets[0]
            done = self._assignment(target, stmt.value)
            if done is not None:
                return done
            # `a = sorted(map(int, input().split()))` -> parameter a and `a = sorted(a)`
            if isinstance(target, ast.Name) and target.id not in names_loaded(stmt.value):
                stem = target.id
        if isinstance(stmt, ast.For):
            return [self._loop(stmt)]
        if isinstance(stmt, ast.While):
            raise Unsupported("read_in_while", "a read inside a while loop")
        if isinstance(stmt, (ast.If, ast.Try, ast.With, ast.FunctionDef, ast.ClassDef)):
            raise Unsupported("conditional_read", f"a read inside {type(stmt).__name__.lower()}")
        return [self._substitute(stmt, stem)]

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
        names = _tuple_names(target)
        if names is not None:
            if parse.kind not in ("ints_iter", "words", "ints"):
                raise Unsupported("unpacked_read", dump(value))
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
                if (parse := _parse_of(node)) is not None:
                    return self.replace(node, parse)
                rows = reads._rows_comprehension(node)
                if rows is not None:
                    return rows
                first = node.generators[0]
                if not any(contains_read(n) for n in [node.elt, *node.generators[1:], *first.ifs]):
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
                if contains_read(node):
                    raise Unsupported("read_in_comprehension", dump(node)[:80])
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
        if contains_read(out):
            raise Unsupported("unsupported_read", dump(stmt)[:80])
        return out

    def _rows_comprehension(self, node: ast.ListComp | ast.GeneratorExp,
                            name: str | None = None) -> ast.expr | None:
        """[P for _ in range(c)] (or P inside a larger element) -> a rows parameter."""
        var = _loop_var(node)
        if var is None:
            return None
        gen = node.generators[0]
        count = self._range_count(gen.iter)
        parses = _outer_parses(node.elt)
        if count is None or len(parses) != 1 or _read_count(node.elt) != 1:
            return None
        sub, parse = parses[0]
        if parse.raw:
            raise Unsupported("raw_line_rows", dump(node)[:80])
        name = name or self.fresh("rows")
        self._rows(name, parse, count, width=None)
        uses_var = var in names_loaded(node.elt)
        if sub is node.elt and isinstance(node, ast.ListComp) and parse.kind != "ints_iter" and not uses_var:
            return ast.Name(name, ast.Load())
        row = self.fresh("row")
        elt = _replace_node(node.elt, sub, ast.Name(row, ast.Load()))
        target, iter_ = _row_iteration(var if uses_var else None, gen.iter, row, name)
        return type(node)(elt, [ast.comprehension(target, iter_, [], 0)])

    def _range_count(self, node: ast.expr) -> tuple[str | None, bool] | None:
        """The number of iterations of range(...) as an expression over earlier scalars, and whether
        the program reads it inline (range(int(input())))."""
        if not (isinstance(node, ast.Call) and dump(node.func) == "range" and 1 <= len(node.args) <= 2
                and not node.keywords):
            return None
        if len(node.args) == 1 and (parse := _parse_of(node.args[0])) and parse.kind == "int":
            return (None, True)
        simple = all(isinstance(n, COUNT_NODES) for arg in node.args for n in ast.walk(arg))
        if contains_read(node) or not simple:
            return None
        if not names_loaded(node) - {"range"} <= set(self.scalars):
            return None
        return (f"len({dump(node)})", False)

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
        reading = [k for k, s in enumerate(loop.body) if contains_read(s)]
        if count is None or loop.orelse and contains_read(ast.Module(loop.orelse, [])):
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
        uses_var = var in names_loaded(ast.Module(loop.body + loop.orelse, []))
        name = self.fresh("rows")
        body = list(loop.body)
        target: ast.expr
        assign = stmt if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
        parse = _parse_of(assign.value) if assign is not None else None
        if assign is not None and parse is not None and not parse.raw:
            t = assign.targets[0]
            names = _tuple_names(t)
            if names is not None and parse.kind in ("ints_iter", "ints", "words"):  # u, v = map(int, ...)
                per_row = _Parse("words" if parse.kind == "words" else "ints", False)
                self._rows(name, per_row, count, width=str(len(names)))
                target = t
            elif isinstance(t, ast.Name):
                self._rows(name, parse, count, width=None)
                target = t
                if parse.kind == "ints_iter":
                    body.insert(k + 1, ast.parse(f"{t.id} = iter({t.id})").body[0])
            else:
                raise Unsupported("read_loop", dump(stmt)[:80])
            del body[k]
        else:
            parses = _outer_parses(stmt)
            if len(parses) != 1 or _read_count(stmt) != 1 or parses[0][1].raw:
                raise Unsupported("read_loop", dump(stmt)[:80])
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


def _row_iteration(var: str | None, range_call: ast.expr, row: ast.expr | str,
                   rows: str) -> tuple[ast.expr, ast.expr]:
    """Target and iterable that walk a rows parameter where the program looped over range(...):
    `row in rows`, or `i, row in enumerate(rows)` when the loop variable is used."""
    row = ast.Name(row, ast.Store()) if isinstance(row, str) else row
    rows_name = ast.Name(rows, ast.Load())
    if var is None:
        return row, rows_name
    if isinstance(range_call, ast.Call) and len(range_call.args) == 1:  # range(c), as _range_count found
        iter_ = ast.Call(ast.Name("enumerate", ast.Load()), [rows_name], [])
    else:
        iter_ = ast.Call(ast.Name("zip", ast.Load()), [range_call, rows_name], [])
    return ast.Tuple([ast.Name(var, ast.Store()), row], ast.Store()), iter_


def _tuple_names(node: ast.AST) -> list[str] | None:
    """The names of a tuple of plain names (`u, v`), else None."""
    if not isinstance(node, ast.Tuple):
        return None
    names = [e.id for e in node.elts if isinstance(e, ast.Name)]
    return names if len(names) == len(node.elts) else None


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


@overload
def _replace_node(tree: ast.stmt, old: ast.AST, new: ast.expr) -> ast.stmt: ...


@overload
def _replace_node(tree: ast.expr, old: ast.AST, new: ast.expr) -> ast.expr: ...


def _replace_node(tree: ast.AST, old: ast.AST, new: ast.expr) -> ast.AST:
    """tree with its subexpression old replaced by new: a statement stays a statement, an expression
    an expression."""

    class R(ast.NodeTransformer):
        def visit(self, node: ast.AST) -> ast.AST:
            return new if node is old else super().visit(node)

    return R().visit(tree)

