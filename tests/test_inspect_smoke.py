"""`python -m codewalk.evals.smoke`: the inspect route offline, with inspect_ai's mock model replaying the
references; it fails loudly (exit 1) when samples go unscored."""

from __future__ import annotations

from codewalk.domains.demo import DemoDomain
from codewalk.errors import InfraError
from codewalk.evals import smoke


def test_the_smoke_run_scores_every_reference_and_exits_zero_offline(demo_store_path, tmp_path, capsys):
    code = smoke.main(["demo", "-T", f"store={demo_store_path}", "--log-dir", str(tmp_path / "logs")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "9 samples, 9 scored, 9 solved by the reference" in out


def test_the_smoke_run_exits_one_when_the_verifier_gives_no_verdict(demo_store_path, tmp_path, capsys, monkeypatch):
    """A sample without a verdict scores 0 (an error is a failure, shown as status error), never 1."""
    def no_verdict(self, composite, candidate):
        raise InfraError("the verifier crashed")

    monkeypatch.setattr(DemoDomain, "grade", no_verdict)
    code = smoke.main(["demo", "-T", f"store={demo_store_path}", "-T", "level=1",
                       "--log-dir", str(tmp_path / "logs")])
    captured = capsys.readouterr()
    assert code == 1 and "3 samples, 3 scored, 0 solved by the reference" in captured.out
    assert "FAILED" in captured.err


def test_the_smoke_run_exits_one_on_a_store_without_tasks_of_the_domain(demo_store_path, tmp_path, capsys):
    code = smoke.main(["complexity", "-T", f"store={demo_store_path}", "--log-dir", str(tmp_path / "logs")])
    assert code == 1 and "no admitted tasks of domain 'complexity'" in capsys.readouterr().err


def test_the_smoke_run_takes_the_task_as_inspect_eval_names_it(demo_store_path, tmp_path, capsys):
    """The README types `codewalk/repair_agent`, as `inspect eval` names it; the short name works too."""
    code = smoke.main(["codewalk/demo", "-T", f"store={demo_store_path}", "-T", "level=1",
                       "--log-dir", str(tmp_path / "logs")])
    assert code == 0 and "demo: eval" in capsys.readouterr().out
