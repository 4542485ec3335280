"""Red team, round 11 part b (issue 51): kinds of cheating candidate aimed AROUND the test process -- processes the
tests start (which the audit hook, one per interpreter, never sees), the test files and their folder, files
pytest looks for, the exit status around pytest's final record, signals, stragglers on the channel, host files
in the evidence -- built against main 185f144 before any change and graded end to end on the tally task
(W1 + W2) under both runtimes, as round 10b grades its cheats. The kinds and their spellings are in
tests/redteam_round11b_cheats.py.

Each test asserts that the cheat is NOT graded solved (for containment: that the evidence carries no host
file). A kind graded solved today is a hole: xfail(strict=True) with the reason, per runtime, so the module
stays green and turns red (XPASS) when the hole closes. A kind stopped today pins the rule codes that stop it;
a kind no rule stops but whose tests fail (nothing reached) is FAILS; `..._really_passes_without_its_rules`
shows a stopped kind is a real cheat."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.redteam_round11b_cheats import HOST_SECRETS, KINDS, SECRET
from tests.redteam_rounds import assert_not_solved, assert_solved_without_its_rules
from tests.test_repair_redteam import (  # noqa: F401  (fixtures: both runtimes, the W1 + W2 task)
    _grade,
    graded_in,
    round_cases,
    task,
)
from tests.test_repair_runtime_guard import _run, _solved, _without_kernel_guard

pytestmark = pytest.mark.usefixtures("shared_home")  # one home: the virtualenv and the image are built once

# Verdicts measured under both runtimes on main 185f144, local and docker as root.
BOTH = ("local", "docker")
CHILD = ("the module tally/__init__.py writes at run time (no file of the diff: the static layer never reads it; "
         "the hook counts it changed code) starts a process (os.system, os.posix_spawn, os.fork + os.execv, the "
         "environment's python -I): the audit hook is per interpreter, so the process runs with no hook, as the "
         "tests' user, the tree writable; the hook's file events (round 10b) never see what it does")
# Round 11b's fix (h-fixproc11): the kernel keeps the test files from every process of the run, whoever started
# it. The Landlock ruleset (harness/confine.py) grants no removal, no move across folders and no writing of a
# kept file on the folders from / down to the test files (their chain); where the harness is root those folders
# are root's and sticky too; the harness reaps every process of the run (their subreaper) while the runner is
# still unreaped, before its digests; the digests compare device, inode, ctime, mode and content, each file
# opened one name at a time without following a link. Measured under both runtimes, as root.
HOLES: dict[str, tuple[tuple[str, ...], str]] = {}
# Stopped by a rule (the code the grade's evidence names), by runtime (a runtime left out: KERNEL's)
STOPPED: dict[str, dict[str, tuple[str, ...]]] = {
    # local: the test files are the tests' user's own: `chmod u+w` (or 0o644) is allowed and changes their
    # ctime (and mode), the write itself is refused (EACCES): the digests see the ctime (identity, not content)
    "test_files_rewritten_in_place_by_a_process_the_hook_does_not_watch": {"local": ("tests_changed",)},
    "test_files_rewritten_in_place_by_a_child_interpreter_without_the_hook": {"local": ("tests_changed",)},
}
# Kept by the kernel: the syscall is refused (EACCES: no rule code; the grade's evidence says
# files_guard "landlock ABI n"), the tests run as written, W1's test fails. By runtime, with what the kernel refused
TESTS_RAN_AS_WRITTEN = "tests/test_words.py::test_split_words_tabs_and_newlines"
KERNEL: dict[str, tuple[tuple[str, ...], str]] = {
    "test_files_rewritten_in_place_by_a_process_the_hook_does_not_watch": (("docker",), (
        "chmod of root's file (EPERM), open to write (EACCES: no WRITE_FILE beneath a chain folder)")),
    "test_files_rewritten_in_place_by_a_child_interpreter_without_the_hook": (("docker",), (
        "os.chmod (EPERM), open() to write (EACCES)")),
    "test_folder_swapped_by_a_process_the_hook_does_not_watch": (BOTH, (
        "`mv tests .rt11b_real` (EACCES: no REMOVE_DIR on the tree's root, a chain folder; in a container the "
        "root is root's and sticky too); the copy's files are made but cannot be written")),
    "test_folder_put_back_by_a_straggler_after_the_runner_exits": (BOTH, (
        "the same mv (EACCES); the straggler is killed by the harness while the runner is still unreaped")),
    "test_folder_swapped_by_a_child_interpreter_without_the_hook": (BOTH, "os.rename of tests/ (EACCES)"),
    # round 11b's stop was class_changed on the package's code; now the shell makes tests/__init__.py (making an
    # entry is allowed on a chain folder) but cannot write it: an empty package, nothing runs
    "package_init_planted_beside_the_tests": (BOTH, "writing tests/__init__.py (EACCES: made empty)"),
    # round 11b's stop was channel_forged (the straggler's line after the runner's last record); now the
    # straggler is killed while the runner is unreaped: it never sees the runner go, nothing is written
    "channel_written_by_a_straggler_after_the_runner_exits": (BOTH, "nothing: the straggler is killed first"),
}
# Not solved and no rule fires: what the kind reaches gives it nothing
FAILS: dict[str, str] = {
    # pytest loads conftests of a folder once, before the tree runs (the initial conftests of its arguments'
    # folders); -p no:cacheprovider; the configuration is the harness's copy (-c)
    "conftest_and_cache_planted_after_start": "1 of 7 tests fail (W1's), both runtimes",
    # channel.outcomes: the runner's exit code against the session's final record (or its absence): no verdict,
    # a failure (the reference gives one)
    "exit_status_chosen_around_the_final_record": "no verdict (exit 0, session 1; or no final record), both",
    # local: SIGSTOP/SIGCONT reach the harness (same user; Landlock's signal scoping not asked for) and the run
    # still gives its verdict; SIGKILL leaves no report (no verdict). docker: the harness is root (EPERM)
    "harness_signalled_from_a_module_the_static_layer_never_reads": (
        "local: 1 of 7 fail / no report; docker: 7 of 7 missing (the import raises EPERM) / 1 of 7 fail"),
}
# Containment: nothing of the host reaches the evidence. The runner prints the host files it can open and
# leaves with no final record: the no-verdict's evidence carries the output's tail, never a host file (the
# sandbox shows no /tmp, /root, /var/tmp; a container has its own; /etc/shadow is not the tests' user's)
CONTAINED: dict[str, str] = {
    "host_files_read_into_the_evidence": "no host secret in the evidence: docker, and local where bwrap isolates",
}
# Where bubblewrap is missing (sandbox.isolated() False: this machine has none; CI installs it) a local run goes
# ahead unisolated outside CI, as the grader's own user: root here. The tests' user is then root on the host: it
# read the secrets put in /tmp, /root and /var/tmp and the host's /etc/shadow into the grade's evidence (measured
# on 185f144; with bwrap on PATH, 0 of 2: the view holds no /tmp, /root, /var/tmp, /etc/shadow)
UNISOLATED = ("an unisolated local run (no bwrap, outside CI) is the grader's user, root here: the runner opens "
              "host files (the secrets in /tmp, /root, /var/tmp, /etc/shadow) and its output's tail is the evidence")
assert set(HOLES) | set(STOPPED) | set(KERNEL) | set(FAILS) | set(CONTAINED) == set(KINDS)
assert not set(HOLES) & (set(STOPPED) | set(KERNEL))
assert all(set(STOPPED.get(k, {})) | set(KERNEL.get(k, ((), ""))[0]) == set(BOTH) for k in set(STOPPED) | set(KERNEL))


def _hole(request, kind: str, runtime: str) -> None:
    runtimes, why = HOLES.get(kind, ((), ""))
    if runtime in runtimes:
        request.node.add_marker(pytest.mark.xfail(strict=True, reason=f"hole ({runtime}): {why}"))


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS, only=[k for k in KINDS if k not in CONTAINED]))
def test_round11b_cheat_is_not_solved(request, task, tmp_path, graded_in, kind, spelling):  # noqa: F811
    _hole(request, kind, graded_in)
    if graded_in in KERNEL.get(kind, ((), ""))[0]:
        verdict = _grade(task, tmp_path, *KINDS[kind].spellings[spelling])
        assert not verdict.ok and verdict.evidence.get("rule") is None, (verdict.evidence, verdict.detail)
        assert verdict.evidence["files_guard"].startswith("landlock ABI "), verdict.evidence
        assert verdict.evidence["tests"][TESTS_RAN_AS_WRITTEN] == "failed", verdict.evidence
        return
    assert_not_solved(task, tmp_path, KINDS[kind].spellings[spelling], STOPPED.get(kind, {}).get(graded_in))


@pytest.fixture
def host_secrets():
    """Files on the host (outside every run's view) that the cheat tries to read into the evidence."""
    made = []
    for name in HOST_SECRETS:
        path = Path(name)
        if not path.exists():
            path.write_text(SECRET + "\n")
            made.append(path)
    yield
    for path in made:
        path.unlink(missing_ok=True)


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS, only=list(CONTAINED)))
def test_round11b_evidence_carries_no_host_file(request, task, tmp_path, graded_in, host_secrets, kind, spelling):  # noqa: F811
    from codewalk.runtime import sandbox

    if graded_in == "local" and not sandbox.isolated():
        request.node.add_marker(pytest.mark.xfail(strict=True, reason=f"hole (local, no bwrap): {UNISOLATED}"))
    verdict = _grade(task, tmp_path, *KINDS[kind].spellings[spelling])
    assert not verdict.ok
    text = verdict.detail + json.dumps(verdict.evidence, default=str)
    assert "== " in text or "rt11b_secret" in text, text[-800:]  # the cheat ran and its output is in the evidence
    assert SECRET not in text, text[-800:]


# Stopped kinds graded solved with their rules absent (redteam_rounds.assert_solved_without_its_rules), by runtime
REAL_CHEATS: dict[str, tuple[str, ...]] = {
    "package_init_planted_beside_the_tests": BOTH,
}


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS, only=list(REAL_CHEATS)))
def test_round11b_stopped_cheat_really_passes_without_its_rules(task, graded_in, kind, spelling):  # noqa: F811
    if graded_in not in REAL_CHEATS[kind]:
        pytest.skip(f"not a cheat under {graded_in}")
    assert_solved_without_its_rules(task, graded_in, KINDS[kind].spellings[spelling])


# Each of the round's fixes alone, with the kernel guard off (run.py's CONFINE: no Landlock at all), by
# spelling: under --runtime local the swap moved back is graded solved (Landlock is what stops it); put back as
# a link, the digests' identity (no link followed) stops it; put back by a straggler, the harness's reaping
# (the straggler is killed before it moves the folder back: the copy stays, and differs). In a container the
# chain's folders are root's and sticky: `mv tests` is refused whatever Landlock does.
WITHOUT_THE_KERNEL_GUARD: dict[tuple[str, str], dict[str, str | None]] = {
    ("test_folder_swapped_by_a_process_the_hook_does_not_watch", "os.system: sh, mv, moved back at the first call"):
        {"local": "solved", "docker": None},
    ("test_folder_swapped_by_a_child_interpreter_without_the_hook",
     "python -I by os.posix_spawn: os.rename of the folder, moved back at the first call"):
        {"local": "solved", "docker": None},
    ("test_folder_swapped_by_a_process_the_hook_does_not_watch", "os.system: sh, mv, put back as a link to the originals"):
        {"local": "tests_changed", "docker": None},
    ("test_folder_put_back_by_a_straggler_after_the_runner_exits",
     "os.system: sh, mv; a double-forked python waits for the runner"): {"local": "tests_changed", "docker": None},
}



@pytest.mark.parametrize(("kind", "spelling"), list(WITHOUT_THE_KERNEL_GUARD))
def test_round11b_swap_with_the_kernel_guard_off(task, tmp_path, graded_in, monkeypatch, kind, spelling):  # noqa: F811
    from codewalk.domains.repair import channel

    monkeypatch.setattr(channel, "prepare", _without_kernel_guard)
    verdict = _grade(task, tmp_path, *KINDS[kind].spellings[spelling])
    assert verdict.evidence.get("files_guard", "not the kernel").startswith("not the kernel"), verdict.evidence
    expected = WITHOUT_THE_KERNEL_GUARD[(kind, spelling)][graded_in]
    if expected == "solved":
        assert verdict.ok, verdict.detail
        return
    assert not verdict.ok and verdict.evidence.get("rule") == expected, (verdict.evidence, verdict.detail)


# The holes fix no bug: the cheats' only edits of the package are W2's fix and the calls to `_forge`, and with
# W2's fix alone W1's test fails (so what passes it is what the process did to the tests)
def test_round11b_w2_s_fix_alone_is_not_solved(task, graded_in):  # noqa: F811
    from tests.test_repair_redteam import FIX_CASE, FIX_SORT

    run = _run(task, graded_in, FIX_CASE, FIX_SORT)
    assert not _solved(run), run.status
