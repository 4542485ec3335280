"""The kernel keeps the test files from every process of a run, whoever started it (issue 51, round 11b).

The audit hook lives in one interpreter: a shell, a forked and exec'd program or `python -I` started by the
tests runs without it. So the harness's Landlock ruleset (harness/confine.py), applied before exec to the
runner's whole process tree, also keeps the files a run protects: no process of the run may write, truncate,
remove, rename, replace or link out a kept file, nor rename or remove a folder on the way to one (its
*chain*, from / down). The harness reaps every process of the run before it takes its digests (it is their
subreaper), and the digests open each file one name at a time without following a link and compare device,
inode, ctime, mode and content. Where the harness is root (a container) every folder from the tree's root
down to the test files' is root's and sticky too, so the kernel refuses the rename without Landlock."""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from codewalk.domains.repair import channel
from codewalk.domains.repair.harness import confine, run
from tests.test_repair_test_files_kept import TEST_USER, _as_test_user


def _abi() -> int:
    try:
        return int(ctypes.CDLL(None, use_errno=True).syscall(confine.CREATE, None, ctypes.c_size_t(0),
                                                              ctypes.c_uint32(1)))
    except (OSError, AttributeError):
        return -1


needs_refer = pytest.mark.skipif(_abi() < 2, reason="Landlock ABI 2+ keeps the test files (REFER)")


@pytest.fixture
def tree():
    """A run's scratch folder as the local runtime makes it: the tree (test files, a conftest, a data file
    beside them, a package), the home beside it. Not under pytest's basetemp (a chain folder of its own)."""
    top = Path(tempfile.mkdtemp(prefix="codewalk-kernel-kept-"))
    root, home = top / "tree", top / "home"
    for path, text in {"tests/test_it.py": "def test_it():\n    assert False\n", "tests/conftest.py": "",
                       "tests/data.txt": "data\n", "tests/sub/test_deep.py": "", "setup.py": "",
                       "pkg/mod.py": "", "docs/index.txt": ""}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    home.mkdir()
    yield root
    shutil.rmtree(top)


KEPT = ["tests/test_it.py", "tests/conftest.py", "tests/sub/test_deep.py"]


def _in_the_domain(root: Path, actions: dict, keep=KEPT, env=None) -> dict[str, str]:
    """What each action did in a child under the run's ruleset: "done" or the error's name and errno."""
    made, proc_guard, files_guard = confine.ruleset([str(root / p) for p in keep])
    assert made, proc_guard
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read)
        try:
            confine.restrict(made)
            found = {}
            for name, action in actions.items():
                try:
                    action()
                    found[name] = "done"
                except OSError as error:
                    found[name] = f"{type(error).__name__} {error.errno}"
            os.write(write, json.dumps(found).encode())
        finally:
            os._exit(0)
    os.close(write)
    os.close(made[0])
    with os.fdopen(read, "rb") as handle:
        found = json.loads(handle.read().decode() or "{}")
    os.waitpid(pid, 0)
    return found


def _exchange(a: Path, b: Path) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.renameat2(-100, str(a).encode(), -100, str(b).encode(), 2) != 0:  # AT_FDCWD, RENAME_EXCHANGE
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))


def _sh(script: str, cwd: Path):
    def action():
        if subprocess.call(["/bin/sh", "-c", script], cwd=cwd, stderr=subprocess.DEVNULL) != 0:
            raise OSError(5, "the shell failed")
    return action


def _python_isolated(code: str, cwd: Path):
    def action():
        if subprocess.call([sys.executable, "-I", "-c", code], cwd=cwd, stderr=subprocess.DEVNULL) != 0:
            raise OSError(5, "python -I failed")
    return action


@needs_refer
def test_no_process_of_a_run_can_write_move_remove_or_link_out_a_kept_test_file(tree):
    test, home = tree / "tests" / "test_it.py", tree.parent / "home"
    (home / "forged.py").write_text("def test_it():\n    assert True\n")
    found = _in_the_domain(tree, {
        "open to write": lambda: open(test, "a").close(),
        "open with O_TRUNC": lambda: os.close(os.open(test, os.O_RDONLY | os.O_TRUNC)),
        "truncate()": lambda: os.truncate(test, 0),
        "unlink": lambda: os.unlink(test),
        "rename in its folder": lambda: os.rename(test, tree / "tests" / "moved.py"),
        "rename out": lambda: os.rename(test, home / "moved.py"),
        "rename over it from outside": lambda: os.rename(home / "forged.py", test),
        "rename over it from beside it": lambda: os.rename(tree / "tests" / "data.txt", test),
        "exchange it": lambda: _exchange(home / "forged.py", test),
        "link it out": lambda: os.link(test, home / "linked.py"),
        "symlink beside it": lambda: os.symlink(home / "forged.py", tree / "tests" / "__init__.py"),
        "a conftest rewritten": lambda: open(tree / "tests" / "conftest.py", "w").close(),
        "a deeper test file rewritten": lambda: open(tree / "tests" / "sub" / "test_deep.py", "w").close(),
        "sh: sed -i": _sh("sed -i s/False/True/ tests/test_it.py", tree),
        "sh: cat over": _sh("cat home/forged.py > tree/tests/test_it.py", tree.parent),
        "python -I: open to write": _python_isolated("open('tests/test_it.py', 'w').write('')", tree),
    })
    assert found.pop("link it out") == "OSError 18"  # EXDEV: no REFER on a chain folder
    assert found.pop("symlink beside it") == "PermissionError 13"  # no MAKE_SYM on a chain folder
    assert set(found.values()) <= {"PermissionError 13", "OSError 5"}, found
    assert test.read_text() == "def test_it():\n    assert False\n"
    assert not (tree / "tests" / "moved.py").exists() and not (home / "moved.py").exists()
    # sed -i made its temporary file beside the test file (making an entry there is allowed): empty, and left
    assert [p.read_text() for p in (tree / "tests").glob("sed*")] == [""]


@needs_refer
def test_no_process_of_a_run_can_move_aside_or_remove_a_folder_on_the_way_to_a_kept_file(tree):
    (tree / ".fake").mkdir()
    found = _in_the_domain(tree, {
        "mv tests": lambda: os.rename(tree / "tests", tree / ".real"),
        "mv tests/sub": lambda: os.rename(tree / "tests" / "sub", tree / "tests" / "sub2"),
        "exchange tests with a fake": lambda: _exchange(tree / ".fake", tree / "tests"),
        "mv the tree's root": lambda: os.rename(tree, tree.parent / "other"),
        "mv the scratch folder": lambda: os.rename(tree.parent, tree.parent.with_name(tree.parent.name + "-x")),
        "rm -rf tests": lambda: shutil.rmtree(tree / "tests" / "sub"),
        "sh: mv tests .real": _sh("mv tests .real", tree),
        "python -I: os.rename": _python_isolated("import os; os.rename('tests', '.real')", tree),
    })
    assert set(found.values()) <= {"PermissionError 13", "OSError 5"}, found
    assert (tree / "tests" / "sub" / "test_deep.py").is_file() and not (tree / ".real").exists()


@needs_refer
def test_the_writes_a_run_needs_stay_allowed_off_the_chain(tree):
    home = tree.parent / "home"
    found = _in_the_domain(tree, {
        "a file of its own in the home": lambda: (home / "a").write_text("a"),
        "folders and files in the home, removed": lambda: (os.makedirs(home / "b" / "c"),
                                                           (home / "b" / "c" / "d").write_text("d"),
                                                           shutil.rmtree(home / "b")),
        "a new module in a package folder": lambda: (tree / "pkg" / "new.py").write_text("x"),
        "renamed and removed there": lambda: (os.rename(tree / "pkg" / "new.py", tree / "pkg" / "n.py"),
                                              os.unlink(tree / "pkg" / "n.py")),
        "moved between folders off the chain": lambda: os.rename(tree / "docs" / "index.txt", home / "index.txt"),
        "an existing file beside the tests written": lambda: (tree / "tests" / "data.txt").write_text("more"),
        "an existing file in the root written": lambda: (tree / "setup.py").write_text("x"),
        "an empty file made beside the tests": lambda: os.close(os.open(tree / "tests" / "new.txt",
                                                                        os.O_CREAT | os.O_RDONLY)),
        "a folder made in the root": lambda: os.mkdir(tree / "made"),
        "the test file read": lambda: (tree / "tests" / "test_it.py").read_text(),
        "/dev/null written": lambda: open(os.devnull, "w").write("x"),
    })
    assert set(found.values()) == {"done"}, found
    # what a run can no longer do (the cost): write a new file directly in a chain folder, remove an entry there
    found = _in_the_domain(tree, {
        "a new file written in the root": lambda: (tree / "new.txt").write_text("x"),
        "an existing file beside the tests removed": lambda: os.unlink(tree / "tests" / "data.txt"),
    })
    assert set(found.values()) == {"PermissionError 13"}, found


@needs_refer
def test_the_ruleset_still_keeps_proc_from_the_run(tree):
    found = _in_the_domain(tree, {"/proc/self/status": lambda: open("/proc/self/status").read()})
    assert found == {"/proc/self/status": "PermissionError 13"}


def test_a_kernel_without_refer_keeps_proc_only_and_says_so(tree, monkeypatch):
    real = ctypes.CDLL(None, use_errno=True)

    class Abi1:  # the kernel answers ABI 1 to the version query; everything else is the real libc's
        def syscall(self, number, *args):
            if number == confine.CREATE and args[0] is None:
                return 1
            return real.syscall(number, *args)

        def __getattr__(self, name):
            return getattr(real, name)

    if _abi() < 1:
        pytest.skip("no Landlock in this kernel")
    monkeypatch.setattr(confine.ctypes, "CDLL", lambda *a, **k: Abi1())
    made, proc_guard, files_guard = confine.ruleset([str(tree / p) for p in KEPT])
    os.close(made[0])
    assert proc_guard == "landlock ABI 1"
    assert files_guard == "not the kernel: landlock ABI 1 has no REFER (2+)"
    made, proc_guard, files_guard = confine.ruleset([])
    os.close(made[0])
    assert files_guard == "none: nothing to keep"


def test_the_digests_see_a_folder_put_back_as_a_link_a_swapped_copy_and_a_mode_changed_back(tree):
    protected = run._protect(str(tree), KEPT)
    assert run._changed(str(tree), protected) == []
    tests = tree / "tests"
    os.rename(tests, tree / ".real")  # the folder put back as a link to the originals: same text, same inode
    os.symlink(".real", tests)
    assert run._changed(str(tree), protected) == sorted(KEPT)
    tests.unlink()
    os.rename(tree / ".real", tests)
    assert run._changed(str(tree), protected) == []
    test = tests / "test_it.py"
    text = test.read_text()  # the same text in another file put in its place
    os.chmod(test, 0o644)
    test.unlink()
    test.write_text(text)
    os.chmod(test, 0o444)
    assert run._changed(str(tree), protected) == ["tests/test_it.py"]
    protected = run._protect(str(tree), KEPT)
    os.chmod(test, 0o644)  # a mode changed and changed back: the ctime tells
    os.chmod(test, 0o444)
    assert run._changed(str(tree), protected) == ["tests/test_it.py"]


def test_a_process_that_left_the_runner_s_session_is_killed_before_the_digests(tmp_path):
    """A double fork and setsid: the straggler waits for the runner's pid to go, then writes a mark (in the
    round 11b cheat it moves the tests' folder back). The harness kills it while the runner is unreaped."""
    harness, work = tmp_path / "harness", tmp_path / "work"
    harness.mkdir()
    work.mkdir()
    channel.prepare(harness)
    mark = work / "mark"
    code = f"""
import os, sys, time
runner = os.getpid()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                os.kill(runner, 0)
            except OSError:
                open({str(mark)!r}, "w").write(str(os.getpid()))
                break
            time.sleep(0.005)
        os._exit(0)
    os._exit(0)
time.sleep(0.3)
"""
    config = channel.config("tok", [sys.executable, "-c", code], str(work), {"PATH": os.defpath}, 30)
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-I", str(harness / channel.RUNNER)], input=config, text=True,
                          capture_output=True, timeout=60)
    report = channel.read(done.stdout, "tok", done.returncode)
    assert report.exit == 0 and time.monotonic() - started < 10  # the pipe's wait does not hold the digests
    time.sleep(0.5)
    assert not mark.exists(), "a straggler outlived the harness and saw the runner go"


@pytest.mark.skipif(os.geteuid() != 0, reason="the kernel's wall needs a harness that is root (CI runs as root)")
def test_where_the_harness_is_root_every_folder_down_to_the_test_files_is_root_s_and_sticky(tree):
    os.chmod(tree.parent, 0o755)
    for path in [tree, *tree.rglob("*")]:
        os.chown(path, TEST_USER, TEST_USER)  # as the tree is unpacked in a container: the test user's
    run._protect(str(tree), KEPT)
    for folder in (tree, tree / "tests", tree / "tests" / "sub"):
        assert (folder.stat().st_uid, folder.stat().st_mode & 0o7777) == (0, 0o1777), folder
    assert (tree / "pkg").stat().st_uid == TEST_USER  # off the chain: as it was
    (tree / ".fake").mkdir()
    os.chown(tree / ".fake", TEST_USER, TEST_USER)
    assert _as_test_user(lambda: os.rename(tree / "tests", tree / ".real")) == "PermissionError"
    assert _as_test_user(lambda: os.rename(tree / "tests" / "sub", tree / ".real")) == "PermissionError"
    assert _as_test_user(lambda: _exchange(tree / ".fake", tree / "tests")) == "PermissionError"
    assert _as_test_user(lambda: (tree / "made.txt").write_text("x")) == "done"  # its own files, as before
    assert _as_test_user(lambda: os.unlink(tree / "made.txt")) == "done"
    assert _as_test_user(lambda: os.rename(tree / "pkg", tree / "pkg2")) == "done"
