"""A small Python package with a known main line, for `cw mine repair` (tests/test_repair_mine.py).

`calc` starts with calc/ops.py and tests/test_ops.py. Its main line, oldest first (each commit dated a day
after the one before, from 2024-05-01):

- fix:       a fix with its test: add() of negatives; also touches CHANGELOG.md (left out of the gold)
- nofix:     a fix without tests (touches calc/ops.py only): not a candidate
- tests:     a commit changing only tests, by another author (so no series with nofix): not a candidate
- merge:     a branch "fix-mul" (a fix of mul() with a test in a test class) merged with --no-ff, while
             main got a README change: one candidate, the merge, based on its first parent
- flaky:     a fix of sub() with its test, plus a test whose outcome flips on every run
- rename:    calc/ops.py renamed calc/arith.py with a fix of div(), tests/test_ops.py renamed
             tests/test_arith.py with a parametrised test of it
- dependency: a fix whose gold needs a new dependency (tinydep, a wheel the fixture builds) and declares
             it in pyproject.toml

Each name maps to its commit in `Fixture.commits`; EXPECTED holds the outcome mining must give.
"""

from __future__ import annotations

import os
import subprocess
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

REPO = "calc/calc"
EXPECTED = {"fix": ("kept", ""), "nofix": ("skipped", "no_test_change"), "tests": ("skipped", "no_source_change"),
            "merge": ("kept", ""), "flaky": ("kept", ""), "rename": ("kept", ""), "dependency": ("kept", "")}

PYPROJECT = '[project]\nname = "calc"\nversion = "0.1"\ndependencies = []\n\n[tool.pytest.ini_options]\n' \
            'addopts = "-q"\n'
OPS = '''\
"""Arithmetic."""


def add(a, b):
    if a < 0 or b < 0:
        return abs(a) + abs(b)
    return a + b


def sub(a, b):
    return b - a


def mul(a, b):
    return a * b if a else 1


def div(a, b):
    return a // b
'''
TEST_OPS = '''\
from calc.ops import add, div, mul, sub


def test_add_small():
    assert add(1, 2) == 3


def test_sub_equal():
    assert sub(2, 2) == 0


def test_mul_one():
    assert mul(1, 5) == 5


def test_div_exact():
    assert div(6, 3) == 2
'''
FLIP = '''


def test_flips_every_run():
    marker = pathlib.Path(__file__).with_name(".flip")
    flipped = marker.exists()
    if flipped:
        marker.unlink()
    else:
        marker.write_text("1")
    assert not flipped
'''


@dataclass
class Fixture:
    clone: Path
    wheel: Path
    commits: dict[str, str] = field(default_factory=dict)
    dates: dict[str, str] = field(default_factory=dict)


def build(root: Path) -> Fixture:
    clone = root / "calc"
    clone.mkdir(parents=True)
    fx = Fixture(clone, tinydep_wheel(root / "wheels"))
    day = iter(range(1, 32))

    def commit(name: str, message: str, files: dict[str, str | None], author: tuple[str, str] | None = None) -> None:
        for path, text in files.items():
            file = clone / path
            if text is None:
                file.unlink()
            else:
                file.parent.mkdir(parents=True, exist_ok=True)
                file.write_text(text)
        date = f"2024-05-{next(day):02d}T10:00:00+00:00"
        _git(clone, "add", "-A")
        who = {"GIT_AUTHOR_NAME": author[0], "GIT_AUTHOR_EMAIL": author[1]} if author else {}
        _git(clone, "commit", "-q", "-m", message, env={"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date, **who})
        fx.commits[name], fx.dates[name] = _git(clone, "rev-parse", "HEAD"), date

    def edit(path: str, *pairs: str) -> dict[str, str]:
        """path with each (old, new) of pairs replaced in turn; each old occurs once."""
        text = (clone / path).read_text()
        for old, new in zip(pairs[::2], pairs[1::2], strict=True):
            assert text.count(old) == 1, f"{old!r} is not once in {path}"
            text = text.replace(old, new)
        return {path: text}

    _git(clone, "init", "-q", "-b", "main")
    commit("initial", "initial version", {"pyproject.toml": PYPROJECT, "calc/__init__.py": "",
                                          "calc/ops.py": OPS, "tests/test_ops.py": TEST_OPS,
                                          "CHANGELOG.md": "# Changes\n", "README.md": "calc\n"})
    commit("fix", "ops: add() keeps the sign of negatives", {
        **edit("calc/ops.py", "    if a < 0 or b < 0:\n        return abs(a) + abs(b)\n", ""),
        **edit("tests/test_ops.py", "    assert add(1, 2) == 3\n",
               "    assert add(1, 2) == 3\n\n\ndef test_add_negative():\n    assert add(-1, -2) == -3\n"),
        "CHANGELOG.md": "# Changes\n\n- add() keeps the sign of negatives\n"})
    commit("nofix", "ops: a docstring for add()", edit("calc/ops.py", "def add(a, b):\n",
                                                        'def add(a, b):\n    """a + b."""\n'))
    commit("tests", "tests: one more check of add()", edit("tests/test_ops.py", "    assert add(-1, -2) == -3\n",
                                                           "    assert add(-1, -2) == -3\n    assert add(0, 0) == 0\n"),
           author=("Calc Tester", "tester@calc.test"))
    _git(clone, "checkout", "-q", "-b", "fix-mul")
    commit("branch", "ops: mul() by zero", {
        **edit("calc/ops.py", "    return a * b if a else 1\n", "    return a * b\n"),
        **edit("tests/test_ops.py", "    assert mul(1, 5) == 5\n",
               "    assert mul(1, 5) == 5\n\n\nclass TestMul:\n    def test_by_zero(self):\n"
               "        assert mul(0, 5) == 0\n")})
    _git(clone, "checkout", "-q", "main")
    commit("readme", "readme: usage", {"README.md": "calc: add, sub, mul, div\n"})
    date = f"2024-05-{next(day):02d}T10:00:00+00:00"
    _git(clone, "merge", "-q", "--no-ff", "-m", "Merge branch fix-mul", "fix-mul",
         env={"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date})
    fx.commits["merge"], fx.dates["merge"] = _git(clone, "rev-parse", "HEAD"), date
    commit("flaky", "ops: sub() subtracts the second from the first", {
        **edit("calc/ops.py", "    return b - a\n", "    return a - b\n"),
        **edit("tests/test_ops.py", "from calc.ops", "import pathlib\n\nfrom calc.ops", "    assert sub(2, 2) == 0\n",
               "    assert sub(2, 2) == 0\n\n\ndef test_sub_order():\n    assert sub(5, 2) == 3\n" + FLIP)})
    ops = (clone / "calc/ops.py").read_text().replace("    return a // b\n", "    return a / b\n")
    tests = (clone / "tests/test_ops.py").read_text().replace("from calc.ops", "import pytest\nfrom calc.arith")
    tests += ('\n\n@pytest.mark.parametrize("a, b, q", [(1, 2, 0.5), (6, 3, 2)])\n'
              "def test_div_true(a, b, q):\n    assert div(a, b) == q\n")
    commit("rename", "ops -> arith; div() is a true division", {
        "calc/ops.py": None, "calc/arith.py": ops, "tests/test_ops.py": None, "tests/test_arith.py": tests})
    commit("dependency", "arith: twice() through tinydep", {
        **edit("calc/arith.py", '"""Arithmetic."""\n', '"""Arithmetic."""\n\nimport tinydep\n',
               "def div(a, b):\n", "def twice(a):\n    return tinydep.double(a)\n\n\ndef div(a, b):\n"),
        **edit("pyproject.toml", "dependencies = []", f'dependencies = ["tinydep @ {fx.wheel.as_uri()}"]'),
        "tests/test_twice.py": "from calc.arith import twice\n\n\ndef test_twice():\n    assert twice(4) == 8\n"})
    return fx


def tinydep_wheel(folder: Path) -> Path:
    """A pure-Python wheel of `tinydep` (double(x) = 2 * x), made by hand: installing it needs no network."""
    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / "tinydep-1.0-py3-none-any.whl"
    files = {"tinydep/__init__.py": "def double(x):\n    return 2 * x\n",
             "tinydep-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: tinydep\nVersion: 1.0\n",
             "tinydep-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\n"
                                            "Tag: py3-none-any\n"}
    record = "".join(f"{p},,\n" for p in files) + "tinydep-1.0.dist-info/RECORD,,\n"
    with zipfile.ZipFile(wheel, "w") as z:
        for path, text in {**files, "tinydep-1.0.dist-info/RECORD": record}.items():
            z.writestr(path, text)
    return wheel


def _git(repo: Path, *args: str, env: dict | None = None) -> str:
    identity = {"GIT_AUTHOR_NAME": "Calc Dev", "GIT_AUTHOR_EMAIL": "dev@calc.test",
                "GIT_COMMITTER_NAME": "Calc Dev", "GIT_COMMITTER_EMAIL": "dev@calc.test",
                "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, timeout=60, check=True,
                          env={**os.environ, **identity, **(env or {})})
    return done.stdout.strip()
