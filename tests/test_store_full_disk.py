"""A full disk fails the command, not the embedded store: one line `error: ...`, exit code 4, and afterwards the
store opens with every task committed before. Both ways a disk fills: before a write (codewalk's check of the
room refuses it) and under the engine itself mid-write (another process took the room: the command ends
without closing the store, and the next open replays its log up to the damage).

On a small tmpfs of the test's own, so it needs root (mount); elsewhere it skips saying so. CI runs as root."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from codewalk.store import open_store
from tests.stored import whole_unique_tasks

DEMO = str(Path(__file__).resolve().parents[1] / "loaders" / "demo_atoms.jsonl")


@pytest.fixture
def disk(tmp_path):
    """A 48 MiB tmpfs, unmounted afterwards."""
    where = tmp_path / "disk"
    where.mkdir()
    why = "" if os.geteuid() == 0 else "mounting a small tmpfs needs root (CI runs as root)"
    if not why:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48m", "tmpfs", str(where)], capture_output=True,
                              text=True, check=False)
        why = "" if done.returncode == 0 else f"cannot mount a tmpfs here: {done.stderr.strip()}"
    if why:
        if os.environ.get("CI"):
            pytest.fail(f"CI needs the full-disk test: {why}")
        pytest.skip(why)
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def _cw(tmp_path: Path, store: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "codewalk", "--store", str(store), *args], capture_output=True,
                          text=True, timeout=600, check=False,
                          env={**os.environ, "CODEWALK_HOME": str(tmp_path / "home"), **env})


def _fill(disk: Path, leave_kib: int) -> Path:
    """Take all the room of the disk but leave_kib."""
    free = os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize
    filler = disk / "filler"
    with open(filler, "wb") as f:
        f.write(b"\0" * max(0, free - leave_kib * 1024))
    return filler


def _one_line_error(done: subprocess.CompletedProcess) -> str:
    """The one error line a failed command ends with; before it only the plain progress lines a run prints
    when stderr is not a terminal (`walk N=3: 14 of 30, ... (0m01s, stopped)`): no C++ abort, no traceback."""
    *progress, last = done.stderr.strip().splitlines()
    assert done.returncode == 4, done.stderr
    assert last.startswith("error: "), done.stderr
    assert all(re.fullmatch(r"\S.* \(\d+m\d\ds(, \w+)?\)", line) for line in progress), done.stderr
    return last


@pytest.mark.parametrize("where", ["before the write", "under the engine"])
def test_a_walk_on_a_full_disk_fails_with_one_line_and_the_store_keeps_every_committed_task(disk, tmp_path, where):
    store = disk / "graph.lbug"
    room = {"CODEWALK_MIN_FREE_MB": "4"}  # the tmpfs is small: codewalk's check asks 4 MiB here
    assert _cw(tmp_path, store, "load", "demo", DEMO, **room).returncode == 0
    first = _cw(tmp_path, store, "walk", "--n", "2", "--count", "3", "--seed", "1", "--workers", "1", **room)
    assert first.returncode == 0, first.stderr
    before = whole_unique_tasks(store)
    assert before

    filler = _fill(disk, 40)
    if where == "under the engine":
        room = {"CODEWALK_MIN_FREE_MB": "0"}  # no check: the engine itself runs out of room mid-walk
    full = _cw(tmp_path, store, "walk", "--n", "3", "--count", "30", "--seed", "5", "--workers", "1", **room)
    line = _one_line_error(full)
    assert "free some space and run the command again" in line
    filler.unlink()

    listed = _cw(tmp_path, store, "tasks", "list", "--limit", "1000", "--json")
    assert listed.returncode == 0, listed.stderr
    after = whole_unique_tasks(store)
    assert {r["id"] for r in json.loads(listed.stdout)} == set(after)
    assert set(before) <= set(after)
    if where == "before the write":
        assert "no room on the disk of the store" in line and after == before  # refused before anything was written
    else:
        assert "filled up during a write" in line
        assert "replayed up to it" in listed.stderr  # the log cut short by the full disk, recovered
        assert list(disk.glob("graph.lbug.wal.damaged-*"))  # and kept as it was
    rerun = _cw(tmp_path, store, "walk", "--n", "3", "--count", "2", "--seed", "5", "--workers", "1",
                CODEWALK_MIN_FREE_MB="4")
    assert rerun.returncode == 0, rerun.stderr
    assert set(after) < set(whole_unique_tasks(store))


def test_a_load_on_a_full_disk_fails_with_one_line_and_leaves_the_store_as_it_was(disk, tmp_path):
    store = disk / "graph.lbug"
    assert _cw(tmp_path, store, "load", "demo", DEMO, CODEWALK_MIN_FREE_MB="4").returncode == 0
    with open_store(store) as graph:
        atoms = graph.atom_index("demo")
    filler = _fill(disk, 8)
    line = _one_line_error(_cw(tmp_path, store, "load", "demo", DEMO, CODEWALK_MIN_FREE_MB="4"))
    assert "no room on the disk of the store" in line
    filler.unlink()
    with open_store(store) as graph:
        assert graph.atom_index("demo") == atoms
