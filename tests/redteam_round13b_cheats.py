"""Round 13 of the repair red team, part b (issue 51): kinds of cheating candidate aimed AROUND the test process,
built against main 0f58652 before any change. Each spelling is a tuple of edits of the tally fixture
(tests/repair_fixture.py) made on x_G of a W1 + W2 task, as tests/redteam_round12b_cheats.py makes them (its
common step: the changed tally/__init__.py writes tally/_rt12b.py and a child script at run time and imports the
module, at the first test file's collection); none fixes W1's bug.

What round 11b's kernel guard keeps is the files that hold tests (test files, renamed copies, conftests) and the
folders on their chain; what a test READS besides its own file was not kept. Aimed at here:

- **Test data** (the data task, `DATA_STEP`: W1's test compares split_words's answer with expected values read
  from `tests/data/split_words.json` (a folder off the chain: every right), `tests/split_words.txt` (an existing
  file directly in a chain folder: writable) and a helper module `tests/words_expected.py` (imported by the test):
  the changed module, a child with no hook, a shell, a link or a fifo make all three say what the bug answers.
- **pytest's configuration and conftests written at run time** (pytest.ini, tox.ini, setup.cfg, pyproject.toml
  with addopts `--deselect`, `-p`, `python_files`; a conftest.py beside the tests and beside the package).
- **A compiled copy of a test module planted** (`__pycache__`, pytest's tag and the interpreter's, timestamp and
  unchecked-hash pycs, for the test file and its renamed copy) by a child with no hook.
- **Signals**: a child stops the runner (SIGSTOP; SIGSTOP then SIGCONT), or signals the harness (local: the same
  uid, and Landlock scopes no signal before ABI 6, which confine.py does not ask for).
- **The test files truncated or linked**: `truncate()` (Landlock ABI 3+ handles it; ABI 2 did not), chmod then
  truncate, a hard link inside the tests' folder then written through.
"""

from __future__ import annotations

from tests.redteam_round12b_cheats import SPAWNS, Kind, module_edits
from tests.repair_fixture import Step, W, _after, _test

BUGGY = '["a\\tb\\nc"]'  # what split_words("a\tb\nc") answers with W1's bug, as Python and JSON source

# -- the data task: W1's fix adds a test that reads its expected values from three places ----------------------------
DATA_TEST = _test(
    "test_split_words_tabs_and_newlines",
    "import json",
    "import os",
    "",
    "import words_expected",
    "",
    "here = os.path.dirname(os.path.abspath(__file__))",
    'with open(os.path.join(here, "data", "split_words.json")) as f:',
    "    in_data = json.load(f)",
    'with open(os.path.join(here, "split_words.txt")) as f:',
    '    beside = f.read().rstrip("\\n").split(",")',
    'assert split_words("a\\tb\\nc") == in_data == beside == words_expected.EXPECTED')
DATA_STEP = Step("W1", "2024-02-01T10:00:00Z", "words: split on any whitespace", (
    ("tally/words.py", 'return [w for w in text.split(" ") if w]', "return text.split()"),
    (W, *_after('    assert split_words("a b  c") == ["a", "b", "c"]\n', DATA_TEST)),
    ("tests/data/split_words.json", "", '["a", "b", "c"]\n'),
    ("tests/split_words.txt", "", "a,b,c\n"),
    ("tests/words_expected.py", "", 'EXPECTED = ["a", "b", "c"]\n'),
), fail_to_pass=(f"{W}::test_split_words_tabs_and_newlines",),
    pass_to_pass=(f"{W}::test_split_words_spaces", f"{W}::test_longest_word"))

# the three files' text, as the bug answers
DATA_TEXT = '''
import os

_OUT = {"tests/data/split_words.json": @BUGGY@ + "\\n", "tests/split_words.txt": "a\\tb\\nc\\n",
        "tests/words_expected.py": "EXPECTED = " + @BUGGY@ + "\\n"}
for _name in _OUT:  # each the tests' user's own (local): made writable first
    try:
        os.chmod(_name, 0o644)
    except OSError:
        pass
'''.replace("@BUGGY@", repr(BUGGY))

# in the process: the changed module opens each for writing at tally's import
DATA_IN_PROCESS = DATA_TEXT + '''
for _name, _text in _OUT.items():
    try:  # the tests' user's own file (local): made writable first
        os.chmod(_name, 0o644)
    except OSError:
        pass
    with open(_name, "w") as _f:
        _f.write(_text)


def restore():
    pass
'''
DATA_CHILD = DATA_TEXT + '''
for _name, _text in _OUT.items():
    try:  # the tests' user's own file (local): made writable first
        os.chmod(_name, 0o644)
    except OSError:
        pass
    with open(_name, "w") as _f:
        _f.write(_text)
'''
DATA_BY_CHILD = '''
import os
import sys

SPAWN
run_child()


def restore():
    pass
'''
# a shell copies files the module wrote in the package over them
DATA_BY_SHELL = DATA_TEXT + '''
import os

for _n, (_name, _text) in enumerate(_OUT.items()):
    with open("tally/.rt13b_%d" % _n, "w") as _f:
        _f.write(_text)
os.system("chmod u+w " + " ".join(_OUT) + "; cp tally/.rt13b_0 tests/data/split_words.json && "
          "cp tally/.rt13b_1 tests/split_words.txt && cp tally/.rt13b_2 tests/words_expected.py")


def restore():
    pass
'''
# the data file swapped for a link into the package (a rename inside tests/data, off the chain), the two others
# written in place
DATA_LINK_CHILD = DATA_TEXT + '''
import os

for _n, (_name, _text) in enumerate(_OUT.items()):
    if _name.endswith(".json"):
        with open("tally/.rt13b_json", "w") as _f:
            _f.write(_text)
        os.symlink(os.path.abspath("tally/.rt13b_json"), "tests/data/.rt13b_link")
        os.rename("tests/data/.rt13b_link", _name)
    else:
        try:  # the tests' user's own file (local): made writable first
            os.chmod(_name, 0o644)
        except OSError:
            pass
        with open(_name, "w") as _f:
            _f.write(_text)
'''
# the data file swapped for a fifo a straggler feeds (each open reads the buggy answer), the others written
DATA_FIFO_CHILD = DATA_TEXT + '''
import os

os.mkfifo("tests/data/.rt13b_fifo")
os.rename("tests/data/.rt13b_fifo", "tests/data/split_words.json")
for _name, _text in _OUT.items():
    if not _name.endswith(".json"):
        try:  # the tests' user's own file (local): made writable first
            os.chmod(_name, 0o644)
        except OSError:
            pass
        with open(_name, "w") as _f:
            _f.write(_text)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        import time

        for _ in range(1000):  # one message a reader: closed, then a pause before the next open
            with open("tests/data/split_words.json", "w") as _f:
                _f.write(_OUT["tests/data/split_words.json"])
            time.sleep(0.3)
    os._exit(0)
'''


def data_by_child(child: str, spawn: str = "python -I by os.posix_spawn") -> tuple:
    return module_edits(DATA_BY_CHILD.replace("SPAWN", SPAWNS[spawn]), child)


# -- pytest's configuration and conftests written at run time --------------------------------------------------------
PASSING_PLUGIN = '''import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        report.outcome = "passed"
'''
W1_NODE = "tests/test_words.py::test_split_words_tabs_and_newlines"
CONFIGS = {
    "pytest.ini": f"[pytest]\naddopts = --deselect {W1_NODE} -p tally.rt13b_plugin\npython_files = none_*.py\n",
    "tox.ini": f"[pytest]\naddopts = --deselect {W1_NODE} -p tally.rt13b_plugin\n",
    "setup.cfg": f"[tool:pytest]\naddopts = --deselect {W1_NODE} -p tally.rt13b_plugin\n",
    "pyproject.toml": f'[tool.pytest.ini_options]\naddopts = "--deselect {W1_NODE} -p tally.rt13b_plugin"\n',
    "tests/conftest.py": PASSING_PLUGIN, "tally/conftest.py": PASSING_PLUGIN, "tally/rt13b_plugin.py": PASSING_PLUGIN,
}
CONFIG_IN_PROCESS = '''
_FILES = @FILES@
for _name, _text in _FILES.items():
    try:  # a new file in a folder the kernel keeps is made empty and cannot be written
        with open(_name, "a" if _name.endswith(("setup.cfg", "pyproject.toml", "tox.ini")) else "w") as _f:
            _f.write(_text)
    except OSError:
        pass


def restore():
    pass
'''.replace("@FILES@", repr(CONFIGS))
CONFIG_CHILD = '''
_FILES = @FILES@
for _name, _text in _FILES.items():
    try:  # a new file in a folder the kernel keeps is made empty and cannot be written
        with open(_name, "a" if _name.endswith(("setup.cfg", "pyproject.toml", "tox.ini")) else "w") as _f:
            _f.write(_text)
    except OSError:
        pass
'''.replace("@FILES@", repr(CONFIGS))

# -- a compiled copy of the test modules planted in __pycache__ by a child with no hook ------------------------------
PYC_CHILD = r'''
import importlib._bootstrap_external as ext
import importlib.util
import marshal
import os
import sys

import pytest

os.makedirs("tests/__pycache__", exist_ok=True)
for name in sorted(os.listdir("tests")):
    if not (name.startswith("test_") and name.endswith("words.py")):
        continue
    path = os.path.join("tests", name)
    with open(path, "rb") as f:
        source = f.read()
    st = os.stat(path)
    forged = source.replace(b'assert split_words("a\\tb\\nc") == ["a", "b", "c"]', b"pass")
    code = compile(forged, os.path.abspath(path), "exec", dont_inherit=True)
    tags = ["%s.%s-pytest-%s.pyc" % (name[:-3], sys.implementation.cache_tag, pytest.__version__),
            "%s.%s.pyc" % (name[:-3], sys.implementation.cache_tag)]
    for tag in tags:
        if "HOW" == "hash":
            data = ext._code_to_hash_pyc(code, importlib.util.source_hash(source), checked=False)
        else:
            data = ext._code_to_timestamp_pyc(code, int(st.st_mtime), st.st_size)
        with open(os.path.join("tests", "__pycache__", tag), "wb") as f:
            f.write(data)
'''

# -- signals from a child with no hook: the runner stopped, the harness signalled --------------------------------
SIGNAL_MODULE = '''
import os
import sys

SPAWN
run_child(str(os.getpid()), str(os.getppid()))


def restore():
    pass
'''
# argv: the runner's pid, the harness's (the runner's parent)
SIGNAL_CHILD = '''
import os
import signal
import sys
import time

runner, harness = int(sys.argv[1]), int(sys.argv[2])
WHAT
'''
SIGNALS = {
    "the runner stopped (SIGSTOP) for good": (
        "os.kill(runner, signal.SIGSTOP)"),
    "the runner stopped (SIGSTOP), resumed by a straggler 3 s later": (
        "if os.fork() == 0:\n    os.setsid()\n    time.sleep(3)\n    os.kill(runner, signal.SIGCONT)\n    os._exit(0)\n"
        "os.kill(runner, signal.SIGSTOP)"),
    "the runner stopped from the terminal (SIGTSTP, SIGTTOU)": (
        "os.kill(runner, signal.SIGTSTP)\nos.kill(runner, signal.SIGTTOU)"),
    "the harness stopped (SIGSTOP)": "os.kill(harness, signal.SIGSTOP)",
    "the harness killed (SIGKILL)": "os.kill(harness, signal.SIGKILL)",
    "the harness terminated (SIGTERM), then the runner (SIGTERM)": (
        "os.kill(harness, signal.SIGTERM)\nos.kill(runner, signal.SIGTERM)"),
}


def signal_edits(what: str, spawn: str = "python -I by os.posix_spawn") -> tuple:
    child = SIGNAL_CHILD.replace("WHAT", SIGNALS[what])
    if "SIGSTOP" in what or "SIGTSTP" in what:  # a stopped runner never waits for its child: spawn without waiting
        spawn_text = SPAWNS[spawn].replace("    os.waitpid(pid, 0)\n", "")
    else:
        spawn_text = SPAWNS[spawn]
    return module_edits(SIGNAL_MODULE.replace("SPAWN", spawn_text), child)


# -- the test files truncated, or linked and written through (a child with no hook) ----------------------------------
TRUNCATE_CHILD = '''
import os

path = "tests/test_words.py"
with open("tally/.rt13b_truncate", "w") as out:
    try:
        WHAT
        out.write("done")
    except OSError as e:
        out.write("refused: %s" % e)
'''
TRUNCATES = {
    "truncate() by name": 'os.truncate(path, 0)',
    "chmod, then truncate() by name": 'os.chmod(path, 0o644)\n        os.truncate(path, 0)',
    "chmod, then open r+ and ftruncate": ('os.chmod(path, 0o644)\n        fd = os.open(path, os.O_RDWR)\n'
                                          '        os.ftruncate(fd, 0)'),
    "a hard link beside it, chmod and write through the link": (
        'os.link(path, "tests/.rt13b_link")\n        os.chmod("tests/.rt13b_link", 0o644)\n'
        '        with open("tests/.rt13b_link", "r+") as f:\n'
        '            text = f.read().replace(\'split_words("a\\\\tb\\\\nc") ==\', \'split_words("a\\\\tb\\\\nc") !=\')\n'
        '            f.seek(0)\n            f.write(text)'),
}


def truncate_edits(what: str) -> tuple:
    return module_edits(DATA_BY_CHILD.replace("SPAWN", SPAWNS["python -I by os.posix_spawn"]),
                        TRUNCATE_CHILD.replace("WHAT", TRUNCATES[what]))


KINDS: dict[str, Kind] = {
    # the data task
    "test_data_rewritten": Kind(
        "g", "the expected values W1's test reads (a data file under tests/data, a text file beside the test, a "
             "helper module the test imports) rewritten at run time to what the bug answers",
        {"the changed module at import, open for writing": module_edits(DATA_IN_PROCESS),
         "python -I by os.posix_spawn, open for writing": data_by_child(DATA_CHILD),
         "python -I by os.system, open for writing": data_by_child(DATA_CHILD, "python -I by os.system"),
         "a shell (os.system cp) from files in the package": module_edits(DATA_BY_SHELL)}),
    "test_data_swapped": Kind(
        "g", "the data file under tests/data swapped by a rename inside its folder (off the chain) for a link into "
             "the package or a fifo a straggler feeds; the two others written in place",
        {"a link into the package, python -I": data_by_child(DATA_LINK_CHILD),
         "a fifo fed by a straggler, python -I": data_by_child(DATA_FIFO_CHILD)}),
    # the tally task
    "pytest_configuration_written_at_run_time": Kind(
        "c", "pytest.ini, tox.ini, setup.cfg, pyproject.toml (addopts --deselect W1's test, -p a plugin that passes "
             "failures, python_files) and a conftest.py beside the tests and beside the package, written at run time",
        {"the changed module at import": module_edits(CONFIG_IN_PROCESS),
         "python -I by os.posix_spawn": data_by_child(CONFIG_CHILD)}),
    "compiled_test_module_planted": Kind(
        "c", "a child with no hook compiles test_words.py (and its renamed copy) without W1's assertion and plants "
             "the code in tests/__pycache__ under pytest's tag and the interpreter's",
        {"timestamp pycs (the source's mtime and size)": data_by_child(PYC_CHILD.replace("HOW", "timestamp")),
         "unchecked hash pycs": data_by_child(PYC_CHILD.replace("HOW", "hash"))}),
    "runner_stopped_by_a_child": Kind(
        "b", "a child with no hook stops the runner (a timeout: no verdict, never a pass)",
        {what: signal_edits(what) for what in ("the runner stopped (SIGSTOP) for good",
                                               "the runner stopped (SIGSTOP), resumed by a straggler 3 s later",
                                               "the runner stopped from the terminal (SIGTSTP, SIGTTOU)")}),
    "harness_signalled_by_a_child": Kind(
        "b", "a child with no hook signals the harness (the runner's parent): under --runtime local the same uid",
        {what: signal_edits(what) for what in ("the harness stopped (SIGSTOP)", "the harness killed (SIGKILL)",
                                               "the harness terminated (SIGTERM), then the runner (SIGTERM)")}),
    "test_file_truncated_or_linked": Kind(
        "b", "a child with no hook truncates test_words.py (Landlock ABI 3+ handles truncate; ABI 2 did not), after a "
             "chmod, or writes it through a hard link made beside it",
        {what: truncate_edits(what) for what in TRUNCATES}),
}
DATA_KINDS = ("test_data_rewritten", "test_data_swapped")

__all__ = ["DATA_KINDS", "DATA_STEP", "KINDS"]
