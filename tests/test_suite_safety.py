"""The test suite never loses a user's data: it wipes only a Neo4j database it claimed itself."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from neo4j import GraphDatabase

from codewalk import dbserver
from tests import neo4j_owner

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _count(uri: str) -> tuple[int, int]:
    with GraphDatabase.driver(uri) as driver:
        nodes = driver.execute_query("MATCH (n) RETURN count(n) AS n").records[0]["n"]
        tasks = driver.execute_query("MATCH (t:Task) RETURN count(t) AS n").records[0]["n"]
    return nodes, tasks


@pytest.fixture(scope="module")
def users_server(tmp_path_factory):
    """A persisted server like `cw db start --persist` keeps, seeded with a graph the suite did not write."""
    home = tmp_path_factory.mktemp("users-neo4j")
    try:
        info = dbserver.start(home, bolt_port=_free_port(), http_port=_free_port(), persist=True, auth=False)
    except Exception as e:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"cannot start a Neo4j of our own here: {e}")
    with GraphDatabase.driver(info.bolt_uri) as driver:
        driver.execute_query("UNWIND range(1, 32) AS i CREATE (:Atom {id: 'user/' + toString(i)})")
        driver.execute_query("UNWIND range(1, 6) AS i CREATE (:Task {id: 'task/' + toString(i)})")
    try:
        yield info.bolt_uri
    finally:
        dbserver.stop(home)


@pytest.mark.neo4j
def test_the_suite_refuses_to_wipe_a_database_holding_data_it_did_not_write(users_server):
    with pytest.raises(neo4j_owner.NotOurs, match="38 nodes"):
        neo4j_owner.wipe(users_server)
    assert _count(users_server) == (38, 6)


@pytest.mark.neo4j
def test_neo4j_tests_pointed_at_a_users_database_fail_and_leave_it_whole(users_server):
    env = {**os.environ, "CODEWALK_TEST_NEO4J": users_server, "PYTHONPATH": str(ROOT)}
    env.pop("CI", None)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "neo4j", "tests/test_walk.py", "-x"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    assert run.returncode == 1, run.stdout[-2000:]
    assert "refusing to wipe" in run.stdout
    assert _count(users_server) == (38, 6)


def test_a_claimed_database_is_wiped_between_tests(neo4j):
    """The suite's own database (claimed when it was empty) is emptied of what a test left behind."""
    neo4j.run("CREATE (:Atom {id: 'left/behind'})")
    neo4j_owner.wipe(neo4j.location)
    assert _count(neo4j.location) == (0, 0)


def test_the_suite_has_no_default_neo4j_address(monkeypatch):
    """Without CODEWALK_TEST_NEO4J the suite starts a server of its own; it never reuses 127.0.0.1:7687."""
    env = {k: v for k, v in os.environ.items() if k != "CODEWALK_TEST_NEO4J"}
    out = subprocess.run(
        [sys.executable, "-c", "import tests.conftest as c; print(c.NEO4J_URI)"],
        cwd=ROOT, env={**env, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, check=True,
    ).stdout
    assert out.strip() == "None"
