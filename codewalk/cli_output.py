"""What every `cw` command shares: the consoles, the options several commands take, tables that read in
any width, JSON for scripts, and KEY=VALUE parameters. Both cli.py and cli_db.py use it (neither imports
the other's commands)."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from .errors import UsageError

out = Console()
err = Console(stderr=True)
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for scripts instead of a table.")]
RuntimeOpt = Annotated[str | None, typer.Option(
    "--runtime", envvar="CODEWALK_RUNTIME", show_default=False,
    help="Where code from a repository or a model runs: local (host tools in the sandbox; the default) or docker "
         "(a fresh container per run, daemon at DOCKER_HOST; repair). A domain without it refuses (exit 2).")]
PullOpt = Annotated[bool, typer.Option(
    "--pull/--no-pull", help="docker: pull an image that is not here (--no-pull: such a group is an error).")]
def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")


WORD = 24  # a cell word up to this long stays whole in a table; longer ones (paths, JSON) fold
IDS = ("id", "run", "atom", "task")  # columns whose values stay whole and on one line, to be copied
def table(title: str, rows: list[dict[str, Any]], columns: list[str] | None = None):
    """Rows as a table that reads in the console's width (rich assumes 80 columns without a terminal):
    every column is at least as wide as its header's longest word and its cells' longest words (up to
    WORD; ids whole), so text wraps between words, never inside one. When that does not fit with
    borders, the borders go; when it does not fit at all, each row becomes a block of `column value`
    lines. `--json` is the form for scripts."""
    from rich import box
    from rich.console import Group

    columns = columns or (list(rows[0]) if rows else [])
    cells = [[cell(row.get(c)) for c in columns] for row in rows]
    widths = []
    for k, c in enumerate(columns):
        if c in IDS:
            width = max((len(row[k].plain) for row in cells), default=0)
        else:
            width = min(WORD, max((len(w) for row in cells for w in row[k].plain.split()), default=0))
        widths.append(max(width, *(len(w) for w in c.split())))
    room = out.width
    natural = [max([len(c), *(len(line) for row in cells for line in row[k].plain.splitlines())])
               for k, c in enumerate(columns)]
    heavy, compact = 3 * len(widths) + 1, 2 * (len(widths) - 1)  # what borders and padding take
    if sum(widths) + heavy <= room:
        table = Table()
        spare = room - heavy
    elif sum(widths) + compact <= room:
        table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True)
        spare = room - compact
    else:
        blocks: list[Any] = [Text(title, style="italic")]
        label = max((len(c) for c in columns), default=0)
        for row in cells:
            grid = Table.grid(padding=(0, 2))
            grid.add_column(style="bold", min_width=label, no_wrap=True)
            grid.add_column(overflow="fold")
            for c, text in zip(columns, row, strict=True):
                grid.add_row(c, text)
            blocks += [grid, Text("")]
        return Group(*blocks)
    if sum(natural) > spare:  # too wide as it is: from the least that keeps words whole, widen the
        for _ in range(spare - sum(widths)):  # column that lacks the most, a column at a time
            k = max(range(len(widths)), key=lambda k: natural[k] - widths[k])
            if natural[k] <= widths[k]:
                break
            widths[k] += 1
    else:
        widths = natural
    for c, width in zip(columns, widths, strict=True):
        table.add_column(c, overflow="fold", width=width, no_wrap=c in IDS)
    for row in cells:
        table.add_row(*row)
    return Group(Text(title, style="italic"), table)  # a title above, not wrapped to a narrow table


def cell(value: Any) -> Text:
    """Plain text, never rich markup: a type like list[int] must print as it is."""
    if value is None:
        return Text("")
    if isinstance(value, dict | list):
        value = json.dumps(value, default=str)
    text = str(value)
    return Text(text if len(text) <= 200 else text[:197] + "...")


def parse_params(pairs: list[str]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"expected KEY=VALUE, got {pair!r}")
        try:
            params[key] = json.loads(value)  # numbers, lists, true/false; anything else stays a string
        except json.JSONDecodeError:
            params[key] = value
    return params


def print_load(summary, title: str) -> None:
    row = summary.as_dict() | {"edges": ", ".join(f"{rel} {n:,}" for rel, n in summary.edges.items()) or "none",
                               "atoms": f"{summary.atoms:,}", "seconds": f"{summary.seconds:.1f}"}
    out.print(table(title, [row], ["domain", "source", "atoms", "edges", "seconds"]))
