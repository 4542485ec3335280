"""The repair domain for real: git worktrees, one cached virtualenv and pytest, on the tally repository
that tests/repair_fixture.py builds. Every admission case of the paper happens on purpose there; the
walk admits or rejects every group of levels 1-3 once, and the tests read the stored evidence."""

from __future__ import annotations

import platform
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from codewalk.admission import WalkSummary, walk_and_admit
from codewalk.cli import main
from codewalk.domains.repair import RepairDomain, _escapes, to_swebench_row
from codewalk.domains.repair.capabilities import REVIEWED, Reviewed
from codewalk.domains.repair.env import find_python
from codewalk.domains.repair.git import Mirrors, Worktrees
from codewalk.domains.repair.junit import read_report, statuses
from codewalk.errors import InfraError
from codewalk.loading import load
from codewalk.records import Composite, Task, task_id
from codewalk.store import GraphStore, open_store
from tests import repair_fixture

# Every group of the fixture graph, by level and outcome (see the history in tests/repair_fixture.py).
YIELDS = {
    1: {"admitted": 9, "reference_fails": 1},
    2: {"admitted": 8, "atom_solved": 2, "reference_conflict": 1, "misplaced_hunk": 1, "reference_fails": 3},
    3: {"admitted": 6, "atom_solved": 4, "reference_conflict": 2, "misplaced_hunk": 1, "reference_fails": 2},
}


@dataclass
class Walked:
    fixture: repair_fixture.Fixture
    store: GraphStore
    summaries: dict[int, WalkSummary]

    def task(self, *names: str) -> dict:
        ids = tuple(sorted(self.fixture.atom(n) for n in names))
        found = self.store.get_task(task_id("repair", ids, RepairDomain.composer_version))
        assert found is not None, f"group {names} was not attempted"
        return found

    def composite(self, *names: str) -> Composite:
        t = self.task(*names)
        return Composite(t["prompt"], t["reference"], t["verifier"])


pytestmark = pytest.mark.usefixtures("shared_home")  # one home: the virtualenv is built once


@pytest.fixture(scope="module")
def walked(tmp_path_factory, module_home):
    root = tmp_path_factory.mktemp("tally")
    fixture = repair_fixture.build(root)
    rows = fixture.write_rows(root / "rows.jsonl")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CODEWALK_HOME", str(module_home))
        store = open_store(root / "graph.lbug")
        load(store, "repair", rows, {"repos": str(fixture.repos)})
        # two workers: the same tasks as one (admission keeps submission order), and the caches get shared
        summaries = {n: walk_and_admit(store, "repair", n, count=100, seed=11, workers=2) for n in (1, 2, 3)}
    yield Walked(fixture, store, summaries)
    store.close()


def _git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=check)


# -- yields ------------------------------------------------------------------------------------------
def test_every_group_is_attempted_once_with_the_expected_outcome(walked):
    for n, summary in walked.summaries.items():
        assert dict(summary.by_reason) == YIELDS[n], f"level {n}"
        assert summary.attempted == sum(YIELDS[n].values()) and summary.admitted == YIELDS[n]["admitted"]
    stored = {(r["level"], r["reason"]): r["tasks"] for r in walked.store.yields("repair")}
    assert stored == {(n, reason): k for n, reasons in YIELDS.items() for reason, k in reasons.items()}


# -- the admission cases ---------------------------------------------------------------------------------
def test_pair_sharing_a_file_is_admitted_with_its_evidence(walked):
    fx = walked.fixture
    task = walked.task("W1", "W2")
    assert (task["status"], task["reason"]) == ("admitted", "admitted")
    v, ev = task["verifier"], task["evidence"]
    assert v["base_commit"] == fx.commits["initial"]  # c* = the base of W1, the earlier fix
    assert v["order"] == [fx.atom("W1"), fx.atom("W2")]
    assert ev["reference"]["passes"] and set(ev["reference"]["tests"].values()) == {"passed"}
    methods = [(a["patch"], a["method"]) for a in ev["reference"]["apply"]]
    assert methods == [("test", "strict")] * 2 + [("gold", "strict")] * 2
    assert [a["unsolved"] for a in ev["atoms"]] == [True, True]
    assert all(set(a["tests"].values()) == {"failed"} for a in ev["atoms"])
    assert "tally/words.py" in task["reference"] and "tally/fmt.py" in task["reference"]


def test_second_bug_already_fixed_at_c_star_is_rejected_by_check_1(walked):
    fx = walked.fixture
    task = walked.task("W1", "W3")  # W3 fixes a regression introduced after c*
    assert (task["status"], task["reason"]) == ("rejected", "atom_solved")
    ev = task["evidence"]
    assert ev["reference"]["passes"]
    gold_w3 = next(a for a in ev["reference"]["apply"] if a["atom"] == fx.atom("W3") and a["patch"] == "gold")
    assert gold_w3["method"] == "3way"  # the fix restores what c* already has: both sides agree
    solved = {a["atom"]: a for a in ev["atoms"]}
    assert solved[fx.atom("W1")]["unsolved"] and not solved[fx.atom("W3")]["unsolved"]
    assert solved[fx.atom("W3")]["tests"] == {"tests/test_words.py::test_strip_punct_leading": "passed"}
    assert "already solved" in solved[fx.atom("W3")]["detail"]


def test_conflicting_gold_patches_are_rejected_by_check_2(walked):
    task = walked.task("F2", "F3")
    assert (task["status"], task["reason"]) == ("rejected", "reference_conflict")
    assert not task["evidence"]["reference"]["passes"]
    assert walked.fixture.ids["F3"] in task["evidence"]["reference"]["detail"]
    assert "atoms" not in task["evidence"]  # check (1) is not run once (2) fails


def test_test_patch_that_applies_only_3way_is_admitted_and_says_so(walked, tmp_path):
    fx = walked.fixture
    task = walked.task("W2", "F1")
    assert task["status"] == "admitted"
    methods = {(a["atom"], a["patch"]): a["method"] for a in task["verifier"]["apply"]}
    assert methods[(fx.atom("F1"), "test")] == "3way"
    # and plain `git apply` really refuses it there: c* (W2's base) with W2's test patch
    rows = {r["instance_id"]: r for r in fx.rows}
    _git(tmp_path, "clone", "-q", str(fx.clone), "x")
    clone = tmp_path / "x"
    _git(clone, "checkout", "-q", rows[fx.ids["W2"]]["base_commit"])
    (tmp_path / "w2.diff").write_text(rows[fx.ids["W2"]]["test_patch"])
    (tmp_path / "f1.diff").write_text(rows[fx.ids["F1"]]["test_patch"])
    _git(clone, "apply", str(tmp_path / "w2.diff"))
    assert _git(clone, "apply", "--check", str(tmp_path / "f1.diff"), check=False).returncode != 0


def test_hunk_landing_in_the_wrong_function_is_rejected_despite_a_clean_apply(walked):
    task = walked.task("S1", "M")
    assert (task["status"], task["reason"]) == ("rejected", "misplaced_hunk")
    detail = task["evidence"]["compose"]
    assert "tests/test_stats.py::test_median_of_sample" in detail and "applied strict" in detail
    # with K, whose fix created test_median_of_sample, the same test patch lands where it belongs
    assert walked.task("K", "M")["status"] == walked.task("S1", "K", "M")["status"] == "admitted"


def test_truncated_test_id_is_missing_from_the_report_so_check_2_fails(walked):
    task = walked.task("S4")
    assert (task["status"], task["reason"]) == ("rejected", "reference_fails")
    assert set(task["evidence"]["reference"]["tests"].values()) == {"missing"}


def test_group_is_composed_in_fix_date_order_whatever_order_it_arrives_in(walked):
    fx = walked.fixture
    task = walked.task("S1", "K", "M")
    assert task["atoms"] == sorted(task["atoms"])  # the walk's group, as stored
    assert task["verifier"]["order"] == [fx.atom("S1"), fx.atom("K"), fx.atom("M")]
    assert task["verifier"]["base_commit"] == fx.commits["W1"]  # S1's base: the W1 fix commit
    assert task["verifier"]["created_at"] == "2024-04-10T10:00:00+00:00"  # the latest fix, M's


def test_one_environment_serves_every_group(walked, module_home):
    envs = [p for p in (module_home / "cache" / "repair" / "envs").iterdir() if p.is_dir()]
    assert len(envs) == 1
    env = walked.task("W1", "W2")["evidence"]["reference"]["env"]
    assert env["venv"] == str(envs[0]) and env["notes"] == []
    assert env["python_used"] == platform.python_version()


# -- grading -----------------------------------------------------------------------------------------
def _candidate(walked: Walked, composite: Composite, tmp_path: Path, edit: Callable[[Path], None]) -> str:
    """A model patch: the diff of an edit made on x_G (a scratch clone at c* with the test patch)."""
    clone = tmp_path / "candidate"
    _git(tmp_path, "clone", "-q", str(walked.fixture.clone), str(clone))
    _git(clone, "checkout", "-q", composite.verifier["base_commit"])
    (tmp_path / "tests.diff").write_text(composite.verifier["test_patch"])
    _git(clone, "apply", "--index", str(tmp_path / "tests.diff"))
    x_g = _git(clone, "write-tree").stdout.strip()
    edit(clone)
    _git(clone, "add", "-A")
    return _git(clone, "diff", "--cached", x_g).stdout


def _replace(path: str, old: str, new: str) -> Callable[[Path], None]:
    def edit(root: Path) -> None:
        text = (root / path).read_text()
        assert old in text
        (root / path).write_text(text.replace(old, new))
    return edit


def test_grade_passes_the_reference_and_fails_a_partial_fix(walked, tmp_path):
    composite = walked.composite("W1", "W2")
    domain = RepairDomain()
    assert domain.grade(composite, composite.reference).ok
    fix_w1 = _replace("tally/words.py", 'return [w for w in text.split(" ") if w]', "return text.split()")
    only_w1 = _candidate(walked, composite, tmp_path, fix_w1)
    verdict = domain.grade(composite, only_w1)
    assert not verdict.ok and verdict.evidence["apply"] == "strict"
    assert verdict.evidence["tests"] == {"tests/test_words.py::test_split_words_tabs_and_newlines": "passed",
                                         "tests/test_words.py::test_unique_words_ignores_case": "failed",
                                         "tests/test_fmt.py::test_format_unique_ignores_case": "failed",
                                         "tests/test_words.py::test_split_words_spaces": "passed",
                                         "tests/test_words.py::test_longest_word": "passed",
                                         "tests/test_words.py::test_unique_words_basic": "passed",
                                         "tests/test_fmt.py::test_format_unique_basic": "passed"}


def test_the_gold_patches_of_every_admitted_task_land_without_a_refusal(walked):
    """Admission (2) ran the joint reference; the grader's rules on what lands must let every one of them
    through, or an admitted task could not be solved by its own reference."""
    domain = RepairDomain()
    admitted = [Task.from_row(t) for n in (1, 2, 3) for t in walked.store.select_tasks("repair", "admitted", n)]
    assert len(admitted) == sum(YIELDS[n]["admitted"] for n in YIELDS)
    refused = {t.id: domain.refusal(Composite(t.prompt, t.reference, t.verifier), t.reference) for t in admitted}
    assert {k: why for k, why in refused.items() if why} == {}


def test_a_joint_reference_the_grader_would_refuse_is_not_admitted(walked, tmp_path):
    """Check (2) runs the grader's rules on Ref(G): a gold fix that gains a capability the rules refuse
    (here introspection of the caller's frame) would make a task its own reference cannot solve."""
    composite = walked.composite("W1", "W2")
    gains = _replace("tally/words.py", 'return [w for w in text.split(" ") if w]',
                     'import sys\n    sys._getframe(0)\n    return text.split()')
    reference = _candidate(walked, composite, tmp_path, gains)
    check = RepairDomain().check_reference(Composite(composite.prompt, reference, dict(composite.verifier)), [])
    assert not check.ok and check.reason == "reference_refused" and "frame" in check.detail


def test_grade_counts_a_skipped_test_as_failed(walked, tmp_path):
    composite = walked.composite("W1", "W2")

    def fix_w2_and_skip_w1(root: Path) -> None:
        _replace("tally/words.py", "        key = w\n", "        key = w.lower()\n")(root)
        _replace("tally/fmt.py", "sorted(unique_words(words))",
                 "sorted(unique_words(words), key=str.lower)")(root)
        _replace("tally/words.py", '    return [w for w in text.split(" ") if w]',
                 '    import unittest\n    raise unittest.SkipTest("not today")')(root)

    verdict = RepairDomain().grade(composite, _candidate(walked, composite, tmp_path, fix_w2_and_skip_w1))
    assert not verdict.ok
    assert verdict.evidence["tests"]["tests/test_words.py::test_split_words_tabs_and_newlines"] == "skipped"


SYMLINK = ("diff --git a/tally/link.py b/tally/link.py\nnew file mode 120000\nindex 0000000..1111111\n"
           "--- /dev/null\n+++ b/tally/link.py\n@@ -0,0 +1 @@\n+/etc/passwd\n\\ No newline at end of file\n")


@pytest.mark.parametrize("patch, why", [
    ("", "the patch is empty"),
    ("--- a/tests/test_words.py\n+++ b/tests/test_words.py\n@@ -1 +1 @@\n-x\n+y\n", "edits the test file"),
    ("--- a/../evil.py\n+++ b/../evil.py\n@@ -0,0 +1 @@\n+x = 1\n", "leaves the repository"),
    ("--- /dev/null\n+++ b//tmp/evil.py\n@@ -0,0 +1 @@\n+x = 1\n", "absolute path"),
    (SYMLINK, "creates the symlink"),
    ("--- tally/words.py\n+++ tally/words.py\n@@ -1 +1 @@\n-x\n+y\n", "a/ and b/ prefixes"),
])
def test_grade_refuses_edits_to_tests_and_paths_outside_the_repository(walked, patch, why):
    verdict = RepairDomain().grade(walked.composite("W1", "W2"), patch)
    assert not verdict.ok and verdict.reason == "refused" and why in verdict.detail


def test_grade_refuses_a_patch_whose_headers_disagree_about_the_file(walked, tmp_path):
    composite = walked.composite("W1", "W2")
    rename = _replace("tests/test_words.py", "def test_", "def check_")
    sneaky = _candidate(walked, composite, tmp_path, rename)
    # ---/+++ name a source file, but GNU patch would follow the 'diff --git' line to the test file
    sneaky = sneaky.replace("--- a/tests/test_words.py", "--- a/tally/words.py").replace(
        "+++ b/tests/test_words.py", "+++ b/tally/words.py")
    verdict = RepairDomain().grade(composite, sneaky)
    assert (verdict.ok, verdict.reason) == (False, "refused") and "tests/test_words.py" in verdict.detail


def test_runner_that_dies_without_a_report_fails_when_the_reference_gives_a_verdict(walked, tmp_path,
                                                                                 monkeypatch):
    composite = walked.composite("W1", "W2")
    # killed at import by its own CPU limit (SIGXCPU), so the session never reports its end; the reference does.
    # The static allow-list refuses `resource` (it reaches the process): admitted here, to reach the run.
    monkeypatch.setitem(REVIEWED, "resource", Reviewed("this test: a run that dies"))
    crash = _replace("tally/words.py", '"""Words: splitting, cleaning and counting."""',
                     '"""Words: splitting, cleaning and counting."""\n'
                     "import resource\nresource.setrlimit(resource.RLIMIT_CPU, (1, 1))\nwhile True:\n    pass")
    verdict = RepairDomain().grade(composite, _candidate(walked, composite, tmp_path, crash))
    assert (verdict.ok, verdict.reason) == (False, "no_verdict"), verdict.detail
    # on Python 3.8+ the run-time guard stops it first: `resource` is outside its import allow-list
    assert ("without its final report" in verdict.evidence["no_verdict"]
            or (verdict.evidence.get("rule"), verdict.evidence.get("event")) == ("audit_denied", "import"))
    assert set(verdict.evidence["reference_tests"].values()) == {"passed"}


def test_tests_that_run_forever_fail_when_the_reference_gives_a_verdict(walked, tmp_path):
    composite = walked.composite("W1", "W2")
    domain = RepairDomain()
    domain.test_timeout = 10.0
    loop = _replace("tally/words.py", '    return [w for w in text.split(" ") if w]',
                    "    while True:\n        pass")
    verdict = domain.grade(composite, _candidate(walked, composite, tmp_path, loop))
    assert (verdict.ok, verdict.reason) == (False, "no_verdict") and "timed out" in verdict.detail


def test_no_verdict_for_the_candidate_nor_the_reference_is_an_infra_error(walked, tmp_path):
    composite = walked.composite("W1", "W2")
    domain = RepairDomain()
    domain.test_timeout = 0.01  # nothing finishes: the reference cannot give a verdict either
    with pytest.raises(InfraError, match="nor for the reference"):
        domain.grade(composite, composite.reference)


def test_grading_never_touches_the_users_clone_and_leaves_no_worktree(walked, module_home):
    clone = walked.fixture.clone

    def state():
        return [_git(clone, *args).stdout for args in (["status", "--porcelain"], ["worktree", "list"],
                                                         ["rev-parse", "HEAD"], ["for-each-ref"])]

    before = state()
    composite = walked.composite("W1", "W2")
    assert RepairDomain().grade(composite, composite.reference).ok
    assert state() == before
    mirror = Mirrors(module_home / "cache" / "repair" / "repos").path("tally/tally")
    assert "grade-" not in _git(mirror, "worktree", "list").stdout
    assert not list((module_home / "cache" / "repair" / "worktrees").glob("grade-*"))


# -- export ------------------------------------------------------------------------------------------
def test_export_row_is_a_swe_bench_instance_that_applies_with_plain_git(walked, tmp_path):
    fx = walked.fixture
    stored = walked.task("W2", "F1")
    row = to_swebench_row(stored)
    assert row["instance_id"] == stored["id"] and row["repo"] == "tally/tally"
    assert row["base_commit"] == fx.commits["S1"] and row["patch"] == stored["reference"]
    assert row["atoms"] == [fx.atom("W2"), fx.atom("F1")]
    methods = [(a["patch"], a["method"]) for a in row["apply_methods"]]
    assert methods == [("test", "strict"), ("test", "3way"), ("gold", "strict"), ("gold", "strict")]
    assert row["FAIL_TO_PASS"] == ["tests/test_words.py::test_unique_words_ignores_case",
                                   "tests/test_fmt.py::test_format_unique_ignores_case",
                                   "tests/test_fmt.py::test_pad_cuts_long_text"]
    assert "tests/test_fmt.py::test_pad_basic" in row["PASS_TO_PASS"]
    statement = row["problem_statement"]
    assert all(t in statement for t in row["FAIL_TO_PASS"]) and "more than one bug" in statement
    assert not re.search(r"\b(2|two)\b", statement)  # N is never revealed
    task = Task(stored["id"], "repair", tuple(stored["atoms"]), "admitted", "admitted", 0, "r", "", "",
                stored["prompt"], stored["reference"], stored["verifier"])
    assert to_swebench_row(task) == row == RepairDomain().export_row(task)
    # SWE-bench's harness applies both patches to base_commit with plain `git apply`
    _git(tmp_path, "clone", "-q", str(fx.clone), "x")
    clone = tmp_path / "x"
    _git(clone, "checkout", "-q", row["base_commit"])
    for part in ("test_patch", "patch"):
        (tmp_path / f"{part}.diff").write_text(row[part])
        _git(clone, "apply", str(tmp_path / f"{part}.diff"))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           *row["FAIL_TO_PASS"]], cwd=clone, capture_output=True, text=True, timeout=300,
                          check=False, env={"PYTHONPATH": str(clone)})
    assert done.returncode == 0, done.stdout


# -- machinery ---------------------------------------------------------------------------------------
def test_interpreter_the_machine_lacks_is_named_in_a_note():
    exe, version, note = find_python("1.0")
    assert (exe, version) == (sys.executable, platform.python_version())
    assert note.startswith("python 1.0 is not on this machine")
    here = f"{sys.version_info.major}.{sys.version_info.minor}"
    assert find_python(here) == (sys.executable, platform.python_version(), "")


def test_worktree_pool_gives_a_concurrent_caller_its_own_slot(walked, module_home, tmp_path):
    mirror = Mirrors(module_home / "cache" / "repair" / "repos").path("tally/tally")
    pool = Worktrees(tmp_path / "trees")
    commit = walked.fixture.commits["initial"]
    with pool.checkout(mirror, commit) as first, pool.checkout(mirror, commit) as second:
        assert first.path != second.path
        assert {_git(t.path, "rev-parse", "HEAD").stdout.strip() for t in (first, second)} == {commit}
        (first.path / "junk.txt").write_text("left over")
    with pool.checkout(mirror, commit) as again:  # reused, and reset
        assert again.path == first.path and not (again.path / "junk.txt").exists()


def test_cw_load_repair_takes_the_folder_of_clones(walked, tmp_path, capsys):
    rows = walked.fixture.write_rows(tmp_path / "rows.jsonl")
    argv = sys.argv
    sys.argv = ["cw", "--store", str(tmp_path / "cli.lbug"), "load", "repair", str(rows),
                "--opt", f"repos={walked.fixture.repos}", "--json"]
    try:
        main()
    except SystemExit as e:
        assert e.code in (0, None), capsys.readouterr().err
    finally:
        sys.argv = argv
    out = capsys.readouterr().out
    assert '"atoms": 10' in out and '"SHARES_FILE": 15' in out


def test_a_path_through_a_symlinked_directory_escapes_the_repository(tmp_path):
    (tmp_path / "repo" / "pkg").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "repo" / "docs").symlink_to(tmp_path / "elsewhere")
    assert _escapes(tmp_path / "repo", "docs/index.py")
    assert not _escapes(tmp_path / "repo", "pkg/core.py") and not _escapes(tmp_path / "repo", "new/file.py")


def test_every_exported_multi_bug_row_has_pass_to_pass_tests_that_exist_and_pass_with_its_gold_patch(
        walked, tmp_path):
    admitted = walked.store.select_tasks("repair", status="admitted")
    rows = [to_swebench_row(t) for t in admitted if len(t["atoms"]) > 1]
    assert len(rows) == YIELDS[2]["admitted"] + YIELDS[3]["admitted"]
    _git(tmp_path, "clone", "-q", str(walked.fixture.clone), "x")
    clone = tmp_path / "x"
    for row in rows:
        _git(clone, "checkout", "-q", "-f", row["base_commit"])
        _git(clone, "clean", "-q", "-f", "-d", "-x")
        for part in ("test_patch", "patch"):  # as SWE-bench's harness does: plain git apply on base_commit
            (tmp_path / f"{part}.diff").write_text(row[part])
            _git(clone, "apply", str(tmp_path / f"{part}.diff"))
        report = tmp_path / "report.xml"
        files = sorted({t.split("::")[0] for t in row["PASS_TO_PASS"]})
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        f"--junitxml={report}", *files], cwd=clone, capture_output=True, text=True, timeout=300, check=False,
                       env={"PYTHONPATH": str(clone)})
        outcomes = read_report(report)
        assert row["PASS_TO_PASS"], row["instance_id"]
        assert statuses(outcomes, row["PASS_TO_PASS"]) == {t: "passed" for t in row["PASS_TO_PASS"]}, \
            row["instance_id"]


def test_a_listed_pass_to_pass_test_missing_at_c_star_is_dropped_with_its_reason(walked):
    task = walked.task("W2", "F2")  # F2 lists M's test, which c* (W2's base) does not have
    mode = "tests/test_mode.py::test_mode_tie_picks_smallest"
    assert task["status"] == "admitted"
    assert task["evidence"]["reference"]["pass_to_pass_dropped"] == {mode: "missing at x_G"}
    assert mode in task["verifier"]["PASS_TO_PASS_listed"] and mode not in task["verifier"]["PASS_TO_PASS"]
    assert mode in walked.task("F2")["verifier"]["PASS_TO_PASS"]  # at F2's own base it exists and passes


def test_composes_position_follows_the_order_the_patches_are_applied(walked):
    tasks = [walked.store.get_task(t) for n in (2, 3) for t in walked.summaries[n].admitted_ids]
    assert tasks
    for task in tasks:
        assert task["atoms"] == task["verifier"]["order"]  # fix-date order, not the ids sorted as text
        assert [a["atom"] for a in task["evidence"]["atoms"]] == task["atoms"]  # check (1) positions agree
    # the fixture has groups whose fix-date order is not their ids sorted, so the old order would fail here
    assert any(t["atoms"] != sorted(t["atoms"]) for t in tasks)
