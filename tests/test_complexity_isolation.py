"""Complexity domain: each stage of a composite keeps its own globals."""

from __future__ import annotations

import pytest

from codewalk.domains.complexity import ComplexityDomain, _program, run
from tests.shared_data import dataset, require

DATA = dataset("codecomplex", "python_test.jsonl")


@pytest.fixture(scope="module")
def atoms():
    require("codecomplex", "python_test.jsonl")
    ids = "cc-simple-test-0747,cc-simple-test-0525"
    return {a.id[-4:]: a for a in ComplexityDomain().load(DATA, {"ids": ids, "workers": 2})}


def test_a_later_stage_star_import_does_not_shadow_an_earlier_stage_builtin(atoms):
    # 0747 calls the builtin pow(x, e, mod); 0525 does `from math import *`, whose math.pow takes two
    # arguments. Merged into one namespace, 0747's pow became math.pow and the composite crashed.
    assert "from math import *" in atoms["0525"].payload["source"]
    functions, driver, names = _program([atoms["0747"], atoms["0525"]])
    assert "import *" not in functions
    results = run.run_driver(functions, driver, [(name, 0) for name in names], ["5 1000000007\n", "9 998244353\n"],
                             limit=5.0, budget=10.0, text=True)
    assert [("error" in r, "text" in r) for r in results] == [(False, True), (False, True)], results


def test_a_name_one_stage_binds_is_renamed_where_another_uses_the_builtin():
    from codewalk.records import Atom
    first = {"source": "def solve(n: int) -> int:\n    return pow(n, 2, 7)\n", "entry": "solve"}
    second = {"source": "from math import *\n\ndef solve(n: int) -> int:\n    return int(pow(n, 2)) + int(sqrt(n))\n",
              "entry": "solve"}
    base = {"params": [["n", "int"]], "size": 0, "out_form": "value"}
    group = [Atom(f"complexity/{k}", "complexity", {"in_type": "int", "out_type": "int", "label": "linear"},
                  {**base, **p}) for k, p in enumerate((first, second))]
    functions, driver, names = _program(group)
    namespace: dict = {}
    exec(functions, namespace)
    assert namespace["solve_1"](10) == 2  # the builtin three-argument pow
    assert namespace["solve_2"](9) == 84  # math.pow and math.sqrt


def test_a_stage_renamed_for_a_clash_in_one_group_is_not_renamed_in_the_next():
    # A stage's statements are cached per position; the renames one group needs must stay in that group.
    from codewalk.domains import complexity
    from codewalk.records import Atom
    base = {"params": [["n", "int"]], "size": 0, "out_form": "value"}

    def atom(k: str, source: str) -> Atom:
        return Atom(f"complexity/{k}", "complexity", {"in_type": "int", "out_type": "int", "label": "linear"},
                    {**base, "source": source, "entry": "solve"})

    step = atom("step", "K = 3\n\ndef solve(n: int) -> int:\n    return n + K\n")
    clash = atom("clash", "K = 5\n\ndef solve(n: int) -> int:\n    return n * K\n")
    plain = atom("plain", "def solve(n: int) -> int:\n    return n - 1\n")
    complexity._stage.cache_clear()
    cold = _program([plain, step])
    renamed, _, _ = _program([clash, step])
    assert "K_2 = 3" in renamed  # the clash was there to rename
    assert _program([plain, step]) == cold
    assert "K = 3" in cold[0] and "K_2" not in cold[0]
