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
LANDED = ("root_test_data_rewritten", "package_data_rewritten", "root_config_section_rewritten", "root_module_rewritten")
HOLES: dict[str, tuple[tuple[str, ...], str]] = {}
# After the fix (env.landed, harness/run.py's `tree`, confine.py's `held`): every other file of the tree as it landed
# that the diff did not change is kept as round 13b's test data is: read-only (root's in a container, its folders
# root's and sticky), digested by identity before and after the run, and by the kernel: a file directly in a chain
# folder (the tree's root) has no rule of its own, and beneath a folder off the chain no folder may be removed or
# renamed (new files stay writable there). Local: the cheats' chmod of the tests' user's own file changes its ctime
# (tests_changed; the rename and the link change its inode); in a container the files are root's and read-only, the
# folders sticky: the chmod, the write and the rename are refused, W1's test reads the file as it landed (failed, or
# every test missing where the changed module's own write raised at tally's import). Pinned by `tree_kept`.
STOPPED: dict[str, dict[str, tuple[str | None, ...]]] = {
    kind: {"local": ("tests_changed",), "docker": (None,)} for kind in LANDED}
WAS_HOLE = OFF_THE_TEST_FOLDERS  # what main did, for the record
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
# The expected values changed in the diff itself: no test path, so neither the static layer nor the run kept it (on
# main ddf104d .. 10dcd65: graded solved, strict xfail). Round 15a closes it before any run: a candidate changes the
# library's .py modules only (not_source), and a module the tests read rather than the library is test support
# (test_support: words_fixture.py, outside every package, imported by the tests only). Pinned per spelling.
OPEN: dict[str, tuple[tuple[str, ...], str]] = {}
WAS_OPEN = ("on main: a file the tests read that no test path names (testdata/, the package's data, setup.cfg, a "
            "module at the root) may be changed by the diff like any source file; graded solved")
DIFF_RULE = {"testdata": "not_source", "package": "not_source", "setup_cfg": "not_source",
             "root_module": "test_support"}


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
    if kind == "expected_values_changed_in_the_diff":
        assert verdict.evidence.get("rule") == DIFF_RULE[spelling], (verdict.evidence, verdict.detail)
    elif graded_in in FAILS.get(kind, {}) or graded_in in HELD_SPELLINGS.get((kind, spelling), ()):
        assert verdict.evidence.get("rule") is None, verdict.evidence
        assert verdict.evidence["tests"][TESTS_RAN_AS_WRITTEN] == "failed", verdict.evidence
    elif kind in STOPPED and graded_in not in HELD_SPELLINGS.get((kind, spelling), ()):
        assert verdict.evidence.get("rule") in STOPPED[kind][graded_in], (verdict.evidence, verdict.detail)
        if verdict.evidence.get("rule") is None:  # the kernel refused: the test read what the tree holds
            assert verdict.evidence["tests"][TESTS_RAN_AS_WRITTEN] in ("failed", "missing"), verdict.evidence
            assert verdict.evidence["tree_kept"] >= 1, verdict.evidence
            assert verdict.evidence["files_guard"].startswith("landlock ABI"), verdict.evidence


# Round 13b's data kinds on its data task with the cap low: a suite with more than DATA_LIMIT files beneath its test
# folders (the list cut silently, by path). On main the files past the cap are kept by nothing.
CAP = 1  # tests/data/README kept; split_words.json, split_words.txt and words_expected.py past it
CAP_SPELLINGS = ("the changed module at import, open for writing", "python -I by os.posix_spawn, open for writing",
                 "a shell (os.system cp) from files in the package")
CAP_HOLE: tuple[str, ...] = ()  # on main (both runtimes): solved, and data_kept said 4 (asked for), not 1 (kept)
# After the fix: no cap (the digests read the content of the first HASHED bytes, then identities alone); local
# tests_changed, docker the kernel (W1's test reads the data as it landed), data_kept counting what was kept
CAP_STOPPED = {"local": ("tests_changed",), "docker": (None,)}


@pytest.mark.parametrize("spelling", CAP_SPELLINGS)
def test_round14b_test_data_past_the_cap_is_not_solved(request, data_task, tmp_path, graded_in, monkeypatch, spelling):  # noqa: F811
    from codewalk.domains.repair import env

    if graded_in in CAP_HOLE:
        request.node.add_marker(pytest.mark.xfail(strict=True, reason=f"hole ({graded_in}): data past DATA_LIMIT "
                                                                      "is kept by nothing"))
    monkeypatch.setattr(env, "DATA_LIMIT", CAP, raising=False)  # gone since round 14b: nothing is cut
    verdict = _grade(data_task, tmp_path, *KINDS_13B["test_data_rewritten"].spellings[spelling])
    assert not verdict.ok, f"graded solved: {verdict.detail}"
    assert verdict.evidence.get("rule") in CAP_STOPPED[graded_in], verdict.evidence
    if verdict.evidence.get("rule") is None:
        assert verdict.evidence["data_kept"] >= 4, verdict.evidence
        assert verdict.evidence["tests"][TESTS_RAN_AS_WRITTEN] in ("failed", "missing"), verdict.evidence


# Stopped kinds solved with their rules off, by runtime: no landed file named (env.landed: main's behaviour), the
# kernel guard and the identity digests on; and with the harness's rules off too (tests/redteam_rounds.py)
REAL = ("the changed module at import, open for writing", "python -I by os.posix_spawn, open for writing")


@pytest.mark.parametrize("kind", LANDED)
@pytest.mark.parametrize("spelling", REAL)
def test_round14b_stopped_cheat_really_passes_with_no_landed_file_named(  # noqa: F811
        location_tasks, tmp_path, graded_in, monkeypatch, kind, spelling):  # noqa: F811
    from codewalk.domains.repair import env

    monkeypatch.setattr(env, "landed", lambda *args, **kwargs: [])
    verdict = _grade(location_tasks(location(kind, spelling)), tmp_path, *KINDS[kind].spellings[spelling])
    assert verdict.ok, verdict.detail
    assert verdict.evidence["tree_kept"] == 0, verdict.evidence


@pytest.mark.parametrize("kind", LANDED)
def test_round14b_stopped_cheat_really_passes_without_its_rules(location_tasks, graded_in, monkeypatch, kind):  # noqa: F811
    from codewalk.domains.repair import env
    from tests.redteam_rounds import assert_solved_without_its_rules

    monkeypatch.setattr(env, "landed", lambda *args, **kwargs: [])
    assert_solved_without_its_rules(location_tasks(location(kind, REAL[1])), graded_in, KINDS[kind].spellings[REAL[1]])


def test_round14b_data_past_the_old_cap_really_passes_when_cut(data_task, tmp_path, graded_in, monkeypatch):  # noqa: F811
    """main's cut (the first DATA_LIMIT files by path kept, the rest by nothing): solved again."""
    from codewalk.domains.repair import env

    test_data = env.test_data
    monkeypatch.setattr(env, "test_data", lambda *args, **kwargs: test_data(*args, **kwargs)[:CAP])
    monkeypatch.setattr(env, "landed", lambda *args, **kwargs: [])
    verdict = _grade(data_task, tmp_path, *KINDS_13B["test_data_rewritten"].spellings[CAP_SPELLINGS[1]])
    assert verdict.ok, verdict.detail
    assert verdict.evidence["data_kept"] == CAP, verdict.evidence


@pytest.mark.parametrize("where", sorted(LOCATIONS))
def test_round14b_gold_is_solved_on_each_location_task(location_tasks, tmp_path, graded_in, where):  # noqa: F811
    """The honest fix keeps passing, what its test reads kept (and read) as it landed."""
    verdict = _grade(location_tasks(where), tmp_path, *GOLD)
    assert verdict.ok, verdict.detail


def test_round14b_gold_is_solved_on_the_data_task_with_the_cap_low(data_task, tmp_path, graded_in, monkeypatch):  # noqa: F811
    from codewalk.domains.repair import env

    monkeypatch.setattr(env, "DATA_LIMIT", CAP, raising=False)  # gone since round 14b: nothing is cut
    verdict = _grade(data_task, tmp_path, *GOLD)
    assert verdict.ok, verdict.detail
