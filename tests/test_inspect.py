"""`inspect eval codewalk/<domain>`: the inspect_ai tasks read admitted tasks, the scorer is `cw grade`'s
verifier and stores its grades. Offline: inspect_ai's mock model answers what each test gives it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import SampleScore, Score

from codewalk.admission import walk_and_admit
from codewalk.domains.demo import DemoDomain
from codewalk.errors import InfraError, InputError, UsageError
from codewalk.evals import tasks as cw_inspect
from codewalk.export import export_tasks, read_export
from codewalk.grading import grade_predictions
from codewalk.loading import load
from codewalk.records import Task
from codewalk.runtime import sandbox
from codewalk.store import open_store
from tests.shared_data import dataset, require

CODECOMPLEX = dataset("codecomplex", "python_test.jsonl")
# Two real programs: level 1 gives constant and linear, the chain 0501 -> 0515 a cubic level-2 task.
PROGRAMS = ("0501", "0515")


@pytest.fixture(scope="module")
def complexity_store(tmp_path_factory) -> Path:
    """A small real complexity store (loaded and admitted by the domain), built once for the module."""
    require("codecomplex", "python_test.jsonl")
    folder = tmp_path_factory.mktemp("complexity")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("CODEWALK_HOME", str(folder / "home"))
        with open_store(folder / "graph.lbug") as store:
            ids = ",".join(f"cc-simple-test-{row}" for row in PROGRAMS)
            load(store, "complexity", CODECOMPLEX, {"ids": ids, "workers": "1"})
            walk_and_admit(store, "complexity", 1, count=2, seed=1)
            walk_and_admit(store, "complexity", 2, count=1, seed=2, max_attempts=10)
    return folder / "graph.lbug"


def _admitted(store: Path, domain: str) -> list[dict]:
    with open_store(store) as graph:
        return graph.select_tasks(domain, "admitted")


def _evaluate(domain: str, answers: dict[str, str], tmp_path: Path, epochs: int = 1, **task_args) -> EvalLog:
    """`inspect eval codewalk/<domain>` with a mock model that answers each task's input with answers[id]."""
    tasks = {t.id: t for t in cw_inspect._tasks(domain, task_args.get("store"), task_args.get("export"),
                                                task_args.get("level", 0))}
    by_input = {cw_inspect.TEMPLATES[domain].format(prompt=tasks[i].prompt): text for i, text in answers.items()}

    def answer(messages: list[ChatMessage], *_) -> ModelOutput:
        output = ModelOutput.from_content("mockllm", by_input[messages[-1].text])
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # no tokenizer download
        return output

    model = get_model("mockllm/model", custom_outputs=answer)
    task_args = {k: str(v) if isinstance(v, Path) else v for k, v in task_args.items()}
    [log] = inspect_eval(f"codewalk/{domain}", model=model, task_args=task_args, log_dir=str(tmp_path / "logs"),
                         display="none", epochs=epochs)
    assert log.status == "success", log.error
    return log


def _metrics(log: EvalLog) -> dict[str, float]:
    assert log.results is not None
    return {name: m.value for score in log.results.scores for name, m in score.metrics.items()}


def _grades(store: Path, run: str) -> dict[str, dict]:
    with open_store(store) as graph:
        rows = graph.run("MATCH (g:Grade)-[:OF]->(t:Task) WHERE g.run = $run "
                         "RETURN t.id AS task, g.status AS status, g.model AS model, g.output AS output",
                         {"run": run})
    return {r["task"]: r for r in rows}


def _cw_grade(store: Path, domain: str, answers: dict[str, str], tmp_path: Path, run: str) -> dict[tuple, tuple]:
    """`cw grade` on the same outputs; every run's (passed, failed, errors, solve rate) by level."""
    predictions = tmp_path / f"{run}.jsonl"
    predictions.write_text("".join(json.dumps({"task_id": i, "output": o}) + "\n" for i, o in answers.items()))
    with open_store(store) as graph:
        report = grade_predictions(graph, domain, predictions, run=run)
    return {(r["run"], r["level"]): (r["passed"], r["failed"], r["errors"], r["solve_rate"]) for r in report.rates}


# -- demo ------------------------------------------------------------------------------------------------
def test_demo_references_score_one_empty_outputs_zero_and_every_grade_is_stored_under_the_eval_id(
        demo_store_path, tmp_path):
    tasks = _admitted(demo_store_path, "demo")
    levels = {t["level"] for t in tasks}
    # half the references come in a Markdown fence, as models write code: graded (and stored) without it
    references = {t["id"]: f"```python\n{t['reference']}```" if k % 2 else t["reference"]
                  for k, t in enumerate(tasks)}
    right = _evaluate("demo", references, tmp_path, store=demo_store_path)
    assert _metrics(right) == {"accuracy": 1.0, **{f"level_{n}": 1.0 for n in levels}}
    assert {i: g["output"] for i, g in _grades(demo_store_path, right.eval.eval_id).items()} == {
        t["id"]: t["reference"] for t in tasks}
    empty = _evaluate("demo", {t["id"]: "" for t in tasks}, tmp_path, store=demo_store_path)
    assert _metrics(empty) == {"accuracy": 0.0, **{f"level_{n}": 0.0 for n in levels}}
    for log, status in ((right, "passed"), (empty, "failed")):
        stored = _grades(demo_store_path, log.eval.eval_id)
        assert set(stored) == {t["id"] for t in tasks}
        assert {(g["status"], g["model"]) for g in stored.values()} == {(status, "mockllm/model")}
    sample = right.samples[0]  # the verifier's evidence and the grade's key travel with the score
    score = sample.scores["verifier"]
    assert score.metadata["status"] == "passed" and score.metadata["evidence"]["failures"] == []
    assert score.metadata["run"] == right.eval.eval_id and score.explanation


def test_demo_solve_rates_by_level_equal_cw_grade_on_the_same_outputs_verifier_errors_not_solved(
        demo_store_path, tmp_path, monkeypatch):
    real = DemoDomain.grade

    def grade(self, composite, candidate):
        if candidate == "crash":
            raise InfraError("the verifier crashed")
        return real(self, composite, candidate)

    monkeypatch.setattr(DemoDomain, "grade", grade)  # a verifier with no verdict for one output
    tasks = sorted(_admitted(demo_store_path, "demo"), key=lambda t: (t["level"], t["id"]))
    # in turn: right, still buggy, no verdict
    answers = {t["id"]: (t["reference"], t["prompt"], "crash")[k % 3] for k, t in enumerate(tasks)}
    log = _evaluate("demo", answers, tmp_path, store=demo_store_path)
    rates = _cw_grade(demo_store_path, "demo", answers, tmp_path, run="cw")
    ours = {level: r for (run, level), r in rates.items() if run == log.eval.eval_id}
    assert ours == {level: r for (run, level), r in rates.items() if run == "cw"}
    assert {r[2] for r in ours.values()} != {0}  # some verdicts were missing, as planned
    assert [s.scores["verifier"].metadata["status"] for s in log.samples].count("error") == sum(
        r[2] for r in ours.values())
    metrics = _metrics(log)
    for level, (_, _, _, rate) in ours.items():
        assert metrics[f"level_{level}"] == pytest.approx(rate, abs=1e-3)


def test_a_machine_that_cannot_isolate_candidates_is_refused_when_isolation_is_required(
        demo_store_path, monkeypatch):
    monkeypatch.setattr(sandbox, "_bwrap_works", lambda: False)
    with pytest.raises(UsageError, match="-T require_isolation=false"):
        cw_inspect.demo(store=str(demo_store_path), require_isolation=True)
    assert cw_inspect.demo(store=str(demo_store_path), require_isolation=False).dataset  # graded, with a warning


def test_a_store_without_admitted_tasks_of_the_domain_is_refused(demo_store_path):
    with pytest.raises(UsageError, match="no admitted tasks of domain 'complexity'"):
        cw_inspect.complexity(store=str(demo_store_path))


# -- complexity (a real domain) ---------------------------------------------------------------------------
def test_complexity_references_score_one_and_empty_outputs_zero_by_level(complexity_store, tmp_path):
    tasks = _admitted(complexity_store, "complexity")
    assert {t["level"] for t in tasks} == {1, 2}
    right = _evaluate("complexity", {t["id"]: t["reference"] for t in tasks}, tmp_path, store=complexity_store)
    assert _metrics(right) == {"accuracy": 1.0, "level_1": 1.0, "level_2": 1.0}
    empty = _evaluate("complexity", {t["id"]: "" for t in tasks}, tmp_path, store=complexity_store)
    assert _metrics(empty) == {"accuracy": 0.0, "level_1": 0.0, "level_2": 0.0}
    assert {g["status"] for g in _grades(complexity_store, empty.eval.eval_id).values()} == {"failed"}
    evidence = right.samples[0].scores["verifier"].metadata["evidence"]
    assert evidence["predicted"] == evidence["expected"] == right.samples[0].target


def test_complexity_solve_rates_equal_cw_grade_and_level_selects_the_tasks(complexity_store, tmp_path):
    tasks = _admitted(complexity_store, "complexity")
    # level 2 (cubic) and the constant level-1 task right, the linear one wrong
    answers = {t["id"]: "quadratic" if t["reference"] == "linear" else t["reference"] for t in tasks}
    log = _evaluate("complexity", answers, tmp_path, store=complexity_store)
    rates = _cw_grade(complexity_store, "complexity", answers, tmp_path, run="cw")
    ours = {level: r for (run, level), r in rates.items() if run == log.eval.eval_id}
    assert ours == {level: r for (run, level), r in rates.items() if run == "cw"}
    assert _metrics(log) == {"accuracy": pytest.approx(2 / 3), "level_1": 0.5, "level_2": 1.0}
    level_two = [t for t in tasks if t["level"] == 2]
    only = _evaluate("complexity", {t["id"]: t["reference"] for t in level_two}, tmp_path, epochs=2,
                     store=complexity_store, level=2)
    assert sorted((s.id, s.epoch) for s in only.samples) == sorted((t["id"], k) for t in level_two for k in (1, 2))
    run = only.eval.eval_id  # each epoch its own run: the second does not replace the first's grades
    assert set(_grades(complexity_store, run)) == set(_grades(complexity_store, f"{run}.2")) == {
        t["id"] for t in level_two}


def test_tasks_read_from_an_export_are_graded_and_recorded_only_where_a_store_is_given(complexity_store, tmp_path):
    with open_store(complexity_store) as graph:
        export_tasks(graph, "complexity", tmp_path / "tasks.jsonl", "inspect")
    tasks = _admitted(complexity_store, "complexity")
    answers = {t["id"]: t["reference"] for t in tasks}
    unrecorded = _evaluate("complexity", answers, tmp_path, export=tmp_path / "tasks.jsonl")
    assert _metrics(unrecorded)["accuracy"] == 1.0 and not _grades(complexity_store, unrecorded.eval.eval_id)
    recorded = _evaluate("complexity", answers, tmp_path, export=tmp_path / "tasks.jsonl", store=complexity_store)
    assert set(_grades(complexity_store, recorded.eval.eval_id)) == set(answers)


def test_an_export_row_of_a_task_that_was_not_admitted_or_of_another_domain_is_refused_by_line(
        complexity_store, tmp_path):
    with open_store(complexity_store) as graph:
        export_tasks(graph, "complexity", tmp_path / "tasks.jsonl", "jsonl")
    rows = [json.loads(line) for line in (tmp_path / "tasks.jsonl").read_text().splitlines()]
    assert len(read_export(tmp_path / "tasks.jsonl", "complexity")) == len(rows)
    rows[1]["status"] = "rejected"
    (tmp_path / "edited.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(InputError, match=r"edited\.jsonl:2: .* was not admitted"):
        read_export(tmp_path / "edited.jsonl", "complexity")
    with pytest.raises(InputError, match=r"tasks\.jsonl:1: .* of domain 'complexity', not 'demo'"):
        read_export(tmp_path / "tasks.jsonl", "demo")


# -- the pieces ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("completion, graded", [
    ("```python\ndef f():\n    return 1\n```", "def f():\n    return 1\n"),
    ("\n```diff\n--- a/x\n+++ b/x\n```\n", "--- a/x\n+++ b/x\n"),
    ("def f():\n    return 1\n", "def f():\n    return 1\n"),  # no fence: as it is
    ("```\na\n```\nand\n```\nb\n```", "```\na\n```\nand\n```\nb\n```"),  # two blocks: as it is
    ("Here:\n```\na\n```", "Here:\n```\na\n```"),  # text around the fence: as it is
])
def test_one_fence_around_the_whole_answer_is_removed_before_grading(completion, graded):
    assert cw_inspect.answer(completion) == graded


def test_clone_samples_carry_their_class_and_are_scored_by_level_and_class():
    def task(i: int, level: int, label: str) -> Task:
        return Task(id=f"t{i}", domain="clones", atoms=tuple(f"a{k}" for k in range(level)), status="admitted",
                    reason="admitted", seed=0, run="r", created_at="", generator_version="",
                    prompt=f"p{i}", reference="VERDICT: 1", verifier={"label": label})

    samples = [cw_inspect._sample("clones", task(i, level, label))
               for i, (level, label) in enumerate([(2, "eq"), (2, "neq"), (3, "neq"), (3, "neq")])]
    values = [1.0, 0.0, 1.0, 0.0]
    scores = [SampleScore(score=Score(value=v), sample_id=s.id, sample_metadata=s.metadata)
              for s, v in zip(samples, values)]
    computed: dict[str, float] = {}
    for metric in cw_inspect._metrics("clones"):
        value = metric(scores)  # type: ignore[operator]
        computed.update(value if isinstance(value, dict) else {"accuracy": value})
    assert computed == {"accuracy": 0.5, "level_2": 0.5, "level_3": 0.5, "eq": 1.0, "neq": 1 / 3,
                        "level_2_eq": 1.0, "level_2_neq": 0.0, "level_3_neq": 0.5}
