"""Red team, round 12, in process (issue 51): kinds of cheating candidate that act inside the test process, aimed
at what main fbdab1c still allows: a class no statement made (`abc.ABCMeta(name, bases, namespace)`) is judged by
the class guard's `judge`, which accepts a verdict dunder by the value's provenance (a function whose code's file
starts with "<", as every frozen standard-library module's does; one of functools.total_ordering's derived
functions, under any name; a C descriptor named as the dunder), not by what it answers. Built against it before any
change and graded end to end on the tally task (W1 + W2) under both runtimes, as
tests/test_repair_redteam_round11.py grades its cheats. The kinds and their spellings are in
tests/redteam_round12_cheats.py (each with the principle it aims at).

Each test asserts that the cheat is NOT graded solved. A kind graded solved today is a hole: marked
xfail(strict=True) under the runtimes where it is, with the reason, so the module stays green and turns red (XPASS)
when the hole closes. A kind stopped today pins the rule codes that stop it (the verdict's evidence["rule"], not
the words of the refusal), and `test_round12_stopped_cheat_really_passes_without_its_rules` shows it is a real
cheat (every test passes when the rules are absent: no static layer, the hook told of no changed file, the class
guard and its control off)."""

from __future__ import annotations

import pytest

from tests.redteam_round12_cheats import KINDS
from tests.redteam_rounds import round_tests
from tests.test_repair_redteam import (  # noqa: F401  (fixtures: both runtimes, the W1 + W2 task)
    graded_in,
    round_cases,
    task,
)

pytestmark = pytest.mark.usefixtures("shared_home")  # one home: the virtualenv and the image are built once

BOTH = ("local", "docker")
# Verdicts measured under both runtimes on main fbdab1c (this module's base), as root: six kinds (a frozen module's
# function, total_ordering's derived functions, taken by judge under any name) were graded solved there and moved to
# STOPPED after h-redteam12a's judge, measured under both runtimes there.
# HOLES: graded solved (under those runtimes), with why it stays open. STOPPED: not solved, with the rule codes
# that stop it.
HOLES: dict[str, tuple[tuple[str, ...], str]] = {
}
STOPPED: dict[str, tuple[str | None, ...]] = {
    # closed in h-redteam12a (boot.py, the class guard's judge): a function of a library is accepted for a verdict
    # dunder of a class no statement made (or given to a class after its statement) only under the name it was made
    # for: its code's name (a frozen module's function, "<frozen codecs>", is no code made from text), or
    # total_ordering's for the name it derives. Found by the walk at the record after collection (the class made at
    # import), or at the assertion (made during the test, a value inside a library container): class_changed
    "frozen_module_s_generator_function_as_the_comparison_of_a_class_no_statement_made": ("class_changed",),
    "frozen_module_s_coroutine_function_as_the_comparison_of_a_class_no_statement_made": ("class_changed",),
    "total_ordering_s_derived_function_as_eq_of_a_class_no_statement_made": ("class_changed",),
    "library_class_s_own_total_ordering_dunder_as_eq_of_a_class_no_statement_made": ("class_changed",),
    "library_container_compares_a_value_whose_class_no_statement_made": ("class_changed",),
    "class_no_statement_made_made_by_the_call_during_the_test": ("class_changed",),
    # the class guard: a bound method (types.MethodType) is no function, and the class (found at the assertion, not
    # yet by a walk at a record) is not taken for a library's C method ("a method, not a function")
    "c_descriptor_named_eq_around_a_changed_def": ("class_changed",),
    # the static layer: a dunder borrowed in a class body; at run time a changed class is behind the control
    "library_value_as_eq_in_a_changed_class_statement": ("reflection",),
    # the class guard: a changed class's inherited comparison is put behind the control, which finds it equal to a
    # probe
    "changed_class_statement_inherits_the_value_from_a_class_no_statement_made": ("class_changed",),
    # the class guard: a changed def in a class no statement made's namespace (bare: judge refuses it; in a
    # partialmethod: "a partialmethod, not a function")
    "changed_def_as_eq_of_a_class_no_statement_made": ("class_changed",),
}
# Spellings of a HOLES kind stopped on their own, with the rule codes that stop them: the kind stays a hole. (A
# STOPPED kind's spelling stopped by another rule than the kind's is here too, with that rule.)
SPELLINGS_STOPPED: dict[tuple[str, str], tuple[str | None, ...]] = {
}


# Stopped by the static layer: with it absent and every run-time rule on (the audit hook told of the changed
# files, the class guard and the comparison control), is the cheat still not solved? A kind the run time lets
# through is a RUN_TIME_HOLE (xfail strict): the static layer's spelling rules are all that stop it.
RUN_TIME_HOLES: dict[str, str] = {
}


# The round's five tests (tests/redteam_rounds.py: round_tests) made from its tables above: each graded end to end
# under both runtimes, or (the last two) the static layer's own verdict on each spelling, in process.
_TESTS = round_tests(KINDS, HOLES, STOPPED, SPELLINGS_STOPPED, RUN_TIME_HOLES)
test_round12_cheat_is_not_solved = _TESTS.cheat_is_not_solved
test_round12_stopped_cheat_really_passes_without_its_rules = _TESTS.stopped_cheat_really_passes_without_its_rules
test_round12_statically_stopped_cheat_is_not_solved_at_run_time = _TESTS.statically_stopped_cheat_is_not_solved_at_run_time
test_round12_kind_the_static_layer_lets_through = _TESTS.kind_the_static_layer_lets_through
test_round12_spelling_the_static_layer_refuses = _TESTS.spelling_the_static_layer_refuses


