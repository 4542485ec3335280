"""The two checks every red-team round (tests/test_repair_redteam_round5.py, 6, 7) makes of a spelling: it is
not graded solved (and, for a kind stopped today, one of its rules stopped it), and a stopped kind is a real
cheat: every test passes with the rules that stop it absent (the static layer is not run by _run, the audit
hook tracks no module when told of no changed file, and the class guard, the comparison control with it, is
off), so its refusal is not a cheat failing on its own."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from tests.test_repair_redteam import _grade
from tests.test_repair_runtime_guard import _run, _solved, _without_class_guard


def assert_not_solved(task, tmp_path, edits: Sequence, rules: Sequence[str | None] | None = None) -> None:
    verdict = _grade(task, tmp_path, *edits)
    assert not verdict.ok, f"graded solved: {verdict.detail}"
    if rules is not None:
        assert verdict.evidence.get("rule") in rules, (verdict.reason, verdict.evidence, verdict.detail)


def assert_solved_without_its_rules(task, runtime: str, edits: Sequence) -> None:
    from codewalk.domains.repair import channel

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(channel, "prepare", _without_class_guard)
        assert _solved(_run(task, runtime, *edits, guarded=False))
