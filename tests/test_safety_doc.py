"""docs/safety.md's table of what each runtime contains: every row names the tests that pin it, and each
named test exists (a renamed or deleted test would leave a row unpinned)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _rows() -> list[str]:
    text = (ROOT / "docs" / "safety.md").read_text()
    section = text.split("## What each runtime contains", 1)[1].split("What a run sees of the filesystem", 1)[0]
    return [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| where")]


def test_every_row_of_the_runtime_table_names_tests_that_exist():
    rows = _rows()
    assert len(rows) >= 8
    for row in rows:
        pinned = row.rstrip(" |").rsplit(" | ", 1)[1]
        names = re.findall(r"`([\w/]*\.py)?(?:::(\w+))?(?:\[[\w-]+\])?`", pinned)
        assert names, row
        current = None
        for file, test in names:
            current = file or current
            assert current, row
            source = (ROOT / "tests" / current).read_text()
            if test:
                assert re.search(rf"^(async )?def {test}\(", source, re.M), f"{current}::{test} (row: {row[:60]})"
