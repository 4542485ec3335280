"""Reads the Cypher files shipped in `codewalk.cypher` (the repository's top-level cypher/), and runs
the named queries of cypher/explore/ (`cw query --name`) with their `// Defaults:` lines."""

from __future__ import annotations

import json
import re
from functools import cache
from importlib.resources import files
from typing import TYPE_CHECKING, Any, Literal

from .errors import UsageError
from .records import REL_TYPES

if TYPE_CHECKING:
    from .store import GraphStore  # the store reads its own statements from here

Dialect = Literal["neo4j", "ladybug"]


@cache
def _text(name: str, dialect: Dialect) -> str:
    root = files("codewalk.cypher")
    for candidate in (f"{name}.{dialect}.cypher", f"{name}.cypher"):
        path = root.joinpath(*candidate.split("/"))
        if path.is_file():
            return path.read_text(encoding="utf-8")
    raise FileNotFoundError(f"no Cypher file for {name!r} ({dialect})")


def query(name: str, dialect: Dialect, rel: str | None = None) -> str:
    """The text of one named query. `rel` fills `${rel}` and must be a known relationship type."""
    text = _text(name, dialect)
    if "${rel}" not in text:
        return text
    if rel not in REL_TYPES:  # relationship types cannot be parameters: only the fixed set gets in
        raise UsageError(f"unknown relationship type {rel!r}; allowed: {', '.join(REL_TYPES)}")
    return text.replace("${rel}", rel)


def statements(name: str, dialect: Dialect) -> list[str]:
    """A multi-statement file (schema DDL) split into statements."""
    return [s.strip() for s in _text(name, dialect).split(";") if s.strip()]


# -- named queries (cypher/explore/) ---------------------------------------------------------------
def named_queries() -> dict[str, str]:
    """Name -> what it shows (the first comment line of its file)."""
    out: dict[str, str] = {}
    for path in sorted(files("codewalk.cypher").joinpath("explore").iterdir(), key=lambda p: p.name):
        if path.name.endswith(".cypher"):
            first = path.read_text(encoding="utf-8").splitlines()[0]
            out.setdefault(path.name.split(".")[0], first.removeprefix("//").strip())
    return out


def run_named(store: GraphStore, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Run `cypher/explore/NAME` with exactly the parameters it uses. A file's `// Defaults: KEY=VALUE ...`
    line gives values for those not passed; $domain defaults to the one domain loaded, when only one is."""
    known = named_queries()
    if name not in known:
        raise UsageError(f"no named query {name!r}; available: {', '.join(known)}")
    text = query(f"explore/{name}", store.dialect)
    params = defaults(text) | params
    if "domain" in parameters(text) and "domain" not in params and len(loaded := store.domains()) == 1:
        params = {**params, "domain": next(iter(loaded))}
    return run_checked(store, text, params, f"query {name!r}")


def run_checked(store: GraphStore, cypher: str, params: dict[str, Any], what: str = "the query") \
        -> list[dict[str, Any]]:
    """Run Cypher given exactly the parameters it uses: a missing one would read as null and a stray one
    is likely a typo, so either is a UsageError that lists what the query takes."""
    wanted = parameters(cypher)
    missing = [p for p in wanted if p not in params]
    unknown = [p for p in params if p not in wanted]
    if missing or unknown:
        takes = " ".join(f"--param {p}=..." for p in wanted) or "no --param"
        raise UsageError(f"{what} takes {takes}"
                         + (f"; missing: {', '.join(missing)}" if missing else "")
                         + (f"; not used: {', '.join(unknown)}" if unknown else ""))
    return store.run(cypher, params)


def defaults(cypher: str) -> dict[str, Any]:
    """The values a named query's `// Defaults: limit=10 ...` comment line gives (JSON values)."""
    found: dict[str, Any] = {}
    for line in re.findall(r"^//\s*Defaults:(.*)$", cypher, flags=re.M):
        for key, value in re.findall(r"(\w+)=(\S+)", line):
            found[key] = json.loads(value)
    return found


def parameters(cypher: str) -> list[str]:
    """The $names a Cypher text uses, outside comments and string literals."""
    code = re.sub(r"//[^\n]*|'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", "", cypher)
    return sorted(set(re.findall(r"\$(\w+)", code)))
