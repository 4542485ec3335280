"""Round 15 (issue 51): the static layer's honest cost, the import rules (h-static15b). `types.FunctionType`,
`types.LambdaType` and `types.CodeType` are refused whatever is done with them (`dynamic_import`): calling them makes
a function or a code object from parts. Real fixes name them only as classes to test values against
(jinja 24b6558c: `_context_function_types = (FunctionType, MethodType)` then `isinstance(obj, _context_function_
types)`; jinja 4f7d2d56: `type(obj) is FunctionType`; jinja 34a18bf5: imported and unused).

The red team first (this module, run on main 10dcd65 before any change): the nearest cheats of such a relaxation,
each a use of the class other than testing against it (a call, an alias, the class handed on, indexed or iterated
out of a tuple, an attribute of it, `isinstance` rebound, `==` handing it to the other operand's `__eq__`, the first
argument of isinstance handing it to a metaclass's `__instancecheck__`, another changed module importing it, its
name in a string, an annotation that `inspect.signature` hands back), pinned to the rule code that must fire.
All are refused on main (no HOLES): every use of these names is refused there.

Likewise `inspect.getattr_static` (`import_not_allowed`: it reads any attribute by a computed name without running
descriptors, a module's globals among them): jinja 065334d1 calls it only to learn whether the attribute exists,
its value dropped (`try: getattr_static(obj, name) except AttributeError: ...`). Its nearest cheats, each using the
value or the function otherwise, are pinned below too (GETATTR_STATIC), all refused on main.
(docs/repair-grading-rules.md, "Round 15 (static): the honest cost, classes tested against (h-static15b)")."""

from __future__ import annotations

import pytest

from codewalk.domains.repair.rules import refusals

OWN = frozenset({"pkg"})


def codes(after: str, other: str | None = None) -> set[str]:
    items = [("pkg/m.py", None, after.encode())]
    if other is not None:
        items.append(("pkg/n.py", None, other.encode()))
    return {str(r.rule) for r in refusals(items, OWN, frozenset())}


F = "from types import FunctionType, MethodType\n\n\n"
T = "from types import FunctionType, MethodType\n\n_kinds = (FunctionType, MethodType)\n\n\n"

# (name, the changed module, another changed module or None, the rule code that must fire)
CHEATS = [
    ("called", F + "def f(c, g):\n    return FunctionType(c, g)\n", None, "dynamic_import"),
    ("called_after_a_test", F + "def f(x, c):\n    if isinstance(x, FunctionType):\n        return 1\n"
     "    return FunctionType(c, {})\n", None, "dynamic_import"),
    ("module_attribute_called", "import types\n\n\ndef f(c):\n    return types.FunctionType(c, {})\n", None,
     "dynamic_import"),
    ("lambda_type_called", "import types\n\n\ndef f(c):\n    return types.LambdaType(c, {})\n", None,
     "dynamic_import"),
    ("code_type_called", "from types import CodeType\n\n\ndef f(*a):\n    return CodeType(*a)\n", None,
     "dynamic_import"),
    ("alias", F + "def f(c):\n    g = FunctionType\n    return g(c, {})\n", None, "dynamic_import"),
    ("import_alias_called", "from types import FunctionType as K\n\n\ndef f(x, c):\n"
     "    return isinstance(x, K) or K(c, {})\n", None, "dynamic_import"),
    ("module_global_alias", F + "G = FunctionType\n\n\ndef f(c):\n    return G(c, {})\n", None, "dynamic_import"),
    ("tuple_indexed", T + "def f(x, c):\n    return isinstance(x, _kinds) and _kinds[0](c, {})\n", None,
     "dynamic_import"),
    ("tuple_iterated", T + "def f(c):\n    for k in _kinds:\n        return k(c, {})\n", None, "dynamic_import"),
    ("tuple_unpacked", T + "def f(c):\n    a, b = _kinds\n    return a(c, {})\n", None, "dynamic_import"),
    ("tuple_returned", T + "def f():\n    return _kinds\n", None, "dynamic_import"),
    ("tuple_rebound", T + "_kinds = _kinds + (int,)\n\n\ndef f(x):\n    return isinstance(x, _kinds)\n", None,
     "dynamic_import"),
    ("tuple_local_indexed", F + "def f(x, c):\n    t = (FunctionType,)\n    return t[0](c, {})\n", None,
     "dynamic_import"),
    ("handed_to_partial", "import functools\nfrom types import FunctionType\n\n\ndef f(c):\n"
     "    return functools.partial(FunctionType, c)({})\n", None, "dynamic_import"),
    ("handed_to_map", F + "def f(cs, gs):\n    return list(map(FunctionType, cs, gs))\n", None, "dynamic_import"),
    ("returned", F + "def f():\n    return FunctionType\n", None, "dynamic_import"),
    ("default", F + "def f(c, k=FunctionType):\n    return k(c, {})\n", None, "dynamic_import"),
    ("attribute_new", "import types\n\n\ndef f(c):\n"
     "    return types.FunctionType.__new__(types.FunctionType, c, {})\n", None, "dynamic_import"),
    ("attribute_call", F + "def f(c):\n    return FunctionType.__call__\n", None, "dynamic_import"),
    ("isinstance_rebound", F + "isinstance = lambda x, k: k(x, {})\n\n\ndef f(c):\n"
     "    return isinstance(c, FunctionType)\n", None, "dynamic_import"),
    ("isinstance_local", F + "def f(c, isinstance=lambda x, k: k(x, {})):\n"
     "    return isinstance(c, FunctionType)\n", None, "dynamic_import"),
    ("isinstance_first_argument", F + "def f(k):\n    return isinstance(FunctionType, k)\n", None,
     "dynamic_import"),
    ("equality_hands_it_on", F + "def f(x):\n    return x == FunctionType\n", None, "dynamic_import"),
    ("in_hands_it_on", F + "def f(x):\n    return FunctionType in x\n", None, "dynamic_import"),
    ("is_then_value", F + "def f(x):\n    return x is FunctionType or FunctionType\n", None, "dynamic_import"),
    ("walrus_in_the_tuple", F + "def f(x, c):\n    if isinstance(x, (k := FunctionType,)):\n        pass\n"
     "    return k(c, {})\n", None, "dynamic_import"),
    ("starred_in_the_tuple", F + "def f(x, ks):\n    return isinstance(x, (*ks, FunctionType))\n", None,
     "dynamic_import"),
    ("annotation_read_back", "import inspect\nfrom types import CodeType\n\n\ndef g(c: CodeType):\n    pass\n\n\n"
     "def f(*a):\n    return inspect.signature(g).parameters['c'].annotation(*a)\n", None, "dynamic_import"),
    ("another_module_imports_it", F + "def f(x):\n    return isinstance(x, FunctionType)\n",
     "from pkg.m import FunctionType\n\n\ndef g(c):\n    return FunctionType(c, {})\n", "dynamic_import"),
    ("another_module_reads_it", F + "def f(x):\n    return isinstance(x, FunctionType)\n",
     "from pkg import m\n\n\ndef g(c):\n    return m.FunctionType(c, {})\n", "dynamic_import"),
    ("name_in_a_string", F + "def f(x, c):\n    if isinstance(x, FunctionType):\n        return 1\n"
     "    return globals()['FunctionType'](c, {})\n", None, "dynamic_import"),
    ("star_import", "from types import *\n\n\ndef f(x):\n    return isinstance(x, FunctionType)\n", None,
     "import_not_allowed"),  # a star import of a module the allow-list takes in part
    ("class_pattern", F + "def f(x):\n    match x:\n        case FunctionType():\n            return 1\n", None,
     "dynamic_import"),
    ("unused_import_read_by_another", F + "def f():\n    return 1\n",
     "import pkg.m\n\n\ndef g(c):\n    return pkg.m.FunctionType(c, {})\n", "dynamic_import"),
]


# Reached by a name computed at run time from another changed module: refused there, by its own rule (on main the
# class's use in m.py is refused as well)
COMPUTED = [
    ("getattr_on_the_module", "from pkg import m\n\n\ndef g(c, n):\n    return getattr(m, n)(c, {})\n"),
    ("module_dict", "from pkg import m\n\n\ndef g(c, n):\n    return m.__dict__[n](c, {})\n"),
    ("vars_of_the_module", "from pkg import m\n\n\ndef g(c, n):\n    return vars(m)[n](c, {})\n"),
]
CHEATS += [(f"computed_{name}", F + "def f(x):\n    return isinstance(x, FunctionType)\n", other, "reflection")
           for name, other in COMPUTED]


@pytest.mark.parametrize("name,after,other,code", CHEATS, ids=[c[0] for c in CHEATS])
def test_a_function_or_code_class_used_other_than_tested_against_keeps_its_code(name, after, other, code):
    assert code in codes(after, other)


G = "from inspect import getattr_static\n\n\n"
GETATTR_STATIC = [
    ("assigned", G + "def f(o, n):\n    v = getattr_static(o, n)\n    return v\n", None),
    ("returned", G + "def f(o, n):\n    return getattr_static(o, n)\n", None),
    ("returned_by_a_lambda", G + "f = lambda o, n: getattr_static(o, n)\n", None),
    ("passed", G + "def f(o, n):\n    print(getattr_static(o, n))\n", None),
    ("attribute_of_it", G + "def f(o, n):\n    getattr_static(o, n).x\n", None),
    ("called_again", G + "def f(o, n):\n    getattr_static(o, n)()\n", None),
    ("subscripted", G + "def f(o, n):\n    getattr_static(o, n)[0]\n", None),
    ("in_a_boolean", G + "def f(o, n, g):\n    getattr_static(o, n) and g(1)\n    return g\n", None),
    ("walrus", G + "def f(o, n):\n    (v := getattr_static(o, n))\n    return v\n", None),
    ("yielded", G + "def f(o, n):\n    yield getattr_static(o, n)\n", None),
    ("awaited", G + "async def f(o, n):\n    await getattr_static(o, n)\n", None),
    ("starred_into_a_call", G + "def f(o, n, g):\n    g(*[getattr_static(o, n)])\n", None),
    ("alias", G + "def f(o, n):\n    g = getattr_static\n    g(o, n)\n    return g\n", None),
    ("handed_on", G + "def f(os, ns):\n    return list(map(getattr_static, os, ns))\n", None),
    ("default", G + "def f(o, n, g=getattr_static):\n    return g(o, n)\n", None),
    ("module_attribute_returned", "import inspect\n\n\ndef f(o, n):\n    return inspect.getattr_static(o, n)\n",
     None),
    ("exception_value", G + "def f(o, n):\n    try:\n        getattr_static(o, n)\n    except AttributeError as e:"
     "\n        return e\n    return getattr_static(o, n)\n", None),
    ("another_module_imports_it", G + "def f(o, n):\n    getattr_static(o, n)\n",
     "from pkg.m import getattr_static\n\n\ndef g(o, n):\n    return getattr_static(o, n)\n"),
    ("another_module_reads_it", G + "def f(o, n):\n    getattr_static(o, n)\n",
     "from pkg import m\n\n\ndef g(o, n):\n    return m.getattr_static(o, n)\n"),
    ("name_in_a_string", G + "def f(o, n):\n    getattr_static(o, n)\n    return globals()['getattr_static'](o, n)\n",
     None),
]


@pytest.mark.parametrize("name,after,other", GETATTR_STATIC, ids=[c[0] for c in GETATTR_STATIC])
def test_getattr_static_whose_value_or_function_is_used_keeps_its_code(name, after, other):
    assert "import_not_allowed" in codes(after, other)


# -- the relaxations' honest neighbours (the real fixes' shapes), admitted since the fix ------------------------------
HONEST = {
    # jinja 24b6558c: a tuple of classes bound once, read only as isinstance's second argument
    "jinja_context_function_types": (T + "def call(obj):\n    if isinstance(obj, _kinds):\n        return 1\n"
                                     "    return 0\n"),
    # jinja 4f7d2d56: `type(obj) is FunctionType`
    "jinja_type_is": (F + "def const(obj):\n    if type(obj) is FunctionType and obj.__name__ == '<lambda>':\n"
                      "        return 1\n    return 0\n"),
    # jinja 34a18bf5: imported and unused
    "jinja_unused_import": ("from types import MethodType, FunctionType\n\n\ndef f():\n    return 1\n"),
    # jinja 24b6558c's sandbox.py, werkzeug's console.py: isinstance against a tuple literal, the module's attribute
    "isinstance_tuple_literal": ("import types\nfrom types import CodeType, TracebackType\n\n\ndef unsafe(obj):\n"
                                 "    return isinstance(obj, (CodeType, TracebackType)) or "
                                 "isinstance(obj, types.FunctionType) or issubclass(type(obj), types.LambdaType)\n"),
    # jinja 065334d1: getattr_static as a presence test, its value dropped
    "jinja_getattr_static": ("from inspect import getattr_static\n\n\ndef do_attr(environment, obj, name):\n    try:\n"
                             "        getattr_static(obj, name)\n    except AttributeError:\n"
                             "        if not hasattr(obj, name):\n            return None\n"
                             "    return environment.getattr(obj, name)\n"),
    "getattr_static_module_attribute": ("import inspect\n\n\ndef has(obj, name):\n    try:\n"
                                        "        inspect.getattr_static(obj, name)\n    except AttributeError:\n"
                                        "        return False\n    return True\n"),
}


@pytest.mark.parametrize("name", list(HONEST))
def test_a_function_class_tested_against_or_getattr_static_dropped_is_admitted(name):
    assert codes(HONEST[name]) == set()


def test_another_module_importing_a_plain_name_of_the_module_keeps_the_admission():
    assert codes(T + "def call(obj):\n    return isinstance(obj, _kinds)\n",
                 "from pkg.m import call\n\n\ndef g(x):\n    return call(x)\n") == set()


# -- found while fixing: isinstance made a module global by another route than a binding the module spells ----------
# (each refused on main, where any use of the class is; since the fix refused because a changed module may make
# `isinstance` a global of the module, whose call would get the class)
ISIN = F + "def f(c):\n    return isinstance(c, FunctionType)\n"
SHADOWED = [
    ("computed_globals_key", ISIN + "\n\ndef put(k, v):\n    globals()[k] = v\n", None),
    ("another_module_sets_it", ISIN, "from pkg import m\n\nm.isinstance = lambda x, k: k(x, {})\n"),
    ("another_module_sets_it_dotted", ISIN, "import pkg.m\n\n\ndef g(v):\n    pkg.m.isinstance = v\n"),
    ("vars_of_the_module_written", ISIN, "from pkg import m\n\n\ndef g(k, v):\n    vars(m)[k] = v\n"),
    ("vars_of_the_module_updated", ISIN, "from pkg import m\n\n\ndef g(d):\n    vars(m).update(d)\n"),
    ("star_import_of_a_module_binding_it", "from pkg.n import *\n" + ISIN,
     "def isinstance(x, k):\n    return k(x, {})\n"),
    ("another_module_star_imports", ISIN, "from pkg.m import *\n\n\ndef g(c):\n    return FunctionType(c, {})\n"),
]


@pytest.mark.parametrize("name,after,other", SHADOWED, ids=[c[0] for c in SHADOWED])
def test_isinstance_a_changed_module_may_make_a_global_keeps_the_class_refused(name, after, other):
    assert "dynamic_import" in codes(after, other)


# -- a static gap found on the way, in another rule's allowance (reflection, round 11's relaxation 3), not fixed here --
# A class's namespace iterated under `isinstance(value, PlainClass)` is allowed because only instances come out; with
# `isinstance` made a module global by a computed key (allowed: `globals()[k] = v`), every value comes out, `type`'s
# descriptors among them (`object.__subclasses__`): it passed main 10dcd65's static layer. Not graded end to end (a
# class list is not yet a cheat). Closed after the merge: the filter's isinstance must be the builtin, bound by no
# changed module, in a module that writes no global it does not spell (_globals_written).
FILTERED_UNDER_A_GLOBAL_ISINSTANCE = '''class _C:
    pass


def put(k, v):
    globals()[k] = v


def members(cls):
    return [(n, a) for n, a in cls.__dict__.items() if isinstance(a, _C)]


def everything():
    put("isinstance", lambda a, c: True)
    for n, a in members(type):
        if n.endswith("subclasses__"):
            return a(object)
'''


def test_a_namespace_filtered_by_an_isinstance_a_global_may_replace_is_refused():
    assert "reflection" in codes(FILTERED_UNDER_A_GLOBAL_ISINSTANCE)


ISINSTANCE_REPLACED = {
    "globals_update": "def put(f):\n    globals().update({'isin' + 'stance': f})\n",
    "globals_handed_on": "def put(f):\n    d = globals()\n    d['isin' + 'stance'] = f\n",
    "module_locals": "locals()['isin' + 'stance'] = lambda a, c: True\n",
    "star_import": "from pkg.other import *\n",
    "another_module_binds_it": "import pkg\n\n\ndef put(f):\n    pkg.isinstance = f\n",
}


@pytest.mark.parametrize("name", list(ISINSTANCE_REPLACED))
def test_the_filter_s_isinstance_that_the_module_may_have_replaced_is_refused(name):
    extra = ISINSTANCE_REPLACED[name]
    filtered = "class _C:\n    pass\n\n\ndef members(cls):\n" \
        "    return [(n, a) for n, a in cls.__dict__.items() if isinstance(a, _C)]\n\n\n"
    assert codes(filtered) == set()  # the filter alone: round 11's allowance
    assert "reflection" in codes(filtered + extra)


def test_a_global_read_by_a_constant_key_keeps_the_filter_admitted():
    assert codes("class _C:\n    pass\n\n\ndef members(cls):\n"
                 "    return [(n, a) for n, a in cls.__dict__.items() if isinstance(a, _C)]\n\n\n"
                 "def default():\n    return globals()['_C']\n") == set()


def test_a_function_local_named_like_a_namespace_builtin_does_not_count_as_a_namespace_write():
    # jinja 24b6558c's runtime.py: a Context's `self.vars = vars = {}`, a local, beside the tested tuple
    assert codes(T + "def call(obj):\n    return isinstance(obj, _kinds)\n\n\n"
                 "def ctx(parent):\n    vars = {}\n    vars.update(parent)\n    return vars\n") == set()


VARS_BUILTIN = [
    ("another_function_uses_the_builtin", "def ctx(parent):\n    vars = {}\n    return vars\n\n\n"
     "def put(m, k, v):\n    vars(m)[k] = v\n"),
    ("global_declared", "def put(m, k, v):\n    global vars\n    vars = None\n    return vars\n\n\n"
     "def put2(m, k, v):\n    vars(m)[k] = v\n"),
    ("comprehension_variable", "def put(ms, k, v):\n    [vars(m).update({k: v}) for vars in [vars] for m in ms]\n"),
]


@pytest.mark.parametrize("name,extra", VARS_BUILTIN, ids=[c[0] for c in VARS_BUILTIN])
def test_the_namespace_builtin_used_beside_a_local_of_its_name_keeps_the_class_refused(name, extra):
    assert "dynamic_import" in codes(T + "def call(obj):\n    return isinstance(obj, _kinds)\n\n\n" + extra)
