"""What a test checks of a store after an interrupted or failed run: every task whole and stored once."""

from __future__ import annotations

from pathlib import Path

from codewalk.store import GraphStore, open_store


def whole_unique_tasks(store: GraphStore | Path | str) -> list[str]:
    """Every task's id (sorted), each task checked whole (one COMPOSES edge per position 0..N-1) and stored once.
    A store object is read as it is; a path or URI is opened and closed."""
    if not isinstance(store, GraphStore):
        with open_store(store) as graph:
            return whole_unique_tasks(graph)
    rows = store.run("MATCH (t:Task) OPTIONAL MATCH (t)-[c:COMPOSES]->(:Atom) "
                     "RETURN t.id AS id, t.level AS level, collect(c.position) AS ps")
    for r in rows:
        assert sorted(r["ps"]) == list(range(r["level"])), r
    ids = sorted(r["id"] for r in rows)
    assert len(ids) == len(set(ids))
    return ids
