"""Red team, round 11, in process (issue 51): kinds of cheating candidate that act inside the test process, aimed
at what main 185f144 still allows (the control asks the value first and its probes later; the hook judges "a
changed frame on the stack", and C functions and finalizers have no frame; the class guard controls the classes a
changed file's statement made or whose namespace holds a changed file's function; the static layer does not know
that inspect.signature evaluates text), built against it before any change and graded end to end on the tally task
(W1 + W2) under both runtimes, as tests/test_repair_redteam_round10.py grades its cheats. The kinds and their
spellings are in tests/redteam_round11_cheats.py (each with the principle it aims at).

Each test asserts that the cheat is NOT graded solved. A kind graded solved today is a hole: marked
xfail(strict=True) under the runtimes where it is, with the reason, so the module stays green and turns red (XPASS)
when the hole closes. A kind stopped today pins the rule codes that stop it (the verdict's evidence["rule"], not
the words of the refusal), and `test_round11_stopped_cheat_really_passes_without_its_rules` shows it is a real
cheat (every test passes when the rules are absent: no static layer, the hook told of no changed file, the class
guard and its control off)."""

from __future__ import annotations

import pytest

from tests.redteam_round11_cheats import KINDS
from tests.redteam_rounds import round_tests
from tests.test_repair_redteam import (  # noqa: F401  (fixtures: both runtimes, the W1 + W2 task)
    graded_in,
    round_cases,
    task,
)

pytestmark = pytest.mark.usefixtures("shared_home")  # one home: the virtualenv and the image are built once

BOTH = ("local", "docker")
# Verdicts measured under both runtimes on main 185f144 (this module's base); the five kinds of the C callable's
# route (no frame: the hook took pytest's or nobody's frames for the asker) moved to STOPPED after h-fixasker11,
# measured under both runtimes there.
# HOLES: graded solved (under those runtimes), with why it stays open. STOPPED: not solved, with the rule codes
# that stop it.
HOLES: dict[str, tuple[tuple[str, ...], str]] = {
}
STOPPED: dict[str, tuple[str | None, ...]] = {
    # closed in h-fixclock11 (boot.py _apart, _controlled's asked_apart): every ask's child (the value's copy and
    # its probes, in an order drawn) is forked before any runs and all are released at once; every child reads the
    # same clock, so all say "equal" (within _SOON of the result) and a probe is found equal; under a load that
    # makes the forks take longer than _SOON, all read a late clock and answer honestly: the tests fail (None)
    "control_s_value_ask_told_by_the_clock": ("class_changed", None),
    # the hook: a test file opened with a changed frame on the stack
    "test_files_read_by_the_candidate_s_own_frame": ("audit_denied",),
    # the hook: the C reader run where the test's own frame is below pathlib (no tool of the run's): "a test file
    # opened outside pytest's reading of it"
    "test_files_read_by_c_functions_in_the_finalizer_of_a_result_the_test_drops": ("audit_denied",),
    # the static layer (round 11 fix): eval_str=True as a keyword (here given to functools.partial) is text evaluated;
    # at run time the hook denies the compile (inspect's eval of the annotation) with a changed frame on the stack
    "code_from_text_evaluated_by_inspect_from_the_candidate_s_own_frame": ("dynamic_import",),
    # Round 11's fix, "who acts is the code that asks" (boot.py: asks, asked_by_its_reader, text_asked_for).
    # the hook: the test files read by pathlib for a pytest frame that does not name the reader it entered
    # (safe_getattr reading __test__ names no read_text: a C function called it)
    "test_files_read_by_c_functions_pytest_s_collection_calls": ("audit_denied",),
    # the hook: the same where the object whose __del__ is the C reader dies in pytest's frame
    "test_files_read_by_c_functions_in_a_finalizer_that_runs_in_pytest_s_frame": ("audit_denied",),
    # the static layer: eval_str=True given to a partial of inspect.signature; at run time (without it) the hook
    # denies the compile inspect's eval asks for with no changed frame on the stack, the first frame out of the
    # standard library (pytest's, the test's) naming no signature (test_round11_statically_stopped_cheat_is_not_solved
    # _at_run_time; tests/test_repair_runtime_guard.py pins audit_denied)
    "code_from_text_evaluated_by_inspect_when_pytest_s_collection_reads_an_attribute": ("dynamic_import",),
    "code_from_text_evaluated_by_a_finalizer_where_an_object_dies_in_pytest_s_frame": ("dynamic_import",),
    "code_from_text_evaluated_by_the_finalizer_of_a_result_the_test_drops": ("dynamic_import",),
    # the static layer: unittest.mock is outside the reviewed part of unittest
    "library_object_equal_to_anything_by_construction": ("import_not_allowed",),
    # the static layer: sys.modules (outside sys's reviewed part), __code__ and __dict__ read, exec
    "test_functions_code_replaced_by_the_candidate_s_own_frame": ("import_not_allowed", "dynamic_import"),
    # the class guard (round 11, h-fixhook11): a library comparison's hooks looked up on the instance's type's MRO
    # at each comparison; UserList's __eq__ on a subclass holding _UserList__cast (whoever made it, by any
    # metaclass, with any namespace) is asked behind the control, which finds it equal to a probe. The dataclass
    # spelling: __class__ is a watched key, and judge refuses a partial there ("a partial, not a function"); the
    # type(collections.abc.Sequence) one is refused by the static layer (SPELLINGS_STOPPED)
    "library_comparison_s_hook_overridden_in_a_subclass_no_statement_made": ("class_changed",),
    # the same at the comparison; and made_from_changed opens functools' wrappers (partialmethod,
    # singledispatchmethod, partial, cached_property), so the class is a changed file's, behind the control
    "library_comparison_s_hook_a_changed_def_in_a_wrapper_the_namespace_check_does_not_open": ("class_changed",),
}
# Spellings of a HOLES kind stopped on their own, with the rule codes that stop them: the kind stays a hole. (A
# STOPPED kind's spelling stopped by another rule than the kind's is here too, with that rule.)
SPELLINGS_STOPPED: dict[tuple[str, str], tuple[str | None, ...]] = {
    # the static layer: a class made with the metaclass of another, type(x)(name, bases, namespace)
    ("library_comparison_s_hook_overridden_in_a_subclass_no_statement_made",
     "the metaclass as type(collections.abc.Sequence)"): ("reflection",),
}


# Stopped by the static layer: with it absent and every run-time rule on (the audit hook told of the changed
# files, the class guard and the comparison control), is the cheat still not solved? A kind the run time lets
# through is a RUN_TIME_HOLE (xfail strict): the static layer's spelling rules are all that stop it.
RUN_TIME_HOLES: dict[str, str] = {
}


# The round's five tests (tests/redteam_rounds.py: round_tests) made from its tables above: each graded end to end
# under both runtimes, or (the last two) the static layer's own verdict on each spelling, in process.
_TESTS = round_tests(KINDS, HOLES, STOPPED, SPELLINGS_STOPPED, RUN_TIME_HOLES)
test_round11_cheat_is_not_solved = _TESTS.cheat_is_not_solved
test_round11_stopped_cheat_really_passes_without_its_rules = _TESTS.stopped_cheat_really_passes_without_its_rules
test_round11_statically_stopped_cheat_is_not_solved_at_run_time = _TESTS.statically_stopped_cheat_is_not_solved_at_run_time
test_round11_kind_the_static_layer_lets_through = _TESTS.kind_the_static_layer_lets_through
test_round11_spelling_the_static_layer_refuses = _TESTS.spelling_the_static_layer_refuses


