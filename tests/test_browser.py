"""Neo4j Browser shows where a task came from.

A headless Chromium (Debian `chromium`, driven by Playwright) opens the Browser served by the test Neo4j,
loads browser/codewalk.grass and cypher/explore/provenance.cypher the way browser/README.md tells a
person to (dropping the files on the window), runs the query for an admitted demo task of level 3 and
reads the drawn graph back, node by node. The screenshot is kept in test-artifacts/.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from codewalk.admission import walk_and_admit
from codewalk.dbserver import browser_url
from codewalk.loading import load

REPO = Path(__file__).resolve().parents[1]
ARTIFACTS = REPO / "test-artifacts"
# Flags for a container without a display, GPU, sandbox or network beyond localhost.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TASK, ATOM = "#F79767", "#57C7E3"  # node colours in codewalk.grass


def _chromium() -> str:
    path = shutil.which("chromium")
    try:
        import playwright  # noqa: F401
    except ImportError:
        path = None
    if path is None:
        why = "needs Debian's chromium (apt-get install chromium) and Playwright (pip install playwright)"
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)
    return path


def _drop(page, name: str, text: str) -> None:
    """What dropping a file from a file manager onto the Browser window does."""
    files = page.evaluate_handle(
        "([name, text]) => { const d = new DataTransfer(); d.items.add(new File([text], name)); return d; }",
        [name, text])
    page.dispatch_event("[data-testid=main]", "dragenter", {"dataTransfer": files})
    page.dispatch_event("[data-testid=main]", "drop", {"dataTransfer": files})


def _inspect(page, node, before: str | None) -> dict[str, str]:
    """Hover a drawn node and read its properties from the inspector once it shows another node."""
    node.hover()
    for _ in range(50):
        rows = page.locator("[data-testid=viz-details-pane-properties-table] tr")
        cells = [rows.nth(k).locator("td").all_inner_texts() for k in range(rows.count())]
        props = {c[0].strip(): c[1].strip() for c in cells if len(c) >= 2}
        if props.get("id", before) != before:
            return props
        page.wait_for_timeout(100)
    raise AssertionError("the inspector did not show the hovered node")


@pytest.mark.neo4j
def test_browser_draws_a_task_with_its_atoms_in_the_codewalk_style(neo4j, neo4j_http):
    chromium = _chromium()
    from playwright.sync_api import sync_playwright

    from codewalk.loaders.demo import CATALOGUE

    load(neo4j, "demo", Path(CATALOGUE))
    task_id = walk_and_admit(neo4j, "demo", 3, count=1, seed=3).admitted_ids[0]
    atoms = [r["atom"] for r in neo4j.run("MATCH (:Task {id: $id})-[c:COMPOSES]->(a:Atom) "
                                          "RETURN a.id AS atom ORDER BY c.position", {"id": task_id})]
    assert len(atoms) == 3

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=FLAGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        try:
            page.goto(browser_url(neo4j_http, neo4j.location))  # the URL `cw db start` prints
            editor = page.locator("[data-testid=activeEditor]")
            editor.filter(has_text="neo4j$").wait_for(timeout=60_000)  # connected, database chosen

            _drop(page, "codewalk.grass", (REPO / "browser" / "codewalk.grass").read_text())
            page.locator("[data-testid=frameCommand]", has_text=":style").wait_for()

            editor.click()
            page.keyboard.insert_text(f":param id => '{task_id}'")
            page.keyboard.press("Enter")
            page.get_by_text("Successfully set your parameters").wait_for()

            _drop(page, "provenance.cypher", (REPO / "cypher" / "explore" / "provenance.cypher").read_text())
            page.get_by_role("button", name="Paste in editor").click()
            page.locator("[data-testid=editor-Run]").click()
            nodes = page.locator("svg g.node")
            nodes.nth(len(atoms)).wait_for(timeout=30_000)  # the task, its atoms and the run
            page.wait_for_timeout(1_500)  # let the layout settle for the picture
            page.screenshot(path=ARTIFACTS / "browser-provenance.png")

            drawn: dict[str, tuple[str, dict[str, str]]] = {}
            props: dict[str, str] = {}
            for k in range(nodes.count()):
                colour = nodes.nth(k).locator("circle").last.get_attribute("fill")
                props = _inspect(page, nodes.nth(k), props.get("id"))
                drawn[props["id"]] = (colour.upper(), props)
        finally:
            browser.close()

    assert drawn[task_id][0] == TASK and drawn[task_id][1]["level"] == "3"
    assert sorted(i for i, (colour, _) in drawn.items() if colour == ATOM) == sorted(atoms)
    assert set(drawn) == {task_id, *atoms, drawn[task_id][1]["run"]}
