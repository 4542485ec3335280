"""Reading JSON-lines input (catalogues, dataset rows, predictions) with errors that name the line.

Every loader and `cw grade` reads through `objects`, so a truncated line, a non-UTF-8 byte, a value nested
too deeply for the parser or a number too long to convert is an InputError naming file and line, never
a traceback. Lines are split on "\\n" only: U+2028 and friends are legal inside JSON strings.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .errors import InputError


def objects(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line; InputError for the first bad one."""
    for number, value in values(path):
        if not isinstance(value, dict):
            raise InputError(str(path), number, "not a JSON object")
        yield number, value


def values(path: Path) -> Iterator[tuple[int, Any]]:
    """(line number, JSON value) for every non-blank line."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise InputError(str(path), None, f"cannot read: {e.strerror}") from None
    for number, raw in enumerate(data.split(b"\n"), 1):
        if raw.strip():
            yield number, parse(raw, lambda reason, n=number: InputError(str(path), n, reason))


def parse(raw: bytes | str, bad) -> Any:
    """One JSON document; `bad(reason)` makes the error to raise."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError as e:
        raise bad(f"not UTF-8 (byte {e.start + 1} of the line)") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise bad(f"not valid JSON ({e.msg})") from None
    except ValueError as e:  # e.g. an integer beyond Python's digit limit
        raise bad(f"not usable JSON ({e})") from None
    except RecursionError:
        raise bad("JSON nested too deeply") from None
