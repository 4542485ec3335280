"""codewalk's test runner: pytest started under the harness's guard, the tree importable only once pytest is.

Run by the harness (run.py) as `python -s boot.py PYTEST-ARGS` in place of `pytest`, with no PYTHONPATH
(its entries are in CODEWALK_GUARD) and no user site. In this order:
1. It takes what the harness passed (environment variables, removed at once; the channel's key from a pipe,
   read once and closed) and, on Python 3.8 and later, installs a PEP 578 audit hook. A hook cannot be
   removed from Python code. While a frame of a changed module (CODEWALK_GUARD["changed"]) is on the stack,
   the hook denies getting a frame, code from text, first imports of standard-library modules outside a
   short allow-list, ctypes, gc walks, tracing, fcntl, and opening or listing /proc and /dev/fd. A denied
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
WATCHED = FRAMES | CODE | ALWAYS | PATHS | THREADS | {"import", "codewalk.send", "codewalk.report_path"}
HIDDEN = ("/proc", "/dev/fd", "/dev/std")


def main():
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
    if audit:
        _install(send, frozenset(changed), _tops(config["path"]), _files(here, config))
        send = None  # from here on only the hook sends
    import pytest  # noqa: E402 - the tree is not on sys.path yet

    plugin = _Plugin(send, config["path"], audit)
    del send, config
    sys.exit(pytest.main(sys.argv[1:], plugins=[plugin]))


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


def _files(here, config):
    """Which files are changed code and which are the tests' sources, by file identity (issue 51, round 5):
    (changed_module, guarded, protect, forget), bound here like the hook.
    - changed_module(paths, running): a module run from one of paths (its code's co_filename, its __file__)
      is changed code when the file is one the candidate changed, under any name (st_dev, st_ino: a
      `tally/.` or `../tally` entry of a package's __path__ gives another string for the same file), or
      when it was written during the run (its ctime is after the runner started: no process can set a
      ctime) and lies under the tree, or anywhere when changed code imports it (running() says so).
    - guarded(path): whether path is a test file the harness runs (the protected files, renamed copies
      among them, and each module pytest's assertion rewriter loads), the folder holding one, or one's
      compiled copy in __pycache__: changed code may not open it. Names (listdir) may still be read.
    - forget(): drops the test files from linecache, where pytest leaves the source of a failing test."""
    import linecache

    stat, realpath, join, dirname, basename, time_ns = (
        os.stat, os.path.realpath, os.path.join, os.path.dirname, os.path.basename, time.time_ns)
    str_, isinstance_, tuple_, frozenset_ = str, isinstance, tuple, frozenset
    oserror, valueerror, typeerror = OSError, ValueError, TypeError
    start = time_ns()
    roots = tuple_(frozenset_(realpath(p) + os.sep for p in [here] + list(config["path"])))
    changed = set()
    tests, folders, compiled, names = set(), set(), set(), set()  # identities; (folder, stem); path strings
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

    for path in config.get("protected", ()):
        protect(join(here, path))

    def changed_module(paths, running):
        for path in paths:
            st = ident(path) if isinstance_(path, str_) else None
            if st is None:
                continue
            if (st.st_dev, st.st_ino) in changed:
                return True
            if changed and st.st_ctime_ns >= start and (realpath(path).startswith(roots) or running()):
                return True
        return False

    def guarded(path):
        st = ident(path)
        if st is None:
            return False
        if (st.st_dev, st.st_ino) in tests or (st.st_dev, st.st_ino) in folders:
            return True
        if "__pycache__" in path:
            real = realpath(path)
            folder = dirname(real)
            if basename(folder) == "__pycache__" and (dirname(folder), basename(real).split(".", 1)[0]) in compiled:
                return True
        return False

    def forget():
        for name in tuple_(names):
            cache.pop(name, None)

    return changed_module, guarded, protect, forget


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


def _install(send, changed, tree_tops, files=None):
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
    import logging
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
    import_name, new_locals = dis.opmap["IMPORT_NAME"], inspect.CO_NEWLOCALS
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
    # Who may send a record: the plugin's own methods, called by pluggy, called by a module loaded before
    # the tree (pytest's runner, an installed plugin), on the main thread, before the final record.
    sender_code = next(c for c in _audited.__code__.co_consts if getattr(c, "co_name", "") == "send")
    plugin_codes = frozenset(f.__code__ for f in vars(_Plugin).values() if hasattr(f, "__code__"))

    hookers = tuple(m.__dict__ for n, m in list(sys.modules.items()) if n.split(".")[0] == "pluggy" and m)
    import _pytest.assertion.rewrite

    rewriter = _pytest.assertion.rewrite.__dict__  # it loads test modules and those registered for rewriting
    trusted = []  # the globals of every module loaded before the tree joined sys.path
    main_thread = get_ident()
    ended = []
    tracked = []  # the globals of each changed module: how a frame of changed code is known
    # (compared by identity: id() raises an audit event of its own)
    busy = set()
    checker = []

    def deny(event, what):
        send({"denied": event, "what": str_(what)[:200]})
        exit_(denied)

    def changed_below(start):
        """The frames from start down to the first frame of changed code (not included), or None."""
        between = []
        f = start
        while f is not None:
            g = f.f_globals
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

    def imported_by_statement(frames):
        """Whether frames (from the library's outwards to the changed one) are the import system's work for
        an import statement: its own frames and the bodies of the modules (and of their classes) it runs,
        out to the changed frame or to code at an import statement, whoever called that (the statement
        names its module), or to the codec registry importing encodings.<name>. importlib.import_module,
        which imports by name, is none of these."""
        for f in frames:
            if among(f.f_globals, importing):
                continue
            if f.f_code is codec_search:
                return True
            body = f
            while body is not None and not body.f_code.co_flags & new_locals:  # a module's or a class's body
                if body.f_code.co_name == "<module>":
                    break
                body = body.f_back
            if body is not None and body.f_code.co_name == "<module>" and not body.f_code.co_flags & new_locals \
                    and body.f_back is not None and among(body.f_back.f_globals, importing):
                continue
            code_, at = f.f_code.co_code, f.f_lasti
            return 0 <= at < len_(code_) and code_[at] == import_name
        return True

    def library(between, path, entry, rest):
        """From the event outwards: frames of path up to one that entry accepts, then frames rest accepts."""
        n = 0
        while n < len_(between) and among(between[n].f_globals, path):
            n += 1
        return n > 0 and entry(between[n - 1]) and rest(between[n:])

    def frame_entry(f):
        return among(f.f_globals, frame_entries) and f.f_code not in hands_out

    def anywhere(_):
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
        if files[0]((code_.co_filename, where), lambda: caller is not None and changed_below(caller) is not None):
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
            why = checker[0]()
            if why:
                send({"guard": "report_path_changed", "what": why})
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
        if event == "codewalk.report_path":
            if checker:
                deny(event, "a second report path")
            checker.append(args[0])
            trusted.extend(m.__dict__ for m in list(sys.modules.values()) if hasattr_(m, "__dict__"))
            return
        if event in threads:
            thread_event(event, args)
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
            while importer is not None and among(importer.f_globals, importing):
                importer = importer.f_back
            if importer is not None and among(importer.f_globals, tracked):
                deny(event, name)
            if (importer is None or importer.f_code is marking_code) and get_ident() in marked:
                deny(event, name)  # a thread changed code started with an importer as its target
            return
        if event in paths:
            path = args[0] if args else None
            if not isinstance_(path, (str_, bytes_)):
                return
            path = abspath(fsdecode(path))
            if path.startswith(hidden) and changed_below(start) is not None:
                deny(event, path)
            if event == "open" and test_source(path) and changed_below(start) is not None:
                deny(event, path)
            return

        between = changed_below(start)
        if between is None:
            return
        if event in frames and library(between, frame_path, frame_entry, anywhere):
            return
        if event == "object.__getattr__" and between and describer_out(between):
            return
        if event in code and between and among(between[0].f_globals, code_makers) and \
                library(between, code_path, anywhere, imported_by_statement):
            return
        if event == "compile" and (parses(between) or (between and between[0].f_code is forward_ref and
                                                       library(between, typing_space, anywhere, imported_by_statement))):
            return
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

    def __init__(self, send, paths, audit):
        self._paths = paths
        self._audit = audit
        if audit:
            self._send = _audited(sys.audit)
        else:  # Python 3.7 and older: the check runs here, before each record
            self._send = _checked(send, self)
        self._check = None

    def pytest_load_initial_conftests(self, early_config):
        """Before the first conftest (and so before any module of the tree): record the report path, then let
        the tree join sys.path. pytest's own implementation, which loads the conftests, runs last."""
        check = _checker(early_config.pluginmanager, self)
        if self._audit:
            sys.audit("codewalk.report_path", check)
        else:
            self._check = check
        for entry in reversed(self._paths):
            sys.path.insert(0, entry)
        os.environ["PYTHONPATH"] = os.pathsep.join(self._paths)

    def pytest_collection(self, session):
        self._send({"collection": True})  # the report path's hook implementations are recorded now

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
                    "audit": self._audit})


def _audited(audit):
    def send(record):
        audit("codewalk.send", record)
    return send


def _checked(send, plugin):
    exit_ = os._exit

    def checked(record):
        why = plugin._check() if plugin._check else ""
        if why:
            send({"guard": "report_path_changed", "what": why})
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
                     "_pytest.assertion.util._config", "plugin._check", "_pytest.debugging.pytestPDB")
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
        return ""

    return check


if __name__ == "__main__":
    main()
