"""How `cw load complexity` uses the cores it is given: a slice of CodeComplex's Python test split verified
from a cold cache at each --opt workers=K, as a user runs it (`cw load` in its own process, stderr a file).

    python bench/complexity_load.py [--programs 24] [--workers 1,2] [--out bench/results]

Prints, per K: wall seconds, the programs kept, the plain progress lines the load printed, and the
machine's load average before and after (other work on the machine takes cores from the load: compare
speed-ups measured at a low load average); then the speed-up of each K over the first. No CPU figure: the
sandboxed runs, where the time goes, run in their own PID namespace and their CPU is not in this process's
rusage. Writes bench/results/complexity_load-<time>.json."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from codewalk import paths

DATA = paths.shared() / "data" / "codecomplex" / "python_test.jsonl"


def one(ids: list[str], workers: int, scratch: Path) -> dict:
    env = {**os.environ, "CODEWALK_CACHE": str(scratch / f"cache-{workers}"), "CODEWALK_PROGRESS_EVERY": "5"}
    env.pop("CODEWALK_PROGRESS", None)
    command = [sys.executable, "-m", "codewalk", "--store", str(scratch / f"graph-{workers}.lbug"), "load",
               "complexity", str(DATA), "--opt", f"workers={workers}", "--opt", "ids=" + ",".join(ids), "--json"]
    load_before, started = os.getloadavg()[0], time.monotonic()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    wall = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"the load failed (exit {done.returncode}): {done.stderr[-2000:]}")
    report = json.loads(done.stdout)
    progress = [line for line in done.stderr.splitlines() if line.startswith("load complexity:")]
    return {"workers": workers, "programs": len(ids), "atoms": report["atoms"], "wall_s": round(wall, 1),
            "load_average_before": load_before, "load_average_after": os.getloadavg()[0], "progress_lines": progress}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--programs", type=int, default=24)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args()
    ids = [json.loads(line)["id"] for line in DATA.read_text().splitlines() if line.strip()][:args.programs]
    rows = []
    with tempfile.TemporaryDirectory(prefix="complexity-load-") as scratch:
        for k in (int(w) for w in args.workers.split(",")):
            rows.append(one(ids, k, Path(scratch)))
            r = rows[-1]
            print(f"workers {k}: {r['programs']} programs -> {r['atoms']} atoms in {r['wall_s']} s wall; "
                  f"load average {r['load_average_before']:.1f} -> {r['load_average_after']:.1f}", flush=True)
            for line in r["progress_lines"]:
                print("   ", line)
    base = rows[0]
    for r in rows[1:]:
        print(f"speed-up at {r['workers']} workers over {base['workers']}: {base['wall_s'] / r['wall_s']:.2f}x")
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"complexity_load-{time.strftime('%Y%m%dT%H%M%S')}.json"
    path.write_text(json.dumps({"cores": os.cpu_count(), "affinity": len(os.sched_getaffinity(0)), "runs": rows},
                               indent=2) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
