"""Admission throughput on the demo domain (real sandboxed verifier runs) per executor.

    python bench/admission.py --executors local,dask-local --workers 2 --attempts 60

Each executor gets a fresh embedded store with the demo graph and walks level 3 with the same seed;
prints attempts per second and checks that every executor admitted the same tasks. `dask-local` here
starts a Dask LocalCluster of --workers single-threaded processes first (its start-up is reported
apart) and runs admission against it through `dask://HOST:PORT`, as a remote cluster would be used.
Writes --out (JSON).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codewalk.admission import walk_and_admit
from codewalk.loaders.demo import CATALOGUE
from codewalk.loading import load
from codewalk.store import open_store


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--executors", default="local,dask-local")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--attempts", type=int, default=60)
    ap.add_argument("--level", type=int, default=3)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "admission.json"))
    args = ap.parse_args()
    results: dict = {}
    for spec in args.executors.split(","):
        cluster, startup = None, 0.0
        if spec == "dask-local":
            from distributed import LocalCluster

            started = time.perf_counter()
            cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                                   dashboard_address=None)
            startup = time.perf_counter() - started
            spec = "dask://" + cluster.scheduler_address.removeprefix("tcp://")
        with tempfile.TemporaryDirectory() as tmp, open_store(Path(tmp) / "g.lbug") as store:
            load(store, "demo", Path(CATALOGUE))
            started = time.perf_counter()
            s = walk_and_admit(store, "demo", args.level, count=args.attempts, seed=1, max_attempts=args.attempts,
                               workers=args.workers, executor=spec)
            elapsed = time.perf_counter() - started  # client connection included, cluster start-up not
        if cluster:
            cluster.close()
        results[spec] = {"attempted": s.attempted, "admitted": s.admitted, "seconds": round(elapsed, 2),
                         "cluster_startup_s": round(startup, 2), "by_reason": s.by_reason,
                         "attempts_per_s": round(s.attempted / elapsed, 2), "admitted_ids": s.admitted_ids,
                         "loadavg": round(os.getloadavg()[0], 2)}
        print(f"{spec:12} {s.attempted} attempts in {elapsed:.1f}s = {s.attempted / elapsed:.2f}/s "
              f"(admitted {s.admitted}, load average {os.getloadavg()[0]:.1f})")
    same = len({json.dumps(r["admitted_ids"]) for r in results.values()}) == 1
    print("same admitted tasks on every executor:", same)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"command": " ".join(sys.argv), "workers": args.workers,
                                          "same_admitted": same, "results": results}, indent=1))


if __name__ == "__main__":
    main()
