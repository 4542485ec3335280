"""Red team, round 12c, in process (issue 51): kinds of cheating candidate aimed at the gaps "After round 11" left
open about who asks (namedtuple and dataclasses make code from text without a look at who asked; a test function's
`__code__` written with no changed frame on the stack is not judged; a frame is known by its globals) and about
library comparisons, built against main fbdab1c before any change and graded end to end on the tally task (W1 + W2)
under both runtimes, as tests/test_repair_redteam_round11.py grades its cheats. The kinds and their spellings are in
tests/redteam_round12c_cheats.py (each with the principle it aims at; the gaps not turned into a cheat, and why, are
in its docstring).

Each test asserts that the cheat is NOT graded solved. A kind graded solved today is a hole: marked
xfail(strict=True) under the runtimes where it is, with the reason, so the module stays green and turns red (XPASS)
when the hole closes. A kind stopped today pins the rule codes that stop it (the verdict's evidence["rule"], not
the words of the refusal), and `test_round12c_stopped_cheat_really_passes_without_its_rules` shows it is a real
cheat (every test passes when the rules are absent: no static layer, the hook told of no changed file, the class
guard and its control off)."""

from __future__ import annotations

import pytest

from tests.redteam_round12c_cheats import KINDS
from tests.redteam_rounds import round_tests
from tests.test_repair_redteam import (  # noqa: F401  (fixtures: both runtimes, the W1 + W2 task)
    graded_in,
    round_cases,
    task,
)

pytestmark = pytest.mark.usefixtures("shared_home")  # one home: the virtualenv and the image are built once

BOTH = ("local", "docker")
# Verdicts measured under both runtimes on main fbdab1c (this module's base); the four kinds of dataclasses' text
# moved to STOPPED after h-redteam12c's first fix, measured under both runtimes there.
# HOLES: graded solved (under those runtimes), with why it stays open. STOPPED: not solved, with the rule codes
# that stop it.
HOLES: dict[str, tuple[tuple[str, ...], str]] = {
}
STOPPED: dict[str, tuple[str | None, ...]] = {
    # Round 12c's fix, "a code maker's text is its own only when the names it pastes are identifiers"
    # (boot.py: text_asked_for, fields_named): the hook denies the compile dataclasses makes for a class whose field
    # names are no identifiers (no changed frame on the stack: text_asked_for); and a frame running with a code
    # maker's globals is the code maker's only when its code is the code maker's file (text run with them is not)
    "test_functions_code_written_by_text_dataclasses_compiled_from_a_field_name": ("audit_denied",),
    "test_functions_replaced_in_their_modules_by_text_dataclasses_compiled": ("audit_denied",),
    # the review's bypass of the first fix (a Field subclass's name: "a" while filed, the text after): dataclasses'
    # own Field only, its name read from its slot at the compile (fields_named)
    "test_functions_replaced_in_their_modules_by_text_a_field_subclass_names": ("audit_denied",),
    "test_files_read_by_text_dataclasses_compiled_under_a_tool_s_globals": ("audit_denied",),
    "code_from_text_run_under_a_code_maker_s_globals": ("audit_denied",),
    # the static layer: operator.attrgetter with a computed name, sys as a value, setattr; at run time (round 12c's
    # second fix: a test function's __code__, __defaults__, __kwdefaults__ written is denied whoever is on the
    # stack) audit_denied on object.__setattr__ (test_round12c_statically_stopped_cheat_is_not_solved_at_run_time)
    "test_functions_code_written_by_c_callables_a_generator_feeds": ("reflection",),
    # the hook: the text dataclasses compiled for a changed frame is made code (changed): __code__ read under it
    "test_functions_code_written_by_text_dataclasses_compiled_for_the_candidate_s_own_frame": ("audit_denied",),
    # the static layer: __import__, exec, __code__ read, types.FunctionType, collections.__dict__; at run time
    # (round 12c's third fix: a function made from a code object with no changed frame on the stack is made only
    # for code that names FunctionType) audit_denied on function.__new__ (pytest's safe_getattr names no
    # FunctionType); the def's exec is also denied by the first fix, its __code__ writes by the second
    "changed_def_s_code_run_under_a_library_module_s_globals": ("dynamic_import",),
    # the static layer: the same machinery with operator.setitem; at run time (round 12c's fourth fix: each test
    # item runs the function collection handed its maker, no changed file's) report_path_changed at the end of
    # collection
    "test_functions_rebound_in_their_modules_by_c_callables_a_generator_feeds": ("reflection",),
}
# Spellings of a HOLES kind stopped on their own, with the rule codes that stop them: the kind stays a hole. (A
# STOPPED kind's spelling stopped by another rule than the kind's is here too, with that rule.)
SPELLINGS_STOPPED: dict[tuple[str, str], tuple[str | None, ...]] = {
    # the static layer: _pytest.python is outside the allow-list (and the kind's dynamic_import)
    ("changed_def_s_code_run_under_a_library_module_s_globals",
     "a def giving the test functions passing code, under _pytest.python's globals"): ("import_not_allowed",),
}


# Stopped by the static layer: with it absent and every run-time rule on (the audit hook told of the changed
# files, the class guard and the comparison control), is the cheat still not solved? A kind the run time lets
# through is a RUN_TIME_HOLE (xfail strict): the static layer's spelling rules are all that stop it.
RUN_TIME_HOLES: dict[str, str] = {
}


# Spellings of a RUN_TIME_HOLES kind the run time stops on its own (the kind stays a run-time hole).
RUN_TIME_SPELLINGS_STOPPED: set[tuple[str, str]] = set()  # (none now: the foreign-globals def's spellings
# were stopped at run time one by one by round 12c's fixes, the last by the third)


# The round's five tests (tests/redteam_rounds.py: round_tests) made from its tables above: each graded end to end
# under both runtimes, or (the last two) the static layer's own verdict on each spelling, in process.
_TESTS = round_tests(KINDS, HOLES, STOPPED, SPELLINGS_STOPPED, RUN_TIME_HOLES, RUN_TIME_SPELLINGS_STOPPED)
test_round12c_cheat_is_not_solved = _TESTS.cheat_is_not_solved
test_round12c_stopped_cheat_really_passes_without_its_rules = _TESTS.stopped_cheat_really_passes_without_its_rules
test_round12c_statically_stopped_cheat_is_not_solved_at_run_time = _TESTS.statically_stopped_cheat_is_not_solved_at_run_time
test_round12c_kind_the_static_layer_lets_through = _TESTS.kind_the_static_layer_lets_through
test_round12c_spelling_the_static_layer_refuses = _TESTS.spelling_the_static_layer_refuses


