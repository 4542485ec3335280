"""Walks, loading and edge building from 10^4 to 10^6 atoms, on both stores, with baselines side by side.

    python bench/walks.py --sizes 1e4,1e5,1e6 --stores ladybug,neo4j --out bench/results/

prints one table, and writes bench/results/walks-<time>.json and .png (cost against graph size).
Neo4j: --neo4j bolt://HOST:PORT (default bolt://127.0.0.1:7690); the benchmark wipes that database.

Each measurement runs in a fresh Python process, so its peak RSS (ru_maxrss) is its own. Measured:
* edge building from atoms: inverted file index (repair-like) and type buckets (typed chains);
* load: `write` from a stream of records read off Parquet (`graph_tables`) (atoms + edges per second, peak RSS), against
  baseline (c), one query per row (the repository's upsert with a one-row batch), time-capped;
* walks: 5,000 walks in batches of 1,000 at N = 3 and 10 with the frontier path (Walker(fast=True)), the batched
  Cypher step (Walker(fast=False), the definition) and baseline (a), naive Cypher: one query per walk per step
  (Walker(batch=1)), time-capped and extrapolated; baseline (b): the same uniform-frontier walk in plain
  Python over a NetworkX graph, with and without its build time (reading the edges included).
Walks per second count completed walks (restarts included in the time); ms per step = time /
(walks x (N - 1)). Wall seconds are noisy on a shared machine: each phase also records its process CPU
seconds and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import time
from datetime import UTC, datetime
from itertools import islice
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.graphs import chain_atoms, feeds_edges, repair_atoms, shares_file_edges
from bench.phases import fresh, run_phase  # noqa: E402
from codewalk.domain import Domain, register
from codewalk.records import Atom, Edge

BATCH = 1_000  # walks in flight at once
WALKS = 5 * BATCH  # walks measured: several batches, so the walks left in flight at the end weigh little
LEVELS = (3, 10)
NAIVE_CAP_S = 20.0  # baselines (a) and (c) stop after this long and are extrapolated
CYPHER_CAP_S = 60.0  # so does the batched Cypher step (the definition, not the fast path)
SEED = 7


class _Bench(Domain):
    composer_version = "bench"

    def load(self, source, options):  # the benchmark writes its graphs itself
        raise NotImplementedError

    def edges(self, atoms):
        raise NotImplementedError

    def compose(self, atoms):
        raise NotImplementedError

    def check_reference(self, composite, atoms):
        raise NotImplementedError

    def check_unsolved(self, composite, atoms, position):
        raise NotImplementedError


@register
class BenchRepair(_Bench):
    name = "benchrepair"
    relation = "SHARES_FILE"

    def load_columns(self, source, options):
        """`cw load`'s columnar path (bench/load.py): the atoms' id, repo and files from Parquet."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pq.read_table(source, columns=["id", "repo", "files"])
        return table.append_column("domain", pa.repeat(self.name, table.num_rows))

    def edge_columns(self, atoms):
        from codewalk.relations import shares_file

        yield "SHARES_FILE", shares_file(atoms.column("id"), atoms.column("repo"), atoms.column("files"))


@register
class BenchChain(_Bench):
    name = "benchchain"
    relation = "FEEDS"


# -- phases, each run in its own process ---------------------------------------------------------
def _usage() -> dict:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return {"rss_mb": round(r.ru_maxrss / 1024, 1), "cpu_s": round(r.ru_utime + r.ru_stime, 3)}


def phase_gen(size: int, work: Path) -> dict:
    """Atoms of both shapes, then their edges from the index, written to Parquet for the other phases."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    out: dict = {}
    for kind, make, build in (("repair", repair_atoms, shares_file_edges), ("chain", chain_atoms, feeds_edges)):
        atoms = list(make(size, SEED))
        columns = ["repo", "files"] if kind == "repair" else ["in_type", "out_type"]
        pq.write_table(pa.table({"id": [a.id for a in atoms],
                                 **{c: [a.summary[c] for a in atoms] for c in columns}}), work / f"{kind}_atoms.parquet")
        writer, batch, edges, writing = None, [], 0, 0.0
        started = time.perf_counter()
        for edge in build(atoms):
            batch.append(edge)
            if len(batch) == 200_000:
                t = time.perf_counter()
                writer = _write_edges(writer, batch, work / f"{kind}_edges.parquet")
                writing += time.perf_counter() - t
                edges += len(batch)
                batch = []
        writer = _write_edges(writer, batch, work / f"{kind}_edges.parquet")
        writer.close()
        edges += len(batch)
        out[kind] = {"atoms": len(atoms), "edges": edges,
                     "edge_build_s": round(time.perf_counter() - started - writing, 2)}
        del atoms
    return out


def _write_edges(writer, batch: list[Edge], path: Path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({"src": [e.src for e in batch], "dst": [e.dst for e in batch],
                      "files": [list(e.files) for e in batch]})
    writer = writer or pq.ParquetWriter(path, table.schema)
    writer.write_table(table)
    return writer


def _read_atoms(work: Path, kind: str):
    import pyarrow.parquet as pq

    domain = "benchrepair" if kind == "repair" else "benchchain"
    for batch in pq.ParquetFile(work / f"{kind}_atoms.parquet").iter_batches(50_000):
        for row in batch.to_pylist():
            i = row.pop("id")
            yield Atom(i, domain, row)


def _read_edges(work: Path, kind: str):
    import pyarrow.parquet as pq

    for batch in pq.ParquetFile(work / f"{kind}_edges.parquet").iter_batches(50_000):
        for s, d, f in zip(*(batch.column(c).to_pylist() for c in ("src", "dst", "files")), strict=True):
            yield Edge(s, d, "SHARES_FILE", files=tuple(f)) if kind == "repair" else Edge(s, d, "FEEDS", arg=0)


def _open(store: str, work: Path):
    from codewalk.store import open_store

    return open_store(work / "graph.lbug" if store == "ladybug" else store)  # "ladybug", a URI or a path


def phase_load(size: int, work: Path, store: str, kind: str = "") -> dict:
    """Both graphs (or one) through the store's `write`, streamed from records (`graph_tables`): one write
    (one transaction) per graph."""
    from codewalk.store.columns import graph_tables

    out = {}
    with _open(store, work) as s:
        for graph in [kind] if kind else ("repair", "chain"):
            started = time.perf_counter()
            s.write(*graph_tables(_read_atoms(work, graph), _read_edges(work, graph)))
            out[graph] = {"load_s": round(time.perf_counter() - started, 2)}
    return out


def phase_copyload(size: int, work: Path, store: str) -> dict:
    """Not the store's `write`: the repair graph straight from Parquet by COPY, auto-committed (the engine's own
    bulk path, as measured when the baselines were set), to have a 10^6 store to walk when `write` would take
    too long on a busy machine. Ladybug only."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from codewalk.store.columns import ATOM_SCHEMA, SEP

    atoms = pq.read_table(work / "repair_atoms.parquet")
    n = atoms.num_rows
    columns = {"id": atoms.column("id"), "domain": pa.array(["benchrepair"] * n), "repo": atoms.column("repo"),
               "files": atoms.column("files")}
    table = pa.table({f.name: columns.get(f.name, pa.array(
        [[] if f.type != pa.string() else ""] * n, f.type)) for f in ATOM_SCHEMA}, schema=ATOM_SCHEMA)
    started = time.perf_counter()
    with _open(store, work) as s:
        # In slices: one COPY of all 10^6 rows repeated a row (duplicated primary key; ladybug 0.22).
        for batch in table.to_batches(max_chunksize=100_000):
            s.run(s.q("bulk_copy_atoms"), {"rows": pa.Table.from_batches([batch])})
        edges = pq.read_table(work / "repair_edges.parquet")
        edges = pa.table({"src": edges["src"], "dst": edges["dst"], "files": pc.binary_join(edges["files"], SEP)})
        s.run(s.q("bulk_copy_edges", "SHARES_FILE"), {"rows": edges})
    return {"repair": {"copy_s": round(time.perf_counter() - started, 2)}}


def phase_rowload(size: int, work: Path, store: str) -> dict:
    """Baseline (c): the same upserts, one query (and one transaction) per row, into a scratch store:
    the ends of the first edges, then those edges, until the time cap."""
    edges = list(islice(_read_edges(work, "repair"), 2_000))
    ends = {x for e in edges for x in (e.src, e.dst)}
    atoms = [a for a in _read_atoms(work, "repair") if a.id in ends]
    target = store if "://" in store else str(work / "rows.lbug")
    with _open(target, work) as s:
        rows, started = 0, time.perf_counter()
        for atom in atoms:
            s.run(s.q("upsert_atoms"), {"rows": [s.atom_row(atom)]})
            rows += 1
        for edge in edges:
            s.run(s.q("upsert_shares_file"), {"rows": [s.edge_row(edge)]})
            rows += 1
            if time.perf_counter() - started > NAIVE_CAP_S:
                break
        elapsed = time.perf_counter() - started
    if "://" in target:  # leave the Neo4j database empty for the real load
        _wipe_neo4j(target)
    if "://" not in target:
        fresh(work / "rows.lbug")
    return {"rows": rows, "rows_per_s": round(rows / elapsed, 1)}


def phase_walk(size: int, work: Path, store: str, variant: str, kind: str, level: str) -> dict:
    """WALKS walks of one level (each level in its own process, as `cw walk` walks one level), or as many
    as fit in the cap for the naive baseline and the Cypher step."""
    from codewalk.domain import get_domain
    from codewalk.walk import Walker

    domain = get_domain("benchrepair" if kind == "repair" else "benchchain")
    n = int(level)
    with _open(store, work) as s:
        started = time.perf_counter()
        walker = Walker(s, domain, n, random.Random(SEED + n), batch=1 if variant == "naive" else BATCH,
                        fast=variant == "fast")
        setup = time.perf_counter() - started
        cap = {"naive": NAIVE_CAP_S, "cypher": CYPHER_CAP_S}.get(variant, 600.0)
        done, started, cpu = 0, time.perf_counter(), _usage()["cpu_s"]
        for _ in walker:
            done += 1
            if done == WALKS or time.perf_counter() - started > cap:
                break
        elapsed = time.perf_counter() - started
    return {"walks": done, "walk_s": round(elapsed, 3), "setup_s": round(setup, 2),
            "walk_cpu_s": round(_usage()["cpu_s"] - cpu, 2), "walks_per_s": round(done / elapsed, 2),
            "ms_per_step": round(1000 * elapsed / (done * (n - 1)), 4)}


def phase_nx(size: int, work: Path) -> dict:
    """Baseline (b): read the edges, build a NetworkX graph, walk it in plain Python (sorted frontier,
    uniform pick: the same walk, reproducible)."""
    import networkx as nx
    import pyarrow.parquet as pq

    started = time.perf_counter()
    ids = pq.read_table(work / "repair_atoms.parquet", columns=["id"]).column("id").to_pylist()
    edges = pq.read_table(work / "repair_edges.parquet", columns=["src", "dst"])
    g = nx.Graph()
    g.add_nodes_from(ids)
    g.add_edges_from(zip(edges.column("src").to_pylist(), edges.column("dst").to_pylist(), strict=True))
    del edges
    ids.sort()
    build = time.perf_counter() - started
    out: dict = {"build_s": round(build, 2)}
    for n in LEVELS:
        rng, done, started, cpu = random.Random(SEED + n), 0, time.perf_counter(), _usage()["cpu_s"]
        while done < WALKS:
            group = [ids[int(rng.random() * len(ids))]]
            frontier = set(g[group[0]])
            while len(group) < n and frontier:
                f = sorted(frontier)
                x = f[int(rng.random() * len(f))]
                group.append(x)
                frontier.update(g[x])
                frontier.difference_update(group)
            done += len(group) == n
        elapsed = time.perf_counter() - started
        out[f"N{n}"] = {"walks": done, "walk_s": round(elapsed, 3), "walks_per_s": round(done / elapsed, 1),
                        "walk_cpu_s": round(_usage()["cpu_s"] - cpu, 2),
                        "walks_per_s_incl_build": round(done / (elapsed + build), 1),
                        "ms_per_step": round(1000 * elapsed / (done * (n - 1)), 4)}
    return out


PHASES = {"gen": phase_gen, "load": phase_load, "copyload": phase_copyload, "rowload": phase_rowload, "walk": phase_walk, "nx": phase_nx}


# -- driver -----------------------------------------------------------------------------------------
def _run(phase: str, size: int, work: Path, *args: str) -> dict:
    """One phase in a fresh process (bench/phases.py): its result, peak RSS, CPU seconds, load average."""
    result = run_phase(__file__, phase, "--size", str(size), "--work", str(work), *args)
    print(f"  {phase:8} {' '.join(args):32} {result['wall_s']:8.1f}s  load {result['loadavg']}", file=sys.stderr)
    return result


def _uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


def _wipe_neo4j(uri: str) -> None:
    import neo4j

    from codewalk.cypher_files import query

    with neo4j.GraphDatabase.driver(uri) as driver, driver.session(database="neo4j") as s:
        s.run(query("bench_wipe", "neo4j")).consume()  # CALL IN TRANSACTIONS: auto-commit only


def bench_size(size: int, stores: list[str], neo4j_uri: str, root: Path, chains: bool, copy_load: float,
               report_only: bool = False, neo4j_max: float = float("inf")) -> dict:
    """All phases of one size. Each part's result is kept in the work folder, and reused (--reuse), so
    a long run can be done in pieces on a busy machine and still be reported as one table."""
    work = root / f"n{size}"
    work.mkdir(parents=True, exist_ok=True)

    def part(name: str, measure) -> dict:
        path = work / f"{name}.json"
        if not path.exists():
            if report_only:
                return {}
            path.write_text(json.dumps(measure()))
        return json.loads(path.read_text())

    result: dict = {"atoms": size, "gen": part("gen", lambda: _run("gen", size, work))}
    result["nx"] = part("nx", lambda: _run("nx", size, work))
    for store in stores:
        if store == "neo4j" and size > neo4j_max:
            continue
        result[store] = part(store, lambda store=store: _bench_store(size, work, store, neo4j_uri, chains,
                                                                     size >= copy_load))
    return result


def _bench_store(size: int, work: Path, store: str, neo4j_uri: str, chains: bool, copy_load: bool) -> dict:
    target = neo4j_uri if store == "neo4j" else "ladybug"
    if store == "neo4j":
        _wipe_neo4j(neo4j_uri)
    else:
        fresh(work / "graph.lbug")
    r: dict = {"rowload": _run("rowload", size, work, "--store", target)}
    if copy_load and store == "ladybug":
        r["copyload"] = _run("copyload", size, work, "--store", target)
    else:
        r["load"] = _run("load", size, work, "--store", target, *(["--kind", "repair"] if not chains else []))
    chains = chains and "copyload" not in r  # the COPY path loads the repair graph only
    for kind in ("repair", "chain") if chains else ("repair",):
        for variant in ("fast", "cypher", "naive") if kind == "repair" else ("fast", "cypher"):
            levels = {f"N{n}": _run("walk", size, work, "--store", target, "--variant", variant, "--kind", kind,
                                    "--level", str(n)) for n in LEVELS}
            r[f"walk_{kind}_{variant}"] = {**levels, "rss_mb": max(x["rss_mb"] for x in levels.values())}
    return r


def _cell(cell, r: dict, s: str) -> str:
    try:
        return cell(r, s)
    except KeyError:  # not measured (a store skipped at this size, or chains skipped)
        return "-"


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.3g}" if b else "-"


def table(results: list[dict], stores: list[str]) -> list[tuple[str, list[str]]]:
    """Rows of (metric, one cell per size x store)."""
    rows: list[tuple[str, list[str]]] = []

    def add(name: str, cell) -> None:
        rows.append((name, [_cell(cell, r, s) for r in results for s in stores]))

    add("atoms / edges", lambda r, s: f"{r['atoms']:.0e} / {r['gen']['repair']['edges']:.2e}")
    add("edge build s (index; chains: buckets)", lambda r, s: f"{r['gen']['repair']['edge_build_s']} ; "
        f"{r['gen']['chain']['edge_build_s']}")
    load_rate = lambda r, s: (r["atoms"] + r["gen"]["repair"]["edges"]) / r[s]["load"]["repair"]["load_s"]
    add("load s (atoms+edges/s)", lambda r, s: f"{r[s]['load']['repair']['load_s']} ({load_rate(r, s):,.0f}/s)")
    add("load peak RSS MB / CPU s", lambda r, s: f"{r[s]['load']['rss_mb']:.0f} / {r[s]['load']['cpu_s']}")
    add("Ladybug COPY from Parquet, auto-commit (not `write`) s", lambda r, s: f"{r[s]['copyload']['repair']['copy_s']}")
    add("(c) one query per row, rows/s", lambda r, s: f"{r[s]['rowload']['rows_per_s']:,.0f}")
    add("load vs (c)", lambda r, s: _ratio(load_rate(r, s), r[s]["rowload"]["rows_per_s"]))
    for n in LEVELS:
        w = lambda r, s, v, n=n: r[s][f"walk_repair_{v}"][f"N{n}"]
        add(f"N={n} walks/s: frontier path", lambda r, s, w=w: f"{w(r, s, 'fast')['walks_per_s']:,.0f}")
        add(f"N={n} walks/s: batched Cypher step", lambda r, s, w=w: f"{w(r, s, 'cypher')['walks_per_s']:,.0f}")
        add(f"N={n} walks/s: (a) naive Cypher", lambda r, s, w=w: f"{w(r, s, 'naive')['walks_per_s']:,.1f}")
        add(f"N={n} walks/s: (b) NetworkX excl. / incl. build",
            lambda r, s, n=n: f"{r['nx'][f'N{n}']['walks_per_s']:,.0f} / {r['nx'][f'N{n}']['walks_per_s_incl_build']:,.0f}")
        add(f"N={n} frontier vs (a)",
            lambda r, s, w=w: _ratio(w(r, s, "fast")["walks_per_s"], w(r, s, "naive")["walks_per_s"]))
        add(f"N={n} frontier vs (b) excl. / incl. build", lambda r, s, w=w, n=n: (
            f"{_ratio(w(r, s, 'fast')['walks_per_s'], r['nx'][f'N{n}']['walks_per_s'])} / "
            f"{_ratio(w(r, s, 'fast')['walks'] / (w(r, s, 'fast')['walk_s'] + w(r, s, 'fast')['setup_s']), r['nx'][f'N{n}']['walks_per_s_incl_build'])}"))
        add(f"N={n} ms/step: frontier / Cypher step / NX", lambda r, s, w=w, n=n: (
            f"{w(r, s, 'fast')['ms_per_step']:.3g} / {w(r, s, 'cypher')['ms_per_step']:.3g} / "
            f"{r['nx'][f'N{n}']['ms_per_step']:.3g}"))
        cpu = lambda x, n=n: 1000 * x["walk_cpu_s"] / (x["walks"] * (n - 1))
        add(f"N={n} CPU ms/step: frontier / Cypher step / NX", lambda r, s, w=w, cpu=cpu, n=n: (
            f"{cpu(w(r, s, 'fast')):.3g} / {cpu(w(r, s, 'cypher')):.3g} / {cpu(r['nx'][f'N{n}']):.3g}"))
        per_walk = lambda x: x["walk_cpu_s"] / x["walks"]
        add(f"N={n} by process CPU s per walk: frontier vs (a) / vs (b) excl. build",
            lambda r, s, w=w, n=n, per_walk=per_walk: (
                f"{_ratio(per_walk(w(r, s, 'naive')), per_walk(w(r, s, 'fast')))} / "
                f"{_ratio(per_walk(r['nx'][f'N{n}']), per_walk(w(r, s, 'fast')))}"))
        add(f"N={n} chains walks/s: frontier / Cypher step", lambda r, s, n=n: (
            f"{r[s]['walk_chain_fast'][f'N{n}']['walks_per_s']:,.0f} / "
            f"{r[s]['walk_chain_cypher'][f'N{n}']['walks_per_s']:,.0f}"))
    add("walker setup s (atom index)", lambda r, s: f"{r[s]['walk_repair_fast']['N10']['setup_s']}")
    add("peak RSS MB: frontier walk / NX", lambda r, s: f"{r[s]['walk_repair_fast']['rss_mb']:.0f} / "
        f"{r['nx']['rss_mb']:.0f}")
    return rows


def render(rows: list[tuple[str, list[str]]], results: list[dict], stores: list[str]) -> str:
    head = ["metric"] + [f"{r['atoms']:.0e} {s}" for r in results for s in stores]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join([name, *cells]) + " |" for name, cells in rows]
    return "\n".join(lines)


def plot(results: list[dict], stores: list[str], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def series(ax, get, style: str, label: str) -> None:
        points = []
        for r in results:
            try:
                points.append((r["atoms"], get(r)))
            except KeyError:  # not measured at this size
                pass
        if points:
            ax.plot(*zip(*points, strict=True), style, label=label)

    fig, (steps, load, mem) = plt.subplots(1, 3, figsize=(16, 4.8))
    for s in stores:
        for variant, style, name in (("fast", "-o", "frontier path"), ("cypher", "--s", "batched Cypher step"),
                                     ("naive", ":^", "(a) naive Cypher")):
            series(steps, lambda r, s=s, v=variant: r[s][f"walk_repair_{v}"]["N10"]["ms_per_step"], style,
                   f"{s} {name}")
        series(load, lambda r, s=s: r[s]["load"]["repair"]["load_s"], "-o", f"{s} write")
        series(load, lambda r, s=s: r[s]["copyload"]["repair"]["copy_s"], "-s", f"{s} COPY from Parquet (engine path)")
        series(load, lambda r, s=s: (r["atoms"] + r["gen"]["repair"]["edges"]) / r[s]["rowload"]["rows_per_s"],
               ":^", f"{s} (c) one query per row (extrapolated)")
        series(mem, lambda r, s=s: r[s]["walk_repair_fast"]["rss_mb"], "-o", f"{s} frontier walk")
        series(mem, lambda r, s=s: r[s]["load"]["rss_mb"], "--s", f"{s} load")
    series(steps, lambda r: r["nx"]["N10"]["ms_per_step"], "-.d", "(b) NetworkX in memory")
    series(mem, lambda r: r["nx"]["rss_mb"], "-.d", "(b) NetworkX")
    for ax, title, unit in ((steps, "cost per walk step, N = 10, batches of 1,000", "ms per step per walk"),
                            (load, "loading the repair-like graph", "seconds"),
                            (mem, "peak RSS of the Python process", "MB")):
        ax.set(xscale="log", yscale="log", title=title, xlabel="atoms (about 5 edges each)", ylabel=unit)
        ax.legend(fontsize=7)
        ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1e4,1e5", help="atom counts, comma-separated (e.g. 1e4,1e5,1e6)")
    ap.add_argument("--stores", default="ladybug,neo4j")
    ap.add_argument("--neo4j", default="bolt://127.0.0.1:7690", help="a Neo4j the benchmark may wipe")
    ap.add_argument("--neo4j-max-size", type=float, default=float("inf"), help="skip Neo4j above this size")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--work", default="/tmp/codewalk-bench", help="scratch space for graphs and stores")
    ap.add_argument("--reuse", action="store_true", help="reuse the parts measured before in --work")
    ap.add_argument("--report-only", action="store_true", help="measure nothing: report the parts in --work")
    ap.add_argument("--no-chains", action="store_true", help="skip loading and walking the typed chains")
    ap.add_argument("--copy-load-from", type=float, default=float("inf"),
                    help="from this size on, fill Ladybug by COPY from Parquet instead of measuring `write`")
    ap.add_argument("--phase", help=argparse.SUPPRESS)
    ap.add_argument("--size", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--store", help=argparse.SUPPRESS)
    ap.add_argument("--variant", help=argparse.SUPPRESS)
    ap.add_argument("--kind", help=argparse.SUPPRESS)
    ap.add_argument("--level", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.phase:
        extra = {k: v for k, v in (("store", args.store), ("variant", args.variant), ("kind", args.kind),
                                   ("level", args.level)) if v}
        result = PHASES[args.phase](args.size, Path(args.work), **extra)
        print(json.dumps({**result, **_usage()}))
        return
    stores = args.stores.split(",")
    root = Path(args.work)
    if not (args.reuse or args.report_only) and root.exists():
        shutil.rmtree(root)
    results = [bench_size(int(float(x)), stores, args.neo4j, root, not args.no_chains, args.copy_load_from,
                          args.report_only, args.neo4j_max_size) for x in args.sizes.split(",")]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    import ladybug
    import neo4j

    meta = {"command": " ".join(sys.argv), "created": stamp, "cpus": os.cpu_count(), "python": sys.version.split()[0],
            "ladybug": ladybug.__version__, "neo4j_driver": neo4j.__version__, "walks_per_batch": BATCH, "walks_measured": WALKS,
            "naive_cap_s": NAIVE_CAP_S, "cypher_cap_s": CYPHER_CAP_S, "uptime": _uptime()}
    (out / f"walks-{stamp}.json").write_text(json.dumps({"meta": meta, "results": results}, indent=1))
    plot(results, stores, out / f"walks-{stamp}.png")
    print(render(table(results, stores), results, stores))
    print(f"\n{out / f'walks-{stamp}.json'}, {out / f'walks-{stamp}.png'}")


if __name__ == "__main__":
    main()
