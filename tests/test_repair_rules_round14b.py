"""Round 14b (issue 51): the static layer's open holes around route modules (h-static14b). Round 13 left a module
object handed on as a value (`g(p.unittest)`, `t = c.typing; t.get_type_hints(fn)`), an attribute name the
repository defines at x_G excusing that name on every value (werkzeug's `self.socket`), and dotted chains on
third-party modules that reach standard-library modules outside the reviewed set (`urllib3.util.ssl_.ssl`),
judged by the deny-list only. Built against main ddf104d before any change: every spelling below passed main's
static layer (`rules.refusals(...) == []`) and reaches what the allow-list means to refuse: a refused part of a
reviewed module (typing.get_type_hints evaluates text as code, unittest.mock.ANY equals anything, types.FunctionType
makes a function of a code object, socket's descriptors) or a standard-library module outside the reviewed set
(ssl, zipimport, pty, multiprocessing, asyncio, email). A kind open today is in HOLES (strict xfail), a kind stopped
in STOPPED, pinned to the rule code that must fire (10 kinds, 34 spellings on main; kind 11 was found while fixing). The end-to-end test grades a kind turned into a real cheat
under both runtimes (docs/repair-grading-rules.md, "Round 14b")."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import docker_runtime
from tests.redteam_rounds import assert_not_solved, assert_solved_without_its_rules
from tests.test_repair_redteam import (  # noqa: F401  (fixture: the W1 + W2 task)
    FIX_CASE,
    FIX_SORT,
    WORDS,
    replace,
    task,
    write,
)
from tests.test_repair_rules_round13 import ADAPTERS, PACKAGE, PYTEST_MOCK, SOCKET_CLASS, URLLIB3, tree_codes
from tests.test_repair_runtime_guard import append

pytestmark = pytest.mark.usefixtures("shared_home")


@pytest.fixture(params=["local", "docker"])
def graded_in(request, monkeypatch) -> str:
    """The end-to-end tests grade under both runtimes (test_repair_redteam's fixture, not autouse here: the static
    spellings run once)."""
    if request.param == "docker":
        docker_runtime.require()
    monkeypatch.setenv("CODEWALK_RUNTIME", request.param)
    return request.param

U = "import urllib3\n\n\n"
P = "import pytest_mock.plugin\n\n\n"
TREE = [PACKAGE, ADAPTERS]
# werkzeug's serving.py: `self.socket = ...` at x_G, so `socket` is an attribute the repository defines
WERKZEUG_LIKE = [PACKAGE, ADAPTERS, SOCKET_CLASS]
# a module of the repository that imports standard-library modules at x_G, by alias too (`import typing as t`:
# click, jinja and werkzeug all spell typing so)
UTILS = ("pkg/utils.py", "import typing as t\nimport asyncio\nimport ssl\nimport unittest as ut\n\n\n"
                         "def get():\n    return 1\n")
OWN_TREE = [PACKAGE, UTILS]
UTILS_USER = "from pkg import utils\n\n\ndef get():\n    return utils.get()\n"
OWN = "from pkg import utils\n\n\n"
JINJA = "import jinja2.loaders\n\n\ndef get():\n    return jinja2.loaders.FileSystemLoader\n"
PEXPECT = "import pexpect.pty_spawn\n\n\ndef get():\n    return pexpect.pty_spawn.spawn\n"
DASK = "import dask.multiprocessing\n\n\ndef get():\n    return dask.multiprocessing.get\n"
DASK_TREE = [PACKAGE, ("pkg/a.py", "import dask.multiprocessing\nimport jinja2.loaders\nimport pexpect.pty_spawn\n")]

# kind -> [(spelling, before, after, tree, the rule code that must fire)]
KINDS: dict[str, list[tuple[str, str | None, str, list[tuple[str, str]], str]]] = {
    # 1. a module reached by a value's attribute, handed on as a call's argument, its refused part read by the callee
    "module_handed_on_as_an_argument": [
        ("positional_unittest", PYTEST_MOCK, P + "def g(u):\n    return u.mock.ANY\n\n\ndef f():\n"
         "    p = pytest_mock.plugin\n    return g(p.unittest)\n", TREE, "reflection"),
        ("keyword_typing", URLLIB3, U + "def g(fn, t):\n    return t.get_type_hints(fn)\n\n\ndef f(fn):\n"
         "    c = urllib3.util.connection\n    return g(fn, t=c.typing)\n", TREE, "reflection"),
        ("starred_types", URLLIB3, U + "def g(t, code):\n    return t.FunctionType(code, {})\n\n\ndef f(code):\n"
         "    c = urllib3.util.connection\n    return g(*[c.types], code)\n", TREE, "reflection"),
    ],
    # 2. bound to a local, its refused part read on the local
    "module_bound_to_a_local": [
        ("typing", URLLIB3, U + "def f(fn):\n    c = urllib3.util.connection\n    t = c.typing\n"
         "    return t.get_type_hints(fn)\n", TREE, "reflection"),
        ("typing_through_a_subscript", URLLIB3, U + "def f(fn):\n    t = (urllib3.util.connection,)[0].typing\n"
         "    return t.get_type_hints(fn)\n", TREE, "reflection"),
        ("types", URLLIB3, U + "def f(code, g):\n    c = urllib3.util.connection\n    t = c.types\n"
         "    return t.FunctionType(code, g)\n", TREE, "reflection"),
        ("walrus_unittest", PYTEST_MOCK, P + "def f():\n    p = pytest_mock.plugin\n    (u := p.unittest)\n"
         "    return u.mock.ANY\n", TREE, "reflection"),
    ],
    # 3. returned (or yielded) by a function, its refused part read on the call's result
    "module_returned": [
        ("function", URLLIB3, U + "def m():\n    c = urllib3.util.connection\n    return c.typing\n\n\n"
         "def f(fn):\n    return m().get_type_hints(fn)\n", TREE, "reflection"),
        ("lambda", URLLIB3, U + "def f(fn):\n    c = urllib3.util.connection\n"
         "    return (lambda: c.typing)().get_type_hints(fn)\n", TREE, "reflection"),
        ("generator", PYTEST_MOCK, P + "def m():\n    p = pytest_mock.plugin\n    yield p.unittest\n\n\n"
         "def f():\n    return next(m()).mock.ANY\n", TREE, "reflection"),
    ],
    # 4. put in a container
    "module_in_a_container": [
        ("dict", URLLIB3, U + "def f(fn):\n    c = urllib3.util.connection\n    d = {'t': c.typing}\n"
         "    return d['t'].get_type_hints(fn)\n", TREE, "reflection"),
        ("list_append", PYTEST_MOCK, P + "def f():\n    p = pytest_mock.plugin\n    ms = []\n"
         "    ms.append(p.unittest)\n    return ms[0].mock.ANY\n", TREE, "reflection"),
        ("tuple_unpacked", URLLIB3, U + "def f(fn):\n    c = urllib3.util.connection\n    t, = (c.typing,)\n"
         "    return t.get_type_hints(fn)\n", TREE, "reflection"),
    ],
    # 5. a parameter's default
    "module_as_a_default": [
        ("module_global", URLLIB3, U + "C = urllib3.util.connection\n\n\ndef f(fn, t=C.typing):\n"
         "    return t.get_type_hints(fn)\n", TREE, "reflection"),
        ("lambda_default", PYTEST_MOCK, P + "def f():\n    p = pytest_mock.plugin\n"
         "    return (lambda u=p.unittest: u.mock.ANY)()\n", TREE, "reflection"),
    ],
    # 6. an attribute of an object
    "module_as_an_object_s_attribute": [
        ("instance", URLLIB3, U + "class K:\n    pass\n\n\ndef f(fn):\n    k = K()\n"
         "    k.t = (urllib3.util.connection,)[0].typing\n    return k.t.get_type_hints(fn)\n", TREE, "reflection"),
        ("class_attribute", PYTEST_MOCK, P + "class K:\n    pass\n\n\ndef f():\n    p = pytest_mock.plugin\n"
         "    K.u = p.unittest\n    return K.u.mock.ANY\n", TREE, "reflection"),
    ],
    # 7. a route module reached through a value by a name the repository defines as an attribute at x_G (werkzeug's
    # `self.socket`): excused on every value, the module's refused parts and what it reaches besides
    "route_named_like_an_attribute_of_the_repository": [
        ("socket_socket", URLLIB3, U + "def f():\n    c = urllib3.util.connection\n    return c.socket.socket()\n",
         WERKZEUG_LIKE, "import_not_allowed"),
        ("socket_fromfd", URLLIB3, U + "def f():\n    return (urllib3.util.connection,)[0].socket.fromfd(1, 1, 1)\n",
         WERKZEUG_LIKE, "import_not_allowed"),
        ("socket_os_system", URLLIB3, U + "def f(cmd, c=urllib3.util.connection):\n"
         "    return c.socket.os.system(cmd)\n", WERKZEUG_LIKE, "import_not_allowed"),
        ("socket_sys_modules", URLLIB3, U + "def f(c=urllib3.util.connection):\n    return c.socket.sys.modules\n",
         WERKZEUG_LIKE, "import_not_allowed"),
    ],
    # 8. a chain on a third-party module imported at x_G that reaches a standard-library module outside the reviewed
    # set (found by walking what the installed distributions' modules hold: urllib3.util.ssl_.ssl,
    # jinja2.loaders.zipimport, pexpect.pty_spawn.pty, dask.multiprocessing.multiprocessing, urllib3.fields.email)
    "third_party_chain_to_a_module_outside_the_reviewed_set": [
        ("ssl", URLLIB3, U + "def f():\n    return urllib3.util.ssl_.ssl.SSLContext\n", TREE, "import_not_allowed"),
        ("ssl_as_a_value", URLLIB3, U + "def f():\n    return urllib3.util.ssl_.ssl\n", TREE, "import_not_allowed"),
        ("ssl_through_a_local", URLLIB3, U + "def f():\n    s = urllib3.util.ssl_.ssl\n    return s.SSLContext\n", TREE,
         "import_not_allowed"),
        ("zipimport", JINJA, "import jinja2.loaders\n\n\ndef f(p, n):\n"
         "    return jinja2.loaders.zipimport.zipimporter(p).load_module(n)\n", DASK_TREE, "import_not_allowed"),
        ("pty", PEXPECT, "import pexpect.pty_spawn\n\n\ndef f():\n    return pexpect.pty_spawn.pty.fork()\n", DASK_TREE,
         "import_not_allowed"),
        ("multiprocessing", DASK, "import dask.multiprocessing\n\n\ndef f(t):\n"
         "    return dask.multiprocessing.multiprocessing.Process(target=t)\n", DASK_TREE, "import_not_allowed"),
        ("email", URLLIB3, U + "def f(s):\n    return urllib3.fields.email.message_from_string(s)\n", TREE,
         "import_not_allowed"),
    ],
    # 9. the same through the repository's own module, which imported it at x_G
    "own_chain_to_a_module_outside_the_reviewed_set": [
        ("asyncio", UTILS_USER, OWN + "def f(cmd):\n    return utils.asyncio.create_subprocess_shell(cmd)\n", OWN_TREE,
         "import_not_allowed"),
        ("asyncio_through_a_local", UTILS_USER, OWN + "def f(cmd):\n    a = utils.asyncio\n"
         "    return a.create_subprocess_shell(cmd)\n", OWN_TREE, "import_not_allowed"),
        ("ssl", UTILS_USER, OWN + "def f():\n    return utils.ssl.SSLContext\n", OWN_TREE, "import_not_allowed"),
    ],
    # 10. a module the repository's own module imported under another name (`import typing as t`)
    "own_module_s_alias": [
        ("typing_as_t", UTILS_USER, OWN + "def f(fn):\n    return utils.t.get_type_hints(fn)\n", OWN_TREE,
         "dynamic_import"),
        ("unittest_as_ut", UTILS_USER, OWN + "def f():\n    return utils.ut.mock.ANY\n", OWN_TREE,
         "import_not_allowed"),
    ],
    # 11. the same, the repository's module handed on as a value first (found while fixing 10)
    "own_module_s_alias_through_a_value": [
        ("through_a_local", UTILS_USER, OWN + "def f(fn):\n    m = utils\n    return m.t.get_type_hints(fn)\n",
         OWN_TREE, "dynamic_import"),
    ],
}
SPELLINGS = [(kind, *s) for kind, spellings in KINDS.items() for s in spellings]

# Measured on main ddf104d: every spelling passes the static layer. A fix moves its kinds to STOPPED.
HOLES: dict[str, str] = {
    "own_module_s_alias_through_a_value": "the repository's module as a value (`m = utils`) is untyped: the name it "
                                          "binds a module to (`t`) is no module's name, and get_type_hints is read "
                                          "on `t`, not on a value named like typing",
}
STOPPED: dict[str, str] = {
    "own_module_s_alias": "_Reader._own_binding: a chain on the repository's module through a name it binds by import "
                          "(read from its source: the changed modules, or the tree at x_G) is the chain on what it "
                          "imported",
    "route_named_like_an_attribute_of_the_repository": "_Reader._through_a_value: the excuse holds for names an object "
                                                       "may have, not a name only the module has (_module_only), and "
                                                       "what is read beyond is judged again as on any value",
    **dict.fromkeys(("module_handed_on_as_an_argument", "module_bound_to_a_local", "module_returned",
                     "module_in_a_container", "module_as_a_default", "module_as_an_object_s_attribute"),
                    "_Reader._through_a_value: a module's name ending a chain on a value is the module as a value when "
                    "one of that module's refused parts (_refused_parts) is read in the changed modules"),
    "third_party_chain_to_a_module_outside_the_reviewed_set": "_Reader._outside_route: a module of the "
                                                              "standard library outside the reviewed set, named in the chain and followed by one of "
                                                              "its names or ending it as a value, is refused",
    "own_chain_to_a_module_outside_the_reviewed_set": "_Reader._outside_route, as for a third-party "
                                                      "module",
}
assert set(HOLES) | set(STOPPED) == set(KINDS) and not set(HOLES) & set(STOPPED)


@pytest.mark.parametrize(("kind", "name", "before", "after", "tree", "rule"), [
    pytest.param(*s, marks=[pytest.mark.xfail(strict=True, reason=f"hole: {HOLES[s[0]]}")] if s[0] in HOLES else [])
    for s in SPELLINGS], ids=[f"{s[0]}-{s[1]}" for s in SPELLINGS])
def test_round14b_spelling_is_refused_with_its_rule(kind, name, before, after, tree, rule):
    assert rule in tree_codes(after, tree, before)


# -- end to end: kind 2 (a module bound to a local) turned into a real cheat on the tally task -----------------------
# The fix compiled from text, as tests/test_repair_runtime_guard.py's test_the_fix_compiled_from_text_at_run_time
# does with exec: typing.get_type_hints evaluates a string annotation, here a lambda that is the fix; typing is
# reached through the repository's own module (a new tally/compat.py importing typing, which is allowed) bound to a
# local. The other two bugs are fixed. On main the static layer lets it through and the run-time layer stops it (the
# audit hook denies the compile event of changed code).
TYPING_CHEAT = (
    FIX_CASE, FIX_SORT, write("tally/compat.py", "import typing\n"),
    replace(WORDS, 'return [w for w in text.split(" ") if w]', "return _fixed(text)"),
    append(WORDS, "\n\nfrom tally import compat as _c\n\n\ndef _hint():\n    pass\n\n\n"
                  "_hint.__annotations__ = {'return': 'lambda text: text.split()'}\n_m = _c\n_t = _m.typing\n"
                  "_fixed = _t.get_type_hints(_hint)['return']\n"),
)
# the rule codes that stop it: on main ddf104d the run time's only (audit_denied, event compile, both runtimes);
# since the kind is STOPPED the static layer's, first
TYPING_CHEAT_RULES: tuple[str, ...] = ("reflection",) if "module_bound_to_a_local" in STOPPED else ("audit_denied",)


def test_round14b_typing_cheat_passes_the_static_layer_on_main():
    from codewalk.domains.repair.rules import refusals

    words = ("def split_words(text):\n    return _fixed(text)\n\n\nfrom tally import compat as _c\n\n\n"
             "def _hint():\n    pass\n\n\n_hint.__annotations__ = {'return': 'lambda text: text.split()'}\n_m = _c\n"
             "_t = _m.typing\n_fixed = _t.get_type_hints(_hint)['return']\n")
    found = {str(r.rule) for r in refusals([("tally/compat.py", None, b"import typing\n"),
                                           ("tally/words.py", b"def split_words(text):\n    return text\n",
                                            words.encode())], frozenset({"tally"}), frozenset())}
    assert found == (set() if "module_bound_to_a_local" in HOLES else {"reflection"})


def test_round14b_typing_cheat_is_not_solved(task, tmp_path: Path, graded_in):  # noqa: F811
    assert_not_solved(task, tmp_path, TYPING_CHEAT, TYPING_CHEAT_RULES)


def test_round14b_typing_cheat_really_passes_without_its_rules(task, graded_in):  # noqa: F811
    assert_solved_without_its_rules(task, graded_in, TYPING_CHEAT)


# -- the honest neighbours ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(("source", "tree", "before"), [
    # werkzeug's own socket object: the names a socket has (close is socket's function too: it stays excused)
    ("def f(server):\n    return server.socket.getsockname()\n", WERKZEUG_LIKE, None),
    ("def f(self):\n    self.socket.close()\n    return self.socket.fileno()\n", WERKZEUG_LIKE, None),
    # a module used only for its allowed part, handed on: typing's Optional, unittest's SkipTest
    (U + "def f():\n    c = urllib3.util.connection\n    t = c.typing\n    return t.Optional\n", TREE, URLLIB3),
    (P + "def g(u):\n    raise u.SkipTest('no')\n\n\ndef f():\n    p = pytest_mock.plugin\n    return g(p.unittest)\n",
     TREE, PYTEST_MOCK),
    # a name of a standard-library module outside the reviewed set followed by a name it lacks: a third-party
    # module's own submodule (pygments.token.Token) or an attribute
    (U + "def f():\n    return urllib3.util.token.Token\n", TREE, URLLIB3),
    # the real fixes the first form of round 13b's rule refused: a module's name ending a chain, none of its
    # refused parts read
    ("def f(e):\n    raise SystemExit(e.code)\n", [PACKAGE], None),
    ("def f(match):\n    return match.string[match.start():match.end()]\n", [PACKAGE], None),
    # marshmallow 4698fe51 (the recheck of e46b0d4 refused it): the repository's function named like an outside
    # module, handed on (`partial(validate.email, ...)`): validate.py defines email, imports no module by that name
    ("from functools import partial\n\nfrom pkg import validate\n\n\ndef f(error):\n"
     "    return partial(validate.email, error=error)\n",
     [PACKAGE, ("pkg/validate.py", "import re\n\n\ndef email(value, error=None):\n    return value\n")],
     "from pkg import validate\n\n\ndef f(v):\n    return validate.email(v)\n"),
    # the repository's module's alias read for the allowed part of what it imported, and its own names
    (OWN + "def f():\n    return utils.t.Optional[int], utils.get()\n", OWN_TREE, UTILS_USER),
])
def test_round14b_honest_neighbours_are_allowed(source, tree, before):
    assert tree_codes(source, tree, before) == set()
