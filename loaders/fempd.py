"""The FEMPD source: human-labeled Java method pairs (FEMP-X release), read from `labeled/index.jsonl`.

Data: Higo, "Dataset of Functionally Equivalent Java Methods and Its Application to Evaluating Clone
Detection Tools", IEICE Trans. Inf. & Syst. E107-D(6), 2024; pairs, labels and witness tests from FEMP-X
(Higo, Zenodo doi:10.5281/zenodo.19543614), code from IJADataset. Licence: CC BY-NC 4.0, non-commercial
use only; the data stays outside this repository (see the dataset's PROVENANCE.md and LICENSE-FEMP-X.txt).

Each index record names a pair file (`package <label>; public class ClonePair<ID>` with two
package-private methods `method1` and `method2` of the same signature) and, for equivalent pairs, the
EvoSuite suites of both methods. This module checks each record and each pair file and pulls the two
method declarations out of the class; it runs nothing. A malformed record raises InputError naming the
file and line; a pair file that cannot be split into its two methods names the pair file.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from codewalk import jsonl
from codewalk.errors import InputError

INDEX = Path("labeled") / "index.jsonl"
LABELS = {"equivalent": "eq", "inequivalent": "neq"}
FIELDS = ("pair_id", "label", "return_type", "param_types", "pair_file", "evosuite", "llm_status",
          "difference_types")


@dataclass(frozen=True)
class Suite:
    """One method's EvoSuite suite: the test class and its scaffolding (JUnit 4, EvoSuite runtime)."""

    test: str
    scaffolding: str


@dataclass(frozen=True)
class Pair:
    pair_id: int
    label: str  # eq / neq (the FEMPD consensus)
    return_type: str
    param_types: tuple[str, ...]
    param_names: tuple[str, ...]  # as method1 names them
    path: str  # the pair file, relative to the source folder
    imports: tuple[str, ...]  # import lines of the pair file
    method1: str  # full declaration, annotations included
    method2: str
    suites: dict[str, Suite] | None  # "method1"/"method2" -> its EvoSuite suite; equivalent pairs only
    llm_status: str  # FEMP-X's LLM witness search: witness_found / no_witness_found (reported, never decides)
    difference_types: tuple[str, ...]

    @property
    def name(self) -> str:
        return f"ClonePair{self.pair_id}"

    @property
    def package(self) -> str:
        return Path(self.path).parent.name


def read(source: Path, only: set[int] | None = None) -> list[Pair]:
    """All pairs of a FEMPD folder (or those with the given ids), in index order."""
    source = Path(source)
    index = source / INDEX
    pairs: dict[int, Pair] = {}
    for number, record in jsonl.objects(index):
        _check(record, partial(InputError, str(index), number))
        pair_id = record["pair_id"]
        if pair_id in pairs:
            raise InputError(str(index), number, f"duplicate pair_id {pair_id}")
        if only is not None and pair_id not in only:
            continue
        pairs[pair_id] = _pair(source, record, number, index)
    if only is not None and set(only) - set(pairs):
        raise InputError(str(index), None, f"no pair(s) {sorted(set(only) - set(pairs))} in the index")
    return list(pairs.values())


def _check(record: dict[str, Any], bad: Callable[[str], InputError]) -> None:
    missing = [key for key in FIELDS if key not in record]
    if missing:
        raise bad(f"missing field(s): {', '.join(missing)}")
    if not isinstance(record["pair_id"], int) or isinstance(record["pair_id"], bool):  # JSON true is not an id
        raise bad("pair_id must be an integer")
    if not isinstance(record["label"], str) or record["label"] not in LABELS:
        raise bad(f"label {record['label']!r} is not one of {', '.join(LABELS)}")
    if not (isinstance(record["param_types"], list) and all(isinstance(t, str) for t in record["param_types"])):
        raise bad("param_types must be a list of type names")
    if not isinstance(record["return_type"], str) or not isinstance(record["pair_file"], str):
        raise bad("return_type and pair_file must be strings")
    evosuite = record["evosuite"]
    if evosuite is not None and not (isinstance(evosuite, dict) and set(evosuite) == {"method1", "method2"}
                                     and all(isinstance(s, dict) and {"test", "scaffolding"} <= set(s)
                                             for s in evosuite.values())):
        raise bad("evosuite must be null or name method1's and method2's test and scaffolding files")


def _pair(source: Path, record: dict[str, Any], number: int, index: Path) -> Pair:
    path = source / record["pair_file"]
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise InputError(str(index), number, f"cannot read pair file {record['pair_file']}: {e.strerror}") from None
    name = f"ClonePair{record['pair_id']}"
    if name not in re.findall(r"\bclass\s+(\w+)", text):
        # The record and its file disagree: name the record, whose pair_id or pair_file is the likely slip.
        raise InputError(str(index), number, f"pair file {record['pair_file']} does not declare class {name}")
    methods = split_methods(text, str(path))
    if set(methods) != {"method1", "method2"}:
        raise InputError(str(path), None, f"expected methods method1 and method2, found {sorted(methods)}")
    types, names = parameters(methods["method1"], str(path))
    if [_norm(t) for t in types] != [_norm(t) for t in record["param_types"]]:
        raise InputError(str(index), number, f"param_types {record['param_types']} do not match {path.name} {types}")
    suites = None
    if record["evosuite"]:
        suites = {m: Suite(str(source / s["test"]), str(source / s["scaffolding"])) for m, s in record["evosuite"].items()}
    return Pair(
        pair_id=record["pair_id"], label=LABELS[record["label"]], return_type=record["return_type"],
        param_types=tuple(record["param_types"]), param_names=tuple(names), path=record["pair_file"],
        imports=tuple(re.findall(r"^import\s+[\w.*]+\s*;", text, re.MULTILINE)), method1=methods["method1"],
        method2=methods["method2"], suites=suites, llm_status=str(record["llm_status"]),
        difference_types=tuple(record["difference_types"] or ()),
    )


def _norm(t: str) -> str:
    return re.sub(r"\s+", "", t).replace("...", "[]")


# -- Java text -----------------------------------------------------------------------------------------------
def split_methods(text: str, where: str) -> dict[str, str]:
    """The member declarations of the file's class by name, each with its annotations and indentation."""
    code = blank_literals(text)
    declared = re.search(r"\bclass\b", code)
    open_brace = code.find("{", declared.end()) if declared else -1
    if open_brace < 0:
        raise InputError(where, None, "no class body")
    methods: dict[str, str] = {}
    depth, start = 0, open_brace + 1
    for brace in re.finditer(r"[{};]", code[open_brace + 1:]):
        k, c = open_brace + 1 + brace.start(), brace.group(0)
        if c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:  # the class closes
                break
            depth -= 1
            if depth == 0:
                member = re.sub(r"^\s*\n", "", text[start:k + 1].rstrip())
                header = _blank_annotations(code[start:k + 1]).split("{", 1)[0]
                found = re.search(r"(\w+)\s*$", header.split("(", 1)[0]) if "(" in header else None
                if not found:
                    raise InputError(where, text.count("\n", 0, start) + 1, "a member that is not a method")
                methods[found.group(1)] = member
                start = k + 1
        elif c == ";" and depth == 0:
            raise InputError(where, text.count("\n", 0, k) + 1, "a field or abstract member in the pair class")
    else:
        raise InputError(where, None, "unbalanced braces: the class body is not closed")
    return methods


def parameters(method: str, where: str) -> tuple[list[str], list[str]]:
    """Parameter types and names of a method declaration."""
    code = _blank_annotations(blank_literals(method))
    head = code[code.index("(") + 1:]
    depth, end = 0, None
    for k, c in enumerate(head):
        depth += c in "(<"
        depth -= c in ")>"
        if depth < 0:
            end = k
            break
    if end is None:
        raise InputError(where, None, "unbalanced parameter list")
    params = method[code.index("(") + 1:code.index("(") + 1 + end]
    types, names = [], []
    for part in _split_top(params):
        part = re.sub(r"\bfinal\b", "", part).strip()
        if not part:
            continue
        found = re.match(r"(.+?)\s*\b(\w+)\s*((?:\[\s*\])*)$", part, re.DOTALL)
        if not found:
            raise InputError(where, None, f"cannot read parameter {part!r}")
        types.append(re.sub(r"\s+", " ", found.group(1)).strip() + found.group(3).replace(" ", ""))
        names.append(found.group(2))
    return types, names


def _split_top(params: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for k, c in enumerate(params):
        depth += c == "<"
        depth -= c == ">"
        if c == "," and depth == 0:
            parts.append(params[start:k])
            start = k + 1
    return parts + [params[start:]]


_LITERAL = re.compile(r"""//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'""", re.DOTALL)


def blank_literals(text: str) -> str:
    """The text with comments, string and char literals blanked (same length), so braces can be counted."""
    return _LITERAL.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def _blank_annotations(code: str) -> str:
    return re.sub(r"@[\w.]+\s*(\([^)]*\))?", lambda m: " " * len(m.group(0)), code)
