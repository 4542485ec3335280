"""Misplaced hunks: a test patch can apply "cleanly" in the wrong place.

`git apply` lets a hunk move to wherever its context lines match. When c* lacks the function a hunk
was written for, but another function has the same lines, the hunk lands there and nothing fails.
The check: every test function (or method) a test patch adds or changes must read, in x_G, exactly as
it reads at that bug's own fix (its base commit with its test patch). When several test patches of
the group touch one function, the latest fix's version is the expected one, since it includes the
earlier edits. Python files only; module-level lines are not checked.
"""

from __future__ import annotations

import ast

Units = dict[str, list[str]]  # qualified name -> source text of each definition (a name can repeat)


def units(source: str) -> Units | None:
    """Every function and method of a module with its text, decorators included; None if it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    lines = source.splitlines()
    out: Units = {}
    for name, node in _defs(tree.body, ""):
        start = min([d.lineno for d in node.decorator_list] + [node.lineno])
        out.setdefault(name, []).append("\n".join(lines[start - 1: node.end_lineno]))
    return out


def touched(source: str, lines: set[int]) -> list[str]:
    """The qualified names of the functions whose lines include one of `lines`."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    hit = []
    for name, node in _defs(tree.body, ""):
        start = min([d.lineno for d in node.decorator_list] + [node.lineno])
        if any(start <= n <= (node.end_lineno or start) for n in lines):
            hit.append(name)
    return list(dict.fromkeys(hit))


def _defs(body: list[ast.stmt], prefix: str):
    """Top-level functions and methods of (nested) classes; a function's inner functions belong to it."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield prefix + node.name, node
        elif isinstance(node, ast.ClassDef):
            yield from _defs(node.body, f"{prefix}{node.name}.")
