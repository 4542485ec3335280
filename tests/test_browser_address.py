"""The Browser addresses `cw tasks show ID --browser` prints carry their text through Browser's own
parsing (Neo4j Browser 5: the address is decoded once, '+' read as a space, and `arg` taken up to the
next '&' or '#'), hold codewalk's whole style, and refuse what is not a task id."""

from __future__ import annotations

import json
import re
from urllib.parse import unquote

import pytest

from codewalk.browser import grass, provenance_script, provenance_url, setup_script, setup_url
from codewalk.cypher_files import query
from codewalk.errors import UsageError
from tests.run_cw import cw

HTTP, BOLT = "http://127.0.0.1:7474", "bolt://127.0.0.1:7687"


def _browser_reads(url: str, name: str) -> list[str]:
    """What Browser's populateEditorFromUrlEpic / discovery take out of the address."""
    decoded = unquote(url.replace("+", " "))
    return re.findall(rf"[?&]{name}=([^&#]*)", decoded)


@pytest.mark.parametrize("relations", [False, True])
def test_the_provenance_address_carries_the_whole_query_with_the_id(relations):
    url = provenance_url(HTTP, BOLT, "t0123abc", relations)
    assert _browser_reads(url, "dbms") == [BOLT] and _browser_reads(url, "cmd") == ["edit"]
    assert _browser_reads(url, "preselectAuthMethod") == ["NO_AUTH"]
    [text] = _browser_reads(url, "arg")
    assert text == provenance_script("t0123abc", relations)
    name = "explore/provenance_relations" if relations else "explore/provenance"
    body = [line for line in query(name, "neo4j").splitlines() if not line.startswith("//")]
    assert text == "\n".join(body).strip().replace("$id", "'t0123abc'")
    assert ("FEEDS" in text) == relations  # relation edges only on request


def test_the_setup_address_carries_codewalks_whole_style():
    [text] = _browser_reads(setup_url(HTTP, BOLT), "arg")
    assert text == setup_script() and text.startswith(":config autoComplete: false, initCmd: ")
    style = grass()
    assert style["node.Task"]["caption"] == "N={level} {status}"
    assert style["relationship.COMPOSES"]["caption"] == "pos {position}"
    assert {"node.Atom", "node.Run", "relationship.IN_RUN"} <= set(style)
    assert "rgb(247, 151, 103)" in text  # the task's #F79767: a '#' would end Browser's arg


@pytest.mark.parametrize("bad", ["t1'}) DETACH DELETE (n", "t1 OR 1=1", "", "t#1", "t&x"])
def test_anything_but_a_task_id_is_refused(bad):
    with pytest.raises(UsageError, match="not a task id"):
        provenance_script(bad)


def test_the_embedded_store_has_no_browser(capsys, store_path):
    code, _, err = cw(capsys, "--store", store_path, "tasks", "show", "t1", "--browser")
    assert code == 2 and "Neo4j Browser needs a Neo4j store" in err


@pytest.mark.neo4j
def test_cw_tasks_show_browser_prints_both_addresses_for_a_neo4j_task(capsys, neo4j, neo4j_http, tmp_path):
    from codewalk.admission import walk_and_admit
    from codewalk.loading import load

    source = tmp_path / "toy.txt"
    source.write_text("".join(f"a{i}\n" for i in range(5)))
    load(neo4j, "toychain", source)
    task = walk_and_admit(neo4j, "toychain", 2, count=1, seed=1).admitted_ids[0]
    code, out, _ = cw(capsys, "--store", neo4j.location, "tasks", "show", task, "--browser", "--json")
    urls = json.loads(out)
    assert code == 0 and urls["setup"].startswith(f"{neo4j_http}/browser/?dbms={neo4j.location}&")
    [text] = _browser_reads(urls["provenance"], "arg")
    assert f"{{id: '{task}'}}" in text and "FEEDS" not in text
    code, out, _ = cw(capsys, "--store", neo4j.location, "tasks", "show", task, "--browser", "--relations",
                      "--http", "http://browser.example:80", "--json")
    urls = json.loads(out)
    assert code == 0 and urls["provenance"].startswith("http://browser.example:80/browser/?")
    assert "FEEDS" in _browser_reads(urls["provenance"], "arg")[0]
    code, _, err = cw(capsys, "--store", neo4j.location, "tasks", "show", "tnosuch", "--browser")
    assert code == 2 and "no task 'tnosuch'" in err
