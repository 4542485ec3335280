"""`cw db start` serves Neo4j with a password: made once, kept beside the server's data in a file only the user
reads, set on the server at every start and never on a command line; a connection without it is refused, and
cw (load, walk, query, export, the Browser address) uses it by itself. The HTTP API answers no other web origin.
`--no-auth` is the old behaviour, with a warning.

The server is a real one of the test's own (the Java launcher, on free ports, in a fresh CODEWALK_NEO4J_HOME):
without Java and Maven the test skips saying so; under CI it fails."""

from __future__ import annotations

import json
import os
import stat
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from neo4j import GraphDatabase
from neo4j.exceptions import AuthError

from codewalk import dbserver
from codewalk.browser import provenance_url
from tests.conftest import _free_port
from tests.run_cw import cw

DEMO = str(Path(__file__).resolve().parents[1] / "loaders" / "demo_atoms.jsonl")


def _refused(uri: str, auth) -> bool:
    with GraphDatabase.driver(uri, auth=auth, connection_timeout=5) as driver:
        try:
            driver.verify_connectivity()
        except AuthError:
            return True
    return False


def _http(url: str, origin: str, method: str = "GET", body: bytes | None = None,
          auth: str | None = None) -> tuple[int, dict[str, str]]:
    headers = {"Origin": origin, "Content-Type": "application/json", "Accept": "application/json"}
    if auth:
        headers["Authorization"] = auth
    request = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, dict(answer.headers)
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers)


@pytest.fixture
def server(tmp_path, monkeypatch, capsys):
    """`cw db start --persist` in a fresh CODEWALK_NEO4J_HOME: its JSON status."""
    home = tmp_path / "neo4j"
    monkeypatch.setenv("CODEWALK_NEO4J_HOME", str(home))
    monkeypatch.setenv("CODEWALK_NEO4J_BACKEND", "java")
    monkeypatch.delenv("NEO4J_PASSWORD", raising=False)
    monkeypatch.delenv("NEO4J_USER", raising=False)
    code, out, err = cw(capsys, "db", "start", "--persist", "--bolt-port", str(_free_port()),
                        "--http-port", str(_free_port()), "--json")
    if code != 0:
        if os.environ.get("CI"):
            pytest.fail(f"CI needs `cw db start` to work: {err}")
        pytest.skip(f"cannot start a Neo4j of our own here (Java 17 and Maven): {err.strip()[-300:]}")
    try:
        yield json.loads(out)
    finally:
        cw(capsys, "db", "stop")


@pytest.mark.neo4j
def test_cw_db_start_asks_a_password_only_the_user_can_read_and_cw_uses_it(server, tmp_path, capsys, monkeypatch):
    uri, home = server["bolt_uri"], Path(os.environ["CODEWALK_NEO4J_HOME"])
    path = Path(server["password_file"])
    assert server["auth"] is True and path.parent == home.resolve()  # beside the server's data
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    password = path.read_text().strip()
    assert len(password) >= 24
    assert password.encode() not in Path(f"/proc/{server['pid']}/cmdline").read_bytes()  # others read command lines

    # refused: no password, a wrong one
    assert _refused(uri, None) and _refused(uri, ("neo4j", "neo4j")) and _refused(uri, ("neo4j", password + "x"))
    assert not _refused(uri, ("neo4j", password))

    # cw finds the password of the server `cw db start` runs, by itself
    outputs = []
    for args in (("load", "demo", DEMO), ("walk", "--n", "2", "--count", "1", "--seed", "3", "--json")):
        code, out, err = cw(capsys, "--store", uri, *args)
        assert code == 0, err
        outputs += [out, err]
    task = json.loads(outputs[-2])["admitted_ids"][0]
    code, out, err = cw(capsys, "--store", uri.replace("127.0.0.1", "localhost"), "query",
                        "MATCH (t:Task {status: 'admitted'}) RETURN count(t) AS n", "--json")
    assert code == 0 and json.loads(out) == [{"n": 1}], err
    code, out, err = cw(capsys, "--store", uri, "tasks", "export", "--domain", "demo", "--out",
                        str(tmp_path / "tasks.jsonl"), "--json")
    assert code == 0 and json.loads(out)["tasks"] == 1, err
    outputs += [out, err]
    # the Browser address names the user and asks the password, which no address carries
    code, out, err = cw(capsys, "--store", uri, "tasks", "show", task, "--browser", "--json")
    assert code == 0, err
    urls = json.loads(out)
    port = uri.rsplit(":", 1)[1]
    assert f"dbms=bolt://neo4j@127.0.0.1:{port}&preselectAuthMethod=BASIC&" in urls["provenance"]
    assert f"dbms=bolt://neo4j@127.0.0.1:{port}&preselectAuthMethod=BASIC" in server["browser_url"]
    outputs += [out, err]
    assert not any(password in text for text in outputs)

    # another user's cw (no password file of this server's) is refused, with a message that says what to do
    monkeypatch.setenv("CODEWALK_NEO4J_HOME", str(tmp_path / "elsewhere"))
    code, _, err = cw(capsys, "--store", uri, "tasks", "list")
    assert code == 4 and "asks for a password and none was given" in err and "NEO4J_PASSWORD" in err
    monkeypatch.setenv("NEO4J_PASSWORD", password)
    code, _, err = cw(capsys, "--store", uri, "tasks", "list")
    assert code == 0, err
    monkeypatch.setenv("CODEWALK_NEO4J_HOME", str(home))
    monkeypatch.delenv("NEO4J_PASSWORD")

    # the HTTP API: no answer without the password, and none readable by a page of another origin
    http = server["http_uri"]
    tx = f"{http}/db/neo4j/tx/commit"
    body = json.dumps({"statements": [{"statement": "MATCH (t:Task) RETURN count(t)"}]}).encode()
    assert _http(tx, http, "POST", body)[0] == 401
    status, headers = _http(tx, "http://evil.example", "POST", body, auth=_basic(password))
    allowed = {k.lower(): v for k, v in headers.items()}.get("access-control-allow-origin")
    assert status == 200 and allowed == http  # its own origin only: a browser withholds the answer from evil.example
    status, headers = _http(tx, "http://evil.example", "OPTIONS")
    assert {k.lower(): v for k, v in headers.items()}.get("access-control-allow-origin") in (None, http)

    # a restart keeps the password (the file), and sets it again on the persisted store
    code, _, err = cw(capsys, "db", "stop")
    assert code == 0, err
    code, out, err = cw(capsys, "db", "start", "--persist", "--bolt-port", port, "--http-port",
                        http.rsplit(":", 1)[1], "--json")
    assert code == 0, err
    assert path.read_text().strip() == password and _refused(uri, None) and not _refused(uri, ("neo4j", password))
    code, out, err = cw(capsys, "--store", uri, "query", "MATCH (t:Task {status: 'admitted'}) RETURN count(t) AS n", "--json")
    assert code == 0 and json.loads(out) == [{"n": 1}], err


def _basic(password: str) -> str:
    import base64

    return "Basic " + base64.b64encode(f"neo4j:{password}".encode()).decode()


def test_no_auth_is_asked_for_and_warned_about(tmp_path, capsys, monkeypatch):
    """--no-auth says what it gives away before anything starts (here the port is taken, so nothing does)."""
    import socket

    monkeypatch.setenv("CODEWALK_NEO4J_HOME", str(tmp_path / "neo4j"))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        code, _, err = cw(capsys, "db", "start", "--no-auth", "--bolt-port", str(taken.getsockname()[1]))
    flat = " ".join(err.split())
    assert code == 5 and "warning: --no-auth" in flat and "any user or process of this machine" in flat
    assert not (tmp_path / "neo4j" / dbserver.PASSWORD_FILE).exists()


def test_a_password_file_readable_by_others_is_made_private_and_a_short_one_refused(tmp_path):
    home = tmp_path / "neo4j"
    home.mkdir()
    made = dbserver._password(home)
    assert stat.S_IMODE(made.stat().st_mode) == 0o600 and made.name == dbserver.PASSWORD_FILE
    made.chmod(0o644)
    assert dbserver._password(home) == made and stat.S_IMODE(made.stat().st_mode) == 0o600
    made.write_text("short\n")
    with pytest.raises(dbserver.ServerError, match="shorter than 8"):
        dbserver._password(home)


def test_the_browser_address_of_a_server_with_a_password_names_the_user_and_never_a_password():
    url = provenance_url("http://127.0.0.1:7474", "bolt://127.0.0.1:7687", "t1", user="neo4j")
    assert url.startswith("http://127.0.0.1:7474/browser/?dbms=bolt://neo4j@127.0.0.1:7687&preselectAuthMethod=BASIC&")
    assert dbserver.browser_url("http://h:1", "bolt://h:2").endswith("?dbms=bolt://h:2&preselectAuthMethod=NO_AUTH")
