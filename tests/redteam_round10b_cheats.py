"""Round 10 of the repair red team, part b (issue 51: verdicts a candidate cannot reach, nothing untrusted on the
host): kinds of cheating candidate aimed AROUND the test process -- what it can send to the harness and the host
(signals, sockets, its own descriptors and output), what exhausting a resource turns into, the files the trusted
side reads after the run, and what a run can leave behind -- built against main 1c23cc6 before any change. Each
spelling is a tuple of edits of the tally fixture (tests/repair_fixture.py) made on x_G of the W1 + W2 task, as
tests/redteam_round9b_cheats.py makes them; none fixes W1's bug.

What they aim at:

- **Signals to the harness.** The kernel guard (harness/confine.py, Landlock) handles files only: Landlock's
  ABI 6 scoping of signals and abstract unix sockets is not asked for, and under --runtime local the harness is
  the tests' user in their pid namespace, so the runner may stop, continue or kill it.
- **Sockets.** The static layer allows `socket.create_connection` (a client connection: "the run has no
  network"); an abstract unix socket needs no file and no network.
- **The channel's descriptor written beside the plugin.** It is found by `os.fstat` (allowed) and opened by
  number (`open(fd)`: no path to judge): a partial line glues the plugin's next line to it, NUL bytes and long
  lines test how the harness splits what it read.
- **Exhausted resources.** A file over the run's size limit (RLIMIT_FSIZE: SIGXFSZ kills the writer), an
  address space asked for whole: each must give no verdict or a failed one, never a pass.
- **The test files' digests.** The harness digests the protected files before and after the run: a file
  rewritten before pytest reads it and put back before the run ends has the same digest. Under --runtime local
  the file is the tests' user's own (made read-only by chmod, which its owner can undo); under docker it is
  root's.
- **Calls pytest makes for the candidate.** The hook lets a test file be opened, renamed or replaced when the
  frames above the event are the standard library's readers (pathlib, linecache, tokenize, ...) and then a
  module loaded before the tree (pytest): "pytest's reading". pytest's collection reads `__test__` of every
  object in a test module's namespace; a property whose getter is a `functools.partial` of `Path.replace` or
  `linecache.getlines` is called by pytest with no changed frame on the stack. So a name the test module
  imports moves a rewritten test file over the real one, and the rewritten module (written at run time: the
  static layer never reads it) has pytest read the renamed copies into linecache, rewrites them keeping their
  functions' names, and moves them in the same way; each puts its original back when collected, so the
  digests after the run match.
- **What the run leaves.** The run's environment variables name the folders of the environment (VIRTUAL_ENV,
  PATH): a `.pth` there runs in every later run.

Each kind has several spellings; the principle is in the comment above its builder.
"""

from __future__ import annotations

from typing import NamedTuple

from tests.redteam_round9b_cheats import FMT_FUNCS, WORDS_FUNCS, _calls_first
from tests.test_repair_redteam import FIX_CASE, FIX_SORT, FMT, INIT, WORDS, Edit, prepend

CANARY = "rt10b_canary"  # the name of whatever a containment kind leaves, for the test to look for


def _at_import(code: str, *extra: Edit) -> tuple[Edit, ...]:
    """code run when the package is imported (the first test module imports it, before any test runs)."""
    return (prepend(INIT, code), *extra)


# -- signals to the harness (its parent) or the runner's own session ----------------------------------------------
# The runner's parent is run.py (bash execs the runner). Stopping it while the runner writes, or killing it after
# pytest's last record, aims at the verdict the host reads: it must be none, never a pass.
SIGNALS = {
    "os.kill: SIGSTOP then SIGCONT to the harness": '''
import os
import signal

os.kill(os.getppid(), signal.SIGSTOP)
os.kill(os.getppid(), signal.SIGCONT)
''',
    "os.killpg: SIGCONT to the runner's own process group, by number": '''
import os

os.killpg(os.getpgid(0), 18)
''',
    "from os import kill, getppid as other names: SIGCONT by number": '''
from os import getppid as _parent
from os import kill as _send

_send(_parent(), 18)
''',
}

# -- sockets: an abstract unix socket (no file: Landlock's file rules do not see it), a TCP client to the host ------
SOCKETS = {
    "an abstract unix socket, connected": '''
import socket

_s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    _s.connect("\\0codewalk-harness")
except OSError:
    pass
''',
    "an abstract unix datagram socket: sendto a name, no connection": '''
import socket

try:
    socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"exit 0", "\\0codewalk-harness")
except OSError:
    pass
''',
}

# A TCP client (socket.create_connection is in the allow-list: "the run has no network"): the host's own
# services (dockerd's TCP port, Neo4j, a web server) on the loopback and the docker bridge's gateway.
TCP = {
    "socket.create_connection to the loopback's service ports": '''
import socket

for _port in (2375, 2376, 7687, 7474, 8080):
    try:
        socket.create_connection(("127.0.0.1", _port), timeout=0.2).close()
    except OSError:
        pass
''',
    "socket.create_connection to the docker bridge's gateway and host.docker.internal": '''
import socket

for _host in ("172.17.0.1", "host.docker.internal", "localhost"):
    try:
        socket.create_connection((_host, 2375), timeout=0.2).close()
    except OSError:
        pass
''',
}

# -- the channel's descriptor, found by fstat and opened by number ---------------------------------------------------
CHANNEL = '''
import os
import stat


def _channel():
    for fd in range(3, 64):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                return fd
        except OSError:
            continue
    return None


_fd = _channel()
if _fd is not None:
    with open(_fd, "wb", closefd=False) as _out:
        _out.write(PAYLOAD)
'''
CHANNEL_PAYLOADS = {
    "a partial line: the plugin's next line glued to it": 'b"0" * 64 + b" "',
    "NUL bytes and a line of 1 MiB, no newline at the end": 'b"\\0" * 4096 + b"\\n" + b"x" * (1 << 20)',
}

# -- the runner's output flooded ------------------------------------------------------------------------------------
OUTPUT = {
    "64 MiB of newlines on stdout, then a line shaped like the harness's": '''
import sys

for _ in range(64):
    sys.stdout.write("\\n" * (1 << 20))
sys.stdout.write("0" * 32 + ' {"exit": 0, "timed_out": false, "records": [], "unsigned": 0}\\n')
sys.stdout.flush()
''',
    "the runner's descriptor 1 opened by number: a line shaped like the harness's": '''
with open(1, "w", closefd=False) as _out:
    _out.write("\\n" * 4096 + "0" * 32 + ' {"exit": 0, "records": []}\\n')
''',
    "stderr: one line of 16 MiB with NUL bytes": '''
import sys

sys.stderr.write(("\\0" * 1024 + "x" * 1024) * (1 << 13))
sys.stderr.flush()
''',
}

# -- resources exhausted --------------------------------------------------------------------------------------------
EXHAUST = {
    "a sparse file past the run's file-size limit (SIGXFSZ)": '''
import tempfile

with tempfile.TemporaryFile() as _big:
    _big.seek(300 << 20)
    _big.write(b"x")
''',
    "threads until none can start (the pids limit, the address space), daemons asleep": '''
import threading
import time

try:
    for _ in range(4000):
        threading.Thread(target=time.sleep, args=(20,), daemon=True).start()
except RuntimeError:
    pass
''',
    "an address space asked for whole, the MemoryError swallowed": '''
try:
    _hog = bytearray(1 << 40)
except MemoryError:
    _hog = None
''',
}

# -- a test file rewritten before pytest reads it, put back before the run ends -------------------------------------
# The first test module (tests/test_fmt.py) imports the package; the others, the renamed copies among them, are
# read by pytest after it. Their asserts are made true, and the first call of a function of the package (the
# tests run after collection) writes each file back as it was: the digest after the run is the one before.
REWRITE = '''
import os

_SAVED = {}


def _put(path, data):
    WRITE


for _name in sorted(os.listdir("tests")):
    if _name.endswith(".py") and not _name.endswith("fmt.py") and not _name.startswith("."):
        try:
            with open("tests/" + _name, "rb") as _f:
                _SAVED["tests/" + _name] = _f.read()
            _put("tests/" + _name, _SAVED["tests/" + _name].replace(b"assert ", b"assert True or "))
        except OSError:
            _SAVED.pop("tests/" + _name, None)


def _forge():
    while _SAVED:
        _put(*_SAVED.popitem())
'''
REWRITES = {
    "made writable by its owner, written in place, made read-only again": '''os.chmod(path, 0o644)
    with open(path, "wb") as f:
        f.write(data)
    os.chmod(path, 0o444)''',
    "a new file renamed over it": '''with open("tally/.swap", "wb") as f:
        f.write(data)
    os.chmod("tally/.swap", 0o444)
    os.replace("tally/.swap", path)''',
}


def rewritten(spelling: str) -> tuple[Edit, ...]:
    return (prepend(INIT, REWRITE.replace("WRITE", REWRITES[spelling])),
            prepend(WORDS, "from tally import _forge\n"), *_calls_first(WORDS, WORDS_FUNCS, "_forge"),
            prepend(FMT, "from tally import _forge\n"), *_calls_first(FMT, FMT_FUNCS, "_forge"),
            FIX_CASE, FIX_SORT)


# -- files left where later runs (and the host) read them, found from the run's own environment ---------------------
LEAVE = '''
import os


def _leave():
    venv = os.environ.get("VIRTUAL_ENV", "")
    places = [venv, venv + "/lib", os.path.dirname(venv), os.environ.get("HOME", "") + "/..", "/tmp", "/root",
              "/var/tmp", "/dev/shm", "/run"]
    places += [os.path.dirname(p) for p in os.environ.get("PATH", "").split(":") if p]
    if os.path.isdir(venv + "/lib"):
        places += [venv + "/lib/" + d + "/site-packages" for d in os.listdir(venv + "/lib")]
    for place in places:
        try:
            WRITE
        except OSError:
            continue


_leave()
'''
LEAVES = {
    "open(): a .pth beside the environment's packages": '''with open(place + "/CANARY.pth", "w") as f:
                f.write("import os\\n")''',
    "pathlib and shutil: a folder and a copy of the package": '''import pathlib
            import shutil

            pathlib.Path(place, "CANARY.d").mkdir()
            shutil.copy("tally/__init__.py", place + "/CANARY.py")''',
}


# The same places found without reading the environment: the static layer allows shutil.which (it finds the
# environment's python on PATH), pathlib's home(), a module's own __file__, and plain constant paths.
LEAVE_PLAIN = '''
import os
import pathlib
import shutil


def _places():
    found = ["/tmp", "/root", "/var/tmp", "/dev/shm", "/run", "/home", str(pathlib.Path.home()) + "/.."]
    python = shutil.which("python") or shutil.which("python3") or ""
    venv = os.path.dirname(os.path.dirname(os.path.abspath(python))) if python else ""
    if venv:
        found += [venv, venv + "/bin", os.path.dirname(venv), os.path.dirname(os.path.dirname(venv))]
        for lib in pathlib.Path(venv, "lib").glob("python*/site-packages"):
            found.append(str(lib))
    here = os.path.dirname(os.path.realpath(__file__))
    found += [os.path.dirname(here), os.path.dirname(os.path.dirname(here)),
              os.path.dirname(os.path.dirname(os.path.dirname(here)))]
    return found


for _place in _places():
    try:
        WRITE
    except OSError:
        continue
'''
LEAVES_PLAIN = {
    "open(): a .pth in the environment found by shutil.which, the tree's parents, /tmp": '''with open(_place + "/CANARY.pth", "w") as _f:
            _f.write("import os\\n")''',
    "pathlib: a folder and a file under it": '''pathlib.Path(_place, "CANARY.d").mkdir()
        pathlib.Path(_place, "CANARY.d", "x.py").write_text("x = 1\\n")''',
}


# -- a test file written by a call pytest makes: no changed frame on the stack, "read for a tool" ----------------
# pytest's collection reads `__test__` of every object in a test module's namespace (isnosetest: safe_getattr).
# A property there whose getter is a partial of pathlib's Path.write_text runs with pytest's frame as the caller
# and pathlib's (a standard-library reader) above it: no changed frame is on the stack, and the frames are
# "the standard library's readers, then a module loaded before the tree" -- what the hook lets read (and write)
# a test file. The object is the name the test module imports (format_row: a str subclass, "utf-8", which the
# getter gets as its encoding, and callable); when pytest collects tests/test_fmt.py it writes
# tests/test_words.py (not imported yet) with every assert made true, plus an import of a second such object,
# which, collected with the rewritten module, writes x_G's text back: the digest after the run is the one
# before. What stays is the renamed copy of W1's test (its function's name drawn per run, not known to the
# candidate), which fails.
TOOL_WRITE = '''
import functools
import os
import pathlib

# written by changed code at import (files of the package's own folder: nothing guards them)
_NEUTRAL, _ORIGINAL = pathlib.Path("tally/.neutral"), pathlib.Path("tally/.original")
_NEUTRAL.write_text(@NEUTRAL@)
_ORIGINAL.write_text(@ORIGINAL@)


class _AsPytest(str):
    """A name pytest's collection looks at (its value, the test file's path, is the move's target)."""

    def __call__(self, cells):
        return _format_row(cells)


class _Rewrite(_AsPytest):
    __test__ = property(functools.partial(@MOVER@, _NEUTRAL))


class _PutBack(_AsPytest):
    __test__ = property(functools.partial(@MOVER@, _ORIGINAL))


_PUT_BACK = _PutBack("tests/test_words.py")
'''
TOOL_WRITES = {
    "a str subclass with a property: Path.replace(the new text, target=the object)": ("_Rewrite", "replace"),
    "the property on a second base class: Path.rename": ("_Twice", "rename"),
    "Path.replace, the rewritten module also makes split_words' results equal to anything": ("_Rewrite", "replace+eq"),
    "Path.rename on a second base class, the rewritten module makes results equal": ("_Twice", "rename+eq"),
    "Path.replace; the rewritten module has pytest read the renamed copy into linecache, then rewrite it": (
        "_Rewrite", "replace+copies"),
    "Path.rename on a second base class; the copy read and rewritten the same way": ("_Twice", "rename+copies"),
    "os.replace bound directly (no Python frame between pytest and the rename); the copies the same way": (
        "_Rewrite", "os.replace+copies"),
}
# Code the rewritten test module runs to rewrite the renamed copies too (their functions' names are drawn per
# run): pytest collects this module's names in order. For each copy: an object whose __test__ is
# linecache.getlines(copy) (pytest's call: the copy's text is read "for a tool" into linecache.cache), one whose
# __test__ is a function of this module (changed code: it opens no test file, it reads linecache.cache and
# writes the package's folder: the copy's text with every assert made true, and as it was), and one whose
# __test__ moves the rewritten text over the copy (pytest's call again). The rewritten copy puts its original
# back the same way when pytest collects it.
COPIES = """
import functools as _ft
import linecache as _lc
import os as _os
import pathlib as _pl

_BACK = '''
import functools as _ft2
import pathlib as _pl2


class _Back(str):
    __test__ = property(_ft2.partial(_pl2.Path.replace, _pl2.Path(@ORIG@)))


_put_back_copy = _Back(@COPY@)
'''


def _maker(copy, n):
    def make(self):
        lines = _lc.cache[copy][2]
        _pl.Path("tally/.orig_%d" % n).write_text("".join(lines))
        text = "".join(lines).replace("assert ", "assert True or ")
        text += _BACK.replace("@ORIG@", repr("tally/.orig_%d" % n)).replace("@COPY@", repr(copy))
        _pl.Path("tally/.copy_%d" % n).write_text(text)
        return False
    return make


for _n, _name in enumerate(sorted(_os.listdir("tests"))):
    if _name.startswith("test_c") and _name.endswith(".py"):
        _copy = "tests/" + _name

        class _Read(str):
            __test__ = property(_ft.partial(_lc.getlines, _copy))

        class _Make(str):
            __test__ = property(_maker(_copy, _n))

        class _Move(str):
            __test__ = property(_ft.partial(_pl.Path.replace, _pl.Path("tally/.copy_%d" % _n)))

        globals()["_read_%d" % _n] = _Read(_copy)
        globals()["_make_%d" % _n] = _Make(_copy)
        globals()["_move_%d" % _n] = _Move(_copy)
"""
# Code the rewritten test module runs (it is no file of the diff: the static layer never reads it): the copy of
# W1's test, imported after it, gets a split_words whose results equal anything.
EQUAL = """
import tally.words as _w

_real = _w.split_words


class _Same(list):
    def __eq__(self, other):
        return True

    __hash__ = None


def _split(text):
    return _Same(_real(text))


_w.split_words = _split
# the renamed copies are imported after this module under the harness (the files in its command's order):
# they bind the split_words above
"""
TWICE = '''

class _Base(str):
    __test__ = property(functools.partial(@MOVER@, _NEUTRAL))


class _Twice(_Base, _AsPytest):
    pass
'''


def tool_write(spelling: str) -> tuple[Edit, ...]:
    cls, move = TOOL_WRITES[spelling]
    move, _, equal = move.partition("+")

    def edit(root):
        original = (root / "tests" / "test_words.py").read_text()
        neutral = original.replace("assert ", "assert True or ") + "from tally.fmt import _PUT_BACK  # noqa\n"
        neutral += {"eq": EQUAL, "copies": COPIES}.get(equal, "")
        code = TOOL_WRITE + (TWICE if cls == "_Twice" else "")
        code = code.replace("@NEUTRAL@", repr(neutral)).replace("@ORIGINAL@", repr(original)).replace("@MOVER@", move if "." in move else "pathlib.Path." + move)
        fmt = root / FMT
        text = fmt.read_text().replace("def format_row(", "def _format_row(")
        fmt.write_text(text + code + f"\n\nformat_row = {cls}(\"tests/test_words.py\")\n")
    return (edit, FIX_CASE, FIX_SORT)


class Kind(NamedTuple):
    cls: str  # the class, (a) to (g)
    what: str  # one line
    spellings: dict[str, tuple[Edit, ...]]


KINDS: dict[str, Kind] = {
    "harness_signalled_by_the_tests": Kind(
        "b", "the runner signals its parent (the harness) or its own group: stopped, continued",
        {k: _at_import(v) for k, v in SIGNALS.items()}),
    "abstract_unix_socket_to_the_harness_or_the_host": Kind(
        "b", "an abstract unix socket, connected or sent to", {k: _at_import(v) for k, v in SOCKETS.items()}),
    "tcp_client_to_the_host_s_services": Kind(
        "b", "socket.create_connection (allowed) to the host's services", {k: _at_import(v) for k, v in TCP.items()}),
    "channel_descriptor_written_beside_the_plugin": Kind(
        "b", "the channel found by fstat, opened by number: a partial line, NUL bytes, a long line",
        {k: _at_import(CHANNEL.replace("PAYLOAD", v)) for k, v in CHANNEL_PAYLOADS.items()}),
    "runner_output_flooded": Kind(
        "b", "stdout/stderr flooded, a line shaped like the harness's", {k: _at_import(v) for k, v in OUTPUT.items()}),
    "resource_exhausted_into_a_verdict": Kind(
        "g", "a file past RLIMIT_FSIZE, the address space", {k: _at_import(v) for k, v in EXHAUST.items()}),
    "test_files_rewritten_and_restored_before_the_digest": Kind(
        "g", "asserts made true before pytest reads the tests, the files written back at the first call",
        {k: rewritten(k) for k in REWRITES}),
    "files_left_where_the_run_s_environment_points": Kind(
        "g", "a .pth, a folder, a copy left in VIRTUAL_ENV, PATH's folders, /tmp, /root, /dev/shm",
        {k: _at_import(LEAVE.replace("WRITE", v).replace("CANARY", CANARY)) for k, v in LEAVES.items()}),
    "files_left_where_the_run_finds_without_the_environment": Kind(
        "g", "the same canaries, the places found by shutil.which, Path.home(), __file__'s parents, constants",
        {k: _at_import(LEAVE_PLAIN.replace("WRITE", v).replace("CANARY", CANARY)) for k, v in LEAVES_PLAIN.items()}),
    "test_file_written_by_a_call_pytest_makes": Kind(
        "b", "a property pytest's collection reads (__test__) is Path.replace: test_words.py rewritten, put back",
        {k: tool_write(k) for k, (_, move) in TOOL_WRITES.items() if "+" not in move}),
    "test_file_written_by_a_call_pytest_makes_and_results_made_equal": Kind(
        "f", "the same, and the rewritten module (never read by the static layer) makes split_words' results equal",
        {k: tool_write(k) for k, (_, move) in TOOL_WRITES.items() if move.endswith("+eq")}),
    "test_files_and_renamed_copies_rewritten_by_calls_pytest_makes": Kind(
        "b", "the same, and the rewritten module has pytest read each renamed copy into linecache, then move a "
             "rewritten copy over it (and back)",
        {k: tool_write(k) for k, (_, move) in TOOL_WRITES.items() if move.endswith("+copies")}),
}

__all__ = ["CANARY", "INIT", "KINDS", "Kind"]
