"""The static layer's rules on gadgets that carry attribute names as data (issue 51, red team round 5:
tests/redteam_round5_cheats.py): each refusal beside an honest neighbour that stays allowed."""

from __future__ import annotations

import pytest

from codewalk.domains.repair.rules import refusals

OWN = frozenset({"pkg"})
EQ = '"__e" + "q__"'


def found(after: str, before: str | None = None, path: str = "pkg/m.py") -> list[tuple[str, str]]:
    return [(str(r.rule), r.what) for r in refusals([(path, before, after.encode())], OWN, frozenset())]


@pytest.mark.parametrize("source, rule, named", [
    # 1: update_wrapper/wraps with names as data: a getattr and a setattr of any name
    (f"import functools\n\n\nclass S(list):\n    pass\n\n\nfunctools.update_wrapper(S, object(), assigned=({EQ},))\n",
     "reflection", "functools.update_wrapper"),
    (f"import functools\nk = {EQ}\nw = functools.wraps(object(), (k,), ())\n", "reflection", "functools.wraps"),
    ("from functools import wraps\n\n\ndef deco(f, names):\n    return wraps(f, updated=names)\n",
     "reflection", "functools.wraps"),
    ("import functools\n\n\ndef deco(f, kw):\n    return functools.wraps(f, **kw)\n", "reflection", "**keywords"),
    ("import functools\n\n\ndef deco(f, g):\n    return functools.update_wrapper(f, g, ('__eq__',))\n",
     "reflection", "copies '__eq__'"),
    # 2: the Enum functional API with names that are not literal public names
    (f"import enum\nE = enum.Enum('E', {{{EQ}: lambda s, o: True, 'A': 1}})\n", "reflection", "enum"),
    (f"from enum import IntEnum\nE = IntEnum('E', [({EQ}, 1)])\n", "reflection", "enum"),
    ("import enum\n\n\ndef make(names):\n    return enum.Flag('F', names=names)\n", "reflection", "enum"),
    ("import enum\nE = enum.Enum('E', {'_missing_': classmethod(lambda c, v: 1), 'A': 1})\n", "reflection",
     "'_missing_'"),
    ("import enum\n\n\nclass Base(enum.Enum):\n    pass\n\n\nE = Base('E', {'__eq__': 1})\n", "reflection", "enum"),
    # 3: the self exemption is about what the parameter is bound to
    ("def put(self, k, v):\n    setattr(self, k, v)\n", "reflection", "setattr"),
    ("def get(self, k):\n    return getattr(self, k)\n", "reflection", "getattr"),
    ("class M(type):\n    def put(self, k, v):\n        setattr(self, k, v)\n", "reflection", "setattr"),
    ("class B:\n    def __init_subclass__(self, **kw):\n        for k, v in kw.items():\n            setattr(self, k, v)\n",
     "reflection", "setattr"),
    ("class B:\n    @classmethod\n    def put(self, k, v):\n        setattr(self, k, v)\n", "reflection", "setattr"),
    ("class B:\n    @staticmethod\n    def get(self, k):\n        return getattr(self, k)\n", "reflection", "getattr"),
    ("class H:\n    def put(self, k, v):\n        setattr(self, k, v)\n\n\nclass S(list):\n    pass\n\n\n"
     f"H.put(S, {EQ}, 1)\n", "reflection", "another first argument than self"),
    ("import functools\n\n\nclass H:\n    def get(self, k):\n        return getattr(self, k)\n\n\n"
     "g = functools.partial(H.get, len)\n", "reflection", "another first argument than self"),
    ("class H:\n    def put(self, k, v):\n        setattr(self, k, v)\n\n\nclass S(list):\n    pass\n\n\n"
     f"type(H()).put(S, {EQ}, 1)\n", "reflection", "another first argument than self"),
    ("class H:\n    @classmethod\n    def get(cls, k):\n        return getattr(cls, k)\n\n\n"
     "g = H.get.__func__(len, '__se' + 'lf__')\n", "reflection", "another first argument than its class"),
    # 5: a comparison stores into its own object
    ("class E(list):\n    def __eq__(self, other):\n        self[:] = other\n        return list(self) == other\n",
     "comparison", "stores into its own object"),
    ("class E(list):\n    def __eq__(self, other):\n        self.clear()\n        self.extend(other)\n"
     "        return list.__eq__(self, other)\n", "comparison", "stores into its own object"),
    ("class E:\n    def __eq__(self, other):\n        self.seen = other\n        return self.seen == other\n",
     "comparison", "stores into its own object"),
    ("class E(list):\n    def __eq__(self, other):\n        list.extend(self, other)\n        return list(self) == other\n",
     "comparison", "stores into its own object"),
    ("class E(list):\n    def __eq__(self, other):\n        me = self\n        me[:] = other\n        return me == other\n",
     "comparison", "stores into its own object"),
    # 17: a comparison that never compares its own object with the other
    ("class S(list):\n    def __eq__(self, other):\n        return isinstance(other, (list, str))\n", "comparison",
     "never compares"),
    ("class S(list):\n    def __eq__(self, other):\n        return other == other\n", "comparison", "never compares"),
    ("class S(list):\n    def __eq__(self, other):\n        return other.__class__ in (list, str, S)\n", "comparison",
     "never compares"),
    ("class S(list):\n    __eq__ = lambda self, other: other is not None\n", "comparison", "never compares"),
    # 7: str.format and format_map on a format string the rules cannot read
    ("def f(o):\n    field = chr(123) + '0.__glo' + 'bals__' + chr(125)\n    return field.format(o)\n",
     "format_path", "computed at run time"),
    ("def f(t, o):\n    return str.format(t, o)\n", "format_path", "computed at run time"),
    ("from gettext import ngettext\n\n\ndef f(a, b, n):\n    return ngettext(a, b, n).format(n)\n", "format_path",
     "computed at run time"),
    ("import functools\n\n\ndef deco(f, k):\n    names = ('__doc__', k)\n    return functools.wraps(f, names)\n",
     "reflection", "functools.wraps"),
    ("def f(t, o):\n    return t.format_map(o)\n", "format_path", "computed at run time"),
    ("def f(t):\n    return list(map(t.format, [1]))\n", "format_path", "computed at run time"),
    ("import operator\n\n\ndef f(t, o):\n    return operator.methodcaller('format', o)(t)\n", "reflection",
     "methodcaller('format')"),
    ("def f(t, o):\n    return getattr(t, 'format')(o)\n", "reflection", "getattr(..., 'format')"),
    # 13: the type of a class is a class maker
    ("S = (0).__class__.__class__('S', (list,), {})\n", "reflection", "__class__ of a class"),
    ("S = len.__class__.__class__\n", "reflection", "__class__ of a class"),
    ("class B:\n    pass\n\n\nS = B.__class__('S', (list,), {})\n", "reflection", "__class__ of a class"),
    ("S = type(0).__class__\n", "reflection", "__class__ of a class"),
    # 14: the object protocol's getters called with a name as data
    ("def get(o, k):\n    return object.__getattribute__(o, k)\n", "reflection", "__getattribute__ with a name"),
    ("def get(o, k):\n    return type(o).__getattribute__(o, k)\n", "reflection", "__getattribute__ with a name"),
    ("def get(o, k):\n    return o.__getattr__(k)\n", "reflection", "__getattr__ with a name"),
    ("import operator\n\n\ndef get(o, k):\n    return operator.methodcaller('__getattribute__', o, k)(type(o))\n",
     "reflection", "methodcaller('__getattribute__')"),
    ("def get(o):\n    return object.__getattribute__\n", "reflection", "as a value"),
    # 18: a package's __path__ written
    ("__path__.insert(0, __path__[0] + '/.')\n", "reflection", "__path__"),
    ("__path__ = [p + '/.' for p in __path__]\n", "reflection", "__path__"),
    ("__path__[:] = ['x']\n", "reflection", "__path__"),
    ("import pkg\npkg.__path__.append('x')\n", "reflection", "__path__"),
])
def test_gadget_is_refused_with_its_rule(source, rule, named):
    got = found(source)
    assert any(r == rule and named in what for r, what in got), got


@pytest.mark.parametrize("source", [
    # 1: the plain decorator, functools' defaults, literal public names
    "import functools\n\n\ndef deco(f):\n    @functools.wraps(f)\n    def inner(*a):\n        return f(*a)\n    return inner\n",
    "import functools\n\n\ndef deco(f):\n    def g(*a):\n        return f(*a)\n    return functools.update_wrapper(g, f)\n",
    "import functools\n\n\ndef deco(f):\n    def g(*a):\n        return f(*a)\n"
    "    return functools.update_wrapper(g, f, assigned=functools.WRAPPER_ASSIGNMENTS + ('extra',), updated=())\n",
    "from functools import wraps\n\n\ndef deco(f):\n    @wraps(f, assigned=('__name__', '__doc__'))\n"
    "    def g(*a):\n        return f(*a)\n    return g\n",
    "from functools import WRAPPER_ASSIGNMENTS, wraps\n\n\ndef deco(f):\n    mine = ('__module__', '__name__')\n"
    "    rest = tuple(set(WRAPPER_ASSIGNMENTS).difference(mine))\n\n    @wraps(f, assigned=rest)\n"
    "    def g(*a):\n        return f(*a)\n    return g\n",
    # 2: literal public names
    "import enum\nColor = enum.Enum('Color', 'RED GREEN')\n",
    "import enum\nColor = enum.Enum('Color', [('RED', 1), ('GREEN', 2)])\n",
    "from enum import IntEnum\nLevel = IntEnum('Level', {'LOW': 1, 'HIGH': 2})\n",
    "import enum\n\n\nclass Color(enum.Enum):\n    RED = 1\n\n\nc = Color(1)\n",
    # 3: instance methods, classmethods that read, calls through the class with self
    "class A:\n    def put(self, k, v):\n        setattr(self, k, v)\n\n    def get(self, k):\n        return getattr(self, k)\n",
    "class A:\n    @classmethod\n    def get(cls, k):\n        return getattr(cls, 'visit_' + k)\n",
    "class A:\n    def __init__(self, **kw):\n        for k, v in kw.items():\n            setattr(self, k, v)\n\n\n"
    "class B(A):\n    def __init__(self, **kw):\n        A.__init__(self, **kw)\n",
    "class A:\n    def run(self, kind):\n        def inner():\n            return getattr(self, 'visit_' + kind)\n        return inner\n",
    "class A:\n    @property\n    def x(self):\n        return 1\n\n    @x.setter\n    def x(self, v):\n        setattr(self, '_' + 'x', v)\n",
    "class A:\n    @classmethod\n    def get(cls, k):\n        return getattr(cls, k)\n\n\nx = A.get('name')\n",
    # 5 and 17: comparisons that compare
    "class P:\n    def __eq__(self, other):\n        if not isinstance(other, P):\n            return NotImplemented\n"
    "        return (self.x, self.y) == (other.x, other.y)\n",
    "class P:\n    def __eq__(self, other):\n        return super().__eq__(other)\n",
    "class P:\n    def __ne__(self, other):\n        result = self.__eq__(other)\n        if result is NotImplemented:\n"
    "            return result\n        return not result\n",
    "class P:\n    def __lt__(self, other):\n        key = other.key if isinstance(other, P) else other\n"
    "        return self.key < key\n",
    "class P:\n    def __eq__(self, other):\n        return NotImplemented\n",
    "class _Nothing:\n    def __eq__(self, other):\n        return other.__class__ == _Nothing\n",
    "class A:\n    def __getstate__(self):\n        return [getattr(self, k) for k in self.__slots__]\n\n\n"
    "def patch(cls, state):\n    cls.__getstate__ = state\n    return cls\n",
    "class P:\n    def __le__(self, other):\n        inc, exc = split(other)\n        return self.inc.issubset(inc)\n",
    "class P:\n    def __eq__(self, other):\n        here = self.tell()\n        self.seek(0)\n"
    "        same = self.read() == other.read()\n        self.seek(here)\n        return same\n",
    "class P:\n    __eq__ = lambda self, other: self.x == other.x\n",
    "class P:\n    def __eq__(self, other):\n        cache = {}\n        cache[1] = other\n        return self.k == cache[1]\n",
    # 7: literal format strings, names only ever bound to literals, translations of literals
    "def f(x):\n    return '{} and {name}'.format(x, name=x)\n",
    "TEMPLATE = 'Hello {name}'\n\n\ndef f(x):\n    return TEMPLATE.format(name=x)\n",
    "def f(x):\n    return str.format('{}', x)\n",
    "def f(x, a):\n    t = 'def {name}:'\n    t += '\\n{body}'\n    if a:\n        t = 'async ' + t\n"
    "    return t.format(name=x, body=x)\n",
    "from gettext import gettext as _\n\n\ndef f(x):\n    return _('Error: {message}').format(message=x)\n",
    "from gettext import ngettext\n\n\ndef f(n):\n    return ngettext('{n} file', '{n} files', n).format(n=n)\n",
    "class F:\n    def format(self, record):\n        return str(record)\n\n    def run(self, r):\n        return self.format(r)\n",
    "class D:\n    def __init__(self, fmt):\n        self.format = fmt\n\n    def add(self):\n"
    "        self.format = self.format or 'iso'\n",
    # 13: an instance's class, a class's name
    "class A:\n    def name(self):\n        return self.__class__.__name__\n",
    "def f(x):\n    return type(x).__name__, x.__class__\n",
    # 14: the getters with a constant name, or on the object at hand
    "class P:\n    def __getattribute__(self, name):\n        return object.__getattribute__(self, name)\n",
    "class P:\n    def __getattr__(self, name):\n        return super().__getattr__(name)\n",
    "def f(o):\n    return object.__getattribute__(o, 'name')\n",
    # 18: a package's __path__ read
    "import os\nHERE = os.path.dirname(__path__[0])\n",
    "for p in __path__:\n    print(p)\n",
])
def test_honest_neighbour_of_a_gadget_is_allowed(source):
    assert found(source) == []


def test_gadget_rules_are_not_excused_by_the_same_capability_elsewhere_at_x_g():
    """A computed update_wrapper at x_G does not excuse one aimed at a new target: never reused."""
    before = "import functools\n\n\ndef a(f, g, names):\n    return functools.update_wrapper(f, g, names)\n"
    after = before + "\n\ndef b(f, g, other):\n    return functools.update_wrapper(f, g, other)\n"
    assert any("update_wrapper" in what for _, what in found(after, before))
    assert found(before, before) == []
