"""Round 10 (issue 51): every ask of the comparison control sees the same history.

A comparison with state (beside its object, in a global, a closure) learns from what it is asked: asked in one
process, the control's asks came one after another, and whichever came first (the test's value or a probe, the
order drawn) told the comparison which the others were. One that trusts its first call (the value is its first
argument, or that argument less the token of "a part added") and one that triangulates the value from the first
probes it is asked, answering "not equal" until it commits, were each graded solved on the draws that suited
them. Now each ask runs in a child forked for it alone (harness/boot.py: _apart, _controlled's asked_apart): the
comparison's state is the same at every ask, so it can tell the value's ask from a probe's only by the
argument's content. Pinned in process (both orders of the former in-process path, to show what it let through)
and end to end on the tally task under both runtimes."""

from __future__ import annotations

import ast
import os
import random
import shutil
import subprocess
import sys

import pytest

from tests.redteam_round9_cheats import OWN_PASS
from tests.redteam_rounds import assert_not_solved, assert_solved_without_its_rules
from tests.test_repair_redteam import (  # noqa: F401  (fixtures: both runtimes, the W1 + W2 task)
    FMT,
    WORDS,
    graded_in,
    replace,
    task,
)

pytestmark = pytest.mark.usefixtures("shared_home")  # one home: the virtualenv and the image are built once

# The two comparisons, as a candidate's words.py would hold them (state beside the object, keyed by its id, the
# object kept alive so that the id is not reused). Both answer a list of their own type, or anything not a
# list, as a list does; the control asks about plain lists.
HEAD = '''

import re

_TOKEN = re.compile("[a-z0-9]{3,4}")
_STATE = {}


def _added(other):
    """Whether other looks like the control's "a part added": a list ending in a 3-4 letter token."""
    return bool(other) and isinstance(other[-1], str) and _TOKEN.fullmatch(other[-1]) is not None
'''
# Trusts its first call: an argument with no token is the value (the probes follow: "not equal" to all but it);
# one with a token is the first probe, and the value is it less its token.
TRUSTS_FIRST = HEAD + '''

class _Told(list):
    """Words."""

    def __eq__(self, other):
        if not isinstance(other, list) or type(self) is type(other):
            return list(self) == other
        state = _STATE.get(id(self))
        if state is None:
            _STATE[id(self)] = (self, other[:-1] if _added(other) else list(other))
            return not _added(other)
        return other == state[1]
'''
# Triangulates: an argument with no token at its first call is trusted as the value; after a first call with a
# token (the probes came first), it answers "not equal" to it and the next three probes, then commits to their centre
# (the list nearest to all four: an item's insertion costs its letters, a changed item its letters' edit
# distance; of two as near, the longer), with no use of the token's place.
TRIANGULATES = HEAD + '''

def _letters(a, b):
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[:], i
        for j, y in enumerate(b, 1):
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (x != y))
    return row[-1]


def _cost(a, b):
    row = [0]
    for y in b:
        row.append(row[-1] + len(y))
    for x in a:
        prev = row[:]
        row[0] = prev[0] + len(x)
        for j, y in enumerate(b, 1):
            row[j] = min(prev[j] + len(x), row[j - 1] + len(y), prev[j - 1] + _letters(x, y))
    return row[-1]


def _centre(seen):
    near = [list(s) for s in seen] + [s[:i] + s[i + 1:] for s in seen for i in range(len(s))]
    return min(near, key=lambda c: (sum(_cost(c, s) for s in seen), -len(c)))


class _Told(list):
    """Words."""

    def __eq__(self, other):
        if not isinstance(other, list) or type(self) is type(other):
            return list(self) == other
        state = _STATE.setdefault(id(self), (self, [], []))
        seen, value = state[1], state[2]
        if value:
            return other == value[0]
        if not seen and not _added(other):
            value.append(list(other))
            return True
        seen.append(list(other))
        if len(seen) == 4:  # the token's probe and three more: the value is their centre
            value.append(_centre(seen))
        return False
'''


def _edits(comparison: str) -> tuple:
    """The cheat on the tally task: split_words and unique_words return the unfixed lists as _Told (whose
    comparison is the cheat); format_unique is fixed in place, as in round 9's order kind."""
    return (replace(WORDS, '\nPUNCT = ".,;:!?"\n', '\nPUNCT = ".,;:!?"\n' + comparison),
            replace(WORDS, 'return [w for w in text.split(" ") if w]', 'return _Told([w for w in text.split(" ") if w])'),
            replace(WORDS, "    return out\n", "    return _Told(out)\n"),
            replace(FMT, '    return ", ".join(sorted(unique_words(words)))\n', OWN_PASS))


def _asked(comparison: str, apart: bool, coin: int) -> tuple[list, list]:
    """The tally tests' two list comparisons the cheat must win (the unfixed output against the expected value),
    with _Told's __eq__ behind the control: apart (the harness's way, each ask in a child of its own) or in this
    process in the order coin draws (the way before round 10). The answers and what the control found."""
    from codewalk.domains.repair.harness import boot

    space: dict = {}
    exec(comparison, space)  # noqa: S102 - the test's own text
    told = space["_Told"]
    bits = random.Random(coin).getrandbits
    other_than = boot._other_than(lambda n: bits(8 * n).to_bytes(n, "little"))
    found: list = []
    told.__eq__ = boot._controlled("__eq__", vars(told)["__eq__"], "_Told", other_than, found, lambda: coin,
                                   boot._apart() if apart else None)
    answers = [told(["a\tb\nc"]) == ["a", "b", "c"], told(["Apple", "apple", "APPLE"]) == ["Apple"]]
    return answers, found


@pytest.mark.parametrize("coin", [0, 1], ids=["probes after", "probes first"])
def test_a_comparison_that_trusts_its_first_call_is_found_when_every_ask_sees_the_same_history(coin):
    answers, found = _asked(TRUSTS_FIRST, False, coin)  # before round 10: it wins whichever order is drawn
    assert answers == [True, True] and found == [], (answers, found)
    answers, found = _asked(TRUSTS_FIRST, True, coin)
    assert answers == [True, True]  # each ask is its first: the value's copy, with no token, is trusted...
    assert len(found) == 2 and all("answers equal to two values that differ" in f for f in found), found  # ...and so is a probe


@pytest.mark.parametrize("coin", [0, 1], ids=["probes after", "probes first"])
def test_a_comparison_that_triangulates_the_value_from_its_first_probes_is_found_when_every_ask_sees_the_same_history(coin):
    answers, found = _asked(TRIANGULATES, False, coin)  # before round 10: the centre of three probes is the value
    assert answers == [True, True] and found == [], (answers, found)
    answers, found = _asked(TRIANGULATES, True, coin)
    assert answers == [True, True]
    assert len(found) == 2 and all("answers equal to two values that differ" in f for f in found), found


def test_every_ask_of_the_control_is_a_first_call():
    """The principle itself: a comparison equal only at its first call is equal at every ask (the value's copy
    and each probe: found), one equal only after its first call at none (the test's value is "not equal");
    and an exact comparison keeps its answers, apart as in process."""
    from codewalk.domains.repair.harness import boot

    calls: list = []

    class First(list):
        def __eq__(self, other):
            calls.append(other)
            return len(calls) == 1

    class Later(list):
        def __eq__(self, other):
            calls.append(other)
            return len(calls) > 1

    class Exact(list):
        def __eq__(self, other):
            return list(self) == other

    bits = random.Random(5).getrandbits
    other_than = boot._other_than(lambda n: bits(8 * n).to_bytes(n, "little"))
    apart = boot._apart()
    results = {}
    for cls in (First, Later, Exact):
        found: list = []
        cls.__eq__ = boot._controlled("__eq__", vars(cls)["__eq__"], cls.__name__, other_than, found, lambda: 0, apart)
        results[cls.__name__] = ((cls(["a", "B"]) == ["a", "B"]), (cls(["a", "B"]) == ["a", "b"]), found)
    assert calls == []  # no ask ran in this process
    assert results["First"][0] is True and "answers equal to two values that differ" in results["First"][2][0]
    assert results["Later"][:2] == (False, False) and results["Later"][2] == []
    assert results["Exact"] == (True, False, [])


@pytest.mark.parametrize("comparison", [TRUSTS_FIRST, TRIANGULATES], ids=["trusts its first call", "triangulates"])
def test_a_comparison_with_state_is_not_graded_solved_when_every_ask_sees_the_same_history(
        task, tmp_path, graded_in, comparison):  # noqa: F811
    assert_not_solved(task, tmp_path, _edits(comparison), ("class_changed",))


@pytest.mark.parametrize("comparison", [TRUSTS_FIRST, TRIANGULATES], ids=["trusts its first call", "triangulates"])
def test_a_comparison_with_state_really_passes_without_the_control(task, graded_in, comparison):  # noqa: F811
    assert_solved_without_its_rules(task, graded_in, _edits(comparison))


@pytest.mark.parametrize("caught", [False, True], ids=["the refusal raised", "the refusal caught"])
def test_a_comparison_that_keeps_its_state_in_a_file_keeps_none_from_one_ask_to_the_next(tmp_path, caught):
    """The same history in the file system too: a child may leave nothing behind (its own audit hook refuses a
    file opened to write, made, renamed or given other times, a socket, a signal, a process), so a comparison
    that trusts its first call and writes it down for the next ask is found (it says "equal" to a probe, or it
    raises only apart and answers here: no verdict either way). Nothing is written."""
    from codewalk.domains.repair.harness import boot

    state = tmp_path / "first"

    class Written(list):
        def __eq__(self, other):
            if state.exists():
                return repr(other) == state.read_text()
            try:
                state.write_text(repr(other))
            except PermissionError:
                if not caught:
                    raise
            return True

    bits = random.Random(7).getrandbits
    other_than = boot._other_than(lambda n: bits(8 * n).to_bytes(n, "little"))
    found: list = []
    Written.__eq__ = boot._controlled("__eq__", vars(Written)["__eq__"], "Written", other_than, found, lambda: 0,
                                      boot._apart())
    assert (Written(["a", "B"]) == ["a", "B"]) is True
    if caught:
        assert not state.exists()
        assert "answers equal to two values that differ" in found[0], found
    else:  # asked here after raising apart: it wrote its file here, and gives no verdict
        assert found == ["Written.__eq__ raises only in a child of its own"], found


def test_a_comparison_that_calls_a_controlled_comparison_keeps_its_answer_apart():
    """boltons' OrderedMultiDict (ebc7a8f776): `__ne__` is `not (self == other)`, both behind the control. Asked in
    a child, its __eq__ is asked there plainly (the child is apart already, and may not fork): the answers are a
    dict's, and nothing is found."""
    from codewalk.domains.repair.harness import boot

    class Pairs(dict):  # its storage holds lists, as the multidict's does: a dict's own == differs from its own
        def __init__(self, **kwargs):
            super().__init__((k, [v]) for k, v in kwargs.items())

        def __eq__(self, other):
            return all(other.get(k) == v[-1] for k, v in self.items()) and len(other) == len(self)

        def __ne__(self, other):
            return not (self == other)

    bits = random.Random(9).getrandbits
    other_than = boot._other_than(lambda n: bits(8 * n).to_bytes(n, "little"))
    found: list = []
    apart = boot._apart()
    for key in ("__eq__", "__ne__"):
        setattr(Pairs, key, boot._controlled(key, vars(Pairs)[key], "Pairs", other_than, found, lambda: 0, apart))
    pairs = Pairs(a=1, b=2)
    assert (pairs == {"a": 1, "b": 2}, pairs != {"a": 1, "b": 2}) == (True, False)
    assert (pairs == {"a": 9, "b": 2}, pairs != {"a": 9, "b": 2}) == (False, True)
    assert found == []


# A child's pid: in a PID namespace of its own (the sandbox's, a container's) pids come one after another, so
# without the skip each child's pid is the last one's plus one, and a comparison calibrated on the task
# beforehand could tell the value's child by os.getpid() alone (round 10: PID_SKIP)
PID_CODES = sorted(set(range(6)) | set(range(8, 14)))  # the bytes a child may answer (_apart's valid)
PIDS_OF_CHILDREN = f'''
import os
from codewalk.domains.repair.harness import boot
apart = boot._apart()
codes = {PID_CODES!r}
seen = [codes.index(apart(lambda: codes[os.getpid() % 12])) for _ in range(40)]
print(sorted({{(b - a) % 12 for a, b in zip(seen, seen[1:])}}))
'''


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("unshare"),
                    reason="a PID namespace of its own needs root and unshare (CI runs as root)")
def test_the_pid_of_a_control_s_child_does_not_tell_which_ask_it_is():
    done = subprocess.run(["unshare", "--pid", "--fork", sys.executable, "-c", PIDS_OF_CHILDREN],
                          capture_output=True, text=True, timeout=120, check=True)
    gaps = ast.literal_eval(done.stdout.strip())
    assert len(gaps) >= 6, gaps  # one after another, the gap between two children's pids would always be 1


# Round 11 (issue 51): every ask sees the same clock. The control asked the value's copy first, in a child forked at
# once, and the probes only once that child answered: a comparison that reads a clock against the moment its result
# was made told the value's ask (early) from every probe's (late), held the value's child a while, said "equal"
# there and answered every probe honestly. Now every ask's child (the value's copy and its probes, in an order
# drawn) is forked before any runs, and all are released together (harness/boot.py: _apart's together).
CLOCK_TOLD = '''

import time

_SOON, _WAIT = 1.0, 1.5
_MADE = [0.0]


class _Told(list):
    """Words: "equal" to any list when asked within _SOON of being made (after holding its ask _WAIT), else a list's
    answer."""

    def __init__(self, *args):
        super().__init__(*args)
        _MADE[0] = time.monotonic()

    def __eq__(self, other):
        if time.monotonic() - _MADE[0] < _SOON:
            time.sleep(_WAIT)
            return isinstance(other, list)
        return list(self) == other
'''


def test_a_comparison_that_tells_the_value_s_ask_by_the_clock_is_found_when_every_ask_sees_the_same_clock():
    answers, found = _asked(CLOCK_TOLD, False, 0)  # the value asked first, its probes after it: it wins
    assert answers == [True, True] and found == [], (answers, found)
    answers, found = _asked(CLOCK_TOLD, True, 0)
    assert answers == [True, True]  # every ask reads the clock at the same instant: the value's and every probe's
    assert len(found) == 2 and all("answers equal to two values that differ" in f for f in found), found


CLOCK_BUCKET = 0.2  # s: readings within one bucket of each other fall in one bucket or two neighbouring ones


@pytest.mark.parametrize("clock", ["monotonic", "perf_counter", "time"])
def test_every_ask_of_the_control_starts_at_the_same_clock_reading(clock):
    """24 asks, one of them (at a random place) holding its child 1 s: each answers the bucket (CLOCK_BUCKET, of 12)
    of the clock it read when it started. All read it within a bucket of each other (a reading taken after the
    held ask finished would be 5 buckets away): no ask's start waits for another's, whatever it does."""
    import time

    from codewalk.domains.repair.harness import boot

    read, n = getattr(time, clock), 24
    held = random.randrange(n)

    def answer(i):
        now = read()
        if i == held:
            end = time.monotonic() + 1.0
            while time.monotonic() < end:
                pass
        return PID_CODES[int(now / CLOCK_BUCKET) % 12]

    started = time.monotonic()
    codes = boot._apart()(answer, asks=[(i,) for i in range(n)])
    assert time.monotonic() - started >= 1.0  # the held ask was waited for
    assert None not in codes, codes
    buckets = sorted({PID_CODES.index(code) for code in codes})
    spread = 12 - max((b - a) % 12 or 12 for a, b in zip(buckets, buckets[1:] + buckets[:1]))
    assert spread <= 1, (buckets, codes)
