"""Fixtures: one `store` fixture parametrised over both stores, so every contract test runs on both.

The Neo4j half needs a real Neo4j over Bolt: CODEWALK_TEST_NEO4J (default bolt://127.0.0.1:7687).
Under CI (CI=true) an unreachable Neo4j fails the run; on a developer machine those tests skip.
"""

from __future__ import annotations

import os

import pytest

from codewalk.errors import StoreUnavailable
from codewalk.store import open_store

NEO4J_URI = os.environ.get("CODEWALK_TEST_NEO4J", "bolt://127.0.0.1:7687")


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path, monkeypatch):
    """Never touch the user's ~/.codewalk or their CODEWALK_STORE."""
    monkeypatch.setenv("CODEWALK_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CODEWALK_STORE", raising=False)


def neo4j_store():
    try:
        store = open_store(NEO4J_URI)
    except StoreUnavailable as e:
        if os.environ.get("CI"):
            pytest.fail(f"CI needs a real Neo4j at {NEO4J_URI}: {e}")
        pytest.skip(f"no Neo4j at {NEO4J_URI}")
    store.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS")
    return store


@pytest.fixture(params=["ladybug", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def store(request, tmp_path):
    s = open_store(tmp_path / "graph.lbug") if request.param == "ladybug" else neo4j_store()
    yield s
    s.close()


@pytest.fixture
def store_path(tmp_path):
    """A store location for CLI tests, on the same two stores."""
    return str(tmp_path / "cli.lbug")
