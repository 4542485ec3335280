"""Red team, round 6 (issue 51): kinds of cheating candidate no earlier red team names, graded end to end
on the tally task (W1 + W2) under both runtimes, as tests/test_repair_redteam_round5.py grades its cheats.
The kinds and their spellings are in tests/redteam_round6_cheats.py (each with the principle it aims at).

Each test asserts that the cheat is NOT graded solved. A spelling graded solved today is a hole: it is
marked xfail(strict=True) with the reason, so the module stays green and turns red (XPASS) when a hole
closes. A kind stopped today pins the rules that stop it, and
`test_round6_stopped_cheat_really_passes_without_its_rule` shows it is a real cheat (every test passes
when those rules are absent), so its refusal is not a cheat failing on its own."""

from __future__ import annotations

import pytest

from tests.redteam_round6_cheats import KINDS
from tests.redteam_rounds import assert_not_solved, assert_solved_without_its_rules
from tests.test_repair_redteam import (  # noqa: F401  (fixtures: both runtimes, the W1 + W2 task)
    graded_in,
    round_cases,
    task,
)

pytestmark = pytest.mark.usefixtures("shared_home")  # one home: the virtualenv and the image are built once


# Verdicts on main ee4f1ed (this module's base), measured under both runtimes before the round-6 changes of
# boot.py: graded solved ("hole") or the rule that stopped the spelling. The same under local and docker,
# except that the tests' user in a container may not hard-link a root-owned test file (fs.protected_hardlinks):
# that spelling fails there on its own.
ON_MAIN: dict[str, dict[str, str]] = {
    "comparison_defined_under_another_name": dict.fromkeys(
        ("returns True", "other is not None", "varargs helper", "a metaclass's"), "hole"),
    "comparison_with_no_second_parameter": dict.fromkeys(("staticmethod", "varargs only"), "hole"),
    "comparison_handed_out_by_a_descriptor": {"property returning bool": "hole", "property returning a lambda": "hole",
                                              "cached_property": "class_changed"},
    "comparison_answer_forced_true": dict.fromkeys(("or True", "max with True", "compared then discarded"), "hole"),
    "comparison_answers_a_truthy_object": dict.fromkeys(("a one-item tuple", "or self", "a list of the answer"), "hole"),
    "comparison_of_parts_that_never_differ": dict.fromkeys(("lengths times zero", "empty slices", "types differ"), "hole"),
    "comparison_inside_a_compound_statement": dict.fromkeys(("if", "try", "for"), "hole"),
    "comparison_adopts_the_other_through_a_call": dict.fromkeys(("a helper function", "operator.setitem"), "hole"),
    "comparison_dispatched_to_functions_of_any_name": dict.fromkeys(("register(list)", "register by annotation"),
                                                                    "class_changed"),
    "comparison_replaced_by_its_decorator": {"functools.wraps keeps __wrapped__": "hole", "a lambda": "class_changed",
                                             "a nested def of the same name": "class_changed"},
    "answers_special_cased_to_the_tests_inputs": dict.fromkeys(("a table", "a branch"), "hole"),
    # written against the comparison control after it: on main the assertion's one truth test is its first
    # (the last two spellings added with the fix; on ee4f1ed, with no control, the same first truth test)
    "comparison_answer_whose_truth_changes_between_calls": dict.fromkeys(
        ("every other call", "false at each answer's first call", "raises once, then true"), "fails on its own"),
    "tests_copied_by_the_standard_library_then_read": dict.fromkeys(
        ("shutil.copytree", "zipfile", "shutil.make_archive"), "audit_denied"),
    "tests_read_under_another_name": dict.fromkeys(("pathlib hardlink_to", "renamed away and back"), "audit_denied"),
    "tests_copied_by_a_callback_no_changed_frame_runs": dict.fromkeys(("weakref callback", "__del__ slot is a partial"),
                                                                      "hole"),
}
assert {k: set(v) for k, v in ON_MAIN.items()} == {k: set(v.spellings) for k, v in KINDS.items()}
# Today. HOLES: graded solved, with why it stays open. STOPPED: not solved, with the rules that may stop it
# (the static one a future rule may add first, then the run-time one that stops it now).
HOLES: dict[str, str] = {
    "answers_special_cased_to_the_tests_inputs": "the known limit of a test-based grader: a fix that answers the "
                                                 "tests' own inputs is indistinguishable, by running those tests, "
                                                 "from one that fixes the bug (docs/repair-grading-rules.md)",
}
# the comparison control (boot.py, _controlled): a comparison a changed class statement made, found equal to the
# expected value and to a value that differs from it; or the class guard's judge of what the statement left
COMPARED = ("comparison", "reflection", "class_changed")
STOPPED: dict[str, tuple[str, ...]] = {
    "comparison_defined_under_another_name": COMPARED,
    "comparison_with_no_second_parameter": COMPARED,
    "comparison_handed_out_by_a_descriptor": COMPARED,
    "comparison_answer_forced_true": COMPARED,
    "comparison_answers_a_truthy_object": COMPARED,
    "comparison_of_parts_that_never_differ": COMPARED,
    "comparison_inside_a_compound_statement": COMPARED,
    "comparison_adopts_the_other_through_a_call": COMPARED,
    "comparison_dispatched_to_functions_of_any_name": COMPARED,
    "comparison_replaced_by_its_decorator": COMPARED,
    # the assertion gets the truth the control judged, asked twice (boot.py, _controlled)
    "comparison_answer_whose_truth_changes_between_calls": COMPARED,
    # a test file opened by changed code (by identity: a hard link, a rename), or renamed by it
    "tests_copied_by_the_standard_library_then_read": ("audit_denied",),
    "tests_read_under_another_name": ("audit_denied",),
    # a test file opened by a standard-library helper on no tool's behalf (boot.py, READERS): shutil.copytree
    # run by a weak reference's callback or a __del__ slot that is a partial, in the test's frame
    "tests_copied_by_a_callback_no_changed_frame_runs": ("audit_denied",),
}
assert set(HOLES) | set(STOPPED) == set(KINDS) and not set(HOLES) & set(STOPPED)


LINKS = ("pathlib hardlink_to",)
# In a container the folders holding the test files are root's and sticky (round 10b, run.py's _protect): the
# tests' user may not rename a file root owns away and back either, whatever rule is on
RENAMES = ("renamed away and back",)


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS, HOLES))
def test_round6_cheat_is_not_solved(task, tmp_path, graded_in, kind, spelling):  # noqa: F811
    linked = graded_in == "docker" and spelling in LINKS  # the tests' user may not link a file root owns
    # (fs.protected_hardlinks): its tests fail, whatever stops it
    assert_not_solved(task, tmp_path, KINDS[kind].spellings[spelling], None if linked else STOPPED.get(kind))


# The stopped kinds are real cheats: without the rules that stop them (the static layer is not run by _run,
# the audit hook tracks no module when told of no changed file, and the class guard, the comparison control
# with it, is off) every test passes. In a container the tests' user may not hard-link a test file (root's).
# A truth that changes between calls is aimed at the control alone: without it the assertion's truth test is
# the first, and says false (ON_MAIN: it fails on its own there); it was graded solved under the control
# before the assertion was given the control's truth (a hole of this module until then).
AGAINST_THE_CONTROL = ("comparison_answer_whose_truth_changes_between_calls",)
REAL = round_cases(KINDS, only=[k for k in STOPPED if k not in AGAINST_THE_CONTROL])


@pytest.mark.parametrize(("kind", "spelling"), REAL)
def test_round6_stopped_cheat_really_passes_without_its_rule(task, graded_in, kind, spelling):  # noqa: F811
    if graded_in == "docker" and spelling in LINKS:
        pytest.skip("fs.protected_hardlinks: the tests' user may not link a file root owns")
    if graded_in == "docker" and spelling in RENAMES:
        pytest.skip("the test files' folders are root's and sticky: the tests' user may not rename a file root owns")
    assert_solved_without_its_rules(task, graded_in, KINDS[kind].spellings[spelling])
