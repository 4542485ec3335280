"""The kernel guard of a repair run (issue 51, round 9b): the test process, and everything it starts, cannot open
any file of /proc, whatever the path says. The process's memory holds the outcome channel's key, and an audit
hook that reads paths misses `//proc`, a link the run makes, `/dev/fd/..` and a descriptor given as dir_fd.
run.py puts the runner under Landlock before exec (harness/confine.py); where the kernel has none, the audit
hook judges the file a path reaches (boot.py `_proc_files`). Both runtimes, as root (as CI runs)."""

from __future__ import annotations

import ctypes

import pytest

from codewalk.domains.repair import RepairDomain, channel
from codewalk.domains.repair.channel import NoVerdict
from codewalk.runtime import sandbox
from tests.redteam_round9b_cheats import KINDS
from tests.test_repair_runtime_guard import (  # noqa: F401  (fixtures: both runtimes, the W1 + W2 task)
    GOLD,
    WORDS,
    _run,
    _solved,
    _without_kernel_guard,
    append,
    runtime,
    task,
)

pytestmark = pytest.mark.usefixtures("shared_home")


def _landlock_abi() -> int:
    try:
        return int(ctypes.CDLL(None, use_errno=True).syscall(444, None, ctypes.c_size_t(0), ctypes.c_uint32(1)))
    except (OSError, AttributeError):
        return -1


@pytest.fixture
def landlock() -> int:
    """This machine's Landlock ABI; a skip without one (a failure under CI, whose kernel has it)."""
    abi = _landlock_abi()
    if abi < 1:
        if sandbox.under_ci():
            pytest.fail("CI's kernel must offer Landlock (the kernel guard of a repair run)")
        pytest.skip("no Landlock in this kernel: the audit hook's fallback alone keeps the tests from /proc")
    return abi



# At import of the fixed module: every spelling of a file of /proc, each of which must fail with EACCES (not
# ENOENT, not a success); any other outcome makes the module raise, so that no test passes.
PROBE = '''

def _probe():
    import os
    import pathlib
    import subprocess
    import sys
    import tempfile
    import threading

    link = os.path.join(tempfile.mkdtemp(), "p")
    pathlib.Path(link).symlink_to("/pr" + "oc")
    root = os.open("/", os.O_PATH)
    spellings = {
        "plain": lambda: open("/proc/self/mem", "rb"),
        "two leading slashes": lambda: open("//proc/self/mem", "rb"),
        "a link the run made": lambda: open(link + "/self/mem", "rb"),
        "/dev/fd/..": lambda: open("/dev/fd/../mem", "rb"),
        "a descriptor of / as dir_fd": lambda: os.open("proc/self/mem", os.O_RDONLY, dir_fd=root),
        "the parent's memory": lambda: open("/proc/%d/mem" % os.getppid(), "rb"),
        "a listing": lambda: os.listdir("/proc"),
        "a file that is no process's": lambda: open("/proc/meminfo", "rb"),
    }
    opened = []

    def attempt(name, how):
        try:
            how()
        except PermissionError:
            return
        except Exception as e:  # noqa: BLE001
            opened.append(name + ": " + repr(e))
            return
        opened.append(name)

    for name, how in spellings.items():
        attempt(name, how)
    thread = threading.Thread(target=attempt, args=("from a thread", spellings["plain"]))
    thread.start()
    thread.join()
    child = subprocess.run([sys.executable, "-c", "open('/proc/self/mem', 'rb')"], capture_output=True, text=True)
    if "PermissionError" not in child.stderr:
        opened.append("from a child process: " + child.stderr[-200:])
    if opened:
        raise RuntimeError("opened: " + ", ".join(opened))


_probe()
'''


def test_the_test_process_cannot_open_proc_by_any_spelling(task, runtime, landlock):  # noqa: F811
    """The gold fix and the probe, run with no changed file told to the audit hook: only the kernel stands
    in the way, and every spelling (from the main thread, another thread, a child process) gets EACCES."""
    run = _run(task, runtime, *GOLD, append(WORDS, PROBE), guarded=False)
    assert _solved(run), run.status
    assert run.proc_guard == f"landlock ABI {landlock}"


def test_without_the_kernel_guard_the_same_probe_opens_proc(task, runtime, monkeypatch):  # noqa: F811
    """The probe is a real one: with run.py's kernel guard off, something of /proc opens and no test passes."""
    monkeypatch.setattr(channel, "prepare", _without_kernel_guard)
    run = _run(task, runtime, *GOLD, append(WORDS, PROBE), guarded=False)
    assert not any(s == "passed" for s in run.status.values()), run.status
    assert run.proc_guard == "audit hook: the kernel guard is off"


def test_an_honest_run_keeps_its_verdict_and_says_the_kernel_guard_held(task, runtime, landlock, monkeypatch):  # noqa: F811
    monkeypatch.setenv("CODEWALK_RUNTIME", runtime)
    _, composite = task
    gold = RepairDomain().grade(composite, composite.reference)
    assert gold.ok, gold.detail
    assert gold.evidence["proc_guard"] == f"landlock ABI {landlock}"


# What an honest run does with files, which the kernel guard must leave as it was: move and link files and
# folders between folders (Landlock denies that by default from ABI 2: REFER), truncate, list its own folders.
# In the tree: beneath a folder of it off the test files' chain (the package's); a folder on it (the tree's root,
# tests/) holds no new file that can be written, and lets nothing be removed (round 11b: the kernel keeps the
# test files from every process of the run: `test_in_the_tree_s_root_new_files_stay_empty_and_nothing_goes`)
HONEST_FILES = '''

def _files():
    import os
    import tempfile

    # the temporary folder, the tree's package folder (one mount each: no move between them)
    for where in (None, os.path.dirname(os.path.abspath(__file__))):
        a, b = tempfile.mkdtemp(dir=where), tempfile.mkdtemp(dir=where)
        with open(a + "/x", "w") as handle:
            handle.write("x")
        os.rename(a + "/x", b + "/y")
        os.link(b + "/y", a + "/z")
        os.replace(a + "/z", b + "/w")
        os.truncate(b + "/w", 0)
        if where is None:
            os.rename(b, a + "/moved")
            assert sorted(os.listdir(a + "/moved")) == ["w", "y"] and os.path.exists("/proc/self/mem")
            continue
        # the cost of round 14 (the tree as it landed): beneath a folder holding landed files no folder is
        # renamed or removed, not even one the run made (a folder swapped and put back would keep each file's
        # identity); its files come and go as before
        for what in (lambda: os.rename(b, a + "/moved"), lambda: os.rmdir(tempfile.mkdtemp(dir=where))):
            try:
                what()
                raise AssertionError("a folder beneath the package was renamed or removed")
            except PermissionError:
                pass
        os.remove(b + "/w")
        assert sorted(os.listdir(b)) == ["y"] and os.path.exists("/proc/self/mem")


_files()
'''


def test_an_honest_run_moving_and_linking_files_between_folders_keeps_its_verdict(task, runtime, landlock):  # noqa: F811
    assert _solved(_run(task, runtime, *GOLD, append(WORDS, HONEST_FILES)))


# The cost of round 11b, pinned: in the tree's root (a folder on the test files' chain) a run may make a folder
# or a file, but not write a new file (nor one in the new folder), nor remove or rename an entry (what was
# there may be written: tests/test_repair_test_files_kept_by_the_kernel.py). Each attempt is answered as the kernel answers it, and the run keeps its verdict.
IN_THE_ROOT = '''

def _in_the_root():
    import os

    root = os.getcwd()
    found = []
    for what in (lambda: open(os.path.join(root, "made.txt"), "w").write("x"),
                 lambda: (os.makedirs(os.path.join(root, "made", "deeper"), exist_ok=True),
                          open(os.path.join(root, "made", "deeper", "x"), "w").write("x")),
                 lambda: os.unlink(os.path.join(root, "made.txt")),
                 lambda: os.rename(os.path.join(root, "tally"), os.path.join(root, "moved"))):
        try:
            what()
            found.append("done")
        except PermissionError:
            found.append("EACCES")
    assert found == ["EACCES"] * 4, found


_in_the_root()
'''


def test_in_the_tree_s_root_new_files_stay_empty_and_nothing_goes(task, runtime, landlock):  # noqa: F811
    if landlock < 2:
        pytest.skip("Landlock ABI 2+ keeps the test files")
    assert _solved(_run(task, runtime, *GOLD, append(WORDS, IN_THE_ROOT)))


# Spellings of "the process's memory" the audit hook's old test (abspath(path).startswith("/proc")) missed,
# opened by changed code at import: the hook now judges the file each reaches, with the kernel guard (it names
# the attempt: no verdict) and without it (then it alone stands in the way).
MISSED = {
    "two leading slashes": "open('/' + '/proc/self/mem', 'rb')",
    "a link the run made": ("(lambda p: (__import__('pathlib').Path(p).symlink_to('/proc'), open(p + '/self/mem', 'rb')))"
                            "(__import__('tempfile').mkdtemp() + '/p')"),
    "/dev/fd/..": "open('/dev/fd/../mem', 'rb')",
    "a listing through //": "__import__('os').listdir('//proc')",
}


@pytest.mark.parametrize("kernel", ["kernel guard", "hook alone"])
@pytest.mark.parametrize("spelling", list(MISSED))
def test_changed_code_opening_proc_by_a_missed_spelling_gives_no_verdict(task, runtime, monkeypatch, kernel, spelling):  # noqa: F811
    if kernel == "hook alone":
        monkeypatch.setattr(channel, "prepare", _without_kernel_guard)
    with pytest.raises(NoVerdict) as caught:
        _run(task, runtime, *GOLD, append(WORDS, "\n\n" + MISSED[spelling] + "\n"))
    assert caught.value.rule == "audit_denied"
    assert caught.value.event == ("os.listdir" if "listing" in spelling else "open")


def test_without_the_kernel_guard_changed_code_may_not_open_a_folder(task, runtime, monkeypatch):  # noqa: F811
    """A folder's descriptor given as dir_fd reaches any file, and the `open` event does not carry dir_fd."""
    monkeypatch.setattr(channel, "prepare", _without_kernel_guard)
    probe = "\n\n_root = __import__('os').open('/', __import__('os').O_RDONLY)\n"
    with pytest.raises(NoVerdict) as caught:
        _run(task, runtime, *GOLD, append(WORDS, probe))
    assert (caught.value.rule, caught.value.event) == ("audit_denied", "open")


def test_without_the_kernel_guard_a_process_file_opened_with_no_changed_frame_gives_no_verdict(task, runtime, monkeypatch):  # noqa: F811
    """At exit, with no frame of changed code on the stack (an atexit callback called from C), the process's
    own files of /proc are still denied, once changed code has run."""
    monkeypatch.setattr(channel, "prepare", _without_kernel_guard)
    probe = "\n\n__import__('atexit').register(open, '/proc/self/maps', 'rb')\n"
    with pytest.raises(NoVerdict) as caught:
        _run(task, runtime, *GOLD, append(WORDS, probe))
    assert (caught.value.rule, caught.value.event) == ("audit_denied", "open")


KEY_IN_MEMORY = "channel_key_read_from_the_runner_s_memory_through_an_unwatched_proc_path"


@pytest.mark.parametrize("spelling", list(KINDS[KEY_IN_MEMORY].spellings))
def test_the_channel_key_cheat_is_not_solved_by_the_kernel_guard_alone(task, runtime, landlock, spelling):  # noqa: F811
    """Round 9b's cheat (the key read from /proc/self/mem, records forged with it), run with no changed file
    told to the audit hook: the kernel alone keeps it from the key (with both guards off it solves the task:
    tests/test_repair_redteam_round9b.py, test_round9b_stopped_cheat_really_passes_without_its_rule)."""
    run = _run(task, runtime, *KINDS[KEY_IN_MEMORY].spellings[spelling], guarded=False)
    assert not _solved(run), run.status
