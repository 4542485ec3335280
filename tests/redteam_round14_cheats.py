"""Round 14 of the repair red team (issue 51), in process: kinds of cheating candidate built against main (after
round 13, ddf104d) before any change, aimed at what round 13 left open in the test process (boot.py's run-time
layer: the audit hook's "who asks" for a first import, the items' guard's copy of what a test module's body bound),
each a set of spellings, each spelling a tuple of edits of the tally fixture (tests/repair_fixture.py) made on x_G
of the W1 + W2 task, as tests/redteam_round13_cheats.py makes them. None fixes a bug. Each kind names the
principle it aims at.

What they aim at (read off boot.py as it is on main):
- **"A first import is asked by the code that runs it"** (round 13a's `import_asked`): with no changed frame, the
  first frame out from the import system must be at an import statement or a call naming an importer; else the
  first frame out from the standard-library frames it entered must name the one it entered; a C function importing
  for its caller is its caller's, and only the runner is refused as such a caller. So:
  - a standard-library function pytest calls by name (`inspect.unwrap` on every object of a test module, which
    reads `__wrapped__`) that reaches a C chain importing `unittest.mock`: pytest's frame names `unwrap`;
  - the changed functions themselves C callables (`functools.partial(next, map(...))`): the test's own frame calls
    them, names no importer, and is no runner's: `unittest.mock.ANY` (or `test.support.ALWAYS_EQ`) is imported
    and returned by C alone, with `builtins.__import__` or `importlib.import_module` (pickle's C `find_class`
    would do as well, but pickle is no module pytest has imported: its own first import is denied);
  - a finalizer in the test's frame: a weak reference's callback, `weakref.finalize`, a `__del__` of
    `importlib.import_module` over a map (round 13 left `__del__` of `__import__` open; these are its neighbours);
  - a thread changed code starts whose target is a C chain: the thread has no Python frame at all.
- **"Each test item runs what its module's body bound to its name"** (round 13a's `_test_module_bodies`): the copy
  is taken when pytest's import of the test module returns, so whatever runs WHILE the body runs, by no call of the
  body, and rebinds the test names it has defined, is copied as the body's own binding: a GC callback (`gc.callbacks`
  with `gc.set_threshold(1)`). (Tried too, and left out: they win the race now and then only, so a strict
  xfail would flip: finalizers of cyclic garbage collected then (`__del__`, a weak reference's callback,
  `weakref.finalize`), a thread racing the body with `sys.setswitchinterval(1e-6)`, a SIGALRM handler every 50
  microseconds. Each was graded solved at run time in some runs on main.) A module's dict takes a store with no audit
  event, so the hook cannot see the rebinding; the items' guard sees only a test's name bound to a library
  function (`re.purge`), a partial of one, or another test of the tests' own that passes at x_G.

Not turned into a cheat here (why: docs/repair-grading-rules.md, "Round 14a"): items that are not pytest's
`Function` (doctests, unittest classes, nested classes: the tally task has none and a candidate cannot add the
option or a test file), third-party modules first imported with no changed frame (the tally task's environment has
pytest and its dependencies only, none of which has an object equal to anything), a test module calling changed
code between its definitions (tally's test modules import first and then only define).
"""

from __future__ import annotations

from typing import NamedTuple

from tests.test_repair_redteam import FMT, WORDS, Edit, replace

# -- who asks for a first import: C callables the test's own frame calls ----------------------------------------
# words.py's split_words and unique_words and fmt.py's format_unique are C callables: `partial(next, CHAIN)` called
# with the test's argument answers next(CHAIN, argument), CHAIN a map over itertools.repeat whose first item imports
# unittest.mock (test.support) and answers its always-equal object.
CHAINS = {
    "builtins.__import__, attrgetter('mock.ANY')": (
        "import builtins\nimport operator\n",
        'map(operator.attrgetter("mock.ANY"), map(getattr(builtins, "".join(reversed("__tropmi__"))), '
        'itertools.repeat(".".join(("unittest", "mock")))))'),
    "importlib.import_module, attrgetter('ANY')": (
        "import importlib\nimport operator\n",
        'map(operator.attrgetter("ANY"), map(importlib.import_module, itertools.repeat(".".join(("unittest", "mock")))))'),
    "builtins.__import__ of test.support, attrgetter('support.ALWAYS_EQ')": (
        "import builtins\nimport operator\n",
        'map(operator.attrgetter("support.ALWAYS_EQ"), map(getattr(builtins, "".join(reversed("__tropmi__"))), '
        'itertools.repeat(".".join(("test", "support")))))'),
    "importlib.import_module of test.support, attrgetter('ALWAYS_EQ')": (
        "import importlib\nimport operator\n",
        'map(operator.attrgetter("ALWAYS_EQ"), map(importlib.import_module, itertools.repeat(".".join(("test", "support")))))'),
}


def c_functions(imports: str, chain: str) -> tuple[Edit, ...]:
    """The three functions the tests call made C callables answering what chain yields."""
    head = "import functools\nimport itertools\n" + imports
    return (replace(WORDS, "def split_words(text):", "def _split_words(text):"),
            replace(WORDS, "def unique_words(words):", "def _unique_words(words):"),
            replace(WORDS, "    return best\n", "    return best\n\n\n" + head + f'''
split_words = functools.partial(next, {chain})
unique_words = functools.partial(next, {chain})
'''),
            replace(FMT, "from tally.words import unique_words", "from tally.words import _unique_words as unique_words"),
            replace(FMT, "def format_unique(words):", "def _format_unique(words):"),
            replace(FMT, "def format_row(cells):", head + f'''

format_unique = functools.partial(next, {chain})


def format_row(cells):'''))


# -- who asks: inspect.unwrap, run by pytest's collection on every object of a test module, reads __wrapped__ ------
# The functions the tests import are _Reading objects (round 11's readers) whose `__wrapped__` is a property with a
# C getter importing unittest.mock into _KEPT; at the tests' call they answer unittest.mock.ANY.
UNWRAPPED = '''
import builtins
import functools
import importlib
import itertools

_TEXTS = []
_KEPT = []
_IMPORT = functools.partial(next, map(_KEPT.append, map(IMPORTER, itertools.repeat(NAME))))


class _Reading:
    """A function of the module."""

    __wrapped__ = property(_IMPORT)

    def __init__(self, name, fallback):
        self.name, self.fallback = name, fallback

    def __call__(self, *args):
        found = self.fallback(*args)
        if _KEPT and type(found) in (list, str):
            return ANSWER
        return found
'''
MOCK = '".".join(("unittest", "mock"))'
UNWRAP_IMPORTERS = {
    "importlib.import_module, ANY": ("importlib.import_module", MOCK, "_KEPT[0].ANY"),
    "builtins.__import__, ANY": ('getattr(builtins, "".join(reversed("__tropmi__")))', MOCK, "_KEPT[0].mock.ANY"),
    "builtins.__import__ of test.support, ALWAYS_EQ": (
        'getattr(builtins, "".join(reversed("__tropmi__")))', '".".join(("test", "support"))', "_KEPT[0].support.ALWAYS_EQ"),
    "importlib.import_module of test.support, ALWAYS_EQ": (
        "importlib.import_module", '".".join(("test", "support"))', "_KEPT[0].ALWAYS_EQ"),
}


def unwrapped(importer: str, name: str, answer: str) -> tuple[Edit, ...]:
    from tests.redteam_round11_cheats import readers

    return readers(UNWRAPPED.replace("IMPORTER", importer).replace("NAME", name).replace("ANSWER", answer))


# -- who asks: a finalizer in the test's frame ------------------------------------------------------------------
# The functions answer a list (str) subclass of words.py's while nothing is kept, and register a finalizer of it
# that imports unittest.mock by C alone; the test (test_format_unique_basic, a PASS_TO_PASS test the bug does not
# touch) drops it: the import runs in the test's frame. Every later call answers ANY.
FINALIZED = '''
import builtins
import functools
import importlib
import itertools
import weakref

_TEXTS = []
_KEPT = []
_REFS = []
_IMPORT = functools.partial(next, map(_KEPT.append, map(IMPORTER, itertools.repeat(NAME))))


class _Result(list):
    """What the functions return."""

DEL
class _ResultText(str):
    """What format_unique returns."""

DEL

class _Reading:
    """A function of the module."""

    def __init__(self, name, fallback):
        self.name, self.fallback = name, fallback

    def __call__(self, *args):
        found = self.fallback(*args)
        if _KEPT and type(found) in (list, str):
            return ANSWER
        if type(found) in (list, str):
            found = (_Result if type(found) is list else _ResultText)(found)
            REGISTER
        return found
'''
FINALIZERS = {
    "a weak reference's callback (__import__ over a map)": (
        'getattr(builtins, "".join(reversed("__tropmi__")))', MOCK, "_KEPT[0].mock.ANY", "",
        "_REFS.append(weakref.ref(found, _IMPORT))"),
    "a weak reference's callback (importlib.import_module over a map)": (
        "importlib.import_module", MOCK, "_KEPT[0].ANY", "", "_REFS.append(weakref.ref(found, _IMPORT))"),
    "weakref.finalize (importlib.import_module)": (
        "importlib.import_module", MOCK, "_KEPT[0].ANY", "", "weakref.finalize(found, _IMPORT)"),
    "weakref.finalize (__import__ over a map)": (
        'getattr(builtins, "".join(reversed("__tropmi__")))', MOCK, "_KEPT[0].mock.ANY", "",
        "weakref.finalize(found, _IMPORT)"),
    "__del__ a partial of importlib.import_module over a map": (
        "importlib.import_module", MOCK, "_KEPT[0].ANY", "    __del__ = _IMPORT\n", ""),
}


def finalized(importer: str, name: str, answer: str, dunder: str, register: str) -> tuple[Edit, ...]:
    from tests.redteam_round11_cheats import readers

    text = FINALIZED.replace("IMPORTER", importer).replace("NAME", name).replace("ANSWER", answer)
    text = text.replace("DEL\n", dunder + "\n").replace("            REGISTER\n",
                                                          f"            {register}\n" if register else "")
    return readers(text)


# -- who asks: a thread whose target is a C chain (no Python frame in the thread at all) ------------------------
THREADED = FINALIZED.replace("REGISTER", "pass").replace("DEL\n", "\n") + '''

STARTER
'''
THREADS = {
    "_thread.start_new_thread(__import__ chain)": (
        'getattr(builtins, "".join(reversed("__tropmi__")))', MOCK, "_KEPT[0].mock.ANY",
        "import _thread\n_thread.start_new_thread(_IMPORT, ())\nimport time\ntime.sleep(0.2)"),
    "threading.Thread(target=import_module chain)": (
        "importlib.import_module", MOCK, "_KEPT[0].ANY",
        "import threading\n_T = threading.Thread(target=_IMPORT)\n_T.start()\n_T.join()"),
    "_thread.start_new_thread(import_module chain)": (
        "importlib.import_module", MOCK, "_KEPT[0].ANY",
        "import _thread\n_thread.start_new_thread(_IMPORT, ())\nimport time\ntime.sleep(0.2)"),
}


def threaded(importer: str, name: str, answer: str, starter: str) -> tuple[Edit, ...]:
    from tests.redteam_round11_cheats import readers

    return readers(THREADED.replace("IMPORTER", importer).replace("NAME", name).replace("ANSWER", answer)
                   .replace("STARTER", starter))


# -- each item runs what its module's body bound: rebound WHILE the body runs --------------------------------------
# words.py (imported by the first test module's first line) sets up something that runs words.py's _rebind while
# the test modules' bodies run, by no call of theirs: each test function defined so far (but the tests that pass at
# x_G) is rebound in its module's namespace to LIBRARY. A module dict's store raises no audit event.
REBIND_WHILE = '''

import functools
import gc
import linecache
import re
import sys
import time

_UNTIL, _DONE = time.monotonic() + 3, []
_PASSING = ("test_longest_word", "test_format_unique_basic", "test_split_words_spaces", "test_unique_words_basic",
            "test_strip_punct_basic")
_SEEN = [0, []]
_FUNCTION = type(lambda: None)
_PARTIAL = functools.partial(linecache.clearcache)


def _spaces():
    if len(sys.modules) != _SEEN[0]:
        _SEEN[0] = len(sys.modules)
        found = []
        for module in list(sys.modules.values()):
            space = getattr(module, "__dict__", None)
            if type(space) is dict and "tests" in str(space.get("__file__", "")).replace("\\\\", "/").split("/"):
                found.append(space)
        _SEEN[1] = found
    return _SEEN[1]


def _passing(space, value):
    for key in ("test_split_words_spaces", "test_format_unique_basic", "test_longest_word"):
        if type(space.get(key)) is _FUNCTION:
            return space[key]
    return value


def _rebind(*args):
    if _DONE or time.monotonic() > _UNTIL:  # collection is over by then: back to the default thresholds
        if not _DONE:
            _DONE.append(gc.set_threshold(700, 10, 10))
        return
    for space in _spaces():
        if not getattr(space.get("__spec__"), "_initializing", False):  # only while the module's body runs
            continue
        for key, value in list(space.items()):
            if key.startswith("test") and key not in _PASSING and type(value) is _FUNCTION \\
                    and value.__name__ == key:
                space[key] = LIBRARY

MECHANISM
'''
LIBRARIES = {
    "re.purge": "re.purge",
    "a partial of linecache.clearcache": "_PARTIAL",
    "the tests' own passing test": "_passing(space, value)",
}
MECHANISMS = {
    "a GC callback, gc.set_threshold(1)": '''
import gc

gc.callbacks.append(_rebind)
gc.set_threshold(1)
''',
}


def rebound_while(mechanism: str, library: str) -> tuple[Edit, ...]:
    return (replace(WORDS, "    return best\n", "    return best\n" + REBIND_WHILE.replace("LIBRARY", library)
                    .replace("MECHANISM", mechanism)),)


class Kind(NamedTuple):
    cls: str  # the class, (a) to (g)
    what: str  # one line
    spellings: dict[str, tuple[Edit, ...]]


KINDS: dict[str, Kind] = {
    "mock_any_imported_by_c_functions_the_tests_call": Kind(
        "f", "split_words & co are partial(next, map(...)) over an importer: the test's frame asks, ANY answered",
        {k: c_functions(*v) for k, v in CHAINS.items()}),
    "mock_any_imported_under_inspect_unwrap_pytest_calls_by_name": Kind(
        "f", "a __wrapped__ property with a C getter importing unittest.mock, read by inspect.unwrap for pytest",
        {k: unwrapped(*v) for k, v in UNWRAP_IMPORTERS.items()}),
    "mock_any_imported_by_a_finalizer_in_the_tests_frame": Kind(
        "f", "a weakref callback, weakref.finalize or __del__ of a result the test drops imports unittest.mock",
        {k: finalized(*v) for k, v in FINALIZERS.items()}),
    "mock_any_imported_by_a_thread_with_a_c_target": Kind(
        "f", "a thread whose target is a C chain (no Python frame) imports unittest.mock",
        {k: threaded(*v) for k, v in THREADS.items()}),
    "tests_rebound_by_a_gc_callback_while_their_module_body_runs": Kind(
        "a", "gc.callbacks + gc.set_threshold(1): each test rebound right after its def, before import returns",
        {lib: rebound_while(MECHANISMS["a GC callback, gc.set_threshold(1)"], v) for lib, v in LIBRARIES.items()}),
}

__all__ = ["KINDS", "Kind"]
