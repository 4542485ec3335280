"""`cw db import`: Neo4j's offline importer builds the database of the local server `cw db start` runs
(stopped, imported into, started again) from the tables `cw load` writes, and holds what `cw load` stores;
it refuses any other server and a database that holds anything."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codewalk.records import Atom, Edge
from codewalk.store import open_store
from codewalk.store.columns import graph_tables
from tests.run_cw import cw

DEMO = str(Path(__file__).resolve().parents[1] / "loaders" / "demo_atoms.jsonl")


def _big_graph(n: int, seed: int) -> tuple[list[Atom], list[Edge]]:
    """n atoms in small repositories; two atoms of one repository that touch a common file are related."""
    import random

    rng = random.Random(seed)
    atoms = [Atom(f"b/{i:05d}", "toysym", {"repo": f"r{i // 20}", "files": sorted({f"f{rng.randrange(6)}.py"
                                                                                    for _ in range(2)}),
                                           "label": rng.choice(["eq", "neq"])}, {"i": i}) for i in range(n)]
    edges = []
    for start in range(0, n, 20):
        group = atoms[start:start + 20]
        for k, a in enumerate(group):
            for b in group[k + 1:]:
                shared = sorted(set(a.summary["files"]) & set(b.summary["files"]))
                if shared:
                    edges.append(Edge(a.id, b.id, "SHARES_FILE", files=tuple(shared)))
    return atoms, edges


@pytest.mark.neo4j
def test_neo4j_importer_builds_the_graph_and_walks_of_the_unwind_path(neo4j, tmp_path):
    """10^4 atoms: the importer's database (constraints and indexes created after) holds the same atoms
    and edges as UNWIND upserts write, and the same seed walks the same groups on both."""
    import random

    from codewalk import dbserver
    from codewalk.domain import get_domain
    from codewalk.store.neo4j import import_graph
    from codewalk.walk import Walker
    from tests.conftest import _free_port

    store = neo4j
    atoms, edges = _big_graph(10_000, seed=5)
    store.write(*graph_tables(atoms, edges))  # the UNWIND path
    home = tmp_path / "neo4j"
    try:
        bulk = import_graph(home, *graph_tables(atoms, edges, size=4_000),
                            bolt_port=_free_port(), http_port=_free_port())
        with bulk:
            assert {r["name"] for r in bulk.run("SHOW CONSTRAINTS YIELD name")} >= {"atom_id", "schema_id"}
            ids = [i for i, _, _ in store.atom_index("toysym")]
            assert [i for i, _, _ in bulk.atom_index("toysym")] == ids and len(ids) == 10_000
            assert bulk.get_atoms(ids[::97]) == store.get_atoms(ids[::97])
            assert bulk.edges("toysym") == store.edges("toysym") and len(edges) > 10_000

            def groups(s):
                walker = iter(Walker(s, get_domain("toysym"), 4, random.Random(3)))
                return [next(walker) for _ in range(200)]

            assert groups(bulk) == groups(store)
    finally:
        dbserver.stop(home)


def test_cw_db_import_without_a_server_of_its_own_says_how_to_start_one(capsys, monkeypatch, tmp_path):
    """No server recorded in CODEWALK_NEO4J_HOME: refused (exit 5) before the source is read."""
    monkeypatch.setenv("CODEWALK_NEO4J_HOME", str(tmp_path / "no-server-here"))
    code, out, err = cw(capsys, "db", "import", "demo", str(tmp_path / "not-read.jsonl"))
    assert code == 5 and "cw db start" in err and "not-read" not in err


def test_cw_load_has_no_bulk_option_any_more(capsys, tmp_path):
    code, _, err = cw(capsys, "--store", str(tmp_path / "g.lbug"), "load", "demo", DEMO, "--bulk")
    assert code == 2 and "--bulk" in err


@pytest.mark.neo4j
def test_cw_db_import_holds_what_cw_load_stores_then_refuses_a_second_import(capsys, monkeypatch, tmp_path):
    """A server of its own (`cw db start` in a fresh CODEWALK_NEO4J_HOME), imported into: the same atoms and
    edges as `cw load` into the embedded store, the server serving them with its data kept. A second import
    would replace them: refused (exit 5), naming `cw load`, and nothing changes."""
    from tests.conftest import _free_port

    home = tmp_path / "neo4j"
    monkeypatch.setenv("CODEWALK_NEO4J_HOME", str(home))
    monkeypatch.setenv("CODEWALK_NEO4J_BACKEND", "java")
    code, _, err = cw(capsys, "db", "start", "--bolt-port", str(_free_port()), "--http-port", str(_free_port()),
                      "--json")
    assert code == 0, err
    try:
        code, out, err = cw(capsys, "db", "import", "demo", DEMO, "--json")
        assert code == 0, err
        imported = json.loads(out)
        code, out, err = cw(capsys, "--store", str(tmp_path / "g.lbug"), "load", "demo", DEMO, "--json")
        assert code == 0, err
        loaded = json.loads(out)
        assert (imported["atoms"], imported["edges"]) == (loaded["atoms"], loaded["edges"]) and loaded["edges"]
        with open_store(imported["store"]) as neo4j, open_store(loaded["store"]) as ladybug:
            ids = [i for i, _, _ in ladybug.atom_index("demo")]
            graph = neo4j.atom_index("demo"), neo4j.get_atoms(ids), neo4j.edges("demo")
            assert graph == (ladybug.atom_index("demo"), ladybug.get_atoms(ids), ladybug.edges("demo"))
        code, out, err = cw(capsys, "db", "status", "--json")
        assert code == 0 and json.loads(out)["persist"] is True
        code, _, err = cw(capsys, "db", "import", "demo", DEMO)
        assert code == 5 and "cw --store" in err and "load" in err
        with open_store(imported["store"]) as neo4j:
            assert neo4j.atom_index("demo") == graph[0]
    finally:
        cw(capsys, "db", "stop")
