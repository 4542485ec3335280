"""Runs the named queries of cypher/explore/ (`cw query --name`) with their `// Defaults:` lines; their
text comes from cypher_files like every other query's."""

from __future__ import annotations

import json
import re
from importlib.resources import files
from typing import Any

from .cypher_files import query
from .errors import UsageError
from .store import GraphStore


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
