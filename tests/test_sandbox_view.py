"""What graded code can see (issue: isolation by allow-list). A hostile candidate that checks whether a
path exists, and behaves as the reference only if it does, must find nothing but its own work
directory, the system directories and its interpreter."""

from __future__ import annotations

import json
import os
import socket
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from codewalk import paths, sandbox
from codewalk.grading import grade_predictions
from codewalk.store import open_store

REPO = Path(__file__).resolve().parents[1]
needs_isolation = pytest.mark.skipif(not sandbox._bwrap_works() and not os.environ.get("CI"),
                                     reason=f"this machine gives: {sandbox.isolation()}")
pytestmark = needs_isolation


def _probes(tmp_path: Path, store: Path) -> dict[str, Path]:
    """Places a graded run must not see: each exists on the host."""
    exported = tmp_path / "tasks.jsonl"
    exported.write_text('{"task_id": "t1"}\n')
    dotfile = Path.home() / ".codewalk-probe"
    dotfile.write_text("secret")
    cache = paths.cache("demo")
    cache.mkdir(parents=True, exist_ok=True)
    probes = {"the store in use": store, "an exported task file": exported, "a dotfile in $HOME": dotfile,
              "the admission cache": cache, "the project checkout": REPO / "pyproject.toml",
              "the datasets": paths.shared(), "/etc/shadow": Path("/etc/shadow")}
    return {what: path for what, path in probes.items() if path.exists()}


def test_an_allow_listed_run_sees_none_of_the_host_but_its_interpreter(tmp_path):
    probes = _probes(tmp_path, tmp_path / "graph.lbug")
    (tmp_path / "graph.lbug").write_text("")
    probes["the store in use"] = tmp_path / "graph.lbug"
    program = f"import os, sys; print(json.dumps({{w: os.path.exists(p) for w, p in {json.dumps({w: str(p) for w, p in probes.items()})}.items()}}))"
    with sandbox.workdir() as cwd:
        done = sandbox.run([sys.executable, "-I", "-S", "-c", "import json\n" + program], cwd=cwd, timeout=30,
                           sees=sandbox.python_runtime())
        outside = os.listdir("/tmp")
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen and not any(seen.values()), f"visible to graded code: {[w for w, s in seen.items() if s]}"
    assert len(outside) > 1  # /tmp on the host holds more than this run's folder ...
    with sandbox.workdir() as cwd:
        listed = sandbox.run([sys.executable, "-I", "-S", "-c", "import json, os; print(json.dumps(os.listdir('/tmp')))"], cwd=cwd,
                             timeout=30, sees=sandbox.python_runtime())
    runtime = {p.parts[2] for p in sandbox.python_runtime() if p.parts[1:2] == ("tmp",)}  # a venv in /tmp
    assert set(json.loads(listed.stdout)) == {cwd.name} | runtime  # ... and the run sees only its own folder


def test_a_demo_candidate_that_probes_the_host_is_graded_as_if_it_saw_nothing(demo_store_path, tmp_path):
    """A candidate that behaves as the reference only when a host path exists must fail for every path."""
    with open_store(demo_store_path) as store:
        task = store.select_tasks("demo", "admitted")[0]
        probes = _probes(tmp_path, Path(demo_store_path))
        rows = []
        for what, path in probes.items():
            guard = f"import os\nif not os.path.exists({str(path)!r}):\n    raise SystemExit('blind')\n"
            rows.append({"task_id": task["id"], "output": guard + task["reference"], "model": what})
        rows.append({"task_id": task["id"], "output": "import os\n" + task["reference"], "model": "reference"})
        for i, row in enumerate(rows):
            (tmp_path / f"p{i}.jsonl").write_text(json.dumps(row) + "\n")
            report = grade_predictions(store, "demo", tmp_path / f"p{i}.jsonl")
            solved = report.passed == 1
            assert solved == (row["model"] == "reference"), f"{row['model']}: graded solved={solved}"


def test_grading_without_isolation_is_refused_when_required(capsys, demo_store_path, tmp_path, monkeypatch):
    from tests.run_cw import cw

    (tmp_path / "p.jsonl").write_text(json.dumps({"task_id": "t1", "output": "x"}) + "\n")
    monkeypatch.setattr(sandbox, "_bwrap_works", lambda: False)  # a machine without bubblewrap
    code, _, err = cw(capsys, "--store", str(demo_store_path), "grade", "--domain", "demo", "--require-isolation",
                      str(tmp_path / "p.jsonl"))
    assert code == 2 and "cannot be isolated here" in err and "--allow-unisolated" in err
    code, _, err = cw(capsys, "--store", str(demo_store_path), "grade", "--domain", "demo", "--allow-unisolated",
                      str(tmp_path / "p.jsonl"))
    assert "without isolation" in err.replace("\n", " ")  # graded, with a warning (t1 is then unknown: exit 2)


def test_a_frama_c_run_sees_its_why3_configuration_and_include_folders_only(tmp_path):
    """Proofs: Frama-C's view is the allow-list too (a hostile annotation cannot reach the host)."""
    from codewalk.domains.proofs import acsl
    from tests.shared_data import require

    root = require("acsl-bench", "acsl-by-example")
    spec = {"include": [str(root), str(root / "Logic")]}
    probes = _probes(tmp_path, tmp_path / "graph.lbug")
    (tmp_path / "graph.lbug").write_text("")
    probes["the store in use"] = tmp_path / "graph.lbug"
    probes.pop("the datasets", None)  # the include folders are inside it: probe a sibling instead
    probes["another dataset"] = require("fempd")
    checks = " ".join(f"test -e {str(p)!r} && echo {i};" for i, p in enumerate(probes.values()))
    with sandbox.workdir() as cwd:
        done = sandbox.run(["/bin/sh", "-c", checks + " test -r " + str(acsl.view(spec)[1]) + " && echo config"],
                           cwd=cwd, timeout=30, sees=acsl.view(spec))
    names = list(probes)
    seen = [names[int(w)] for w in done.stdout.split() if w.isdigit()]
    assert not seen, f"visible to Frama-C: {seen}"
    assert "config" in done.stdout.split()  # what it needs is there


@contextmanager
def _loopback_port() -> Iterator[int]:
    """A port listening on the host's loopback, as the Neo4j Bolt port does."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        yield server.getsockname()[1]


def test_a_demo_candidate_that_needs_a_port_on_the_hosts_loopback_is_graded_as_if_offline(demo_store_path,
                                                                                          tmp_path):
    with open_store(demo_store_path) as store, _loopback_port() as port:
        task = store.select_tasks("demo", "admitted")[0]
        guard = f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=3).close()\n"
        for name, output in (("probe", guard + task["reference"]), ("reference", task["reference"])):
            (tmp_path / f"{name}.jsonl").write_text(json.dumps({"task_id": task["id"], "output": output}) + "\n")
            report = grade_predictions(store, "demo", tmp_path / f"{name}.jsonl")
            assert (report.passed == 1) == (name == "reference"), f"{name}: graded solved={report.passed == 1}"


def test_a_complexity_program_run_sees_none_of_the_host_nor_its_loopback(tmp_path):
    """Complexity runs dataset programs no one reviewed (atoms, composites): the same allow-list."""
    from codewalk.domains.complexity.run import run_program

    probes = _probes(tmp_path, tmp_path / "graph.lbug")
    with _loopback_port() as port:
        program = ("import json, os, socket\n"
                   f"seen = {{w: os.path.exists(p) for w, p in {json.dumps({w: str(p) for w, p in probes.items()})}.items()}}\n"
                   "try:\n"
                   f"    socket.create_connection(('127.0.0.1', {port}), timeout=3).close()\n"
                   "    seen['a port on the host loopback'] = True\n"
                   "except OSError:\n"
                   "    seen['a port on the host loopback'] = False\n"
                   "print(json.dumps(seen))\n")
        done = run_program(program, "", timeout=30)
    assert done.ok, done.detail
    seen = json.loads(done.stdout)
    assert len(seen) == len(probes) + 1 and not any(seen.values()), [w for w, s in seen.items() if s]
