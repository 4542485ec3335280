"""Red team, round 14a (issue 51), end to end: the kinds of cheating candidate that round 14's relaxation of the
static reflection rules (tests/test_repair_rules_round14.py) lets past the static layer: a class made without a
class statement, by the builtin three-argument type() from a namespace the rules do not read whole, or given a
behaviour dunder by a constant key whose value is a function of the changed module. Built against main ddf104d
before any change and graded on the tally task (W1 + W2) under both runtimes, as tests/test_repair_redteam_round13.py
grades its cheats. Each is refused statically on main (reflection: three-argument type(), a dunder put in a
namespace); each is a real cheat (every test passes with the rules off); and with the static layer absent the class
guard stops each (class_changed), which is what keeps them out once the static layer admits their spelling."""

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

# -- end to end: what the relaxation lets past the static layer is stopped at run time ------------------------------
# words.py's _same/_same_text (tests/test_repair_redteam.py's always_equal) are list and str subclasses made without
# a class statement whose __eq__ answers "equal" to anything but None: a real cheat (every test passes with the rules
# off). Refused statically on main (three-argument type(), a dunder put in a namespace); with the relaxation the
# static layer lets the builtin type() and a changed module's function through, and the class guard stops them.
class Kind(NamedTuple):
    cls: str
    what: str
    spellings: dict[str, tuple[Edit, ...]]


_EQ = '_EQ = "".join(reversed("__qe__"))\n'
_DEF = "\n\ndef _eq(self, other):\n    return other is not None\n\n\n"


def _made(maker: str, ns: str, head: str = "") -> tuple[Edit, ...]:
    return always_equal(head + f"\n_same = {maker}('_Same', (list,), {ns})\n"
                        f"_same_text = {maker}('_SameText', (str,), {ns})\n")


KINDS = {
    "class_made_by_type_from_a_namespace_the_rules_cannot_read": Kind("f", "type(name, bases, {_EQ: value})", {
        "a changed def by a computed key": _made("type", "{_EQ: _eq}", _EQ + _DEF),
        "a changed def by a computed key, __module__ another module's": _made(
            "type", "{_EQ: _eq, '__module__': 'json'}", _EQ + _DEF),
        "made at each call of the functions the tests call": always_equal(
            _EQ + _DEF + "def _same(items):\n    return type('_Same', (list,), {_EQ: _eq})(items)\n\n\n"
            "def _same_text(text):\n    return type('_SameText', (str,), {_EQ: _eq})(text)\n"),
    }),
    "behaviour_dunder_of_a_changed_function_put_in_a_namespace": Kind("f", "{'__eq__': a changed def}", {
        "lambda in type()": _made("type", "{'__eq__': lambda self, other: other is not None}"),
        "def in abc.ABCMeta()": _made("abc.ABCMeta", "{'__eq__': _eq}", "import abc\n" + _DEF),
        "a factory's def, __module__ another module's": _made(
            "type", "{'__eq__': _mk(), '__module__': 'json'}",
            "\n\ndef _mk():\n    def m(self, other):\n        return other is not None\n\n    return m\n\n"),
    }),
}
# On main ddf104d each was refused statically (reflection); since round 14's relaxation the static layer admits
# each and the class guard stops it (class_changed), under both runtimes.
STOPPED = {kind: ("class_changed",) for kind in KINDS}
RUN_TIME_RULES = {kind: ("class_changed",) for kind in KINDS}


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS))
def test_round14_cheat_is_not_solved(task, tmp_path, graded_in, kind, spelling):  # noqa: F811
    assert_not_solved(task, tmp_path, KINDS[kind].spellings[spelling], STOPPED[kind])


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS))
def test_round14_stopped_cheat_really_passes_without_its_rules(task, graded_in, kind, spelling):  # noqa: F811
    assert_solved_without_its_rules(task, graded_in, KINDS[kind].spellings[spelling])


@pytest.mark.parametrize(("kind", "spelling"), round_cases(KINDS))
def test_round14_cheat_is_stopped_at_run_time_with_no_static_layer(task, graded_in, kind, spelling):  # noqa: F811
    try:
        run = _run(task, graded_in, *KINDS[kind].spellings[spelling])
    except NoVerdict as stopped:
        assert stopped.rule in RUN_TIME_RULES[kind], stopped
        return
    pytest.fail(f"not stopped by {RUN_TIME_RULES[kind]}: {run.status} (solved: {_solved(run)})")
