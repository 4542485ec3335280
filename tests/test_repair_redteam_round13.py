"""Red team, round 13a, in process (issue 51): kinds of cheating candidate aimed at the gaps "After round 12" wrote
down under "who asks" (a test's function rebound before pytest copies its module's namespace, to something that is
no changed file's function) and "library comparisons" (judge trusts a library function by its code's name: one a
library made from text for a class the candidate shaped; one of a module first imported after start-up), built
against main 0f58652 before any change and graded end to end on the tally task (W1 + W2) under both runtimes, as
tests/test_repair_redteam_round12c.py grades its cheats. The kinds and their spellings are in
tests/redteam_round13_cheats.py (each with the principle it aims at).

Each test asserts that the cheat is NOT graded solved. A kind graded solved today is a hole: marked
xfail(strict=True) under the runtimes where it is, with the reason, so the module stays green and turns red (XPASS)
when the hole closes. A kind stopped today pins the rule codes that stop it (the verdict's evidence["rule"], not
the words of the refusal), and `test_round13_stopped_cheat_really_passes_without_its_rules` shows it is a real
cheat (every test passes when the rules are absent: no static layer, the hook told of no changed file, the class
guard and its control off, the items' guard off). A kind the static layer alone stops is a RUN_TIME_HOLE (strict
xfail) when the run time lets it through."""

from __future__ import annotations

import pytest

from tests.redteam_round13_cheats import KINDS
from tests.redteam_rounds import round_tests
from tests.test_repair_redteam import (  # noqa: F401  (fixtures: both runtimes, the W1 + W2 task)
    graded_in,
    round_cases,
    task,
)

pytestmark = pytest.mark.usefixtures("shared_home")  # one home: the virtualenv and the image are built once

BOTH = ("local", "docker")
# Verdicts measured under both runtimes on main 0f58652 (this module's base), as root.
# HOLES: graded solved (under those runtimes), with why it stays open. STOPPED: not solved, with the rule codes
# that stop it.
HOLES: dict[str, tuple[tuple[str, ...], str]] = {
}
STOPPED: dict[str, tuple[str | None, ...]] = {
    # the static layer: linecache and sys.modules outside the allow-list, __dict__ read; at run time nothing: the
    # items' guard checks that an item runs what collection handed its maker, and no changed file's function; the
    # namespace was rebound before collection copied it, to a library function (RUN_TIME_HOLES)
    "test_functions_rebound_before_collection_to_a_library_callable": ("import_not_allowed", "reflection"),
    # baseline, the same with words.py's own def: the static layer; at run time the items' guard
    # (report_path_changed: "runs a changed file's function")
    "test_functions_rebound_before_collection_to_a_changed_def": ("import_not_allowed", "reflection"),
    # baseline: __class__ is a name the class guard judges (a partial, not a function): class_changed
    "dataclasses_eq_of_a_class_whose___class___says_list": ("class_changed",),
    # the static layer: unittest.mock outside the allow-list, importlib (dynamic_import); at run time the first
    # import of unittest.mock by changed code is denied (audit_denied, import), but imported by importlib with no
    # changed frame (a C callable as __test__'s getter) it is not, and judge takes _ANY.__eq__ (always True) by its
    # name (RUN_TIME_HOLES); builtins.__import__ read by getattr: reflection
    "unittest_mock_any_eq_first_imported_after_start_up": ("import_not_allowed", "dynamic_import", "reflection"),
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
# The run-time rule that stops a statically stopped kind (with the static layer absent), where one does: pinned by its
# rule code (the NoVerdict's), not by the test's failing.
RUN_TIME_RULES: dict[str, tuple[str, ...]] = {
    # round 13's first fix: each item runs what its module's (or class's) body bound to its name, copied when
    # pytest's import of the module returned (boot.py: _test_module_bodies, the items' guard)
    "test_functions_rebound_before_collection_to_a_library_callable": ("report_path_changed",),
    # the items' guard of round 12c: a changed file's function
    "test_functions_rebound_before_collection_to_a_changed_def": ("report_path_changed",),
    # round 13's second fix: a first import of a standard-library module outside the reviewed set is asked by the
    # code that runs it (boot.py: import_asked, module_asked: at the import event, and at the exec of the new
    # module's body, since importlib.import_module raises no import event): audit_denied on import; on main the
    # first import by words.py and pkgutil's were denied already
    "unittest_mock_any_eq_first_imported_after_start_up": ("audit_denied",),
}
# Spellings of a RUN_TIME_RULES kind that the run time lets through (xfail strict), with why they stay open.
RUN_TIME_SPELLING_HOLES: dict[tuple[str, str], str] = {
    # (none now) added after round 13's second fix, solved on main 0f58652 and after it (both runtimes): the import
    # is run by a C function (builtins.__import__ over a map) where the test's frame drops a result: that frame is
    # the asker found, at no import and no call naming an importer. Stopped by round 14a's first fix (audit_denied):
    # a frame that is no runner's asks for a C function's import only at a call naming a C function of the
    # standard library that imports for its caller (boot.py: C_IMPORTERS, import_asked)
}


# Spellings of a RUN_TIME_HOLES kind the run time stops on its own (the kind stays a run-time hole).
RUN_TIME_SPELLINGS_STOPPED: set[tuple[str, str]] = set()  # (none now: round 13's second fix stopped the kind's
# last spellings; its first import by words.py and pkgutil's were stopped on main, audit_denied on import)


# The round's five tests (tests/redteam_rounds.py: round_tests) made from its tables above: each graded end to end
# under both runtimes, or (the last two) the static layer's own verdict on each spelling, in process.
_TESTS = round_tests(KINDS, HOLES, STOPPED, SPELLINGS_STOPPED, RUN_TIME_HOLES, RUN_TIME_RULES,
                     RUN_TIME_SPELLING_HOLES, RUN_TIME_SPELLINGS_STOPPED)
test_round13_cheat_is_not_solved = _TESTS.cheat_is_not_solved
test_round13_stopped_cheat_really_passes_without_its_rules = _TESTS.stopped_cheat_really_passes_without_its_rules
test_round13_statically_stopped_cheat_is_not_solved_at_run_time = _TESTS.statically_stopped_cheat_is_not_solved_at_run_time
test_round13_kind_the_static_layer_lets_through = _TESTS.kind_the_static_layer_lets_through
test_round13_spelling_the_static_layer_refuses = _TESTS.spelling_the_static_layer_refuses


