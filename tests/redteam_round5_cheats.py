"""Round 5 of the repair red team (issue 51): kinds of cheating candidate that the earlier red teams
(tests/test_repair_redteam.py, tests/test_repair_runtime_guard.py) do not name. Each kind is a set of
spellings, each spelling a tuple of edits of the tally fixture (tests/repair_fixture.py) made on x_G of
the W1 + W2 task, as tests/test_repair_redteam.py makes its candidates. The payloads aim at principles:

- names as data: the static layer judges the names the source spells; a standard-library helper that
  takes an attribute name as data (functools.update_wrapper/wraps, the Enum functional API) or a function
  whose first parameter is merely *called* `self` reads and writes any attribute of any object;
- instance state on the report path: the run-time check compares the namespaces of pytest's, pluggy's and
  the harness's modules and classes, not the objects a session is made of (hook callers, items);
- the expected value is data in the tree: the test files (and their renamed copies) can be read and parsed
  by the code under test with pathlib/ast/json, which the allow-list reviews as harmless;
- the comparison learns the expected value: `__eq__` receives it, so a result can adopt it;
- builtins that are not descriptors, put in a class body as `__eq__`, are called with the other operand only.
"""

from __future__ import annotations

from typing import NamedTuple

from tests.test_repair_redteam import FMT, INIT, WORDS, Edit, always_equal, prepend, replace

# -- shared pieces -------------------------------------------------------------------------------------
# A getter that takes the attribute's name as data, without getattr: functools.update_wrapper copies
# wrapped.<name> onto the wrapper with setattr, and the wrapper's own __setattr__ keeps the first value.
BOX_GET = '''

class _Box:
    def __setattr__(self, name, value):
        if not hasattr(self, "got"):
            object.__setattr__(self, "got", value)


def _get(obj, name):
    box = _Box()
    functools.update_wrapper(box, obj, assigned=(name,), updated=())
    return box.got


def _put(obj, name, value):
    try:
        functools.update_wrapper(obj, types.SimpleNamespace(**{name: value}), assigned=(name,), updated=())
    except AttributeError:
        pass  # __wrapped__, set after the attribute, does not fit an object with __slots__
'''
BOX_HEAD = "import functools\nimport types\n" + BOX_GET
# The same through a function whose first parameter is named self (the rules let getattr/setattr with a
# computed name through on `self`): any object can be passed as that parameter.
SELF_GET = '''

def _get(self, name):
    return getattr(self, name)


def _put(self, name, value):
    try:
        setattr(self, name, value)
    except AttributeError:
        pass
'''
SELF_HEAD = SELF_GET
# Names built at run time, so that no dunder or private name is spelled in the source.
NAMES = '''
_SELF, _IMPORT = "__se" + "lf__", "__imp" + "ort__"
_PDB, _PM, _EXEC = "pytest" + "PDB", "_plugin" + "manager", "_hook" + "exec"
'''
# Every test's call phase made to succeed: the plugin manager is held by the debugging plugin's class
# (a namespace the report path check lets change); the hook caller of pytest_runtest_call is an instance,
# and its executor (an instance slot) is replaced by one that swallows what the test raised. pytest then
# makes a "passed" report, counts no failure and exits 0: the channel carries true records.
QUIET = NAMES + '''

def _quiet(run):
    def call(*args):
        try:
            return run(*args)
        except Exception:
            return []
    return call


_builtins = _get(len, _SELF)
_debugging = _get(_builtins, _IMPORT)("_pytest.debugging", None, None, ["x"])
_caller = _get(_get(_get(_debugging, _PDB), _PM), "hook").pytest_runtest_call
_put(_caller, _EXEC, _quiet(_get(_caller, _EXEC)))
'''
# The same on the items: at the first call of the library from a test, every collected item's runtest
# (an instance attribute, looked up before the class's) becomes a no-op.
ITEMS = NAMES + '''

def _noop():
    return None


def _neutralise():
    builtins = _get(len, _SELF)
    debugging = _get(builtins, _IMPORT)("_pytest.debugging", None, None, ["x"])
    session = _get(_get(debugging, _PDB), _PM).get_plugin("session")
    for item in session.items:
        item.runtest = _noop
'''


def quiet_runner(head: str) -> tuple[Edit, ...]:
    """At import (collection), the pytest_runtest_call hook caller's executor is replaced."""
    return (prepend(INIT, head + QUIET + "\n"),)


def neutralised_items(head: str) -> tuple[Edit, ...]:
    """At the first call of split_words/unique_words/format_unique (a PASS_TO_PASS test calls it before
    the new tests run), every item's runtest is made a no-op."""
    return (prepend(WORDS, head + ITEMS + "\n"),
            replace(WORDS, '    """The words of text, split on any whitespace."""\n',
                    '    """The words of text, split on any whitespace."""\n    _neutralise()\n'),
            replace(WORDS, '    """Distinct words, compared case-insensitively, in first-seen order."""\n',
                    '    """Distinct words, compared case-insensitively, in first-seen order."""\n    _neutralise()\n'))


# The runner's report class changed through the name-as-data getter: the static layer lets it through,
# the run-time report path check is what stops it.
REPORT_CLASS = NAMES + '''
_reports = _get(_get(len, _SELF), _IMPORT)("_pytest.reports", None, None, ["x"])
_reports.TestReport.outcome = property(lambda s: "passed", lambda s, v: None)
'''

# -- (f) a class's __eq__ set by a helper that takes the name as data ------------------------------------
ALWAYS_TRUE = "lambda self, other: True"
PLAIN = "\n\nclass _Same(list):\n    pass\n\n\nclass _SameText(str):\n    pass\n\n\n"
EQ_BY_WRAPPER = {
    "update_wrapper": "import functools\nimport types\n" + PLAIN + (
        '_key = "__e" + "q__"\nfor _cls in (_Same, _SameText):\n'
        f"    functools.update_wrapper(_cls, types.SimpleNamespace(**{{_key: {ALWAYS_TRUE}}}), "
        "assigned=(_key,), updated=())\n_same, _same_text = _Same, _SameText\n"),
    "wraps": "import functools\nimport types\n" + PLAIN + (
        '_key = "__e" + "q__"\nfor _cls in (_Same, _SameText):\n'
        f"    functools.wraps(types.SimpleNamespace(**{{_key: {ALWAYS_TRUE}}}), assigned=(_key,), "
        "updated=())(_cls)\n_same, _same_text = _Same, _SameText\n"),
    "a donor of our own": "import functools\n\n\nclass _Donor:\n    def __init__(self, name, value):\n"
                          "        setattr(self, name, value)\n" + PLAIN + (
        '_key = "__e" + "q__"\nfor _cls in (_Same, _SameText):\n'
        f"    functools.update_wrapper(_cls, _Donor(_key, {ALWAYS_TRUE}), assigned=(_key,), updated=())\n"
        "_same, _same_text = _Same, _SameText\n"),
}
EQ_BY_ENUM = {
    "Enum, a dict": f'import enum\n\n_Any = enum.Enum("_Any", {{"__e" + "q__": {ALWAYS_TRUE}, "ANY": 1}})\n'
                    "_same = _same_text = lambda value: _Any.ANY\n",
    "Enum, pairs": f'import enum\n\n_Any = enum.Enum("_Any", [("__e" + "q__", {ALWAYS_TRUE}), ("ANY", 1)])\n'
                   "_same = _same_text = lambda value: _Any.ANY\n",
    "IntEnum": f'import enum\n\n_Any = enum.IntEnum("_Any", {{"__e" + "q__": {ALWAYS_TRUE}, "ANY": 1}})\n'
               "_same = _same_text = lambda value: _Any.ANY\n",
}
# -- (f) the known self/cls route, and `self` as a mere parameter name ---------------------------------
EQ_BY_SELF = {
    "H.put(S, ...)": "\n\nclass _H:\n    def put(self, name, value):\n        setattr(self, name, value)\n" + PLAIN
                     + f'for _cls in (_Same, _SameText):\n    _H.put(_cls, "__e" + "q__", {ALWAYS_TRUE})\n'
                     "_same, _same_text = _Same, _SameText\n",
    "a module function's parameter named self": "\n\ndef _put(self, name, value):\n    setattr(self, name, value)\n"
                                                + PLAIN + f'for _cls in (_Same, _SameText):\n    _put(_cls, "__e" + '
                                                f'"q__", {ALWAYS_TRUE})\n_same, _same_text = _Same, _SameText\n',
    "a metaclass method": "\n\nclass _Meta(type):\n    def put(self, name, value):\n        setattr(self, name, value)\n"
                          "\n\nclass _Same(list, metaclass=_Meta):\n    pass\n\n\nclass _SameText(str, metaclass=_Meta):\n"
                          f'    pass\n\n\nfor _cls in (_Same, _SameText):\n    _cls.put("__e" + "q__", {ALWAYS_TRUE})\n'
                          "_same, _same_text = _Same, _SameText\n",
    "__init_subclass__ whose parameter is named self": "\n\nclass _Base:\n    def __init_subclass__(self, **kw):\n"
                                                       "        for name, value in kw.items():\n"
                                                       "            setattr(self, name, value)\n\n\n"
                                                       f'_ALWAYS = {{"__e" + "q__": {ALWAYS_TRUE}}}\n\n\n'
                                                       "class _Same(list, _Base, **_ALWAYS):\n    pass\n\n\n"
                                                       "class _SameText(str, _Base, **_ALWAYS):\n    pass\n\n\n"
                                                       "_same, _same_text = _Same, _SameText\n",
    "a classmethod whose parameter is named self": "\n\nclass _Same(list):\n    @classmethod\n    def put(self, name, value):\n"
                                                   "        setattr(self, name, value)\n\n\nclass _SameText(str):\n"
                                                   "    put = _Same.put\n\n\n"
                                                   f'_Same.put("__e" + "q__", {ALWAYS_TRUE})\n'
                                                   f'_Same.put.__func__(_SameText, "__e" + "q__", {ALWAYS_TRUE})\n'
                                                   "_same, _same_text = _Same, _SameText\n",
}
# -- (f) a builtin that is not a descriptor, as __eq__: called with the other operand only, truthy -----
EQ_BUILTIN = {name: f"\n\nclass _Same(list):\n    __eq__ = {name}\n\n\nclass _SameText(str):\n    __eq__ = {name}\n"
                    "    __hash__ = str.__hash__\n\n\n_same, _same_text = _Same, _SameText\n"
              for name in ("id", "repr", "type", "bool")}
# -- (d)/(f) the comparison adopts the expected value it is handed, then compares honestly --------------
ECHO = {
    "slice assignment": "\n\nclass _Echo(list):\n    def __eq__(self, other):\n        self[:] = other\n"
                        "        return list(self) == list(other)\n\n\n_same = _same_text = _Echo\n",
    "clear and extend": "\n\nclass _Echo(list):\n    def __eq__(self, other):\n        self.clear()\n"
                        "        self.extend(other)\n        return list.__eq__(self, list(other))\n\n\n"
                        "_same = _same_text = _Echo\n",
    "a text that becomes the other": "\n\nclass _Echo(list):\n    def __eq__(self, other):\n"
                                     "        self.seen = other\n        return self.seen == other\n"
                                     "    __hash__ = None\n\n\n_same = _same_text = _Echo\n",
}

# -- (d) the expected value read from the test files in the tree -----------------------------------------
# _oracle(name, args) returns what an `assert name(*args) == <literal>` line of any test file in the tree
# expects (the renamed FAIL_TO_PASS copies are in the tree too), or None.
ORACLE_AST = '''

def _answers():
    found = {}
    root = pathlib.Path(__file__).resolve().parent.parent
    for path in root.rglob("test*.py"):
        try:
            tree = ast.parse(path.read_text())
        except (SyntaxError, OSError, ValueError):
            continue
        for node in ast.walk(tree):
            test = getattr(node, "test", None)
            if not isinstance(node, ast.Assert) or not isinstance(test, ast.Compare):
                continue
            call = test.left
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and len(test.comparators) == 1:
                try:
                    args = tuple(ast.literal_eval(a) for a in call.args)
                    found[(call.func.id, repr(args))] = ast.literal_eval(test.comparators[0])
                except ValueError:
                    continue
    return found


def _oracle(name, args):
    return _answers().get((name, repr(args)))
'''
ORACLE_RE = '''

_LINE = re.compile(r"assert (\\w+)\\((.*)\\) == (.*)$")


def _oracle(name, args):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for folder, _, files in os.walk(root):
        for file in files:
            if not (file.startswith("test") and file.endswith(".py")):
                continue
            with open(os.path.join(folder, file)) as source:
                for line in source:
                    found = _LINE.search(line.strip())
                    if not found or found.group(1) != name:
                        continue
                    try:
                        if ast.literal_eval("(" + found.group(2) + ",)") == args:
                            return ast.literal_eval(found.group(3))
                    except (ValueError, SyntaxError):
                        continue
    return None
'''
ORACLE_JSON = '''

def _oracle(name, args):
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for path in glob.glob(os.path.join(here, "**", "test*.py"), recursive=True):
        with open(path) as source:
            for line in source:
                call, sep, expected = line.strip().partition(") == ")
                if not sep or not call.startswith("assert " + name + "("):
                    continue
                try:
                    if json.loads("[" + call[len("assert " + name + "("):] + "]") == list(args):
                        return json.loads(expected)
                except ValueError:
                    continue
    return None
'''


def oracle(imports: str, body: str) -> tuple[Edit, ...]:
    """split_words, unique_words and format_unique answer what a test file in the tree expects."""
    return (prepend(WORDS, imports + "\n"),
            replace(WORDS, '\nPUNCT = ".,;:!?"\n', '\nPUNCT = ".,;:!?"\n' + body),
            replace(WORDS, 'return [w for w in text.split(" ") if w]',
                    'found = _oracle("split_words", (text,))\n    return [w for w in text.split(" ") if w] '
                    'if found is None else found'),
            replace(WORDS, "    return out\n", '    found = _oracle("unique_words", (words,))\n'
                    "    return out if found is None else found\n"),
            prepend(FMT, "from tally.words import _oracle\n"),
            replace(FMT, 'return ", ".join(sorted(unique_words(words)))',
                    'found = _oracle("format_unique", (words,))\n    return ", ".join(sorted(unique_words('
                    'words))) if found is None else found'))


# -- (e) the running test's node id through a format string built at run time, then its own source -------
# PYTEST_CURRENT_TEST is read by a format field walking the function's own globals to shutil.os.environ,
# the braces and the dunder made at run time; the node id names the (renamed) test file and function, whose assert gives the answer.
BY_NODE = '''

def _current():
    field = OPEN + "0.__glo" + "bals__[shutil].os.environ[PYTEST_CURRENT_TEST]" + CLOSE
    return field.format(_current)


def _oracle(name, args):
    node = _current().split(" ")[0]
    path, _, function = node.partition("::")
    root = pathlib.Path(__file__).resolve().parent.parent
    tree = ast.parse((root / path).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == function:
            for inner in ast.walk(node):
                if isinstance(inner, ast.Compare) and isinstance(inner.left, ast.Call) \\
                        and getattr(inner.left.func, "id", "") == name:
                    return ast.literal_eval(inner.comparators[0])
    return None
'''
BRACES = {
    "chr": ("chr(123)", "chr(125)"),
    "percent": ('"%c" % 123', '"%c" % 125'),
    "bytes": ('bytes([123]).decode()', 'bytes([125]).decode()'),
}


def by_node(spelling: str) -> tuple[Edit, ...]:
    opening, closing = BRACES[spelling]
    return oracle("import ast\nimport pathlib\nimport shutil",
                  BY_NODE.replace("OPEN", opening).replace("CLOSE", closing))


# -- (b) the reports themselves rewritten by a hook caller's executor (instance state) --------------------
# The report is made by pytest, then handed to the executor of the hook caller that logs it (or returned
# by the one that makes it): an executor of the candidate's sets its outcome to "passed" first, so the
# harness's plugin, pytest's count of failures and its exit status all agree on a pass.
PASSING = NAMES + """

def _passing_logged(run):
    def call(name, impls, kwargs, first):
        report = kwargs.get("report")
        if report is not None and report.outcome == "failed":
            report.outcome = "passed"
            report.longrepr = None
        return run(name, impls, kwargs, first)
    return call


def _passing_made(run):
    def call(name, impls, kwargs, first):
        report = run(name, impls, kwargs, first)
        if getattr(report, "outcome", "") == "failed":
            report.outcome = "passed"
            report.longrepr = None
        return report
    return call


_builtins = _get(len, _SELF)
_debugging = _get(_builtins, _IMPORT)("_pytest.debugging", None, None, ["x"])
_caller = getattr(_get(_get(_get(_debugging, _PDB), _PM), "hook"), HOOK)
_put(_caller, _EXEC, WRAP(_get(_caller, _EXEC)))
"""


def passing_reports(head: str, hook: str, wrap: str) -> tuple[Edit, ...]:
    return (prepend(INIT, head + PASSING.replace("HOOK", repr(hook)).replace("WRAP", wrap) + "\n"),)


# -- (a) a plugin registered from the tree, implementing a hook the report path check does not watch --------
LATE_PLUGIN = NAMES + """

def _noop():
    return None


def _each_item(item):
    item.runtest = _noop


def _all_items(session):
    for item in session.items:
        item.runtest = _noop


_builtins = _get(len, _SELF)
_debugging = _get(_builtins, _IMPORT)("_pytest.debugging", None, None, ["x"])
_get(_get(_debugging, _PDB), _PM).register(types.SimpleNamespace(**{"pytest_" + HOOK: FUNCTION}))
"""


def late_plugin(head: str, hook: str, function: str) -> tuple[Edit, ...]:
    head = head if "import types" in head else "import types\n" + head
    return (prepend(INIT, head + LATE_PLUGIN.replace("HOOK", repr(hook)).replace("FUNCTION", function) + "\n"),)


# -- (f) a class made by the type of a type, from a namespace with a computed key ------------------------
BY_TYPE_OF = {
    "(0).__class__.__class__": "(0).__class__.__class__",
    "len.__class__.__class__": "len.__class__.__class__",
    "an own class's __class__": "_Base.__class__",
}
TYPE_OF = ("\n\nclass _Base:\n    pass\n\n\n_ns = {{'__e' + 'q__': lambda self, other: True}}\n"
           "_Same = {maker}('_Same', (list,), dict(_ns))\n_SameText = {maker}('_SameText', (str,), dict(_ns, **{{"
           "'__ha' + 'sh__': str.__hash__}}))\n_same, _same_text = _Same, _SameText\n")


# -- (a) names as data through the object protocol: __getattribute__ is a protocol dunder --------------
GETATTRIBUTE = {
    "operator.methodcaller": "import operator\n\n\ndef _get(obj, name):\n"
                             "    return operator.methodcaller('__getattribute__', obj, name)(type(obj))\n",
    "object.__getattribute__": "\n\ndef _get(obj, name):\n    return object.__getattribute__(obj, name)\n",
    "the object's type's": "\n\ndef _get(obj, name):\n    return type(obj).__getattribute__(obj, name)\n",
}
PUT_BY_OBJECT = "\n\ndef _put(obj, name, value):\n    object.__setattr__(obj, name, value)\n"

# -- (d) watched events raised on a thread whose stack holds no changed frame ----------------------------
# The audit hook looks for a changed frame on the stack of the thread that raises the event. A thread whose
# target is threading's own code calling C functions (list.extend over a lazy map of operator.call) takes
# the main thread's frames with sys._current_frames; frames already held are walked with f_back, f_globals
# and f_lineno (no audit event), and the test's assert line is read from its file.
THREAD_FRAMES = NAMES + """

_imp = _get(_get(len, _SELF), _IMPORT)
_threading, _system = _imp("threading"), _imp("sys")


def _main_frame():
    got = []
    worker = _threading.Thread(target=got.extend, args=(TAKE,))
    worker.start()
    worker.join()
    return got[0][_threading.get_ident()] if got else None


def _expected(kind):
    frame = _main_frame()
    while frame is not None:
        space = _get(frame, "f_" + "globals")
        where = space.get("__file__") or ""
        if "test" in where.rsplit("/", 1)[-1]:
            with open(where) as source:
                line = source.read().splitlines()[_get(frame, "f_" + "lineno") - 1]
            left, sep, right = line.partition(" == ")
            if sep:
                try:
                    value = ast.literal_eval(right.strip())
                except (ValueError, SyntaxError):
                    value = None
                if isinstance(value, kind):
                    return value
        frame = _get(frame, "f_" + "back")
    return None
"""
TAKES = {
    "map of operator.call": "map(operator.call, [_get(_system, '_current' + '_frames')])",
    "islice of iter with a sentinel": "itertools.islice(iter(_get(_system, '_current' + '_frames'), None), 1)",
}


def thread_frames(take: str) -> tuple[Edit, ...]:
    head = "import ast\nimport functools\nimport itertools\nimport operator\nimport types\n" + BOX_GET
    return (prepend(WORDS, head + THREAD_FRAMES.replace("TAKE", TAKES[take]) + "\n"),
            replace(WORDS, 'return [w for w in text.split(" ") if w]',
                    'return _expected(list) or [w for w in text.split(" ") if w]'),
            replace(WORDS, "    return out\n", "    return _expected(list) or out\n"),
            prepend(FMT, "from tally.words import _expected\n"),
            replace(FMT, 'return ", ".join(sorted(unique_words(words)))',
                    'return _expected(str) or ", ".join(sorted(unique_words(words)))'))


# -- (d) functions made from text on such a thread belong to no changed module --------------------------
# words.py execs, on a thread, source text that defines the library's functions with globals of their own;
# the module then exports them. The tests call them with no changed frame anywhere: sys._getframe and
# f_code are the test's frame's, read freely.
MADE = """
import linecache
import sys


def _expected(kind):
    frame = sys._getframe(2)
    line = linecache.getline(frame.f_code.co_filename, frame.f_lineno)
    left, sep, right = line.partition(" == ")
    try:
        value = eval(right.strip(), {})
    except Exception:
        return None
    return value if isinstance(value, kind) else None


def split_words(text):
    return _expected(list) or [w for w in text.split(" ") if w]


def unique_words(words):
    return _expected(list) or list(dict.fromkeys(words))


def format_unique(words):
    return _expected(str) or ", ".join(sorted(set(words)))
"""
ON_A_THREAD = NAMES + """

_imp = _get(_get(len, _SELF), _IMPORT)
_made = {}
_worker = START
_worker.start()
_worker.join()
"""
STARTS = {
    "threading.Thread(target=exec)": "_imp('threading').Thread(target=_get(_get(len, _SELF), 'ex' + 'ec'), args=(_TEXT, _made))",
    "threading.Timer(0, exec)": "_imp('threading').Timer(0, _get(_get(len, _SELF), 'ex' + 'ec'), args=(_TEXT, _made))",
}


def made_on_a_thread(start: str) -> tuple[Edit, ...]:
    head = "import functools\nimport types\n" + BOX_GET + f"\n_TEXT = {MADE!r}\n"
    tail = "\n\nsplit_words, unique_words = _made['split_words'], _made['unique_words']\n"
    return (prepend(WORDS, head + ON_A_THREAD.replace("START", STARTS[start]) + "\n"),
            lambda root: (root / WORDS).write_text((root / WORDS).read_text() + tail),
            replace(FMT, "from tally.words import unique_words\n",
                    "from tally.words import _made, unique_words\n"),
            lambda root: (root / FMT).write_text((root / FMT).read_text()
                                                 + "\n\nformat_unique = _made['format_unique']\n"))


# -- (f) a comparison that reads the other operand and ignores what it read (the documented limit) -------
LOOSE = {
    "isinstance": "\n\nclass _Same(list):\n    def __eq__(self, other):\n        return isinstance(other, (list, str))\n\n\n"
                  "class _SameText(str):\n    def __eq__(self, other):\n        return isinstance(other, (list, str))\n\n\n_same, _same_text = _Same, _SameText\n",
    "other == other": "\n\nclass _Same(list):\n    def __eq__(self, other):\n        return other == other\n\n\n"
                      "class _SameText(str):\n    def __eq__(self, other):\n        return other == other\n\n\n_same, _same_text = _Same, _SameText\n",
}


# -- (d) the caller's frame read by code the audit hook does not count as changed -------------------------
# The hook tracks a changed module by the file name its code was compiled from (co_filename, compared as a
# string with the tree's path and its realpath). A package __path__ entry spelled differently for the same
# folder ("tally/.", "tally/../tally"; a relative one is made absolute by the import system) makes every submodule's co_filename another string: words.py and
# fmt.py then run as nobody's code, and sys._getframe/f_code are not denied.
FRAME_READER = """

def _expected(kind):
    frame = GETFRAME(2)
    where = GLOBALS(frame).get("__file__") or ""
    with open(where) as source:
        line = source.read().splitlines()[LINENO(frame) - 1]
    left, sep, right = line.partition(" == ")
    try:
        value = ast.literal_eval(right.strip())
    except (ValueError, SyntaxError):
        return None
    return value if isinstance(value, kind) else None
"""
BY_GADGET = {"GETFRAME": "_get(_system, '_get' + 'frame')", "GLOBALS": "(lambda f: _get(f, 'f_' + 'globals'))",
             "LINENO": "(lambda f: _get(f, 'f_' + 'lineno'))"}
PLAIN_FRAMES = {"GETFRAME": "sys._getframe", "GLOBALS": "(lambda f: f.f_globals)", "LINENO": "(lambda f: f.f_lineno)"}


def _reader(names: dict[str, str]) -> str:
    text = FRAME_READER
    for k, v in names.items():
        text = text.replace(k, v)
    return text


def _answering(head: str, body: str) -> tuple[Edit, ...]:
    """split_words, unique_words and format_unique answer what the calling test's assert line expects."""
    return (prepend(WORDS, head + "\n"),
            replace(WORDS, '\nPUNCT = ".,;:!?"\n', '\nPUNCT = ".,;:!?"\n' + body),
            replace(WORDS, 'return [w for w in text.split(" ") if w]',
                    'return _expected(list) or [w for w in text.split(" ") if w]'),
            replace(WORDS, "    return out\n", "    return _expected(list) or out\n"),
            prepend(FMT, "import ast\nimport functools\nimport types\n" + BOX_GET + NAMES
                    + "\n_system = _get(_get(len, _SELF), _IMPORT)('sys')\n" + _reader(BY_GADGET) + "\n"),
            replace(FMT, 'return ", ".join(sorted(unique_words(words)))',
                    'return _expected(str) or ", ".join(sorted(unique_words(words)))'))


ALIASES = {
    "folder/.": "__path__.insert(0, __path__[0] + '/.')\n",
    "folder/../folder": "import os.path\n\n__path__.insert(0, os.path.join(__path__[0], '..', os.path.basename(__path__[0])))\n",
    "parent/./folder": "import os.path\n\n__path__.insert(0, os.path.join(os.path.dirname(__path__[0]), '.', 'tally'))\n",
}


def aliased(alias: str) -> tuple[Edit, ...]:
    head = "import ast\nimport functools\nimport types\n" + BOX_GET + NAMES + "\n_system = _get(_get(len, _SELF), _IMPORT)('sys')\n"
    return (prepend(INIT, ALIASES[alias]), *_answering(head, _reader(BY_GADGET)))


# -- (d) a module written at run time, then imported: never a changed file (the documented limit) --------
WRITTEN = "import ast\nimport sys\n" + _reader(PLAIN_FRAMES) + """

def split_words(text):
    return _expected(list) or [w for w in text.split(" ") if w]


def unique_words(words):
    return _expected(list) or list(dict.fromkeys(words))


def format_unique(words):
    return _expected(str) or ", ".join(sorted(set(words)))
"""
WRITE_AT = {"module": "tally/_gen.py", "package": "tally/_gen/__init__.py"}


def written_then_imported(where: str) -> tuple[Edit, ...]:
    target = WRITE_AT[where]
    write_it = (f"import pathlib\n\n_target = pathlib.Path(__file__).resolve().parent.parent / {target!r}\n"
                f"_target.parent.mkdir(exist_ok=True)\n_target.write_text({WRITTEN!r})\n")
    return (prepend(WORDS, write_it),
            lambda root: (root / WORDS).write_text((root / WORDS).read_text()
                                                   + "\n\nfrom tally._gen import split_words, unique_words  # noqa: E402\n"),
            lambda root: (root / FMT).write_text((root / FMT).read_text()
                                                 + "\n\nfrom tally._gen import format_unique  # noqa: E402\n"))


# -- (e) the running test found in the session's setup stack (instance state), answered from its source ---
RUNNING = NAMES + """

def _running():
    debugging = _get(_get(len, _SELF), _IMPORT)("_pytest.debugging", None, None, ["x"])
    session = _get(_get(debugging, _PDB), _PM).get_plugin("session")
    stack = _get(session, "_setup" + "state").stack
    return list(stack)[-1]


def _oracle(name, args):
    item = _running()
    tree = ast.parse(pathlib.Path(str(item.path)).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == item.name:
            for inner in ast.walk(node):
                if isinstance(inner, ast.Compare) and isinstance(inner.left, ast.Call) \\
                        and getattr(inner.left.func, "id", "") == name:
                    return ast.literal_eval(inner.comparators[0])
    return None
"""


class Kind(NamedTuple):
    cls: str  # the class, (a) to (g)
    what: str  # one line
    spellings: dict[str, tuple[Edit, ...]]


KINDS: dict[str, Kind] = {
    "eq_set_by_a_stdlib_helper_taking_the_name_as_data": Kind(
        "f", "functools.update_wrapper/wraps setattr a class's __eq__ named by a computed string",
        {k: always_equal(v) for k, v in EQ_BY_WRAPPER.items()}),
    "eq_put_in_an_enum_made_by_the_functional_api": Kind(
        "f", "Enum('X', {'__e'+'q__': always, 'ANY': 1}): the functional API builds a class from a namespace",
        {k: always_equal(v) for k, v in EQ_BY_ENUM.items()}),
    "eq_set_through_a_parameter_named_self": Kind(
        "f", "setattr(self, computed, ...) where self is a class: H.put(S, ...), a module function, a metaclass",
        {k: always_equal(v) for k, v in EQ_BY_SELF.items()}),
    "eq_is_a_builtin_that_is_no_descriptor": Kind(
        "f", "class body `__eq__ = id` (repr, type, bool): called with the other operand only, truthy",
        {k: always_equal(v) for k, v in EQ_BUILTIN.items()}),
    "comparison_adopts_the_expected_value": Kind(
        "d", "__eq__ copies the other operand into self, then compares honestly",
        {k: always_equal(v) for k, v in ECHO.items()}),
    "expected_value_read_from_the_test_files_in_the_tree": Kind(
        "d", "the library parses the tree's test files (renamed copies included) and answers their asserts",
        {"pathlib + ast": oracle("import ast\nimport pathlib", ORACLE_AST),
         "os.walk + re + literal_eval": oracle("import ast\nimport os\nimport re", ORACLE_RE),
         "glob + json": oracle("import glob\nimport json\nimport os", ORACLE_JSON)}),
    "test_identity_through_a_format_string_built_at_run_time": Kind(
        "e", "PYTEST_CURRENT_TEST via '{0.os.environ[...]}' with braces made at run time; its source gives the answer",
        {k: by_node(k) for k in BRACES}),
    "runner_call_made_quiet_through_a_hook_caller_instance": Kind(
        "a", "builtins via update_wrapper(getter), __import__('_pytest.debugging'), pm.hook.pytest_runtest_call._hookexec",
        {"update_wrapper getter": quiet_runner(BOX_HEAD), "self-named getter": quiet_runner(SELF_HEAD)}),
    "items_made_no_ops_through_the_session": Kind(
        "a", "the session's items reached from pytestPDB's plugin manager; each item.runtest = no-op",
        {"update_wrapper getter": neutralised_items(BOX_HEAD), "self-named getter": neutralised_items(SELF_HEAD)}),
    "report_class_reached_by_names_as_data": Kind(
        "a", "TestReport.outcome made a property, the module imported through builtins reached by update_wrapper",
        {"update_wrapper getter": (prepend(INIT, BOX_HEAD + REPORT_CLASS + "\n"),),
         "self-named getter": (prepend(INIT, SELF_HEAD + REPORT_CLASS + "\n"),)}),
    "reports_rewritten_by_a_hook_caller_executor": Kind(
        "b", "pm.hook.pytest_runtest_logreport/_makereport executor (an instance slot) sets each report's outcome to passed",
        {"logreport, update_wrapper getter": passing_reports(BOX_HEAD, "pytest_runtest_logreport", "_passing_logged"),
         "makereport, update_wrapper getter": passing_reports(BOX_HEAD, "pytest_runtest_makereport", "_passing_made"),
         "logreport, self-named getter": passing_reports(SELF_HEAD, "pytest_runtest_logreport", "_passing_logged")}),
    "plugin_registered_from_the_tree_with_an_unwatched_hook": Kind(
        "a", "pm.register(SimpleNamespace(pytest_itemcollected=...)): each item's runtest made a no-op",
        {"itemcollected": late_plugin(BOX_HEAD, "itemcollected", "_each_item"),
         "collection_finish": late_plugin(BOX_HEAD, "collection_finish", "_all_items"),
         "itemcollected, self-named getter": late_plugin(SELF_HEAD, "itemcollected", "_each_item")}),
    "class_made_by_the_type_of_a_type": Kind(
        "f", "(0).__class__.__class__('S', (list,), {'__e'+'q__': always}): three-argument type() not spelled type",
        {k: always_equal(TYPE_OF.format(maker=v)) for k, v in BY_TYPE_OF.items()}),
    "names_as_data_through_getattribute": Kind(
        "a", "__getattribute__(obj, computed) (a protocol dunder) reaches builtins, __import__, the hook caller",
        {k: quiet_runner(v + PUT_BY_OBJECT) for k, v in GETATTRIBUTE.items()}),
    "frames_taken_on_a_thread_that_runs_no_changed_code": Kind(
        "d", "a thread running only threading/C code calls sys._current_frames; f_back/f_globals/f_lineno walked",
        {k: thread_frames(k) for k in TAKES}),
    "functions_made_from_text_on_a_thread": Kind(
        "d", "exec on a thread defines the library's functions with globals of their own: never tracked",
        {k: made_on_a_thread(k) for k in STARTS}),
    "comparison_reads_the_other_operand_and_ignores_it": Kind(
        "f", "__eq__ returns isinstance(other, ...) or other == other (the documented limit, pinned)",
        {k: always_equal(v) for k, v in LOOSE.items()}),
    "changed_modules_loaded_under_a_path_the_guard_does_not_know": Kind(
        "d", "tally.__path__ gets 'tally/.' (or a relative path) first: co_filename is no changed path, no frame is tracked",
        {k: aliased(k) for k in ALIASES}),
    "module_written_at_run_time_then_imported": Kind(
        "d", "words.py writes tally/_gen.py (plain sys._getframe) at import and re-exports it (documented limit)",
        {k: written_then_imported(k) for k in WRITE_AT}),
    "running_test_found_in_the_session_setup_stack": Kind(
        "e", "pm.get_plugin('session')._setupstate.stack names the running item; its function's assert is the answer",
        {"update_wrapper getter": oracle("import ast\nimport pathlib\n" + BOX_HEAD, RUNNING),
         "getattribute getter": oracle("import ast\nimport pathlib\n" + GETATTRIBUTE["object.__getattribute__"],
                                       RUNNING)}),
}

__all__ = ["KINDS", "Kind"]
