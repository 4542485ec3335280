"""What the static layer allows since issue 51's false-refusal round, each beside its dangerous neighbour that
stays refused (docs/repair-grading-rules.md §3): plain builtins through `import builtins`, select/selectors,
pipes.quote and os.fstat, the uses of `x.__dict__` that hand out no value by a computed key; and a route closed
on the way (a dunder the change itself defines no longer excuses reading it on another object)."""

from __future__ import annotations

import sys

import pytest

from codewalk.domains.repair.rules import refusals

OWN = frozenset({"pkg"})


def rules(after: str, before: str | None = None) -> set[str]:
    return {str(r.rule) for r in refusals([("pkg/m.py", before, after.encode())], OWN, frozenset())}


@pytest.mark.parametrize("source", [
    "import builtins\n\n\ndef f(p, x):\n    return builtins.open(p).read(), builtins.str(x), builtins.type(x)\n",
    "from builtins import str as text, isinstance\n",
    "import select\n\n\ndef ready(f):\n    return select.select([f], [], [], 0)[0]\n",
    "import selectors\n\ns = selectors.DefaultSelector()\nR = selectors.EVENT_READ\n",
    "import pipes\n\n\ndef q(s):\n    return pipes.quote(s)\n",
    "import os\n\n\ndef size(f):\n    return os.fstat(f.fileno()).st_size\n",
])
def test_plain_parts_of_builtins_select_selectors_pipes_and_os_fstat_are_allowed(source):
    assert rules(source) == set()


@pytest.mark.parametrize("source, rule", [
    # through builtins, reflection stays refused as it is bare (and more strictly: never spelled equivalent)
    ("import builtins\ng = builtins.getattr\n", "import_not_allowed"),
    ("import builtins\nv = builtins.vars\n", "import_not_allowed"),
    ("import builtins\ne = builtins.eval('1')\n", "dynamic_import"),
    ("import builtins\ni = builtins.__import__\n", "reflection"),
    ("import builtins\nC = builtins.type('C', (), {'__eq__': lambda s, o: True})\n", "reflection"),
    ("import builtins\nC = builtins.type(1)('C', (), {})\n", "reflection"),
    ("import builtins\nb = builtins\n", "reflection"),
    ("import builtins\nbuiltins.len = lambda x: 3\n", "reflection"),
    ("import builtins\nh = builtins.hasattr\n", "import_not_allowed"),
    ("import builtins\nbuiltins.help()\n", "import_not_allowed"),
    ("import builtins\nm = builtins.object.__subclasses__()\n", "reflection"),
    # select and selectors give no module on and no descriptor of the process
    ("import selectors\nm = selectors.sys.modules\n", "import_not_allowed"),
    ("import selectors\nm = selectors.select\n", "import_not_allowed"),
    ("import pipes\nt = pipes.Template()\n", "import_not_allowed"),
    # (round 13: os.fdopen(3, 'w') is io.open(3, 'w'), which open() does and the static layer never refused)
    ("import os\nos.write(3, b'passed')\n", "import_not_allowed"),
    ("import os\nos.dup2(1, 3)\n", "import_not_allowed"),
    # left out on purpose: threads and event loops run a callable with no changed frame on the stack (the
    # run-time layer's hooks act while one is), logging hands out the caller's frame and the runner's
    # handlers, a socket of a descriptor writes the outcome channel, expandvars reads PYTEST_CURRENT_TEST
    ("import threading\nthreading.Thread(target=open, args=('/dev/null',)).start()\n", "import_not_allowed"),
    ("from concurrent.futures import ThreadPoolExecutor\n", "import_not_allowed"),
    ("import asyncio\n", "import_not_allowed"),
    ("import logging\nlogging.getLogger().addHandler(h)\n", "import_not_allowed"),
    ("import socket\ns = socket.socket(fileno=3)\n", "import_not_allowed"),
    ("import os.path\nn = os.path.expandvars('$PYTEST_CURRENT_TEST')\n", "import_not_allowed"),
    ("import gettext\ngettext.NullTranslations().install()\n", "import_not_allowed"),
])
def test_their_dangerous_neighbours_stay_refused(source, rule):
    assert rule in rules(source)


@pytest.mark.parametrize("source", [
    "def slots(cl):\n    return '__slots__' in cl.__dict__\n",
    "def weak(cl):\n    return '__weakref__' not in getattr(cl, '__dict__', ())\n",
    "def own(b):\n    return b.__dict__.get('__pkg_own_setattr__', False)\n",
    "def push(local, ctx):\n    local.__dict__.setdefault('stack', []).append(ctx)\n",
    "def name(o):\n    return o.__dict__['name']\n",
    "def cache(obj, name, value):\n    obj.__dict__[name] = value\n",
    "def forget(obj, name):\n    del obj.__dict__[name]\n",
    "def copy(rv, other):\n    rv.__dict__.update(other)\n",
    "def names(o):\n    return [k for k in o.__dict__.keys() if k.isupper()]\n",
    "def set_h(handler):\n    return 'protocol_version' not in vars(handler)\n",
    "def remember(name, rv):\n    globals()[name] = rv\n    return rv\n",
    "def forget(name):\n    del globals()[name]\n",
    "__all__ = tuple(x for x in locals().keys() if x.isupper())\n",
    "def has(name):\n    return name in globals()\n",
])
def test_a_dict_used_by_a_constant_key_a_membership_test_or_a_write_is_allowed(source):
    assert rules(source) == set()


@pytest.mark.parametrize("source", [
    # a value out of a class's dict by a key the rules cannot read: __subclasses__, or the __self__ descriptor
    "t = type\ns = t.__dict__['__sub' + 'classes__'](object)\n",
    "t = type\ns = t.__dict__.get('__sub' + 'classes__')\n",
    "t = type\ns = t.__dict__.setdefault('__sub' + 'classes__')\n",
    "t = type\ns = t.__dict__.pop('__sub' + 'classes__', None)\n",
    "t = type\ns = t.__dict__['__subclasses__']\n",
    "t = len.__class__\nb = t.__dict__.get('__self__')\n",
    # every value at once
    "def f(o):\n    return dict(o.__dict__)\n",
    "def f(o):\n    return [v for k, v in o.__dict__.items() if k == '__sub' + 'classes__']\n",
    "def f(o):\n    return o.__dict__\n",
    "def f(o):\n    d = getattr(o, '__dict__', {})\n    return d\n",
    "def f(o):\n    return o.__dict__ | {}\n",
    # the module's globals by a computed key: its __builtins__, hence __import__
    "def f(name):\n    return globals()[f'_{name}']\n",
    "def f(name):\n    return globals().get('__buil' + 'tins__')\n",
    "b = globals()['__builtins__']\n",
    "def f(o, k):\n    return vars(o)[k]\n",
    # in a class body locals() is the class's namespace: a computed key written there can be __eq__
    "class C:\n    locals()['__e' + 'q__'] = lambda s, o: True\n",
    "class C:\n    locals().update({'__e' + 'q__': lambda s, o: True})\n",
])
def test_a_dict_that_hands_out_a_value_by_a_computed_key_or_all_at_once_stays_refused(source):
    assert "reflection" in rules(source)


def test_a_dunder_the_change_defines_does_not_excuse_reading_it_on_another_object():
    before = "import sys\n\n\ndef f(x):\n    return x\n"
    cheat = "import sys\n\n\nclass K:\n    __self__ = None\n\n\ndef f(x):\n    m = sys.getsizeof.__self__.modules\n    " \
            "return x\n"
    assert rules(cheat, before) == {"reflection"}
    # one of Python's own dunders is the repository's where the changed modules defined it at x_G, as before
    proto = "class P:\n    __objclass__ = 1\n\n\ndef f(o):\n    return o\n"
    now = "class P:\n    __objclass__ = 1\n\n\ndef f(o):\n    return o.__objclass__\n"
    assert rules(now, proto) == set()
    assert rules(now) == {"reflection"}
    # a dunder no object of Python's has is the change's new protocol (marshmallow's __processor_tags__)
    # abstract classes' plain data, read on any object
    assert rules("def f(m, cls):\n    return getattr(m, '__isabstractmethod__', False), cls.__abstractmethods__\n") == set()
    assert rules("def tag(fn):\n    fn.__processor_tags__ = {'x'}\n    return fn\n\n\n"
                 "def tags(o):\n    return o.__processor_tags__\n") == set()


def test_a_module_as_a_value_stays_refused_because_public_names_reach_the_module_table():
    import json

    assert json.decoder.re.enum.sys.modules is sys.modules  # type: ignore[attr-defined]
    assert rules("import json\n\n\nclass R:\n    json_module = json\n") == {"reflection"}
    assert rules("import json\n\n\ndef f(meta):\n    return getattr(meta, 'json_module', json)\n") == {"reflection"}


@pytest.mark.skipif(sys.platform == "win32", reason="there the Windows modules exist")
def test_a_windows_only_module_can_only_fail_where_the_task_runs():
    from codewalk.domains.repair.rules import baseline_importable

    source = b"try:\n    import winreg\nexcept ImportError:\n    winreg = None\n"
    assert refusals([("pkg/m.py", None, source)], OWN, baseline_importable()) == []
    # not measured: judged as ever; and a Python 3 module of the same family stays outside
    assert {str(r.rule) for r in refusals([("pkg/m.py", None, source)], OWN, frozenset())} == {"import_not_allowed"}
    assert {str(r.rule) for r in refusals([("pkg/m.py", None, b"import ctypes.wintypes\n")], OWN,
                                          baseline_importable())} == {"import_not_allowed"}


@pytest.mark.parametrize("source, refused", [
    # a reviewed module that a module of the repository imported, walked on by public names
    ("from pkg import compat\n\n\ndef f(x):\n    return compat.json.decoder.re.enum.bltns.eval(x)\n", True),
    ("import pkg.compat\nm = pkg.compat.re.enum.bltns.getattr\n", True),
    ("from pkg import compat\nm = compat.json\n", True),
    # the same names as the repository's own submodules, or the reviewed parts of the module, are what they were
    ("from pkg import compat\n\n\ndef f(x):\n    return compat.json.dumps(x)\n", False),
    ("from pkg import http\n\n\ndef f(x):\n    return http.parse_date(x), http.HTTPStatus\n", False),
    ("from pkg.compat import json\n\n\ndef f(x):\n    return json.loads(x)\n", False),
    ("from pkg import utils\n\n\ndef f(x):\n    return utils.copy(x), utils.select(x)\n", False),
])
def test_a_chain_through_the_repositorys_module_to_a_reviewed_module_is_judged_as_that_module(source, refused):
    assert bool(rules(source)) is refused


# -- third round (issue 51): names the rules can read, proxies, super(), namespaces read whole ---------------
CLICK_GETATTR = ('def __getattr__(name):\n    if name in {"LazyFile", "safecall"}:\n'
                 '        return globals()[f"_{name}"]\n    raise AttributeError(name)\n\n\n'
                 'class _LazyFile:\n    pass\n\n\ndef _safecall():\n    pass\n')


@pytest.mark.parametrize("source", [
    # a parameter tested by an enclosing `if name in {...}` (click's and werkzeug's deprecation __getattr__)
    CLICK_GETATTR,
    'def __getattr__(name):\n    alts = {"parse_x": "X.from_header"}\n    if name in alts:\n'
    '        return globals()[f"_{name}"]\n    raise AttributeError(name)\n\n\ndef _parse_x():\n    pass\n',
    'def get(o, name):\n    if name == "size" and o:\n        return getattr(o, name)\n',
    # the variable of a for over a literal tuple in a function, or of a comprehension
    'class A(dict):\n    pass\n\n\ndef f():\n    for name in ("clear", "copy"):\n'
    '        setattr(A, name, getattr(dict, name))\n',
    'def g(o):\n    return [getattr(o, n) for n in ("a", "b")]\n',
    # a conditional expression of constants (marshmallow's getter)
    'def g(attrs, pop):\n    return getattr(attrs, "pop" if pop else "get")\n',
])
def test_a_name_that_holds_only_literal_strings_is_judged_as_those_constants(source):
    assert rules(source) == set()


@pytest.mark.parametrize("source", [
    # no guard, or a guard that lets a dunder or a private name nobody defines through
    'def __getattr__(name):\n    return globals()[f"_{name}"]\n',
    'def __getattr__(name):\n    if name in {"_builtins__"}:\n        return globals()[f"_{name}"]\n',
    'def __getattr__(name):\n    if name in {"LazyFile"} or name:\n        return globals()[f"_{name}"]\n',
    # rebound under the guard, or the collection changed: the values are no longer the literals
    'def __getattr__(name):\n    if name in {"x"}:\n        name = name.upper()\n        return globals()[name]\n',
    'def __getattr__(name, k):\n    alts = {"parse_x": 1}\n    alts[k] = 1\n    if name in alts:\n'
    '        return globals()[name]\n',
    'def f(o, name):\n    def g():\n        nonlocal name\n        name = "__globals__"\n    g()\n'
    '    if name in ("a",):\n        return getattr(o, name)\n',
    # a literal tuple with a behaviour dunder set from outside a class body
    'class A(dict):\n    pass\n\n\nfor name in ("clear", "__eq__"):\n    setattr(A, name, lambda s, o: True)\n',
    # a module's (or class body's) name: another module can rebind it while the loop runs
    # (`def put(): import pkg.m; pkg.m.name = "__e" + "q__"` in a module the loop body calls)
    'class A(dict):\n    pass\n\n\nfor name in ("clear",):\n    setattr(A, name, 1)\n',
    'class A(dict):\n    for name in ("clear",):\n        locals()[name] = 1\n',
])
def test_a_name_whose_values_the_rules_cannot_read_stays_refused(source):
    assert "reflection" in rules(source)


@pytest.mark.parametrize("source", [
    # attrs's frozen classes: BaseException's own __setattr__ wants a BaseException, so it writes no class
    'def f(self, name, value):\n    if name in ("__cause__", "__context__"):\n'
    '        BaseException.__setattr__(self, name, value)\n',
    'def f(self, name):\n    if name in ("__notes__",):\n        BaseException.__delattr__(self, name)\n',
    # werkzeug's Authorization: super().__setattr__ in an instance method is setattr(self, ...)
    'class H(dict):\n    def __setattr__(self, name, value):\n        if name in {"_type"}:\n'
    '            super().__setattr__(name, value)\n        else:\n            self[name] = value\n',
    'class H:\n    def __setattr__(self, name, value):\n        super().__setattr__(name, value)\n',
])
def test_setattr_that_can_only_write_an_instance_is_allowed(source):
    assert rules(source) == set()


@pytest.mark.parametrize("source", [
    'def f(self, name, value):\n    if name in ("__cause__", "__class__"):\n'
    '        BaseException.__setattr__(self, name, value)\n',
    'def f(C, name, f):\n    type.__setattr__(C, name, f)\n',
    'class M(type):\n    def __setattr__(self, name, value):\n        super().__setattr__(name, value)\n',
    'class H:\n    @classmethod\n    def put(cls, name, value):\n        super().__setattr__(name, value)\n',
    'class H:\n    def put(self, other, name, value):\n        super(H, other).__setattr__(name, value)\n',
])
def test_setattr_that_can_write_a_class_stays_refused(source):
    assert "reflection" in rules(source)


PROXY = ('class P:\n    def __init__(self, stream):\n        self.stream = stream\n\n'
         '    def __getattr__(self, name):\n        return getattr(self.stream, name)\n')


def test_a_proxy_handing_a_failed_lookup_on_to_an_attribute_of_self_is_allowed():
    assert rules(PROXY) == set()


@pytest.mark.parametrize("source", [
    # the name changed on the way, or the object is a module's global (a module's names are judged by its parts)
    'class P:\n    def __getattr__(self, name):\n        return getattr(self.stream, "_" + name)\n',
    'import sys\n\n\nclass P:\n    def __getattr__(self, name):\n        return getattr(sys, name)\n',
    'def __getattr__(name):\n    return getattr(_target.stream, name)\n',
    'class P:\n    def get(self, name):\n        return getattr(self.stream, name)\n',
    # the proxy's __getattr__ called by hand with a computed name, or taken as a value
    PROXY + '\n\ndef f(o, k):\n    return P.__getattr__(o, k)\n',
    PROXY + '\n\ng = P.__getattr__\n',
])
def test_other_forwarding_getattrs_stay_refused(source):
    assert "reflection" in rules(source)


@pytest.mark.parametrize("source", [
    'def f(x):\n    print(x.symbols.__dict__)\n    return sorted(x.__dict__), [k for k in x.__dict__], len(vars(x))\n',
    'def weak(cls):\n    for base in cls.__mro__[1:-1]:\n        d = getattr(base, "__dict__", {})\n'
    '        if "__weakref__" in d or d.get("__pkg_own_setattr__", False):\n            return True\n',
])
def test_a_namespace_giving_only_names_size_or_text_or_a_plain_alias_is_allowed(source):
    assert rules(source) == set()


@pytest.mark.parametrize("source", [
    'def f(o):\n    return list(o.__dict__.values())\n',
    'def f(o):\n    return dict(o.__dict__)\n',
    'def f(o, k):\n    d = o.__dict__\n    return d[k]\n',
    'def f(o):\n    d = getattr(o, "__dict__", {})\n    return d\n',
    'def f(o):\n    d = o.__dict__\n    d = {}\n    return d\n',
    'print = lambda d: d\n\n\ndef f(o):\n    return print(o.__dict__)\n',
    # `cls` is the object at hand only as a method's bound first parameter (closed this round)
    'def f(cls, k):\n    return cls.__dict__[k]\n',
    'def f(cls, k):\n    return getattr(cls, "__dict__")[k]\n',
])
def test_a_namespace_handing_out_values_stays_refused(source):
    assert "reflection" in rules(source)


def test_a_classmethods_own_dict_stays_the_object_at_hand():
    assert rules("class H:\n    @classmethod\n    def f(cls, k):\n        return cls.__dict__[k]\n") == set()


@pytest.mark.parametrize("source", [
    # attrs's make_class: a namespace of constant keys, none a behaviour of Python's
    'def make(name, bases, post_init, user_init):\n    body = {}\n    if post_init is not None:\n'
    '        body["__pkg_post_init__"] = post_init\n    if user_init is not None:\n'
    '        body["__init__"] = user_init\n    return type(name, bases, body)\n',
    'def make(name, bases, post_init):\n'
    '    return type(name, bases, {} if post_init is None else {"__pkg_post_init__": post_init})\n',
    'def make(cls, post_init):\n    return type(cls.__name__, cls.__bases__, {"size": 1, "__slots__": ()})\n',
])
def test_three_argument_type_with_a_namespace_the_rules_read_whole_is_allowed(source):
    assert rules(source) == set()


# Round 14: refused until then; each is admitted with abc.ABCMeta in type()'s place on main, so refusing type() refused
# a spelling: the class made is judged at run time (the class guard: tests/test_repair_redteam_round14a.py).
@pytest.mark.parametrize("maker", ["type", "abc.ABCMeta"])
@pytest.mark.parametrize("source", [
    'def make(name, bases, f):\n    body = {}\n    body["__e" + "q__"] = f\n    return type(name, bases, body)\n',
    'def make(name, bases, f, k):\n    body = {}\n    body[k] = f\n    return type(name, bases, body)\n',
    'def make(name, bases, f, ns):\n    body = {}\n    body.update(ns)\n    return type(name, bases, body)\n',
    'def make(name, bases, f, k):\n    body = {}\n    alias = body\n    alias[k] = f\n    return type(name, bases, body)\n',
    'def make(name, bases, f, k):\n    body = {}\n\n    def g():\n        body[k] = f\n    g()\n'
    '    return type(name, bases, body)\n',
    'def make(name, bases, f, body):\n    return type(name, bases, body)\n',
    'def make(name, bases, f):\n    return type(name, bases, {"__del__": f})\n',
    'def make(name, x):\n    return type(name, (type(x),), {"size": 1})\n',
])
def test_three_argument_type_with_a_namespace_the_rules_cannot_read_is_judged_as_abc_abcmeta_is(source, maker):
    assert rules(("import abc\n\n\n" if maker != "type" else "") + source.replace("type(name,", f"{maker}(name,")) == set()


def test_the_dunders_every_module_holds_are_refused_through_the_repositorys_own_from_import():
    assert rules("from .mod import __builtins__ as b\n") == {"reflection"}
    assert rules("from pkg.mod import __loader__\n") == {"reflection"}
    assert rules("from . import __version__\n") == set()


@pytest.mark.parametrize("source", [
    "import logging\n",
    "import logging\n\nlog = logging.getLogger(__name__)\n\n\ndef f(x):\n    log.debug('x %s', x)\n"
    "    if log.isEnabledFor(logging.INFO):\n        log.info('y', exc_info=True)\n",
    "from logging import getLogger\n\nlog = getLogger('pkg.m')\n",
])
def test_a_modules_logger_used_only_to_log_is_allowed(source):
    assert rules(source) == set()


@pytest.mark.parametrize("source, rule", [
    # the logger's other parts: handlers (the runner's capture among them), the manager's loggers, levels
    ("import logging\nlog = logging.getLogger(__name__)\nh = log.handlers\n", "import_not_allowed"),
    ("import logging\nlog = logging.getLogger(__name__)\nlog.disabled = True\n", "import_not_allowed"),
    ("import logging\nlog = logging.getLogger(__name__)\nd = log.manager.loggerDict\n", "import_not_allowed"),
    ("import logging\nlog = logging.getLogger(__name__)\ng = log\n", "import_not_allowed"),
    ("import logging\n\n\ndef f():\n    return logging.getLogger(__name__)\n", "import_not_allowed"),
    ("import logging\nlogging.disable(50)\n", "import_not_allowed"),
    ("import logging\nlog = logging.getLogger(__name__)\n\n\ndef f(**kw):\n    log.info('x', **kw)\n",
     "import_not_allowed"),
    # the callers' frames as text: refused on any logger, the repository's own included
    ("import logging\nlog = logging.getLogger(__name__)\n\n\ndef f():\n    log.info('x', stacklevel=3)\n",
     "import_not_allowed"),
    ("from pkg.m import log\nlog.info('x', stacklevel=3)\n", "import_not_allowed"),
    ("from pkg.m import log\nt = log.findCaller(True)\n", "import_not_allowed"),
    ("from pkg.m import log\nlog.info('x', stack_info=True)\n", "import_not_allowed"),
    ("import operator\nfrom pkg.m import log\nf = operator.methodcaller('findCaller', True)(log)\n",
     "import_not_allowed"),
])
def test_a_logger_used_otherwise_stays_refused(source, rule):
    assert rule in rules(source)


def test_the_in_place_operators_are_protocol_as_the_others_are():
    source = "class M(dict):\n    def __ior__(self, other):\n        return super().__ior__(other)\n"
    assert rules(source) == set()
    # what is not protocol stays refused on another object
    assert rules("def f(fn):\n    return fn.__globals__\n") == {"reflection"}


def test_warnings_keep_their_stacklevel():
    assert rules("import warnings\nwarnings.warn('x', DeprecationWarning, stacklevel=2)\n") == set()
    assert rules("from warnings import warn\nwarn('x', stacklevel=2)\n") == set()


def test_a_module_that_used_logging_at_x_g_keeps_it_and_a_module_new_to_it_gets_the_logger_only():
    before = "import logging\n\nlogging.basicConfig()\n"
    after = "import logging\n\nlogging.basicConfig()\nh = logging.StreamHandler()\nlogging.getLogger('x').setLevel(1)\n"
    assert rules(after, before) == set()
    assert rules(after) == {"import_not_allowed"}
    # what reaches frames or another module stays refused whatever x_G did
    assert rules("import logging\n\nlogging.basicConfig()\nf = logging.currentframe()\n", before) == {"import_not_allowed"}
    assert rules("import logging\n\nlogging.basicConfig()\nm = logging.sys.modules\n", before) == {"import_not_allowed"}


def test_a_spelling_allowed_now_still_counts_as_the_capability_it_used_at_x_g():
    # getattr with a name of literal values was a reusable finding before this round: a module that had one at
    # x_G may use getattr in a new node, as before; a constant name never was one
    before = 'def g(attrs, pop):\n    return getattr(attrs, "pop" if pop else "get")\n'
    after = 'def g(attrs, pop, k):\n    return getattr(attrs, "pop" if pop else "get"), getattr(attrs, k)\n'
    assert rules(after, before) == set()
    assert rules('def g(a, k):\n    return getattr(a, "x"), getattr(a, k)\n', 'def g(a, k):\n    return getattr(a, "x")\n') \
        == {"reflection"}
