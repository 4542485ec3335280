"""docs/ points at sections that exist, and docs/exploring.md's graph figures are what loading the sources
gives today (a pointer went stale when the README's *Repair yields* moved to docs/domains.md)."""

from __future__ import annotations

import re
from pathlib import Path

from codewalk.loading import load
from codewalk.store import open_store
from tests import repair_fixture
from tests.shared_data import require

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def sections(path: Path) -> set[str]:
    """A page's headings and bold paragraph leads (`**Repair yields.**`)."""
    text = path.read_text(encoding="utf-8")
    return ({m.strip() for m in re.findall(r"^#+ (.+)$", text, re.MULTILINE)}
            | {m.strip() for m in re.findall(r"^\*\*([^*]+?)\.?\*\*", text, re.MULTILINE)})


def test_every_named_section_a_doc_points_at_exists():
    """`README's *X*`, `(README, *X*` and `[page](page.md), *X*` name a heading or a bold lead of that page."""
    missing = []
    for doc in sorted(DOCS.glob("*.md")):
        text = doc.read_text(encoding="utf-8")
        found = [("README.md", x) for x in re.findall(r"README(?:'s|,) \*([^*]+)\*", text)]
        found += [(page, x) for page, x in re.findall(r"\]\(([\w-]+\.md)\), \*([^*]+)\*", text)]
        for page, section in found:
            where = ROOT / page if page == "README.md" else DOCS / page
            if section not in sections(where):
                missing.append(f"{doc.name} -> {page} *{section}*")
    assert not missing, "stale pointers: " + ", ".join(missing)


def figures(domain: str) -> tuple[int, int]:
    """(atoms, edges) that docs/exploring.md states for a domain's graph."""
    text = (DOCS / "exploring.md").read_text(encoding="utf-8")
    atoms, edges = re.search(rf"\*\*{domain}\*\* \(([\d,]+) atoms[^,]*?, ([\d,]+) [A-Z_]+ edges", text).groups()
    return int(atoms.replace(",", "")), int(edges.replace(",", ""))


def test_the_repair_and_proofs_figures_in_exploring_are_what_loading_gives(tmp_path, monkeypatch):
    monkeypatch.setenv("CODEWALK_HOME", str(tmp_path / "home"))
    fixture = repair_fixture.build(tmp_path / "tally")
    rows = fixture.write_rows(tmp_path / "tally" / "rows.jsonl")
    with open_store(tmp_path / "repair.lbug") as store:
        loaded = load(store, "repair", rows, {"repos": str(fixture.repos)})
    assert figures("repair") == (loaded.atoms, sum(loaded.edges.values()))
    with open_store(tmp_path / "proofs.lbug") as store:
        loaded = load(store, "proofs", require("verus-bench"))
    assert figures("proofs") == (loaded.atoms, sum(loaded.edges.values()))
