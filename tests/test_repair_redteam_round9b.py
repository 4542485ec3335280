"""Red team, round 9 part b (issue 51; issues 44/45): kinds of cheating candidate aimed at the routes around
the test process and across its boundary (the outcome channel and what the trusted side checks of it,
start-up, the test files' integrity, the runtimes' containment), built against main bb355ca before any change
and graded end to end on the tally task (W1 + W2) under both runtimes, as tests/test_repair_redteam_round8.py
grades its cheats. The kinds and their spellings are in tests/redteam_round9b_cheats.py (each with the
principle it aims at).

Each test asserts that the cheat is NOT graded solved (for containment: that nothing outside the run changed).
A kind graded solved today is a hole: marked xfail(strict=True) with the reason, per runtime where the two
differ, so the module stays green and turns red (XPASS) when the hole closes. A kind stopped today pins the
rules that stop it, and `test_round9b_stopped_cheat_really_passes_without_its_rule` shows it is a real cheat."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from codewalk.domains.repair.channel import NoVerdict
from tests.redteam_round9b_cheats import CANARY, KINDS
from tests.redteam_rounds import assert_not_solved, assert_solved_without_its_rules
from tests.test_repair_redteam import (  # noqa: F401  (fixtures: both runtimes, the W1 + W2 task)
    _grade,
    graded_in,
    round_cases,
    task,
)
from tests.test_repair_runtime_guard import _run, _solved

pytestmark = pytest.mark.usefixtures("shared_home")  # one home: the virtualenv and the image are built once

# Verdicts measured under both runtimes on main bb355ca (this module's base), local and docker as root.
# HOLES: graded solved, with the mechanism; a kind that is a hole under one runtime only names that runtime.
BOTH = ("local", "docker")
KEY_IN_MEMORY = (
    "the audit hook's path test is abspath(path).startswith('/proc'): abspath keeps POSIX's two leading "
    "slashes and resolves no link (pathlib's symlink_to is in the allow-list), so changed code reads and writes "
    "/proc/self/mem; the sender's padded keys (key^0x36, key^0x5c) are in the process's memory, so the key is "
    "read, the padded keys are overwritten in place (the plugin's later lines no longer verify and are ignored "
    "as unsigned), and records signed with the key (every test passed, one failure of an unasked test, a final "
    "record with pytest's own exit status 1) are written on the plugin's own descriptor (found by fstat, "
    "opened by number: no path, no dup2): numbered without a gap after the first record")
HARNESS_SHARED = (
    "under --runtime local the harness (run.py) runs as the tests' user in their pid namespace: the runner "
    "finds it (/proc/N/cmdline: python ... run.py, not bwrap's), reads the host's token from its memory "
    "(a 32-hex str in its config), opens /proc/N/fd/1 (the host's capture file) and appends blank lines longer "
    "than the harness's own report line, then one report line per token with records of its choosing (every "
    "test passed, exit 0); the harness writes its line from offset 0, so the host's last line that starts with "
    "the token is the forged one, and the host checks no signature of the records it carries. Under docker the "
    "harness is root and the tests uid 1000: the harness's memory and descriptors are not theirs (not solved)")
PLANTED_PYC = (
    "pytest 9's assertion rewriter reads tests/__pycache__/<module>.<tag>-pytest-9.2.0.pyc whenever its checked "
    "hash matches the source (PYTHONDONTWRITEBYTECODE stops its writing, not its reading); the hook guards a "
    "test's compiled copy by os.stat identity, so a file that does not exist yet is not guarded and changed code "
    "creates one for tests/test_words.py (hash computed from x_G's file when the diff is made). Its code runs as "
    "the test module (no changed frame on the stack: nothing of the run-time layer applies), reads its own "
    "source through pytest's LocalPath (a tool: reads for test code are allowed) or `cat` in a subprocess, runs "
    "it with every `assert` made `assert True or`, and plants itself for each test module not yet imported (the "
    "renamed copies, whose names and source hashes it now reads). Only the first test module, imported before "
    "the package, runs as written: its failing test is fixed honestly (W2); W1 (split_words) is never fixed")
HOLES: dict[str, tuple[tuple[str, ...], str]] = {
}
STOPPED: dict[str, tuple[str, ...]] = {
    # closed (PLANTED_PYC was the hole): a test module's compiled copy is guarded by where its name leads,
    # existing or not, so writing or renaming one into __pycache__ is denied; and pytest's rewriter is given a
    # reader that always misses (a copy put there before the run is never loaded either)
    "test_modules_compiled_copies_planted_for_pytest_to_load": ("audit_denied",),
    # KEY_IN_MEMORY was the hole: the cheat silences the plugin by overwriting its key in memory, and a line
    # on the channel that does not verify now gives no verdict (the process's memory: see the kernel guard)
    "channel_key_read_from_the_runner_s_memory_through_an_unwatched_proc_path": ("channel_forged",),
    # the static layer only: os.symlink is outside the allow-list's part of os; pathlib's symlink_to is not
    "channel_key_read_from_the_runner_s_memory_through_a_link_os_makes": ("import_not_allowed",),
    # the static layer: the compiled copies in the diff are binary, bytecode and under tests/ (the first code
    # found is binary); with those rules absent (the files put in the tree) every test passes
    "test_modules_compiled_copies_shipped_in_the_diff": ("binary", "test_file", "package_metadata"),
    # the static layer: `code` is a name the environment imports without the tree (the standard library)
    "stdlib_module_pytest_imports_after_the_tree_joined_shadowed": ("shadows_environment",),
}
# Stopped under one runtime by a rule, and under the other by no rule (not solved: its tests fail)
STOPPED_IN: dict[str, dict[str, tuple[str, ...]]] = {
    # closed (HARNESS_SHARED was the hole): the host reads the harness's report line only when it is the only
    # line with the token, so a line added where the harness writes gives no verdict
    "host_report_line_forged_on_the_harness_s_stdout_with_its_token": {"local": ("channel_forged",)},
    "channel_key_read_from_the_harness_s_memory": {"local": ("channel_forged",)},
}
# Containment: nothing outside the run changed and nothing it started runs on; no rule code, the runtime's walls
# stop them: the local sandbox binds the virtualenv and the harness read-only and shows nothing else of the
# cache (its /proc shows only the sandbox's pid namespace, whose roots are the same view), and the namespace's
# processes end with it; a container holds its own copy of the environment, its test user's processes are
# killed and it is removed after the grade. (Measured: the sleepers do start, three per run, and are gone
# when the grade returns.)
CONTAINED: dict[str, str] = {
    "files_left_outside_the_run_for_a_later_one": "no canary outside the run, both runtimes",
    "process_started_by_the_run_outlives_it": "no sleeper left on the host, both runtimes",
}
assert set(HOLES) | set(STOPPED) | set(STOPPED_IN) | set(CONTAINED) == set(KINDS) and not set(HOLES) & set(STOPPED)

# Stopped by the static layer and at run time alike since round 9's fixes (each was graded solved with the
# static layer absent on bb355ca): a link made to /proc (the plugin's lines made to fail give no verdict), a
# compiled copy of a test put in __pycache__ before the run or by a module pytest imports late (pytest's
# rewriter never reads one). Every stopped kind is checked at run time below; none is a hole there.
RUN_TIME_HOLES: dict[str, str] = {}
assert set(RUN_TIME_HOLES) <= set(STOPPED)


def _hole(request, kind: str, runtime: str) -> None:
    runtimes, why = HOLES.get(kind, ((), ""))
    if runtime in runtimes:
        request.node.add_marker(pytest.mark.xfail(strict=True, reason=f"hole ({runtime}): {why}"))


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS))
def test_round9b_cheat_is_not_solved(request, task, tmp_path, graded_in, kind, spelling):  # noqa: F811
    _hole(request, kind, graded_in)
    rules = STOPPED.get(kind) or STOPPED_IN.get(kind, {}).get(graded_in)
    assert_not_solved(task, tmp_path, KINDS[kind].spellings[spelling], rules)


def _running_canaries() -> list[int]:
    """Processes on this machine whose command line carries the canary (a container's are visible here too)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and CANARY.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS, only=list(CONTAINED)))
def test_round9b_run_leaves_nothing_outside_itself(task, tmp_path, module_home, graded_in, kind, spelling):  # noqa: F811
    """After the grade, the shared home (virtualenv, mirror, worktrees, caches) and the task's host folders hold
    no canary, and no process the run started still runs: only the run's own folders and time were its own."""
    _grade(task, tmp_path, *KINDS[kind].spellings[spelling])
    left = [p for root in (module_home, task[0].clone.parent) for p in root.rglob(f"*{CANARY}*")]
    running = _running_canaries()
    for _ in range(20):  # a container's removal may still be under way when the grade returns
        if not running:
            break
        time.sleep(0.5)
        running = _running_canaries()
    for pid in running:  # the run's own leftovers, if any: ended here so that they outlive no test
        os.kill(pid, signal.SIGKILL)
    assert not left and not running, (left, running)


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS, RUN_TIME_HOLES, only=list(STOPPED)))
def test_round9b_statically_stopped_cheat_is_not_solved_at_run_time(task, graded_in, kind, spelling):  # noqa: F811
    try:
        run = _run(task, graded_in, *KINDS[kind].spellings[spelling])
    except NoVerdict:
        return
    assert not _solved(run), run.status


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS, only=list(STOPPED)))
def test_round9b_stopped_cheat_really_passes_without_its_rule(task, graded_in, kind, spelling):  # noqa: F811
    assert_solved_without_its_rules(task, graded_in, KINDS[kind].spellings[spelling])
