"""What round 10 of the repair grader's comparison control costs one comparison: each ask (the value's copy, each
probe) in a child forked for it alone (harness/boot.py: _apart, _controlled's asked_apart), against the same asks
in this process (no `apart`, the probes after an "equal" answer: the cheapest order before round 10).

An exact list class and an exact text class are put behind the control in this process and compared with a plain
value they equal (the value and every probe asked) and one they do not (the value only). A fork's cost grows with
the process's memory (its page tables are copied), so the figures are given again with --heap MB of live objects
held, as a test process holds its modules and data.

    python bench/comparison_control_apart.py [--number 40] [--heap 0 100]

Prints milliseconds per comparison (the best of 3 repeats; a shared machine is noisy), the number of asks an
"equal" answer makes, and a bare fork + exit + wait for scale.
"""

from __future__ import annotations

import argparse
import os
import random
import timeit

from comparison_control import controlled_cases  # beside this script: run as `python bench/...`

from codewalk.domains.repair.harness import boot


def bare_fork() -> None:
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)


def measure(apart: bool, number: int) -> dict[str, float]:
    cases, found = controlled_cases(boot, 0, boot._apart() if apart else None)
    out = {name: min(timeit.repeat(case, number=number, repeat=3)) / number * 1e3 for name, case in cases.items()}
    assert not found, found  # exact comparisons: the control finds nothing
    return out


def asks(value) -> int:
    """How many asks an "equal" answer makes: the value's copy and every probe."""
    bits = random.Random(0).getrandbits
    probes = boot._other_than(lambda n: bits(8 * n).to_bytes(n, "little"))(value)
    return sum(1 for _, make in probes or () for _ in make(value))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=40)
    parser.add_argument("--heap", type=int, nargs="*", default=[0, 100], help="MB of live objects held")
    args = parser.parse_args()
    print(f"asks per 'equal' answer: list of 3 words {asks(['alpha', 'beta', 'gamma'])}, "
          f"18-letter text {asks('alpha, beta, gamma')}")
    held: list = []
    for mb in args.heap:
        held.clear()
        held.extend(bytearray(1 << 20) for _ in range(mb))  # pages touched: a fork copies their tables
        fork_ms = min(timeit.repeat(bare_fork, number=args.number, repeat=3)) / args.number * 1e3
        print(f"heap {mb} MB: a bare fork + exit + wait {fork_ms:.2f} ms")
        for apart, how in ((False, "in process (before)"), (True, "apart (round 10)")):
            figures = measure(apart, args.number)
            print(f"heap {mb} MB, {how}:  " + ", ".join(f"{k} {v:.2f} ms" for k, v in figures.items()))


if __name__ == "__main__":
    main()
