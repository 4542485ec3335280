"""codewalk's test runner: pytest started under the harness's guard, the tree importable only once pytest is.

Run by the harness (run.py) as `python -s boot.py PYTEST-ARGS` in place of `pytest`, with no PYTHONPATH
(its entries are in CODEWALK_GUARD) and no user site. In this order:
1. It takes what the harness passed (environment variables, removed at once; the channel's key from a pipe,
   read once and closed) and, on Python 3.8 and later, installs a PEP 578 audit hook. A hook cannot be
   removed from Python code. While a frame of a changed module (CODEWALK_GUARD["changed"]) is on the stack,
   the hook denies getting a frame, code from text, first imports of standard-library modules outside a
   short allow-list, ctypes, gc walks, tracing, fcntl, and opening or listing /proc and /dev/fd. With none
   on the stack it judges the code that asks (a C function has no frame): a test file is read, and code made
   from text, only for a frame at a call whose code names the reader or evaluator it entered. A denied
   event sends one record naming it and ends the process: the run gives no verdict.
2. pytest and the plugins it is given load with the tree NOT on sys.path (no PYTHONPATH, no current
   directory), so no module of the tree can run before them whatever its name. The harness's plugin then
   records the identity of the report path (every attribute of pytest's and pluggy's modules and of their
   classes, the registered implementations of the hooks that make and log a report, the plugin itself)
   and only then puts the tree on sys.path (PYTHONPATH's entries, first, as before; PYTHONPATH is set
   again for the processes the tests start).
3. Each outcome leaves the process as one line `HMAC-SHA256(key, body) body`, body a JSON record with a
   sequence number. The key and the writer live only in the audit hook's closure (nothing refers to them
   from a module): a record is sent by `sys.audit("codewalk.send", record)`, which the hook refuses while
   a changed frame is on the stack, and before each record the hook checks the report path (a change:
   one record `report_path_changed`, then exit) and that the channel's descriptor is still the pipe the
   harness opened (another one put under it: exit with WRITER_REPLACED).
Python 3.6 and 3.7 have no audit hooks: there the plugin sends through a function it holds, the report
path is checked all the same, and the records say `audit: false` (the grade rests on the static layer).
Standard library only, Python 3.6+.
"""

import hashlib
import json
import os
import sys
import time

DENIED, REPORT_PATH, WRITER_REPLACED = 86, 87, 88  # exit codes of a run the guard stopped
# Standard-library modules changed code may import first (the rest of the standard library is denied: a
# path to frames, code from text, import by name or the process); its own and third-party modules are fine.
# The top-level names of the static layer's reviewed set (capabilities.REVIEWED) without those it allows
# only in part (importlib, inspect, sys, types, weakref, threading, unittest: pytest has imported them
# before the tree runs anyway, so no first import of theirs is seen) and platform (it starts processes).
# Also, measured on real histories (bench/runtime_guard_history.py): queue (reviewed in part: its classes;
# the module itself gives no path), termios and tty (terminal modes of a descriptor: a pipe, the channel
# among them, is no terminal), which a changed module imported at x_G already.
STDLIB_OK = frozenset("""
__future__ abc array base64 binascii bisect bz2 calendar cmath codecs collections colorsys contextlib contextvars
copy csv dataclasses datetime decimal difflib enum errno fnmatch fractions functools genericpath gettext glob
graphlib gzip hashlib heapq hmac html io ipaddress itertools json keyword locale lzma math mimetypes ntpath
numbers operator os pathlib posixpath pprint quopri random re reprlib secrets shlex shutil socket sre_compile
sre_constants sre_parse stat statistics string stringprep struct tempfile termios textwrap time tomllib tty typing queue
typing_extensions unicodedata urllib uuid warnings xml zipfile zlib zoneinfo _strptime _decimal _pydecimal
_datetime _json _collections_abc _weakrefset _bisect _heapq _random _sha1 _sha256 _sha512 _md5 _blake2 _sha3
_struct _csv _string _locale _operator _functools _contextvars _sre _codecs _bz2 _lzma _compression
""".split())
FRAMES = frozenset(("sys._getframe", "sys._current_frames", "sys._current_exceptions", "object.__getattr__",
                    "sys._getframemodulename", "object.__setattr__", "object.__delattr__"))
CODE = frozenset(("compile", "exec", "marshal.loads", "marshal.load", "code.__new__", "pickle.find_class",
                  "function.__new__"))
ALWAYS = frozenset(("gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys.settrace", "sys.setprofile",
                    "sys._settraceallthreads", "sys._setprofileallthreads"))
PATHS = frozenset(("open", "os.listdir", "os.scandir"))
# A thread started by changed code runs its target with no changed frame on its stack (issue 51, #15 #16):
# the harness starts every thread (_threads) and marks those changed code starts
THREADS = frozenset(("codewalk.thread", "codewalk.thread_begins", "codewalk.thread_ends"))
HIDDEN = ("/proc", "/dev/fd", "/dev/std")
# A test file renamed, replaced, removed, linked or given other times or modes (round 6: the tests' folder may
# be writable, and a file renamed away and back keeps its digest): allowed only to pytest's own work.
FILE_EVENTS = frozenset(("os.rename", "os.remove", "os.rmdir", "os.link", "os.truncate", "os.chmod", "os.chown",
                         "os.utime", "os.symlink"))
# The standard library's modules that read a file for whoever calls them (round 6): a test file is opened
# only through these on behalf of a module loaded before the tree (pytest, a plugin, the harness), never by
# the tests, the tree or another standard-library helper (shutil, zipfile: a weak reference's callback made
# of them runs with no changed frame on the stack).
READERS = frozenset(("io", "_pyio", "pathlib", "codecs", "linecache", "tokenize", "inspect", "importlib", "encodings",
                     "os", "posixpath", "genericpath", "zipimport", "ast", "traceback", "doctest"))
# The class guard's __build_class__ asks the hook whether a class statement ran with a changed frame on the stack
CLASS_EVENT = "codewalk.class"
# Imports the standard library's C code makes on its own, by a name written in its C source (not one its caller
# gives): datetime.strptime, date.strptime and time.strptime import _strptime when first called. Such an import
# made for a frame of unchanged code (click's DateTime type, called by changed code) is judged as the same import
# made for changed code (allowed: _strptime is in STDLIB_OK). The hook cannot see who gave a name (the C import
# and `__import__` are one function and no event carries the caller's arguments), so the names are listed; an
# import by a name the caller supplies (`__import__(name)`, importlib.import_module, pickle's find_class) for
# unchanged code stays denied at the code it makes.
C_IMPORTS = frozenset(("_strptime",))
# Round 14: the standard library's C functions that import a module for their caller (datetime's and time's
# strptime: _strptime; pickle's loads and load, and an Unpickler's load: the module a pickled class names). A frame
# with no importer out from the import system asks for a first import only at a call naming one of these.
C_IMPORTERS = ("strptime", "loads", "load", "Unpickler")
# The names a module's globals hold when the import system runs its code in a new module: the import system's
# own (set by module_from_spec and _init_module_attrs) and __builtins__, which exec adds (round 8).
MODULE_DUNDERS = frozenset(("__name__", "__doc__", "__package__", "__loader__", "__spec__", "__file__", "__cached__",
                            "__path__", "__builtins__"))
OPERANDS_EVENT = "codewalk.operands"  # an assertion's comparison about to be made (round 10: _judged_assertions)
WATCHED = FRAMES | CODE | ALWAYS | PATHS | THREADS | FILE_EVENTS | {"import", "codewalk.send", "codewalk.report_path",
                                                                   CLASS_EVENT, OPERANDS_EVENT}


def main():
    # The first entry is this script's folder (the harness's): plain `pytest` has its console script's there,
    # the environment's bin folder, and never the harness's files (a tree module named `run` is the tree's).
    sys.path[0] = os.path.dirname(sys.executable)
    memory = _not_dumpable()  # before the key is read: no process of the run may read or write this one's memory
    config = json.loads(os.environ.pop("CODEWALK_GUARD"))
    out = int(os.environ.pop("CODEWALK_OUTCOMES_FD"))
    key_fd = int(os.environ.pop("CODEWALK_KEY_FD"))
    key = os.read(key_fd, 256)
    os.close(key_fd)
    here = os.getcwd()
    changed = set()
    for path in config["changed"]:
        full = os.path.join(here, path)
        changed.update((full, os.path.realpath(full)))
    send = _sender(out, key)
    del key
    audit = hasattr(sys, "addaudithook")
    files = _files(here, config)  # which files are changed code: one answer for the hook and the class guard
    if audit:
        _install(send, frozenset(changed), _tops(config["path"]), _places(here, config), files)
        send = None  # from here on only the hook sends
    _one_parse_at_a_time()
    import pytest  # noqa: E402 - the tree is not on sys.path yet

    _no_compiled_test_modules()
    bodies = _test_module_bodies()

    plugin = _Plugin(send, config["path"], audit, frozenset(changed), files[0], memory)
    plugin._bodies = bodies
    del send, config, files
    sys.exit(pytest.main(sys.argv[1:], plugins=[plugin]))


def _not_dumpable():
    """Make this process not dumpable (prctl PR_SET_DUMPABLE 0), before it reads the channel's key, and say what
    keeps its memory (issue 51, round 12b). A process the tests start is in the runner's Landlock domain (which
    denies ptrace only out of a domain) and of its uid, so where no Yama restricts ptrace the kernel let it
    ptrace this process or process_vm_readv / process_vm_writev it: read the HMAC's pads and sign outcomes, or
    rewrite the tests' constants. A process that is not dumpable can be reached so only with CAP_SYS_PTRACE,
    which the tests' user has in neither runtime. The flag is kept across fork (a forked child holds the pads
    too) and reset by exec (the program a test starts is dumpable, and holds nothing of this one). ctypes is
    imported for the call and taken out of sys.modules after it, so what changed code imports first is as
    before. Returns "not dumpable", or why not (then the memory is kept by nothing but the uid)."""
    before = set(sys.modules)
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        zero = ctypes.c_ulong(0)
        if libc.prctl(4, zero, zero, zero, zero) != 0:  # PR_SET_DUMPABLE
            return "dumpable: prctl: " + os.strerror(ctypes.get_errno())
        if libc.prctl(3, zero, zero, zero, zero) != 0:  # PR_GET_DUMPABLE: 0 now
            return "dumpable: prctl did not hold"
        return "not dumpable"
    except (ImportError, OSError, AttributeError) as e:  # not Linux, or no ctypes
        return "dumpable: " + str(e)
    finally:
        for name in set(sys.modules) - before:
            del sys.modules[name]


def _sender(out, key):
    """The channel's writer: numbered lines, each signed whole (HMAC-SHA256 of the body), on the descriptor
    the harness gave, which must stay the pipe it was (a relay put under it ends the run). Everything it
    uses is bound here, from C functions: nothing a module holds changes what it writes."""
    sha, enc, fstat, write, exit_, sorted_, str_, isinstance_, bool_, int_ = (
        hashlib.sha256, _json_string(), os.fstat, os.write, os._exit, sorted, str, isinstance, bool, int)
    block = 64
    key = sha(key).digest() if len(key) > block else key
    key = key + b"\0" * (block - len(key))
    inner = bytes(b ^ 0x36 for b in key)
    outer = bytes(b ^ 0x5C for b in key)
    first = fstat(out)
    first = (first.st_dev, first.st_ino)
    state = [0]

    def value(v):
        if isinstance_(v, bool_):
            return "true" if v else "false"
        if isinstance_(v, int_):
            return str_(int_.__index__(v))
        return enc(str_(v))

    def send(record):
        now = fstat(out)
        if (now.st_dev, now.st_ino) != first:
            exit_(WRITER_REPLACED)
        items = [enc("seq") + ": " + str_(state[0])]
        state[0] += 1
        for k in sorted_(record):
            items.append(enc(str_(k)) + ": " + value(record[k]))
        body = ("{" + ", ".join(items) + "}").encode("utf-8")
        mac = sha(outer + sha(inner + body).digest()).hexdigest()
        data = mac.encode("ascii") + b" " + body + b"\n"
        while data:
            data = data[write(out, data):]

    return send


def _json_string():
    try:
        from _json import encode_basestring_ascii
    except ImportError:  # no C accelerator: Python 3.7 and older only have no audit hooks anyway
        from json.encoder import py_encode_basestring_ascii as encode_basestring_ascii
    return encode_basestring_ascii


def _tops(paths):
    """Top-level names the tree's sys.path entries hold: the repository's own modules."""
    found = set()
    for entry in paths:
        try:
            names = os.listdir(entry)
        except OSError:
            continue
        for name in names:
            found.add(name[:-3] if name.endswith(".py") else name)
    return frozenset(found)


def _places(here, config):
    """(the tree's folders on sys.path, each ending with a separator; the files the tests must leave as they
    are: test files, renamed copies, conftests, absolute and resolved both; for each changed file, absolute
    and resolved, the top-level modules it imported at x_G: guard.json beside this file, written by the
    host, which the tests cannot write)."""
    roots = set()
    for entry in list(config["path"]) + [here]:
        for path in (os.path.abspath(entry), os.path.realpath(entry)):
            roots.add(path.rstrip(os.sep) + os.sep)
    tests = set()
    for path in config.get("protected", ()):
        full = os.path.join(here, path)
        tests.update((full, os.path.realpath(full)))
    imported = {}
    try:
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "guard.json")) as handle:
            found = json.load(handle).get("imported_at_x_g", {})
    except (OSError, ValueError):
        found = {}
    for path, tops in found.items():
        full = os.path.join(here, path)
        imported[full] = imported[os.path.realpath(full)] = frozenset(tops)
    return tuple(sorted(roots, key=len, reverse=True)), frozenset(tests), imported


def _stdlib():
    names = set(getattr(sys, "stdlib_module_names", ())) | set(sys.builtin_module_names)
    if not getattr(sys, "stdlib_module_names", None):
        import sysconfig

        lib = sysconfig.get_paths()["stdlib"]
        for name in os.listdir(lib):
            names.add(name[:-3] if name.endswith(".py") else name)
        dynload = os.path.join(lib, "lib-dynload")
        for name in os.listdir(dynload) if os.path.isdir(dynload) else ():
            names.add(name.split(".")[0])
    return frozenset(names) - {"site-packages", "dist-packages"}


def _no_compiled_test_modules():
    """pytest's assertion rewriter loads a test module from its compiled copy in __pycache__ whenever the
    copy's source hash matches, writing or not (PYTHONDONTWRITEBYTECODE stops the writing only). A copy
    planted during the run would run as the test module, with no changed code on the stack. So the rewriter
    is given a reader that always misses: every test module is rewritten from its source. Done before the
    report path is recorded, so putting pytest's reader back is a changed report path."""
    import _pytest.assertion.rewrite as rewrite

    if hasattr(rewrite, "_read_pyc"):
        rewrite._read_pyc = lambda *args, **kwargs: None


def _test_module_bodies():
    """Round 13: (what each test module's body bound, pytest's import_path made to record it) or None. A test
    module's namespace is copied when pytest's import of it returns, before anything reads the module
    (pytest_plugins, setup_module, the fixture discovery that asks every object of the module for _mock_name and
    __wrapped__ before the namespace is copied for the item makers), with the namespaces of the classes its body
    made: {id(module or class): (it, a copy of its namespace)}. The items' guard then holds each test item to the
    object the body bound to its name: a test function rebound after the body ran (to a library function, a
    partial of one, another test) is not the test file's test, whoever rebinds it. Done before the report path is
    recorded, so putting pytest's import_path back is a changed report path."""
    import _pytest.python as python

    real = getattr(python, "import_path", None)
    if not ITEMS_GUARD or not callable(real) or not hasattr(python, "Function"):
        return None
    bodies, class_space = {}, type.__dict__["__dict__"].__get__
    dict_, type_, id_, list_, isinstance_, getattr_ = dict, type, id, list, isinstance, getattr
    codes = _test_module_codes()

    def import_path(*args, **kwargs):
        mod = real(*args, **kwargs)
        space = getattr_(mod, "__dict__", None)
        if type_(space) is dict_ and id_(mod) not in bodies:
            copy = dict_(space)
            _bound_by_its_def(copy, codes.get(space.get("__file__")))
            bodies[id_(mod)] = (mod, copy)
            name = space.get("__name__")
            for v in list_(space.values()):
                if isinstance_(v, type_) and id_(v) not in bodies:
                    own = class_space(v)
                    if own.get("__module__") == name:
                        bodies[id_(v)] = (v, dict_(own))
        return mod

    python.import_path = import_path
    return bodies, import_path


def _test_module_codes():
    """Round 14: {file name: the code pytest's assertion rewriter compiled for it}. pytest's `_rewrite_test` (as
    the rewriter's module holds it) is wrapped before the report path is recorded, so putting it back is a changed
    report path. A module pytest does not rewrite (PYTEST_DONT_REWRITE, --assert=plain) has no entry."""
    import types

    import _pytest.assertion.rewrite as rewrite

    codes, real, code_type = {}, getattr(rewrite, "_rewrite_test", None), types.CodeType
    if not callable(real):
        return codes
    tuple_, type_, str_, isinstance_ = tuple, type, str, isinstance

    def _rewrite_test(*args, **kwargs):
        got = real(*args, **kwargs)
        co = got[-1] if type_(got) is tuple_ and got else got
        if type_(co) is code_type and isinstance_(co.co_filename, str_):
            codes[co.co_filename] = co
        return got

    rewrite._rewrite_test = _rewrite_test
    return codes


# Round 14: between a def's MAKE_FUNCTION and its STORE, only these (3.13+ sets defaults and the like after it)
DEF_BETWEEN = frozenset(("SET_FUNCTION_ATTRIBUTE", "EXTENDED_ARG", "CACHE", "NOP"))
REBOUND = object()  # a test module's name its own def bound, found bound to another object when the import returned


def _bound_by_its_def(space, co):
    """Round 14: in space (a copy of a test module's namespace when its import returned), each name the module's
    code co binds by a plain def only (no decorator, no other store or deletion of that name anywhere in its body)
    must hold a function made from that def's code; else it is put REBOUND. What runs WHILE the body runs by no
    call of it (a GC callback, a finalizer of garbage, a signal handler, a thread) can rebind the module's names
    with no audit event: the copy taken when the import returns would take that for the body's own binding. The
    items' guard then finds the item runs another function than the body bound (report_path_changed)."""
    import dis
    import types

    if type(co) is not types.CodeType:
        return
    defs, other, made, last = {}, set(), None, None
    for ins in dis.get_instructions(co):
        op = ins.opname
        if op == "LOAD_CONST" and type(ins.argval) is types.CodeType:
            last = ins.argval
        elif op in ("STORE_NAME", "STORE_GLOBAL", "DELETE_NAME", "DELETE_GLOBAL"):
            name = ins.argval
            if op.startswith("STORE") and made is not None and made.co_name == name:
                defs.setdefault(name, []).append(made)
            else:
                other.add(name)
        if op == "MAKE_FUNCTION":
            made = last
        elif op not in DEF_BETWEEN:
            made = None
    function_type = types.FunctionType
    for name, made_from in defs.items():
        if name in other:
            continue
        value = space.get(name, REBOUND)
        if type(value) is not function_type or not any(value.__code__ is c for c in made_from):
            space[name] = REBOUND


def _one_parse_at_a_time():
    """ast.parse made to hold a lock, on the interpreters whose syntax-tree converter keeps its recursion
    depth in one counter per interpreter (CPython 3.11.0-3.11.7, 3.12.0-3.12.1: gh-106905). There, when
    Python code runs in the middle of one thread's conversion (a finalizer the GC calls; an audit hook, such
    as the guard's, called from it) and another thread converts a tree meanwhile, the first one ends in
    SystemError "AST constructor recursion depth mismatch". Under pytest that is an INTERNALERROR (no
    verdict): its failure report parses the test's module while a thread's traceback is being formatted
    (3.11's carets parse each line). pytest, traceback and inspect call ast.parse; the original is what runs,
    so the audit hook's checks of its frame stay as they were."""
    version = sys.version_info[:3]
    if not ((3, 11) <= version < (3, 11, 8) or (3, 12) <= version < (3, 12, 2)):
        return
    import _thread
    import ast
    import functools

    parse, lock = ast.parse, [_thread.RLock()]

    def one_at_a_time(*args, **kwargs):
        with lock[0]:
            return parse(*args, **kwargs)

    ast.parse = functools.update_wrapper(one_at_a_time, parse)
    # a child forked while another thread held it gets a free one
    os.register_at_fork(after_in_child=lambda: lock.__setitem__(0, _thread.RLock()))


def _files(here, config):
    """Which files are changed code and which are the tests' sources, by file identity (issue 51, round 5):
    (changed_module, guarded, protect, forget, wrote, for_writing), bound here like the hook.
    - changed_module(paths, running): a module run from one of paths (its code's co_filename, its __file__)
      is changed code when the file is one the candidate changed, under any name (st_dev, st_ino: a
      `tally/.` or `../tally` entry of a package's __path__ gives another string for the same file), or
      when it was written during the run (its ctime is after the runner started: no process can set a
      ctime) and lies under the tree, or anywhere when changed code imports it (running() says so).
    - guarded(path): whether path is a test file the harness runs (the protected files, renamed copies
      among them, and each module pytest's assertion rewriter loads), the folder holding one, or one's
      compiled copy in __pycache__: changed code may not open it. Names (listdir) may still be read.
    - forget(): drops the test files from linecache, where pytest leaves the source of a failing test.
    - wrote(event, args, by_changed_code) remembers the files changed code writes; for_writing(args) tells
      whether an `open` event opens its file to write (the hook refuses that for a test file, whoever asks)."""
    import linecache

    stat, realpath, join, dirname, basename, time_ns = (
        os.stat, os.path.realpath, os.path.join, os.path.dirname, os.path.basename, time.time_ns)
    lstat, abspath, is_link = os.lstat, os.path.abspath, __import__("stat").S_ISLNK
    str_, isinstance_, tuple_, frozenset_ = str, isinstance, tuple, frozenset
    oserror, valueerror, typeerror = OSError, ValueError, TypeError
    start = time_ns()
    roots = tuple_(frozenset_(f(p) + os.sep for p in [here] + list(config["path"]) for f in (realpath, abspath)))
    changed = set()
    adopted = set()  # the paths (absolute) of modules found changed: a later question by path agrees
    written = set()  # the paths changed code wrote to (the hook tells: wrote), absolute and resolved
    type_, int_, bool_ = type, int, bool
    write_flags, bytes_, fsdecode, any_ = (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND, bytes,
                                           os.fsdecode, any)
    tests, folders, compiled, names = set(), set(), set(), set()  # identities; (folder, stem); path strings
    test_folders = set()  # the real folders holding a test module
    cache = linecache.cache

    def ident(path):
        try:
            st = stat(path)
        except (oserror, valueerror, typeerror):
            return None
        return st

    for path in config["changed"]:
        st = ident(join(here, path))
        if st is not None:
            changed.add((st.st_dev, st.st_ino))

    def protect(path):
        if not isinstance_(path, str_):
            return
        st = ident(path)
        if st is None or (st.st_dev, st.st_ino) in changed:
            return
        tests.add((st.st_dev, st.st_ino))
        real = realpath(path)
        names.update((path, real))
        folder = ident(dirname(real))
        if folder is not None:
            folders.add((folder.st_dev, folder.st_ino))
        compiled.add((dirname(real), basename(real).rsplit(".", 1)[0]))
        test_folders.add(dirname(real))

    for path in config.get("protected", ()):
        protect(join(here, path))

    def linked_since(path):
        """Whether a symbolic link on path (the file's own name or a folder's) was made since the run began:
        a link to an unchanged file gives that file's ctime, not the link's."""
        real, whole = realpath(path), abspath(path)
        if real == whole:
            return False
        while whole != dirname(whole):
            try:
                st = lstat(whole)
            except (oserror, valueerror, typeerror):
                return False
            if is_link(st.st_mode) and st.st_ctime_ns >= start:
                return True
            whole = dirname(whole)
        return False

    def changed_module(paths, running):
        """The one notion of changed code (the hook, the class guard and its control all ask here): a file of
        the diff, or one written since the run began (created, replaced, renamed or linked into place,
        touched: its ctime, or a link's) under the tree, or anywhere once changed code imported it
        (running() says so at the import; the file is remembered, so later questions by path agree)."""
        for path in paths:
            st = ident(path) if isinstance_(path, str_) else None
            if st is None:
                continue
            if (st.st_dev, st.st_ino) in changed or abspath(path) in adopted:
                return True
            if changed and (st.st_ctime_ns >= start or linked_since(path)) and (
                    realpath(path).startswith(roots) or abspath(path).startswith(roots) or
                    abspath(path) in written or realpath(path) in written or running()):
                # remembered with the module's other names (not by identity: a link's target is no changed
                # file): a module run from a .pyc written since keeps its source's name (co_filename), and a
                # module imported from outside the tree is asked about later by path, with no import running
                adopted.update(abspath(other) for other in paths if isinstance_(other, str_))
                return True
        return False

    def guarded(path):
        st = ident(path)
        if st is not None and ((st.st_dev, st.st_ino) in tests or (st.st_dev, st.st_ino) in folders):
            return True
        # a compiled copy of a test module, or the __pycache__ folder beside one, judged by where its name
        # leads, existing or not: one the run makes (written, linked or renamed into place) is guarded too
        if "__pycache__" in path or path.endswith(".pyc"):
            real = realpath(path)
            folder = dirname(real)
            if basename(folder) == "__pycache__" and (dirname(folder), basename(real).split(".", 1)[0]) in compiled:
                return True
            if basename(real) == "__pycache__" and folder in test_folders:
                return True
        return False

    def forget():
        for name in tuple_(names):
            cache.pop(name, None)

    def for_writing(args):
        """Whether an `open` event's arguments (path, mode, flags) open its file to write."""
        mode, flags = (args[1] if len(args) > 1 else None), (args[2] if len(args) > 2 else 0)
        return bool_(isinstance_(mode, str_) and any_(c in mode for c in "wax+") or
                     type_(flags) is int_ and flags & write_flags)

    def wrote(event, args, by_changed_code):
        """Remembers a file changed code writes (opened for writing, or a rename's, a link's or a symbolic
        link's target): wherever it lies, written since the run began, it is changed code when imported,
        whoever imports it (a test's frame, a callback with no changed frame on the stack)."""
        if event == "open":
            if not for_writing(args):
                return
            targets = args[:1]
        else:
            targets = args[1:2]
        for path in targets:
            path = fsdecode(path) if isinstance_(path, bytes_) else path
            if isinstance_(path, str_) and by_changed_code():
                written.update((abspath(path), realpath(path)))

    return changed_module, guarded, protect, forget, wrote, for_writing


def _proc_files():
    """judge(event, path, changed) -> what the audit hook denies of opening or listing path ("" if nothing):
    the file it reaches, not its string (issue 51, round 9b: `//proc`, a link the run makes, `/dev/fd/..`).
    The path is walked as the kernel walks it (each link followed where it stands, `..` after it), with the
    os functions bound here (a module attribute rebound changes nothing), until it enters a proc mount (by
    mount point or device).
    - While changed code is on the stack (changed()), any file of procfs is denied.
    - Where the kernel guard did not hold (confine.py: the runner could open /proc when it started), also a
      per-process file (/proc/<pid>/..., self, thread-self: memory, descriptors, maps, environ) whatever the
      frames (a weak reference's callback, a chain of C calls), and a folder opened by changed code: a
      folder's descriptor given as dir_fd reaches any file, and the `open` event does not carry dir_fd.
    Where the kernel guard holds, opening /proc fails in the kernel whatever the spelling; this check then
    only names the attempt. A check that reads a path races with a thread that changes it: the kernel's does
    not."""
    import stat as stat_module

    lstat, stat, readlink, getcwd = os.lstat, os.stat, os.readlink, os.getcwd
    is_link, is_dir, oserror, valueerror, str_, isinstance_, len_, reversed_ = (
        stat_module.S_ISLNK, stat_module.S_ISDIR, OSError, ValueError, str, isinstance, len, reversed)
    mounts = {"/proc"}
    try:
        with open("/proc/self/mountinfo") as table:
            for line in table:
                fields, _, rest = line.partition(" - ")
                if rest.split(" ", 1)[0] == "proc":
                    mounts.add(fields.split(" ")[4].replace("\\040", " "))
    except OSError:
        pass
    devs = set()
    for mount in mounts:
        try:
            devs.add(stat(mount).st_dev)
        except OSError:
            pass
    mounts = tuple(m.rstrip("/") + "/" for m in mounts)
    try:  # the kernel guard, if it holds, refuses this: then the fallback's extra rules are off
        os.close(os.open("/proc/self/stat", os.O_RDONLY))
        kernel = False
    except PermissionError:
        kernel = True
    except OSError:
        kernel = False

    def reached(path):
        """The path of procfs opening path reaches (the rest of it unresolved), or ""."""
        todo = (path if path.startswith("/") else getcwd() + "/" + path).split("/")
        todo.reverse()  # the parts still to walk, the next one last
        current, links = "", 0  # "" is /
        try:
            while todo:
                part = todo.pop()
                if part in ("", "."):
                    continue
                if part == "..":
                    current = current.rsplit("/", 1)[0]
                    continue
                here = current + "/" + part
                st = lstat(here)
                if st.st_dev in devs or (here + "/").startswith(mounts):
                    return "/".join([here] + todo[::-1])
                if is_link(st.st_mode):
                    links += 1
                    if links > 40:
                        return ""
                    target = readlink(here)
                    if target.startswith("/"):
                        current = ""
                    todo.extend(reversed_(target.split("/")))
                    continue
                current = here
        except (oserror, valueerror):
            pass
        return ""

    def per_process(where):
        for mount in mounts:
            if (where + "/").startswith(mount):
                first = where[len_(mount):].split("/", 1)[0]
                return first.isdigit() or first in ("self", "thread-self")
        return True  # procfs by its device, mounted where no mount point says: judged the stricter way

    def folder(path):
        try:
            return is_dir(stat(path).st_mode)
        except (oserror, valueerror):
            return False

    def judge(event, path, changed):
        if not isinstance_(path, str_):
            return ""
        if kernel:
            return reached(path) if changed() else ""
        where = reached(path)
        if where and (per_process(where) or changed()):
            return where
        if not where and event == "open" and changed() and folder(path):
            return "a folder opened by changed code (its descriptor as dir_fd reaches any file): " + path
        return ""

    return judge


def _threads():
    """Puts the harness's starter in place of each of the interpreter's (_thread's functions, and wherever a
    module holds one: threading): {name: the real one}. A starter holds its name only; the hook starts the
    thread, so a thread changed code starts is known (issue 51: a thread runs with no changed frame)."""
    import _thread
    import threading  # noqa: F401 - loaded here so that its binding of the starter is replaced too

    real = {}
    for name in ("start_new_thread", "start_new", "start_joinable_thread"):
        if hasattr(_thread, name):
            real[name] = getattr(_thread, name)
    for name, function in real.items():
        starter = _starter(name, sys.audit)
        for module in list(sys.modules.values()):
            space = getattr(module, "__dict__", None)
            if not isinstance(space, dict):
                continue
            for attr, value in list(space.items()):
                if value is function:
                    space[attr] = starter
    return real


def _starter(name, audit):
    def start(function, *args, **kwargs):
        box = []
        audit("codewalk.thread", name, function, args, kwargs, box)
        return box[0]
    start.__name__ = name
    return start


def _marking(function, audit, token):
    """function, run at the root of each thread the harness starts: the hook knows the thread by the token
    it issued (changed or not) while it runs."""
    def run(*args, **kwargs):
        audit("codewalk.thread_begins", token)
        try:
            return function(*args, **kwargs)
        finally:
            audit("codewalk.thread_ends", token)
    return run


def _install(send, changed, tree_tops, places=((), frozenset(), {}), files=None):
    """The audit hook. Its state and every name it uses are bound in this closure: nothing a module holds
    refers to them, and rebinding a module's or the builtins' names changes nothing here."""
    import _thread
    import ast
    import builtins
    import collections
    import dataclasses
    import dis
    import encodings
    import enum
    import inspect
    import keyword
    import logging
    import opcode
    import typing

    getframe, get_ident, exit_, fsdecode, abspath = sys._getframe, _thread.get_ident, os._exit, os.fsdecode, \
        os.path.abspath
    isinstance_, hasattr_, str_, len_, dict_, bytes_, getattr_ = isinstance, hasattr, str, len, dict, bytes, getattr
    watched, frames, code, paths, hidden, stdlib_ok = WATCHED, FRAMES, CODE, PATHS, HIDDEN, STDLIB_OK
    threads, marking, audit_, type_, tuple_, list_, all_ = THREADS, _marking, sys.audit, type, tuple, list, all
    object_, enumerate_ = object, enumerate
    marking_code = next(c for c in _marking.__code__.co_consts if getattr(c, "co_name", "") == "run")
    marked = set()  # the threads changed code started (their idents, while they run)
    clean = set()  # the other threads the harness started; any other thread than these and the main one
    # (started by a starter the harness did not replace: a `_thread` module made afresh) counts as changed
    issued = []  # [token, whether changed code started it]: tokens handed to a thread's root, not yet used
    starts = _threads()  # the interpreter's thread starters, by name: only this closure holds them
    denied, report_path, value_error, int_, bool_ = DENIED, REPORT_PATH, ValueError, int, bool
    stdlib = _stdlib()
    frozen = [sys.modules[m].__dict__ for m in ("_frozen_importlib", "_frozen_importlib_external")
              if m in sys.modules]
    importing = tuple(frozen)
    # Standard-library code that changed code may call into although it gets a frame or makes code, for
    # its own bookkeeping. From the event outwards, the frames must be the library's up to an entry:
    # - Frames: the library is frame_path, the entry a function of frame_entries that does not hand out a
    #   frame (a new class's module name, logging's caller, a dataclass's signature). What such an entry
    #   hands back is the same whoever called it, so the frames from the entry out to the changed one may
    #   be anyone's (a test's callback that logs, a module that changed code imports defining a TypeVar).
    # - Code: the library is code_path, the frame raising the event one of code_makers (namedtuple,
    #   dataclasses, the import system itself), and from there out to the changed frame only the import
    #   system, the module bodies it runs and code at an import statement: a module that changed code
    #   imports may import more (not importlib.import_module, which imports by name: its code is denied).
    frame_entries = tuple(m.__dict__ for m in (collections, enum, typing, logging, dataclasses))
    frame_path = frame_entries + (inspect.__dict__,)
    hands_out = frozenset((logging.currentframe.__code__,))
    code_makers = importing + tuple(m.__dict__ for m in (collections, dataclasses))
    code_path = code_makers + (typing.__dict__,)
    # Round 12c: a code maker's frame is one running the code maker's own file (made text run with its globals is
    # not: a dataclass's __module__ picks the globals its methods' text runs with), and dataclasses pastes a
    # class's field names into the text it compiles unchecked (namedtuple checks its own: exact str identifiers)
    maker_files = tuple(m.__file__ for m in (collections, dataclasses))
    maker_spaces, dataclasses_space = (collections.__dict__, dataclasses.__dict__), dataclasses.__dict__
    class_space, is_identifier, is_keyword = type.__dict__["__dict__"].__get__, str.isidentifier, keyword.iskeyword
    # what dataclasses pastes is each Field's own name (its slot, read without a property a subclass could add)
    field_type = dataclasses.Field
    field_name = field_type.__dict__["name"].__get__
    import_name, new_locals = dis.opmap["IMPORT_NAME"], inspect.CO_NEWLOCALS
    # the import system's entry from C (the import statement, `__import__`, C code's own imports: C_IMPORTS)
    find_and_load = getattr(sys.modules.get("_frozen_importlib"), "_find_and_load", None)
    find_and_load, c_imports = getattr(find_and_load, "__code__", None), C_IMPORTS
    module_dunders = MODULE_DUNDERS
    # str.encode("cp437") and the like: the codec registry imports encodings.<name> (that package only)
    codec_search = encodings.search_function.__code__
    # inspect's functions that read a function's code, defaults and flags to describe it (a Signature, an
    # argspec, a bool) and hand back no frame or code: reading attributes (object.__getattr__) is allowed
    # when every frame from the event out to one of them is inspect's, whoever called it (the repository's
    # own helper, as toolz's signature_or_spec: it gets what a direct call would). The rest of inspect
    # (currentframe, stack, getmembers, getsource...) stays denied.
    inspect_space = (inspect.__dict__,)
    describers = frozenset(f.__code__ for f in (
        inspect.signature, inspect.Signature.from_callable.__func__, inspect.getfullargspec,
        inspect.iscoroutinefunction, inspect.isgeneratorfunction, inspect.isasyncgenfunction))
    # Text parsed into a syntax tree only (ast.parse: literal_eval, inspect's signatures of builtins, a
    # repository reading source) makes no code: its compile is allowed when the flags it passes ask for
    # the tree and neither ast's nor the builtins' compile was replaced.
    parse_code, only_ast, builtin_compile = ast.parse.__code__, ast.PyCF_ONLY_AST, compile
    ast_space, builtins_space = ast.__dict__, builtins.__dict__
    # A type written as a string (`Optional["Node"]`): typing.ForwardRef compiles it, with only typing's
    # frames out to changed code (or the import system). Evaluating it (get_type_hints: exec) stays denied.
    forward_ref, typing_space = typing.ForwardRef.__init__.__code__, (typing.__dict__,)
    # Reading a function's code (object.__getattr__ "__code__") compiled from a file of the repository that
    # is no test: a changed file (the candidate's own) or an unchanged module of the tree outside the test
    # files (patch.is_test_path's notion, the protected files besides: jinja's `internalcode` decorator
    # records the code of its runtime's functions). What that hands out is code the candidate wrote or
    # could read as source. The code of a test (its file, a renamed copy, a conftest, any module under a
    # test folder), of pytest and of the harness stays denied; so does setting __code__.
    roots, test_files, imported_at_x_g = places
    function_type, test_dirs = type(_tops), frozenset(("test", "tests", "testing"))
    # sys._getframe called by a function that only reads the f_globals of what it gets, and gets the frame
    # of changed code: the candidate's own module globals (boltons' make_sentinel names its caller's module
    # from a module body). Pinned on the caller's bytecode: the call's value goes at once to .f_globals, or
    # to a local variable every load of which is followed by .f_globals (no other use, no locals() or
    # vars(), no closure): the frame itself never leaves that function, so f_back, f_locals and f_code of
    # it, and the frames below (a test's among them), are out of reach.
    # The bytecode is read here, with the opcode tables copied now (before any module of the tree runs),
    # not through dis, whose module globals any code could rebind.
    opnames = tuple(dis.opname)
    # round 13: who asks for a first import (import_asked)
    importers, runners, own_globals = ("__import__", "import_module"), frozenset(("_pytest", "pytest", "pluggy")), globals()
    c_importers = C_IMPORTERS
    caches = [0] * 256
    entries = getattr(opcode, "_inline_cache_entries", None)
    for op, count in (entries.items() if isinstance(entries, dict) else enumerate(entries or ())):
        op = dis.opmap.get(op, -1) if isinstance(op, str) else op
        if 0 <= op < 256:
            caches[op] = count
    caches = tuple(caches)
    extended, attr_shift = dis.opmap["EXTENDED_ARG"], 1 if sys.version_info >= (3, 12) else 0
    global_shift, module_type, dict_type = 1 if sys.version_info >= (3, 11) else 0, type(sys), dict
    type_type, modules_ = type, sys.modules
    sep, any_, range_ = os.sep, any, range
    # Who may send a record: the plugin's own methods, called by pluggy, called by a module loaded before
    # the tree (pytest's runner, an installed plugin), on the main thread, before the final record.
    sender_code = next(c for c in _audited.__code__.co_consts if getattr(c, "co_name", "") == "send")
    class_maker = next(c for c in _class_maker.__code__.co_consts if getattr(c, "co_name", "") == "__build_class__")
    plugin_codes = frozenset(f.__code__ for f in vars(_Plugin).values() if hasattr(f, "__code__"))

    hookers = tuple(m.__dict__ for n, m in list(sys.modules.items()) if n.split(".")[0] == "pluggy" and m)
    import _pytest.assertion.rewrite

    rewriter = _pytest.assertion.rewrite.__dict__  # it loads test modules and those registered for rewriting
    trusted = []  # the globals of every module loaded before the tree joined sys.path
    tools = []  # those of them that are not the standard library's: pytest, its plugins, the harness
    readers, library_dir = READERS, os.path.dirname(os.path.abspath(os.__file__)) + sep
    packages = (sep + "site-packages" + sep, sep + "dist-packages" + sep)
    controlled_codes = frozenset(c for c in _controlled.__code__.co_consts if getattr(c, "co_name", "") in CONTROLLED)
    controlled_keys, file_events, class_event = CONTROLLED, FILE_EVENTS, CLASS_EVENT
    writing = frozenset(("open", "os.rename", "os.link", "os.symlink"))
    text_events, evaluators = frozenset(("compile", "exec")), ("eval", "exec", "compile")
    # Round 12c: a function made from a code object with no changed frame on the stack is made only for code that
    # names FunctionType (as text is for code that names its evaluator); a test function's code and defaults are
    # the test file's whoever is on the stack
    makers_of_functions, test_function_fields = ("FunctionType",), frozenset(("__code__", "__defaults__",
                                                                              "__kwdefaults__"))
    # ... of a function pytest can collect: one a test file defines at its top or in a class, not in a function
    # (cloudpickle's and boltons' copy_function write __defaults__/__kwdefaults__ on a copy of a test's closure)
    nested = inspect.CO_NESTED
    # the class guard's control reads the __code__ of each class body it sees made (a library's too, under
    # changed code: inspect defines classes in its functions) to know a changed file's
    control_code = next(c for c in _class_guard.__code__.co_consts if getattr(c, "co_name", "") == "control")
    settle_code = next(c for c in _class_guard.__code__.co_consts if getattr(c, "co_name", "") == "settle")
    # Round 10: a changed file's class is settled (judged, and its comparison behind the control) once its value
    # is final: at once when its statement's result is stored as it is, else when the statement's last
    # decorator returns (a profile function on this thread sees that return: the decorators are calls).
    decorator_calls = frozenset(dis.opmap[n] for n in ("PRECALL", "CALL", "CALL_FUNCTION", "CACHE") if n in dis.opmap)
    call_ops = frozenset(dis.opmap[n] for n in ("CALL", "CALL_FUNCTION") if n in dis.opmap)
    setprofile, getprofile = sys.setprofile, sys.getprofile
    windows = {}  # thread ident -> [(the statement's frame, its last decorator call's first and end offsets, settle)]
    main_thread = get_ident()
    ended = []
    # code a library compiled from text for changed code (dataclasses, attrs, namedtuple): its frames count as
    # changed code's whatever globals it runs with (a generated __eq__ given `__module__ = "os"` ran as nobody's)
    made_codes = set()
    # ...but not a module's code the import system runs that is its file's text compiled as the loader compiles
    # it (jinja's filters.py importing runtime.py): that text was on disk before the run (a file written since
    # is changed code, _files), so changed code supplied none of it. A compiled copy written at run time or a
    # loader's method replaced gives other code: made, as before. So does the file's own code run in globals
    # that are not a new module's, or a library file run under a name of the tree (round 8: new_module).
    open_, stat_, code_type, exception = open, os.stat, type(_tops.__code__), Exception
    proc_judge = _proc_files()  # /proc by the file opened, not the string (the kernel guard, if held, first)
    reg_file = __import__("stat").S_ISREG
    tracked = []  # the globals of each changed module: how a frame of changed code is known
    # (compared by identity: id() raises an audit event of its own)
    busy = set()
    checker = []
    operands_of = []  # the class guard's judge of an assertion's operands, handed over with the report path's check

    def deny(event, what):
        send({"denied": event, "what": str_(what)[:200]})
        exit_(denied)

    def decorators(stmt):
        """(first, end): the byte offsets of the last decorator call after the class statement's __build_class__
        call running in stmt (the decorators are calls with nothing between them and the store), or None when the
        statement's result is stored as it is (or the code is read no further)."""
        co = stmt.f_code.co_code
        at, last = stmt.f_lasti + 2, None
        while at < len_(co) and co[at] in decorator_calls:
            op = co[at]
            end = at + 2 + 2 * caches[op]
            if op in call_ops:
                last = (at, end)
            at = end
        return last

    def window(fr, event, arg):
        """The profile function while a changed class statement's decorators run: its class is settled when the
        last one returns (or the statement's frame leaves, on an exception)."""
        me = get_ident()
        open_ = windows.get(me)
        if not open_:
            return
        stmt, first, end, settle = open_[-1]
        if fr is stmt:
            done = event == "return" or (event in ("c_return", "c_exception") and first <= stmt.f_lasti < end)
        else:
            done = event == "return" and fr.f_back is stmt and first <= stmt.f_lasti < end
        if not done:
            return
        was = me in busy
        busy.add(me)  # what settling raises is the harness's own
        try:
            open_.pop()
            if not open_:
                del windows[me]
                setprofile(None)
            settle(arg if event == "return" and fr is not stmt else None)
        finally:
            if not was:
                busy.discard(me)

    def files_code(code_):
        """Whether code_ is what compiling its file's text gives, the file not changed code's (_files)."""
        path = code_.co_filename
        if files is None or type_(code_) is not code_type or not isinstance_(path, str_) or \
                path.startswith(hidden) or test_source(path):
            return False
        try:
            if not reg_file(stat_(path).st_mode):
                return False
            with open_(path, "rb") as handle:
                text = handle.read()
            return (not files[0]((path,), lambda: True)  # read first: a file replaced since is new, so changed
                    and builtin_compile(text, path, "exec", dont_inherit=True) == code_)
        except exception:  # noqa: BLE001  (unreadable, no source: made code, as before)
            return False

    def new_module(f, code_):
        """Whether the import system's frame f runs code_ as a new module's (round 8): globals as module_from_spec
        makes them (a dict with no names but the import system's dunders, the interpreter's builtins; a loader's
        create_module may have filled them: the candidate's builtins) and, for a file outside the tree (the
        standard library's, an installed one), not under a name of the tree unless the file's path is that name's
        (a portion of a namespace package): with the standard library's folder on a package's __path__, argparse.py
        runs as tally.argparse, whose globals are the tree's to rebind. Otherwise its code is made code."""
        found = f.f_locals.get("args", ())  # _call_with_frames_removed(exec, code, module.__dict__)
        if type_(found) is not tuple_ or len_(found) != 2 or found[0] is not code_:
            return False
        space = found[1]
        if type_(space) is not dict_type:
            return False
        for key in space:  # exact str keys only: nothing of the candidate's runs in the hook
            if type_(key) is not str_ or key not in module_dunders:
                return False
        given, name, path = space.get("__builtins__", builtins_space), space.get("__name__"), code_.co_filename
        if (given is not builtins_space and given is not builtins) or type_(name) is not str_ or \
                type_(path) is not str_:
            return False
        if name.split(".")[0] not in tree_tops or path.startswith(roots):
            return True
        own = sep.join(name.split("."))
        return path.endswith((sep + own + ".py", sep + own + sep + "__init__.py"))

    def changed_below(start):
        """The frames from start down to the first frame of changed code (not included), or None."""
        between = []
        f = start
        while f is not None:
            g = f.f_globals
            if f.f_code in made_codes or f.f_code.co_filename in changed:  # (round 12c: any globals)
                return between
            for space in tracked:
                if g is space:
                    return between
            between.append(f)
            f = f.f_back
        me = get_ident()  # a thread changed code started, or one the harness did not: changed at its root
        return between if me in marked or (me != main_thread and me not in clean) else None

    def frame(depth):
        """The frame depth levels above the caller's, or None (an event raised with no Python code running)."""
        try:
            return getframe(depth + 1)
        except value_error:
            return None

    def imported_by_statement(frames, inner=None):
        """Whether frames (from the library's outwards to the changed one) are the import system's work for
        an import statement: its own frames and the bodies of the modules (and of their classes) it runs,
        out to the changed frame or to code at an import statement, whoever called that (the statement
        names its module), or to the codec registry importing encodings.<name>. importlib.import_module,
        which imports by name, is none of these; nor is unchanged code's call of C code that imports, but for
        the names that C code imports on its own (C_IMPORTS: datetime.strptime's _strptime), judged as the
        same import made for changed code (which calls into C with nothing between: allowed)."""
        for f in frames:  # inner: the frame the one looked at called
            if among(f.f_globals, importing) or f.f_code is class_maker:
                inner = f
                continue
            if f.f_code is codec_search:
                return True
            body = f
            while body is not None and not body.f_code.co_flags & new_locals:  # a module's or a class's body
                if body.f_code.co_name == "<module>":
                    break
                body = body.f_back
                if body is not None and body.f_code is class_maker:  # the class guard's __build_class__
                    body = body.f_back
            if body is not None and body.f_code.co_name == "<module>" and not body.f_code.co_flags & new_locals \
                    and body.f_back is not None and among(body.f_back.f_globals, importing):
                inner = f
                continue
            code_, at = f.f_code.co_code, f.f_lasti
            if 0 <= at < len_(code_) and code_[at] == import_name:
                return True
            return c_own_import(inner)
        return True

    def c_own_import(inner):
        """Whether inner, the frame C code called for a frame of code at a call, is the import system's entry
        importing one of the names C code imports on its own, which changed code may import (STDLIB_OK)."""
        if inner is None or find_and_load is None or inner.f_code is not find_and_load:
            return False
        name = inner.f_locals.get("name")
        return type_(name) is str_ and name in c_imports and name.split(".")[0] in stdlib_ok

    def own_statement(between):
        """Whether the import system's frames go from the event out to one of its own at an import statement:
        it imports a name written in its source (importlib.resources' reader: `from importlib.readers import
        FileReader` in get_resource_reader, which certifi.where() reaches). import_module is a call."""
        for f in between[1:]:
            if not among(f.f_globals, importing):
                return False
            code_, at = f.f_code.co_code, f.f_lasti
            if 0 <= at < len_(code_) and code_[at] == import_name:
                return True
        return False

    def library(between, path, entry, rest):
        """From the event outwards: frames of path up to one that entry accepts, then frames rest accepts."""
        n = 0
        while n < len_(between) and among(between[n].f_globals, path):
            n += 1
        return n > 0 and entry(between[n - 1]) and rest(between[n:], between[n - 1])

    def frame_entry(f):
        return among(f.f_globals, frame_entries) and f.f_code not in hands_out

    def anywhere(*_):
        return True

    def describer_out(between):
        """inspect's frames from the event out to one of its describers, whoever called that."""
        for f in between:
            if not among(f.f_globals, inspect_space):
                return False
            if f.f_code in describers:
                return True
        return False

    def parses(between):
        """Whether the compile is ast.parse's, asking for a syntax tree only, with the real compile."""
        f = between[0] if between else None
        if f is None or f.f_code is not parse_code:
            return False
        flags = f.f_locals.get("flags")
        return (isinstance_(flags, int_) and bool_(flags & only_ast) and "compile" not in ast_space
                and builtins_space.get("compile") is builtin_compile)

    def test_path(relative):
        parts = relative.split(sep)
        name = parts[-1]
        return (any_(p.lower() in test_dirs for p in parts[:-1]) or name.startswith("test_")
                or name.endswith(("_test.py", "_tests.py")) or name in ("conftest.py", "tests.py"))

    def repository_code(obj):
        """Whether obj is a function whose code was compiled from a changed file or from a module of the
        tree that is no test."""
        if type_(obj) is not function_type:
            return False
        name = obj.__code__.co_filename  # an event of its own, while the hook is busy
        if not isinstance_(name, str_) or name in test_files:
            return False
        if name in changed:
            return True
        for root in roots:
            if name.startswith(root):
                return not test_path(name[len_(root):])
        return False

    def ops(code_):
        """[(offset, opname, arg)] of code_'s instructions (EXTENDED_ARG folded in, inline caches skipped)."""
        raw, found, at, ext = code_.co_code, [], 0, 0
        while at + 1 < len_(raw):
            op, arg = raw[at], raw[at + 1] | ext
            if op == extended:
                ext, at = arg << 8, at + 2
                continue
            found.append((at, opnames[op], arg))
            ext, at = 0, at + 2 + 2 * caches[op]
        return found

    def reads_globals(code_, op):
        return op[1] == "LOAD_ATTR" and code_.co_names[op[2] >> attr_shift] == "f_globals"

    def resolve(f, name):
        """The value of a global name in f, read without running any code (None if it cannot be)."""
        space = f.f_globals
        if type_(space) is not dict_type:
            return None
        if name in space:
            return space.get(name)
        space = f.f_builtins
        return space.get(name) if type_(space) is dict_type else None

    def calls_getframe(f, found, at):
        """Whether the call at found[at] is sys._getframe itself with constant arguments: its callable
        loaded by the instructions just before (`sys._getframe` or `_getframe`, a global of f) and found,
        now, to be the real one (nothing runs between that load and the call)."""
        n, consts = at - 1, 0
        while n >= 0 and (found[n][1] in ("PRECALL", "PUSH_NULL") or (found[n][1] == "LOAD_CONST" and consts < 1)):
            consts += found[n][1] == "LOAD_CONST"
            n -= 1
        if n < 0:
            return False
        names = f.f_code.co_names
        _, name, arg = found[n]
        if name == "LOAD_GLOBAL":
            return names[arg >> global_shift] == "_getframe" and resolve(f, "_getframe") is getframe
        if name not in ("LOAD_ATTR", "LOAD_METHOD") or n < 1 or found[n - 1][1] != "LOAD_GLOBAL":
            return False
        if names[arg >> (attr_shift if name == "LOAD_ATTR" else 0)] != "_getframe":
            return False
        module_name = names[found[n - 1][2] >> global_shift]
        module = resolve(f, module_name)
        return type_(module) is module_type and module.__dict__.get("_getframe") is getframe

    def tree_module(name):
        """Whether the module called name (already imported) was loaded from a file of the tree that is no
        test."""
        module = modules_.get(name) if isinstance_(name, str_) else None
        if type_(module) is not module_type:
            return False
        file_ = module.__dict__.get("__file__")
        if not isinstance_(file_, str_) or file_ in test_files:
            return False
        for root in roots:
            if file_.startswith(root):
                return not test_path(file_[len_(root):])
        return False

    def renames_own_class(obj, name, value):
        """Whether obj is a class of the repository (plain metaclass, its __module__ a module of the tree that
        is no test) being given a new __module__ that names such a module too: boltons' make_sentinel makes
        its class pickle as the module it was made in. Names only: no method, no comparison changes."""
        if name != "__module__" or type_(obj) is not type_type:
            return False
        return tree_module(obj.__dict__.get("__module__")) and tree_module(value)

    def globals_only(f):
        """Whether the function running in f called sys._getframe itself and uses the frame it got only
        to read its f_globals."""
        code_ = f.f_code
        found = ops(code_)
        at = [n for n, op in enumerate_(found) if op[0] == f.f_lasti]
        if not at or at[0] + 1 >= len_(found) or not calls_getframe(f, found, at[0]):
            return False
        after = found[at[0] + 1]
        if reads_globals(code_, after):
            return True
        if after[1] != "STORE_FAST" or "locals" in code_.co_names or "vars" in code_.co_names:
            return False
        slot = after[2]
        for n in range_(len_(found)):
            _, name, arg = found[n]
            if "FAST_LOAD_FAST" in name or "FAST_STORE_FAST" in name:  # two slots in one (3.13)
                if slot in (arg >> 4, arg & 15):
                    return False
                continue
            if arg != slot or not any_(k in name for k in ("FAST", "DEREF", "CLOSURE", "CELL")):
                continue
            if name in ("STORE_FAST", "DELETE_FAST"):
                continue
            if name not in ("LOAD_FAST", "LOAD_FAST_CHECK") or n + 1 >= len_(found) or \
                    not reads_globals(code_, found[n + 1]):
                return False
        return True

    def changed_file(code_):
        """Whether a module's code is changed code by its file's identity (_files): the code's file and the
        module's __file__ (the import system's frame holds the module's namespace). A module pytest's
        assertion rewriter runs is a test module: its file joins the tests' sources."""
        if files is None:
            return False
        caller = frame(3)  # changed_file <- check <- hook <- the frame that runs the code
        space = None
        if caller is not None and among(caller.f_globals, importing):
            found = caller.f_locals.get("args", ())
            space = found[1] if len_(found) > 1 else None
        elif caller is not None and caller.f_globals is rewriter:
            space = getattr_(caller.f_locals.get("module"), "__dict__", None)
        where = space.get("__file__") if isinstance_(space, dict_) else None
        cached = space.get("__cached__") if isinstance_(space, dict_) else None  # a .pyc written since is too
        if files[0]((code_.co_filename, where, cached),
                    lambda: caller is not None and changed_below(caller) is not None):
            return True
        if caller is not None and caller.f_globals is rewriter:
            files[2](code_.co_filename)
        return False

    def thread_event(event, args):
        """A thread started through the harness's starter (_threads): marked when changed code starts it
        (or a marked thread), and so changed for its whole life, its root frame the harness's own."""
        if event == "codewalk.thread":
            name, function, rest, kwargs, box = args
            # nothing of the caller's may run here, where the hook ignores its own events: plain types only
            if type_(name) is not str_ or type_(rest) is not tuple_ or type_(kwargs) is not dict_ or \
                    type_(box) is not list_ or not all_(type_(k) is str_ for k in kwargs):
                deny(event, "not the harness's starter")
            token = object_()
            issued.append([token, changed_below(frame(3)) is not None])  # <- check <- hook <- the starter
            box.append(starts[name](marking(function, audit_, token), *rest, **kwargs))
            return
        f = frame(3)
        if f is None or f.f_code is not marking_code or f.f_back is not None or not args:
            return
        me = get_ident()
        if event == "codewalk.thread_ends":
            marked.discard(me)
            clean.discard(me)
            return
        for n, entry in enumerate_(issued):
            if entry[0] is args[0]:
                del issued[n]
                (marked if entry[1] else clean).add(me)
                return

    def test_source(path):
        return files is not None and files[1](path)

    def reader(f):
        """Whether f runs a standard-library module that reads files for its caller (READERS)."""
        name = f.f_code.co_filename
        if not isinstance_(name, str_):
            return False
        if name.startswith("<frozen "):
            return True
        if not name.startswith(library_dir) or any_(p in name for p in packages):
            return False
        module = f.f_globals.get("__name__") if type_(f.f_globals) is dict_type else None
        return isinstance_(module, str_) and module.split(".")[0] in readers

    def read_for_a_tool(f):
        """Whether the frames from f outwards are the standard library's readers, then a module loaded before
        the tree that is not the standard library's (pytest's collection, its failure reports, a plugin)."""
        while f is not None and reader(f):
            f = f.f_back
        return f is not None and among(f.f_globals, tools)

    def asks(f, names):
        """Whether f is at a call and its code names one of names (round 11: who acts is the code that asks). A
        C function (functools.partial, operator.methodcaller, map, a bound method of a list, a finalizer that is
        one) has no frame: what it calls sees, below, the frame that called IT (pytest reading `__test__`, the
        test dropping a result), whose code names the reading or evaluating function it never called."""
        code_ = f.f_code
        names_ = code_.co_names
        if not any_(n in names_ for n in names):
            return False
        co, at = code_.co_code, f.f_lasti
        while 0 < at < len_(co) and opnames[co[at]] == "CACHE":  # 3.11+: a Python callee's caller is past them
            at -= 2
        return 0 <= at < len_(co) and opnames[co[at]].startswith(("CALL", "PRECALL"))

    def asked_by_its_reader(f):
        """"" when the first frame out from f that is no standard-library reader (READERS) names the outermost
        reader it called (pytest's _rewrite_test: read_bytes; its traceback: findsource, getsource, getlines; its
        doctest module: find; its import_path: import_module), or open when it opened the file itself; else what asked (asker_named)."""
        entry = None
        while f is not None and reader(f):
            entry, f = f, f.f_back
        if f is not None and asks(f, (entry.f_code.co_name,) if entry is not None else ("open",)):
            return ""
        return asker_named(f, entry)

    def import_asked(f):
        """"" when a first import of a standard-library module outside the reviewed set (STDLIB_OK), with no
        changed frame out from the import system, is asked by the code that runs it (round 13: who asks; the
        same line as text_asked_for's), else what asked. f, the first frame out from the import system, asks when
        it is at an import statement or at a call that names __import__ or import_module (encodings' search
        function, pytest's monkeypatch and importorskip); else the standard-library frames it entered must be a
        chain of named calls out from an importer's own frame (round 14: importlib.import_module's, named by
        pkgutil's resolve_name, named by the library; not inspect's _is_wrapper, whose hasattr ran a C getter that
        imports, for pytest's named call of inspect.unwrap), and the first frame out from them must name the one it
        entered. A C function that imports for its caller has no frame: its caller asks only at a call naming a
        C function of the standard library that imports for its caller (C_IMPORTERS: strptime, pickle's loads),
        and never when it is the runner (pytest, pluggy, the harness), which imports only by statement or by a
        call it names: an import run by a C callable pytest's collection called (reading __test__ of an object of
        a test module: importlib.import_module or builtins.__import__ over a map), by a partial over a map the
        test calls, or by a finalizer run where the test drops a value (round 14) is asked by nobody."""
        if at_import(f) or asks(f, importers):
            return ""
        entry = None
        while f is not None and stdlib_frame(f):
            # round 14: a chain of named calls out from an importer's own frame (importlib.import_module's, called
            # by pkgutil's resolve_name, called by the library) or from a call naming a C function that imports for
            # its caller (C_IMPORTERS: _strptime for time.strptime): a standard-library frame that names no
            # importer and no function it entered did not ask (inspect's _is_wrapper reading __wrapped__ by
            # hasattr, whose C getter imports, for pytest's named call of inspect.unwrap)
            if entry is not None and not asks(f, (entry.f_code.co_name,)) or entry is None and not (
                    f.f_code.co_name in importers or asks(f, c_importers)):
                return asker_named(f, entry)
            entry, f = f, f.f_back
        if f is None:
            return asker_named(f, entry)
        if entry is not None:
            return "" if asks(f, (entry.f_code.co_name,)) else asker_named(f, entry)
        top = str_(f.f_globals.get("__name__", "")).split(".")[0]
        if f.f_globals is own_globals or top in runners:
            return asker_named(f, None)
        # round 14: a C function importing for a frame that names no importer (a partial of __import__ over a map
        # the test calls, a weak reference's callback run where the test drops a value): the frame asks only if it
        # names a C function that imports for its caller (C_IMPORTERS)
        return "" if asks(f, c_importers) else asker_named(f, None)

    def module_asked(code_, f):
        """What asked for the import whose module body code_ the import system's frame f runs, when it is a
        standard-library module outside the reviewed set and its asker is not what import_asked allows ("" else).
        importlib.import_module imports in Python (no import event is raised), so its first imports are seen here,
        at the exec of the new module's body: the same rule as the import event's."""
        path = code_.co_filename
        if not isinstance_(path, str_) or not path.startswith(library_dir) or any_(p in path for p in packages):
            return ""
        top = path[len_(library_dir):].split(sep)[0]
        top = top[:-3] if top.endswith(".py") else top
        if top in tree_tops or top in stdlib_ok:  # a file of the standard library's folder (its test package too)
            return ""
        importer = f
        # round 14: the import system's own import statement (importlib.resources' reader: get_resource_reader's
        # `from importlib.readers import FileReader`) names its module: it asks, whoever is out from it
        while importer is not None and among(importer.f_globals, importing) and not at_import(importer):
            importer = importer.f_back
        if importer is None:
            return ""
        if among(importer.f_globals, tracked):
            if top in imported_at_x_g.get(importer.f_code.co_filename, ()):
                return ""
            return top + ", asked by changed code"
        why = import_asked(importer)
        return top + ", asked by " + why if why else ""

    def at_import(f):
        co, at = f.f_code.co_code, f.f_lasti
        return 0 <= at < len_(co) and opnames[co[at]] == "IMPORT_NAME"

    def text_asked_for(event, f):
        """"" when code from text (compile, exec) with no changed frame on the stack is made for the code that
        asks for it (else what asked): the import system and pytest's assertion rewriter (a file's text), namedtuple and dataclasses
        (identifiers: namedtuple checks its own, a dataclass's field names are checked here; round 12c: frames of
        their own files only, not text run with their globals), typing's ForwardRef and ast.parse (they make code, running it is an exec of its
        own); else the first frame out from the event that is no standard-library frame, or a module's body the
        import system runs, names what it called: the evaluator it entered (inspect.signature, get_type_hints,
        doctest's run, singledispatch's register) or eval, exec or compile itself."""
        if f.f_globals is rewriter or among(f.f_globals, importing):
            return ""
        if among(f.f_globals, maker_spaces):
            if f.f_code.co_filename not in maker_files:
                return "text run with a code maker's globals: " + str_(f.f_code.co_filename)[:80]
            return "" if f.f_globals is not dataclasses_space else fields_named(f)
        if event == "compile" and (f.f_code is forward_ref or parses([f])):
            return ""
        entry = None
        while f is not None and stdlib_frame(f) and not (
                f.f_code.co_name == "<module>" and f.f_back is not None and among(f.f_back.f_globals, importing)):
            entry, f = f, f.f_back
        if f is not None and asks(f, (entry.f_code.co_name,) if entry is not None else
                                  makers_of_functions if event == "function.__new__" else evaluators):
            return ""
        return asker_named(f, entry)

    def fields_named(f):
        """"" when the class dataclasses is making (its _process_class frame's cls, out from f) has fields that
        are dataclasses' own Field (no subclass: its name could be a property) each named by an identifier (exact
        str, no keyword) equal to its key: each Field's name is what dataclasses pastes into the text it compiles,
        read at the compile; else why not."""
        while f is not None and f.f_globals is dataclasses_space:
            if f.f_code.co_name == "_process_class" and f.f_code.co_filename in maker_files:
                cls = f.f_locals.get("cls")
                fields = class_space(cls).get("__dataclass_fields__") if isinstance_(cls, type_type) else None
                if type_(fields) is not dict_:
                    return "a dataclass without its fields"
                for key, field in list_(dict_.items(fields)):
                    if type_(field) is not field_type:
                        return "a dataclass field that is a " + str_(type_(field).__name__)[:40]
                    name = field_name(field)
                    if type_(name) is not str_ or type_(key) is not str_:
                        return "a dataclass field named by a " + str_(type_(name).__name__)[:40]
                    if not is_identifier(name) or is_keyword(name) or not str_.__eq__(name, key):
                        return "a dataclass field named " + str_.__repr__(name)[:80]
                return ""
            f = f.f_back
        return "dataclasses' text for no class it is making"

    def asker_named(f, entry):
        """What a refusal names: the asking frame's function and what it entered (never empty)."""
        return "{} in {} called {}".format(f.f_code.co_name if f is not None else "nothing",
                                           f.f_code.co_filename.rsplit(sep, 2)[-1] if f is not None else "-",
                                           entry.f_code.co_name if entry is not None else "a builtin")

    def stdlib_frame(f):
        name = f.f_code.co_filename
        return isinstance_(name, str_) and (name.startswith("<frozen ") or (
            name.startswith(library_dir) and not any_(p in name for p in packages)))

    def among(g, spaces):
        for space in spaces:
            if g is space:
                return True
        return False

    def forward(record):
        if ended:
            deny("codewalk.send", "a record after the final one")
        if get_ident() != main_thread:
            deny("codewalk.send", "a record sent from another thread")
        f = frame(3)  # forward <- check <- hook <- the plugin's send
        if f is None or f.f_code is not sender_code or f.f_back is None or f.f_back.f_code not in plugin_codes:
            deny("codewalk.send", "a record not sent by the plugin")
        f = f.f_back.f_back
        while f is not None and among(f.f_globals, hookers):
            f = f.f_back
        if f is None or not among(f.f_globals, trusted):
            deny("codewalk.send", "a plugin hook not called by pytest")
        if files is not None:
            files[3]()  # the test files' source pytest read for this report leaves linecache before code runs
        if "end" in record:
            ended.append(True)
        if checker:
            why = checker[0]("end" in record, "node" in record or "end" in record)
            if why:
                send({"guard": "class_changed" if why.startswith("class_changed") else "report_path_changed",
                      "what": why})
                exit_(report_path)
        send(record)

    def check(event, args):
        if event == "exec" and args and hasattr_(args[0], "co_filename") and (
                args[0].co_filename in changed or changed_file(args[0])):
            caller = frame(2)  # the import system's frame that runs a changed module's code
            space = None
            if caller is not None and among(caller.f_globals, importing):
                found = caller.f_locals.get("args", ())
                space = found[1] if len_(found) > 1 else None
            elif caller is not None and caller.f_globals is rewriter:  # pytest's assertion rewriting loader
                space = getattr_(caller.f_locals.get("module"), "__dict__", None)
            if not isinstance_(space, dict_):
                deny(event, "changed code run outside the import system: " + args[0].co_filename)
            if not among(space, tracked):
                tracked.append(space)
            return
        if event == "codewalk.operands":  # pytest's rewritten assertion, before it compares (round 10)
            if operands_of and operands_of[0] is not None and len_(args) == 2:
                operands_of[0](args[0], args[1])
            return
        if event == "codewalk.report_path":
            if checker:
                deny(event, "a second report path")
            checker.append(args[0])
            operands_of.append(getattr_(args[0], "operands", None))
            trusted.extend(m.__dict__ for m in list(sys.modules.values()) if hasattr_(m, "__dict__"))
            tools.extend(m.__dict__ for n, m in list(sys.modules.items())
                         if hasattr_(m, "__dict__") and (n == "__main__" or str_(n).split(".")[0] not in stdlib))
            return
        if event in threads:
            thread_event(event, args)
            return
        if event == class_event:  # from the class guard's __build_class__, with its own empty list to fill
            f = frame(2)
            box = args[0] if args else None
            if f is not None and f.f_code is class_maker and type_(box) is list_ and not box:
                box.append(not tracked or changed_below(f.f_back) is None)  # True: no changed frame
                # and whether the statement's body is changed code as the hook knows it: made code (a library file
                # run with another module's globals or under a name of the tree, round 8) or a tracked module's (a
                # file written or copied into the package during the run, round 9: the class guard knows changed
                # files by the diff's paths only): its class is changed code's, behind the control
                body = f.f_locals.get("args", ())
                body = body[0] if type_(body) is tuple_ and body else None
                box.append(type_(body) is function_type and (body.__code__ in made_codes or
                                                             among(body.__globals__, tracked)))
            elif f is not None and f.f_code is control_code and type_(box) is list_ and len_(box) == 1 and \
                    type_(box[0]) is function_type and box[0].__code__ is settle_code and f.f_back is not None \
                    and f.f_back.f_code is class_maker and f.f_back.f_back is not None:
                # a changed file's class: settled now, or when its statement's last decorator returns
                stmt, settle = f.f_back.f_back, box[0]
                last = decorators(stmt)
                if last is None or getprofile() not in (None, window):
                    settle(None)  # (a profiler of another already set: before the decorators, as stored)
                else:
                    windows.setdefault(get_ident(), []).append((stmt, last[0], last[1], settle))
                    setprofile(window)
            return
        if not tracked:  # no changed module has run: none of its frames can be on the stack
            if event == "codewalk.send":
                forward(args[0])
            return
        start = frame(2)
        if event == "codewalk.send":
            if changed_below(start) is not None:
                deny(event, "a record sent from changed code")
            forward(args[0])
            return
        if event == "import":
            name = str_(args[0])
            top = name.split(".")[0]
            if top in tree_tops or top in stdlib_ok or top not in stdlib:
                return
            importer = start
            # round 14: the import system's own import statement (importlib.resources' reader: get_resource_reader's
            # `from importlib.readers import FileReader`) names its module: it asks, whoever is out from it
            while importer is not None and among(importer.f_globals, importing) and not at_import(importer):
                importer = importer.f_back
            if importer is not None and among(importer.f_globals, tracked):
                # what the changed module's file imported at x_G already (click's testing.py: pdb; werkzeug's
                # serving.py: socketserver), as the static layer allows: what such a module then does to get
                # a frame, make code or trace is each an event of its own
                if top in imported_at_x_g.get(importer.f_code.co_filename, ()):
                    return
                deny(event, name)
            if (importer is None or importer.f_code is marking_code) and get_ident() in marked:
                deny(event, name)  # a thread changed code started with an importer as its target
            if importer is not None:
                why = import_asked(importer)
                if why:
                    deny(event, name + ", asked by " + why)
            return
        if event in writing and files is not None:  # a file changed code writes: changed code wherever it lies
            files[4](event, args, lambda: changed_below(start) is not None)
        if event in file_events:  # a test file's path (or its folder's) as either argument
            for path in args[:2] if event in ("os.rename", "os.link", "os.symlink") else args[:1]:
                if not isinstance_(path, (str_, bytes_)):
                    continue
                path = abspath(fsdecode(path))
                if test_source(path):  # none of these is a read: pytest's reading excuses none of them
                    deny(event, "a test file changed: " + path)
            return
        if event in paths:
            path = args[0] if args else None
            if not isinstance_(path, (str_, bytes_)):
                return
            why = proc_judge(event, fsdecode(path), lambda: changed_below(start) is not None)
            if why:
                deny(event, why)
            path = abspath(fsdecode(path))
            if event == "open" and test_source(path):
                if files[5](args):  # pytest only reads a test file: a write is nobody's work, whoever is below
                    deny(event, "a test file opened to write: " + path)
                if changed_below(start) is not None:
                    deny(event, path)
                if tools and not read_for_a_tool(start):
                    deny(event, "a test file opened outside pytest's reading of it: " + path)
                why = asked_by_its_reader(start) if tools else ""
                if why:
                    deny(event, f"a test file read for code that does not name its reader ({why}): {path}")
            return

        if event == "exec" and args and type_(args[0]) is code_type and start is not None and \
                args[0].co_name == "<module>" and among(start.f_globals, importing):
            why = module_asked(args[0], start)  # round 13: importlib's imports raise no import event
            if why:
                deny("import", why)
        if event == "object.__setattr__" and len_(args) > 2 and args[1] in test_function_fields and \
                type_(args[0]) is function_type and not args[0].__code__.co_flags & nested and \
                isinstance_(args[0].__code__.co_filename, str_) and test_source(abspath(args[0].__code__.co_filename)):
            deny(event, "a test function's " + str_(args[1]) + " written")  # round 12c: whoever is on the stack
        between = changed_below(start)
        if between is None and (event in text_events or event == "function.__new__") and tools and \
                start is not None:
            why = text_asked_for(event, start)
            if why:
                deny(event, ("a function made from code for no code that names FunctionType: " if event ==
                             "function.__new__" else "code from text asked for by no code that names its evaluator: ")
                     + why)
        if between is None:
            return
        if event in frames and library(between, frame_path, frame_entry, anywhere):
            return
        if event == "object.__getattr__" and between and describer_out(between):
            return
        if event in code and between and among(between[0].f_globals, code_makers) and \
                library(between, code_path, anywhere, imported_by_statement):
            if event == "exec" and args and hasattr_(args[0], "co_consts") and not (
                    among(between[0].f_globals, importing) and new_module(between[0], args[0]) and
                    files_code(args[0])):  # the cheap check first: files_code reads and compiles the file
                todo = [args[0]]  # the code and every code object nested in it
                while todo:
                    c = todo.pop()
                    made_codes.add(c)
                    todo.extend(k for k in c.co_consts if hasattr_(k, "co_consts"))
            return
        if event in code and between and among(between[0].f_globals, importing) and own_statement(between):
            return
        if event == "compile" and (parses(between) or (between and between[0].f_code is forward_ref and
                                                       library(between, typing_space, anywhere, imported_by_statement))):
            return
        if event == "object.__getattr__" and len_(args) > 1 and args[1] == "__code__" and repository_code(args[0]):
            return
        if event == "sys._getframe" and args and start is not None and among(args[0].f_globals, tracked) and \
                globals_only(start):
            return
        if event == "object.__setattr__" and len_(args) > 2 and renames_own_class(args[0], args[1], args[2]):
            return
        if event == "object.__getattr__" and len_(args) > 1 and args[1] == "__code__" and start is not None and \
                start.f_code is control_code:
            return
        if event == "object.__setattr__" and len_(args) > 2 and args[1] in controlled_keys and \
                type_(args[2]) is function_type and args[2].__code__ in controlled_codes:
            return  # the class guard's maker puts a comparison behind its control (_controlled)
        attr = event in ("object.__getattr__", "object.__setattr__", "object.__delattr__") and len_(args) > 1
        deny(event, args[1] if attr else "")

    def hook(event, args):
        if event not in watched and not event.startswith(("ctypes.", "fcntl.")):
            return
        me = get_ident()
        if me in busy:  # an event the hook itself raised (getting a frame, reading one's code)
            return
        busy.add(me)
        try:
            check(event, args)
        finally:
            busy.discard(me)

    sys.addaudithook(hook)


class _Plugin:
    """The harness's pytest plugin: the report path recorded before the tree is importable, each report sent."""

    def __init__(self, send, paths, audit, changed=frozenset(), changed_module=None, memory=""):
        self._paths = paths
        self._audit = audit
        self._memory = memory  # what keeps the runner's memory from the processes the tests start
        self._changed = changed
        self._changed_module = changed_module
        if audit:
            self._send = _audited(sys.audit)
        else:  # Python 3.7 and older: the check runs here, before each record
            self._send = _checked(send, self)
        self._check = None
        self._collected = False
        self._stand_ins = _stand_ins()

    def pytest_load_initial_conftests(self, early_config):
        """Before the first conftest (and so before any module of the tree): record the report path, then let
        the tree join sys.path. pytest's own implementation, which loads the conftests, runs last."""
        classes = _class_guard(self._changed, self._changed_module) if CLASS_GUARD else None
        del self._changed_module
        if classes is not None and self._audit:
            _judged_assertions()
        check = _with_classes(_checker(early_config.pluginmanager, self), classes)
        if self._audit:
            sys.audit("codewalk.report_path", check)
        else:
            self._check = check
        for entry in reversed(self._paths):  # where PYTHONPATH's entries are: after the script's folder
            sys.path.insert(1, entry)
        os.environ["PYTHONPATH"] = os.pathsep.join(self._paths)

    def pytest_collection(self, session):
        self._send({"collection": True})  # the report path's hook implementations are recorded now

    def pytest_collection_finish(self, session):
        """The session's items are final: the report path's instances (each item's state) are recorded now.
        From here on each test module's __file__ names its file's stand-in (_give_stand_ins)."""
        self._collected = True
        _give_stand_ins(session, self._stand_ins)
        self._send({"collected": len(session.items)})

    # run after the other implementations (conftests' included), as pytest.hookimpl(trylast=True) marks it
    pytest_collection_finish.pytest_impl = {  # type: ignore[attr-defined]
        "trylast": True, "tryfirst": False, "hookwrapper": False, "optionalhook": False, "specname": None,
        "wrapper": False}

    def pytest_collectreport(self, report):
        if report.failed:
            self._send({"collect": report.nodeid, "outcome": "failed"})

    def pytest_runtest_logreport(self, report):
        record = {"node": report.nodeid, "when": report.when, "outcome": report.outcome}
        if hasattr(report, "wasxfail"):
            record["xfail"] = True
        self._send(record)

    def pytest_sessionfinish(self, session, exitstatus):
        self._send({"end": int(exitstatus), "failed": int(getattr(session, "testsfailed", -1)),
                    "audit": self._audit, "memory": self._memory})


def _stand_ins():
    """((a test file, its stand-in), ...) as absolute paths, the test file's resolved: guard.json's
    "stand_ins", written by the host (env.run_tests) beside this file, where the tests cannot write."""
    here = os.getcwd()
    try:
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "guard.json")) as handle:
            found = json.load(handle).get("stand_ins", {})
    except (OSError, ValueError, AttributeError):
        found = {}
    return tuple(sorted((os.path.realpath(os.path.join(here, real)), os.path.join(here, stand_in))
                        for real, stand_in in found.items()))


def _give_stand_ins(session, pairs):
    """Each test module's __file__ set to its stand-in (a copy of its file's size and lines without its text:
    channel.stand_ins), once every test module is imported and before any test runs: a test that opens its
    own __file__ (click's File(default=__file__), requests' uploads) opens the stand-in, which the guard lets
    anyone open, and reads no expected value. After collection pytest knows a test by its item's path and
    its code's co_filename (tracebacks, linecache, inspect of functions), not by __file__. A path a module
    computed from __file__ while it was imported (`HERE = os.path.abspath(__file__)`) keeps the real file's
    name, and opening that stays pytest's alone."""
    if not pairs:
        return
    by_file = dict(pairs)
    names = frozenset(os.path.basename(real) for real in by_file)
    modules = list(sys.modules.values())
    for item in session.items:
        try:
            modules.append(item.module)  # pytest's Python items (a module imported without sys.modules too)
        except Exception:  # noqa: BLE001  (no module: a doctest's, a plugin's item)
            continue
    for module in modules:
        if type(module) is not type(sys):  # a test module is a plain module (nothing of another type runs here)
            continue
        where = module.__dict__.get("__file__")
        if isinstance(where, str) and os.path.basename(where) in names:
            stand_in = by_file.get(os.path.realpath(where))
            if stand_in is not None:
                module.__dict__["__file__"] = stand_in


def _audited(audit):
    def send(record):
        audit("codewalk.send", record)
    return send


def _checked(send, plugin):
    exit_ = os._exit

    def checked(record):
        why = plugin._check("end" in record, "node" in record or "end" in record) if plugin._check else ""
        if why:
            send({"guard": CLASS_CHANGED if why.startswith(CLASS_CHANGED) else "report_path_changed", "what": why})
            exit_(REPORT_PATH)
        send(record)
    return checked


REPORT_HOOKS = ("pytest_runtest_protocol", "pytest_runtest_makereport", "pytest_runtest_logreport",
                "pytest_report_teststatus", "pytest_runtest_call", "pytest_pyfunc_call", "pytest_runtest_setup",
                "pytest_runtest_teardown", "pytest_collectreport", "pytest_make_collect_report",
                "pytest_sessionfinish", "pytest_runtestloop", "pytest_collection_modifyitems",
                "pytest_runtest_logfinish", "pytest_exception_interact", "pytest_load_initial_conftests")
OWNERS = ("_pytest", "pytest", "pluggy", "__main__")
# Module attributes pytest itself sets while a session runs: not part of how a report is made
# Classes pytest's doctest plugin makes when first needed (a module global set from None, measured on
# requests, whose tests collect doctests): each may only be the class its maker function builds, every
# function of it compiled from that maker's own code.
LAZY = (("_pytest.doctest", "RUNNER_CLASS", "_init_runner_class"),
        ("_pytest.doctest", "CHECKER_CLASS", "_init_checker_class"))
MUTABLE = frozenset(("_pytest.assertion.util._reprcompare", "_pytest.assertion.util._assertion_pass",
                     "_pytest.assertion.util._config", "plugin._check", "plugin._collected",
                     "_pytest.debugging.pytestPDB")
                    + tuple(m + "." + name for m, name, _ in LAZY))


def _checker(pm, plugin):
    """A function that says what changed on the report path since it was made ("" if nothing): each
    attribute of pytest's, pluggy's and this module and of the classes they define, the harness's plugin,
    and the implementations of the hooks that make, log and send a report. Bound here, like the hook."""
    modules, vars_, list_, type_, isinstance_, getattr_, len_, str_ = (
        sys.modules, vars, list, type, isinstance, getattr, len, str)
    owners, mutable, hooks, module_type = OWNERS, MUTABLE, REPORT_HOOKS, type(sys)
    # __warningregistry__: what warnings puts in the globals of a module that warned (measured on boltons,
    # click and jinja: a test module made _pytest.python warn), whether a warning was shown already
    skip = frozenset(("__dict__", "__weakref__", "__doc__", "_abc_impl", "_pytest_diamond_inheritance_warning_shown",
                      "__warningregistry__"))

    def places():
        """(label, namespace) of every module and class on the report path, in a stable order."""
        found = [("plugin", vars_(plugin)), ("plugin class", vars_(type_(plugin)))]
        for name, module in list_(modules.items()):
            if module is None or name.split(".")[0] not in owners:
                continue
            space = vars_(module)
            found.append((name, space))
            for value in list_(space.values()):
                if isinstance_(value, type_) and getattr_(value, "__module__", "") == name:
                    found.append((name + "." + value.__name__, vars_(value)))
        return found

    def impls():
        seen = {}
        conftests = getattr_(pm, "_conftest_plugins", ())
        for hook in hooks:
            caller = getattr_(pm.hook, hook, None)
            for impl in caller.get_hookimpls() if caller is not None else ():
                if impl.plugin in conftests:
                    continue  # the test side's own, added as collection finds them (test files are checked)
                label = "hookimpl " + hook + " " + str_(impl.plugin_name)
                while label in seen:
                    label += "+"
                seen[label] = impl.function
        return seen

    import itertools
    import operator

    all_, map_, tuple_, is_, getitem, chain = all, map, tuple, operator.is_, operator.getitem, itertools.chain
    zip_, enumerate_, frozenset_, hasattr_ = zip, enumerate, frozenset, hasattr
    import re

    plain, function_type = (str, int, tuple, type(None), type(re.compile(""))), type(_checker)
    recorded = []  # [label, namespace, its keys, their values, the namespace's size]
    for label, space in places():
        if label not in mutable:
            keys = tuple_(k for k in list_(space) if label + "." + k not in mutable and k not in skip)
            recorded.append([label, space, keys, tuple_(space[k] for k in keys), len_(space)])
    # the same, flat: one pass in C compares every entry (a namespace's size catches what was added)
    spaces = tuple_(entry[1] for entry in recorded)
    sizes = [entry[4] for entry in recorded]
    flat_spaces = tuple_(chain.from_iterable([entry[1]] * len_(entry[2]) for entry in recorded))
    flat_keys = tuple_(chain.from_iterable(entry[2] for entry in recorded))
    flat_values = tuple_(chain.from_iterable(entry[3] for entry in recorded))
    hooked = []  # the hook implementations, recorded at the first record (collection starts): plugins
    # register theirs up to pytest_configure

    def differs(entry):
        """What changed in one namespace, or "" when only what may change did (its new size is kept)."""
        label, space, keys, values, _ = entry
        for k, v in zip_(keys, values):
            if k not in space:
                return "gone: " + label + "." + k
            if space[k] is not v:
                return "changed: " + label + "." + k
        known = frozenset_(keys)
        for k, v in list_(space.items()):
            if k in known or k in skip or label + "." + k in mutable:
                continue
            if isinstance_(v, module_type) and v.__name__ == label + "." + k:
                continue  # a submodule imported since
            return "added: " + label + "." + k
        entry[4] = len_(space)
        return ""

    def nested(code_):
        found = {code_}
        for c in code_.co_consts:
            if hasattr_(c, "co_consts"):
                found |= nested(c)
        return found

    lazy = []  # (label, the module's namespace, its attribute, the code objects its maker holds)
    for module_name, name, maker in LAZY:
        space = vars_(modules[module_name]) if module_name in modules else {}
        made = getattr_(space.get(maker), "__code__", None)
        if made is not None:
            lazy.append((module_name + "." + name, space, name, frozenset_(nested(made))))

    def lazy_changed():
        """The first lazily made class that is not its maker's, or ""."""
        for label, space, name, codes in lazy:
            value = space.get(name)
            if value is None:
                continue
            bases = getattr_(value, "__bases__", ())
            if len_(bases) != 1 or getattr_(modules.get("doctest"), bases[0].__name__, None) is not bases[0]:
                return "changed: " + label  # the maker's class derives from one of doctest's own
            for k, v in list_(vars_(value).items()):
                if isinstance_(v, plain):
                    continue
                if getattr_(v, "__code__", None) not in codes or type_(v) is not function_type:
                    return "changed: " + label + "." + k
        return ""

    def check():
        if not hooked:
            hooked.append(impls())
        why = lazy_changed()
        if why:
            return why
        try:
            same = all_(map_(is_, map_(getitem, flat_spaces, flat_keys), flat_values))
        except KeyError:
            same = False
        if not same or list_(map_(len_, spaces)) != sizes:
            for n, entry in enumerate_(recorded):
                why = differs(entry)
                if why:
                    return why
                sizes[n] = entry[4]
        now = impls()
        if now != hooked[0]:
            changed = [k for k in list_(now) + list_(hooked[0]) if now.get(k) is not hooked[0].get(k)]
            return "hook implementations: " + (changed[0] if changed else "reordered")
        return instances()

    instances = _instances(pm, plugin)
    return check


# -- classes: what decides an assertion, fixed once a class is made ------------------------------------------
# Audit hooks see no write of a class attribute, so a class's comparisons and truth can be changed on any
# class by code of any spelling (`setattr(self, name, v)` in a method called through its class with another
# first argument, a repository's generic setter). The class guard records them and compares before each
# record, as the report path: a class alive before the tree joined sys.path keeps its verdict dunders as
# they were; a class a class statement made keeps them as the statement left them, or takes only what a
# class decorator of a library adds; any other class (type() in library code: namedtuple, a functional
# Enum, attrs's slotted classes) may hold only such values. A violation: one record class_changed, then exit.
CLASS_CHANGED = "class_changed"
CLASS_GUARD = True  # the red-team tests run a copy of this file with it off, to show the cheats work
ITEMS_GUARD = True  # round 12c: each item runs what collection found (off in the red-team tests' copy, as above)
# The verdict dunders: what decides whether a test's assertion holds about a value without knowing the
# expected one, each turned into "always" by one assignment.
VERDICT = (
    "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__",  # `result == expected`, sorted(), approx's first test
    "__hash__",  # set and dict membership (with __eq__)
    "__bool__", "__len__",  # truth: `assert result`, `assert not errors`
    "__contains__", "__iter__", "__getitem__",  # `x in result`; iteration (all() over nothing is true)
    "__instancecheck__", "__subclasscheck__", "__subclasshook__",  # isinstance/issubclass (metaclasses, ABCs)
    "__class__",  # isinstance() falls back on obj.__class__: a property there answers any class
    "__getattr__", "__getattribute__",  # every attribute a test reads from a result
    "__exit__", "__aexit__",  # a context manager whose exit returns true swallows the assertion raised in it
    "__sub__", "__rsub__", "__abs__",  # pytest.approx: abs(expected - actual) <= tolerance
)


def _with_classes(check, classes):
    """The report path's check, then the class guard's (at the final record, every class looked up whole)."""
    if classes is None:
        return lambda final=False, testing=False: check()

    def both(final=False, testing=False):
        return check() or classes(final, testing)

    both.operands = getattr(classes, "operands", None)  # type: ignore[attr-defined]
    return both


def _class_maker(original, made, dict_of, keys, tuple_, map_, missing, type_error, control=None):
    """builtins.__build_class__ as the class guard has it: each class a class statement makes is recorded
    with its verdict dunders as the statement left them (a class decorator runs after), the body
    function that ran, and whether the audit hook found no changed frame on the stack (True) or could not
    tell (no hook: False); control(cls, body function, whether the hook found the body made code) then puts
    the comparison control on it (round 6; round 8: a library file's class run as made code).
    Everything it uses is bound here."""

    fill = (missing,) * len(keys)
    audit, event, list_, true = getattr(sys, "audit", None), CLASS_EVENT, list, True

    def __build_class__(*args, **kwargs):  # (func, name, *bases, **keywords): `name=` may be a class keyword
        __tracebackhide__ = True  # pytest leaves this frame out of the tracebacks it shows
        cls = original(*args, **kwargs)
        try:
            space = dict_of(cls)
        except type_error:  # a metaclass may return anything
            return cls
        box = list_()
        if audit is not None:
            audit(event, box)
        # box: [no changed frame on the stack, the body is made code] (the hook's answer; no hook: [])
        made.append((cls, args[0], tuple_(map_(space.get, keys, fill)), box[:1] == [true]))
        if control is not None:
            control(cls, args[0], box[1:] == [true])
        return cls

    return __build_class__


# Round 6 (issue 51): a comparison is known by what it answers, not by how its source reads. Each comparison a
# class statement of changed code makes (__eq__, __ne__, whatever the class body spelled: an alias, a
# staticmethod, a property, a decorator's function, one in an `if`) is put behind a control: when it answers
# "equal" to a value of a plain type (str, bytes, list, tuple, dict, set, int, float), it is asked again,
# in random order, about other values of that type that differ from the first: a random part added, a part
# left out, and those that keep the value's parts but change their arrangement (two distinct parts swapped,
# one letter's case changed, a part repeated, a space added, two text parts joined: round 7's open hole, a
# comparison equal to anything made of its own parts), each at every place of the value (PLACES drawn at
# random per comparison beyond PLACES: round 8, a comparison lenient only where a fixed probe did not look),
# every one asked from one call site at one depth of the stack (round 8: no depth tells a probe's call). An honest comparison cannot find its object
# equal to two values that differ from each other (but one lenient by design: a case-insensitive text, a set
# compared with a list); one that does answers without comparing (always equal, adopting what it is handed,
# a result made true whatever was found, equal to any arrangement of its parts): the run gives no verdict
# (class_changed). Each probe is asked (a deterministic verdict for a comparison without state), all of them
# before the answer or, after it, only when it is "equal" (a comparison that keeps the first value of its
# parts it is asked about is judged as one that keeps state: the order is drawn). The assertion gets the truth the control
# judged, as a plain bool, asked twice (an answer whose truth changes between calls, or cannot be told, gives no
# verdict): what the control saw is what the assertion sees.
CONTROLLED = ("__eq__", "__ne__")

# Round 10 (issue 51): every ask sees the same history. A comparison with state (beside its object, in a global, a
# closure) learns from its first call: asked in one process, whichever ask came first (the value or a probe, drawn)
# told it which the others were, and one that trusted its first call, or read the value off the probes it was
# asked before committing, passed. Each ask (the value's copy, each probe) now runs in a child forked for it
# alone, the comparison's state as it is in the test's process, where it is never asked: it can tell the value's
# ask from a probe's only by the argument's content. The child keeps no descriptor but its pipe (not the
# channel's), may leave nothing behind in the file system or elsewhere (its own audit hook: KEPT_FROM_CHILDREN),
# answers one byte and leaves by os._exit; it is killed after APART_SECONDS, and what it changed is lost with it
# (honest comparisons rarely change anything). An ask with no valid answer gives no verdict.
APART_SECONDS = 30
# A child's pid is the namespace's next one, and a test suite's forks come in the same order at every run, so a
# comparison calibrated on the task beforehand could tell the value's child by os.getpid() alone: before each
# comparison's children, the control uses up a random number (0 to PID_SKIP - 1) of pids with short threads of its
# own, and forks the children in an order drawn (round 11), so no pid names an ask (a thread costs ~30-40 us)
PID_SKIP = 64
# What a child may not do (its own audit hook, besides opening a file to write): whatever outlasts it
KEPT_FROM_CHILDREN = frozenset((
    "os.rename", "os.remove", "os.rmdir", "os.mkdir", "os.link", "os.symlink", "os.truncate", "os.chmod", "os.chown",
    "os.utime", "os.chflags", "os.lchflags", "os.setxattr", "os.removexattr", "os.mkfifo", "os.mknod", "os.kill",
    "os.killpg", "os.fork", "os.forkpty", "os.posix_spawn", "os.system", "os.putenv", "os.unsetenv",
    "subprocess.Popen", "socket.__new__", "socket.bind", "socket.connect", "socket.sendto", "socket.sendmsg",
    "mmap.__new__", "signal.pthread_kill", "resource.setrlimit", "fcntl.fcntl", "fcntl.ioctl", "fcntl.flock",
    "fcntl.lockf"))
FALSE, TRUE, NOT_IMPLEMENTED, RAISED, NO_TRUTH, CHANGES, CHANGED = 0, 1, 2, 3, 4, 5, 8


def _apart(draw=os.urandom, seconds=APART_SECONDS):
    """apart(answer, *args): answer(*args) run in a child forked for it alone (the code it returns, 0-255), or None
    when the child gave no single byte in time; apart(answer, asks=[args, ...], enough=None): the codes of
    answer(*args) for each args, each in a child of its own, all forked (in an order drawn) before any runs and
    released together (round 11: every ask sees the same clock); enough(i, code), called as each child answers,
    may end the wait (the others are killed); apart(): whether this process is such a child. draw(n) gives n
    random bytes. Everything it uses is bound here, at the harness's start."""
    import _thread
    import gc
    import select
    import signal

    start_thread, new_lock = _thread.start_new_thread, _thread.allocate_lock  # the harness's starter by now
    no_collection = gc.disable

    def skip_pids():
        """Uses up a random number of pids (PID_SKIP): each short thread takes the namespace's next one."""
        for _ in range(draw(1)[0] % PID_SKIP):
            done = new_lock()
            done.acquire()
            start_thread(done.release, ())
            done.acquire()

    fork, pipe, read, write, close, closerange, exit_, waitpid, kill, add_hook = (
        os.fork, os.pipe, os.read, os.write, os.close, os.closerange, os._exit, os.waitpid, os.kill,
        getattr(sys, "addaudithook", None))
    str_, int_, type_, permission, len_, range_, list_, from_bytes, sorted_ = (
        str, int, type, PermissionError, len, range, list, int.from_bytes, sorted)
    kept = KEPT_FROM_CHILDREN
    writes = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC

    def nothing_left_behind(event, args):
        """The child's own audit hook: nothing it does may outlast it for the next child to read (a file made,
        written or given other times or modes, a socket, a signal, a process): every ask sees the same history
        in the file system too. Refused as an error the comparison may catch (the child's state dies with it)."""
        if event == "open" and len(args) > 2:
            mode, flags = args[1], args[2]
            if (type_(mode) is str_ and any(c in mode for c in "wax+")) or (
                    type_(flags) is int_ and flags & writes):
                raise permission("the comparison control's child writes nothing")
        elif event in kept or event.startswith(("shutil.", "os.exec", "os.spawn", "ctypes.", "sqlite3.")):
            raise permission("the comparison control's child leaves nothing behind: " + event)

    new_poll, readable, monotonic, sigkill, bytes_, exception, valid = (
        select.poll, select.POLLIN | select.POLLHUP | select.POLLERR, time.monotonic, signal.SIGKILL, bytes,
        Exception, frozenset(range(6)) | frozenset(range(8, 14)))
    try:
        top = max(256, os.sysconf("SC_OPEN_MAX"))
    except (ValueError, OSError):
        top = 65536

    inside = [False]

    def drawn_order(n):
        """0..n-1 in an order drawn (Fisher-Yates on the run's draw): which child is forked when, and so its pid
        and what the process held when it was forked, names no ask."""
        out = list_(range_(n))
        raw = draw(4 * n)
        for i in range_(n - 1, 0, -1):
            j = from_bytes(raw[4 * i:4 * i + 4], "little") % (i + 1)
            out[i], out[j] = out[j], out[i]
        return out

    def child(answer, args, w, gate):
        """A child: only its pipe and the gate, which it reads until the control closes it, once every ask's child
        is forked; then one ask, one byte, gone (never back into the test's stack)."""
        code, inside[0] = 255, True
        try:
            low, high = sorted_((w, gate))
            closerange(0, low)
            closerange(low + 1, high)
            closerange(high + 1, top)
            # no cyclic collection in the short-lived child: a full one would write to every object's page, a copy
            # of the whole heap for each of the comparison's children alive at once
            no_collection()
            if add_hook is not None:
                add_hook(nothing_left_behind)
            while read(gate, 1):  # the gate: end of file when the last child is forked and released
                pass
            close(gate)
            code = answer(*args)
        finally:
            try:
                write(w, bytes_((code & 255,)))
            finally:
                exit_(0)

    def together(answer, asks, enough):
        """Round 11: every ask sees the same clock. Each ask's child is forked, in an order drawn, before any of
        them runs: it waits at the gate (a pipe's end of file) until the last one is forked, and all start at
        that one instant; the parent then waits for all at once, so a child that holds longer delays no other's
        start, and their common deadline is APART_SECONDS after the release."""
        n = len_(asks)
        codes, pids, pipes, ends = [None] * n, [None] * n, [None] * n, []
        try:
            ends.extend(pipe())  # the gate: what each child reads, what the parent closes to release them
        except exception:  # noqa: BLE001 - no child: no answer (no verdict)
            return codes
        gate = ends[0]
        waiting = {}
        try:
            skip_pids()  # once: the children's pids follow in the order drawn, so a pid names no ask
            for i in drawn_order(n):
                try:
                    r, w = pipe()
                except exception:  # noqa: BLE001 - not every ask has its child: none is asked (no verdict)
                    return codes
                try:
                    pid = fork()
                except exception:  # noqa: BLE001
                    close(r)
                    close(w)
                    return codes
                if pid == 0:
                    child(answer, asks[i], w, gate)
                close(w)
                pids[i], pipes[i] = pid, r
                waiting[r] = i
            data, poll = [b""] * n, new_poll()
            for r in waiting:
                poll.register(r, readable)
            while ends:
                close(ends.pop())  # the release: every child's gate reads its end at once
            deadline = monotonic() + seconds
            while waiting:
                left = deadline - monotonic()
                if left <= 0:
                    break
                stop = False
                for r, _ in poll.poll(left * 1000 + 1):
                    i = waiting.get(r)
                    if i is None:
                        continue
                    chunk = read(r, 2)
                    if chunk and len_(data[i]) < 2:
                        data[i] += chunk
                        continue
                    del waiting[r]  # its end (or more than a byte): the child's answer is all there is
                    poll.unregister(r)
                    got = data[i]
                    codes[i] = got[0] if len_(got) == 1 and got[0] in valid else None
                    if enough is not None and enough(i, codes[i]):
                        stop = True
                if stop:
                    break
            for i in waiting.values():
                codes[i] = None  # no end in time: no answer
        finally:
            # every child killed before the gate is closed (one not released yet never asks) and reaped
            for pid in pids:
                if pid is not None:
                    try:
                        kill(pid, sigkill)
                    except exception:  # noqa: BLE001 - gone already
                        pass
                    waitpid(pid, 0)
            for end in ends + [r for r in pipes if r is not None]:
                close(end)
        return codes

    def apart(answer=None, *args, asks=None, enough=None):
        if answer is None:  # asked whether this is a child already: a comparison a child's comparison makes is
            return inside[0]  # asked there plainly (the child is apart already; it may not fork)
        if asks is None:
            return together(answer, [args], None)[0]
        return together(answer, list_(asks), enough)

    return apart


def _controlled(key, original, owner, other_than, found, coin, apart=None):
    """The comparison original (a class's key as its statement left it) behind the control; other_than(value)
    gives the probes of a plain value (each a pair: what it changed, the value) or None, found collects what the
    control saw, coin() draws 0 or 1. apart (_apart; the harness always gives it): each ask in a child of its
    own, so every ask sees the same history (round 10); without it the asks run here, in the order coin draws
    (the probes' own tests). Only these functions' code may be set on a class by the class guard's maker (the
    audit hook checks it)."""
    get = getattr(type(original), "__get__", None)
    not_implemented, bool_, type_, exception = NotImplemented, bool, type, Exception
    list_, dict_, set_, zip_, issubclass_, next_, stop = list, dict, set, zip, issubclass, next, StopIteration
    dict_keys, dict_values, base_exception = dict.keys, dict.values, BaseException
    equal = key == "__eq__"
    where = owner + "." + key

    def ask(obj, other):
        # what the type slot does: a descriptor binds to the object (a function, staticmethod, property...),
        # anything else is called with the other operand only
        if get is None:
            return original(other)
        return get(original, obj, type_(obj))(other)

    def truth(answer):
        """An answer's truth, asked twice when it is no bool: an honest answer's truth does not change
        between calls (one that did could say "different" to the control and "equal" to the assertion)."""
        if type_(answer) is bool_:
            return answer
        first = bool_(answer)
        if bool_(answer) is not first:
            found.append(where + " answers with a truth that changes between calls")
        return first

    def storage(self):
        """(the plain type a container compared is, a copy of its storage) or (None, None)."""
        base = next_((b for b in (list_, dict_, set_) if issubclass_(type_(self), b)), None)
        if base is dict_:
            return base, dict_(zip_(dict_keys(self), dict_values(self)))
        return base, (base.copy(self) if base is not None else None)

    def order(kinds, other):
        """(None, the value's copy) and (what changed, a probe) for each probe, in the order of kinds."""
        for what, make in kinds:
            made = make(other)
            while True:
                try:
                    probe = next_(made)
                except stop:
                    break
                except exception:  # noqa: BLE001 - a probe that cannot be made is not asked
                    if what is None:
                        probe = other  # a value that cannot be copied is asked as it is
                    else:
                        break
                yield what, probe
                if what is None:
                    break

    def answered(self, value, base, kept, copy):
        """One ask, in a child of its own (round 10): the code of its answer, CHANGED added when the comparison
        changed its own object. The thing asked is a fresh copy made here, by copy (the value's maker), the same
        way for the value's copy and for each probe (round 11: no ask's object is older than another's). Never
        raises: the child must not return into the test's stack."""
        try:
            value = next_(copy(value))
        except base_exception:  # noqa: BLE001 - what cannot be copied is asked as it is
            pass
        try:
            answer = ask(self, value)
        except base_exception:  # noqa: BLE001
            return RAISED
        try:
            mark = CHANGED if kept is not None and not base.__eq__(kept, self) else 0
            if answer is not_implemented:
                return NOT_IMPLEMENTED | mark
            if type_(answer) is bool_:
                return (TRUE if answer else FALSE) | mark
            told = bool_(answer)
            if bool_(answer) is not told:
                return CHANGES | mark
            return (TRUE if told else FALSE) | mark
        except base_exception:  # noqa: BLE001
            return NO_TRUTH

    def asked_apart(self, other, probes):
        """Round 10: the value's copy and each probe, each asked in a child of its own, forked from this process
        as it is now: the comparison is asked each thing first, in the same state; no ask is made here, so
        nothing it was asked before can tell it which is the test's. Round 11: every ask sees the same clock.
        All are made here first, then every child is forked (in an order drawn: the value at a random place)
        before any runs, and all are released at once, so no ask's start, order or duration tells it which one
        it is; the probes are asked whatever the value answers (only the value's answer can end the wait)."""
        base, kept = storage(self)
        copy = next_((make for what, make in probes if what is None), None)
        made = list_(order(probes, other))  # the value's copy first
        if copy is None or not made or made[0][0] is not None:
            return ask(self, other)  # no value's maker: nothing to compare the answer with
        wanted = TRUE if equal else FALSE

        def enough(i, code):
            """Whether the wait may end: the value's answer is known and the probes do not matter to it."""
            return i == 0 and (code is None or code & ~CHANGED != wanted)

        codes = apart(answered, asks=[(self, value, base, kept, copy) for _, value in made], enough=enough)
        said = None
        for (what, value), code in zip_(made, codes):
            if code is None:
                found.append(where + " could not be asked in a child of its own" +
                             ("" if what is None else " (" + what + ")"))
                return not_implemented if what is None else said
            if code & CHANGED and what is None:
                found.append(where + " changed its own object")
            code &= ~CHANGED
            if code == CHANGES:
                found.append(where + " answers with a truth that changes between calls")
                return not_implemented if what is None else said
            if what is not None:
                if code == (TRUE if equal else FALSE):
                    found.append(where + " answers equal to two values that differ (" + what + ")")
                    return said
                continue  # "not equal", an error, NotImplemented or no truth: a probe is not "equal"
            if code == NOT_IMPLEMENTED:
                return not_implemented
            if code == NO_TRUTH:
                found.append(where + " answers with no truth value")
                return not_implemented
            if code == RAISED:
                # the error is the test's to see: asked here, where an honest comparison raises as it did apart
                # (one that answers here is no honest one: no verdict)
                answer = ask(self, value)
                found.append(where + " raises only in a child of its own")
                return answer
            said = code == TRUE
            if said is not equal:
                return said  # the probes matter only when the answer is "equal"
        return said

    def controlled(self, other):
        try:
            probes = other_than(other)
        except exception:  # noqa: BLE001 - the control never changes what the comparison does
            probes = None
        if not probes:  # not a plain value: nothing to compare the answer with
            return ask(self, other)
        if apart is not None:
            # (a comparison that a child's comparison makes, __ne__'s `not self == other`: asked there plainly)
            return ask(self, other) if apart() else asked_apart(self, other, probes)
        # a container compared is asked with a copy kept: a comparison that adopts the other's items, then
        # answers NotImplemented (so that the container's own comparison finds them equal), changed its object.
        # The copy is of the storage itself: dict.copy of a subclass reads it through the subclass's own keys()
        # and __getitem__ (boltons' OrderedMultiDict keeps lists and gives their last item). Its type, not its
        # __class__ (which a property may answer)
        base, kept = storage(self)
        first = coin()  # the probes first: no candidate knows which of its calls are the control
        # round 9: the comparison is asked about a fresh copy of the test's value, made as each probe is made (new
        # objects of the same types, each when asked), and the test is answered what the control judged of that
        # copy: no identity, reference count or age of a part tells the test's value from a probe
        kinds = probes[1:] + probes[:1] if first else probes

        # the value and every probe are asked from this one call site, at one depth of the stack, their answers'
        # truth too: a comparison that measures the stack (a recursion to RecursionError) cannot tell the
        # test's call from a probe's by it
        before = said = None
        for what, value in order(kinds, other):
            if what is not None and before is not None:
                continue  # one probe claimed equal is enough
            try:
                answer = ask(self, value)
            except exception:  # noqa: BLE001 - a probe the comparison cannot answer is not "equal"
                if what is None:
                    raise
                continue
            if what is None:
                if kept is not None and not base.__eq__(kept, self):
                    found.append(where + " changed its own object")
                if answer is not_implemented:
                    return answer
            elif answer is not_implemented:
                continue
            try:
                told = truth(answer)
            except exception:  # noqa: BLE001
                if what is not None:
                    continue
                # an answer whose truth cannot be told about a plain value: what the assertion would see
                # next is not known (a truth that raises once, then holds), so it is not judged
                found.append(where + " answers with no truth value")
                return answer
            if what is not None:
                if told is equal:
                    before = what
            elif told is not equal:
                return told  # the probes after, only when the answer is "equal"
            else:
                said = told
        if before is not None:
            found.append(where + " answers equal to two values that differ (" + before + ")")
        # the assertion gets the truth the control judged, not an object that may answer it again
        return said

    def __eq__(self, other):  # the name the class guard's judge accepts for the key
        return controlled(self, other)

    def __ne__(self, other):
        return controlled(self, other)

    return __eq__ if equal else __ne__


# How many places of a value each arrangement probe changes: every place of a value with at most this many
# (the tally fixture's values: "a, b, C" has 8 places for a space), else this many drawn at random per
# comparison (a comparison lenient at one place of n is then found with a chance of about PLACES / n).
PLACES = 8


def _other_than(draw):
    """A function that gives, for a value of a plain type, the control's probes: values of that type that
    differ from it, as pairs (what changed, a function that makes a list of them of the value), made only
    when asked; or None for a value of another type. One probe adds a random part; the others change a
    place of the value, at each place (up to PLACES of them, else PLACES drawn at random per comparison, so a
    comparison cannot be lenient only where no probe looks): a part left out, and those that keep the value's
    parts and change their arrangement (what a comparison equal to anything made of its parts accepts): two
    distinct parts swapped (words of a text, else letters), one letter's case changed, a part repeated, a
    space added, two text parts joined. draw(n): n random bytes."""
    str_, bytes_, list_, tuple_, dict_, set_, frozenset_, int_, float_, bool_, type_ = (
        str, bytes, list, tuple, dict, set, frozenset, int, float, bool, type)
    len_, range_, next_, sorted_, from_bytes, enumerate_ = len, range, next, sorted, int.from_bytes, enumerate
    letters = "abcdefghijklmnopqrstuvwxyz0123456789"
    texts, sequences = (str_, bytes_), (list_, tuple_)
    identity = object.__dict__["__hash__"]  # an object's address, rotated: no audit event (id() has one)
    containers = (list_, tuple_, dict_, set_, frozenset_)

    def fresh(value):
        """A copy of a plain value made of new objects of the same types (round 9: the test's value holds the
        test's own constants, the very objects it passed in; a probe was made of new ones, so identity told
        them apart). What cannot be copied without changing what it is equal to stays the same object, in the
        copy and in every probe alike: None, True/False, small ints and one-letter texts (the interpreter
        keeps one of each), a NaN, objects of other types. A container held twice is copied once."""
        memo = {}

        def atom(v):
            kind = type_(v)
            if kind is str_ or kind is bytes_:
                return v[:1] + v[1:] if len_(v) > 1 else v
            if kind is int_:
                return v + 0
            if kind is float_:
                return v * 1.0 if v == v else v
            return v

        def copy(v, depth):
            kind = type_(v)
            if kind not in containers or depth > 63:
                return atom(v)
            known = memo.get(identity(v))
            if known is not None and known[0] is v:
                return known[1]
            if kind is list_ or kind is dict_:  # known before its parts are copied: a list may hold itself
                made = kind()
                memo[identity(v)] = (v, made)
                if kind is list_:
                    made.extend([copy(p, depth + 1) if type_(p) in containers else atom(p) for p in v])
                else:
                    made.update([(atom(k) if type_(k) not in containers else copy(k, depth + 1),
                                  copy(x, depth + 1) if type_(x) in containers else atom(x)) for k, x in v.items()])
                return made
            made = kind([copy(p, depth + 1) if type_(p) in containers else atom(p) for p in v])
            memo[identity(v)] = (v, made)
            return made

        return copy(value, 0)

    def token():
        raw = draw(4)
        return "".join(letters[b % 36] for b in raw[:3 + raw[3] % 2])

    def chosen(places):
        """Every place, or PLACES of them drawn (the harness's random source: a candidate cannot know which)."""
        n = len_(places)
        if n <= PLACES:
            return places
        raw = draw(4 * PLACES)
        return [places[i] for i in sorted_({from_bytes(raw[4 * k:4 * k + 4], "little") % n for k in range_(PLACES)})]

    def added(value, kind):
        at_end = draw(1)[0] & 1
        if kind is str_:
            tag = token()
            return value + tag if at_end else tag + value
        if kind is bytes_:
            tag = token().encode("ascii")
            return value + tag if at_end else tag + value
        if kind is list_ or kind is tuple_:
            return value + kind((token(),))
        if kind is dict_:
            out = dict_(value)
            out[token()] = token()
            return out
        if kind is set_ or kind is frozenset_:
            return value | kind((token(),))
        if kind is int_:
            return value + 1 + abs(value)
        if kind is float_:
            moved = value + 1.0 + abs(value)
            return moved if moved != value and value == value else None
        return None

    def key(value):
        """A key that tells two plain values apart as their == does (compared with no one's code), or None."""
        kind = type_(value)
        if kind is str_ or kind is bytes_:
            return (kind is str_, value)
        if kind is int_ or kind is bool_ or (kind is float_ and value == value):
            return (2, value)
        if value is None:
            return (3,)
        if kind is list_ or kind is tuple_:
            parts = tuple_(key(part) for part in value)
            return None if any(part is None for part in parts) else (kind is list_, parts)
        return None

    def words(value):
        """(start, end) of each run of letters or digits of a text."""
        out, start = [], None
        for i in range_(len_(value) + 1):
            word = i < len_(value) and value[i:i + 1].isalnum()
            if word and start is None:
                start = i
            elif not word and start is not None:
                out.append((start, i))
                start = None
        return out

    # each kind of probe: places(value) lists the places it may change (cheap), at(value, place) makes the
    # probe there (or None)
    def left_out_places(value):
        kind = type_(value)
        if kind in texts or kind in sequences:
            return list_(range_(len_(value)))
        if kind is dict_ or kind is set_ or kind is frozenset_:
            return list_(range_(len_(value)))
        return []

    def left_out(value, place):
        """The part at place left out (a dict's or a set's place: the index of a key or an item, as a copy of
        it made the same way iterates)."""
        kind = type_(value)
        if kind is dict_:
            return dict_(kv for i, kv in enumerate_(value.items()) if i != place)
        if kind is set_ or kind is frozenset_:
            return kind(part for i, part in enumerate_(value) if i != place)
        return value[:place] + value[place + 1:]

    def swap_places(value):
        kind = type_(value)
        if kind in texts:
            runs = words(value)
            distinct = len_({value[a:b] for a, b in runs}) > 1
            return [("word", i) for i in range_(len_(runs))] if distinct else list_(range_(len_(value)))
        if kind in sequences:
            return list_(range_(len_(value)))
        return []

    def swap(value, place):
        """The part at place swapped with the next part that differs from it (of a text, its words if two
        differ, else its letters)."""
        kind = type_(value)
        if kind in texts and type_(place) is tuple_:
            runs = words(value)
            a, b = runs[place[1]]
            other = next_((r for r in runs[place[1] + 1:] if value[r[0]:r[1]] != value[a:b]), None)
            if other is None:
                return None
            c, d = other
            return value[:a] + value[c:d] + value[b:c] + value[a:b] + value[d:]
        if kind in texts:
            i = place
            j = next_((j for j in range_(i + 1, len_(value)) if value[j] != value[i]), None)
            return None if j is None else value[:i] + value[j:j + 1] + value[i + 1:j] + value[i:i + 1] + value[j + 1:]
        k = key(value[place])
        if k is None:
            return None
        # (no := : this file runs on the task's Python, 3.7 too)
        j = next_((j for j, kj in ((j, key(value[j])) for j in range_(place + 1, len_(value)))
                   if kj is not None and kj != k), None)
        if j is None:
            return None
        out = list_(value)
        out[place], out[j] = out[j], out[place]
        return kind(out)

    def flips(part):
        """The letter of a text part at a place with its case changed, or None."""
        if type_(part) is str_:
            flipped = part.swapcase()
            return flipped if flipped != part and len_(flipped) == 1 and flipped.swapcase() == part else None
        flipped = part.swapcase()
        return flipped if flipped != part else None

    def recase_places(value):
        kind = type_(value)
        if kind in texts:
            return [i for i in range_(len_(value)) if flips(value[i:i + 1]) is not None]
        if kind in sequences:
            return [(i, p) for i, part in enumerate(value) if type_(part) in texts or type_(part) in sequences
                    for p in recase_places(part)]
        if kind is dict_:
            return ([("key", i, p) for i, k in enumerate_(value) if type_(k) in texts for p in recase_places(k)]
                    + [("value", i, p) for i, v in enumerate_(value.values())
                       if type_(v) in texts or type_(v) in sequences for p in recase_places(v)])
        if kind is set_ or kind is frozenset_:
            return [(i, p) for i, part in enumerate_(value) if type_(part) in texts for p in recase_places(part)]
        return []

    def recased(value, place):
        """One letter's case changed, at place."""
        kind = type_(value)
        if kind in texts:
            return value[:place] + flips(value[place:place + 1]) + value[place + 1:]
        if kind in sequences:
            i, p = place
            return value[:i] + kind((recased(value[i], p),)) + value[i + 1:]
        if kind is dict_:
            side, i, p = place
            k = next_(k for j, k in enumerate_(value) if j == i)
            if side == "key":
                changed = recased(k, p)
                return None if changed in value else dict_((changed if x is k else x, v) for x, v in value.items())
            out = dict_(value)
            out[k] = recased(value[k], p)
            return out
        i, p = place
        part = next_(x for j, x in enumerate_(value) if j == i)
        changed = recased(part, p)
        return None if changed in value else kind(changed if x is part else x for x in value)

    def repeat_places(value):
        kind = type_(value)
        if kind in texts:
            runs = words(value)
            return [("word", i) for i in range_(len_(runs))] if runs else list_(range_(len_(value)))
        if kind in sequences:
            return list_(range_(len_(value)))
        return []

    def repeated(value, place):
        """A part repeated: a word of a text with what follows it up to the next word (a letter of a text with
        no word), an item of a list."""
        if type_(value) in texts and type_(place) is tuple_:
            runs = words(value)
            a = runs[place[1]][0]
            c = runs[place[1] + 1][0] if place[1] + 1 < len_(runs) else len_(value)
            return value[:a] + value[a:c] + value[a:]
        return value[:place] + value[place:place + 1] + value[place:]

    def space_places(value):
        kind = type_(value)
        if kind in texts:
            return list_(range_(len_(value) + 1))
        if kind in sequences:
            return [(i, p) for i, part in enumerate(value) if type_(part) in texts for p in space_places(part)]
        return []

    def spaced(value, place):
        """A space added at place: in a text, or in a list's text part."""
        kind = type_(value)
        if kind is str_:
            return value[:place] + " " + value[place:]
        if kind is bytes_:
            return value[:place] + b" " + value[place:]
        i, p = place
        return value[:i] + kind((spaced(value[i], p),)) + value[i + 1:]

    def join_places(value):
        if type_(value) in sequences:
            return [i for i in range_(len_(value) - 1)
                    if type_(value[i]) in texts and type_(value[i + 1]) is type_(value[i])]
        return []

    def joined(value, i):
        """Two neighbouring text parts of a list made one."""
        return value[:i] + type_(value)((value[i] + value[i + 1],)) + value[i + 2:]

    def at_places(places, at):
        def make(value):
            """The probes of one kind, one by one, each made when asked, of a fresh copy of value (round 9): no
            probe holds an object of the test's value, or of the copy of the value the control asks."""
            copied = fresh(value)
            for place in chosen(places(copied)):
                probe = at(copied, place)
                if probe is not None:
                    yield probe
        return make

    def one_place(value):
        return (0,)

    placed = (("a part added", at_places(one_place, lambda value, _: added(value, type_(value)))),
              ("a part left out", at_places(left_out_places, left_out)),
              ("its parts swapped", at_places(swap_places, swap)),
              ("a letter's case changed", at_places(recase_places, recased)),
              ("a part repeated", at_places(repeat_places, repeated)),
              ("a space added", at_places(space_places, spaced)),
              ("two parts joined", at_places(join_places, joined)))
    # the test's value itself, as the control asks it: a fresh copy, made as each probe is
    the_value = (None, at_places(one_place, lambda value, _: value))

    def other_than(value):
        """None (not a plain value: no probe differs from it), or the test's value and its probes: pairs (what
        changed, or None for the value; a function that makes them, one by one, of value)."""
        kind = type_(value)
        if kind is float_:
            if not (value == value and value + 1.0 + abs(value) != value):
                return None
        elif not (kind in texts or kind in containers or kind is int_):
            return None
        return (the_value,) + placed

    return other_than


def _class_guard(changed, changed_module=None):
    """Record the verdict dunders of every class alive now (before the tree is importable), wrap
    builtins.__build_class__, and return check(final): "" or `class_changed: <class>.<dunder> (why)`.
    The values a class made since may take (judge): None; what a base class holds (inheritance); a
    function its own class statement's body made (or a decorator's wrapper of one, through __wrapped__);
    otherwise a plain function only: of changed code, one that some class body made under that very name
    (a class decorator of the candidate's that adds an __eq__ defined in a class body of its module); of
    any other code, one defined or generated from text under that very name (attrs's __ne__, dataclasses'
    __eq__), or one of functools.total_ordering's under the name it derives (round 12: a frozen module's
    function, "<frozen codecs>", is no code made from text, and _ge_from_lt is no __eq__). So a lambda,
    a builtin (`bool`), a type, a partial or a borrowed function of another name (typing.cast) is refused
    whoever assigns it. Bound here, like the hook: nothing a module holds changes what it judges."""
    import builtins
    import functools
    import itertools
    import operator
    import types
    import weakref

    keys, missing = VERDICT, object()
    type_, tuple_, list_, map_, len_, zip_, all_, any_, range_, str_, dict_ = (
        type, tuple, list, map, len, zip, all, any, range, str, dict)
    # an object's identity as a number, whatever its (meta)class defines, with no audit event (id() has one):
    # object's hash of an object is its address, rotated
    id_ = object.__dict__["__hash__"]
    type_error, key_error, value_error = TypeError, KeyError, ValueError
    flags_of = type.__dict__["__flags__"].__get__
    # types that cannot be changed (those of the interpreter and of extension modules) are not recorded
    fixed = (1 << 8) if sys.version_info >= (3, 10) else 0  # Py_TPFLAGS_IMMUTABLETYPE
    heap = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a type not made by C code (static types never change)
    dict_of, mro_of = type.__dict__["__dict__"].__get__, type.__dict__["__mro__"].__get__
    qualname_of, subclasses = type.__dict__["__qualname__"].__get__, type.__dict__["__subclasses__"]
    function_type, code_type = types.FunctionType, types.CodeType
    code_of, fdict_of = function_type.__dict__["__code__"].__get__, function_type.__dict__["__dict__"].__get__
    method_kinds, property_ = (classmethod, staticmethod), property
    wrapper_type = type_(object.__dict__["__eq__"])  # types.WrapperDescriptorType & co: Python 3.7+ only
    descriptors = (wrapper_type, type_(str.__dict__["join"]), type_(dict.__dict__["fromkeys"]),
                   types.GetSetDescriptorType, types.MemberDescriptorType)
    # Round 12: functools.total_ordering's derived functions, each with the one name total_ordering gives it
    # (_ge_from_lt is `not self < other`: a __ge__, and under __eq__ a ">=" that answers "equal" to values that differ)
    ordering = {f: name for pairs in getattr(functools, "_convert", {}).values() for name, f in pairs}
    # and the one library function documented for another name: collections.abc's "define __hash__ = Set._hash"
    import collections.abc as abcs

    ordering[abcs.Set.__dict__["_hash"]] = "__hash__"
    chain, compress, repeat, ref = itertools.chain.from_iterable, itertools.compress, itertools.repeat, weakref.ref
    is_, is_not, ne, getitem = operator.is_, operator.is_not, operator.ne, operator.getitem
    builtins_space, modules, getattr_ = vars(builtins), sys.modules, getattr
    cell_contents = types.CellType.__dict__["cell_contents"].__get__ if hasattr(types, "CellType") else \
        type((lambda x: lambda: x)(0).__closure__[0]).__dict__["cell_contents"].__get__
    made = []  # (class, body function, verdict dunders as the statement left them), not yet judged
    # the comparison control (round 6): the classes whose statement's body is a changed file's, by path or
    # by the file's identity (a changed file under another name), or made code (the hook says so: round 8, a
    # library file run with the candidate's globals or under a name of the tree)
    stat_, os_error = os.stat, OSError
    changed_ids = set()
    for path in changed:
        try:
            st = stat_(path)
        except (os_error, value_error, type_error):
            continue
        changed_ids.add((st.st_dev, st.st_ino))
    # what a control saw: the first one ends the run at the next record. Round 10: the list is reachable from the
    # functions the control installs (their closures), so each append is also counted where no code can lower
    # the count (an itertools.count, only ever advanced): a finding emptied or rewritten is a change
    tally = itertools.count()

    class Findings(list):
        """What the controls found, each append counted."""

        __slots__ = ()

        def append(self, what, append_=list.append, next_=next, tally_=tally):  # __defaults__ cannot be set
            append_(self, what)
            next_(tally_)

    found = Findings()
    found_append, list_len, list_item = dict_of(Findings)["append"], list.__len__, list.__getitem__
    # An installed library's class (a statement whose body is in the standard library's folder or an installed
    # distribution's, in a file not changed since the run began) that the statement made with no changed frame
    # on the stack (the audit hook tells the maker) may take, after the statement, a function of that same file
    # that a factory made for that very dunder: its closure holds the dunder's name, alone or in a tuple, or the
    # operator module's function of that name (pytz's LazyList: `setattr(LazyList, name, lazy(name))`;
    # whatever's `setattr(Whatever, name, binary(op))` and `unary(operator.__abs__)`), and
    # nothing else but plain values, the standard library's builtins, that file's functions and its classes.
    # Who set it is not known (a class attribute set raises no audit event): the name is what keeps changed
    # code from moving the library's `__ne__` to its `__eq__`.
    started, sep = time.time_ns(), os.sep
    library_dir = os.path.dirname(os.path.abspath(os.__file__)) + sep
    installed = (sep + "site-packages" + sep, sep + "dist-packages" + sep)
    plain = (str, bytes, int, float, bool, type(None), types.GeneratorType)
    builtin_type, module_type, closure_of = types.BuiltinFunctionType, types.ModuleType, \
        function_type.__dict__["__closure__"].__get__
    operator_space = dict(vars(operator))  # the standard function for each operator dunder (operator.__abs__)
    import random

    bits = random.Random(os.urandom(16)).getrandbits  # drawn per run: no candidate knows which call is the control

    def draw(n):
        return bits(8 * n).to_bytes(n, "little")

    def coin():
        return bits(1)

    apart = _apart(draw)  # round 10: each ask in a child of its own (the run's draw)
    other_than, controlled, set_attr = _other_than(draw), _controlled, type.__dict__["__setattr__"]
    controlled_codes = frozenset(c for c in _controlled.__code__.co_consts if getattr(c, "co_name", "") in CONTROLLED)
    changed_classes = {}  # id(class) -> a weak reference to it: the classes a changed file's statement made
    audit, class_event = getattr(sys, "audit", None), CLASS_EVENT
    testing = [False]  # the check running is one of a record the tests' run sends (round 10: strict)

    no = bool  # running(): the import's question, already answered (and remembered) by the hook

    def changed_file(name):
        """Whether name is changed code's file: the hook's notion (_files), so a module written at run time
        is a changed file here too (its class statements behind the control, their dunders judged as
        changed code's). Without it (a direct call), the diff's paths and their identities."""
        if name in changed:
            return True
        if changed_module is not None:
            return changed_module((name,), no)
        try:
            st = stat_(name)
        except (os_error, value_error, type_error):
            return False
        return (st.st_dev, st.st_ino) in changed_ids

    def control(cls, func, made_body=False):
        try:
            if type_(func) is not function_type or not (made_body or changed_file(code_of(func).co_filename)):
                return
            changed_classes[id_(cls)] = ref(cls)
            space = dict_of(cls)
            for key in CONTROLLED:
                value = space.get(key)
                # (code_of here, not in a helper: the hook lets this function read __code__ under changed code)
                if value is not None and not (type_(value) is function_type and code_of(value) in controlled_codes):
                    set_attr(cls, key, controlled(key, value, name_of(cls), other_than, found, coin, apart))
        except Exception:  # noqa: BLE001 - a class the control cannot read keeps its comparison; the guard judges it
            return
        if audit is not None:  # round 10: the hook settles it when its value is final (its decorators ran)
            audit(class_event, [settle])

    def settle(result=None):
        """A changed file's class statement's value is final (stored as it is, or its last decorator returned
        result): judge what the statements made since left, and put the comparison each changed class has behind
        the control now, before the test that made it can compare (round 10). A class the decorator returned
        that no statement made (dataclass(slots=True)'s copy) too."""
        try:
            why = statements(False, True)
            if not why and result is not None and type_ in mro_of(type_(result)) and changeable(result) \
                    and made_from_changed(dict_of(result)):
                changed_classes[id_(result)] = ref(result)
                behind_control(result, False, True)
        except Exception as e:  # noqa: BLE001 - a class the guard cannot read gives no verdict
            why = "the class guard could not read the classes (" + str_(type_(e).__name__) + ")"
        if why and not found:
            found.append(why)

    # Round 9 (issue 51): the control guards the comparison a changed file's class HAS, not only what its statement
    # left: one it inherits (collections.UserList.__eq__ is `self.data == self.__cast(other)`, and the class may
    # define _UserList__cast), one a decorator or anyone gave it after the statement (dataclasses' __eq__, made
    # from text, trusts `other.__class__`, which a property may answer). Each check puts what such a class has
    # behind the control, after its decorators ran (a comparison put in the class's own namespace at the
    # statement would keep dataclasses and attrs from making theirs); object's identity is left as it is (never
    # equal to a plain value), and one already controlled (a changed base's) too.
    def behind_control(cls, strict=False, settling=False):
        """Put what cls has for each comparison behind the control; "" or, when strict (a record of the tests'
        run, round 10), why it was not before: a comparison of Python code it was given since it was settled, or
        that a class no statement made had, could have answered a test's assertion uncontrolled (a C type's own
        slot, list.__eq__, is a plain comparison of the content: wrapped silently, and left out when settling, so
        that a library applied to the class by a later call, `dataclass(C)`, still makes its own)."""
        late = ""
        if not changeable(cls):
            return late
        for key in CONTROLLED:
            value, holder = missing, None
            for holder in mro_of(cls):
                value = dict_of(holder).get(key, missing)
                if value is not missing:
                    break
            if value is missing or value is None or holder is object or (
                    type_(value) is function_type and code_of(value) in controlled_codes):
                continue
            wrapped = library_originals.get(id_(value))
            if wrapped is not None and wrapped[0] is value:
                value = wrapped[1]  # a library comparison's own function (round 10), not its wrapper
            if settling and type_(value) in descriptors:
                continue
            if strict and not late and type_(value) not in descriptors:  # a slot of a C type's: list.__eq__
                late = name_of(cls) + "." + key + " (compared behind no control: given after its class was made, " \
                    "or a class no statement made, during a test)"
            set_attr(cls, key, controlled(key, value, name_of(cls), other_than, found, coin, apart))
        return late

    def changed_class(cls):
        return changed_classes.get(id_(cls), none_ref)() is cls

    files_seen = {}  # a code's file -> whether it is a changed file's (a class no statement made, below)

    # Round 11: the wrappers of the standard library a namespace may hold a function in, opened (their exact types
    # only: a subclass's attribute could run code): methods, properties, functools' partial, partialmethod,
    # singledispatchmethod and cached_property, a partial's arguments, a few levels deep
    partial_type, state_of = functools.partial, object.__getattribute__
    held_in = {functools.partialmethod: ("func", "args")}
    for name in ("cached_property", "singledispatchmethod"):  # Python 3.8+
        if hasattr(functools, name):
            held_in[getattr(functools, name)] = ("func",)
    # round 12: lru_cache's wrapper (a C type, named as the function it wraps, which its __dict__ holds)
    held_in[type_(functools.lru_cache(maxsize=None)(len))] = ("__wrapped__",)
    bound_type = types.MethodType

    def opened(values):
        todo, out = [(v, 0) for v in values], []
        while todo:
            v, depth = todo.pop()
            out.append(v)
            if depth > 4:
                continue
            kind, inner = type_(v), ()
            if kind in method_kinds:
                inner = (v.__func__,)
            elif kind is property_:
                inner = (v.fget, v.fset, v.fdel)
            elif kind is partial_type:
                inner = (v.func,) + tuple_(v.args) + tuple_(v.keywords.values())
            elif kind is bound_type:  # round 12: a bound method (types.MethodType) holds its function and object
                inner = (v.__func__, v.__self__)
            elif kind in held_in:
                state = state_of(v, "__dict__")
                for name in held_in[kind]:
                    item = state.get(name) if type_(state) is dict_ else None
                    inner += tuple_(item) if type_(item) is tuple_ else (item,)
            todo.extend((i, depth + 1) for i in inner if i is not None)
        return out

    def made_from_changed(space):
        """Whether a class no statement made is a changed file's, for the control: its module's file is one, or a
        function of its namespace is (dataclass(slots=True) and attrs' slotted classes are the library's copies,
        made by type(), of a changed file's class; the statement's class is thrown away)."""
        name = space.get("__module__")
        module = modules.get(name) if type_(name) is str_ else None
        file = getattr_(module, "__file__", None) if type_(module) is module_type else None
        if type_(file) is str_ and changed_file(file):
            return True
        for v in opened(space.values()):
            if type_(v) is function_type:
                where = code_of(v).co_filename
                known = files_seen.get(where)
                if known is None:
                    known = files_seen[where] = changed_file(where)
                if known:
                    return True
        return False

    maker = _class_maker(builtins.__build_class__, made, dict_of, keys, tuple_, map_, missing, type_error, control)
    body_codes = {}  # id(code) -> code: every function code a class body run since has made
    bodies = {}  # id(body function) -> a weak reference to it: each class body runs once
    dead = []  # weak references to recorded classes collected since the last check
    watched = {}  # id(weak reference) -> id(class)
    fixed_ids = {}  # id(class) -> a weak reference to it: the types that cannot change, found by the walk
    none_ref, new_locals = (lambda: None), 2  # CO_NEWLOCALS: a function's code, never a class body's
    entries = {}  # id(class) -> [weak reference, its namespace, its verdict dunders, made before the tree]
    # the present dunders' namespaces, keys and values; every namespace, its size, its entry; each pair's entry
    flat = [[], [], [], [], [], [], []]

    def values_of(space):
        return tuple_(map_(space.get, keys, repeat(missing)))

    def changeable(cls):
        flags = flags_of(cls)
        return bool(flags & heap) and not flags & fixed

    def name_of(cls):
        return str_(dict_of(cls).get("__module__", "?")) + "." + str_(qualname_of(cls))

    def walk():
        level, found = [object], []
        while level:
            found.extend(level)
            level = list_(chain(map_(subclasses, level)))
        return found

    def add(entry):
        """A recorded class into the flat lists the fast comparison reads."""
        space, values = entry[1], entry[2]
        spaces, ks, vs, every, sizes, owners, pair_owners = flat
        present = list_(map_(is_not, values, repeat(missing)))
        found = list_(compress(keys, present))
        every.append(space)
        sizes.append(len_(space))
        owners.append(entry)
        spaces.extend(repeat(space, len_(found)))
        ks.extend(found)
        vs.extend(compress(values, present))
        pair_owners.extend(repeat(entry, len_(found)))

    def rebuild():
        flat[:] = [[], [], [], [], [], [], []]
        for entry in entries.values():
            add(entry)

    def c_descriptor(kind):
        """A type implemented in C that binds like a method (its __get__ is a slot, not a Python function)."""
        for t in mro_of(kind):
            get = dict_of(t).get("__get__")
            if get is not None:
                return type_(get) is wrapper_type
        return False

    def mocked(cls, value):
        """Whether cls is one of unittest.mock's per-mock classes (each mock makes its own, and puts its
        MagicProxy or a child mock there for each magic method) and value one of those (or None: any)."""
        for name in ("unittest.mock", "mock"):
            module = modules.get(name)
            space = getattr_(module, "__dict__", None) if module is not None else None
            base = space.get("NonCallableMock") if type_(space) is dict_ else None
            if base is None or type_(base) is not type_ or base not in mro_of(cls):
                continue
            if value is None or base in mro_of(type_(value)):
                return True
            proxy = space.get("MagicProxy")
            if type_(proxy) is type_ and proxy in mro_of(type_(value)):
                return True
        return False

    def library_file(name):
        """Whether name is a file of the standard library or of an installed distribution, not a changed
        one, unchanged since the run began."""
        if type_(name) is not str_ or changed_file(name) or not (
                name.startswith(library_dir) or any_(p in name for p in installed)):
            return False
        try:
            return stat_(name).st_ctime_ns < started
        except (os_error, value_error, type_error):
            return False

    def made_for(cls, key, v, own):
        """Whether the function v of the file own holds key's name in its closure (alone or in a tuple or a
        list, or operator's function of that name) and nothing but plain values, the standard library's builtins, own's functions, the classes
        own's statements made with no changed frame on the stack and their objects."""
        named = False
        for cell in closure_of(v, None) or ():
            try:
                value = cell_contents(cell, None)
            except value_error:  # an empty cell
                continue
            for item in (value if type_(value) in (tuple_, list_) else (value,)):
                kind = type_(item)
                if kind is str_:
                    named = named or item == key
                elif kind in plain:
                    continue
                elif kind is builtin_type:
                    if type_(getattr_(item, "__self__", None)) is not module_type:
                        return False
                    named = named or operator_space.get(key) is item  # whatever's unary(operator.__abs__)
                elif kind is function_type:
                    if code_of(item).co_filename != own:
                        return False
                else:  # a class of that file's statements, or an object of one (pytz's LazySet filled from a LazyList)
                    owner = item if type_ in mro_of(kind) else kind
                    entry = entries.get(id_(owner)) if owner is not cls else None
                    if owner is not cls and (entry is None or entry[0]() is not owner or len_(entry) < 5
                                             or entry[4] != own):
                        return False
        return named

    def judge(cls, key, value, body, first=False, own=None):
        """"" when cls may hold value as key, else why not. body: the code of the class statement's body
        when value is what that statement left; first: a class no statement made, seen for the first time;
        own: the library file of the statement's body, for a class of an installed library made with no
        changed frame on the stack (library_file)."""
        if value is None:
            return ""
        for base in mro_of(cls)[1:]:
            if dict_of(base).get(key, missing) is value:
                return ""  # what it inherits anyway
        v = value
        if type_(v) in method_kinds:
            v = v.__func__
        elif type_(v) is property_:
            v = v.fget
            if v is None:
                return ""
        if type_(v) in descriptors and v.__objclass__ is cls:
            return ""  # the class's own C implementation (a type of an extension module)
        # what a library's or a test's own class statement left (its body, its metaclass, __init_subclass__:
        # pydantic's __hash__, typing's Protocol hook) when not changed code's
        # (round 12: not where a changed file's class made or shaped it: its metaclass, or a base whose
        # __init_subclass__ ran, writes the namespace before the class exists, so what they put there is no body's)
        library = body is not None and not changed_file(body.co_filename) and not any_(
            map_(changed_class, mro_of(type_(cls)) + mro_of(cls)[1:]))
        if type_(v) is not function_type:
            kind = type_(v)
            if (library or first) and c_descriptor(kind) and getattr_(v, "__name__", None) == key and all_(
                    type_(w) is not function_type or not changed_file(code_of(w).co_filename) and (
                        code_of(w).co_name == key or ordering.get(w) == key) for w in opened((v,))):
                # functools.lru_cache, a Cython class's methods (not set.isdisjoint as __eq__); round 12: a wrapper
                # (lru_cache's, a bound method) is judged by the functions it holds, not by the __name__ it was
                # given: no changed file's, each made for that name (not lru_cache(codecs.iterdecode) renamed)
                return ""
            if mocked(cls, v):
                return ""
            return "a " + str_(kind.__name__) + ", not a function"
        code = code_of(v)
        if body is not None:
            w = v
            for _ in range_(8):  # the body's own function, or a decorator's wrapper of one
                if type_(w) is not function_type:
                    break
                inner = code_of(w)
                if any_(map_(is_, body.co_consts, repeat(inner, len_(body.co_consts)))):
                    return ""
                w = fdict_of(w).get("__wrapped__")
            if library and not changed_file(code.co_filename):
                return ""
        where = code.co_filename
        # dataclasses compiles field names into the code it makes: a name that is no identifier is code
        fields = dict_of(cls).get("__dataclass_fields__")
        if where.startswith("<") and type_(fields) is dict_ and not all_(
                type_(k) is str_ and k.isidentifier() for k in fields):
            return "a dataclass field name that is no identifier"
        if not changed_file(where) and mocked(cls, None):
            # a test configuring its mock (mock.__eq__ = f: the mock's own class takes unittest.mock's
            # wrapper of f), unless f is changed code's
            for cell in v.__closure__ or ():
                try:
                    inner = cell_contents(cell, None)
                except value_error:  # an empty cell
                    continue
                if type_(inner) is function_type and changed_file(code_of(inner).co_filename):
                    return "the changed code's " + str_(code_of(inner).co_name) + ", given to a mock"
            return ""
        if changed_file(where):
            # a comparison of changed code stands only behind its control (a class statement's, wrapped when
            # the class is made), never raw in a class no statement made or a decoy's real class. A function a
            # class body made under another name only where a changed class statement left it (jinja's
            # `__eq__ = Undefined._fail_with_undefined_error` in a subclass's body): behind the control too, and
            # it gives the class nothing a `def __eq__` calling that function would not; put there afterwards
            # (a setter), it stays refused.
            if body_codes.get(id_(code)) is code and (code.co_name == key and key not in CONTROLLED
                                                      or body is not None and not library):
                return ""
            return "the changed code's " + str_(code.co_name) + ", not a " + key + " defined in a class body"
        # Round 12: accepted by what it is for, not by where its code comes from. A function of code made from text
        # (dataclasses', attrs', namedtuple's: a file "<string>") was accepted under any name, and so was every
        # function of a frozen module of the standard library ("<frozen codecs>": codecs.iterdecode as __eq__
        # answers a generator, true), and total_ordering's derived functions (_ge_from_lt as __eq__): now each only
        # under the name it was made for (dataclasses' __eq__ is made as __eq__, total_ordering's _ge_from_lt for
        # __ge__)
        if code.co_name == key or ordering.get(v) == key:
            return ""
        if key == "__subclasshook__" and code.co_name == "_proto_hook":
            return ""  # typing's (and typing_extensions') Protocol.__init_subclass__ gives it to each protocol
        if own is not None and where == own and made_for(cls, key, v, own):
            return ""
        return str_(code.co_name) + " of " + str_(where) + ", defined under another name"

    def statements(strict=False, settling=False):
        """Judge what the class statements made since left in their classes, and record them (strict: at a record
        of the tests' run, a changed class's comparison found behind no control gives no verdict)."""
        batch = []
        while made:  # one by one: another thread may be making a class
            batch.append(made.pop())
        batch.reverse()
        for _, func, _, _ in batch:
            for c in code_of(func).co_consts:
                if type_(c) is code_type:
                    body_codes[id_(c)] = c
        for cls, func, values, clean in batch:
            body = code_of(func)
            # the statement's body file (its classes may be in a factory's closure) and, for an installed
            # library's class made with no changed frame on the stack, that file
            own = body.co_filename if clean and library_file(body.co_filename) else None
            if body.co_flags & new_locals or bodies.get(id_(func), none_ref)() is func:
                return name_of(cls) + " (recorded with a body that is no class body's, or again)"
            bodies[id_(func)] = ref(func)
            for k, v in zip_(keys, values):
                if v is not missing:
                    why = judge(cls, k, v, body)
                    if why:
                        return name_of(cls) + "." + k + " (" + why + ")"
            space = dict_of(cls)
            now = values_of(space)
            for k, left, v in zip_(keys, values, now):  # what a class decorator (or anyone) changed since
                if v is not left and v is not missing:
                    why = judge(cls, k, v, None, own=own)
                    if why:
                        return name_of(cls) + "." + k + " (" + why + ")"
            if changed_class(cls):
                why = behind_control(cls, strict, settling)
                if why:
                    return why
                now = values_of(space)
            entries[id_(cls)] = entry = [watch(cls), space, now, False, own]
            add(entry)
        return ""

    def appeared(now):
        """Judge the classes the walk finds that no statement made (type() calls in library code)."""
        alive = dict_(zip_(map_(id_, now), now))
        for i in alive.keys() - entries.keys() - fixed_ids.keys():
            cls = alive[i]
            if not changeable(cls):
                fixed_ids[i] = watch(cls)
                continue
            space = dict_of(cls)
            values = values_of(space)
            for k, v in zip_(keys, values):
                if v is not missing:
                    why = judge(cls, k, v, None, True)
                    if why:
                        return name_of(cls) + "." + k + " (" + why + ")"
            if made_from_changed(space):
                changed_classes[i] = ref(cls)
                why = behind_control(cls, testing[0])
                if why:
                    return why
                values = values_of(space)
            entries[i] = entry = [watch(cls), space, values, False]
            add(entry)
        gone = entries.keys() - alive.keys()
        for i in gone:
            del entries[i]
        if len_(gone) * 2 > len_(entries):
            rebuild()  # the namespaces of classes gone: let them go
        return ""

    def buried():
        """Forget the classes collected since (their weak references told): an address may be reused."""
        while dead:
            gone = dead.pop()
            i = watched.pop(id_(gone), None)
            if i is not None and i in entries and entries[i][0] is gone and gone() is None:
                del entries[i]
            if i is not None and fixed_ids.get(i) is gone:
                del fixed_ids[i]

    def watch(cls):
        r = ref(cls, dead.append)
        watched[id_(r)] = id_(cls)
        return r

    def compare(final):
        """Each recorded class's verdict dunders now: those of a class made before the tree must be as they
        were, any other change is judged. Fast: a pass in C over the present ones and the namespaces' sizes;
        a class's every dunder is looked up when one of them or its size changed, and for every class at the
        final record (a name removed and a dunder added keep the size)."""
        spaces, ks, vs, every, sizes, owners, pair_owners = flat
        try:
            same = all_(map_(is_, map_(getitem, spaces, ks), vs))
        except key_error:
            same = False
        if final or not same:
            suspects = owners
        else:
            suspects = list_(compress(owners, map_(ne, map_(len_, every), sizes)))
        updated = False
        for entry in suspects:
            cls = entry[0]()
            if cls is None:
                continue
            now = values_of(entry[1])
            if all_(map_(is_, now, entry[2])):
                continue
            for k, old, new in zip_(keys, entry[2], now):
                if new is old:
                    continue
                if entry[3]:
                    return name_of(cls) + "." + k + " (a class made before the tree: changed)"
                if new is not missing:
                    why = judge(cls, k, new, None, own=entry[4] if len_(entry) > 4 else None)
                    if why:
                        return name_of(cls) + "." + k + " (" + why + ")"
            if changed_class(cls):
                why = behind_control(cls, testing[0])
                if why:
                    return why
                now = values_of(entry[1])
            entry[2] = now
            updated = True
        if updated:
            rebuild()
        else:
            flat[4] = list_(map_(len_, every))
        return ""

    # Round 10 (issue 51): a library class's comparison that reads names its class defines answers what those names
    # hold (UserList.__eq__ is `self.data == self.__cast(other)`, Mapping.__eq__ calls self.items, Set.__eq__
    # self.__le__). On the class they are watched at each record as a verdict dunder of a class made before the
    # tree is (their values fixed); on an instance whose __dict__ shadows one (functools.update_wrapper copies a
    # __dict__, the copy protocol puts its state there, naming no attribute), the comparison is not the library's:
    # it is asked behind the control.
    library_originals = {}  # id(wrapper) -> (wrapper, the library's function)
    reads = [[], [], [], []]  # the namespaces, names and values watched; the class of each
    get_attribute, attribute_error, frozenset_ = object.__getattribute__, AttributeError, frozenset
    import dis

    instructions = dis.get_instructions
    # Round 11 (issue 51): a library comparison's hooks are its defining class's. The attribute names the comparison
    # reads (its code's, and its nested code's, LOAD_ATTR / LOAD_METHOD), and the two that answer any attribute
    # read, are looked up on the instance's type's MRO at each comparison: each must resolve to what it resolved
    # to, at the start, on a class alive then that inherits the comparison (the library's own subclasses), to a
    # type that cannot change (object's __getattribute__, dict.items), or to nothing. A subclass made since that
    # overrides one (by a statement, ABCMeta(...), type(), any metaclass, with any namespace, a changed file's or
    # not) makes the comparison not the library's: it is asked behind the control.
    # (and __dict__: round 10's look at the instance's own names reads it, so a class giving another __dict__ could
    # hide them; a getset descriptor there is the interpreter's own, a class's dictionary slot)
    lookups, getset_type = ("__getattribute__", "__getattr__", "__dict__"), types.GetSetDescriptorType

    def attribute_reads(code):
        names, todo = set(), [code]
        while todo:
            c = todo.pop()
            for ins in instructions(c):
                if ins.opname in ("LOAD_ATTR", "LOAD_METHOD") and type_(ins.argval) is str_:
                    names.add(ins.argval)
            todo.extend(k for k in c.co_consts if type_(k) is code_type)
        return names

    def hooks_own(kind, hooks, allowed):
        """Whether each of hooks resolves on kind's MRO as it did at the start (allowed: (id(class), name) ->
        (class, value) on the classes alive then that inherit the comparison), on a type that cannot change, or
        nowhere. (No cache: each comparison looks; about 2 µs for UserList's four names on its nine classes.)"""
        pending = list_(hooks)
        for holder in mro_of(kind):
            space = dict_of(holder)
            for name in tuple_(pending):
                if name not in space:
                    continue
                pending.remove(name)
                was = allowed.get((id_(holder), name))
                if was is None:
                    if changeable(holder) and not (name == "__dict__" and type_(space[name]) is getset_type):
                        return False
                elif was[0] is not holder or space[name] is not was[1]:
                    return False
            if not pending:
                break
        return True

    def library_comparison(key, original, names, hooks, allowed, inner):
        def comparison(self, other):
            try:
                own = hooks_own(type_(self), hooks, allowed)
            except Exception:  # noqa: BLE001 - a class the guard cannot read: behind the control
                own = False
            if not own:
                return inner(self, other)
            try:
                space = get_attribute(self, "__dict__")
            except attribute_error:  # slots: nothing to shadow
                space = None
            if type_(space) is dict_ and space and not names.isdisjoint(space):
                return inner(self, other)
            return original(self, other)
        return comparison

    def inheritors(cls):
        """cls and the classes alive now that inherit from it."""
        seen, level = {id_(cls): cls}, [cls]
        while level:
            level = [c for c in chain(map_(subclasses, level)) if id_(c) not in seen]
            for c in level:
                seen[id_(c)] = c
        return list_(seen.values())

    def resolutions(cls, key, hooks):
        """(id(class), name) -> (class, value): where each hook resolves, now, on the classes inheriting cls's
        comparison key (not overriding it). Handed to the wrapper as a read-only view (its closure holds no
        dictionary to add a class to); the classes and values are held, so no id is reused."""
        allowed = {}
        comparison = dict_of(cls)[key]
        for sub in inheritors(cls):
            mro = mro_of(sub)
            if [dict_of(h)[key] for h in mro if key in dict_of(h)][0] is not comparison:
                continue
            for name in hooks:
                for holder in mro:
                    own = dict_of(holder)
                    if name in own:
                        allowed[(id_(holder), name)] = (holder, own[name])
                        break
        return allowed

    for cls in walk():
        if not changeable(cls):
            continue
        space = dict_of(cls)
        for key in CONTROLLED:
            value = space.get(key)
            if type_(value) is not function_type:
                continue
            names, watched_here = set(), []
            for name in code_of(value).co_names:
                if name in CONTROLLED:  # super().__eq__: watched as a verdict dunder, and never read from an instance
                    continue
                for holder in mro_of(cls)[:-1]:  # object's names are no library's choice
                    own = dict_of(holder)
                    if name in own:
                        names.add(name)
                        watched_here.append((own, name, own[name], holder))
                        break
            if not names:
                continue
            for own, name, v, holder in watched_here:
                for part, item in zip_(reads, (own, name, v, holder)):
                    part.append(item)
            inner = controlled(key, value, name_of(cls), other_than, found, coin)
            hooks = (attribute_reads(code_of(value)) | set(lookups)) - set(CONTROLLED)
            wrapper = library_comparison(key, value, frozenset_(names), tuple_(sorted(hooks)),
                                         types.MappingProxyType(resolutions(cls, key, hooks)), inner)
            library_originals[id_(wrapper)] = (wrapper, value)
            set_attr(cls, key, wrapper)

    def reads_changed():
        """"" or the first library class attribute a comparison reads that changed since the start."""
        spaces, names, values, holders = reads
        try:
            if all_(map_(is_, map_(getitem, spaces, names), values)):
                return ""
        except key_error:
            pass
        for own, name, v, holder in zip_(*reads):
            if own.get(name, missing) is not v:
                return name_of(holder) + "." + str_(name) + " (read by a library class's comparison: changed)"
        return ""

    # Round 10: the control's state (the probes' maker, what it found, the coin, the comparison it asks) and the
    # guard's own are cells of closures reachable from what the guard installs (the comparisons on classes, the
    # class maker in builtins): a closure's cells raise no audit event, read or written. Each cell reachable
    # from them, through the functions they hold, is kept with its contents, and any change is a change of the
    # guard (no verdict): at each record, new controls first (the classes of changed files, found again here).
    kept = [[], []]  # the cells, their contents
    # id(a control's function) -> (the function, the cells of it and of the functions it holds, their contents):
    # what a comparison of its class checks (the whole graph is checked at records)
    kept_ids, snapped = set(), {}
    int_, repr_, enumerate_, contents_of = int, repr, enumerate, operator.attrgetter("cell_contents")

    def snap(fn):
        cells = list_(closure_of(fn, None) or ())
        for cell in tuple_(cells):
            v = cell_contents(cell, None)
            if type_(v) is function_type:
                cells.extend(closure_of(v, None) or ())
        snapped[id_(fn)] = (fn, tuple_(cells), tuple_(map_(contents_of, cells)))
        keep(fn)

    def keep(fn):
        todo = [fn]
        while todo:
            for cell in closure_of(todo.pop(), None) or ():
                if id_(cell) in kept_ids:
                    continue
                try:
                    v = cell_contents(cell, None)
                except value_error:  # an empty cell: none of the guard's
                    continue
                kept_ids.add(id_(cell))
                kept[0].append(cell)
                kept[1].append(v)
                if type_(v) is function_type:
                    todo.append(v)

    def kept_changed():
        for r in list_(changed_classes.values()):
            cls = r()
            if cls is None:
                continue
            space = dict_of(cls)
            for key in CONTROLLED:
                v = space.get(key)
                if type_(v) is function_type and id_(v) not in snapped and code_of(v) in controlled_codes:
                    snap(v)
        cells, contents = kept
        if all_(map_(is_, map_(contents_of, cells), contents)):
            return ""
        return "the state of the class guard or of a comparison control was changed"

    last = [walk(), None]
    last[1] = tuple_(last[0])  # the classes made before the tree stay alive: their ids stay theirs
    for cls in last[1]:
        if changeable(cls):
            entries[id_(cls)] = [ref(cls), dict_of(cls), values_of(dict_of(cls)), True]
        else:
            fixed_ids[id_(cls)] = ref(cls)
    rebuild()
    library_globals = _library_globals(last[1], keys, changeable, name_of)
    builtins_space["__build_class__"] = maker

    # Round 10: a class's comparison judged at the comparison, not only at records. A verdict dunder swapped when
    # the result is made and put back at its first call (or when the result dies), or a library comparison's hook
    # replaced and put back, is as recorded at every record; the test's assertion asks operands(left, right)
    # just before it compares them (_judged_assertions), and what a record would find of their classes then
    # (a verdict dunder changed and refused by judge, a class made before the tree changed, a name a library
    # comparison reads changed, the control's own state changed) ends the run at the next record.
    def operands(left, right):
        try:
            why = operands_changed(left, right)
        except Exception:  # noqa: BLE001 - a class the guard cannot read: judged at the record
            why = ""
        if why:
            found.append(why)

    def operands_changed(left, right):
        """What a record would find of the comparison the operands' classes have now: for __eq__ and __ne__, the
        first class of each one's MRO holding it must hold what was recorded there (a class made before the tree:
        the same; another: one judge accepts) and its control's cells be as kept."""
        for kind in (type_(left), type_(right)):
            for index, key in enumerate_(CONTROLLED):
                for cls in mro_of(kind):
                    space = dict_of(cls)
                    if key not in space:
                        continue
                    entry = entries.get(id_(cls))
                    if entry is None or entry[0]() is not cls:
                        break  # a static type, or a class made since the last record (judged there)
                    new = space[key]
                    if new is not entry[2][index]:
                        if entry[3]:
                            return name_of(cls) + "." + key + " (a class made before the tree: changed at a comparison)"
                        why = judge(cls, key, new, None, own=entry[4] if len_(entry) > 4 else None)
                        if why:
                            return name_of(cls) + "." + key + " (" + why + ", at a comparison)"
                    kept_fn = snapped.get(id_(new))
                    if kept_fn is not None and kept_fn[0] is new and not all_(
                            map_(is_, map_(contents_of, kept_fn[1]), kept_fn[2])):
                        return "the state of the comparison control of " + name_of(cls) + " was changed, at a comparison"
                    break
        return reads_changed()

    keep(maker)
    for wrapper, _ in library_originals.values():
        snap(wrapper)

    def check(final=False, tests=False):
        """tests: the record is one the tests' run sends (a test's report, the final one): a class made since
        may have been compared by a test."""
        testing[0] = tests and audit is not None  # (no hook, Python 3.7: nothing settles a class when made)
        try:
            return checked(final)
        except Exception as e:  # noqa: BLE001 - a class the guard cannot read gives no verdict
            return CLASS_CHANGED + ": the class guard could not read the classes (" + str_(type_(e).__name__) + ")"
        finally:
            testing[0] = False

    def checked(final):
        if builtins_space.get("__build_class__") is not maker:
            return CLASS_CHANGED + ": builtins.__build_class__ replaced"
        if list_len(found):
            return CLASS_CHANGED + ": " + list_item(found, 0)
        if int_(repr_(tally)[6:-1]) != list_len(found) or dict_of(Findings).get("append") is not found_append:
            return CLASS_CHANGED + ": what the comparison control found was changed"
        why = library_globals() or reads_changed() or kept_changed()
        if why:
            return CLASS_CHANGED + ": " + why
        buried()
        why = statements(testing[0])
        now = walk()
        if not why and not (len_(now) == len_(last[0]) and all_(map_(is_, now, last[0]))):
            why = appeared(now)
            last[0] = now
        why = why or compare(final)
        if why:
            return CLASS_CHANGED + ": " + why
        return ""

    check.operands = operands  # type: ignore[attr-defined]  # handed to the hook only (codewalk.report_path)
    return check


def _judged_assertions():
    """pytest's assertion rewriter made to raise the audit event OPERANDS_EVENT (left, right) just before each
    `==` / `!=` of an assertion it rewrites compares them (left and right are the names it holds the operands
    in, or constants: asked twice, they are the same objects); the hook hands them to the class guard's
    operands, which no module holds (its state is out of changed code's reach). Done before the report path is
    recorded, so the rewriter is on the report path: putting pytest's back is a changed report path."""
    import ast

    import _pytest.assertion.rewrite as rewrite

    original = getattr(rewrite, "rewrite_asserts", None)
    if original is None or getattr(rewrite, "sys", None) is not sys:
        return
    plain = (ast.Name, ast.Constant)
    # before 3.8 constants had their own nodes (names deprecated since: not read after)
    plain += tuple(getattr(ast, n) for n in ("Num", "Str", "Bytes", "NameConstant") if sys.version_info[1] < 8)
    comparisons = (ast.Eq, ast.NotEq)

    class Asked(ast.NodeTransformer):
        def visit_Assign(self, node):
            value = node.value
            if not (type(value) is ast.Compare and len(value.ops) == 1 and type(value.ops[0]) in comparisons
                    and len(node.targets) == 1 and type(node.targets[0]) is ast.Name
                    and node.targets[0].id.startswith("@py_assert")
                    and type(value.left) in plain and type(value.comparators[0]) in plain):
                return self.generic_visit(node)
            module = ast.Name("@pytest_ar", ast.Load())
            system = ast.Attribute(module, "sys", ast.Load())
            function = ast.Attribute(system, "audit", ast.Load())
            event = ast.Constant(OPERANDS_EVENT)
            call = ast.Call(function, [event, value.left, value.comparators[0]], [])
            ask = ast.Expr(call)
            line = getattr(node, "lineno", None) or 1
            for made in (ask, call, function, system, module, event):  # the operands keep their own
                made.lineno = made.end_lineno = line
                made.col_offset = made.end_col_offset = 0
            return [ask, node]

    def rewrite_asserts(mod, *args, **kwargs):
        original(mod, *args, **kwargs)
        Asked().visit(mod)

    rewrite.rewrite_asserts = rewrite_asserts




def _library_globals(classes, keys, changeable, name_of):
    """Round 10 (issue 51): the globals a library class's verdict dunders read, watched as its dunders are. A class
    alive before the tree keeps its dunders (the class guard), but what they do rests on the names their code
    loads as globals, resolved at each call in their module's globals, then the builtins: `argparse.isinstance =
    operator.is_not` after a plain `import argparse` (no event sees a module attribute set) makes the honest
    Namespace.__eq__ equal to anything. For each Python function among those dunders (and each Python function
    such a global names, one call deep), the value each such name resolves to now is recorded, in its module's
    globals and in the builtins (a name added to the module's globals shadows the builtin); the check says which
    changed, by identity. Only names loaded as globals are read (an attribute's name, `self.filters`, is not a
    global: warnings.filters, which pytest rebinds around each test, is not watched)."""
    import dis
    import itertools
    import operator
    import types

    function_type, code_type, module_type = types.FunctionType, types.CodeType, types.ModuleType
    loads = frozenset(dis.opmap[n] for n in ("LOAD_GLOBAL", "LOAD_NAME") if n in dis.opmap)
    extended, shift = dis.opmap["EXTENDED_ARG"], 1 if sys.version_info >= (3, 11) else 0
    global_op = dis.opmap["LOAD_GLOBAL"]
    caches = [0] * 256
    entries = getattr(__import__("opcode"), "_inline_cache_entries", None)
    for op, count in (entries.items() if isinstance(entries, dict) else enumerate(entries or ())):
        op = dis.opmap.get(op, -1) if isinstance(op, str) else op
        if 0 <= op < 256:
            caches[op] = count
    missing, spaces, names, values, owners = object(), [], [], [], []
    seen_pairs, seen_codes = set(), set()
    builtins_space = vars(__import__("builtins"))

    def global_names(code):
        """The names code and the code nested in it load as globals."""
        found, todo = set(), [code]
        while todo:
            c = todo.pop()
            if id(c) in seen_codes:
                continue
            seen_codes.add(id(c))
            raw, arg, at = c.co_code, 0, 0
            while at < len(raw):
                op = raw[at]
                arg = arg << 8 | raw[at + 1]
                if op == extended:
                    at += 2
                    continue
                if op in loads:
                    i = arg >> shift if op == global_op else arg
                    if i < len(c.co_names):
                        found.add(c.co_names[i])
                arg = 0
                at += 2 + 2 * caches[op]
            todo.extend(k for k in c.co_consts if type(k) is code_type)
        return found

    def watch(function, owner, depth):
        space = function.__globals__
        if type(space) is not dict:
            return
        base = space.get("__builtins__", builtins_space)
        base = vars(base) if type(base) is module_type else base
        for name in global_names(function.__code__):
            for where in (space, base):
                if type(where) is dict and (id(where), name) not in seen_pairs:
                    seen_pairs.add((id(where), name))
                    value = where.get(name, missing)
                    spaces.append(where)
                    names.append(name)
                    values.append(value)
                    owners.append((owner, str(space.get("__name__", "?"))))
                    if depth < 1 and where is space and type(value) is function_type:
                        watch(value, owner, depth + 1)

    for cls in classes:
        if not changeable(cls):
            continue
        space = type.__dict__["__dict__"].__get__(cls)
        for key in keys:
            value = space.get(key)
            if type(value) in (classmethod, staticmethod):
                value = value.__func__
            elif type(value) is property:
                value = value.fget
            if type(value) is function_type:
                watch(value, name_of(cls) + "." + key, 0)
    get, is_, repeat = dict.get, operator.is_, itertools.repeat
    spaces_, names_, values_ = tuple(spaces), tuple(names), tuple(values)
    all_, map_, zip_ = all, map, zip

    def check():
        if all_(map_(is_, map_(get, spaces_, names_, repeat(missing)), values_)):
            return ""
        for where, name, value, (owner, module) in zip_(spaces_, names_, values_, owners):
            if get(where, name, missing) is not value:
                return owner + " reads " + name + ": rebound in " + ("the builtins" if where is builtins_space
                                                                      else module + "'s globals")
        return ""

    return check


# Instance state on the report path (issue 51, round 5): keys pytest itself rebinds while a session runs,
# measured on pytest 9 and on the mined histories (bench/runtime_guard_history.py). The others keep their
# values from the moment they are recorded.
PM_MUTABLE = frozenset(("_configured", "_confcutdir", "_noconftest", "_using_pyargs", "_importconftest"))
SESSION_MUTABLE = frozenset(("testsfailed", "testscollected", "shouldstop", "shouldfail", "exitstatus",
                             "_notfound", "_initial_parts", "_collection_cache", "_bestrelpathcache",
                             "_fixturemanager", "_setupstate", "items", "trace", "_node_cache"))
CONFIG_MUTABLE = frozenset(("_inicache", "_opt2dest", "_cleanup_stack", "_cleanup", "_configured",
                            "_override_ini", "_parser", "invocation_params", "args", "args_source"))
# An item's own state that pytest rebinds as it runs: its fixtures' values and request, captured output,
# user properties.
ITEM_MUTABLE = frozenset(("funcargs", "_request", "_report_sections", "user_properties"))
# A unittest item's test case (`_instance`, made at setup, dropped at teardown: it must be one of the item's
# class's), its bound method, and the failures pytest keeps on it (`_excinfo`: appended as the case fails,
# popped when the report is made; reaching the item from changed code takes a frame, a gc walk or a private
# name of an object the repository does not define, each refused).
UNITTEST_MUTABLE = frozenset(("_obj", "_instance", "_explicit_tearDown", "_cached_errors_and_skips", "_excinfo"))


def _fields(obj):
    """An object's attributes: its __dict__, or its slots' values (pluggy's HookImpl and HookCaller)."""
    space = getattr(obj, "__dict__", None)
    if isinstance(space, dict):
        return dict(space)
    found = {}
    for cls in type(obj).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if name not in found and hasattr(obj, name):
                found[name] = getattr(obj, name)
    return found


def _instances(pm, plugin):
    """A function that says what changed ("" if nothing) in the instances that make and carry a report: the
    plugin manager (its attributes, the plugins it holds, every hook caller of its relay, the executor each
    calls and the implementations it holds, each implementation's attributes), the session and the config
    (their attributes, the session's items), and each collected item's own attributes. Made before the tree
    joins sys.path; the manager's state is recorded at the first record (collection starts) and the items at
    the record the plugin sends when collection ends. A plugin registered after that is allowed only when
    pytest loaded it (a conftest, a module a conftest names in pytest_plugins) or when every hook function
    it has is defined by a module loaded before the tree: one of the tree registered from the tree (its
    functions are the tree's) makes no verdict, whichever hook it implements."""
    modules, vars_, list_, type_, isinstance_, getattr_, len_, str_, id_ = (
        sys.modules, vars, list, type, isinstance, getattr, len, str, id)
    hasattr_, tuple_, dict_, set_, all_, map_, enumerate_ = hasattr, tuple, dict, set, all, map, enumerate
    import itertools
    import operator

    compress, ne = itertools.compress, operator.ne
    is_, get, repeat, any_, chain = operator.is_, dict.get, itertools.repeat, any, itertools.chain
    hookimpls, executor = operator.methodcaller("get_hookimpls"), operator.attrgetter("_hookexec")
    # a hook implementation's attributes (slots on pluggy 1.x; older ones have fewer, in a __dict__)
    impl_class = getattr_(modules.get("pluggy"), "HookImpl", None)
    names = [n for n in ("function", "plugin", "plugin_name", "opts", "hookwrapper", "wrapper", "optionalhook",
                         "tryfirst", "trylast", "argnames", "kwargnames", "specname")
             if n in getattr_(impl_class, "__slots__", ()) or hasattr_(impl_class, n)]
    impl_fields = operator.attrgetter(*(names or ("function", "plugin", "hookwrapper", "tryfirst", "trylast")))
    fields = _fields
    pm_mutable, session_mutable, config_mutable = PM_MUTABLE, SESSION_MUTABLE, CONFIG_MUTABLE
    item_mutable, unittest_mutable = ITEM_MUTABLE, UNITTEST_MUTABLE
    # the globals of every module loaded before the tree: where a trusted hook function is defined
    trusted = {id_(m.__dict__): m.__dict__ for m in list_(modules.values()) if hasattr_(m, "__dict__")}
    module_type = type_(sys)
    hookexec = getattr_(type_(pm), "_hookexec", None)
    if not hasattr_(pm, "_name2plugin") or hookexec is None:
        return lambda: ""  # not pluggy's manager (a unit test's stand-in)
    unittest_item = getattr_(modules.get("_pytest.unittest"), "TestCaseFunction", None)
    # a cached property's value, put in the instance's __dict__ when first read (Item.location)
    import functools

    cached = tuple_(c for c in (getattr_(functools, "cached_property", None),
                                getattr_(modules.get("_pytest.compat"), "cached_property", None)) if c)
    unittest_items = []
    # Round 12c: the function each test item runs is the one pytest's collection found in its module's (or
    # class's) namespace, not one put there since, and no changed file's: a test module's namespace written at
    # collection raises no audit event (pytest reads Function.obj from it when the item is made)
    seen = []  # (collector, name, obj): what pytest_pycollect_makeitem was handed
    function_item = getattr_(modules.get("_pytest.python"), "Function", None)
    function_type, method_type = type_(_fields), type_(pm.register)
    changed_paths = getattr_(plugin, "_changed", frozenset())

    class _Seer:
        """A plugin of the harness's: what collection hands each item maker (a trusted hook function)."""

        @staticmethod
        def pytest_pycollect_makeitem(collector, name, obj):
            seen.append((collector, name, obj))

    _Seer.pytest_pycollect_makeitem.pytest_impl = {  # type: ignore[attr-defined]
        "trylast": False, "tryfirst": True, "hookwrapper": False, "optionalhook": False, "specname": None,
        "wrapper": False}
    if function_item is not None and ITEMS_GUARD:
        pm.register(_Seer(), "codewalk-seer")
    # Round 13: what a test module's body bound to each name, copied when pytest's import of the module returns
    # (before anything reads the module: pytest_plugins, setup_module, the fixture discovery that asks every object
    # of the module for _mock_name and __wrapped__ before the namespace is copied for the item makers), and the
    # namespaces of the classes its body made: a test function rebound after the body ran (to a library function, a
    # partial of one, another test) is not the test file's test, whoever rebinds it
    python_space = vars_(modules["_pytest.python"]) if function_item is not None else {}
    module_collector, class_collector = python_space.get("Module"), python_space.get("Class")
    bodies_left, import_path = getattr_(plugin, "_bodies", None) or ({}, python_space.get("import_path"))
    class_space = type_.__dict__["__dict__"].__get__  # a class's own namespace, whatever its metaclass says
    missing_ = object()

    def bound_by_the_body(parent, name):
        """What the body of parent's module or class bound to name (missing_ when it bound nothing to it), or
        None when the body's namespace was not copied (not a module pytest imported, a class no test module
        made)."""
        obj = vars_(parent).get("_obj")
        kind = type_(parent)
        if obj is None or not (kind is module_collector or kind is class_collector):
            return None
        if kind is module_collector:
            left = bodies_left.get(id_(obj))
            return left[1].get(name, missing_) if left is not None and left[0] is obj else None
        for c in getattr_(obj, "__mro__", ()):
            left = bodies_left.get(id_(c))
            if left is None or left[0] is not c:
                if name in class_space(c):
                    return None  # first bound by a class no test module made: not this check's
                continue
            if name in left[1]:
                return left[1][name]
        return None

    def plain(obj):
        """A function, a method's function or a staticmethod's, read without running a descriptor."""
        if type_(obj) is method_type or type_(obj) is staticmethod or type_(obj) is classmethod:
            return obj.__func__
        return obj

    partial_type, function_dict = functools.partial, function_type.__dict__["__dict__"].__get__

    def functions_in(obj):
        """The functions obj runs as far as it can be opened without running a descriptor: itself, a method's
        function, a partial's function and arguments, and what functools.wraps recorded as __wrapped__ (pytest
        collects a partial or a wrapper of a changed def as well as the def)."""
        todo, out = [(obj, 0)], []
        while todo:
            v, depth = todo.pop()
            kind, inner = type_(v), ()
            if kind is function_type:
                out.append(v)
                inner = (function_dict(v).get("__wrapped__"),)
            elif kind is method_type or kind is staticmethod or kind is classmethod:
                inner = (v.__func__,)
            elif kind is partial_type:
                inner = (v.func,) + tuple_(v.args) + tuple_(v.keywords.values())
            if depth < 4:
                todo.extend((i, depth + 1) for i in inner if i is not None)
        return out

    found, counted = {}, [0]  # (id of collector, name) -> the first object collection handed out for it
    handed = {}  # the same, as handed (not opened)

    def items_run_what_was_collected(items):
        for collector, name, obj in seen[counted[0]:]:  # only what was seen since the last check
            found.setdefault((id_(collector), name), plain(obj))  # the first wins: a later call is no collection's
            handed.setdefault((id_(collector), name), obj)
        counted[0] = len_(seen)
        if python_space.get("import_path") is not import_path:
            return "changed: _pytest.python.import_path"
        for item in items:
            if type_(item) is not function_item:  # unittest's items, a plugin's own: not this check's
                continue
            space = vars_(item)
            got, parent = space.get("_obj"), getattr_(item, "parent", None)  # (pytest 9: no "parent" in __dict__)
            name = space.get("originalname") or space.get("name")
            want = found.get((id_(parent), name), found)
            if got is None or want is found:
                continue
            got = plain(got)
            if got is not want:
                return "changed: item " + str_(getattr_(item, "nodeid", "?")) + " runs another function than collected"
            left = bound_by_the_body(parent, name)
            if left is not None and left is not handed.get((id_(parent), name)):
                return "changed: item " + str_(getattr_(item, "nodeid", "?")) + " runs another function than its " + (
                    "module's" if type_(parent) is module_collector else "class's") + " body bound to its name"
            if any_(f.__code__.co_filename in changed_paths for f in functions_in(got)):
                return "changed: item " + str_(getattr_(item, "nodeid", "?")) + " runs a changed file's function"
        return ""
    state = {}  # "pm": recorded attributes, "plugins": name -> plugin, "callers": name -> caller,
    # "impls": id -> (impl, its attributes), "session"/"config": (object, attributes), "items": [...]

    def home(function):
        """The globals a hook function was defined with, or None."""
        function = getattr_(function, "__func__", function)
        return getattr_(function, "__globals__", None)

    def trusted_function(function):
        g = home(function)
        return g is not None and trusted.get(id_(g)) is g

    def differs(label, recorded, now, mutable):
        for k, v in list_(recorded.items()):
            if k in mutable:
                continue
            if k not in now:
                return "gone: " + label + "." + k
            if now[k] is not v:
                return "changed: " + label + "." + k
        for k in list_(now):
            if k not in recorded and k not in mutable:
                return "added: " + label + "." + k
        return ""

    def allowed_plugins():
        """The plugins pytest loads itself as collection goes: conftests, and the modules they name."""
        conftests = getattr_(pm, "_conftest_plugins", ())
        named = set_()
        for p in list_(pm._name2plugin.values()):
            wanted = getattr_(p, "pytest_plugins", ()) if isinstance_(p, module_type) else ()
            named.update((wanted,) if isinstance_(wanted, str_) else wanted)
        return conftests, named

    def plugin_ok(p):
        """Whether a plugin found registered is one pytest loads itself, or one whose hook functions are all
        defined by modules loaded before the tree (pytest's, installed plugins', the harness's)."""
        conftests, named = allowed_plugins()
        if isinstance_(p, module_type) and (p.__name__ in named or any_(map_(is_, conftests, repeat(p)))):
            return True
        for caller in list_(vars_(pm.hook).values()):
            for impl in caller.get_hookimpls():
                if impl.plugin is p and not trusted_function(impl.function):
                    return False
        return True

    def record():
        state["pm"] = fields(pm)
        state["plugins"] = dict_(pm._name2plugin)
        for name, p in list_(state["plugins"].items()):
            if p is not None and not plugin_ok(p):
                return "plugin registered: " + str_(name)
        state["callers"] = dict_(vars_(pm.hook))
        state["impls"] = {}
        session = pm._name2plugin.get("session")
        state["session"] = (session, fields(session)) if session is not None else None
        return ""

    def record_items():
        """At the end of collection: the session's attributes (none that its class defines rebound since
        collection started), the config's, and each item's own."""
        session, before = state["session"] or (pm._name2plugin.get("session"), {})
        now = fields(session)
        for k, v in list_(now.items()):
            if k not in session_mutable and before.get(k, now) is not v and hasattr_(type_(session), k):
                return "changed: session." + k
        state["session"] = (session, now)
        state["config"] = (session.config, fields(session.config))
        items = getattr_(session, "items", [])
        kept = []
        flat = ([], [], [])
        for item in list_(items):
            space = vars_(item)
            mutable = item_mutable | unittest_mutable if unittest_item is not None and isinstance_(
                item, unittest_item) else item_mutable
            kept.append((item, type_(item), space, dict_(space), mutable))
            for k, v in list_(space.items()):
                if k not in mutable:
                    flat[0].append(space)
                    flat[1].append(k)
                    flat[2].append(v)
        unittest_items.extend(entry[0] for entry in kept if entry[4] is not item_mutable)
        why = items_run_what_was_collected(items)
        if why:
            return why
        state["items"] = (items, tuple_(kept), tuple_(entry[2] for entry in kept),
                          tuple_(entry[1] for entry in kept), [len_(entry[2]) for entry in kept]) + tuple_(tuple_(f) for f in flat)
        return ""

    def check_pm():
        why = differs("pluginmanager", state["pm"], fields(pm), pm_mutable)
        if why:
            return why
        recorded, now = state["plugins"], pm._name2plugin
        for name, p in list_(recorded.items()):
            if now.get(name, recorded) is not p:
                return "plugin removed or replaced: " + str_(name)
        for name, p in list_(now.items()):
            if name not in recorded:
                if p is not None and not plugin_ok(p):
                    return "plugin registered: " + str_(name)
                recorded[name] = p
        callers, relay = state["callers"], vars_(pm.hook)
        for name, caller in list_(callers.items()):
            if relay.get(name) is not caller:
                return "hook caller replaced: " + name
        impls = state["impls"]
        for name, caller in list_(relay.items()):
            callers[name] = caller
            if type_(caller).__name__ not in ("HookCaller", "_HookCaller"):
                return "hook caller replaced: " + name
            run = getattr_(caller, "_hookexec", None)
            if getattr_(run, "__func__", None) is not hookexec or getattr_(run, "__self__", None) is not pm:
                return "hook caller's executor: " + name
            for impl in caller.get_hookimpls():
                known = impls.get(id_(impl))
                if known is None or known[0] is not impl:
                    impls[id_(impl)] = (impl, fields(impl))
                    continue
                why = differs("hookimpl " + name, known[1], fields(impl), ())
                if why:
                    return why
        return ""

    def check_items():
        session, recorded = state["session"]
        why = differs("session", recorded, fields(session), session_mutable)
        if why:
            return why
        config, recorded = state["config"]
        why = differs("config", recorded, fields(config), config_mutable)
        if why:
            return why
        items, kept, spaces, classes, sizes, flat_spaces, flat_keys, flat_values = state["items"]
        if getattr_(session, "items", None) is not items or len_(items) != len_(kept) or not all_(
                map_(is_, items, (entry[0] for entry in kept))):
            return "changed: session.items"
        # one pass in C over every item's own attributes; an item whose __dict__ changed size is looked at
        for item in unittest_items:  # a unittest item's test case, made at setup: one of its class's
            case = vars_(item).get("_instance")
            if case is not None and type_(case) is not vars_(item.parent).get("_obj"):
                return "changed: item " + str_(item.nodeid) + "._instance"
        if not all_(map_(is_, map_(vars_, items), spaces)) or not all_(map_(is_, map_(type_, items), classes)):
            return "changed: an item's class or __dict__"
        resized = compress(range(len_(kept)), map_(ne, map_(len_, spaces), sizes))
        if all_(map_(is_, map_(get, flat_spaces, flat_keys, repeat(kept)), flat_values)):
            todo = [kept[n] + (n,) for n in resized]
        else:
            todo = [entry + (n,) for n, entry in enumerate_(kept)]
        for item, cls, space, values, mutable, n in todo:
            label = "item " + str_(getattr_(item, "nodeid", n)) + "."
            if type_(item) is not cls or vars_(item) is not space:
                return "changed: " + label + "__dict__"
            for k, v in list_(values.items()):
                if k not in mutable and space.get(k, values) is not v:
                    return "changed: " + label + k
            for k in list_(space):
                if k not in values and k not in mutable and hasattr_(cls, k) and \
                        type_(getattr_(cls, k)) not in cached:
                    return "added: " + label + k  # an instance attribute over the class's: runtest, setup...
            sizes[n] = len_(space)
        return items_run_what_was_collected([entry[0] for entry in todo]) if todo else ""

    def signature():
        """Everything check_pm compares, flat, read in C: equal by identity to the last one checked, nothing
        changed since (the cost of a record with nothing changed)."""
        space, plugins, relay = vars_(pm), pm._name2plugin, vars_(pm.hook)
        callers = tuple_(relay.values())
        impls = tuple_(chain(*map_(hookimpls, callers)))
        return tuple_(chain(space, space.values(), plugins, plugins.values(), relay, callers,
                            map_(executor, callers), impls, chain(*map_(impl_fields, impls))))

    def check():
        if "pm" not in state:
            return record()
        now = signature()
        last = state.get("signature", ())
        if len_(now) != len_(last) or not all_(map_(is_, now, last)):
            why = check_pm()
            if why:
                return why
            state["signature"] = now
        if "items" not in state:
            if not getattr_(plugin, "_collected", False):
                return ""
            why = record_items()
            if why:
                return why
        return check_items()

    return check

if __name__ == "__main__":
    main()
