"""Sums a pytest `--durations=0` log (its "slowest durations" lines) by module, by test function (with its cases
per runtime: local, docker, none for a static case), by module and phase (setup, call, teardown), and by runtime.
Durations under 0.005 s are not in the log (pytest hides them). Usage: python bench/test_durations_sum.py LOG"""

from __future__ import annotations

import re
import sys
from collections import Counter

LINE = re.compile(r"^([\d.]+)s (setup|call|teardown)\s+(\S.*)$")


def runtime(node: str) -> str:
    """The graded_in parameter of a test id: local, docker, or none (a static case)."""
    for name in ("docker", "local"):
        if re.search(rf"[\[-]{name}[\]-]", node):
            return name
    return "none"


def main(log: str) -> None:
    by_module: Counter = Counter()
    by_test: Counter = Counter()
    by_phase: Counter = Counter()
    by_runtime: Counter = Counter()
    cases: Counter = Counter()
    with open(log, encoding="utf-8") as lines:
        for line in lines:
            found = LINE.match(line.rstrip("\n"))
            if not found:
                continue
            seconds, phase, node = float(found[1]), found[2], found[3]
            module, test = node.split("::")[0], node.split("::")[1].split("[")[0]
            by_module[module] += seconds
            by_test[module, test] += seconds
            by_phase[module, phase] += seconds
            by_runtime[runtime(node)] += seconds
            if phase == "call":
                cases[module, test, runtime(node)] += 1
    print(f"TOTAL {sum(by_module.values()):.1f} s")
    print("\nby module")
    for module, seconds in by_module.most_common():
        print(f"{seconds:8.1f}  {module}")
    print("\nby test function (cases: local, docker, none)")
    for (module, test), seconds in by_test.most_common():
        n = [cases[module, test, r] for r in ("local", "docker", "none")]
        print(f"{seconds:8.1f}  {module}::{test}  {n}")
    print("\nby module and phase")
    for (module, phase), seconds in by_phase.most_common():
        print(f"{seconds:8.1f}  {module} {phase}")
    print("\nby runtime (none: static cases)")
    for name, seconds in by_runtime.most_common():
        print(f"{seconds:8.1f}  {name}")


if __name__ == "__main__":
    main(sys.argv[1])
