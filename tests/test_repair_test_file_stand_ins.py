"""A test module's __file__ names a stand-in of its file while the tests run (issue 51, the cost of READERS):
the stand-in has the file's size and lines and none of its text, so a test that opens its own __file__ at run
time (click's `File(default=__file__)`, requests' uploads) passes under the guard and reads no expected value,
while the real test files stay pytest's to read. Both runtimes, through env.run_tests as the grader runs it."""

from __future__ import annotations

import pytest

from codewalk.domains.repair import channel
from codewalk.domains.repair.channel import NoVerdict
from codewalk.domains.repair.env import run_tests
from tests.redteam_round5_cheats import ORACLE_AST, oracle
from tests.test_repair_runtime_guard import (  # noqa: F401  (fixtures: both runtimes, the W1 + W2 task)
    FMT,
    GOLD,
    WORDS,
    _changed,
    _run,
    _solved,
    _x_g,
    runtime,
    task,
)

pytestmark = pytest.mark.usefixtures("shared_home")  # one home: the virtualenv and the image are built once

# The tree's helper a test hands its own __file__ to, as click's tests hand it to click.File: library code
# (the candidate's, so under the guard's eye) opens the path.
HEAD = "tally/head.py"
HEAD_TEXT = '''def head(path):
    """The first bytes of the file at path."""
    with open(path, "rb") as handle:
        return handle.read(8)
'''
OWN_FILE = "tests/test_own_file.py"
OWN_FILE_TEXT = '''import os

from tally.head import head

SECRET = "expected-value-7d41"


def test_opens_its_own_file_and_finds_no_text_of_it():
    with open(__file__, "rb") as handle:
        text = handle.read()
    assert SECRET.encode() not in text and b"def " not in text
    assert set(text) <= set(b"# \\n")
    assert len(text) == os.path.getsize(__spec__.origin)  # the file pytest imported (a renamed copy too)


def test_hands_its_own_file_to_the_tree():
    assert head(__file__) == b"#" + b" " * 7


def test_finds_the_tests_data_beside_its_file():
    assert os.path.isfile(os.path.join(os.path.dirname(__file__), "test_words.py"))


def test_fails_and_pytest_shows_its_line():
    assert len("abc") == 4, "reported with its source line"


class TestInAClass:
    def test_fails_in_a_class_and_pytest_shows_its_line(self):
        assert len("abcd") == 5, "reported from a class"
'''
OWN = [f"{OWN_FILE}::test_opens_its_own_file_and_finds_no_text_of_it", f"{OWN_FILE}::test_hands_its_own_file_to_the_tree",
       f"{OWN_FILE}::test_finds_the_tests_data_beside_its_file"]
FAILING = [f"{OWN_FILE}::test_fails_and_pytest_shows_its_line",
           f"{OWN_FILE}::TestInAClass::test_fails_in_a_class_and_pytest_shows_its_line"]


def test_a_stand_in_has_the_size_and_lines_of_its_file_and_none_of_its_text(tmp_path):
    text = 'import os\r\n\nX = "caf\u00e9"  # an expected value\n\n\ndef test_x():\n    assert X == "caf\u00e9"'
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_bytes(text.encode())
    found = channel.stand_ins(tmp_path, ["tests/test_x.py", "tests/test_absent.py"])
    assert list(found) == ["tests/test_x.py"]
    name = found["tests/test_x.py"]
    assert name.startswith("tests/.c") and name.endswith("_test_x.py"), name  # a dot-file pytest is not given
    blank = (tmp_path / name).read_bytes()
    assert len(blank) == len(text.encode())
    assert [len(line) for line in blank.splitlines(keepends=True)] == \
        [len(line) for line in text.encode().splitlines(keepends=True)]
    assert set(blank) <= set(b"# \r\n") and blank.startswith(b"#        \r\n\n#")
    compile(blank, name, "exec")  # comments only: valid Python that defines nothing


def test_a_test_that_opens_its_own_file_at_run_time_passes_and_reads_no_text_of_it(
        task, runtime, monkeypatch):  # noqa: F811
    """The test opens its __file__, hands it to the tree, finds its data beside it; pytest's failure reports
    still show a failing test's line (tracebacks read the code's file, not __file__); after the run no
    stand-in is left in the worktree."""
    reports = []
    outcomes = channel.outcomes

    def kept(report: channel.Report) -> dict[str, str]:
        reports.append(report)
        return outcomes(report)

    monkeypatch.setattr(channel, "outcomes", kept)
    with _x_g(task, runtime) as (tree, env, x_g, tests):
        for edit in GOLD:
            edit(tree.path)
        (tree.path / HEAD).write_text(HEAD_TEXT)
        (tree.path / OWN_FILE).write_text(OWN_FILE_TEXT)
        changed = [p for p in _changed(tree.path, x_g) if not p.startswith("tests/")]
        assert set(changed) == {WORDS, FMT, HEAD}
        run = run_tests(env, tree, [*tests, *OWN, *FAILING], "pytest -rA", 300, config_from=x_g,
                        renamed=OWN[:1], changed=changed)
        left = sorted(p.name for p in (tree.path / "tests").iterdir() if p.name.startswith("."))
    assert run.audited and left == []
    assert {t: run.status[t] for t in [*tests, *OWN]} == {t: "passed" for t in [*tests, *OWN]}, run.status
    assert [run.status[t] for t in FAILING] == ["failed", "failed"], run.status
    output = reports[-1].output
    assert '>       assert len("abc") == 4, "reported with its source line"' in output, output[-2000:]
    assert '>       assert len("abcd") == 5, "reported from a class"' in output, output[-2000:]


MODULE_LEVEL = "tests/test_module_level_path.py"
MODULE_LEVEL_TEXT = '''import os

HERE = os.path.abspath(__file__)  # computed at import: the real file's name


def test_opens_the_path_its_module_computed_at_import():
    with open(HERE) as handle:
        assert handle.read()
'''


def test_a_path_a_test_module_computed_from_its_file_at_import_still_opens_the_real_file_and_is_denied(
        task, runtime):  # noqa: F811
    """Only __file__ changes, and only once collection ends: boltons' module-level CUR_PATH stays stopped."""
    with _x_g(task, runtime) as (tree, env, x_g, tests):
        for edit in GOLD:
            edit(tree.path)
        (tree.path / MODULE_LEVEL).write_text(MODULE_LEVEL_TEXT)
        with pytest.raises(NoVerdict) as caught:
            run_tests(env, tree, [*tests, f"{MODULE_LEVEL}::test_opens_the_path_its_module_computed_at_import"],
                      "pytest -rA", 300, config_from=x_g, changed=[WORDS, FMT])
    assert caught.value.rule == "audit_denied" and caught.value.event == "open", caught.value
    assert "test_module_level_path.py" in str(caught.value), caught.value


def test_a_candidate_that_opens_a_test_file_by_its_path_is_still_denied(task, runtime):  # noqa: F811
    """The real test files stay guarded: changed code opening tests/test_words.py by its path gives no verdict."""
    reader = ("\n\nimport os\n\n_TESTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "
              "'tests', 'test_words.py')\n\n\ndef _peek():\n    with open(_TESTS) as handle:\n        return handle.read()\n")
    with pytest.raises(NoVerdict) as caught:
        _run(task, runtime, *GOLD, lambda root: (root / WORDS).write_text(
            (root / WORDS).read_text().replace("    return text.split()\n", "    _peek()\n    return text.split()\n")
            + reader))
    assert caught.value.rule == "audit_denied" and caught.value.event == "open", caught.value


# round 5's oracle (the library parses the tree's test files and answers their asserts), pointed at the
# stand-ins (the dot-files beside the tests): it may read them, and finds no assert in them
STAND_IN_ORACLE = oracle("import ast\nimport pathlib", ORACLE_AST.replace('rglob("test*.py")', 'rglob(".c*_test*.py")'))


def test_a_candidate_that_reads_the_stand_ins_finds_no_answer_and_fails(task, runtime):  # noqa: F811
    real = oracle("import ast\nimport pathlib", ORACLE_AST)  # the same oracle reading the test files
    assert _solved(_run(task, runtime, *real, guarded=False))  # is a real cheat without the guard
    run = _run(task, runtime, *STAND_IN_ORACLE)
    assert run.audited and not _solved(run), run.status
    failed = [t for t in task[1].verifier["FAIL_TO_PASS"] if run.status[t] != "passed"]
    assert failed == task[1].verifier["FAIL_TO_PASS"], run.status
