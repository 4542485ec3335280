"""What graded code can see (issue: isolation by allow-list). A hostile candidate that checks whether a
path exists, and behaves as the reference only if it does, must find nothing but its own work
directory, the system directories and its interpreter."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from codewalk.grading import grade_predictions
from codewalk.runtime import sandbox
from codewalk.store import open_store
from tests.host_probes import host_places, loopback_port

REPO = Path(__file__).resolve().parents[1]
needs_isolation = pytest.mark.skipif(not sandbox._bwrap_works() and not os.environ.get("CI"),
                                     reason=f"this machine gives: {sandbox.isolation()}")
pytestmark = needs_isolation


def test_an_allow_listed_run_sees_none_of_the_host_but_its_interpreter(tmp_path):
    with host_places(tmp_path) as probes:
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
        rows = []
        with host_places(tmp_path, Path(demo_store_path)) as probes:
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


def test_a_frama_c_run_sees_its_why3_configuration_only(tmp_path):
    """Proofs: Frama-C's view is the allow-list too (a hostile annotation cannot reach the host). A task's
    included headers travel in its verifier spec and are written into the work directory, so no dataset
    folder is bound."""
    from codewalk.domains.proofs import acsl

    with host_places(tmp_path) as probes, loopback_port() as port:
        checks = " ".join(f"test -e {str(p)!r} && echo {i};" for i, p in enumerate(probes.values()))
        connect = f"(echo > /dev/tcp/127.0.0.1/{port}) 2>/dev/null && echo port;"
        config = acsl.view({})[1]
        with sandbox.workdir() as cwd:
            done = sandbox.run(["/bin/bash", "-c", f"{checks} {connect} test -r {config} && echo config"],
                               cwd=cwd, timeout=30, sees=acsl.view({}))
    names = list(probes)
    seen = [names[int(w)] for w in done.stdout.split() if w.isdigit()] + [w for w in done.stdout.split() if w == "port"]
    assert not seen, f"visible to Frama-C: {seen}"
    assert "config" in done.stdout.split()  # what it needs is there


def test_a_demo_candidate_that_needs_a_port_on_the_hosts_loopback_is_graded_as_if_offline(demo_store_path,
                                                                                          tmp_path):
    with open_store(demo_store_path) as store, loopback_port() as port:
        task = store.select_tasks("demo", "admitted")[0]
        guard = f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=3).close()\n"
        for name, output in (("probe", guard + task["reference"]), ("reference", task["reference"])):
            (tmp_path / f"{name}.jsonl").write_text(json.dumps({"task_id": task["id"], "output": output}) + "\n")
            report = grade_predictions(store, "demo", tmp_path / f"{name}.jsonl")
            assert (report.passed == 1) == (name == "reference"), f"{name}: graded solved={report.passed == 1}"


def test_a_complexity_program_run_sees_none_of_the_host_nor_its_loopback(tmp_path):
    """Complexity runs dataset programs no one reviewed (atoms, composites): the same allow-list."""
    from codewalk.domains.complexity.run import run_program

    with host_places(tmp_path) as probes, loopback_port() as port:
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
