"""`cw tasks show ID --browser`: one Neo4j Browser address that connects, applies codewalk's style and
puts the provenance query of one task in the editor, ready to run.

What Neo4j Browser 5 takes in its address (read from the Browser the server ships, 5.24):
`dbms=` (or the older `connectURL=`) and `preselectAuthMethod=NO_AUTH` connect without a form (a server
that asks a password: `dbms=bolt://USER@host:port` and `preselectAuthMethod=BASIC` fill the form but the
password, which an address never carries), and
`cmd=edit&arg=TEXT` fills the editor with TEXT. Of the `cmd`s only `play` and `guide` run by themselves,
and they show a guide (HTML fetched from an allow-listed host), never a query; so the text is a
multi-statement script that one press of Run (or Ctrl+Enter) executes in order:

    :config autoComplete: false     Browser draws only what the query returns, not every relation edge
                                    between the atoms ("Connect result nodes" in its settings)
    :style {...}                    codewalk.grass as JSON (Browser takes either form)
    :param id => 'T';               the task
    MATCH ... RETURN t, c, a, r, run    cypher/explore/provenance.cypher (or provenance_relations)

Browser reads `arg` out of the decoded address up to the next `&` or `#`, so the script holds neither:
the style's colours go in as rgb(), and the Cypher files used here contain no `&` or `#`.
"""

from __future__ import annotations

import json
import re
from importlib.resources import files
from typing import Any
from urllib.parse import quote, urlsplit

from .cypher_files import query
from .errors import CodewalkError, UsageError

QUERIES = {False: "explore/provenance", True: "explore/provenance_relations"}


def grass() -> dict[str, dict[str, str]]:
    """codewalk.grass (cypher/codewalk.grass, also browser/codewalk.grass) as {selector: {property: value}}."""
    text = files("codewalk.cypher").joinpath("codewalk.grass").read_text(encoding="utf-8")
    style: dict[str, dict[str, str]] = {}
    for selector, body in re.findall(r'([\w.]+)\s*\{((?:[^}"]|"[^"]*")*)\}', text):
        props = style.setdefault(selector, {})
        for key, value in re.findall(r'([\w-]+)\s*:\s*("[^"]*"|[^;]+);?', body):
            props[key] = value.strip().strip('"')
    return style


def _rgb(value: str) -> str:
    m = re.fullmatch(r"#([0-9a-fA-F]{2})([0-9a-fA-F]{2})([0-9a-fA-F]{2})", value)
    return f"rgb({int(m[1], 16)}, {int(m[2], 16)}, {int(m[3], 16)})" if m else value


def setup_script() -> str:
    """Editor text that sets Browser up for codewalk, once per browser (Browser keeps its settings):
    draw only what a query returns (autoComplete off: Browser's "Connect result nodes") and apply
    codewalk's style on every connect (initCmd, in place of the welcome guide)."""
    style = {sel: {k: _rgb(v) for k, v in props.items()} for sel, props in grass().items()}
    command = f":style {json.dumps(style, separators=(',', ':'))}"
    return _checked(f":config autoComplete: false, initCmd: {json.dumps(command)}")


def provenance_script(task_id: str, relations: bool = False) -> str:
    """Editor text: the provenance query of one task as one statement, so Browser draws it.

    Browser draws a graph only for a single statement (a script of `:param` and a query shows a
    summary), and the address cannot set a parameter by itself; so the text is the Cypher file with
    `$id` given as a literal. The id is checked first: letters, digits, '_' and '-' only, nothing that
    could end the string."""
    if not re.fullmatch(r"[A-Za-z0-9_-]+", task_id):
        raise UsageError(f"not a task id: {task_id!r}")
    cypher = "\n".join(line for line in query(QUERIES[relations], "neo4j").splitlines()
                       if not line.startswith("//")).strip()
    return _checked(cypher.replace("$id", f"'{task_id}'"))


def _checked(script: str) -> str:
    if "&" in script or "#" in script:  # Browser would cut the text there
        raise ValueError("the text holds '&' or '#', which Browser's address cannot carry")
    return script


def setup_url(http_uri: str, bolt_uri: str, user: str | None = None) -> str:
    return _url(http_uri, bolt_uri, setup_script(), user)


def provenance_url(http_uri: str, bolt_uri: str, task_id: str, relations: bool = False,
                   user: str | None = None) -> str:
    """The Browser address: connect to `bolt_uri` (as `user`, asking only the password; without a form when
    None) and fill the editor with the query."""
    return _url(http_uri, bolt_uri, provenance_script(task_id, relations), user)


def _url(http_uri: str, bolt_uri: str, text: str, user: str | None = None) -> str:
    from .dbserver import browser_url

    return f"{browser_url(http_uri.rstrip('/'), quote(bolt_uri, safe=':/'), user)}&cmd=edit&arg={quote(text, safe='')}"


def http_address(store: Any, bolt_uri: str) -> str:
    """Where the server serves Browser: its advertised HTTP address (else its listening one), with the
    Bolt URI's host where the setting leaves the host out or binds every interface."""
    host = urlsplit(bolt_uri).hostname or "127.0.0.1"
    try:
        settings = {r["name"]: r["value"] for r in store.run(query("http_address", "neo4j"), {})}
    except CodewalkError:  # a server that does not show its settings (Aura, a restricted user)
        settings = {}
    if settings.get("server.http.enabled") == "false":
        raise UsageError("this Neo4j serves no HTTP (server.http.enabled=false), so no Browser")
    for name in ("server.http.advertised_address", "server.http.listen_address"):
        value = settings.get(name) or ""
        at, _, port = value.rpartition(":")
        if port.isdigit():
            return f"http://{host if at in ('', '0.0.0.0', '::', '[::]') else at}:{port}"
    return f"http://{host}:7474"


def addresses(store: Any, task_id: str, relations: bool = False, http: str | None = None) -> dict[str, str]:
    """Both Browser addresses for one task of a Neo4j store: `setup` (once per browser) and
    `provenance`. The HTTP address is `http` if given, else the local server's (`cw db start`) when
    the store is that server, else what the server says (see `http_address`)."""
    if store.dialect != "neo4j":
        raise UsageError("Neo4j Browser needs a Neo4j store: --store bolt://... (the embedded store has "
                         "no Browser; `cw query --name provenance --param id=...` shows the same rows)")
    if store.get_task(task_id) is None:
        raise UsageError(f"no task {task_id!r} in the store")
    bolt = store.location
    if http is None:
        from . import dbserver, paths

        local = dbserver.status(paths.neo4j_home())
        http = local.http_uri if local is not None and local.running and local.bolt_uri == bolt \
            else http_address(store, bolt)
    user = store.user  # the store's own login, the Browser's too (None: the server asks none)
    return {"setup": setup_url(http, bolt, user), "provenance": provenance_url(http, bolt, task_id, relations, user)}


def can_open() -> bool:
    """A graphical browser can be opened: a desktop session (macOS, Windows, or X/Wayland display).
    Without one, Python's webbrowser would start a text browser in the terminal instead."""
    import os
    import sys

    return sys.platform in ("darwin", "win32") or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
