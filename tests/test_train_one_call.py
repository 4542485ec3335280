"""`cw train export` on a one-call task (`codewalk/demo`, as `codewalk/clones` is graded by label matching):
each attempt is the prompt and the model's one answer, kept by its stored grade; units are source programs
(a demo atom names none, so each atom is its own)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage, get_model

from codewalk.demo import run_demo
from codewalk.errors import InputError
from codewalk.evals.tasks import TEMPLATES
from codewalk.records import Task
from codewalk.splits import Splits
from codewalk.store import open_store
from codewalk.training import ROWS, export_trajectories, task_units

pytestmark = pytest.mark.usefixtures("shared_home")


@pytest.fixture(scope="module")
def collected(tmp_path_factory, module_home) -> dict:
    """Demo tasks, two epochs of a model that answers a level-1 task's reference and anything else wrongly."""
    root = tmp_path_factory.mktemp("demo")
    store = root / "graph.lbug"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CODEWALK_HOME", str(module_home))
        with open_store(store) as graph:
            run_demo(graph, count=2, workers=1)
            tasks = {r["id"]: Task.from_row(r) for r in graph.select_tasks("demo", "admitted")}
        by_prompt = {TEMPLATES["demo"].format(prompt=t.prompt): t for t in tasks.values()}

        def answer(messages: list[ChatMessage], *_) -> ModelOutput:
            task = by_prompt[messages[0].text]
            output = ModelOutput.from_content("mockllm", task.reference if task.level == 1 else "print('no')\n")
            output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
            return output

        [log] = inspect_eval("codewalk/demo", model=get_model("mockllm/model", custom_outputs=answer), epochs=2,
                             log_dir=str(root / "logs"), display="none",
                             task_args={"store": str(store), "require_isolation": False})
    assert log.status == "success", log.error
    return {"store": store, "log": Path(log.location), "tasks": tasks}


def test_a_one_call_attempt_exports_as_the_prompt_and_the_answer(collected, tmp_path):
    with open_store(collected["store"]) as graph:
        report = export_trajectories(graph, [collected["log"]], tmp_path / "out", seed=1)
    ones = sorted(i for i, t in collected["tasks"].items() if t.level == 1)
    assert [r["task"] for r in report.rows] == ones and {r["candidates"] for r in report.rows} == {2}
    rows = [json.loads(line) for line in (tmp_path / "out" / ROWS).read_text().splitlines()]
    for row, meta in zip(rows, report.rows, strict=True):
        assert [m["role"] for m in row["messages"]] == ["user", "assistant"] and row["tools"] == []
        assert row["messages"][1]["content"] == collected["tasks"][meta["task"]].reference


def test_a_task_sharing_a_source_program_with_the_test_split_is_refused(collected, tmp_path):
    ones = sorted(i for i, t in collected["tasks"].items() if t.level == 1)
    with open_store(collected["store"]) as graph:
        units = task_units(graph, ones, "source program")
    held = sorted(units[ones[0]])[0]
    splits = Splits("source program", 0, {"train": 9, "test": 1}, {"train": ones, "test": []},
                    {"train": [], "test": [held]})
    (tmp_path / "release").mkdir()
    (tmp_path / "release" / "splits.json").write_text(splits.to_json())
    with open_store(collected["store"]) as graph, \
            pytest.raises(InputError, match=f"source program {held} with the test split"):
        export_trajectories(graph, [collected["log"]], tmp_path / "out", release=tmp_path / "release")
    assert not (tmp_path / "out").exists()
