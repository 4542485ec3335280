"""Where admission's time goes, per domain: attempts per second, time inside verifier processes,
codewalk's own share, and the results reused instead of recomputed.

    python bench/admission.py --workers 2
    python bench/admission.py --domains demo --executors local,dask-local   # executors compared
    python bench/admission.py --domains repair --runtime docker   # repair in containers (DOCKER_HOST)
    python bench/admission.py --domains repair --repair-rows ROWS   # a mined repository (cw mine repair)

Per domain: a fresh embedded store with the domain's atoms (demo: the catalogue; repair: the test
repository of tests/repair_fixture.py; clones: the confirmed FEMPD pairs of
bench/results/clones_verdicts.jsonl; complexity: CodeComplex; proofs: ACSL by Example), loaded with the
usual cache and not timed. Then the real loop, `walk_and_admit` as `cw walk` runs it, at its level with
--workers, on an EMPTY verifier cache (CODEWALK_CACHE points to a new folder): every verdict, environment,
compiled harness is computed in the run, and a hit means a result reused within it. pip's download cache
stays the user's, so the repair environment does not measure the network.

The figures come from codewalk.runtime.meter (every process `sandbox.run` starts, every cache lookup) and the
walk's own clock: wall time; attempts/s; "in processes", the time at least one tool process ran in a
worker (from its exec), as a share of workers x wall (the baseline: a loop that did nothing but run the
verifiers would reach 100 %); codewalk's share, the rest, split into the workers' Python (compose, parsing,
sandbox set-up and process start-up: fork, limits, cgroup, shown apart as "(start)") and slots left idle
(pool start-up, waiting for the walk or the writes; "(end)": the part while the run's last groups finish
one by one), apart from waits for a lock another worker held (one worker
builds the repair environment, the other waits for it); this process's walk, atom reads, waits and writes.
With --runtime docker (repair), the containers' own cost (start, copy of the tree, teardown) is reported
beside the tests' time in them, as a share of the walk's wall time; the tests' run in a container counts as
"in processes". The environment's image is built in the run if the daemon does not have it yet.
Writes --out (JSON) and prints a table.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from codewalk import paths
from codewalk.admission import WalkSummary, walk_and_admit
from codewalk.loaders.demo import CATALOGUE
from codewalk.loading import load
from codewalk.store import GraphStore, open_store
from codewalk.store.columns import graph_tables

RESULTS = ROOT / "bench" / "results"


def load_demo(store: GraphStore, scratch: Path) -> None:
    load(store, "demo", Path(CATALOGUE))


REPAIR_ROWS: Path | None = None  # --repair-rows: rows `cw mine repair` wrote, instead of the test repository


def load_repair(store: GraphStore, scratch: Path) -> None:
    from tests import repair_fixture

    if REPAIR_ROWS:  # each row names the clone it was mined from
        load(store, "repair", REPAIR_ROWS, {}, runtime="local")
        return
    fixture = repair_fixture.build(scratch / "tally")
    load(store, "repair", fixture.write_rows(scratch / "rows.jsonl"), {"repos": str(fixture.repos)},
         runtime="local")  # an image the docker runtime needs is built in the measured run


def load_clones(store: GraphStore, scratch: Path) -> None:
    # The atoms `cw load clones` keeps, from the stored verdicts (re-verifying 2,194 pairs takes ~8 min).
    from codewalk.domains.clones import ClonesDomain, atom, verdicts
    from codewalk.domains.clones.verify import Verification
    from codewalk.loaders import fempd

    stored = verdicts.read(RESULTS / "clones_verdicts.jsonl")
    confirmed = [r for r in (Verification.from_record(p, stored[p.pair_id])
                             for p in fempd.read(paths.dataset("fempd")) if p.pair_id in stored) if r.confirmed]
    atoms = [atom(r) for r in confirmed]
    store.write(*graph_tables(atoms, list(ClonesDomain().edges(atoms))))


def load_complexity(store: GraphStore, scratch: Path) -> None:
    load(store, "complexity", paths.dataset("codecomplex") / "python_test.jsonl", {"workers": 2})


def load_proofs(store: GraphStore, scratch: Path) -> None:
    load(store, "proofs", paths.dataset("acsl-bench") / "acsl-by-example", {"backend": "acsl"})


# domain -> (how its store is filled, the level walked, walk options, groups attempted: a few minutes each;
# the repair fixture has 15 groups at N = 2)
DOMAINS: dict[str, tuple[Callable[[GraphStore, Path], None], int, dict[str, str], int]] = {
    "demo": (load_demo, 3, {}, 400),
    "repair": (load_repair, 2, {}, 40),
    "clones": (load_clones, 3, {}, 40),
    "complexity": (load_complexity, 2, {}, 1000),  # most groups end at check (1), before any run
    "proofs": (load_proofs, 2, {"backend": "acsl"}, 40),
}


@contextlib.contextmanager
def empty_cache(folder: Path) -> Iterator[None]:
    """CODEWALK_CACHE on an empty folder (worker processes inherit it); pip keeps the user's downloads."""
    saved = {k: os.environ.get(k) for k in ("CODEWALK_CACHE", "PIP_CACHE_DIR")}
    os.environ["PIP_CACHE_DIR"] = saved["PIP_CACHE_DIR"] or str(paths.cache("pip"))
    os.environ["CODEWALK_CACHE"] = str(folder)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@contextlib.contextmanager
def executor(spec: str, workers: int) -> Iterator[tuple[str, float]]:
    """The executor spec to pass, and its start-up time: dask-local's cluster is started here (reported
    apart) and used through dask://HOST:PORT, as a remote cluster would be."""
    if spec != "dask-local":
        yield spec, 0.0
        return
    from distributed import LocalCluster

    started = time.monotonic()
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
    try:
        yield "dask://" + cluster.scheduler_address.removeprefix("tcp://"), time.monotonic() - started
    finally:
        cluster.close()


def figures(s: WalkSummary, startup: float) -> dict:
    cost = s.cost_report()
    slots = s.seconds * s.workers
    # the workers' time in evaluate outside processes and outside waits for a lock another worker held
    python = max(0.0, s.cost.seconds - s.cost.busy - s.cost.waited)
    return {
        "attempted": s.attempted, "admitted": s.admitted, "by_reason": dict(s.by_reason),
        "seconds": round(s.seconds, 2), "attempts_per_s": round(s.attempted / s.seconds, 3) if s.seconds else None,
        "executor_startup_s": round(startup, 2),
        "in_processes_s": round(s.cost.busy, 2), "in_processes_share": cost["in_processes_share"],
        # codewalk's own: the workers' Python and idle slots (not a wait for another worker's tool run)
        "codewalk_share": round(1 - (s.cost.busy + s.cost.waited) / slots, 4) if slots else None,
        "worker_python_share": round(python / slots, 4) if slots else None,
        "start_up_share": round(s.cost.start_up / slots, 4) if slots else None,  # part of the workers' Python
        "lock_wait_share": round(s.cost.waited / slots, 4) if slots else None,
        "idle_share": round(max(0.0, slots - s.cost.seconds) / slots, 4) if slots else None,
        "tail_share": round(cost["idle_at_the_end"] / slots, 4) if slots else None,
        "processes": cost["processes"], "main": cost["main"], "reuse": cost["reuse"],
        # the docker runtime's containers: their start, the copy of the tree, their removal (seconds, summed)
        "container_overhead": cost.get("overheads", {}),
        "container_overhead_share": round(sum(cost.get("overheads", {}).values()) / slots, 4)
        if slots and cost.get("overheads") else None,
        # codewalk's share with the containers' cost taken out (it is the daemon's, reported above)
        "codewalk_share_without_containers": round(1 - (s.cost.busy + s.cost.waited
                                                        + sum(cost.get("overheads", {}).values())) / slots, 4)
        if slots and cost.get("overheads") else None,
        # groups already running when the count was reached, finished and not kept (inside "idle" above)
        "dropped": {"groups": s.dropped.groups, "seconds": round(s.dropped.seconds, 2),
                    "share": round(s.dropped.seconds / slots, 4) if slots else None},
        "admitted_ids": s.admitted_ids, "loadavg": round(os.getloadavg()[0], 2),
    }


def run(domain: str, spec: str, args: argparse.Namespace) -> dict:
    fill, level, options, attempts = DOMAINS[domain]
    attempts = args.attempts or attempts
    with tempfile.TemporaryDirectory(prefix=f"admission-{domain}-") as tmp:
        scratch = Path(tmp)
        with open_store(scratch / "graph.lbug") as store:
            started = time.monotonic()
            fill(store, scratch)
            load_s = time.monotonic() - started
            with empty_cache(scratch / "cache"), executor(spec, args.workers) as (address, startup):
                s = walk_and_admit(store, domain, args.level or level, count=attempts, seed=args.seed,
                                   max_attempts=attempts, workers=args.workers, executor=address,
                                   options=options, runtime=args.runtime if domain == "repair" else "local")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout
    return {"domain": domain, "executor": spec, "runtime": args.runtime if domain == "repair" else "local",
            "level": args.level or level, "load_s": round(load_s, 1),
            "measured": time.strftime("%Y-%m-%d %H:%M"), "commit": commit.strip(), **figures(s, startup)}


def _pct(share: float | None) -> str:
    return "-" if share is None else f"{share:.1%}"  # rows measured before the figure existed have none


def table(rows: list[dict]) -> str:
    head = (f"{'domain':11} {'executor':10} {'N':>2} {'tried':>5} {'adm':>4} {'wall s':>7} {'tries/s':>8} "
            f"{'in procs':>8} {'locks':>6} {'codewalk':>8} {'= python':>8} {'(start)':>7} {'+ idle':>7} {'(end)':>6}  "
            "main: walk/atoms/wait/writes s")
    lines = [head, "-" * len(head)]
    for r in sorted(rows, key=lambda r: list(DOMAINS).index(r["domain"])):
        m = r["main"]
        lines.append(f"{r['domain']:11} {r['executor']:10} {r['level']:>2} {r['attempted']:>5} {r['admitted']:>4} "
                     f"{r['seconds']:>7.1f} {r['attempts_per_s']:>8.2f} {r['in_processes_share']:>8.1%} "
                     f"{r['lock_wait_share']:>6.1%} {r['codewalk_share']:>8.1%} {r['worker_python_share']:>8.1%} "
                     f"{_pct(r.get('start_up_share')):>7} {r['idle_share']:>7.1%} {_pct(r.get('tail_share')):>6}  "
                     + "/".join(f"{m.get(k, 0):.2f}" for k in ("walk", "atoms", "wait", "writes")))
    lines.append("")
    for r in rows:
        procs = ", ".join(f"{p} {v['runs']} runs {v['seconds']:.1f} s" for p, v in r["processes"].items())
        lines.append(f"{r['domain']} processes: {procs or 'none'}")
        if r.get("container_overhead"):
            parts = ", ".join(f"{k.removeprefix('docker: ')} {v:.1f} s" for k, v in r["container_overhead"].items())
            lines.append(f"{r['domain']} containers ({r['runtime']}): {parts}, "
                         f"{r['container_overhead_share']:.1%} of workers x wall; codewalk's share without them "
                         f"{_pct(r.get('codewalk_share_without_containers'))}")
        if r.get("dropped", {}).get("groups"):
            d = r["dropped"]
            lines.append(f"{r['domain']} dropped: {d['groups']} groups running when the count was reached, "
                         f"{d['seconds']:.1f} s ({d['share']:.1%} of workers x wall, inside idle)")
        reuse = ", ".join(f"{c} {v['hits']}/{v['hits'] + v['misses']} ({v['hits'] / (v['hits'] + v['misses']):.0%})"
                          for c, v in r["reuse"].items())
        lines.append(f"{r['domain']} reused (hits/lookups): {reuse or 'no cache: every group is new work'}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--domains", default=",".join(DOMAINS))
    ap.add_argument("--executors", default="local", help="local, dask-local (each domain runs on each)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--attempts", type=int, default=0, help="groups attempted in every domain (default: each its own)")
    ap.add_argument("--level", type=int, default=0, help="N for every domain (default: each domain's own)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--runtime", default="local", choices=("local", "docker"), help="repair's runtime")
    ap.add_argument("--repair-rows", type=Path, help="repair: rows from `cw mine repair` (a real repository's "
                    "tests) instead of the test repository")
    ap.add_argument("--out", type=Path, default=RESULTS / "admission.json")
    ap.add_argument("--update", action="store_true",
                    help="keep the other domains' rows of --out (each row says when and at which commit it was measured)")
    args = ap.parse_args()
    global REPAIR_ROWS
    REPAIR_ROWS = args.repair_rows.resolve() if args.repair_rows else None
    rows: list[dict] = []
    if args.update and args.out.exists():  # re-measure some domains, keep the others' rows
        wanted = {(d, e) for d in args.domains.split(",") for e in args.executors.split(",")}
        rows = [r for r in json.loads(args.out.read_text())["results"] if (r["domain"], r["executor"]) not in wanted]
        for r in rows:  # derived, in case the row predates leaving lock waits out of it
            r["codewalk_share"] = round(r["worker_python_share"] + r["idle_share"], 4)
    for domain in args.domains.split(","):
        for spec in args.executors.split(","):
            rows.append(run(domain, spec, args))
            r = rows[-1]
            print(f"{domain} on {spec}: {r['attempted']} attempts in {r['seconds']:.1f} s, in processes "
                  f"{r['in_processes_share']:.1%} of {args.workers} x wall (load average {r['loadavg']})", flush=True)
            write(args, rows)  # after each domain: a long run that stops keeps what it measured
    print("\n" + table(rows))
    if len(args.executors.split(",")) > 1:
        print("same admitted tasks on every executor:", same_tasks(rows))


def same_tasks(rows: list[dict]) -> dict[str, bool]:
    return {d: len({json.dumps(r["admitted_ids"]) for r in rows if r["domain"] == d}) == 1
            for d in dict.fromkeys(r["domain"] for r in rows)}


def write(args: argparse.Namespace, rows: list[dict]) -> None:
    args.out.parent.mkdir(parents=True, exist_ok=True)
    command = " ".join(["python", *sys.argv])
    args.out.write_text(json.dumps({"command": command, "workers": args.workers,
                                    "same_admitted_per_domain": same_tasks(rows), "results": rows}, indent=1))
    args.out.with_suffix(".txt").write_text(f"$ {command}\n\n{table(rows)}\n")


if __name__ == "__main__":
    main()
