"""Run the README's examples on a fresh embedded store and print each command, its output and its wall time.

    python bench/readme_examples.py [--out bench/results/readme_examples.txt]

The README's example outputs and timings are copied from this script's output (so they show what the
commands print today, not what they printed once); the header names the machine. Ids, run names and
times differ from run to run; counts for a given seed do not.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "readme_examples.txt")
    args = parser.parse_args()
    lines = [f"# {platform.node()}: {os.cpu_count()} cores, {platform.platform()}, Python {platform.python_version()}, "
             f"load average {os.getloadavg()[0]:.1f} at start", ""]
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "CODEWALK_HOME": home, "COLUMNS": "110", "TERM": "dumb"}
        env.pop("CODEWALK_STORE", None)

        def cw(*argv: str, show: bool = True) -> str:
            started = time.monotonic()
            done = subprocess.run(["cw", *argv], capture_output=True, text=True, env=env, cwd=REPO)
            took = time.monotonic() - started
            if not show:
                return done.stdout
            lines.extend([f"$ {shlex.join(['cw', *argv])}    # {took:.1f} s wall, exit {done.returncode}",
                          done.stdout.rstrip().replace(home, "~/.codewalk"), ""])
            print("\n".join(lines[-3:]), flush=True)
            return done.stdout

        cw("demo")
        cw("walk", "--n", "10")
        cw("load", "demo", "loaders/demo_atoms.jsonl")
        cw("walk", "--n", "3", "--count", "3", "--seed", "11")
        listed = json.loads(cw("tasks", "list", "--status", "admitted", "--level", "3", "--json", show=False))
        task = listed[0]["id"]
        cw("tasks", "show", task)
        cw("query", "MATCH (t:Task {id: $id})-[c:COMPOSES]->(a:Atom) RETURN c.position AS pos, a.id AS atom, "
           "a.out_type AS output ORDER BY pos", "--param", f"id={task}")
        cw("tasks", "list", "--limit", "3")
    args.out.write_text(re.sub(r"[ \t]+\n", "\n", "\n".join(lines)) + "\n", encoding="utf-8")
    print(f"written to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
