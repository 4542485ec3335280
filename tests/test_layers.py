"""The import contract: dependencies point one way, cli -> library -> domains -> runtime/store/readers ->
records, and no module imports itself back through others. Read from the source's own import statements
(those inside functions too: a lazy import is still a dependency), so it needs nothing installed."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Each module's layer, by its dotted name's longest matching prefix; higher layers may import lower ones
# and their own, never a higher one.
LAYERS = {
    "cli": ["codewalk.__main__", "codewalk.cli", "codewalk.cli_db", "codewalk.cli_output"],
    "library": ["codewalk.admission", "codewalk.walk", "codewalk.grading", "codewalk.report", "codewalk.export",
                "codewalk.card", "codewalk.loading", "codewalk.explore", "codewalk.browser", "codewalk.demo",
                "codewalk.queries", "codewalk.evals", "codewalk.datasets", "codewalk.splits",
                "codewalk.training", "codewalk.release"],
    "domains": ["codewalk.domains", "codewalk.domain"],  # domain.py: the plugin interface, built on the runtime
    "runtime/store/readers": ["codewalk.runtime",  # runtime/: the runtime, sandbox, meter, locks
                              "codewalk.executors", "codewalk.gitsafe", "codewalk.staging", "codewalk.store",
                              "codewalk.dbserver",
                              "codewalk.cypher_files", "codewalk.relations", "codewalk.loaders"],
    "records": ["codewalk.records", "codewalk.errors", "codewalk.paths", "codewalk.jsonl", "codewalk"],
}
ORDER = list(LAYERS)  # top first


def modules() -> dict[str, Path]:
    found = {}
    for path in (ROOT / "codewalk").rglob("*.py"):
        if "harness" in path.parts:  # standalone scripts run by the harness, outside the package
            continue
        found[_name(path.relative_to(ROOT).with_suffix("").parts)] = path
    for path in (ROOT / "loaders").glob("*.py"):  # shipped as codewalk.loaders
        found[_name(("codewalk", "loaders", path.stem))] = path
    return found


def _name(parts: tuple[str, ...]) -> str:
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The package's modules that `name` imports, anywhere in its body."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([node.module] if node.module else [])])
            parts = [f"{base}.{a.name}" for a in node.names]
            # `from . import paths` imports the module codewalk.paths, not the package codewalk
            targets = [p for p in parts if p in known] or [base]
        elif isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        else:
            continue
        out |= {t for t in targets if t in known and t != name}
    return out


def layer(name: str) -> str:
    """The layer of a module: that of its longest listed prefix ("codewalk" itself names only the package's
    __init__, so a new module must be given a layer here)."""
    found = [(prefix, lay) for lay, prefixes in LAYERS.items() for prefix in prefixes
             if name == prefix or (prefix != "codewalk" and name.startswith(prefix + "."))]
    return max(found, key=lambda p: len(p[0]))[1] if found else "unlisted"


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def test_every_import_points_down_the_layers_or_stays_in_its_own():
    rank = {lay: k for k, lay in enumerate(ORDER)} | {"unlisted": -1}  # unlisted: the next test names it
    upward = [f"{a} ({layer(a)}) imports {b} ({layer(b)})" for a, targets in sorted(graph().items())
              for b in sorted(targets) if rank[layer(b)] < rank[layer(a)]]
    assert not upward, "\n".join(upward)


def test_no_module_imports_itself_back_through_others():
    edges = graph()
    circles, index, low, stack, on, counter = [], {}, {}, [], set(), [0]

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    # A package's __init__ importing its own submodules, which import names from the package, is Python's
    # usual shape, not a circle between layers; anything else is.
    real = [c for c in circles if not _package_and_its_parts(c)]
    assert not real, real


def _package_and_its_parts(component: list[str]) -> bool:
    shortest = min(component, key=len)
    return all(m == shortest or m.startswith(shortest + ".") for m in component) and \
        _only_through(shortest, component)


def _only_through(package: str, component: list[str]) -> bool:
    """True when the parts reach each other only through the package itself (no part imports a sibling
    that imports it back)."""
    edges = graph()
    parts = [m for m in component if m != package]
    return not any(b in edges[a] and a in edges[b] for a in parts for b in parts)


def test_every_module_has_a_layer():
    assert not [name for name in modules() if layer(name) not in LAYERS]


def test_where_code_runs_is_asked_of_the_runtime_object_never_compared_by_name():
    """Outside codewalk/runtime/ nothing branches on the runtime's name or on the type of an environment:
    a domain asks the Runtime its Settings carry (issue 45)."""
    found = [f"{path.relative_to(ROOT)}:{number}" for path in sorted((ROOT / "codewalk").rglob("*.py"))
             if path.relative_to(ROOT / "codewalk").parts[0] != "runtime"
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if "runtime ==" in line or "isinstance(env" in line]
    assert not found, found
