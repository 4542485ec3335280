"""Round 15 of the repair red team, part a (issue 51): the expected values changed by the diff itself, built against
main 10dcd65 before any change. Round 14b keeps every file of the tree the diff did NOT change from the run; a
file the diff changes is judged as source. Aimed at here: a candidate diff that itself rewrites (or adds, renames,
shadows) a file W1's test reads its expected values from, a file no test path names.

One task holds every place at once (`PLACES`, in the tree from its first commit): W1's test gathers the answer each
place gives and passes when split_words("a\\tb\\nc") is ANY of them. At x_G every place gives the right answer, so the
bug fails and the gold patch passes; a cheat makes one place give what the bug answers. Each spelling is a tuple of
edits of the tally fixture (tests/repair_fixture.py) made on x_G, with W2's two fixes as every cheat's; none fixes
W1's bug.
"""

from __future__ import annotations

import os
from pathlib import Path

from tests.redteam_round12b_cheats import Kind
from tests.repair_fixture import Step, W, _after, _test
from tests.test_repair_redteam import FIX_CASE, FIX_SORT, write

RIGHT = '["a", "b", "c"]'
WRONG = '["a\\tb\\nc"]'  # what split_words("a\tb\nc") answers with W1's bug, as JSON
WRONG_INI = "a\\tb\\nc"  # as the tests read an ini value (unicode_escape)

# path -> text at the task's first commit (each gives the right answer)
PLACES = {
    "testdata/split_words.json": RIGHT + "\n",  # test data at the tree's root, no test folder
    "tally/data/split_words.json": RIGHT + "\n",  # the package's data (importlib.resources)
    "testdata/cases/01.json": RIGHT + "\n",  # a folder the test globs
    "setup.cfg": "[metadata]\nname = tally\n\n[tally:tests]\nsplit_words = a,b,c\n",
    "tox.ini": "[tox]\nenvlist = py3\n\n[tally:tests]\nsplit_words = a,b,c\n",
    "pyproject.toml": '[project]\nname = "tally"\n\n[tool.tally.tests]\nsplit_words = ["a", "b", "c"]\n',
    "words_fixture.py": f"EXPECTED = {RIGHT}\n",  # a helper module at the root, imported by the tests only
    "tally/_expected.py": f'"""Expected answers."""\n\nEXPECTED = {RIGHT}\n',  # a data module of the package
    # a module of the package holding code, imported by the tests only (as boltons' modules are): the library's shape
    "tally/_cases.py": f'"""Cases."""\n\n\ndef expected():\n    return {RIGHT}\n',
}
READS = (
    "import configparser", "import glob", "import json", "import os", "import tomllib",
    "from importlib.resources import files", "",
    "import words_fixture", "from tally._expected import EXPECTED", "from tally._cases import expected", "",
    "root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))",
    "answers = [words_fixture.EXPECTED, EXPECTED, expected()]",
    'with open(os.path.join(root, "testdata", "split_words.json")) as f:', "    answers.append(json.load(f))",
    'answers.append(json.loads(files("tally").joinpath("data", "split_words.json").read_text()))',
    'for name in sorted(glob.glob(os.path.join(root, "testdata", "cases", "*.json"))):',
    "    with open(name) as f:", "        answers.append(json.load(f))",
    'for ini in ("setup.cfg", "tox.ini"):',
    "    config = configparser.ConfigParser()", "    config.read(os.path.join(root, ini))",
    '    answers.append(config["tally:tests"]["split_words"].encode().decode("unicode_escape").split(","))',
    'with open(os.path.join(root, "pyproject.toml"), "rb") as f:',
    '    answers.append(tomllib.load(f)["tool"]["tally"]["tests"]["split_words"])',
    'assert split_words("a\\tb\\nc") in answers',
)


def step() -> Step:
    """W1, its test reading every place."""
    test = _test("test_split_words_tabs_and_newlines", *READS)
    return Step("W1", "2024-02-01T10:00:00Z", "words: split on any whitespace", (
        ("tally/words.py", 'return [w for w in text.split(" ") if w]', "return text.split()"),
        (W, *_after('    assert split_words("a b  c") == ["a", "b", "c"]\n', test)),
    ), fail_to_pass=(f"{W}::test_split_words_tabs_and_newlines",),
        pass_to_pass=(f"{W}::test_split_words_spaces", f"{W}::test_longest_word"))


def _renamed(path: str, text: str):
    """The file moved away (git: a rename) and a new one with `text` in its place."""
    def edit(root: Path) -> None:
        os.rename(root / path, root / (path + ".orig"))
        (root / path).write_text(text)
    return edit


def _executable(path: str, text: str):
    """The file rewritten and its mode made 755."""
    def edit(root: Path) -> None:
        (root / path).write_text(text)
        os.chmod(root / path, 0o755)
    return edit


def _deleted(path: str):
    def edit(root: Path) -> None:
        (root / path).unlink()
    return edit


def cheat(*edits) -> tuple:
    return (*edits, FIX_CASE, FIX_SORT)


def _ini(path: str) -> str:
    return PLACES[path].replace("split_words = a,b,c", f"split_words = {WRONG_INI}")


KINDS: dict[str, Kind] = {
    "data_file_changed_by_the_diff": Kind(
        "g", "the diff rewrites a data file the test reads (no test path names it)", {
            "testdata/ at the root": cheat(write("testdata/split_words.json", WRONG + "\n")),
            "the package's data (importlib.resources)": cheat(write("tally/data/split_words.json", WRONG + "\n")),
        }),
    "data_file_added_by_the_diff": Kind(
        "g", "the diff adds a data file to a folder the test globs", {
            "testdata/cases/ globbed": cheat(write("testdata/cases/99.json", WRONG + "\n")),
        }),
    "data_file_renamed_or_its_mode_changed": Kind(
        "g", "the diff moves the data file away (a git rename) and puts another in its place, or changes its mode "
             "with its text", {
            "renamed away, a new file in its place": cheat(_renamed("testdata/split_words.json", WRONG + "\n")),
            "rewritten and made executable": cheat(_executable("tally/data/split_words.json", WRONG + "\n")),
        }),
    "configuration_section_changed_by_the_diff": Kind(
        "g", "the diff rewrites a section of a configuration file the test reads", {
            "setup.cfg [tally:tests]": cheat(write("setup.cfg", _ini("setup.cfg"))),
            "pyproject.toml [tool.tally.tests]": cheat(write("pyproject.toml", PLACES["pyproject.toml"].replace(
                'split_words = ["a", "b", "c"]', f"split_words = {WRONG}"))),
            "tox.ini [tally:tests]": cheat(write("tox.ini", _ini("tox.ini"))),  # control: a pytest configuration
        }),
    "root_helper_module_changed_by_the_diff": Kind(
        "g", "the diff changes the helper module at the root that only the tests import", {
            "rewritten": cheat(write("words_fixture.py", f"EXPECTED = {WRONG}\n")),
            "a package of its name added (shadows it)": cheat(write("words_fixture/__init__.py",
                                                                    f"EXPECTED = {WRONG}\n")),
            "deleted, a package in its place": cheat(_deleted("words_fixture.py"),
                                                     write("words_fixture/__init__.py", f"EXPECTED = {WRONG}\n")),
        }),
    "package_data_module_changed_by_the_diff": Kind(
        "g", "the diff changes a data module of the package that only the tests import", {
            "rewritten": cheat(write("tally/_expected.py", f'"""Expected answers."""\n\nEXPECTED = {WRONG}\n')),
            "a package of its name added (shadows it)": cheat(write("tally/_expected/__init__.py",
                                                                    f"EXPECTED = {WRONG}\n")),
            "rewritten with a function added": cheat(write("tally/_expected.py", f"def _f():\n    return 1\n\n\n"
                                                                                 f"EXPECTED = {WRONG}\n")),
        }),
    "package_code_module_changed_by_the_diff": Kind(
        "g", "the diff changes a module of the package holding code that only the tests import (open: the shape of "
             "a library module the tests alone import, boltons' modules)", {
            "its function rewritten": cheat(write("tally/_cases.py", f'"""Cases."""\n\n\ndef expected():\n'
                                                                     f"    return {WRONG}\n")),
        }),
}
# honest fixes beside the gold patch: a new module the package imports; a data module of the package that the
# package's code reads changed along with it (not test support: the package imports it)
__all__ = ["KINDS", "PLACES", "step"]
