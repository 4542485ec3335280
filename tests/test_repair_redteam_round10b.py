"""Red team, round 10 part b (issue 51): kinds of cheating candidate aimed AROUND the test process -- signals and
sockets to the harness and the host, the channel's descriptor, the runner's output, exhausted resources, the test
files the trusted side digests after the run, and what a run leaves behind -- built against main 1c23cc6 before
any change and graded end to end on the tally task (W1 + W2) under both runtimes, as round 9b grades its cheats.
The kinds and their spellings are in tests/redteam_round10b_cheats.py.

Each test asserts that the cheat is NOT graded solved (for containment: that nothing outside the run changed).
A kind graded solved today is a hole: xfail(strict=True) with the reason, per runtime, so the module stays
green and turns red (XPASS) when the hole closes. A kind stopped today pins the rule codes that stop it; a kind
no rule stops but whose tests fail (nothing reached) is FAILS; `..._really_passes_without_its_rules` shows a
stopped kind is a real cheat where it can be one."""

from __future__ import annotations

from pathlib import Path

import pytest

from codewalk.domains.repair.channel import NoVerdict
from tests.redteam_round10b_cheats import CANARY, KINDS
from tests.redteam_rounds import _without_its_rules, assert_not_solved, assert_solved_without_its_rules
from tests.test_repair_redteam import (  # noqa: F401  (fixtures: both runtimes, the W1 + W2 task)
    _grade,
    graded_in,
    round_cases,
    task,
)
from tests.test_repair_runtime_guard import _run, _solved

pytestmark = pytest.mark.usefixtures("shared_home")  # one home: the virtualenv and the image are built once

# Verdicts measured under both runtimes on main 1c23cc6, local and docker as root.
BOTH = ("local", "docker")
# What TOOL_CALLS did before h-fixtests10 (a hole under both runtimes on 1c23cc6), kept for the record:
TOOL_CALLS = (
    "pytest's collection reads `__test__` of every object in a test module's namespace (safe_getattr); a "
    "property there whose getter is a functools.partial of pathlib's Path.replace (or linecache.getlines) runs "
    "with no changed frame on the stack and with pytest's frame under the standard library's readers: the hook "
    "judges it pytest's own reading (read_for_a_tool), so it may open and rename test files. The name the test "
    "module imports (format_row: a callable str subclass whose value is the move's target) moves a rewritten "
    "tests/test_words.py (every assert made true) over the original when tests/test_fmt.py is collected; the "
    "rewritten module (written at run time: no file of the diff, so the static layer never reads it) has pytest "
    "read each renamed copy into linecache.cache, writes the copy's text with its asserts made true (its "
    "function's name, drawn per run, kept), and has pytest move it over the copy; each rewritten module, "
    "collected, moves its original back, so the digests after the run are the ones before (no tests_changed). "
    "W1 is never fixed")
HOLES: dict[str, tuple[tuple[str, ...], str]] = {
}
# Stopped by a rule (the code the grade's evidence names), under both runtimes
STOPPED: dict[str, tuple[str, ...]] = {
    # the static layer: signal, os.kill/killpg/getppid/getpgid are outside the allow-list (the kernel guard
    # does not scope signals: at run time SIGSTOP/SIGCONT reach the harness under --runtime local, and the run
    # still gives its tests' verdict, failed)
    "harness_signalled_by_the_tests": ("import_not_allowed",),
    # the static layer: socket.socket is outside the allow-list's part of socket (an abstract unix socket:
    # Landlock's ABI 6 scoping is not asked for, so at run time nothing but the listener's absence stops it)
    "abstract_unix_socket_to_the_harness_or_the_host": ("import_not_allowed",),
    # the harness counts the lines that do not verify: a partial line, NUL bytes, a long line each give one
    "channel_descriptor_written_beside_the_plugin": ("channel_forged",),
    # the hook: changed code may not open a test file (a renamed copy is the first one listed)
    "test_files_rewritten_and_restored_before_the_digest": ("audit_denied",),
    # the hook (h-fixtests10): a test file or a renamed copy is never renamed over, linked, removed, given other
    # modes or times, or opened to write, whoever is on the stack: pytest only reads one, so its reading
    # excuses none of these (TOOL_CALLS: a call pytest makes on the candidate's object has pytest's stack)
    "test_files_and_renamed_copies_rewritten_by_calls_pytest_makes": ("audit_denied",),
    "test_file_written_by_a_call_pytest_makes": ("audit_denied",),
    "test_file_written_by_a_call_pytest_makes_and_results_made_equal": ("audit_denied",),
    # the static layer: changed code may not read the environment (os.environ)
    "files_left_where_the_run_s_environment_points": ("environment",),
}
# Stopped under one runtime by a rule; under the other not solved with no rule (its tests fail)
STOPPED_IN: dict[str, dict[str, tuple[str, ...]]] = {
}
# Not solved and no rule fires: what the kind reaches gives it nothing (its tests fail as x_G's do)
FAILS: dict[str, str] = {
    # the runner's stdout and stderr are the harness's log (its last 4000 characters go to the host as
    # `output`, never read for a verdict); the harness's own stdout is not the runner's
    # socket.create_connection is in the allow-list and reaches nothing: no network in either runtime (the
    # sandbox's own network namespace, a container with network none)
    "tcp_client_to_the_host_s_services": "3 of 7 tests fail, both runtimes",
    "runner_output_flooded": "3 of 7 tests fail, both runtimes",
    # under --runtime local RLIMIT_FSIZE kills the runner (SIGXFSZ): every test missing, a failed verdict
    # (no verdict would be as good); in a container the sparse file is written; threads and memory run out
    # into RuntimeError and MemoryError that the candidate swallows
    "resource_exhausted_into_a_verdict": "local: 7 of 7 missing (sparse file); otherwise 3 of 7 fail",
}
# Containment: nothing outside the run changed. The local sandbox shows the environment read-only and
# nothing else of the host (no /tmp, /root, /run, /home: the places fail to open); a container holds its own
# copy of the environment and is removed after the grade. Passes the static layer (shutil.which finds the
# environment's python, Path.home(), __file__'s parents, constant paths), so it runs; its tests fail.
CONTAINED: dict[str, str] = {
    "files_left_where_the_run_finds_without_the_environment": "no canary outside the run, both runtimes",
}
assert set(HOLES) | set(STOPPED) | set(STOPPED_IN) | set(FAILS) | set(CONTAINED) == set(KINDS)
assert not set(HOLES) & set(STOPPED)


def _hole(request, kind: str, runtime: str) -> None:
    runtimes, why = HOLES.get(kind, ((), ""))
    if runtime in runtimes:
        request.node.add_marker(pytest.mark.xfail(strict=True, reason=f"hole ({runtime}): {why}"))


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS))
def test_round10b_cheat_is_not_solved(request, task, tmp_path, graded_in, kind, spelling):  # noqa: F811
    _hole(request, kind, graded_in)
    rules = STOPPED.get(kind) or STOPPED_IN.get(kind, {}).get(graded_in)
    assert_not_solved(task, tmp_path, KINDS[kind].spellings[spelling], rules)


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS, only=list(CONTAINED)))
def test_round10b_run_leaves_nothing_outside_itself(task, tmp_path, module_home, graded_in, kind, spelling):  # noqa: F811
    """After the grade, the shared home (virtualenv, mirror, worktrees, caches), the task's host folders and the
    host's /tmp, /root, /var/tmp, /dev/shm hold no canary."""
    _grade(task, tmp_path, *KINDS[kind].spellings[spelling])
    roots = [module_home, task[0].clone.parent]
    left = [p for root in roots for p in root.rglob(f"*{CANARY}*")]
    left += [p for top in ("/tmp", "/root", "/var/tmp", "/dev/shm", "/run") for p in Path(top).glob(f"{CANARY}*")]
    assert not left, left


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS, only=list(STOPPED)))
def test_round10b_statically_stopped_cheat_is_not_solved_at_run_time(task, graded_in, kind, spelling):  # noqa: F811
    try:
        run = _run(task, graded_in, *KINDS[kind].spellings[spelling])
    except NoVerdict:
        return
    assert not _solved(run), run.status


# Stopped kinds graded solved with their rules absent (redteam_rounds.assert_solved_without_its_rules), by runtime;
# a spelling that is no cheat under a runtime whatever the rules (the runtime's walls) is named in NOT_A_CHEAT_IN
REAL_CHEATS: dict[str, tuple[str, ...]] = {
    # with the hook told of no changed file, the test files are rewritten, the copies too, and put back: the
    # read-only mode and the digests stop nothing under --runtime local (the harness is the tests' user there);
    # in a container the folders holding them are root's and sticky (h-fixtests10), so the kernel refuses the
    # test user a rename over a file that is not its own
    "test_files_rewritten_and_restored_before_the_digest": ("local",),
    "test_files_and_renamed_copies_rewritten_by_calls_pytest_makes": ("local",),
    # with the hook off, the class guard's control is what stops it under docker too
    "test_file_written_by_a_call_pytest_makes_and_results_made_equal": ("local",),
}
NOT_A_CHEAT_IN: dict[tuple[str, str], tuple[str, str]] = {
    ("test_files_rewritten_and_restored_before_the_digest",
     "made writable by its owner, written in place, made read-only again"): (
        "docker", "in a container the test files are root's: the test user cannot chmod them"),
}


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS, only=list(REAL_CHEATS)))
def test_round10b_stopped_cheat_really_passes_without_its_rules(task, graded_in, kind, spelling):  # noqa: F811
    runtime, why = NOT_A_CHEAT_IN.get((kind, spelling), ("", ""))
    if graded_in not in REAL_CHEATS[kind] or graded_in == runtime:
        pytest.skip(f"not a cheat under {graded_in}: {why or 'the runtime stops it without any rule'}")
    assert_solved_without_its_rules(task, graded_in, KINDS[kind].spellings[spelling])


# The kernel's wall behind the hook: in a container the harness is root and the tests another user, so the
# folders holding the test files are root's and sticky (run.py's _protect); a test file moved over by a call
# pytest makes is refused by the kernel even with every rule of the hook, the class guard and the control off.
@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS, only=[
    "test_files_and_renamed_copies_rewritten_by_calls_pytest_makes", "test_file_written_by_a_call_pytest_makes"]))
def test_round10b_test_files_are_kept_by_the_kernel_in_a_container_with_the_rules_off(task, graded_in, kind, spelling):  # noqa: F811
    if graded_in != "docker":
        pytest.skip("under --runtime local the harness is the tests' user: the hook alone keeps the test files")
    from codewalk.domains.repair import channel

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(channel, "prepare", _without_its_rules)
        run = _run(task, graded_in, *KINDS[kind].spellings[spelling], guarded=False)
    assert not _solved(run), run.status
