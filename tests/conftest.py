"""Fixtures: one `store` fixture parametrised over both stores, so every contract test runs on both.

The Neo4j half needs a real Neo4j over Bolt. The suite never writes to a server it was not given:
it uses the one named in CODEWALK_TEST_NEO4J, or else starts its own (neo4j-launcher/, Java 17 + Maven)
on free ports for the session and stops it afterwards. It never probes 127.0.0.1:7687, where `cw db
start --persist` keeps a user's graph, and it wipes only a database it claimed (tests/neo4j_owner.py).
Neo4j is looked for only when the first test that needs it runs, so `-m "not neo4j"` never touches it.
If no server can be had: under CI (CI=true) the Neo4j tests fail; elsewhere they skip, saying why.
"""

from __future__ import annotations

import os
import socket

import pytest
from hypothesis import settings
from neo4j import GraphDatabase
from neo4j.exceptions import DriverError, Neo4jError

from codewalk.errors import Unisolated
from codewalk.runtime import sandbox
from codewalk.store import open_store
from tests import docker_runtime, neo4j_owner, repair_fixture

NEO4J_URI = os.environ.get("CODEWALK_TEST_NEO4J")  # None: the suite starts its own server

# CI replays the same examples every run, so a landing never hinges on a lucky draw; on a developer
# machine hypothesis explores new ones each time (and remembers failures in .hypothesis/).
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


def pytest_report_header() -> str:
    return f"isolation: {sandbox.isolation()}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """codewalk refuses to run code nobody reviewed where bubblewrap cannot run (errors.Unisolated). The suite
    runs cheats written to reach the host, so it never lifts that: a test that needs such a run skips there,
    saying why (under CI, which installs bubblewrap, it fails)."""
    outcome = yield
    report = outcome.get_result()
    if call.excinfo is not None and call.excinfo.errisinstance(Unisolated) and not sandbox.under_ci():
        report.outcome = "skipped"
        report.longrepr = (str(item.path), item.location[1] or 0, f"Skipped: {call.excinfo.value}")


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path, monkeypatch):
    """Never touch the user's ~/.codewalk or their CODEWALK_STORE."""
    monkeypatch.setenv("CODEWALK_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CODEWALK_STORE", raising=False)


_neo4j: dict[str, str] = {}  # the session's Bolt URI, or why there is none


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(autouse=True)
def _domains(request, monkeypatch):
    """The toy domains, and the `DOMAINS` a test module declares, registered for one test only."""
    from codewalk import domain
    from tests import toy

    monkeypatch.setattr(domain, "_registered", {})
    for cls in (*toy.DOMAINS, *getattr(request.module, "DOMAINS", ())):
        domain.register(cls)


@pytest.fixture(scope="module")
def module_home(request, tmp_path_factory):
    """One CODEWALK_HOME for a whole module, so what it caches (repair: virtualenvs, worktrees) is built
    once; a module sets it for each of its tests with `pytestmark = pytest.mark.usefixtures("shared_home")`.
    The modules that grade on tests/test_repair_redteam.py's W1 + W2 task (its `task` fixture: the red-team
    rounds) share one home for the session, as they share the task (redteam_task): its virtualenv is built
    and the task composed and checked once, not once per module. Each graded run still gets a fresh copy of
    the tree (grade: x_g(fresh=True)), as between the tests of one module."""
    task = getattr(request.module, "task", None)  # the module imports it, as test_repair_redteam or tests.<that>
    if getattr(task, "__module__", "").rpartition(".")[2] == "test_repair_redteam":
        return request.getfixturevalue("redteam_home")
    return tmp_path_factory.mktemp("home")


@pytest.fixture(scope="session")
def redteam_home(tmp_path_factory):
    """The CODEWALK_HOME of the modules that grade on tests/test_repair_redteam.py's task (module_home)."""
    return tmp_path_factory.mktemp("redteam_home")


@pytest.fixture(scope="session")
def redteam_task(tmp_path_factory, redteam_home):
    """W1 + W2 composed and through check (2), which derives its PASS_TO_PASS; no graph store needed. Built once
    for the session in redteam_home, the home of every module that grades on it (module_home); each of those
    modules gets it through tests/test_repair_redteam.py's `task`."""
    from tests import repair_fixture

    fixture, composite = repair_fixture.composed(tmp_path_factory.mktemp("tally"), redteam_home, check=True)
    assert composite.verifier["PASS_TO_PASS"]  # grading must keep these passing too
    return fixture, composite


@pytest.fixture
def shared_home(module_home, monkeypatch):
    monkeypatch.setenv("CODEWALK_HOME", str(module_home))


@pytest.fixture(scope="session")
def _session_neo4j(tmp_path_factory):
    """The Neo4j at CODEWALK_TEST_NEO4J, or one started for this session."""
    if NEO4J_URI:  # an explicit address is used as it is, never replaced by a server of our own
        try:
            with GraphDatabase.driver(NEO4J_URI, connection_timeout=5) as driver:
                driver.verify_connectivity()
            _neo4j["uri"] = NEO4J_URI
        except (Neo4jError, DriverError, OSError) as e:
            _neo4j["why"] = f"no Neo4j at CODEWALK_TEST_NEO4J={NEO4J_URI} ({e})"
        yield
        return
    from codewalk import dbserver
    from codewalk.errors import ServerError

    home = tmp_path_factory.mktemp("neo4j")
    try:
        # without a password, as CI's (.ci/neo4j.sh): a throwaway server that tests and Browser reach as they are
        info = dbserver.start(home, bolt_port=_free_port(), http_port=_free_port(), auth=False)
    except ServerError as e:
        _neo4j["why"] = f"CODEWALK_TEST_NEO4J is unset and the suite could not start its own Neo4j: {e}"
        yield
        return
    _neo4j["uri"] = info.bolt_uri
    try:
        yield
    finally:
        dbserver.stop(home)


def neo4j_store(request):
    request.getfixturevalue("_session_neo4j")  # found or started on first use
    if "uri" not in _neo4j:
        if os.environ.get("CI"):
            pytest.fail(f"CI needs a real Neo4j: {_neo4j.get('why')}")
        pytest.skip(_neo4j.get("why", "no Neo4j"))
    # Wiped before it is opened (a test may leave anything behind, even a store codewalk would refuse),
    # but only if the suite claimed the database: never a user's data.
    try:
        neo4j_owner.wipe(_neo4j["uri"])
    except neo4j_owner.NotOurs as e:
        pytest.fail(str(e))
    return open_store(_neo4j["uri"])


@pytest.fixture(params=["ladybug", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def store(request, tmp_path):
    s = open_store(tmp_path / "graph.lbug") if request.param == "ladybug" else neo4j_store(request)
    yield s
    s.close()


@pytest.fixture
def neo4j(request):
    """A real Neo4j store alone, for tests that compare it with the embedded one."""
    s = neo4j_store(request)
    yield s
    s.close()


@pytest.fixture
def store_path(tmp_path):
    """A store location for CLI tests, on the same two stores."""
    return str(tmp_path / "cli.lbug")


@pytest.fixture
def neo4j_http(neo4j) -> str:
    """The HTTP address (Neo4j Browser) of the test Neo4j. For the Neo4j at CODEWALK_TEST_NEO4J:
    CODEWALK_TEST_NEO4J_HTTP (default http://127.0.0.1:7474). For a server this suite started: the
    address it listens on, as it says itself."""
    if _neo4j["uri"] == NEO4J_URI:
        return os.environ.get("CODEWALK_TEST_NEO4J_HTTP", "http://127.0.0.1:7474")
    rows = neo4j.run("SHOW SETTINGS YIELD name, value WHERE name = 'server.http.listen_address' RETURN value")
    return f"http://{rows[0]['value']}"


@pytest.fixture(scope="session")
def _demo_graph(tmp_path_factory):
    """`cw demo` (3 admitted tasks per level), built once per session on the embedded store."""
    from codewalk.demo import run_demo

    path = tmp_path_factory.mktemp("demo") / "demo.lbug"
    with open_store(path) as store:
        run_demo(store, count=3)
    return path


@pytest.fixture
def demo_store_path(_demo_graph, tmp_path):
    """A private copy of the demo graph, which a test may change."""
    import shutil

    path = tmp_path / "demo.lbug"
    shutil.copyfile(_demo_graph, path)
    return path


def pytest_collection_modifyitems(items):
    """A test that asks for Neo4j by fixture carries the `neo4j` marker, so `-m "not neo4j"` leaves it out."""
    for item in items:
        if {"neo4j", "neo4j_http"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.neo4j)


# -- the docker runtime's tests ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def daemon() -> None:
    """A Docker daemon answers (skip without one; fail under CI)."""
    docker_runtime.require()


@pytest.fixture(scope="module")
def fixture(tmp_path_factory) -> repair_fixture.Fixture:
    """The tally repository (tests/repair_fixture.py), built once per module."""
    return repair_fixture.build(tmp_path_factory.mktemp("tally"))
