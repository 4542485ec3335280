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

import hashlib
import os
import stat
from collections.abc import Callable, Collection, Iterable, Iterator
from pathlib import Path, PurePosixPath
from typing import Any

from .patch import is_test_path
from .rules import Refusal, Rule, refusals, top_module

MOST = 10  # reasons named in one refusal

Entry = tuple[object, ...]  # ("file", executable, sha256) | ("link", target) | ("dir",) | ("other", mode)


def snapshot(root: Path) -> dict[str, Entry]:
    """Every path under root as it is on disk (git's link file `.git` at the top aside): regular files by
    content and executable bit, symlinks by target (never followed), empty directories, anything else."""
    out: dict[str, Entry] = {}
    for top, dirs, files in walk(root):
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


def walk(root: Path) -> Iterator[tuple[str, list[str], list[str]]]:
    """os.walk(root), top-down, links never entered, with a stack instead of recursion (os.walk recurses once
    per folder level on Python 3.11: a chain of 1,500 folders in a diff raised RecursionError; round 12b); a
    caller's pruning of `dirs` is kept. A folder that cannot be listed is left out, as os.walk does."""
    stack = [str(root)]
    while stack:
        top = stack.pop()
        dirs: list[str] = []
        files: list[str] = []
        links: set[str] = set()
        try:
            with os.scandir(top) as found:
                for entry in found:
                    try:
                        is_dir = entry.is_dir()
                    except OSError:
                        is_dir = False
                    (dirs if is_dir else files).append(entry.name)
                    if is_dir and entry.is_symlink():
                        links.add(entry.name)
        except OSError:
            continue
        yield top, dirs, files
        stack.extend(os.path.join(top, d) for d in reversed(dirs) if d not in links)


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


def refused(changed: list[str], before: Callable[[str], str | None], after: Callable[[str], bytes | None],
            *, named: set[str] | None = None, tests: frozenset[str] = frozenset(),
            kinds: dict[str, Entry] | None = None, own: frozenset[str] | None = None,
            importable: frozenset[str] = frozenset(),
            tree: Callable[[], Iterable[tuple[str, str | None]]] | None = None) -> list[Refusal]:
    """Every refusal of the changed paths (repository-relative); [] if none could touch the run.

    before(path) is the text at x_G (None: the file is new); after(path) the bytes now (None: deleted or
    not a regular file). named: the paths the diff names (None: not checked); tests: the test files'
    module names (`importable_test_names`); kinds: the snapshot entry of each path now, for symlinks and
    the like; own: the repository's top-level module names at x_G (None: read from the changed paths'
    tops that existed at x_G); importable: what the task's environment imports without the tree
    (env.importable_names; the standard library and the harness are always added); tree: the repository's
    files at x_G as (path, text), read only when a third-party import would be refused (round 13). The file
    and source rules are `rules.refusals`, the same function the history measurement calls.
    """
    found: list[Refusal] = []
    files: list[tuple[str, str | None, bytes | None]] = []
    for path in changed:
        kind = (kinds or {}).get(path)
        if named is not None and path not in named and kind != ("dir",):  # an empty directory holds nothing
            found.append(Refusal(Rule.UNNAMED_PATH, path, 0, "changed on disk but the diff does not name it"))
        if kind and kind[0] == "link":
            found.append(Refusal(Rule.SYMLINK, path, 0, "is a symlink"))
        elif kind and kind[0] == "other":
            found.append(Refusal(Rule.SPECIAL_FILE, path, 0, "is not a regular file"))
        if kind == ("dir",):
            continue
        files.append((path, before(path), after(path)))
    if own is None:
        own = frozenset(t for p, old, _ in files if old is not None and (t := top_module(p)))
    return found + refusals(files, own, importable, tests=tests, tree=tree)


def refusal(changed: list[str], before: Callable[[str], str | None], after: Callable[[str], bytes | None],
            **options: Any) -> str:
    """Why the changed paths are refused (`refused`, as one line of text), or "" if none could touch the run."""
    return describe(refused(changed, before, after, **options))


def describe(found: list[Refusal]) -> str:
    shown = list(dict.fromkeys(r.text() for r in found))
    return "; ".join(shown[:MOST]) + (f"; and {len(shown) - MOST} more" if len(shown) > MOST else "")


def own_modules(paths: Iterable[str]) -> frozenset[str]:
    """The repository's top-level module names, from the paths of its tree at x_G."""
    return frozenset(t for p in paths if (t := top_module(p)))


def _sha(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


# -- round 15a: test support, the expected values a diff could change ---------------------------------------------
# A candidate changes the library's Python modules only (rules.path_rules: NOT_SOURCE for any other file). Among
# .py files some are not the library but what its tests read: a module outside every package (no __init__.py in
# its folder) that a test file imports, and a module holding data only (names bound to literals) that no module
# of the library imports (a module the packaging declares in py_modules is the library). A change to one (rewritten, deleted, or shadowed by a new module of its name) is refused
# as TEST_SUPPORT; so is a new module outside every package that the tests import, or in a folder of one they do. Judged on the tree at x_G, which the diff cannot
# change: renaming a place in the diff moves nothing the tests read.
def test_support(changed: Iterable[str], at_x_g: Collection[str], show: Callable[[str], str | None],
                 after: Collection[str] = ()) -> list[tuple[str, str]]:
    """(path, why) for each changed .py path that is (or shadows, or adds beside) test support; [] if none.

    changed: the changed paths (new, changed or deleted); at_x_g: every path of the tree at x_G; show(path):
    a file's text at x_G; after: the paths of the tree now (to see a package the diff makes), () if unknown."""
    tree = set(at_x_g)
    modules = {_dotted(p): p for p in tree if p.endswith(".py") and not is_test_path(p) and _dotted(p)}
    found: list[tuple[str, str]] = []
    judged: dict[str, tuple[str, str]] = {}  # x_G path -> (kind, name) of a test-support candidate
    for path in changed:
        if not path.endswith(".py") or is_test_path(path):
            continue
        name = _dotted(path)
        at = modules.get(name) if name else None
        if at is None:
            if path not in tree and _outside(path, tree | set(after)):
                judged[path] = ("new", path)
            continue
        kind = "outside" if _outside(at, tree) else "data" if _data_only(show(at)) else ""
        if kind:
            judged[path] = (kind, at)
    if not judged:
        return found
    tested, library = _imports(tree, modules, show)
    for path, (kind, at) in judged.items():
        name = _dotted(at)
        if kind == "outside" and name in tested and name not in library and not _declared(name, show):
            what = "a module outside every package that the tests import and the library does not"
        elif kind == "data" and name not in library:
            what = "a module holding data only that no module of the library imports"
        elif kind == "new" and (name in tested or _beside_tested(path, modules, tested)):
            found.append((path, "is a new module outside every package where the tests import one (or it): the "
                                "tests, not the library, would read it"))
            continue
        else:
            continue
        shadow = "" if path == at else f" (shadows {at})"
        found.append((path, f"changes test support{shadow}: {at} is {what}; the expected values come from x_G"))
    return found


def _beside_tested(path: str, modules: dict[str, str], tested: set[str]) -> bool:
    """Whether a module of the same folder at x_G is one the tests import (a folder of helpers a test may list)."""
    folder = PurePosixPath(path).parent
    return any(PurePosixPath(p).parent == folder and n in tested for n, p in modules.items())


def _declared(name: str, show: Callable[[str], str | None]) -> bool:
    """Whether the packaging at x_G declares a top-level module of that name (py_modules: a one-module library)."""
    import re

    for file in ("setup.py", "setup.cfg", "pyproject.toml"):
        text = show(file) or ""
        if "py_modules" in text and re.search(rf"(?<![\w.]){re.escape(name)}(?![\w.])", text):
            return True
    return False


def _dotted(path: str) -> str:
    parts = list(PurePosixPath(path.removesuffix(".py")).parts)
    if parts and parts[0] == "src" and len(parts) > 1:
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts) if parts and all(p.isidentifier() for p in parts) else ""


def _outside(path: str, tree: Collection[str]) -> bool:
    """Whether a module is outside every package: its folder (the package's own, for __init__.py) has no
    __init__.py, and it is not a package's __init__.py itself."""
    here = PurePosixPath(path)
    if here.name == "__init__.py":
        return False
    folder = here.parent.as_posix()
    return folder in (".", "src") or f"{folder}/__init__.py" not in tree


def _data_only(text: str | None) -> bool:
    """Whether a module binds literals to names and does nothing else (a docstring aside), binding one at least."""
    import ast

    if text is None:
        return False
    try:
        body = ast.parse(text).body
    except (SyntaxError, ValueError):
        return False
    bound = 0
    for node in body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            try:
                ast.literal_eval(node.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                return False
            if all(isinstance(t, ast.Name) for t in targets):
                bound += 1
                continue
        return False
    return bound > 0


def _imports(tree: Collection[str], modules: dict[str, str], show: Callable[[str], str | None]) \
        -> tuple[set[str], set[str]]:
    """(names the test files import, names the library imports), every dotted prefix included, a string constant
    naming a module of the tree counted as an import of it (importlib.import_module). The library is every
    non-test module but those outside every package that the tests import (helpers: what they import is the
    tests')."""
    tests = [p for p in tree if p.endswith(".py") and is_test_path(p)]
    tested: set[str] = set()
    for path in tests:
        tested |= _imported(path, show(path), modules)
    library: set[str] = set()
    for name, path in modules.items():
        if not (_outside(path, tree) and name in tested):
            library |= _imported(path, show(path), modules) - {name}
    return tested, library


def _imported(path: str, text: str | None, modules: dict[str, str]) -> set[str]:
    import ast

    name = _dotted(path) if not is_test_path(path) else ""
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    found: set[str] = set()
    try:
        tree = ast.parse(text or "")
    except (SyntaxError, ValueError):  # Python 2 code: its import statements read line by line
        tree = ast.Module(body=[], type_ignores=[])
        for line in (text or "").splitlines():
            try:
                tree.body += ast.parse(line.strip()).body if line.strip().startswith(("import ", "from ")) else []
            except (SyntaxError, ValueError):
                continue
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".") if package else []
                parts = parts[:len(parts) - node.level + 1] if node.level <= len(parts) else []
                base = ".".join([*parts, *([node.module] if node.module else [])])
            found.add(base)
            found.update(f"{base}.{alias.name}" if base else alias.name for alias in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in modules:
            found.add(node.value)
    prefixes = {".".join(n.split(".")[:k]) for n in found if n for k in range(1, n.count(".") + 2)}
    return prefixes
