"""Inputs for CodeComplex entry functions: what a read of the original program is (Item), and random
inputs of a given size for both the program (stdin text) and its function (arguments)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any


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

