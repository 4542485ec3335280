"""The paper's RFT data loop (Sec. 5, App. C) on the tally repository (tests/repair_fixture.py): a scripted
model attempts each repair task eight times (`--epochs 8`) through the repair agent, V_G grades every attempt
into the store, `cw train export` keeps one passing trajectory per task by the stored grade and refuses any
that leaks out of the train split, and `cw grade report --per-attempt` gives App. C's measure."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.model import ChatMessage, ChatMessageTool, ModelOutput, ModelUsage, get_model

from codewalk.admission import walk_and_admit
from codewalk.errors import InputError
from codewalk.evals import agent
from codewalk.loading import load
from codewalk.queries import run_named
from codewalk.records import Task
from codewalk.report import pass_at_k, per_attempt_report
from codewalk.runtime import sandbox
from codewalk.splits import Splits, assign
from codewalk.store import open_store
from codewalk.training import ROWS, export_trajectories, task_units
from tests import repair_fixture
from tests.run_cw import cw

pytestmark = [pytest.mark.usefixtures("shared_home"),
              pytest.mark.skipif(not sandbox.isolated(), reason="runtime=local needs bubblewrap")]

EPOCHS = 8


def _call(name: str, **arguments) -> ModelOutput:
    output = ModelOutput.for_tool_call("mockllm", name, arguments)
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # no tokenizer download
    return output


@pytest.fixture(scope="module")
def collected(tmp_path_factory, module_home) -> dict:
    """W1 and W2 of the tally history admitted at levels 1 and 2 (three tasks), and one eval of eight epochs
    by a scripted model whose k-th attempt at a task replays the reference when k < PASSES[task], and
    otherwise submits at once (a failure)."""
    root = tmp_path_factory.mktemp("tally")
    fixture = repair_fixture.build(root)
    rows = fixture.write_rows(root / "rows.jsonl", ("W1", "W2"))
    store = root / "graph.lbug"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CODEWALK_HOME", str(module_home))
        with open_store(store) as graph:
            load(graph, "repair", rows, {"repos": str(fixture.repos)})
            for n in (1, 2):
                walk_and_admit(graph, "repair", n, count=10, seed=n)
            tasks = {r["id"]: Task.from_row(r) for r in graph.select_tasks("repair", "admitted")}
        ones = sorted(i for i, t in tasks.items() if t.level == 1)
        [two] = [i for i, t in tasks.items() if t.level == 2]
        passes = {ones[0]: 3, ones[1]: 0, two: 2}  # of eight attempts each
        started: Counter[str] = Counter()
        by_prompt = {agent.prompt(t.verifier["FAIL_TO_PASS"]): t for t in tasks.values()}

        def answer(messages: list[ChatMessage], *_) -> ModelOutput:
            task = by_prompt[messages[0].text]
            if not any(isinstance(m, ChatMessageTool) for m in messages):
                started[task.id] += 1
                if started[task.id] <= passes[task.id]:
                    return _call("bash", command=f"cd /testbed && git apply <<'EOF'\n{task.reference}EOF")
            return _call("submit")

        [log] = inspect_eval("codewalk/repair_agent", model=get_model("mockllm/model", custom_outputs=answer),
                             epochs=EPOCHS, log_dir=str(root / "logs"), display="none",
                             task_args={"store": str(store)})
    assert log.status == "success", log.error
    return {"store": store, "log": Path(log.location), "eval": log.eval.eval_id, "tasks": tasks,
            "passes": passes, "root": root}


def _stored_grades(store: Path, eval_id: str) -> dict[tuple[str, int], str]:
    with open_store(store) as graph:
        return {(g["task"], g["epoch"]): g["status"] for g in graph.attempt_grades([eval_id])}


def _export(collected: dict, out: Path, **options) -> tuple[list[dict], dict]:
    with open_store(collected["store"]) as graph:
        export_trajectories(graph, [collected["log"]], out, **options)
    rows = [json.loads(line) for line in (out / ROWS).read_text().splitlines()]
    return rows, json.loads((out / "manifest.json").read_text())


def test_eight_attempts_give_eight_grades_per_task_each_with_its_eval_and_epoch(collected):
    grades = _stored_grades(collected["store"], collected["eval"])
    assert set(grades) == {(t, k) for t in collected["tasks"] for k in range(1, EPOCHS + 1)}
    passed = Counter(t for (t, _), status in grades.items() if status == "passed")
    assert {t: passed[t] for t in collected["tasks"]} == collected["passes"]


def test_the_export_keeps_exactly_one_passing_attempt_per_task_and_only_passing_ones(collected, tmp_path):
    rows, manifest = _export(collected, tmp_path / "out")
    grades = _stored_grades(collected["store"], collected["eval"])
    solved = sorted(t for t, n in collected["passes"].items() if n)
    assert [r["task"] for r in manifest["rows"]] == solved and len(rows) == len(solved)
    assert manifest["attempts"] == EPOCHS * len(collected["tasks"]) and manifest["ungraded"] == 0
    assert manifest["passed"] == sum(collected["passes"].values())
    for row, meta in zip(rows, manifest["rows"], strict=True):
        assert grades[(meta["task"], meta["epoch"])] == "passed" == meta["status"]
        assert meta["eval"] == collected["eval"] and meta["candidates"] == collected["passes"][meta["task"]]
        assert meta["level"] == collected["tasks"][meta["task"]].level
        roles = [m["role"] for m in row["messages"]]
        assert roles == ["user", "assistant", "tool", "assistant"]  # the fix, its output, the submission
        fix = row["messages"][1]["tool_calls"][0]
        assert fix["type"] == "function" and fix["function"]["name"] == "bash"
        assert collected["tasks"][meta["task"]].reference in json.loads(fix["function"]["arguments"])["command"]
        assert row["messages"][2]["tool_call_id"] == fix["id"]
        assert row["messages"][3]["tool_calls"][0]["function"]["name"] == "submit"
        assert {t["function"]["name"] for t in row["tools"]} == {"bash", "submit"}


def test_the_choice_among_a_tasks_passing_attempts_is_seeded_and_recorded(collected, tmp_path):
    picks = [[(r["task"], r["epoch"]) for r in _export(collected, tmp_path / f"out{k}", seed=5)[1]["rows"]]
             for k in range(2)]
    assert picks[0] == picks[1]
    _, manifest = _export(collected, tmp_path / "again", seed=5)
    assert manifest["seed"] == 5 and "random.Random(seed)" in manifest["rule"]
    # the same log twice is the same attempts: still one row per task
    with open_store(collected["store"]) as graph:
        twice = export_trajectories(graph, [collected["log"]] * 2, tmp_path / "twice", seed=5)
    assert [(r["task"], r["epoch"]) for r in twice.rows] == picks[0]


def test_the_export_trusts_the_stored_grade_not_the_logs_score(collected, tmp_path):
    """A log edited to score every attempt 1.0 exports the same rows: only V_G's stored grades count."""
    log = read_eval_log(str(collected["log"]))
    for s in log.samples or []:
        s.scores["repair_verifier"].value = 1.0
        s.scores["repair_verifier"].metadata["status"] = "passed"
    edited = tmp_path / "edited.eval"
    write_eval_log(log, str(edited))
    with open_store(collected["store"]) as graph:
        report = export_trajectories(graph, [edited], tmp_path / "out")
    assert sorted(r["task"] for r in report.rows) == sorted(t for t, n in collected["passes"].items() if n)
    assert report.passed == sum(collected["passes"].values())


def test_logs_whose_grades_are_in_another_store_are_refused_not_exported_empty(collected, tmp_path):
    from codewalk.errors import UsageError

    with open_store(tmp_path / "other.lbug") as graph, pytest.raises(UsageError, match="no stored grade"):
        export_trajectories(graph, [collected["log"]], tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_levels_make_the_curriculums_cumulative_pools(collected, tmp_path):
    l1 = _export(collected, tmp_path / "l1", levels=[1])[1]["rows"]
    l12 = _export(collected, tmp_path / "l12", levels=[1, 2])[1]["rows"]
    assert {r["level"] for r in l1} == {1} and len(l1) == 1
    assert {r["level"] for r in l12} == {1, 2} and len(l12) == 2


def _release(tmp_path: Path, splits: Splits) -> Path:
    release = tmp_path / "release"
    release.mkdir()
    (release / "splits.json").write_text(splits.to_json())
    return release


def test_a_release_whose_train_split_holds_the_tasks_exports_them_with_their_split(collected, tmp_path):
    with open_store(collected["store"]) as graph:
        units = task_units(graph, sorted(collected["tasks"]), "repository")
    assert set().union(*units.values()) == {repair_fixture.REPO}
    splits = assign(units, {"train": 3, "validation": 0, "test": 0}, seed=0, unit="repository")
    _, manifest = _export(collected, tmp_path / "out", release=_release(tmp_path, splits))
    assert {r["split"] for r in manifest["rows"]} == {"train"} and len(manifest["rows"]) == 2


def test_a_trajectory_of_a_test_split_task_is_refused_naming_it_and_nothing_is_written(collected, tmp_path):
    with open_store(collected["store"]) as graph:
        units = task_units(graph, sorted(collected["tasks"]), "repository")
    splits = assign(units, {"train": 0, "validation": 0, "test": 3}, seed=0, unit="repository")
    out = tmp_path / "out"
    with open_store(collected["store"]) as graph, pytest.raises(InputError, match="in the test split") as refused:
        export_trajectories(graph, [collected["log"]], out, release=_release(tmp_path, splits))
    assert min(t for t, n in collected["passes"].items() if n) in str(refused.value)
    assert not out.exists()
    with open_store(collected["store"]) as graph:
        assert not [r for r in graph.run("MATCH (j:Trajectory) RETURN j.export AS export")
                    if r["export"] == str(out.resolve())]


def test_a_train_task_whose_repository_is_held_out_is_refused(collected, tmp_path):
    """Its repository in the test split leaks, even when the task itself is listed under train."""
    ids = sorted(collected["tasks"])
    splits = Splits("repository", 0, {"train": 3, "test": 1}, {"train": ids, "test": []},
                    {"train": [], "test": [repair_fixture.REPO]})
    with open_store(collected["store"]) as graph, \
            pytest.raises(InputError, match=f"repository {repair_fixture.REPO} with the test split"):
        export_trajectories(graph, [collected["log"]], tmp_path / "out", release=_release(tmp_path, splits))


def test_the_training_rows_query_finds_each_rows_atoms(collected, tmp_path):
    out = tmp_path / "out"
    _, manifest = _export(collected, out)
    with open_store(collected["store"]) as graph:
        for row in manifest["rows"]:
            for atom in collected["tasks"][row["task"]].atoms:
                found = [r for r in run_named(graph, "training_rows", {"atom": atom})
                         if r["export"] == str(out.resolve())]
                assert (row["row"], row["task"], row["grade"]) in {(r["row"], r["task"], r["grade"]) for r in found}
                assert all(atom in collected["tasks"][r["task"]].atoms for r in found)


def test_the_per_attempt_report_matches_a_hand_count(collected):
    with open_store(collected["store"]) as graph:
        rows = {r.level: r for r in per_attempt_report(graph, "repair", k=EPOCHS) if r.model == "mockllm/model"}
    passes, tasks = collected["passes"], collected["tasks"]
    for level in (1, 2):
        mine = [t for t in tasks if tasks[t].level == level]
        hand = sum(passes[t] for t in mine)
        r = rows[level]
        assert (r.tasks, r.attempts, r.passed, r.failed, r.errors) == (len(mine), EPOCHS * len(mine), hand,
                                                                      EPOCHS * len(mine) - hand, 0)
        assert r.per_attempt == round(hand / (EPOCHS * len(mine)), 4)
        assert r.pass_at_k == round(sum(passes[t] > 0 for t in mine) / len(mine), 4)  # pass@8: solved at all
    with open_store(collected["store"]) as graph:  # one eval by its id: every epoch, not only the first
        one = per_attempt_report(graph, "repair", run=collected["eval"])
    assert {(r.level, r.attempts, r.k) for r in one} == {(1, 2 * EPOCHS, EPOCHS), (2, EPOCHS, EPOCHS)}


def test_pass_at_k_is_the_unbiased_estimator():
    assert pass_at_k(8, 0, 1) == 0.0 and pass_at_k(8, 8, 3) == 1.0
    assert pass_at_k(8, 3, 1) == pytest.approx(3 / 8)
    assert pass_at_k(8, 3, 2) == pytest.approx(1 - (5 * 4) / (8 * 7))
    assert pass_at_k(8, 3, 6) == 1.0  # fewer failures than k: some draw holds a success


def test_the_cli_exports_and_reports(collected, tmp_path, capsys):
    store, out = str(collected["store"]), tmp_path / "out"
    code, stdout, stderr = cw(capsys, "--store", store, "train", "export", str(collected["log"]), "--out", str(out),
                              "--levels", "1,2", "--seed", "3", "--json")
    assert code == 0, stderr
    assert len(json.loads(stdout)["rows"]) == 2 and (out / ROWS).exists()
    code, stdout, stderr = cw(capsys, "--store", store, "grade", "report", "--domain", "repair", "--per-attempt",
                              "--json")
    assert code == 0, stderr
    assert {(r["level"], r["attempts"]) for r in json.loads(stdout) if r["model"] == "mockllm/model"} == {
        (1, 16), (2, 8)}
    code, _, stderr = cw(capsys, "--store", store, "train", "export", str(tmp_path / "nope.eval"), "--out", str(out))
    assert code == 2 and "log not found" in stderr
