"""Test results from the runner's JUnit XML, graded the way the SWE-bench harness learned to grade.

codewalk's own runs no longer read a JUnit file (a file the code under test could rewrite): their outcomes
come through the harness's channel (channel.py), which shares `cross_check` and the order of outcomes
(`WORST`) with this module. Reading JUnit XML stays for reports of runs made the way SWE-bench makes them.

Results come from the XML report, never from stdout. A test asked for but skipped or absent from the
report counts as failed. A report that is missing, unreadable or holds no test case at all is no
result: an InfraError, never a verdict. The runner's exit code is cross-checked against the report
(pytest exits 0 when every test passed, 1 or 2 when some failed or a module did not collect); a
disagreement means the report cannot be trusted, so that too is an InfraError.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from codewalk.errors import InfraError

WORST = ("passed", "skipped", "failed", "error")  # a test reported twice keeps its worst outcome


def node_key(node_id: str) -> tuple[str, str]:
    """(classname, name) under which pytest's junitxml reports a node id.

    Mirrors pytest's `mangle_test_address`: the file path becomes a dotted module, classes join it, and
    parameters stay on the name: "tests/test_a.py::TestX::test_y[1]" -> ("tests.test_a.TestX", "test_y[1]").
    """
    path, bracket, params = node_id.partition("[")
    names = path.split("::")
    names[0] = re.sub(r"\.py$", "", names[0].replace("/", "."))
    names[-1] += bracket + params
    return ".".join(names[:-1]), names[-1]


def read_report(path: Path) -> dict[tuple[str, str], str]:
    """(classname, name) -> passed / failed / error / skipped for every test case in a JUnit XML file."""
    try:
        root = ET.parse(path).getroot()
    except FileNotFoundError:
        raise InfraError("the test runner wrote no JUnit XML report") from None
    except ET.ParseError as e:
        raise InfraError(f"the JUnit XML report is unreadable: {e}") from None
    outcomes: dict[tuple[str, str], str] = {}
    for case in root.iter("testcase"):
        key = (case.get("classname", ""), case.get("name", ""))
        tags = {child.tag for child in case}
        status = ("error" if "error" in tags else "failed" if "failure" in tags
                  else "skipped" if "skipped" in tags else "passed")
        if WORST.index(status) >= WORST.index(outcomes.get(key, "passed")):
            outcomes[key] = status
    if not outcomes:
        raise InfraError("the JUnit XML report holds no test case: the tests did not run")
    return outcomes


def cross_check(outcomes: dict[tuple[str, str], str], returncode: int) -> None:
    """Raise InfraError when the exit code and the report disagree."""
    failed = sum(s in ("failed", "error") for s in outcomes.values())
    if returncode == 0 and failed:
        raise InfraError(f"the runner exited 0 but its report shows {failed} failed test(s)")
    if returncode in (1, 2) and not failed:
        raise InfraError(f"the runner exited {returncode} but its report shows no failure")
    if returncode not in (0, 1, 2):
        raise InfraError(f"the runner exited {returncode} (internal error, usage error or killed)")


def statuses(outcomes: dict[tuple[str, str], str], wanted: list[str]) -> dict[str, str]:
    """node id -> its outcome, 'missing' when the report does not mention it."""
    return {node: outcomes.get(node_key(node), "missing") for node in wanted}
