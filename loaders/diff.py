"""Unified diffs (git or plain), read: the files a patch touches (files(g) of the paper, from the diff
headers) and the new-file lines each hunk adds or sits next to. The repair domain's rules about which
files a candidate may touch live in `codewalk.domains.repair.patch`."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass
class FileDiff:
    """One file of a patch. Paths are repository-relative (a/ and b/ stripped); None means /dev/null."""

    old: str | None = None
    new: str | None = None
    new_mode: str = ""  # "120000" creates a symlink
    prefixed: bool = True  # both header paths carried git's a/ and b/ prefixes
    touched: set[int] = field(default_factory=set)  # new-file lines added, or next to a removal
    git_header: tuple[str | None, ...] = ()  # the 'diff --git' names, which GNU patch may prefer to ---/+++

    @property
    def paths(self) -> list[str]:
        return [p for p in dict.fromkeys((self.old, self.new, *self.git_header)) if p]


def parse_patch(text: str) -> list[FileDiff]:
    """The files of a git or plain unified diff; ValueError for a malformed hunk."""
    files: list[FileDiff] = []
    current: FileDiff | None = None
    header = False  # inside a git file header: between 'diff --git' and its first ---/+++ or hunk
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("diff --git "):
            old, new = _git_header_paths(line[len("diff --git "):])
            current = FileDiff(old, new, git_header=(old, new))
            files.append(current)
            header = True
        elif line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            if not header:  # a plain diff: each ---/+++ pair starts a file
                current = FileDiff()
                files.append(current)
            assert current is not None
            current.old, old_prefixed = _header_path(line[4:], "a/")
            current.new, new_prefixed = _header_path(lines[i + 1][4:], "b/")
            current.prefixed = old_prefixed and new_prefixed
            header = False
            i += 1
        elif header and current is not None:
            if line.startswith("new file mode "):
                current.old, current.new_mode = None, line.rsplit(" ", 1)[1]
            elif line.startswith("new mode "):
                current.new_mode = line.rsplit(" ", 1)[1]
            elif line.startswith("deleted file mode "):
                current.new = None
            elif line.startswith(("rename from ", "copy from ")):
                current.old = _unquote(line.split(" from ", 1)[1])
            elif line.startswith(("rename to ", "copy to ")):
                current.new = _unquote(line.split(" to ", 1)[1])
        if line.startswith("@@"):
            if current is None:
                raise ValueError(f"hunk before any file header: {line!r}")
            header = False
            i = _hunk(lines, i, current)
            continue
        i += 1
    return files


def patch_files(text: str) -> list[str]:
    """files(g): every path the patch creates, changes, renames or deletes, sorted."""
    return sorted({p for f in parse_patch(text) for p in f.paths})


# -- parsing helpers ---------------------------------------------------------------------------------
def _hunk(lines: list[str], i: int, f: FileDiff) -> int:
    """Read the hunk starting at lines[i]; record its touched new-file lines; return the next index."""
    m = HUNK.match(lines[i])
    if not m:
        raise ValueError(f"malformed hunk header {lines[i]!r}")
    old_left = int(m.group(2) or 1)  # an omitted count means 1
    new_left = int(m.group(4) or 1)
    new_line = int(m.group(3)) if new_left else int(m.group(3)) + 1  # +c,0 names the line before
    i += 1
    while (old_left > 0 or new_left > 0) and i < len(lines):
        line = lines[i]
        tag = line[:1]
        if tag == "\\":  # "\ No newline at end of file"
            i += 1
            continue
        if tag == "+":
            f.touched.add(new_line)
            new_line += 1
            new_left -= 1
        elif tag == "-":
            f.touched.add(new_line)  # the line that now follows the removed one
            old_left -= 1
        elif tag in (" ", ""):  # an empty line is a context line whose space was stripped
            new_line += 1
            old_left -= 1
            new_left -= 1
        else:
            raise ValueError(f"unexpected line in hunk: {line[:60]!r}")
        i += 1
    if old_left > 0 or new_left > 0:
        raise ValueError("truncated hunk")
    while i < len(lines) and lines[i].startswith("\\"):
        i += 1
    return i


def _seen_both_headers(f: FileDiff, lines: list[str], i: int) -> bool:
    """True when the current git file already had its ---/+++ pair, so this pair starts a new file."""
    for j in range(i - 1, -1, -1):
        if lines[j].startswith("diff --git "):
            return False
        if lines[j].startswith("+++ "):
            return True
    return True


def _git_header_paths(rest: str) -> tuple[str | None, str | None]:
    """Paths of 'diff --git a/X b/Y'; exact when quoted or when X == Y (the usual case)."""
    if rest.startswith('"'):
        old, _, tail = _split_quoted(rest)
        new = _unquote(tail.strip())
    else:
        half = (len(rest) - 1) // 2  # 'a/X b/X' with X == X: split in the middle
        if half >= 0 and rest[half] == " " and rest[:half][2:] == rest[half + 1:][2:]:
            old, new = rest[:half], rest[half + 1:]
        else:
            old, _, new = rest.partition(" b/")
            new = "b/" + new
    return _strip(old, "a/")[0], _strip(new, "b/")[0]


def _header_path(value: str, prefix: str) -> tuple[str | None, bool]:
    value = value.split("\t", 1)[0].rstrip()
    if value == "/dev/null":
        return None, True
    return _strip(_unquote(value), prefix)


def _strip(path: str, prefix: str) -> tuple[str, bool]:
    return (path[len(prefix):], True) if path.startswith(prefix) else (path, False)


def _split_quoted(text: str) -> tuple[str, str, str]:
    j = 1
    while j < len(text) and text[j] != '"':
        j += 2 if text[j] == "\\" else 1
    return _unquote(text[: j + 1]), " ", text[j + 1:]


def _unquote(path: str) -> str:
    """git's C-style quoting of unusual paths ("a/t\\303\\251st.py")."""
    if not (len(path) >= 2 and path[0] == path[-1] == '"'):
        return path
    raw = path[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
    return raw.encode("latin-1").decode("utf-8", "replace")
