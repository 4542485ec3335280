"""Faults injected for real: a Neo4j killed mid-walk, two concurrent writers, a load killed mid-write.
Each test checks that nothing is lost, half-written or duplicated."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request

import pytest

from codewalk import dbserver
from codewalk.store import open_store
from codewalk.store.columns import graph_tables
from tests.stored import whole_unique_tasks


def _cw(store: str, *args: str, **kw) -> subprocess.Popen:
    env = {**os.environ, "CODEWALK_STORE": store}
    return subprocess.Popen(["cw", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, **kw)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _discovery(http: int, patience: float = 120) -> dict:
    """Neo4j's HTTP discovery document. A server that answers Bolt may take a while longer to answer HTTP
    on a loaded machine: wait for it (a slow answer is not the failure under test)."""
    deadline = time.monotonic() + patience
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{http}/", timeout=30) as r:
                return json.load(r)
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(1)


COUNT = 60  # about 10 s of demo walking at N = 2


@pytest.mark.neo4j
def test_neo4j_killed_mid_walk_fails_fast_and_a_rerun_completes_without_duplicates(tmp_path, monkeypatch):
    home = tmp_path / "neo"
    monkeypatch.setenv("CODEWALK_NEO4J_HOME", str(home))  # the local server: cw finds its password by itself
    bolt, http = _free_port(), _free_port()
    try:
        info = dbserver.start(home, bolt_port=bolt, http_port=http, persist=True)
    except Exception as e:  # the suite's own server already proves Neo4j can run here
        if os.environ.get("CI"):
            raise
        pytest.skip(f"cannot start a second Neo4j: {e}")
    try:
        # Browser connects where discovery points: the ports this server was given, not the defaults
        assert _discovery(http)["bolt_direct"] == f"bolt://127.0.0.1:{bolt}"
        load = _cw(info.bolt_uri, "load", "demo", _demo_catalogue())
        assert load.wait(120) == 0, load.stderr.read()
        # Tasks are written in batches (every 2 s or 25 tasks): the count must outlast the first batch by
        # seconds, or the kill lands while the walk is already writing its last one.
        walk = _cw(info.bolt_uri, "walk", "--n", "2", "--count", str(COUNT), "--seed", "1")
        with open_store(info.bolt_uri) as store:  # wait until the walk has stored some tasks
            deadline = time.monotonic() + 120
            while not store.list_tasks(limit=1) and time.monotonic() < deadline:
                time.sleep(0.2)
            stored = len(store.list_tasks(limit=COUNT))
        assert walk.poll() is None and stored < COUNT, "the walk finished before the fault could be injected"
        os.kill(info.pid, signal.SIGKILL)  # the server dies without warning
        killed_at = time.monotonic()
        code = walk.wait(90)
        took = time.monotonic() - killed_at
        err = walk.stderr.read()
        assert code == 4 and "Neo4j" in err and "Traceback" not in err, err
        assert took < 30, f"cw took {took:.0f}s to notice the dead server"

        dbserver.stop(home)
        info = dbserver.start(home, bolt_port=bolt, http_port=http, persist=True)
        with open_store(info.bolt_uri) as store:
            before = whole_unique_tasks(store)
        assert before, "no task was stored before the kill, or the restart lost it"
        rerun = _cw(info.bolt_uri, "walk", "--n", "2", "--count", str(COUNT), "--seed", "1", "--json")
        out, err = rerun.communicate(timeout=300)
        assert rerun.returncode == 0, err
        assert f'"admitted": {COUNT}' in out  # the re-run completes the requested count
        with open_store(info.bolt_uri) as store:
            after = whole_unique_tasks(store)
        assert set(before) < set(after)
    finally:
        dbserver.stop(home)


@pytest.mark.neo4j
def test_two_concurrent_walks_on_one_neo4j_both_finish_without_duplicates(neo4j):
    load = _cw(neo4j.location, "load", "demo", _demo_catalogue())
    assert load.wait(120) == 0
    # the same seed makes both walk into the same groups at the same time
    walks = [_cw(neo4j.location, "walk", "--n", "2", "--count", "4", "--seed", "3", "--json") for _ in range(2)]
    for w in walks:
        assert w.wait(900) == 0, w.stderr.read()
    ids = whole_unique_tasks(neo4j)
    assert len(neo4j.list_tasks(domain="demo", status="admitted", limit=1000)) >= 4
    assert len(ids) == neo4j.run("MATCH (t:Task) RETURN count(DISTINCT t.id) AS n")[0]["n"]


KILL_DURING_LOAD = """
import sys
from codewalk.records import Atom, Edge
from codewalk.store import open_store
from codewalk.store.columns import graph_tables
store = open_store(sys.argv[1])
atoms = [Atom(f"big/{i:07d}", "big", {"title": "x" * 50}, {"k": i}) for i in range(400_000)]
edges = [Edge(atoms[i].id, atoms[i + 1].id, "FEEDS") for i in range(len(atoms) - 1)]
print("WRITING", flush=True)
store.write(*graph_tables(atoms, edges))
print("DONE", flush=True)
"""


def test_load_killed_mid_write_leaves_the_embedded_store_as_it_was(tmp_path):
    path = tmp_path / "g.lbug"
    with open_store(path) as store:
        from codewalk.records import Atom, Edge

        store.write(*graph_tables([Atom("keep/a", "keep"), Atom("keep/b", "keep")], [Edge("keep/a", "keep/b", "FEEDS")]))
    child = subprocess.Popen([sys.executable, "-c", KILL_DURING_LOAD, str(path)], stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "WRITING"
    time.sleep(1.5)
    child.kill()
    assert child.wait(30) == -signal.SIGKILL, "the load finished before it could be killed"
    with open_store(path) as store:
        assert store.domains() == {"keep": 2}
        assert store.run("MATCH ()-[e]->() RETURN count(e) AS n") == [{"n": 1}]
        store.write(*graph_tables([Atom("keep/c", "keep")], []))  # and the store still takes writes
        assert store.domains() == {"keep": 3}


def _demo_catalogue() -> str:
    from codewalk.loaders.demo import CATALOGUE

    return str(CATALOGUE)
