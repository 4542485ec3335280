"""`inspect eval codewalk/repair_agent` on the tally repository (tests/repair_fixture.py), driven by
inspect_ai's mock model emitting tool calls: what the agent leaves at /testbed is graded by V_G outside
its sandbox, and stored as a grade of the eval's run."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, ChatMessageTool, ModelOutput, ModelUsage, get_model

from codewalk.admission import walk_and_admit
from codewalk.evals import agent
from codewalk.loading import load
from codewalk.records import Task
from codewalk.runtime import sandbox
from codewalk.store import open_store
from tests import repair_fixture

pytestmark = [pytest.mark.usefixtures("shared_home"),
              pytest.mark.skipif(not sandbox.isolated(), reason="runtime=local needs bubblewrap")]

Script = Callable[[Task, list[ChatMessage]], ModelOutput]


@pytest.fixture(scope="module")
def repair_store(tmp_path_factory, module_home) -> Path:
    """W1 and W2 of the tally history admitted at levels 1 and 2 (both share words.py)."""
    root = tmp_path_factory.mktemp("tally")
    fixture = repair_fixture.build(root)
    rows = fixture.write_rows(root / "rows.jsonl", ("W1", "W2"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CODEWALK_HOME", str(module_home))
        with open_store(root / "graph.lbug") as store:
            load(store, "repair", rows, {"repos": str(fixture.repos)})
            for n in (1, 2):
                walk_and_admit(store, "repair", n, count=10, seed=n)
    return root / "graph.lbug"


def _tasks(store: Path) -> dict[str, Task]:
    with open_store(store) as graph:
        return {r["id"]: Task.from_row(r) for r in graph.select_tasks("repair", "admitted")}


def _call(name: str, **arguments) -> ModelOutput:
    output = ModelOutput.for_tool_call("mockllm", name, arguments)
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # no tokenizer download
    return output


def _turn(messages: list[ChatMessage]) -> int:
    """How many commands the agent has run so far (tool results in the conversation)."""
    return sum(isinstance(m, ChatMessageTool) for m in messages)


def _evaluate(store: Path, tmp_path: Path, script: Script, **task_args) -> EvalLog:
    tasks = _tasks(store)
    by_prompt = {agent.prompt(t.verifier["FAIL_TO_PASS"]): t for t in tasks.values()}

    def answer(messages: list[ChatMessage], *_) -> ModelOutput:
        return script(by_prompt[messages[0].text], messages)

    model = get_model("mockllm/model", custom_outputs=answer)
    [log] = inspect_eval("codewalk/repair_agent", model=model, log_dir=str(tmp_path / "logs"), display="none",
                         task_args={"store": str(store), **task_args})
    assert log.status == "success", log.error
    return log


def _scores(log: EvalLog) -> dict[str, dict]:
    assert log.samples is not None
    return {str(s.id): {"value": s.scores["repair_verifier"].value, **s.scores["repair_verifier"].metadata}
            for s in log.samples}


def _stored(store: Path, run: str) -> dict[str, dict]:
    with open_store(store) as graph:
        rows = graph.run("MATCH (g:Grade)-[:OF]->(t:Task) WHERE g.run = $run "
                         "RETURN t.id AS task, g.status AS status, g.output AS output, g.detail AS detail",
                         {"run": run})
    return {r["task"]: r for r in rows}


def replay_then(finish: ModelOutput) -> Script:
    """Apply the reference with git through bash, then finish (submit, or the paper's echo)."""

    def script(task: Task, messages: list[ChatMessage]) -> ModelOutput:
        if _turn(messages) == 0:
            return _call("bash", command=f"cd /testbed && git apply <<'EOF'\n{task.reference}EOF")
        return finish

    return script


@pytest.mark.parametrize("finish", [_call("submit"), _call("bash", command="echo COMPLETE_TASK_AND_SUBMIT")],
                         ids=["submit tool", "paper's echo"])
def test_replaying_the_reference_through_bash_then_submitting_scores_one_and_is_stored(
        repair_store, tmp_path, finish):
    log = _evaluate(repair_store, tmp_path, replay_then(finish))
    scores, tasks = _scores(log), _tasks(repair_store)
    assert set(scores) == set(tasks) and {t.level for t in tasks.values()} == {1, 2}
    assert {i: s["value"] for i, s in scores.items()} == {i: 1.0 for i in tasks}
    for i, s in scores.items():
        assert s["ended"] == "submitted" and s["status"] == "passed"
        assert set(s["evidence"]["tests"].values()) == {"passed"}
        assert s["diff"] == tasks[i].reference  # the agent's edit, recovered outside its sandbox
    stored = _stored(repair_store, log.eval.eval_id)
    assert {i: (g["status"], g["output"]) for i, g in stored.items()} == {
        i: ("passed", t.reference) for i, t in tasks.items()}


def test_overwriting_a_failing_test_file_then_submitting_scores_zero(repair_store, tmp_path):
    def script(task: Task, messages: list[ChatMessage]) -> ModelOutput:
        if _turn(messages) == 0:  # every test of F made trivially true, in the files that hold them
            files = {t.split("::")[0]: t.split("::")[1] for t in task.verifier["FAIL_TO_PASS"]}
            writes = " && ".join(f"printf 'def {name}():\\n    pass\\n' > {path}" for path, name in files.items())
            return _call("bash", command=f"cd /testbed && {writes} && python -m pytest tests -q")
        return _call("submit")

    log = _evaluate(repair_store, tmp_path, script)
    for i, s in _scores(log).items():
        assert s["value"] == 0.0 and s["status"] == "failed" and s["ended"] == "submitted"
        assert s["diff"] == "" and "the patch is empty" in s["evidence"]["refused"]
        assert set(s["left_out"]) == {t.split("::")[0] for t in _tasks(repair_store)[i].verifier["FAIL_TO_PASS"]}


def test_submitting_at_once_scores_zero(repair_store, tmp_path):
    log = _evaluate(repair_store, tmp_path, lambda task, messages: _call("submit"))
    scores = _scores(log)
    assert {s["value"] for s in scores.values()} == {0.0}
    assert {(s["ended"], s["diff"]) for s in scores.values()} == {("submitted", "")}
    assert {g["status"] for g in _stored(repair_store, log.eval.eval_id).values()} == {"failed"}


def test_running_out_of_turns_scores_zero_with_the_reason_recorded_even_with_the_fix_in_place(
        repair_store, tmp_path):
    never_submits = replay_then(_call("bash", command="cd /testbed && git status --short"))
    log = _evaluate(repair_store, tmp_path, never_submits, turns=3, level=1)
    scores, tasks = _scores(log), _tasks(repair_store)
    assert set(scores) == {i for i, t in tasks.items() if t.level == 1}
    for i, s in scores.items():
        assert s["value"] == 0.0 and s["ended"] == "turn limit: 3 turns without a submission"
        assert s["diff"] == tasks[i].reference  # the fix was there: a run that exhausts its budget fails
    assert {g["detail"] for g in _stored(repair_store, log.eval.eval_id).values()} == {
        "no submission: turn limit: 3 turns without a submission"}
    sample = log.samples[0]
    assert sum(m.role == "assistant" for m in sample.messages) == 3


def test_a_run_past_its_time_limit_scores_zero_with_the_limit_recorded(repair_store, tmp_path):
    def script(task: Task, messages: list[ChatMessage]) -> ModelOutput:
        return _call("bash", command="sleep 600") if _turn(messages) == 0 else _call("submit")

    log = _evaluate(repair_store, tmp_path, script, level=2, time_limit=2)
    [score] = _scores(log).values()
    assert score["value"] == 0.0 and score["ended"].startswith("time limit")


def test_what_the_agent_leaves_besides_files_does_not_stop_its_edit_from_being_graded(repair_store, tmp_path):
    def script(task: Task, messages: list[ChatMessage]) -> ModelOutput:
        if _turn(messages) == 0:  # a FIFO, bytecode and a test cache beside the fix
            return _call("bash", command=f"cd /testbed && mkfifo pipe && git apply <<'EOF'\n{task.reference}EOF\n"
                                         "python -m compileall -q tally && python -m pytest -q -p cacheprovider "
                                         "tests >/dev/null; ls -a")
        return _call("submit")

    log = _evaluate(repair_store, tmp_path, script, level=2)
    [score] = _scores(log).values()
    assert score["value"] == 1.0 and score["left_out"] and all(
        "__pycache__" in p or ".pytest_cache" in p for p in score["left_out"])


def test_commands_run_in_a_fresh_shell_at_testbed_without_network_and_see_no_host_files(repair_store, tmp_path):
    seen: dict[str, str] = {}

    def script(task: Task, messages: list[ChatMessage]) -> ModelOutput:
        commands = ["cd /testbed && export MARK=1 && git log --oneline | wc -l && python -c 'import tally'",
                    "echo mark=${MARK:-unset}; ls /root /home 2>&1 | head -1; cat /etc/hostname 2>&1 | head -1",
                    "python -c 'import socket; socket.create_connection((\"1.1.1.1\", 53), 2)' 2>&1 | tail -1"]
        turn = _turn(messages)
        if turn:
            seen[commands[turn - 1]] = messages[-1].text
        return _call("bash", command=commands[turn]) if turn < len(commands) else _call("submit")

    _evaluate(repair_store, tmp_path, script, level=2)
    first, second, third = seen.values()
    assert first.startswith("exit code: 0\nstdout:\n1\n")  # x_G is the only commit; tally imports from there
    assert "mark=unset" in second and "No such file or directory" in second
    assert "exit code: 0" in third and ("Network is unreachable" in third or "Errno" in third)


def test_a_runtime_without_bubblewrap_is_refused_for_local(repair_store, monkeypatch):
    monkeypatch.setattr(sandbox, "_bwrap_works", lambda: False)
    from codewalk.errors import UsageError

    with pytest.raises(UsageError, match="runtime=docker"):
        agent.repair_agent(store=str(repair_store), require_isolation=False)


def test_the_prompt_is_the_papers_with_the_failing_tests_and_not_the_number_of_bugs():
    text = agent.prompt(["tests/a.py::test_x", "tests/b.py::test_y"])
    assert "These tests FAIL: tests/a.py::test_x tests/b.py::test_y Fix the source so ALL of them pass." in text
    assert text.startswith("A Python repo is at /testbed") and text.endswith("`echo COMPLETE_TASK_AND_SUBMIT`.")


def _no_docker() -> str:
    """Why the docker runtime cannot run here ("" when it can): a daemon and the base image are needed."""
    try:
        import docker

        docker.from_env().images.get(os.environ.get("CODEWALK_DOCKER_BASE", "codewalk-base:bookworm"))
    except Exception as e:  # no SDK, no daemon, no image: each says why
        return f"no Docker runtime here: {e}"
    return ""


@pytest.mark.skipif(bool(_no_docker()), reason=_no_docker())
def test_the_docker_runtime_runs_the_agent_in_a_container_of_the_task_image_and_scores_outside_it(
        repair_store, tmp_path):
    seen: list[str] = []

    def script(task: Task, messages: list[ChatMessage]) -> ModelOutput:
        turn = _turn(messages)
        if turn:
            seen.append(messages[-1].text)
        if turn == 0:
            return _call("bash", command="cd /testbed && grep -h VERSION_CODENAME /etc/os-release && git log "
                                         "--format=%s && python -c 'import socket; socket.create_connection("
                                         "(\"1.1.1.1\", 53), 2)' 2>&1 | tail -1")
        if turn == 1:
            return _call("bash", command=f"cd /testbed && git apply <<'EOF'\n{task.reference}EOF\n"
                                         "python -m pytest -q tests 2>&1 | tail -1")
        return _call("submit")

    log = _evaluate(repair_store, tmp_path, script, runtime="docker", level=2)
    [score] = _scores(log).values()
    assert score["value"] == 1.0 and score["ended"] == "submitted"
    assert "VERSION_CODENAME=bookworm\nx_G\n" in seen[0] and "Network is unreachable" in seen[0]
    assert " passed" in seen[1] and " failed" not in seen[1]  # the agent's own run, in the container


def test_the_agents_testbed_is_the_x_g_the_verifier_runs_on(repair_store, tmp_path):
    """One x_G builder (issue 45): the testbed's one commit holds the tree the repair domain's checks and
    grading make (RepairDomain.x_g), with nothing uncommitted."""
    from codewalk.domains.repair import RepairDomain
    from codewalk.domains.repair.git import git
    from codewalk.evals.testbed import build_testbed, testbed_spec

    task = next(iter(_tasks(repair_store).values()))
    into = tmp_path / "testbed"
    build_testbed(testbed_spec(task.verifier), into, with_env=False)
    with RepairDomain().x_g(task.verifier) as (_, _, x_g):
        pass
    where = {"git_dir": into / ".git", "work_tree": into}
    assert git(["rev-parse", "HEAD^{tree}"], into, **where).stdout.strip() == x_g
    assert git(["rev-list", "--count", "HEAD"], into, **where).stdout.strip() == "1"
    assert git(["status", "--porcelain"], into, **where).stdout == ""


@pytest.mark.parametrize("runtime", ["local", "docker"])
def test_a_testbed_too_deep_to_copy_by_recursion_or_holding_repositories_is_exported_without_them(
        repair_store, tmp_path, runtime):
    """The agent's /testbed reaches the host by sandbox.copy_tree: a chain of 1,500 folders (shutil.copytree
    raised RecursionError on it in the scorer) is left out past sandbox.DEPTH, and no `.git` at any level (a
    folder, or a gitfile naming a folder elsewhere) reaches the host's git, which takes the diff."""
    chain = "python -c \"import os\nfd = os.open('.', os.O_RDONLY)\nfor _ in range(1500):\n" \
            "    os.mkdir('d', dir_fd=fd); fd = os.open('d', os.O_RDONLY, dir_fd=fd)\n" \
            "os.close(os.open('deep.py', os.O_WRONLY | os.O_CREAT, dir_fd=fd))\""

    def script(task: Task, messages: list[ChatMessage]) -> ModelOutput:
        if _turn(messages) == 0:
            return _call("bash", command=f"cd /testbed && git apply <<'EOF'\n{task.reference}EOF\n"
                                         f"mkdir -p chain nested/.git && cd chain && {chain} && cd .. && "
                                         "printf '[core]\\n\\tfsmonitor = false\\n' > nested/.git/config && "
                                         "mkdir sub && echo 'gitdir: /tmp' > sub/.git")
        return _call("submit")

    log = _evaluate(repair_store, tmp_path, script, runtime=runtime, level=1)
    for score in _scores(log).values():
        assert score["value"] == 1.0, score
        assert not [p for p in score["left_out"] if ".git" in p.split("/")], score["left_out"]
        assert "deep.py" not in score["diff"] and ".git" not in score["diff"]
        assert not [p for p in score["left_out"] if p.count("/") > sandbox.DEPTH], len(score["left_out"])
