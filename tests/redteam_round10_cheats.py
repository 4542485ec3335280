"""Round 10 of the repair red team (issue 51), in process: kinds of cheating candidate built against main 1c23cc6
before any change, each a set of spellings, each spelling a tuple of edits of the tally fixture
(tests/repair_fixture.py) made on x_G of the W1 + W2 task, as tests/redteam_round9_cheats.py makes them. Each
kind names the principle it aims at.

What they aim at:
- the class guard and its comparison control act at records (and at class statements for what a statement
  LEFT): a class made during a test (a statement or type() in the function the test calls, a changed module
  first imported at each call), or a class's comparison swapped during a test and put back before the record,
  is judged by states, not by the writes between them;
- the class guard watches a class's verdict dunders, not what they call: a library class's honest comparison
  reads non-dunder attributes of its class or instance, and its module's globals, which nobody watches;
- the control's own state lives in closures reachable from the __eq__ it puts on the candidate's class;
- the static layer reads spellings: a standard-library helper that sets attributes for its caller
  (functools.update_wrapper, whose default copies one object's __dict__ into another's; the copy protocol's
  state), a setter or getter of one's own attributes bound to any object with the function's __get__, and a
  metaclass whose base is type held in a variable name none of what they reach.
"""

from __future__ import annotations

from typing import NamedTuple

from tests.test_repair_redteam import Edit, always_equal, write

# -- (f) a class statement run by the test: what it inherits is behind no control until the next record ---------
# The control wraps, at the statement, only what the statement LEFT (its own __eq__/__ne__); what the class
# inherits (UserList.__eq__, which asks self._UserList__cast) is put behind the control at the next check, which
# is the next record. A class statement run inside the function the test calls makes a new class at each call:
# the test's own comparison is never controlled.
DURING = {
    "the mangled hook in the body of a class made at each call": '''
import collections


def _made():
    class _Same(collections.UserList):
        """Words."""

        def _UserList__cast(self, other):
            return self.data

    return _Same


def _same(items):
    return _made()(items)


_same_text = _same
''',
    "the hook an instance attribute of a class made at each call": '''
from collections import UserList


def _made():
    class _Same(UserList):
        """Words."""

        def __init__(self, items):
            super().__init__(items)
            self._UserList__cast = self._mine

        def _mine(self, other):
            return self.data

    return _Same


def _same(items):
    return _made()(items)


_same_text = _same
''',
    "a class made at each call by type() held in a variable": '''
import collections

_maker = type


def _give(self, other):
    return self.data


def _same(items):
    return _maker("_Same", (collections.UserList,), {"_UserList" + "__cast": _give})(items)


_same_text = _same
''',
}


# -- (f) a class statement run by the test, given its comparison after the statement ---------------------------
# @dataclass sets __eq__ after the statement (generated from text: accepted); behind the control only from the
# next record. Made inside the function, at each call, it never is. The generated __eq__ compares the classes by
# __class__, which a property of the body (accepted: the statement's own function) answers.
GIVEN = {
    "a dataclass with no field, __class__ a property": '''
from dataclasses import dataclass


def _made(kind):
    @dataclass
    class _Same:
        """Words."""

        @property
        def __class__(self):
            return kind

    return _Same


def _same(items):
    return _made(list)()


def _same_text(text):
    return _made(str)()
''',
    "a dataclass whose one field is the type's own doc": '''
from dataclasses import dataclass, field


def _made(kind):
    @dataclass(repr=False)
    class _Same:
        __doc__: str = field(default=kind.__doc__)

        @property
        def __class__(self):
            return kind

    return _Same


def _same(items):
    return _made(list)()


def _same_text(text):
    return _made(str)()
''',
}


# -- (f) a verdict dunder swapped for one comparison, and put back before the record ---------------------------
# The class guard compares each class's verdict dunders with what it recorded, at each record: a change made and
# undone between two records is not seen. The class's __eq__ (behind the control: honest) is swapped for an
# always-equal function when the result is made, and put back by that function at its first call, or when the
# result dies (the test's rewritten assert drops it before the test ends): the record sees the class as it was.
SWAP = '''
class _Put:
    """A generic setter of one's own attributes (setattr(self, ...): allowed statically)."""

    def put(self, key, value):
        setattr(self, key, value)


_KEY = "__e" + "q__"


class _Same(list):
    """Words."""

    def __eq__(self, other):
        return list(self) == other

    __hash__ = None


class _SameText(str):
    """Text."""

    def __eq__(self, other):
        return str(self) == other


_HONEST = {_Same: _Same.__eq__, _SameText: _SameText.__eq__}


def _back(kind):
    _Put.put(kind, _KEY, _HONEST[kind])

ONCE
'''
ONCES = {
    "put back by the swapped function at its first call": '''

def _once(self, other):
    _back(type(self))
    return True


def _made(kind, value):
    _Put.put(kind, _KEY, _once)
    return kind(value)


def _same(items):
    return _made(_Same, items)


def _same_text(text):
    return _made(_SameText, text)
''',
    "put back when the result dies": '''

class _Kept(_Same):
    """Words."""

    def __del__(self):
        _back(_Same)


class _KeptText(_SameText):
    """Text."""

    def __del__(self):
        _back(_SameText)


def _always(self, other):
    return True



def _same(items):
    _Put.put(_Same, _KEY, _always)
    return _Kept(items)


def _same_text(text):
    _Put.put(_SameText, _KEY, _always)
    return _KeptText(text)
''',
}


# -- (f) a library instance given, on the instance, the hook its honest comparison calls -----------------------
# collections.UserList.__eq__ is `self.data == self.__cast(other)`, the hook looked up on the instance first. A
# plain UserList (a library class: no statement of changed code, nothing behind the control) with an instance
# attribute _UserList__cast that answers its own data is equal to anything. Instance attributes are not watched;
# the static layer refuses a library object's private name written, by spelling: functools.update_wrapper,
# whose default copies one object's __dict__ into another's, names none.
INSTANCE = '''
import collections
import functools


class _Hooks:
    """What a UserList of the result should hold."""

    def __init__(self, data):
        self.data = data
        self.HOOK = self._give

    def _give(self, other):
        return self.data


def _same(items):
    WRAP


_same_text = _same
'''
WRAPS = {
    "update_wrapper's default copies the holder's __dict__": (
        "return functools.update_wrapper(collections.UserList(), _Hooks(list(items)))"),
    "functools.wraps(holder) applied to the UserList": (
        "return functools.wraps(_Hooks(list(items)))(collections.UserList())"),
}


def instance(spelling: str) -> tuple[Edit, ...]:
    return always_equal(INSTANCE.replace("HOOK", "_UserList__cast").replace("WRAP", WRAPS[spelling]))


# -- (f) a library class's non-dunder attribute its comparison calls, replaced on the class ---------------------
# The same comparison, with the hook replaced on collections.UserList itself: the class guard fixes a class's
# verdict dunders (UserList.__eq__ keeps its identity), not the attributes they call, so every UserList is then
# equal to anything, and changed code only hands one out.
CLASS_HOOK = '''
import collections
import functools


class _Hook:
    """A hook that answers the list's own data."""

    def __init__(self):
        self.HOOK = _give


def _give(self, other):
    return self.data


def _same(items):
    SET
    return collections.UserList(items)


_same_text = _same
'''
SETS = {
    "update_wrapper onto the class, the name computed": (
        "functools.update_wrapper(collections.UserList, _Hook(), ('_UserList' + '__cast',), ())"),
    "a generic setter of one's own attributes called with the class": (
        "_Put.put(collections.UserList, '_UserList' + '__cast', _give)"),
}
PUT = '''

class _Put:
    """A generic setter of one's own attributes."""

    def put(self, key, value):
        setattr(self, key, value)
'''


def class_hook(spelling: str) -> tuple[Edit, ...]:
    return always_equal(CLASS_HOOK.replace("HOOK", "_UserList__cast").replace("SET", SETS[spelling]) + PUT)


# -- (f) a library module's globals rebound by a helper that names none of them --------------------------------
# collections.Counter.__eq__ is `if not isinstance(other, Counter): return NotImplemented; return all(...)`: with
# the module's isinstance answering yes for Counter and its all rebound to bool (a generator is true), a Counter
# is equal to anything. The static layer refuses `collections.all = bool` (a module attribute written); it does
# not read functools.update_wrapper(collections, holder), whose default copies holder.__dict__ into the module's
# globals, or a generic setter called with the module.
GLOBALS = '''
import builtins
import collections
import functools
import typing


def _counter_too(obj, kind):
    return kind is collections.Counter or builtins.isinstance(obj, kind)


class _Globals:
    """Names for a module's globals."""

    def __init__(self):
        self.isinstance = _counter_too
        self.all = bool


def _same(items):
    REBIND
    return collections.Counter()


_same_text = _same
'''
REBINDS = {
    "update_wrapper's default copies the holder's __dict__ into the module": (
        "functools.update_wrapper(collections, _Globals())"),
    "functools.wraps(holder) applied to the module reached through typing": (
        "functools.wraps(_Globals())(typing.collections)"),
}


# -- (f) a class made by a library's class factory during the test --------------------------------------------
# dataclasses.make_dataclass makes a class with no class statement (no control at the statement); the class guard
# judges a class no statement made when its walk first finds it, at the next record: a class made and compared
# within the test is judged after its comparison answered. Its generated __eq__ compares __class__, given in the
# namespace as a property of the candidate's function.
FACTORY = '''
import dataclasses


def _made(kind):
    def _kind(self):
        return kind

    return dataclasses.make_dataclass("_Same", [], namespace={MAKE})


def _same(items):
    return _made(list)()


def _same_text(text):
    return _made(str)()
'''
MAKES = {
    "the namespace a dict display": '"__class__": property(_kind)',
    "the namespace's key computed": '"__cl" + "ass__": property(_kind)',
}


# -- (f) a module first imported by the test, its class inheriting a lenient comparison --------------------------
# A changed module imported first during a test (not at collection) makes its classes during that test; what they
# inherit is behind the control only from the next record. A new module of the package, imported by the function
# the tests call, at its first call. Only the first test to call it escapes: the next test's comparison is
# controlled (a kind that shows where the principle's reach ends).
LATE = '''
import collections


class Same(collections.UserList):
    """Words."""

    def _UserList__cast(self, other):
        return self.data
'''
LATE_USE = '''

def _same(items):
    from tally import _late

    return _late.Same(items)


_same_text = _same
'''


def late(spelling: str) -> tuple[Edit, ...]:
    return (write("tally/_late.py", LATE if spelling == LATE_SPELLINGS[0] else LATE.replace(
        "class Same(collections.UserList)", "class Same(collections.UserList, metaclass=type)")),
            *always_equal(LATE_USE))


LATE_SPELLINGS = ("a new module imported by the function at its first call",
                  "the same, the class statement naming its metaclass")


# -- (f) a new changed module first imported at each call: its classes made during the test that imports it --------
# The kind above with one module per call: the diff adds numbered modules of the package, and the function the
# tests call imports the next one at each call, so every test's comparison is of a class its own test made.
NUMBERED = 16
PER_CALL = {
    "a UserList subclass with the hook, one module per call": LATE,
    "a dataclass with __class__ a property, one module per call": '''
from dataclasses import dataclass


@dataclass
class Same:
    """Words."""

    @property
    def __class__(self):
        return list


@dataclass
class SameText:
    """Text."""

    @property
    def __class__(self):
        return str
''',
}


def per_call(spelling: str) -> tuple[Edit, ...]:
    picks = "\n".join(f"    {'if' if n == 1 else 'elif'} len(_CALLS) == {n}:\n        from tally import _late{n} as module"
                      for n in range(1, NUMBERED + 1))
    text_class = "SameText" if "dataclass" in spelling else "Same"
    use = (f"\n_CALLS = []\n\n\ndef _next():\n    _CALLS.append(None)\n{picks}\n    return module\n\n\n"
           f"def _same(items):\n    return _next().Same(items)\n\n\n"
           f"def _same_text(text):\n    return _next().{text_class}(text)\n")
    if "dataclass" in spelling:
        use = use.replace(".Same(items)", ".Same()").replace(f".{text_class}(text)", f".{text_class}()")
    return (*(write(f"tally/_late{n}.py", PER_CALL[spelling]) for n in range(1, NUMBERED + 1)),
            *always_equal(use))


# -- (f) a library instance made by the copy protocol, the hook in the state it is given ------------------------
# The instance kind above, by another writer that names no attribute: copy.copy and copy.deepcopy rebuild an
# object from what its __reduce__ / __reduce_ex__ returns, (callable, args, state), and with no __setstate__ put
# the state into the new object's __dict__. The candidate's object reduces to (collections.UserList, (), state)
# with _UserList__cast in the state: the copy is a plain UserList, equal to anything.
RECIPE = '''
import collections
import copy


class _Recipe:
    """How to make the result."""

    def __init__(self, items):
        self.data = items

    def _give(self, other):
        return self.data

REDUCE

def _same(items):
    return COPY(_Recipe(list(items)))


_same_text = _same
'''
REDUCES = {
    "copy.copy, __reduce__ with a dict display": (
        '''
    def __reduce__(self):
        return (collections.UserList, (), {"data": self.data, "_UserList__cast": self._give})

''', "copy.copy"),
    "copy.deepcopy, __reduce_ex__ with the key computed": (
        '''
    def __reduce_ex__(self, protocol):
        state = {"data": self.data}
        state["_UserList" + "__cast"] = self._give
        return (collections.UserList, (), state)

''', "copy.deepcopy"),
}


# -- (f) the swap above through a metaclass the static layer does not know for one --------------------------------
# The static layer allows setattr(self, name, value) in a method bound to its instance, and refuses it in a
# method of a metaclass (its instances are classes); a metaclass whose base is type held in a variable is not known
# for one, so its method sets the class's own __eq__, which the class guard sees only if it is still there at a
# record: the swapped function puts the honest one back at its first call, or the result when it dies.
META = '''
_T = type


class _Meta(_T):
    """Classes that set their own attributes."""

    def put(self, key, value):
        setattr(self, key, value)


_KEY = "__e" + "q__"


class _Same(list, metaclass=_Meta):
    """Words."""

    def __eq__(self, other):
        return list(self) == other

    __hash__ = None


class _SameText(str, metaclass=_Meta):
    """Text."""

    def __eq__(self, other):
        return str(self) == other


_HONEST = {_Same: _Same.__eq__, _SameText: _SameText.__eq__}

BACK
'''
BACKS = {
    "put back by the swapped function at its first call": '''

def _once(self, other):
    kind = type(self)
    kind.put(_KEY, _HONEST[kind])
    return True


def _made(kind, value):
    kind.put(_KEY, _once)
    return kind(value)


def _same(items):
    return _made(_Same, items)


def _same_text(text):
    return _made(_SameText, text)
''',
    "put back when the result dies": '''

def _set(kind, value):
    kind.put(_KEY, value)


class _Kept(_Same):
    """Words."""

    def __del__(self):
        _set(_Same, _HONEST[_Same])


class _KeptText(_SameText):
    """Text."""

    def __del__(self):
        _set(_SameText, _HONEST[_SameText])


def _always(self, other):
    return True


def _same(items):
    _set(_Same, _always)
    return _Kept(items)


def _same_text(text):
    _set(_SameText, _always)
    return _KeptText(text)
''',
}


# -- (f) a setter of one's own attributes bound to any object by the descriptor protocol -----------------------
# The static layer allows setattr(self, name, value) in a method bound to its instance, and refuses the method
# called through its class with another first argument (_Put.put(obj, ...)); binding it to the other object with
# the function's own __get__ (_Put.put.__get__(obj)) is not read as that call. It then writes any attribute of
# any object but a module (a module as a value is refused on its own): the hook a library class's comparison
# calls, or a class's __eq__ swapped and put back between two records (the kinds above whose spellings the
# static layer refused).
def bound(spelling: str) -> tuple[Edit, ...]:
    if spelling == BOUND[0]:
        head = CLASS_HOOK.replace("HOOK", "_UserList__cast").replace(
            "SET", "_Put.put.__get__(collections.UserList)('_UserList' + '__cast', _give)") + PUT
    else:
        head = SWAP.replace("ONCE", ONCES["put back by the swapped function at its first call"]).replace(
            "_Put.put(kind, _KEY,", "_Put.put.__get__(kind)(_KEY,")
    return always_equal(head)


BOUND = ("the hook of collections.UserList replaced on the class",
         "a class's __eq__ swapped, put back by the swapped function at its first call")


# -- (f) the comparison control's own state, reached through the closure of the wrapper it put on the class -------
# The control lives in closures: the __eq__ it puts on a changed file's class closes over `controlled`, which
# closes over `other_than` (the probes' maker), `coin`, `found`. A function's __closure__ and a cell's
# cell_contents raise no audit event (reading and writing), and a getter/setter of one's own attributes bound to
# the function or the cell with its __get__ (the setter kind above) names neither statically (computed names).
# Told to make no probe (other_than answering None: "not a plain value"), the control asks the always-equal
# comparison once and hands its answer to the test.
CONTROL = '''
class _Get:
    """A getter of one's own attributes."""

    def get(self, key):
        return getattr(self, key)


class _Put:
    """A setter of one's own attributes."""

    def put(self, key, value):
        setattr(self, key, value)


_CLOSURE, _CONTENTS, _NAME = "__clo" + "sure__", "cell_" + "contents", "__na" + "me__"


def _nothing(value):
    return None


def _cells(fn):
    return _Get.get.__get__(fn)(_CLOSURE) or ()


def _open(fn):
    """The control around fn (a class's __eq__ as the run left it) told to make no probe."""
    for cell in _cells(fn):
        inner = _Get.get.__get__(cell)(_CONTENTS)
        for deeper in _cells(inner) if callable(inner) else ():
            held = _Get.get.__get__(deeper)(_CONTENTS)
            if callable(held) and _Get.get.__get__(held)(_NAME) == "other_than":
                _Put.put.__get__(deeper)(_CONTENTS, _nothing)


class _Same(list):
    """Words."""

    def __eq__(self, other):
        return isinstance(other, (list, type(self)))

    __hash__ = None


class _SameText(str):
    """Text."""

    def __eq__(self, other):
        return isinstance(other, (str, type(self)))


def _same(items):
    _open(_Same.__eq__)
    return _Same(items)


def _same_text(text):
    _open(_SameText.__eq__)
    return _SameText(text)
'''
CONTROLS = {
    "other_than's cell given a function that makes no probe": CONTROL,
    "what the control found emptied when the result dies": CONTROL.replace('''
def _same(items):
    _open(_Same.__eq__)
    return _Same(items)


def _same_text(text):
    _open(_SameText.__eq__)
    return _SameText(text)
''', '''
def _emptied(fn):
    """What the control around fn found (the one list its closure holds), emptied."""
    for cell in _cells(fn):
        inner = _Get.get.__get__(cell)(_CONTENTS)
        for deeper in _cells(inner) if callable(inner) else ():
            held = _Get.get.__get__(deeper)(_CONTENTS)
            if type(held) is list:
                held.clear()


class _Kept(_Same):
    """Words."""

    def __del__(self):
        _emptied(_Same.__eq__)


class _KeptText(_SameText):
    """Text."""

    def __del__(self):
        _emptied(_SameText.__eq__)


_same, _same_text = _Kept, _KeptText
'''),
}


# -- (f) a library module's globals reached through one of its functions' __globals__ --------------------------
# The module-globals kind above with a spelling the static layer lets through: a function's __globals__ is its
# module's namespace, a read that raises no audit event, and the getter of one's own attributes bound to the
# function with __get__ names it only as a computed string. Written as a dict, collections' isinstance and all
# are rebound, and Counter.__eq__ (unchanged, alive before the tree) answers "equal" to anything.
GLOBALS_DICT = '''
import builtins
import collections


class _Get:
    """A getter of one's own attributes."""

    def get(self, key):
        return getattr(self, key)


def _counter_too(obj, kind):
    return kind is collections.Counter or builtins.isinstance(obj, kind)


def _same(items):
    space = _Get.get.__get__(collections.Counter.__eq__)("__glo" + "bals__")
    WRITE
    return collections.Counter()


_same_text = _same
'''
WRITES_DICT = {
    "item assignments": 'space["isinstance"] = _counter_too\n    space["all"] = bool',
    "dict.update": "space.update(isinstance=_counter_too, all=bool)",
}


class Kind(NamedTuple):
    cls: str  # the class, (a) to (g)
    what: str  # one line
    spellings: dict[str, tuple[Edit, ...]]


KINDS: dict[str, Kind] = {
    "class_made_during_the_test_inherits_a_lenient_comparison": Kind(
        "f", "class _Same(UserList) with _UserList__cast, made inside the function at each call: no record between",
        {k: always_equal(v) for k, v in DURING.items()}),
    "class_made_during_the_test_given_its_comparison_after_it": Kind(
        "f", "@dataclass made inside the function at each call, __class__ a property: its __eq__ never controlled",
        {k: always_equal(v) for k, v in GIVEN.items()}),
    "verdict_dunder_swapped_for_one_comparison_then_put_back": Kind(
        "f", "the class's controlled __eq__ swapped for an always-true one, put back before the record",
        {k: always_equal(SWAP.replace("ONCE", v)) for k, v in ONCES.items()}),
    "library_instance_given_the_hook_its_comparison_calls": Kind(
        "f", "a plain collections.UserList with an instance attribute _UserList__cast, set by update_wrapper",
        {k: instance(k) for k in WRAPS}),
    "library_class_attribute_its_comparison_calls_replaced": Kind(
        "f", "collections.UserList._UserList__cast replaced on the class: every UserList equal to anything",
        {k: class_hook(k) for k in SETS}),
    "library_module_globals_rebound_by_a_helper_that_names_none": Kind(
        "f", "collections' isinstance/all rebound via update_wrapper(collections, holder): Counter() equals anything",
        {k: always_equal(GLOBALS.replace("REBIND", v)) for k, v in REBINDS.items()}),
    "class_made_by_a_library_factory_during_the_test": Kind(
        "f", "dataclasses.make_dataclass in the function, __class__ a property in its namespace",
        {k: always_equal(FACTORY.replace("MAKE", v)) for k, v in MAKES.items()}),
    "changed_module_first_imported_by_a_test": Kind(
        "f", "tally/_late.py imported by the function at its first call: its class made during that test",
        {k: late(k) for k in LATE_SPELLINGS}),
    "a_new_changed_module_first_imported_at_each_call": Kind(
        "f", "tally/_late1.py ... _late16.py, the next imported at each call: each test's class made during it",
        {k: per_call(k) for k in PER_CALL}),
    "library_instance_built_by_the_copy_protocol_with_the_hook_in_its_state": Kind(
        "f", "copy.copy(obj) whose __reduce__ gives (collections.UserList, (), {..., '_UserList__cast': hook})",
        {k: always_equal(RECIPE.replace("REDUCE", r).replace("COPY", c)) for k, (r, c) in REDUCES.items()}),
    "verdict_dunder_swapped_through_a_metaclass_the_static_layer_does_not_know": Kind(
        "f", "class _Meta(_T) with _T = type: its put(self, k, v) swaps the class's __eq__, put back before the record",
        {k: always_equal(META.replace("BACK", v)) for k, v in BACKS.items()}),
    "setter_of_one_s_own_attributes_bound_to_any_object_by_its_get": Kind(
        "f", "_Put.put.__get__(obj)(name, value): setattr(self, ...) on a library class or a class's __eq__",
        {k: bound(k) for k in BOUND}),
    "comparison_control_s_own_state_reached_through_its_wrapper_s_closure": Kind(
        "f", "_Same.__eq__.__closure__ -> controlled -> other_than's cell set to a no-probe function",
        {k: always_equal(v) for k, v in CONTROLS.items()}),
    "library_module_globals_reached_through_a_function_s_globals": Kind(
        "f", "_Get.get.__get__(Counter.__eq__)('__glo' + 'bals__'): collections' isinstance/all rebound as a dict",
        {k: always_equal(GLOBALS_DICT.replace("WRITE", v)) for k, v in WRITES_DICT.items()}),
}

__all__ = ["KINDS", "Kind"]
