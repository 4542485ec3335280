"""The README's exit-code table, walked command by command: every code it lists has commands that exit with
it, each printing one `error: ...` line (no Typer panel, no traceback), and every code they exit with is in
the table."""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

import pytest

from codewalk import admission
from codewalk.records import Atom, Edge
from codewalk.runtime import sandbox
from codewalk.store import open_store
from codewalk.store.columns import graph_tables
from tests.run_cw import cw

README = Path(__file__).resolve().parents[1] / "README.md"


def table_codes() -> set[int]:
    return {int(m) for m in re.findall(r"^\| (\d+) \| ", README.read_text(encoding="utf-8"), re.MULTILINE)}


@pytest.fixture
def files(tmp_path, monkeypatch):
    """Inputs for the cases: a store of toychain atoms (ten in a chain; four more whose only cycle leaves
    no chain of four), a malformed and an empty rows file, a missing path, an empty shared folder."""
    monkeypatch.setenv("CODEWALK_SHARED", str(tmp_path / "shared"))
    monkeypatch.setenv("CODEWALK_NEO4J_HOME", str(tmp_path / "no-server"))
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-docker.sock")
    (tmp_path / "atoms.txt").write_text("".join(f"a{i}\n" for i in range(10)))
    (tmp_path / "bad.jsonl").write_text('{"id": "x"\n')
    (tmp_path / "empty.jsonl").write_text("")
    (tmp_path / "cycle.lbug").parent.mkdir(exist_ok=True)
    with open_store(tmp_path / "cycle.lbug") as store:  # a <-> b, b -> c, b -> d: 4 atoms, no chain of 4
        names = ["a", "b", "c", "d"]
        store.write(*graph_tables([Atom(f"toychain/{x}", "toychain", {}) for x in names],
                                  [Edge(f"toychain/{s}", f"toychain/{d}", "FEEDS")
                                   for s, d in [("a", "b"), ("b", "a"), ("b", "c"), ("b", "d")]]))
    return tmp_path


def cases(t: Path) -> dict[int, list[tuple[str, ...]]]:
    store = ("--store", str(t / "g.lbug"))
    return {
        2: [(*store, "walk", "--n", "0"), (*store, "demo", "--count", "0"), (*store, "walk"),
            (*store, "walk", "--n", "1", "--no-such-option"), (*store, "load", "nosuch", str(t / "atoms.txt")),
            (*store, "load", "toychain", str(t / "missing.txt")),
            (*store, "grade", str(t / "missing.jsonl"), "--domain", "toychain"),
            ("mine", "repair", str(t / "missing-repo"), "--out", str(t / "rows.jsonl")),
            (*store, "tasks", "list", "--status", "bogus"), (*store, "query", "RETURN $x"),
            (*store, "walk", "--domain", "toychain", "--n", "99"),
            ("--store", str(t / "cycle.lbug"), "walk", "--n", "4")],
        3: [(*store, "load", "demo", str(t / "bad.jsonl")), (*store, "load", "demo", str(t / "empty.jsonl")),
            (*store, "grade", str(t / "empty.jsonl"), "--domain", "toychain")],
        4: [("--store", str(t / "no" / "such" / "folder" / "g.lbug"), "tasks", "list")],
        5: [("db", "status")],
        6: [(*store, "query", "MATCH (a:Atom RETURN a")],
        7: [(*store, "walk", "--domain", "toychain", "--n", "3", "--count", "50", "--max-attempts", "4")],
        8: [("data", "status", "codecomplex")],
        9: [(*store, "load", "repair", str(t / "missing.jsonl"), "--runtime", "docker")],
        10: [(*store, "walk", "--domain", "toychain", "--n", "2")],  # where bubblewrap cannot run (below)
        130: [(*store, "walk", "--domain", "toychain", "--n", "2")],  # interrupted (below)
        143: [(*store, "walk", "--domain", "toychain", "--n", "2")],  # terminated by SIGTERM (below)
    }


SAYS_IT_ON_STDOUT = {("db", "status")}  # `cw db status` prints its state (null with --json) and exits 5


def test_every_exit_code_in_the_readme_table_is_what_the_commands_exit_with(capsys, files, monkeypatch):
    by_code = cases(files)
    assert set(by_code) == table_codes(), "the README's exit-code table and this walk differ"
    code, _, err = cw(capsys, "--store", str(files / "g.lbug"), "load", "toychain", str(files / "atoms.txt"))
    assert code == 0, err
    wrong = []
    for expected, commands in by_code.items():
        for args in commands:
            if expected == 10:  # this machine's bubblewrap hidden, and nothing lifts the refusal
                monkeypatch.setattr(sandbox, "_bwrap_works", lambda: False)
                monkeypatch.setattr(sandbox, "_unisolated_allowed", False)
                monkeypatch.delenv(sandbox.ALLOW_UNISOLATED, raising=False)
            if expected == 130:
                def interrupt(*_, **__):
                    raise KeyboardInterrupt
                monkeypatch.setattr(admission, "walk_and_admit", interrupt)
            if expected == 143:
                def terminate(*_, **__):
                    os.kill(os.getpid(), signal.SIGTERM)
                monkeypatch.setattr(admission, "walk_and_admit", terminate)
            code, out, err = cw(capsys, *args)
            lines = [line for line in err.splitlines() if line.startswith("error: ")]
            one_line = len(lines) == 1 and "Traceback" not in err and "╭" not in err
            if code != expected or not (one_line or args in SAYS_IT_ON_STDOUT):
                wrong.append(f"cw {' '.join(args)}: exit {code} (table: {expected}); stderr {err!r}")
    assert not wrong, "\n".join(wrong)


def test_an_empty_rows_file_is_an_error_naming_the_file(capsys, files):
    code, _, err = cw(capsys, "--store", str(files / "g.lbug"), "load", "demo", str(files / "empty.jsonl"))
    assert code == 3 and f"error: {files / 'empty.jsonl'}: no demo atom in it" in err


def test_a_missing_input_file_is_the_same_usage_error_for_load_grade_and_mine(capsys, files):
    store = ("--store", str(files / "g.lbug"))
    for args in [(*store, "load", "toychain", str(files / "missing")),
                 (*store, "grade", str(files / "missing"), "--domain", "toychain"),
                 ("mine", "repair", str(files / "missing"), "--out", str(files / "rows.jsonl"))]:
        code, _, err = cw(capsys, *args)
        assert code == 2 and "not found" in err and str(files / "missing") in err, (args, err)


def test_a_value_out_of_range_is_one_error_line_naming_the_option(capsys, files):
    code, _, err = cw(capsys, "--store", str(files / "g.lbug"), "walk", "--n", "0")
    assert code == 2 and err.startswith("error: Invalid value for '--n'") and err.count("\n") == 1
    assert "cw walk --help" in err
