"""What in a candidate could change how the interpreter or the test runner starts or reports.

A candidate is graded by running the repository's tests on it, so a patch that reconfigures pytest,
hooks interpreter start-up or patches the runner from library code could turn failures into passes
without fixing anything. `refusal` looks at what a candidate actually changed (after it was applied,
so every apply method is judged the same way) and names the first such change; the run itself
neutralises the rest (env.run_tests: harness-owned pytest configuration, plugin autoload off).

The source scan is a tripwire on the lines a candidate adds, not a proof: code built at run time
(getattr on strings, bytes decoded and executed) can slip past it.
"""

from __future__ import annotations

import configparser
import re
import sys
import tomllib
from collections.abc import Callable
from pathlib import PurePosixPath

# pytest reads its configuration from these; an edit to one is refused whatever it contains.
PYTEST_CONFIGS = {"pytest.ini", ".pytest.ini", "tox.ini", "conftest.py"}
# Imported or processed by `site` at interpreter start-up when on sys.path.
STARTUP_HOOKS = {"sitecustomize.py", "usercustomize.py"}
# Bytecode and compiled modules: Python may load them instead of the source (an unchecked-hash .pyc is
# never compared with its .py), so they could hide code from every other check.
COMPILED = {".pyc", ".pyo", ".so", ".pyd", ".dll", ".dylib"}
# Packages the harness imports inside the run: a top-level module of that name would shadow it.
HARNESS_MODULES = {"pytest", "_pytest", "pluggy", "iniconfig", "packaging", "py", "exceptiongroup", "tomli"}
# Added source lines that reach for the runner, the harness or the interpreter's exit and start-up.
SUSPECT = re.compile(
    r"pytest|pluggy|junit"  # imports, hooks (pytest_runtest_makereport), PYTEST_* variables, the report
    r"|\bsys\s*\.\s*(exit|modules|settrace|setprofile|excepthook)\b|\bos\s*\.\s*_exit\b|\batexit\b"
    r"|\bbuiltins\b|__builtins__|__import__|\bimportlib\b|\bexec\s*\(|\beval\s*\("
    r"|\bos\s*\.\s*(putenv|environ\s*(\[|\.\s*(update|setdefault)))", re.IGNORECASE)


def refusal(changed: list[str], before: Callable[[str], str | None], after: Callable[[str], bytes | None]) \
        -> str:
    """Why the changed paths (repository-relative) are refused, or "" if none could touch the run.

    before(path) is the text at x_G (None: the file is new); after(path) the bytes now (None: deleted).
    """
    for path in changed:
        why = _path_refusal(path)
        if why:
            return why
        now = after(path)
        if now is None:
            continue
        if b"\0" in now:
            return f"it adds binary content in {path}"
        text = now.decode("utf-8", errors="replace")
        name = PurePosixPath(path).name
        if name in ("setup.cfg", "pyproject.toml") and _pytest_section(name, before(path) or "") \
                != _pytest_section(name, text):
            return f"it changes the pytest configuration in {path}"
        if name in ("setup.cfg", "pyproject.toml", "setup.py") and "pytest11" in text \
                and "pytest11" not in (before(path) or ""):
            return f"it declares a pytest plugin entry point in {path}"
        if before(path) is None:
            why = _shadows(path)
            if why:
                return why
        if PurePosixPath(path).suffix in (".py", ".pyw", ".pyi"):
            old = set((before(path) or "").splitlines())
            for number, line in enumerate(text.splitlines(), 1):
                hit = SUSPECT.search(line) if line not in old else None
                if hit:
                    return (f"{path}:{number} adds {hit.group(0)!r}, which reaches for the test runner, the "
                            f"harness or the interpreter's start-up or exit: {line.strip()[:80]!r}")
    return ""


def _path_refusal(path: str) -> str:
    parts = PurePosixPath(path).parts
    name = parts[-1]
    if name in PYTEST_CONFIGS:
        return f"it changes the pytest configuration file {path}"
    if name in STARTUP_HOOKS or name.endswith(".pth"):
        return f"it adds the interpreter start-up hook {path}"
    if any(p.endswith((".egg-info", ".dist-info")) or p == "__pycache__" for p in parts) \
            or name == "entry_points.txt":
        return f"it adds package metadata or cached bytecode {path} (entry points, plugins)"
    if PurePosixPath(path).suffix in COMPILED:
        return f"it adds the compiled module {path}"
    return ""


def _shadows(path: str) -> str:
    """Why a new file is a top-level module that hides one the harness or the stdlib provides."""
    parts = PurePosixPath(path).parts
    name = parts[-1]
    # the worktree (and its src/) is first on sys.path: a top-level module there shadows any other
    top = parts[1:] if parts[0] == "src" and len(parts) > 1 else parts
    module = PurePosixPath(top[0]).stem if len(top) == 1 else top[0]
    if (len(top) == 1 and not name.endswith(".py")) or not module.isidentifier():
        return ""
    if module in HARNESS_MODULES or module in sys.stdlib_module_names:
        return f"{path} shadows the module {module!r} that the harness or the standard library provides"
    return ""


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
