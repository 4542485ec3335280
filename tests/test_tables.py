"""Tables read in an 80-column terminal and without one (rich then assumes 80 columns): no line is wider,
no header or word is broken inside, ids stay whole on one line; what does not fit loses its borders,
then becomes one block per row. `--json` stays the form for scripts."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from codewalk import cli_output
from tests.run_cw import cw

TASK_IDS = ["t3fcae50df79eed9a97d9", "tb854b5cbd0413632eb6f"]
TABLES = {
    "admission": [{"level": 3, "attempted": 14, "admitted": 3, "rejected": 11,
                   "by reason": "atom_solved 3, reference_fails 8", "errors": 0, "skipped": 0,
                   "in tools": "8.1s (68%)"}],
    "tasks": [{"id": i, "domain": "complexity", "level": 10, "status": "rejected", "reason": "reference_fails",
               "created_at": "2026-12-05T22:01:33+00:00"} for i in TASK_IDS],
    "atoms": [{"position": 0, "atom": "complexity/p1234_function_with_a_long_name", "check (1) unsolved": "yes",
               "detail": "the composite's answer O(n^2) differs from the atom's O(n log n) " * 3}],
}


def _render(rows, width: int = 80) -> str:
    console = Console(file=io.StringIO(), width=width)
    old, cli_output.out = cli_output.out, console
    try:
        console.print(cli_output.table("a title", rows))
    finally:
        cli_output.out = old
    return console.file.getvalue()


@pytest.mark.parametrize("name", sorted(TABLES))
def test_a_table_fits_80_columns_and_breaks_no_word(name):
    rows = TABLES[name]
    text = _render(rows)
    assert max(len(line) for line in text.splitlines()) <= 80, text
    words = {w for row in rows for k, v in row.items() for w in [*k.split(), *str(v).split()]
             if len(w) <= cli_output.WORD or k in cli_output.IDS}
    tokens = set(text.replace("│", " ").replace("┃", " ").split())
    assert words <= tokens, (words - tokens, text)


def test_what_cannot_fit_becomes_one_block_per_row():
    rows = [{f"column {k}": f"value_number_{k}" for k in range(8)}]
    text = _render(rows)
    assert "column 7  value_number_7" in text and max(len(line) for line in text.splitlines()) <= 80


def test_tasks_list_without_a_terminal_keeps_ids_whole_and_json_keeps_everything(capsys, store_path, tmp_path):
    source = tmp_path / "toy.txt"
    source.write_text("".join(f"a{i}\n" for i in range(6)))
    assert cw(capsys, "--store", store_path, "load", "toychain", str(source))[0] == 0
    cw(capsys, "--store", store_path, "walk", "--n", "2", "--count", "3", "--seed", "1")
    code, out, _ = cw(capsys, "--store", store_path, "tasks", "list")
    assert code == 0 and max(len(line) for line in out.splitlines()) <= 80, out
    code, raw, _ = cw(capsys, "--store", store_path, "tasks", "list", "--json")
    rows = json.loads(raw)
    assert rows and all(r["id"] in out for r in rows)
    assert all("created_at" in r and "domain" in r for r in rows)
