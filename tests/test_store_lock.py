"""A long command and the embedded store: the lock message names the process that holds the store and how to
wait for it, `--wait` waits for it, `cw load` holds the store only while writing, and progress reaches a
stderr that is not a terminal as plain lines."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import codewalk.loading
from tests.run_cw import cw

CW = [sys.executable, "-m", "codewalk"]
HOLD = ("import sys; from codewalk.store import open_store; s = open_store(sys.argv[1]); print('held', flush=True); "
        "sys.stdin.readline(); s.close()")


@contextmanager
def held(path: Path) -> Iterator[subprocess.Popen]:
    """Another process holding the embedded store at `path` until the block ends; its command line carries
    the word holder-of-the-store."""
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(path), "holder-of-the-store"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        yield holder
    finally:
        if holder.stdin:
            holder.stdin.close()
        holder.wait(timeout=60)


@pytest.fixture
def source(tmp_path):
    path = tmp_path / "atoms.txt"
    path.write_text("".join(f"a{i}\n" for i in range(10)))
    return path


def test_a_held_store_names_the_holders_pid_and_command_and_how_to_wait(tmp_path):
    path = tmp_path / "s.lbug"
    with held(path) as holder:  # a command that writes: one writer at a time
        result = subprocess.run([*CW, "--store", str(path), "demo", "--count", "1"], capture_output=True,
                                text=True, timeout=120)
    assert result.returncode == 4, result.stderr
    assert "store in use by another process" in result.stderr
    assert f"pid {holder.pid} (" in result.stderr and "holder-of-the-store" in result.stderr
    assert "--wait" in result.stderr


def test_wait_waits_for_the_holder_and_then_succeeds(tmp_path):
    path = tmp_path / "s.lbug"
    with held(path) as holder:
        waiter = subprocess.Popen([*CW, "--store", str(path), "--wait", "demo", "--count", "1", "--json"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert waiter.stderr is not None
        said = waiter.stderr.readline()  # it says what it waits for, then waits: the holder is still there
        assert f"waiting for the store {path}, held by pid {holder.pid}" in said and waiter.poll() is None
    out, rest = waiter.communicate(timeout=120)
    assert waiter.returncode == 0, said + rest
    assert json.loads(out)["load"]["atoms"] > 0


def test_a_command_that_only_reads_reads_a_held_store_as_committed(capsys, tmp_path, source):
    path = tmp_path / "s.lbug"
    code, _, err = cw(capsys, "--store", str(path), "load", "toychain", str(source))
    assert code == 0, err
    with held(path) as holder:
        listed = subprocess.run([*CW, "--store", str(path), "tasks", "list", "--json"], capture_output=True,
                                text=True, timeout=120)
        counted = subprocess.run([*CW, "--store", str(path), "query", "MATCH (a:Atom) RETURN count(a) AS n", "--json"],
                                 capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0 and json.loads(listed.stdout) == [], listed.stderr
    assert f"held for writing by pid {holder.pid}" in listed.stderr
    assert counted.returncode == 0 and json.loads(counted.stdout) == [{"n": 10}], counted.stderr


def test_load_holds_the_store_only_while_writing(capsys, tmp_path, source, monkeypatch):
    """While `cw load` reads its source (minutes, for a domain that verifies every record), another
    process reads the store."""
    path = tmp_path / "s.lbug"
    seen: list[subprocess.CompletedProcess] = []
    real_read = codewalk.loading.read

    def read_and_meanwhile_list(*args, **kwargs):
        seen.append(subprocess.run([*CW, "--store", str(path), "tasks", "list", "--json"], capture_output=True,
                                   text=True, timeout=120))
        return real_read(*args, **kwargs)

    monkeypatch.setattr(codewalk.loading, "read", read_and_meanwhile_list)
    code, _, err = cw(capsys, "--store", str(path), "load", "toychain", str(source))
    assert code == 0, err
    assert [r.returncode for r in seen] == [0], seen[0].stderr


def test_a_run_whose_stderr_is_not_a_terminal_prints_plain_progress_lines(tmp_path):
    env = {**os.environ, "CODEWALK_PROGRESS_EVERY": "0.05"}
    env.pop("CODEWALK_PROGRESS", None)
    result = subprocess.run([*CW, "--store", str(tmp_path / "s.lbug"), "demo", "--count", "1"], env=env,
                            capture_output=True, text=True, timeout=600)  # stderr a pipe: not a terminal
    assert result.returncode == 0, result.stderr
    lines = re.findall(r"^demo N=\d: attempted \d+, admitted \d+ \(\d+m\d\ds.*\)$", result.stderr, re.M)
    assert lines and lines[-1].endswith(", done)"), result.stderr


def test_load_workers_is_for_a_loader_that_verifies_and_refused_by_one_that_does_not(capsys, tmp_path, source):
    code, _, err = cw(capsys, "--store", str(tmp_path / "s.lbug"), "load", "toychain", str(source), "--workers", "2")
    assert code == 2 and "--workers" in err
    from codewalk.domain import get_domain

    assert "workers" in {o.name for o in get_domain("complexity").load_options}
