"""`cw explore --plots` stays readable on large graphs: every figure drawn for a generated graph of
10^5 atoms has labelled axes and no two tick labels (or a tick label and the axes' title) overlap."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import matplotlib
import pandas as pd
import pytest

from codewalk.explore import CHAIN_SEARCH, MAX_LEVEL, DomainReport, draw, figures

matplotlib.use("Agg")
ATOMS = 100_000


def _generated_report(walk: str, atoms: int = ATOMS, seed: int = 0) -> DomainReport:
    """A report of a random graph of `atoms` atoms: heavy-tailed out-degrees (1 to a few thousand, many
    atoms without edges), targets picked preferentially, components by union-find; walk lengths, group
    counts and yields at every level N = 1..10 in the ranges real domains show."""
    rng = random.Random(seed)
    weights = [1 / (i + 1) for i in range(atoms)]  # atom i is picked as a target ~ 1/(i+1)
    targets = rng.choices(range(atoms), weights=weights, k=4 * atoms)
    edges, t = [], iter(targets)
    for a in range(atoms):
        out = 0 if rng.random() < 0.3 else min(int(rng.paretovariate(1.2)), 5_000)
        edges += [(a, next(t, 0)) for _ in range(out)]
    parent = list(range(atoms))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in edges:
        parent[root(a)] = root(b)
    components = sorted(Counter(root(i) for i in range(atoms)).values(), reverse=True)
    frame = pd.DataFrame(edges, columns=["a", "b"])
    outdeg = frame["a"].value_counts().reindex(range(atoms), fill_value=0)
    indeg = frame["b"].value_counts().reindex(range(atoms), fill_value=0)
    if walk == "chain":
        table = pd.concat([outdeg.value_counts().rename("out"), indeg.value_counts().rename("in")], axis=1)
        degrees = [{"degree": int(k), "out": int(r["out"]), "in": int(r["in"])}
                   for k, r in table.fillna(0).sort_index().iterrows()]
    else:
        degrees = [{"degree": int(k), "atoms": int(v)} for k, v in (outdeg + indeg).value_counts().sort_index().items()]
    groups = [{"level": n, "exact": len(edges) ** n // atoms ** (n - 1) if n <= 3 else None,
               "estimate": None if n <= 3 else float(len(edges) * 7.3 ** n),
               "stderr": None if n <= 3 else float(len(edges) * 7.3 ** n / 4)} for n in range(1, MAX_LEVEL + 1)]
    lengths = Counter(min(CHAIN_SEARCH, 1 + int(rng.expovariate(1 / 9))) for _ in range(ATOMS // 100))
    yields = []
    for n in range(1, MAX_LEVEL + 1):
        attempted = rng.randint(20_000, 99_999)
        admitted = int(attempted * 0.9 ** n)
        yields.append({"level": n, "attempted": attempted, "admitted": admitted, "rejected": attempted - admitted,
                       "errors": 0, "yield": round(admitted / attempted, 3)})
    return DomainReport(
        domain="repair" if walk == "frontier" else "complexity",  # both have the paper's yields beside
        relation="SHARES_FILE" if walk == "frontier" else "FEEDS", walk=walk, atoms=atoms,
        edges={"FEEDS": len(edges)}, components=components, degrees=degrees, groups=groups,
        longest_chains=[], largest_level=max(lengths), largest_level_basis="generated", yields=yields,
        chain_lengths=[{"length": k, "walks": v} for k, v in sorted(lengths.items())] if walk == "chain" else [])


def _overlaps(boxes, gap: float = 2.0):
    """Pairs of texts closer than `gap` pixels (touching labels read as one)."""
    return [(a, b) for (a, ba), (b, bb) in itertools.combinations(boxes, 2) if ba.padded(gap / 2).overlaps(bb.padded(gap / 2))]


@pytest.mark.parametrize("walk", ["chain", "frontier"])
def test_figures_of_a_graph_of_10_5_atoms_have_labelled_axes_and_no_overlapping_tick_labels(walk):
    report = _generated_report(walk)
    assert len(report.components) > 1 and max(r["degree"] for r in report.degrees) >= 1_000
    drawn = figures(report)
    names = [name for name, _ in drawn]
    assert names == ["degrees", "components", *(["chains"] if walk == "chain" else []), "groups", "yield"]
    _assert_readable(drawn)


def test_a_small_graph_labels_more_ticks_without_overlap():
    report = _generated_report("chain", atoms=25, seed=2)
    drawn = figures(report)
    _assert_readable(drawn)
    degrees = dict(drawn)["degrees"]
    assert len([t for t in degrees.axes[0].xaxis.get_minorticklabels() if t.get_text()]) >= 2  # 2, 3, ...


def _assert_readable(drawn) -> None:
    for name, fig in drawn:
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        page = fig.bbox
        [ax] = fig.axes
        assert ax.get_xlabel() and ax.get_ylabel(), name
        for k, axis in enumerate((ax.xaxis, ax.yaxis)):
            shown = _drawn_tick_labels(axis, k, renderer)
            assert len(shown) >= 2 or name == "yield" and k == 0, (name, [t for t, _ in shown])
            assert not _overlaps(shown), (name, _overlaps(shown))
            for text, box in shown:
                assert page.contains(box.x0, box.y0) and page.contains(box.x1, box.y1), (name, text)
        texts = [(t.get_text(), t.get_window_extent(renderer)) for t in
                 [ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label, fig._suptitle] if t is not None and t.get_text()]
        assert not _overlaps(texts), (name, _overlaps(texts))
        for text, box in texts:
            assert page.contains(box.x0, box.y0) and page.contains(box.x1, box.y1), (name, text)


def _drawn_tick_labels(axis, k: int, renderer):
    """(text, extent) of the tick labels drawn: matplotlib keeps labels for ticks outside the view too."""
    low, high = sorted(axis.get_view_interval())
    return [(t.get_text(), t.get_window_extent(renderer))
            for t in [*axis.get_ticklabels(), *axis.get_ticklabels(minor=True)]
            if t.get_visible() and t.get_text() and low <= t.get_position()[k] <= high]


def test_one_component_is_said_not_drawn_and_the_pngs_are_written(tmp_path):
    report = _generated_report("chain", atoms=2_000)
    report.components = [report.atoms]
    paths = draw(report, tmp_path)
    assert [p.rsplit("/", 1)[1] for p in paths] == ["complexity-degrees.png", "complexity-chains.png",
                                                     "complexity-groups.png", "complexity-yield.png"]
    assert all(open(p, "rb").read(8) == b"\x89PNG\r\n\x1a\n" for p in paths)
    [(_, fig)] = [f for f in figures(report) if f[0] == "degrees"]
    assert "one component of 2,000 atoms" in fig.axes[0].get_title(loc="left")
