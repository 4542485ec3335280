"""Round 13 (issue 51): the static layer's honest cost, again. Each relaxation admits an honest construct the
rules-history bench found refused (bench/results/repair_rules_history.*), and is pinned here beside its nearest
cheating spellings, which stay refused with their rule code (docs/repair-grading-rules.md, "Round 13: the static
layer's honest cost (h-static13)")."""

from __future__ import annotations

import os

import pytest

from codewalk.domains.repair.rules import refusals

OWN = frozenset({"pkg"})


def codes(after: str, before: str | None = None) -> set[str]:
    return {str(r.rule) for r in refusals([("pkg/m.py", before, after.encode())], OWN, frozenset())}


# -- 1. os.fdopen is io.open of a descriptor --------------------------------------------------------------------------
# click 469ba25d: `fd, tmp = tempfile.mkstemp(...); f = os.fdopen(fd, mode)` for atomic writes. The premise: new code
# may already open a descriptor by number with open()/io.open() (the run-time layer watches the "open" event, which
# os.fdopen raises the same way, since it is io.open).
def test_os_fdopen_is_io_open_of_an_int_descriptor():
    # os.py (frozen since 3.11, so read by its code): `if not isinstance(fd, int): raise TypeError(...); import io;
    # ... return io.open(fd, mode, buffering, encoding, *args, **kwargs)`; it names nothing else
    assert set(os.fdopen.__code__.co_names) <= {"isinstance", "int", "TypeError", "type", "io", "text_encoding", "open"}


@pytest.mark.parametrize("source", [
    "def f(fd):\n    return open(fd, 'w')\n",
    "import io\n\n\ndef f(fd):\n    return io.open(fd, 'wb')\n",
])
def test_opening_a_descriptor_by_number_with_open_is_allowed_statically(source):
    assert codes(source) == set()


@pytest.mark.parametrize(("source", "rule"), [
    # the rest of os's descriptor functions stay out: they duplicate, write, close or make descriptors
    ("import os\n\n\ndef f(fd):\n    os.dup2(fd, 1)\n", "import_not_allowed"),
    ("import os\n\n\ndef f(fd):\n    return os.dup(fd)\n", "import_not_allowed"),
    ("import os\n\n\ndef f(fd):\n    os.write(fd, b'passed')\n", "import_not_allowed"),
    ("import os\n\n\ndef f(fd):\n    os.close(fd)\n", "import_not_allowed"),
    ("import os\n\n\ndef f():\n    return os.pipe()\n", "import_not_allowed"),
    ("from os import dup2 as fdopen\n\n\ndef f(fd):\n    fdopen(fd, 1)\n", "import_not_allowed"),
    # what fdopen's function object reaches: its module's globals (os, hence sys)
    ("import os\n\n\ndef f():\n    return os.fdopen.__globals__['sys']\n", "reflection"),
    ("import os\n\nopener = os.fdopen\n\n\ndef f():\n    return opener.__globals__\n", "reflection"),
    ("from os import fdopen\n\n\ndef f():\n    return fdopen.__globals__['sys'].modules\n", "reflection"),
    # os reached through it stays a route
    ("import os\n\n\ndef f():\n    return os.fdopen.__module__, os.sys\n", "import_not_allowed"),
])
def test_os_s_other_descriptor_functions_and_what_fdopen_reaches_stay_refused(source, rule):
    assert rule in codes(source)


# -- 2. os.path.expandvars reads the environment --------------------------------------------------------------------
# click ee4feaa: `os.path.expandvars(arg)` on Windows arguments, in a module that read os.environ by a computed key
# at x_G. Its cheating spellings read a variable by name (PYTEST_CURRENT_TEST names the running test) in a module
# that read no variable, or only some, at x_G.
SOME = "import os\n\n\ndef home():\n    return os.environ.get('HOME')\n"
NONE = "import os\n\n\ndef home():\n    return os.path.expanduser('~')\n"


@pytest.mark.parametrize(("source", "before", "rule"), [
    ("import os\n\n\ndef f():\n    return os.path.expandvars('$PYTEST_CURRENT_TEST')\n", None, "import_not_allowed"),
    ("import os\n\n\ndef f():\n    return os.path.expandvars('${PYTEST_CURRENT_TEST}')\n", NONE, "import_not_allowed"),
    ("import os\n\n\ndef f(t):\n    return os.path.expandvars(t)\n", SOME, "import_not_allowed"),
    ("import posixpath\n\n\ndef f(t):\n    return posixpath.expandvars(t)\n", SOME, "import_not_allowed"),
    ("import ntpath\n\n\ndef f(t):\n    return ntpath.expandvars(t)\n", None, "import_not_allowed"),
    ("from os.path import expandvars as ev\n\n\ndef f():\n    return ev('$PYTEST_CURRENT_TEST')\n", NONE,
     "import_not_allowed"),
    ("import os\n\nev = os.path.expandvars\n\n\ndef f(t):\n    return ev(t)\n", SOME, "import_not_allowed"),
    ("import os\n\n\ndef f(ts):\n    return list(map(os.path.expandvars, ts))\n", SOME, "import_not_allowed"),
    ("from os import path\n\n\ndef f():\n    return path.expandvars('$PYTEST_CURRENT_TEST')\n", None,
     "import_not_allowed"),
])
def test_expandvars_in_a_module_that_did_not_read_every_variable_stays_refused(source, before, rule):
    # still import_not_allowed (the issue 51 red team's kind test_name_from_the_environment_through_expandvars keeps
    # its code); a read of the environment that only a module that read every variable at x_G keeps
    assert codes(source, before) == {rule}


@pytest.mark.parametrize(("source", "rule"), [
    # what expandvars's function object reaches, in any module
    ("import os\n\n\ndef f():\n    return os.path.expandvars.__globals__['os']\n", "reflection"),
    ("import posixpath\n\n\ndef f():\n    return posixpath.os.environ\n", "import_not_allowed"),
])
def test_what_expandvars_reaches_stays_refused(source, rule):
    assert rule in codes(source)


# -- 3. a chain on a module imported at x_G outside the reviewed set that reaches a route module ----------------------
# A static hole found on the way (open on main 0f58652, closed in round 13): a chain on the repository's own modules is judged again from
# a name of ROUTES or a reviewed module it reaches (`pkg.adapters.urllib3.util.connection.sys.modules` is refused), but
# a chain on a third-party module the changed file imported at x_G was judged by the deny-list from its start only,
# so `urllib3.util.connection.sys.modules` (the module table: the runner's report classes) passed, and so did
# `urllib3.connectionpool.logging.root.handlers` (the runner's capture handlers) and a socket made through it.
URLLIB3 = "import urllib3\n\n\ndef get():\n    return urllib3.PoolManager()\n"
STOPPED_THIRD_PARTY_CHAINS = [
    ("import urllib3\n\n\ndef f():\n    return urllib3.util.connection.sys.modules\n", "import_not_allowed"),
    ("import urllib3\n\n\ndef f():\n    m = urllib3.util.connection.sys\n    return m\n", "reflection"),  # a value
    ("import urllib3\n\n\ndef f():\n    return urllib3.connectionpool.logging.root.handlers\n", "import_not_allowed"),
    ("import urllib3\n\n\ndef f():\n    return urllib3.util.connection.socket.socket()\n", "import_not_allowed"),
    ("import urllib3\n\n\ndef f(cmd):\n    return urllib3.util.ssl_.os.system(cmd)\n", "import_not_allowed"),
    ("import urllib3\n\n\ndef f():\n    return urllib3.response.io.os.sys._getframe(1)\n", "import_not_allowed"),
    ("import urllib3\n\n\ndef f():\n    return urllib3.fields.email.utils.re.enum.sys.modules\n", "import_not_allowed"),
]


@pytest.mark.parametrize(("source", "rule"), STOPPED_THIRD_PARTY_CHAINS)
def test_a_chain_on_a_module_imported_at_x_g_that_reaches_a_route_module_is_judged_from_there(source, rule):
    assert rule in codes(source, URLLIB3)


@pytest.mark.parametrize("source", [
    "import urllib3\n\n\ndef f():\n    return urllib3.util.connection.create_connection(('h', 1))\n",
    "import urllib3\n\n\ndef f(e):\n    return isinstance(e, urllib3.exceptions.HTTPError)\n",
    "import urllib3\n\n\ndef f():\n    return urllib3.util.retry.Retry(3)\n",
])
def test_a_chain_on_a_module_imported_at_x_g_through_its_own_names_is_allowed(source):
    assert codes(source, URLLIB3) == set()


# -- 4. a third-party module the repository's own modules import at x_G ---------------------------------------------
# requests 4e383642 (`from urllib3 import __version__` in compat.py) and 47f170bb (`from urllib3.exceptions import
# DependencyWarning` in __init__.py), where adapters.py imports the same modules at x_G. The tree is read only where
# rules.refusals is given it (`tree`: the repository's modules at x_G, path and source); on main it is never read.
def tree_codes(after: str, tree: list[tuple[str, str]], before: str | None = None, path: str = "pkg/m.py") -> set[str]:
    import inspect as _inspect
    kwargs = {"tree": lambda: tree} if "tree" in _inspect.signature(refusals).parameters else {}
    return {str(r.rule) for r in refusals([(path, before, after.encode())], OWN, frozenset(), **kwargs)}


ADAPTERS = ("pkg/adapters.py", "import urllib3\nfrom urllib3.exceptions import HTTPError\n"
                               "from urllib3.poolmanager import PoolManager\n")
PACKAGE = ("pkg/__init__.py", "")


@pytest.mark.parametrize(("source", "tree", "rule"), [
    # what the tree imports is never the standard library, the runner, test code or an importer by name
    ("import subprocess\n", [PACKAGE, ("pkg/run.py", "import subprocess\n")], "import_not_allowed"),
    ("import importlib\n\n\ndef f(n):\n    return importlib.import_module(n)\n",
     [PACKAGE, ("pkg/load.py", "import importlib\n")], "dynamic_import"),
    ("import pytest\n", [PACKAGE, ("pkg/plugin.py", "import pytest\n")], "import_not_allowed"),
    ("import _pytest.reports\n", [PACKAGE, ("pkg/plugin.py", "import _pytest.reports\n")], "import_not_allowed"),
    ("import pluggy\n", [PACKAGE, ("pkg/plugin.py", "import pluggy\n")], "import_not_allowed"),
    # nor a test helper whose objects answer "equal" to anything, nor a pytest plugin (the review of round 13:
    # `try: from unittest import mock / except ImportError: import mock` in pkg/compat.py admitted `import mock`)
    ("import mock\n\n\ndef f():\n    return mock.ANY\n",
     [PACKAGE, ("pkg/compat.py", "try:\n    from unittest import mock\nexcept ImportError:\n    import mock\n")],
     "import_not_allowed"),
    ("from mock import ANY\n", [PACKAGE, ("pkg/compat.py", "from mock import ANY\n")], "import_not_allowed"),
    ("import dirty_equals\n", [PACKAGE, ("pkg/m2.py", "import dirty_equals\n")], "import_not_allowed"),
    ("import pytest_mock.plugin\n", [PACKAGE, ("pkg/fx.py", "import pytest_mock.plugin\n")], "import_not_allowed"),
    ("import _pytest_x\n", [PACKAGE, ("pkg/fx.py", "import _pytest_x\n")], "import_not_allowed"),
    ("import hypothesis\n", [PACKAGE, ("pkg/st.py", "import hypothesis\n")], "import_not_allowed"),
    ("import pkg_resources\n", [PACKAGE, ("pkg/version.py", "import pkg_resources\n")], "dynamic_import"),
    ("import ctypes\n", [PACKAGE, ("pkg/win.py", "import ctypes\n")], "import_not_allowed"),
    ("import sys\n\n\ndef f():\n    return sys.modules\n", [PACKAGE, ("pkg/compat.py", "import sys\nsys.modules\n")],
     "import_not_allowed"),
    # only a module the tree imports by that very name: not a submodule the tree never imports
    ("import urllib3.contrib.pyopenssl\n", [PACKAGE, ADAPTERS], "import_not_allowed"),
    ("from urllib3.util import connection\n", [PACKAGE, ADAPTERS], "import_not_allowed"),
    # not a module the tree imports only for type checkers, or only in its tests, or in a module the change deletes
    ("import urllib3\n", [PACKAGE, ("pkg/types.py", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import urllib3\n")],
     "import_not_allowed"),
    # not a module the tree imports only inside a function: the module's namespace does not hold it
    ("import urllib3\n", [PACKAGE, ("pkg/a.py", "def get():\n    import urllib3\n    return urllib3\n")],
     "import_not_allowed"),
    ("import urllib3\n", [PACKAGE, ("pkg/a.py", "class C:\n    def get(self):\n        from urllib3 import x\n")],
     "import_not_allowed"),
    ("import urllib3\n", [("tests/test_x.py", "import urllib3\n")], "import_not_allowed"),
    ("import urllib3\n", [PACKAGE, ("pkg/tests/test_x.py", "import urllib3\n")], "import_not_allowed"),
    # not a module of the repository's packages: setup, docs, examples (no package imports them)
    ("import urllib3\n", [("setup.py", "import urllib3\n")], "import_not_allowed"),
    ("import urllib3\n", [("docs/conf.py", "import urllib3\n")], "import_not_allowed"),
    ("import urllib3\n", [("examples/get.py", "import urllib3\n")], "import_not_allowed"),
    # what the module reaches stays judged as on a module imported at x_G
    ("import urllib3\n\n\ndef f():\n    return urllib3.util.connection.sys.modules\n", [PACKAGE, ADAPTERS],
     "import_not_allowed"),
    ("import urllib3\n\n\ndef f():\n    return urllib3.connectionpool.__builtins__\n", [PACKAGE, ADAPTERS], "reflection"),
    # main: reflection (a private name of another module); since the route scan, the runner's module by name
    ("import urllib3\n\n\ndef f():\n    return urllib3.connectionpool._pytest\n", [PACKAGE, ADAPTERS], "import_not_allowed"),
    # the runner's module reached by attribute (the review of round 13: pytest is a route, but only _pytest and
    # pluggy were known, so the chain stopped at `pytest` and found nothing): called, or as a value
    ("import urllib3\n\n\ndef f():\n    return urllib3.connectionpool.pytest.main\n", [PACKAGE, ADAPTERS],
     "import_not_allowed"),
    ("import urllib3\n\nm = urllib3.connectionpool.pytest\n", [PACKAGE, ADAPTERS], "import_not_allowed"),
    # (main: the import itself, import_not_allowed; now the route module as a value)
    ("import urllib3\n\nm = urllib3.util.connection.sys\n", [PACKAGE, ADAPTERS], "reflection"),
])
def test_a_module_the_tree_imports_that_is_not_a_third_party_module_by_that_name_stays_refused(source, tree, rule):
    assert rule in tree_codes(source, tree)


# -- the honest neighbours the relaxations admit ---------------------------------------------------------------------
# click 469ba25d (atomic writes), click ee4feaa (expandvars on Windows arguments, in a module that read os.environ by
# a computed key at x_G)
@pytest.mark.parametrize("source", [
    "import os\nimport tempfile\n\n\ndef atomic(name, mode):\n    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(name))\n"
    "    return os.fdopen(fd, mode), tmp\n",
    "from os import fdopen\n\n\ndef f(fd):\n    return fdopen(fd, 'rb')\n",
])
def test_os_fdopen_is_allowed(source):
    assert codes(source) == set()


EVERY = "import os\n\n\ndef folder(key):\n    return os.environ.get(key)\n"


@pytest.mark.parametrize("source", [
    EVERY + "\n\ndef expand(args):\n    return [os.path.expandvars(a) for a in args]\n",
    EVERY + "\n\ndef expand(args):\n    return list(map(os.path.expandvars, args))\n",
    "import os\nfrom os.path import expandvars\n\n\ndef folder(key):\n    return os.environ.get(key)\n\n\n"
    "def expand(a):\n    return expandvars(a)\n",
])
def test_expandvars_in_a_module_that_read_every_variable_at_x_g_is_allowed(source):
    assert codes(source, EVERY) == set()


def test_expandvars_still_cannot_write_the_environment():
    assert codes(EVERY + "\n\ndef f(a):\n    os.environ['X'] = os.path.expandvars(a)\n", EVERY) == {"environment"}


@pytest.mark.parametrize("before", [
    "import os\n\n\ndef home():\n    return os.environ['HOME']\n",  # one variable by name
    "import os\n\n\ndef home(k):\n    return os.path.expanduser(k)\n",
])
def test_expandvars_needs_every_variable_read_at_x_g_not_one(before):
    assert codes(before + "\n\ndef f(a):\n    return os.path.expandvars(a)\n", before) == {"import_not_allowed"}


# requests 4e383642 and 47f170bb: the same modules as adapters.py imports at x_G
@pytest.mark.parametrize(("source", "path"), [
    ("from urllib3 import __version__ as urllib3_version\n\nis_2 = urllib3_version.split('.')[0] == '2'\n",
     "pkg/compat.py"),
    ("import warnings\n\nfrom urllib3.exceptions import HTTPError\n\nwarnings.simplefilter('ignore', HTTPError)\n",
     "pkg/__init__.py"),
    ("import urllib3\n\n\ndef pool():\n    return urllib3.PoolManager(num_pools=2)\n", "pkg/sessions.py"),
    ("from urllib3.poolmanager import PoolManager\n", "pkg/sessions.py"),
])
def test_a_module_the_repository_s_own_packages_import_at_x_g_may_be_imported_again(source, path):
    assert tree_codes(source, [PACKAGE, ADAPTERS], path=path) == set()


def test_an_import_the_module_runs_when_imported_counts_under_if_try_and_class_bodies():
    for body in ("try:\n    import urllib3\nexcept ImportError:\n    urllib3 = None\n",
                 "import sys\nif sys.version_info > (3,):\n    import urllib3\n",
                 "class C:\n    import urllib3\n"):
        assert tree_codes("import urllib3\n", [PACKAGE, ("pkg/a.py", body)]) == set(), body


def test_a_top_level_module_of_the_repository_counts_and_src_layout_too():
    assert tree_codes("import urllib3\n", [("pkg.py", "import urllib3\n")]) == set()
    assert tree_codes("import urllib3\n", [("src/pkg/__init__.py", ""), ("src/pkg/a.py", "import urllib3\n")],
                      path="src/pkg/m.py") == set()


def test_without_the_tree_a_third_party_import_stays_refused():
    assert codes("import urllib3\n") == {"import_not_allowed"}


def test_the_grader_s_guard_hands_the_tree_to_the_rules():
    from codewalk.domains.repair.guard import refused
    tree = [("pkg/__init__.py", ""), ("pkg/adapters.py", "import urllib3\n")]
    args = (["pkg/m.py"], lambda p: None, lambda p: b"import urllib3\n")
    assert refused(*args, own=OWN, tree=lambda: tree) == []
    assert {str(r.rule) for r in refused(*args, own=OWN)} == {"import_not_allowed"}
    read: list[int] = []
    assert refused(["pkg/m.py"], lambda p: None, lambda p: b"import json\n", own=OWN,
                   tree=lambda: read.append(1) or tree) == []
    assert read == []  # read only when a third-party import would be refused


# -- 5. a route module reached through a value (the review of round 13, h-static13b) --------------------------------
# Section 3 judged a dotted chain on a module imported at x_G again from a route module it reaches by attribute; the
# same module passed through a local, a tuple, a default argument or a call result was not judged at all: the rules
# cannot type the value, so its attributes were read as any object's (private names, dunders, frames only), and
# `c = urllib3.util.connection; c.sys.modules` passed. Also `unittest.mock.ANY` reached through a module's attribute
# (unittest is reviewed for SkipTest only; whether `unittest` had a `mock` attribute depended on what the grading
# process had imported).
PYTEST_MOCK = "import pytest_mock.plugin\n\n\ndef get():\n    return pytest_mock.plugin.MockerFixture\n"
ADAPTERS_USER = "from pkg import adapters\n\n\ndef get():\n    return adapters.HTTPAdapter\n"
TREE = [PACKAGE, ADAPTERS]
U = "import urllib3\n\n\n"
STOPPED_THROUGH_A_VALUE: list[tuple[str, str, str, str]] = [
    # (name, before, after, the rule code that must fire)
    ("local", URLLIB3, U + "def f():\n    c = urllib3.util.connection\n    return c.sys.modules\n", "import_not_allowed"),
    ("tuple_index", URLLIB3, U + "def f():\n    return (urllib3.util.connection,)[0].sys.modules\n",
     "import_not_allowed"),
    ("default_argument", URLLIB3, U + "def f(c=urllib3.util.connection):\n    return c.sys.modules\n",
     "import_not_allowed"),
    ("local_logging_handlers", URLLIB3,
     U + "def f():\n    c = urllib3.connectionpool\n    return c.logging.root.handlers\n", "import_not_allowed"),
    ("local_then_socket", URLLIB3, U + "def f():\n    c = urllib3.util\n    return c.connection.socket.socket()\n",
     "import_not_allowed"),
    ("own_module_local", ADAPTERS_USER,
     "from pkg import adapters\n\n\ndef f():\n    c = adapters.urllib3.util.connection\n    return c.sys.modules\n",
     "import_not_allowed"),
    ("unittest_mock_by_attribute", PYTEST_MOCK,
     "import pytest_mock.plugin\n\n\ndef f():\n    return pytest_mock.plugin.unittest.mock.ANY\n", "import_not_allowed"),
    # the nearest variants
    ("walrus", URLLIB3, U + "def f():\n    return (c := urllib3.util.connection).sys.modules\n", "import_not_allowed"),
    ("lambda_result", URLLIB3, U + "def f():\n    return (lambda: urllib3.util.connection)().sys.modules\n",
     "import_not_allowed"),
    ("lambda_default", URLLIB3, U + "def f():\n    return (lambda c=urllib3.util.connection: c.sys.modules)()\n",
     "import_not_allowed"),
    ("loop_variable", URLLIB3, U + "def f():\n    for c in (urllib3.util.connection,):\n        return c.sys.modules\n",
     "import_not_allowed"),
    ("local_os_system", URLLIB3, U + "def f(cmd):\n    c = urllib3.util.ssl_\n    return c.os.system(cmd)\n",
     "import_not_allowed"),
    ("route_as_value", URLLIB3, U + "def f():\n    c = urllib3.util.connection\n    m = c.sys\n    return m\n",
     "reflection"),
    ("instance_attribute", URLLIB3, U + "class C:\n    def __init__(self):\n        self.conn = urllib3.util.connection\n\n"
     "    def f(self):\n        return self.conn.sys.modules\n", "import_not_allowed"),
    ("module_global", URLLIB3, U + "C = urllib3.util.connection\n\n\ndef f():\n    return C.sys.modules\n",
     "import_not_allowed"),
    ("unittest_through_local", PYTEST_MOCK,
     "import pytest_mock.plugin\n\n\ndef f():\n    p = pytest_mock.plugin\n    return p.unittest.mock.ANY\n",
     "import_not_allowed"),
    ("stdlib_outside_through_local", URLLIB3,
     U + "def f():\n    c = urllib3.util.ssl_\n    return c.ssl.SSLContext\n", "import_not_allowed"),
    # the same read spelled as getattr, operator.attrgetter or a namespace's literal key
    ("getattr", URLLIB3, U + "def f():\n    c = urllib3.util.connection\n    return getattr(c, 'sys').modules\n",
     "import_not_allowed"),
    ("attrgetter", URLLIB3, U + "import operator\n\n\ndef f():\n    c = urllib3.util.connection\n"
     "    return operator.attrgetter('sys.modules')(c)\n", "import_not_allowed"),
    ("vars_literal_key", URLLIB3, U + "def f():\n    c = urllib3.util.connection\n    return vars(c)['sys'].modules\n",
     "import_not_allowed"),
    ("change_defines_the_name", URLLIB3,
     U + "class K:\n    sys = None\n\n\ndef f():\n    c = urllib3.util.connection\n    c.logging = 0\n"
     "    return c.sys.modules\n", "import_not_allowed"),
]


# the 18 first ones strict xfail on main dbc0b5d (b6b3f33), closed here with the 3 found while fixing (getattr ...)
HOLES: list[tuple[str, str, str, str]] = [
    # open: a module handed on as a value, its part read through another value by a name that is no module's. Judging
    # a reviewed module's name ending a chain as the module refused real fixes (boltons 0336273a `match.string`,
    # click f7c124ed `self.types`, a class attribute the change adds), so a name of another module ending a chain
    # on a value is judged only if one of that module's names is read on it after. Found while fixing; they pass main
    ("reviewed_module_handed_on", PYTEST_MOCK,
     "import pytest_mock.plugin\n\n\ndef g(u):\n    return u.mock.ANY\n\n\ndef f():\n    p = pytest_mock.plugin\n"
     "    return g(p.unittest)\n", "reflection"),
    ("typing_handed_on", URLLIB3, U + "def f(fn):\n    t = (urllib3.util.connection,)[0].typing\n"
     "    return t.get_type_hints(fn)\n", "reflection"),
]


# closed in round 14b (tests/test_repair_rules_round14b.py): a module's name ending a chain on a value is the module
# as a value when one of its refused parts is read in the changed modules
@pytest.mark.parametrize(("name", "before", "after", "rule"), HOLES, ids=[h[0] for h in HOLES])
def test_a_module_handed_on_as_a_value_is_refused_since_round_14b(name, before, after, rule):
    assert rule in tree_codes(after, TREE, before)


@pytest.mark.parametrize(("name", "before", "after", "rule"), STOPPED_THROUGH_A_VALUE,
                         ids=[h[0] for h in STOPPED_THROUGH_A_VALUE])
def test_a_route_module_reached_through_a_value_is_judged_as_that_module(name, before, after, rule):
    assert rule in tree_codes(after, TREE, before)


# the honest neighbours: an attribute of that name the repository defines at x_G (werkzeug's `self.socket`, click's
# `ctx.logging`-like names) may be the repository's object; a name called last is a method; a name written a binding
SOCKET_CLASS = ("pkg/serving.py", "class Server:\n    def __init__(self, sock):\n        self.socket = sock\n")
SIGNAL_CLASS = ("pkg/signals.py", "class Hub:\n    signal = None\n\n    def path(self):\n        return ''\n")


@pytest.mark.parametrize(("source", "tree", "before"), [
    ("def f(server):\n    return server.socket.getsockname()\n", [PACKAGE, SOCKET_CLASS], None),
    ("def f(conn):\n    conn.socket.close()\n", [PACKAGE, SOCKET_CLASS], None),
    ("def f(hub):\n    return hub.signal.send\n", [PACKAGE, SIGNAL_CLASS], None),
    # defined at x_G by the changed file itself
    ("class S:\n    def __init__(self, s):\n        self.socket = s\n\n    def name(self):\n"
     "        return self.socket.getsockname()\n",
     [PACKAGE], "class S:\n    def __init__(self, s):\n        self.socket = s\n"),
    # called last: the object's method; written: a binding; not a module name at all
    ("def f(x):\n    return x.signal('changed')\n", [PACKAGE], None),
    ("def f(x, h):\n    x.logging = h\n", [PACKAGE], None),
    ("def f(x):\n    return x.path.join('a')\n", [PACKAGE], None),
    ("def f(x):\n    return x.json.dumps(1)\n", [PACKAGE], None),
    # another module's name ending the chain, or followed by a name that module lacks (the recheck's real fixes:
    # click ec258fef `e.code`, f7cd0ff6 `lex.token`, 82f9c626 `self.cmd.get_help_option`, boltons 0336273a
    # `match.string[...]`, click f7c124ed `self.types`)
    ("def f(e):\n    return e.code\n", [PACKAGE], None),
    ("def f(lex):\n    return [lex.token]\n", [PACKAGE], None),
    ("def f(self, ctx):\n    return self.cmd.get_help_option(ctx)\n", [PACKAGE], None),
    ("def f(match):\n    return match.string[match.start():match.end()]\n", [PACKAGE], None),
    ("class T:\n    def __init__(self, ts):\n        self.types = ts\n\n    def arity(self):\n"
     "        return len(self.types)\n", [PACKAGE], None),
])
def test_an_attribute_the_repository_defines_at_x_g_is_its_own(source, tree, before):
    assert tree_codes(source, tree, before) == set()


@pytest.mark.parametrize(("source", "before"), [
    # the change defining the name itself excuses nothing (`x.sys = 0` anywhere, a class attribute `sys`)
    ("class K:\n    sys = None\n\n\ndef f(c):\n    return c.sys.modules\n", None),
    ("def f(c, d):\n    d.socket = 0\n    return c.socket.socket()\n", None),
    # nor without a tree: the names of the changed modules at x_G only
    ("def f(c):\n    return c.logging.root.handlers\n", "def g():\n    return 1\n"),
])
def test_a_name_the_change_defines_excuses_nothing(source, before):
    assert "import_not_allowed" in tree_codes(source, [PACKAGE], before)
