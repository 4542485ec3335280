"""`cw db`: the local Neo4j server (start, stop, status) and Neo4j's offline importer into it (import).
Thin, as the rest of `cw` (codewalk/cli.py, whose main() turns a CodewalkError into a message and an exit
code): each command parses, calls one library function and prints."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from . import dbserver, paths
from .cli_output import JsonOpt, PullOpt, RuntimeOpt, err, out, parse_params, print_json, print_load, table
from .errors import ServerError

db_app = typer.Typer(help="Start, stop and inspect a local Neo4j 5.26 (Docker if available, else Java).",
                     no_args_is_help=True)


def _db_home() -> Path:
    return paths.neo4j_home()


def _server_rows(info) -> list[dict[str, Any]]:
    return [{"what": k, "value": v} for k, v in (
        ("runs as", info.kind), ("bolt", info.bolt_uri), ("http", info.http_uri), ("browser", info.browser_url),
        ("data persists", "yes" if info.persist else "no (deleted on stop)"),
        ("auth", f"user {dbserver.USER}, password in {info.password_file} (yours only)" if info.auth
         else "off (--no-auth): anyone on this machine can read and change the graph"),
        ("pid", info.pid), ("log", info.log_path))]


@db_app.command("start")
def db_start(
    persist: Annotated[bool, typer.Option(help="Keep the data across restarts.")] = False,
    bolt_port: Annotated[int, typer.Option(help="Bolt port.")] = 7687,
    http_port: Annotated[int, typer.Option(help="HTTP / Browser port.")] = 7474,
    timeout: Annotated[float, typer.Option(help="Seconds to wait for the server to answer.")] = 180,
    auth: Annotated[bool, typer.Option(
        "--auth/--no-auth", help="--no-auth: no password (the old behaviour): any local user or process can read "
                                 "and change the graph.")] = True,
    as_json: JsonOpt = False,
) -> None:
    """Start a local Neo4j 5.26: with Docker when an engine answers, else with Java 17 + Maven. Its state,
    log and data live in $CODEWALK_NEO4J_HOME (default ~/.codewalk/neo4j). Authentication is on: the user
    neo4j's password is made once and kept in neo4j.password there, readable by you only; cw uses it by
    itself for this server's address."""
    if not auth:
        err.print("[yellow]warning:[/] --no-auth: the server asks no password; any user or process of this "
                  "machine, and any web page open in a browser here (Bolt over WebSocket), can read, change and "
                  "delete the graph", highlight=False)
    info = dbserver.start(_db_home(), bolt_port=bolt_port, http_port=http_port, persist=persist, timeout=timeout,
                          auth=auth)
    if as_json:
        return print_json(info.__dict__)
    out.print(table("Neo4j started", _server_rows(info)))
    out.print(f"Use it: cw --store {info.bolt_uri} demo   (or export CODEWALK_STORE={info.bolt_uri})")


@db_app.command("stop")
def db_stop() -> None:
    """Stop the local Neo4j started by `cw db start`."""
    out.print("stopped" if dbserver.stop(_db_home()) else "no local Neo4j was running")


@db_app.command("status")
def db_status(as_json: JsonOpt = False) -> None:
    """Which Neo4j runs (Docker or Java), its URIs, and whether its data persists. Exits 5 when no local
    Neo4j is running, with or without --json (which then prints null)."""
    info = dbserver.status(_db_home())
    if as_json:
        print_json(info.__dict__ if info else None)
    elif info is None:
        out.print("no local Neo4j is running (start one with `cw db start`)")
    if info is None:
        raise typer.Exit(ServerError.exit_code)
    if as_json:
        return
    out.print(table("Neo4j", _server_rows(info) + [{"what": "running", "value": info.running}]))


@db_app.command("import")
def db_import(
    domain: Annotated[str, typer.Argument(metavar="DOMAIN", help="Domain name (see `cw domains`).")],
    source: Annotated[Path, typer.Argument(metavar="SOURCE", help="The source: a file or directory the domain's loader reads.")],
    option: Annotated[list[str], typer.Option("--opt", help="Loader option KEY=VALUE (repeatable), as for `cw load`.")] = [],  # noqa: B006
    runtime: RuntimeOpt = None,
    pull: PullOpt = True,
    as_json: JsonOpt = False,
) -> None:
    """Build the empty database of the Java server `cw db start` runs with Neo4j's own importer, several
    times faster than `cw load` for big graphs: the source is read and checked as `cw load` reads it, the
    server stopped, the database written offline and the server started again on it, its data kept from
    then on. Refuses any other server, or a database that holds atoms or tasks (`cw load` merges)."""
    from .loading import db_import as import_source

    options = {k: str(v) for k, v in parse_params(option).items()}  # argument errors before the server is touched
    summary = import_source(_db_home(), domain, source, options, runtime=runtime, pull=pull)
    if as_json:
        return print_json(summary.as_dict())
    print_load(summary, f"Imported into {summary.store} (the server now keeps its data: `cw db status`)")
