"""The clones inputs' pairwise rows (inputs._pairwise) are those of the plain greedy that tests each pair
one by one: counting gains with arrays changed no input, so no task's evidence or admission moves."""

from __future__ import annotations

import random
from typing import Any

import pytest

from codewalk.domains.clones import inputs


def _one_by_one(cores: list[list[Any]], rng: random.Random, limit: int) -> list[list[Any]]:
    """The AETG-style greedy as first written: each value's gain tested pair by pair against a set."""
    k = len(cores)
    if k < 2:
        return []
    todo = [(i, a, j, b) for i in range(k) for j in range(i + 1, k)
            for a in range(len(cores[i])) for b in range(len(cores[j]))]
    rng.shuffle(todo)
    uncovered = set(todo)
    rows: list[list[Any]] = []
    at = 0
    while uncovered and len(rows) < limit:
        while todo[at] not in uncovered:
            at += 1
        i, a, j, b = todo[at]
        row: list[Any] = [None] * k
        row[i], row[j] = a, b
        rest = [p for p in range(k) if p not in (i, j)]
        rng.shuffle(rest)
        for p in rest:
            best, gain = [], -1
            for v in range(len(cores[p])):
                g = sum(((q, row[q], p, v) if q < p else (p, v, q, row[q])) in uncovered
                        for q in range(k) if row[q] is not None)
                if g > gain:
                    best, gain = [v], g
                elif g == gain:
                    best.append(v)
            row[p] = rng.choice(best)
        for p in range(k):
            for q in range(p + 1, k):
                uncovered.discard((p, row[p], q, row[q]))
        rows.append([cores[p][v] for p, v in enumerate(row)])
    return rows


TYPES = ["int", "String", "double", "boolean", "long", "char", "int[]", "String[]", "char[]", "byte"]


@pytest.mark.parametrize("k, limit", [(0, 10), (1, 10), (2, 1000), (3, 5), (5, 1000), (9, 40)])
def test_pairwise_rows_are_those_of_the_pair_by_pair_greedy(k, limit):
    for trial in range(2):
        pick = random.Random(f"{k}/{trial}")
        cores = [inputs.core(pick.choice(TYPES)) for _ in range(k)]
        assert inputs._pairwise(cores, random.Random(trial), limit) == _one_by_one(cores, random.Random(trial), limit)
