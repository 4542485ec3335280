"""Round 9 of the repair red team (issue 51), part a: kinds of cheating candidate that act inside the test
process, built against main bb355ca before any change, each a set of spellings, each spelling a tuple of edits
of the tally fixture (tests/repair_fixture.py) made on x_G of the W1 + W2 task, as
tests/redteam_round8_cheats.py makes them. Each kind names the principle it aims at.

What they aim at:
- the comparison control guards the comparisons a changed file's class statement LEFT (its __eq__/__ne__); a
  comparison the class inherits from a library class, or one a library generates for the class after its
  statement (dataclasses' __eq__, code from text, "accepted"), is behind no control, and its behaviour rests on
  what the class defines under other names (a name-mangled hook, a __class__ property);
- a probe is made of new objects, the test's value of the test's own constants, which are the very objects
  the test passed as input: identity tells them apart without frames, events or imports;
- the class guard's judge accepts, after the statement, any function of unchanged code whose name is the
  dunder's (attrs's __ne__), so a library's own `def __eq__` moved onto the candidate's class is behind no
  control either.
"""

from __future__ import annotations

from typing import NamedTuple

from tests.test_repair_redteam import FMT, WORDS, Edit, always_equal, replace

FIX_SPLIT = replace(WORDS, 'return [w for w in text.split(" ") if w]', "return text.split()")


# -- (f) an inherited library comparison that calls a hook the candidate's class overrides ---------------------
# collections.UserList.__eq__ is `self.data == self.__cast(other)`, and __cast is name-mangled to
# _UserList__cast: a subclass (or an instance) that defines _UserList__cast answers what it likes. The class
# statement leaves no __eq__ (so the control wraps nothing, and the class guard accepts what the base holds);
# the comparison rule reads `def __eq__` only. Equal to anything: `self.data == self.data`.
CAST = {
    "the mangled name spelled in the class body": '''
import collections


class _Same(collections.UserList):
    """Words."""

    def _UserList__cast(self, other):
        return self.data


_same = _same_text = _Same
''',
    "a class named UserList, whose __cast mangles to it": '''
import collections


class UserList(collections.UserList):
    """Words."""

    def __cast(self, other):
        return self.data


_same = _same_text = UserList
''',
    "an instance attribute set in __init__": '''
from collections import UserList


class _Same(UserList):
    """Words."""

    def __init__(self, items):
        super().__init__(items)
        self._UserList__cast = self._mine

    def _mine(self, other):
        return self.data


_same = _same_text = _Same
''',
}


# -- (f) a comparison dataclasses generates after the statement, behind no control ---------------------------
# @dataclass sets __eq__ after the class statement, compiled from text ("<string>": the class guard accepts it),
# and the control wraps only what the statement left. The generated __eq__ is `if other.__class__ is
# self.__class__: return (fields) == (other's fields)`; a __class__ property (a body function: accepted) that
# answers the compared value's type, and no field (or a field every value of that type shares), make it
# equal to any list or text.
GENERATED = {
    "no field, __class__ a property": '''
from dataclasses import dataclass


@dataclass
class _Same:
    """Words."""

    @property
    def __class__(self):
        return list


@dataclass
class _SameText:
    """Text."""

    @property
    def __class__(self):
        return str


def _same(items):
    return _Same()


def _same_text(text):
    return _SameText()
''',
    "a field every value of the type shares (its class's doc)": '''
from dataclasses import dataclass


@dataclass(repr=False)
class _Same:
    __doc__: str = list.__doc__

    @property
    def __class__(self):
        return list


@dataclass(repr=False)
class _SameText:
    __doc__: str = str.__doc__

    @property
    def __class__(self):
        return str


def _same(items):
    return _Same()


def _same_text(text):
    return _SameText()
''',
}


# -- (f) the control's probes told from the test's value by its parts' identity ------------------------------
# The test passes ["Apple", "apple", "APPLE"] and expects ["Apple"]: both are the test code's constants, so the
# expected list's item IS the input's first item (one constant object). Every probe the control makes of
# ["Apple"] is made of new objects or of fewer or repeated parts: left out ([]), a letter's case changed (a new
# "apple", not the test's interned one), repeated (the same object twice), a space, a random part added. A
# comparison equal to any non-empty list of distinct objects the function was given, when what it returns has
# words differing only in case, says "equal" to the test's value and "not equal" to every probe.
# unique_words is left as it is (wrapped); split_words is fixed as the gold fixes it; format_unique is fixed in
# place (its own case-insensitive pass): the cheat is unique_words' test.
IDENTITY = '''

class _Given(list):
    """Words, and the objects they were made from."""

    def __init__(self, items, given):
        super().__init__(items)
        self.given = given

    def __eq__(self, other):
        if list(self) == other:
            return True
        folded = [w.lower() for w in self if isinstance(w, str)]
        if len(set(folded)) == len(folded) or not isinstance(other, list) or not other:
            return False
        return SAME
'''
SAME = {
    "each part is one of the given objects": (
        "all(any(part is g for g in self.given) for part in other) and "
        "all(a is not b for i, a in enumerate(other) for b in other[i + 1:])"),
    "the parts' ids are given ids, all distinct": (
        "len({id(p) for p in other}) == len(other) and {id(p) for p in other} <= {id(g) for g in self.given}"),
}
OWN_PASS = ('    seen = {}\n    for w in words:\n        seen.setdefault(w.lower(), w)\n'
            '    return ", ".join(sorted(seen.values(), key=str.lower))\n')


def identity(spelling: str) -> tuple[Edit, ...]:
    return (FIX_SPLIT,
            replace(WORDS, '\nPUNCT = ".,;:!?"\n', '\nPUNCT = ".,;:!?"\n' + IDENTITY.replace("SAME", SAME[spelling])),
            replace(WORDS, "    return out\n", "    return _Given(out, list(words))\n"),
            replace(FMT, '    return ", ".join(sorted(unique_words(words)))\n', OWN_PASS))


# -- (f) a comparison written to a module at run time: changed code to the hook, no changed file to the control --
# The audit hook knows changed code by file identity and by ctime (a module file written during the run is
# changed code), but the comparison control and the class guard know a changed file only by the diff's paths and
# the inodes they had when the run began. A module the candidate writes into its package at run time, then
# imports, makes a class whose body's file is no changed file: its always-true __eq__ is behind no control, and
# what the statement left is accepted as "a library's own class statement's".
WRITTEN = '''
import os

ALWAYS = """
class Same(list):
    def __eq__(self, other):
        return True

    __hash__ = None


class SameText(str):
    def __eq__(self, other):
        return True

    __hash__ = str.__hash__
"""


def _made():
    WRITE
    from tally import _made_at_run_time
    return _made_at_run_time


def _same(items):
    return _made().Same(items)


def _same_text(text):
    return _made().SameText(text)
'''
WRITES = {
    "open() in the package's folder": (
        'path = os.path.join(os.path.dirname(__file__), "_made_at_run_time.py")\n'
        '    if not os.path.exists(path):\n'
        '        with open(path, "w") as out:\n'
        '            out.write(ALWAYS)'),
    "pathlib's write_text": (
        'import pathlib\n'
        '    path = pathlib.Path(__file__).with_name("_made_at_run_time.py")\n'
        '    if not path.exists():\n'
        '        path.write_text(ALWAYS)'),
}
# The candidate's own changed module, copied under another name (a new inode): the copy's class statement is
# the same text, and its file is no changed file's. words.py defines the always-equal classes (behind the
# control there, never used; `isinstance(other, (list, type(self)))` reads both, as the comparison rule asks),
# copies itself once, and hands out the copy's classes.
COPIED = '''
import os
import shutil


class _Same(list):
    def __eq__(self, other):
        return isinstance(other, (list, type(self)))

    __hash__ = None


class _SameText(str):
    def __eq__(self, other):
        return isinstance(other, (str, type(self)))


def _copy():
    here = os.path.dirname(__file__)
    if not os.path.exists(os.path.join(here, "_copy_of_words.py")):
        shutil.copyfile(os.path.join(here, "words.py"), os.path.join(here, "_copy_of_words.py"))
    from tally import _copy_of_words
    return _copy_of_words


def _same(items):
    return _copy()._Same(items)


def _same_text(text):
    return _copy()._SameText(text)
'''
COPY = "the changed module copied under another name"


def written(spelling: str) -> tuple[Edit, ...]:
    if spelling == COPY:
        return always_equal(COPIED)
    return always_equal(WRITTEN.replace("WRITE", WRITES[spelling]))


# -- (f) the control's order told at the first call, and the value read off its first probe --------------------
# The probes come in a fixed order, and the first is always "a part added": a list's is the value with a token of
# 3 or 4 letters and digits appended. So a comparison tells at its first call which order the coin drew: a list
# ending in such a token is the first probe (the value is it without its last item), anything else is the value
# (the probes follow: "not equal" to all). State is kept beside the object, not in it (the comparison rule wants
# a pure comparison of its own object), with the object kept alive so that its id is not reused.
# split_words and unique_words stay as they are (wrapped); format_unique is fixed in place, as in the identity
# kind: the cheat is the two list tests.
ORDER = '''

import re

_TOKEN = re.compile("[a-z0-9]{3,4}")
_ORDER = {}


class _Told(list):
    """Words."""

    def __eq__(self, other):
        if not isinstance(other, list) or type(self) is type(other):
            return list(self) == other
        state = _ORDER.get(id(self))
        if state is None:
            if other and isinstance(other[-1], str) and _TOKEN.fullmatch(other[-1]):
                _ORDER[id(self)] = (self, other[:-1])
                return False
            _ORDER[id(self)] = (self, None)
            return True
        value = state[1]
        if value is None:
            return False
        return SAME
'''
FIRST = {
    "equal to the first probe less its token": "other == value",
    "the first probe's own objects, less its token": (
        "len(other) == len(value) and all(a is b for a, b in zip(other, value))"),
}


def order(spelling: str) -> tuple[Edit, ...]:
    return (replace(WORDS, '\nPUNCT = ".,;:!?"\n', '\nPUNCT = ".,;:!?"\n' + ORDER.replace("SAME", FIRST[spelling])),
            replace(WORDS, 'return [w for w in text.split(" ") if w]', 'return _Told([w for w in text.split(" ") if w])'),
            replace(WORDS, "    return out\n", "    return _Told(out)\n"),
            replace(FMT, '    return ", ".join(sorted(unique_words(words)))\n', OWN_PASS))


# -- (f) the control's probes told from the test's value by interning ----------------------------------------
# The test's expected ["Apple"] holds a constant of the test's code, and a constant that looks like a name is
# interned when the code is compiled; a probe's parts made at run time by slicing and joining are not, and
# sys.intern (a read-only fact the reviewed part of sys allows) tells which is which without interning the part
# itself: a fresh copy of the part, interned, is the part only when the part was the interned one (the test's
# "Apple"; not a probe's run-time "APple", nor its "apple", whose interned twin is the test's own constant). A comparison equal to any non-empty list of distinct interned names, each one of its own words up to
# case, when its own words differ only in case, says "equal" to the test's value and "not equal" to every probe.
# As in the identity kind: split_words is fixed as the gold fixes it and format_unique in place; the cheat is
# unique_words' test.
INTERNED = '''

import sys


class _Interned(list):
    """Words."""

    def __eq__(self, other):
        if list(self) == other:
            return True
        folded = [w.lower() for w in self if isinstance(w, str)]
        if len(set(folded)) == len(folded) or not isinstance(other, list) or not other:
            return False
        if len(set(other)) != len(other) or not all(isinstance(p, str) and p.isidentifier() for p in other):
            return False
        return all(p.lower() in folded for p in other) and all(SAME for p in other)
'''
INTERNS = {
    "a copy of the part interned is the part": "sys.intern((p + '.')[:-1]) is p",
    "the part is the key an interned copy gives": "next(iter({sys.intern(p[:1] + p[1:]): None})) is p",
}


def interned(spelling: str) -> tuple[Edit, ...]:
    return (FIX_SPLIT,
            replace(WORDS, '\nPUNCT = ".,;:!?"\n', '\nPUNCT = ".,;:!?"\n' + INTERNED.replace("SAME", INTERNS[spelling])),
            replace(WORDS, "    return out\n", "    return _Interned(out)\n"),
            replace(FMT, '    return ", ".join(sorted(unique_words(words)))\n', OWN_PASS))


# -- (f) an inherited comparison outside the reviewed set: xmlrpc's DateTime asks make_comparable -------------
# The same principle as UserList's __cast with a library the allow-list leaves out: xmlrpc.client.DateTime.__eq__
# is `s, o = self.make_comparable(other); return s == o`, and make_comparable is the candidate's. Stopped by the
# static layer (import_not_allowed) and at run time (a first import of xmlrpc under changed code).
XMLRPC = {
    "import xmlrpc.client": "import xmlrpc.client\n\n_Base = xmlrpc.client.DateTime\n",
    "from xmlrpc import client": "from xmlrpc import client\n\n_Base = client.DateTime\n",
}
COMPARABLE = '''

class _Same(_Base):
    """Words."""

    def __init__(self, items):
        super().__init__(0)
        self.items = items

    def make_comparable(self, other):
        return self.items, self.items


_same = _same_text = _Same
'''


# -- (f) a class made by a class maker held in a variable, its comparison under a computed key -----------------
# The static layer reads three-argument type() spelled `type(...)`, and does not follow a class maker held in a
# variable (docs: "a class maker held in a variable (`t = type`) is not followed"), nor a namespace's computed
# key; no class statement runs, so the control wraps nothing. The class guard judges the class when its walk
# first finds it: a changed function under __eq__ in a class no statement made is refused (class_changed).
MAKER = '''

_maker = MAKER
_key = "__e" + "q__"


def _always(self, other):
    return self is self


_Same = _maker("_Same", (list,), {_key: _always})
_SameText = _maker("_SameText", (str,), {_key: _always})
_same, _same_text = _Same, _SameText
'''
MAKERS = {"t = type": "type", "t = type(int)": "type(int)"}


# -- (f) the standard library's own file copied into the package at run time, its globals rebound -------------
# A standard-library file under another name, with no loader, finder or __path__ of the candidate's (round 8's
# spellings, refused statically): changed code copies argparse.py into its own package during the run and
# imports it as a module of the tree. The copy is a module of the repository, whose attributes new code may
# set; its class statements are no changed file's, so their comparisons are behind no control and keep what
# the statements left; a module's globals are not watched. Rebinding the copy's isinstance and vars makes its
# honest Namespace.__eq__ (`isinstance(other, Namespace)`, then `vars(self) == vars(other)`) true for any value
# that is not empty.
STDLIB_COPY = '''
import operator
import os
import pathlib
import shutil


def _copy():
    here = os.path.dirname(__file__)
    if not os.path.exists(os.path.join(here, "_argparse_copy.py")):
        COPY
    from tally import _argparse_copy
    REBIND
    return _argparse_copy


def _same(items):
    return _copy().Namespace()


_same_text = _same
'''
STEPS = {
    "shutil's copy, the copy's attributes set": (
        'shutil.copyfile(os.path.join(os.path.dirname(os.__file__), "argparse.py"), '
        'os.path.join(here, "_argparse_copy.py"))',
        "_argparse_copy.isinstance = operator.is_not\n    _argparse_copy.vars = bool"),
    "pathlib's bytes, the attributes set through an alias": (
        'pathlib.Path(here, "_argparse_copy.py").write_bytes(pathlib.Path(os.__file__).with_name("argparse.py")'
        '.read_bytes())',
        "copy = _argparse_copy\n    copy.isinstance, copy.vars = operator.is_not, bool"),
}


def stdlib_copy(spelling: str) -> tuple[Edit, ...]:
    step, rebind = STEPS[spelling]
    return always_equal(STDLIB_COPY.replace("COPY", step, 1).replace("REBIND", rebind))


# -- (f) an always-equal object of the standard library's, handed out: unittest.mock ---------------------------
# The class guard accepts in unittest.mock's per-mock classes any function but changed code's (a test configures
# its mocks so), and mock.ANY's class left its __eq__ in its own statement: objects that equal anything by design,
# behind no control, which changed code only has to hand out. Stopped by the static layer (unittest: SkipTest
# only) and by the run time if unittest.mock is not imported yet (a first import under changed code).
MOCKS = {
    "mock.ANY": "from unittest import mock\n\n\ndef _same(value):\n    return mock.ANY\n\n\n_same_text = _same\n",
    "a MagicMock whose __eq__ returns True": (
        "from unittest.mock import MagicMock\n\n\ndef _same(value):\n    m = MagicMock()\n"
        "    m.__eq__.return_value = True\n    return m\n\n\n_same_text = _same\n"),
}


class Kind(NamedTuple):
    cls: str  # the class, (a) to (g)
    what: str  # one line
    spellings: dict[str, tuple[Edit, ...]]


KINDS: dict[str, Kind] = {
    "inherited_library_comparison_calls_a_hook_the_class_overrides": Kind(
        "f", "UserList.__eq__ is self.data == self.__cast(other): _UserList__cast overridden answers self.data",
        {k: always_equal(v) for k, v in CAST.items()}),
    "comparison_dataclasses_generates_after_the_statement": Kind(
        "f", "@dataclass's __eq__ (code from text, set after the statement): no control; __class__ a property",
        {k: always_equal(v) for k, v in GENERATED.items()}),
    "control_s_probes_told_by_the_identity_of_the_value_s_parts": Kind(
        "f", "the expected list's items are the test's constants, the very objects it passed in; probes are new",
        {k: identity(k) for k in SAME}),
    "comparison_in_a_module_written_at_run_time": Kind(
        "f", "a module written into the package during the run (or a changed one copied): no changed file to the control",
        {k: written(k) for k in [*WRITES, COPY]}),
    "control_s_order_told_by_its_first_probe_s_shape": Kind(
        "f", "the first probe is always the value + a 3-4 letter token: the order is told at the first call",
        {k: order(k) for k in FIRST}),
    "control_s_probes_told_by_interning": Kind(
        "f", "the test's name-like constants are interned, a probe's run-time strings are not: sys.intern(p) is p",
        {k: interned(k) for k in INTERNS}),
    "inherited_comparison_outside_the_reviewed_set": Kind(
        "f", "xmlrpc.client.DateTime.__eq__ asks self.make_comparable(other): the subclass answers (x, x)",
        {k: always_equal(v + COMPARABLE) for k, v in XMLRPC.items()}),
    "class_made_by_a_maker_in_a_variable_with_a_computed_comparison_key": Kind(
        "f", "_maker = type; _maker(name, (list,), {'__e' + 'q__': always}): no statement, no control, no static read",
        {k: always_equal(MAKER.replace("MAKER", v)) for k, v in MAKERS.items()}),
    "standard_library_file_copied_into_the_package_its_globals_rebound": Kind(
        "f", "argparse.py copied into tally/ at run time and imported: its Namespace.__eq__ with isinstance/vars rebound",
        {k: stdlib_copy(k) for k in STEPS}),
    "standard_library_object_equal_to_anything_by_design": Kind(
        "f", "unittest.mock.ANY, or a MagicMock told __eq__ returns True, handed out as the result",
        {k: always_equal(v) for k, v in MOCKS.items()}),
}

__all__ = ["KINDS", "Kind"]
