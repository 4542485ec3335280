"""The size model of a complexity task, and the links it cannot carry.

A label is a bound in one variable, n, and only says something about a program once it is said what n is
and how the other inputs grow with it. The generator has one model per atom (inputs.generate under the
atom's strategy): n is the first int read, or the length of the list it counts; the other ints, the list
elements and the row widths are drawn in ranges that either grow with n or stay bounded. Every reference
is derived from labels measured under such a model and checked by running the composite under stage 1's,
so the prompt states stage 1's model (`describe`).

Under any model, a chained value reduced modulo a constant (`ans % 998244353`) is bounded: the next stage
then costs a constant, however the measured sizes (which stay below the modulus up to n = 2^16) grow, and
a reference derived from that growth is wrong (`modulus`). A value that only grows because an input the
model holds to a constant is in fact unbounded (`1 << k` with k drawn in 1..3) is another: its class
then hangs on an input that is not a size (`unscaled_inputs`).
"""

from __future__ import annotations

import ast
import functools
import json
from typing import Any

from . import growth, inputs, measure


def describe(payload: dict[str, Any]) -> str:
    """Stage 1's size model in words, as the generator draws its inputs (inputs.generate)."""
    how = inputs.STRATEGY[payload["strategy"]]
    params = payload["params"]
    size_name, size_type = params[payload["size"]]
    items = [inputs.Item(**i) if isinstance(i, dict) else i for i in payload["items"]]
    if size_type == "int":
        n = f"n is the value of the integer `{size_name}` the program reads first"
    elif size_type == "str":
        n = f"n is the length of the string `{size_name}` the program reads"
    else:
        n = f"n is the number of {'rows' if size_type.startswith('list[list') else 'elements'} of `{size_name}`"
    parts = [n]
    others = [name for item in items if item.kind == "scalars" and item.elem == "int" for name in item.names
              if name != size_name and name not in payload["scalars"][:1]]
    if others:
        bound = "between 1 and n" if how.free == "scale" else "between 1 and 3, whatever n"
        parts.append(f"every other integer read ({', '.join(f'`{o}`' for o in others)}) is {bound}")
    if any(item.kind in ("line", "list", "rows") for item in items):
        parts.append("each list, string and number of rows has n elements, unless a number read before it "
                     "gives its length")
    if any(item.elem == "int" and item.kind in ("list", "rows") for item in items):
        bound = "between 1 and n" if how.elems == "scale" else "between 1 and 9, whatever n"
        parts.append(f"the integers in lists and rows are {bound}")
    if any(item.elem == "str" and item.kind in ("list", "rows", "scalars") for item in items):
        parts.append("words are numbers between 1 and n" if how.words == "digits"
                     else "words are letters (a word read alone has n of them)")
    if any(item.kind == "rows" and not item.width and item.row in ("ints", "words") for item in items):
        parts.append("a row holds 2 values" if how.width == "pair" else "a row holds as many values as there are rows")
    return ("Size model (how the input grows with n): " + "; ".join(parts) + ". The inputs are random within "
            "these bounds. Give the growth of the running time in n under this model.")


def unscaled_inputs(payload: dict[str, Any]) -> list[str]:
    """Stage 1's inputs the model holds to a constant (ints besides n drawn in 1..3, list values in 1..9):
    a chain whose later stages see a value computed from them hangs on inputs that are not sizes."""
    how = inputs.STRATEGY[payload["strategy"]]
    items = [inputs.Item(**i) if isinstance(i, dict) else i for i in payload["items"]]
    size_name = payload["params"][payload["size"]][0]
    out = []
    for item in items:
        if item.kind == "scalars" and item.elem == "int" and how.free != "scale":
            out += [name for name in item.names if name != size_name and name not in payload["scalars"][:1]]
        elif item.elem == "int" and item.kind in ("list", "rows") and how.elems != "scale":
            out.append(item.names[0])
    return out


def other_ints(payload: dict[str, Any]) -> list[str]:
    """The ints stage 1 reads besides n (the generator draws them in 1..n, or 1..3)."""
    items = [inputs.Item(**i) if isinstance(i, dict) else i for i in payload["items"]]
    size_name = payload["params"][payload["size"]][0]
    return [name for item in items if item.kind == "scalars" and item.elem == "int" for name in item.names
            if name != size_name and name not in payload["scalars"][:1]]


@functools.lru_cache(maxsize=1024)
def _pinned(payload_json: str, seed: str) -> str | None:
    payload = json.loads(payload_json)
    m = measure.measure(payload, f"{payload['strategy']}-pinned", payload["source"], payload["entry"], seed)
    return growth.label(m.output) if m.output else None


def pinned_growth(payload: dict[str, Any], seed: str) -> str | None:
    """The label of the atom's output growth when the ints besides n are held in 1..3 (runs the atom as
    load measures it; remembered per process). None when it fits no class."""
    return _pinned(json.dumps(payload, sort_keys=True), seed)


@functools.lru_cache(maxsize=4096)
def modulus(source: str, entry: str) -> str | None:
    """The constant the entry function's int result is reduced modulo, or None: every `return` gives a
    constant, `e % C`, a call of a module function whose result is so reduced (`norm(x)`), or a name or a
    list the function reduces modulo C (`x %= C`, `x = ... % C`, `dp[i] = ... % C`), with C a number or a
    name bound once to a number."""
    tree = ast.parse(source)
    functions = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
    if entry not in functions:
        return None
    return _modulus(functions[entry], functions, _constants(tree), set())


def _modulus(function: ast.FunctionDef, functions: dict[str, ast.FunctionDef], constants: dict[str, int],
             seen: set[str]) -> str | None:
    seen = seen | {function.name}

    def helper(node: ast.AST) -> str | None:  # a call of a module function that returns a reduced value
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in functions
                and node.func.id not in seen):
            return _modulus(functions[node.func.id], functions, constants, seen)
        return None

    def constant(node: ast.AST) -> str | None:
        if isinstance(node, ast.Name) and node.id in constants:
            return node.id
        try:
            value = _number(node, constants)
        except ValueError:
            return None
        return ast.unparse(node) if value > 1 else None

    reduced: dict[str, str] = {}  # a name, or a list whose elements, the function reduces modulo a constant
    for node in _own_nodes(function):
        if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Mod) and (base := _base(node.target)):
            if c := constant(node.value):
                reduced[base] = c
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and (base := _base(node.targets[0])):
            v = node.value
            if isinstance(v, ast.BinOp) and isinstance(v.op, ast.Mod) and (c := constant(v.right)):
                reduced[base] = c
            elif c := helper(v):
                reduced[base] = c

    def bounds(e: ast.AST) -> list[str] | None:
        """The moduli bounding a returned expression ("" for a literal), or None if it is not bounded."""
        if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Mod):
            c = constant(e.right)
            return [c] if c else None
        if isinstance(e, (ast.Name, ast.Subscript)):
            base = _base(e)
            return [reduced[base]] if base in reduced else None
        if isinstance(e, ast.IfExp):
            a, b = bounds(e.body), bounds(e.orelse)
            return a + b if a is not None and b is not None else None
        if isinstance(e, ast.Constant) and isinstance(e.value, int):
            return [""]
        c = helper(e)
        return [c] if c else None

    found: list[str] = []
    for r in _own_nodes(function):
        if isinstance(r, ast.Return) and r.value is not None:
            b = bounds(r.value)
            if b is None:
                return None
            found += b
    return next((c for c in found if c), None)  # only literals: a constant output, which the fit sees


def _own_nodes(function: ast.FunctionDef) -> list[ast.AST]:
    """The nodes of a function's body outside the functions, lambdas and classes it defines."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = list(function.body)
    while todo:
        node = todo.pop()
        out.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))
    return out


def _base(node: ast.AST) -> str | None:
    """`x` for x, x[i], x[i][j]: the name a target or value stands in."""
    while isinstance(node, ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _constants(tree: ast.Module) -> dict[str, int]:
    """Names bound exactly once in the module, to a number (`MOD = 10 ** 9 + 7`)."""
    bound: dict[str, list[ast.AST]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                pairs = [(t, node.value)]
                if isinstance(t, ast.Tuple) and isinstance(node.value, ast.Tuple) and len(t.elts) == len(
                        node.value.elts):  # mod, bits = 998244353, [...]
                    pairs = list(zip(t.elts, node.value.elts))
                for target, value in pairs:
                    for n in ast.walk(target):
                        if isinstance(n, ast.Name):
                            bound.setdefault(n.id, []).append(value if target is n else target)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name):
            bound.setdefault(node.target.id, []).extend([node, node])  # rebound: not a constant
        elif isinstance(node, (ast.For, ast.comprehension)):
            for n in ast.walk(node.target):
                if isinstance(n, ast.Name):
                    bound.setdefault(n.id, []).extend([node, node])
    out: dict[str, int] = {}
    for name, values in bound.items():
        if len(values) == 1:
            try:
                out[name] = _number(values[0], {})
            except ValueError:
                pass
    return out


def _number(node: ast.AST, names: dict[str, int]) -> int:
    """The value of an integer expression of literals (and known names): 998244353, 10 ** 9 + 7, 1 << 20."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Pow, ast.LShift)):
        a, b = _number(node.left, names), _number(node.right, names)
        if isinstance(node.op, (ast.Pow, ast.LShift)) and not 0 <= b <= 64:
            raise ValueError("not a small number")
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Sub):
            return a - b
        if isinstance(node.op, ast.Mult):
            return a * b
        return int(a ** b) if isinstance(node.op, ast.Pow) else a << b
    raise ValueError("not a number")
