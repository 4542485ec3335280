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
from collections.abc import Callable, Iterable, Iterator
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
