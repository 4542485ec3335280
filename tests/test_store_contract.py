"""The GraphStore contract: both stores (embedded LadybugDB, real Neo4j over Bolt) behave the same."""

from __future__ import annotations

import pytest

from codewalk.errors import StoreError
from codewalk.records import Atom, Edge, Run, Task
from codewalk.store import open_store
from codewalk.store.columns import graph_tables

ATOMS = [
    Atom("d/a", "d", {"title": "A", "files": ["x.py"], "label": "eq"}, {"k": 1}),
    Atom("d/b", "d", {"title": "B", "files": ["x.py", "y.py"]}, {"k": [1, 2]}),
    Atom("d/c", "d", {"title": "C", "in_type": "int", "out_type": "str"}, {}),
]
EDGES = [Edge("d/a", "d/b", "SHARES_FILE", files=("x.py",)), Edge("d/b", "d/c", "FEEDS", arg=1, via="as_slice")]


def _task(tid: str, atoms: tuple[str, ...], run: str = "r1") -> Task:
    return Task(tid, "d", atoms, "admitted", "admitted", 7, run, "2026-12-03T00:00:00+00:00", "test",
                "prompt", "ref", {"v": 1}, {"atoms": [{"position": 0, "unsolved": True}]})


def _counts(store) -> tuple[int, int]:
    nodes = store.run("MATCH (n:Atom) RETURN count(n) AS c")[0]["c"]
    rels = store.run("MATCH ()-[r]->() RETURN count(r) AS c")[0]["c"]
    return nodes, rels


def test_load_then_read_back_atoms_and_edges(store):
    store.write(*graph_tables(ATOMS, EDGES))
    assert store.domains() == {"d": 3}
    assert store.get_atoms(["d/c", "d/a"]) == [ATOMS[2], ATOMS[0]]
    assert store.atom_index("d") == [("d/a", "eq", ""), ("d/b", "", ""), ("d/c", "", "")]
    rows = store.run("MATCH (a:Atom)-[e:FEEDS]->(b:Atom) RETURN a.id AS a, b.id AS b, e.arg AS arg, e.via AS via")
    assert rows == [{"a": "d/b", "b": "d/c", "arg": 1, "via": "as_slice"}]
    rows = store.run("MATCH (a:Atom)-[e:SHARES_FILE]-(b:Atom) RETURN a.id AS src ORDER BY src")
    assert rows == [{"src": "d/a"}, {"src": "d/b"}]  # stored once, matched both ways
    assert store.edges("d") == EDGES


def test_an_edges_files_read_back_as_written_whatever_their_names(store):
    """Ladybug keeps them as one string (the names joined by NUL): a name with a comma, a semicolon, a
    space or a newline, and an edge with none, come back as they went in."""
    names = ("a,b.py", "c;d.py", "e f.py", "g\nh.py", "x.py")
    edges = [Edge("d/a", "d/b", "SHARES_FILE", files=names), Edge("d/a", "d/c", "SHARES_FILE")]
    store.write(*graph_tables(ATOMS, edges))
    assert store.edges("d") == edges


def test_table_gives_the_rows_of_run_as_arrow_columns(store):
    """The walk reads its graph through table(): same rows as run(), nulls kept, empty results typed."""
    store.write(*graph_tables(ATOMS, EDGES))
    cypher = "MATCH (a:Atom) WHERE a.domain = $d RETURN a.id AS id, a.label AS label, a.repo AS repo ORDER BY id"
    table = store.table(cypher, {"d": "d"})
    assert table.column_names == ["id", "label", "repo"]

    def unset_as_none(rows):  # Ladybug stores an unset field as "", Neo4j leaves it out
        return [{k: v or None for k, v in r.items()} for r in rows]

    assert unset_as_none(table.to_pylist()) == unset_as_none(store.run(cypher, {"d": "d"})) == [
        {"id": "d/a", "label": "eq", "repo": None}, {"id": "d/b", "label": None, "repo": None},
        {"id": "d/c", "label": None, "repo": None}]
    empty = store.table(cypher, {"d": "nothing"})
    assert empty.num_rows == 0 and empty.column_names == ["id", "label", "repo"]
    with pytest.raises(StoreError):
        store.table("THIS IS NOT CYPHER")


def test_reload_is_idempotent(store):
    store.write(*graph_tables(ATOMS, EDGES))
    before = _counts(store)
    store.write(*graph_tables(ATOMS, EDGES))
    assert _counts(store) == before == (3, 2)


def test_failed_write_leaves_store_as_it_was(store):
    store.write(*graph_tables(ATOMS, EDGES))
    before = _counts(store)
    broken = [(store.q("upsert_atoms"), {"rows": [store.atom_row(Atom("d/new", "d"))]}),
              ("THIS IS NOT CYPHER", {})]
    with pytest.raises(StoreError):
        store.transaction(broken)
    assert _counts(store) == before
    assert "d/new" not in {i for i, _, _ in store.atom_index("d")}


def test_tasks_written_with_ordered_composes_edges_once(store):
    store.write(*graph_tables(ATOMS, EDGES))
    store.write_run(Run("r1", "d", 7, {"n": 2}, "2026-12-03T00:00:00+00:00"))
    t = _task("t1", ("d/c", "d/a"))
    store.write_tasks([t])
    store.write_tasks([t])  # a re-run writes nothing twice
    got = store.get_task("t1")
    assert got["atoms"] == ["d/c", "d/a"] and got["level"] == 2
    assert got["status"] == "admitted" and got["evidence"] == t.evidence and got["verifier"] == {"v": 1}
    assert store.existing_tasks(["t1", "t2"]) == {"t1"}
    rows = store.run("MATCH (t:Task)-[c:COMPOSES]->(a:Atom) RETURN c.position AS p, a.id AS a ORDER BY p")
    assert rows == [{"p": 0, "a": "d/c"}, {"p": 1, "a": "d/a"}]
    assert store.run("MATCH (t:Task)-[:IN_RUN]->(r:Run) RETURN r.id AS r") == [{"r": "r1"}]
    assert [r["id"] for r in store.list_tasks(domain="d", status="admitted")] == ["t1"]
    assert store.list_tasks(status="rejected") == []
    assert store.yields("d") == [{"level": 2, "status": "admitted", "reason": "admitted", "tasks": 1}]


def test_a_task_keeps_the_run_that_created_it(store):
    store.write(*graph_tables(ATOMS, EDGES))
    for run in ("r1", "r2"):
        store.write_run(Run(run, "d", 7, {}, "2026-12-03T00:00:00+00:00"))
    store.write_tasks([_task("t1", ("d/a",), run="r1")])
    store.write_tasks([_task("t1", ("d/a",), run="r2")])
    assert store.run("MATCH (t:Task)-[:IN_RUN]->(r:Run) RETURN r.id AS r") == [{"r": "r1"}]
    assert store.get_task("t1")["run"] == "r1"


def test_walk_step_picks_by_u_from_the_sorted_distinct_frontier(store):
    store.write(*graph_tables(ATOMS + [Atom("d/z", "d")], EDGES + [Edge("d/a", "d/z", "SHARES_FILE")]))
    walk = {"ids": ["d/a"], "last": "d/a", "label": "", "blocked": []}
    picks = store.walk_step("SHARES_FILE", False, [{**walk, "wid": 0, "u": 0.0}, {**walk, "wid": 1, "u": 0.99}])
    assert picks == {0: ("d/b", 2), 1: ("d/z", 2)}


def test_walk_step_dead_end_returns_no_pick(store):
    store.write(*graph_tables(ATOMS, EDGES))
    walks = [{"wid": 3, "ids": ["d/c"], "last": "d/c", "u": 0.5, "label": "", "blocked": []}]
    assert store.walk_step("FEEDS", True, walks) == {}
    assert store.walk_step("SHARES_FILE", False, walks) == {}


def test_missing_atom_is_an_error(store):
    store.write(*graph_tables(ATOMS, EDGES))
    with pytest.raises(StoreError, match="d/nope"):
        store.get_atoms(["d/a", "d/nope"])


def test_embedded_store_held_by_another_process_is_reported_as_in_use(tmp_path):
    import subprocess
    import sys

    from codewalk.store import open_store

    path = tmp_path / "held.lbug"
    holder = open_store(path)
    try:
        code = f"from codewalk.store import open_store; open_store({str(path)!r})"
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert result.returncode != 0 and "store in use by another process" in result.stderr
    finally:
        holder.close()
    open_store(path).close()  # free again once the holder is gone


def test_a_store_of_an_older_schema_version_is_refused_with_what_to_do(store):
    SCHEMA_VERSION = store.schema_version
    assert store.run("MATCH (s:Schema) RETURN s.version AS v") == [{"v": SCHEMA_VERSION}]  # stamped on open
    store.run("MATCH (s:Schema) SET s.version = $v", {"v": SCHEMA_VERSION - 1})
    with pytest.raises(StoreError, match=rf"schema version {SCHEMA_VERSION - 1}, this codewalk needs "
                                         rf"{SCHEMA_VERSION}.*cw tasks export"):
        store.ensure_schema()  # what opening it does
    store.run("MATCH (s:Schema) SET s.version = $v", {"v": SCHEMA_VERSION + 1})
    with pytest.raises(StoreError, match="newer than this codewalk's"):
        store.ensure_schema()
    store.run("MATCH (s:Schema) SET s.version = $v", {"v": SCHEMA_VERSION})  # the next test opens it


def test_an_empty_embedded_store_without_a_schema_version_is_stamped_not_refused(tmp_path):
    path = tmp_path / "old.lbug"
    with open_store(path) as s:
        s.run("MATCH (s:Schema) DELETE s")
    with open_store(path) as s:
        assert s.run("MATCH (s:Schema) RETURN s.version AS v")[0]["v"] == s.schema_version


def test_an_embedded_store_from_before_schema_versions_is_refused_as_version_1(tmp_path):
    """Written before versions were kept, it has version 1's layout (files STRING[] on SHARES_FILE)."""
    path = tmp_path / "old.lbug"
    with open_store(path) as s:
        s.write(*graph_tables(ATOMS, []))
        s.run("MATCH (s:Schema) DELETE s")
    with pytest.raises(StoreError, match="schema version 1, this codewalk needs 2"):
        open_store(path)
