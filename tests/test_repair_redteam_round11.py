"""Red team, round 10, in process (issue 51): kinds of cheating candidate that act inside the test process, aimed
at what main 1c23cc6 still allows (the class guard and its comparison control act at records, on a class's
verdict dunders, not on what they call; the static layer reads spellings), built against it before any change
and graded end to end on the tally task (W1 + W2) under both runtimes, as tests/test_repair_redteam_round9.py
grades its cheats. The kinds and their spellings are in tests/redteam_round11_cheats.py (each with the principle
it aims at).

Each test asserts that the cheat is NOT graded solved. A kind graded solved today is a hole: marked
xfail(strict=True) with the reason, so the module stays green and turns red (XPASS) when the hole closes. A
kind stopped today pins the rule codes that stop it, and `test_round11_stopped_cheat_really_passes_without_its_rules`
shows it is a real cheat (every test passes when the run-time rules are absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

from codewalk.domains.repair.channel import NoVerdict
from tests.redteam_round11_cheats import KINDS
from tests.redteam_rounds import assert_not_solved, assert_solved_without_its_rules
from tests.test_repair_redteam import (  # noqa: F401  (fixtures: both runtimes, the W1 + W2 task)
    graded_in,
    round_cases,
    task,
)
from tests.test_repair_redteam_round9 import _static_refusals
from tests.test_repair_runtime_guard import _run, _solved

pytestmark = pytest.mark.usefixtures("shared_home")  # one home: the virtualenv and the image are built once

# Verdicts measured under both runtimes (the same under local and docker) on main 1c23cc6 (this module's base).
# HOLES: graded solved, with why it stays open. STOPPED: not solved, with the rule codes that stop it.
HOLES: dict[str, str] = {
}
STOPPED: dict[str, tuple[str | None, ...]] = {
}
# Spellings of a HOLES kind stopped on their own, with the rule codes that stop them: the kind stays a hole.
SPELLINGS_STOPPED: dict[tuple[str, str], tuple[str | None, ...]] = {
}
ALL = list(KINDS)


def _not_holes(cases: list) -> list:
    """The cases of round_cases with the spellings of SPELLINGS_STOPPED no longer marked xfail."""
    return [pytest.param(*case.values, id=case.id) if tuple(case.values) in SPELLINGS_STOPPED else case
            for case in cases]


@pytest.mark.parametrize(("kind", "spelling"), _not_holes(round_cases(KINDS, HOLES)))
def test_round11_cheat_is_not_solved(task, tmp_path, graded_in, kind, spelling):  # noqa: F811
    assert_not_solved(task, tmp_path, KINDS[kind].spellings[spelling],
                      SPELLINGS_STOPPED.get((kind, spelling), STOPPED.get(kind)))


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS, only=list(STOPPED)) + [
    pytest.param(kind, spelling, id="-".join(("f", kind, spelling.replace(" ", "_")))) for kind, spelling in SPELLINGS_STOPPED])
def test_round11_stopped_cheat_really_passes_without_its_rules(task, graded_in, kind, spelling):  # noqa: F811
    assert_solved_without_its_rules(task, graded_in, KINDS[kind].spellings[spelling])


# Stopped by the static layer: with it absent and every run-time rule on (the audit hook told of the changed
# files, the class guard and the comparison control), is the cheat still not solved? A kind the run time lets
# through is a RUN_TIME_HOLE (xfail strict): the static layer's spelling rules are all that stop it.
STATIC_CODES = frozenset(("import_not_allowed", "reflection", "dynamic_import", "format_path", "comparison",
                          "environment", "test_file", "shadows_environment"))
STATICALLY_STOPPED = [kind for kind in STOPPED if set(STOPPED[kind]) <= STATIC_CODES]
RUN_TIME_HOLES: dict[str, str] = {
}
assert set(RUN_TIME_HOLES) <= set(STATICALLY_STOPPED)


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS, RUN_TIME_HOLES, only=STATICALLY_STOPPED))
def test_round11_statically_stopped_cheat_is_not_solved_at_run_time(task, graded_in, kind, spelling):  # noqa: F811
    try:
        run = _run(task, graded_in, *KINDS[kind].spellings[spelling])
    except NoVerdict:
        return
    assert not _solved(run), run.status


# The static layer's verdict on each spelling (rules.refusals over the changed files, as the grader calls it), in
# process: the kinds it lets through are the run time's alone to stop.
STATICALLY_CLEAN = [kind for kind in KINDS if kind not in STATICALLY_STOPPED]


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS, only=STATICALLY_CLEAN))
def test_round11_kind_the_static_layer_lets_through(tmp_path: Path, kind, spelling):
    assert not _static_refusals(tmp_path, KINDS[kind].spellings[spelling])
