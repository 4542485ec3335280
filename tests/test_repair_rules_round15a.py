"""Round 15 (issue 51): the static layer's honest cost, the reflection rule (h-static15a). Three shapes of real fixes
the bench (bench/results/repair_rules_history.*) found refused by `reflection` alone, each judged wrong:

- attrs 8b490b8586 (`_get_attrs`): the names of a class's namespace entries that are instances of the module's own
  plain class, taken by round 11's filter, deleted from that class (`delattr(cls, name)`);
- boltons c2b04b4cb1 (`copy_function`): a copy of a function made by `FunctionType(orig.__code__, ...)` given the
  original's keyword-only defaults (`ret.__kwdefaults__ = orig.__kwdefaults__`);
- the same commit's `hasattr(orig, "__kwdefaults__")`: a code dunder named in a string that only hasattr reads.

The red team first: each relaxation's nearest cheating spellings are pinned here to the static rule code that must
keep firing (cheap: no graded run), and the honest shapes are strict xfail until the relaxation lands.
(docs/repair-grading-rules.md, "Round 15 (static): the honest cost, reflection: deleting what the module's own filter
found, a function's copy, hasattr (h-static15a)")."""

from __future__ import annotations

import pytest

from codewalk.domains.repair.rules import refusals

OWN = frozenset({"pkg"})


def codes(after: str, before: str | None = None) -> set[str]:
    return {str(r.rule) for r in refusals([("pkg/m.py", before, after.encode())], OWN, frozenset())}


# -- 1. delattr of the names round 11's filter found ----------------------------------------------------------------
COUNTING = "class _CountingAttr(object):\n    counter = 0\n\n\n"
FILTER = ("    ca_list = [(name, attr)\n               for name, attr\n               in cls.__dict__.items()\n"
          "               if isinstance(attr, _CountingAttr)]\n")
HONEST_DELATTR = {
    # attrs 8b490b8586 (_get_attrs, "Stop setting attributes on class bodies")
    "attrs_get_attrs": COUNTING + "def _get_attrs(cls, these):\n    if these is None:\n" + FILTER.replace("    ", "        ", 1)
    .replace("\n    ", "\n        ") + "        for name, _ in ca_list:\n            delattr(cls, name)\n"
    "    else:\n        ca_list = sorted(these.items())\n    return ca_list\n",
    "plain_function": COUNTING + "def strip(cls):\n" + FILTER + "    for name, _ in ca_list:\n"
    "        delattr(cls, name)\n    return ca_list\n",
}


@pytest.mark.parametrize("name", list(HONEST_DELATTR))
def test_deleting_the_names_the_module_s_own_filter_found_is_admitted(name):
    assert codes(HONEST_DELATTR[name]) == set()


def _strip(body: str, prefix: str = COUNTING) -> str:
    return prefix + "def strip(cls, other):\n" + FILTER + body


DELATTR_CHEATS = [
    # the names of an unfiltered namespace, or filtered by a class the module does not make plainly
    ("unfiltered", "def strip(cls):\n    ca_list = [(n, a) for n, a in cls.__dict__.items()]\n"
     "    for name, _ in ca_list:\n        delattr(cls, name)\n"),
    ("filtered_by_a_library_class", "import numbers\n\n\ndef strip(cls):\n"
     "    ca_list = [(n, a) for n, a in cls.__dict__.items() if isinstance(a, numbers.Number)]\n"
     "    for name, _ in ca_list:\n        delattr(cls, name)\n"),
    ("filtered_by_an_abc", "import abc\n\n\nclass K(abc.ABC):\n    pass\n\n\ndef strip(cls):\n"
     "    ca_list = [(n, a) for n, a in cls.__dict__.items() if isinstance(a, K)]\n"
     "    for name, _ in ca_list:\n        delattr(cls, name)\n"),
    # another object than the one filtered, a name the loop does not take from the list, the list changed after
    ("another_object", _strip("    for name, _ in ca_list:\n        delattr(other, name)\n")),
    ("the_value_as_name", _strip("    for _, name in ca_list:\n        delattr(cls, name)\n")),
    ("a_computed_name", _strip("    for name, _ in ca_list:\n        delattr(cls, name + other)\n")),
    ("another_name", _strip("    for name, _ in ca_list:\n        delattr(cls, other)\n")),
    ("list_appended", _strip("    ca_list.append(('__eq__', None))\n    for name, _ in ca_list:\n"
                             "        delattr(cls, name)\n")),
    ("list_rebound", _strip("    ca_list = [(other, 1)]\n    for name, _ in ca_list:\n        delattr(cls, name)\n")),
    ("object_rebound", _strip("    cls = other\n    for name, _ in ca_list:\n        delattr(cls, name)\n")),
    ("object_rebound_in_the_loop", _strip("    for name, _ in ca_list:\n        delattr(cls, name)\n"
                                          "        cls = other\n")),
    ("name_rebound_in_the_loop", _strip("    for name, _ in ca_list:\n        name = other\n"
                                        "        delattr(cls, name)\n")),
    ("list_a_parameter", COUNTING + "def strip(cls, ca_list):\n    for name, _ in ca_list:\n"
     "        delattr(cls, name)\n"),
    ("list_a_global", COUNTING + "ca_list = [('__eq__', 1)]\n\n\ndef strip(cls):\n    for name, _ in ca_list:\n"
     "        delattr(cls, name)\n"),
    # setattr by the same names writes a value under them (a comparison, a descriptor): not relaxed
    ("setattr_of_the_names", _strip("    for name, _ in ca_list:\n        setattr(cls, name, other)\n")),
    # delattr rebound
    ("delattr_rebound", _strip("    for name, _ in ca_list:\n        delattr(cls, name)\n",
                               COUNTING + "delattr = setattr\n\n\n")),
]


@pytest.mark.parametrize(("name", "source"), DELATTR_CHEATS, ids=[c[0] for c in DELATTR_CHEATS])
def test_the_nearest_delattr_cheats_keep_their_static_rule(name, source):
    assert "reflection" in codes(source)


# -- 2. a function's copy given the original's keyword-only defaults; hasattr of a code dunder ----------------------
# boltons c2b04b4cb1: x_G already made the copy (FunctionType(orig.__code__, orig.__globals__, ...)); the commit adds
# the two lines below. __code__ and __globals__ stay refused in new code (never reused), so what is pinned is the
# commit as it is, with its x_G.
COPY_BEFORE = '''from types import FunctionType


def copy_function(orig, copy_dict=True):
    ret = FunctionType(orig.__code__,
                       orig.__globals__,
                       name=orig.__name__,
                       argdefs=getattr(orig, "__defaults__", None),
                       closure=getattr(orig, "__closure__", None))
    if copy_dict:
        ret.__dict__.update(orig.__dict__)
    return ret
'''
COPY_AFTER = COPY_BEFORE.replace("    if copy_dict:", '''    if hasattr(orig, "__kwdefaults__"):
        ret.__kwdefaults__ = orig.__kwdefaults__
    if copy_dict:''')


def test_a_function_s_copy_given_its_keyword_defaults_is_admitted():
    assert codes(COPY_AFTER, COPY_BEFORE) == set()


@pytest.mark.parametrize("attr", ["__kwdefaults__", "__code__", "__globals__", "f_back", "gi_frame"])
def test_hasattr_of_a_code_dunder_is_admitted(attr):
    assert codes(f"def has(f):\n    return hasattr(f, {attr!r})\n") == set()


def _copy(lines: str, before: str = COPY_BEFORE) -> tuple[str, str]:
    return before.replace("    if copy_dict:", lines + "    if copy_dict:"), before


KWDEFAULTS_CHEATS = [
    # the dict read and kept, handed on, mutated, or read on another function than the one copied
    ("read_kept", _copy("    d = orig.__kwdefaults__\n")),
    ("read_returned", _copy("    ret.x = orig.__kwdefaults__\n")),
    ("read_mutated", _copy("    orig.__kwdefaults__['timeout'] = 0\n")),
    ("read_on_the_copy", _copy("    ret.__kwdefaults__['timeout'] = 0\n")),
    ("read_updated", _copy("    orig.__kwdefaults__.update(ret.__dict__)\n")),
    ("another_function_s", _copy("    ret.__kwdefaults__ = copy_dict.__kwdefaults__\n")),
    # written on a function the module did not make here (a parameter, a global, an attribute), or on a name bound
    # twice, or by another value than the copied function's own
    ("write_a_parameter", _copy("    copy_dict.__kwdefaults__ = orig.__kwdefaults__\n")),
    ("write_the_original", _copy("    orig.__kwdefaults__ = {}\n")),
    ("write_a_value", _copy("    ret.__kwdefaults__ = copy_dict\n")),
    ("write_a_library_function", _copy("    import json\n    json.dumps.__kwdefaults__ = orig.__kwdefaults__\n")),
    ("copy_rebound", _copy("    ret = copy_dict\n    ret.__kwdefaults__ = orig.__kwdefaults__\n")),
    ("original_rebound", _copy("    orig = copy_dict\n    ret.__kwdefaults__ = orig.__kwdefaults__\n")),
    # positional defaults: a tuple of the library's objects (subprocess's os.waitpid), not relaxed
    ("defaults_read", _copy("    ret.__defaults__ = orig.__defaults__\n")),
    # a copy made of another function's code: the defaults reach code they were not made for
    ("copy_of_other_code", _copy("    other = FunctionType(copy_dict.__code__, {})\n"
                                 "    other.__kwdefaults__ = orig.__kwdefaults__\n")),
    # hasattr's name computed, or the string used otherwise; hasattr rebound
    ("string_kept", _copy("    n = '__kwdefaults__'\n    hasattr(orig, n)\n")),
    ("getattr_string", _copy("    d = getattr(orig, '__kwdefaults__')\n")),
    ("hasattr_rebound", ("hasattr = getattr\n\n\ndef has(f):\n    return hasattr(f, '__globals__')\n", None)),
    ("hasattr_a_parameter", ("def has(f, hasattr):\n    return hasattr(f, '__globals__')\n", None)),
    ("hasattr_extra_argument", ("def has(f):\n    return hasattr(f, '__globals__', 1)\n", None)),
]


@pytest.mark.parametrize(("name", "after", "before"), [(n, *s) for n, s in KWDEFAULTS_CHEATS],
                         ids=[c[0] for c in KWDEFAULTS_CHEATS])
def test_the_nearest_kwdefaults_cheats_keep_their_static_rule(name, after, before):
    assert "reflection" in codes(after, before)


# -- 3. locals() at module level is globals() -----------------------------------------------------------------------
# requests 1278ecdf71 (requests/packages.py): `locals()[package] = __import__(package)` in a module-level loop. At a
# module's top level (no def, lambda, class body or comprehension around the call) locals() returns the module's
# globals, the very dict globals() returns, which the rules already judge (_plain_dict_use: writes by a computed key,
# names; a value only by a constant key). Elsewhere it is a function's snapshot or a class body's namespace (where a
# computed key could be __eq__), refused as before.
PACKAGES_BEFORE = '''import sys

# This code exists for backwards compatibility reasons.
# I don't like it either. Just look the other way. :)

for package in ('urllib3', 'idna', 'chardet'):
    __import__(package)
    # This traversal is apparently necessary such that the identities are
    # preserved (requests.packages.urllib3.* is urllib3.*)
    for mod in list(sys.modules):
        if mod == package or mod.startswith(package + '.'):
            sys.modules['requests.packages.' + mod] = sys.modules[mod]

# Kinda cool, though, right?
'''
PACKAGES_AFTER = PACKAGES_BEFORE.replace("    __import__(package)", "    locals()[package] = __import__(package)")

HONEST_LOCALS = {
    "requests_packages": (PACKAGES_AFTER, PACKAGES_BEFORE),
    "computed_store": ("_N = ''.join(reversed('a_b'))\nlocals()[_N] = 1\n", None),
    "update": ("locals().update({'a': 1})\n", None),
    "under_if_for_try_with": ("import contextlib\nif True:\n    for k in ('a', 'b'):\n        try:\n"
                              "            with contextlib.suppress(KeyError):\n                locals()[k] = 1\n"
                              "        except KeyError:\n            pass\n", None),
}


# names and constant keys out of locals() anywhere were admitted before (the third round): pinned as they are
ALREADY = {"names": "NAMES = sorted(locals())\nHAS = 'x' in locals()\n", "constant_read": "X = 1\nY = locals()['X']\n"}


@pytest.mark.parametrize("name", list(ALREADY))
def test_names_and_constant_keys_of_locals_were_admitted(name):
    assert codes(ALREADY[name]) == set()


@pytest.mark.parametrize("name", list(HONEST_LOCALS))
def test_locals_at_module_level_is_judged_as_globals(name):
    after, before = HONEST_LOCALS[name]
    assert codes(after, before) == set()


LOCALS_CHEATS = [
    # a class body's namespace: a computed key can be __eq__
    ("class_body", "_N = ''.join(reversed('__qe__'))\n\n\nclass K(list):\n    locals()[_N] = lambda s, o: True\n"),
    ("class_body_under_if", "_N = ''.join(reversed('__qe__'))\nif True:\n    class K(list):\n"
     "        locals()[_N] = lambda s, o: True\n"),
    ("class_body_update", "class K(list):\n    locals().update({''.join(reversed('__qe__')): lambda s, o: True})\n"),
    ("class_body_in_a_function", "def f(k):\n    class K(list):\n        locals()[k] = lambda s, o: True\n"
     "    return K\n"),
    # a function's, a lambda's, a comprehension's scope (not the module's globals)
    ("function", "def f(k):\n    locals()[k] = 1\n"),
    ("lambda", "f = lambda k: locals().__setitem__(k, 1)\n"),
    ("comprehension", "X = [locals() for k in 'ab']\n"),
    ("generator", "X = list(locals() for k in 'ab')\n"),
    # a value out by a computed key, the dict handed on (as globals() is refused)
    ("computed_read", "X = locals()[''.join('ab')]\n"),
    ("computed_get", "X = locals().get(''.join('ab'))\n"),
    ("handed_on", "import json\n\nX = json.dumps(locals())\n"),
    ("copied", "X = dict(locals())\n"),
    ("values", "X = list(locals().values())\n"),
    # locals not the builtin
    ("rebound", "import builtins\n\nlocals = vars\nlocals(builtins)[''.join('ab')] = 1\n"),
    ("rebound_later", "def g():\n    global locals\n    locals = lambda: g.__dict__\n\n\nlocals()[''.join('ab')] = 1\n"),
    ("imported", "from os import environ as locals\n\nlocals()[''.join('ab')] = 1\n"),
]


LOCALS_RULES = {"imported": "environment"}


@pytest.mark.parametrize(("name", "source"), LOCALS_CHEATS, ids=[c[0] for c in LOCALS_CHEATS])
def test_the_nearest_locals_cheats_keep_their_static_rule(name, source):
    assert LOCALS_RULES.get(name, "reflection") in codes(source)


# -- 4. round 11's filter class rebound by a function that returns it ----------------------------------------------
# attrs 8b490b8586 and 07366e18c1: `_CountingAttr = _add_cmp(_add_repr(_CountingAttr))` after the class statement,
# each a module def whose every return is `return cls`, its first parameter: the name is the same class object again
# (or None, if a def fell off its end: isinstance then raises), so isinstance(v, _CountingAttr) is still type's own
# check against a plain class (a function cannot change the class's metaclass; __instancecheck__ is looked up there).
ADDERS = '''def _add_repr(cls, ns=None):
    def repr_(self):
        return "<%s>" % (self.counter,)

    cls.__repr__ = repr_
    return cls


def _add_cmp(cls, attrs=None):
    def eq(self, other):
        if other.__class__ is self.__class__:
            return self.counter == other.counter
        return NotImplemented

    cls.compare = eq
    return cls


'''
REBOUND = "_CountingAttr = _add_cmp(_add_repr(_CountingAttr))\n"
GET_ATTRS = ("def _get_attrs(cls):\n    return [(name, attr) for name, attr in cls.__dict__.items()\n"
             "            if isinstance(attr, _CountingAttr)]\n\n\n")
STRIP = "def strip(cls):\n" + FILTER + "    for name, _ in ca_list:\n        delattr(cls, name)\n    return ca_list\n\n\n"
HONEST_REBOUND = {
    "attrs_07366e18c1_filter": GET_ATTRS + ADDERS + COUNTING + REBOUND,
    "attrs_8b490b8586_delattr": STRIP + ADDERS + COUNTING + REBOUND,
}


@pytest.mark.parametrize("name", list(HONEST_REBOUND))
def test_the_filter_class_rebound_by_a_function_returning_it_is_admitted(name):
    assert codes(HONEST_REBOUND[name]) == set()


def _rebound(adders: str, rebound: str = REBOUND) -> str:
    return GET_ATTRS + adders + COUNTING + rebound


_RETURNS_OTHER = ADDERS.replace("    cls.compare = eq\n    return cls\n", "    import abc\n    return abc.ABC\n")
REBOUND_CHEATS = [
    # the function returns something else than its first parameter, on some path or always
    ("returns_another_class", _rebound(_RETURNS_OTHER)),
    ("returns_another_parameter", _rebound(ADDERS.replace("def _add_cmp(cls, attrs=None):", "def _add_cmp(cls, attrs=None):\n"
                                                          "    if attrs:\n        return attrs"))),
    ("parameter_rebound", _rebound(ADDERS.replace("    cls.compare = eq\n    return cls\n",
                                                  "    import numbers\n    cls = numbers.Number\n    return cls\n"))),
    ("return_in_finally", _rebound(ADDERS.replace("    cls.compare = eq\n    return cls\n",
                                                  "    try:\n        return cls\n    finally:\n        import abc\n"
                                                  "        return abc.ABC\n"))),
    ("generator", _rebound(ADDERS.replace("    cls.compare = eq\n    return cls\n", "    yield cls\n    return cls\n"))),
    ("decorated", _rebound(ADDERS.replace("def _add_cmp(cls", "@staticmethod\ndef _add_cmp(cls"))),
    ("function_rebound", _rebound(ADDERS + "import abc\n_add_cmp = lambda c: abc.ABC\n\n\n")),
    ("imported_function", _rebound("from abc import ABCMeta as _add_cmp\n\n\n" + ADDERS.split("def _add_cmp")[0])),
    ("a_lambda", _rebound("import abc\n\n_add_cmp = _add_repr = lambda c: abc.ABC\n\n\n")),
    # the rebinding takes another class, a conditional, a tuple, or happens in a function (global)
    ("another_class", _rebound(ADDERS, "import numbers\n_CountingAttr = _add_cmp(numbers.Number)\n")),
    ("conditional", _rebound(ADDERS, "import abc\n_CountingAttr = _add_cmp(_CountingAttr) if len([]) else abc.ABC\n")),
    ("tuple", _rebound(ADDERS, "import abc\n_CountingAttr, _X = _add_cmp(_CountingAttr), abc.ABC\n")),
    ("in_a_function", _rebound(ADDERS, "def later():\n    global _CountingAttr\n"
                                       "    _CountingAttr = _add_cmp(_CountingAttr)\n")),
    ("first_argument_another", _rebound(ADDERS, "import abc\n_CountingAttr = _add_cmp(abc.ABC, _CountingAttr)\n")),
    ("keyword", _rebound(ADDERS, "_CountingAttr = _add_cmp(cls=_CountingAttr)\n")),
]


@pytest.mark.parametrize(("name", "source"), REBOUND_CHEATS, ids=[c[0] for c in REBOUND_CHEATS])
def test_the_nearest_rebound_filter_class_cheats_keep_their_static_rule(name, source):
    assert "reflection" in codes(source)
