"""The static layer's rules against round 10's static escapes (issue 51, tests/redteam_round10_cheats.py): what is not
known to be harmless is refused, each principle pinned by its rule code beside honest spellings that stay allowed."""

from __future__ import annotations

import pytest

from codewalk.domains.repair.rules import refusals

OWN = frozenset({"pkg"})
PUT = "class _Put:\n    def put(self, k, v):\n        setattr(self, k, v)\n\n\n"
GET = "class _Get:\n    def get(self, k):\n        return getattr(self, k)\n\n\n"


def codes(after: str, before: str | None = None) -> set[str]:
    return {str(r.rule) for r in refusals([("pkg/m.py", before, after.encode())], OWN, frozenset())}


@pytest.mark.parametrize("source", [
    # 1: a setter or getter of one's own attributes bound to another object by the function's own __get__ is the
    # call through the class with that object first: every link of a chain is judged, not its last only
    PUT + "import collections\n\n\ndef f(g):\n    _Put.put.__get__(collections.UserList)('_UserList' + '__cast', g)\n",
    PUT + "def f(kind, g):\n    _Put.put.__get__(kind)('__e' + 'q__', g)\n",
    GET + "import collections\n\nspace = _Get.get.__get__(collections.Counter.__eq__)('__glo' + 'bals__')\n",
    GET + "def cells(fn):\n    return _Get.get.__get__(fn)('__clo' + 'sure__')\n",
    GET + "def cells(fn):\n    return _Get.get.__get__(fn, type(fn))('__clo' + 'sure__')\n",
    # the same function looked up by a constant name, or bound by a two-argument super() to another object
    PUT + "def f(o, g):\n    _Put.__dict__['put'](o, '__e' + 'q__', g)\n",
    PUT + "def f(o, g):\n    vars(_Put)['put'](o, '__e' + 'q__', g)\n",
    PUT + "def f(o, g):\n    getattr(_Put, 'put')(o, '__e' + 'q__', g)\n",
    PUT + "class _Sub(_Put):\n    pass\n\n\ndef f(o, g):\n    super(_Sub, o).put('__e' + 'q__', g)\n",
    # a bound method's __func__ is the plain function: it takes any first argument
    PUT + "def f(kind, g):\n    _Put().put.__func__(kind, '__e' + 'q__', g)\n",
    # 2: a metaclass by any route: a base that is not known to be a plain class gives no setter-of-self exemption
    "_T = type\n\n\nclass _Meta(_T):\n    def put(self, k, v):\n        setattr(self, k, v)\n",
    "import abc\n\n\nclass _Meta(abc.ABCMeta):\n    def put(self, k, v):\n        setattr(self, k, v)\n",
    "from pkg.base import Base\n\n\nclass A(Base):\n    def put(self, k, v):\n        setattr(self, k, v)\n",
    "def maker():\n    return type\n\n\nclass _Meta(maker()):\n    def put(self, k, v):\n        setattr(self, k, v)\n",
    "_T = type\n\n\nclass _M(_T):\n    pass\n\n\nclass _Meta(_M):\n    def put(self, k, v):\n        setattr(self, k, v)\n",
    # 3: update_wrapper / wraps write their wrapper (a setattr per name, its __dict__ updated from the wrapped's):
    # only onto a function this module defines
    "import collections\nimport functools\n\n\nclass _H:\n    def __init__(self):\n        self.x = 1\n\n\n"
    "def f():\n    return functools.update_wrapper(collections.UserList(), _H())\n",
    "import collections\nimport functools\n\n\nclass _H:\n    pass\n\n\n"
    "def f():\n    return functools.wraps(_H())(collections.UserList())\n",
    "import functools\n\n\ndef f(target, holder):\n    return functools.update_wrapper(target, holder)\n",
    "import functools\n\n\ndef f(holder):\n    deco = functools.wraps(holder)\n    return deco\n",
    "from functools import wraps\n\n\ndef f(holder, target):\n    return wraps(holder)(target)\n",
    "import functools\n\n\ndef f(holder):\n    @functools.wraps(holder)\n    class K:\n        pass\n    return K\n",
    # 4: the copy protocol's maker: a library class made with the state written into its __dict__
    "import collections\n\n\nclass R:\n    def __reduce__(self):\n"
    "        return (collections.UserList, (), {'_UserList' + '__cast': self.give})\n",
    "import collections\n\n\nclass R:\n    def __reduce_ex__(self, protocol):\n        state = {}\n"
    "        return (collections.UserList, (), state)\n",
    "class R:\n    def __reduce__(self):\n        return self.maker()\n",
    "import collections\n\n\nclass R:\n    __reduce__ = lambda self: (collections.UserList, (), {})\n",
    "class R:\n    __reduce__ = object.__reduce__\n",
    "import collections\n\n\nclass R:\n    def __reduce__(self):\n        return collections.UserList.__reduce__(self)\n",
    "import functools\n\n\ndef f(m, h):\n    made = functools.partial(print)\n    made = m\n"
    "    return functools.update_wrapper(made, h)\n",
])
def test_round10_static_escape_is_refused_as_reflection(source):
    assert "reflection" in codes(source)


@pytest.mark.parametrize("source", [
    # 1: a method bound with __get__ that reads nothing by computed names; a descriptor's own __get__
    "class A:\n    def name(self):\n        return 'a'\n\n\ndef f(o):\n    return A.name.__get__(o)()\n",
    "class D:\n    def __init__(self, fn):\n        self.fn = fn\n\n    def __get__(self, obj, owner=None):\n"
    "        return self.fn.__get__(obj, owner)\n",
    PUT + "class B(_Put):\n    def set(self, k, v):\n        _Put.put(self, k, v)\n",
    PUT + "class B(_Put):\n    def put(self, k, v):\n        super(B, self).put(k, v)\n",
    PUT + "def f(o):\n    return getattr(_Put(), 'put'), _Put.__dict__['__doc__']\n",
    # 2: plain classes: no base, object, a builtin, a class here, a reviewed library's class, a generic
    "class A:\n    def __init__(self, **kw):\n        for k, v in kw.items():\n            setattr(self, k, v)\n",
    "class A(object):\n    def put(self, k, v):\n        setattr(self, k, v)\n\n\nclass B(A):\n"
    "    def put(self, k, v):\n        setattr(self, k, v)\n",
    "import collections\n\n\nclass A(collections.OrderedDict):\n    def put(self, k, v):\n        setattr(self, k, v)\n",
    "import typing\n\nT = typing.TypeVar('T')\n\n\nclass A(typing.Generic[T]):\n    def put(self, k, v):\n"
    "        setattr(self, k, v)\n",
    "from typing import NamedTuple\n\n\nclass P(NamedTuple):\n    x: int\n",
    "class A(dict):\n    def put(self, k, v):\n        setattr(self, k, v)\n",
    # a class whose metaclass is the repository's is no metaclass: its instances are no classes
    "from pkg.meta import Meta\n\n\nclass A(metaclass=Meta):\n    def put(self, k, v):\n        setattr(self, k, v)\n",
    # 3: the decorator on a function it defines; update_wrapper onto a local def, a lambda or the instance at hand
    "import functools\n\n\ndef deco(f):\n    @functools.wraps(f)\n    def inner(*a):\n        return f(*a)\n    return inner\n",
    "import functools\n\n\ndef deco(f):\n    def inner(*a):\n        return f(*a)\n    return functools.wraps(f)(inner)\n",
    "import functools\n\n\ndef deco(f):\n    return functools.update_wrapper(lambda *a: f(*a), f)\n",
    "import functools\n\n\nclass cached:\n    def __init__(self, func):\n        functools.update_wrapper(self, func)\n"
    "        self.func = func\n",
    # 4: copies of the repository's own objects; a maker that is the object's own class, or the default
    "import copy\n\n\nclass R:\n    def __init__(self, x):\n        self.x = x\n\n\ndef dup(r):\n"
    "    return copy.copy(r), copy.deepcopy(r)\n",
    "class R:\n    def __reduce__(self):\n        return (type(self), (self.x,), {'y': self.y})\n",
    "class R:\n    def __reduce__(self):\n        return (R, (self.x,))\n",
    "class R:\n    def __reduce__(self):\n        return self.__class__, (self.x,)\n",
    "class R:\n    def __reduce_ex__(self, protocol):\n        return super().__reduce_ex__(protocol)\n",
    "class R:\n    def __reduce__(self):\n        return 'R'\n",
    # no state: the maker is only called with its arguments (attrs's `(_none_constructor, _args)`)
    "import collections\n\n\nclass R:\n    def __reduce__(self):\n        return (collections.UserList, ([1],))\n",
    "import collections\n\n\nclass R:\n    def __reduce__(self):\n        return collections.OrderedDict, (), None\n",
    # a base's own hook given the object (requests: CompatJSONDecodeError.__reduce__(self))
    "import json\n\n\nclass E(json.JSONDecodeError):\n    def __reduce__(self):\n"
    "        return json.JSONDecodeError.__reduce__(self)\n",
    "class E(ValueError):\n    def __reduce__(self):\n        return ValueError.__reduce__(self)\n",
    # `type` a parameter elsewhere in the module (werkzeug's `get(self, key, default=None, type=None)`)
    "class R:\n    def get(self, key, type=None):\n        return key\n\n    def __reduce_ex__(self, protocol):\n"
    "        return type(self), (list(self),), {}\n",
    # update_wrapper onto a partial made here (marshmallow's factory)
    "import functools\n\n\nclass S:\n    @classmethod\n    def factory(cls, *a):\n"
    "        made = functools.partial(cls, *a)\n        functools.update_wrapper(made, cls)\n        return made\n",
])
def test_round10_honest_neighbour_stays_allowed(source):
    assert codes(source) == set()


def test_self_class_is_no_maker_where_the_module_defines_a_class_property():
    """`self.__class__` may be a property of the changed code's own (`def __class__`): then it is any class."""
    source = ("import collections\n\n\nclass R:\n    @property\n    def __class__(self):\n"
              "        return collections.UserList\n\n    def __reduce__(self):\n        return self.__class__, (), {}\n")
    assert "reflection" in codes(source)


def test_round10_refusals_are_not_excused_by_the_same_capability_elsewhere_at_x_g():
    """update_wrapper onto a parameter at x_G does not excuse it aimed at another object now (never reused)."""
    before = "import functools\n\n\ndef a(f, g):\n    return functools.update_wrapper(f, g)\n"
    after = before + "\n\ndef b(m, g):\n    return functools.update_wrapper(m, g)\n"
    assert "reflection" in codes(after, before)
    assert codes(before, before) == set()


def test_a_function_defined_here_stays_one_through_typing_cast():
    """click's decorators: `update_wrapper(t.cast(F, new_func), f)`: typing.cast returns its argument."""
    honest = ("import typing as t\nfrom functools import update_wrapper\n\n\ndef deco(f):\n    def new_func(*a):\n"
              "        return f(*a)\n    return update_wrapper(t.cast(t.Any, new_func), f)\n")
    assert codes(honest) == set()
    assert "reflection" in codes(honest.replace("t.cast(t.Any, new_func)", "t.cast(t.Any, f)"))
