"""CodeComplex (paper Sec. 3.3): the records of python_test.jsonl, read as `Program`s.

Each record is a whole stdin/stdout Python program with its complexity label. Turning a program into a
typed entry function and keeping only faithful ones is the complexity domain's work
(`codewalk.domains.complexity.extract` and `.verify`); this module only reads."""


from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from codewalk import jsonl
from codewalk.errors import InputError

LABELS = ("constant", "logn", "linear", "nlogn", "quadratic", "cubic", "np")
ENTRY = "solve"


# -- records -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Program:
    id: str  # cc-simple-test-<row>
    label: str
    src: str


def read(path: Path) -> list[Program]:
    """Every record of python_test.jsonl; InputError names a malformed line."""
    programs: dict[str, Program] = {}
    for number, record in jsonl.objects(path):
        missing = [key for key in ("id", "src", "complexity") if key not in record]
        if missing:
            raise InputError(str(path), number, f"missing field(s): {', '.join(missing)}")
        pid, src, label = record["id"], record["src"], record["complexity"]
        if not (isinstance(pid, str) and pid) or not isinstance(src, str):
            raise InputError(str(path), number, "id must be a non-empty string and src a string")
        if label not in LABELS:
            raise InputError(str(path), number, f"complexity {label!r} is not one of {', '.join(LABELS)}")
        if pid in programs:
            raise InputError(str(path), number, f"duplicate id {pid!r}")
        programs[pid] = Program(pid, label, src)
    return list(programs.values())


