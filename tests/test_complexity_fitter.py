"""Complexity domain: the size fitter separates the classes, including a constant plus log n."""

from __future__ import annotations

import math
import random

import pytest

from codewalk.domains.complexity.growth import FIT_CLASSES, Growth, agrees, fit, label

SCALES = [2, 3, 4, 6, 8, 11, 16, 23, 32, 45, 64, 91, 128, 181, 256, 362, 512, 724, 1024, 1448, 2048]


def points(f):
    return [(n, f(n)) for n in SCALES]


@pytest.mark.parametrize("expected, f", [
    ("1", lambda n: 3),
    ("log n", lambda n: math.log2(n)),
    ("log n", lambda n: len(f"0 0 {n}")),  # a constant plus the digits of n
    ("log n", lambda n: 40 + 3 * n.bit_length()),  # a large constant plus log n
    ("log^2 n", lambda n: math.log2(n) ** 2),
    ("log^3 n", lambda n: math.log2(n) ** 3),
    ("n", lambda n: n),
    ("n", lambda n: 2 * n + 7),
    ("n log n", lambda n: n * math.log2(n)),
    ("n^2", lambda n: n * n),
    ("n^3", lambda n: n ** 3),
    ("2^n", lambda n: 2.0 ** n if n < 997 else 1e300),  # capped as the harness caps
])
def test_fit_separates_every_class_including_a_constant_plus_log_n(expected, f):
    fitted, _ = fit(points(f))
    assert str(fitted) == expected


def test_n_log_n_and_n_are_not_confused_either_way():
    assert str(fit(points(lambda n: n * math.log2(n)))[0]) == "n log n"
    assert str(fit(points(lambda n: 5 * n + 100))[0]) == "n"


def test_polylogarithms_are_fitted_but_have_no_label():
    fitted, _ = fit(points(lambda n: math.log2(n) ** 2))
    assert fitted == Growth(l=2) and label(fitted) is None
    assert list(FIT_CLASSES) == sorted(FIT_CLASSES)  # the simplest class is tried first


def test_a_size_that_stops_rising_is_constant():
    assert str(fit(points(lambda n: min(n, 5)))[0]) == "1"


@pytest.mark.parametrize("f, expected", [
    (lambda n, r: len(f"0 0 {n}") + r.choice((0, 1)), "log n"),
    (lambda n, r: n * math.log2(n) * r.uniform(0.9, 1.1), "n log n"),
    (lambda n, r: n * r.uniform(0.8, 1.25), "n"),
    (lambda n, r: r.randint(0, 9), "1"),
])
def test_fit_is_stable_over_repeated_noisy_samples(f, expected):
    answers = set()
    for seed in range(20):
        rng = random.Random(seed)
        answers.add(str(fit([(n, f(n, rng)) for n in SCALES])[0]))
    assert answers == {expected}


# -- counted costs on the measurement's own sizes: n = 2^e, numbers up to 2^4096, runs stop at the cap --------
def counted(cost, number=True):
    """[e, cost] as a measurement records them: ascending sizes until one costs more than the cap."""
    from codewalk.domains.complexity.measure import COST_CAP, EXPONENTS, NUMBER_EXPONENTS
    points = []
    for e in EXPONENTS + (NUMBER_EXPONENTS if number else ()):
        c = cost(e)  # e = log2 n
        if c > COST_CAP:
            break
        points.append([e, c])
    return points


@pytest.mark.parametrize("expected, cost, number", [
    ("1", lambda x: 17, True),
    ("log n", lambda x: 4 * x, True),  # halving n until it is 0
    ("log n", lambda x: 60 + x, True),  # a constant plus log n: not constant, however large the constant
    ("log^2 n", lambda x: 2 * x * x, True),  # a loop of log n inside a loop of log n
    ("log^2 n", lambda x: 30 + x * x / 2, True),
    ("n", lambda x: 3 * 2 ** x + 10, True),  # linear in the value of n
    ("n", lambda x: 5 * 2 ** x, False),
    ("n log n", lambda x: 2 ** x * x, False),
    ("n log n", lambda x: 2 ** x * (x + 3), False),
    ("n log n", lambda x: 2 ** x * (x + 10), False),  # a sort and a linear pass of ten steps an element
    ("n^2", lambda x: 4 ** x / 2, False),
    ("n^2", lambda x: 4 ** x / 2 + 5 * 2 ** x * x, False),  # pairs, after a sort
    ("n^3", lambda x: 8 ** x / 6 + 4 ** x, False),
    ("None", lambda x: 2 ** (1.5 * x), False),  # n^1.5: no lower term bends n^2 or n log n to it
    ("2^n", lambda x: 2.0 ** (2 ** x), True),
])
def test_counted_costs_on_the_measurement_sizes_fit_their_class(expected, cost, number):
    from codewalk.domains.complexity.measure import fit_points
    fitted, _ = fit_points(counted(cost, number))
    assert str(fitted) == expected


def test_numbers_beyond_a_float_are_fitted_in_log_space():
    from codewalk.domains.complexity.measure import scale_of
    assert scale_of(4096) == 2 ** 4096 and scale_of(2.5) == 6
    points = [(scale_of(e), 3 * e) for e in (8, 16, 64, 256, 512, 1024, 2048, 4096)]
    assert str(fit(points)[0]) == "log n"


def test_a_chained_value_measured_at_no_size_agrees_with_nothing_and_does_not_crash():
    """A composite whose first run fails on some seed's inputs leaves no size of the value it passes on:
    check (2) must reject it, not stop on an empty fit (found by measuring on a second seed)."""
    assert agrees([], Growth(l=2)) == (False, None)
