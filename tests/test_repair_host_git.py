"""codewalk's own git never runs what a tree names. A mined repository's tests run in the worktree itself
(mining's in-place runs), so they can rewrite its `.git`: here a hostile test plants a git directory whose
configuration names an fsmonitor, hooks, clean/smudge/process filters, an external diff and a textconv
driver (with a .gitattributes that selects them), as a folder, a symlink or a `gitdir:` file. Every
command any of them would run appends to a marker file outside the sandbox; after the run codewalk
does what mining and grading do to a worktree (write-tree, add, diff, restore, reset, a reused checkout,
apply), and no marker may appear. And a graded run cannot reach the task's fix in the mirror's history."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from codewalk.domains.repair import RepairDomain
from codewalk.domains.repair.env import EnvSpec, run_tests
from codewalk.runtime import sandbox
from tests import repair_fixture
from tests.test_sandbox_root import HANDLES, host_handle

pytestmark = [pytest.mark.usefixtures("shared_home"),
              pytest.mark.skipif(not sandbox.isolated() and not os.environ.get("CI"), reason=sandbox.isolation())]

# The hostile test: it plants a git directory named by `.git` in MODE, then passes. `{…}` are filled in.
HOSTILE = '''import os, pathlib, subprocess

MARKERS, BASE, MODE = {markers!r}, {base!r}, {mode!r}


def test_plant():
    tree = pathlib.Path.cwd()
    dot = tree / ".git"
    link = dot.read_text()
    evil = tree / "evil"
    subprocess.run(["git", "init", "-q", "--bare", str(evil)], check=True)
    hooks = tree / "hooks"
    hooks.mkdir()
    for hook in ("post-checkout", "pre-commit", "post-index-change", "reference-transaction", "pre-auto-gc"):
        (hooks / hook).write_text("#!/bin/sh\\necho " + hook + " >> " + MARKERS + "/hooks\\n")
        (hooks / hook).chmod(0o755)
    mark = lambda what: "sh -c 'echo " + what + " >> " + MARKERS + "/" + what + "; cat'"
    settings = {{"core.bare": "false", "core.fsmonitor": mark("fsmonitor"), "core.hooksPath": str(hooks),
                "filter.x.clean": mark("clean"), "filter.x.smudge": mark("smudge"),
                "filter.x.process": mark("process"), "filter.x.required": "true",
                "diff.external": mark("external"), "diff.x.textconv": mark("textconv"),
                "diff.x.command": mark("command")}}
    for key, value in settings.items():
        subprocess.run(["git", "--git-dir", str(evil), "config", key, value], check=True)
    # the mirror's objects (its path is in the link git left) and the task's commit: a repository git accepts
    objects = pathlib.Path(link.removeprefix("gitdir:").strip()).parent.parent / "objects"
    (evil / "objects" / "info" / "alternates").write_text(str(objects) + "\\n")
    (evil / "HEAD").write_text(BASE + "\\n")
    (tree / ".gitattributes").write_text("* filter=x diff=x\\n")
    (tree / "nested").mkdir()  # a nested repository with the same configuration
    subprocess.run(["cp", "-r", str(evil), str(tree / "nested" / ".git")], check=True)
    os.remove(dot)
    if MODE == "folder":
        subprocess.run(["cp", "-r", str(evil), str(dot)], check=True)
    elif MODE == "symlink":
        os.symlink(evil, dot)
    else:
        dot.write_text("gitdir: " + str(evil) + "\\n")
'''


@pytest.fixture(scope="module")
def tally(tmp_path_factory, module_home):
    root = tmp_path_factory.mktemp("tally")
    fixture = repair_fixture.build(root)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CODEWALK_HOME", str(module_home))
        mirror = RepairDomain().mirrors.ensure(repair_fixture.REPO, str(fixture.clone))
    return fixture, mirror


@pytest.mark.parametrize("mode", ["folder", "symlink", "gitdir-file"])
def test_a_test_that_plants_a_hostile_git_directory_runs_nothing_on_the_host(tally, tmp_path, mode):
    fixture, mirror = tally
    markers = tmp_path / "markers"  # outside every sandbox view: only a host process can write here
    markers.mkdir()
    base = fixture.rows[0]["base_commit"]
    domain = RepairDomain()
    spec = EnvSpec.from_config(repair_fixture.INSTALL_CONFIG)
    with domain.worktrees.checkout(mirror, base) as tree:
        env = domain.envs.get(repair_fixture.REPO, spec, tree)
        (tree.path / "tests" / "test_hostile.py").write_text(HOSTILE.format(markers=str(markers), base=base,
                                                                             mode=mode))
        run = run_tests(env, tree, ["tests/test_hostile.py::test_plant"], "", 120, fresh=False)
        assert run.status == {"tests/test_hostile.py::test_plant": "passed"}
        assert (tree.path / ".gitattributes").is_file()  # planted
        # what mining and grading do to a worktree after a run; a failure is kept, the markers are checked first
        errors = _trying(lambda: _after_a_run(tree, base))
    with domain.worktrees.checkout(mirror, base) as again:  # the same slot, reused
        errors += _trying(lambda: _reused(again, tree.path, base, fixture.rows[0]["test_patch"]))
    assert sorted(p.name for p in markers.iterdir()) == []
    assert errors == []


def _after_a_run(tree, base: str) -> None:
    state = tree.tree()
    tree.git("add", "-A")  # as a fuzzy apply does: every planted file through the index
    assert ".gitattributes" in tree.diff(base)
    tree.restore(state)
    tree.reset()
    assert (tree.path / ".git").is_file() and not (tree.path / ".gitattributes").exists()
    assert not (tree.path / "nested").exists()


def _reused(tree, path: Path, base: str, test_patch: str) -> None:
    assert tree.path == path
    assert tree.apply(test_patch) == "strict"
    assert tree.git("rev-parse", "HEAD").stdout.strip() == base


def _trying(step) -> list[str]:
    try:
        step()
    except Exception as e:  # noqa: BLE001 - reported after the markers
        return [f"{type(e).__name__}: {e}"]
    return []


# A graded test that looks for the task's own fix in the repository's history: in its tree's git, at the
# mirror's path, and through a handle of the mirror made on the host (open_by_handle_at, then git on
# /proc/self/fd): the way a run with root's capabilities read a future fix on main.
FUTURE = '''import ctypes, os, subprocess
''' + HANDLES + '''
FIX, MIRROR, KIND, DATA = {fix!r}, {mirror!r}, {kind!r}, {data!r}


def test_future():
    found = []
    if subprocess.run(["git", "cat-file", "-e", FIX], capture_output=True).returncode == 0:
        found.append("the tree's own history")
    if os.path.exists(MIRROR):
        found.append("the mirror's path")
    try:
        fd = open_by_handle(os.open(".", os.O_RDONLY), KIND, DATA, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        fd = None
    if fd is not None and subprocess.run(["git", "--git-dir", "/proc/self/fd/%d" % fd, "cat-file", "-e", FIX],
                                         pass_fds=(fd,), capture_output=True).returncode == 0:
        found.append("the mirror by handle")
    assert not found, found
'''


def test_a_graded_run_cannot_reach_the_fix_in_the_mirrors_history(tally, tmp_path):
    fixture, mirror = tally
    row = next(r for r in fixture.rows if r["instance_id"] == fixture.ids["W1"])
    base, fix = row["base_commit"], fixture.commits["W1"]  # the fix comes after the task's base
    domain = RepairDomain()
    spec = EnvSpec.from_config(repair_fixture.INSTALL_CONFIG)
    kind, data = host_handle(mirror)
    with domain.worktrees.fresh(mirror, base) as tree:
        env = domain.envs.get(repair_fixture.REPO, spec, tree)
        (tree.path / "tests" / "test_zz_future.py").write_text(FUTURE.format(fix=fix, mirror=str(mirror), kind=kind,
                                                                              data=data))
        x_g = tree.tree()
        run = run_tests(env, tree, ["tests/test_zz_future.py::test_future"], "", 120, config_from=x_g)
    assert run.status == {"tests/test_zz_future.py::test_future": "passed"}
