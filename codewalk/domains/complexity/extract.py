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

Steps 1 and 2 are in reads.py. verify.py then checks the function against the program, and
measure.py measures how its cost grows."""

from __future__ import annotations

import ast
import copy
import symtable
import sys
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from codewalk.loaders.codecomplex import ENTRY

from .inputs import Item
from .reads import (
    Inline,
    Reads,
    Unsupported,
    calls,
    contains_read,
    dump,
    io_plumbing,
    names_loaded,
    names_stored,
    reader_aliases,
)


# -- what extraction produces -------------------------------------------------------------------------
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



# -- step 4: prints to returns --------------------------------------------------------------------------
EXITS = {"exit", "quit", "sys.exit", "os._exit"}


def _statement_call(stmt: ast.stmt) -> ast.Call | None:
    """The call a statement is made of (`f(x)` alone on its line), else None."""
    return stmt.value if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) else None


def _call_name(stmt: ast.stmt) -> str | None:
    call = _statement_call(stmt)
    return dump(call.func) if call is not None else None


def _is_exit(stmt: ast.stmt) -> bool:
    call = _statement_call(stmt)
    if call is None or dump(call.func) not in EXITS:
        return False
    args = call.args
    if args and not (isinstance(args[0], ast.Constant) and args[0].value in (0, None)):
        raise Unsupported("exit_status", dump(stmt))
    return True


class _Outputs:
    def __init__(self) -> None:
        self.forms: set[str] = set()

    def returned(self, call: ast.Call) -> ast.Return:
        name = dump(call.func)
        if name in ("sys.stdout.write", "stdout.write"):
            self.forms.add("write")
            return ast.Return(call.args[0])
        if call.keywords:
            raise Unsupported("print_keywords", dump(call)[:80])
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
            raise Unsupported("print_starred", dump(call)[:80])
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
                    raise Unsupported("print_not_final", dump(stmt)[:80])
                out.append(self.returned(stmt.value))
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
                    raise Unsupported("print_not_final", dump(stmt)[:80])
                out.append(stmt)
            k += 1
        return out


def _is_output(node: ast.AST) -> TypeGuard[ast.Call]:
    """A call that writes to stdout: print (not to another file) or sys.stdout.write."""
    if not isinstance(node, ast.Call):
        return False
    name = dump(node.func)
    if name == "print":
        file = next((kw.value for kw in node.keywords if kw.arg == "file"), None)
        return file is None or dump(file) in ("sys.stdout", "stdout")
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

        def visit_FunctionDef(self, node: ast.FunctionDef | ast.Lambda) -> ast.AST:
            self.depth += 1
            self.generic_visit(node)
            self.depth -= 1
            return node

        visit_Lambda = visit_FunctionDef

        def visit_Call(self, node: ast.Call) -> ast.AST:
            self.generic_visit(node)
            if not _is_output(node):
                return node
            if dump(node.func) != "print":
                node.func = ast.Attribute(ast.Name(buffer, ast.Load()), "write", ast.Load())
                return node
            node.keywords = [kw for kw in node.keywords if kw.arg != "file"]
            node.keywords.append(ast.keyword("file", ast.Name(buffer, ast.Load())))
            return node

        def visit_Expr(self, node: ast.Expr) -> ast.AST:
            if _is_exit(node):
                if self.depth:
                    raise Unsupported("exit_in_function", dump(node))
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


def _main_call(code: list[ast.stmt], defs: Mapping[str, ast.stmt]) -> str | None:
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
        if dump(thread.func) in ("threading.Thread", "Thread") and target:
            call = ast.Call(target, [], [])
    name = dump(call.func)
    function = defs.get(name)
    if isinstance(function, ast.FunctionDef) and not (call.args or call.keywords or function.args.args):
        return name
    return None


def _main_guard(stmt: ast.stmt) -> TypeGuard[ast.If]:
    return isinstance(stmt, ast.If) and "__name__" in dump(stmt.test) and not stmt.orelse


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
    aliases: dict[str, ast.expr]


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
    reads = Reads(program.body + program.helpers + program.module_code)
    body: list[ast.stmt] = []
    for k, stmt in enumerate(program.body):
        body += reads.statement(stmt, names_stored(program.body[:k]))
    if not reads.params:
        raise Unsupported("no_reads", "no read became a parameter")
    body = _couple(reads, body)
    body, out_form = _returns(body, reads, program)
    params = [(name, ptype) for name, ptype in reads.params if name not in reads.counts]
    body, spelled = _globals(body, {name for name, _ in params}, reads, program)
    taken = names_stored(program.helpers + program.module_code)
    entry = ENTRY if ENTRY not in taken else f"{ENTRY}_entry"
    arguments = [ast.arg(spelled.get(name, name), ast.parse(ptype, mode="eval").body)
                 for name, ptype in params]
    function = ast.FunctionDef(name=entry, args=ast.arguments([], arguments, None, [], [], None, []),
                               body=body or [ast.Pass()], decorator_list=[], returns=None)
    if sys.version_info >= (3, 12):
        function.type_params = []  # a field of FunctionDef from 3.12 on
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
    return io_plumbing(stmt) or _string_statement(stmt)


def _split(tree: ast.Module) -> _Program:
    """Inline reader aliases, and find the computation: the body of a main() the program ends by
    calling, else its top-level code after the set-up that precedes the first read."""
    aliases, top = reader_aliases(tree.body)
    top = [Inline(aliases).visit(s) for s in top if not _noise(s)]
    defs = {s.name: s for s in top if isinstance(s, (ast.FunctionDef, ast.ClassDef))}
    code = [s for s in top if not isinstance(s, DEFS)]
    main = _main_call(code, defs)
    if main is not None:
        helpers: list[ast.stmt] = [s for s in top if isinstance(s, DEFS) and getattr(s, "name", None) != main]
        module_code = code[:-1]
        if any(contains_read(s) or _prints(s) for s in module_code):
            raise Unsupported("top_level_io", "reads or prints outside the main function")
        main_aliases, body = reader_aliases(defs[main].body)
        aliases |= main_aliases
        body = [Inline(aliases).visit(s) for s in body if not _noise(s)]
        program = _Program(top, helpers, module_code, body, True, aliases)
    else:
        helpers = [s for s in top if isinstance(s, DEFS)]
        if len(code) == 1 and _main_guard(code[0]):  # if __name__ == "__main__": <the program>
            k = top.index(code[0])
            top = top[:k] + code[0].body + top[k + 1:]
            code = code[0].body
        first = next((k for k, s in enumerate(code) if contains_read(s)), len(code))
        # Set-up before the first read stays at module level, where helpers can see it as before.
        setup = [s for s in code[:first]
                 if isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign)) or _setup(s)]
        body = [s for s in code if s not in setup]
        program = _Program(top, helpers, setup, body, False, aliases)
    for helper in program.helpers:
        if contains_read(helper) or any(calls(sub, aliases) for sub in ast.walk(helper)):
            raise Unsupported("read_in_helper", getattr(helper, "name", ""))
        if isinstance(helper, (ast.FunctionDef, ast.ClassDef)) and _prints(helper):
            raise Unsupported("print_in_helper", helper.name)
    if not any(contains_read(s) for s in program.body):
        raise Unsupported("no_reads", "the program reads nothing line by line")
    return program


def _returns(body: list[ast.stmt], reads: Reads, program: _Program) -> tuple[list[ast.stmt], str]:
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


def _globals(body: list[ast.stmt], params: set[str], reads: Reads,
             program: _Program) -> tuple[list[ast.stmt], dict[str, str]]:
    """Declare global, at the top of the body, what must stay global: names the body declares global
    itself, and (for top-level code moved into the function, where they would become locals) names it
    shares with helpers or module-level set-up. A parameter cannot be global, so such a parameter takes
    another name in the signature (returned) and is assigned to the global first thing."""
    body, shared = _pop_globals(body)
    if not program.in_function:
        outside = _helper_globals(program.helpers) | names_stored(program.module_code)
        shared |= outside & (names_stored(body) | params)
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

        def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
                              | ast.Lambda) -> ast.AST:
            return node

        visit_Lambda = visit_ClassDef = visit_AsyncFunctionDef = visit_FunctionDef

    return [Pop().visit(stmt) for stmt in body], names


def _couple(reads: Reads, body: list[ast.stmt]) -> list[ast.stmt]:
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


def _size_param(reads: Reads, params: list[tuple[str, str]], function: ast.FunctionDef) -> int:
    """The parameter the label's n measures, which the generator scales: the first int read alone, or
    the list it became the length of; without ints, the first list or str the function uses."""
    names = [name for name, _ in params]
    if reads.scalars:
        first = reads.scalars[0]
        return names.index(reads.counts.get(first, first))
    used = names_loaded(function)
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
    return names_stored([stmt])


def _uses(node: ast.AST) -> set[str]:
    """Names node reads, and the globals it declares (it may only write them)."""
    declared = {n for sub in ast.walk(node) if isinstance(sub, ast.Global) for n in sub.names}
    return names_loaded(node) | declared
