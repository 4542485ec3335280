"""Red team, round 9, part a (issue 51): kinds of cheating candidate that act inside the test process, aimed at
what main bb355ca allows last (the comparisons the control does not guard, the control's probes as new objects,
the class guard's library and same-name exemptions, the import system's exec of a file's own text), built
against it before any change and graded end to end on the tally task (W1 + W2) under both runtimes, as
tests/test_repair_redteam_round8.py grades its cheats. The kinds and their spellings are in
tests/redteam_round9_cheats.py (each with the principle it aims at).

Each test asserts that the cheat is NOT graded solved. A kind graded solved today is a hole: marked
xfail(strict=True) with the reason, so the module stays green and turns red (XPASS) when the hole closes. A
kind stopped today pins the rules that stop it, and `test_round9_stopped_cheat_really_passes_without_its_rules`
shows it is a real cheat (every test passes when those rules are absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

from codewalk.domains.repair import rules
from codewalk.domains.repair.channel import NoVerdict
from tests import repair_fixture
from tests.redteam_round9_cheats import KINDS
from tests.redteam_rounds import assert_not_solved, assert_solved_without_its_rules
from tests.test_repair_redteam import (  # noqa: F401  (fixtures: both runtimes, the W1 + W2 task)
    graded_in,
    round_cases,
    task,
)
from tests.test_repair_runtime_guard import _run, _solved

pytestmark = pytest.mark.usefixtures("shared_home")  # one home: the virtualenv and the image are built once

# Verdicts measured under both runtimes (the same under local and docker) on main bb355ca (this module's base).
# HOLES: graded solved, with why it stays open. STOPPED: not solved, with the rules that stop it.
HOLES: dict[str, str] = {}
STOPPED: dict[str, tuple[str | None, ...]] = {
    # closed on h-fix9: the hook tells the class guard when a class statement's body is changed code by what the
    # hook knows (a module written during the run, or copied into the package: tracked by its ctime), not only
    # by the diff's paths, so the class stands behind the control, which finds its __eq__ equal to its probes
    "comparison_in_a_module_written_at_run_time": ("class_changed",),
    "standard_library_file_copied_into_the_package_its_globals_rebound": ("class_changed",),
    # closed in h-fixcmp9 (boot.py, _class_guard's behind_control): the comparison a changed file's class HAS,
    # inherited (UserList.__eq__) or given after its statement (dataclasses' __eq__), is put behind the control
    # at each check; the control finds it equal to a probe too
    "inherited_library_comparison_calls_a_hook_the_class_overrides": ("class_changed",),
    "comparison_dataclasses_generates_after_the_statement": ("class_changed",),
    # closed in h-fixcmp9 (boot.py, _other_than's fresh, _controlled): the comparison is asked about a fresh copy
    # of the test's value, made as each probe is (new objects of the same types), and the test gets what the
    # control judged of that copy: the test's own (interned) constants are in neither, so a comparison that
    # looks for them says "not equal" to the value too, and the test fails (no rule: None)
    "control_s_probes_told_by_the_identity_of_the_value_s_parts": (None,),
    "control_s_probes_told_by_interning": (None,),
    # closed in h-fixorder10 (round 10, boot.py _apart, _controlled's asked_apart): every ask of the control (the
    # value's copy, each probe) runs in a child forked for it alone, so the comparison's state is the same at
    # each; what it learned at its first call is lost with the child, and a first call with no token (a part
    # left out) is trusted as the value: equal to two values that differ, both spellings, every run
    "control_s_order_told_by_its_first_probe_s_shape": ("class_changed",),
    # the static layer (xmlrpc is outside the allow-list) and the run time (a first import of a module outside
    # STDLIB_OK under changed code: audit_denied) each stop it; the principle is the UserList kind's, closed above
    "inherited_comparison_outside_the_reviewed_set": ("import_not_allowed",),
    # the static layer (unittest: SkipTest only) and the run time (unittest.mock's first import under changed
    # code); the class guard itself accepts both objects (mock.ANY's statement left its __eq__; a mock's class
    # takes any function but changed code's)
    "standard_library_object_equal_to_anything_by_design": ("import_not_allowed",),
    # the run time only (the class guard judges a class no statement made when its walk first finds it): the
    # static layer lets it through (STATIC_HOLES below)
    "class_made_by_a_maker_in_a_variable_with_a_computed_comparison_key": ("class_changed",),
}
ALL = list(KINDS)


# A spelling of a kind still open that is stopped since, with what stops it (none now: round 10 closed the order
# kind whole, and its spellings are no longer stopped by chance).
STOPPED_SPELLINGS: dict[tuple[str, str], tuple[str | None, ...]] = {}
CASES = round_cases(KINDS, HOLES)


@pytest.mark.parametrize(("kind", "spelling"), CASES)
def test_round9_cheat_is_not_solved(task, tmp_path, graded_in, kind, spelling):  # noqa: F811
    rules = STOPPED.get(kind) or STOPPED_SPELLINGS.get((kind, spelling))
    assert_not_solved(task, tmp_path, KINDS[kind].spellings[spelling], rules)


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS, only=list(STOPPED)) + [
    pytest.param(*kind_spelling, id="-".join((KINDS[kind_spelling[0]].cls, *kind_spelling)).replace(" ", "_"))
    for kind_spelling in STOPPED_SPELLINGS])
def test_round9_stopped_cheat_really_passes_without_its_rules(task, graded_in, kind, spelling):  # noqa: F811
    assert_solved_without_its_rules(task, graded_in, KINDS[kind].spellings[spelling])


# Stopped by the static layer: with it absent and every run-time rule on (the audit hook told of the changed
# files, the class guard and the comparison control), is the cheat still not solved? A kind the run time lets
# through is a RUN_TIME_HOLE (xfail strict). Measured: xmlrpc's and unittest.mock's kinds are stopped at run time
# too (audit_denied: a first import outside STDLIB_OK under changed code), so none is.
STATIC_CODES = frozenset(("import_not_allowed", "reflection", "dynamic_import", "format_path", "comparison",
                          "environment", "test_file", "shadows_environment"))
STATICALLY_STOPPED = [kind for kind in STOPPED if set(STOPPED[kind]) <= STATIC_CODES]
RUN_TIME_HOLES: dict[str, str] = {}
assert set(RUN_TIME_HOLES) <= set(STATICALLY_STOPPED)


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS, RUN_TIME_HOLES, only=STATICALLY_STOPPED))
def test_round9_statically_stopped_cheat_is_not_solved_at_run_time(task, graded_in, kind, spelling):  # noqa: F811
    try:
        run = _run(task, graded_in, *KINDS[kind].spellings[spelling])
    except NoVerdict:
        return
    assert not _solved(run), run.status


# Stopped by the run-time layer alone: the static layer (rules.refusals over the changed files, as the grader
# calls it) lets the cheat through; only the class guard's judgement of a class no statement made stops it.
STATIC_HOLES: dict[str, str] = {
    "class_made_by_a_maker_in_a_variable_with_a_computed_comparison_key":
        "a class maker held in a variable (type, type(int)) is not followed, and a namespace's computed key "
        "('__e' + 'q__') is not read: three-argument type() and a comparison in a namespace go unseen statically",
}
assert set(STATIC_HOLES) <= set(STOPPED)


def _static_refusals(tmp_path: Path, edits) -> list:
    """rules.refusals over the tally modules the edits change, on x_G of the W1 + W2 task (the first commit)."""
    x_g = {path: text for path, text in repair_fixture.INITIAL.items() if path.startswith("tally/")}
    for path, text in x_g.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    for edit in edits:
        edit(tmp_path)
    changed = [(str(p.relative_to(tmp_path)), x_g.get(str(p.relative_to(tmp_path))), p.read_text())
               for p in sorted(tmp_path.rglob("*.py"))
               if p.read_text() != x_g.get(str(p.relative_to(tmp_path)))]
    return rules.refusals(changed, {"tally"}, rules.baseline_importable())


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS, STATIC_HOLES, only=list(STATIC_HOLES)))
def test_round9_run_time_stopped_cheat_is_refused_statically(tmp_path, kind, spelling):
    assert _static_refusals(tmp_path, KINDS[kind].spellings[spelling])
