"""env.run_tests walks the tree of a run once (env.tree_files) for what it walked three times before: the conftests,
the test data (env.test_data) and the files as they landed (env.landed). The one walk gives the same three lists as
the three walks, on a real tree (a git checkout) with nested test folders, data, links (to files, to folders,
broken, a test folder that is a link), a nested .git folder and a .git file, conftests at several levels and one
under .git."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from codewalk.domains.repair import env
from codewalk.domains.repair.guard import walk

FILES = ("setup.py", "pytest.ini", "conftest.py", "pkg/__init__.py", "pkg/core.py", "pkg/data/table.json",
         "pkg/test_core.py", "pkg/sub/mod.py", "pkg/sub/test_mod.py", "pkg/sub/conftest.py",
         "tests/conftest.py", "tests/unit/test_a.py", "tests/unit/local.json", "tests/unit/conftest.py",
         "tests/data/expected.json", "tests/data/deep/more/y.txt", "tests/helpers.py", "tests/.git/config",
         "tests/.git/conftest.py", "vendor/.git/HEAD", "vendor/lib/conftest.py", "vendor/lib/x.py",
         "src/app/tests/test_b.py", "src/app/tests/fixtures/b.csv", "src/app/main.py", "docs/index.rst",
         "elsewhere/tests/test_c.py", "elsewhere/tests/conftest.py", "elsewhere/tests/c.json",
         "test_root.py")
TESTS = ["tests/unit/test_a.py", "pkg/test_core.py", "pkg/sub/test_mod.py", "src/app/tests/test_b.py",
         "test_root.py", "linked/tests/test_c.py", "tests/.git/test_git.py", "vendor/.git/hooks/test_h.py"]


def _three_walks(work: Path, files: list[str], protected: set[str], kept: set[str]):
    """What run_tests computed before one walk did: its own conftests walk, test_data's and landed's."""
    conftests = sorted(str(Path(top, "conftest.py").relative_to(work)) for top, _, names in walk(work)
                       if "conftest.py" in names and ".git" not in Path(top).relative_to(work).parts)
    return conftests, env.test_data(work, files, protected), env.landed(work, files, kept)


def _one_walk(work: Path, files: list[str], protected: set[str], kept: set[str]):
    walked = env.tree_files(work, files)
    return (walked.conftests, env.test_data(work, files, protected, walked=walked),
            env.landed(work, files, kept, walked=walked))


@pytest.fixture
def tree(tmp_path) -> Path:
    work = tmp_path / "tree"
    for path in FILES:
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_text(f"{path}\n")
    for path in ("tests/.git/test_git.py", "vendor/.git/hooks/test_h.py", "vendor/.git/hooks/h.json"):
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_text("def test_g(): pass\n")
    os.symlink("../pkg/core.py", work / "tests/link.py")  # a link to a file
    os.symlink("../pkg", work / "tests/pkg")  # a link to a folder (never entered)
    os.symlink("nowhere", work / "tests/data/broken.json")  # a broken link
    os.symlink("conftest.py", work / "pkg/sub/conftest_link.py")
    os.symlink("elsewhere", work / "linked")  # linked/tests: a test folder reached through a link only
    (work / "pkg/sub/.git").write_text("gitdir: ../../.git/modules/sub\n")  # a .git file (a submodule's)
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    subprocess.run(["git", "-C", str(work), "add", "-A", "-f"], check=True)
    subprocess.run(["git", "-C", str(work), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "x"],
                   check=True)
    return work


@pytest.mark.parametrize("files", [TESTS, TESTS[:1], TESTS[1:3], TESTS[3:5], TESTS[5:]],
                         ids=["all", "nested_tests", "package", "src_and_root", "through_a_link_and_git"])
def test_one_walk_gives_what_the_three_walks_gave(tree, files):
    present = [f for f in files if (tree / f).is_file()]
    assert present == files
    conftests = _three_walks(tree, present, set(), set())[0]
    protected = {*present, *conftests, "tests/helpers.py"}
    kept = {*protected, "pkg/core.py", "setup.py"}
    before = _three_walks(tree, present, protected, kept)
    assert _one_walk(tree, present, protected, kept) == before
    assert _one_walk(tree, present, set(), set()) == _three_walks(tree, present, set(), set())
    assert before[0] and before[2]  # each list holds something to compare
    # nothing beneath a .git folder (the .git file of pkg/sub is a plain file, landed or data as before)
    assert ".git" not in {part for path in (*before[0], *before[2]) for part in Path(path).parts[:-1]}


def test_one_walk_finds_what_it_should(tree):
    """The lists themselves, for the whole TESTS: conftests nowhere under .git, data under the test folders (through
    a linked test folder too, as test_data walks it), the rest landed; no link anywhere."""
    walked = env.tree_files(tree, TESTS)
    assert walked.conftests == ["conftest.py", "elsewhere/tests/conftest.py", "pkg/sub/conftest.py",
                                "tests/conftest.py", "tests/unit/conftest.py", "vendor/lib/conftest.py"]
    assert walked.tops == {"pkg", "pkg/sub", "src/app/tests", "tests"}  # not linked/tests, nor one under .git
    data = env.test_data(tree, TESTS, set(TESTS), walked=walked)
    assert "elsewhere/tests/c.json" not in data and "linked/tests/c.json" in data
    assert "vendor/.git/hooks/h.json" in data  # a test folder under .git: test_data walks it, as before
    assert "tests/data/deep/more/y.txt" in data and "tests/link.py" not in data and "pkg/core.py" in data
    assert not [p for p in data if ".git/" in p and not p.startswith("vendor/.git/hooks/")]
    landed = env.landed(tree, TESTS, walked=walked)
    assert "elsewhere/tests/c.json" in landed and "setup.py" in landed and "pkg/sub/.git" not in landed
    assert not set(landed) & set(data) and not [p for p in landed if p.startswith(("tests/", "pkg/"))]
