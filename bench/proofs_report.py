"""Proof completion on the full data: atoms per backend, chains per level, admission yields vs the paper.

    python bench/proofs_report.py [--levels 1,2,3] [--sample 40] [--seed 0] [--out report.json]

For each backend (Verus-Bench, ACSL by Example) it reads every program, prints what could not be used and
why, counts the candidate chains per level (every chain the relation allows, with each source program at
most twice), then runs admission for real on all level-1 chains and on a seeded sample of each higher
level: reference-verification yield (the paper's 137/160, 200/350, 233/770 for Verus), admission yield,
and seconds per verifier run. A backend whose verifier is not installed is counted but not run (Verus
cannot be installed on every machine). Verification results are cached (codewalk.domains.proofs.cache), so a re-run
only pays for new programs.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

from codewalk.admission import evaluate
from codewalk.domains.proofs import ProofsDomain, read

SHARED = Path(os.environ.get("CODEWALK_SHARED") or Path(__file__).resolve().parents[1] / ".." / "shared")
SOURCES = {"verus": SHARED / "data" / "verus-bench", "acsl": SHARED / "data" / "acsl-bench" / "acsl-by-example"}
PAPER = {1: (137, 160), 2: (200, 350), 3: (233, 770)}  # Verus reference-verification yields (App. B.2)


def chains(atoms, edges, level: int) -> list[tuple[str, ...]]:
    """Every chain of `level` atoms along the edges: distinct atoms, each source program at most twice."""
    out_edges = defaultdict(list)
    for e in edges:
        out_edges[e.src].append(e.dst)
    source = {a.id: a.summary["source"] for a in atoms}
    found = []

    def extend(chain: list[str]) -> None:
        if len(chain) == level:
            found.append(tuple(chain))
            return
        counts = Counter(source[i] for i in chain)
        for nxt in sorted(out_edges[chain[-1]]):
            if nxt not in chain and counts[source[nxt]] < 2:
                extend(chain + [nxt])

    for a in sorted(atoms, key=lambda a: a.id):
        extend([a.id])
    return found


def walks(atoms, edges, level: int, count: int, rng: random.Random, tries: int = 100_000) -> list[tuple[str, ...]]:
    """Up to `count` distinct chains grown from random atoms along random out-edges (dead end: start over)."""
    out_edges = defaultdict(list)
    for e in edges:
        out_edges[e.src].append(e.dst)
    source = {a.id: a.summary["source"] for a in atoms}
    ids = sorted(source)
    found: dict[tuple[str, ...], None] = {}
    for _ in range(tries):
        if len(found) >= count:
            break
        chain = [rng.choice(ids)]
        while len(chain) < level:
            counts = Counter(source[i] for i in chain)
            options = [n for n in sorted(out_edges[chain[-1]]) if n not in chain and counts[source[n]] < 2]
            if not options:
                break
            chain.append(rng.choice(options))
        if len(chain) == level:
            found[tuple(chain)] = None
    return list(found)


def run_backend(backend: str, levels: list[int], sample: int, seed: int) -> dict:
    domain = ProofsDomain()
    _, atoms, skipped = read(SOURCES[backend], {"backend": backend})
    edges = list(domain.edges(atoms))
    by_id = {a.id: a for a in atoms}
    report = {"backend": backend, "atoms": len(atoms), "programs": len({a.summary["source"] for a in atoms}),
              "skipped": [f"{what}: {why}" for what, why in skipped], "edges": len(edges), "levels": {}}
    tool = {"verus": "verus", "acsl": "frama-c"}[backend]
    runnable = shutil.which(tool) is not None
    for level in levels:
        rng = random.Random(seed + level)
        if level <= 3:
            candidates = chains(atoms, edges, level)
            picked = candidates if level == 1 or len(candidates) <= sample else rng.sample(candidates, sample)
        else:  # too many to enumerate: random chains grown along the edges, as the walk does
            candidates, picked = None, walks(atoms, edges, level, sample, rng)
        row = {"candidates": len(candidates) if candidates is not None else "not enumerated", "attempted": 0}
        if runnable:
            reasons, seconds, ref_ok = Counter(), [], 0
            started = time.monotonic()
            for k, chain in enumerate(picked, 1):
                verdict = evaluate(domain, [by_id[i] for i in chain])
                reasons[verdict.reason] += 1
                ref = verdict.evidence.get("reference", {})
                ref_ok += bool(ref.get("passes"))
                for part in [ref] + verdict.evidence.get("atoms", [])[:1]:
                    run = part.get("wp") or part.get("verus") or {}
                    if run and not run.get("cached"):
                        seconds.append(run["seconds"])
                print(f"  {backend} N={level} {k}/{len(picked)} {verdict.reason:<22} {' -> '.join(chain)}",
                      file=sys.stderr, flush=True)
            row.update(attempted=len(picked), reference_verifies=ref_ok, admitted=reasons["admitted"],
                       reasons=dict(reasons), seconds_per_run=round(sum(seconds) / len(seconds), 1) if seconds else None,
                       wall_seconds=round(time.monotonic() - started))
        else:
            row["note"] = f"{tool} not on PATH: counted, not verified"
        report["levels"][level] = row
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", default="1,2,3")
    parser.add_argument("--sample", type=int, default=40, help="chains attempted per level above 1")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--backends", default="verus,acsl")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    levels = [int(x) for x in args.levels.split(",")]
    reports = [run_backend(b, levels, args.sample, args.seed) for b in args.backends.split(",")]
    for r in reports:
        print(f"\n{r['backend']}: {r['atoms']} atoms from {r['programs']} programs, {r['edges']} FEEDS edges, "
              f"{len(r['skipped'])} functions/programs not used")
        print(f"{'N':>2} {'chains':>8} {'tried':>6} {'ref ok':>7} {'admitted':>9} {'s/run':>6}  paper (Verus ref ok)")
        for level, row in r["levels"].items():
            paper = "{}/{} ({:.0%})".format(*PAPER[level], PAPER[level][0] / PAPER[level][1]) if level in PAPER else ""
            ref = f"{row['reference_verifies']}/{row['attempted']}" if row["attempted"] else "-"
            print(f"{level:>2} {row['candidates']:>8} {row['attempted']:>6} {ref:>7} {row.get('admitted', '-'):>9} "
                  f"{row.get('seconds_per_run') or '-':>6}  {paper}  {row.get('note', '')}")
    if args.out:
        args.out.write_text(json.dumps(reports, indent=1))


if __name__ == "__main__":
    main()
