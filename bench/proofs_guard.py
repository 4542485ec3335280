"""The ACSL guard on every level-1 and level-2 reference of ACSL by Example, and its cost on hostile text.

Prints how many composed references the guard (acsl_guard.structure, no Frama-C run) refuses, by reason,
so a change to the guard can be checked to keep every reference it admitted; then the guard's time on
floods of unclosed comments and other junk (its lexing is linear; MAX_CHARS caps the size).
With --print, each reference the guard accepts is also compared with its task on Frama-C's print
(acsl.frame_differs, one `frama-c -print` of each, cached): none may differ. With --regrade, the chains
admitted at N >= 2 in bench/results/proofs_report.json are admitted again (check (2), which records the goal
set) and their references graded as a model's output with real Frama-C (minutes each on a loaded machine).
    python bench/proofs_guard.py [--shared DIR] [--print] [--regrade]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections import Counter
from pathlib import Path

from codewalk import paths
from codewalk.domain import Rejected
from codewalk.domains.proofs import ProofsDomain, acsl, read
from codewalk.domains.proofs.acsl_guard import Refused, structure


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--shared", help="the folder holding data/acsl-bench (default: CODEWALK_SHARED)")
    parser.add_argument("--print", action="store_true", help="also compare each accepted reference on Frama-C's print")
    parser.add_argument("--regrade", action="store_true", help="grade the admitted N >= 2 references with Frama-C")
    args = parser.parse_args()
    if args.shared:
        os.environ["CODEWALK_SHARED"] = args.shared
    domain = ProofsDomain()
    _, atoms, _ = read(paths.dataset("acsl-bench") / "acsl-by-example", {})
    by_id = {a.id: a for a in atoms}
    groups = [[a] for a in atoms] + [[by_id[e.src], by_id[e.dst]] for e in domain.edges(atoms)]
    composed = refused = printed = 0
    differs: list[str] = []
    reasons: Counter[str] = Counter()
    for group in groups:
        try:
            c = domain.compose(group)
        except Rejected:
            continue
        composed += 1
        shape = structure(c.prompt, c.reference, c.verifier["components"])
        if isinstance(shape, Refused):
            refused += 1
            reasons[f"{shape.reason}: {shape.why.split(':')[0][:70]}"] += 1
        elif args.print:
            printed += 1
            if found := acsl.frame_differs(c.prompt, c.reference, c.verifier):
                differs.append(f"{'+'.join(a.payload['program'] for a in group)}: {found[1]}: {found[0][:120]}")
    print(f"{refused} of {composed} composed references refused (levels 1 and 2, {len(atoms)} atoms)")
    for why, n in reasons.most_common():
        print(f"  {n:4d}  {why}")
    if args.print:
        print(f"{len(differs)} of {printed} accepted references differ from their task on Frama-C's print")
        for line in differs:
            print(f"  {line}")
    fill = domain.compose([next(a for a in atoms if a.payload["program"].endswith("/fill"))])
    for name, junk in [("unclosed /*", "/*\n"), ("unclosed /*@", "/*@\n"), ("quotes", "'\"\n"), ("{", "{")]:
        for where in ("body", "end"):  # at the end no `*/` follows: each unclosed `/*` lexed to the end of the text
            for count in (2_000, 8_000):
                candidate = (fill.reference.replace("a[i] = v;", "a[i] = v;" + junk * count) if where == "body"
                             else fill.reference + junk * count)
                started = time.perf_counter()
                shape = structure(fill.prompt, candidate, fill.verifier["components"])
                print(f"{name:13} in the {where:4} x{count:6,}: {len(candidate):7,} chars, "
                      f"{time.perf_counter() - started:6.3f} s, {getattr(shape, 'reason', 'accepted')}")

    if args.regrade:
        regrade(domain, {a.payload["program"].split("/")[1]: a for a in atoms})


def regrade(domain: ProofsDomain, atoms: dict) -> None:
    report = json.loads((Path(__file__).parent / "results" / "proofs_report.json").read_text())
    chains = [c for n in ("2", "3", "4") for c in report["levels"][n]["chains"]]
    solved = 0
    for i, chain in enumerate(chains, 1):
        started = time.perf_counter()
        c = domain.compose([atoms[name] for name in chain.split(" -> ")])
        reference = acsl.check_reference(c)
        graded = domain.grade(c, c.reference) if reference.ok else None
        solved += bool(graded and graded.ok)
        print(f"{i:3d} {chain}: reference {'proves' if reference.ok else 'fails'}, "
              f"{len(c.verifier.get('goals', []))} frame goals, graded "
              f"{'solved' if graded and graded.ok else (graded.reason or 'failed') if graded else '-'} "
              f"({time.perf_counter() - started:.0f} s; {solved}/{i} solved)", flush=True)


if __name__ == "__main__":
    main()
