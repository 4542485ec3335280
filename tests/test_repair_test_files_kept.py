"""The test files a run protects are kept by the kernel too where the harness is root (issue 51, round 10b):
the tests' user may make and remove its own files beside them, but not move, link or remove one of them,
whatever Python code it runs (the audit hook refuses it first; this is the wall behind it)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from codewalk.domains.repair.harness import run

TEST_USER = 1000  # the uid the tests run as when the harness is root (both runtimes)


def _as_test_user(action) -> str:
    """What action() did as the tests' user, in a child: "done" or the error's name."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read)
        try:
            os.setgroups([])
            os.setgid(TEST_USER)
            os.setuid(TEST_USER)
            action()
            what = "done"
        except Exception as error:  # noqa: BLE001 - reported to the parent
            what = type(error).__name__
        os.write(write, what.encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as handle:
        what = handle.read().decode()
    os.waitpid(pid, 0)
    return what


@pytest.mark.skipif(os.geteuid() != 0, reason="the kernel's wall needs a harness that is root (CI runs as root)")
def test_a_protected_test_file_cannot_be_moved_over_or_removed_by_the_tests_user():
    top = Path(tempfile.mkdtemp(prefix="codewalk-kept-"))  # not under pytest's basetemp: root's, 0700
    try:
        _kept(top)
    finally:
        shutil.rmtree(top)


def _kept(top):
    os.chmod(top, 0o755)
    tree = top / "tree"
    (tree / "tests").mkdir(parents=True)
    for folder in (tree, tree / "tests"):
        os.chown(folder, TEST_USER, TEST_USER)
    test_file = tree / "tests" / "test_it.py"
    test_file.write_text("def test_it():\n    assert False\n")
    os.chown(test_file, TEST_USER, TEST_USER)  # as the tree is unpacked: the test user's
    forged = tree / "tests" / "forged.py"

    run._protect(str(tree), ["tests/test_it.py"])

    def forge():
        forged.write_text("def test_it():\n    assert True\n")

    assert _as_test_user(forge) == "done"  # the tests may still write beside their files
    assert _as_test_user(lambda: os.replace(forged, test_file)) == "PermissionError"
    assert _as_test_user(lambda: os.unlink(test_file)) == "PermissionError"
    assert _as_test_user(lambda: os.chmod(test_file, 0o666)) == "PermissionError"
    assert _as_test_user(lambda: open(test_file, "w").close()) == "PermissionError"
    assert _as_test_user(lambda: os.unlink(forged)) == "done"  # and remove their own
    assert test_file.read_text() == "def test_it():\n    assert False\n"
