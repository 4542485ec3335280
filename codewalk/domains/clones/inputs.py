"""Type-driven test inputs for Java signatures, and when two outcomes agree.

Inputs are JSON values the harness turns into Java arguments: numbers for integral types, numbers or
the strings "NaN", "Infinity", "-Infinity", "-0.0" for floating types, one-character strings for char,
lists for arrays, null where the type allows it. Generation is seeded: the same signature and seed give
the same inputs on every machine. Each input set starts with boundary values (every special value of
every parameter, the others random), then random ones mixing small, medium and full-range values.

Outcomes come from the harness as canonical strings: r:VALUE (JSON), x:EXCEPTION-CLASS, e:EXIT-STATUS,
h:SHA256:LENGTH for a long result, t for a call stopped at its deadline; equal texts mean agreement.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable
from typing import Any

INTEGRAL = {"byte": 8, "short": 16, "int": 32, "long": 64}
FLOATING = ("float", "double")
BOXED = {"Boolean": "boolean", "Byte": "byte", "Short": "short", "Integer": "int", "Long": "long",
         "Float": "float", "Double": "double", "Character": "char"}
SCALARS = {*INTEGRAL, *FLOATING, "boolean", "char", *BOXED, "String"}

STRINGS = ["", " ", "a", "A", "z", "0", "1", "-1", "12", "123", "3.14", "-0.5", "abc", "ABC", "aBc", "Hello World",
           "hello, world", "a b c", "  padded  ", "true", "false", "null", "a,b,c", "a;b", "x=y", "key=value",
           "\t", "\n", "a\nb", "aaa", "abcabc", "racecar", "#", "%", "/", "\\", ".", "..", "a.b", "path/to/file.txt",
           "http://example.com/a?b=c", "<tag>", "'quoted'", "\"dq\"", "é", "ñandú", "1e10", "0x1F", "007", "+5",
           "9999999999", "-", "_", "UPPER lower 123"]
CHARS = ["a", "z", "A", "Z", "m", "0", "5", "9", " ", "\t", "\n", "\0", ".", ",", "-", "+", "_", "/", "\\", "'",
         "\"", "é", "\u00ff", "\uffff"]
FLOATS = [0.0, "-0.0", 1.0, -1.0, 0.5, -0.5, 2.0, 3.0, 10.0, 100.0, 0.1, 1e-9, 1e9, -123.456, 1e300,
          "NaN", "Infinity", "-Infinity"]
FLOAT_LIMITS = {"float": [3.4028234663852886e38, 1.401298464324817e-45], "double": [1.7976931348623157e308, 5e-324]}
PRINTABLE = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789     .,;:-_/+*=()[]!?#@'\""


def base(t: str) -> tuple[str, int]:
    """`int[][]` -> ("int", 2); varargs `int...` counts as an array."""
    t = t.strip().replace("...", "[]")
    dims = len(re.findall(r"\[\s*\]", t))
    return re.sub(r"\s*(\[\s*\])+$", "", t), dims


def normalize(t: str) -> str:
    name, dims = base(t)
    return name + "[]" * dims


def supported(t: str) -> bool:
    return base(t)[0] in SCALARS


def generate(params: list[str] | tuple[str, ...], seed: str, count: int) -> list[list[Any]]:
    """`count` distinct inputs for a parameter list: boundary values first, then random ones."""
    rng = random.Random(seed)
    if not params:
        return [[]]
    inputs: list[list[Any]] = []
    seen: set[str] = set()

    def add(args: list[Any]) -> None:
        text = json.dumps(args)
        if text not in seen and len(inputs) < count:
            seen.add(text)
            inputs.append(args)

    add([_value(t, rng, special=False) for t in params])
    sweep = [(k, v) for k, t in enumerate(params) for v in _specials(t)]
    rng.shuffle(sweep)
    for k, v in sweep[: count // 2]:
        add([v if j == k else _value(t, rng, special=False) for j, t in enumerate(params)])
    for _ in range(20 * count):
        if len(inputs) >= count:
            break
        add([_value(t, rng, special=rng.random() < 0.15) for t in params])
    return inputs


def _specials(t: str) -> list[Any]:
    name, dims = base(t)
    if dims:
        element = name + "[]" * (dims - 1)
        return [None, [], [_specials(element)[1]], [_plain(element) for _ in range(3)]]
    nullable = [None] if name in BOXED or name == "String" else []
    name = BOXED.get(name, name)
    if name in INTEGRAL:
        bits = INTEGRAL[name]
        lo, hi = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
        return nullable + [0, 1, -1, 2, 3, 7, 10, 100, -10, -100, lo, hi]
    if name in FLOATING:
        return nullable + FLOATS + FLOAT_LIMITS[name]
    if name == "boolean":
        return nullable + [True, False]
    if name == "char":
        return CHARS
    return nullable + STRINGS


def _extreme(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) > 1e6


def _plain(t: str) -> Any:
    """A harmless small value: the element of a boundary array."""
    name, dims = base(t)
    if dims:
        return []
    name = BOXED.get(name, name)
    return {"boolean": True, "char": "a", "String": "a"}.get(name, 1)


def _value(t: str, rng: random.Random, special: bool) -> Any:
    name, dims = base(t)
    if dims:
        if special and rng.random() < 0.3:
            return rng.choice([None, []])
        size = rng.choice([1, 2, 3, 4, 5, 6, 8, 10]) if rng.random() < 0.9 else rng.randint(0, 30)
        element = name + "[]" * (dims - 1)
        return [_value(element, rng, special and rng.random() < 0.3) for _ in range(size)]
    if special:  # the type's limits only in the boundary sweep, where each appears once
        return rng.choice([v for v in _specials(t) if not _extreme(v)])
    name = BOXED.get(name, name)
    if name in INTEGRAL:
        bits = INTEGRAL[name]
        r = rng.random()  # mostly small: a huge count makes a loop run past its deadline, which proves little
        if r < 0.7:
            return rng.randint(-20, 20)
        if r < 0.99 and bits > 8:
            return rng.randint(-1000, 1000)
        return rng.randint(-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
    if name in FLOATING:
        r = rng.random()
        if r < 0.4:
            return float(rng.randint(-20, 20))
        if r < 0.8:
            return round(rng.uniform(-100, 100), rng.choice([1, 2, 3]))
        return rng.uniform(-1e6, 1e6)
    if name == "boolean":
        return rng.random() < 0.5
    if name == "char":
        return rng.choice(PRINTABLE)
    size = rng.choice([0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 16])
    alphabet = rng.choice(["abc", "abcdefghijklmnopqrstuvwxyz", PRINTABLE, "0123456789", "ab ,.;"])
    return "".join(rng.choice(alphabet) for _ in range(size))


# -- outcomes ---------------------------------------------------------------------------------------------
EXHAUSTED = ("t", "x:java.lang.OutOfMemoryError")
MAX_EXHAUSTED = 10  # Harness.MAX_EXHAUSTED


def stopped_early(lines: Iterable[dict[str, Any]], stop_after: int) -> bool:
    """The harness ends a unit after stop_after differing inputs, or after MAX_EXHAUSTED inputs on which
    every target ran out of time or memory; fewer answers than inputs are then expected."""
    lines = list(lines)
    differ = sum(verdict(line) == "differ" for line in lines)
    exhausted = sum(not line.get("abandoned") and all(o in EXHAUSTED for o in line["out"]) for line in lines)
    return differ >= stop_after or exhausted >= MAX_EXHAUSTED


def verdict(line: dict[str, Any]) -> str:
    """One input's verdict from its harness line: agree, differ, unstable (nondeterministic) or abandoned.

    The harness decides (see Harness.verdict): outcomes agree when their canonical texts are equal; targets
    that disagreed ran again with a longer deadline, and the second run decides.
    """
    return "abandoned" if line.get("abandoned") else line["v"]
