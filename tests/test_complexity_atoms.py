"""Complexity domain: atoms measured at load by their counted cost, and the atom rule that sets their labels."""

from __future__ import annotations

import pytest

from codewalk.domains.complexity import ComplexityDomain, cost, verify
from codewalk.loaders import codecomplex as loader
from codewalk.records import Atom

DOUBLE_LOOP = "n = int(input())\nc = 0\nfor i in range(n):\n    for j in range(n):\n        c += 1\nprint(c)\n"
SORT = "a = list(map(int, input().split()))\na.sort()\nprint(a[0])\n"
# log n halvings, each with a loop of log n: (log n)^2, which no label names
LOG_SQUARED = ("n = int(input())\nc = 0\nm = n\nwhile m:\n    m //= 2\n    k = n\n    while k:\n"
               "        k //= 2\n        c += 1\nprint(c)\n")


def program(src: str, label: str) -> loader.Program:
    return loader.Program("synthetic", label, src)


def test_an_atom_whose_measured_cost_is_its_label_is_kept():
    summary, payload = verify.verify(program(DOUBLE_LOOP, "quadratic"))
    assert (summary["label"], payload["label_rule"], payload["cost"]["class"]) == ("quadratic", "kept", "n^2")
    assert payload["cost"]["stopped"] == "cap"  # the runs went on until one cost more than the cap


def test_an_atom_whose_measured_cost_is_another_label_is_relabelled():
    # the sort is one line; the cost model charges it m log m, so the program is not mistaken for constant
    summary, payload = verify.verify(program(SORT, "linear"))
    assert (summary["label"], payload["stated_label"], payload["label_rule"]) == ("nlogn", "linear", "relabelled")


def test_an_atom_whose_measured_cost_has_no_label_is_dropped():
    drop = verify.verify(program(LOG_SQUARED, "logn"))
    assert isinstance(drop, verify.Drop) and drop.reason == "cost_unlabelled" and "log^2 n" in drop.detail


def test_the_counted_cost_is_the_same_on_every_run():
    first, second = (verify.measured(program(LOG_SQUARED, "logn")) for _ in range(2))
    assert first[1]["cost_points"] == second[1]["cost_points"] and len(first[1]["cost_points"]) > 30


def test_a_repeated_load_reads_the_cached_measurement(monkeypatch):
    src = program("n = int(input())\nprint(n.bit_length())\n", "logn")
    measured = verify.verify_cached(src)

    def no_runs(_):
        raise AssertionError("measured again although the measurement is cached")

    monkeypatch.setattr(verify, "measured", no_runs)
    assert verify.verify_cached(src) == measured


def test_load_reports_the_atom_rule_counts():
    kept = [(None, {"label": "nlogn"}, {"label_rule": "relabelled", "stated_label": "linear"}),
            (None, {"label": "linear"}, {"label_rule": "kept", "stated_label": "linear"})]
    drops = [verify.Drop("p", "cost_unlabelled", ""), verify.Drop("q", "read_loop", "")]
    from codewalk.domains.complexity import atom_rule_counts
    report = atom_rule_counts(kept, drops, 4)
    assert report["atom_rule"] == {"kept": 1, "relabelled": 1, "dropped": 1}
    assert report["relabelled"] == {"linear->nlogn": 1} and report["dropped"]["read_loop"] == 1


def test_a_composite_whose_cost_has_no_label_is_rejected_as_unlabelled_growth():
    summary, payload = verify.measured(program(LOG_SQUARED, "logn"))
    liar = Atom("complexity/liar", "complexity", summary, payload)  # claims logn, costs (log n)^2
    domain = ComplexityDomain()
    composite = domain.compose([liar])
    check = domain.check_reference(composite, [liar])
    assert not check.ok and check.reason == "unlabelled_growth"
    assert check.evidence["cost"]["class"] == "log^2 n" and len(check.evidence["cost"]["points"]) > 30


@pytest.mark.parametrize("src, charged", [
    ("def f(a: list[int]) -> int:\n    a.sort()\n    return 0\n", "_cw_self(a, 'mlogm').sort()"),
    ("def f(a: list[int]) -> int:\n    return sorted(a)[0]\n", "sorted(_cw_arg(a, 'mlogm'))"),
    ("def f(a: list[int]) -> bool:\n    return 3 in a\n", "3 in _cw_in(a)"),
    ("def f(s: str) -> str:\n    return s[1:]\n", "_cw_op(s[1:])"),
    ("def f(a: list[int]) -> int:\n    return max(a, 5)\n", "max(a, 5)"),  # two values, nothing walked
])
def test_the_cost_model_charges_the_c_work_a_line_hides(src, charged):
    assert charged in cost.instrument(src)


def test_the_instrumented_program_computes_what_the_program_computes():
    src = ("def f(a: list[int]) -> list[int]:\n    b = sorted(set(a))\n    a.sort()\n"
           "    return b + a[1:] * 2 + [x for x in b if x in a]\n")
    plain: dict = {}
    counted: dict = {"_cw_arg": lambda v, k: list(v) if not hasattr(v, "__len__") else v,
                     "_cw_self": lambda v, k: v, "_cw_in": lambda v: v, "_cw_op": lambda v: v}
    exec(src, plain)
    exec(cost.instrument(src), counted)
    assert counted["f"]([3, 1, 2, 3]) == plain["f"]([3, 1, 2, 3])
