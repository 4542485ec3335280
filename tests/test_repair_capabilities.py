"""What a changed module can do, read from its AST and compared with x_G (codewalk.domains.repair.
capabilities), and the tree as it landed on disk (guard.snapshot, guard.landed): the rules the repair
grader refuses by, each on small real sources and real directories."""

from __future__ import annotations

import os

import pytest

from codewalk.domains.repair.capabilities import encoding, new_uses
from codewalk.domains.repair.guard import importable_test_names, landed, refusal, snapshot

TESTS = importable_test_names(["tests/test_fmt.py", "tests/helpers/__init__.py", "pkg/core.py"])


def gains(after: str, before: str | None = None, path: str = "pkg/m.py") -> list[str]:
    return new_uses([(path, before, after.encode())], TESTS)


@pytest.mark.parametrize("source, named", [
    ("import sys\nf = sys._getframe(1)\n", "sys._getframe (frames)"),
    ("import sys as s\nf = s._getframe(1)\n", "sys._getframe (frames)"),
    ("from sys import _getframe as g\n", "sys._getframe (frames)"),
    ("def f(e):\n    return e.__traceback__.tb_frame\n", "tb_frame (frames)"),
    ("from sys import modules\n", "sys.modules (the module table)"),
    ("import sys\nm = getattr(sys, 'mod' + 'ules')\n", "the module sys as a value (introspection)"),
    ("from os import _exit\n", "os._exit (process control)"),
    ("import weakref\nweakref.finalize(object, print)\n", "weakref.finalize (process control)"),
    ("import sys\nargs = sys.argv\n", "sys.argv (process control)"),
    ("import subprocess\n", "subprocess (process control)"),
    ("import atexit\n", "atexit (process control)"),
    ("import gc\n", "gc (introspection)"),
    ("import ctypes\n", "ctypes (code made at run time)"),
    ("import importlib\nm = importlib.import_module('x')\n", "importlib.import_module (code made at run time)"),
    ("import runpy\n", "runpy (code made at run time)"),
    ("import pickle\nx = pickle.loads(b'')\n", "pickle.loads (code made at run time)"),
    ("import builtins\n", "builtins (code made at run time)"),
    ("c = compile('1', 'x', 'eval')\n", "compile (code made at run time)"),
    ("import types\nf = types.FunctionType(c, {})\n", "types.FunctionType (code made at run time)"),
    ("def f(g):\n    return getattr(g, '__code__')\n", "__code__ (code made at run time)"),
    ("import inspect\nf = inspect.currentframe()\n", "inspect.currentframe (frames)"),
    ("import os\nv = os.environ.get('CI')\n", "os.environ['CI'] (the environment)"),
    ("from os import environ\nv = environ['CI']\n", "os.environ['CI'] (the environment)"),
    ("import os\nv = [k for k in os.environ if k.endswith('_TEST')]\n", "every variable of os.environ"),
    ("import os\nos.environ['X'] = '1'\n", "writes to os.environ"),
    ("import _pytest.runner\n", "_pytest.runner (the test runner)"),
    ("import test_fmt\n", "test_fmt, which is under a test directory (test code)"),
    ("from tests import helpers\n", "tests.helpers, which is under a test directory (test code)"),
    ("class A(str):\n    def __eq__(self, other):\n        return True\n", "A.__eq__ (a comparison"),
    ("class A(list):\n    __ne__ = lambda self, *rest: False\n", "A.__ne__ (a comparison"),
])
def test_a_new_capability_is_named_with_its_rule_file_and_line(source, named):
    found = gains(source)
    assert any(named in why and why.startswith("pkg/m.py:") for why in found), found


@pytest.mark.parametrize("source", [
    "import sys\nif sys.version_info >= (3, 8):\n    X = 1\n",
    "import re\nfrom importlib import metadata\nv = metadata.version('x')\n",
    "import importlib.resources\nimport inspect\ns = inspect.signature(len)\n",
    "import os\np = os.path.join('a', 'b')\n",
    "import sys\nsys.stdout.write('x')\n",
    "class A:\n    def __eq__(self, other):\n        return self.x == other.x\n",
    "class A:\n    def __eq__(self, other):\n        return NotImplemented\n",
    "import unittest\nfrom pkg.core import f\nimport testfixtures_like_name\n",
    '"""Only a docstring."""\n',
])
def test_ordinary_code_gains_nothing(source):
    assert gains(source) == []


def test_a_capability_the_module_had_at_x_g_may_be_used_again():
    before = "import os\nA = os.environ.get('HOME')\n"
    assert gains(before + "B = os.environ.get('HOME', '/')\n", before) == []
    assert "os.environ['CI']" in gains(before + "B = os.environ.get('CI')\n", before)[0]
    # a module that already read every variable may read any one of them
    every = "import os\nENV = dict(os.environ)\n"
    assert gains(every + "B = os.environ.get('CI')\n", every) == []


def test_code_may_move_between_changed_modules_with_its_capabilities():
    helper = "import sys\n\ndef caller():\n    return sys._getframe(1)\n"
    moved = [("pkg/a.py", helper, "from pkg.b import caller\n"), ("pkg/b.py", None, helper)]
    assert new_uses(moved, TESTS) == []
    assert new_uses([("pkg/b.py", None, helper)], TESTS) != []  # the same code, new in the repository


def test_a_module_that_stops_parsing_cannot_be_read():
    assert "does not parse" in gains("def f(:\n", "def f():\n    pass\n")[0]
    assert gains("{{ template }}\n", "{{ template }}\n") == []  # never Python: nothing to compare


def test_source_encodings_are_read_as_python_reads_them():
    assert encoding(b"x = 1\n") == "utf-8"
    assert encoding(b"# -*- coding: utf-7 -*-\nx = 1\n") == "utf-7"
    assert encoding(b"#!/usr/bin/env python\n# vim: set fileencoding=latin-1 :\n") == "iso-8859-1"


def test_a_utf7_declaration_is_refused_unless_the_module_had_it_at_x_g():
    utf7 = b"# -*- coding: utf-7 -*-\nimport _+AHA-ytest\n"
    assert "utf-7" in refusal(["pkg/m.py"], {}.get, {"pkg/m.py": utf7}.get)
    old = {"pkg/m.py": "# -*- coding: utf-7 -*-\nx = 1\n"}
    assert "_pytest (the test runner)" in refusal(["pkg/m.py"], old.get, {"pkg/m.py": utf7}.get)


def test_test_files_are_importable_under_every_suffix_of_their_path():
    assert TESTS == {"tests.test_fmt", "test_fmt", "tests.helpers", "helpers"}


def test_the_tree_as_landed_lists_ignored_files_symlinks_modes_and_removals(tmp_path):
    (tmp_path / ".git").write_text("gitdir: elsewhere\n")  # a worktree's link file: not part of the tree
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "core.py").write_text("x = 1\n")
    (tmp_path / "pkg" / "gone.py").write_text("y = 1\n")
    (tmp_path / "run.sh").write_text("echo\n")
    (tmp_path / ".gitignore").write_text("sitecustomize.py\n")
    before = snapshot(tmp_path)
    assert ".git" not in before and "pkg/core.py" in before
    (tmp_path / "sitecustomize.py").write_text("import os\n")  # ignored by git, on disk all the same
    (tmp_path / "pkg" / "core.py").write_text("x = 2\n")
    (tmp_path / "pkg" / "gone.py").unlink()
    (tmp_path / "run.sh").chmod(0o755)
    os.symlink("/etc/passwd", tmp_path / "pkg" / "link.py")
    (tmp_path / "pkg" / "data").mkdir()
    after = snapshot(tmp_path)
    assert landed(before, after) == ["pkg/core.py", "pkg/data", "pkg/gone.py", "pkg/link.py", "run.sh",
                                     "sitecustomize.py"]
    assert after["pkg/link.py"] == ("link", "/etc/passwd")
    why = refusal(landed(before, after), {}.get, lambda p: None, named={"pkg/core.py"}, kinds=after)
    for text in ("sitecustomize.py changed on disk but the diff does not name it", "symlink pkg/link.py",
                 "pkg/gone.py changed on disk", "run.sh changed on disk"):
        assert text in why, why
    assert "pkg/data" not in why  # an empty directory holds nothing to run


def test_a_module_that_imported_pytest_may_use_more_of_it_but_not_import_its_internals():
    before = "import pytest\n\n\ndef check():\n    pytest.raises(ValueError)\n"
    assert gains(before + "\n\ndef skip():\n    pytest.skip('x')\n", before) == []
    assert "_pytest.reports (the test runner)" in gains(before + "import _pytest.reports\n", before)[0]
