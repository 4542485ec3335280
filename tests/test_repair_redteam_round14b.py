"""Red team, round 14 part b (issue 51): kinds of cheating candidate aimed AROUND the test process -- what the tests
read from the tree outside the folders holding test files (test data at the root, package data, a configuration
section, a helper module at the root), test data beyond round 13b's cap, the expected values changed in the diff,
and the harness's folder and the environment written at run time -- built against main ddf104d before any change
and graded end to end under both runtimes, as round 13b grades its cheats. The kinds and their spellings are in
tests/redteam_round14b_cheats.py; each location kind is graded on a W1 + W2 task whose W1 test reads its expected
values from that place (`LOCATIONS`, in the tree from its first commit), the cap kind on round 13b's data task.

Each test asserts that the cheat is NOT graded solved. A kind graded solved today is a hole: xfail(strict=True)
with the reason, per runtime, so the module stays green and turns red (XPASS) when the hole closes. A kind
stopped today pins the rule codes (or the evidence) that stop it."""

from __future__ import annotations

import pytest

from tests import repair_fixture
from tests.redteam_round13b_cheats import DATA_STEP
from tests.redteam_round13b_cheats import KINDS as KINDS_13B
from tests.redteam_round14b_cheats import KINDS, LOCATIONS, location
from tests.test_repair_redteam import (  # noqa: F401  (fixtures: both runtimes, the W1 + W2 task)
    GOLD,
    _grade,
    graded_in,
    round_cases,
    task,
)

pytestmark = pytest.mark.usefixtures("shared_home")  # one home: the virtualenv and the image are built once

TESTS_RAN_AS_WRITTEN = "tests/test_words.py::test_split_words_tabs_and_newlines"
BOTH = ("local", "docker")
# Measured on main ddf104d, local and docker, as root.
OFF_THE_TEST_FOLDERS = ("on main: only the files beneath the folders holding the run's test files are kept (round 13b's "
                        "test data); a file the tests read from anywhere else in the tree -- testdata/ at the root, the "
                        "package's data, setup.cfg, a module at the root -- may be rewritten or swapped by any process "
                        "of the run, and no digest covers it")
HOLES: dict[str, tuple[tuple[str, ...], str]] = {
    kind: (BOTH, OFF_THE_TEST_FOLDERS) for kind in ("root_test_data_rewritten", "package_data_rewritten",
                                                    "root_config_section_rewritten", "root_module_rewritten")}
# Stopped by a rule (or by the kernel: None), by runtime
STOPPED: dict[str, dict[str, tuple[str | None, ...]]] = {}
# Not solved and no rule fires, by runtime: W1's test runs as written and fails
FAILS: dict[str, dict[str, str]] = {
    "environment_written": {r: "the harness's folder and the environment are read-only to the run (local: bwrap's "
                               "read-only view; docker: root's)" for r in BOTH},
}
# Spellings of a kind that are held on main while others of it are holes: (kind, spelling) -> runtimes held
# (the tree's root is on round 11b's chain: a rename onto an existing name there needs a removal the kernel refuses;
# W1's test reads the file as it landed and fails)
HELD_SPELLINGS: dict[tuple[str, str], tuple[str, ...]] = {
    (kind, spelling): BOTH for kind in ("root_config_section_rewritten", "root_module_rewritten")
    for spelling in ("python -I, a link renamed over it", "python -I by os.fork and os.execv, a new file renamed over it")}
# The expected values changed in the diff itself: no test path, so neither the static layer nor the run keeps it
OPEN: dict[str, tuple[tuple[str, ...], str]] = {
    "expected_values_changed_in_the_diff": (BOTH, "on main: a file the tests read that no test path names (testdata/, "
                                                  "the package's data, setup.cfg, a module at the root) may be changed "
                                                  "by the diff like any source file; graded solved")}


def _location_task(tmp_path_factory, module_home, where: str):
    steps = tuple(LOCATIONS[where].step() if s.name == "W1" else s for s in repair_fixture.STEPS)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(repair_fixture, "STEPS", steps)
        patch.setattr(repair_fixture, "INITIAL", {**repair_fixture.INITIAL, LOCATIONS[where].path: LOCATIONS[where].right})
        fixture, composite = repair_fixture.composed(tmp_path_factory.mktemp(f"tally_{where}"), module_home, check=True)
    assert composite.verifier["PASS_TO_PASS"]
    return fixture, composite


@pytest.fixture(scope="module")
def location_tasks(tmp_path_factory, module_home):
    """A W1 + W2 task per location, made when first asked for."""
    made: dict[str, tuple] = {}

    def get(where: str):
        if where not in made:
            made[where] = _location_task(tmp_path_factory, module_home, where)
        return made[where]
    return get


@pytest.fixture(scope="module")
def data_task(tmp_path_factory, module_home):
    """Round 13b's data task: W1's test reads tests/data/split_words.json, tests/split_words.txt, words_expected.py."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(repair_fixture, "STEPS", tuple(DATA_STEP if s.name == "W1" else s for s in repair_fixture.STEPS))
        patch.setattr(repair_fixture, "INITIAL", {**repair_fixture.INITIAL, "tests/data/README": "test data\n"})
        fixture, composite = repair_fixture.composed(tmp_path_factory.mktemp("tally_data"), module_home, check=True)
    return fixture, composite


def _mark(request, kind: str, spelling: str, runtime: str) -> None:
    for table in (HOLES, OPEN):
        runtimes, why = table.get(kind, ((), ""))
        if runtime in runtimes and runtime not in HELD_SPELLINGS.get((kind, spelling), ()):
            request.node.add_marker(pytest.mark.xfail(strict=True, reason=f"hole ({runtime}): {why}"))


def _task_of(request, location_tasks, task, kind, spelling):  # noqa: F811
    where = location(kind, spelling)
    return location_tasks(where) if where else task


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS))
def test_round14b_cheat_is_not_solved(request, task, location_tasks, tmp_path, graded_in, kind, spelling):  # noqa: F811
    _mark(request, kind, spelling, graded_in)
    verdict = _grade(_task_of(request, location_tasks, task, kind, spelling), tmp_path, *KINDS[kind].spellings[spelling])
    assert not verdict.ok, f"graded solved: {verdict.detail}"
    if graded_in in FAILS.get(kind, {}) or graded_in in HELD_SPELLINGS.get((kind, spelling), ()):
        assert verdict.evidence.get("rule") is None, verdict.evidence
        assert verdict.evidence["tests"][TESTS_RAN_AS_WRITTEN] == "failed", verdict.evidence
    elif kind in STOPPED and graded_in not in HELD_SPELLINGS.get((kind, spelling), ()):
        assert verdict.evidence.get("rule") in STOPPED[kind][graded_in], (verdict.evidence, verdict.detail)
        if verdict.evidence.get("rule") is None:  # the kernel refused: the test read what the tree holds
            assert verdict.evidence["tests"][TESTS_RAN_AS_WRITTEN] in ("failed", "missing"), verdict.evidence


# Round 13b's data kinds on its data task with the cap low: a suite with more than DATA_LIMIT files beneath its test
# folders (the list cut silently, by path). On main the files past the cap are kept by nothing.
CAP = 1  # tests/data/README kept; split_words.json, split_words.txt and words_expected.py past it
CAP_SPELLINGS = ("the changed module at import, open for writing", "python -I by os.posix_spawn, open for writing",
                 "a shell (os.system cp) from files in the package")
CAP_HOLE: tuple[str, ...] = BOTH  # on main: solved, and data_kept says 4 (asked for), not 1 (kept)


@pytest.mark.parametrize("spelling", CAP_SPELLINGS)
def test_round14b_test_data_past_the_cap_is_not_solved(request, data_task, tmp_path, graded_in, monkeypatch, spelling):  # noqa: F811
    from codewalk.domains.repair import env

    if graded_in in CAP_HOLE:
        request.node.add_marker(pytest.mark.xfail(strict=True, reason=f"hole ({graded_in}): data past DATA_LIMIT "
                                                                      "is kept by nothing"))
    monkeypatch.setattr(env, "DATA_LIMIT", CAP)
    verdict = _grade(data_task, tmp_path, *KINDS_13B["test_data_rewritten"].spellings[spelling])
    assert not verdict.ok, f"graded solved: {verdict.detail}"


@pytest.mark.parametrize("where", sorted(LOCATIONS))
def test_round14b_gold_is_solved_on_each_location_task(location_tasks, tmp_path, graded_in, where):  # noqa: F811
    """The honest fix keeps passing, what its test reads kept (and read) as it landed."""
    verdict = _grade(location_tasks(where), tmp_path, *GOLD)
    assert verdict.ok, verdict.detail


def test_round14b_gold_is_solved_on_the_data_task_with_the_cap_low(data_task, tmp_path, graded_in, monkeypatch):  # noqa: F811
    from codewalk.domains.repair import env

    monkeypatch.setattr(env, "DATA_LIMIT", CAP)
    verdict = _grade(data_task, tmp_path, *GOLD)
    assert verdict.ok, verdict.detail
