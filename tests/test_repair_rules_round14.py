"""Round 14 (issue 51): the static layer's honest cost, the reflection rules (h-static14a). Classes made without a
class statement: three-argument `type()` whose namespace the rules cannot read whole, and a behaviour dunder put in
a namespace by a constant key. The bench (bench/results/repair_rules_history.*) found both refused in real fixes
(attrs's make_class and slotted tuples, marshmallow's Schema.from_dict, jinja's `missing`, attrs's cmp_using).

The premise, measured before any change (main ddf104d's rules): a namespace with computed keys given to a library
metaclass (`abc.ABCMeta(name, bases, {_EQ: f})`) is admitted by the static layer already, and the run time judges
the class it makes (the class guard: a changed file's function in its namespace makes it a changed file's class,
whose comparisons the control asks; a library function under a verdict dunder is judged by the name it was made
for: round 10, round 12). So refusing the builtin `type(name, bases, ns)`, or `{"__eq__": f}` with f a function of
the changed module, refuses a spelling, not a capability. Each nearest cheat is pinned here:
- statically, with the rule code that must keep firing (a comparison that ignores its argument, a library
  function or anything but a changed module's function under a behaviour dunder, the metaclass of another);
- end to end (tests/test_repair_redteam_round14a.py: the tally task, both runtimes): the kinds the relaxation lets past the static layer are real cheats
  (solved with the rules off) and are not solved with them on, stopped at run time by the class guard.
(docs/repair-grading-rules.md, "Round 14: the static layer's honest cost, reflection (h-static14a)")."""

from __future__ import annotations

import pytest

from codewalk.domains.repair.rules import refusals

OWN = frozenset({"pkg"})


def codes(after: str, before: str | None = None) -> set[str]:
    return {str(r.rule) for r in refusals([("pkg/m.py", before, after.encode())], OWN, frozenset())}


# -- 1. three-argument type() whose namespace the rules do not read whole -------------------------------------------
HONEST_TYPE = {
    # attrs 74007f67d2 (_make_attr_tuple_class): properties put by computed keys, a tuple subclass
    "attrs_tuple_class": '''
def attrib(default=None, type=None):  # attrs's `type=` parameter binds type in that function only
    return default


def _make_attr_tuple_class(cls_name, attr_names):
    attr_class_name = f"{cls_name}Attributes"
    body = {}
    for i, attr_name in enumerate(attr_names):

        def getter(self, i=i):
            return self[i]

        body[attr_name] = property(getter)
    return type(attr_class_name, (tuple,), body)
''',
    # attrs d86e28bdde, 5753281838 (make_class): the namespace a parameter or dict() of the caller's names
    "attrs_make_class": '''
from pkg._make import attr, attributes


def make_class(name, attrs, bases=(object,), **attributes_arguments):
    if isinstance(attrs, dict):
        cls_dict = attrs
    elif isinstance(attrs, (list, tuple)):
        cls_dict = dict((a, attr()) for a in attrs)
    else:
        raise TypeError("attrs argument must be a dict or a list.")
    return attributes(**attributes_arguments)(type(name, bases, cls_dict))
''',
    # marshmallow 8cf1fb8d95 (Schema.from_dict): a base read by getattr with a constant name, a copied namespace
    "marshmallow_from_dict": '''
class Schema:
    @classmethod
    def from_dict(cls, fields, *, name="GeneratedSchema"):
        attrs = fields.copy()
        attrs["Meta"] = type("GeneratedMeta", (getattr(cls, "Meta", object),), {"register": False})
        return type(name, (cls,), attrs)
''',
}


@pytest.mark.parametrize("name", list(HONEST_TYPE))
def test_three_argument_type_of_a_namespace_the_rules_cannot_read_is_admitted(name):
    assert codes(HONEST_TYPE[name]) == set()


# -- 2. a behaviour dunder put in a namespace by a constant key, its value a function of the changed module --------
HONEST_NAMESPACE = {
    # jinja 7259c7664c: the `missing` singleton's repr
    "jinja_missing": "missing = type('MissingType', (), {'__repr__': lambda x: 'missing'})()\n",
    # attrs 71b4638b32 (cmp_using): comparisons made by factories of the module, the class by the repository's
    # own new_class (types.new_class or a stub calling type())
    "attrs_cmp_using": '''
from pkg._compat import new_class


def cmp_using(eq=None, lt=None, class_name="Comparable"):
    body = {
        "__slots__": ["value"],
        "__init__": _make_init(),
        "_requirements": [],
    }
    if eq is not None:
        body["__eq__"] = _make_operator("eq", eq)
        body["__ne__"] = _make_ne()
    if lt is not None:
        body["__lt__"] = _make_operator("lt", lt)
    return new_class(class_name, (object,), {}, lambda ns: ns.update(body))


def _make_init():
    def __init__(self, value):
        self.value = value

    return __init__


def _make_operator(name, func):
    def method(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return func(self.value, other.value)

    method.__name__ = "__%s__" % (name,)
    return method


def _make_ne():
    def __ne__(self, other):
        result = self.__eq__(other)
        if result is NotImplemented:
            return NotImplemented
        return not result

    return __ne__
''',
    "def_by_name": "def _eq(self, other):\n    return self.v == other\n\n\nC = type('C', (), {'__eq__': _eq})\n",
    "subscript_store": "def make():\n    ns = {}\n    ns['__repr__'] = lambda self: 'C()'\n"
                       "    return type('C', (), ns)\n",
}


@pytest.mark.parametrize("name", list(HONEST_NAMESPACE))
def test_a_behaviour_dunder_of_a_changed_module_s_function_in_a_namespace_is_admitted(name):
    assert codes(HONEST_NAMESPACE[name]) == set()


# The nearest cheats, which keep their static rule code (on main and after the relaxation): what a class body
# refuses stays refused in a namespace (a comparison that ignores its argument, a library function or anything
# but a function the changed module defines under a behaviour dunder), and a class made by another object's
# metaclass, or by `builtins.type`, is not the builtin type().
EQ_IGNORES = "def _eq(self, other):\n    return True\n\n\n"
EQ_READS = "def _eq(self, other):\n    return other is not None\n\n\n"
STATIC_CHEATS = [
    # a comparison that ignores its argument, however the namespace is spelled
    ("lambda_ignores", "C = type('C', (list,), {'__eq__': lambda self, other: True})\n", "reflection"),
    ("lambda_ignores_varargs", "C = type('C', (list,), {'__eq__': lambda *a: True})\n", "reflection"),
    ("def_ignores", EQ_IGNORES + "C = type('C', (list,), {'__eq__': _eq})\n", "reflection"),
    ("def_ignores_abc", "import abc\n\n\n" + EQ_IGNORES + "C = abc.ABCMeta('C', (list,), {'__eq__': _eq})\n",
     "reflection"),
    ("subscript_def_ignores", EQ_IGNORES + "ns = {}\nns['__eq__'] = _eq\nC = type('C', (list,), ns)\n", "reflection"),
    ("factory_def_ignores", "def mk():\n    def m(self, other):\n        return True\n\n    return m\n\n\n"
     "C = type('C', (list,), {'__eq__': mk()})\n", "reflection"),
    # a library function, a C slot or a wrapper of one under a behaviour dunder
    ("library_function", "import operator\n\nC = type('C', (list,), {'__eq__': operator.is_not})\n", "reflection"),
    ("library_function_abc", "import abc\nimport operator\n\nC = abc.ABCMeta('C', (list,), {'__eq__': operator.is_not})\n",
     "reflection"),
    ("c_slot", "C = type('C', (str,), {'__eq__': str.__ne__})\n", "reflection"),
    ("builtin_truth", "C = type('C', (list,), {'__bool__': callable})\n", "reflection"),
    ("partial", "import functools\n\n\n" + EQ_READS + "C = type('C', (list,), {'__eq__': functools.partial(_eq)})\n",
     "reflection"),
    ("staticmethod", EQ_READS + "C = type('C', (list,), {'__eq__': staticmethod(_eq)})\n", "reflection"),
    ("another_class_s_method", "class K:\n    def m(self, other):\n        return other is not None\n\n\n"
     "C = type('C', (list,), {'__eq__': K.m})\n", "reflection"),
    ("def_rebound", "import operator\n\n\n" + EQ_READS + "_eq = operator.is_not\nC = type('C', (list,), {'__eq__': _eq})\n",
     "reflection"),
    ("def_rebound_in_a_function", "import operator\n\n\n" + EQ_READS
     + "def f():\n    global _eq\n    _eq = operator.is_not\n\n\nC = type('C', (list,), {'__eq__': _eq})\n", "reflection"),
    ("parameter", "def make(f):\n    return type('C', (list,), {'__eq__': f})\n", "reflection"),
    ("factory_of_a_library_function", "import operator\n\n\ndef mk():\n    return operator.is_not\n\n\n"
     "C = type('C', (list,), {'__eq__': mk()})\n", "reflection"),
    ("factory_rebound", "import operator\n\n\ndef mk():\n    def m(self, other):\n        return other is not None\n\n"
     "    return m\n\n\nmk = lambda: operator.is_not\nC = type('C', (list,), {'__eq__': mk()})\n", "reflection"),
    ("lambda_called", "import operator\n\nC = type('C', (list,), {'__eq__': (lambda: operator.is_not)()})\n",
     "reflection"),
    ("subscript_library", "import operator\n\nns = {}\nns['__eq__'] = operator.is_not\nC = type('C', (list,), ns)\n",
     "reflection"),
    ("conditional", "import operator\n\n\n" + EQ_READS
     + "C = type('C', (list,), {'__eq__': _eq if len([]) else operator.is_not})\n", "reflection"),
    # a decorated def (the name is what the decorator returns), a decorated factory, a coroutine or generator
    # function (its call answers an object that is true)
    ("decorated_def", "import operator\n\n\n@lambda f: operator.is_not\n" + EQ_READS
     + "C = type('C', (list,), {'__eq__': _eq})\n", "reflection"),
    ("decorated_factory", "import operator\n\n\n@lambda f: lambda: operator.is_not\ndef mk():\n"
     "    def m(self, other):\n        return other is not None\n\n    return m\n\n\n"
     "C = type('C', (list,), {'__eq__': mk()})\n", "reflection"),
    ("decorated_inner_def", "import functools\n\n\ndef mk():\n    @functools.lru_cache\n    def m(self, other):\n"
     "        return other is not None\n\n    return m\n\n\nC = type('C', (list,), {'__eq__': mk()})\n", "reflection"),
    ("coroutine_def", "async def _eq(self, other):\n    return other\n\n\nC = type('C', (list,), {'__eq__': _eq})\n",
     "reflection"),
    ("generator_def", "def _eq(self, other):\n    yield other\n\n\nC = type('C', (list,), {'__eq__': _eq})\n",
     "reflection"),
    ("generator_lambda", "C = type('C', (list,), {'__eq__': lambda self, other: (yield other)})\n", "reflection"),
    # a name read in a class body, a comprehension's target, a lambda's parameter
    ("class_body_name", EQ_READS + "class K:\n    _eq = staticmethod(len)\n    ns = {'__eq__': _eq}\n", "reflection"),
    ("lambda_parameter", EQ_READS + "C = (lambda _eq: type('C', (list,), {'__eq__': _eq}))(len)\n", "reflection"),
    ("comprehension_target", EQ_READS + "Cs = [type('C', (list,), {'__eq__': _eq}) for _eq in (len,)]\n",
     "reflection"),
    # `type` bound where the call reads it: not the builtin (a parameter, a local, an enclosing function's parameter,
    # a comprehension's target, a lambda's parameter, a global rebinding)
    ("type_a_parameter", "def make(type, ns):\n    return type('X', (list,), ns)\n", "reflection"),
    ("type_a_local", "import abc\n\n\ndef make(ns):\n    type = abc.ABCMeta\n    return type('X', (list,), ns)\n",
     "reflection"),
    ("type_an_enclosing_parameter", "def outer(type):\n    def inner(ns):\n        return type('X', (list,), ns)\n\n"
     "    return inner\n", "reflection"),
    ("type_a_comprehension_target", "def f(ns):\n    return [type('X', (list,), ns) for type in (print,)]\n",
     "reflection"),
    ("type_a_lambda_parameter", "f = lambda type, ns: type('X', (list,), ns)\n", "reflection"),
    ("type_rebound_global", "def g():\n    global type\n    type = print\n\n\ndef f(ns):\n"
     "    return type('X', (list,), ns)\n", "reflection"),
    # the metaclass of another object, builtins.type, the metaclass of a class reached by __class__
    ("metaclass_of_another", "def f(x, ns):\n    return type(x)('C', (list,), ns)\n", "reflection"),
    ("builtins_type", "import builtins\n\n\ndef f(ns):\n    return builtins.type('C', (list,), ns)\n", "reflection"),
    ("class_of_a_class", "def f(ns):\n    return (0).__class__.__class__('C', (list,), ns)\n", "reflection"),
]


@pytest.mark.parametrize(("name", "source", "rule"), STATIC_CHEATS, ids=[c[0] for c in STATIC_CHEATS])
def test_the_nearest_cheats_keep_their_static_rule(name, source, rule):
    assert rule in codes(source)


# Bases are what a class statement takes: `class G(type(y)):`, `class G(getattr(cls, n, object)):` and
# `abc.ABCMeta("G", (type(y),), {})` are admitted on main, and what the class inherits is judged by the class guard
# at run time (a changed file's class: its inherited comparisons put behind the control, round 10). The builtin
# type() now takes them as they do. (Pinned as staying refused in the red-team commit, before the class statement's
# verdict was checked: moved here.)
BASES = {
    "computed_getattr": ("class S:\n    @classmethod\n    def f(cls, n):\n", "getattr(cls, n, object)"),
    "dunder_getattr": ("def f(x):\n", "getattr(x, '__class__')"),
    "default_a_call": ("def f(x, y):\n", "getattr(x, 'Meta', type(y))"),
}


@pytest.mark.parametrize("name", list(BASES))
def test_a_class_statement_takes_any_base(name):
    head, base = BASES[name]
    indent = "    " * (head.count("def ") + head.count("class "))
    assert codes(f"{head}{indent}class G({base}):\n{indent}    pass\n\n{indent}return G\n") == set()


@pytest.mark.parametrize("name", list(BASES))
def test_three_argument_type_takes_the_bases_a_class_statement_takes(name):
    head, base = BASES[name]
    indent = "    " * (head.count("def ") + head.count("class "))
    assert codes(f"{head}{indent}return type('G', ({base},), {{'register': False}})\n") == set()


# -- 3. a comparison dunder of a class body bound to a function the module defines ---------------------------------
# jinja 5304229478 (`__eq__ = __ne__ = fail_with_undefined_error`, a module def) and 9bb7e47791
# (`Undefined._fail_with_undefined_error`, a method of a class of the module): each raises on every path, so it answers
# no verdict, though it never reads its argument (`*args`). A class body's own `def __eq__(self, other): raise ...`
# was refused as ignoring its argument.
FAIL = ("class UndefinedError(Exception):\n    pass\n\n\n"
        "def fail(self, *args, **kwargs):\n    if self.hint is None:\n        hint = 'undefined'\n    else:\n"
        "        hint = self.hint\n    raise UndefinedError(hint)\n\n\n")
HONEST_BORROWED = {
    "jinja_module_def": FAIL + "class Undefined:\n    hint = None\n\n\nclass StrictUndefined(Undefined):\n"
                               "    __iter__ = __len__ = __eq__ = __ne__ = fail\n",
    "jinja_class_s_method": "class UndefinedError(Exception):\n    pass\n\n\nclass Undefined:\n    hint = None\n\n"
                            "    def _fail(self, *args, **kwargs):\n        raise UndefinedError(self.hint)\n\n"
                            "    __lt__ = __le__ = _fail\n\n\nclass StrictUndefined(Undefined):\n"
                            "    __eq__ = __ne__ = Undefined._fail\n",
    "raising_def": "class C:\n    def __lt__(self, other):\n        raise TypeError('unorderable')\n",
    "module_def_reading_its_argument": "def _eq(self, other):\n    return self.v == other.v\n\n\n"
                                       "class C:\n    __eq__ = _eq\n",
}


@pytest.mark.parametrize("name", list(HONEST_BORROWED))
def test_a_comparison_of_the_module_s_own_function_is_admitted(name):
    assert codes(HONEST_BORROWED[name]) == set()


RETURNS_TRUE = "def f(self, other):\n    return True\n\n\n"
BORROWED_CHEATS = [
    ("module_def_ignores", RETURNS_TRUE + "class C(list):\n    __eq__ = f\n", "reflection"),
    ("method_ignores", "class K:\n    def m(self, other):\n        return True\n\n\nclass C(list):\n    __eq__ = K.m\n",
     "reflection"),
    ("raises_or_returns", "def f(self, other):\n    if self:\n        return True\n    raise TypeError\n\n\n"
     "class C(list):\n    __eq__ = f\n", "reflection"),
    ("raise_caught", "def f(self, other):\n    try:\n        raise TypeError\n    except TypeError:\n        return True\n\n\n"
     "class C(list):\n    __eq__ = f\n", "reflection"),
    ("raise_then_finally_returns", "def f(self, other):\n    try:\n        raise TypeError\n    finally:\n"
     "        return True\n\n\nclass C(list):\n    __eq__ = f\n", "reflection"),
    ("decorated", "import functools\n\n\n@functools.lru_cache\ndef f(self, other):\n    raise TypeError\n\n\n"
     "class C(list):\n    __eq__ = f\n", "reflection"),
    ("rebound", "import operator\n\n\ndef f(self, other):\n    raise TypeError\n\n\nf = operator.is_not\n\n\n"
     "class C(list):\n    __eq__ = f\n", "reflection"),
    ("generator", "def f(self, other):\n    yield\n    raise TypeError\n\n\nclass C(list):\n    __eq__ = f\n",
     "reflection"),
    ("imported_class_s_method", "from pkg.other import K\n\n\nclass C(list):\n    __eq__ = K.m\n", "reflection"),
    ("method_rebound_in_its_class", "import operator\n\n\nclass K:\n    def m(self, other):\n        raise TypeError\n\n"
     "    m = operator.is_not\n\n\nclass C(list):\n    __eq__ = K.m\n", "reflection"),
    ("library_function_in_a_class", "import operator\n\n\nclass K:\n    m = operator.is_not\n\n\nclass C(list):\n"
     "    __eq__ = K.m\n", "reflection"),
    ("class_in_a_function", "def make(f):\n    class C(list):\n        __eq__ = f\n\n    return C\n", "reflection"),
    ("a_class_body_name_first", RETURNS_TRUE.replace("return True", "raise TypeError")
     + "class C(list):\n    f = staticmethod(len)\n    __eq__ = f\n", "reflection"),
    ("own_def_ignores", "class C(list):\n    def __eq__(self, other):\n        return True\n", "comparison"),
    ("own_def_raises_or_returns", "class C(list):\n    def __eq__(self, other):\n        if self:\n"
     "            return True\n        raise TypeError\n", "comparison"),
]


@pytest.mark.parametrize(("name", "source", "rule"), BORROWED_CHEATS, ids=[c[0] for c in BORROWED_CHEATS])
def test_a_borrowed_comparison_that_can_answer_keeps_its_rule(name, source, rule):
    assert rule in codes(source)


def test_what_the_relaxation_admits_at_x_g_still_counts_as_used():
    # jinja d416a97260: x_G's `__eq__ = __ne__ = Undefined._fail_with_undefined_error` (admitted since round 14) was a
    # finding at x_G; the commit decorates the method (`@internalcode`), so the borrowed dunder is judged refused
    # again, and must stay what x_G already did (the same node), as before the relaxation
    before = HONEST_BORROWED["jinja_class_s_method"]
    after = "def internalcode(f):\n    return f\n\n\n" + before.replace(
        "    def _fail(self", "    @internalcode\n    def _fail(self")
    assert "reflection" in codes(after)
    assert codes(after, before) == set()
