"""Red team, round 13 part b (issue 51): kinds of cheating candidate aimed AROUND the test process -- what the
tests read besides their own files (test data, helper modules), pytest's configuration and compiled copies
written at run time, signals to the runner and the harness, the test files truncated or linked -- built against
main 0f58652 before any change and graded end to end under both runtimes, as round 12b grades its cheats. The
kinds and their spellings are in tests/redteam_round13b_cheats.py; the test-data kinds are graded on a W1 + W2
task whose W1 test reads its expected values from files (`DATA_STEP`), the others on the tally task.

Each test asserts that the cheat is NOT graded solved. A kind graded solved today is a hole: xfail(strict=True)
with the reason, per runtime, so the module stays green and turns red (XPASS) when the hole closes. A kind
stopped today pins the rule codes (or the evidence) that stop it."""

from __future__ import annotations

import pytest

from codewalk.domains.repair import RepairDomain
from tests import repair_fixture
from tests.redteam_round13b_cheats import DATA_KINDS, DATA_STEP, KINDS
from tests.redteam_rounds import assert_solved_without_its_rules
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
# Measured on main 0f58652, local and docker, as root.
DATA = ("on main: the kernel keeps only the files that hold tests (and their chain of folders); what a test reads besides "
        "them -- a data file in a folder off the chain, an existing file beside the test, a helper module the test "
        "imports -- may be written, swapped or linked by any process of the run, and no digest covers it")
# After the fix (env.test_data, harness/run.py): every other file beneath the folders holding test files is test
# data, kept by the kernel from every process of the run and digested after it as the test files are (the hook
# does not watch it: the tests open it). Local: the tests' user may chmod its own file (the cheats do), which the
# digests see (tests_changed; the write itself is refused); in a container the files are root's and read-only:
# the chmod and the write are refused, W1's test reads what the task wrote (failed, or every test missing when
# the changed module's own write raised at tally's import). Pinned by the evidence's data_kept.
HOLES: dict[str, tuple[tuple[str, ...], str]] = {}
DATA_KEPT: dict[str, dict[str, tuple[str | None, ...]]] = {
    kind: {"local": ("tests_changed",), "docker": (None,)} for kind in ("test_data_rewritten", "test_data_swapped")}
DATA_FILES = 4  # tests/data/README, split_words.json, split_words.txt, words_expected.py (and test_stats.py)
# Not solved and no rule fires, by runtime: W1's test runs as written and fails
FAILS: dict[str, dict[str, str]] = {
    "pytest_configuration_written_at_run_time": {r: "pytest read its configuration (-c, the harness's copy) and the "
                                                    "tests' folder's conftests before tally's import"
                                                 for r in BOTH},
    "compiled_test_module_planted": {r: "the rewriter's reader always misses (boot.py's _no_compiled_test_modules)"
                                     for r in BOTH},
}
# Stopped by a rule, by runtime
STOPPED: dict[str, dict[str, tuple[str | None, ...]]] = DATA_KEPT
# Signals: never solved. By spelling and runtime, measured on main 0f58652: "no_verdict" (a timeout, or the harness
# gone: the reference decides) or "failed" (the tests ran as written, W1's test failed). On main, under --runtime
# local a process of the run reached the harness (the same uid, and the ruleset scoped no signal), which it ended
# or stopped: no verdict, never a pass; in a container the harness is root's (EPERM). After the fix (confine.py's
# ruleset_scoped: LANDLOCK_SCOPE_SIGNAL, ABI 6+) no process of the run signals out of its domain (EPERM): the
# tests run as written in both runtimes, and the evidence's signal_guard says the kernel held.
SIGNALLED: dict[tuple[str, str], dict[str, str]] = {
    ("runner_stopped_by_a_child", "the runner stopped (SIGSTOP) for good"): {r: "no_verdict" for r in BOTH},
    ("runner_stopped_by_a_child", "the runner stopped (SIGSTOP), resumed by a straggler 3 s later"):
        {r: "failed" for r in BOTH},
    # the runner leads its own session, so its process group is orphaned: the kernel drops stops from a terminal
    ("runner_stopped_by_a_child", "the runner stopped from the terminal (SIGTSTP, SIGTTOU)"): {r: "failed" for r in BOTH},
    ("harness_signalled_by_a_child", "the harness stopped (SIGSTOP)"): {r: "failed" for r in BOTH},
    ("harness_signalled_by_a_child", "the harness killed (SIGKILL)"): {r: "failed" for r in BOTH},
    # the child's kill of the harness raises (EPERM) before it signals the runner
    ("harness_signalled_by_a_child", "the harness terminated (SIGTERM), then the runner (SIGTERM)"):
        {r: "failed" for r in BOTH},
}
# The test files truncated or linked: the kernel refuses (ABI 3+ handles truncate) or the digests see the chmod
KEPT = ("test_file_truncated_or_linked",)
NOT_SOLVED = (*{k for k, _ in SIGNALLED}, *KEPT)
assert set(HOLES) | set(STOPPED) | set(FAILS) | set(NOT_SOLVED) == set(KINDS)
assert all((k, s) in SIGNALLED for k in KINDS for s in KINDS[k].spellings if k in {k for k, _ in SIGNALLED})

TIMEOUT = 40.0  # the signal kinds: a stopped runner is a timeout
# the runner stopped for good gives no verdict only when the run times out, whatever the timeout: a shorter one, so
# the case does not wait 40 s twice (the reference still runs in it in a second or two)
STOPPED_FOR_GOOD = ("runner_stopped_by_a_child", "the runner stopped (SIGSTOP) for good")
STOPPED_FOR_GOOD_TIMEOUT = 15.0
assert STOPPED_FOR_GOOD in SIGNALLED and SIGNALLED[STOPPED_FOR_GOOD] == {r: "no_verdict" for r in BOTH}


def _data_task_steps():
    return tuple(DATA_STEP if s.name == "W1" else s for s in repair_fixture.STEPS)


@pytest.fixture(scope="module")
def data_task(tmp_path_factory, module_home):
    """W1 + W2 where W1's test reads its expected values from a data file, a text file and a helper module."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(repair_fixture, "STEPS", _data_task_steps())
        # the folder W1's data goes in exists from the first commit (the fixture's builder makes no folders)
        patch.setattr(repair_fixture, "INITIAL", {**repair_fixture.INITIAL, "tests/data/README": "test data\n"})
        fixture, composite = repair_fixture.composed(tmp_path_factory.mktemp("tally_data"), module_home, check=True)
    assert composite.verifier["PASS_TO_PASS"]
    return fixture, composite


def _hole(request, kind: str, runtime: str) -> None:
    runtimes, why = HOLES.get(kind, ((), ""))
    if runtime in runtimes:
        request.node.add_marker(pytest.mark.xfail(strict=True, reason=f"hole ({runtime}): {why}"))


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS))
def test_round13b_cheat_is_not_solved(request, task, tmp_path, graded_in, monkeypatch, kind, spelling):  # noqa: F811
    _hole(request, kind, graded_in)
    the_task = request.getfixturevalue("data_task") if kind in DATA_KINDS else task
    if kind in ("runner_stopped_by_a_child", "harness_signalled_by_a_child"):
        monkeypatch.setattr(RepairDomain, "test_timeout",
                            STOPPED_FOR_GOOD_TIMEOUT if (kind, spelling) == STOPPED_FOR_GOOD else TIMEOUT)
    verdict = _grade(the_task, tmp_path, *KINDS[kind].spellings[spelling])
    assert not verdict.ok, f"graded solved: {verdict.detail}"
    if graded_in in FAILS.get(kind, {}):
        assert verdict.evidence.get("rule") is None, verdict.evidence
        assert verdict.evidence["tests"][TESTS_RAN_AS_WRITTEN] == "failed", verdict.evidence
    elif kind in STOPPED:
        assert verdict.evidence.get("rule") in STOPPED[kind][graded_in], (verdict.evidence, verdict.detail)
        if verdict.evidence.get("rule") is None:  # the kernel refused: the test read what the task wrote
            assert verdict.evidence["tests"][TESTS_RAN_AS_WRITTEN] in ("failed", "missing"), verdict.evidence
            assert verdict.evidence["data_kept"] >= DATA_FILES, verdict.evidence
            assert verdict.evidence["files_guard"].startswith("landlock ABI"), verdict.evidence
    elif (kind, spelling) in SIGNALLED:
        if SIGNALLED[kind, spelling][graded_in] == "no_verdict":
            assert verdict.reason == "no_verdict", (verdict.reason, verdict.evidence)
        else:
            assert verdict.evidence["tests"][TESTS_RAN_AS_WRITTEN] == "failed", verdict.evidence
        if kind == "harness_signalled_by_a_child" and _signals_scoped():
            assert verdict.evidence["signal_guard"].startswith("landlock ABI"), verdict.evidence
    elif kind in KEPT:
        assert verdict.evidence.get("rule") in (None, "tests_changed"), verdict.evidence


def _signals_scoped() -> bool:
    """Whether this kernel's Landlock scopes signals (ABI 6+)."""
    from codewalk.domains.repair.harness import confine

    made, _, _, signals = confine.ruleset_scoped([])
    if made:
        import os

        os.close(made[0])
    return signals.startswith("landlock ABI")


def test_a_kernel_refusing_the_signal_scope_keeps_the_file_guards(monkeypatch):
    """confine.ruleset_scoped: where Landlock (ABI 6+) refuses a ruleset with the signal scope, the harness makes
    one without it (the files and /proc guards kept, signal_guard says why) rather than run with no ruleset."""
    import ctypes

    from codewalk.domains.repair.harness import confine

    class Libc:
        def __init__(self):
            self.rules = 0

        def syscall(self, number, *args):
            if number == confine.CREATE and args[0] is None:
                return 6  # the ABI
            if number == confine.CREATE:
                return -1 if args[1].value == ctypes.sizeof(confine._ScopedRulesetAttr) else 99
            self.rules += 1  # landlock_add_rule
            return 0

    libc = Libc()
    monkeypatch.setattr(ctypes, "CDLL", lambda *args, **kwargs: libc)
    made, files, kept, signals = confine.ruleset_scoped(["/etc/hostname"])
    assert made == (99, libc) and libc.rules > 0
    assert files == "landlock ABI 6" and kept == "landlock ABI 6", (files, kept)
    assert signals.startswith("not the kernel: the signal scope refused"), signals


def test_round13b_gold_is_solved_on_the_data_task(data_task, tmp_path, graded_in):  # noqa: F811
    """The honest fix keeps passing, its data kept (and read) as before."""
    verdict = _grade(data_task, tmp_path, *GOLD)
    assert verdict.ok, verdict.detail
    assert verdict.evidence["data_kept"] >= DATA_FILES, verdict.evidence


def test_round13b_gold_is_solved(task, tmp_path, graded_in):  # noqa: F811
    verdict = _grade(task, tmp_path, *GOLD)
    assert verdict.ok, verdict.detail


# Stopped kinds solved with their rules off, by runtime: the harness without its rules (tests/redteam_rounds.py:
# the kernel guard off, the digests content only) and no test data named (env.test_data: main's behaviour)
REAL_CHEATS: dict[str, tuple[str, ...]] = {kind: BOTH for kind in DATA_KEPT}


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS, only=list(REAL_CHEATS)))
def test_round13b_stopped_cheat_really_passes_without_its_rules(  # noqa: F811
        request, task, graded_in, monkeypatch, kind, spelling):  # noqa: F811
    from codewalk.domains.repair import env

    if graded_in not in REAL_CHEATS[kind]:
        pytest.skip(f"not stopped under {graded_in}")
    monkeypatch.setattr(env, "test_data", lambda *args, **kwargs: [])
    the_task = request.getfixturevalue("data_task") if kind in DATA_KINDS else task
    assert_solved_without_its_rules(the_task, graded_in, KINDS[kind].spellings[spelling])


def test_round13b_stopped_cheat_really_passes_with_no_data_named(data_task, tmp_path, graded_in, monkeypatch):  # noqa: F811
    """The kernel guard and the identity digests on, only the test data left out (main's behaviour): the data
    kinds are solved again, so naming the data is what stops them."""
    from codewalk.domains.repair import env

    monkeypatch.setattr(env, "test_data", lambda *args, **kwargs: [])
    for n, spelling in enumerate(("python -I by os.posix_spawn, open for writing",
                                  "a shell (os.system cp) from files in the package")):
        (tmp_path / str(n)).mkdir()
        verdict = _grade(data_task, tmp_path / str(n), *KINDS["test_data_rewritten"].spellings[spelling])
        assert verdict.ok, verdict.detail
        assert verdict.evidence["data_kept"] == 0, verdict.evidence


def test_round13b_test_data_is_every_plain_file_beneath_the_folders_holding_test_files(tmp_path):
    """env.test_data: beneath each folder holding a test file (subfolders too), not the tree's root (the package),
    no .git, no link, nothing already protected."""
    import os

    from codewalk.domains.repair import env

    for path in ("pkg/a.py", "test_root.py", "tests/test_x.py", "tests/data/x.json", "tests/helper.py",
                 "tests/.git/config", "tests/sub/deep/y.txt", "src/pkg/tests/test_y.py", "src/pkg/tests/z.csv"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("x\n")
    os.symlink("../pkg/a.py", tmp_path / "tests" / "link.py")
    os.symlink("../pkg", tmp_path / "tests" / "pkg")
    found = env.test_data(tmp_path, ["tests/test_x.py", "test_root.py", "src/pkg/tests/test_y.py"],
                          {"tests/test_x.py", "src/pkg/tests/test_y.py"})
    assert found == ["src/pkg/tests/z.csv", "tests/data/x.json", "tests/helper.py", "tests/sub/deep/y.txt"]


def test_test_data_of_a_nested_test_folder_is_its_whole_tests_folder(tmp_path):
    """env.test_data: tests/unit/test_a.py keeps tests/data/ and tests/helpers.py beside tests/unit/ (from the
    highest folder named like a test folder); a test file in a package folder keeps only its own folder."""
    from codewalk.domains.repair import env

    for path in ("tests/unit/test_a.py", "tests/unit/local.json", "tests/data/expected.json", "tests/helpers.py",
                 "pkg/test_core.py", "pkg/core.py", "pkg/sub/mod.py", "other/x.py"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("x\n")
    found = env.test_data(tmp_path, ["tests/unit/test_a.py"], {"tests/unit/test_a.py"})
    assert found == ["tests/data/expected.json", "tests/helpers.py", "tests/unit/local.json"]
    assert env.test_data(tmp_path, ["pkg/test_core.py"], {"pkg/test_core.py"}) == ["pkg/core.py", "pkg/sub/mod.py"]


def test_a_test_data_script_keeps_its_execute_bits_when_protected(tmp_path):
    """harness/run.py _protect: a fixture script beneath the tests (tests/bin/fake-editor) is made read-only but
    still runs; a plain data file gets no execute bit."""
    import os
    import stat

    from codewalk.domains.repair.harness import run

    script, data = tmp_path / "tests" / "bin" / "fake-editor", tmp_path / "tests" / "data.json"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o755)
    data.write_text("{}\n")
    data.chmod(0o644)
    run._protect(str(tmp_path), ["tests/bin/fake-editor", "tests/data.json"])
    assert stat.S_IMODE(os.stat(script).st_mode) == 0o555
    assert stat.S_IMODE(os.stat(data).st_mode) == 0o444
