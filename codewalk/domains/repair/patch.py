"""What a patch may touch in the repair domain: test files (SWE-bench's notion) and paths that would
write outside the repository. Reading a diff is `codewalk.loaders.diff`."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

TEST_DIRS = {"test", "tests", "testing"}


def is_test_path(path: str) -> bool:
    """SWE-bench's notion of a test file: under a test directory, or named like a test module."""
    parts = PurePosixPath(path).parts
    name = parts[-1] if parts else ""
    return (any(p.lower() in TEST_DIRS for p in parts[:-1]) or name.startswith("test_")
            or name.endswith(("_test.py", "_tests.py")) or name in ("conftest.py", "tests.py"))


def unsafe_path(path: str) -> str:
    """Why a patch path could write outside the repository, or "" if it cannot."""
    if path.startswith("/") or re.match(r"^[A-Za-z]:", path):
        return f"absolute path {path!r}"
    parts = PurePosixPath(path).parts
    if ".." in parts:
        return f"path {path!r} leaves the repository"
    if ".git" in parts:
        return f"path {path!r} is inside .git"
    return ""
