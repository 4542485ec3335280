"""`inspect eval codewalk/proofs_agent` on a real ACSL task (fill, level 1), driven by scripted models
(inspect's mock model with custom outputs): every candidate goes through real Frama-C/WP, the final one is
graded by V_G on the host and stored as a grade of the eval's run. Verdicts are cached for the module, so
each distinct candidate is proved once: about 6 frama-c runs (1 to 2 minutes on a busy 2-core machine)."""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage, get_model

from codewalk.domains.proofs import ProofsDomain, acsl, read
from codewalk.evals import proofs_agent, smoke
from codewalk.records import Run, Task, task_id
from codewalk.report import grade_report
from codewalk.store import open_store
from codewalk.store.columns import graph_tables
from tests.run_cw import cw
from tests.shared_data import dataset, require

ACSL = dataset("acsl-bench", "acsl-by-example")

pytestmark = pytest.mark.skipif(not shutil.which("frama-c") and os.environ.get("CI") != "true",
                                reason="frama-c is not installed (apt-get install frama-c-base why3 z3 cvc5)")

# What the model writes, given the task (the transcript so far is the second argument)
Script = Callable[[Task, list[ChatMessage]], str]


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("proofs-cache")


@pytest.fixture(autouse=True)
def _env(cache, module_home, monkeypatch):
    monkeypatch.setenv("CODEWALK_CACHE", str(cache))
    monkeypatch.setenv("CODEWALK_HOME", str(module_home))


@pytest.fixture(scope="module")
def proofs_store(tmp_path_factory, cache) -> Path:
    """One admitted ACSL task: fill alone under chain_driver (its goal set recorded from the reference)."""
    require("acsl-bench", "acsl-by-example")
    root = tmp_path_factory.mktemp("proofs-agent")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CODEWALK_CACHE", str(cache))
        _, atoms, _ = read(ACSL, {"programs": "Mutating/fill", "references": "trust"})
        domain = ProofsDomain()
        composite = domain.compose(atoms)
        assert acsl.check_reference(composite).ok  # records the task's goal set in its verifier
        with open_store(str(root / "graph.lbug")) as store:
            store.write(*graph_tables(atoms, []))
            run = Run("r-agent", "proofs", 0, {"n": 1}, "2026-01-01T00:00:00+00:00")
            store.write_run(run)
            store.write_tasks([Task(task_id("proofs", [atoms[0].id], domain.composer_version), "proofs",
                                    (atoms[0].id,), "admitted", "admitted", 0, run.id, run.started, "test",
                                    composite.prompt, composite.reference, composite.verifier)])
    return root / "graph.lbug"


def _task(store: Path) -> Task:
    with open_store(store) as graph:
        [row] = graph.select_tasks("proofs", "admitted")
    return Task.from_row(row)


def _evaluate(store: Path, tmp_path: Path, script: Script, **task_args) -> tuple[EvalLog, list[list[ChatMessage]]]:
    """The eval's log and what the model was given at each call."""
    t = _task(store)
    seen: list[list[ChatMessage]] = []

    def output(messages: list[ChatMessage], *_) -> ModelOutput:
        seen.append(list(messages))
        out = ModelOutput.from_content("mockllm", script(t, messages))
        out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)  # no tokenizer download
        return out

    model = get_model("mockllm/model", custom_outputs=output)
    [log] = inspect_eval("codewalk/proofs_agent", model=model, log_dir=str(tmp_path / "logs"), display="none",
                         task_args={"store": str(store), "require_isolation": False, **task_args})
    assert log.status == "success", log.error
    return log, seen


def _score(log: EvalLog) -> dict:
    assert log.samples is not None
    [sample] = log.samples
    score = sample.scores["proofs_verifier"]
    return {"value": score.value, **(score.metadata or {})}


def _without_invariant(t: Task) -> str:
    """The reference without fill's loop invariant `constant`: its ensures no longer proves."""
    weaker = t.reference.replace("    loop invariant constant: AllEqual(a, i, v);\n", "")
    assert weaker != t.reference
    return weaker


def test_replaying_the_reference_scores_1_after_one_verifier_call_and_is_stored(proofs_store, tmp_path):
    log, seen = _evaluate(proofs_store, tmp_path, lambda t, _: f"```c\n{t.reference}```")
    score = _score(log)
    assert (score["value"], score["ended"], score["verifier_calls"], len(seen)) == (1.0, "verified", 1, 1)
    assert score["run"] == f"proofs_agent-{log.eval.eval_id}" and score["tokens"] == 15
    with open_store(proofs_store) as graph:
        [report] = [r for r in grade_report(graph, "proofs", score["run"]).rows]
    assert (report.level, report.passed, report.solve_rate) == (1, 1, 1.0)


def test_a_failing_first_candidate_fixed_in_the_next_round_scores_1_after_two_verifier_calls(proofs_store, tmp_path):
    log, seen = _evaluate(proofs_store, tmp_path,
                          lambda t, messages: _without_invariant(t) if len(seen_calls(messages)) == 0 else t.reference)
    score = _score(log)
    assert (score["value"], score["verifier_calls"], len(seen)) == (1.0, 2, 2)
    first, second = score["trajectory"]
    assert (first["phase"], first["status"], second["phase"], second["status"]) == \
        ("generation", "failed", "refinement", "passed")
    shown = seen[1][-1].text  # the refinement prompt: the candidate, then the verifier's messages
    assert "f1_fill_ensures_constant" in shown and first["message"] in shown
    line = next(k for k, text in enumerate(_without_invariant(_task(proofs_store)).splitlines(), 1)
                if "ensures    constant" in text)
    assert re.search(rf"f1_fill_ensures_constant: ensures, line {line}: ensures +constant", shown), shown
    assert re.search(r"ensures_constant: .*\[(\S+ (unknown|timeout|failed) \d+(; )?)+\]", shown), shown  # the provers' word


def seen_calls(messages: list[ChatMessage]) -> list[ChatMessage]:
    """The verifier messages the model was shown so far (a refinement or repair prompt carries them)."""
    return [m for m in messages if "Verifier messages:" in m.text]


def _admit(t: Task) -> str:
    return t.reference.replace("  for (size_type i = 0u; i < n; ++i) {", "  //@ admit \\false;\n  for (size_type i = 0u; i < n; ++i) {")


def _weaker_predicate(t: Task) -> str:
    return t.reference.replace("\\at((AllEqual(a, n, v)),", "\\at((\\true),")


def _no_driver(t: Task) -> str:
    return t.reference[:t.reference.index("/*@\n  requires \\valid(a + (0..n-1));\n*/\nvoid chain_driver")]


@pytest.mark.parametrize(("cheat", "reason"), [(_admit, "bypass"), (_weaker_predicate, "bypass"),
                                               (_no_driver, "bypass")])
def test_a_candidate_that_bypasses_the_proof_scores_0_with_the_guards_reason(proofs_store, tmp_path, cheat, reason):
    log, seen = _evaluate(proofs_store, tmp_path, lambda t, _: cheat(t), rounds=0)
    score = _score(log)
    assert cheat(_task(proofs_store)) != _task(proofs_store).reference
    assert (score["value"], score["status"], score["reason"]) == (0.0, "failed", reason), score
    assert score["verifier_calls"] == 2 and score["ended"].startswith("round limit")
    assert all(r["reason"] == reason and "Refused before any prover ran" in r["message"]
               for r in score["trajectory"])


def test_out_of_rounds_scores_0_with_the_round_limit_recorded(proofs_store, tmp_path):
    log, seen = _evaluate(proofs_store, tmp_path, lambda t, _: t.prompt, rounds=1)
    score = _score(log)
    assert (score["value"], score["verifier_calls"], score["repair_rounds"]) == (0.0, 3, 1)
    assert score["ended"] == "round limit: 1 repair rounds without a verified candidate"
    assert [r["phase"] for r in score["trajectory"]] == ["generation", "refinement", "repair"]
    assert [r["max_tokens"] for r in score["trajectory"]] == [16_000, 16_000, 4_096]
    assert "Verifier messages:" in seen[2][-1].text and "Fix the annotations" in seen[2][-1].text


def test_out_of_time_scores_0_with_the_time_limit_recorded(proofs_store, tmp_path):
    def slow(t: Task, _: list[ChatMessage]) -> str:
        time.sleep(2)
        return t.reference

    log, _ = _evaluate(proofs_store, tmp_path, slow, time_limit=1)
    score = _score(log)
    assert score["value"] == 0.0 and score["ended"].startswith("time limit"), score
    assert "time limit" in log.samples[0].scores["proofs_verifier"].explanation  # type: ignore[index]
    with open_store(proofs_store) as graph:
        [row] = grade_report(graph, "proofs", score["run"]).rows
    assert (row.passed, row.failed) == (0, 1)  # stored as a failure of the eval's run


def test_the_smoke_check_replays_the_reference_through_the_agent(proofs_store, tmp_path, capsys):
    code = smoke.main(["codewalk/proofs_agent", "-T", f"store={proofs_store}", "-T", "require_isolation=false",
                       "--log-dir", str(tmp_path / "logs")])
    out = capsys.readouterr().out
    assert code == 0 and "proofs_agent: eval" in out and "1 samples, 1 scored, 1 solved by the reference" in out


def test_grade_report_gives_the_agents_solve_rate_beside_the_one_call_tasks(proofs_store, tmp_path, capsys):
    agent_log, _ = _evaluate(proofs_store, tmp_path, lambda t, _: t.reference)
    t = _task(proofs_store)
    model = get_model("mockllm/model", custom_outputs=[ModelOutput.from_content("mockllm", t.prompt)])
    [one_call] = inspect_eval("codewalk/proofs", model=model, log_dir=str(tmp_path / "logs"), display="none",
                              task_args={"store": str(proofs_store), "require_isolation": False})
    assert one_call.status == "success", one_call.error
    agent_run = f"proofs_agent-{agent_log.eval.eval_id}"
    code, out, _ = cw(capsys, "--store", str(proofs_store), "grade", "report", "--domain", "proofs", "--json")
    assert code == 0, out
    rows = {r["run"]: r for r in json.loads(out)["rows"]}
    assert (rows[agent_run]["scaffold"], rows[agent_run]["solve_rate"], rows[agent_run]["baseline"]) == \
        ("proofs_agent", 1.0, 1.0)
    assert (rows[one_call.eval.eval_id]["scaffold"], rows[one_call.eval.eval_id]["solve_rate"]) == ("", 0.0)
    code, out, _ = cw(capsys, "--store", str(proofs_store), "grade", "report", "--domain", "proofs")
    assert code == 0 and "proofs_agent" in out and "scaffold" in out
    code, out, _ = cw(capsys, "--store", str(proofs_store), "grade", "report", "--domain", "proofs", "--per-attempt",
                      "--run", agent_log.eval.eval_id, "--json")  # the agent's attempts, found by their eval id
    assert code == 0, out
    assert [(r["scaffold"], r["attempts"], r["passed"]) for r in json.loads(out)] == [("proofs_agent", 1, 1)]


def test_the_program_is_taken_from_a_fenced_block_when_the_model_adds_prose():
    assert proofs_agent.program("```c\nint x;\n```") == "int x;\n"
    assert proofs_agent.program("Here it is:\n```c\nint x;\nint y;\n```\nand a note ```a```") == "int x;\nint y;\n"
    assert proofs_agent.program("int x;") == "int x;"


def test_a_goal_is_placed_by_its_label_its_kind_or_its_call():
    text = ("/*@\n  requires n > 0;\n  assigns a[0..n-1];\n  ensures done: P(a);\n*/\nvoid f1_fill(int* a, int n)\n{\n"
            "  /*@ loop invariant bound: 0 <= i <= n; */\n  for (;;) {}\n}\nvoid chain_driver(int* a, int n)\n{\n"
            "  L1: f1_fill(a, n);\n}\n")
    functions = ["f1_fill", "chain_driver"]
    assert proofs_agent.where_in("f1_fill_ensures_done", functions, text) == "ensures, line 4: ensures done: P(a);"
    assert proofs_agent.where_in("f1_fill_loop_invariant_bound_preserved", functions, text) == \
        "loop invariant, line 8: /*@ loop invariant bound: 0 <= i <= n; */"
    assert proofs_agent.where_in("f1_fill_assigns_part2", functions, text) == "assigns, line 3: assigns a[0..n-1];"
    assert proofs_agent.where_in("chain_driver:f1_fill_requires", functions, text) == \
        "a precondition of this call, line 13: L1: f1_fill(a, n);"
    assert proofs_agent.where_in("f1_fill_assert_rte_mem_access", functions, text) == \
        "a run-time error check (rte) of f1_fill() (lines 1-10)"
