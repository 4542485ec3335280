"""The repair grader's static layer: the allow-list of what new code may do (codewalk.domains.repair.
capabilities, rules.refusals) and the tree as it landed on disk (guard.snapshot, guard.landed), each rule
on small real sources and real directories, each refusal naming its rule code."""

from __future__ import annotations

import os
import sys
import warnings

import pytest

from codewalk.domains.repair.capabilities import REVIEWED, encoding
from codewalk.domains.repair.guard import importable_test_names, landed, refusal, refused, snapshot
from codewalk.domains.repair.rules import Rule, baseline_importable, refusals

TESTS = importable_test_names(["tests/test_fmt.py", "tests/helpers/__init__.py", "pkg/core.py"])
OWN = frozenset({"pkg", "tests"})


def found(after: str, before: str | None = None, path: str = "pkg/m.py") -> list[tuple[str, str, int, str]]:
    return refusals([(path, before, after.encode())], OWN, frozenset(), tests=TESTS)


def codes(after: str, before: str | None = None, path: str = "pkg/m.py") -> set[str]:
    return {str(r[0]) for r in found(after, before, path)}


@pytest.mark.parametrize("source, rule, named", [
    # frames and the module table, however spelled
    ("import sys\nf = sys._getframe(1)\n", "reflection", "sys._getframe"),
    ("import sys as s\nf = s._getframe(1)\n", "reflection", "sys._getframe"),
    ("from sys import _getframe as g\n", "reflection", "sys._getframe"),
    ("def f(e):\n    return e.__traceback__.tb_frame\n", "reflection", "tb_frame"),
    ("def f(g):\n    return g.gi_frame.f_back\n", "reflection", "gi_frame"),
    ("from sys import modules\n", "import_not_allowed", "sys.modules"),
    ("import sys\nm = getattr(sys, 'mod' + 'ules')\n", "reflection", "getattr"),
    ("import sys\nm = sys\n", "reflection", "the module sys as a value"),
    # modules reached as attributes of allowed modules, resolved against the real modules
    ("import os\nm = os.sys.modules\n", "import_not_allowed", "os.sys"),
    ("import re\nm = re.enum.sys.modules\n", "import_not_allowed", "reaches the module enum as re.enum"),
    ("import shutil\nshutil.os.environ['PYTEST_PLUGINS'] = 'x'\n", "import_not_allowed", "os as shutil.os"),
    ("import os\nv = os.path.expandvars('$PYTEST_CURRENT_TEST')\n", "import_not_allowed", "expandvars"),
    ("class A(str):\n    pass\n\n\nA.__eq__ = lambda s, o: True\n", "reflection", "sets __eq__ from outside"),
    ("def f():\n    return type.__dict__['__sub' + 'classes__']\n", "reflection", "__dict__"),
    ("import pathlib\np = pathlib.os.system\n", "import_not_allowed", "pathlib.os"),
    ("import re\nd = re.__dict__\n", "reflection", "re.__dict__"),
    ("import enum\nd = enum.bltns\n", "import_not_allowed", "builtins"),
    # modules outside the allow-list
    ("from os import _exit\n", "reflection", "os._exit"),
    ("import subprocess\n", "import_not_allowed", "subprocess"),
    ("import atexit\n", "import_not_allowed", "atexit"),
    ("import weakref\nweakref.finalize(object, print)\n", "import_not_allowed", "weakref"),
    ("import logging\nlogging.getLogger().findCaller()\n", "import_not_allowed", "logging"),
    ("import traceback\n", "import_not_allowed", "traceback"),
    ("import gc\n", "import_not_allowed", "gc"),
    ("import ctypes\n", "import_not_allowed", "ctypes"),
    ("import builtins\nb = builtins\n", "reflection", "the module builtins as a value"),
    ("import builtins\nf = builtins.getattr\n", "import_not_allowed", "builtins.getattr"),
    ("import _pytest.runner\n", "import_not_allowed", "_pytest.runner"),
    ("import six\nm = six.moves.builtins\n", "import_not_allowed", "six.moves"),
    ("from six import exec_\n", "import_not_allowed", "six.exec_"),
    ("from unittest.mock import ANY\n", "import_not_allowed", "unittest.mock"),
    ("import sys\nargs = sys.argv\n", "import_not_allowed", "sys.argv"),
    ("import types\nf = types.FunctionType\n", "dynamic_import", "types.FunctionType"),
    ("import types\nc = types.CodeType\n", "dynamic_import", "types.CodeType"),
    ("from string import Formatter\n", "import_not_allowed", "string.Formatter"),
    # import by name, code from text
    ("import importlib\nm = importlib.import_module('x')\n", "dynamic_import", "importlib"),
    ("import pkgutil\n", "dynamic_import", "pkgutil"),
    ("import timeit\n", "dynamic_import", "timeit"),
    ("from typing import get_type_hints\n", "dynamic_import", "typing.get_type_hints"),
    ("c = compile('1', 'x', 'eval')\n", "dynamic_import", "compile"),
    ("x = eval('1')\n", "dynamic_import", "eval"),
    ("m = __import__('_py' + 'test')\n", "dynamic_import", "__import__"),
    ("def f(x: \"__import__('os')\"):\n    pass\n", "dynamic_import", "string annotation"),
    # round 11: inspect evaluates string annotations with eval_str, called or handed to a partial (no frame)
    ("import inspect\ns = inspect.signature(len, eval_str=True)\n", "dynamic_import", "eval_str"),
    ("import functools\nimport inspect\ne = functools.partial(inspect.signature, globals={}, eval_str=True)\n",
     "dynamic_import", "eval_str"),
    ("import inspect\ns = inspect.signature(len, **{'eval_str': True})\n", "dynamic_import", "eval_str"),
    # reflection
    ("def f(g):\n    return getattr(g, '__code__')\n", "reflection", "__code__"),
    ("def f(g, n):\n    return getattr(g, n)\n", "reflection", "getattr"),
    ("import re\nsetattr(re, 'x', 1)\n", "reflection", "the module re as a value"),
    ("def f(m, v):\n    setattr(m, '_x', v)\n", "reflection", "setattr"),
    ("g = globals()\n", "reflection", "globals"),
    ("class A:\n    @classmethod\n    def f(cls, n, g):\n        setattr(cls, n, g)\n", "reflection", "setattr"),
    ("def f(n):\n    return vars(type)[n]\n", "reflection", "vars"),
    ("import json\nns = vars(json)\n", "reflection", "vars"),
    ("def f(n):\n    return vars(f.x)[n]\n", "reflection", "vars"),
    ("v = vars()\n", "reflection", "vars"),
    ("breakpoint()\n", "reflection", "breakpoint"),
    ("def f(o):\n    return o.__globals__\n", "reflection", "__globals__"),
    ("def f(o):\n    return type(o).__subclasses__()\n", "reflection", "__subclasses__"),
    ("def f(o):\n    return o.__closure__\n", "reflection", "__closure__"),
    ("def f(c, g):\n    type.__setattr__(c, '__eq__', g)\n", "reflection", "__setattr__ on an object other than self"),
    ("import unittest.mock\n\n\nclass A(str):\n    __eq__ = type(unittest.mock.ANY).__eq__\n", "reflection", "borrows"),
    ("def f(o):\n    return o._private_thing\n", "reflection", "_private_thing"),
    ("import pkg.core\nm = pkg.core.sys.modules\n", "import_not_allowed", "sys.modules"),
    ("def f(x):\n    return type(x).__dict__\n", "reflection", "__dict__"),
    ("import pkg.core\nd = pkg.core.__dict__\n", "reflection", "__dict__"),
    ("class A:\n    pass\n\n\nA.__eq__ = A.__ne__\n", "reflection", "sets __eq__"),
    ("b = __builtins__\n", "reflection", "__builtins__"),
    ("X = type('X', (str,), {'__eq__': lambda s, o: True})\n", "reflection", "puts __eq__ in a namespace"),
    ("import operator\nget = operator.attrgetter('__globals__')\n", "reflection", "__globals__"),
    ("import operator\ndef f(n):\n    return operator.attrgetter(n)\n", "reflection", "computed"),
    ("import re\nre.compile = lambda p: None\n", "reflection", "writes the attribute re.compile"),
    ("class A(str):\n    __eq__ = object.__eq__\n", "reflection", "borrows A.__eq__"),
    ("import warnings\nwith warnings.catch_warnings(record=True) as w:\n    pass\n", "reflection", "records"),
    ("import warnings\nwarnings.filterwarnings('error', lineno=7)\n", "reflection", "by module or line"),
    ("from warnings import simplefilter\nsimplefilter('error', UserWarning, 7)\n", "reflection", "by module or line"),
    ("import warnings\nwarnings.filterwarnings('error', '', Warning, 'tests.test_x')\n", "reflection", "module or line"),
    ("d = dict(__eq__=1)\n", "reflection", "__eq__"),
    ("import abc\nX = abc.ABCMeta('X', (list,), {'__eq__': lambda s, o: True})\n", "reflection", "namespace"),
    ("X = type(list)('X', (list,), {})\n", "reflection", "metaclass of another"),
    ("def f(ns):\n    ns['__eq__'] = lambda s, o: True\n", "reflection", "namespace"),
    # (round 14: the builtin three-argument type() is judged by its namespace's constant keys, as abc.ABCMeta(...)
    # was: test_three_argument_type_is_judged_as_abc_abcmeta_is)
    ("import queue\nt = queue.threading\n", "import_not_allowed", "queue.threading"),
    ("def f():\n    return open('/proc/self/cmdline').read()\n", "reflection", "the process's own files"),
    ("import os\nfds = os.listdir('/dev/fd')\n", "reflection", "the process's own files"),
    # format strings that walk
    ("def f(x):\n    return '{0.__globals__}'.format(x)\n", "format_path", "{0.__globals__}"),
    ("def f(x):\n    return '{0[0].f_back}'.format_map(x)\n", "format_path", "{0[0].f_back}"),
    ("def f(e):\n    return '{e.__traceback__}'.format(e=e)\n", "format_path", "{e.__traceback__}"),
    ("T = '{x.tb_frame.f_back}'\n", "format_path", "{x.tb_frame.f_back}"),
    # the rest
    ("import os\nv = os.environ.get('CI')\n", "environment", "os.environ['CI']"),
    ("from os import environ\nv = environ['CI']\n", "environment", "os.environ['CI']"),
    ("import os\nv = [k for k in os.environ if k.endswith('_TEST')]\n", "environment", "every variable"),
    ("import os\nos.environ['X'] = '1'\n", "environment", "writes"),
    ("import test_fmt\n", "test_code", "test_fmt"),
    ("from tests import helpers\n", "test_code", "tests.helpers"),
    ("class A(str):\n    def __eq__(self, other):\n        return True\n", "comparison", "A.__eq__"),
    ("class A(list):\n    __ne__ = lambda self, *rest: False\n", "comparison", "A.__ne__"),
])
def test_new_code_outside_the_allow_list_is_refused_with_its_rule_and_line(source, rule, named):
    hits = found(source)
    assert any(r[0] == rule and r[1] == "pkg/m.py" and r[2] > 0 and named in r[3] for r in hits), hits


# Round 14: refused until then as "three-argument type()"; each is admitted with abc.ABCMeta in type()'s place on
# main (and a class statement spells the parameter, the base and __init_subclass__): a spelling, not a capability.
# The class made is judged at run time (the class guard: tests/test_repair_redteam_round14a.py).
TYPE_AS_ABCMETA = [
    "def f(ns):\n    return {maker}('X', (str,), ns)\n",
    "X = {maker}('X', (str,), {{'__e' + 'q__': lambda s, o: True}})\n",
    "X = {maker}('X', (str,), {{**{{}}, 'a': 1}})\n",
    "X = {maker}('X', (str,), {{'__init_subclass__': classmethod(print)}})\n",
    "X = {maker}('X', (type(1),), {{}})\n",
]


@pytest.mark.parametrize("source", TYPE_AS_ABCMETA)
@pytest.mark.parametrize("maker", ["type", "abc.ABCMeta"])
def test_three_argument_type_is_judged_as_abc_abcmeta_is(source, maker):
    assert found(("import abc\n\n" if maker != "type" else "") + source.format(maker=maker)) == []


@pytest.mark.parametrize("source", [
    "import sys\nif sys.version_info >= (3, 8):\n    X = 1\n",
    "import sys\nsys.stdout.write('x')\n",
    "import re\nimport os\np = os.path.join('a', 'b')\nr = re.compile(r'x{1,3}')\n",
    "import os.path\nfrom os.path import join\nx = os.path.exists(join('a', 'b'))\n",
    "from importlib import metadata\nv = metadata.version('x')\n",
    "import inspect\ns = inspect.signature(len)\n",
    "import inspect\ns = inspect.signature(len, eval_str=False)\n",
    "from collections.abc import Mapping\nfrom typing import TYPE_CHECKING, Optional\n",
    "import functools\n\n\n@functools.lru_cache()\ndef f(x: 'Optional[int]') -> 'Mapping[str, int]':\n"
    "    return getattr(x, 'name', None)\n",
    "class A:\n    def __init__(self):\n        super().__init__()\n        self._x = 1\n"
    "        self.__dict__.update({})\n\n    def __eq__(self, other):\n        return self._x == other._x\n\n"
    "    def __repr__(self):\n        return f'{type(self).__name__}({self._x!r}, {self.x.y})'\n\n"
    "    __hash__ = None\n    __str__ = __repr__\n",
    "class A:\n    def __eq__(self, other):\n        return NotImplemented\n",
    "from . import core\nfrom pkg.core import f\nfrom urllib.parse import quote\nfrom urllib import parse\n",
    "import warnings\nwarnings.warn('old', DeprecationWarning, stacklevel=2)\n",
    "import warnings\nwarnings.filterwarnings('ignore', category=DeprecationWarning)\nwarnings.simplefilter('always')\n",
    "if __name__ == '__main__':\n    print(__file__, __doc__)\n",
    "from types import TracebackType\n\n\ndef f(tb: TracebackType, name='__eq__'):\n    return f.__name__\n",
    "class U:\n    def _fail(self, *a):\n        raise TypeError\n\n\nclass S(U):\n    __iter__ = __len__ = U._fail\n",
    "class F:\n    def __setattr__(self, k, v):\n        object.__setattr__(self, k, v)\n",
    "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from _typeshed import SupportsWrite\n    import six\n",
    "import pkg.compat\nv = pkg.compat.sys.version_info\n",
    "class A:\n    def f(self, inst):\n        object.__setattr__(inst, 'x', self.__dict__)\n",
    "from html.entities import name2codepoint\n",
    "class V:\n    def visit(self, n):\n        setattr(self, n, vars(self).get(n))\n        return getattr(self, 'visit_' + n)()\n",
    "import dataclasses\n\n\n@dataclasses.dataclass(frozen=True)\nclass P:\n    x: int = 0\n\n"
    "    def moved(self, d):\n        return dataclasses.replace(self, x=self.x + d)\n",
    "'{} and {name}: {0!r:>10}'.format(1, name=2)\n",
    "def f(self):\n    return 'The command {self.name!r} is {d[x]}.'.format(self=self, d={})\n",
    "import typing as t\n\n\ndef f(ts):\n    return [t.info() for t in ts]\n",
    "import shutil\nif hasattr(shutil, 'get_terminal_size'):\n    pass\n",
    "def f(x: '-1', y: 'te.Literal[1, -1]'):\n    pass\n",
    '"""Only a docstring with {braces.and} a __dunder__."""\n',
    "import enum\nP = type('P', (enum.Flag, object), {'__module__': __name__, 'a': 1})\n",
    "import queue\nq = queue.Queue()\nfrom email.utils import formatdate\n",
    "def f(p, E):\n    return p._replace(x=1)._asdict(), p._fields, list(E.__members__), p.__origin__\n",
])
def test_ordinary_code_is_not_refused(source):
    assert found(source) == []


def test_a_capability_the_module_had_at_x_g_may_stay_where_it_was():
    before = "import os\nA = os.environ.get('HOME')\n"
    assert found(before + "B = 1\n", before) == []
    assert found(before + "B = os.environ.get('HOME')\n", before) == []  # the same node again


def test_a_capability_reused_for_a_new_target_is_refused():
    before = "import importlib\n\n\ndef load(name):\n    return importlib.import_module('pkg.' + name)\n"
    assert found(before + "X = 1\n", before) == []
    hits = found(before + "R = importlib.import_module('_pytest.runner')\n", before)
    assert [(r[0], r[2]) for r in hits] == [("dynamic_import", 6)], hits
    assert codes(before.replace("'pkg.' + name", "'_pytest.' + name"), before) == {"dynamic_import"}


def test_a_module_imported_at_x_g_outside_the_allow_list_may_still_be_used_through_public_names():
    before = "import pytest\n\n\ndef check():\n    pytest.raises(ValueError)\n"
    assert found(before + "\n\ndef skip():\n    pytest.skip('x')\n", before) == []
    assert codes(before + "import _pytest.reports\n", before) == {"import_not_allowed"}
    assert codes(before + "x = pytest._private\n", before) == {"reflection"}


def test_an_attribute_chain_reaching_sys_through_os_is_refused():
    hits = found("import os\nm = os.sys.modules['_pytest.reports']\n")
    assert [r[0] for r in hits] == ["import_not_allowed"] and "os.sys" in hits[0][3]


def test_a_module_dict_is_refused():
    assert codes("import json\nns = json.__dict__\n") == {"reflection"}
    assert codes("import pkg.core\nns = vars(pkg.core)\n") == {"reflection"}


def test_code_may_move_between_changed_modules_with_its_capabilities():
    helper = "import sys\n\n\ndef caller():\n    return sys._getframe(1)\n"
    moved = [("pkg/a.py", helper, "from pkg.b import caller\n"), ("pkg/b.py", None, helper)]
    assert refusals(moved, OWN, frozenset()) == []
    assert refusals([("pkg/b.py", None, helper)], OWN, frozenset()) != []  # new in the repository


def test_private_names_the_repository_defines_are_not_refused():
    before = "class C:\n    _cache = {}\n"
    assert found(before + "\n\ndef f(c):\n    return c._cache\n", before) == []
    assert codes("def f(c):\n    return c._cache\n") == {"reflection"}


def test_a_module_that_stops_parsing_is_refused_as_unparseable():
    assert codes("def f(:\n", "def f():\n    pass\n") == {"unparseable"}
    assert codes("{{ template }}\n", "{{ template }}\n") == set()  # never Python: nothing to compare


def test_source_encodings_are_read_as_python_reads_them():
    assert encoding(b"x = 1\n") == "utf-8"
    assert encoding(b"# -*- coding: utf-7 -*-\nx = 1\n") == "utf-7"
    assert encoding(b"#!/usr/bin/env python\n# vim: set fileencoding=latin-1 :\n") == "iso-8859-1"


def test_a_utf7_declaration_is_refused_unless_the_module_had_it_at_x_g():
    utf7 = b"# -*- coding: utf-7 -*-\nimport _+AHA-ytest\n"
    assert [r.rule for r in refusals([("pkg/m.py", None, utf7)], OWN, frozenset())] == ["encoding"]
    old = "# -*- coding: utf-7 -*-\nx = 1\n"
    assert {r.rule for r in refusals([("pkg/m.py", old, utf7)], OWN, frozenset())} == {"import_not_allowed"}


def test_a_new_top_level_module_the_environment_imports_is_refused_as_shadowing_it():
    importable = frozenset({"requests", "attr"})
    assert codes("x = 1\n", path="attr/__init__.py") == set()  # not importable there
    shadow = refusals([("attr/__init__.py", None, b"x = 1\n")], OWN, importable)
    assert [r.rule for r in shadow] == ["shadows_environment"]
    assert [r.rule for r in refusals([("src/requests.py", None, b"")], OWN, importable)] == ["shadows_environment"]
    for path in ("pytest.py", "xml/__init__.py", "_pytest/x.py", "pluggy.py"):  # the floor, always
        assert [r.rule for r in refusals([(path, None, b"")], OWN, frozenset())] == ["shadows_environment"], path
    assert refusals([("pkg/requests.py", None, b"")], OWN, importable) == []  # not top-level
    assert refusals([("attr/__init__.py", None, b"")], OWN | {"attr"}, importable) == []  # the repository's own
    assert "os" in baseline_importable() and "pytest" in baseline_importable()


def test_file_rules_name_their_codes():
    def rules_of(path: str, new: bytes = b"", old: str | None = None) -> list[str]:
        return [r.rule for r in refusals([(path, old, new)], OWN, frozenset())]

    assert rules_of("pytest.ini") == ["config_file"]
    assert rules_of("pkg/conftest.py") == ["config_file"]
    assert rules_of(".gitignore") == ["config_file"]
    assert rules_of("tests/test_x.py") == ["test_file"]
    assert rules_of("sitecustomize.py") == ["startup_hook"]
    assert rules_of("pkg.pth") == ["startup_hook"]
    assert rules_of("x-1.0.dist-info/entry_points.txt") == ["package_metadata"]
    assert rules_of("pkg/__pycache__/m.cpython-311.pyc") == ["package_metadata"]
    assert rules_of("pkg/data.bin", b"\0\1") == ["binary", "not_source"]  # round 15a: .py modules only
    assert rules_of("setup.cfg", b"[tool:pytest]\naddopts = -p x\n", "[metadata]\n") == ["config_file", "not_source"]
    assert rules_of("setup.cfg", b"[flake8]\nmax-line-length = 1\n", "[metadata]\n") == ["not_source"]
    assert rules_of("pkg/data/words.json", b"[]\n", "") == ["not_source"]
    assert rules_of("README", b"x\n", "") == ["not_source"]
    assert rules_of("setup.py", b"entry_points={'pytest11': ['x = x']}\n", "") == ["package_metadata"]


def test_every_reviewed_module_exists_and_says_why():
    for name, entry in REVIEWED.items():
        assert entry.why, name
        if name == "pipes" and sys.version_info >= (3, 13):
            continue  # removed in 3.13: there a new import of it can only fail
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # pipes, on 3.11 and 3.12
            assert __import__(name) is not None


def test_every_rule_code_is_a_plain_string():
    assert Rule.REFLECTION == "reflection" and {str(r) for r in Rule} >= {
        "import_not_allowed", "reflection", "format_path", "dynamic_import", "shadows_environment", "comparison",
        "encoding", "unparseable", "test_file", "config_file", "unnamed_path", "special_file", "binary",
        "not_unified"}


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
    changed = landed(before, after)
    why = refusal(changed, {}.get, lambda p: None, named={"pkg/core.py"}, kinds=after)
    for text in ("sitecustomize.py changed on disk but the diff does not name it", "pkg/link.py is a symlink",
                 "pkg/gone.py changed on disk", "run.sh changed on disk"):
        assert text in why, why
    assert "pkg/data" not in why  # an empty directory holds nothing to run
    rules = {r.rule for r in refused(changed, {}.get, lambda p: None, named={"pkg/core.py"}, kinds=after)}
    assert rules == {"unnamed_path", "symlink", "startup_hook", "not_source"}  # run.sh: round 15a


def test_what_an_environment_imports_without_the_tree_is_measured_by_an_empty_pytest_session(tmp_path):
    """The shadowing rule's names: the standard library, installed distributions, and what an empty pytest
    session imports or tries to import there (copy.py tries `org`), run with the environment's interpreter."""
    import subprocess
    import sys
    from pathlib import Path

    from codewalk.domains.repair.env import Env, importable_names

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(venv)],
                   check=True, timeout=120)
    names = importable_names(Env(Path(venv), "", "", ()))
    assert {"os", "xml", "pytest", "_pytest", "pluggy", "org"} <= names
    assert "tally" not in names and "codewalk_not_a_module" not in names


def test_a_format_string_walking_to_a_frame_is_refused():
    assert codes("def f(e):\n    return '{0.__traceback__.tb_frame.f_back}'.format(e)\n") == {"format_path"}
    assert codes("def f(e):\n    return '{0.args[0]} at {0.name}'.format(e)\n") == set()  # public names, items


def test_a_comparison_that_ignores_its_argument_is_refused():
    assert codes("class A(str):\n    def __eq__(self, other):\n        return True\n") == {"comparison"}


def test_a_behaviour_dunder_borrowed_from_another_object_is_refused():
    assert codes("class A(list):\n    __eq__ = list.__ne__\n") == {"reflection"}


def test_a_refusal_before_the_patch_is_applied_names_its_rule_in_the_verdict():
    from codewalk.domains.repair import _refusal, _refused

    for patch, rule in [("", "empty"), ("--- x.py\n+++ x.py\n@@ -1 +1 @@\n-a\n+b\n", "unprefixed"),
                        ("--- a/tests/test_x.py\n+++ b/tests/test_x.py\n@@ -1 +1 @@\n-a\n+b\n", "test_file"),
                        ("--- a/../x.py\n+++ b/../x.py\n@@ -1 +1 @@\n-a\n+b\n", "unsafe_path"),
                        ("*** a/x.py\n--- b/x.py\n***************\n", "empty")]:
        found = _refusal(patch, set())
        assert found is not None and found.rule == rule, (patch, found)
        verdict = _refused([found])
        assert (verdict.ok, verdict.reason, verdict.evidence["rule"]) == (False, "refused", rule)


# -- issue 51, false refusals: constructs now allowed because they are plain code spelled otherwise or can
# be no route, each beside the dangerous neighbour that stays refused (the rule code pinned) ----------------

def test_a_constant_name_through_getattr_setattr_delattr_is_judged_as_the_attribute_it_spells():
    assert found("def f(o):\n    return getattr(o, '__doc__', None), getattr(o, '__reversed__', None)\n") == []
    assert found("class A:\n    def f(self):\n        setattr(self, '_done', True)\n        delattr(self, '_done')\n") == []
    assert found("def f(p):\n    return getattr(p, '_fields')\n") == []  # namedtuple's API, as p._fields
    # the attribute it spells is refused as spelled: a code dunder, another object's private name, a comparison
    assert codes("def f(g):\n    return getattr(g, '__globals__')\n") == {"reflection"}
    assert codes("def f(o):\n    return getattr(o, '_private')\n") == {"reflection"}
    hits = found("class S(list):\n    pass\n\n\nsetattr(S, '__eq__', lambda s, o: True)\n")
    assert [r[0] for r in hits] == ["reflection"] and "sets __eq__" in hits[0][3], hits
    assert codes("import re\nsetattr(re, 'compile', 1)\n") == {"reflection"}  # a module is no receiver
    assert codes("def f(o, n):\n    return getattr(o, n)\n") == {"reflection"}  # computed: still refused


def test_hasattr_answers_a_bool_so_its_name_is_judged_only_where_it_goes_elsewhere():
    assert found("def f(s):\n    return hasattr(s, '_file') and hasattr(s, '__reversed__')\n") == []
    # round 15a (boltons c2b04b4cb1): frame and code names too, the value dropped; the same string kept, or given to
    # getattr, or hasattr not the builtin, stays refused (tests/test_repair_rules_round15a.py)
    assert found("def f(g):\n    return hasattr(g, '__code__')\n") == []
    assert found("def f(t):\n    return hasattr(t, 'tb_frame')\n") == []
    assert codes("def f(g):\n    n = '__code__'\n    return hasattr(g, n)\n") == {"reflection"}
    assert codes("def f(g, hasattr):\n    return hasattr(g, '__code__')\n") == {"reflection"}


def test_a_builtin_or_module_name_bound_in_the_function_is_that_variable():
    assert found("def f(locals=None):\n    return {} if locals is None else locals\n") == []
    assert found("def f(*args):\n    vars = dict(*args)\n    return vars\n") == []
    assert found("import typing as t\n\n\ndef f(ts):\n    return [t for t in ts]\n") == []
    assert found("import warnings\ndel warnings\n") == []  # unbinding a name uses nothing
    # the builtin itself, at module level, in a class body, or declared global, stays refused
    assert codes("v = vars()\n") == {"reflection"}
    assert codes("class A:\n    locals = 1\n    x = locals()\n") == {"reflection"}
    assert codes("def f():\n    global vars\n    return vars()\n") == {"reflection"}
    assert codes("def f(x):\n    return locals()\n") == {"reflection"}
    assert codes("import enum\n\n\ndef f(x):\n    return enum.__dict__\n") == {"reflection"}
    # defaults, decorators and annotations run in the enclosing scope: there the name is the builtin or module
    assert codes("def f(s, eval=eval):\n    return eval(s)\n") == {"dynamic_import"}
    assert codes("@vars\ndef f(vars):\n    pass\n") == {"reflection"}
    assert codes("import sys\n\n\ndef f(sys=sys):\n    x = sys\n    return x.modules\n") == {"reflection"}
    # an attribute chain on an imported name stays a chain on the module, even where a parameter shadows it
    assert codes("import sys\n\n\ndef f(sys):\n    return sys.modules\n") == {"import_not_allowed"}


def test_a_dict_only_of_the_object_at_hand_or_a_class_defined_here():
    assert found("class A:\n    def f(self):\n        return self.__dict__, vars(self)\n\n\nd = A.__dict__\n") == []
    # a variable may hold any class: its dict gives __subclasses__ or a builtin's __self__ by a computed key
    assert codes("t = type\ns = t.__dict__['__sub' + 'classes__'](object)\n") == {"reflection"}
    assert codes("def f(t=type):\n    return vars(t)['__sub' + 'classes__']\n") == {"reflection"}
    assert codes("t = len.__class__\nd = getattr(t, '__dict__')\n") == {"reflection"}
    assert codes("def f(o):\n    return o.__dict__\n") == {"reflection"}


def test_a_builtin_functions_self_is_its_module_and_refused():
    assert codes("import sys\nm = sys.getsizeof.__self__.modules\n") == {"reflection"}
    assert codes("b = len.__self__\n") == {"reflection"}


def test_object_setattr_writes_an_instance_so_a_computed_name_is_allowed():
    assert found("def f(inst, name):\n    object.__setattr__(inst, name, None)\n") == []
    assert codes("def f(inst, g):\n    object.__setattr__(inst, '__class__', g)\n") == {"reflection"}
    assert codes("def f(c, name, g):\n    type.__setattr__(c, name, g)\n") == {"reflection"}


def test_python_2_modules_the_environment_lacks_can_only_fail():
    source = b"import cStringIO\nimport __builtin__\nfrom urllib import quote\nimport urllib\nq = urllib.urlencode\n"
    env = baseline_importable() | {"requests"}
    assert refusals([("pkg/m.py", None, source)], OWN, env) == []
    # one the environment installs, or any when the environment was not measured, is judged as ever
    assert {r.rule for r in refusals([("pkg/m.py", None, source)], OWN, env | {"cStringIO"})} == {"import_not_allowed"}
    assert {r.rule for r in refusals([("pkg/m.py", None, source)], OWN, frozenset())} == {"import_not_allowed"}
    # Python 3 names of the same modules stay outside the allow-list
    for other in (b"import builtins\nb = builtins.globals\n", b"import urllib.request\n", b"import pickle\n"):
        assert {r.rule for r in refusals([("pkg/m.py", None, other)], OWN, env)} == {"import_not_allowed"}, other


def test_dunders_named_after_the_repositorys_own_module_are_its_own():
    assert found("def f(c):\n    return c.__pkg_attrs__\n") == []
    assert codes("def f(c):\n    return c.__tests_x__\n") == {"reflection"}  # a test directory's name is no protocol
    from codewalk.domains.repair.capabilities import new_refusals

    added = new_refusals([("newtop/m.py", None, "def f(c):\n    return c.__newtop_x__\n")],
                         frozenset({"pkg", "newtop"}), added=frozenset({"newtop"}))
    assert [r.rule for r in added] == ["reflection"]  # a module the change adds names no protocol


def test_hash_restored_from_object_is_the_default_not_a_borrowed_behaviour():
    assert found("class N:\n    def __eq__(self, o):\n        return self is o\n\n    __hash__ = object.__hash__\n") == []
    assert codes("class A(list):\n    __hash__ = int.__hash__\n") == {"reflection"}
    assert codes("class A(str):\n    __eq__ = object.__eq__\n") == {"reflection"}  # comparisons: written here only


@pytest.mark.parametrize("source", [
    "import ast\ntree = ast.parse('x = 1')\nv = ast.literal_eval('1')\n",
    "from http import HTTPStatus\nfrom http.cookiejar import CookieJar\nfrom http.client import HTTPConnection\n",
    "from markupsafe import Markup, escape\n",
    "import idna\nv = getattr(idna, '__version__', '')\n",
    "from six import PY2, string_types\n",
    "import socket\nh = socket.gethostname()\nb = socket.inet_aton('1.2.3.4')\n",
    "from email.utils import decode_params\n",
    "from importlib.metadata import packages_distributions, metadata\n",
])
def test_reviewed_additions_are_allowed(source):
    assert found(source) == []


@pytest.mark.parametrize("source, rule", [
    ("import ast\nm = ast.sys\n", "import_not_allowed"),
    ("from six import moves\n", "import_not_allowed"),
    ("import six\ne = six.exec_\n", "import_not_allowed"),
    ("import socket\ns = socket.socket()\n", "import_not_allowed"),
    ("import socket\ns = socket.fromfd(3, 1, 1)\n", "import_not_allowed"),
    ("from importlib.metadata import entry_points\n", "dynamic_import"),
    ("from markupsafe import EscapeFormatter\n", "import_not_allowed"),
    ("import http.server\n", "import_not_allowed"),
])
def test_the_unreviewed_parts_beside_them_stay_refused(source, rule):
    assert codes(source) == {rule}
