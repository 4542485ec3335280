"""The repair domain's docker runtime for real: a Docker daemon (DOCKER_HOST), images built from the fixture
rows' install_config on CODEWALK_DOCKER_BASE, a fresh container per test run. Admission and grading must give
the verdicts the local runtime gives; the harness's guarantees (outcomes the tests cannot write, renamed
FAIL_TO_PASS copies, a one-commit history) hold in both runtimes. Without a daemon these tests skip saying
why; under CI they fail (.ci/docker.sh provides one)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from codewalk import runtime
from codewalk.admission import evaluate, walk_and_admit
from codewalk.domain import Settings
from codewalk.domains.repair import RepairDomain
from codewalk.domains.repair import env as repair_env
from codewalk.domains.repair.channel import NoVerdict
from codewalk.domains.repair.env import EnvSpec, run_tests
from codewalk.domains.repair.git import Worktree
from codewalk.errors import InfraError, InputError, RuntimeUnavailable
from codewalk.loading import load
from codewalk.records import Composite, Task
from codewalk.store import open_store
from tests import docker_runtime, repair_fixture
from tests.run_cw import cw
from tests.test_repair_domain import YIELDS

pytestmark = pytest.mark.usefixtures("shared_home")  # one home: mirrors, worktrees, the virtualenv
W1_TEST = "tests/test_words.py::test_split_words_tabs_and_newlines"


@pytest.fixture(scope="module")
def walked(daemon, fixture, module_home, tmp_path_factory) -> Iterator[dict]:
    """Levels 1 and 2 of the fixture graph walked with the same seed under each runtime, in two stores."""
    root = tmp_path_factory.mktemp("walks")
    rows = fixture.write_rows(root / "rows.jsonl")
    stores = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CODEWALK_HOME", str(module_home))
        for name in ("local", "docker"):
            stores[name] = store = open_store(root / f"{name}.lbug")
            load(store, "repair", rows, {"repos": str(fixture.repos)}, runtime=name)
            for n in (1, 2):
                walk_and_admit(store, "repair", n, count=100, seed=11, workers=2, runtime=name)
    yield stores
    for store in stores.values():
        store.close()


def _verdicts(store) -> dict[str, tuple]:
    """Each task's status, reason, and the outcome of every test its checks ran."""
    found = {}
    for row in store.select_tasks("repair"):
        t = store.get_task(row["id"])
        ev = t["evidence"]
        found[t["id"]] = (t["level"], t["status"], t["reason"], ev.get("reference", {}).get("tests"),
                          [a["tests"] for a in ev.get("atoms", [])])
    return found


# -- the same verdicts -------------------------------------------------------------------------------
def test_admission_gives_the_same_statuses_and_test_outcomes_under_local_and_docker(walked):
    local, docker = _verdicts(walked["local"]), _verdicts(walked["docker"])
    assert docker == local
    for n in (1, 2):
        got: dict[str, int] = {}
        for level, _, reason, *_ in docker.values():
            if level == n:
                got[reason] = got.get(reason, 0) + 1
        assert got == YIELDS[n], f"level {n}"


def test_runs_under_docker_used_a_built_image_and_left_no_container(walked):
    row = next(t for t in walked["docker"].select_tasks("repair", status="admitted") if t["level"] == 2)
    task = walked["docker"].get_task(row["id"])
    env = task["evidence"]["reference"]["env"]
    assert env["source"] == "built" and env["image"].startswith("codewalk-env/tally__tally:")
    image = runtime.client().images.get(env["image"])
    assert image.labels[runtime.KIND] == "environment"
    assert docker_runtime.ours() == []


def test_cw_grade_under_docker_grades_every_gold_patch_solved(walked, tmp_path, capsys):
    store = walked["docker"]
    admitted = store.select_tasks("repair", status="admitted")
    predictions = tmp_path / "gold.jsonl"
    predictions.write_text("".join(json.dumps({"task_id": t["id"], "output": t["reference"]}) + "\n"
                                   for t in admitted))
    code, out, err = cw(capsys, "--store", store.location, "grade", str(predictions), "--domain", "repair",
                        "--runtime", "docker", "--workers", "2", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert (report["graded"], report["passed"], report["errors"]) == (len(admitted), len(admitted), 0)
    assert docker_runtime.ours() == []


# -- what a run sees and what it can write, in both runtimes ----------------------------------------------
@contextmanager
def _x_g(fixture: repair_fixture.Fixture, name: str, *bugs: str) -> Iterator[tuple[RepairDomain, Composite,
                                                                                  Worktree, str, object]]:
    """x_G of the bugs in a fresh worktree, with the environment of the runtime `name`."""
    domain = RepairDomain(settings=Settings(runtime=runtime.build(name)))
    rows = fixture.write_rows(fixture.repos.parent / "some.jsonl", bugs)
    atoms = list(domain.load(rows, {"repos": str(fixture.repos)}))
    composite = domain.compose(atoms)
    v = composite.verifier
    with domain.worktrees.fresh(domain._mirror(v), v["base_commit"]) as tree:
        env = domain._env(v, EnvSpec.from_config(v["install_config"]), tree)
        assert tree.apply(v["test_patch"], ("strict",)) == "strict"
        yield domain, composite, tree, tree.tree(), env


def _run(tree: Worktree, x_g: str, env, tests: list[str], renamed: list[str] = ()) -> repair_env.TestRun:
    return run_tests(env, tree, tests, "", 300, config_from=x_g, renamed=renamed)


RUNTIMES = pytest.mark.parametrize("name", ["local", "docker"])


@pytest.fixture
def needs(request, name):
    if name == "docker":
        docker_runtime.require()


@RUNTIMES
def test_the_tests_see_x_g_as_one_commit_with_the_edit_uncommitted(fixture, name, needs):
    probe = '''import subprocess


def git(*args):
    return subprocess.run(["git", *args], capture_output=True, text=True, check=True).stdout


def test_history():
    assert git("rev-list", "--all", "--count").strip() == "1"
    assert git("for-each-ref", "--format=%(refname)").split() in ([], ["refs/heads/master"], ["refs/heads/main"])
    assert git("status", "--porcelain").split() == ["??", "tests/test_zz_probe.py"]
    assert "words" in git("show", "HEAD:tally/words.py")
'''
    with _x_g(fixture, name, "W1") as (*_, tree, x_g, env):
        (tree.path / "tests" / "test_zz_probe.py").write_text(probe)
        run = _run(tree, x_g, env, ["tests/test_zz_probe.py::test_history"])
    assert run.status == {"tests/test_zz_probe.py::test_history": "passed"}
    assert len(subprocess.run(["git", "rev-list", "--all"], cwd=fixture.clone, capture_output=True, text=True,
                              check=True).stdout.split()) > 10  # while the repository itself has its history


@RUNTIMES
def test_outcome_lines_forged_by_the_tests_give_no_verdict(fixture, name, needs):
    forge = '''import os


def test_forges():
    line = b'0123456789abcdef0123456789abcdef {"node": "NODE", "when": "call", "outcome": "passed"}\\n'
    for fd in range(3, 256):
        try:
            os.write(fd, line)
        except OSError:
            pass
    print('feedfacefeedfacefeedfacefeedface {"exit": 0, "records": []}')
    assert False
'''.replace("NODE", W1_TEST)
    with _x_g(fixture, name, "W1") as (*_, tree, x_g, env):
        (tree.path / "tests" / "test_zz_forge.py").write_text(forge)
        # the forged line reached the channel and did not verify: something other than the guard wrote there
        with pytest.raises(NoVerdict) as stopped:
            _run(tree, x_g, env, [W1_TEST, "tests/test_zz_forge.py::test_forges"])
    assert stopped.value.rule == "channel_forged"


@RUNTIMES
def test_a_session_that_exits_early_gives_no_verdict(fixture, name, needs):
    with _x_g(fixture, name, "W1") as (*_, tree, x_g, env):
        (tree.path / "tests" / "test_zz_exit.py").write_text("import os\n\n\ndef test_exit():\n    os._exit(0)\n")
        with pytest.raises(InfraError, match="without its final report"):
            _run(tree, x_g, env, [W1_TEST, "tests/test_zz_exit.py::test_exit"])


CALLER = '''

def split_words(text):
    """The words of text, split on any whitespace."""
    import sys
    if sys._getframe(1).f_code.co_name == "test_split_words_tabs_and_newlines":
        return text.split()
    return [w for w in text.split(" ") if w]
'''


@RUNTIMES
def test_a_fix_that_answers_by_its_callers_name_fails_the_renamed_copy(fixture, name, needs):
    with _x_g(fixture, name, "W1") as (*_, tree, x_g, env):
        words = tree.path / "tally" / "words.py"
        text = words.read_text()
        start = text.index("\n\ndef split_words")
        end = text.index("\n\ndef strip_punct")
        words.write_text(text[:start] + CALLER + text[end:])
        fooled = _run(tree, x_g, env, [W1_TEST])
        caught = _run(tree, x_g, env, [W1_TEST], renamed=[W1_TEST])
    assert fooled.status == {W1_TEST: "passed"}  # the cheat works on the test as named
    assert caught.status == {W1_TEST: "renamed copy failed"}


LEAVES = """import os
import subprocess
import sys

# a process that outlives its test holds an abstract socket name (the container's own network namespace)
HOLD = "import socket, time; s = socket.socket(socket.AF_UNIX); s.bind('\\\\0codewalk-left-behind'); time.sleep(1000)"


def test_leaves_things_behind():
    subprocess.Popen([sys.executable, "-c", HOLD], start_new_session=True)
    open("/tmp/left-behind", "w").write("x")
"""
FINDS = """import os
import socket


def test_finds_nothing_left():
    assert not os.path.exists("/tmp/left-behind")
    # the name a process left behind would hold is free (the tests cannot list /proc: the kernel guard)
    probe = socket.socket(socket.AF_UNIX)
    probe.bind("\\0codewalk-left-behind")
    probe.close()
"""


def test_a_shared_container_is_reset_between_a_groups_runs(daemon, fixture):
    from codewalk.domains.repair.containers import Session

    with _x_g(fixture, "docker", "W1") as (*_, tree, x_g, env), Session() as session:
        (tree.path / "tests" / "test_zz_leaves.py").write_text(LEAVES)
        (tree.path / "tests" / "test_zz_finds.py").write_text(FINDS)
        first = run_tests(env, tree, ["tests/test_zz_leaves.py::test_leaves_things_behind"], "", 300,
                          config_from=x_g, session=session)
        second = run_tests(env, tree, ["tests/test_zz_finds.py::test_finds_nothing_left"], "", 300,
                           config_from=x_g, session=session)
        assert session.runs == 2
    assert first.status == {"tests/test_zz_leaves.py::test_leaves_things_behind": "passed"}
    assert second.status == {"tests/test_zz_finds.py::test_finds_nothing_left": "passed"}
    runtime.release()  # the end of a walk or grading: the container started ahead goes too
    assert docker_runtime.ours() == []


def test_a_container_started_ahead_is_fresh_and_goes_at_the_release(daemon, fixture):
    """The next session takes a container started while the last one ran: never used, so nothing the last
    run left (a file, a process) is in it; the release removes the one started behind it."""
    from datetime import datetime

    from codewalk.domains.repair.containers import Session

    with _x_g(fixture, "docker", "W1") as (*_, tree, x_g, env):
        (tree.path / "tests" / "test_zz_leaves.py").write_text(LEAVES)
        (tree.path / "tests" / "test_zz_finds.py").write_text(FINDS)
        with Session() as first:
            left = run_tests(env, tree, ["tests/test_zz_leaves.py::test_leaves_things_behind"], "", 300,
                             config_from=x_g, session=first)
            assert first.started is not None
            first_name = first.started.name
        began = datetime.now().astimezone()
        with Session() as second:
            found = run_tests(env, tree, ["tests/test_zz_finds.py::test_finds_nothing_left"], "", 300,
                              config_from=x_g, session=second)
            assert second.started is not None
            created = datetime.fromisoformat(second.started.container.attrs["Created"][:26] + "+00:00")
            assert second.started.name != first_name
        assert created < began  # started ahead, not on demand
        assert len(docker_runtime.ours()) >= 1  # the one behind it
    assert left.status == {"tests/test_zz_leaves.py::test_leaves_things_behind": "passed"}
    assert found.status == {"tests/test_zz_finds.py::test_finds_nothing_left": "passed"}
    runtime.release()
    assert docker_runtime.ours() == []


PRODS = """import os


def test_cannot_reach_the_agent():
    try:
        listed = os.listdir("/proc")
    except PermissionError:
        return  # the kernel guard: no file of /proc is the tests' to open, the agent's among them
    agents = [p for p in listed if p.isdigit()
              and b"codewalk-agent" in open(f"/proc/{p}/cmdline", "rb").read()]
    assert agents
    for pid in agents:
        for fd in ("0", "1", "2"):
            try:
                open(f"/proc/{pid}/fd/{fd}", "wb").close()
            except PermissionError:
                continue
            raise AssertionError(f"the tests could open the agent's descriptor {fd}")
"""


def test_runs_go_to_the_agent_without_a_docker_exec_and_the_tests_cannot_reach_it(daemon, fixture):
    """A run is a request to the container's own process (no `docker exec`, a runc start each); the tests,
    another user, can open none of that process's descriptors."""
    from codewalk.domains.repair.containers import Session

    with _x_g(fixture, "docker", "W1") as (*_, tree, x_g, env), Session() as session:
        (tree.path / "tests" / "test_zz_prods.py").write_text(PRODS)
        runs = [run_tests(env, tree, ["tests/test_zz_prods.py::test_cannot_reach_the_agent"], "", 300,
                          config_from=x_g, session=session) for _ in range(2)]
        assert session.started is not None
        session.started.container.reload()
        execs = session.started.container.attrs["ExecIDs"] or []
    assert [r.status for r in runs] == [{"tests/test_zz_prods.py::test_cannot_reach_the_agent": "passed"}] * 2
    # at most the removal of an image's own checkout, ahead of time (the daemon may forget a finished exec)
    assert len(execs) <= (1 if env.tree else 0)
    runtime.release()
    assert docker_runtime.ours() == []


GREEDY = """def test_asks_for_more_memory_than_it_may():
    block = bytearray(2 << 30)
    assert len(block) == 2 << 30
"""


@RUNTIMES
def test_a_test_that_asks_for_more_memory_than_the_limit_fails_with_a_verdict(fixture, name, needs):
    """Under both runtimes the memory limit is an address-space limit on the tests: the allocation fails
    (MemoryError, the test fails), rather than the container's OOM killer taking the run and its verdict."""
    with _x_g(fixture, name, "W1") as (*_, tree, x_g, env):
        (tree.path / "tests" / "test_zz_greedy.py").write_text(GREEDY)
        run = run_tests(env, tree, ["tests/test_zz_greedy.py::test_asks_for_more_memory_than_it_may"], "", 300,
                        memory_mb=1024, config_from=x_g)
    assert run.status == {"tests/test_zz_greedy.py::test_asks_for_more_memory_than_it_may": "failed"}
    runtime.release()


# -- bad input ---------------------------------------------------------------------------------------
def test_an_image_that_cannot_be_built_makes_the_group_an_error_with_the_build_log(daemon, fixture, tmp_path):
    rows = fixture.write_rows(tmp_path / "rows.jsonl", ("W1",))
    row = json.loads(rows.read_text())
    row["install_config"] = {**row["install_config"], "pip_packages": ["pytest", "codewalk-no-such-package-0"]}
    rows.write_text(json.dumps(row) + "\n")
    domain = RepairDomain(settings=Settings(runtime=runtime.build("docker")))
    atoms = list(RepairDomain(settings=Settings(runtime=runtime.build("local"))).load(rows, {"repos": str(fixture.repos)}))  # loading it locally is fine
    verdict = evaluate(domain, atoms)
    assert (verdict.status, verdict.reason) == ("error", "infra_error")
    assert "could not build the environment image" in verdict.evidence["error"]
    assert "codewalk-no-such-package-0" in verdict.evidence["error"].split("build log ends:")[1]
    runtime.release()
    assert docker_runtime.ours() == []


def test_tests_that_run_forever_are_killed_with_their_container(daemon, fixture):
    with _x_g(fixture, "docker", "W1") as (domain, composite, tree, x_g, env):
        words = tree.path / "tally" / "words.py"
        words.write_text(words.read_text().replace('    return [w for w in text.split(" ") if w]',
                                                   "    while True:\n        pass"))
        with pytest.raises(InfraError, match="timed out"):
            run_tests(env, tree, [W1_TEST], "", 5, config_from=x_g)
    runtime.release()  # as the end of a walk or grading does
    assert docker_runtime.ours() == []


def test_a_row_that_names_its_image_runs_in_it_pulled_from_a_registry_and_no_pull_refuses(daemon, fixture,
                                                                                          tmp_path):
    """SWE-rebench rows name a pre-built image (image_name): it is pulled when missing, through a real
    registry (the test's own), and the group runs in it; with --no-pull a missing image is an error."""
    from codewalk.domains.repair import containers

    client = runtime.client()
    rows = fixture.write_rows(tmp_path / "rows.jsonl", ("W1",))
    domain = RepairDomain(settings=Settings(runtime=runtime.build("docker")))
    built = evaluate(domain, list(domain.load(rows, {"repos": str(fixture.repos)})))
    assert built.status == "admitted"
    with docker_runtime.registry(tmp_path / "registry") as where:
        name = f"{where}/swerebench/sweb.eval.x86_64.tally_1-w1:latest"  # SWE-rebench's naming
        image = client.images.get(built.evidence["reference"]["env"]["image"])
        image.tag(name)
        client.images.push(name)
        client.images.remove(name)
        row = json.loads(rows.read_text())
        row["image_name"] = name
        rows.write_text(json.dumps(row) + "\n")
        try:
            atoms = list(domain.load(rows, {"repos": str(fixture.repos)}))  # the load pulls it
            assert client.images.list(name=name)
            pulled = evaluate(domain, atoms)
            client.images.remove(name)
            containers.forget_images()  # this process remembers what it pulled: forget, as a new process would
            domain = RepairDomain(settings=Settings(runtime=runtime.build("docker", pull=False)))
            with pytest.raises(InputError, match=r"rows.jsonl:1: cannot prepare its docker image: .*--no-pull"):
                list(domain.load(rows, {"repos": str(fixture.repos)}))
            refused = evaluate(domain, atoms)  # loaded before the image went
        finally:
            containers.forget_images()
            if client.images.list(name=name):
                client.images.remove(name)
    assert (pulled.status, pulled.evidence["reference"]["env"]["image"]) == ("admitted", name)
    assert pulled.evidence["reference"]["env"]["source"] == "row"
    assert pulled.evidence["reference"]["tests"] == built.evidence["reference"]["tests"]
    assert (refused.status, refused.reason) == ("error", "infra_error")
    assert f"the image {name} is not here and --no-pull forbids pulling it" in refused.evidence["error"]
    runtime.release()
    assert docker_runtime.ours() == []


def test_no_daemon_is_a_one_line_error_naming_docker_host(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-daemon.sock")
    runtime.forget_client()
    try:
        code, _, err = cw(capsys, "--store", str(tmp_path / "g.lbug"), "walk", "--domain", "repair", "--n", "1",
                          "--runtime", "docker")
    finally:
        runtime.forget_client()
    assert code == 9
    flat = err.replace("\n", "")  # one message; the console wraps it at its width
    assert f"DOCKER_HOST=unix://{tmp_path}/no-daemon.sock" in flat
    assert err.count("error:") == 1 and "Traceback" not in err


def test_a_domain_without_a_docker_runtime_refuses_it_with_exit_2(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CODEWALK_RUNTIME", "docker")
    code, _, err = cw(capsys, "--store", str(tmp_path / "g.lbug"), "walk", "--domain", "demo", "--n", "1")
    assert code == 2 and "does not support --runtime docker" in err


def test_an_unknown_runtime_is_a_usage_error(tmp_path, capsys):
    code, _, err = cw(capsys, "--store", str(tmp_path / "g.lbug"), "walk", "--domain", "repair", "--n", "1",
                      "--runtime", "podman")
    assert code == 2 and "unknown runtime 'podman'" in err


def test_exported_rows_carry_the_image_and_the_real_environment_setup_commit(walked, fixture):
    store = walked["docker"]
    row = next(r for r in store.select_tasks("repair", status="admitted", level=2)
               if json.loads(r["verifier"])["base_commit"] != fixture.commits["initial"])
    exported = RepairDomain().export_row(Task.from_row(row))
    assert exported["image_name"] == store.get_task(row["id"])["evidence"]["reference"]["env"]["image"]
    assert exported["environment_setup_commit"] == fixture.commits["initial"]  # the rows' own, not c*
    assert exported["base_commit"] != exported["environment_setup_commit"]


def _candidate(fixture: repair_fixture.Fixture, composite: Composite, tmp_path, path: str, old: str, new: str) -> str:
    """A model patch: the diff of one replacement made on x_G in a scratch clone."""
    def git(*args: str, cwd=tmp_path / "candidate") -> str:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout

    git("clone", "-q", str(fixture.clone), str(tmp_path / "candidate"), cwd=tmp_path)
    git("checkout", "-q", composite.verifier["base_commit"])
    (tmp_path / "tests.diff").write_text(composite.verifier["test_patch"])
    git("apply", "--index", str(tmp_path / "tests.diff"))
    x_g = git("write-tree").strip()
    file = tmp_path / "candidate" / path
    file.write_text(file.read_text().replace(old, new))
    git("add", "-A")
    return git("diff", "--cached", x_g)


INTERRUPTED = '''
import json, sys
from pathlib import Path
from codewalk.domains.repair import RepairDomain
from codewalk.records import Composite, Task
task = json.loads(Path(sys.argv[1]).read_text())
domain = RepairDomain()
print("grading", flush=True)
domain.grade(Composite(task["prompt"], task["reference"], task["verifier"]), task["candidate"])
'''


def test_ctrl_c_removes_the_container_it_started(daemon, fixture, tmp_path, module_home):
    """A grade whose tests never end, interrupted once its container exists: none is left behind."""
    import os
    import signal
    import sys

    rows = fixture.write_rows(tmp_path / "rows.jsonl", ("W1",))
    domain = RepairDomain()
    composite = domain.compose(list(domain.load(rows, {"repos": str(fixture.repos)})))
    loop = _candidate(fixture, composite, tmp_path, "tally/words.py", '    return [w for w in text.split(" ") if w]',
                      "    while True:\n        pass")
    spec = {"prompt": composite.prompt, "reference": composite.reference, "verifier": composite.verifier,
            "candidate": loop}
    (tmp_path / "task.json").write_text(json.dumps(spec))
    (tmp_path / "grade.py").write_text(INTERRUPTED)
    proc = subprocess.Popen([sys.executable, str(tmp_path / "grade.py"), str(tmp_path / "task.json")],
                            env={**os.environ, "CODEWALK_RUNTIME": "docker", "CODEWALK_HOME": str(module_home)},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # until the grade's test-run container exists (or the grade ended): a step of the image's build carries
        # the label too, and an interrupt there tests another path (the build's own, which the daemon ends)
        while not docker_runtime.ours("run"):
            if proc.poll() is not None:
                pytest.fail(f"the grade ended before its container was seen: {proc.communicate()}")
            subprocess.run(["sleep", "0.2"], check=True)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert "KeyboardInterrupt" in err
    assert docker_runtime.ours() == []


def test_a_process_whose_docker_host_changes_talks_to_the_new_address(daemon, tmp_path, monkeypatch):
    """The client is kept per daemon address, not per process: after DOCKER_HOST moves to a socket where no
    daemon answers, the next use says so (exit 9 in cw) instead of reusing the old daemon's client."""
    assert runtime.client().ping()
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-daemon.sock")
    with pytest.raises(RuntimeUnavailable, match="no-daemon.sock"):
        runtime.client()
