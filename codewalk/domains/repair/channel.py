"""Outcomes the code under test cannot write, and tests it cannot recognise by name.

A test run is started by the harness (harness/run.py), which hands the runner a key and a pipe. The runner
is harness/boot.py in place of pytest: it installs the run-time guard (a PEP 578 audit hook, Python 3.8+),
loads pytest and its plugins before the tree is on sys.path, records the report path, and sends each
report on the pipe as a numbered line signed whole (HMAC-SHA256). The harness keeps the lines that verify
and prints one line for the host, marked with a token only the host knows. So a verdict comes from what
pytest itself reported, never from a file or an output the tested code can reach. The same harness runs in
both runtimes; in a container it is root and the tests run as another user.

A run the guard stopped gives no verdict (`NoVerdict`, with its rule code): an event the audit hook denied
(changed code may not cause it, or a test file touched other than by pytest: audit_denied), a changed report
path (report_path_changed), a class's comparison or truth changed after it was made (class_changed), a channel
whose records do not add up (channel_forged: a gap in the numbering, a writer put under the descriptor,
per-test outcomes that disagree with pytest's exit status or its count of failures), or a test file or
renamed copy that differs after the run (tests_changed).

Each FAIL_TO_PASS test also runs a second time as a renamed copy (its module and its function renamed, each
name drawn per run): a fix that answers by the name of its caller or of the current test passes only one
of the two, and the test counts as passed only if both do.
"""

from __future__ import annotations

import ast
import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from codewalk.errors import InfraError

from .codes import Rule
from .junit import WORST, cross_check

HARNESS = Path(__file__).with_name("harness")
RUNNER = "run.py"  # the harness script's name in a run's harness directory
BOOT = "boot.py"  # the test runner it starts (pytest under the guard)
CONFINE = "confine.py"  # the kernel guard run.py puts the runner under (no file of /proc can be opened)
# Exit codes of boot.py when the guard stopped the run (harness/boot.py)
DENIED, REPORT_PATH, WRITER_REPLACED = 86, 87, 88
AUDIT_DENIED, REPORT_PATH_CHANGED, CHANNEL_FORGED, TESTS_CHANGED, CLASS_CHANGED = (
    Rule.AUDIT_DENIED, Rule.REPORT_PATH_CHANGED, Rule.CHANNEL_FORGED, Rule.TESTS_CHANGED, Rule.CLASS_CHANGED)


class NoVerdict(InfraError):
    """A run the run-time guard stopped: no verdict, and the rule code (and audit event) saying why."""

    def __init__(self, message: str, rule: str, event: str = ""):
        super().__init__(message)
        self.rule, self.event = rule, event


@dataclass(frozen=True)
class Report:
    """What the harness printed for one run."""

    exit: int
    timed_out: bool
    records: list[dict[str, Any]]
    unsigned: int  # lines on the channel whose signature does not verify: written by something other than the guard
    seconds: float
    output: str  # the end of the runner's stdout and stderr
    python: str
    began: float = 0.0  # when the harness started (time.time())
    gap: int | None = None  # the first verified record out of sequence (a line dropped or changed)
    changed: list[str] = field(default_factory=list)  # protected files that differ after the run
    proc_guard: str = ""  # what kept the runner from /proc: "landlock ABI n" (the kernel), or "audit hook: why"
    # what kept the protected files from every process of the run: "landlock ABI n" (the kernel), or "not the
    # kernel: why" (the hook and the digests alone), or "none: nothing to keep"
    files_guard: str = ""
    # what kept the harness from the signals of the run's processes: "landlock ABI n" (scoped), or "not the
    # kernel: why" (round 13b)
    signal_guard: str = ""
    data_kept: int = 0  # the test data the kernel and the digests kept besides the protected files (round 13b)
    # every other file of the tree as it landed that the diff did not change, kept likewise (round 14b)
    tree_kept: int = 0


def audited(report: Report) -> bool:
    """Whether the run was under the audit hook (Python 3.8+): its final record says so."""
    return any(r.get("audit") for r in report.records if "end" in r)


def memory_guard(report: Report) -> str:
    """What kept the runner's memory (the channel's key, the tests' objects) from the processes the tests start,
    as its final record says: "not dumpable" (harness/boot.py's _not_dumpable), or why not; "" without one."""
    return next((str(r.get("memory", "")) for r in reversed(report.records) if "end" in r), "")


def prepare(into: Path) -> None:
    """Write the harness (its script and the test runner it starts) into a directory."""
    for name in (RUNNER, BOOT, CONFINE):
        (into / name).write_text((HARNESS / name).read_text(encoding="utf-8"), encoding="utf-8")


def config(token: str, argv: list[str], cwd: str, env: dict[str, str], timeout: float,
           uid: int | None = None, memory_mb: int | None = None, *, changed: Sequence[str] = (),
           protected: Sequence[str] = (), data: Sequence[str] = (), tree: Sequence[str] = ()) -> str:
    """The harness's input: what to run, where, the token its report line starts with; as whom and with
    what address-space limit (a container: the local sandbox sets it on the harness itself); the files the
    candidate changed (the guard watches their frames) and the files the tests must leave as they are: the
    files that hold them (the runner's hook watches these too), their data and every other file of the tree as it
    landed that the candidate did not change (`tree`, round 14b; the kernel and digests only)."""
    return json.dumps({"token": token, "argv": argv, "cwd": cwd, "env": env, "timeout": timeout, "uid": uid,
                       "memory_mb": memory_mb, "plugins": True, "changed": list(changed),
                       "protected": list(protected), "data": list(data), "tree": list(tree)})


def read(stdout: str, token: str, returncode: int) -> Report:
    """The harness's report line; InfraError when it printed none (it died, or was killed), NoVerdict when
    there is more than one (the harness prints one: another was written where it writes)."""
    lines = [line for line in stdout.splitlines() if line.startswith(token + " ")]
    if len(lines) > 1:
        raise NoVerdict(f"the harness's output carried {len(lines)} report lines; it writes one", CHANNEL_FORGED)
    if not lines:
        raise InfraError(f"the test harness gave no report (exit code {returncode}): {stdout.strip()[-300:]}")
    try:
        data = json.loads(lines[0][len(token) + 1:])
        return Report(data["exit"], data["timed_out"], data["records"], data["unsigned"], data["seconds"],
                      data["output"], data["python"], data.get("began", 0.0), data.get("gap"),
                      data.get("changed", []), data.get("proc_guard", ""),
                      data.get("files_guard", ""), data.get("signal_guard", ""), data.get("data_kept", 0),
                      data.get("tree_kept", 0))
    except (ValueError, KeyError, TypeError) as e:  # a line written over or into the harness's own
        raise NoVerdict(f"the harness's report line does not read as its own ({e})", CHANNEL_FORGED) from None


def outcomes(report: Report) -> dict[str, str]:
    """node id -> passed / skipped / failed / error, from the signed records; InfraError when the session's
    own exit status is missing or disagrees with the runner's exit code or with the outcomes."""
    if report.timed_out:
        raise InfraError("the tests timed out")
    tail = report.output.strip()[-600:]
    _guarded(report, tail)
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
    end = next(r for r in reversed(report.records) if "end" in r)
    failures = sum(1 for r in report.records if ("node" in r or "collect" in r) and r["outcome"] == "failed"
                   and not r.get("xfail"))
    if end.get("failed", failures) != failures:
        raise NoVerdict(f"the channel carried {failures} failed report(s) but pytest counted {end['failed']}",
                        CHANNEL_FORGED)
    try:
        cross_check({(n, ""): s for n, s in found.items()}, report.exit)
    except InfraError as e:
        raise InfraError(f"{e}; output ends: {tail}") from None
    return found


def _guarded(report: Report, tail: str) -> None:
    """NoVerdict when the run-time guard stopped the run, or the channel or the test files were tampered with."""
    for record in report.records:
        if "denied" in record:
            raise NoVerdict(f"the audit hook denied {record['denied']} ({record.get('what', '')}): an event "
                            "changed code may not cause, or a test file opened or renamed other than by pytest",
                            AUDIT_DENIED, record["denied"])
        if record.get("guard") == REPORT_PATH_CHANGED:
            raise NoVerdict(f"the report path changed during the run ({record.get('what', '')})",
                            REPORT_PATH_CHANGED)
        if record.get("guard") == CLASS_CHANGED:
            raise NoVerdict(f"a class's comparison or truth changed during the run ({record.get('what', '')})",
                            CLASS_CHANGED)
    if report.changed:
        raise NoVerdict(f"the tests' files changed during the run: {', '.join(report.changed[:3])}", TESTS_CHANGED)
    if report.exit == WRITER_REPLACED:
        raise NoVerdict("the outcome channel's descriptor was replaced during the run", CHANNEL_FORGED)
    if report.unsigned:  # the plugin's own lines made to fail (its key overwritten), or lines written beside them
        raise NoVerdict(f"{report.unsigned} line(s) on the outcome channel did not verify: something other than "
                        "the guard wrote to it", CHANNEL_FORGED)
    if report.gap is not None:
        raise NoVerdict(f"the outcome channel lost or changed records (record {report.gap} out of sequence)",
                        CHANNEL_FORGED)
    if report.exit in (DENIED, REPORT_PATH) and not any("end" in r for r in report.records):
        raise NoVerdict(f"the runner exited {report.exit} (the guard's code) without its records; output ends: "
                        f"{tail}", CHANNEL_FORGED)


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

    tag: str  # drawn per run (each file and function name draws its own)
    nodes: dict[str, str] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)


def renamed_copies(root: Path, tests: list[str]) -> Copies:
    """Write, beside each file holding one of `tests`, a copy whose module and test functions are renamed;
    a test whose definition cannot be found in its file (generated, inherited) gets no copy."""
    copies = Copies(_token())
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
            if chain and chain not in names:
                new_name = f"{_prefix(chain[-1])}{_token()}"
                if _rename(tree, lines, chain, new_name):
                    names[chain] = new_name
        if not names:
            continue
        name = PurePosixPath(path).name
        tag = _token()
        new = f"test_{tag}_{name[5:]}" if name.startswith("test_") else f"{tag}_{name}"
        copy = str(PurePosixPath(path).with_name(new))
        (root / copy).write_text("".join(lines), encoding="utf-8")
        copies.files.append(copy)
        for node in nodes:
            chain = tuple(node.split("[")[0].split("::")[1:])
            if chain in names:
                params = node[len(node.split("[")[0]):]
                copies.nodes["::".join([copy, *chain[:-1], names[chain]]) + params] = node
    return copies


def stand_ins(root: Path, files: Sequence[str]) -> dict[str, str]:
    """Write, beside each test file, its stand-in: a dot-file of a name drawn per run (pytest is given the
    files to run, so it collects none of these), of the same size and lines, each line a `#` padded with
    spaces to its length in bytes, line endings kept. No byte of the test's text is in it, so anyone may
    open it; the size and line count keep what a test checks of a file it opens (an upload's length, a line
    number), and it is valid Python (comments only). The guard's plugin (harness/boot.py) sets each test
    module's __file__ to its stand-in once collection ends. Returns test file -> stand-in, relative to root."""
    found: dict[str, str] = {}
    for path in files:
        file = root / path
        if not file.is_file():
            continue
        blank = b"".join(_blank(line) for line in file.read_bytes().splitlines(keepends=True))
        name = str(PurePosixPath(path).with_name(f".{_token()}_{PurePosixPath(path).name}"))
        with open(root / name, "xb") as out:  # x: never through a file or link already there
            out.write(blank)
        found[path] = name
    return found


def _blank(line: bytes) -> bytes:
    body = line.rstrip(b"\r\n")
    return (b"#" + b" " * (len(body) - 1) if body else b"") + line[len(body):]


def _token() -> str:
    """A name part drawn per copy: nothing maps a copy back to its test or to its place in F2P."""
    return f"c{secrets.token_hex(6)}"


def _prefix(name: str) -> str:
    """The start of a test function's name that pytest's python_functions pattern most likely matches."""
    head, sep, _ = name.partition("_")
    return f"{head}_" if sep else f"{name}_"


def _rename(tree: ast.Module, lines: list[str], chain: tuple[str, ...], new_name: str) -> bool:
    """Rename the function chain[-1] (in the classes chain[:-1]) to new_name in `lines`; False if it is not
    defined there."""
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
    lines[func.lineno - 1] = line[:at] + new_name + line[at + len(func.name):]
    return True
