"""The repair harness's outcome channel and renamed copies, on their own: what the records say, what the
exit status must agree with, and how a copy renames a test (the runs themselves: test_repair_docker.py)."""

from __future__ import annotations

import ast

import pytest

from codewalk.domains.repair.channel import Report, outcomes, renamed_copies
from codewalk.errors import InfraError

A = "tests/test_a.py::test_one"


def _report(exit: int, *records: dict, end: int | None = None) -> Report:
    tail = [] if end is None else [{"end": end}]
    return Report(exit, False, [*records, *tail], 0, 0.1, "", "3.11.2")


def _phases(node: str, call: str, setup: str = "passed", teardown: str = "passed") -> list[dict]:
    return [{"node": node, "when": "setup", "outcome": setup}, {"node": node, "when": "call", "outcome": call},
            {"node": node, "when": "teardown", "outcome": teardown}]


def test_a_test_passes_only_when_its_call_passed_and_no_phase_failed():
    records = [*_phases(A, "passed"), *_phases("t::b", "passed", teardown="failed"),
               {"node": "t::c", "when": "setup", "outcome": "failed"}, {"node": "t::c", "when": "teardown",
                                                                         "outcome": "passed"},
               *_phases("t::d", "skipped")]
    assert outcomes(_report(1, *records, end=1)) == {A: "passed", "t::b": "error", "t::c": "error", "t::d": "skipped"}


def test_a_session_without_its_end_record_gives_no_verdict():
    with pytest.raises(InfraError, match="without its final report"):
        outcomes(_report(0, *_phases(A, "passed")))


def test_an_end_record_that_disagrees_with_the_exit_code_gives_no_verdict():
    with pytest.raises(InfraError, match="exited 0 but its session ended with status 1"):
        outcomes(_report(0, *_phases(A, "failed"), end=1))


def test_exit_zero_with_a_failed_test_gives_no_verdict():
    with pytest.raises(InfraError, match="exited 0"):
        outcomes(_report(0, *_phases(A, "failed"), end=0))


def test_a_collection_error_is_an_error_of_the_module():
    found = outcomes(_report(2, {"collect": "tests/test_a.py", "outcome": "failed"}, end=2))
    assert found == {"tests/test_a.py": "error"}


def test_a_timed_out_run_gives_no_verdict():
    report = Report(-9, True, [], 0, 5.0, "", "")
    with pytest.raises(InfraError, match="timed out"):
        outcomes(report)


SOURCE = '''import pytest


def helper():
    return 1


def test_one():
    assert helper() == 1


class TestGroup:
    @pytest.mark.parametrize("x", [1, 2])
    def test_two(self, x):
        assert x


async def test_three():
    pass
'''


def test_renamed_copies_rename_the_module_and_each_test_and_keep_parameters(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text(SOURCE)
    copies = renamed_copies(tmp_path, [A, "tests/test_a.py::TestGroup::test_two[1]",
                                       "tests/test_a.py::test_three", "tests/test_a.py::test_gone"])
    tag = copies.tag
    assert copies.files == [f"tests/test_{tag}_a.py"]
    assert copies.nodes == {f"tests/test_{tag}_a.py::test_{tag}_0": A,
                            f"tests/test_{tag}_a.py::TestGroup::test_{tag}_1[1]": "tests/test_a.py::TestGroup::test_two[1]",
                            f"tests/test_{tag}_a.py::test_{tag}_2": "tests/test_a.py::test_three"}
    copy = (tmp_path / copies.files[0]).read_text()
    names = {n.name for n in ast.walk(ast.parse(copy)) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    assert names == {"helper", f"test_{tag}_0", f"test_{tag}_1", f"test_{tag}_2"}
    assert "test_one" not in copy and "test_two" not in copy  # nothing left that names the original test
    assert (tmp_path / "tests" / "test_a.py").read_text() == SOURCE


def test_each_run_draws_a_new_tag(tmp_path):
    (tmp_path / "test_a.py").write_text(SOURCE)
    assert renamed_copies(tmp_path, ["test_a.py::test_one"]).tag != renamed_copies(tmp_path, ["test_a.py::test_one"]).tag
