"""SWE-bench / SWE-rebench instance rows, the source of the repair domain.

One JSON object per line (or a JSON array, or a Parquet file as published on the Hugging Face hub)
with at least: instance_id, repo ("owner/name"), base_commit, patch (the gold source patch),
test_patch, FAIL_TO_PASS, PASS_TO_PASS and created_at. FAIL_TO_PASS / PASS_TO_PASS may be JSON lists
or JSON-encoded strings of lists, as in the public datasets. install_config (SWE-rebench: python,
packages, pip_packages, pre_install, install, reqs_path, test_cmd) may be an object or a JSON string.
This module checks each row's shape and names the line of a bad one; it runs nothing.

Where the repository comes from: `options["repos"]` is a folder holding one git clone per repository,
named owner__name (SWE-bench's convention); without it the repository is cloned from
`options["remote"]`, a URL template; without either, from the row's own `clone_from` when it has one
(rows `cw mine repair` writes name the clone they were mined from), else https://github.com/{repo}.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from codewalk import jsonl
from codewalk.errors import InputError
from codewalk.loaders.diff import parse_patch, patch_files

REQUIRED = ("instance_id", "repo", "base_commit", "patch", "test_patch", "FAIL_TO_PASS", "created_at")
REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
COMMIT = re.compile(r"^[0-9a-f]{7,40}$")
DEFAULT_REMOTE = "https://github.com/{repo}"

Bad = Callable[[str], InputError]  # makes the error for the row's line from a reason


@dataclass(frozen=True)
class Instance:
    """One bug instance b = (c_b, g_b, t_b, F_b) with the row it came from."""

    line: int | str  # where it was read: line number (JSON lines) or row index (array, Parquet)
    instance_id: str
    repo: str
    base_commit: str
    created_at: str  # ISO 8601 in UTC: the fix date d(b)
    files: tuple[str, ...]  # files(g_b), from the gold patch's diff headers
    row: dict[str, Any]  # the row with FAIL_TO_PASS, PASS_TO_PASS, install_config decoded

    @property
    def folder(self) -> str:
        """SWE-bench's name for a clone of the repository: owner__name."""
        return self.repo.replace("/", "__")


def read(path: Path) -> list[Instance]:
    """All rows of a source file as instances; InputError names a malformed row."""
    path = Path(path)
    instances: dict[str, Instance] = {}
    for where, raw in _rows(path):
        bad = _bad(path, where)
        instance = _instance(raw, where, bad)
        if instance.instance_id in instances:
            raise bad(f"duplicate instance_id {instance.instance_id!r}")
        instances[instance.instance_id] = instance
    return list(instances.values())


def clone_source(instance: Instance, options: dict[str, str], source: Path) -> str:
    """Where to clone the instance's repository from: the user's clone under `--opt repos=`, or the remote."""
    if options.get("repos"):
        clone = Path(options["repos"]).expanduser().resolve() / instance.folder
        if not (clone / ".git").exists() and not (clone / "HEAD").is_file():
            raise InputError(str(source), instance.line,
                             f"no git clone of {instance.repo} at {clone} (`--opt repos=DIR` holds one folder per "
                             "repository, named owner__name)")
        return str(clone)
    if not options.get("remote") and isinstance(instance.row.get("clone_from"), str) and instance.row["clone_from"]:
        return instance.row["clone_from"]  # a mined row names the repository it came from (`cw mine repair`)
    owner, name = instance.repo.split("/")
    return options.get("remote", DEFAULT_REMOTE).format(repo=instance.repo, owner=owner, name=name)


# -- reading ----------------------------------------------------------------------------------------
def _rows(path: Path) -> list[tuple[int | str, Any]]:
    if path.suffix == ".parquet":
        import pandas as pd

        try:
            frame = pd.read_parquet(path)
        except (OSError, ValueError) as e:
            raise InputError(str(path), None, f"cannot read Parquet: {e}") from None
        return [(f"row {i}", _plain(record)) for i, record in enumerate(frame.to_dict("records"))]
    try:
        with path.open("rb") as f:
            array = f.read(4096).lstrip().startswith(b"[")
    except OSError as e:
        raise InputError(str(path), None, f"cannot read: {e.strerror}") from None
    if array:
        rows = jsonl.parse(path.read_bytes(), lambda reason: InputError(str(path), None, reason))
        return [(f"row {i}", row) for i, row in enumerate(rows)]
    return list(jsonl.values(path))


def _plain(value: Any) -> Any:
    """Parquet gives numpy arrays for list columns; rows are plain JSON values."""
    if hasattr(value, "tolist"):
        return _plain(value.tolist())
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _bad(path: Path, where: int | str) -> Bad:
    return lambda reason: InputError(str(path), where, reason)


def _instance(raw: Any, where: int | str, bad: Bad) -> Instance:
    if not isinstance(raw, dict):
        raise bad("not a JSON object")
    missing = [key for key in REQUIRED if raw.get(key) in (None, "")]
    if missing:
        raise bad(f"missing field(s): {', '.join(missing)}")
    row = dict(raw)
    for key in ("instance_id", "repo", "base_commit", "patch", "test_patch"):
        if not isinstance(row[key], str):
            raise bad(f"{key} must be a string")
    if not REPO.match(row["repo"]):
        raise bad(f"repo {row['repo']!r} is not owner/name")
    if not COMMIT.match(row["base_commit"]):
        raise bad(f"base_commit {row['base_commit']!r} is not a hexadecimal commit id")
    row["FAIL_TO_PASS"] = _tests(row["FAIL_TO_PASS"], "FAIL_TO_PASS", bad)
    if not row["FAIL_TO_PASS"]:
        raise bad("FAIL_TO_PASS is empty: nothing would show the bug")
    row["PASS_TO_PASS"] = _tests(row.get("PASS_TO_PASS") or [], "PASS_TO_PASS", bad)
    row["created_at"] = _date(row["created_at"], bad)
    row["install_config"] = _install_config(row.get("install_config"), bad)
    try:
        files = patch_files(row["patch"])
        parse_patch(row["test_patch"])
    except ValueError as e:
        raise bad(f"unreadable patch: {e}") from None
    if not files:
        raise bad("the gold patch touches no file")
    return Instance(where, row["instance_id"], row["repo"], row["base_commit"], row["created_at"],
                    tuple(files), row)


def _tests(value: Any, key: str, bad: Bad) -> list[str]:
    if isinstance(value, str):  # the public datasets store the list as a JSON string
        value = jsonl.parse(value, lambda reason: bad(f"{key} is a string but not a JSON list: {reason}"))
    if not (isinstance(value, list) and all(isinstance(t, str) and t for t in value)):
        raise bad(f"{key} must be a list of test ids")
    return list(dict.fromkeys(value))


def _date(value: Any, bad: Bad) -> str:
    if isinstance(value, (int, float)):  # epoch milliseconds, as pandas writes timestamps to JSON
        try:
            stamp = datetime.fromtimestamp(value / 1000, UTC)
        except (OverflowError, OSError, ValueError):
            raise bad(f"created_at {value!r} is not a usable timestamp") from None
    elif isinstance(value, str):
        try:
            stamp = datetime.fromisoformat(value.strip())
        except ValueError:
            raise bad(f"created_at {value!r} is not an ISO 8601 date") from None
    elif isinstance(value, datetime):
        stamp = value
    else:
        raise bad("created_at must be a date")
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=UTC)
    return stamp.astimezone(UTC).isoformat(timespec="seconds")


def _install_config(value: Any, bad: Bad) -> dict[str, Any] | None:
    if value in (None, "", {}):
        return None
    if isinstance(value, str):
        value = jsonl.parse(value, lambda why: bad(f"install_config is a string but not a JSON object: {why}"))
    if not isinstance(value, dict):
        raise bad("install_config must be an object")
    return value
