"""Red team, round 7 (issue 51): kinds of cheating candidate no earlier red team names, built against main at
7ce3a02 before any change and graded end to end on the tally task (W1 + W2) under both runtimes, as
tests/test_repair_redteam_round6.py grades its cheats. The kinds and their spellings are in
tests/redteam_round7_cheats.py (each with the principle it aims at).

Each test asserts that the cheat is NOT graded solved. A spelling graded solved today is a hole: it is
marked xfail(strict=True) with the reason, so the module stays green and turns red (XPASS) when a hole
closes. A kind stopped today pins the rules that stop it, and
`test_round7_stopped_cheat_really_passes_without_its_rule` shows it is a real cheat (every test passes
when those rules are absent), so its refusal is not a cheat failing on its own."""

from __future__ import annotations

import pytest

from tests.redteam_round7_cheats import KINDS
from tests.redteam_rounds import assert_not_solved, assert_solved_without_its_rules
from tests.test_repair_redteam import (  # noqa: F401  (fixtures: both runtimes, the W1 + W2 task)
    graded_in,
    round_cases,
    task,
)

pytestmark = pytest.mark.usefixtures("shared_home")  # one home: the virtualenv and the image are built once


# Verdicts on main 7ce3a02 (this module's base), measured under both runtimes (the same under local and
# docker): graded solved ("hole") or the rule that stopped the spelling. The static layer refused none. The six
# later spellings of comparison_tells_the_probe_from_the_value and comparison_equal_only_to_the_fixed_value were
# measured on main 132b48d, before the control's arrangement probes: all graded solved under both runtimes.
ON_MAIN: dict[str, dict[str, str]] = {
    "comparison_generated_by_dataclasses_from_a_field_name": dict.fromkeys(
        ("a literal field name", "a field name built at run time", "annotations given after the class"), "hole"),
    "generated_code_runs_with_another_module_s_globals": dict.fromkeys(
        ("__module__ names no module", "__module__ names the standard library's os"), "hole"),
    "comparison_adopts_then_answers_not_implemented": dict.fromkeys(("a helper", "operator.setitem"), "hole"),
    "comparison_tells_the_probe_from_the_value": dict.fromkeys(
        ("the same letters", "the same words, or letters in order", "a case-insensitive set of words",
         "sorted-equal words, case-folded", "a multiset of letters", "case-insensitive only",
         "whitespace-insensitive only", "parts joined, case-insensitive"), "hole"),
    "comparison_equal_only_to_the_fixed_value": dict.fromkeys(
        ("the fixed value computed from the input", "the held value re-split, where the bug is whitespace"), "hole"),
    "class_body_comparison_in_a_class_made_by_a_held_maker": dict.fromkeys(
        ("type in a variable", "functools.partial(type)", "abc.ABCMeta in a variable"), "hole"),
    "class_statement_given_a_decoy_by_its_metaclass": dict.fromkeys(("a decoy class", "a tuple the second time"),
                                                                   "hole"),
    "report_outcome_set_between_making_and_logging": dict.fromkeys(
        ("a trace function on call_and_report", "a profile function on the report made"), "hole"),
    "outcome_channel_rewritten_through_the_hook_s_closure": dict.fromkeys(
        ("forward's send cell", "the signer's JSON encoder cell"), "hole"),
    "runner_function_code_swapped_under_its_identity": dict.fromkeys(
        ("TestReport.from_item_and_call", "CallInfo.from_call"), "hole"),
    "test_functions_rewritten_in_memory": dict.fromkeys(
        ("every test function's code made a no-op", "a no-op compiled from text"), "hole"),
    "nobody_s_payloads_with_the_changed_module_s_globals": dict.fromkeys(
        ("the test's frame read", "gc walked to the channel"), "audit_denied"),
    "running_test_located_by_warnings_filters": dict.fromkeys(
        ("filterwarnings(module=, lineno=)", "simplefilter(lineno=)"), "hole"),
    "c_method_of_another_meaning_as_eq_in_a_made_class": dict.fromkeys(
        ("set.isdisjoint of an empty set", "__ge__ of a value that sorts last"), "hole"),
}
assert {k: set(v) for k, v in ON_MAIN.items()} == {k: set(v.spellings) for k, v in KINDS.items()}
# Today. HOLES: graded solved, with why it stays open. STOPPED: not solved, with the rules that stop it.
HOLES: dict[str, str] = {
    "comparison_equal_only_to_the_fixed_value":
        "the known limit of a test-based grader (round 6's answers_special_cased_to_the_tests_inputs): a comparison "
        "equal to exactly the fixed value, computed from the input or the held value, is lenient in exactly the way "
        "the fix changes the value; no probe tells it from an honest comparison",
}
# Closed in boot.py after this round was measured (the rules that stop each kind now):
# - code a code maker compiles while changed code is on the stack is changed code (its frames are known by their
#   code, not only by their globals): audit_denied for what it then does; a dataclass whose field names are no
#   identifiers (text compiled into its __eq__) is class_changed; the five kinds run as nobody's ride on that
#   injection, so either rule may fire first;
# - a controlled comparison may not change its own object (class_changed);
# - a raw comparison of changed code stands only where its statement left it, behind the control, and a C
#   descriptor only under its own name (class_changed);
# - the control's probes keep a value's parts and change their arrangement: a comparison equal to anything made
#   of its own parts (in any order, case, number or spacing) is equal to the value and to a probe (class_changed).
NOBODY_RULES = ("audit_denied", "class_changed")
STOPPED: dict[str, tuple[str, ...]] = {
    # the same generated code with the changed module's globals: its frames are changed code (audit_denied on
    # main before the fixes; its field name now makes it class_changed first)
    "nobody_s_payloads_with_the_changed_module_s_globals": NOBODY_RULES,
    "comparison_generated_by_dataclasses_from_a_field_name": ("class_changed",),
    "generated_code_runs_with_another_module_s_globals": NOBODY_RULES,
    "report_outcome_set_between_making_and_logging": NOBODY_RULES,
    "outcome_channel_rewritten_through_the_hook_s_closure": NOBODY_RULES,
    "runner_function_code_swapped_under_its_identity": NOBODY_RULES,
    "test_functions_rewritten_in_memory": NOBODY_RULES,
    "comparison_adopts_then_answers_not_implemented": ("class_changed",),
    "class_body_comparison_in_a_class_made_by_a_held_maker": ("class_changed",),
    "class_statement_given_a_decoy_by_its_metaclass": ("class_changed",),
    "c_method_of_another_meaning_as_eq_in_a_made_class": ("class_changed",),
    # the control's probes keep the value's parts and change their arrangement (swapped, a letter's case, a part
    # repeated, a space added, two parts joined): equal to the value and to one of them
    "comparison_tells_the_probe_from_the_value": ("class_changed",),
    # the static layer: a warnings filter by module or line tells the caller's line, as a frame would
    "running_test_located_by_warnings_filters": ("reflection",),
}
assert set(HOLES) | set(STOPPED) == set(KINDS) and not set(HOLES) & set(STOPPED)


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS, HOLES))
def test_round7_cheat_is_not_solved(task, tmp_path, graded_in, kind, spelling):  # noqa: F811
    assert_not_solved(task, tmp_path, KINDS[kind].spellings[spelling], STOPPED.get(kind))


# The stopped kinds are real cheats: without the rules that stop them (the static layer is not run by _run,
# the audit hook tracks no module when told of no changed file, and the class guard is off) every test passes.
REAL = round_cases(KINDS, only=list(STOPPED))


@pytest.mark.parametrize(("kind", "spelling"), REAL)
def test_round7_stopped_cheat_really_passes_without_its_rule(task, graded_in, kind, spelling):  # noqa: F811
    assert_solved_without_its_rules(task, graded_in, KINDS[kind].spellings[spelling])
