"""CodeComplex loader: stdin/stdout programs become typed entry functions (AST only, no sandbox)."""

from __future__ import annotations

import json
import random
import re

import pytest

from codewalk.domains.complexity.extract import extract
from codewalk.domains.complexity.inputs import generate, randints
from codewalk.domains.complexity.reads import Unsupported
from codewalk.errors import InputError
from codewalk.loaders.codecomplex import read
from tests.shared_data import dataset, require

DATA = dataset("codecomplex", "python_test.jsonl")


def entry(src: str):
    """The extraction and its entry function, run in this process (the programs here are ours)."""
    ex = extract(src)
    space: dict = {}
    exec(ex.source, space)
    return ex, space[ex.entry]


def test_count_then_list_becomes_one_list_parameter():
    ex, solve = entry("n = int(input())\na = list(map(int, input().split()))\nprint(sum(a) * n)\n")
    assert ex.params == [("a", "list[int]")] and ex.size == 0 and ex.out_form == "value"
    assert "def solve(a: list[int]):\n    n = len(a)\n    return sum(a) * n" in ex.source
    assert solve([1, 2, 3]) == 18


def test_grid_rows_and_a_width_scalar():
    ex, solve = entry("n, m = map(int, input().split())\ng = [input() for _ in range(n)]\n"
                      "print(sum(r.count('*') for r in g) + m)\n")
    assert ex.params == [("m", "int"), ("g", "list[str]")] and ex.size == 1  # n became len(g)
    assert solve(3, ["*.*", "..."]) == 5


def test_loop_of_reads_becomes_rows_iterated_in_place():
    ex, solve = entry("n = int(input())\ndeg = [0] * (n + 1)\nfor i in range(n - 1):\n"
                      "    u, v = map(int, input().split())\n    deg[u] += i\n    deg[v] += 1\n"
                      "print(max(deg))\n")
    assert ex.params == [("n", "int"), ("rows", "list[list[int]]")] and ex.size == 0
    assert "for i, (u, v) in enumerate(rows):" in ex.source
    assert ex.items[1].count == "len(range(n - 1))" and ex.items[1].width == "2"
    assert solve(3, [[1, 2], [2, 3]]) == 2


def test_reader_aliases_and_main_function_are_inlined_and_prints_return():
    ex, solve = entry(
        "import sys\ninput = sys.stdin.readline\nI = lambda: int(input())\n"
        "def main():\n    s = input().strip()\n    k = I()\n    if k > len(s):\n        print(-1)\n"
        "        return\n    print(s[:k])\n\nif __name__ == '__main__':\n    main()\n")
    assert ex.params == [("s", "str"), ("k", "int")] and ex.size == 1  # n is the first int read
    assert "sys" not in ex.source and "main" not in ex.source
    assert (solve("abc", 5), solve("abc", 2)) == (-1, "ab")


def test_print_then_exit_anywhere_and_print_before_break_of_a_last_loop_return():
    ex, solve = entry("n = int(input())\nfor i in range(2, n):\n    if n % i == 0:\n        print(i)\n"
                      "        exit()\nfor j in range(3):\n    if j * j == n:\n        print('square')\n"
                      "        break\nelse:\n    print(n)\n")
    assert ex.out_form == "value" and "print" not in ex.source
    assert (solve(15), solve(7), solve(1)) == (3, 7, 'square')


def test_several_prints_are_collected_into_the_returned_text():
    ex, solve = entry("n = int(input())\nfor i in range(n):\n    print(i, end=' ')\nprint()\n")
    assert ex.out_form == "text" and "file=out" in ex.source
    assert solve(3) == "0 1 2 \n"


def test_print_star_returns_a_list():
    ex, solve = entry("a = list(map(int, input().split()))\nprint(*sorted(a))\n")
    assert ex.out_form == "spread" and solve([3, 1, 2]) == [1, 2, 3]


def test_names_helpers_share_stay_global_even_when_they_are_parameters():
    ex, solve = entry("def f(x):\n    return x + k\nk, n = map(int, input().split())\nprint(f(n))\n")
    assert re.search(r"def solve\(k_: int, n: int\):\n    global k\n    k = k_\n", ex.source)
    assert solve(2, 5) == 7


def test_unreachable_helpers_and_imports_are_dropped():
    ex, _ = entry("import math, os\nfrom collections import Counter\ndef unused():\n    return 1\n"
                  "n = int(input())\nprint(math.isqrt(n))\n")
    assert ex.source.startswith("import math\n\ndef solve(") and "unused" not in ex.source


@pytest.mark.parametrize("src, reason", [
    ("n = int(input())\nwhile n:\n    n = int(input())\nprint(n)\n", "read_in_while"),
    ("def r():\n    x = 1\n    return int(input()) + x\nprint(r())\n", "read_in_helper"),
    ("def out(x):\n    print(x)\nout(int(input()))\n", "print_in_helper"),
    ("print(42)\n", "no_reads"),
    ("import sys\ndata = sys.stdin.read().split()\nprint(len(data))\n", "unsupported_input"),
    ("t = int(input())\nfor _ in range(t):\n    n = int(input())\n    a = input()\n    print(n)\n",
     "read_loop"),
    ("n = int(input())\nif n > 1:\n    m = int(input())\nprint(n)\n", "conditional_read"),
    ("n = int(input()\n", "syntax_error"),
])
def test_programs_outside_the_rewrite_are_refused_with_a_reason(src, reason):
    with pytest.raises(Unsupported) as caught:
        extract(src)
    assert caught.value.reason == reason


# -- real CodeComplex programs -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def programs():
    require("codecomplex", "python_test.jsonl")
    return {p.id: p for p in read(DATA)}


def test_known_programs_extract_to_their_expected_signatures(programs):
    beacons = extract(programs["cc-simple-test-0550"].src)  # n, then n lines "a b"
    assert beacons.params == [("rows", "list[list[int]]")] and beacons.out_form == "value"
    assert "    n = len(rows)\n" in beacons.source and "for i, (a, b) in enumerate(rows):" in beacons.source
    heap = extract(programs["cc-simple-test-0548"].src)  # n k, then two lists, print(*an)
    assert heap.params == [("k", "int"), ("p", "list[int]"), ("c", "list[int]")] and heap.size == 1
    assert heap.out_form == "spread" and heap.source.startswith("from heapq import *\n")
    substrings = extract(programs["cc-simple-test-0717"].src)  # a string; print and break in a last loop
    assert substrings.params == [("a", "str")] and "return i" in substrings.source


def test_the_whole_dataset_reads_and_most_programs_extract(programs):
    assert len(programs) == 490
    extracted = 0
    for program in programs.values():
        try:
            extract(program.src)
            extracted += 1
        except Unsupported:
            pass
    assert extracted >= 350  # 380 when this was written; the rest are dropped with a reason


def _lines(tmp_path, *lines):
    path = tmp_path / "cc.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


GOOD = json.dumps({"id": "p1", "src": "print(int(input()))", "complexity": "constant"})


@pytest.mark.parametrize("bad, reason", [
    ('{"id": ', "not valid JSON"),
    ("[1]", "not a JSON object"),
    (json.dumps({"id": "p2", "src": "x"}), "missing field(s): complexity"),
    (json.dumps({"id": "p2", "src": "x", "complexity": "exponential"}), "is not one of"),
    (GOOD, "duplicate id"),
])
def test_malformed_record_is_an_input_error_naming_its_line(tmp_path, bad, reason):
    path = _lines(tmp_path, GOOD, "", bad)
    with pytest.raises(InputError, match=re.escape(reason)) as caught:
        read(path)
    assert (caught.value.source, caught.value.where) == (str(path), 3)


# -- inputs --------------------------------------------------------------------------------------------------
def test_generated_input_matches_the_arguments_and_keeps_counts_consistent():
    ex = extract("n, k = map(int, input().split())\na = list(map(int, input().split()))\n"
                 "e = [list(map(int, input().split())) for _ in range(k)]\nprint(n)\n")
    assert ex.params == [("a", "list[int]"), ("e", "list[list[int]]")]  # n = len(a), k = len(e)
    stdin, args = generate(ex.as_payload(), 5, "scaled", random.Random(0))
    a, e = args
    lines = stdin.splitlines()
    assert lines[0] == f"5 {len(e)}" and len(a) == 5 and lines[1] == " ".join(map(str, a))
    assert all(len(row) == 2 for row in e) and lines[2:] == [" ".join(map(str, r)) for r in e]
    skipped, _ = generate(ex.as_payload(), 5, "scaled", random.Random(0), skip="a")
    assert " ".join(map(str, a)) not in skipped.splitlines()


@pytest.mark.parametrize("high", [1, 2, 3, 9, 1000, 2**13, 2**20 + 7])
def test_drawing_many_ints_at_once_draws_what_randint_draws(high):
    """Inputs, and so every measured label, depend on these values: the batch draw must equal
    randint(1, high) call by call, and leave the generator where randint leaves it."""
    ours, theirs = random.Random(high), random.Random(high)
    assert randints(ours, high, 500) == [theirs.randint(1, high) for _ in range(500)]
    assert ours.random() == theirs.random()


def test_drawing_from_an_empty_range_is_refused_not_an_endless_loop():
    assert randints(random.Random(0), 0, 0) == []
    with pytest.raises(ValueError, match="empty range"):
        randints(random.Random(0), 0, 3)
