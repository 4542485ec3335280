"""The README's command table lists every option each command takes, and docs/commands.md is what `--help`
prints (both drifted before)."""

from __future__ import annotations

import re
from pathlib import Path

import typer.main

from codewalk.cli import app

README = Path(__file__).resolve().parents[1] / "README.md"
EVERYWHERE = {"--help", "--json"}  # said once, above the table


def _commands(group, path=()):
    for name, cmd in group.commands.items():
        if hasattr(cmd, "commands"):
            yield from _commands(cmd, (*path, name))
        else:  # a group's default command is the group's own name (`cw grade FILE`)
            yield " ".join((*path, name) if name != getattr(group, "default", None) else path), cmd


def _rows() -> dict[str, str]:
    """`cw COMMAND` -> its row in the README's command table."""
    rows = {}
    for line in README.read_text(encoding="utf-8").splitlines():
        found = re.match(r"\| `cw ([a-z ]+?)(?= [A-Z\[-]|`| /)", line)
        if found:
            rows[found.group(1)] = line
    return rows


def test_every_command_and_option_is_in_the_readme_table():
    rows = _rows()
    missing = []
    for name, cmd in _commands(typer.main.get_command(app)):
        row = next((r for key, r in rows.items() if key == name or r.count(f"cw {name}")
                    or (name.startswith("db ") and key == "db start")), None)
        if row is None:
            missing.append(f"cw {name} (no row)")
            continue
        for param in cmd.params:
            for opt in param.opts:
                if opt.startswith("--") and opt not in EVERYWHERE and not re.search(rf"{re.escape(opt)}(?![\w-])", row):
                    missing.append(f"cw {name} {opt}")
    assert not missing, "README command table misses: " + ", ".join(missing)


def test_the_command_reference_is_what_help_prints():
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_commands", README.parent / "docs" / "make_commands.py")
    make = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make)
    assert make.OUT.read_text(encoding="utf-8") == make.reference(), "run: python docs/make_commands.py"
