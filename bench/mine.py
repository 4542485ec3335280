"""Mining yield on a real repository: `cw mine repair`, then `cw load repair` and `cw walk` at N = 2 and 3.

Runs the three commands as a user would (the `cw` of this checkout, in a scratch store and cache) and
records: main-line commits scanned, candidates, instances kept and the yield, drops by reason, flaky tests,
wall time of each command, and what the walk admits at each level. The repository is a local clone (for
example one brought with the search tool's fetch verb); none of its code is written under bench/: the rows
stay in the scratch folder. Figures are appended to bench/results/mine.txt with the command that made them.

    python bench/mine.py REPO --name owner/name --since 2026-06-01 [--until DATE] [--runs 3] [--workers 2]
        [--count 10] [--max-attempts 20] [--levels 2,3] [--runtime local|docker]

--runtime docker loads and walks in containers (mining stays local); each walk line then gives the
containers' overhead and codewalk's own share, as bench/admission.py defines them, on real test suites.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "mine.txt"


def cw(args: list[str], env: dict[str, str]) -> tuple[dict, float, int]:
    """One `cw` command with --json: its output, wall seconds and exit code (7: fewer admitted than asked)."""
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "codewalk", *args, "--json"], capture_output=True, text=True,
                          env=env, cwd=ROOT)
    seconds = time.monotonic() - start
    if done.returncode not in (0, 7):
        raise SystemExit(f"cw {' '.join(args)} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout), seconds, done.returncode


def shares(walked: dict) -> str:
    """Of the workers' time (wall x workers): in tool processes, the containers' overhead, codewalk's own."""
    cost = walked["cost"]
    slots = walked["seconds"] * cost["workers"]
    if not slots:
        return "no time measured"
    overhead = sum(cost.get("overheads", {}).values())
    dropped = cost.get("dropped", {}).get("seconds", 0.0)  # groups running when --count was reached, not kept
    own = 1 - (cost["in_processes"] + cost["waited_on_locks"] + overhead + dropped) / slots
    parts = ", ".join(f"{k.removeprefix('docker: ')} {v:.1f} s" for k, v in cost.get("overheads", {}).items())
    return (f"in processes {cost['in_processes'] / slots:.1%}, locks {cost['waited_on_locks'] / slots:.1%}, "
            f"containers {overhead / slots:.1%}{f' ({parts})' if parts else ''}, groups dropped past --count "
            f"{dropped / slots:.1%}, codewalk's own {own:.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", help="a git clone of the repository to mine")
    parser.add_argument("--name", required=True, help="owner/name of the repository")
    parser.add_argument("--since", default="")
    parser.add_argument("--until", default="")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--count", type=int, default=10, help="tasks wanted per level")
    parser.add_argument("--max-attempts", type=int, default=20, help="walk attempts per level")
    parser.add_argument("--levels", default="2,3", help="the levels walked")
    parser.add_argument("--runtime", default="local", choices=("local", "docker"), help="load and walk's runtime")
    parser.add_argument("--keep", type=Path, help="folder to keep the rows and the store in (default: scratch)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mine-bench-") as scratch:
        work = (args.keep or Path(scratch)).resolve()
        work.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "PYTHONPATH": str(ROOT), "CODEWALK_HOME": str(work / "home")}
        rows, store = work / "rows.jsonl", work / "graph.lbug"
        mine_args = ["mine", "repair", args.repo, "--out", str(rows), "--name", args.name, "--runs",
                     str(args.runs), "--workers", str(args.workers)]
        mine_args += ["--since", args.since] if args.since else []
        mine_args += ["--until", args.until] if args.until else []
        mined, mine_s, _ = cw(mine_args, env)
        walks = []
        if mined["kept"]:
            where = ["--runtime", args.runtime]
            loaded, load_s, _ = cw(["--store", str(store), "load", "repair", str(rows), *where], env)
            for n in (int(level) for level in args.levels.split(",")):
                walked, walk_s, code = cw(["--store", str(store), "walk", "--domain", "repair", "--n", str(n),
                                           "--count", str(args.count), "--max-attempts", str(args.max_attempts),
                                           "--seed", "0", "--workers", str(args.workers), *where], env)
                walks.append((n, walked, walk_s))
    command = "python bench/mine.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    lines = [f"## {args.name} at {datetime.now(UTC).isoformat(timespec='minutes')} "
             f"(codewalk {subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], cwd=ROOT, capture_output=True, text=True).stdout.strip()}, "
             f"{os.cpu_count()} cores shared)",
             f"command: {command}",
             f"mine:  cw {' '.join(shlex.quote(a) for a in mine_args)}",
             f"  commits scanned {mined['scanned']}, candidates {mined['candidates']}, kept {mined['kept']}, "
             f"yield {mined['yield'] if mined['yield'] is None else format(mined['yield'], '.1%')}, "
             f"flaky tests dropped {mined['flaky_tests']}, wall {mine_s:.0f} s",
             f"  not candidates: {json.dumps(mined['skipped'])}",
             f"  dropped: {json.dumps(mined['dropped'])}"]
    if mined["kept"]:
        lines.append(f"load:  {loaded['atoms']} atoms, edges {json.dumps(loaded['edges'])}, wall {load_s:.1f} s")
        for n, walked, walk_s in walks:
            lines.append(f"walk N={n} (--count {args.count} --max-attempts {args.max_attempts} --seed 0): "
                         f"attempted {walked['attempted']}, admitted {walked['admitted']}, rejected "
                         f"{json.dumps(walked['rejected'])}, errors {walked['errors']}, skipped {walked['skipped']}, "
                         f"used up {walked['used_up']}, wall {walk_s:.0f} s")
            lines.append("  " + shares(walked))
    text = "\n".join(lines) + "\n\n"
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    with RESULTS.open("a", encoding="utf-8") as f:
        f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
