"""The streaming bulk write (`write_graph` in chunks: COPY for new rows in Ladybug, UNWIND batches in
Neo4j) stores exactly what the plain upsert path stores, all or nothing, on both stores."""

from __future__ import annotations

import pytest

from codewalk.errors import InputError, StoreError
from codewalk.records import Atom, Edge
from codewalk.store import GraphStore, open_store
from codewalk.store.columns import atom_table


@pytest.fixture(autouse=True)
def _tiny_chunks(monkeypatch):
    """Three rows a chunk, so a handful of records crosses many chunk boundaries."""
    monkeypatch.setattr("codewalk.store.ladybug.CHUNK", 3)
    monkeypatch.setattr("codewalk.store.ladybug.EDGE_CHUNK", 3)
    monkeypatch.setattr("codewalk.store.neo4j.BATCH", 3)


def _atoms(tag: str, ids: str) -> list[Atom]:
    return [Atom(f"d/{i}", "d", {"title": f"{i}{tag}", "files": [f"{i}.py"], "label": tag}, {"v": tag}) for i in ids]


def _edges(pairs: str, tag: str) -> list[Edge]:
    out = []
    for p in pairs.split():
        a, b = f"d/{p[0]}", f"d/{p[1]}"
        out.append(Edge(a, b, "SHARES_FILE", files=(f"{tag}.py",)) if a < b else Edge(a, b, "FEEDS", arg=len(tag), via=tag))
    return out


def _graph(store) -> tuple:
    atoms = store.get_atoms([i for i, _, _ in store.atom_index("d")])
    edges = store.edges("d")
    count = store.run("MATCH (:Atom)-[e]->(:Atom) RETURN count(e) AS n")[0]["n"]  # no edge stored twice
    return atoms, [e for e in edges if e.type == "SHARES_FILE"], [e for e in edges if e.type == "FEEDS"], count


# Repeats across chunk boundaries: atom c twice (the later wins), edge ab three times.
FIRST = (_atoms("x", "abcdefg") + _atoms("y", "c"), _edges("ab cd ab ef ba dc ab fg ge", "x"))
SECOND = (_atoms("z", "efghij"), _edges("ab hi ij ji gh", "z"))


def test_streamed_writes_store_what_the_upsert_path_stores(store, tmp_path):
    reference = open_store(tmp_path / "reference.lbug")
    try:
        for atoms, edges in (FIRST, SECOND):  # the second write is partly new, partly an update
            store.write_graph(iter(atoms), iter(edges))
            for record in atoms + edges:  # the plain upsert path, one record at a time: the later wins
                is_atom = isinstance(record, Atom)
                GraphStore.write_graph(reference, [record] if is_atom else [], [] if is_atom else [record])
            assert _graph(store) == _graph(reference)
        atoms, shares, _, _ = _graph(store)
        assert [a.summary["label"] for a in atoms] == list("xxyxzzzzzz")
        assert [(e.src, e.dst, e.files) for e in shares if e.src == "d/a"] == [("d/a", "d/b", ("z.py",))]
    finally:
        reference.close()


def test_writing_the_same_stream_twice_changes_nothing(store):
    store.write_graph(iter(FIRST[0]), iter(FIRST[1]))
    before = _graph(store)
    store.write_graph(iter(FIRST[0]), iter(FIRST[1]))
    assert _graph(store) == before


def test_a_stream_that_fails_midway_leaves_the_store_as_it_was(store):
    store.write_graph(FIRST[0], FIRST[1])
    before = _graph(store)

    def broken_edges():
        yield from SECOND[1][:4]
        raise InputError("edges.jsonl", 5, "bad record")

    with pytest.raises(InputError):
        store.write_graph(iter(SECOND[0]), broken_edges())
    assert _graph(store) == before


def test_a_copied_edge_to_a_missing_atom_fails_the_whole_write(tmp_path):
    """Ladybug's COPY checks both ends (Neo4j's MATCH-based upsert skips such an edge; `cw load` rejects
    it before either store sees it)."""
    with open_store(tmp_path / "g.lbug") as store:
        with pytest.raises(StoreError, match="nothing was stored"):
            store.write_graph(_atoms("x", "abcd"), _edges("ab", "x") + [Edge("d/a", "d/zz", "SHARES_FILE")])
        assert store.atom_index("d") == []


def test_arrow_schema_of_the_bulk_path_matches_the_atom_table(tmp_path):
    from codewalk.store.columns import ATOM_SCHEMA

    with open_store(tmp_path / "g.lbug") as store:
        columns = [r["name"] for r in store.run("CALL table_info('Atom') RETURN *")]
    assert columns == ATOM_SCHEMA.names


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
    from codewalk.store.columns import atom_table, edge_tables
    from codewalk.store.neo4j import import_graph
    from codewalk.walk import Walker
    from tests.conftest import _free_port

    store = neo4j
    atoms, edges = _big_graph(10_000, seed=5)
    store.write_graph(atoms, edges)  # the UNWIND path
    home = tmp_path / "neo4j"
    try:
        bulk = import_graph(home, [atom_table(atoms)], edge_tables(edges, 4_000),
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


def test_a_bulk_load_refuses_a_neo4j_it_does_not_run(monkeypatch, tmp_path):
    """`cw load --bulk` rebuilds a database: only that of the local server `cw db start` recorded."""
    from codewalk.store.neo4j import Neo4jStore

    fake = Neo4jStore.__new__(Neo4jStore)
    fake.location, fake.database = "bolt://db.example.org:7687", "neo4j"
    with pytest.raises(StoreError, match="without --bulk"):
        fake.bulk_tables([atom_table(_atoms("x", "ab"))], [], home=tmp_path)


def test_cw_load_bulk_writes_what_a_plain_load_writes(capsys, tmp_path):
    """`cw load --bulk` on the embedded store is its usual COPY path: the same atoms and edges."""
    from pathlib import Path

    from tests.run_cw import cw

    source = str(Path(__file__).resolve().parents[1] / "loaders" / "demo_atoms.jsonl")
    graphs = []
    for name, extra in (("plain", []), ("bulk", ["--bulk"])):
        path = str(tmp_path / f"{name}.lbug")
        code, out, err = cw(capsys, "--store", path, "load", "demo", source, *extra, "--json")
        assert code == 0, err
        with open_store(path) as s:
            graphs.append((s.atom_index("demo"), s.edges("demo")))
    assert graphs[0] == graphs[1] and graphs[0][1]


@pytest.mark.neo4j
def test_cw_load_bulk_into_a_server_it_does_not_run_names_the_way_out(neo4j, capsys, monkeypatch, tmp_path):
    """The test server was not started from this CODEWALK_NEO4J_HOME: refused, nothing written."""
    from pathlib import Path

    from tests.run_cw import cw

    monkeypatch.setenv("CODEWALK_NEO4J_HOME", str(tmp_path / "no-server-here"))
    source = str(Path(__file__).resolve().parents[1] / "loaders" / "demo_atoms.jsonl")
    code, out, err = cw(capsys, "--store", neo4j.location, "load", "demo", source, "--bulk")
    assert code == 4 and "without --bulk" in err
    assert neo4j.atom_index("demo") == []
