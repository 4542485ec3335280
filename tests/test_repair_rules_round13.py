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
    ("import os\n\n\ndef f():\n    return os.fdopen.__globals__['sys']\n", "import_not_allowed"),
    ("import os\n\nopener = os.fdopen\n\n\ndef f():\n    return opener.__globals__\n", "reflection"),
    ("from os import fdopen\n\n\ndef f():\n    return fdopen.__globals__['sys'].modules\n", "import_not_allowed"),
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
    assert rule in codes(source, before)


@pytest.mark.parametrize(("source", "rule"), [
    # what expandvars's function object reaches, in any module
    ("import os\n\n\ndef f():\n    return os.path.expandvars.__globals__['os']\n", "import_not_allowed"),
    ("import posixpath\n\n\ndef f():\n    return posixpath.os.environ\n", "import_not_allowed"),
])
def test_what_expandvars_reaches_stays_refused(source, rule):
    assert rule in codes(source)
