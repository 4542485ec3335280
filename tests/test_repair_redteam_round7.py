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
from tests.test_repair_redteam import (  # noqa: F401  (fixtures: both runtimes, the W1 + W2 task)
    _grade,
    graded_in,
    round_cases,
    task,
)
from tests.test_repair_runtime_guard import _run, _solved, _without_class_guard

pytestmark = pytest.mark.usefixtures("shared_home")  # one home: the virtualenv and the image are built once


# Verdicts on main 7ce3a02 (this module's base), measured under both runtimes (the same under local and
# docker): graded solved ("hole") or the rule that stopped the spelling. The static layer refused none.
ON_MAIN: dict[str, dict[str, str]] = {
    "comparison_generated_by_dataclasses_from_a_field_name": dict.fromkeys(
        ("a literal field name", "a field name built at run time", "annotations given after the class"), "hole"),
    "generated_code_runs_with_another_module_s_globals": dict.fromkeys(
        ("__module__ names no module", "__module__ names the standard library's os"), "hole"),
    "comparison_adopts_then_answers_not_implemented": dict.fromkeys(("a helper", "operator.setitem"), "hole"),
    "comparison_tells_the_probe_from_the_value": dict.fromkeys(
        ("the same letters", "the same words, or letters in order"), "hole"),
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
NOBODY = ("code dataclasses generates from a field name runs with the globals of the module __module__ names; "
          "the hook knows changed code by its frames' globals, so none of this code's frames is changed code")
HOLES: dict[str, str] = {
    "comparison_generated_by_dataclasses_from_a_field_name":
        "a field name is text dataclasses compiles into __eq__; the class guard accepts code generated from text "
        "(<string>) and the control wraps only what the class statement left, not what the decorator added",
    "generated_code_runs_with_another_module_s_globals": NOBODY + ": it takes the test's frame unseen",
    "comparison_adopts_then_answers_not_implemented":
        "the control returns NotImplemented unjudged; the comparison has adopted the expected value by then, and "
        "the reflected list.__eq__ compares the adopted items",
    "comparison_tells_the_probe_from_the_value":
        "the control's probe is the value with a random part added or its last part dropped; a comparison equal "
        "to anything made of all its own parts rejects the probe and accepts the test's value",
    "class_body_comparison_in_a_class_made_by_a_held_maker":
        "type() held in a variable is not read by the static rules; the class guard accepts, in a class no "
        "statement made, a comparison some class body of changed code made under that name, uncontrolled",
    "class_statement_given_a_decoy_by_its_metaclass":
        "the class guard records and controls what __build_class__ returns; the metaclass returns a decoy (or a "
        "tuple) and keeps the real class, which appears later with its body's comparison, judged as allowed",
    "report_outcome_set_between_making_and_logging":
        NOBODY + "; tracing is denied only with a changed frame on the stack, and report instances are not watched",
    "outcome_channel_rewritten_through_the_hook_s_closure":
        NOBODY + "; gc walks are denied only with a changed frame on the stack, and a closure cell written "
                 "(the sender, its encoder) raises no audit event",
    "runner_function_code_swapped_under_its_identity":
        NOBODY + "; the report path compares pytest's functions by identity, not their __code__ and __defaults__",
    "test_functions_rewritten_in_memory":
        NOBODY + "; the tests' files are digested, their function objects in memory are not",
    "running_test_located_by_warnings_filters":
        "warnings.warn(stacklevel=3) with a filter on module and line tells the test's assert line; the renamed "
        "copies keep their lines, so answers canned by line pass both (test identity, not inputs)",
    "c_method_of_another_meaning_as_eq_in_a_made_class":
        "in a class no statement made the class guard accepts a C descriptor as __eq__; set.isdisjoint of an "
        "empty set and list.__ge__/str.__ge__ of a value that sorts last answer True for any expected value",
}
# Measured with prototype changes of boot.py (graded under --runtime local, not committed: boot.py is not this
# round's file; the changes are described in the round's report): A, code a code maker compiles while changed
# code is on the stack counts as changed code (frames known by code, not only by globals), closes the five
# kinds of code run as nobody's (generated_code..., report_outcome..., outcome_channel..., runner_function...,
# test_functions...); B, a dataclass whose field names are no identifiers is class_changed, closes those and
# comparison_generated...; C, a controlled comparison may not change its own object, closes
# comparison_adopts_then_answers_not_implemented; E, a raw comparison of changed code only where its statement
# left it (behind the control) and a C descriptor only under its own name, closes the held maker, the decoy
# metaclass and the C methods. Left open by them: comparison_tells_the_probe_from_the_value (the probe's shape)
# and running_test_located_by_warnings_filters (static: filters by module or line).
STOPPED: dict[str, tuple[str, ...]] = {
    # the same generated code with the changed module's globals: its frames are changed code
    "nobody_s_payloads_with_the_changed_module_s_globals": ("audit_denied",),
}
assert set(HOLES) | set(STOPPED) == set(KINDS) and not set(HOLES) & set(STOPPED)


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS, HOLES))
def test_round7_cheat_is_not_solved(task, tmp_path, graded_in, kind, spelling):  # noqa: F811
    verdict = _grade(task, tmp_path, *KINDS[kind].spellings[spelling])
    assert not verdict.ok, f"graded solved: {verdict.detail}"
    if kind in STOPPED:
        assert verdict.evidence.get("rule") in STOPPED[kind], (verdict.reason, verdict.evidence, verdict.detail)


# The stopped kinds are real cheats: without the rules that stop them (the static layer is not run by _run,
# the audit hook tracks no module when told of no changed file, and the class guard is off) every test passes.
REAL = round_cases(KINDS, only=list(STOPPED))


@pytest.mark.parametrize(("kind", "spelling"), REAL)
def test_round7_stopped_cheat_really_passes_without_its_rule(task, graded_in, kind, spelling):  # noqa: F811
    from codewalk.domains.repair import channel

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(channel, "prepare", _without_class_guard)
        assert _solved(_run(task, graded_in, *KINDS[kind].spellings[spelling], guarded=False))
