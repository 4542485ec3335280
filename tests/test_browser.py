"""Neo4j Browser shows where a task came from.

A headless Chromium (Debian `chromium`, driven by Playwright) opens the Browser served by the test Neo4j
and reads the drawn graph back, node by node:

* by hand, as browser/README.md tells a person (dropping codewalk.grass and provenance.cypher on the
  window), for an admitted demo task of level 3;
* by the addresses `cw tasks show ID --browser` prints, for a demo task of level 10: the picture shows
  the task, its ten atoms in order (each COMPOSES edge captioned with its position points at the atom
  at that position) and the run, and no relation edge unless asked for.

Screenshots are kept in test-artifacts/.
"""

from __future__ import annotations

import math
import os
import shutil
from pathlib import Path

import pytest

from codewalk.admission import walk_and_admit
from codewalk.browser import addresses
from codewalk.dbserver import browser_url
from codewalk.loading import load

REPO = Path(__file__).resolve().parents[1]
ARTIFACTS = REPO / "test-artifacts"
# Flags for a container without a display, GPU, sandbox or network beyond localhost.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TASK, ATOM = "#F79767", "#57C7E3"  # node colours in codewalk.grass
TASK_RGB, ATOM_RGB = "rgb(247, 151, 103)", "rgb(87, 199, 227)"  # the same, as the Browser addresses give them


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


def _settled(page, nodes, relationships) -> None:
    """Wait until the force layout stops moving the nodes (the picture, and the geometry read from it)."""
    before = None
    for _ in range(100):
        now = [nodes.nth(k).get_attribute("transform") for k in range(nodes.count())]
        if now == before:
            return
        before = now
        page.wait_for_timeout(300)
    raise AssertionError("the layout did not settle")


def _xy(transform: str) -> tuple[float, float]:
    x, y = transform.split("(", 1)[1].split(")", 1)[0].replace(",", " ").split()[:2]
    return float(x), float(y)


def _open_and_run(page, url: str, first: str) -> None:
    """Open a Browser address and press Run once it has connected and run its initial command `first`."""
    page.goto(url)
    page.locator("[data-testid=frameCommand]", has_text=first).first.wait_for(timeout=120_000)
    page.locator("[data-testid=editor-Run]").click()


@pytest.mark.neo4j
def test_cw_tasks_show_browser_draws_ten_atoms_in_order_without_relation_edges(neo4j, neo4j_http):
    chromium = _chromium()
    from playwright.sync_api import sync_playwright

    from codewalk.loaders.demo import CATALOGUE

    load(neo4j, "demo", Path(CATALOGUE))
    task_id = walk_and_admit(neo4j, "demo", 10, count=1, seed=3).admitted_ids[0]
    atoms = [r["atom"] for r in neo4j.run("MATCH (:Task {id: $id})-[c:COMPOSES]->(a:Atom) "
                                          "RETURN a.id AS atom ORDER BY c.position", {"id": task_id})]
    assert len(atoms) == 10
    links = neo4j.run("MATCH (a:Atom)-[e:FEEDS]->(b:Atom) WHERE a.id IN $ids AND b.id IN $ids "
                      "RETURN count(e) AS n", {"ids": atoms})[0]["n"]
    assert links > 10  # the demo relation is dense: drawn, these edges would hide the chain
    urls = addresses(neo4j, task_id, http=neo4j_http)
    with_relations = addresses(neo4j, task_id, relations=True, http=neo4j_http)["provenance"]

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=FLAGS)
        page = browser.new_page(viewport={"width": 1100, "height": 820})
        try:
            _open_and_run(page, urls["setup"], ":play start")  # once per browser: style on connect, no "connect result nodes"
            page.locator("[data-testid=frameCommand]", has_text=":config").wait_for()
            # Browser writes its settings to local storage a moment later: leave the page only after
            page.wait_for_function("() => /\"initCmd\":\":style /.test(localStorage.getItem('neo4j.settings'))",
                                   timeout=60_000)
            _open_and_run(page, urls["provenance"], ":style")
            nodes, rels = page.locator("svg g.node"), page.locator("svg g.relationship")
            nodes.nth(len(atoms) + 1).wait_for(timeout=30_000)  # the task, its atoms and the run
            _settled(page, nodes, rels)
            page.screenshot(path=ARTIFACTS / "browser-provenance-n10.png")

            drawn: dict[str, tuple[str, dict[str, str], tuple[float, float]]] = {}
            props: dict[str, str] = {}
            for k in range(nodes.count()):
                node = nodes.nth(k)
                colour = node.locator("circle").last.get_attribute("fill")
                xy = _xy(node.get_attribute("transform"))
                props = _inspect(page, node, props.get("id"))
                drawn[props["id"]] = (colour, props, xy)
            edges = [(rels.nth(k).locator("text").first.text_content(), rels.nth(k).get_attribute("transform"))
                     for k in range(rels.count())]

            _open_and_run(page, with_relations, ":style")
            page.locator("svg g.relationship text", has_text="FEEDS").first.wait_for(timeout=30_000)
            feeds = page.locator("svg g.relationship text", has_text="FEEDS").count()
        finally:
            browser.close()

    assert drawn[task_id][0] == TASK_RGB and drawn[task_id][1]["level"] == "10"
    assert sorted(i for i, (colour, _, _) in drawn.items() if colour == ATOM_RGB) == sorted(atoms)
    assert set(drawn) == {task_id, *atoms, drawn[task_id][1]["run"]}
    # only the order and the run: ten COMPOSES edges captioned pos 0..9 and IN_RUN, no relation edge
    captions = sorted(text for text, _ in edges)
    assert captions == sorted([f"pos {k}" for k in range(10)] + ["IN_RUN"])
    # each "pos k" edge leaves the task towards the atom at position k
    tx, ty = drawn[task_id][2]
    for text, transform in edges:
        if not text.startswith("pos "):
            continue
        assert _xy(transform) == pytest.approx((tx, ty))
        angle = float(transform.split("rotate(")[1].rstrip(")")) % 360

        def off(atom: str, angle: float = angle) -> float:
            x, y = drawn[atom][2]
            return abs((math.degrees(math.atan2(y - ty, x - tx)) - angle + 180) % 360 - 180)

        assert min(atoms, key=off) == atoms[int(text.split()[1])], text
    assert feeds == links  # on request, the relation edges among the atoms are drawn too
