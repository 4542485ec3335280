"""Every reason a task or a grade can give is a member of codewalk.records.Reason.

The reasons are stored and counted as strings, so a bare string at a place that gives a reason would
work until a typo or a rename split one reason into two. This scans the package's source: wherever a
reason is given (a Check's reason, a Rejected's, a guard's Refused's, an admission Verdict's, a Task's,
a variable or field named `reason`), no string literal may stand: only Reason members (which mypy checks
exist) or values passed on from another such place.
"""

from __future__ import annotations

import ast
from pathlib import Path

import codewalk
from codewalk.records import Reason

PACKAGE = Path(codewalk.__file__).parent
# the constructors that take a reason, and its position when it is passed positionally
REASON_AT = {"Check": 3, "Rejected": 0, "Refused": 1, "Verdict": 1}
TAKES_REASON_KEYWORD = {*REASON_AT, "Task"}


def _literals(node: ast.expr) -> list[ast.Constant]:
    """The string literals an expression can evaluate to (through `x if c else y` and `a or b`)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node] if node.value else []  # "": no reason (a Check that passed)
    if isinstance(node, ast.IfExp):
        return _literals(node.body) + _literals(node.orelse)
    if isinstance(node, ast.BoolOp):
        return [c for v in node.values for c in _literals(v)]
    return []


def bare_reasons(source: str) -> list[tuple[int, str]]:
    """(line, literal) of each string literal given as a reason in a module's source."""
    found = []
    for node in ast.walk(ast.parse(source)):
        given: list[ast.expr] = []
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name in REASON_AT and len(node.args) > REASON_AT[name]:
                given.append(node.args[REASON_AT[name]])
            if name in TAKES_REASON_KEYWORD:
                given += [k.value for k in node.keywords if k.arg == "reason"]
        elif isinstance(node, ast.Assign):
            if any(isinstance(t, ast.Name | ast.Attribute) and _named_reason(t) for t in node.targets):
                given.append(node.value)
        elif isinstance(node, ast.AnnAssign) and node.value is not None and _named_reason(node.target):
            given.append(node.value)
        found += [(c.lineno, c.value) for expr in given for c in _literals(expr)]
    return found


def _named_reason(target: ast.expr) -> bool:
    return (isinstance(target, ast.Name) and target.id == "reason") or \
        (isinstance(target, ast.Attribute) and target.attr == "reason")


def test_no_place_in_the_package_gives_a_reason_as_a_bare_string():
    bare = [f"{path.relative_to(PACKAGE.parent)}:{line}: {value!r}"
            + ("" if value in set(Reason) else " (not a Reason value)")
            for path in sorted(PACKAGE.rglob("*.py")) if "loaders" not in path.parts
            for line, value in bare_reasons(path.read_text(encoding="utf-8"))]
    assert not bare, "use the Reason member (add one for a new reason):\n" + "\n".join(bare)


def test_the_scan_finds_a_bare_reason_wherever_one_can_be_given():
    source = '''
raise Rejected("empty_group", "no atoms")
Check(False, "why", {}, "bypass")
Check(False, "why", {}, reason="a" if x else "b")
Refused("why", "malformed_candidate")
reason = "cost_unstable"
self.reason = "typo_reason"
Check(False, "fine", {}, Reason.BYPASS)
Check(True, "passed", {}, "")
'''
    assert sorted(bare_reasons(source)) == [(2, "empty_group"), (3, "bypass"), (4, "a"), (4, "b"),
                                   (5, "malformed_candidate"), (6, "cost_unstable"), (7, "typo_reason")]


def test_each_reason_value_has_one_member_and_is_a_snake_case_name():
    assert len(Reason.__members__) == len(Reason)  # two names for one value would be an alias
    assert all(r.value.isidentifier() and r.value == r.value.lower() for r in Reason)
