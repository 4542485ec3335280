"""Round 10 (issue 51, h-fixlib10): a comparison judged at the comparison. Each script runs the harness's class
guard in a fresh interpreter (it changes builtins and library classes), as test_repair_runtime_guard's STRICT does,
and prints what the next record would say ('' or class_changed: ...)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from codewalk.domains.repair import env as repair_env

BOOT = Path(repair_env.__file__).with_name("harness") / "boot.py"
HEAD = r'''
import collections, copy, functools, os, runpy, sys
boot = runpy.run_path(sys.argv[1], run_name="boot")
changed = os.path.join(sys.argv[2], "changed.py")
with open(changed, "w") as f:
    f.write("""
class Same(list):
    def __eq__(self, other):
        return list(self) == other

    __hash__ = None


HONEST = Same.__eq__


def once(self, other):
    type(self).__eq__ = HONEST
    return True
""")
check = boot["_class_guard"](frozenset([changed]))
sys.path.insert(0, sys.argv[2])
import changed as candidate
print(repr(check()))
'''


def _run(tmp_path: Path, body: str) -> list[str]:
    return subprocess.run([sys.executable, "-I", "-c", HEAD + body, str(BOOT), str(tmp_path)], capture_output=True,
                          text=True, check=True).stdout.splitlines()


HONEST_LIBRARY = r'''
class Pairs(collections.abc.Mapping):
    def __init__(self, d):
        self._d = d
    def __getitem__(self, k):
        return self._d[k]
    def __iter__(self):
        return iter(self._d)
    def __len__(self):
        return len(self._d)

u = collections.UserList(["a", "b"])
u.note = "kept"  # an instance attribute that shadows nothing
assert u == ["a", "b"] and u != ["a"] and not u == ["b", "a"]
assert collections.UserDict(a=1) == {"a": 1} and collections.UserDict(a=1) != {"a": 2}
assert Pairs({"a": 1}) == {"a": 1} and not Pairs({"a": 1}) == {"a": 1, "b": 2}
print(repr(check()))
'''


def test_library_comparisons_of_honest_instances_keep_the_verdict(tmp_path):
    assert _run(tmp_path, HONEST_LIBRARY) == ["''", "''"]




SHADOWED = r'''
class Hooks:
    def __init__(self, data):
        self.data = data
        self._UserList__cast = self.give
    def give(self, other):
        return self.data

class Recipe:
    def __init__(self, data):
        self.data = data
    def give(self, other):
        return self.data
    def __reduce__(self):
        return (collections.UserList, (), {"data": self.data, "_UserList__cast": self.give})

made = functools.update_wrapper(collections.UserList(), Hooks(["a"])) if sys.argv[3] == "wraps" else \
    copy.copy(Recipe(["a"]))
made == ["anything"]
print(repr(check()))
'''


def test_a_library_comparison_asked_on_an_instance_shadowing_a_name_it_reads_is_behind_the_control(tmp_path):
    for how in ("wraps", "copy"):
        out = subprocess.run([sys.executable, "-I", "-c", HEAD + SHADOWED, str(BOOT), str(tmp_path), how],
                             capture_output=True, text=True, check=True).stdout.splitlines()
        assert out[0] == "''" and out[1].startswith("'class_changed: collections.UserList.__eq__ answers equal to two"), out


def test_a_name_a_library_comparison_reads_replaced_on_its_class_gives_no_verdict(tmp_path):
    out = _run(tmp_path, "collections.UserList._UserList__cast = lambda self, other: self.data\nprint(repr(check()))\n")
    assert out[1] == "\"class_changed: collections.UserList._UserList__cast (read by a library class's comparison: changed)\"", out


SWAPPED = r'''
tests = os.path.join(sys.argv[2], "test_it.py")
with open(tests, "w") as f:
    f.write("""
import changed


def test_swapped():
    changed.Same.__eq__ = changed.once
    assert changed.Same([1]) == [2]


def test_honest():
    x = changed.Same([1])
    assert x == [1]
    assert x != [2]
""")
boot["_judged_assertions"]()
sys.addaudithook(lambda event, args: check.operands(*args) if event == boot["OPERANDS_EVENT"] else None)  # as the hook
import pytest

class Records:
    def pytest_runtest_logreport(self, report):
        if report.when == "call":
            print(report.nodeid.split("::")[1], report.outcome, repr(check()))

pytest.main(["-q", "-p", "no:cacheprovider", "-k", sys.argv[3], tests], plugins=[Records()])
'''


def test_a_verdict_dunder_swapped_and_put_back_at_its_first_call_is_found_at_the_assertion(tmp_path):
    def run(k: str) -> list[str]:
        return [line.lstrip(".") for line in subprocess.run(
            [sys.executable, "-I", "-c", HEAD + SWAPPED, str(BOOT), str(tmp_path), k], capture_output=True,
            text=True, check=True, cwd=tmp_path).stdout.splitlines() if line.lstrip(".").startswith("test_")]

    assert run("honest") == ["test_honest passed ''"]
    assert run("swapped") == ["test_swapped passed \"class_changed: changed.Same.__eq__ (the changed code's once, not "
                              "a __eq__ defined in a class body, at a comparison)\""]


CELLS = r'''
record = check()  # the controls are kept at a record
fn = candidate.Same.__eq__
inner = fn.__closure__[0].cell_contents
for cell in inner.__closure__:
    held = cell.cell_contents
    if callable(held) and getattr(held, "__name__", "") == "other_than" and sys.argv[3] == "cell":
        cell.cell_contents = lambda value: None
        check.operands(candidate.Same([1]), [2])
        cell.cell_contents = held  # put back before the record
    if type(held).__mro__[-2] is list and sys.argv[3] == "found":
        held.append("a finding")  # as a control appends one
        held.clear()
print(repr(check()))
'''


def test_the_control_s_own_state_changed_gives_no_verdict_even_when_put_back(tmp_path):
    for how, why in (("cell", "the state of the comparison control of changed.Same was changed, at a comparison"),
                     ("found", "what the comparison control found was changed")):
        out = subprocess.run([sys.executable, "-I", "-c", HEAD + CELLS, str(BOOT), str(tmp_path), how],
                             capture_output=True, text=True, check=True).stdout.splitlines()
        assert out == ["''", repr("class_changed: " + why)], out


# Round 11 (issue 51, h-fixhook11): a library comparison's hooks from a subclass. UserList's __eq__ is
# `self.data == self.__cast(other)`: on an instance of a class that holds _UserList__cast (or __getattribute__, a
# __dict__ of its own that is no dictionary slot, or any attribute name the comparison reads) other than where it
# was at the start, the comparison is not the library's, whoever made the class (a statement of no changed file,
# abc.ABCMeta(...), type(...)) and whatever its namespace holds: it is asked behind the control.
SUBCLASSED = r'''
import abc, itertools
BOTH = []
hook = {"_UserList__cast": functools.partial(next, itertools.repeat(BOTH))}
if sys.argv[3] == "statement":
    class Same(collections.UserList):
        _UserList__cast = hook["_UserList__cast"]
elif sys.argv[3] == "inserted":  # the hook's holder put before UserList in the MRO, by multiple inheritance
    Hook = abc.ABCMeta("Hook", (), hook)
    class Same(Hook, collections.UserList):
        pass
elif sys.argv[3] == "__dict__":  # the hook in the instance's own names, hidden from a read of its __dict__
    class Same(collections.UserList):
        __dict__ = property(lambda self: {})
else:
    Same = {"abc": abc.ABCMeta, "type": type}[sys.argv[3]]("Same", (collections.UserList,), hook)
made = Same(["a"])
made.data = BOTH
if sys.argv[3] == "__dict__":
    made._UserList__cast = hook["_UserList__cast"]
print(made == ["anything"], repr(check()))
'''


def test_a_library_comparison_whose_hook_a_subclass_holds_is_behind_the_control_whoever_made_the_subclass(tmp_path):
    for how in ("abc", "type", "statement", "inserted", "__dict__"):
        out = subprocess.run([sys.executable, "-I", "-c", HEAD + SUBCLASSED, str(BOOT), str(tmp_path), how],
                             capture_output=True, text=True, check=True).stdout.splitlines()
        assert out[0] == "''" and out[1].startswith(
            "True 'class_changed: collections.UserList.__eq__ answers equal to two values that differ"), (how, out)


HONEST_SUBCLASSES = r'''
class Cast(collections.UserList):  # the hook overridden honestly: behind the control, which finds nothing
    def _UserList__cast(self, other):
        return other.data if isinstance(other, collections.UserList) else other

class Missing(collections.UserDict):
    def __missing__(self, key):
        return 0

class Items(collections.abc.Mapping):
    def __init__(self, d):
        self._d = d
    def __getitem__(self, k):
        return self._d[k]
    def __iter__(self):
        return iter(self._d)
    def __len__(self):
        return len(self._d)
    def items(self):
        return self._d.items()

class Lookup(collections.UserList):
    def __getattr__(self, name):
        raise AttributeError(name)

class Letters(collections.abc.Set):  # no __slots__: its own __dict__ slot, the interpreter's
    def __init__(self, text):
        self._t = frozenset(text)
    def __contains__(self, c):
        return c in self._t
    def __iter__(self):
        return iter(self._t)
    def __len__(self):
        return len(self._t)

assert Letters("ab") == {"a", "b"} and Letters("ab") != {"a"}
assert Cast(["a"]) == ["a"] and Cast(["a"]) != ["b"] and not Cast(["a"]) == ["a", "b"]
assert Missing(a=1) == {"a": 1} and Missing(a=1) != {"a": 2} and Missing()["x"] == 0
assert Items({"a": 1}) == {"a": 1} and not Items({"a": 1}) == {"a": 2}
assert Lookup([1]) == [1] and Lookup([1]) != [2]
print(repr(check()))
'''


def test_library_comparisons_of_honest_subclasses_overriding_a_hook_keep_the_verdict(tmp_path):
    assert _run(tmp_path, HONEST_SUBCLASSES) == ["''", "''"]


WRAPPED = r'''
import abc
with open(changed, "a") as f:
    f.write("""

def give(self, other):
    return self.data
""")
import importlib
importlib.reload(candidate)
wrap = {"partialmethod": functools.partialmethod, "singledispatchmethod": functools.singledispatchmethod,
        "cached_property": functools.cached_property, "partial": lambda f: functools.partial(f, None),
        "library": lambda f: functools.partial(len)}[sys.argv[3]]
held = wrap(candidate.give)
Same = abc.ABCMeta("Same", (collections.UserList,), {"held": held})
print(repr(check()), "__eq__" in vars(Same))  # a changed file's class: its comparison put behind the control
'''


def test_a_class_no_statement_made_holding_a_changed_def_in_a_functools_wrapper_is_the_changed_file_s(tmp_path):
    # the def is held under a name no comparison reads: only the class's being a changed file's puts its
    # comparison (UserList's, inherited) behind the control, in its own namespace, at the record
    for how in ("partialmethod", "singledispatchmethod", "cached_property", "partial", "library"):
        out = subprocess.run([sys.executable, "-I", "-c", HEAD + WRAPPED, str(BOOT), str(tmp_path), how],
                             capture_output=True, text=True, check=True).stdout.splitlines()
        assert out == ["''", "'' " + str(how != "library")], (how, out)
