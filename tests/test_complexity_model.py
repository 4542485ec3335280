"""The size model of complexity tasks (held-out audit, round 3): the prompt says what n is and how the
other inputs grow with it; a chain whose reference hangs on a value bounded by a constant (taken modulo
998244353) or on an input the model holds to a constant is rejected at composition.

The modulus analysis is static (source text in, modulus out); the chains are real atoms, extracted,
checked against their programs and measured in the sandbox as `cw load` does."""

from __future__ import annotations

import json

import pytest

from codewalk.domain import Rejected
from codewalk.domains import complexity
from codewalk.domains.complexity import INSTRUCTION, ComplexityDomain, extract, model, value_inputs, verify
from codewalk.loaders import codecomplex as loader
from codewalk.records import Atom
from tests.shared_data import dataset, require

DATA = dataset("codecomplex", "python_test.jsonl")


def atom(name: str, src: str, label: str = "linear") -> Atom:
    verified = verify.verify(loader.Program(name, label, src))
    assert not isinstance(verified, verify.Drop), verified
    summary, payload = verified
    return Atom(f"complexity/{name}", "complexity", summary, payload)


# -- values bounded by a constant ------------------------------------------------------------------------------
@pytest.mark.parametrize("source, expected", [
    ("MOD = 998244353\ndef solve(a):\n    s = 0\n    for x in a:\n        s = (s + x * x) % MOD\n    return s\n",
     "MOD"),
    ("def solve(n):\n    return n * n % (10 ** 9 + 7)\n", "10 ** 9 + 7"),
    ("def norm(x):\n    return x % 998244353\n\ndef solve(n):\n    ans = norm(n * n)\n    return ans\n", "998244353"),
    ("mod, bits = 998244353, [1, 2]\ndef solve(n):\n    dp = [1] * (n + 1)\n    for i in range(1, n + 1):\n"
     "        dp[i] = dp[i - 1] * 2 % mod\n    return dp[-1]\n", "mod"),
    ("M = 7\ndef solve(n):\n    if n < 2:\n        return 0\n    r = n\n    r %= M\n    return r\n", "M"),
])
def test_a_result_reduced_modulo_a_constant_is_bounded(source, expected):
    assert model.modulus(source, "solve") == expected


@pytest.mark.parametrize("source", [
    "MOD = 7\ndef solve(n):\n    if n > 5:\n        return n * n\n    return n % MOD\n",  # one return unreduced
    "def solve(n, m):\n    return n * n % m\n",  # the modulus is an input
    "MOD = 7\nMOD = 8\ndef solve(n):\n    return n % MOD\n",  # bound twice: not a constant
    "def solve(n):\n    def f(x):\n        return x % 7\n    return f(n) + n\n",  # a nested function's return
    "def solve(n):\n    return 5\n",  # a constant: the measured growth says so already
])
def test_a_result_not_always_reduced_by_a_constant_is_not_bounded(source):
    assert model.modulus(source, "solve") is None


def test_the_modulus_of_a_codecomplex_program_is_found_through_its_helper():
    require("codecomplex", "python_test.jsonl")
    rows = {r["id"]: r for r in map(json.loads, DATA.read_text().splitlines())}
    ex = extract.extract(rows["cc-simple-test-0670"]["src"])  # ans = norm(ans * 2); norm: % 998244353
    assert model.modulus(ex.source, ex.entry) == "998244353"


@pytest.fixture(scope="module")
def counted() -> Atom:
    # its result grows linearly wherever it is measured (n <= 2^16), and stays below 998244353 for any n
    return atom("counted", "a = list(map(int, input().split()))\nprint(len(a) * 3 % 998244353)\n")


@pytest.fixture(scope="module")
def counter() -> Atom:
    return atom("counter", "n = int(input())\ns = 0\nfor i in range(n):\n    s += i % 3\nprint(s)\n")


def test_a_chain_through_a_value_reduced_modulo_a_constant_is_rejected(counted, counter):
    assert counted.payload["growth"] == "linear"  # what the old rule chained on
    with pytest.raises(Rejected) as caught:
        ComplexityDomain().compose([counted, counter])
    assert caught.value.reason == "bounded_link" and "998244353" in caught.value.detail
    assert not list(ComplexityDomain().edges([counted, counter]))  # and the relation has no such edge


# -- inputs that are not sizes -----------------------------------------------------------------------------------
def test_a_chain_whose_stage_1_holds_an_input_to_a_constant_is_rejected(counter):
    # with k up to n (the scaled model) 1 << (1 << (1 << k)) does not fit in memory: the generator keeps
    # k in 1..3, the model says so, and a later stage would see a value computed under that bound
    shifted = atom("shifted", "n, k = map(int, input().split())\nx = 0\nfor i in range(n):\n    x += 1\n"
                   "print(x + (1 << (1 << (1 << k))) % 3)\n")
    assert shifted.payload["strategy"] == "small" and model.unscaled_inputs(shifted.payload) == ["k"]
    with pytest.raises(Rejected) as caught:
        ComplexityDomain().compose([shifted, counter])
    assert caught.value.reason == "unscaled_input" and "k" in caught.value.detail
    assert "between 1 and 3, whatever n" in ComplexityDomain().compose([shifted]).prompt  # alone: stated


def test_a_link_that_grows_only_with_an_int_besides_n_is_an_input_that_is_not_a_size():
    # cc-simple-test-0960 is str(m % (1 << n)): log n digits while m <= n, up to n digits for an unbounded m;
    # a logn chain through it was linear (held-out audit, round 3)
    require("codecomplex", "python_test.jsonl")
    row = next(r for r in map(json.loads, DATA.read_text().splitlines()) if r["id"] == "cc-simple-test-0960")
    first = atom("0960", row["src"], row["complexity"])
    assert first.payload["growth"] == "logn" and model.other_ints(first.payload) == ["m"]
    why = value_inputs(first)
    assert why and "grows like logn with m drawn up to n, and like constant with it held in 1..3" in why


def test_check_2_rejects_a_chain_through_a_value_input_before_running_it(monkeypatch):
    # the audit's chain: m's digits (log n under the model) counted by a linear stage: "logn"
    digits = atom("digits", "n, m = map(int, input().split())\nprint(str(m % (1 << n)))\n", "constant")
    count = atom("count", "s = input()\nt = 0\nfor c in s:\n    t += 1\nprint(t)\n")
    group = [digits, count]
    domain = ComplexityDomain()
    composite = domain.compose(group)
    assert composite.reference == "logn" and domain.check_unsolved(composite, group, 0).ok  # check (1) passes
    monkeypatch.setattr(complexity, "measure_composite", lambda *_: pytest.fail("the composite must not run"))
    check = domain.check_reference(composite, group)
    assert (check.ok, check.reason) == (False, "value_input") and "held in 1..3" in check.detail


# -- the prompt --------------------------------------------------------------------------------------------------
def test_the_prompt_states_what_n_is_and_how_the_other_inputs_grow_with_it(counter):
    pair = atom("pair", "n, k = map(int, input().split())\nprint(n + k)\n", "constant")
    assert pair.payload["strategy"] == "scaled"
    prompt = ComplexityDomain().compose([pair, counter]).prompt
    assert prompt.endswith(INSTRUCTION)
    stated = prompt.split("```\n\n", 1)[1]
    assert "n is the value of the integer `n` the program reads first" in stated
    assert "every other integer read (`k`) is between 1 and n" in stated


def test_a_list_input_is_stated_with_its_length_and_value_range(counted):
    stated = model.describe(counted.payload)
    assert "n is the number of elements of `a`" in stated
    assert "the integers in lists and rows are between 1 and n" in stated
