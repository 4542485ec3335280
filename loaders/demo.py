"""The demo source: a catalogue of tiny typed Python functions, each with one seeded bug.

One JSON object per line with the fields below (see demo_atoms.jsonl, shipped beside this module).
`pre` is a Python expression over the input x, `post` one over x and the result y; `examples` are
inputs as JSON values. This module checks each record's shape and names the line of a bad one; the
demo domain then runs every atom for real and keeps only the verified ones.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from codewalk import jsonl
from codewalk.errors import InputError
from codewalk.records import Atom

CATALOGUE = Path(__file__).with_name("demo_atoms.jsonl")
TYPES = ("int", "str", "list[int]", "list[str]")
FIELDS = ("name", "in_type", "out_type", "pre", "post", "buggy", "fixed", "examples")

Bad = Callable[[str], InputError]  # makes the error for the record's line from a reason


def read(path: Path) -> list[Atom]:
    """All records of a catalogue as (not yet verified) atoms; InputError names a malformed line."""
    atoms: dict[str, Atom] = {}
    for number, record in jsonl.objects(path):
        _check(record, partial(InputError, str(path), number))
        name = record["name"]
        if f"demo/{name}" in atoms:
            raise InputError(str(path), number, f"duplicate atom name {name!r}")
        atoms[f"demo/{name}"] = Atom(
            id=f"demo/{name}",
            domain="demo",
            summary={"title": name, "in_type": record["in_type"], "out_type": record["out_type"]},
            payload={key: record[key] for key in ("pre", "post", "buggy", "fixed", "examples")},
        )
    return list(atoms.values())


def _check(record: dict[str, Any], bad: Bad) -> dict[str, Any]:
    missing = [key for key in FIELDS if key not in record]
    if missing:
        raise bad(f"missing field(s): {', '.join(missing)}")
    name = record["name"]
    if not (isinstance(name, str) and name.isidentifier()):
        raise bad(f"name {name!r} is not a Python identifier")
    for key in ("in_type", "out_type"):
        if record[key] not in TYPES:
            raise bad(f"{key} {record[key]!r} is not one of {', '.join(TYPES)}")
    for key in ("pre", "post"):
        _parse(record[key], "eval", key, bad)
    for key in ("buggy", "fixed"):
        # The composer renames the function, so each source must be exactly one def of it, with one argument.
        body = _parse(record[key], "exec", key, bad).body  # type: ignore[attr-defined]  # an ast.Module
        if not (len(body) == 1 and isinstance(body[0], ast.FunctionDef) and body[0].name == name
                and len(body[0].args.args) == 1):
            raise bad(f"{key} must be a single function {name}(x)")
    if not (isinstance(record["examples"], list) and record["examples"]):
        raise bad("examples must be a non-empty list of inputs")
    return record


def _parse(source: Any, mode: str, key: str, bad: Bad) -> ast.AST:
    if not isinstance(source, str):
        raise bad(f"{key} must be a string")
    try:
        return ast.parse(source, mode=mode)
    except SyntaxError as e:
        raise bad(f"{key} is not valid Python ({e.msg})") from None

