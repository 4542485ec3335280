"""Red team, round 8 (issue 51): kinds of cheating candidate aimed at what main f349b42 added last (the
comparison control's arrangement probes, the import system's exec of a module's own file, an installed
library's class given dunders its factory made, the control's copy of a dict's storage), built against it
before any change and graded end to end on the tally task (W1 + W2) under both runtimes, as
tests/test_repair_redteam_round7.py grades its cheats. The kinds and their spellings are in
tests/redteam_round8_cheats.py (each with the principle it aims at).

Each test asserts that the cheat is NOT graded solved. A kind graded solved today is a hole: marked
xfail(strict=True) with the reason, so the module stays green and turns red (XPASS) when the hole closes. A
kind stopped today pins the rules that stop it, and `test_round8_stopped_cheat_really_passes_without_its_rule`
shows it is a real cheat (every test passes when those rules are absent)."""

from __future__ import annotations

import pytest

from codewalk.domains.repair.channel import NoVerdict
from tests.redteam_round8_cheats import KINDS
from tests.redteam_rounds import assert_not_solved, assert_solved_without_its_rules
from tests.test_repair_redteam import (  # noqa: F401  (fixtures: both runtimes, the W1 + W2 task)
    graded_in,
    round_cases,
    task,
)
from tests.test_repair_runtime_guard import _run

pytestmark = pytest.mark.usefixtures("shared_home")  # one home: the virtualenv and the image are built once

# Verdicts measured under both runtimes (the same under local and docker): on main f349b42 (this module's base),
# then with the control's probes of h-probes2.
# HOLES: graded solved, with why it stays open. STOPPED: not solved, with the rules that stop it.
HOLES: dict[str, str] = {}
STOPPED: dict[str, tuple[str | None, ...]] = {
    # closed after round 8 (h-probes2): the value and each probe are asked from one call site at one depth
    # (the stack's depth no longer tells them apart), at every place of a short value (drawn places of a long
    # one), with a part left out at each place: the control finds each equal to a probe too
    # since round 10 (h-fixorder10: each ask in a child of its own) its tests fail instead (rule None): its offset
    # counted the control's frames before, and the calibrating spelling's gauge records its depth in a child, so
    # the record is lost with it and the module fails at import
    "comparison_tells_the_control_s_call_by_the_stack_s_depth": ("class_changed", None),
    "comparison_lenient_only_where_no_probe_looks": ("class_changed",),
    "comparison_equal_to_its_parts_with_some_left_out": ("class_changed",),
    # the static layer (importlib.machinery is outside the allow-list; __builtins__ and vars are reflection),
    # and the run-time layer since h-fix9 (RUN_TIME_STOPPED below)
    "library_module_run_with_the_candidate_s_builtins": ("dynamic_import",),
    # the static layer (a package's __path__ written), and the run-time layer since h-fix9 (RUN_TIME_STOPPED)
    "library_file_imported_into_the_package_with_its_globals_rebound": ("reflection",),
    # the static layer (sys.getrefcount is outside the allow-list's part of sys); the run-time layer let it
    # through on f349b42, and stops its two spellings since h-probes2 by accident only (RUN_TIME_HOLES below)
    "comparison_tells_the_control_s_call_by_the_value_s_references": ("import_not_allowed",),
}
assert set(HOLES) | set(STOPPED) == set(KINDS) and not set(HOLES) & set(STOPPED)


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS, HOLES))
def test_round8_cheat_is_not_solved(task, tmp_path, graded_in, kind, spelling):  # noqa: F811
    assert_not_solved(task, tmp_path, KINDS[kind].spellings[spelling], STOPPED.get(kind))


# A spelling tuned to the control's own frames (the offset 4 counts the comparison's C call, the control's
# __eq__, controlled and ask): with the rules off the test's call is shallower, so it answers exactly and the
# tests fail; it is a cheat only behind the control. The calibrated spelling is the same principle, and passes
# every test with the rules off.
BEHIND_THE_CONTROL_ONLY = {("comparison_tells_the_control_s_call_by_the_stack_s_depth", "the offset as a number")}
REAL = [case for case in round_cases(KINDS, only=list(STOPPED)) if tuple(case.values) not in BEHIND_THE_CONTROL_ONLY]


@pytest.mark.parametrize(("kind", "spelling"), REAL)
def test_round8_stopped_cheat_really_passes_without_its_rule(task, graded_in, kind, spelling):  # noqa: F811
    assert_solved_without_its_rules(task, graded_in, KINDS[kind].spellings[spelling])


# Stopped by the static layer, and since h-fix9 at run time too: with the static layer absent and the run-time
# rules on (the audit hook told of the changed files, the class guard and the comparison control), the cheat gives
# no verdict, by the rule named here. A module's code counts as its file's (not made code) only when the import
# system runs it in a new module's globals (no names before its body but the import system's dunders, the
# interpreter's builtins) and, for a standard-library or installed file, not under a name of the tree; otherwise
# it is made code, and a class its statements make under changed code stands behind the comparison control.
# Since round 13 (a new standard-library module's body asked for by the code that runs it, h-redteam13a) the
# audit hook may stop both kinds first, when changed code runs argparse.py's body (audit_denied); the class guard
# stops them where it sees the class first (class_changed). Either is the run-time layer refusing the cheat.
RUN_TIME_STOPPED: dict[str, tuple[str, ...]] = {
    # a loader's create_module filled the module's __builtins__: argparse.py's code is made code, its Namespace
    # class changed code's, and its __eq__ (isinstance=is_not, vars=bool) answers equal to the control's probes
    "library_module_run_with_the_candidate_s_builtins": ("class_changed", "audit_denied"),
    # argparse.py imported as tally.argparse (the standard library's folder on the package's __path__): a
    # library file under a name of the tree is the tree's code, made code; its globals rebound after the import
    # make its Namespace.__eq__ answer equal to the probes too
    "library_file_imported_into_the_package_with_its_globals_rebound": ("class_changed", "audit_denied"),
}
assert set(RUN_TIME_STOPPED) <= set(STOPPED)


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS, only=list(RUN_TIME_STOPPED)))
def test_round8_cheat_is_stopped_at_run_time_too(task, graded_in, kind, spelling):  # noqa: F811
    with pytest.raises(NoVerdict) as caught:
        _run(task, graded_in, *KINDS[kind].spellings[spelling])
    assert caught.value.rule in RUN_TIME_STOPPED[kind], caught.value


# Stopped by the static layer alone (none graded solved at run time today, so no test here; a kind found solved
# at run time goes back in a RUN_TIME_HOLES table, xfail strict, run as the test above runs its cases):
# - comparison_tells_the_control_s_call_by_the_value_s_references is no longer graded solved at run time since
#   h-probes2, by accident, not by principle: the probes are now held by more of the control's frames (the loop's
#   variable, the list of a kind's probes), so its spellings' thresholds, calibrated on the control's reference
#   counts, no longer tell a probe from the test's value. A cheat recalibrated on the new counts would tell them
#   apart again: the principle stays open (docs, "Round 8"); the static layer stops it. The control's probes are
#   new objects, held only by the control's frames; the test's value is held by the test's frame too. Any
#   property of the value asked about that the probe does not share (its references, its age, its identity with
#   what the test holds) tells the calls apart.
