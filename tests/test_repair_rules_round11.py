"""Round 11 (issue 51): the static layer's honest cost. Each relaxation admits an honest construct the rules-history
bench found refused (bench/results/repair_rules_history.*), and is pinned here beside its nearest cheating spellings,
which stay refused with their rule code (docs/repair-grading-rules.md, "Round 11: the static layer's honest cost")."""

from __future__ import annotations

import pytest

from codewalk.domains.repair.rules import refusals

OWN = frozenset({"pkg"})


def codes(after: str, before: str | None = None) -> set[str]:
    return {str(r.rule) for r in refusals([("pkg/m.py", before, after.encode())], OWN, frozenset())}


# -- 1. a private name a namespace the module builds is given by a constant key is a name the module defines --------
# marshmallow's SerializerMeta: `attrs['_declared_fields'] = ...` in __new__, read as `base._declared_fields`
META = "class Meta(type):\n    def __new__(mcs, name, bases, attrs):\n        attrs['_declared_fields'] = {}\n" \
       "        return type.__new__(mcs, name, bases, attrs)\n\n\n"


@pytest.mark.parametrize("source", [
    META + "def fields(bases):\n    return [b._declared_fields for b in bases if hasattr(b, '_declared_fields')]\n",
    "ns = {'_base_fields': {}}\n\n\ndef fields(base):\n    return base._base_fields.items()\n",
])
def test_a_private_name_given_as_a_constant_key_of_a_namespace_is_defined_by_the_module(source):
    assert codes(source) == set()


@pytest.mark.parametrize("source", [
    META + "def store(item):\n    return item._store\n",  # a private name nothing here defines
    "ns = {'_declared_fields': {}}\n\n\ndef f(item):\n    return item._request\n",
    "ns = {}\nns['_' + 'store'] = 1\n\n\ndef f(item):\n    return item._store\n",  # a computed key defines nothing
    "ns = {'__eq__': 1}\n\n\ndef f(item):\n    return item.__eq__\n",  # nor a key that changes what compares equal
])
def test_a_private_name_no_constant_key_or_assignment_defines_stays_refused(source):
    assert "reflection" in codes(source)


# -- 2. a name of ROUTES that ends a chain on the repository's own module and is called is its function -----------
# attrs's `attrs.inspect(cls)`, marshmallow's `from marshmallow.core import marshal; marshal(value, fields)`: a
# module object is not callable, so what is called is the repository's function of that name
@pytest.mark.parametrize("source", [
    "import pkg\n\n\ndef f(c):\n    return pkg.inspect(c)\n",
    "from pkg.core import marshal\n\n\ndef f(v, fields):\n    return marshal(v, fields)\n",
    "import pkg.utils\n\n\ndef f(c):\n    return pkg.utils.traceback(c)\n",
])
def test_a_route_name_called_at_the_end_of_an_own_chain_is_the_repositorys_function(source):
    assert codes(source) == set()


@pytest.mark.parametrize(("source", "rule"), [
    ("import pkg\n\n\ndef f():\n    return pkg.inspect.stack()\n", "import_not_allowed"),
    ("import pkg\n\n\ndef f():\n    return pkg.sys.modules\n", "import_not_allowed"),
    ("import pkg\n\nm = pkg.inspect\n", "reflection"),  # the module as a value, whatever is done with it after
    ("import pkg\n\n\ndef f(c):\n    return pkg.inspect.currentframe(c)\n", "import_not_allowed"),
    ("from pkg.core import marshal\n\n\ndef f(b):\n    return marshal.loads(b)\n", "dynamic_import"),
    ("import pkg\n\n\ndef f():\n    return pkg.sys._getframe(0)\n", "reflection"),
    ("import pkg\n\n\ndef f():\n    return pkg.gc.get_objects()\n", "import_not_allowed"),
])
def test_a_route_name_used_otherwise_than_called_stays_the_module_it_names(source, rule):
    assert rule in codes(source)


# -- 3. a class's namespace iterated, each value first tested by isinstance against a plain class of this module ----
# attrs's `[(name, attr) for name, attr in cls.__dict__.items() if isinstance(attr, _CountingAttr)]`
PLAIN = "class _CountingAttr(object):\n    pass\n\n\n"
ITEMS = "def attrs_of(cls):\n    return [(name, a) for name, a in cls.__dict__.items() if isinstance(a, _CountingAttr)]\n"


@pytest.mark.parametrize("source", [
    PLAIN + ITEMS,
    PLAIN + "def attrs_of(cls):\n    return [a for a in cls.__dict__.values() if isinstance(a, _CountingAttr)]\n",
    PLAIN + "def attrs_of(cls):\n    out = []\n    for name, a in cls.__dict__.items():\n"
            "        if isinstance(a, _CountingAttr):\n            out.append((name, a))\n    return out\n",
    "class _Base:\n    pass\n\n\nclass _CountingAttr(_Base, dict):\n    pass\n\n\n" + ITEMS,
])
def test_a_namespace_iterated_under_isinstance_of_a_plain_class_of_the_module_is_allowed(source):
    assert codes(source) == set()


@pytest.mark.parametrize("source", [
    "def attrs_of(cls):\n    return [(name, a) for name, a in cls.__dict__.items()]\n",  # every value out
    PLAIN + "def attrs_of(cls):\n    return [a for n, a in cls.__dict__.items() if keep(a) and isinstance(a, _CountingAttr)]\n",
    PLAIN + "def attrs_of(cls):\n    return [a for n, a in cls.__dict__.items() if keep(a) if isinstance(a, _CountingAttr)]\n",
    PLAIN + "def attrs_of(cls):\n    return [a for n, a in cls.__dict__.items() if isinstance(n, _CountingAttr)]\n",
    # a class whose isinstance check the change can steer: a metaclass, an ABC's __subclasshook__, a decorator
    "class M(type):\n    def __instancecheck__(cls, o):\n        return True\n\n\n"
    "class _CountingAttr(metaclass=M):\n    pass\n\n\n" + ITEMS,
    "import abc\n\n\nclass _CountingAttr(abc.ABC):\n    @classmethod\n    def __subclasshook__(cls, c):\n"
    "        return True\n\n\n" + ITEMS,
    "def deco(c):\n    return c\n\n\n@deco\nclass _CountingAttr:\n    pass\n\n\n" + ITEMS,
    PLAIN + "_CountingAttr = object\n\n\n" + ITEMS,  # the name rebound
    "_T = type\n\n\nclass _CountingAttr(_T):\n    pass\n\n\n" + ITEMS,  # a variable as base
    # a for statement that uses a value outside the test
    PLAIN + "def attrs_of(cls):\n    for name, a in cls.__dict__.items():\n        seen(a)\n"
            "        if isinstance(a, _CountingAttr):\n            keep(a)\n",
    PLAIN + "def attrs_of(cls):\n    for name, a in cls.__dict__.items():\n        if isinstance(a, _CountingAttr):\n"
            "            keep(a)\n        else:\n            other(a)\n",
])
def test_a_namespace_whose_values_come_out_before_or_without_that_test_stays_refused(source):
    assert "reflection" in codes(source)


# -- 4. a class cloned from another's namespace copy and bases (attrs's slotted classes) --------------------------------
CLONE = """
def slotted(cls, names):
    cd = dict(cls.__dict__)
    cd["__slots__"] = tuple(names)
    for name in names:
        cd.pop(name, None)
    cd.pop("__dict__", None)
    del cd["__weakref__"]
    qualname = getattr(cls, "__qualname__", None)
    cls = type(cls.__name__, cls.__bases__, cd)
    if qualname is not None:
        cls.__qualname__ = qualname
    return cls
"""


def test_a_class_cloned_from_its_own_namespace_copy_and_bases_is_allowed():
    assert codes(CLONE) == set()


@pytest.mark.parametrize("source", [
    CLONE.replace('cd["__slots__"] = tuple(names)', 'cd["__eq__"] = lambda s, o: True'),  # a behaviour dunder put in
    CLONE.replace('cd["__slots__"] = tuple(names)', 'cd[names[0]] = names[1]'),  # a computed key put in
    CLONE.replace('cd.pop("__dict__", None)', 'got = cd.pop("__dict__", None)'),  # a value taken out
    CLONE.replace('cd.pop("__dict__", None)', 'got = cd[names[0]]'),  # a value read by a computed key
    CLONE.replace('cd.pop("__dict__", None)', 'give(cd)'),  # the copy handed on
    CLONE.replace('cls.__bases__, cd', 'other.__bases__, cd'),  # another class's bases
    CLONE.replace('cls.__bases__, cd', '(Base,), cd'),
    CLONE.replace('cd.pop("__dict__", None)', 'cls = names[0]'),  # the source rebound before the class is made
    CLONE.replace('    cd = dict(cls.__dict__)', '    for c in names:\n        cd = dict(cls.__dict__)'),
    CLONE.replace('    cd = dict(cls.__dict__)', '    cd = dict(cls.__dict__, __eq__=names)'),
    CLONE.replace('type(cls.__name__', 'type(cls)(cls.__name__'),  # the metaclass of another: refused apart
])
def test_a_class_made_of_anything_else_than_one_class_s_own_parts_stays_refused(source):
    assert "reflection" in codes(source)


def test_a_clone_at_x_g_still_counts_as_the_capability_used_there():
    # attrs c70a9105: x_G cloned by type(); the fix makes the class with type(cls)(...), refused apart, and keeps the
    # copy `dict(cls.__dict__)` it had at x_G, which stays excused where it was
    after = CLONE.replace("type(cls.__name__", "type(cls)(cls.__name__")
    found = refusals([("pkg/m.py", CLONE.encode(), after.encode())], OWN, frozenset())
    assert [r.what for r in found] == ["makes a class with the metaclass of another (type(x)(name, bases, ns))"]


# -- 5. typing._GenericAlias, the class of typing.List[int] ------------------------------------------------------------
@pytest.mark.parametrize("source", [
    "from typing import _GenericAlias\n\n\ndef generic(t):\n    return isinstance(t, _GenericAlias)\n",
    "import typing\n\n\ndef generic(t):\n    return isinstance(t, typing._GenericAlias)\n",
])
def test_typing_s_generic_alias_class_is_allowed(source):
    assert codes(source) == set()


@pytest.mark.parametrize("source", [
    "from typing import _type_check\n",
    "import typing\n\nx = typing._SpecialForm\n",
    "from typing import _GenericAlias\n\ng = _GenericAlias.__init__.__globals__\n",
    "import typing\n\ng = typing._GenericAlias._private\n",
])
def test_typing_s_other_private_names_and_what_the_alias_class_reaches_stay_refused(source):
    assert "reflection" in codes(source)


# -- a hole found on the way, closed: a template joined from pieces none of which parses ------------------------------
@pytest.mark.parametrize("source", [
    "def f(x):\n    t = '{0.' + '__globals__}'\n    return t.format(x)\n",
    "def f(x):\n    t = '{0.'\n    t += '__globals__}'\n    return t.format(x)\n",
    "A = '{0.'\nB = A + '__glo' + 'bals__}'\n\n\ndef f(x):\n    return B.format(x)\n",
    "def f(x):\n    t = '{' + '0.__init__.__globals__}'\n    return str.format(t, x)\n",
])
def test_a_format_template_joined_from_pieces_that_do_not_parse_is_computed(source):
    assert "format_path" in codes(source)


@pytest.mark.parametrize("source", [
    "def f(a, b):\n    t = '{0}: ' + '{1}'\n    return t.format(a, b)\n",
    "def f(a, b):\n    t = 'value {{braced}} '\n    t += '{0!r}'\n    return t.format(a)\n",
    "MESSAGE = 'not a valid {kind}: ' + '{value!r}'\n\n\ndef f(k, v):\n    return MESSAGE.format(kind=k, value=v)\n",
])
def test_a_format_template_joined_from_whole_templates_is_read_as_text(source):
    assert codes(source) == set()


# -- 6. a local bound to literals, formatted once into itself (marshmallow's message) ---------------------------------
ONCE = """
def invalid(names, cls, many):
    if many:
        message = '{0} are not valid fields for {1}.'
    else:
        message = '{0} is not a valid field for {1}.'
    message = message.format(names, cls.__name__)
    raise AttributeError(message)
"""


def test_a_local_bound_to_literals_formatted_once_into_itself_is_read_as_those_literals():
    assert codes(ONCE) == set()


@pytest.mark.parametrize("source", [
    ONCE.replace("    raise AttributeError(message)", "    message = message.format(names)"),  # its own result formatted
    ONCE.replace("    raise AttributeError(message)", "    other = message.format(1)"),
    "def invalid(names):\n    message = '{0}'\n    for name in names:\n        message = message.format(name)\n"
    "    return message\n",  # in a loop: the second time round it formats its own result
    ONCE.replace("'{0} is not a valid field for {1}.'", "names[0]"),  # a value, not a literal
    ONCE.replace("'{0} is not a valid field for {1}.'", "'{0.' + '__globals__}'"),  # pieces that do not parse
    ONCE.replace("def invalid(names, cls, many):", "def invalid(names, cls, many, message='{0}'):"),  # a parameter
    ONCE.replace("    if many:", "    global message\n    if many:"),  # a global: formatted again at the next call
    ONCE.replace("    raise AttributeError(message)", "    message += '{0}'\n    return message.format(1)"),
])
def test_a_format_string_that_may_hold_its_own_result_or_a_value_stays_computed(source):
    assert "format_path" in codes(source)
