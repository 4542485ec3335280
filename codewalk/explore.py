"""`cw explore`: how connected a domain's problem graph is, and how many tasks it can give at each
level N (the named queries of `cw query --name` are in queries.py).

Everything that reads edges runs as Cypher in the store (`cypher/explore_*.cypher` and the walk step);
Python adds up aggregates, keeps one label per atom between component rounds, and draws. pandas only
shapes the rows.

Groups. A symmetric relation (frontier walks) makes a group a connected set of N atoms; a directed one
(chain walks) makes it a chain of N distinct atoms. Both are counted from the relation alone, before
any per-domain walk constraint (labels, per-source limits). N = 2 and 3 are exact:

* chains: N=2 is the number of edges; N=3 is the sum over middle atoms b of indeg(b) * outdeg(b),
  less the pairs a -> b -> a (where the chain would come back to a);
* connected sets: N=2 is the number of edges; N=3 is the sum over b of C(deg(b), 2) (paths a - b - c),
  less twice the triangles (a triangle is one set but three such paths).

Larger N are estimated with Knuth's path-counting estimator run on the walk itself: a walk that starts
at a uniform atom and picks uniformly among f_1, f_2, ... candidates produces its sequence with
probability 1 / (n * f_1 * ... * f_(N-1)), so n * f_1 * ... * f_(N-1) is an unbiased estimate of the
number of sequences (zero for a walk that dies). A set of atoms is reached by as many sequences as it
has orderings whose every prefix is connected; dividing by that number estimates sets.
"""

from __future__ import annotations

import math
import random
import textwrap
from collections import Counter
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pandas as pd

from .cypher_files import query
from .domain import get_domain
from .errors import UsageError
from .records import REL_TYPES
from .store import BATCH, GraphStore

SAMPLES = 1000  # random walks behind the estimates and the chain search
MAX_LEVEL = 10  # levels estimated (the paper runs to N = 10)
CHAIN_SEARCH = 64  # a walk searching long chains stops growing here
SEARCHERS = 10  # one walk in this many goes on past MAX_LEVEL to look for long chains


@dataclass
class DomainReport:
    domain: str
    relation: str
    walk: str  # "frontier" (symmetric relation) or "chain" (directed)
    atoms: int
    edges: dict[str, int]  # relation type -> edges whose source atom is in the domain
    components: list[int]  # sizes, largest first
    degrees: list[dict[str, int]]  # {degree, out, in} for chains, {degree, atoms} for frontier walks
    groups: list[dict[str, Any]]  # {level, exact, estimate, stderr}
    longest_chains: list[list[str]]  # chain walks only: the longest found, longest first
    largest_level: int
    largest_level_basis: str
    yields: list[dict[str, Any]]  # {level, attempted, admitted, rejected, errors, yield}
    # chain walks only: how long the sampling walks grew, as {length, walks}: each grows until a dead end,
    # or MAX_LEVEL atoms (CHAIN_SEARCH for one walk in SEARCHERS, which look for long chains)
    chain_lengths: list[dict[str, int]] = field(default_factory=list)
    plots: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def explore(
    store: GraphStore,
    domain: str | None = None,
    samples: int = SAMPLES,
    seed: int = 0,
    plots: Path | None = None,
) -> list[DomainReport]:
    """One report per domain in the store (or just `domain`); PNG figures into `plots` if given."""
    loaded = store.domains()
    if domain is not None and domain not in loaded:
        raise UsageError(f"no atoms of domain {domain!r} in the store; loaded: {', '.join(loaded) or 'none'}")
    if not loaded:
        raise UsageError("the store holds no atoms yet: run `cw load DOMAIN SOURCE` or `cw demo`")
    if samples < 1:
        raise UsageError("--samples must be at least 1")
    reports = [_explore_domain(store, name, samples, random.Random(seed)) for name in sorted(loaded)
               if domain in (None, name)]
    if plots is not None:
        for report in reports:
            report.plots = draw(report, plots)
    return reports


def _explore_domain(store: GraphStore, domain: str, samples: int, rng: random.Random) -> DomainReport:
    ids = [i for i, _, _ in store.atom_index(domain)]
    edges = {rel: _one(store, "explore_edges", rel, domain=domain)["edges"] for rel in REL_TYPES}
    # The domain's relation is the one its edges use; with no edges at all, the installed domain says.
    relation = max(edges, key=lambda rel: edges[rel]) if any(edges.values()) else get_domain(domain).relation
    symmetric = REL_TYPES[relation]
    components = _components(store, ids, relation)
    hist = pd.DataFrame(store.run(query("explore_degrees", store.dialect, relation), {"domain": domain}),
                        columns=["outdeg", "indeg", "degree", "atoms"])
    exact = _exact_groups(store, domain, relation, hist, len(ids))
    length = min(MAX_LEVEL, components[0]) if symmetric else min(CHAIN_SEARCH, len(ids))
    walks, fronts = _sample(store, ids, relation, not symmetric, samples, length, rng)
    estimates = _estimates(store, relation, walks, fronts, len(ids), symmetric)
    groups = [{"level": n, "exact": exact.get(n), **estimates.get(n, {"estimate": None, "stderr": None})}
              for n in range(1, min(MAX_LEVEL, len(ids)) + 1)]
    lengths: list[dict[str, int]] = []
    if symmetric:
        chains, largest, basis = [], components[0], "size of the largest connected component"
    else:
        chains = _longest(walks)
        found = Counter(len(w) for w in walks)
        lengths = [{"length": n, "walks": found[n]} for n in sorted(found)]
        largest = max([len(chains[0]) if chains else 1] + [n for n, c in exact.items() if c])
        basis = ("a chain through every atom" if largest == len(ids)
                 else f"longest chain found by {math.ceil(samples / SEARCHERS)} random walks (a lower bound)")
    return DomainReport(domain, relation, "frontier" if symmetric else "chain", len(ids), edges, components,
                        _degree_rows(hist, symmetric), groups, chains, largest, basis,
                        _yield_rows(store, domain), lengths)


def _one(store: GraphStore, name: str, rel: str, **params: Any) -> dict[str, Any]:
    return store.run(query(name, store.dialect, rel), params)[0]


def _components(store: GraphStore, ids: list[str], rel: str) -> list[int]:
    """Label propagation: every atom starts with its own id as label and takes the smallest label among
    its neighbours, round after round, until nothing changes. The edges stay in the store."""
    label = {i: i for i in ids}
    changed = ids
    step = query("explore_component_step", store.dialect, rel)
    while changed:
        offers: dict[str, str] = {}
        for start in range(0, len(changed), BATCH):
            batch = [{"id": i, "label": label[i]} for i in changed[start:start + BATCH]]
            for row in store.run(step, {"changed": batch}):
                atom, offer = row["id"], row["label"]
                if atom in label and (atom not in offers or offer < offers[atom]):
                    offers[atom] = offer
        changed = sorted(i for i, offer in offers.items() if offer < label[i])
        for i in changed:
            label[i] = offers[i]
    return sorted(Counter(label.values()).values(), reverse=True)


def _exact_groups(store: GraphStore, domain: str, rel: str, hist: pd.DataFrame, atoms: int) -> dict[int, int]:
    """Groups of N = 1, 2, 3 from the degree histogram and one more count (see the module docstring)."""
    w = hist["atoms"]
    if REL_TYPES[rel]:
        triangles = _one(store, "explore_triangles", rel, domain=domain)["triangles"]
        deg = hist["degree"]
        return {1: atoms, 2: int((deg * w).sum()) // 2,
                3: int((deg * (deg - 1) // 2 * w).sum()) - 2 * triangles}
    mutual = _one(store, "explore_mutual", rel, domain=domain)["pairs"]
    return {1: atoms, 2: int((hist["outdeg"] * w).sum()),
            3: int((hist["indeg"] * hist["outdeg"] * w).sum()) - mutual}


def _sample(
    store: GraphStore, ids: list[str], rel: str, chain: bool, samples: int, length: int, rng: random.Random
) -> tuple[list[list[str]], list[list[int]]]:
    """`samples` walks grown together (one store query per step) until they reach `length` atoms (past
    MAX_LEVEL, only one in SEARCHERS goes on) or a dead end; for each, the atoms picked and the number of
    candidates each step had."""
    walks = [[ids[int(rng.random() * len(ids))]] for _ in range(samples)]
    fronts: list[list[int]] = [[] for _ in walks]
    live = [w for w in range(len(walks)) if length > 1]
    while live:
        params = [{"wid": w, "ids": walks[w], "last": walks[w][-1], "u": rng.random(), "label": "",
                   "blocked": []} for w in live]
        picks = store.walk_step(rel, chain, params)
        for w, (pick, size) in picks.items():
            walks[w].append(pick)
            fronts[w].append(size)
        live = [w for w in live
                if w in picks and len(walks[w]) < (length if w % SEARCHERS == 0 else MAX_LEVEL)]
    return walks, fronts


def _estimates(
    store: GraphStore, rel: str, walks: list[list[str]], fronts: list[list[int]], atoms: int, symmetric: bool
) -> dict[int, dict[str, float]]:
    """Knuth's estimator per level N >= 2: mean and standard error over all walks (dead ones count 0)."""
    orderings = _orderings(store, rel, walks) if symmetric else None
    out = {}
    for n in range(2, min(MAX_LEVEL, atoms) + 1):
        values = []
        for w, sizes in enumerate(fronts):
            if len(sizes) < n - 1:
                values.append(0.0)
                continue
            value = atoms * math.prod(sizes[:n - 1])
            values.append(value / orderings(frozenset(walks[w][:n])) if orderings else float(value))
        mean = sum(values) / len(values)
        var = sum((v - mean) ** 2 for v in values) / max(len(values) - 1, 1)
        out[n] = {"estimate": round(mean, 1), "stderr": round(math.sqrt(var / len(values)), 1)}
    return out


def _orderings(store: GraphStore, rel: str, walks: list[list[str]]):
    """A function from a set of atoms to the number of its orderings whose every prefix is connected
    (the sequences a frontier walk could take to reach that set). Edges come from the store: those
    among each walk's atoms, which covers every set the estimator asks about."""
    near: dict[str, set[str]] = {a: set() for walk in walks for a in walk}
    groups = [{"gid": w, "ids": walk} for w, walk in enumerate(walks) if len(walk) > 1]
    step = query("explore_induced", store.dialect, rel)
    for start in range(0, len(groups), BATCH):
        for row in store.run(step, {"groups": groups[start:start + BATCH]}):
            near[row["src"]].add(row["dst"])
            near[row["dst"]].add(row["src"])

    @cache
    def orderings(group: frozenset[str]) -> int:
        if all(group - {a} <= near[a] for a in group):  # a clique: any order will do
            return math.factorial(len(group))
        # The last atom must touch the others, which must have such an ordering themselves; a set that is
        # not connected has none, and the recursion finds that out by itself.
        return sum(orderings(rest) for a in group if near[a] & (rest := group - {a}))

    return orderings


def _longest(walks: list[list[str]], keep: int = 3) -> list[list[str]]:
    distinct = {tuple(w) for w in walks}
    return [list(w) for w in sorted(distinct, key=lambda w: (-len(w), w))[:keep]]


def _degree_rows(hist: pd.DataFrame, symmetric: bool) -> list[dict[str, int]]:
    if symmetric:
        table = hist.groupby("degree")["atoms"].sum().rename("atoms").to_frame()
    else:
        table = pd.concat([hist.groupby("outdeg")["atoms"].sum().rename("out"),
                           hist.groupby("indeg")["atoms"].sum().rename("in")], axis=1).fillna(0)
    table.index.name = "degree"
    rows = table.sort_index().reset_index().to_dict("records")
    return [{k: int(v) for k, v in row.items()} for row in rows]


def _yield_rows(store: GraphStore, domain: str) -> list[dict[str, Any]]:
    rows = pd.DataFrame(store.yields(domain), columns=["level", "status", "reason", "tasks"])
    if rows.empty:
        return []
    table = rows.pivot_table(index="level", columns="status", values="tasks", aggfunc="sum", fill_value=0)
    table = table.reindex(columns=["admitted", "rejected", "error"], fill_value=0)
    table.insert(0, "attempted", table.sum(axis=1))
    table["yield"] = (table["admitted"] / table["attempted"]).round(3)
    table = table.rename(columns={"error": "errors"}).reset_index()
    return [{k: (float(v) if k == "yield" else int(v)) for k, v in row.items()}
            for row in table.to_dict("records")]


# -- figures -----------------------------------------------------------------------------------------
# Admission yields the paper reports (App. B), level -> (admitted, attempted), and what they measure.
PAPER_YIELDS: dict[str, tuple[str, dict[int, tuple[int, int] | float]]] = {
    "repair": ("paper B.1: admitted / attempted", {1: (200, 270), 2: (200, 811), 3: (168, 1591)}),
    "proofs": ("paper B.2: reference verifies (before annotation removal)",
               {1: (137, 160), 2: (200, 350), 3: (233, 770)}),
    "complexity": ("paper B.3: admitted by check (1)", {1: 1.0, 2: 0.834, 3: 0.567, 10: 0.036}),
}
FIGSIZE = (6.4, 4.2)  # inches; at DPI this is 768 x 504 pixels
DPI = 120


def draw(report: DomainReport, directory: Path) -> list[str]:
    """The report's figures as PNGs in `directory` (see `figures`); returns their paths."""
    import matplotlib.pyplot as plt

    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, fig in figures(report):
        path = directory / f"{report.domain}-{name}.png"
        fig.savefig(path, dpi=DPI)
        plt.close(fig)
        paths.append(str(path))
    return paths


def figures(report: DomainReport) -> list[tuple[str, Any]]:
    """(name, matplotlib Figure) for: degrees (CCDF, log-log, out and in apart for chains); components
    (sizes, only when there is more than one); chains (lengths the searching walks reached, chain walks
    only); groups (groups of N atoms per level); yield (admission yield by level, the paper's beside)."""
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    out = [("degrees", _degree_figure(report))]
    if len(report.components) > 1:
        out.append(("components", _component_figure(report)))
    if report.chain_lengths:
        out.append(("chains", _chain_figure(report)))
    out.append(("groups", _group_figure(report)))
    out.append(("yield", _yield_figure(report)))
    return out


def components_summary(report: DomainReport) -> str:
    sizes = report.components
    if len(sizes) == 1:
        return f"one component of {sizes[0]:,} atoms"
    singles = sum(1 for s in sizes if s == 1)
    return (f"{len(sizes):,} components, the largest of {sizes[0]:,} atoms"
            + (f", {singles:,} of them single atoms" if singles else ""))


def _new_figure(report: DomainReport, title: str, subtitle: str):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=FIGSIZE, layout="constrained")
    fig.suptitle(f"{report.domain}: {title}", fontsize=12, x=0.02, ha="left")
    ax.set_title("\n".join(textwrap.wrap(subtitle, 76)), fontsize=9, loc="left", color="0.3")
    ax.grid(True, which="major", color="0.9", linewidth=0.8)
    ax.set_axisbelow(True)
    return fig, ax


def _log_axis(axis, top: float) -> None:
    """A log axis: major ticks at powers of ten, labelled 1, 10, 100, 1,000, 10^4 ...; on an axis that
    ends below 30 (a small graph) the minor ticks 2 and 5 are labelled too, since few powers of ten show."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    def label(v: float, _: object = None) -> str:
        return "" if v < 1 else f"{v:,.0f}" if v < 1e4 else f"$10^{{{math.log10(v):.0f}}}$"

    axis.set_major_locator(LogLocator(base=10, numticks=8))
    axis.set_minor_locator(LogLocator(base=10, subs=tuple(range(2, 10)), numticks=12))
    axis.set_major_formatter(FuncFormatter(label))
    def some(v: float, _: object = None) -> str:  # 2 and 5 of each decade: 1, 2, 5, 10, 20, 50
        return label(v) if v >= 1 and round(v / 10 ** math.floor(math.log10(v))) in (2, 5) else ""

    axis.set_minor_formatter(FuncFormatter(some) if top < 30 else NullFormatter())


def _degree_figure(report: DomainReport):
    edges = sum(report.edges.values())
    fig, ax = _new_figure(report, "degree distribution",
                          f"{report.atoms:,} atoms, {edges:,} {report.relation} edges; "
                          + components_summary(report))
    rows = pd.DataFrame(report.degrees).set_index("degree").sort_index() if report.degrees else pd.DataFrame()
    series = [("out", "out-degree", "C0"), ("in", "in-degree", "C1")] if report.walk == "chain" \
        else [("atoms", "degree", "C0")]
    top = 1
    for column, label, colour in series:
        if column not in rows:
            continue
        ccdf = rows[column][::-1].cumsum()[::-1]  # atoms with degree >= k
        shown = ccdf[(ccdf.index >= 1) & (ccdf > 0)]  # past its largest degree a series has no atoms
        zero = int(rows[column].get(0, 0))
        if shown.empty:
            continue
        top = max(top, int(shown.index.max()))
        ax.step(shown.index, shown.values, where="post", color=colour, linewidth=1.4, marker="o", markersize=3,
                label=label + (f" ({zero:,} atoms with 0 not shown)" if zero else ""))
    if edges == 0:
        ax.text(0.5, 0.5, "no edges", ha="center", va="center", transform=ax.transAxes)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(0.8, max(10, top * 1.5))
    ax.set_ylim(0.8, max(10, report.atoms * 1.5))
    _log_axis(ax.xaxis, top)
    _log_axis(ax.yaxis, report.atoms)
    ax.set_xlabel("degree k (edges of an atom)" if report.walk == "frontier"
                  else "degree k (edges leaving / entering an atom)")
    ax.set_ylabel("atoms with degree \u2265 k")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="lower left", fontsize=8, frameon=True)
    return fig


def _component_figure(report: DomainReport):
    fig, ax = _new_figure(report, "connected components", components_summary(report))
    sizes = Counter(report.components)
    xs = sorted(sizes)
    ax.vlines(xs, 0.8, [sizes[x] for x in xs], color="C0", linewidth=1)
    ax.plot(xs, [sizes[x] for x in xs], "o", color="C0", markersize=4)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(0.8, max(10, xs[-1] * 1.5))
    ax.set_ylim(0.8, max(10, max(sizes.values()) * 1.5))
    _log_axis(ax.xaxis, xs[-1])
    _log_axis(ax.yaxis, max(sizes.values()))
    ax.set_xlabel("component size (atoms)")
    ax.set_ylabel("components of that size")
    return fig


def _chain_figure(report: DomainReport):
    from matplotlib.ticker import MaxNLocator

    rows = report.chain_lengths
    walks = sum(r["walks"] for r in rows)
    fig, ax = _new_figure(report, "chain lengths the walks reached",
                          f"{walks:,} random walks, each grown until a dead end or {MAX_LEVEL} atoms "
                          f"(one in {SEARCHERS}: {CHAIN_SEARCH} atoms); largest level found: "
                          f"N\u00a0=\u00a0{report.largest_level}")
    capped = (MAX_LEVEL, CHAIN_SEARCH)  # where walks stop without a dead end
    ended = [r for r in rows if r["length"] not in capped]
    stopped = [r for r in rows if r["length"] in capped]
    if ended:
        ax.bar([r["length"] for r in ended], [r["walks"] for r in ended], width=0.8, color="C0",
               label="walks that hit a dead end at this length")
    if stopped:
        ax.bar([r["length"] for r in stopped], [r["walks"] for r in stopped], width=0.8, color="0.75",
               edgecolor="0.45", hatch="//", label=f"walks stopped at {MAX_LEVEL} or {CHAIN_SEARCH} atoms")
    ax.axvline(report.largest_level, color="C3", linestyle="--", linewidth=1.2,
               label=f"largest level found: N\u00a0=\u00a0{report.largest_level}")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=12))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True, nbins=8))
    ax.set_xlim(0, max(r["length"] for r in rows + [{"length": report.largest_level}]) + 1.5)
    ax.set_ylim(0, max(r["walks"] for r in rows) * 1.15)
    ax.set_xlabel("chain length (atoms)")
    ax.set_ylabel("walks")
    ax.legend(loc="best", fontsize=8)
    return fig


def _group_figure(report: DomainReport):
    from matplotlib.ticker import MaxNLocator

    fig, ax = _new_figure(report, f"groups of N atoms ({'chains' if report.walk == 'chain' else 'connected sets'})",
                          f"exact for N \u2264 3, beyond estimated from {report.walk} walks "
                          "(\u00b1 1 std. error)")
    exact = [(g["level"], g["exact"]) for g in report.groups if g["exact"]]
    est = [(g["level"], g["estimate"], g["stderr"] or 0) for g in report.groups
           if g["exact"] is None and g["estimate"]]
    if exact:
        ax.plot(*zip(*exact, strict=True), "o", color="C0", label="exact count")
    if est:
        ax.errorbar([e[0] for e in est], [e[1] for e in est],
                    yerr=[[min(e[2], e[1] * 0.99) for e in est], [e[2] for e in est]],
                    fmt="s", color="C1", capsize=3, label="estimate")
    values = [v for _, v in exact] + [e[1] + e[2] for e in est]
    ax.set_yscale("log")
    ax.set_ylim(0.8, max(10, max(values, default=1) * 3))
    _log_axis(ax.yaxis, max(values, default=1))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlim(0.5, max([g["level"] for g in report.groups], default=1) + 0.5)
    ax.set_xlabel("level N (atoms per group)")
    ax.set_ylabel("groups")
    if values:
        ax.legend(loc="lower right", fontsize=8)
    else:
        ax.text(0.5, 0.5, "no groups beyond single atoms", ha="center", va="center", transform=ax.transAxes)
    return fig


def _compact(n: int) -> str:
    """1234 -> 1.2k, 56789 -> 57k: short enough for ten levels side by side."""
    if n < 1_000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1_000:.1f}k" if n < 10_000 else f"{n / 1_000:.0f}k"
    return f"{n / 1_000_000:.1f}M"


def _yield_figure(report: DomainReport):
    from matplotlib.ticker import PercentFormatter

    what, paper = PAPER_YIELDS.get(report.domain, ("", {}))
    if report.yields:
        about = "admitted / attempted groups of the stored tasks (n = attempted)" \
            + ("; the paper's figures beside" if paper else "")
    else:
        about = "no tasks attempted in this store yet (cw walk stores every attempt)" \
            + ("; the paper's figures alone" if paper else "")
    fig, ax = _new_figure(report, "admission yield by level", about)
    ours = {r["level"]: r for r in report.yields}
    theirs = {n: (v[0] / v[1] if isinstance(v, tuple) else v) for n, v in paper.items()}
    levels = sorted(set(ours) | set(theirs))
    x = {n: i for i, n in enumerate(levels)}  # levels side by side, also when the paper skips 4-9
    width = 0.4 if ours and theirs else 0.6
    if ours:
        shift = -width / 2 if theirs else 0
        ax.bar([x[n] + shift for n in ours], [r["yield"] for r in ours.values()], width=width, color="C0",
               label="this store")
        if len(levels) <= 6:  # room above each bar for admitted/attempted (a 0% bar is otherwise invisible)
            for n, r in ours.items():
                ax.annotate(f"{r['admitted']:,}/{r['attempted']:,}", (x[n] + shift, r["yield"]), ha="center",
                            va="bottom", fontsize=7, xytext=(0, 2), textcoords="offset points")
    if theirs:
        shift = width / 2 if ours else 0
        ax.bar([x[n] + shift for n in theirs], list(theirs.values()), width=width, color="0.75",
               edgecolor="0.45", hatch="//", label=what)
    ax.set_xticks(range(len(levels)))
    ax.set_xticklabels([f"{n}" + (f"\nn={_compact(ours[n]['attempted'])}" if n in ours else "") for n in levels],
                       fontsize=8 if len(levels) > 6 else 9)
    ax.set_xlim(-0.6, max(len(levels), 1) - 0.4)
    ax.set_ylim(0, 1.2)
    ax.set_yticks([0, 0.25, 0.5, 0.75, 1.0])
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax.set_xlabel("level N")
    ax.set_ylabel("yield (admitted / attempted)")
    if levels:
        ax.legend(loc="upper right", fontsize=8, ncols=2)
    else:
        ax.text(0.5, 0.5, "no tasks attempted yet", ha="center", va="center", transform=ax.transAxes)
    return fig
