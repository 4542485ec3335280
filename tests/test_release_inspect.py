"""`inspect eval codewalk/<domain> -T release=DIR [-T split=NAME] [-T levels=1,2]`: the inspect tasks (and the
repair agent, through the same loading function) read a release folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage, get_model

from codewalk import release
from codewalk.errors import UsageError
from codewalk.evals import tasks as cw_inspect
from codewalk.loaders.demo import CATALOGUE
from codewalk.loading import load
from codewalk.store import open_store


@pytest.fixture(scope="module")
def demo_release(tmp_path_factory) -> Path:
    """A demo release with two splits (source programs disjoint) at N = 1 and 2."""
    root = tmp_path_factory.mktemp("release")
    plan = root / "plan.toml"
    plan.write_text("[levels]\n1 = 4\n2 = 2\n[splits]\ntrain = 4\ntest = 2\n")
    with open_store(root / "g.lbug") as store:
        load(store, "demo", Path(CATALOGUE))
        release.build(store, release.read_plan("demo", plan), root / "out")
    return root / "out"


def _ids(folder: Path, split: str | None = None, levels: tuple[int, ...] = ()) -> set[str]:
    return {t.id for t in release.release_tasks(folder, "demo", split, levels)}


def test_a_split_and_levels_of_a_release_are_what_the_task_loads(demo_release):
    every = cw_inspect._tasks("demo", None, None, 0, str(demo_release))
    assert {t.id for t in every} == _ids(demo_release) and len(every) == 6
    test = cw_inspect._tasks("demo", None, None, 0, str(demo_release), "test")
    assert {t.id for t in test} == _ids(demo_release, "test")
    ones = cw_inspect._tasks("demo", None, None, 0, str(demo_release), None, "1")
    assert {t.level for t in ones} == {1} and len(ones) == 4
    both = cw_inspect._tasks("demo", None, None, 0, str(demo_release), None, "1,2")
    assert len(both) == 6 and cw_inspect._tasks("demo", None, None, 2, str(demo_release))[0].level == 2


@pytest.mark.parametrize(("args", "says"), [
    ({"split": "nosuch"}, "has no split 'nosuch' (it has: test, train)"),
    ({"levels": "1,x"}, "levels: whole numbers"),
    ({"levels": "3"}, "no admitted tasks of domain 'demo' at level 3"),
])
def test_a_split_or_level_the_release_lacks_is_refused_by_name(demo_release, args, says):
    with pytest.raises(UsageError, match=says.replace("(", r"\(").replace(")", r"\)")):
        cw_inspect._tasks("demo", None, None, 0, str(demo_release), args.get("split"), args.get("levels"))


def test_split_without_a_release_and_a_folder_that_is_no_release_are_refused(demo_release, tmp_path):
    with pytest.raises(UsageError, match="give release=DIR too"):
        cw_inspect._tasks("demo", None, None, 0, None, "test")
    with pytest.raises(UsageError, match="not a release of domain 'demo'"):
        cw_inspect._tasks("demo", None, None, 0, str(tmp_path))


def test_inspect_eval_of_a_release_split_scores_its_references(demo_release, tmp_path):
    tasks = {t.id: t for t in release.release_tasks(demo_release, "demo", "train")}
    by_input = {cw_inspect.TEMPLATES["demo"].format(prompt=t.prompt): t.reference for t in tasks.values()}

    def answer(messages: list[ChatMessage], *_) -> ModelOutput:
        output = ModelOutput.from_content("mockllm", by_input[messages[-1].text])
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # no tokenizer download
        return output

    [log] = inspect_eval("codewalk/demo", model=get_model("mockllm/model", custom_outputs=answer),
                         task_args={"release": str(demo_release), "split": "train", "levels": "1,2"},
                         log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    assert {s.id for s in log.samples} == set(tasks)
    assert all(s.scores["verifier"].value == 1.0 for s in log.samples)
    assert all(s.scores["verifier"].metadata["grade"] is None for s in log.samples)  # no store: not recorded
