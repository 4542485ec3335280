"""Round 12 (issue 51, h-redteam12a): what a class no statement made may hold as a verdict dunder is judged by what
the value was made for, not by where its code comes from. Each script runs the harness's class guard in a fresh
interpreter (tests/test_repair_comparison_judged.py's HEAD: `candidate` is a changed file's module), makes a class
by `abc.ABCMeta(name, bases, namespace)` and prints what the next record would say ('' or class_changed: ...)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_repair_comparison_judged import _run

SETUP = r'''
import abc, codecs, collections.abc, dataclasses, ipaddress, types


def made(value, base=list, key="__eq__"):
    return abc.ABCMeta("Made", (base,), {key: value})


def renamed(wrapper, name="__eq__"):
    wrapper.__name__ = name
    return wrapper

'''
REFUSED = {
    # a frozen module's function is no code made from text ("<frozen codecs>"): a generator, always true
    "a frozen module's generator function": "made(codecs.iterdecode)",
    "the same as a classmethod": "made(classmethod(codecs.iterdecode))",
    "a frozen module's function as text's __eq__ (os.path.join: a path)": "made(os.path.join, str)",
    # total_ordering's derived functions only under the name they derive
    "total_ordering's _ge_from_lt (ipaddress's __ge__) as __eq__": "made(ipaddress.IPv4Address.__ge__)",
    "total_ordering's _le_from_lt as __eq__": "made(ipaddress.IPv4Address.__le__)",
    # code made from text under another name: namedtuple's __new__ (a "<string>" lambda), as a classmethod
    "namedtuple's __new__ as __eq__": "made(classmethod(collections.namedtuple('P', 'a').__new__), tuple)",
    # a C descriptor named __eq__ is judged by what it holds: lru_cache of a frozen function, of a changed def, a
    # bound method of a changed def
    "lru_cache of codecs.iterdecode renamed __eq__": "made(renamed(functools.lru_cache(maxsize=None)("
                                                     "codecs.iterdecode)), str)",
    "lru_cache of a changed def renamed __eq__": "made(renamed(functools.lru_cache(maxsize=None)(candidate.once)), str)",
    "a bound method of a changed def": "made(types.MethodType(candidate.once, NotImplemented))",
}
KEPT = {
    "dataclasses' generated comparisons (order=True) of a class no statement made": (
        "dataclasses.dataclass(order=True)(abc.ABCMeta('D', (), {'__annotations__': {'a': int}}))"),
    "total_ordering's derived functions under their own names": (
        "functools.total_ordering(abc.ABCMeta('T', (), {'__lt__': ipaddress.IPv4Address.__lt__}))"),
    "collections.abc's documented __hash__ = Set._hash": (
        "abc.ABCMeta('S', (collections.abc.Set,), {'__hash__': collections.abc.Set._hash})"),
    "a frozen module's comparison under its own name": "made(collections.abc.Set.__le__, object, \"__le__\")",
    "lru_cache of a library's __eq__ (its own name)": "made(functools.lru_cache(maxsize=None)("
                                                       "ipaddress.IPv4Address.__eq__), object)",
    "a class inheriting a frozen module's mixins": "abc.ABCMeta('M', (collections.abc.Sequence,), {})",
}


@pytest.mark.parametrize("value", list(REFUSED.values()), ids=list(REFUSED))
def test_a_library_value_under_another_name_gives_no_verdict(tmp_path: Path, value: str):
    out = _run(tmp_path, SETUP + f"kept = {value}\nprint(repr(check()))\n")
    assert out[0] == "''" and out[-1].startswith("'class_changed"), out


@pytest.mark.parametrize("value", list(KEPT.values()), ids=list(KEPT))
def test_a_library_value_under_the_name_it_was_made_for_keeps_the_verdict(tmp_path: Path, value: str):
    out = _run(tmp_path, SETUP + f"kept = {value}\nprint(repr(check()))\n")
    assert out == ["''", "''"], out


# A class statement of a file the candidate did not change (a test module's: the tests' own classes) is judged as a
# library's: its body's values stand. A changed metaclass (or a changed base's) writes the namespace before the class
# is made, so what it puts there is "what the statement left": a library function under another name (round 12).
METACLASS = r'''
import os, runpy, sys
boot = runpy.run_path(sys.argv[1], run_name="boot")
changed = os.path.join(sys.argv[2], "changed.py")
with open(changed, "w") as f:
    f.write("""
import codecs

_EQ = "".join(reversed("__qe__"))


class _Meta(type):
    def __new__(mcs, name, bases, ns):
        if bases and VALUE:
            ns[_EQ] = codecs.iterdecode
        return super().__new__(mcs, name, bases, ns)


class Words(metaclass=_Meta):
    pass
""")
with open(os.path.join(sys.argv[2], "test_like.py"), "w") as f:
    f.write("""
import changed


class Line(changed.Words, list):
    pass
""")
check = boot["_class_guard"](frozenset([changed]))
sys.path.insert(0, sys.argv[2])
import test_like
print(repr(check()))
print(bool(test_like.Line(["x"]) == ["a", "b"]))
'''


@pytest.mark.parametrize(("value", "expected"), [("True", "class_changed"), ("False", "")])
def test_a_changed_metaclass_writing_a_tests_class_statement_is_judged_as_changed_code(tmp_path: Path, value, expected):
    import subprocess
    import sys

    from tests.test_repair_comparison_judged import BOOT

    out = subprocess.run([sys.executable, "-I", "-c", METACLASS.replace("VALUE", value), str(BOOT), str(tmp_path)],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[0].strip("'").startswith(expected) and (expected or out[0] == "''"), out
