"""The repair grader's refusal codes, and the file-level rules: what a changed path may be.

Every refusal names one `Rule` (in a verdict: `Check.evidence["rule"]`, with `Check.reason` "refused").
`refusals` is the static layer's single entry point: the grader (`guard.refusal`) and the measurement of
what the rules cost real fixes (bench, helper "hist") both call it, so both judge the same rules.
"""

from __future__ import annotations

import configparser
import sys
import tomllib
from collections.abc import Callable, Collection, Iterable
from pathlib import PurePosixPath

from .capabilities import PYTHON2_ONLY, WINDOWS_ONLY, encoding, new_refusals
from .codes import Refusal, Rule

# pytest reads its configuration from these; an edit to one is refused whatever it contains.
PYTEST_CONFIGS = {"pytest.ini", ".pytest.ini", "pytest.toml", ".pytest.toml", "tox.ini", "conftest.py"}
# Files that steer git itself (what it ignores, how it converts), which the grader reads the tree through.
GIT_FILES = {".gitignore", ".gitattributes", ".gitmodules", ".mailmap"}
# Imported or processed by `site` at interpreter start-up when on sys.path.
STARTUP_HOOKS = {"sitecustomize.py", "usercustomize.py"}
# Bytecode and compiled modules: Python may load them instead of the source (an unchecked-hash .pyc is
# never compared with its .py), so they could hide code from every other check.
COMPILED = {".pyc", ".pyo", ".so", ".pyd", ".dll", ".dylib"}
# What a candidate may change (round 15a): Python modules and their typing stubs; any other file is NOT_SOURCE.
MODULES = (".py", ".pyi")
# Imported by the harness in every run: always treated as importable, even when no environment was measured.
HARNESS_MODULES = frozenset({"pytest", "_pytest", "pluggy", "iniconfig", "packaging", "py", "exceptiongroup",
                             "tomli"})


def baseline_importable() -> frozenset[str]:
    """What any environment imports without the tree at least: the harness's modules and this interpreter's
    standard library. The grader adds what an empty pytest session in the task's environment imports
    (env.importable_names); this is the floor when no environment is at hand."""
    return HARNESS_MODULES | frozenset(sys.stdlib_module_names) | frozenset(sys.builtin_module_names)


def refusals(changed: Iterable[tuple[str, bytes | str | None, bytes | str | None]], own: Collection[str],
             importable: Collection[str], *, tests: frozenset[str] = frozenset(),
             tree: Callable[[], Iterable[tuple[str, bytes | str | None]]] | None = None) -> list[Refusal]:
    """Every refusal of the static layer for a set of changed files; [] when a grader would run the tests.

    STABLE ENTRY POINT (the grader and bench measurements of real fix commits call it; keep the signature).
    - changed: (path, source at x_G or None if the file is new, source now or None if deleted), paths
      relative to the repository root with '/', sources as bytes (as on disk) or text;
    - own: the repository's own top-level module names at x_G (`pkg` for pkg/__init__.py or src/pkg/,
      `mod` for mod.py); imports of them are the repository's;
    - importable: the top-level names the task's environment imports without the tree (env.importable_names;
      `baseline_importable()` when none was measured); a new top-level module named like one is refused;
    - tests: module names of the repository's test files (guard.importable_test_names), which library code
      may not import;
    - tree: the repository's files at x_G as (path, source), called only when a third-party import would be
      refused (round 13: a module the repository's own packages import at x_G may be imported again;
      capabilities.tree_imports); None: not read.
    Returns (rule, path, line, what) tuples (`Refusal`), in file order, NOT_SOURCE (a file that is not a Python
    module, round 15a) after every other. Rules judge the file (its path,
    content, encoding) and, for Python modules, the new code against the changed modules at x_G
    (capabilities.new_refusals): what the changed modules did at x_G may stay, only new nodes are judged.
    """
    items = list(changed)
    found: list[Refusal] = []
    modules: list[tuple[str, bytes | str | None, bytes | str | None]] = []
    floor = baseline_importable()
    for path, old, new in items:
        for rule, what in path_rules(path):
            found.append(Refusal(rule, path, 0, what))
        if new is None:
            modules.append((path, old, None))
            continue
        raw = new.encode() if isinstance(new, str) else new
        if b"\0" in raw:
            found.append(Refusal(Rule.BINARY, path, 0, "adds binary content"))
            continue
        text = raw.decode("utf-8", errors="replace")
        old_text = old.decode("utf-8", errors="replace") if isinstance(old, bytes) else old
        name = PurePosixPath(path).name
        if name in ("setup.cfg", "pyproject.toml") and _pytest_section(name, old_text or "") \
                != _pytest_section(name, text):
            found.append(Refusal(Rule.CONFIG_FILE, path, 0, f"changes the pytest configuration in {path}"))
        if name in ("setup.cfg", "pyproject.toml", "setup.py") and "pytest11" in text \
                and "pytest11" not in (old_text or ""):
            found.append(Refusal(Rule.PACKAGE_METADATA, path, 0, f"declares a pytest plugin entry point in {path}"))
        if old is None:
            shadowed = _shadowed(path, own, {*importable, *floor})
            if shadowed:
                found.append(Refusal(Rule.SHADOWS_ENVIRONMENT, path, 0, f"shadows the module {shadowed!r} that "
                                     "the environment imports without the tree (harness, standard library or "
                                     "an installed distribution)"))
        if PurePosixPath(path).suffix in (".py", ".pyw"):
            declared = encoding(raw)
            old_raw = old.encode() if isinstance(old, str) else old
            if declared not in ("utf-8", "utf-8-sig") and (old_raw is None or encoding(old_raw) != declared):
                found.append(Refusal(Rule.ENCODING, path, 0, f"declares the source encoding {declared}: Python "
                                     "would read other text than the bytes show (only utf-8 is accepted)"))
                continue
            modules.append((path, old, raw))
    new_top = {t for p, o, n in items if o is None and n is not None and (t := top_module(p))}
    # Python 2 modules count as absent only where the environment was measured (importable not empty)
    absent = PYTHON2_ONLY - set(importable) - set(own) - new_top if importable else frozenset()
    if importable and sys.platform != "win32":  # the task runs where the grader runs, or in a Linux container
        absent |= WINDOWS_ONLY - set(own) - new_top
    found += new_refusals(modules, frozenset(own) | new_top, tests, absent, frozenset(new_top) - set(own), tree)
    return sorted(found, key=lambda r: r.rule == Rule.NOT_SOURCE)  # the catch-all last: a file's own code first


def top_module(path: str) -> str:
    """The top-level module name a repository path is importable as (src/ layout too), or "" if none."""
    parts = PurePosixPath(path).parts
    top = parts[1:] if parts and parts[0] == "src" and len(parts) > 1 else parts
    if not top:
        return ""
    if len(top) == 1:
        name = top[0]
        if not name.endswith((".py", ".pyw")) and not name.endswith(tuple(COMPILED)):
            return ""
        module = name.split(".")[0]
    else:
        module = top[0]
    return module if module.isidentifier() else ""


def _shadowed(path: str, own: Collection[str], importable: Collection[str]) -> str:
    """The importable name a new file's top-level module takes, unless the repository already had it."""
    module = top_module(path)
    return module if module and module not in own and module in importable else ""


def path_rules(path: str) -> list[tuple[Rule, str]]:
    """What the path alone makes of a changed file (test files, configuration, start-up hooks, metadata)."""
    from .patch import is_test_path

    parts = PurePosixPath(path).parts
    name = parts[-1] if parts else path
    found: list[tuple[Rule, str]] = []
    if name in PYTEST_CONFIGS:
        found.append((Rule.CONFIG_FILE, "is a pytest configuration file"))
    elif is_test_path(path):
        found.append((Rule.TEST_FILE, "is a test file"))
    if name in GIT_FILES:
        found.append((Rule.CONFIG_FILE, "decides what git sees of the tree"))
    if name in STARTUP_HOOKS or name.endswith(".pth"):
        found.append((Rule.STARTUP_HOOK, "is an interpreter start-up hook"))
    if any(p.endswith((".egg-info", ".dist-info")) or p == "__pycache__" for p in parts) \
            or name == "entry_points.txt":
        found.append((Rule.PACKAGE_METADATA, "is package metadata or cached bytecode (entry points, plugins)"))
    elif PurePosixPath(path).suffix in COMPILED:
        found.append((Rule.PACKAGE_METADATA, "is a compiled module"))
    if not found and not name.endswith(MODULES):
        found.append((Rule.NOT_SOURCE, "is not a Python module: a candidate changes the library's .py modules (and "
                                       ".pyi stubs) only; data, configuration and documentation are what the tests "
                                       "may read"))
    return found


def _pytest_section(name: str, text: str) -> object:
    """The pytest part of setup.cfg ([tool:pytest]) or pyproject.toml ([tool.pytest...]); else the text."""
    try:
        if name == "pyproject.toml":
            return tomllib.loads(text).get("tool", {}).get("pytest")
        parser = configparser.RawConfigParser()
        parser.read_string(text)
        return {s: dict(parser[s]) for s in parser.sections() if "pytest" in s}
    except (tomllib.TOMLDecodeError, configparser.Error):
        return text  # pytest may still read part of it: any change to an unreadable file counts
