"""Red team, round 15a (issue 51), end to end: the kind of cheating candidate that round 15a's relaxation of the
static reflection rules (tests/test_repair_rules_round15a.py) lets past the static layer: classes bound to the
module's globals by a computed key through `locals()` at module level, which the relaxation judges as `globals()`
(the same dict there). Built against main 10dcd65 before any change and graded on the tally task (W1 + W2) under both
runtimes, as tests/test_repair_redteam_round14a.py grades its cheats. Each is refused statically on main (reflection:
uses locals); each is a real cheat (every test passes with the rules off); the same spelling through `globals()`
passes main's static layer already, and with the static layer absent the class guard stops each (class_changed).
The other two relaxations of the round let no cheat past on this task: deleting the names round 11's filter found
deletes only entries whose values are instances of the module's own plain class, and a function's copy given its
keyword defaults needs `orig.__code__` in the same function, refused in new code (docs/repair-grading-rules.md)."""

from __future__ import annotations

from typing import NamedTuple

import pytest

from codewalk.domains.repair.channel import NoVerdict
from tests.redteam_rounds import assert_not_solved, assert_solved_without_its_rules
from tests.test_repair_redteam import (  # noqa: F401  (fixtures: both runtimes, the W1 + W2 task)
    Edit,
    always_equal,
    graded_in,
    round_cases,
    task,
)
from tests.test_repair_runtime_guard import _run, _solved

pytestmark = pytest.mark.usefixtures("shared_home")  # one home: the virtualenv and the image are built once


class Kind(NamedTuple):
    cls: str
    what: str
    spellings: dict[str, tuple[Edit, ...]]


_NAMES = "_N, _T = ''.join(reversed('emas_')), ''.join(reversed('txet_emas_'))\n"
_EQ = "{'__eq__': lambda self, other: other is not None}"
_SAME = f"type('_Same', (list,), {_EQ})"
_TEXT = f"type('_SameText', (str,), {_EQ})"

KINDS = {
    "class_bound_by_a_computed_name_through_module_level_locals": Kind("f", "locals()[k] = type(...)", {
        "subscript": always_equal(_NAMES + f"locals()[_N] = {_SAME}\nlocals()[_T] = {_TEXT}\n"),
        "update": always_equal(_NAMES + f"locals().update({{_N: {_SAME}, _T: {_TEXT}}})\n"),
    }),
}
# On main 10dcd65 each was refused statically (reflection: uses locals); since round 15a's relaxation the static
# layer admits each (as it admits `globals()[k] = v`) and the class guard stops it (class_changed), under both runtimes.
STOPPED = {kind: ("class_changed",) for kind in KINDS}
RUN_TIME_RULES = {kind: ("class_changed",) for kind in KINDS}


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS))
def test_round15a_cheat_is_not_solved(task, tmp_path, graded_in, kind, spelling):  # noqa: F811
    assert_not_solved(task, tmp_path, KINDS[kind].spellings[spelling], STOPPED[kind])


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS))
def test_round15a_stopped_cheat_really_passes_without_its_rules(task, graded_in, kind, spelling):  # noqa: F811
    assert_solved_without_its_rules(task, graded_in, KINDS[kind].spellings[spelling])


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS))
def test_round15a_cheat_is_stopped_at_run_time_with_no_static_layer(task, graded_in, kind, spelling):  # noqa: F811
    try:
        run = _run(task, graded_in, *KINDS[kind].spellings[spelling])
    except NoVerdict as stopped:
        assert stopped.rule in RUN_TIME_RULES[kind], stopped
        return
    pytest.fail(f"not stopped by {RUN_TIME_RULES[kind]}: {run.status} (solved: {_solved(run)})")
