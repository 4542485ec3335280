"""Grading hygiene (SWE-bench's lessons): results from JUnit XML; skipped or missing means failed; no
report is no verdict; the exit code must agree with the report."""

from __future__ import annotations

import sys

import pytest

from codewalk.domains.repair.junit import cross_check, node_key, read_report, statuses
from codewalk.errors import InfraError
from codewalk.runtime import sandbox

REPORT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="5">
<testcase classname="tests.test_a" name="test_ok" time="0.001"/>
<testcase classname="tests.test_a" name="test_bad" time="0.001"><failure message="assert 0"/></testcase>
<testcase classname="tests.test_a.TestK" name="test_err" time="0.001"><error message="boom"/></testcase>
<testcase classname="tests.test_a" name="test_skip[x-1]" time="0"><skipped message="later"/></testcase>
<testcase classname="tests.test_a" name="test_ok" time="0.001"><error message="teardown"/></testcase>
</testsuite></testsuites>
"""


def test_node_ids_map_to_pytest_junit_names():
    assert node_key("tests/test_a.py::test_ok") == ("tests.test_a", "test_ok")
    assert node_key("tests/test_a.py::TestK::test_err") == ("tests.test_a.TestK", "test_err")
    assert node_key("tests/test_a.py::test_p[a/b::c.py]") == ("tests.test_a", "test_p[a/b::c.py]")


def test_report_outcomes_keep_the_worst_of_repeated_cases(tmp_path):
    path = tmp_path / "r.xml"
    path.write_text(REPORT)
    outcomes = read_report(path)
    assert outcomes == {("tests.test_a", "test_ok"): "error",  # passed, then failed at teardown
                        ("tests.test_a", "test_bad"): "failed", ("tests.test_a.TestK", "test_err"): "error",
                        ("tests.test_a", "test_skip[x-1]"): "skipped"}


def test_skipped_and_missing_tests_are_not_passes(tmp_path):
    path = tmp_path / "r.xml"
    path.write_text(REPORT)
    got = statuses(read_report(path), ["tests/test_a.py::test_skip[x-1]", "tests/test_a.py::test_gone"])
    assert got == {"tests/test_a.py::test_skip[x-1]": "skipped", "tests/test_a.py::test_gone": "missing"}


@pytest.mark.parametrize("content, why", [
    (None, "wrote no JUnit XML"),
    ("<testsuites><testsuite", "unreadable"),
    ('<testsuites><testsuite name="pytest" tests="0"/></testsuites>', "holds no test case"),
])
def test_no_report_is_an_infra_error_not_a_failure(tmp_path, content, why):
    path = tmp_path / "r.xml"
    if content is not None:
        path.write_text(content)
    with pytest.raises(InfraError, match=why):
        read_report(path)


@pytest.mark.parametrize("outcomes, returncode, ok", [
    ({("m", "t"): "passed"}, 0, True),
    ({("m", "t"): "failed"}, 1, True),
    ({("", "tests.test_m"): "error"}, 2, True),  # a module that did not collect
    ({("m", "t"): "failed"}, 0, False),  # a report of failures from a run that says all passed
    ({("m", "t"): "passed"}, 1, False),  # a spoofed all-pass report from a failing run
    ({("m", "t"): "passed"}, 3, False),  # pytest internal error
    ({("m", "t"): "passed"}, -9, False),  # killed
])
def test_exit_code_must_agree_with_the_report(outcomes, returncode, ok):
    if ok:
        cross_check(outcomes, returncode)
    else:
        with pytest.raises(InfraError):
            cross_check(outcomes, returncode)


def test_real_pytest_report_names_match_node_ids(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_names.py").write_text(
        "import pytest\n\n"
        "class TestGroup:\n    def test_method(self):\n        pass\n\n"
        "@pytest.mark.parametrize('value', ['a/b::c', 'x y'])\n"
        "def test_param(value):\n    assert value != 'x y'\n\n"
        "def test_skipped():\n    pytest.skip('not today')\n")
    done = sandbox.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--rootdir=.",
                        "--junitxml=report.xml", "tests/test_names.py"], cwd=tmp_path, timeout=120)
    outcomes = read_report(tmp_path / "report.xml")
    cross_check(outcomes, done.returncode)
    wanted = ["tests/test_names.py::TestGroup::test_method", "tests/test_names.py::test_param[a/b::c]",
              "tests/test_names.py::test_param[x y]", "tests/test_names.py::test_skipped"]
    expected = ["passed", "passed", "failed", "skipped"]
    assert statuses(outcomes, wanted) == dict(zip(wanted, expected, strict=True))
