"""Loading 10^6 repair-like atoms and their edges into both stores, with the baselines, in one run.

    python bench/load.py --size 1e6 --stores ladybug,neo4j --baseline

prints one table and writes bench/results/load.txt and load.json. Each measurement runs in a fresh
Python process (its peak RSS is its own) and records its process CPU seconds and the load average
before and after: wall seconds on a shared machine say little without them.

Ladybug (a fresh store each time, one transaction each, all or nothing):
* tables: the store's `write` from Arrow tables read off Parquet: the columnar path, no Python records;
* records: `write` from lists of Atom and Edge records made into tables (`graph_tables`), as a domain
  that yields records is loaded (the records are built before the clock starts; their build time is
  printed apart);
* baseline (--baseline): the engine alone, the same COPYs in one transaction, with `files` kept as
  STRING[] on SHARES_FILE (schema version 1) and as the joined STRING (version 2).
Neo4j (--neo4j-home: a folder for the servers this benchmark starts, stops and overwrites):
* bulk: `import_graph` (what `cw db import` runs) end to end: CSV files written from the Arrow
  tables, Neo4j's importer, the server started on the imported database, constraints and indexes
  created and populated; then the walker's set-up on that database (atom index and relation read),
  with the reads in column chunks (now) and as one record per atom (before);
* UNWIND (baseline): `write` (records, `graph_tables`) into a fresh server at --unwind-size atoms, extrapolated (the server
  gets a 4 GB heap and 3 GB of transaction memory: one transaction of 10^5 atoms passes the default).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.phases import fresh, run_phase  # noqa: E402

SEED = 7
DOMAIN = "benchrepair"


def _usage() -> dict:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return {"rss_mb": round(r.ru_maxrss / 1024, 1), "cpu_s": round(r.ru_utime + r.ru_stime, 2)}


# -- the graph, generated once per size --------------------------------------------------------------
def phase_gen(size: int, work: Path) -> dict:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from bench.graphs import repair_atoms, shares_file_edges

    started = time.perf_counter()
    atoms = list(repair_atoms(size, SEED))
    pq.write_table(pa.table({"id": [a.id for a in atoms], "repo": [a.summary["repo"] for a in atoms],
                             "files": [a.summary["files"] for a in atoms]}), work / "atoms.parquet")
    src, dst, files = [], [], []
    for e in shares_file_edges(atoms):
        src.append(e.src)
        dst.append(e.dst)
        files.append(list(e.files))
    pq.write_table(pa.table({"src": src, "dst": dst, "files": files}), work / "edges.parquet")
    return {"atoms": len(atoms), "edges": len(src), "gen_s": round(time.perf_counter() - started, 1)}


def _tables(work: Path):
    """The graph as the stores' Arrow tables (Ladybug's column layout)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from codewalk.store.columns import ATOM_SCHEMA, SEP

    read = pq.read_table(work / "atoms.parquet").combine_chunks()
    n = read.num_rows
    given = {"id": read["id"], "domain": pa.array([DOMAIN] * n), "repo": read["repo"], "files": read["files"],
             "payload": pa.array(["{}"] * n)}
    blank = {pa.string(): "", ATOM_SCHEMA.field("files").type: []}
    atoms = pa.table({f.name: given.get(f.name, pa.array([blank[f.type]] * n, f.type)) for f in ATOM_SCHEMA},
                     schema=ATOM_SCHEMA)
    edges = pq.read_table(work / "edges.parquet").combine_chunks()
    edges = pa.table({"src": edges["src"], "dst": edges["dst"], "files": pc.binary_join(edges["files"], SEP)})
    return atoms, edges


def _records(work: Path, size: int | None = None):
    """Atom and Edge records, as `cw load` passes them; `size`: the first `size` atoms and the edges
    between them only."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from codewalk.records import Atom, Edge

    a = pq.read_table(work / "atoms.parquet")
    if size is not None:
        a = a.slice(0, size)
    atoms = [Atom(i, DOMAIN, {"repo": r, "files": f})
             for i, r, f in zip(a["id"].to_pylist(), a["repo"].to_pylist(), a["files"].to_pylist(), strict=True)]
    e = pq.read_table(work / "edges.parquet")
    if size is not None:
        ids = a["id"].combine_chunks()
        e = e.filter(pc.and_(pc.is_in(e["src"], value_set=ids), pc.is_in(e["dst"], value_set=ids)))
    edges = [Edge(s, d, "SHARES_FILE", files=tuple(f))
             for s, d, f in zip(e["src"].to_pylist(), e["dst"].to_pylist(), e["files"].to_pylist(), strict=True)]
    return atoms, edges


def _slices(table, rows: int) -> list:
    return [table.slice(i, rows) for i in range(0, table.num_rows, rows)]


def _check_ladybug(store, atoms: int, edges: int) -> None:
    found = store.run("MATCH (a:Atom) RETURN count(a) AS n")[0]["n"], \
        store.run("MATCH ()-[e:SHARES_FILE]->() RETURN count(e) AS n")[0]["n"]
    if found != (atoms, edges):
        raise SystemExit(f"stored {found}, wrote {(atoms, edges)}")


# -- Ladybug ---------------------------------------------------------------------------------------
def phase_ladybug_tables(work: Path) -> dict:
    from codewalk.store import open_store
    from codewalk.store.ladybug import CHUNK

    atoms, edges = _tables(work)
    with open_store(fresh(work / "tables.lbug")) as store:
        cpu, started = _usage()["cpu_s"], time.perf_counter()
        store.write(_slices(atoms, CHUNK), [("SHARES_FILE", t) for t in _slices(edges, 10 * CHUNK)])
        out = {"write_s": round(time.perf_counter() - started, 2), "write_cpu_s": round(_usage()["cpu_s"] - cpu, 2)}
        _check_ladybug(store, atoms.num_rows, edges.num_rows)
    fresh(work / "tables.lbug")
    return out


def phase_ladybug_records(work: Path) -> dict:
    from codewalk.store import open_store
    from codewalk.store.columns import graph_tables

    started = time.perf_counter()
    atoms, edges = _records(work)
    built = time.perf_counter() - started
    with open_store(fresh(work / "records.lbug")) as store:
        cpu, started = _usage()["cpu_s"], time.perf_counter()
        store.write(*graph_tables(atoms, edges))
        out = {"records_build_s": round(built, 1), "write_s": round(time.perf_counter() - started, 2),
               "write_cpu_s": round(_usage()["cpu_s"] - cpu, 2)}
        _check_ladybug(store, len(atoms), len(edges))
    fresh(work / "records.lbug")
    return out


def phase_ladybug_load(work: Path) -> dict:
    """`cw load` end to end (codewalk.loading.load, the function the command calls) by the columnar path:
    the atoms read from Parquet, the relation computed on columns, the checks, the write; the write's
    seconds (store.write, one transaction) are timed apart."""
    import bench.walks  # noqa: F401  (registers the benchrepair domain, with its columnar loader)
    from codewalk.loading import load
    from codewalk.store import open_store

    with open_store(fresh(work / "load.lbug")) as store:
        timed = {}
        store_write = store.write  # timed apart from the rest of the load

        def write(*args):
            started = time.perf_counter()
            store_write(*args)
            timed["write_s"] = round(time.perf_counter() - started, 2)

        store.write = write  # type: ignore[method-assign]
        cpu, started = _usage()["cpu_s"], time.perf_counter()
        summary = load(store, DOMAIN, work / "atoms.parquet")
        out = {"load_s": round(time.perf_counter() - started, 2), **timed,
               "load_cpu_s": round(_usage()["cpu_s"] - cpu, 2)}
        _check_ladybug(store, summary.atoms, summary.edges["SHARES_FILE"])
    fresh(work / "load.lbug")
    return out


def phase_ladybug_engine(work: Path, files_type: str) -> dict:
    """The engine alone: the atoms' and edges' COPYs and the COMMIT, no codewalk code in between."""
    import ladybug
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from codewalk.cypher_files import statements

    atoms, edges = _tables(work)
    if files_type == "STRING[]":
        edges = edges.set_column(2, "files", pq.read_table(work / "edges.parquet", columns=["files"])["files"])
    path = fresh(work / "engine.lbug")
    db = ladybug.Database(str(path))
    conn = ladybug.Connection(db)
    for statement in statements("schema", "ladybug"):
        conn.execute(statement.replace("SHARES_FILE(FROM Atom TO Atom, files STRING)",
                                       f"SHARES_FILE(FROM Atom TO Atom, files {files_type})"))
    cpu, started = _usage()["cpu_s"], time.perf_counter()
    conn.execute("BEGIN TRANSACTION")
    for part in _slices(atoms, 500_000):
        conn.execute("COPY Atom FROM $rows", {"rows": part})
    copied_atoms = time.perf_counter()
    conn.execute("COPY SHARES_FILE FROM $rows", {"rows": edges})
    copied_edges = time.perf_counter()
    conn.execute("COMMIT")
    done = time.perf_counter()
    count = conn.execute("MATCH ()-[e:SHARES_FILE]->() RETURN count(e)").get_all()[0][0]  # type: ignore[union-attr]
    conn.close()
    db.close()
    fresh(path)
    if count != edges.num_rows or pc.sum(pc.list_value_length(atoms["files"])).as_py() == 0:
        raise SystemExit("the engine baseline stored something else")
    return {"write_s": round(done - started, 2), "atoms_s": round(copied_atoms - started, 2),
            "edges_s": round(copied_edges - copied_atoms, 2), "commit_s": round(done - copied_edges, 2),
            "write_cpu_s": round(_usage()["cpu_s"] - cpu, 2)}


# -- Neo4j -------------------------------------------------------------------------------------------
# The walker's bulk reads before they returned column chunks (one record per atom), for the set-up baseline.
_ROW_READS = {
    "atom_index": "MATCH (a:Atom) WHERE a.domain = $domain RETURN a.id AS key, a.id AS id, a.label AS label, "
                  "a.source AS source",
    "relation_keys": "MATCH (a:Atom)-[:SHARES_FILE]->(b:Atom) WHERE a.domain = $domain AND ($lo IS NULL OR "
                     "a.id >= $lo) AND ($hi IS NULL OR a.id < $hi) RETURN a.id AS src, collect(b.id) AS dst",
}


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _walker_setup(store, rows: bool = False) -> float:
    """Seconds to set up a walker (atom index and relation read), as `cw walk` does before its first
    group; `rows`: with the reads as one record per atom (the baseline)."""
    import random

    import bench.walks  # noqa: F401  (registers the benchrepair domain)
    from codewalk.domain import get_domain
    from codewalk.walk import Walker

    if rows:
        store.read_columns = lambda name, params, rel=None: store.table(_ROW_READS[name], params)
    started = time.perf_counter()
    Walker(store, get_domain(DOMAIN), 10, random.Random(SEED))
    return round(time.perf_counter() - started, 2)


def phase_neo4j_bulk(work: Path, home: Path) -> dict:
    """`cw db import`'s path end to end (CSV files from the Arrow tables, Neo4j's importer, the server
    started on the imported database, constraints and indexes created and populated), then the
    walker's set-up on it, with the reads in column chunks and as one record per atom."""
    from codewalk import dbserver
    from codewalk.store.neo4j import import_graph

    atoms, edges = _tables(work)
    cpu, started = _usage()["cpu_s"], time.perf_counter()
    store = import_graph(home, [atoms], [("SHARES_FILE", edges)], bolt_port=_free_port(), http_port=_free_port())
    out = {"write_s": round(time.perf_counter() - started, 2), "write_cpu_s": round(_usage()["cpu_s"] - cpu, 2)}
    try:
        found = store.run("MATCH (a:Atom) RETURN count(a) AS n")[0]["n"], \
            store.run("MATCH ()-[e:SHARES_FILE]->() RETURN count(e) AS n")[0]["n"]
        if found != (atoms.num_rows, edges.num_rows):
            raise SystemExit(f"stored {found}, wrote {(atoms.num_rows, edges.num_rows)}")
        _walker_setup(store)  # warm the page cache and the query plans once, as any second walk finds them
        out["setup_chunks_s"] = _walker_setup(store)
        out["setup_rows_s"] = _walker_setup(store, rows=True)
        store.close()
    finally:
        dbserver.stop(home)
    return out


def phase_neo4j_unwind(work: Path, home: Path, size: int) -> dict:
    """The UNWIND upserts (`cw load` into any server) of the first `size` atoms and their edges, into a
    fresh local server, for the rate to extrapolate from."""
    from codewalk import dbserver
    from codewalk.store.columns import graph_tables
    from codewalk.store.neo4j import Neo4jStore

    atoms, edges = _records(work, size)
    shutil.rmtree(home, ignore_errors=True)
    # One transaction for the whole load (all or nothing) needs room: 10^5 atoms pass the default 512 MiB.
    os.environ.setdefault(dbserver.ENV_HEAP, "4g")
    os.environ.setdefault(dbserver.ENV_JAVA_OPTS, "-Dcodewalk.txmemory.mb=3072")
    info = dbserver.start(home, bolt_port=_free_port(), http_port=_free_port())
    try:
        with Neo4jStore(info.bolt_uri, *(dbserver.credentials(home) or (None, None))) as store:
            cpu, started = _usage()["cpu_s"], time.perf_counter()
            store.write(*graph_tables(atoms, edges))
            seconds = time.perf_counter() - started
        rows = len(atoms) + len(edges)
        return {"write_s": round(seconds, 2), "write_cpu_s": round(_usage()["cpu_s"] - cpu, 2), "atoms": len(atoms),
                "edges": len(edges), "rows_per_s": round(rows / seconds)}
    finally:
        dbserver.stop(home)


PHASES = {"gen": lambda size, work, **_: phase_gen(size, work),
          "neo4j_bulk": lambda size, work, home="", **_: phase_neo4j_bulk(work, Path(home)),
          "neo4j_unwind": lambda size, work, home="", unwind_size=0, **_: phase_neo4j_unwind(work, Path(home),
                                                                                             int(unwind_size)),
          "ladybug_tables": lambda size, work, **_: phase_ladybug_tables(work),
          "ladybug_records": lambda size, work, **_: phase_ladybug_records(work),
          "ladybug_load": lambda size, work, **_: phase_ladybug_load(work),
          "ladybug_engine": lambda size, work, files_type="", **_: phase_ladybug_engine(work, files_type)}


# -- driver -------------------------------------------------------------------------------------------
def _run(phase: str, size: int, work: Path, *args: str) -> dict:
    """One phase in a fresh process (bench/phases.py): its result, peak RSS, CPU seconds, load average."""
    result = run_phase(__file__, phase, "--size", str(size), "--work", str(work.parent), *args)
    print(f"  {phase} {' '.join(args)}: {json.dumps(result)}", file=sys.stderr)
    return result


def _row(name: str, r: dict, what: str = "write_s") -> str:
    load = "-".join(f"{x:.1f}" for x in r["loadavg"])
    return f"| {name} | {r[what]} | {r.get('write_cpu_s', '-')} | {r['rss_mb']:.0f} | {load} |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", default="1e6", help="atoms (about 4.75 edges each)")
    ap.add_argument("--stores", default="ladybug", help="ladybug, neo4j or both, comma-separated")
    ap.add_argument("--baseline", action="store_true", help="also the engine-only baselines (STRING[] takes ~100 s)")
    ap.add_argument("--work", default="/tmp/codewalk-load", help="scratch space (the generated graph is kept)")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "load"))
    ap.add_argument("--neo4j-home", default="/tmp/codewalk-load-neo4j",
                    help="Neo4j: a folder for the servers this benchmark starts, stops and overwrites")
    ap.add_argument("--unwind-size", default="1e5", help="Neo4j UNWIND baseline: atoms written (0: skip)")
    ap.add_argument("--phase", help=argparse.SUPPRESS)
    ap.add_argument("--files-type", help=argparse.SUPPRESS)
    args, extra = ap.parse_known_args()
    size = int(float(args.size))
    work = Path(args.work) / f"n{size}"
    if args.phase:
        options = {"files_type": args.files_type} if args.files_type else {}
        options.update(home=args.neo4j_home, unwind_size=str(int(float(args.unwind_size))))
        result = PHASES[args.phase](size, work, **options)
        print(json.dumps({**result, **_usage()}))
        return
    work.mkdir(parents=True, exist_ok=True)
    gen_file = work / "gen.json"
    if not gen_file.exists():
        gen_file.write_text(json.dumps(_run("gen", size, work)))
    gen = json.loads(gen_file.read_text())
    results: dict = {"gen": gen}
    lines = [f"{gen['atoms']:,} repair-like atoms, {gen['edges']:,} SHARES_FILE edges (bench/graphs.py, seed {SEED})",
             f"command: python bench/load.py {' '.join(sys.argv[1:])}", "",
             "| what | seconds | process CPU s | peak RSS MB | load average before-after |", "|---|---|---|---|---|"]
    if "ladybug" in args.stores:
        results["ladybug_tables"] = r = _run("ladybug_tables", size, work)
        lines.append(_row("Ladybug `write` (Arrow tables, one transaction)", r))
        results["ladybug_load"] = r = _run("ladybug_load", size, work)
        lines.append(f"| `cw load` end to end, columnar (Parquet read, relation on columns, checks, write): "
                     f"{r['load_s']} s, of which the write (`write`, one transaction) | {r['write_s']} | "
                     f"{r['load_cpu_s']} | {r['rss_mb']:.0f} | {'-'.join(f'{x:.1f}' for x in r['loadavg'])} |")
        results["ladybug_records"] = r = _run("ladybug_records", size, work)
        lines.append(_row(f"Ladybug `write` of Atom/Edge records (`graph_tables`, as `cw load`; building them: "
                          f"{r['records_build_s']} s, not counted)", r))
        if args.baseline:
            for files_type in ("STRING", "STRING[]"):
                results[f"ladybug_engine_{files_type}"] = r = _run("ladybug_engine", size, work, "--files-type", files_type)
                lines.append(_row(f"baseline: the engine's COPYs + COMMIT alone, `files {files_type}` (atoms "
                                  f"{r['atoms_s']} s, edges {r['edges_s']} s, COMMIT {r['commit_s']} s)", r))
    if "neo4j" in args.stores:
        home = ["--neo4j-home", args.neo4j_home]
        results["neo4j_bulk"] = r = _run("neo4j_bulk", size, work, *home)
        lines.append(_row("Neo4j `cw db import` path: CSV, `neo4j-admin database import full`, server start, "
                          "constraints and indexes populated", r))
        lines.append(f"| Neo4j walker set-up on it (`cw walk` before its first group, N = 10): reads in column "
                     f"chunks {r['setup_chunks_s']} s; one record per atom (before) {r['setup_rows_s']} s | | | | |")
        unwind = int(float(args.unwind_size))
        if unwind:
            results["neo4j_unwind"] = r = _run("neo4j_unwind", size, work, *home, "--unwind-size", str(unwind))
            rows = gen["atoms"] + gen["edges"]
            lines.append(_row(f"baseline: Neo4j UNWIND upserts (`cw load`, any server) of {r['atoms']:,} atoms and "
                              f"{r['edges']:,} edges ({r['rows_per_s']:,} rows/s; all {rows:,} rows at that rate: "
                              f"{rows / r['rows_per_s']:.0f} s)", r))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    text = "\n".join(lines)
    print(text)
    out.with_suffix(".txt").write_text(text + "\n")
    out.with_suffix(".json").write_text(json.dumps({"command": " ".join(sys.argv), "cpus": os.cpu_count(),
                                                   "results": results}, indent=1))


if __name__ == "__main__":
    main()
