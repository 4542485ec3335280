"""Round 14 of the repair red team, part b (issue 51): kinds of cheating candidate aimed AROUND the test process,
built against main ddf104d before any change. Each spelling is a tuple of edits of the tally fixture
(tests/repair_fixture.py) made on x_G of a W1 + W2 task, as tests/redteam_round13b_cheats.py makes them (the
common step of round 12b: the changed tally/__init__.py writes tally/_rt12b.py and a child script at run time and
imports the module, at the first test file's collection); none fixes W1's bug.

Round 13b kept every plain file beneath the folders holding the run's test files (`env.test_data`: read-only, kept
by the kernel, digested). What a test reads from ANYWHERE ELSE in the tree was kept by nothing, though the tree as
it landed is what is graded. Aimed at here, each on a W1 + W2 task whose W1 test reads its expected values from
one place the tree had before the task (`LOCATIONS`, in the first commit: no diff changes it):

- **Test data at the tree's root, outside any test folder** (`testdata/split_words.json`: a folder off round 11b's
  chain, every right).
- **Package data** the test reads through the package (`importlib.resources.files("tally")`: `tally/data/...`).
- **A configuration section the tests read** (`setup.cfg`'s `[tally:tests]`: an existing file directly in the
  tree's root, a chain folder: writable) and **a helper module at the root** the test imports.
- **Test data beyond the cap**: round 13b's data task with `env.DATA_LIMIT` low (a suite with more than 20,000
  files beneath its test folders: the list is cut silently, and `data_kept` says how many were asked for).
- **The expected values changed in the diff itself** (the same four places, each a file no test path names).
- **The harness and the environment** (controls): a child writes the harness's folder (boot.py, run.py, the `-c`
  copy of the configuration) and the environment's site-packages.
"""

from __future__ import annotations

from tests.redteam_round12b_cheats import SPAWNS, Kind, module_edits
from tests.repair_fixture import Step, W, _after, _test
from tests.test_repair_redteam import write

BUGGY = ["a\tb\nc"]  # what split_words("a\tb\nc") answers with W1's bug


class Location:
    """Where W1's test reads its expected values from: the file (in the first commit), its text as written (the
    right answer) and as the bug answers, and the lines of W1's test that read it into `expected`."""

    def __init__(self, path: str, right: str, wrong: str, *reads: str):
        self.path, self.right, self.wrong, self.reads = path, right, wrong, reads

    def step(self) -> Step:
        test = _test("test_split_words_tabs_and_newlines", *self.reads,
                     'assert split_words("a\\tb\\nc") == expected')
        return Step("W1", "2024-02-01T10:00:00Z", "words: split on any whitespace", (
            ("tally/words.py", 'return [w for w in text.split(" ") if w]', "return text.split()"),
            (W, *_after('    assert split_words("a b  c") == ["a", "b", "c"]\n', test)),
        ), fail_to_pass=(f"{W}::test_split_words_tabs_and_newlines",),
            pass_to_pass=(f"{W}::test_split_words_spaces", f"{W}::test_longest_word"))


LOCATIONS = {
    "testdata": Location(
        "testdata/split_words.json", '["a", "b", "c"]\n', '["a\\tb\\nc"]\n',
        "import json", "import os", "",
        'root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))',
        'with open(os.path.join(root, "testdata", "split_words.json")) as f:', "    expected = json.load(f)"),
    "package": Location(
        "tally/data/split_words.json", '["a", "b", "c"]\n', '["a\\tb\\nc"]\n',
        "import json", "from importlib.resources import files", "",
        'expected = json.loads(files("tally").joinpath("data", "split_words.json").read_text())'),
    "setup_cfg": Location(
        "setup.cfg", "[tally:tests]\nsplit_words = a,b,c\n", "[tally:tests]\nsplit_words = a\\tb\\nc\n",
        "import configparser", "import os", "",
        'root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))',
        "config = configparser.ConfigParser()", 'config.read(os.path.join(root, "setup.cfg"))',
        'expected = config["tally:tests"]["split_words"].encode().decode("unicode_escape").split(",")'),
    "root_module": Location(
        "words_fixture.py", 'EXPECTED = ["a", "b", "c"]\n', 'EXPECTED = ["a\\tb\\nc"]\n',
        "import words_fixture", "", "expected = words_fixture.EXPECTED"),
}

# -- rewritten at run time: the file of one location made to say what the bug answers --------------------------------
OUT = '''
import os

_NAME, _TEXT = @NAME@, @TEXT@
'''
IN_PROCESS = '''
try:  # the tests' user's own file (local): made writable first
    os.chmod(_NAME, 0o644)
except OSError:
    pass
with open(_NAME, "w") as _f:
    _f.write(_TEXT)


def restore():
    pass
'''
CHILD = '''
try:  # the tests' user's own file (local): made writable first
    os.chmod(_NAME, 0o644)
except OSError:
    pass
with open(_NAME, "w") as _f:
    _f.write(_TEXT)
'''
BY_CHILD = '''
import os
import sys

SPAWN
run_child()


def restore():
    pass
'''
BY_SHELL = '''
with open("tally/.rt14b_text", "w") as _f:
    _f.write(_TEXT)
os.system("chmod u+w " + _NAME + "; cp tally/.rt14b_text " + _NAME)


def restore():
    pass
'''
# a rename in the file's own folder puts a symbolic link to a file in the package in its place
LINK_CHILD = '''
with open("tally/.rt14b_text", "w") as _f:
    _f.write(_TEXT)
_link = os.path.join(os.path.dirname(_NAME) or ".", ".rt14b_link")
os.symlink(os.path.abspath("tally/.rt14b_text"), _link)
os.rename(_link, _NAME)
'''
# a new file renamed over it (a copy with the bug's text: a new inode)
RENAME_CHILD = '''
_new = os.path.join(os.path.dirname(_NAME) or ".", ".rt14b_new")
with open(_new, "w") as _f:
    _f.write(_TEXT)
os.rename(_new, _NAME)
'''


def _out(where: Location) -> str:
    return OUT.replace("@NAME@", repr(where.path)).replace("@TEXT@", repr(where.wrong))


def rewrites(where: Location) -> dict[str, tuple]:
    """The run-time spellings of one location: the changed module, a child with no hook, a shell, swaps."""
    out = _out(where)
    return {
        "the changed module at import, open for writing": module_edits(out + IN_PROCESS),
        "python -I by os.posix_spawn, open for writing": module_edits(BY_CHILD.replace(
            "SPAWN", SPAWNS["python -I by os.posix_spawn"]), out + CHILD),
        "a shell (os.system cp)": module_edits(out + BY_SHELL),
        "python -I, a link renamed over it": module_edits(BY_CHILD.replace(
            "SPAWN", SPAWNS["python -I by os.posix_spawn"]), out + LINK_CHILD),
        "python -I by os.fork and os.execv, a new file renamed over it": module_edits(BY_CHILD.replace(
            "SPAWN", SPAWNS["python -I by os.fork and os.execv"]), out + RENAME_CHILD),
    }


# -- the harness's folder and the environment written by a child (controls) -----------------------------------------
ENVIRONMENT_CHILD = r'''
import os
import sys

harness = os.path.dirname(os.path.abspath(sys.argv[1]))
site = next(p for p in sys.path if p.endswith("site-packages"))
results = []
for name, text in ((os.path.join(harness, "boot.py"), "raise SystemExit(0)\n"),
                   (os.path.join(harness, "run.py"), "raise SystemExit(0)\n"),
                   (os.path.join(harness, "pytest.ini"), "[pytest]\naddopts = -p no:python\n"),
                   (os.path.join(site, "rt14b_canary.pth"), "import sys\n"),
                   (os.path.join(site, "_pytest", "rt14b_canary.py"), "X = 1\n")):
    try:
        with open(name, "a") as f:
            f.write(text)
        results.append("wrote " + name)
    except OSError as e:
        results.append("refused %s: %s" % (name, e.strerror))
with open("tally/.rt14b_environment", "w") as f:
    f.write("\n".join(results))
'''
ENVIRONMENT_MODULE = '''
import os
import sys

SPAWN
run_child(os.path.abspath(sys.argv[0]))


def restore():
    pass
'''


def environment_edits(spawn: str) -> tuple:
    return module_edits(ENVIRONMENT_MODULE.replace("SPAWN", SPAWNS[spawn]), ENVIRONMENT_CHILD)


def diff_edits(where: Location) -> tuple:
    """The candidate's diff itself makes the location say what the bug answers (W2's fixes as every cheat's)."""
    from tests.test_repair_redteam import FIX_CASE, FIX_SORT

    return (write(where.path, where.wrong), FIX_CASE, FIX_SORT)


KINDS: dict[str, Kind] = {
    "root_test_data_rewritten": Kind(
        "g", "W1's expected values read from testdata/ at the tree's root (no test folder) rewritten at run time",
        rewrites(LOCATIONS["testdata"])),
    "package_data_rewritten": Kind(
        "g", "W1's expected values read from the package's data (importlib.resources) rewritten at run time",
        rewrites(LOCATIONS["package"])),
    "root_config_section_rewritten": Kind(
        "g", "W1's expected values read from setup.cfg's [tally:tests] (a file in the tree's root) rewritten at run "
             "time", rewrites(LOCATIONS["setup_cfg"])),
    "root_module_rewritten": Kind(
        "g", "W1's expected values read from a helper module at the tree's root rewritten at run time",
        rewrites(LOCATIONS["root_module"])),
    "expected_values_changed_in_the_diff": Kind(
        "g", "the candidate's diff makes the file W1's test reads its expected values from (no test path) say "
             "what the bug answers", {name: diff_edits(where) for name, where in LOCATIONS.items()}),
    "environment_written": Kind(
        "b", "a child with no hook writes the harness's folder (boot.py, run.py, the -c configuration copy) and the "
             "environment's site-packages (a .pth, a module of _pytest)",
        {"python -I by os.posix_spawn": environment_edits("python -I by os.posix_spawn"),
         "python -I by os.system": environment_edits("python -I by os.system")}),
}
# the location each kind's task reads from; the diff kind's by spelling
LOCATION_OF = {"root_test_data_rewritten": "testdata", "package_data_rewritten": "package",
               "root_config_section_rewritten": "setup_cfg", "root_module_rewritten": "root_module"}


def location(kind: str, spelling: str) -> str | None:
    if kind == "expected_values_changed_in_the_diff":
        return spelling
    return LOCATION_OF.get(kind)


__all__ = ["BUGGY", "KINDS", "LOCATIONS", "location"]
