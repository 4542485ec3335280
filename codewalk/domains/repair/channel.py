"""Outcomes the code under test cannot write, and tests it cannot recognise by name.

A test run is started by the harness (harness/run.py), which hands the runner a nonce and a pipe; a pytest
plugin of the harness's (harness/outcomes.py, loaded with -p under a name drawn per run, before any module
under test) writes each report to the pipe, signed with the nonce. The harness prints one line for the
host, marked with a token only the host knows. So a verdict comes from what pytest itself reported, never
from a file or an output the tested code can reach: a JUnit file rewritten at exit, a forged line on the
pipe or on stdout, or an `os._exit(0)` before the session ends (no final record: no verdict) earn nothing.
The same harness runs in both runtimes; in a container it is root and the tests run as another user.

Each FAIL_TO_PASS test also runs a second time as a renamed copy (its module and its function renamed, with
a tag drawn per run): a fix that answers by the name of its caller or of the current test passes only one
of the two, and the test counts as passed only if both do.
"""

from __future__ import annotations

import ast
import json
import secrets
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from codewalk.errors import InfraError

from .junit import WORST, cross_check

HARNESS = Path(__file__).with_name("harness")
RUNNER = "run.py"  # the harness script's name in a run's harness directory


@dataclass(frozen=True)
class Report:
    """What the harness printed for one run."""

    exit: int
    timed_out: bool
    records: list[dict[str, Any]]
    unsigned: int  # lines on the channel without the nonce: written by something other than the plugin
    seconds: float
    output: str  # the end of the runner's stdout and stderr
    python: str
    began: float = 0.0  # when the harness started (time.time())


def prepare(into: Path) -> str:
    """Write the harness (runner script and plugin) into a directory; return the plugin's module name."""
    plugin = f"_cw_{secrets.token_hex(8)}"
    (into / RUNNER).write_text((HARNESS / "run.py").read_text(encoding="utf-8"), encoding="utf-8")
    (into / f"{plugin}.py").write_text((HARNESS / "outcomes.py").read_text(encoding="utf-8"), encoding="utf-8")
    return plugin


def config(token: str, argv: list[str], cwd: str, env: dict[str, str], timeout: float,
           uid: int | None = None, memory_mb: int | None = None) -> str:
    """The harness's input: what to run, where, the token its report line starts with; as whom and with
    what address-space limit (a container: the local sandbox sets it on the harness itself)."""
    return json.dumps({"token": token, "argv": argv, "cwd": cwd, "env": env, "timeout": timeout, "uid": uid,
                       "memory_mb": memory_mb, "plugins": True})


def read(stdout: str, token: str, returncode: int) -> Report:
    """The harness's report line; InfraError when it printed none (it died, or was killed)."""
    for line in reversed(stdout.splitlines()):
        if line.startswith(token + " "):
            data = json.loads(line[len(token) + 1:])
            return Report(data["exit"], data["timed_out"], data["records"], data["unsigned"], data["seconds"],
                          data["output"], data["python"], data.get("began", 0.0))
    raise InfraError(f"the test harness gave no report (exit code {returncode}): {stdout.strip()[-300:]}")


def outcomes(report: Report) -> dict[str, str]:
    """node id -> passed / skipped / failed / error, from the signed records; InfraError when the session's
    own exit status is missing or disagrees with the runner's exit code or with the outcomes."""
    if report.timed_out:
        raise InfraError("the tests timed out")
    tail = report.output.strip()[-600:]
    ends = [r["end"] for r in report.records if "end" in r]
    if not ends:
        raise InfraError(f"the test session ended without its final report (exit code {report.exit}): "
                         f"the runner died or was made to exit early; output ends: {tail}")
    if ends[-1] != report.exit:
        raise InfraError(f"the runner exited {report.exit} but its session ended with status {ends[-1]}")
    found: dict[str, str] = {}
    called: set[str] = set()
    for r in report.records:
        node = r.get("node") or r.get("collect")
        if node is None:
            continue
        status = _status(r)
        if r.get("when") == "call":
            called.add(node)
        if WORST.index(status) >= WORST.index(found.get(node, "passed")):
            found[node] = status
    for node in found:
        if found[node] == "passed" and node not in called:
            found[node] = "error"  # set up and torn down, never run
    if not found:
        raise InfraError(f"the runner reported no test (exit code {report.exit}): the tests did not run; "
                         f"output ends: {tail}")
    try:
        cross_check({(n, ""): s for n, s in found.items()}, report.exit)
    except InfraError as e:
        raise InfraError(f"{e}; output ends: {tail}") from None
    return found


def _status(record: dict[str, Any]) -> str:
    outcome, when = record["outcome"], record.get("when", "collect")
    if outcome == "passed":
        return "passed"
    if outcome == "skipped":
        return "skipped"
    return "failed" if when == "call" else "error"


@dataclass
class Copies:
    """Renamed copies of tests: copy node id -> original node id, and the files written."""

    tag: str
    nodes: dict[str, str] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)


def renamed_copies(root: Path, tests: list[str]) -> Copies:
    """Write, beside each file holding one of `tests`, a copy whose module and test functions are renamed;
    a test whose definition cannot be found in its file (generated, inherited) gets no copy."""
    copies = Copies(f"cw{secrets.token_hex(4)}")
    by_file: dict[str, list[str]] = {}
    for test in tests:
        by_file.setdefault(test.split("::")[0], []).append(test)
    for path, nodes in sorted(by_file.items()):
        file = root / path
        if not file.is_file() or file.is_symlink():
            continue
        source = file.read_text(encoding="utf-8", errors="replace")
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        lines = source.splitlines(keepends=True)
        names: dict[tuple[str, ...], str] = {}
        for node in nodes:
            chain = tuple(node.split("[")[0].split("::")[1:])
            if chain and chain not in names and _rename(tree, lines, chain, copies.tag, len(names)):
                names[chain] = f"{_prefix(chain[-1])}{copies.tag}_{len(names)}"
        if not names:
            continue
        name = PurePosixPath(path).name
        new = (f"test_{copies.tag}_{name[5:]}" if name.startswith("test_") else f"{copies.tag}_{name}")
        copy = str(PurePosixPath(path).with_name(new))
        (root / copy).write_text("".join(lines), encoding="utf-8")
        copies.files.append(copy)
        for node in nodes:
            chain = tuple(node.split("[")[0].split("::")[1:])
            if chain in names:
                params = node[len(node.split("[")[0]):]
                copies.nodes["::".join([copy, *chain[:-1], names[chain]]) + params] = node
    return copies


def _prefix(name: str) -> str:
    """The start of a test function's name that pytest's python_functions pattern most likely matches."""
    head, sep, _ = name.partition("_")
    return f"{head}_" if sep else f"{name}_"


def _rename(tree: ast.Module, lines: list[str], chain: tuple[str, ...], tag: str, number: int) -> bool:
    """Rename the function chain[-1] (in the classes chain[:-1]) in `lines`; False if it is not defined there."""
    body: list[ast.stmt] = tree.body
    for cls in chain[:-1]:
        found = next((n for n in body if isinstance(n, ast.ClassDef) and n.name == cls), None)
        if found is None:
            return False
        body = found.body
    func = next((n for n in body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == chain[-1]),
                None)
    if func is None:
        return False
    line = lines[func.lineno - 1]
    at = line.find(f"def {func.name}", func.col_offset)
    if at < 0:
        return False
    at += len("def ")
    lines[func.lineno - 1] = line[:at] + f"{_prefix(func.name)}{tag}_{number}" + line[at + len(func.name):]
    return True
