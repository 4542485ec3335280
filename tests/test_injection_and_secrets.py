"""Identifiers that cannot be Cypher parameters are validated; values travel only as parameters;
the Neo4j password never reaches output or the graph."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from codewalk.cypher_files import query
from codewalk.domain import get_domain
from codewalk.errors import UsageError
from codewalk.records import Atom, Edge
from codewalk.store.columns import graph_tables

PAYLOAD = "x'}) MATCH (n) DETACH DELETE n //"


def test_relationship_type_outside_the_fixed_set_is_refused():
    for dialect in ("neo4j", "ladybug"):
        with pytest.raises(UsageError, match="unknown relationship type"):
            query("walk_step_frontier", dialect, rel="FEEDS]-() DETACH DELETE n //")


def test_injected_domain_name_is_refused_as_unknown():
    with pytest.raises(UsageError, match="unknown domain"):
        get_domain("demo` MATCH (n) DETACH DELETE n")


def test_injection_payload_in_values_is_stored_literally(store):
    atoms = [Atom(PAYLOAD, "d", {"title": PAYLOAD}, {"p": PAYLOAD}), Atom("d/b", "d")]
    store.write(*graph_tables(atoms, [Edge(PAYLOAD, "d/b", "FEEDS")]))
    assert store.get_atoms([PAYLOAD]) == [atoms[0]]
    assert store.domains() == {"d": 2}
    walks = [{"wid": 0, "ids": [PAYLOAD], "last": PAYLOAD, "u": 0.0, "label": PAYLOAD, "blocked": [PAYLOAD]}]
    assert store.walk_step("FEEDS", True, walks) == {}  # the label matches nothing; nothing was executed
    assert store.run("MATCH (n:Atom) RETURN count(n) AS n") == [{"n": 2}]  # nothing deleted, nothing added


@pytest.mark.neo4j
def test_neo4j_password_never_appears_in_output_or_the_graph(neo4j):
    # the test server runs without auth, so any password is accepted and must still never leak
    secret = "s3cret-Pa55word-for-test"
    env = {**os.environ, "CODEWALK_STORE": neo4j.location, "NEO4J_USER": "neo4j", "NEO4J_PASSWORD": secret}
    from codewalk.loaders.demo import CATALOGUE

    outputs = []
    for args in (["load", "demo", str(CATALOGUE)], ["walk", "--n", "2", "--count", "2", "--seed", "4", "--json"],
                 ["tasks", "list"], ["query", "MATCH (r:Run) RETURN r"],
                 ["--store", "bolt://127.0.0.1:1", "tasks", "list"]):
        done = subprocess.run(["cw", *args], capture_output=True, text=True, env=env, timeout=300)
        outputs += [done.stdout, done.stderr]
    assert not any(secret in text for text in outputs)
    dump = json.dumps(neo4j.run("MATCH (n) RETURN properties(n) AS p"), default=str)
    assert secret not in dump and "Run" in json.dumps(neo4j.run("MATCH (r:Run) RETURN labels(r) AS l"))
