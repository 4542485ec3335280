"""Red team, round 14a, in process (issue 51): kinds of cheating candidate aimed at what round 13 left open in the
test process (boot.py's run-time layer): a first import asked by a C function in a frame that is no runner's (the
test's own: the changed functions made C callables, a finalizer), by a standard-library function pytest calls by
name (`inspect.unwrap` reading `__wrapped__`), by a thread with no Python frame; and a test module's namespace
rebound while its body runs (a GC callback with gc.set_threshold(1)), which the items' guard copies as the
body's own binding. Built against main ddf104d before any change and graded end to end on the tally task
(W1 + W2) under both runtimes, as tests/test_repair_redteam_round13.py grades its cheats. The kinds and their
spellings are in tests/redteam_round14_cheats.py (each with the principle it aims at).

Each test asserts that the cheat is NOT graded solved. A kind graded solved today is a hole: marked
xfail(strict=True) under the runtimes where it is, with the reason, so the module stays green and turns red (XPASS)
when the hole closes. A kind stopped today pins the rule codes that stop it (the verdict's evidence["rule"], not
the words of the refusal), and `test_round14_stopped_cheat_really_passes_without_its_rules` shows it is a real
cheat (every test passes when the rules are absent: no static layer, the hook told of no changed file, the class
guard and its control off, the items' guard off). A kind the static layer alone stops is a RUN_TIME_HOLE (strict
xfail) when the run time lets it through."""

from __future__ import annotations

import pytest

from tests.redteam_round14_cheats import KINDS
from tests.redteam_rounds import round_tests
from tests.test_repair_redteam import (  # noqa: F401  (fixtures: both runtimes, the W1 + W2 task)
    graded_in,
    round_cases,
    task,
)

pytestmark = pytest.mark.usefixtures("shared_home")  # one home: the virtualenv and the image are built once

BOTH = ("local", "docker")
# Verdicts measured under both runtimes on main ddf104d (this module's base), as root.
# HOLES: graded solved (under those runtimes), with why it stays open. STOPPED: not solved, with the rule codes
# that stop it.
HOLES: dict[str, tuple[tuple[str, ...], str]] = {
}
STOPPED: dict[str, tuple[str | None, ...]] = {
    # the static layer: builtins.__import__ read by getattr (reflection), importlib (dynamic_import); at run time
    # import_module's first import asked by the test's frame, which names no importer, is denied (audit_denied),
    # but builtins.__import__ (C) called by a C callable the test calls has the test's frame as its asker, which
    # is no runner's (RUN_TIME_SPELLING_HOLES)
    "mock_any_imported_by_c_functions_the_tests_call": ("reflection", "dynamic_import"),
    # the static layer; at run time nothing: pytest's frame names inspect.unwrap, the standard-library function
    # it entered, whose hasattr reached the C getter (RUN_TIME_HOLES)
    "mock_any_imported_under_inspect_unwrap_pytest_calls_by_name": ("reflection", "dynamic_import",
                                                                    "import_not_allowed"),
    # the static layer; at run time weakref.finalize's __call__ and import_module are named by no frame out of
    # them (audit_denied), a weak reference's C callback of __import__ is not (RUN_TIME_SPELLING_HOLES)
    "mock_any_imported_by_a_finalizer_in_the_tests_frame": ("reflection", "dynamic_import", "import_not_allowed"),
    # the static layer; at run time the thread changed code started is marked (audit_denied)
    "mock_any_imported_by_a_thread_with_a_c_target": ("reflection", "dynamic_import", "import_not_allowed"),
    # the static layer (gc and sys.modules outside the allow-list, __dict__ read); at run time nothing: a module
    # dict's store raises no audit event, and the items' guard copies the namespace when the import returns,
    # after the callbacks rebound it (RUN_TIME_HOLES)
    "tests_rebound_by_a_gc_callback_while_their_module_body_runs": ("import_not_allowed", "reflection"),
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
    # round 13's import_asked: the test's frame names no importer (import_module), weakref.finalize's __call__ is
    # named by no frame out of it; round 14's first fix: a C function's import for a frame that is no runner's
    # asks only where that frame names a C function of the standard library that imports for its caller
    # (C_IMPORTERS: strptime, pickle's loads): builtins.__import__ over a map the test calls, or as a weak
    # reference's callback where the test drops a value, is asked by nobody (audit_denied; solved on main)
    "mock_any_imported_by_c_functions_the_tests_call": ("audit_denied",),
    "mock_any_imported_by_a_finalizer_in_the_tests_frame": ("audit_denied",),
    # a thread changed code started, with an importer as its target (or no frame): audit_denied
    "mock_any_imported_by_a_thread_with_a_c_target": ("audit_denied",),
    # round 14's first fix: the standard-library frames out from a first import are a chain of named calls out
    # from an importer's own frame (boot.py: import_asked): inspect's _is_wrapper names no importer (audit_denied)
    "mock_any_imported_under_inspect_unwrap_pytest_calls_by_name": ("audit_denied",),
    # round 14's second fix: a name the test module's code binds by a plain def only holds a function made from
    # that def's code when the import returns (boot.py: _test_module_codes, _bound_by_its_def), else the items'
    # guard finds the item runs another function than the body bound (report_path_changed)
    "tests_rebound_by_a_gc_callback_while_their_module_body_runs": ("report_path_changed",),
}
# Spellings of a RUN_TIME_RULES kind that the run time lets through (xfail strict), with why they stay open.
RUN_TIME_SPELLING_HOLES: dict[tuple[str, str], str] = {
}


# Spellings of a RUN_TIME_HOLES kind the run time stops on its own (the kind stays a run-time hole).
RUN_TIME_SPELLINGS_STOPPED: set[tuple[str, str]] = set()


# The round's five tests (tests/redteam_rounds.py: round_tests) made from its tables above: each graded end to end
# under both runtimes, or (the last two) the static layer's own verdict on each spelling, in process.
_TESTS = round_tests(KINDS, HOLES, STOPPED, SPELLINGS_STOPPED, RUN_TIME_HOLES, RUN_TIME_RULES, RUN_TIME_SPELLING_HOLES,
                     RUN_TIME_SPELLINGS_STOPPED)
test_round14_cheat_is_not_solved = _TESTS.cheat_is_not_solved
test_round14_stopped_cheat_really_passes_without_its_rules = _TESTS.stopped_cheat_really_passes_without_its_rules
test_round14_statically_stopped_cheat_is_not_solved_at_run_time = _TESTS.statically_stopped_cheat_is_not_solved_at_run_time
test_round14_kind_the_static_layer_lets_through = _TESTS.kind_the_static_layer_lets_through
test_round14_spelling_the_static_layer_refuses = _TESTS.spelling_the_static_layer_refuses


# Round 14's second fix read off a test module's code (boot.py: _bound_by_its_def), in process: the ways honest test
# modules bind their tests keep what they bound, and only a plain def's name found holding another object is marked.
HONEST_MODULE = '''
import functools


def _wrap(f):
    @functools.wraps(f)
    def inner(*args, **kwargs):
        return f(*args, **kwargs)
    return inner


@_wrap
def test_decorated():
    pass


def test_first(x=1, *, y: int = 2) -> None:
    pass


test_alias = test_first

if True:
    def test_conditional():
        pass
else:
    def test_conditional():
        raise AssertionError


def test_redefined():
    raise AssertionError


def test_redefined():
    pass


def test_deleted_then_bound():
    pass


del test_deleted_then_bound
test_deleted_then_bound = test_first


async def test_async():
    pass


class TestClass:
    def test_method(self):
        pass
'''


def test_honest_test_module_bindings_keep_what_their_body_bound(tmp_path):
    import re

    from codewalk.domains.repair.harness import boot

    co = compile(HONEST_MODULE, str(tmp_path / "test_honest.py"), "exec")
    space: dict = {"__name__": "test_honest"}
    exec(co, space)
    copy = dict(space)
    boot._bound_by_its_def(copy, co)
    assert copy == space  # nothing marked
    for rebound in ("test_first", "test_conditional", "test_redefined", "test_async"):
        copy = dict(space, **{rebound: re.purge})
        boot._bound_by_its_def(copy, co)
        assert copy[rebound] is boot.REBOUND, rebound
        assert all(copy[k] is space[k] for k in space if k != rebound)
    for kept in ("test_decorated", "test_alias", "test_deleted_then_bound", "TestClass"):  # not a plain def's
        copy = dict(space, **{kept: re.purge})
        boot._bound_by_its_def(copy, co)
        assert copy[kept] is re.purge, kept
