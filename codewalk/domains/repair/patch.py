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


# -- what GNU patch would read beyond the unified sections ---------------------------------------------
# Lines git may put between 'diff --git' and the ---/+++ pair (binary changes are refused apart).
GIT_EXTENDED = re.compile(r"(old mode|new mode|deleted file mode|new file mode|copy from|copy to|rename from"
                          r"|rename to|similarity index|dissimilarity index|index) ")
# Lines that start a diff in a format GNU patch also reads (context, normal, ed) or a patch header it acts on.
OTHER_FORMAT = re.compile(r"(\*\*\*|---|\+\+\+|@@|[<>] |diff |Index:|Prereq:|\d+(,\d+)?[acdi]\d*(,\d+)?\s*$|\.$)")
BINARY = ("GIT binary patch", "Binary files ", "literal ", "delta ")


def not_unified(text: str) -> str:
    """Why text holds something besides unified diff sections (git's headers included), or "".

    `git apply` reads only unified sections, but the fuzzy fallback (GNU patch) also applies context,
    normal and ed-style diffs found anywhere in the text, even in what looks like a preamble. So the
    whole text must be unified: around and between its sections only text that starts no diff of any
    format GNU patch knows (a commit message, a signature, a closing Markdown fence).
    """
    lines = text.splitlines()
    i, started, in_git_header, current = 0, False, False, ""
    while i < len(lines):
        line = lines[i]
        if line.startswith("diff --git "):
            started, in_git_header, current = True, True, line.rsplit(" b/", 1)[-1]
        elif line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            started, in_git_header = True, False
            i += 1
        elif line.startswith("@@") and started:
            in_git_header = False
            i = _skip_hunk(lines, i)
            if i < 0:
                return f"a hunk whose line counts do not match its lines, near line {-i}"
            continue
        elif line.startswith(BINARY) and started:
            return f"a binary change to {current or 'a file'} (line {i + 1}: {line[:40]!r})"
        elif in_git_header and GIT_EXTENDED.match(line):
            pass
        elif line.startswith("\\") and started:  # "\ No newline at end of file"
            pass
        elif OTHER_FORMAT.match(line) and not (line == "---" and not started):  # "---" ends a commit message
            return f"line {i + 1} is not part of a unified diff, and GNU patch may read it: {line[:60]!r}"
        i += 1
    return ""


def _skip_hunk(lines: list[str], i: int) -> int:
    """The index after the hunk at lines[i]; minus its line number when the counts do not add up."""
    m = re.match(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@", lines[i])
    if not m:
        return -(i + 1)
    old, new = int(m.group(1) or 1), int(m.group(2) or 1)
    i += 1
    while (old > 0 or new > 0) and i < len(lines):
        tag = lines[i][:1]
        if tag == "+":
            new -= 1
        elif tag == "-":
            old -= 1
        elif tag in (" ", ""):
            old, new = old - 1, new - 1
        elif tag != "\\":
            return -(i + 1)
        i += 1
    return i if old == new == 0 else -(i + 1)
