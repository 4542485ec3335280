"""SWE-bench rows in, repair atoms and SHARES_FILE edges out: the row formats of the public datasets, a
malformed row named by its line, clones from `--opt repos=` or a remote, and the user's clone left alone."""

from __future__ import annotations

import json
import re
import subprocess

import pandas as pd
import pytest

from codewalk.domains.repair import RepairDomain
from codewalk.errors import InputError
from codewalk.loaders import swebench
from tests import repair_fixture


@pytest.fixture(scope="module")
def fixture(tmp_path_factory):
    return repair_fixture.build(tmp_path_factory.mktemp("tally"))


@pytest.fixture
def rows(fixture, tmp_path):
    return fixture.write_rows(tmp_path / "rows.jsonl")


def _atoms(rows, options):
    return {a.summary["title"]: a for a in RepairDomain().load(rows, options)}


def test_rows_become_atoms_with_files_from_the_gold_patch(fixture, rows):
    atoms = _atoms(rows, {"repos": str(fixture.repos)})
    assert len(atoms) == 10
    w2 = atoms[fixture.ids["W2"]]
    assert w2.id == fixture.atom("W2") and w2.domain == "repair"
    assert w2.summary == {"title": fixture.ids["W2"], "repo": "tally/tally",
                          "files": ["tally/fmt.py", "tally/words.py"]}
    # FAIL_TO_PASS arrives as a JSON string in some rows and as a list in others: always a list after loading
    assert w2.payload["FAIL_TO_PASS"] == ["tests/test_words.py::test_unique_words_ignores_case",
                                          "tests/test_fmt.py::test_format_unique_ignores_case"]
    assert all(isinstance(a.payload["PASS_TO_PASS"], list) for a in atoms.values())
    assert w2.payload["created_at"] == "2024-02-20T10:00:00+00:00"
    assert w2.payload["base_commit"] == fixture.commits["S1"]
    assert w2.payload["clone_from"] == str(fixture.clone)


def test_shares_file_edges_come_from_an_inverted_file_index(fixture, rows):
    domain = RepairDomain()
    atoms = list(domain.load(rows, {"repos": str(fixture.repos)}))
    edges = {(e.src, e.dst): e.files for e in domain.edges(atoms)}
    words, stats, fmt = ("W1", "W2", "W3"), ("S1", "K", "M", "S4"), ("W2", "F1", "F2", "F3")
    expected = {}
    for names, path in ((words, "tally/words.py"), (stats, "tally/stats.py"), (fmt, "tally/fmt.py")):
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                expected[tuple(sorted((fixture.atom(a), fixture.atom(b))))] = (path,)
    assert edges == expected
    assert all(src < dst for src, dst in edges)


def test_the_same_rows_load_from_parquet_and_a_json_array(fixture, tmp_path):
    frame = pd.DataFrame([i.row for i in swebench.read(fixture.write_rows(tmp_path / "r.jsonl"))])
    # as the hub stores them: one list column as JSON text, one as a Parquet list (numpy arrays when read)
    frame["FAIL_TO_PASS"] = frame["FAIL_TO_PASS"].map(json.dumps)
    frame["install_config"] = frame["install_config"].map(json.dumps)
    frame.to_parquet(tmp_path / "rows.parquet")
    (tmp_path / "rows.json").write_text(json.dumps(fixture.rows))
    first = swebench.read(tmp_path / "rows.parquet")
    second = swebench.read(tmp_path / "rows.json")
    assert [i.row["FAIL_TO_PASS"] for i in first] == [i.row["FAIL_TO_PASS"] for i in second]
    assert [i.row["PASS_TO_PASS"] for i in first] == [i.row["PASS_TO_PASS"] for i in second]
    assert first[0].row["install_config"] == repair_fixture.INSTALL_CONFIG
    assert [i.files for i in first] == [i.files for i in second]


def _with(fixture, **changes) -> str:
    return json.dumps({**fixture.rows[0], **changes})


@pytest.mark.parametrize("changes, reason", [
    ({"repo": None}, "missing field(s): repo"),
    ({"repo": "not-a-repo"}, "is not owner/name"),
    ({"base_commit": "main"}, "not a hexadecimal commit id"),
    ({"FAIL_TO_PASS": "[not json"}, "FAIL_TO_PASS is a string but not a JSON list"),
    ({"FAIL_TO_PASS": "[]"}, "FAIL_TO_PASS is empty"),
    ({"PASS_TO_PASS": [1, 2]}, "PASS_TO_PASS must be a list of test ids"),
    ({"created_at": "yesterday"}, "not an ISO 8601 date"),
    ({"install_config": "{oops"}, "install_config is a string but not a JSON object"),
    ({"patch": "--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n-a\n"}, "unreadable patch"),
])
def test_malformed_row_is_an_input_error_naming_its_line(fixture, tmp_path, changes, reason):
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(fixture.rows[1]) + "\n\n" + _with(fixture, **changes) + "\n")
    with pytest.raises(InputError, match=re.escape(reason)) as caught:
        swebench.read(path)
    assert (caught.value.source, caught.value.where) == (str(path), 3)


def test_duplicate_instance_and_invalid_json_name_their_line(fixture, tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text(_with(fixture) + "\n" + _with(fixture) + "\n")
    with pytest.raises(InputError, match="duplicate instance_id") as caught:
        swebench.read(path)
    assert caught.value.where == 2
    path.write_text(_with(fixture) + "\n{nope\n")
    with pytest.raises(InputError, match="not valid JSON") as caught:
        swebench.read(path)
    assert caught.value.where == 2


def test_a_base_commit_the_clone_lacks_is_an_input_error(fixture, tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text(_with(fixture) + "\n" + _with(fixture, instance_id="x-1", base_commit="ab" * 20) + "\n")
    with pytest.raises(InputError, match="base_commit abab.* is not in") as caught:
        list(RepairDomain().load(path, {"repos": str(fixture.repos)}))
    assert caught.value.where == 2


def test_repos_folder_without_the_clone_is_an_input_error(rows, tmp_path):
    with pytest.raises(InputError, match="no git clone of tally/tally at .*tally__tally") as caught:
        list(RepairDomain().load(rows, {"repos": str(tmp_path)}))
    assert caught.value.where == 1


def test_without_repos_the_repository_is_cloned_from_the_remote_into_the_cache(fixture, rows, tmp_path):
    remote = f"file://{fixture.repos}/{{owner}}__{{name}}"
    atoms = _atoms(rows, {"remote": remote})
    assert atoms[fixture.ids["W1"]].payload["clone_from"] == f"file://{fixture.clone}"
    home = tmp_path / "home"  # this test's CODEWALK_HOME
    mirror = home / "cache" / "repair" / "repos" / "tally__tally.git"
    assert (mirror / "HEAD").is_file()
    # the default remote is GitHub
    instance = swebench.read(rows)[0]
    assert swebench.clone_source(instance, {}, rows) == "https://github.com/tally/tally"


def test_loading_leaves_the_users_clone_as_it_was(fixture, rows):
    def state():
        return [subprocess.run(["git", *args], cwd=fixture.clone, capture_output=True, text=True,
                               check=True).stdout
                for args in (["status", "--porcelain"], ["worktree", "list"], ["rev-parse", "HEAD"],
                             ["for-each-ref"])]

    before = state()
    _atoms(rows, {"repos": str(fixture.repos)})
    assert state() == before
