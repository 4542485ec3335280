"""A deterministic cost model for running a program: what the complexity domain measures instead of time.

A run's cost is the number of line events of the program's own code (sys.settrace, counted in the
sandboxed harness, see run.py) plus a charge for the work that hides inside one C call: the number of
elements a builtin or a container method walks over. Counts do not depend on the machine or its load,
so the same input gives the same count, and fixed seeds give the same inputs.

`instrument` rewrites the program so that those C calls report their size:

- a call of a builtin that walks its first argument (`sorted(a)`, `sum(a)`, `max(a)`, `list(g)`,
  `set(a)`, `bisect_left(a, x)`, `heappush(h, x)`, ...) passes that argument through CHARGE_ARG, which
  charges len(argument) (sorted: m log m; bisect and heap operations: log m) and hands it on unchanged
  (an iterator without a length is turned into a list first, so it can be counted);
- a method call on a container that walks the container (`a.sort()`, `a.count(x)`, `a.index(x)`,
  `s.replace(...)`, `s.split()`, ...) passes the container through CHARGE_SELF; `sep.join(xs)`,
  `a.extend(xs)`, `s.update(xs)` charge their argument;
- `x in a` on a list, tuple or str charges len(a) (CHARGE_IN); a slice `a[i:j]`, `a * k` and `a + b`
  on lists, tuples and strings charge the length of the result (CHARGE_OP).

Not charged (they count as one step): comparisons of whole sequences, `s += t` (CPython appends in
place), hashing, big-integer arithmetic (the unit-cost model the labels assume) and C work not listed
here.
"""

from __future__ import annotations

import ast

CHARGE_ARG = "_cw_arg"  # one underscore: a name with two would be mangled inside a class body
CHARGE_SELF = "_cw_self"
CHARGE_IN = "_cw_in"
CHARGE_OP = "_cw_op"

# How a builtin's cost grows in the length m of its first argument.
ARG_COST = {
    **dict.fromkeys(("sum", "max", "min", "any", "all", "list", "tuple", "set", "frozenset", "dict",
                     "Counter", "deque", "heapify", "bytearray"), "m"),
    "sorted": "mlogm",
    **dict.fromkeys(("bisect", "bisect_left", "bisect_right", "heappush", "heappop", "heappushpop",
                     "heapreplace"), "logm"),
    "insort": "m", "insort_left": "m", "insort_right": "m",
}
# Builtins whose later positional arguments are not iterables walked (bisect_left(a, x)); for the
# others only a call with a single positional argument walks it (max(a, b) compares two values).
MULTI_ARG = {"bisect", "bisect_left", "bisect_right", "heappush", "heappushpop", "heapreplace", "insort",
             "insort_left", "insort_right"}
# Container methods that walk the container they are called on, and how.
SELF_COST = {
    **dict.fromkeys(("count", "index", "reverse", "copy", "remove", "find", "rfind", "replace", "split",
                     "rsplit", "lower", "upper", "strip", "lstrip", "rstrip", "insert"), "m"),
    "sort": "mlogm",
}
# Methods that walk their first argument.
METHOD_ARG_COST = dict.fromkeys(("join", "extend", "update", "union", "intersection", "difference",
                                 "symmetric_difference", "issubset", "issuperset"), "m")


class _Charges(ast.NodeTransformer):
    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        # the first argument is the walked one only when it is a plain (not starred) argument
        first_ok = bool(node.args) and not any(isinstance(a, ast.Starred) for a in node.args)
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        if isinstance(func, ast.Attribute) and name in SELF_COST:
            func.value = _call(CHARGE_SELF, func.value, SELF_COST[name])
        elif isinstance(func, ast.Attribute) and name in METHOD_ARG_COST and first_ok:
            node.args[0] = _call(CHARGE_ARG, node.args[0], METHOD_ARG_COST[name])
        elif name in ARG_COST and first_ok and (len(node.args) == 1 or name in MULTI_ARG):
            node.args[0] = _call(CHARGE_ARG, node.args[0], ARG_COST[name])
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        node.comparators = [_call(CHARGE_IN, c) if isinstance(op, (ast.In, ast.NotIn)) else c
                            for op, c in zip(node.ops, node.comparators, strict=True)]
        return node

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.slice, ast.Slice) and isinstance(node.ctx, ast.Load):
            return _call(CHARGE_OP, node)  # a slice copies as many elements as it holds
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, (ast.Mult, ast.Add)):
            return _call(CHARGE_OP, node)
        return node


def _call(helper: str, value: ast.expr, kind: str | None = None) -> ast.Call:
    args = [value] + ([ast.Constant(kind)] if kind else [])
    return ast.Call(ast.Name(helper, ast.Load()), args, [])


def instrument(source: str) -> str:
    """The program with its hidden C work made to report its size (see the module docstring).
    Annotations (list[int], int | None) hold no call, no `in` and no + or *, so they stay as they are."""
    tree = _Charges().visit(ast.parse(source))
    return ast.unparse(ast.fix_missing_locations(tree))
