"""The benchmarks' phase runner: each measurement in a fresh Python process, so its peak RSS is its own."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path


def run_phase(script: str, phase: str, *args: str) -> dict:
    """`python SCRIPT --phase PHASE ARGS...` and the JSON object it prints last, with the wall seconds
    and the load average before and after (wall seconds on a shared machine say little without it)."""
    before = os.getloadavg()[0]
    started = time.perf_counter()
    done = subprocess.run([sys.executable, script, "--phase", phase, *args], capture_output=True, text=True,
                          timeout=7_200, check=False)
    if done.returncode != 0:
        raise SystemExit(f"phase {phase} {args} failed:\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["wall_s"] = round(time.perf_counter() - started, 2)
    result["loadavg"] = [round(before, 2), round(os.getloadavg()[0], 2)]
    return result


def fresh(path: Path) -> Path:
    """`path` with no embedded store left at it (the store and its write-ahead log removed)."""
    for p in (path, Path(f"{path}.wal")):
        if p.is_dir():
            shutil.rmtree(p)
        elif p.exists():
            p.unlink()
    return path
