"""Which Neo4j the suite may write to, and how it knows a database is its own.

The suite writes only to a server it started itself or to the one named in CODEWALK_TEST_NEO4J. Even
there it wipes a database only if the suite claimed it: a claim is an index named `MARK` (on a label
codewalk never uses), created only while the database holds no node at all. A database with nodes and
no such index holds data the suite did not write (a user's `cw db start --persist` graph, say): the suite
refuses to touch it. Indexes survive `MATCH (n) DETACH DELETE n`, so the claim outlives each wipe and
adds no node a test could count.
"""

from __future__ import annotations

from neo4j import GraphDatabase

MARK = "codewalk_test_suite_owns_this_database"


class NotOurs(RuntimeError):
    """The database holds data the suite did not write."""


def claimed(driver) -> bool:
    rows, _, _ = driver.execute_query("SHOW INDEXES YIELD name WHERE name = $name RETURN name", name=MARK)
    return bool(rows)


def wipe(uri: str) -> None:
    """Empty the database at `uri` for the next test, claiming it first if it is empty; refuse otherwise."""
    with GraphDatabase.driver(uri) as driver:
        if not claimed(driver):
            nodes = driver.execute_query("MATCH (n) RETURN count(n) AS n").records[0]["n"]
            if nodes:
                raise NotOurs(
                    f"the Neo4j at {uri} holds {nodes} nodes the test suite did not write (no index named "
                    f"{MARK}); refusing to wipe it. Unset CODEWALK_TEST_NEO4J (the suite then starts its "
                    f"own server) or point it at an empty database."
                )
            driver.execute_query(f"CREATE INDEX {MARK} IF NOT EXISTS FOR (n:CodewalkTestSuiteMark) ON (n.id)")
        driver.execute_query("MATCH (n) DETACH DELETE n")  # test graphs are small
