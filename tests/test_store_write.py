"""The one write (`GraphStore.write`, tables made from records as they are read: COPY for new rows in
Ladybug, UNWIND batches in Neo4j) stores exactly what upserting one record at a time stores, all or
nothing, on both stores."""

from __future__ import annotations

import pytest

from codewalk.errors import InputError, StoreError
from codewalk.records import Atom, Edge
from codewalk.store import GraphStore, open_store
from codewalk.store.columns import graph_tables


def _write(store: GraphStore, atoms, edges) -> None:
    store.write(*graph_tables(atoms, edges, size=3))


def _upsert(store: GraphStore, record: Atom | Edge) -> None:
    """One record by the store's upsert query, in its own transaction: the reference."""
    if isinstance(record, Atom):
        store.transaction([(store.q("upsert_atoms"), {"rows": [store.atom_row(record)]})])
    else:
        name = "upsert_shares_file" if record.type == "SHARES_FILE" else "upsert_feeds"
        store.transaction([(store.q(name), {"rows": [store.edge_row(record)]})])


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
            _write(store, iter(atoms), iter(edges))
            for record in atoms + edges:  # the plain upsert, one record at a time: the later wins
                _upsert(reference, record)
            assert _graph(store) == _graph(reference)
        atoms, shares, _, _ = _graph(store)
        assert [a.summary["label"] for a in atoms] == list("xxyxzzzzzz")
        assert [(e.src, e.dst, e.files) for e in shares if e.src == "d/a"] == [("d/a", "d/b", ("z.py",))]
    finally:
        reference.close()


def test_writing_the_same_stream_twice_changes_nothing(store):
    _write(store, iter(FIRST[0]), iter(FIRST[1]))
    before = _graph(store)
    _write(store, iter(FIRST[0]), iter(FIRST[1]))
    assert _graph(store) == before


def test_a_stream_that_fails_midway_leaves_the_store_as_it_was(store):
    _write(store, FIRST[0], FIRST[1])
    before = _graph(store)

    def broken_edges():
        yield from SECOND[1][:4]
        raise InputError("edges.jsonl", 5, "bad record")

    with pytest.raises(InputError):
        _write(store, iter(SECOND[0]), broken_edges())
    assert _graph(store) == before


def test_a_copied_edge_to_a_missing_atom_fails_the_whole_write(tmp_path):
    """Ladybug's COPY checks both ends (Neo4j's MATCH-based upsert skips such an edge; `cw load` rejects
    it before either store sees it)."""
    with open_store(tmp_path / "g.lbug") as store:
        with pytest.raises(StoreError, match="nothing was stored"):
            _write(store, _atoms("x", "abcd"), _edges("ab", "x") + [Edge("d/a", "d/zz", "SHARES_FILE")])
        assert store.atom_index("d") == []


def test_arrow_schema_of_the_bulk_path_matches_the_atom_table(tmp_path):
    from codewalk.store.columns import ATOM_SCHEMA

    with open_store(tmp_path / "g.lbug") as store:
        columns = [r["name"] for r in store.run("CALL table_info('Atom') RETURN *")]
    assert columns == ATOM_SCHEMA.names
