"""Red team, round 5 (issue 51): kinds of cheating candidate no earlier red team names, graded end to end
on the tally task (W1 + W2) under both runtimes, as tests/test_repair_redteam.py grades its cheats. The
kinds and their spellings are in tests/redteam_round5_cheats.py (each with the principle it aims at).

Each test asserts that the cheat is NOT graded solved. A spelling graded solved today is a hole: it is
marked xfail(strict=True) with the reason, so the module stays green on main and turns red (XPASS) when a
hole closes, which is when its mark should go. A kind stopped today pins the rule that stops it, and
`test_round5_stopped_cheat_really_passes_without_its_rule` shows it is a real cheat (every test passes
when that rule is absent), so its refusal is not a cheat failing on its own."""

from __future__ import annotations

import pytest

from tests.redteam_round5_cheats import KINDS
from tests.redteam_rounds import assert_not_solved, assert_solved_without_its_rules
from tests.test_repair_redteam import (  # noqa: F401  (fixtures: both runtimes, the W1 + W2 task)
    graded_in,
    round_cases,
    task,
)

pytestmark = pytest.mark.usefixtures("shared_home")  # one home: the virtualenv and the image are built once


# Verdicts on main c9d01c7 (this module's base), measured under both runtimes (the same for every
# spelling of a kind under local and docker). HOLES: graded solved today, with the principle that would
# close it. STOPPED: not solved today, with the rule (evidence["rule"]) that stops it.
HOLES: dict[str, str] = {}
STOPPED: dict[str, tuple[str, ...]] = {
    # each kind: the static rule that refuses it (a getter that carries names as data, h-close) and the
    # run-time rule that stops it when the static layer is not run (see REAL below)
    "eq_is_a_builtin_that_is_no_descriptor": ("reflection",),  # borrows _Same.__eq__ from another object
    "report_class_reached_by_names_as_data": ("report_path_changed", "reflection"),
    "reports_rewritten_by_a_hook_caller_executor": ("audit_denied", "report_path_changed", "reflection"),
    "plugin_registered_from_the_tree_with_an_unwatched_hook": ("audit_denied", "report_path_changed", "reflection"),
    "eq_set_by_a_stdlib_helper_taking_the_name_as_data": ("reflection",),  # update_wrapper/wraps, names not literal
    "eq_put_in_an_enum_made_by_the_functional_api": ("reflection",),  # Enum functional API, names not literal
    "eq_set_through_a_parameter_named_self": ("reflection",),  # self exemption keyed on the binding; H.put(S, ...)
    "comparison_adopts_the_expected_value": ("comparison",),  # a comparison stores into its own object
    "class_made_by_the_type_of_a_type": ("reflection",),  # __class__ of a class
    # __getattribute__ with a computed name; its payload is the runner's executor
    "names_as_data_through_getattribute": ("reflection", "report_path_changed"),
    "comparison_reads_the_other_operand_and_ignores_it": ("comparison",),  # never compares self with other
    # instance state on the report path: a hook caller's executor, an item's own runtest
    "runner_call_made_quiet_through_a_hook_caller_instance": ("reflection", "report_path_changed"),
    "items_made_no_ops_through_the_session": ("reflection", "report_path_changed"),
    # changed code opens a test file (open): the tests' sources, by file identity, renamed copies included
    "expected_value_read_from_the_test_files_in_the_tree": ("audit_denied",),
    # a thread started by changed code (_thread.start_new_thread) would run with no changed frame on its stack
    "frames_taken_on_a_thread_that_runs_no_changed_code": ("reflection", "audit_denied"),
    "functions_made_from_text_on_a_thread": ("reflection", "audit_denied"),
    # a changed file under another name is the same file (st_dev, st_ino): tracked, sys._getframe denied
    "changed_modules_loaded_under_a_path_the_guard_does_not_know": ("reflection", "audit_denied"),
    # a module written under the tree during the run is changed code: tracked, sys._getframe denied
    "module_written_at_run_time_then_imported": ("audit_denied",),
    # these find the running test's file, then open it (open): the tests' sources are kept from changed code
    "test_identity_through_a_format_string_built_at_run_time": ("format_path", "audit_denied"),
    "running_test_found_in_the_session_setup_stack": ("reflection", "audit_denied"),
}
assert set(HOLES) | set(STOPPED) == set(KINDS) and not set(HOLES) & set(STOPPED)


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS, HOLES))
def test_round5_cheat_is_not_solved(task, tmp_path, kind, spelling):  # noqa: F811
    assert_not_solved(task, tmp_path, KINDS[kind].spellings[spelling], STOPPED.get(kind))


# The stopped kinds are real cheats: without the rule that stops them (the static layer is not run by
# _run, the audit hook tracks no module when told of no changed file, and the class guard is off) every test
# passes. The kinds the report path check stops are left out: it runs in every harness run.
REAL = round_cases(KINDS, only=[kind for kind in STOPPED if "report_path_changed" not in STOPPED[kind]])


@pytest.mark.parametrize(("kind", "spelling"), REAL)
def test_round5_stopped_cheat_really_passes_without_its_rule(task, graded_in, kind, spelling):  # noqa: F811
    assert_solved_without_its_rules(task, graded_in, KINDS[kind].spellings[spelling])
