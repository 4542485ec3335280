"""The repair harness's outcome channel and renamed copies, on their own: what the records say, what the
exit status must agree with, and how a copy renames a test (the runs themselves: test_repair_docker.py)."""

from __future__ import annotations

import ast
import json
import re

import pytest

from codewalk.domains.repair.channel import NoVerdict, Report, outcomes, read, renamed_copies
from codewalk.errors import InfraError

A = "tests/test_a.py::test_one"


def _report(exit: int, *records: dict, end: int | None = None, **fields) -> Report:
    tail = [] if end is None else [{"end": end}]
    return Report(exit, False, [*records, *tail], 0, 0.1, "", "3.11.2", **fields)


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
    [copy_file] = copies.files
    assert re.fullmatch(r"tests/test_c[0-9a-f]{12}_a\.py", copy_file)
    assert sorted(copies.nodes.values()) == sorted([A, "tests/test_a.py::TestGroup::test_two[1]",
                                                    "tests/test_a.py::test_three"])
    by_original = {original: node for node, original in copies.nodes.items()}
    assert re.fullmatch(re.escape(copy_file) + r"::test_c[0-9a-f]{12}", by_original[A])
    assert re.fullmatch(re.escape(copy_file) + r"::TestGroup::test_c[0-9a-f]{12}\[1\]",
                        by_original["tests/test_a.py::TestGroup::test_two[1]"])
    copy = (tmp_path / copy_file).read_text()
    names = {n.name for n in ast.walk(ast.parse(copy)) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    assert names == {"helper"} | {node.split("::")[-1].split("[")[0] for node in copies.nodes}
    assert "test_one" not in copy and "test_two" not in copy  # nothing left that names the original test
    assert (tmp_path / "tests" / "test_a.py").read_text() == SOURCE


def test_copies_are_not_numbered_in_the_order_of_the_tests(tmp_path):
    """Each copy's name is drawn on its own: neither its suffix nor its sort order maps it back to its test."""
    (tmp_path / "test_a.py").write_text(SOURCE)
    tests = ["test_a.py::test_one", "test_a.py::test_three"]
    seen = []
    for _ in range(8):
        copies = renamed_copies(tmp_path, tests)
        for path in copies.files:
            (tmp_path / path).unlink()
        by_original = {original: node.split("::")[-1] for node, original in copies.nodes.items()}
        assert not by_original[tests[0]].endswith("_0") and not by_original[tests[1]].endswith("_1")
        seen.append(by_original[tests[0]] < by_original[tests[1]])
    assert len(set(seen)) == 2  # sorted by name, the copies come in either order


def test_each_run_draws_a_new_tag(tmp_path):
    (tmp_path / "test_a.py").write_text(SOURCE)
    assert renamed_copies(tmp_path, ["test_a.py::test_one"]).tag != renamed_copies(tmp_path, ["test_a.py::test_one"]).tag


# -- the run-time guard's verdicts: no verdict, with the rule code ----------------------------------------
def _no_verdict(report: Report) -> NoVerdict:
    with pytest.raises(NoVerdict) as caught:
        outcomes(report)
    return caught.value


def test_a_denied_audit_event_gives_no_verdict_naming_the_event():
    err = _no_verdict(_report(86, *_phases(A, "passed")[:1], {"denied": "sys._getframe", "what": ""}))
    assert (err.rule, err.event) == ("audit_denied", "sys._getframe")


def test_a_changed_report_path_gives_no_verdict():
    err = _no_verdict(_report(87, {"guard": "report_path_changed", "what": "added: x"}))
    assert err.rule == "report_path_changed" and "added: x" in str(err)


def test_a_record_missing_from_the_sequence_gives_no_verdict_even_with_an_end():
    err = _no_verdict(_report(0, *_phases(A, "passed"), end=0, gap=2))
    assert err.rule == "channel_forged"


def test_a_replaced_writer_gives_no_verdict():
    assert _no_verdict(_report(88, *_phases(A, "passed")[:1])).rule == "channel_forged"


def test_outcomes_that_disagree_with_pytests_count_of_failures_give_no_verdict():
    records = [*_phases(A, "passed"), {"end": 0, "failed": 1}]
    assert _no_verdict(_report(0, *records)).rule == "channel_forged"
    records = [*_phases(A, "failed"), {"end": 1, "failed": 1}]
    assert outcomes(_report(1, *records)) == {A: "failed"}


def test_a_line_on_the_channel_that_does_not_verify_gives_no_verdict():
    # the plugin's own lines made to fail (its key overwritten in memory) and forged ones sent in their place
    report = Report(0, False, [*_phases(A, "passed"), {"end": 0}], 2, 0.1, "", "3.11.2")
    assert _no_verdict(report).rule == "channel_forged"


def _line(token: str, exit: int = 0) -> str:
    return token + " " + json.dumps({"exit": exit, "timed_out": False, "records": [], "unsigned": 0,
                                     "seconds": 0.1, "output": "", "python": "3.11.2"})


def test_the_harness_s_report_line_is_read_only_when_it_is_the_only_one():
    assert read("noise\n" + _line("T") + "\n", "T", 0).exit == 0
    # a second line with the token (written where the harness writes, before or after its own): no verdict
    for stdout in (_line("T", 0) + "\n" + _line("T", 1), "\n" * 5 + _line("T", 1) + "\n" + _line("T", 0)):
        with pytest.raises(NoVerdict) as stopped:
            read(stdout, "T", 0)
        assert stopped.value.rule == "channel_forged"
    with pytest.raises(NoVerdict) as stopped:  # written into the middle of the harness's line
        read(_line("T")[:40] + "xx", "T", 0)
    assert stopped.value.rule == "channel_forged"
    with pytest.raises(InfraError):
        read("no report\n", "T", 1)


def test_a_test_file_changed_by_the_run_gives_no_verdict():
    err = _no_verdict(_report(0, *_phases(A, "passed"), end=0, changed=["tests/test_a.py"]))
    assert err.rule == "tests_changed" and "tests/test_a.py" in str(err)


def test_a_signature_is_checked_over_the_whole_line(tmp_path):
    """The harness keeps a line only when its HMAC is that of its whole body: a valid signature with the
    body changed, cut or extended is not a record (and leaves a gap in the numbering)."""
    import json
    import os
    import subprocess
    import sys

    from codewalk.domains.repair.channel import HARNESS

    writer = f"""
import os, sys, json, hmac, hashlib
key = os.read(int(os.environ["CODEWALK_KEY_FD"]), 256)
out = int(os.environ["CODEWALK_OUTCOMES_FD"])
def line(seq, body, mangle=lambda b: b):
    body = json.dumps(dict(body, seq=seq), sort_keys=True).encode()
    mac = hmac.new(key, body, hashlib.sha256).hexdigest().encode()
    os.write(out, mac + b" " + mangle(body) + b"\\n")
line(0, {{"node": "{A}", "when": "call", "outcome": "failed"}}, lambda b: b.replace(b"failed", b"passed"))
line(0, {{"node": "{A}", "when": "call", "outcome": "passed"}})
line(1, {{"end": 0}}, lambda b: b[:-1])
line(1, {{"end": 0}}, lambda b: b + b" ")
line(1, {{"end": 0}})
"""
    (tmp_path / "w.py").write_text(writer)
    config = {"token": "T", "argv": [sys.executable, str(tmp_path / "w.py")], "cwd": str(tmp_path),
              "env": {"PATH": os.environ["PATH"]}, "timeout": 60}
    done = subprocess.run([sys.executable, "-I", str(HARNESS / "run.py")], input=json.dumps(config),
                          capture_output=True, text=True, timeout=120, check=True)
    report = json.loads(done.stdout.split("T ", 1)[1])
    assert report["unsigned"] == 3
    assert [r.get("outcome", r.get("end")) for r in report["records"]] == ["passed", 0]
    assert report["gap"] is None
