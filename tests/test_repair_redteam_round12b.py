"""Red team, round 12 part b (issue 51): kinds of cheating candidate aimed AROUND the test process -- the
runner's memory from the processes it starts (the same Landlock domain, the same uid), the harness's memory, and
what the host reads after a run -- built against main fbdab1c before any change and graded end to end on the
tally task (W1 + W2) under both runtimes, as round 11b grades its cheats. The kinds and their spellings are in
tests/redteam_round12b_cheats.py.

Each test asserts that the cheat is NOT graded solved. A kind graded solved today is a hole: xfail(strict=True)
with the reason, per runtime, so the module stays green and turns red (XPASS) when the hole closes. A kind
stopped today pins the rule codes that stop it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codewalk.domains.repair.channel import prepare as _prepare
from tests.redteam_round12b_cheats import KINDS
from tests.test_repair_redteam import (  # noqa: F401  (fixtures: both runtimes, the W1 + W2 task)
    _grade,
    graded_in,
    round_cases,
    task,
)

pytestmark = pytest.mark.usefixtures("shared_home")  # one home: the virtualenv and the image are built once

TESTS_RAN_AS_WRITTEN = "tests/test_words.py::test_split_words_tabs_and_newlines"
BOTH = ("local", "docker")
# Measured on main fbdab1c, local and docker, as root. This kernel has no Yama (no ptrace_scope): a process may
# ptrace or process_vm_readv any dumpable process of its uid, Landlock permitting; Landlock denies it only OUT of
# a domain (the harness), not within one: the runner and every process it starts share the runner's domain.
MEMORY = ("a process the runner starts (no hook) is in the runner's Landlock domain, of its uid, and the runner "
          "is dumpable: the kernel lets it read and write the runner's memory (the channel's HMAC pads; the "
          "tests' constants)")
# After the fix (harness/boot.py's _not_dumpable): the runner makes itself not dumpable before it reads the key,
# so a process of its uid reaches its memory only with CAP_SYS_PTRACE, which the tests' user has in neither
# runtime: ptrace(PTRACE_ATTACH) and process_vm_readv/writev fail (EPERM), the child finds nothing, the tests run
# as written and W1's test fails. No rule code fires: pinned to the evidence's memory_guard ("not dumpable").
HOLES: dict[str, tuple[tuple[str, ...], str]] = {}
# Kept by the kernel (EPERM), by runtime; the grade's evidence says memory_guard "not dumpable"
KERNEL: dict[str, tuple[str, ...]] = {
    "channel_key_read_from_the_runner_memory_by_process_vm_readv": ("local",),
    "channel_key_read_from_the_runner_memory_by_ptrace": BOTH,
    "test_input_written_in_the_runner_memory_by_process_vm_writev": ("local",),
    "test_input_written_in_the_runner_memory_by_ptrace": BOTH,
    # added after 224ee65, measured with the runner left dumpable (main's behaviour): graded solved (local:
    # both spellings; docker: ptrace); with the fix, EPERM (fork keeps the flag)
    "channel_key_read_from_a_forked_copy_of_the_runner": BOTH,
}
# Not solved and no rule fires, by runtime: what the kind reaches gives it nothing
FAILS: dict[str, dict[str, str]] = {
    "channel_key_read_from_the_runner_memory_by_process_vm_readv": {
        "docker": "docker's seccomp profile refuses process_vm_readv without CAP_SYS_PTRACE: W1's test fails"},
    "test_input_written_in_the_runner_memory_by_process_vm_writev": {
        "docker": "docker's seccomp profile refuses process_vm_writev without CAP_SYS_PTRACE: W1's test fails"},
    # local: Landlock denies ptrace out of the runner's domain (EPERM); docker: the harness is root's, the child
    # the tests' user's (EPERM); it prints what it got: W1's test fails
    "harness_memory_read_by_a_child": {"local": "EPERM (Landlock)", "docker": "EPERM (root's process)"},
    # added after 224ee65 (their code paths are main's): the host reads only the harness's own line (a token it
    # alone knows); the runner's descriptors lead to the log, whose tail is evidence only without a verdict
    "report_line_printed_on_the_runner_output": {r: "the host never reads the runner's output for its report"
                                                 for r in BOTH},
}
# Stopped by a rule, by runtime
STOPPED_RULES: dict[str, dict[str, tuple[str, ...]]] = {
    # lines that do not verify: channel_forged (no verdict; the reference gives one: a failure)
    "channel_flooded_by_a_forked_child": {r: ("channel_forged",) for r in BOTH},
}
# No verdict, no rule: the evidence holds the output's tail, bounded, as text
NO_VERDICT: dict[str, int] = {"output_flooded_with_odd_bytes": 8000}
STOPPED: dict[str, dict[str, tuple[str, ...]]] = {}
# What reaches the host after a run: each kind's grade must end in a verdict (no exception in the grader) that is
# not solved, and leave nothing of the tree on the host. By runtime, measured on main fbdab1c (the hole's reason)
# After the fix (sandbox.remove_tree: no recursion, descriptors one name at a time, deep folders moved up first), in
# sandbox.workdir, Worktrees.fresh and the other removals of a tree code wrote: each grade ends in a verdict (no rule
# code: the run's own W1 failure, or the static refusal of the diff) and nothing is left on the host.
HOST_HOLES: dict[str, dict[str, str]] = {}
HOST_KINDS = ("deep_folder_chain_left_for_the_host",)
OTHERS = (*HOST_KINDS, *STOPPED_RULES, *NO_VERDICT)
assert set(HOLES) | set(STOPPED) | set(FAILS) | set(KERNEL) | set(OTHERS) == set(KINDS)
assert all(set(KERNEL.get(k, ())) | set(FAILS.get(k, {})) == set(BOTH) for k in KINDS if k not in OTHERS)


def _hole(request, kind: str, runtime: str) -> None:
    runtimes, why = HOLES.get(kind, ((), ""))
    if runtime in runtimes:
        request.node.add_marker(pytest.mark.xfail(strict=True, reason=f"hole ({runtime}): {why}"))


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS, only=[k for k in KINDS if k not in HOST_KINDS]))
def test_round12b_cheat_is_not_solved(request, task, tmp_path, graded_in, kind, spelling):  # noqa: F811
    _hole(request, kind, graded_in)
    verdict = _grade(task, tmp_path, *KINDS[kind].spellings[spelling])
    assert not verdict.ok, f"graded solved: {verdict.detail}"
    if graded_in in KERNEL.get(kind, ()):
        assert verdict.evidence.get("rule") is None, verdict.evidence
        assert verdict.evidence["memory_guard"] == "not dumpable", verdict.evidence
        assert verdict.evidence["tests"][TESTS_RAN_AS_WRITTEN] == "failed", verdict.evidence
    elif graded_in in FAILS.get(kind, {}):
        assert verdict.evidence.get("rule") is None, verdict.evidence
        assert verdict.evidence["tests"][TESTS_RAN_AS_WRITTEN] == "failed", verdict.evidence
    elif kind in STOPPED_RULES:
        assert verdict.evidence.get("rule") in STOPPED_RULES[kind][graded_in], (verdict.evidence, verdict.detail)
    elif kind in NO_VERDICT:
        assert verdict.reason == "no_verdict" and verdict.evidence.get("rule") is None, verdict.evidence
        assert len(json.dumps(verdict.evidence) + verdict.detail) < NO_VERDICT[kind], len(verdict.detail)


def _with_a_dumpable_runner(into: Path) -> None:
    """The harness as on main before round 12b: boot.py leaves the runner dumpable."""
    from codewalk.domains.repair import channel

    _prepare(into)
    boot = into / channel.BOOT
    text = boot.read_text(encoding="utf-8")
    assert "    memory = _not_dumpable()" in text
    boot.write_text(text.replace("    memory = _not_dumpable()", '    memory = "dumpable: the guard is off"'),
                    encoding="utf-8")


# Stopped kinds graded solved with the memory guard off, by runtime (docker: ptrace only, see FAILS)
REAL_CHEATS = KERNEL


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS, only=list(REAL_CHEATS)))
def test_round12b_stopped_cheat_really_passes_with_a_dumpable_runner(  # noqa: F811
        task, tmp_path, graded_in, monkeypatch, kind, spelling):  # noqa: F811
    from codewalk.domains.repair import channel

    if graded_in not in REAL_CHEATS[kind] or (graded_in == "docker" and spelling.startswith("process_vm")):
        pytest.skip(f"not a cheat under {graded_in} (docker's seccomp profile)")
    monkeypatch.setattr(channel, "prepare", _with_a_dumpable_runner)
    # the cheat searches the runner's memory from hints and a copy's timing: under load one search in several
    # misses (seen once in six docker runs of the forked copy), so a real cheat is one solved in three tries
    for attempt in range(3):
        (tmp_path / str(attempt)).mkdir()
        verdict = _grade(task, tmp_path / str(attempt), *KINDS[kind].spellings[spelling])
        if verdict.ok:
            break
    assert verdict.ok, verdict.detail
    # the forged stream's final record is the cheat's, and says nothing of the memory
    assert verdict.evidence["memory_guard"] in ("dumpable: the guard is off", "unknown: the runner did not say")


# The honest fix keeps passing, and its evidence says what kept the runner's memory
def test_round12b_gold_is_solved_with_a_runner_not_dumpable(task, tmp_path, graded_in):  # noqa: F811
    from tests.test_repair_redteam import GOLD

    verdict = _grade(task, tmp_path, *GOLD)
    assert verdict.ok, verdict.detail
    assert verdict.evidence["memory_guard"] == "not dumpable", verdict.evidence


def _left(roots: list[Path]) -> set[Path]:
    """Folders under roots holding the round's canary (a chain left behind), found without recursion."""
    import os

    from tests.redteam_round12b_cheats import CANARY

    found = set()
    for root in roots:
        for top in (root.iterdir() if root.is_dir() else ()):
            for sub in (top / "tree" / "tally", top / "tally", top):
                if (sub / "d").is_dir():
                    folder = sub / "d"
                    fd = os.open(folder, os.O_RDONLY)
                    try:
                        while "d" in os.listdir(fd):
                            inner = os.open("d", os.O_RDONLY, dir_fd=fd)
                            os.close(fd)
                            fd = inner
                        if CANARY in os.listdir(fd):
                            found.add(top)
                    finally:
                        os.close(fd)
    return found


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS, only=list(HOST_KINDS)))
def test_round12b_host_reads_of_the_tree_end_in_a_verdict(request, task, tmp_path, graded_in, kind, spelling):  # noqa: F811
    import shutil
    import subprocess
    import tempfile

    from codewalk import paths

    holes = HOST_HOLES.get(kind, {})
    why = holes.get(graded_in) or next((v for k, v in holes.items() if k.startswith(graded_in + ": ") and
                                        spelling.startswith(k.split(": ", 1)[1])), None)
    if why:
        request.node.add_marker(pytest.mark.xfail(strict=True, reason=f"hole ({graded_in}): {why}"))
    roots = [Path(tempfile.gettempdir()), paths.cache("repair") / "worktrees"]
    before = _left(roots)
    try:
        verdict = _grade(task, tmp_path, *KINDS[kind].spellings[spelling])
        left = _left(roots) - before
    finally:
        # the canaries this test made (and the candidate's clone), removed by a tool that does not recurse
        for folder in [*(_left(roots) - before), tmp_path / "candidate"]:
            subprocess.run(["rm", "-rf", "--one-file-system", str(folder)], check=False)
            shutil.rmtree(folder, ignore_errors=True)
    assert not verdict.ok, verdict.detail
    assert not left, left
