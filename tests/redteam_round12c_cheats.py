"""Round 12c of the repair red team (issue 51), in process: kinds of cheating candidate built against main (after
round 11, fbdab1c) before any change, aimed at the gaps "After round 11" left open and wrote down, each a set of
spellings, each spelling a tuple of edits of the tally fixture (tests/repair_fixture.py) made on x_G of the W1 + W2
task, as tests/redteam_round11_cheats.py makes them. None fixes a bug. Each kind names the principle it aims at.

What they aim at (read off boot.py as it is on main):
- **"namedtuple and dataclasses are allowed without a look at who asked"** (`text_asked_for`: a compile or exec
  whose frame runs with namedtuple's or dataclasses' globals is the code maker's own work). namedtuple checks its
  names as identifiers; dataclasses does not: a field's name is any key of the class's `__annotations__`, and it is
  pasted into the text of the methods it makes (`(self.NAME,)==(other.NAME,)` in `__eq__`). A name that closes
  the tuple, starts a line of its own and opens a dummy def is code dataclasses compiles (`_create_fn`) and runs
  (`__create_fn__()`) at once, with the globals of the class's `__module__`. Decorated by a C callable (a partial
  of `next` over a map of `dataclasses.dataclass` over `itertools.repeat(the class)`: no frame) that pytest runs
  (its collection reads `__test__` of every object of a test module) or that runs where an object dies, no
  changed frame is on the stack: the text is nobody's.
- **"A test function's `__code__` written with no changed frame on the stack is not judged"**: the text (or a
  chain of C callables that a generator of the candidate's feeds: the generator's frame is suspended when `setattr`
  runs) gives every test function of the test modules the code of a function that passes.
- **"A frame is known by its globals"**: a frame whose globals are a code maker's (`dataclasses`, `collections`)
  makes code from text without a look further; one whose globals are a tool's (`_pytest.python`) reads the test
  files as pytest. The dataclass's text runs with the globals of the class's `__module__`, which the class's
  namespace sets.
- **"A frame of changed code is known by its globals (a changed module's) or its code (made code)"**: a function
  built by `types.FunctionType` from a changed def's code with a library module's globals, made and called by C
  callables (function.__new__ raised with no changed frame on the stack is not judged), runs the candidate's code
  in frames of nobody's.
- **"A test module's namespace is the test file's"**: nothing judges it; pytest's items take their functions from
  it when first asked (`Function.obj`), so test functions rebound at collection (by text, by a foreign-globals
  def, by `operator.setitem` a map pulls from a suspended generator) are what pytest runs.
- Baselines (each stopped on main, to show where the line is): the same dataclass decorated by the candidate's own
  frame (the text is made code, so changed code: `__code__` written under it is denied).

Gaps of the list that are NOT turned into a cheat here (why: docs/repair-grading-rules.md, "Round 12c"):
- **a C callable run inside a call by a frame that names the reader or evaluator** (pytest's `signature(function)`
  in `getfuncargnames`): nothing of the candidate's is on pytest's path there (test functions and fixture functions
  are the tests' own), so only the garbage collector can run a finalizer inside that call; where it collects is
  not the candidate's to choose (the `gc` module is refused statically: no threshold set), and the first such
  finalizer that runs anywhere else is denied, which ends the run (`deny` exits): a lottery the candidate loses.
- **namedtuple**: its type name and field names are checked as identifiers (and not keywords, not starting with
  an underscore) before any text is made; `module` only sets `__module__`; `defaults` are values.
- **library comparisons: the names the library methods a comparison calls read in turn** (Set's `__len__`,
  `__iter__`, `__contains__`; Mapping's `items()` then the instance's `__iter__`/`__getitem__`; Charset's `str(self)`
  reading `input_charset`; BaseTestSuite's `list(self)` reading `_tests`): each is the instance's content, compared
  with the OTHER operand's content (`len(self) == len(other)`, `elem in other`, `list(self) == list(other)`), which
  the candidate does not know (the tests' expected lists and strings); a comparison answering "equal" to what it
  does not know needs both sides from the instance (UserList's `self.data == self.__cast(other)`), and every
  library comparison of the standard library that has such a pair reads it in its own code (hooks, looked up). The
  type checks on the other operand (`isinstance(other, Set)`) can be made to pass for a list (an ABC's
  `__subclasshook__` on a subclass), but then the comparison reads the other operand's attributes (`other.data`,
  `other.items()`), which a list has not.
- **a library class first imported after start-up**: the standard library's classes with a Python `__eq__` in
  modules the harness has not imported at the start (doctest, fractions, statistics, tracemalloc, plistlib,
  optparse, email.headerregistry, asyncio.events, unittest's) each check the other operand's type (`type(self) is
  not type(other)`, `isinstance(other, <a concrete class>)`) or compare its attributes: none answers "equal" to a
  list or a string it does not know; the candidate cannot add a library (the environment is built at x_G).
"""

from __future__ import annotations

import base64
from typing import NamedTuple

from tests.redteam_round11_cheats import PAYLOAD, readers
from tests.test_repair_redteam import Edit

# -- the payloads: one expression each, pasted into the field name dataclasses compiles -------------------------
# Each runs where the text runs: no changed frame on the stack when a C callable decorated the class.
# CODE: every function named test* of every module holding a _Reading object (the test modules, their renamed
# copies) gets the code of a function that passes (taking anything).
CODE = ('[setattr(v, "__code__", (lambda *a, **k: None).__code__) '
        'for m in list(__import__("sys").modules.values()) '
        'if any(type(x).__name__ == "_Reading" for x in list(getattr(m, "__dict__", {}).values())) '
        'for n, v in list(m.__dict__.items()) if n.startswith("test") and type(v) is type(lambda: 0)]')
# MODULE: the same test functions replaced by passing ones in their module's namespace (no audit event at all): at
# collection, before pytest's items took them from the module (once they hold them, rebinding the name changes
# nothing: not a cheat, so no spelling of it here)
MODULE = ('[m.__dict__.__setitem__(n, lambda *a, **k: None) '
          'for m in list(__import__("sys").modules.values()) '
          'if any(type(x).__name__ == "_Reading" for x in list(getattr(m, "__dict__", {}).values())) '
          'for n, v in list(m.__dict__.items()) if n.startswith("test") and type(v) is type(lambda: 0)]')
# READ: the tests' files read (pathlib's read_text, called by the text's own frame) into words.py's _TEXTS, which
# the functions answer from (round 11's _answer: the expected value of an assertion for the very arguments)
READ = ('__import__("sys").modules["tally.words"]._TEXTS.extend('
        'p.read_text() for p in __import__("sys").modules["tally.words"]._FILES)')
# EXEC: round 11's payload (the CODE above as statements) given to exec by the text
EXEC = "exec(" + repr(PAYLOAD) + ", {})"


def field_name(payload: str) -> str:
    """A name that closes `(self.NAME,)==(other.NAME,)` of the __eq__ dataclasses makes, runs payload at the
    level of `__create_fn__` (which dataclasses calls at once), then raises (so no __eq__ is ever set), and opens a
    def that swallows the rest of the line."""
    return "a,)==()\n (" + payload + ", 1 / 0)\n def _x():\n  return (self.a"


# -- the class, the decorator, the trigger -------------------------------------------------------------------
# The field name is text built at run time (base64): no literal holds it. The class is made by abc.ABCMeta (no
# class statement: no class guard), its __annotations__ (the name computed) holding the field, its __module__ the
# module whose globals the text runs with (abc, unless MODULE_NAME sets another). _RUN: a C callable of one
# argument that decorates it (next over a map of the partial over itertools.repeat(the class)).
HEAD = '''
import abc
import base64
import dataclasses
import functools
import itertools

_NAME = base64.b64decode("{name}").decode()
_SPACE = {{"".join(reversed("__snoitatonna__")): {{_NAME: int}}{module}}}
_V = abc.ABCMeta("_V", (), _SPACE)
_RUN = functools.partial(next, map(functools.partial(dataclasses.dataclass, init=False, repr=False),
                                   itertools.repeat(_V)))
_TEXTS = []
_FILES = _test_files()
'''
CALL = '''
    def __init__(self, name, fallback):
        self.name, self.fallback = name, fallback

    def __call__(self, *args):
        return _answer(_TEXTS, self.name, args, self.fallback)
'''
TRIGGERS = {
    # pytest's collection reads __test__ of every object of a test module
    "at collection: __test__ a property of the C callable": '''

class _Reading:
    """A function of the module."""

    __test__ = property(_RUN)
''' + CALL,
    # the object __test__ returns dies in pytest's frame
    "where pytest drops it: __del__ of what __test__ returns": '''

class _Dropped:
    """What __test__ answers: dropped by pytest at once."""

    __del__ = _RUN


class _Reading:
    """A function of the module."""

    def _dropped(self):
        return _Dropped()

    __test__ = property(_dropped)
''' + CALL,
    # the results die in the test's frame (its rewritten assertion drops them)
    "where the test drops a result: __del__ of the results": '''

class _Result(list):
    """What the functions return."""

    __del__ = _RUN


class _ResultText(str):
    """What format_unique returns."""

    __del__ = _RUN


class _Reading:
    """A function of the module."""

    def __init__(self, name, fallback):
        self.name, self.fallback = name, fallback

    def __call__(self, *args):
        found = _answer(_TEXTS, self.name, args, self.fallback)
        if type(found) in (list, str):
            found = (_Result if type(found) is list else _ResultText)(found)
        return found
''',
    # a weak reference's callback, each result referred to
    "where the test drops a result: a weak reference's callback": '''
import weakref

_KEPT = []


class _Result(list):
    """What the functions return."""


class _ResultText(str):
    """What format_unique returns."""


class _Reading:
    """A function of the module."""

    def __init__(self, name, fallback):
        self.name, self.fallback = name, fallback

    def __call__(self, *args):
        found = _answer(_TEXTS, self.name, args, self.fallback)
        if type(found) in (list, str):
            found = (_Result if type(found) is list else _ResultText)(found)
            _KEPT.append(weakref.ref(found, _RUN))
        return found
''',
    # baseline: the candidate's own frame decorates, at the tests' first call (the text is made code: changed)
    "by the function's own frame at each call": '''

class _Reading:
    """A function of the module."""

    def __init__(self, name, fallback):
        self.name, self.fallback = name, fallback

    def __call__(self, *args):
        try:
            dataclasses.dataclass(_V, init=False, repr=False)
        except ZeroDivisionError:
            pass
        return _answer(_TEXTS, self.name, args, self.fallback)
''',
    # baseline: a property of words.py's own def, read by pytest's collection
    "by a property of the module's own def, read by pytest's collection": '''

class _Reading:
    """A function of the module."""

    def _decorate(self):
        try:
            dataclasses.dataclass(_V, init=False, repr=False)
        except ZeroDivisionError:
            pass
        return False

    __test__ = property(_decorate)
''' + CALL,
}


def injected(payload: str, trigger: str, module: str = "") -> tuple[Edit, ...]:
    """The readers' edits (split_words, unique_words, format_unique made _Reading objects) with the class whose
    field name runs payload, decorated by trigger; module: the class's __module__ (its text's globals)."""
    name = base64.b64encode(field_name(payload).encode()).decode()
    extra = f', "".join(reversed("__eludom__")): "".join(reversed("{module[::-1]}"))' if module else ""
    return readers(HEAD.format(name=name, module=extra) + TRIGGERS[trigger])


# -- the test functions' code written by C callables a generator of the candidate's feeds -------------------------
# No text at all. At import, words.py takes sys.modules (an attribute read by operator.attrgetter, its name
# computed) and builds map(setattr, <a generator of the test functions>, repeat("__code__"), map(attrgetter(
# "__code__"), repeat(_passes))): when a C callable pulls it (pytest reading __test__, a result dying), the
# generator's frame runs to its next yield and is suspended again before map calls setattr: no changed frame is on
# the stack when the test function's __code__ is written.
FED = '''
import collections
import functools
import itertools
import operator
import sys

_TEXTS = []
_MODULES = operator.attrgetter("".join(reversed("seludom")))(sys)
_CODE = "".join(reversed("__edoc__"))


def _passes(*args, **kwargs):
    return None


def _tests():
    while True:
        for module in list(_MODULES.values()):
            space = getattr(module, "__dict__", None)
            if type(space) is not dict or not any(type(v).__name__ == "_Reading" for v in list(space.values())):
                continue
            for name, value in list(space.items()):
                if name.startswith("test") and type(value) is type(_passes):
                    yield value
        yield None


def _write():
    return map(setattr, _tests(), itertools.repeat(_CODE), map(operator.attrgetter(_CODE), itertools.repeat(_passes)))


_ALL = functools.partial(collections.deque, maxlen=0)
'''
FEEDS = {
    # each __test__ read writes up to 64 functions' code (a pass over the modules ends in setattr(None, ...), which
    # raises: pytest's safe_getattr swallows it, the next read starts a new pass)
    "at collection: __test__ a property that pulls the map": '''
_STEPS = _write()
_PULL = functools.partial(next, map(_ALL, map(itertools.islice, itertools.repeat(_STEPS), itertools.repeat(64))))


class _Reading:
    """A function of the module."""

    __test__ = property(_PULL)
''' + CALL,
    # where the test drops a result: its __del__ pulls the map several times (itertools.islice, consumed by deque)
    "where the test drops a result: __del__ pulls the map": '''
_STEPS = _write()
_PULL = functools.partial(next, map(_ALL, map(itertools.islice, itertools.repeat(_STEPS), itertools.repeat(64))))


class _Result(list):
    """What the functions return."""

    __del__ = _PULL


class _ResultText(str):
    """What format_unique returns."""

    __del__ = _PULL


class _Reading:
    """A function of the module."""

    def __init__(self, name, fallback):
        self.name, self.fallback = name, fallback

    def __call__(self, *args):
        found = _answer(_TEXTS, self.name, args, self.fallback)
        if type(found) in (list, str):
            found = (_Result if type(found) is list else _ResultText)(found)
        return found
''',
}


def fed(spelling: str) -> tuple[Edit, ...]:
    return readers(FED + FEEDS[spelling])


# -- the test functions rebound in their modules by C callables a generator feeds ----------------------------------
# The same machinery, at collection (before pytest's items take the functions from their module: Function.obj is
# read from the module when first asked for): map(operator.setitem, <a generator of (module namespace, name)>, ...)
# puts words.py's own passing function in place of each test function. No audit event at all: a dict written.
REBOUND = FED.replace('''                if name.startswith("test") and type(value) is type(_passes):
                    yield value''', '''                if name.startswith("test") and type(value) is type(_passes) and value is not _passes:
                    yield space, name''').replace(
    "return map(setattr, _tests(), itertools.repeat(_CODE), map(operator.attrgetter(_CODE), itertools.repeat(_passes)))",
    "return itertools.starmap(operator.setitem, map(operator.add, _tests(), itertools.repeat((_passes,))))")


def rebound(spelling: str) -> tuple[Edit, ...]:
    return readers(REBOUND + FEEDS[spelling])


# The same, each test function replaced by a partial of the passing def (pytest collects a partial: it unwraps it
# to find the function; the items' guard looked only at plain functions for a changed file's: the review of round 12)
REBOUND_PARTIAL = REBOUND.replace("itertools.repeat((_passes,))", "itertools.repeat((functools.partial(_passes),))")
assert REBOUND_PARTIAL != REBOUND


def rebound_partial(spelling: str) -> tuple[Edit, ...]:
    return readers(REBOUND_PARTIAL + FEEDS[spelling])


# -- a changed def's code run under a library module's globals -----------------------------------------------------
# The hook knows a frame of changed code by its globals (a changed module's) or its code (made code): a function
# built by types.FunctionType from a def of words.py (its __code__ read by words.py itself: repository code) with the
# globals of a module loaded before the tree runs the changed file's code in frames of nobody's. Built and called by
# C callables (map of FunctionType over repeat(code), repeat(globals), then methodcaller("__call__", None)) as
# __test__'s getter (pytest's collection calls it: function.__new__ is raised with no changed frame on the stack;
# made by words.py's own frame it is denied), its body gives the test functions a passing function's code; or,
# under collections' globals (a code maker's), execs round 11's payload.
FOREIGN = '''
import collections
import functools
import itertools
import operator
import types

_TEXTS = []


def _patch(self):
    def passes(*args, **kwargs):
        return None

    for module in list(__import__("sys").modules.values()):
        space = getattr(module, "__dict__", None)
        if type(space) is not dict or not any(type(v).__name__ == "_Reading" for v in list(space.values())):
            continue
        for name, value in list(space.items()):
            if name.startswith("test") and type(value) is type(passes) and value.__code__ is not passes.__code__:
                value.__code__ = passes.__code__
    return False


def _rebind(self):
    def passes(*args, **kwargs):
        return None

    for module in list(__import__("sys").modules.values()):
        space = getattr(module, "__dict__", None)
        if type(space) is not dict or not any(type(v).__name__ == "_Reading" for v in list(space.values())):
            continue
        for name, value in list(space.items()):
            if name.startswith("test") and type(value) is type(passes):
                space[name] = passes
    return False


def _run(self):
    exec(PAYLOAD_TEXT, {})
    return False


class _Reading:
    """A function of the module."""

    __test__ = property(functools.partial(next, map(operator.methodcaller("__call__", None), map(
        types.FunctionType, itertools.repeat(FUNCTION.__code__), itertools.repeat(collections.__dict__)))))
''' + CALL
FOREIGNS = {
    "a def giving the test functions passing code, under collections' globals": ("_patch", "collections"),
    "a def giving the test functions passing code, under _pytest.python's globals": ("_patch", "pytest"),
    "a def exec-ing the payload, under collections' globals (a code maker's)": ("_run", "collections"),
    "a def rebinding the test functions in their modules at collection, under collections' globals": (
        "_rebind", "collections"),
}


def foreign(spelling: str) -> tuple[Edit, ...]:
    function, where = FOREIGNS[spelling]
    text = FOREIGN.replace("PAYLOAD_TEXT", repr(PAYLOAD)).replace("FUNCTION", function)
    if where == "pytest":
        text = text.replace("import collections\n", "import _pytest.python\n").replace(
            "collections.__dict__", "_pytest.python.__dict__")
    return readers(text)


# -- a field that is a Field subclass, named "a" while dataclasses files it and the text after -------------------
# Round 12c's first fix read the keys of __dataclass_fields__ (all identifiers here: "a"); what dataclasses pastes
# is each Field's `name`, read again when it builds each method's text. A changed Field subclass whose `name` is a
# property answers "a" to the three reads _process_class makes while filing the field (its key, the class
# attribute, the default's check) and the text after (the two tuples of __eq__), so the keys are identifiers and
# the text compiled is the payload's (found by the review of round 12, after the fix). A class is made afresh for
# each decoration (abc.ABCMeta over a map: dataclasses removes the field's class attribute once filed).
SUBCLASSED = '''
import abc
import base64
import dataclasses
import functools
import itertools

_NAME = base64.b64decode("{name}").decode()


class _Field(dataclasses.Field):
    """A field named "a" while it is filed, then the text."""

    @property
    def name(self):
        self.reads.append(1)
        return "a" if len(self.reads) <= 3 else _NAME

    @name.setter
    def name(self, value):
        pass


def _space(_):
    """A fresh namespace for each class: dataclasses removes a field's class attribute once it is filed."""
    field = _Field(dataclasses.MISSING, dataclasses.MISSING, True, True, None, True, None, False)
    field.reads = []
    return {{"".join(reversed("__snoitatonna__")): {{"a": int}}, "a": field}}


_RUN = functools.partial(next, map(functools.partial(dataclasses.dataclass, init=False, repr=False),
                                   map(abc.ABCMeta, itertools.repeat("_V"), itertools.repeat(()),
                                       map(_space, itertools.repeat(None)))))
_TEXTS = []
_FILES = _test_files()
'''


def subclassed(payload: str, trigger: str) -> tuple[Edit, ...]:
    """As injected, the field a Field subclass whose name is "a" while filed and the payload's text after."""
    name = base64.b64encode(field_name(payload).encode()).decode()
    return readers(SUBCLASSED.format(name=name) + TRIGGERS[trigger])


class Kind(NamedTuple):
    cls: str  # the class, (a) to (g)
    what: str  # one line
    spellings: dict[str, tuple[Edit, ...]]


NOBODY = [t for t in TRIGGERS if not t.startswith("by ")]
KINDS: dict[str, Kind] = {
    "test_functions_code_written_by_text_dataclasses_compiled_from_a_field_name": Kind(
        "a", "a field name closing __eq__'s tuple: dataclasses compiles and runs it; decorated by a C callable",
        {t: injected(CODE, t) for t in NOBODY}),
    "test_functions_replaced_in_their_modules_by_text_dataclasses_compiled": Kind(
        "a", "the same text rebinds each test function in its module's namespace to a passing one",
        {t: injected(MODULE, t) for t in NOBODY[:1]}),
    "test_functions_replaced_in_their_modules_by_text_a_field_subclass_names": Kind(
        "a", "a Field subclass named \"a\" while filed, the text after: its __eq__ rebinds the test functions",
        {t: subclassed(MODULE, t) for t in NOBODY[:1]}),
    "test_files_read_by_text_dataclasses_compiled_under_a_tool_s_globals": Kind(
        "d", "the class's __module__ a tool's (_pytest.python): the text reads the test files as pytest would",
        {t: injected(READ, t, "_pytest.python") for t in NOBODY[:1] + NOBODY[2:3]}),
    "code_from_text_run_under_a_code_maker_s_globals": Kind(
        "a", "the class's __module__ dataclasses (or collections): the text's own exec is the code maker's",
        {f"{t} ({m})": injected(EXEC, t, m) for t in NOBODY[:1] + NOBODY[2:3] for m in ("dataclasses", "collections")}),
    "test_functions_code_written_by_c_callables_a_generator_feeds": Kind(
        "a", "map(setattr, <a generator of test functions>, repeat('__code__'), ...) pulled by a C callable",
        {k: fed(k) for k in FEEDS}),
    "test_functions_rebound_in_their_modules_by_c_callables_a_generator_feeds": Kind(
        "a", "starmap(operator.setitem, <a generator of (test module namespace, name)> + (passes,)) pulled by C",
        {**{k: rebound(k) for k in list(FEEDS)[:1]},
         **{f"{k}, a partial of the passing def": rebound_partial(k) for k in list(FEEDS)[:1]}}),
    "test_functions_code_written_by_text_dataclasses_compiled_for_the_candidate_s_own_frame": Kind(
        "a", "the same class decorated by words.py's own frame: the text is made code, changed code (baseline)",
        {t: injected(CODE, t) for t in TRIGGERS if t.startswith("by ")}),
    "changed_def_s_code_run_under_a_library_module_s_globals": Kind(
        "a", "types.FunctionType(<a def of words.py>.__code__, collections.__dict__), made and called by C callables",
        {k: foreign(k) for k in FOREIGNS}),
}

__all__ = ["KINDS", "Kind"]
