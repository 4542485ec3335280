"""What a candidate changed, judged as it landed: the tree on disk, and each changed module as Python reads it.

A candidate is graded by running the repository's tests on it, so a patch that reconfigures pytest,
hooks interpreter start-up, or gives library code the means to find and fool the runner could turn
failures into passes without fixing anything. Words in the diff do not say what landed (GNU patch reads
formats `git apply` ignores, .gitignore keeps files out of the index, a coding cookie changes what the
bytes mean), so `landed` lists every path that differs on disk from x_G, ignored and untracked files
included, and `refusal` judges those: paths the diff did not name, configuration and start-up files,
symlinks, binary content, source encodings other than utf-8, and new capabilities of changed modules
(`capabilities`). The run neutralises the rest (env.run_tests: harness-owned pytest configuration,
plugin autoload off).
"""

from __future__ import annotations

import configparser
import hashlib
import os
import stat
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from .capabilities import encoding, new_uses
from .patch import is_test_path

# pytest reads its configuration from these; an edit to one is refused whatever it contains.
PYTEST_CONFIGS = {"pytest.ini", ".pytest.ini", "pytest.toml", ".pytest.toml", "tox.ini", "conftest.py"}
# Files that steer git itself (what it ignores, how it converts), which the grader reads the tree through.
GIT_FILES = {".gitignore", ".gitattributes", ".gitmodules", ".mailmap"}
# Imported or processed by `site` at interpreter start-up when on sys.path.
STARTUP_HOOKS = {"sitecustomize.py", "usercustomize.py"}
# Bytecode and compiled modules: Python may load them instead of the source (an unchecked-hash .pyc is
# never compared with its .py), so they could hide code from every other check.
COMPILED = {".pyc", ".pyo", ".so", ".pyd", ".dll", ".dylib"}
# Packages the harness imports inside the run: a top-level module of that name would shadow it.
HARNESS_MODULES = {"pytest", "_pytest", "pluggy", "iniconfig", "packaging", "py", "exceptiongroup", "tomli"}
MOST = 6  # reasons named in one refusal

Entry = tuple[object, ...]  # ("file", executable, sha256) | ("link", target) | ("dir",) | ("other", mode)


def snapshot(root: Path) -> dict[str, Entry]:
    """Every path under root as it is on disk (git's link file `.git` at the top aside): regular files by
    content and executable bit, symlinks by target (never followed), empty directories, anything else."""
    out: dict[str, Entry] = {}
    for top, dirs, files in os.walk(root):
        here = Path(top)
        rel = here.relative_to(root).as_posix()
        prefix = "" if rel == "." else rel + "/"
        if not dirs and not files and prefix:
            out[rel] = ("dir",)
        for name in [*dirs, *files]:
            if not prefix and name == ".git":
                continue
            path = here / name
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                out[prefix + name] = ("link", os.readlink(path))
            elif stat.S_ISREG(info.st_mode):
                out[prefix + name] = ("file", bool(info.st_mode & 0o111), _sha(path))
            elif not stat.S_ISDIR(info.st_mode):
                out[prefix + name] = ("other", stat.S_IFMT(info.st_mode))
        dirs[:] = [d for d in dirs if not (not prefix and d == ".git")]
    return out


def landed(before: dict[str, Entry], after: dict[str, Entry]) -> list[str]:
    """The paths whose entry differs between two snapshots (created, changed or removed), sorted."""
    return sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))


def importable_test_names(paths: list[str]) -> frozenset[str]:
    """The module names under which code could import the test files among paths: each dotted suffix,
    since pytest puts a test file's first directory without __init__.py on sys.path."""
    names: set[str] = set()
    for path in paths:
        if not (path.endswith(".py") and is_test_path(path)):
            continue
        parts = list(PurePosixPath(path.removesuffix(".py")).parts)
        if parts[-1] == "__init__":
            parts.pop()
        names.update(".".join(parts[k:]) for k in range(len(parts)) if parts[k:])
    return frozenset(n for n in names if n)


def refusal(changed: list[str], before: Callable[[str], str | None], after: Callable[[str], bytes | None],
            *, named: set[str] | None = None, tests: frozenset[str] = frozenset(),
            kinds: dict[str, Entry] | None = None) -> str:
    """Why the changed paths (repository-relative) are refused, or "" if none could touch the run.

    before(path) is the text at x_G (None: the file is new); after(path) the bytes now (None: deleted or
    not a regular file). named: the paths the diff names (None: not checked); tests: the test files'
    module names (`importable_test_names`); kinds: the snapshot entry of each path now, for symlinks and the like.
    """
    reasons: list[str] = []
    modules: list[tuple[str, str | None, bytes | None]] = []
    for path in changed:
        kind = (kinds or {}).get(path)
        if named is not None and path not in named and kind != ("dir",):  # an empty directory holds nothing
            reasons.append(f"{path} changed on disk but the diff does not name it")
        if kind and kind[0] == "link":
            reasons.append(f"it creates the symlink {path}")
        elif kind and kind[0] == "other":
            reasons.append(f"it creates {path}, which is not a regular file")
        why = _path_refusal(path)
        if why:
            reasons.append(why)
        now = after(path)
        if now is None:
            continue
        if b"\0" in now:
            reasons.append(f"it adds binary content in {path}")
            continue
        text = now.decode("utf-8", errors="replace")
        name = PurePosixPath(path).name
        old = before(path)
        if name in ("setup.cfg", "pyproject.toml") and _pytest_section(name, old or "") \
                != _pytest_section(name, text):
            reasons.append(f"it changes the pytest configuration in {path}")
        if name in ("setup.cfg", "pyproject.toml", "setup.py") and "pytest11" in text \
                and "pytest11" not in (old or ""):
            reasons.append(f"it declares a pytest plugin entry point in {path}")
        if old is None:
            why = _shadows(path)
            if why:
                reasons.append(why)
        if PurePosixPath(path).suffix in (".py", ".pyw"):
            declared = encoding(now)
            if declared not in ("utf-8", "utf-8-sig") and (old is None or encoding(old.encode()) != declared):
                reasons.append(f"{path} declares the source encoding {declared}: Python would read other "
                               "text than the bytes show (only utf-8 is accepted)")
                continue
            modules.append((path, old, now))
    reasons += new_uses(((p, old, now) for p, old, now in modules), tests)
    shown = list(dict.fromkeys(reasons))
    return "; ".join(shown[:MOST]) + (f"; and {len(shown) - MOST} more" if len(shown) > MOST else "")


def _sha(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _path_refusal(path: str) -> str:
    parts = PurePosixPath(path).parts
    name = parts[-1]
    if name in PYTEST_CONFIGS:
        return f"it changes the pytest configuration file {path}"
    if name in GIT_FILES:
        return f"it changes {path}, which decides what git sees of the tree"
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
