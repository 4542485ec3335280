"""`cw mine repair` on an author who commits source and tests apart (as funcy's does): a test-only commit and
the source-only commits just before it by the same author are one candidate; the summary says what limited
the yield per repository and, when no two atoms share a file, suggests no walk. Real git, real pytest runs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from codewalk.domains.repair.mine import SERIES_HOURS, mine
from codewalk.loaders.diff import patch_files
from tests.run_cw import cw

pytestmark = pytest.mark.usefixtures("shared_home")

ALICE = ("Alice", "alice@text.test")
BOB = ("Bob", "bob@text.test")
TEXT = 'def shout(s):\n    return s.upper()\n\n\ndef whisper(s):\n    return s.upper()\n'
TESTS = 'from text.words import shout\n\n\ndef test_shout():\n    assert shout("a") == "A"\n'


def build(root: Path) -> tuple[Path, dict[str, str]]:
    """Main line, oldest first: initial; src (Alice fixes whisper()) then tests 20 minutes later (Alice tests
    it): one series; later_src (Alice adds title()) then other_tests (Bob tests it): another author; old_src
    (Alice adds strip()) then late_tests (Alice, half an hour past SERIES_HOURS later)."""
    clone = root / "text"
    clone.mkdir(parents=True)
    commits: dict[str, str] = {}

    def commit(name: str, who: tuple[str, str], date: str, files: dict[str, str]) -> None:
        for path, text in files.items():
            (clone / path).parent.mkdir(parents=True, exist_ok=True)
            (clone / path).write_text(text)
        env = {**os.environ, "GIT_AUTHOR_NAME": who[0], "GIT_AUTHOR_EMAIL": who[1], "GIT_COMMITTER_NAME": who[0],
               "GIT_COMMITTER_EMAIL": who[1], "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date,
               "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
        for args in (["add", "-A"], ["commit", "-q", "-m", name]):
            subprocess.run(["git", *args], cwd=clone, check=True, env=env, capture_output=True)
        commits[name] = subprocess.run(["git", "rev-parse", "HEAD"], cwd=clone, check=True, capture_output=True,
                                       text=True).stdout.strip()

    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=clone, check=True)
    text, tests = TEXT, TESTS
    commit("initial", ALICE, "2024-06-01T09:00:00+00:00", {
        "pyproject.toml": '[project]\nname = "text"\nversion = "0.1"\ndependencies = []\n',
        "text/__init__.py": "", "text/words.py": text, "tests/test_words.py": tests})
    text = text.replace("return s.upper()\n", "return s.lower()\n").replace("return s.lower()\n",
                                                                          "return s.upper()\n", 1)
    commit("src", ALICE, "2024-06-01T10:00:00+00:00", {"text/words.py": text})
    tests = tests.replace("import shout", "import shout, whisper") + \
        '\n\ndef test_whisper():\n    assert whisper("A") == "a"\n'
    commit("tests", ALICE, "2024-06-01T10:20:00+00:00", {"tests/test_words.py": tests})
    text += '\n\ndef title(s):\n    return s.title()\n'
    commit("later_src", ALICE, "2024-06-04T10:00:00+00:00", {"text/words.py": text})
    tests += '\n\ndef test_title():\n    from text.words import title\n    assert title("a b") == "A B"\n'
    commit("other_tests", BOB, "2024-06-04T10:10:00+00:00", {"tests/test_words.py": tests})
    text += '\n\ndef strip(s):\n    return s.strip()\n'
    commit("old_src", ALICE, "2024-06-08T10:00:00+00:00", {"text/words.py": text})
    tests += '\n\ndef test_strip():\n    from text.words import strip\n    assert strip(" a ") == "a"\n'
    late = datetime(2024, 6, 8, 10, tzinfo=UTC) + timedelta(hours=SERIES_HOURS, minutes=30)
    commit("late_tests", ALICE, late.isoformat(), {"tests/test_words.py": tests})
    return clone, commits


@pytest.fixture(scope="module")
def mined(tmp_path_factory, module_home):
    root = tmp_path_factory.mktemp("series")
    clone, commits = build(root)
    out = root / "rows.jsonl"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CODEWALK_HOME", str(module_home))
        summary = mine(str(clone), out, name="text/text", workers=1, runs=2)
    rows = {json.loads(line)["fix_commit"]: json.loads(line) for line in out.read_text().splitlines()}
    state = {json.loads(line)["commit"]: json.loads(line) for line in
             out.with_name(out.name + ".state").read_text().splitlines()}
    return clone, commits, summary.as_dict(), rows, state, out


def test_a_test_only_commit_and_the_source_only_commits_just_before_it_by_its_author_are_one_candidate(mined):
    _, commits, summary, rows, _, _ = mined
    row = rows[commits["tests"]]
    assert row["mined"]["kind"] == "series"
    assert row["mined"]["commits"] == [commits["src"], commits["tests"]]  # provenance, oldest first
    assert row["base_commit"] == commits["initial"]
    assert patch_files(row["patch"]) == ["text/words.py"] and patch_files(row["test_patch"]) == ["tests/test_words.py"]
    assert row["FAIL_TO_PASS"] == ["tests/test_words.py::test_whisper"]
    assert row["problem_statement"] == "src\n\ntests"  # both messages, oldest first
    assert summary["candidate_kinds"] == {"series": 1}


def test_a_test_only_commit_after_another_authors_or_a_too_old_source_commit_is_not_a_candidate(mined):
    _, commits, _, rows, state, _ = mined
    for name in ("other_tests", "late_tests"):
        assert (state[commits[name]]["status"], state[commits[name]]["reason"]) == ("skipped", "no_source_change")
    assert set(rows) == {commits["tests"]}


def test_the_account_says_per_repository_what_limited_the_yield(mined):
    _, _, summary, _, _, _ = mined
    stages = {r["stage"]: r["count"] for r in summary["account"] if r["repository"] == "text/text"}
    assert stages == {"commits scanned": 7, "skipped: root_commit": 1, "skipped: no_test_change": 3,
                      "skipped: no_source_change": 2, "candidates": 1, "kept": 1, "atoms in the rows": 1,
                      "pairs sharing a file": 0, "largest level N": 1}


def test_mining_that_kept_no_pair_suggests_no_walk_and_says_what_would(mined, tmp_path, capsys):
    clone, _, summary, _, _, out = mined
    assert (summary["largest_level"], summary["graph"]["text/text"]["edges"]) == (1, 0)
    copy = tmp_path / "rows.jsonl"  # every commit decided already: the command prints at once
    shutil.copy(out, copy)
    shutil.copy(out.with_name(out.name + ".state"), tmp_path / "rows.jsonl.state")
    code, stdout, stderr = cw(capsys, "mine", "repair", str(clone), "--out", str(copy), "--name", "text/text")
    assert code == 0, stderr
    said = " ".join(stdout.split())  # as read, whatever the terminal's width wrapped
    assert "cw walk" not in said
    assert "No walk" in said and "--since" in said and "another repository" in said
    assert "what limited the yield" in said and "no_source_change" in said


def test_a_graph_whose_every_pair_fails_to_compose_gets_no_walk_hint():
    from collections import Counter

    from codewalk.domains.repair.mine import MineSummary
    from codewalk.domains.repair.minegraph import Level

    summary = MineSummary("pytoolz/toolz", "rows.jsonl", {}, 3, kept=3)
    summary.graph = {"pytoolz/toolz": Level(3, 3, 3, "size of the largest connected component",
                                            Counter({"misplaced_hunk": 2, "test_patch_conflict": 1}))}
    assert summary.next_step().startswith("No walk: the mined atoms support N up to 3, but none of the 3 pair(s)")
    summary.graph["pytoolz/toolz"] = Level(3, 3, 3, "size of the largest connected component",
                                           Counter({"misplaced_hunk": 2, "composes": 1}))
    assert "cw walk --domain repair --n 2" in summary.next_step() and "of 3 pairs composed, 1 compose" in summary.next_step()


def test_the_hint_asks_for_no_more_tasks_than_pairs_that_compose():
    """cachetools: 10 of 50 pairs composed, and the hinted walk (default --count 10) made 9 and exited 7."""
    from collections import Counter

    from codewalk.domains.repair.mine import MineSummary
    from codewalk.domains.repair.minegraph import Level

    summary = MineSummary("tkem/cachetools", "rows.jsonl", {}, 15, kept=15)
    summary.graph = {"tkem/cachetools": Level(15, 4, 4, "size of the largest connected component",
                                              Counter({"misplaced_hunk": 1, "composes": 3}))}
    assert "cw walk --domain repair --n 2 --count 3 " in summary.next_step()
    summary.graph["tkem/cachetools"] = Level(15, 60, 9, "size of the largest connected component",
                                             Counter({"misplaced_hunk": 10, "composes": 40}))  # not every pair checked
    assert "--n 2 (" in summary.next_step() and "--count" not in summary.next_step()
