"""A release at its plan's scale: wall time, tasks per hour, admitted / attempted by level, where the time went,
and the time `cw release verify` takes.

    python bench/release.py --domain demo                          # a fresh store of the demo catalogue
    python bench/release.py --domain repair --store PATH --runtime docker --workers 2
    python bench/release.py --domain complexity --store PATH --plan PLAN.toml

--store names a store the domain is already loaded in (the load is not timed; a release resumes, so the same
store and command again continue a level a session could not finish, and the figures say how much this run
walked). Without --store only the demo domain can run: its catalogue is loaded into a new store. The release
goes to --out (default: a new temporary folder). Where the time went is summed over the level's walks from
admission's own meter (`WalkSummary.cost_report`): the verifiers' processes, codewalk's share of the workers'
time, this process's walk, reads, waits and writes; a level's wall time also holds the recheck of its admitted
tasks (`release.Recheck`: each reference against V_G again, then leave-one-out, none where the home's cache has
the verdict), which is outside the walks' meter. Writes the record under the domain's name in --results
(a JSON object by domain, the other domains' records kept).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from codewalk import release  # noqa: E402
from codewalk.admission import WalkSummary  # noqa: E402
from codewalk.cli import _on_sigterm  # noqa: E402
from codewalk.loaders.demo import CATALOGUE  # noqa: E402
from codewalk.loading import load  # noqa: E402
from codewalk.store import open_store  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--domain", required=True)
    ap.add_argument("--store", help="a store the domain is loaded in (default: demo only, a new store)")
    ap.add_argument("--plan", type=Path)
    ap.add_argument("--seed", type=int)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--runtime")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--results", type=Path, default=ROOT / "bench" / "results" / "release.json")
    args = ap.parse_args()
    # as `cw release` takes it: SIGTERM is Ctrl-C (finished tasks saved), passed on to the verifier processes
    # as SIGINT, so no pool worker outlives a stopped build
    signal.signal(signal.SIGTERM, _on_sigterm)
    scratch = Path(tempfile.mkdtemp(prefix="codewalk-release-bench-"))
    if args.store is None and args.domain != "demo":
        ap.error("--store: only the demo domain is loaded by this script")
    plan = release.read_plan(args.domain, args.plan, args.seed)
    walks: dict[str, WalkSummary] = {}

    def on_task(task, summary: WalkSummary) -> None:
        walks[summary.run] = summary

    levels: dict[int, float] = {}
    loads: dict[int, str] = {}  # the load average (1, 5, 15 min) as each level ended: the machine is shared
    started = time.monotonic()

    def on_level(level, account) -> None:
        if account is None:
            levels[level.n] = time.monotonic()
        else:
            levels[level.n] = time.monotonic() - levels[level.n]
            loads[level.n] = " ".join(f"{x:.1f}" for x in os.getloadavg())
            print(f"N={level.n}: {account.released} of {level.tasks} released, {account.admitted} admitted of "
                  f"{account.attempted} attempted, {account.walked} walked now, {levels[level.n]:.1f}s", flush=True)

    with open_store(args.store or scratch / "graph.lbug") as store:
        if args.store is None:
            load(store, "demo", Path(CATALOGUE))
        summary = release.build(store, plan, args.out or scratch / "release", plan_path=args.plan,
                                workers=args.workers, runtime=args.runtime, on_level=on_level, on_task=on_task)
    seconds = time.monotonic() - started
    mark = time.monotonic()
    verified = release.verify(Path(summary.out), runtime=args.runtime, workers=args.workers)
    verify_seconds = time.monotonic() - mark
    cost: dict[int, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for w in walks.values():
        report = w.cost_report()
        into = cost[w.level]
        into["walk seconds"] += w.seconds
        into["in tool processes (worker-s)"] += w.cost.busy
        into["worker slots (worker-s)"] += w.seconds * w.workers
        for k, v in report["main"].items():
            into[f"main: {k}"] += v
    records = json.loads(args.results.read_text(encoding="utf-8")) if args.results.exists() else {}
    before = {lv["n"]: lv for lv in records.get(args.domain, {}).get("levels", [])}
    record = {
        "domain": args.domain, "plan": plan.digest, "seed": plan.seed, "workers": args.workers,
        "runtime": args.runtime or "local", "seconds": round(seconds, 1), "verify_seconds": round(verify_seconds, 1),
        "verified": verified.ok, "verify_failed": [t["task"] for t in verified.tasks if not t["ok"]][:20],
        "tasks": summary.tasks, "tasks_per_hour": round(summary.tasks / seconds * 3600, 1) if seconds else None,
        "load_average_end": " ".join(f"{x:.1f}" for x in os.getloadavg()),
        "levels": [_measured(a.as_dict(), levels.get(a.n, 0.0), cost[a.n], loads.get(a.n, ""), before.get(a.n))
                   for a in summary.levels],
        "out": summary.out,
    }
    args.results.parent.mkdir(parents=True, exist_ok=True)
    records[args.domain] = record
    args.results.write_text(json.dumps(records, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in record.items() if k != "levels"}, indent=1))


def _measured(account: dict, seconds: float, cost: dict[str, float], load: str, before: dict | None) -> dict:
    """A level's record. A level this run found already walked (a release resumed level by level across
    sessions: walked 0) keeps the timing of the run that walked it, marked as such."""
    if not account["walked"] and before and before.get("walked"):
        kept = {k: before[k] for k in ("seconds", "cost", "codewalk_share", "load_average", "walked") if k in before}
        return {**account, **kept, "measured": before.get("measured", "in an earlier run")}
    share = (round(1 - cost["in tool processes (worker-s)"] / cost["worker slots (worker-s)"], 3)
             if cost["worker slots (worker-s)"] else None)
    return {**account, "seconds": round(seconds, 1), "cost": {k: round(v, 2) for k, v in cost.items()},
            "codewalk_share": share, "load_average": load, "measured": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the tasks admitted so far are in the store; a rerun resumes
        sys.exit("interrupted: the tasks admitted so far are stored; the same command resumes the build")
