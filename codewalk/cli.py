"""`cw`: a thin command line over the library. Each command parses, calls one library function and
prints a table (or JSON with --json). Errors from the library become one message and an exit code here."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
import typer.core
from rich.markup import escape
from rich.text import Text

from . import paths
from .cli_db import db_app  # cw db: start, stop, status, import
from .cli_output import JsonOpt, PullOpt, RuntimeOpt, err, out, parse_params, print_json, print_load, table
from .errors import CodewalkError, FewerAdmitted, Interrupted, UsageError
from .records import STATUSES, Reason

app = typer.Typer(
    help="Compositional coding benchmarks from verified atoms: a problem graph, random-extension walks, "
    "admission by real verifiers. Store: an embedded path (default ~/.codewalk/graph.lbug) or a "
    "bolt:// / neo4j:// URI.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
tasks_app = typer.Typer(help="List, show and export tasks (admitted, rejected or error).", no_args_is_help=True)
mine_app = typer.Typer(help="Mine atoms from a repository's own history.", no_args_is_help=True)
data_app = typer.Typer(help="The real datasets (CodeComplex, FEMPD, Verus-Bench, ACSL by Example): where codewalk "
                       "looks, whether they are the pinned ones, and fetching them from upstream.",
                       no_args_is_help=True)


class _DefaultGroup(typer.core.TyperGroup):
    """A group whose first word, when it names none of its commands, starts its default command:
    `cw grade FILE --domain D` is `cw grade predictions FILE --domain D`, beside `cw grade report`."""

    default = "predictions"

    def parse_args(self, ctx, args):
        if args and args[0] not in self.commands and args[0] not in ctx.help_option_names:
            args = [self.default, *args]
        return super().parse_args(ctx, args)


grade_app = typer.Typer(
    cls=_DefaultGroup, no_args_is_help=True,
    help="`cw grade PREDICTIONS.jsonl --domain D`: grade a model's outputs with the verifier that admitted the "
         "tasks (`cw grade predictions --help` for its options). `cw grade report --domain D`: the paper's "
         "analysis of the stored grades.")
app.add_typer(tasks_app, name="tasks")
app.add_typer(db_app, name="db")
app.add_typer(mine_app, name="mine")
app.add_typer(data_app, name="data")
app.add_typer(grade_app, name="grade")
train_app = typer.Typer(help="Training data from graded agent runs (the paper's RFT, App. C).", no_args_is_help=True)
app.add_typer(train_app, name="train")

# Verifiers are processes: by default one per core (the same tasks come out for any number).
CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1  # given us
BULK_HINT = 100_000  # atoms: above this a Neo4j load through UNWIND upserts takes minutes (bench/README.md)
WorkersOpt = Annotated[int, typer.Option(min=1, help="Verifier processes (default: one per core).", show_default=False)]


@app.callback()
def _global(
    ctx: typer.Context,
    store: Annotated[str | None, typer.Option(
        "--store", envvar="CODEWALK_STORE", show_envvar=True,
        help="Embedded store path, or bolt://host:7687 / neo4j+s://... (credentials: NEO4J_USER, NEO4J_PASSWORD).",
    )] = None,
    wait: Annotated[bool, typer.Option(
        "--wait", envvar="CODEWALK_WAIT", show_envvar=True,
        help="An embedded store another process holds (a load, a walk): wait until it is free, saying which "
             "process it waits for, rather than exit 4.")] = False,
    version: Annotated[bool, typer.Option("--version", help="Print codewalk's version and exit.",
                                          callback=lambda v: _version(v), is_eager=True)] = False,
) -> None:
    ctx.obj = {"store": store, "wait": wait}


def _version(wanted: bool) -> None:
    if wanted:
        from . import __version__

        out.print(f"codewalk {__version__}")
        raise typer.Exit()


def _store(ctx: typer.Context, wait: bool = False, reads: bool = False):
    """The store --store names; `wait` (or --wait): one another process holds is waited for; `reads` (a command
    that only reads): one another process holds is read as committed so far."""
    from .store import open_store

    return open_store(ctx.obj["store"], wait=wait or ctx.obj["wait"], reads=reads,
                      on_wait=lambda line: err.print(escape(line), highlight=False, soft_wrap=True))


# -- demo, load, walk -------------------------------------------------------------------------------
@app.command()
def demo(
    ctx: typer.Context,
    seed: Annotated[int, typer.Option(help="Seed of the walks (level N uses seed + N).")] = 0,
    count: Annotated[int, typer.Option(min=1, help="Admitted tasks wanted per level.")] = 5,
    workers: WorkersOpt = CORES,
    as_json: JsonOpt = False,
) -> None:
    """Build the demo graph (tiny buggy Python functions chained by type), walk it at N = 1, 2, 3 and
    admit tasks with a verifier that really runs. Prints the admission table and where the store is."""
    from .demo import run_demo

    with _store(ctx) as store, _progress("demo") as on_task:
        loaded, runs, note = run_demo(store, seed=seed, count=count, workers=workers, on_task=on_task)
        rows = [_yield_row(r) for r in runs]
    if note:
        err.print(f"[yellow]note:[/] {escape(note)}")
    if as_json:
        return print_json({"load": loaded.as_dict(), "runs": [r.as_dict() for r in runs]})
    out.print(f"Loaded {loaded.atoms} demo atoms, {sum(loaded.edges.values())} FEEDS edges "
              f"in {loaded.seconds:.1f}s.")
    out.print(table("Admission by level (this run)", rows))
    out.print(f"Store: {loaded.store}")
    out.print("Next: cw tasks list --domain demo · cw tasks show ID · cw query \"MATCH (t:Task) RETURN t.status, count(*)\"")


@app.command("load")
def load_cmd(
    ctx: typer.Context,
    domain: Annotated[str, typer.Argument(metavar="DOMAIN", help="Domain name (see `cw domains`).")],
    source: Annotated[Path, typer.Argument(metavar="SOURCE", help="The source: a file or directory the domain's loader reads.")],
    option: Annotated[list[str], typer.Option("--opt", help="Loader option KEY=VALUE (repeatable), e.g. repair: "
                                                            "repos=DIR, a folder of git clones named owner__name.")] = [],
    workers: Annotated[int | None, typer.Option(
        min=1, show_default=False, help="Processes of a loader that verifies each record (complexity; "
                                        "--opt workers=K is the same): default one per core.")] = None,
    runtime: RuntimeOpt = None,
    pull: PullOpt = True,
    as_json: JsonOpt = False,
) -> None:
    """Load atoms and their relation edges into the store, in one transaction. Re-loading is idempotent; a
    malformed record fails the load with its file and line, and the store is left as it was."""
    from .loading import load_briefly

    options = {k: str(v) for k, v in parse_params(option).items()}  # argument errors before the store opens
    if workers is not None:
        from .domain import get_domain

        if "workers" not in {o.name for o in get_domain(domain).load_options}:
            raise UsageError(f"the {domain} loader verifies nothing while loading: --workers is for one that does "
                             "(complexity)")
        options.setdefault("workers", str(workers))
    with _Bar(f"load {domain}", interrupted="interrupted: nothing of this load was written") as on_count:
        summary = load_briefly(lambda wait: _store(ctx, wait), domain, source, options, runtime=runtime, pull=pull,
                               on_progress=on_count)
    if "://" in summary.store and summary.atoms >= BULK_HINT:  # Neo4j
        err.print(f"hint: {summary.atoms:,} atoms went through UNWIND upserts (any server); into a fresh "
                  "database of the server `cw db start` runs, `cw db import` uses Neo4j's importer, "
                  "several times faster")
    if as_json:
        return print_json(summary.as_dict())
    print_load(summary, f"Loaded into {summary.store}")


@app.command()
def walk(
    ctx: typer.Context,
    n: Annotated[int, typer.Option("--n", "--level", min=1, help="Level N: atoms per group (--level, as in "
                                                                  "`cw tasks list`, is the same option).")],
    domain: Annotated[str | None, typer.Option(help="Domain; inferred when only one is loaded.")] = None,
    count: Annotated[int, typer.Option(min=1, help="Admitted tasks wanted.")] = 10,
    max_attempts: Annotated[int | None, typer.Option(help="Stop after this many attempts (default: 20 x count).")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed; the same seed and graph give the same groups.")] = None,
    workers: WorkersOpt = CORES,
    executor: Annotated[str | None, typer.Option(
        help="Where verifiers run: local (a process pool of --workers, the default), dask://HOST:PORT "
             "(a Dask distributed scheduler whose workers have codewalk installed) or dask-local.")] = None,
    option: Annotated[list[str], typer.Option("--opt", help="Walk option KEY=VALUE of the domain (repeatable), "
                                                            "e.g. proofs: backend=acsl|verus.")] = [],
    runtime: RuntimeOpt = None,
    pull: PullOpt = True,
    as_json: JsonOpt = False,
) -> None:
    """Random-extension walks of level N; each group is composed and admitted only if every atom is still
    unsolved in the composite and the joint reference passes the verifier. Every attempt is stored as a Task."""
    from .admission import walk_and_admit

    options = {k: str(v) for k, v in parse_params(option).items()}  # argument errors before the store opens
    with _store(ctx) as store:
        domain = domain or _only_domain(store)
        with _progress("walk", total=count) as on_task:
            summary = walk_and_admit(store, domain, n, count, seed=seed, max_attempts=max_attempts,
                                     workers=workers, on_task=on_task, executor=executor, options=options,
                                     runtime=runtime, pull=pull)
    if as_json:
        print_json(summary.as_dict())
    else:
        out.print(table(f"Walk {summary.run} (seed {summary.seed}, {summary.seconds:.1f}s)", [_yield_row(summary)]))
    if summary.admitted < count:
        why = (f"every group the walks find at N={n} has been attempted: the graph is used up at this level "
               f"(the walks found an attempted group {summary.redrawn:,} times; {summary.skipped} of those "
               "groups were attempted by earlier runs)"
               if summary.used_up else "raise --max-attempts for more")
        raise FewerAdmitted(f"admitted {summary.admitted} of {count} wanted after {summary.attempted} attempts, "
                            f"all stored ({why})")


def _only_domain(store) -> str:
    loaded = store.domains()
    if len(loaded) == 1:
        return next(iter(loaded))
    if not loaded:
        raise UsageError("the store holds no atoms yet: run `cw load DOMAIN SOURCE` or `cw demo`")
    raise UsageError(f"several domains are loaded, choose one with --domain: {', '.join(sorted(loaded))}")


def _yield_row(s) -> dict[str, Any]:
    rejected = {r: c for r, c in s.by_reason.items() if r not in (Reason.ADMITTED, Reason.INFRA_ERROR)}
    return {"level": s.level, "attempted": s.attempted, "admitted": s.admitted,
            "rejected": sum(rejected.values()),
            "by reason": ", ".join(f"{r} {c}" for r, c in sorted(rejected.items())) or "-",
            "errors": s.by_reason.get(Reason.INFRA_ERROR, 0), "skipped": s.skipped,
            # how much of the workers' time the verifiers (and other tools) took: the rest is codewalk's
            "in tools": f"{s.cost.busy:.1f}s ({share:.0%})" if (share := s.cost_report()["in_processes_share"]) else "-"}


PLAIN_EVERY = 30.0  # seconds between progress lines when stderr is not a terminal (CODEWALK_PROGRESS_EVERY)


class _Bar:
    """Progress on stderr for work that reports (done, total); entered, it gives that callback. On a terminal
    (or with CODEWALK_PROGRESS set) a rich bar; otherwise (a log file, a pipe) a plain line every
    CODEWALK_PROGRESS_EVERY seconds and one at the end, once there is progress to tell. Ctrl-C inside it
    becomes one clear message."""

    def __init__(self, label: str, total: int | None = None,
                 interrupted: str = "interrupted: the grades finished so far are saved"):
        import threading
        import time

        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.label, self.total, self.interrupted = label, total, interrupted
        self.plain = not err.is_terminal and not os.environ.get("CODEWALK_PROGRESS")
        self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("{task.fields[status]}"), TimeElapsedColumn(), console=err,
                            disable=self.plain)
        self.task = self.bar.add_task(label, total=total, status="")
        self.state: dict[str, Any] = {"description": label, "completed": None, "total": total, "status": ""}
        self.started, self.stopped = time.monotonic(), threading.Event()
        self.ticker = threading.Thread(target=self._tick, daemon=True)

    def update(self, **fields: Any) -> None:
        self.state |= fields
        self.bar.update(self.task, **fields)

    def __enter__(self):
        self._start()
        return lambda done, total: self.update(completed=done, total=total)

    def _start(self) -> None:
        self.bar.start()
        if self.plain:
            self.ticker.start()

    def _tick(self) -> None:
        every = max(float(os.environ.get("CODEWALK_PROGRESS_EVERY", PLAIN_EVERY)), 0.05)
        while not self.stopped.wait(every):
            self._line()

    def _line(self, end: str = "") -> None:
        """One plain progress line: what, how far, how long."""
        import time

        s = self.state
        if s["completed"] is None:
            return  # nothing reported yet
        seconds = int(time.monotonic() - self.started)
        parts = [f"{s['completed']:,} of {s['total']:,}" if s["total"] else "" if s["status"] else f"{s['completed']:,}",
                 s["status"]]
        told = ", ".join(p for p in parts if p)
        err.print(escape(f"{s['description']}: {told} ({seconds // 60}m{seconds % 60:02d}s{end})"),
                  highlight=False, soft_wrap=True)

    def message(self) -> str:
        return self.interrupted

    def __exit__(self, kind, value, tb) -> None:
        self.stopped.set()
        self.bar.stop()
        if self.plain:
            self.ticker.join()
            self._line(", done" if kind is None else ", stopped")
        if kind is KeyboardInterrupt:
            raise Interrupted(self.message())


class _progress(_Bar):
    """The bar of a walk, fed by the admission loop's per-task callback; its Ctrl-C message says what a
    rerun does."""

    summary = None

    def __enter__(self):
        self._start()

        def on_task(task, summary) -> None:
            self.summary = summary
            self.update(description=f"{self.label} N={summary.level}", completed=summary.admitted,
                        status=f"attempted {summary.attempted}, admitted {summary.admitted}")

        return on_task

    def message(self) -> str:
        return _interrupted(self.summary, self.total)


def _interrupted(summary, total: int | None) -> str:
    """What Ctrl-C left and exactly what a rerun does: `--count` is what a run admits, so the same command
    again admits that many more (groups attempted before are skipped, never redone)."""
    if total is None:
        return "interrupted: finished tasks are saved"
    attempted, admitted = (summary.attempted, summary.admitted) if summary else (0, 0)
    run = f" (run {summary.run})" if summary else ""
    left = total - admitted
    return (f"interrupted: {attempted} attempts saved, {admitted} admitted of --count {total}{run}. A rerun "
            f"admits --count more and skips groups already attempted: to reach {total}, rerun with --count "
            f"{left}" + ("" if left > 0 else " (nothing left)"))


# -- mine ---------------------------------------------------------------------------------------
@mine_app.command("repair")
def mine_repair(
    out_path: Annotated[Path, typer.Option("--out", help="Rows (JSON lines) to append to; OUT.state records "
                                                         "every commit decided, so a re-run resumes.")],
    repos: Annotated[list[str] | None, typer.Argument(
        metavar="REPO...", help="Git clones (paths) or URLs git can clone; several are mined in one run.",
        show_default=False)] = None,
    repos_file: Annotated[Path | None, typer.Option(
        "--repos", help="A file listing repositories to mine too: one a line (a path or URL, optionally "
                        "followed by its owner/name); '#' comments and blank lines are skipped.")] = None,
    since: Annotated[str, typer.Option(help="Only main-line commits from this date (ISO 8601).")] = "",
    until: Annotated[str, typer.Option(help="Only main-line commits up to this date (ISO 8601).")] = "",
    install_config: Annotated[str, typer.Option(
        help="SWE-rebench install_config for every candidate: JSON or a file holding it (default: inferred "
             "from the repository at each fix commit).")] = "",
    runs: Annotated[int, typer.Option(help="Runs of the tests before and after each gold patch; a test "
                                           "whose outcome changes is dropped as flaky.")] = 3,
    runtime: RuntimeOpt = None,
    pull: PullOpt = True,
    name: Annotated[str, typer.Option(help="owner/name for the rows of a single REPO (default: from the "
                                           "origin URL, else local/FOLDER).")] = "",
    workers: WorkersOpt = CORES,
    executor: Annotated[str | None, typer.Option(help="Where the candidates' tests run, as `cw walk "
                                                      "--executor` (local, dask-local, dask://HOST:PORT).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Bug instances from each REPO's main line: merges and direct commits touching tests and Python source (or a
    test-only commit with its author's source-only commits just before it), each split into gold and test
    patch and kept only if its tests fail before the gold patch and pass after it (each state run --runs
    times). Writes SWE-rebench rows that `cw load repair OUT` loads as they are; ends with what limited the
    yield and the largest level N a walk of the mined atoms can reach (no walk suggested below 2). Several
    repositories (REPO... and --repos) share the executor and end with one table, a line per repository."""
    from .domains.repair.mine import Source, mine_many, read_repos

    for repo in repos or []:  # not a URL: a missing path, as cw load says
        if ":" not in repo and not Path(repo).expanduser().exists():
            raise UsageError(f"repository not found: {repo} (a path to a git clone, or a URL)")
    sources = [Source(repo) for repo in repos or []] + (read_repos(repos_file) if repos_file else [])
    if not sources:
        raise UsageError("no repository to mine: give REPO or --repos FILE")
    if name:
        if len(sources) > 1:
            raise UsageError("--name names a single REPO; with several, write each one's owner/name after it "
                             "in --repos")
        sources = [Source(sources[0].source, name)]
    with _Bar("mine", interrupted="interrupted: every commit decided so far is saved; run the same command "
                                  "again to continue") as on_count:
        summaries = mine_many(sources, out_path, since=since, until=until, install_config=install_config,
                              runs=runs, runtime=runtime, pull=pull, workers=workers, executor=executor,
                              on_progress=lambda done, total, _: on_count(done, total))
    if len(summaries) > 1:
        return _mined_many(summaries, as_json)
    if as_json:
        return print_json(summaries[0].as_dict())
    s = summaries[0]
    account = s.account()
    for repository in dict.fromkeys(r["repository"] for r in account):  # what limited the yield, per repository
        title = (f"Mined {s.repo} into {s.out} ({s.seconds:.1f}s): what limited the yield" if repository == s.repo
                 else f"{repository}, mined into {s.out} earlier")
        out.print(table(title, [{k: v for k, v in r.items() if k != "repository"} for r in account
                                if r["repository"] == repository]))
    out.print(s.next_step())


def _mined_many(summaries: list[Any], as_json: bool) -> None:
    """Several repositories mined at once: one line each (--json: each one's whole summary)."""
    first = summaries[0]
    if as_json:
        return print_json({"out": first.out, "seconds": round(first.seconds, 1),
                           "repositories": [s.as_dict() for s in summaries]})
    out.print(table(f"Mined {len(summaries)} repositories into {first.out} ({first.seconds:.1f}s): kept atoms and "
                    "drops per repository", [s.line() for s in summaries]))
    best = max(summaries, key=lambda s: s.line()["largest N"])  # a walk stays in one repository
    out.print(best.next_step())


# -- tasks --------------------------------------------------------------------------------------
@tasks_app.command("list")
def tasks_list(
    ctx: typer.Context,
    domain: Annotated[str, typer.Option(help="Only this domain.")] = "",
    status: Annotated[str, typer.Option(help="admitted, rejected or error (default: all).")] = "",
    level: Annotated[int, typer.Option(help="Only this level N (0 = all).")] = 0,
    limit: Annotated[int, typer.Option(help="At most this many rows.")] = 50,
    as_json: JsonOpt = False,
) -> None:
    """Tasks with their level, status and reason, oldest first (the first --limit of them)."""
    if status not in ("", *STATUSES):
        raise UsageError(f"unknown --status {status!r}; choose one of {', '.join(STATUSES)}")
    with _store(ctx, reads=True) as store:
        rows = store.list_tasks(domain, status, level, limit)
        total = store.count_tasks(domain, status, level) if len(rows) == limit else len(rows)
    if as_json:
        return print_json(rows)
    title = f"{total} tasks" if total == len(rows) else f"showing {len(rows)} of {total} tasks (--limit)"
    # 80 columns: one domain goes in the title, the time to the minute (--json has it all)
    domains = {r["domain"] for r in rows}
    columns = ["id", "level", "status", "reason", "created"]
    if len(domains) == 1:
        title += f" of domain {next(iter(domains))}"
    else:
        columns.insert(1, "domain")
    out.print(table(title, [r | {"created": str(r.get("created_at") or "")[:16].replace("T", " ")} for r in rows],
                     columns))


@tasks_app.command("show")
def tasks_show(
    ctx: typer.Context,
    task_id: Annotated[str, typer.Argument(metavar="ID", help="Task id (from `cw tasks list`).")],
    browser: Annotated[bool, typer.Option(
        "--browser", help="Neo4j stores: print (and open, on a desktop) the Neo4j Browser address that "
                          "connects and holds this task's provenance query, ready to run.")] = False,
    relations: Annotated[bool, typer.Option(
        "--relations", help="With --browser: draw the relation edges among the atoms too.")] = False,
    http: Annotated[str | None, typer.Option(
        help="With --browser: the server's HTTP address (default: the local server's, or what the "
             "server says).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """One task: its atoms in order, status, reason, and the evidence of both admission checks. With
    --browser, the Neo4j Browser address that draws it instead."""
    if browser:
        return _show_in_browser(ctx, task_id, relations, http, as_json)
    with _store(ctx, reads=True) as store:
        task = store.get_task(task_id)
    if task is None:
        raise UsageError(f"no task {task_id!r} in the store")
    if as_json:
        return print_json(task)
    ev = task["evidence"]
    out.print(f"[bold]{task['id']}[/]  {escape(task['domain'])}  N={task['level']}  status={task['status']}  "
              f"reason={task['reason']}  run={task['run']}  seed={task['seed']}  {task['created_at']}")
    ref = ev.get("reference")
    out.print(Text("check (2) reference passes V_G: " +
                   ("not run" if ref is None else f"{'yes' if ref['passes'] else 'NO'}  {ref.get('detail', '')}")))
    per_atom = {a["position"]: a for a in ev.get("atoms", [])}
    rows = [{"position": i, "atom": a,
             "check (1) unsolved": ("not run" if i not in per_atom else "yes" if per_atom[i]["unsolved"] else "NO"),
             "detail": per_atom.get(i, {}).get("detail", "")} for i, a in enumerate(task["atoms"])]
    out.print(table("Atoms in order", rows))
    if "error" in ev:
        out.print(f"[red]infrastructure error:[/] {escape(ev['error'])}")
    if "compose" in ev:
        out.print(Text(f"composition rejected: {ev['compose']}"))


def _show_in_browser(ctx: typer.Context, task_id: str, relations: bool, http: str | None, as_json: bool) -> None:
    from .browser import addresses, can_open

    with _store(ctx, reads=True) as store:
        urls = addresses(store, task_id, relations, http)
    if as_json:
        return print_json(urls)
    out.print("Neo4j Browser, once per browser: open this address and press Run (Browser then applies "
              "codewalk's style on every connect and draws only what a query returns):")
    out.print(Text(urls["setup"]), soft_wrap=True)
    out.print(f"The provenance of {task_id}: open this address and press Run:")
    out.print(Text(urls["provenance"]), soft_wrap=True)
    if can_open():
        import webbrowser

        webbrowser.open(urls["provenance"])


@tasks_app.command("export")
def tasks_export(
    ctx: typer.Context,
    domain: Annotated[str, typer.Option(help="Domain to export (one schema per domain).")],
    out_path: Annotated[Path, typer.Option("--out", help="Output file, or folder for --format hf.")],
    fmt: Annotated[str, typer.Option("--format", help="jsonl, parquet, hf (a Hugging Face dataset folder) or "
                                                      "inspect (inspect_ai samples as JSONL).")] = "jsonl",
    level: Annotated[int, typer.Option(help="Only this level N (0 = all).")] = 0,
    status: Annotated[str, typer.Option(help="admitted, rejected or error.")] = "admitted",
    as_json: JsonOpt = False,
) -> None:
    """Write tasks as a benchmark: each row has the task id, level, ordered atom ids, prompt, reference, the
    verifier spec grading needs, and seed, run, generator version and data revision to reproduce it. Refuses
    an empty selection or a task stored incompletely."""
    from .export import export_tasks

    with _store(ctx, reads=True) as store:
        summary = export_tasks(store, domain, out_path, fmt, level, status)
    if as_json:
        return print_json(summary.as_dict())
    by_level = ", ".join(f"N={n}: {c}" for n, c in summary.by_level.items())
    out.print(table(f"Exported to {summary.path}", [{"domain": summary.domain, "format": summary.format,
                                                      "tasks": summary.tasks, "by level": by_level}]))


# -- explore, grade ----------------------------------------------------------------------------------
@app.command()
def explore(
    ctx: typer.Context,
    domain: Annotated[str | None, typer.Option(help="Only this domain (default: all in the store).")] = None,
    samples: Annotated[int, typer.Option(help="Random walks behind the estimates and the chain search.")] = 1000,
    seed: Annotated[int, typer.Option(help="Seed of those walks.")] = 0,
    plots: Annotated[Path | None, typer.Option(help="Write PNG figures into this folder.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """How connected the problem graph is, computed in the store: atoms and edges, connected components,
    degrees, how many groups exist at each level N (exact for N <= 3, estimated beyond), the longest chains
    found, the largest level the graph supports, and the admission yield by level of the stored tasks."""
    from .explore import explore as explore_graph

    with _store(ctx, reads=True) as store:
        reports = explore_graph(store, domain, samples, seed, plots)
    if as_json:
        return print_json([r.as_dict() for r in reports])
    for r in reports:
        _print_explore(r)


def _print_explore(r) -> None:
    from .explore import components_summary

    edges = ", ".join(f"{rel} {n:,}" for rel, n in r.edges.items() if n)
    out.print(f"[bold]{escape(r.domain)}[/]: {r.atoms:,} atoms; edges: {edges or 'none'}; {r.walk} walks on "
              f"{r.relation}; {components_summary(r)}")
    out.print(table("Groups of N atoms (exact, or estimated ± std. error)", [
        {"level": g["level"], "exact": "" if g["exact"] is None else f"{g['exact']:,}",
         "estimate": "" if g["estimate"] is None else f"{g['estimate']:,.0f} ± {g['stderr']:,.0f}"}
        for g in r.groups]))
    out.print(table("Degree distribution (atoms per range of degrees)", _degree_bins(r.degrees)))
    if r.longest_chains:
        out.print(table("Longest chains found", [{"length": len(c), "chain": " -> ".join(c)}
                                                  for c in r.longest_chains]))
    out.print(f"Largest level the graph supports: N = {r.largest_level} ({r.largest_level_basis})")
    if r.yields:
        out.print(table("Admission yield by level (stored tasks)", r.yields))
    for path in r.plots:
        out.print(f"wrote {path}")


def _degree_bins(degrees: list[dict[str, int]]) -> list[dict[str, Any]]:
    """Degrees 0, 1, 2-3, 4-7, 8-15, ...: a real graph has hundreds of distinct degrees."""
    bins: dict[int, dict[str, Any]] = {}
    for row in degrees:
        k = row["degree"]
        low = 0 if k == 0 else 1 << (k.bit_length() - 1)
        entry = bins.setdefault(low, {"degree": str(low) if low < 2 else f"{low}-{2 * low - 1}"})
        for name, count in row.items():
            if name != "degree":
                entry[name] = entry.get(name, 0) + count
    return [bins[low] for low in sorted(bins)]


@grade_app.command("predictions", short_help="Grade a model's outputs (the default: `cw grade FILE` is "
                                              "`cw grade predictions FILE`).")
def grade(
    ctx: typer.Context,
    predictions: Annotated[Path, typer.Argument(
        metavar="PREDICTIONS.jsonl", help="JSONL: task_id (or instance_id), output (or model_patch), optional model "
             "(or model_name_or_path).")],
    domain: Annotated[str, typer.Option(help="Domain of the tasks; its verifier grades.")],
    run: Annotated[str | None, typer.Option(help="Run name (default: the file name).")] = None,
    workers: WorkersOpt = CORES,
    plots: Annotated[Path | None, typer.Option(
        help="Draw solve rate against N, a line per run, into this folder.")] = None,
    require_isolation: Annotated[bool, typer.Option(
        "--require-isolation/--allow-unisolated",
        help="Refuse to grade where candidates cannot be isolated (no bubblewrap): the default, on every "
             "machine. --allow-unisolated runs them as you, unisolated, with a warning.",
        show_default=False)] = True,
    runtime: RuntimeOpt = None,
    pull: PullOpt = True,
    as_json: JsonOpt = False,
) -> None:
    """Grade a model's outputs with the same verifier that admitted the tasks; store the grades in the graph
    ((:Grade)-[:OF]->(:Task), one per run and task) and print the solve rate by level of every run so far."""
    from .grading import check_isolation, grade_predictions
    from .runtime import build

    if not predictions.exists():  # as cw load and cw mine say a missing input: usage, exit 2
        raise UsageError(f"predictions file not found: {predictions}")
    # a container isolates each run by itself: bubblewrap is the local runtime's isolation
    where = build(runtime, pull=pull, check=False)  # checked by grade_predictions, with the domain's runtimes
    warning = "" if where.containers else check_isolation(require_isolation)
    if warning:
        err.print(f"[yellow]warning:[/] {escape(warning)}")
    with _store(ctx) as store, _Bar(f"grade {run or predictions.stem}") as on_grade:
        report = grade_predictions(store, domain, predictions, run=run, workers=workers, plots=plots,
                                   on_grade=on_grade, runtime=where)
    if as_json:
        return print_json(report.as_dict())
    out.print(f"Graded {report.graded} predictions of run {report.run!r} in {report.seconds:.1f}s: "
              f"{report.passed} passed, {report.errors} without verdict (verifier error, counted as not solved).")
    rows = [{k: v for k, v in row.items() if k != "solve_rate"} | {
        "solved": "" if row["solve_rate"] is None else f"{row['solve_rate']:.1%}"} for row in report.rates]
    out.print(table(f"Solve rate by level, domain {report.domain} (tasks: admitted at that level)", rows))
    if report.by_class:
        out.print(table(f"Run {report.run!r}: accuracy by level and class",
                         [row | {"accuracy": f"{row['accuracy']:.1%}"} for row in report.by_class]))
    for path in report.plots:
        out.print(f"wrote {path}")


@grade_app.command("report", short_help="Solve rate by level, the p^N baseline and the interference share, "
                                         "from stored grades.")
def grade_report(
    ctx: typer.Context,
    domain: Annotated[str, typer.Option(help="Domain of the graded tasks.")],
    run: Annotated[str | None, typer.Option(
        help="Only this run (default: every run graded in the domain); with --per-attempt an inspect eval id "
             "takes every epoch of that eval.")] = None,
    plot: Annotated[Path | None, typer.Option(
        help="Draw solve rate against N with each run's p^N baseline into this PNG file.")] = None,
    per_attempt: Annotated[bool, typer.Option(
        "--per-attempt", help="App. C's measure instead: per-attempt success by model (or checkpoint) and level "
                              "over every graded attempt (K epochs = K grades per task), with pass@k.")] = False,
    k: Annotated[int, typer.Option(
        min=0, help="With --per-attempt: pass@k's k (default 0: the fewest attempts any task has).")] = 0,
    as_json: JsonOpt = False,
) -> None:
    """The paper's analysis of stored grades (Sec. 4.2), per run and level N: the solve rate; the
    independent-failure baseline p^N, p the run's N = 1 rate; the interference share: of the run's failed
    level-N tasks whose every atom has an isolated (N = 1) verdict in that run, those whose every atom was
    solved alone. With --per-attempt: per-attempt success and pass@k by model and level (App. C)."""
    from .report import grade_report as report_grades

    if per_attempt:
        return _per_attempt(ctx, domain, run or "", k, as_json)
    with _store(ctx, reads=True) as store:
        report = report_grades(store, domain, run or "", plot)
    if as_json:
        return print_json(report.as_dict())

    def pct(x: float | None) -> str:
        return "" if x is None else f"{x:.1%}"

    rows = [{"run": r.run, "model": r.model, "scaffold": r.scaffold or "-", "level": r.level, "graded": r.graded,
             "passed": r.passed, "failed": r.failed, "errors": r.errors, "solved": pct(r.solve_rate), "p^N": pct(r.baseline),
             "interference": "" if r.covered_failures is None else f"{r.interference}/{r.covered_failures}",
             "share": pct(r.interference_share)} for r in report.rows]
    out.print(table(f"Domain {report.domain}: solve rate by level, the p^N baseline (p: the run's N = 1 rate) "
                     "and interference (failures with every atom solved alone / failures with every atom "
                     "graded alone)", rows))
    if report.plot:
        out.print(f"wrote {report.plot}")


def _per_attempt(ctx: typer.Context, domain: str, run: str, k: int, as_json: bool) -> None:
    from dataclasses import asdict

    from .report import per_attempt_report

    with _store(ctx, reads=True) as store:
        rows = per_attempt_report(store, domain, run, k)
    if as_json:
        return print_json([asdict(r) for r in rows])
    pct = (lambda x: "" if x is None else f"{x:.1%}")
    out.print(table(f"Domain {domain}: per-attempt success by model and level (errors: no verdict, left out), "
                    "and pass@k over each task's attempts",
                    [{"model": r.model, "scaffold": r.scaffold or "-", "level": r.level, "tasks": r.tasks,
                      "attempts": r.attempts,
                      "passed": r.passed, "failed": r.failed, "errors": r.errors,
                      "per attempt": pct(r.per_attempt), "k": r.k, "pass@k": pct(r.pass_at_k)} for r in rows]))


# -- train ----------------------------------------------------------------------------------------
@train_app.command("export")
def train_export(
    ctx: typer.Context,
    logs: Annotated[list[Path], typer.Argument(metavar="LOGS...", help="inspect eval logs (.eval or .json) of "
                                               "agent runs whose grades are in the store.")],
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for trajectories.jsonl and manifest.json.")],
    release: Annotated[Path | None, typer.Option(
        help="A release folder: its splits.json refuses any trajectory of a held-out task or unit.")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the choice among a task's passing attempts.")] = 0,
    levels: Annotated[str | None, typer.Option(
        help="Only tasks of these levels, e.g. 1,2 (the curriculum's cumulative pools); default: all.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Successful trajectories by V_G's stored grade, at most one per task across LOGS, as chat rows with tool
    calls (OpenAI format) plus a manifest; each row is recorded in the graph as (:Trajectory)-[:OF]->(:Task)."""
    from .training import export_trajectories

    missing = [p for p in logs if not p.exists()]
    if missing:
        raise UsageError(f"log not found: {missing[0]}")
    if release is not None and not (release / "splits.json").is_file():
        raise UsageError(f"no splits.json in the release folder {release}")
    try:
        wanted = [int(n) for n in levels.split(",")] if levels else None
    except ValueError:
        raise UsageError(f"--levels takes levels separated by commas, e.g. 1,2; got {levels!r}") from None
    with _store(ctx) as store:
        report = export_trajectories(store, logs, out_dir, release=release, seed=seed, levels=wanted)
    if as_json:
        return print_json(report.as_dict())
    out.print(f"{len(report.rows)} trajectories (one per task) of {report.passed} passing attempts; "
              f"{report.attempts} attempts read, {report.ungraded} with no stored grade (not kept). "
              f"Wrote {out_dir / 'trajectories.jsonl'} and {out_dir / 'manifest.json'}.")
    if report.rows:
        by_level: dict[tuple[int, str], int] = {}
        for row in report.rows:
            by_level[(row["level"], row["split"])] = by_level.get((row["level"], row["split"]), 0) + 1
        out.print(table("Rows by level and split", [{"level": lv, "split": sp or "-", "rows": n}
                                                    for (lv, sp), n in sorted(by_level.items())]))
# -- release ---------------------------------------------------------------------------------------
class _ReleaseGroup(_DefaultGroup):
    default = "build"  # `cw release DOMAIN --out DIR` beside `cw release verify DIR`


release_app = typer.Typer(
    cls=_ReleaseGroup, no_args_is_help=True,
    help="`cw release DOMAIN --out DIR`: a benchmark release as the paper built it, walked to a plan's quotas "
         "(`cw release build --help` for its options). `cw release verify DIR`: re-check its files and "
         "every reference.")
app.add_typer(release_app, name="release")


@release_app.command("build", short_help="Walk each level of a plan to its quota and write the release folder.")
def release_build(
    ctx: typer.Context,
    domain: Annotated[str, typer.Argument(metavar="DOMAIN", help="Domain to release (see `cw domains`).")],
    out_dir: Annotated[Path, typer.Option("--out", help="The release folder (new, or empty).")],
    plan: Annotated[Path | None, typer.Option(
        help="The plan (TOML); default: the domain's, the paper's shape (codewalk/plans/DOMAIN.toml).")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of the walks (N uses seed + N), draws and splits; "
                                                  "default: the plan's.")] = None,
    workers: WorkersOpt = CORES,
    executor: Annotated[str | None, typer.Option(help="Where verifiers run, as `cw walk --executor`.")] = None,
    runtime: RuntimeOpt = None,
    pull: PullOpt = True,
    as_json: JsonOpt = False,
) -> None:
    """Walk each level of the plan until its quota of admitted tasks is met (tasks the store already admitted
    count once V_G passes their reference again today, a check kept in the home's cache; Ctrl-C and the same
    command again continue), stop a level the graph cannot fill with an account,
    then write a Hugging Face dataset (one Parquet file per split, the card), splits.json, report.md and
    manifest.json (versions, seeds, digests). The same graph, plan and seed give the same bytes."""
    from .release import build, read_plan

    chosen = read_plan(domain, plan, seed)  # the plan's faults before the store opens
    bar = _release_progress("release")
    with _store(ctx) as store, bar as (on_level, on_task, on_check):
        summary = build(store, chosen, out_dir, plan_path=plan, workers=workers, executor=executor,
                        runtime=runtime, pull=pull, on_level=on_level, on_task=on_task, on_check=on_check)
    if as_json:
        print_json(summary.as_dict())
    else:
        out.print(table(f"Release of {summary.domain} in {summary.out} (plan {chosen.digest[:19]}, seed "
                        f"{chosen.seed})", [{"level": a.n, "planned": a.wanted, "released": a.released,
                                             "admitted": a.admitted, "attempted": a.attempted,
                                             "walked now": a.walked, "reference fails today": a.stale}
                                            for a in summary.levels]))
        out.print("Splits: " + ", ".join(f"{k} {v}" for k, v in summary.splits.items()))
    if summary.short:
        raise FewerAdmitted("the release was written with fewer tasks than planned: "
                            + "; ".join(a.short for a in summary.short))


class _release_progress(_progress):
    """The walk's bar, level after level, and the recheck of admitted tasks between walks; plain lines say
    when each level starts and ends."""

    def __enter__(self):
        on_task = super().__enter__()
        level_n = [0]

        def on_level(level, account) -> None:
            level_n[0] = level.n
            if account is None:
                self.update(description=f"release N={level.n}", completed=0, total=level.pool, status="")
            elif self.plain:
                stale = f"; {account.stale} admitted before fail today's V_G" if account.stale else ""
                err.print(escape(f"release N={level.n}: {account.released} of {level.tasks} released "
                                 f"({account.admitted} admitted of {account.attempted} attempted{stale})"),
                          highlight=False, soft_wrap=True)

        def on_check(done, total) -> None:
            self.update(description=f"release N={level_n[0]}: recheck", completed=done, total=total,
                        status="admitted tasks against today's V_G")

        return on_level, on_task, on_check

    def message(self) -> str:
        return ("interrupted: every task admitted so far is stored; the same `cw release` again continues "
                "(it counts what the store holds and skips groups already attempted)")


@release_app.command("verify", short_help="Re-check a release: every file's sha256 and every reference against V_G.")
def release_verify(
    ctx: typer.Context,
    folder: Annotated[Path, typer.Argument(metavar="DIR", help="The release folder.")],
    runtime: RuntimeOpt = None,
    pull: PullOpt = True,
    as_json: JsonOpt = False,
    workers: WorkersOpt = 1,
) -> None:
    """Every file against manifest.json (missing, changed or unlisted: a mismatch); with --store (or
    CODEWALK_STORE), the input graph loaded there against the manifest's digest; and every task's reference
    graded by the domain's own V_G in a fresh domain instance. Exit 1 on any mismatch."""
    from contextlib import nullcontext

    from .release import ReleaseMismatch, verify

    inputs = _store(ctx, reads=True) if ctx.obj["store"] else nullcontext()
    with inputs as store, _Bar("verify", interrupted="interrupted: nothing was changed") as on_task:
        report = verify(folder, runtime=runtime, pull=pull, store=store, on_task=on_task, workers=workers)
    if as_json:
        print_json(report.as_dict())
    else:
        out.print(table("Files", [{"file": f["file"], "ok": "yes" if f["ok"] else "NO",
                                   "sha256": f["actual"] if f["ok"] else f"{f['actual']} (manifest: {f['expected']})"}
                                  for f in report.files]))
        out.print(table("References against V_G", [{"task": t["task"], "split": t["split"], "level": t["level"],
                                                    "status": t["status"], "detail": t["detail"]}
                                                   for t in report.tasks]))
    bad_files = sum(not f["ok"] for f in report.files)
    bad_tasks = sum(not t["ok"] for t in report.tasks)
    if bad_files or bad_tasks:
        raise ReleaseMismatch(f"{bad_files} file(s) and {bad_tasks} reference(s) of {folder} do not check out")
    if not as_json:
        out.print(f"{folder}: {len(report.files)} files and {len(report.tasks)} references check out")


# -- query, domains -------------------------------------------------------------------------------
@app.command()
def query(
    ctx: typer.Context,
    cypher: Annotated[str | None, typer.Argument(help="A Cypher statement (the store's dialect).")] = None,
    name: Annotated[str | None, typer.Option(
        "--name", help="Run a named query from cypher/explore/ instead (`cw query` alone lists them).")] = None,
    param: Annotated[list[str], typer.Option("--param", help="Query parameter KEY=VALUE (JSON values).")] = [],
    as_json: JsonOpt = False,
) -> None:
    """Run Cypher against the store and print the rows. The named queries (provenance of a task, tasks that
    share atoms, most reused atoms, components, yields by level, rejected groups by reason, solve rates) are
    files in cypher/explore/ that can also be pasted into Neo4j Browser."""
    from .queries import named_queries, run_checked, run_named

    if cypher and name:
        raise UsageError("give either a Cypher statement or --name, not both")
    if not (cypher or name):
        rows = [{"name": n, "shows": about} for n, about in named_queries().items()]
        if as_json:
            return print_json(rows)
        return out.print(table("Named queries (cw query --name NAME)", rows))
    params = parse_params(param)  # argument errors before the store opens
    with _store(ctx, reads=True) as store:
        rows = run_named(store, name, params) if name else run_checked(store, cypher or "", params)
    if as_json:
        return print_json(rows)
    out.print(table(f"{len(rows)} rows", rows) if rows else "0 rows")


@app.command()
def domains(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """Installed domains (entry-point group codewalk.domains) and how many atoms each has in the store."""
    from .domain import domain_names, get_domain

    with _store(ctx, reads=True) as store:
        loaded = store.domains()
    rows = []
    for name in domain_names():
        try:
            d = get_domain(name)
        except Exception as e:  # a broken plugin must not hide the others
            rows.append({"domain": name, "relation": "", "walk": "", "atoms": loaded.get(name, 0),
                         "about": f"unavailable: {e}"})
            continue
        rows.append({"domain": name, "relation": d.relation, "walk": "frontier" if d.symmetric else "chain",
                     "atoms": loaded.get(name, 0), "about": d.description})
    if as_json:
        return print_json(rows)
    out.print(table("Domains", rows))


# -- data ----------------------------------------------------------------------------------------
DatasetArg = Annotated[str, typer.Argument(help="A dataset name (codecomplex, fempd, verus-bench, acsl-bench) or all.")]


def _part_rows(statuses) -> list[dict[str, Any]]:
    rows = []
    for s in statuses:
        for p in s.parts:
            rows.append({"dataset": s.name, "part": p.name, "state": p.state,
                         "files": f"{p.files}/{p.expected_files}",
                         "pinned digest": p.expected_digest[:19] + "…",  # whole in --json and docs/datasets.md
                         "fetch": "rebuilds it" if p.reproducible else "cannot (see docs/datasets.md)"})
    return rows


@data_app.command("status")
def data_status(name: DatasetArg = "all", as_json: JsonOpt = False) -> None:
    """Each dataset: the folder codewalk reads ($CODEWALK_SHARED/data/NAME), and whether each part of it is
    there and matches the digest codewalk pins. Exits 8 unless every dataset asked for matches."""
    from .datasets import DatasetError, status

    found = status(name)
    if as_json:
        print_json([s.as_dict() for s in found])
    else:
        out.print(table(f"Datasets under {paths.shared() / 'data'} (CODEWALK_SHARED)",
                         [{"dataset": s.name, "state": s.state, "path": s.path} for s in found]))
        out.print(table("Parts", _part_rows(found)))
    if bad := [s for s in found if s.state != "matches"]:
        raise DatasetError("not the pinned data: " + ", ".join(f"{s.name} {s.state}" for s in bad)
                           + " (`cw data fetch NAME` gets it: docs/datasets.md)")


@data_app.command("fetch")
def data_fetch(
    name: DatasetArg,
    origin: Annotated[list[str], typer.Option(
        "--from", help="Where to get a source instead of https://github.com/OWNER/NAME: a local clone or bare "
        "mirror, or a URL. OWNER/NAME=PATH_OR_URL (repeat per source), or just PATH_OR_URL for a dataset "
        "with one source.")] = [],
    copy: Annotated[Path | None, typer.Option(
        "--copy", help="A copy to install from, checked against the pins: a dataset folder (e.g. a colleague's "
        "CODEWALK_SHARED/data/NAME), or with `all` a folder holding several (data/NAME or NAME). Every part "
        "the copy holds as pinned comes from it, with no upstream; upstream builds only what it lacks.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Build a dataset from its upstream repositories at the pinned commits (git fetch --depth 1, or read
    a local mirror), or take it from a copy (--copy), check it against the pinned digests, and only then
    move it into $CODEWALK_SHARED/data/NAME. A folder already there is left alone, and refused when it
    differs. Parts that cannot be rebuilt from upstream are named; --copy takes them from a copy, checked
    against their pins (docs/datasets.md). `all` tries every dataset, reports each, and exits 8 at the end
    if one failed."""
    from .datasets import DatasetError, copy_of, fetch, get, names, origins

    if origin and name == "all":
        raise UsageError("--from names the sources of one dataset: fetch them one by one")
    if copy is not None and not copy.is_dir():
        raise UsageError(f"--copy {copy}: no such folder")

    def log(line: str) -> None:
        err.print(line, highlight=False, soft_wrap=True)

    def copy_for(n: str) -> Path | None:
        if copy is None:
            return None
        found = copy_of(copy, n)
        if name != "all":
            return found or copy  # one dataset: the folder given is its copy
        if found is None:
            log(f"{n}: no copy in {copy} (neither data/{n} nor {n}): from upstream")
        return found

    results, failed = [], []
    for n in names(name):
        try:
            results.append(fetch(n, origins(origin, get(n)), log=log, copy_from=copy_for(n)))
        except DatasetError as e:  # the next dataset is still tried; the exit code says it at the end
            if name != "all":
                raise
            failed.append((n, str(e)))
            log(f"{n}: failed: {e}")
    if as_json:
        print_json([r.as_dict() for r in results] + [{"name": n, "action": "failed", "error": why}
                                                      for n, why in failed])
    else:
        rows = [{"dataset": r.name, "action": r.action, "state": r.status.state, "path": r.path} for r in results]
        rows += [{"dataset": n, "action": "failed", "state": "-", "path": "-"} for n, _ in failed]
        out.print(table("Fetched", sorted(rows, key=lambda r: r["dataset"])))
        for r in results:
            for why in r.not_reproduced:
                out.print(Text(f"{r.name}: not fetched: {why}"))
            if r.not_reproduced:
                out.print(Text(f"{r.name}: `cw data fetch {r.name} --copy DIR` adds what is absent from a copy "
                               "of the dataset folder, checked against its pins"))
    if failed:
        raise DatasetError(f"{len(failed)} of {len(failed) + len(results)} datasets not fetched: "
                           + "; ".join(f"{n}: {why}" for n, why in failed))


TERMINATED = 143  # 128 + SIGTERM, as a shell reports a process SIGTERM ended
_signals: list[int] = []  # the SIGTERMs this process received


def _on_sigterm(signum: int, frame: Any) -> None:
    """SIGTERM (a scheduler's or a container's stop, `kill`) is handled as Ctrl-C: finished work saved, a
    message, this process's containers removed. Ctrl-C reaches the whole process group; SIGTERM only this
    process, so the verifier processes get the SIGINT Ctrl-C would have given them."""
    import multiprocessing

    _signals.append(signum)
    if len(_signals) > 1:
        return  # already stopping: a second SIGTERM must not cut the saving and the removals short
    for child in multiprocessing.active_children():
        try:
            os.kill(child.pid or 0, signal.SIGINT)
        except (ProcessLookupError, PermissionError):
            pass
    raise KeyboardInterrupt


def main() -> None:
    """Entry point: the one place where errors become a message and an exit code. Click's own usage errors
    (a missing option, a value out of range) print the same one `error: ...` line as the library's, exit 2,
    rather than Typer's boxed panel. SIGTERM is Ctrl-C with exit code 143."""
    import threading

    _signals.clear()
    here = threading.current_thread() is threading.main_thread()
    before = signal.signal(signal.SIGTERM, _on_sigterm) if here else None
    try:
        code = app(standalone_mode=False)
    except CodewalkError as e:
        terminated = bool(_signals) and isinstance(e, Interrupted)
        message = str(e).replace("interrupted", "terminated (SIGTERM)", 1) if terminated else str(e)
        _fail(message, TERMINATED if terminated else e.exit_code)
    except KeyboardInterrupt:  # a command without a progress bar: nothing of its own to say
        _on_interrupt()
    except Exception as e:  # Click's exceptions, known by shape: Typer 0.20 and later vendor Click
        kind = type(e).__name__
        if kind == "NoArgsIsHelpError":  # `cw tasks` alone: Typer has printed its help
            sys.exit(e.exit_code)  # type: ignore[attr-defined]
        if kind == "Abort":  # outside standalone mode Click turns Ctrl-C (and SIGTERM, above) into Abort
            if isinstance(e.__cause__, KeyboardInterrupt) or _signals:
                _on_interrupt()
            _fail("aborted", 1)
        if not (callable(getattr(e, "format_message", None)) and isinstance(getattr(e, "exit_code", None), int)):
            raise
        ctx = getattr(e, "ctx", None)
        message = e.format_message().rstrip(".")  # type: ignore[attr-defined]
        _fail(message + (f" (see `{ctx.command_path} --help`)" if ctx else ""), e.exit_code)  # type: ignore[attr-defined]
    finally:
        if here:
            signal.signal(signal.SIGTERM, before)
    sys.exit(code if isinstance(code, int) else 0)


def _on_interrupt() -> None:
    word = "terminated (SIGTERM)" if _signals else "interrupted"
    _fail(f"{word}: finished work is saved", TERMINATED if _signals else Interrupted.exit_code)


def _fail(message: str, code: int) -> None:
    err.print(f"[red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)  # whole, for grep
    sys.exit(code)
