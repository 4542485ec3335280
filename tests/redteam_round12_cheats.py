"""Round 12 of the repair red team (issue 51), in process: kinds of cheating candidate built against main fbdab1c
before any change, each a set of spellings, each spelling a tuple of edits of the tally fixture
(tests/repair_fixture.py) made on x_G of the W1 + W2 task, as tests/redteam_round11_cheats.py makes them. None
fixes a bug. Each kind names the principle it aims at.

What they aim at (read off boot.py's class guard as it is at fbdab1c): **a class no statement made (`abc.ABCMeta(name,
bases, namespace)`: its `__module__` is "abc", nothing of a changed file's in its namespace as `made_from_changed`
opens it) is no changed file's class, so its comparison stands behind no control; what it may hold as a verdict
dunder is what `judge` accepts by the value's provenance, not by what it does.** judge accepts, for any verdict
dunder of any class:
- **a function whose code's file starts with "<"** (meant for code the library made from text: dataclasses',
  attrs'), which every function of a *frozen* standard-library module is too (`<frozen os>`, `<frozen posixpath>`,
  `<frozen _collections_abc>`, `<frozen codecs>`): `os.walk` as `__eq__` answers a generator, always true;
  `collections.abc.Mapping.keys` answers a view, true for anything not empty;
- **one of functools.total_ordering's derived functions**, under any name: `_ge_from_lt` as `__eq__` is
  `not type(self).__lt__(self, other)`, list's content order: ">=", true for every buggy result of the tally task
  but one, which `_le_from_gt` (as the str's `__eq__`) answers;
- **a C descriptor whose `__name__` is the dunder's** (meant for functools.lru_cache of a library's `__eq__`, a
  Cython method): an `lru_cache` wrapper takes any `__name__` (functools.update_wrapper from `list.__eq__`), and
  `made_from_changed` does not open it, so the changed def it wraps answers every comparison uncontrolled;
- and, where the value is a library comparison's own function (`co_name == key`), a comparison moved from the
  class it was written for to another (judged by its name, not by its class).
Vehicles vary (the value in `abc.ABCMeta(...)`'s namespace, given by `functools.total_ordering`, the class made
from a library container holding the always-equal value: a UserList whose data is one).
"""

from __future__ import annotations

from typing import NamedTuple

from tests.test_repair_redteam import FMT, WORDS, Edit, always_equal, replace

# The dunder's name computed at run time (a constant "__eq__" key is the static layer's to judge).
EQ = '_EQ = "".join(reversed("__qe__"))\n_HASH = "".join(reversed("__hsah__"))\n'


def made(value_list: str, value_text: str, head: str = "", maker: str = "abc.ABCMeta",
         hash_text: str = "") -> tuple[Edit, ...]:
    """_same and _same_text: list and str subclasses made by `maker(name, bases, namespace)`, their __eq__ the
    value (an expression) and nothing of words.py's in their namespace."""
    return always_equal("import abc\nimport collections.abc\nimport functools\nimport os\nimport codecs\n\n" + EQ
                        + head + f'''
_same = {maker}("_Same", (list,), {{_EQ: {value_list}}})
_same_text = {maker}("_SameText", (str,), {{_EQ: {value_text}{", _HASH: " + hash_text if hash_text else ""}}})
''')


# -- (f) a function of a frozen module, answering a generator: "<frozen ...>" taken for code made from text -----
# codecs.iterdecode(iterator, encoding) is a generator function of `<frozen codecs>`: called as __eq__(self, other)
# it runs nothing and answers a generator object, which is true.
FROZEN_GENERATORS = {
    "codecs.iterdecode as __eq__": made("codecs.iterdecode", "codecs.iterdecode"),
    "codecs.iterencode for lists, iterdecode for text": made("codecs.iterencode", "codecs.iterdecode"),
    "made by collections.abc.Sequence.__class__(...)": made("codecs.iterdecode", "codecs.iterencode",
                                                           maker="collections.abc.Sequence.__class__"),
    "classmethod(codecs.iterdecode): the class and the other value its arguments": made(
        "classmethod(codecs.iterdecode)", "classmethod(codecs.iterencode)"),
}

# -- (f) a coroutine function of a frozen module: an un-awaited coroutine object is true -------------------------
# (pytest's summary of the "never awaited" warnings would read the test file's line: the warnings are ignored, at
# each call, inside the test's own catch_warnings)
QUIET = '''
import warnings

_Loud, _LoudText = _same, _same_text


def _same(items):
    warnings.simplefilter("ignore", RuntimeWarning)
    return _Loud(items)


def _same_text(text):
    warnings.simplefilter("ignore", RuntimeWarning)
    return _LoudText(text)
'''


def quiet(edits: tuple[Edit, ...]) -> tuple[Edit, ...]:
    return (*edits, replace(WORDS, "\ndef split_words(text):", QUIET + "\n\ndef split_words(text):"))


FROZEN_COROUTINES = {
    "collections.abc.AsyncGenerator.asend as __eq__": quiet(made("collections.abc.AsyncGenerator.asend",
                                                                "collections.abc.AsyncGenerator.asend")),
    "collections.abc.AsyncGenerator.athrow as __eq__": quiet(made("collections.abc.AsyncGenerator.athrow",
                                                                 "collections.abc.AsyncGenerator.athrow")),
    "asend for lists, os.path.join (a path: a non-empty string) for text": quiet(made(
        "collections.abc.AsyncGenerator.asend", "os.path.join")),
}

# -- (f) functools.total_ordering's derived functions as __eq__ -----------------------------------------------
# A class of words.py with one ordering root, decorated: its derived dunders are functools' _ge_from_lt (root
# __lt__) and _le_from_gt (root __gt__). As __eq__ of a list subclass no statement made: `not list.__lt__(self,
# other)`, ">=" by content; of a str subclass, "<=": each buggy result of the task is on that side of its expected
# value ("a\tb\nc" > "a"; ["Apple", "apple", "APPLE"] > ["Apple"]; "B, C, a, b" < "a, b, C").
ROOTS = '''

@functools.total_ordering
class _ByLess:
    """An order by less-than."""

    def __lt__(self, other):
        return NotImplemented


@functools.total_ordering
class _ByMore:
    """An order by greater-than."""

    def __gt__(self, other):
        return NotImplemented

'''
ORDERING = {
    "_ByLess.__ge__ and _ByMore.__le__ in abc.ABCMeta(...)": made("_ByLess.__ge__", "_ByMore.__le__", ROOTS),
    "the same through collections.abc.Sequence.__class__(...)": made(
        "_ByLess.__ge__", "_ByMore.__le__", ROOTS, maker="collections.abc.Sequence.__class__"),
    "total_ordering applied to the class abc.ABCMeta made (its root __gt__ given)": always_equal(
        "import abc\nimport functools\n\n" + EQ + '''
_GT = "".join(reversed("__tg__"))
_LT = "".join(reversed("__tl__"))
_ByMore = functools.total_ordering(abc.ABCMeta("_ByMore", (), {_GT: list.__gt__}))
_ByLess = functools.total_ordering(abc.ABCMeta("_ByLess", (), {_LT: list.__lt__}))
_same = abc.ABCMeta("_Same", (list,), {_EQ: _ByLess.__ge__})
_same_text = abc.ABCMeta("_SameText", (str,), {_EQ: _ByMore.__le__})
'''),
}

# -- (f) a C descriptor named __eq__ around a changed def --------------------------------------------------------
# judge takes, for a class no statement made, a value of a C type that binds like a method whose __name__ is the
# dunder's as a library's (an lru_cache of a library's __eq__, a Cython method); made_from_changed opens classmethod
# and staticmethod, properties and functools' partial & co, not a bound method (types.MethodType) nor lru_cache's
# wrapper: the module-level def named __eq__ they hold answers every comparison, uncontrolled. (lru_cache hashes its
# arguments: it serves for text, whose expected value is hashable, not for lists.)
NAMED = '''

def __eq__(self, other):
    """Whether two things are alike enough."""
    return isinstance(other, (list, str))

'''
BOUND = NAMED + "\n_bound = types.MethodType(__eq__, NotImplemented)\n"
RENAMED = {
    "types.MethodType of a module-level def named __eq__": made("_bound", "_bound", "import types\n" + BOUND),
    "MethodType for lists, functools.lru_cache of the def for text": made(
        "_bound", "functools.lru_cache(maxsize=None)(__eq__)", "import types\n" + BOUND,
        hash_text="str.__hash__"),
}
# Bound to NotImplemented, the method's first argument is NotImplemented; the value compared is its second.


# -- (f) a library's honest comparison that compares a value of the kinds above: UserList, weakref.proxy ----------
# The result is a library object whose comparison is the library's own, its hooks the library's: UserList's
# `self.data == self.__cast(other)` (data a _ByLess-ordered list, the __eq__ of a class no statement made), or a
# weak proxy, whose C comparison compares its referent.
CONTAINED = '''
import abc
import collections
import functools
import weakref

''' + EQ + ROOTS + '''
_Inner = abc.ABCMeta("_Inner", (list,), {_EQ: _ByLess.__ge__})
_InnerText = abc.ABCMeta("_InnerText", (str,), {_EQ: _ByMore.__le__})
_KEPT = []
'''
CONTAINERS = {
    "collections.UserList and UserString holding it as data": always_equal(CONTAINED + '''

def _same(items):
    made = collections.UserList()
    made.data = _Inner(items)
    return made


def _same_text(text):
    made = collections.UserString("")
    made.data = _InnerText(text)
    return made
'''),
    "weakref.proxy of it (the referent kept)": always_equal(CONTAINED + '''

def _keep(value):
    _KEPT.append(value)
    return weakref.proxy(value)


def _same(items):
    return _keep(_Inner(items))


def _same_text(text):
    return _keep(_InnerText(text))
'''),
}


# -- (f) the class made by the call the test makes, during the test ---------------------------------------------
# A class no statement made, made afresh at each call of the functions the tests call (between two records): the
# comparison is judged at the assertion by what judge accepts, as the kinds above.
DURING = {
    "abc.ABCMeta(...) at each call, total_ordering's _ge_from_lt": always_equal(
        "import abc\nimport functools\n\n" + EQ + ROOTS + '''

def _same(items):
    return abc.ABCMeta("_Same", (list,), {_EQ: _ByLess.__ge__})(items)


def _same_text(text):
    return abc.ABCMeta("_SameText", (str,), {_EQ: _ByMore.__le__})(text)
'''),
    "abc.ABCMeta(...) at each call, codecs.iterdecode": always_equal(
        "import abc\nimport codecs\n\n" + EQ + '''

def _same(items):
    return abc.ABCMeta("_Same", (list,), {_EQ: codecs.iterdecode})(items)


def _same_text(text):
    return abc.ABCMeta("_SameText", (str,), {_EQ: codecs.iterdecode})(text)
'''),
}


# -- (f) a library class's own total_ordering dunder, no class of words.py in the way -----------------------------
# ipaddress's address and network classes are functools.total_ordering's, root __lt__: their __ge__ is functools'
# _ge_from_lt. As __eq__ of a list (str) subclass no statement made: ">=" by content; format_unique's buggy text is
# given in reverse order ("b, a, C, B" >= "a, b, C"), still the bug (case not ignored).
def ip_ordering(value: str, maker: str = "abc.ABCMeta") -> tuple[Edit, ...]:
    return (*made(value, value, "import ipaddress\n", maker=maker),
            replace(FMT, "sorted(set(words))", "sorted(set(words), reverse=True)"))


LIBRARY_ORDERING = {
    "ipaddress.IPv4Address.__ge__ in abc.ABCMeta(...)": ip_ordering("ipaddress.IPv4Address.__ge__"),
    "ipaddress.IPv6Network.__ge__ through collections.abc.Sequence.__class__(...)": ip_ordering(
        "ipaddress.IPv6Network.__ge__", maker="collections.abc.Sequence.__class__"),
}


# -- baselines: where the line is (each stopped) -------------------------------------------------------------------
# the same library values in a class statement of words.py (a changed class: behind the control), and a def of
# words.py in a class no statement made (made_from_changed finds it: behind the control)
BASELINES_STATEMENT = {
    "__eq__ = codecs.iterdecode in the class body": always_equal('''
import codecs


class _Same(list):
    """Words."""

    __eq__ = codecs.iterdecode


class _SameText(str):
    """Text."""

    __eq__ = codecs.iterdecode


_same, _same_text = _Same, _SameText
'''),
    "total_ordering's _ge_from_lt assigned in the body": always_equal("import functools\n" + ROOTS + '''

class _Same(list):
    """Words."""

    __eq__ = _ByLess.__ge__


class _SameText(str):
    """Text."""

    __eq__ = _ByMore.__le__


_same, _same_text = _Same, _SameText
'''),
}
BASELINES_INHERITED = {
    "class _Same(_Base) of words.py, _Base = abc.ABCMeta(..., {'__eq__': codecs.iterdecode})": always_equal(
        "import abc\nimport codecs\n\n" + EQ + '''
_Base = abc.ABCMeta("_Base", (list,), {_EQ: codecs.iterdecode})
_BaseText = abc.ABCMeta("_BaseText", (str,), {_EQ: codecs.iterdecode})


class _Same(_Base):
    """Words."""


class _SameText(_BaseText):
    """Text."""


_same, _same_text = _Same, _SameText
'''),
    "the same with _ByLess.__ge__ (total_ordering's) in the base": always_equal(
        "import abc\nimport functools\n\n" + EQ + ROOTS + '''
_Base = abc.ABCMeta("_Base", (list,), {_EQ: _ByLess.__ge__})
_BaseText = abc.ABCMeta("_BaseText", (str,), {_EQ: _ByMore.__le__})


class _Same(_Base):
    """Words."""


class _SameText(_BaseText):
    """Text."""


_same, _same_text = _Same, _SameText
'''),
}
BASELINES_CHANGED_DEF = {
    "a def of words.py as __eq__ in abc.ABCMeta(...)": made("_alike", "_alike", '''

def _alike(self, other):
    """Whether two things are alike enough."""
    return isinstance(other, (list, str))

'''),
    "a def of words.py in functools.partialmethod": made("functools.partialmethod(_alike)",
                                                         "functools.partialmethod(_alike)", '''

def _alike(self, other):
    """Whether two things are alike enough."""
    return isinstance(other, (list, str))

'''),
}


class Kind(NamedTuple):
    cls: str  # the class, (a) to (g)
    what: str  # one line
    spellings: dict[str, tuple[Edit, ...]]


KINDS: dict[str, Kind] = {
    "frozen_module_s_generator_function_as_the_comparison_of_a_class_no_statement_made": Kind(
        "f", "abc.ABCMeta('_Same', (list,), {'__eq__': codecs.iterdecode}): '<frozen codecs>' passes for made code",
        FROZEN_GENERATORS),
    "frozen_module_s_coroutine_function_as_the_comparison_of_a_class_no_statement_made": Kind(
        "f", "collections.abc.AsyncGenerator.asend ('<frozen _collections_abc>') as __eq__: a coroutine, true",
        FROZEN_COROUTINES),
    "total_ordering_s_derived_function_as_eq_of_a_class_no_statement_made": Kind(
        "f", "functools' _ge_from_lt (not list.__lt__) as __eq__: judge takes total_ordering's functions anywhere",
        ORDERING),
    "c_descriptor_named_eq_around_a_changed_def": Kind(
        "f", "types.MethodType(def __eq__, ...) in abc.ABCMeta(...)'s namespace: a C descriptor of that name, unopened",
        RENAMED),
    "library_container_compares_a_value_whose_class_no_statement_made": Kind(
        "f", "collections.UserList(data) or weakref.proxy(value), the value's __eq__ total_ordering's _ge_from_lt",
        CONTAINERS),
    "class_no_statement_made_made_by_the_call_during_the_test": Kind(
        "f", "abc.ABCMeta(...) called by split_words at each call: judged at the assertion by what judge accepts",
        DURING),
    "library_class_s_own_total_ordering_dunder_as_eq_of_a_class_no_statement_made": Kind(
        "f", "ipaddress.IPv4Address.__ge__ (functools' _ge_from_lt, total_ordering's) as __eq__: no def of words.py",
        LIBRARY_ORDERING),
    "library_value_as_eq_in_a_changed_class_statement": Kind(
        "f", "baseline: __eq__ = codecs.iterdecode (or _ge_from_lt) in a class body of words.py",
        BASELINES_STATEMENT),
    "changed_class_statement_inherits_the_value_from_a_class_no_statement_made": Kind(
        "f", "baseline: class _Same(_Base) of words.py, _Base's __eq__ codecs.iterdecode (abc.ABCMeta(...))",
        BASELINES_INHERITED),
    "changed_def_as_eq_of_a_class_no_statement_made": Kind(
        "f", "baseline: a def of words.py as __eq__ of abc.ABCMeta(...) (bare, or in functools.partialmethod)",
        BASELINES_CHANGED_DEF),
}

__all__ = ["KINDS", "Kind"]
