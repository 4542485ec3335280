"""The `cw` command line: thin commands over the library, errors as one message and an exit code."""

from __future__ import annotations

import json
import subprocess

import pytest

from codewalk.cli import app
from tests.run_cw import cw


@pytest.fixture
def source(tmp_path):
    path = tmp_path / "atoms.txt"
    path.write_text("".join(f"a{i}\n" for i in range(10)))
    return path


def test_every_command_has_help():
    import typer.main

    group = typer.main.get_command(app)

    def walk(cmd, path):
        assert cmd.help, f"`{' '.join(path)}` has no help text"
        for name, sub in getattr(cmd, "commands", {}).items():
            walk(sub, [*path, name])

    walk(group, ["cw"])
    assert {"demo", "load", "walk", "query", "tasks", "db", "domains"} <= set(group.commands)
    assert {"list", "show"} <= set(group.commands["tasks"].commands)
    assert {"start", "stop", "status"} <= set(group.commands["db"].commands)


def test_installed_entry_point_prints_help():
    out = subprocess.run(["cw", "--help"], capture_output=True, text=True, check=True).stdout
    for command in ("demo", "load", "walk", "query", "tasks", "db"):
        assert command in out


def test_load_walk_query_show_roundtrip(capsys, store_path, source):
    code, out, _ = cw(capsys, "--store", store_path, "load", "toychain", str(source), "--json")
    assert code == 0 and json.loads(out)["atoms"] == 10
    code, out, _ = cw(capsys, "--store", store_path, "walk", "--n", "3", "--count", "2", "--seed", "1", "--json")
    summary = json.loads(out)
    assert code == 0 and summary["domain"] == "toychain" and summary["admitted"] == 2
    code, out, _ = cw(capsys, "--store", store_path, "query", "MATCH (t:Task) RETURN count(t) AS n", "--json")
    assert json.loads(out) == [{"n": 2}]
    tid = summary["admitted_ids"][0]
    code, out, _ = cw(capsys, "--store", store_path, "tasks", "show", tid)
    assert code == 0 and tid in out and "status=admitted" in out and "check (1)" in out
    code, out, _ = cw(capsys, "--store", store_path, "tasks", "list", "--json")
    assert {r["id"] for r in json.loads(out)} == set(summary["admitted_ids"])


def test_walk_infers_the_domain_only_when_one_is_loaded(capsys, store_path, source):
    cw(capsys, "--store", store_path, "load", "toychain", str(source))
    cw(capsys, "--store", store_path, "load", "toysym", str(source))
    code, _, err = cw(capsys, "--store", store_path, "walk", "--n", "2")
    assert code == 2 and "toychain" in err and "toysym" in err and "--domain" in err


def test_malformed_record_names_file_and_line_and_leaves_store_unchanged(capsys, store_path, source, tmp_path):
    cw(capsys, "--store", store_path, "load", "toychain", str(source))
    bad = tmp_path / "bad.txt"
    bad.write_text("b1\nb2\n3oops\nb4\n")
    code, _, err = cw(capsys, "--store", store_path, "load", "toychain", str(bad))
    assert code == 3 and f"{bad}:3" in err.replace("\n", "")
    code, out, _ = cw(capsys, "--store", store_path, "query", "MATCH (a:Atom) RETURN count(a) AS n", "--json")
    assert json.loads(out) == [{"n": 10}]


def test_unknown_domain_lists_the_installed_ones(capsys, store_path, source):
    code, _, err = cw(capsys, "--store", store_path, "load", "nosuch", str(source))
    assert code == 2 and "demo" in err and "toychain" in err


def test_unreachable_neo4j_fails_fast_with_a_message(capsys):
    code, _, err = cw(capsys, "--store", "bolt://127.0.0.1:1", "tasks", "list")
    assert code == 4 and "cannot reach Neo4j" in err


def test_a_walk_that_admits_fewer_than_asked_exits_7_after_storing_every_attempt(capsys, store_path, source):
    cw(capsys, "--store", store_path, "load", "toychain", str(source))
    code, out, err = cw(capsys, "--store", store_path, "walk", "--n", "3", "--count", "50", "--seed", "1",
                        "--max-attempts", "4", "--json")
    summary = json.loads(out)  # the JSON is printed before the exit
    assert code == 7 and "admitted 4 of 50 wanted after 4 attempts" in err and summary["attempted"] == 4
    code, out, _ = cw(capsys, "--store", store_path, "query", "MATCH (t:Task) RETURN count(t) AS n", "--json")
    assert json.loads(out) == [{"n": 4}]


def test_a_cypher_syntax_error_exits_6_not_the_unreachable_stores_4(capsys, store_path, source):
    cw(capsys, "--store", store_path, "load", "toychain", str(source))
    code, _, err = cw(capsys, "--store", store_path, "query", "MATCH (a:Atom RETURN a")
    assert code == 6 and "query failed" in err


def test_a_store_path_in_a_missing_folder_is_an_error_and_creates_nothing(capsys, tmp_path):
    path = tmp_path / "no" / "such" / "graph.lbug"
    code, _, err = cw(capsys, "--store", str(path), "domains")
    assert code == 4 and f"no folder {path.parent}" in err.replace("\n", "")
    assert not (tmp_path / "no").exists()


def test_tasks_list_says_how_many_it_shows_of_how_many(capsys, store_path, source):
    cw(capsys, "--store", store_path, "load", "toychain", str(source))
    cw(capsys, "--store", store_path, "walk", "--n", "2", "--count", "5", "--seed", "1")
    code, out, _ = cw(capsys, "--store", store_path, "tasks", "list", "--limit", "2")
    assert code == 0 and "showing 2 of 5 tasks (--limit)" in out
    code, out, _ = cw(capsys, "--store", store_path, "tasks", "list")
    assert code == 0 and "5 tasks" in out and "showing" not in out
    code, _, err = cw(capsys, "--store", store_path, "tasks", "list", "--status", "admited")
    assert code == 2 and "unknown --status 'admited'" in err


def test_version_is_the_installed_distributions(capsys):
    from importlib.metadata import version

    code, out, _ = cw(capsys, "--version")
    assert code == 0 and out.strip() == f"codewalk {version('codewalk')}"


def test_cw_walk_n_10_admits_on_the_graph_cw_demo_builds(capsys, tmp_path):
    store = str(tmp_path / "demo.lbug")
    code, _, err = cw(capsys, "--store", store, "demo", "--count", "1")
    assert code == 0, err
    code, out, err = cw(capsys, "--store", store, "walk", "--n", "10", "--count", "1", "--seed", "1", "--json")
    assert code == 0, err
    assert json.loads(out)["admitted"] == 1


def test_a_walk_that_used_up_the_graph_says_so(capsys, store_path, tmp_path):
    small = tmp_path / "three.txt"
    small.write_text("a1\na2\na3\n")
    cw(capsys, "--store", store_path, "load", "toychain", str(small))
    code, out, err = cw(capsys, "--store", store_path, "walk", "--n", "2", "--count", "50", "--seed", "1", "--json")
    assert code == 7 and json.loads(out)["used_up"] and "the graph is used up at this level" in err


def test_a_level_above_what_the_graph_supports_is_a_usage_error_before_anything_is_stored(capsys, store_path, source):
    cw(capsys, "--store", store_path, "load", "toychain", str(source))  # 10 atoms
    code, _, err = cw(capsys, "--store", store_path, "walk", "--n", "1000", "--count", "1")
    assert code == 2 and "level N=1000 is above what the graph" in err and "N <= 10" in err
    code, out, _ = cw(capsys, "--store", store_path, "query", "MATCH (r:Run) RETURN count(r) AS n", "--json")
    assert json.loads(out) == [{"n": 0}]  # no run was recorded


def test_db_status_exits_5_without_a_server_with_or_without_json(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("CODEWALK_NEO4J_HOME", str(tmp_path / "no-server"))
    code, out, _ = cw(capsys, "db", "status")
    assert code == 5 and "no local Neo4j is running" in out
    code, out, _ = cw(capsys, "db", "status", "--json")
    assert code == 5 and json.loads(out) is None


def test_a_named_query_runs_without_params_that_have_defaults(capsys, demo_store_path):
    code, out, err = cw(capsys, "--store", str(demo_store_path), "query", "--name", "most_reused_atoms", "--json")
    assert code == 0, err
    assert 0 < len(json.loads(out)) <= 10  # the file's default limit
    code, out, _ = cw(capsys, "--store", str(demo_store_path), "query", "--name", "most_reused_atoms",
                      "--param", "limit=1", "--json")
    assert code == 0 and len(json.loads(out)) == 1


def test_an_argument_error_is_reported_without_opening_the_store(capsys, tmp_path):
    missing = tmp_path / "no" / "such" / "folder" / "g.lbug"  # opening it would be a store error (exit 4)
    assert cw(capsys, "--store", str(missing), "walk", "--n", "2", "--opt", "novalue")[0] == 2
    assert cw(capsys, "--store", str(missing), "query", "RETURN 1", "--param", "novalue")[0] == 2
    assert cw(capsys, "--store", str(missing), "walk", "--n", "0")[0] == 2


def test_ctrl_c_says_exactly_what_a_rerun_admits_and_following_it_reaches_the_count(tmp_path):
    import os
    import re
    import signal
    import sys
    import time

    store = str(tmp_path / "demo.lbug")
    env = {**os.environ, "CODEWALK_HOME": str(tmp_path / "home")}
    cmd = [sys.executable, "-m", "codewalk", "--store", store]
    subprocess.run([*cmd, "load", "demo", "loaders/demo_atoms.jsonl"], env=env, check=True, capture_output=True)
    # SIGINT as a terminal gives it: a shell starts background jobs with it ignored, which Python keeps
    walk = subprocess.Popen([*cmd, "walk", "--n", "2", "--count", "60", "--seed", "3", "--workers", "1"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    wal = tmp_path / "demo.lbug.wal"  # the embedded store's log appears with the run's first write
    deadline = time.monotonic() + 300
    while not wal.exists() and walk.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(1)  # into the walk, however loaded the machine: not in Python's start-up or imports
    assert walk.poll() is None, "the walk finished before Ctrl-C"
    walk.send_signal(signal.SIGINT)
    _, err = walk.communicate(timeout=120)
    assert walk.returncode == 130, err
    said = re.search(r"(\d+) admitted of --count 60.*rerun with --count (\d+)", " ".join(err.split()))
    assert said, err
    admitted, left = int(said[1]), int(said[2])
    assert admitted + left == 60
    rerun = subprocess.run([*cmd, "walk", "--n", "2", "--count", str(left), "--seed", "4", "--json"], env=env,
                           capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr
    total = subprocess.run([*cmd, "query", "MATCH (t:Task {status: 'admitted'}) RETURN count(t) AS n", "--json"],
                           env=env, capture_output=True, text=True, check=True).stdout
    assert json.loads(total) == [{"n": 60}]


def test_grade_help_lists_predictions_beside_report(capsys):
    """`cw grade FILE` is `cw grade predictions FILE`: the group's help lists it, where its options are."""
    import re

    code, out, _ = cw(capsys, "grade", "--help")
    assert code == 0 and re.search(r"^\W*predictions\s", out, re.MULTILINE) and re.search(r"^\W*report\s", out, re.MULTILINE)
