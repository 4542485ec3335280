"""Growth classes for the complexity domain: fitting measured sizes, and the derivation algebra.

A class is n^p (log n)^l (log log n)^ll, or exponential, 2^(n^p). The seven labels of CodeComplex are
the classes constant, logn, linear, nlogn, quadratic, cubic and (any) exponential ("np"). A chain's
reference is derived by substituting each stage's input size, itself the composed output growth of the
stages before it, into the stage's label: an nlogn stage fed n^2 elements costs n^2 log n.

The rule for results outside the seven labels: they are not rounded to a neighbour. A polynomial or
logarithmic class that is not one of the six polynomial labels (n^2 log n, n^4, log^2 n, log log n,
...) has no label the prompt allows, and a composition whose class cannot be determined (an exponential
stage fed a logarithmic size, whose base then matters) has no answer; both are rejected by compose.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

LABELS = ("constant", "logn", "linear", "nlogn", "quadratic", "cubic", "np")


class Indeterminate(ValueError):
    """A composition whose class the algebra cannot determine (the base of an exponential matters)."""


@dataclass(frozen=True, order=True)
class Growth:
    """n^p (log n)^l (log log n)^ll when exp is 0; 2^(Theta(n^p)) when exp is 1. Ordered by magnitude."""

    exp: int = 0
    p: int = 0
    l: int = 0  # noqa: E741 (the exponent of log n, as in n^p log^l n)
    ll: int = 0

    def __str__(self) -> str:
        if self.exp:
            return "2^n" if self.p == 1 else f"2^(n^{self.p})"
        parts = [f"n^{self.p}" if self.p > 1 else "n"] if self.p else []
        parts += [f"log^{self.l} n" if self.l > 1 else "log n"] if self.l else []
        parts += [f"(log log n)^{self.ll}" if self.ll > 1 else "log log n"] if self.ll else []
        return " ".join(parts) or "1"

    @property
    def constant(self) -> bool:
        return self == CONSTANT

    def of(self, inner: Growth) -> Growth:
        """This class applied to a size that grows like `inner`: f(g(n)) (of a size below any power of
        log n, an upper bound that decides no label: see the end)."""
        if inner.constant:
            return CONSTANT
        if self.exp:  # 2^(m^p) with m = inner
            if inner.exp or inner.p == 0:
                raise Indeterminate(f"{self} of {inner}: the base of the exponential decides the class")
            return Growth(exp=1, p=self.p * inner.p)
        if inner.exp:  # m = 2^(n^q): m^p is exponential, log m = n^q, log log m = q log n
            if self.p:
                return Growth(exp=1, p=inner.p)
            return Growth(p=inner.p * self.l, l=self.ll)
        # m = n^q log^k n loglog^j n: log m ~ log n when q > 0, ~ loglog n when q == 0 and k > 0.
        if self.ll and inner.p == 0:
            raise Indeterminate(f"{self} of {inner}: a log log log n term")
        if inner.p:
            return Growth(p=self.p * inner.p, l=self.p * inner.l + self.l, ll=self.p * inner.ll + self.ll)
        if inner.l:
            return Growth(p=0, l=self.p * inner.l, ll=self.p * inner.ll + self.l)
        # m = (log log n)^j: a constant stays constant; otherwise m^p (log m)^l, whose log log log n factor
        # the class cannot state, is bounded by (log log n)^(p j + l). Bound and exact class both lie strictly
        # between the constant and log n, where no label is, so the bound never changes a chain's label: the
        # largest cost is either a labelled one above it, or below log n and then unlabelled either way.
        return Growth(ll=self.p * inner.ll + self.l) if self.p or self.l else CONSTANT


CONSTANT = Growth()
LINEAR = Growth(p=1)
EXPONENTIAL = Growth(exp=1, p=1)
_BY_LABEL = {
    "constant": CONSTANT, "logn": Growth(l=1), "linear": LINEAR, "nlogn": Growth(p=1, l=1),
    "quadratic": Growth(p=2), "cubic": Growth(p=3), "np": EXPONENTIAL,
}


def growth(label: str) -> Growth:
    try:
        return _BY_LABEL[label]
    except KeyError:
        raise ValueError(f"unknown label {label!r}; labels: {', '.join(LABELS)}") from None


def label(g: Growth) -> str | None:
    """The label of a class, or None when the seven labels have none for it (any exponential is np)."""
    if g.exp:
        return "np"
    return next((name for name, c in _BY_LABEL.items() if c == g), None)


@dataclass(frozen=True)
class Derivation:
    """The end-to-end class of a chain and the steps that lead to it."""

    links: tuple[Growth, ...]  # size of the value stage i hands to stage i+1, in n
    sizes: tuple[Growth, ...]  # input size of each stage, in the chain's input size n (links, after n)
    costs: tuple[Growth, ...]  # each stage's cost in n
    total: Growth  # the largest cost
    label: str | None  # None: outside the seven labels

    def explain(self) -> list[str]:
        return [f"stage {i}: input size {s}, cost {c}"
                for i, (s, c) in enumerate(zip(self.sizes, self.costs, strict=True), 1)]


def derive(labels: Sequence[str], outputs: Sequence[Growth]) -> Derivation:
    """Derive a chain's class from each stage's label and the growth of its output in its input size.

    Stage 1 reads the program input, of size n. Stage i > 1 takes only the value stage i-1 returns,
    whose size is outputs[i-2] applied to stage i-1's input size. Each stage costs its label applied
    to its input size; the chain costs the largest of these. Raises Indeterminate when a composition
    has no determined class.
    """
    if len(labels) != len(outputs) + 1:
        raise ValueError("need one label per stage and one output growth per link")
    size = LINEAR
    links, sizes, costs = [], [], []
    for i, name in enumerate(labels):
        if i:
            size = outputs[i - 1].of(size)
            links.append(size)
        sizes.append(size)
        costs.append(growth(name).of(size))
    total = max(costs)
    return Derivation(tuple(links), tuple(sizes), tuple(costs), total, label(total))


# -- fitting measured sizes ----------------------------------------------------------------------------
# The closed set a measured growth is fitted to, simplest first: the seven labels and the polylogarithms
# (log n)^2 and (log n)^3, which have no label (a chain whose cost measures like them is not admitted).
FIT_CLASSES = tuple(sorted({*_BY_LABEL.values(), Growth(l=2), Growth(l=3)}))
MIN_POINTS = 6  # fewer sizes than this do not tell classes apart (4 points fit log n and n^2 alike)
SATURATED = 1e300  # sizes are reported as floats capped here; a capped size says nothing about growth
COST_MARGIN = 0.002  # n log n + 10n over n <= 2^16 is 0.01 worse as n than as n log n
MAX_ERROR = 0.05  # mean squared error in log(1 + size) of an acceptable fit: about a factor 1.25 off


def fit(points: Sequence[tuple[float, float]], margin: float = 0.02) -> tuple[Growth | None, float]:
    """The class of the closed set that best explains size s at input size n, and the fit's error.

    Each class f is fitted as s ~ a + b h(n) + c f(n), a, b >= 0, c > 0, with h the next smaller term (a
    constant plus log n, like the length of f"0 0 {n}", is log n, not constant; n log n + 3n is n log n)
    and scored by the mean squared error in log(1 + s); the simplest class within `margin` (plus a
    tenth) of the best wins, so noise does not promote a constant to a logarithm. Counted costs have
    no measurement noise and take a smaller margin (COST_MARGIN).
    Constant: sizes that do not rise with n (bounded noise like a digit) or that stop rising (the larger
    half of the sizes all equal). None when there are too few points or nothing fits well.
    """
    pts = sorted((n, max(0.0, float(s))) for n, s in points if n >= 2 and s < SATURATED)
    if len({n for n, _ in pts}) < MIN_POINTS:
        return None, math.inf
    raw = [math.log1p(s) for _, s in pts]
    # A running median of three drops a lone outlier, one unlucky random input.
    ys = [sorted(raw[max(0, k - 1):k + 2])[len(raw[max(0, k - 1):k + 2]) // 2] for k in range(len(raw))]
    half = ys[len(ys) // 2:]
    sizes = [s for _, s in pts]
    third = max(1, len(sizes) // 3)
    # No trend: the larger sizes are on average no larger than the largest of the smallest (a digit).
    no_rise = sum(sizes[-third:]) / third <= max(sizes[:third])
    if _rank_correlation(sizes) < 0.7 or no_rise or max(half) - min(half) < 1e-9 or ys[-1] - ys[0] < 0.05:
        return CONSTANT, 0.0
    pts, ys = _tail(pts), _tail(ys)
    scored = [(g, _error(g, pts, ys) if _slope_fits(g, pts) else math.inf) for g in FIT_CLASSES if not g.constant]
    best = min(e for _, e in scored)
    for g, e in scored:  # FIT_CLASSES runs from the simplest class up
        if e <= best + margin + 0.1 * best:
            return (g, e) if e < MAX_ERROR else (None, e)
    raise AssertionError("unreachable")


def agrees(points: Sequence[tuple[float, float]], expected: Growth) -> tuple[bool, Growth | None]:
    """Whether measured sizes grow like `expected`, and the class they fit. A class outside the closed
    set (n^4, log^2 n, ...) agrees when it explains the points about as well as the best of the set."""
    fitted, best = fit(points)
    if fitted == expected or expected in FIT_CLASSES or expected.exp:
        return fitted == expected or bool(expected.exp and fitted == EXPONENTIAL), fitted
    pts = _tail(sorted((n, max(0.0, float(s))) for n, s in points if n >= 2 and s < SATURATED))
    if not pts:  # nothing measured (the first run already failed), or every size saturated
        return False, fitted
    error = _error(expected, pts, [math.log1p(s) for _, s in pts])
    return error <= best + 0.02 + 0.1 * best and error < MAX_ERROR, fitted


def _rank_correlation(values: list[float]) -> float:
    """Spearman's rho between position (the points are sorted by n) and value, ties ranked by their mean."""
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    k = 0
    while k < len(order):
        j = k
        while j + 1 < len(order) and values[order[j + 1]] == values[order[k]]:
            j += 1
        for m in range(k, j + 1):
            ranks[order[m]] = (k + j) / 2
        k = j + 1
    n = len(values)
    mean = (n - 1) / 2
    cov = sum((i - mean) * (r - mean) for i, r in enumerate(ranks))
    var_i = sum((i - mean) ** 2 for i in range(n))
    var_r = sum((r - mean) ** 2 for r in ranks)
    return cov / (var_i * var_r) ** 0.5 if var_r else 0.0


def _tail(xs: list) -> list:
    """The larger half of the sizes (at least MIN_POINTS): growth is asymptotic, and at the smallest sizes additive
    terms (n(n-1)(n-2)/6 is 0 at n = 2) distort it."""
    return xs[-max(MIN_POINTS, -(-len(xs) // 2)):]


def _log_value(g: Growth, x: float) -> float:
    """ln f(n) for x = log2 n, so that n may be far beyond a float (a number of 4096 bits)."""
    if g.exp:
        return math.log(2) * min(2.0 ** min(g.p * x, 11.0), 1000.0)
    return (g.p * x * math.log(2) + g.l * math.log(x)
            + g.ll * math.log(max(1.0, math.log2(max(2.0, x)))))


def _log_add(u: float, v: float) -> float:
    """ln(e^u + e^v) without overflow."""
    hi, lo = max(u, v), min(u, v)
    return hi + math.log1p(math.exp(lo - hi))


SLOPE_TOLERANCE = 0.3  # n^1.5 is neither n log n nor n^2 (slopes 1.1 and 2)
SLOPE_BELOW = 0.45


def _slope_fits(g: Growth, pts: list[tuple[float, float]]) -> bool:
    """A polynomial class's slope in log-log over the sizes fitted is about its power (n log n: a little
    more): the points' own slope must be within SLOPE_TOLERANCE of it, so that a lower term cannot bend
    the class to another power."""
    if g.exp or not g.p:
        return True
    pts = pts[-max(4, len(pts) // 2):]  # the larger sizes, nearer the asymptote
    xs = [math.log(n) for n, _ in pts]
    gap = _slope(xs, [math.log(max(s, 1.0)) for _, s in pts]) - _slope(xs, [_log_value(g, math.log2(n)) for n, _ in pts])
    # Lower terms that are subtracted (n(n-1)(n-2)/6) approach the power from below, so below it a
    # little more is allowed.
    return -SLOPE_BELOW <= gap <= SLOPE_TOLERANCE


def _slope(xs: list[float], ys: list[float]) -> float:
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    var = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / var if var else 0.0


def _lower(g: Growth) -> Growth:
    """The next smaller term a measured size of class g commonly carries: n log n + 3n, n^2/2 + n log n,
    40 + log n (the constant term is always allowed besides)."""
    if g.p and g.l:
        return Growth(p=g.p, l=g.l - 1)
    if g.p:
        return Growth(p=g.p - 1, l=1)
    return Growth(l=g.l - 1) if g.l else CONSTANT


def _error(g: Growth, pts: list[tuple[float, float]], ys: list[float]) -> float:
    """Mean squared error in log(1 + s) of the best s ~ a + b h(n) + c f(n), a, b >= 0, c > 0, where h
    is the next smaller term (_lower), which may not outweigh c f(n) at the largest size, and a is 0
    for a polynomial class: a class is its leading term, lower ones do not change it."""
    lfs = [_log_value(g, math.log2(n)) for n, _ in pts]
    if g.exp:
        return _single_term_error(lfs, ys)
    if max(lfs) > 690:  # f(n) beyond a float: far above any size measured, not this class
        return math.inf
    sizes = [math.expm1(y) for y in ys]
    terms = [[math.exp(lf) for lf in lfs]]
    lower = _lower(g)
    if not lower.constant:
        terms.append([math.exp(_log_value(lower, math.log2(n))) for n, _ in pts])
    if not g.p:
        # Only a slowly growing class takes a constant: over the sizes measured a constant is
        # negligible beside n, and one would let n^2 bend to fit n^1.5.
        terms.append([1.0] * len(pts))
    best = _single_term_error(lfs, ys)
    # Every subset of the other terms beside the leading one, fitted by least squares in relative
    # error; a fit with a negative coefficient is not a fit.
    for mask in range(1, 1 << (len(terms) - 1)):
        chosen = [terms[0]] + [t for k, t in enumerate(terms[1:]) if mask >> k & 1]
        coefs = _relative_least_squares(chosen, sizes)
        if coefs is None or min(coefs) < 0:
            continue
        if mask & 1 and len(terms) > 1 and not lower.constant and coefs[1] * terms[1][-1] > coefs[0] * terms[0][-1]:
            continue  # the lower term may not outweigh the leading one at the largest size: n^1.5 is not n^2
        fitted = [sum(c * t[i] for c, t in zip(coefs, chosen, strict=True)) for i in range(len(pts))]
        best = min(best, sum((y - math.log1p(v)) ** 2 for y, v in zip(ys, fitted, strict=True)) / len(ys))
    return best


def _relative_least_squares(terms: list[list[float]], sizes: list[float]) -> list[float] | None:
    """Coefficients minimising sum_i ((sum_j c_j t_j[i]) / s_i - 1)^2 (None when singular)."""
    weights = [1.0 / max(s, 1.0) for s in sizes]
    rows = [[t[i] * weights[i] for t in terms] for i in range(len(sizes))]
    k = len(terms)
    a = [[sum(r[p] * r[q] for r in rows) for q in range(k)] for p in range(k)]
    b = [sum(r[p] * s * w for r, s, w in zip(rows, sizes, weights, strict=True)) for p in range(k)]
    for col in range(k):  # Gaussian elimination with partial pivoting, on at most 3 unknowns
        pivot = max(range(col, k), key=lambda r: abs(a[r][col]))
        if abs(a[pivot][col]) < 1e-300:
            return None
        a[col], a[pivot], b[col], b[pivot] = a[pivot], a[col], b[pivot], b[col]
        for r in range(k):
            if r != col:
                factor = a[r][col] / a[col][col]
                a[r] = [x - factor * y for x, y in zip(a[r], a[col], strict=True)]
                b[r] -= factor * b[col]
    return [b[p] / a[p][p] for p in range(k)]


def _single_term_error(lfs: list[float], ys: list[float]) -> float:
    """The best s ~ c f(n) alone, by a golden-section search over log c (err is unimodal in it)."""
    def err_at(log_c: float) -> float:
        return sum((y - _log_add(0.0, log_c + lf)) ** 2 for y, lf in zip(ys, lfs, strict=True)) / len(ys)

    lo, hi = -800.0, 100.0
    for _ in range(48):
        x, y = hi - _RATIO * (hi - lo), lo + _RATIO * (hi - lo)
        if err_at(x) < err_at(y):
            hi = y
        else:
            lo = x
    return err_at((lo + hi) / 2)


_RATIO = (math.sqrt(5) - 1) / 2
