"""sandbox.copy_tree: how the agent's /testbed reaches the host (Testbed.export) before its diff is taken. Code
left that tree, so the copy must not recurse per folder level, follow a link, read a repository or block."""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path

import pytest

from codewalk.runtime import sandbox


def _chain(root, levels: int) -> None:
    """root/d/d/.../d/deep.py, `levels` folders deep, one name at a time (os.makedirs recurses too)."""
    root.mkdir()
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(levels):
        os.mkdir("d", dir_fd=fd)
        inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = inner
    with open(os.open("deep.py", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as deep:
        deep.write("x = 1\n")
    os.close(fd)


def test_a_chain_of_folders_deeper_than_the_limit_is_left_out_without_recursing(tmp_path):
    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "fix.py").write_text("def f():\n    return 1\n")
    _chain(src / "chain", 1500)  # shutil.copytree raised RecursionError on this on Python 3.11
    sandbox.copy_tree(src, tmp_path / "out")
    assert (tmp_path / "out" / "pkg" / "fix.py").read_text() == "def f():\n    return 1\n"
    deepest, level = tmp_path / "out" / "chain", 1
    while (deepest / "d").is_dir():
        deepest, level = deepest / "d", level + 1
    assert level == sandbox.DEPTH and not (deepest / "deep.py").exists()
    sandbox.remove_tree(tmp_path / "out")
    sandbox.remove_tree(src)
    assert not (tmp_path / "out").exists() and not src.exists()


def test_links_are_copied_as_links_and_no_git_fifo_or_link_target_is_read(tmp_path):
    secret = tmp_path / "host-secret"
    secret.write_text("host only\n")
    src = tmp_path / "src"
    (src / "sub" / ".git").mkdir(parents=True)
    (src / "sub" / ".git" / "config").write_text("[core]\n\tfsmonitor = touch pwned\n")
    (src / "other").mkdir()
    (src / "other" / ".git").write_text(f"gitdir: {tmp_path}\n")  # a gitfile pointing at a host folder
    (src / ".git").mkdir()
    (src / "link").symlink_to(secret)
    (src / "folder-link").symlink_to(tmp_path)
    os.mkfifo(src / "pipe")  # nobody writes it: a copy that opened it would block
    (src / "run.sh").write_text("#!/bin/sh\n")
    os.chmod(src / "run.sh", 0o755)

    done = threading.Event()
    thread = threading.Thread(target=lambda: (sandbox.copy_tree(src, tmp_path / "out"), done.set()), daemon=True)
    thread.start()
    thread.join(30)
    assert done.is_set(), "the copy blocked"
    out = tmp_path / "out"
    assert sorted(p.name for p in out.iterdir()) == ["folder-link", "link", "other", "run.sh", "sub"]
    assert os.readlink(out / "link") == str(secret) and (out / "link").is_symlink()
    assert (out / "folder-link").is_symlink() and not list((out / "sub").iterdir()) and not list((out / "other").iterdir())
    assert os.stat(out / "run.sh").st_mode & 0o111


def _as_nobody(work) -> int:
    """Run work() in a child as uid/gid 65534 (nobody); its exit status (0: it returned)."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            work()
            os._exit(0)
        except BaseException:
            os._exit(1)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


@pytest.mark.skipif(os.geteuid() != 0, reason="making a child nobody needs root (CI runs as root)")
def test_read_only_folders_code_left_are_removed_for_a_user_that_is_not_root():
    """As TemporaryDirectory's cleanup does for its owner: a folder of mode 0555 (a Go module cache, a test's
    read-only fixture) or 0000 holding files is made the owner's and removed; as root this never shows."""
    shared = Path(tempfile.mkdtemp(prefix="codewalk-test-nobody-"))  # pytest's tmp_path is root's only (0700)
    os.chmod(shared, 0o777)
    top = shared / "work"

    def work() -> None:
        (top / "a" / "b").mkdir(parents=True)
        (top / "a" / "b" / "kept.txt").write_text("x")
        (top / "c").mkdir()
        (top / "c" / "d.txt").write_text("y")
        os.chmod(top / "a" / "b", 0o555)
        os.chmod(top / "c", 0o000)
        sandbox.remove_tree(top)
        assert not top.exists()

    try:
        assert _as_nobody(work) == 0
        assert not top.exists()
    finally:
        sandbox.remove_tree(shared)


def test_a_link_put_where_a_folder_was_is_not_made_the_owner_s(tmp_path):
    """remove_tree's chmod of a folder it cannot open goes through the folder's own descriptor: a link there is
    neither followed nor changed (os.chmod by name would have made its target 0700)."""
    target = tmp_path / "host-file"
    target.write_text("host")
    os.chmod(target, 0o644)
    top = tmp_path / "work"
    top.mkdir()
    (top / "swapped").symlink_to(target)
    folder = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        assert not sandbox._owner_only("swapped", folder)
    finally:
        os.close(folder)
    sandbox.remove_tree(top)
    assert not top.exists() and target.read_text() == "host" and (os.stat(target).st_mode & 0o777) == 0o644
