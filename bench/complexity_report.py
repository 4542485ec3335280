"""Complexity analysis on the whole CodeComplex Python test split: the numbers of the issue's closing note.

    python bench/complexity_report.py [--workers 2] [--walks 400] [--check2 30] [--seed 0]
                                      [--pool pool.json] [--out report.json]

1. Pool: every one of the 490 programs is extracted and checked against the original on generated
   inputs, and its output growth measured (as `cw load complexity` does). Prints the pool size, why
   the others were dropped, and the growth fits. --pool caches the pool: an existing file is read
   instead of rebuilding it.
2. Candidates per level N = 1, 2, 3, 10: distinct chains grown by the walk (uniform start, each step
   uniform among the last atom's unvisited successors, a dead end starts over). Each is composed
   (a derivation outside the seven labels is rejected there) and checked by admission (1), Ref(G) !=
   max label and != stage 1's label, for all of them (composition itself rejects a chain through a value
   reduced modulo a constant, bounded_link, and one whose stage 1 holds an input to a constant range,
   unscaled_input: see codewalk/domains/complexity/model.py); admission (2), running the composite on the
   inputs of two seeds, on every level-1 atom and every longer chain passing (1) (--check2 K: a seeded
   sample of K). The paper's check (1) rates are 100%, 83.4%, 56.7%,
   3.6% of evaluated candidates. Beside them, three trivial baselines over the admitted tasks: the share
   whose answer is stage 1's label, the share whose answer is the largest label (both 0 by check (1) for
   N > 1), and the share whose answer is the level's most common one.
3. Longest chains: the longest simple path found in the FEEDS graph (a randomized depth-first search),
   and the longest level at which walks still find chains passing check (1), and admitted ones.
4. Tasks per level: how many distinct chains exist (exactly for N <= 3) and how many of them would be
   admitted at the measured rates.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

from codewalk.domain import Rejected
from codewalk.domains.complexity import COST_DROPS, RANK, ComplexityDomain, verify
from codewalk.loaders import codecomplex as loader
from codewalk.records import Atom

SHARED = Path(os.environ.get("CODEWALK_SHARED") or Path(__file__).resolve().parents[1] / ".." / "shared")
DATA = SHARED / "data" / "codecomplex" / "python_test.jsonl"
PAPER_CHECK1 = {1: 100.0, 2: 83.4, 3: 56.7, 10: 3.6}


def build_pool(workers: int, cache: Path | None) -> tuple[list[Atom], list[dict], int, float]:
    programs = loader.read(DATA)
    if cache and cache.exists():
        saved = json.loads(cache.read_text())
        atoms = [Atom(i, "complexity", s, p) for i, s, p in saved["atoms"]]
        return atoms, saved["drops"], len(programs), saved["seconds"]
    started = time.monotonic()
    done = 0

    def progress(program, result) -> None:
        nonlocal done
        done += 1
        if done % 50 == 0 or done == len(programs):
            print(f"  verified {done}/{len(programs)} ({time.monotonic() - started:.0f}s)", file=sys.stderr)

    kept, drops = verify.build(programs, workers=workers, progress=progress)
    seconds = time.monotonic() - started
    atoms = [Atom(f"complexity/{p.id}", "complexity", s, pl) for p, s, pl in kept]
    drops_rows = [{"program": d.program, "reason": d.reason, "detail": d.detail} for d in drops]
    if cache:
        rows = [[a.id, a.summary, a.payload] for a in atoms]
        cache.write_text(json.dumps({"atoms": rows, "drops": drops_rows, "seconds": seconds}))
    return atoms, drops_rows, len(programs), seconds


def walks(ids: list[str], out: dict[str, list[str]], level: int, count: int,
          rng: random.Random) -> list[tuple[str, ...]]:
    """Up to `count` distinct chains of `level` atoms, grown as the walk grows them."""
    found: dict[tuple[str, ...], None] = {}
    tries = 0
    while len(found) < count and tries < 200 * count:
        tries += 1
        chain = [ids[int(rng.random() * len(ids))]]
        while len(chain) < level:
            frontier = sorted(set(out[chain[-1]]) - set(chain))
            if not frontier:
                break
            chain.append(frontier[int(rng.random() * len(frontier))])
        if len(chain) == level:
            found.setdefault(tuple(chain), None)
    return list(found)


def check1(domain: ComplexityDomain, group: list[Atom]) -> tuple[str, str]:
    """('composed' or the composer's rejection reason, '' when admission (1) holds or why it fails)."""
    try:
        composite = domain.compose(group)
    except Rejected as r:
        return r.reason, r.reason
    failed = next((c for c in (domain.check_unsolved(composite, group, i) for i in range(len(group))) if not c.ok),
                  None)
    return "composed", failed.reason if failed else ""


def longest_path(ids: list[str], out: dict[str, list[str]], seconds: float, rng: random.Random) -> list[str]:
    """A long simple path, by repeated randomized depth-first search preferring successors that have
    few unvisited successors themselves (Warnsdorff's rule)."""
    best: list[str] = []
    deadline = time.monotonic() + seconds
    starts = [i for i in ids if out[i]]
    while time.monotonic() < deadline and starts:
        path, seen = [rng.choice(starts)], set()
        seen.add(path[0])
        while True:
            options = [j for j in out[path[-1]] if j not in seen]
            if not options:
                break
            rng.shuffle(options)
            nxt = min(options, key=lambda j: sum(k not in seen for k in out[j]) or 10**9)
            path.append(nxt)
            seen.add(nxt)
        if len(path) > len(best):
            best = path
    return best


def count_chains(ids: list[str], out: dict[str, list[str]], level: int) -> int | None:
    """How many chains of distinct atoms of this level the graph holds (None above 3: too many to count)."""
    if level == 1:
        return len(ids)
    if level == 2:
        return sum(len(out[i]) for i in ids)
    if level == 3:
        into: dict[str, set[str]] = defaultdict(set)
        for a in ids:
            for b in out[a]:
                into[b].add(a)
        return sum(len(into[b]) * len(out[b]) - len(into[b] & set(out[b])) for b in ids)
    return None


def admission(domain: ComplexityDomain, by_id: dict[str, Atom], chains: list[tuple[str, ...]],
              check2: int | None, rng: random.Random) -> dict:
    """Check (1) on every chain, check (2) on `check2` of those passing it (None: on all of them)."""
    outcomes = [check1(domain, [by_id[i] for i in c]) for c in chains]
    composed = [c for c, (what, _) in zip(chains, outcomes) if what == "composed"]
    passed = [c for c, (what, why) in zip(chains, outcomes) if what == "composed" and not why]
    sample = passed if check2 is None else rng.sample(passed, min(check2, len(passed)))
    verdicts: Counter = Counter()
    first = top = 0  # trivial baselines over the admitted: the answer is stage 1's label / the max label
    answers: Counter = Counter()  # the admitted tasks' references: the majority-class baseline
    for c in sample:
        group = [by_id[i] for i in c]
        composite = domain.compose(group)
        check = domain.check_reference(composite, group)
        verdicts["admitted" if check.ok else check.reason] += 1
        if check.ok:
            labels = [a.summary["label"] for a in group]
            first += composite.reference == labels[0]
            top += composite.reference == max(labels, key=RANK.__getitem__)
            answers[composite.reference] += 1
    rejected = Counter(why for _, why in outcomes if why)
    rejected.update({k: v for k, v in verdicts.items() if k != "admitted"})
    majority = answers.most_common(1)[0] if answers else None
    r1 = len(passed) / len(composed) if composed else 0.0
    r2 = verdicts["admitted"] / len(sample) if sample else 0.0
    return {"walked": len(chains), "composed": len(composed), "check1_passed": len(passed), "check1_rate": r1,
            "check2_run": len(sample), "check2_admitted": verdicts["admitted"], "check2_rate": r2,
            "admitted_rate": len(composed) / len(chains) * r1 * r2 if chains else 0.0,
            "baseline_first": first / verdicts["admitted"] if verdicts["admitted"] else None,
            "baseline_max": top / verdicts["admitted"] if verdicts["admitted"] else None,
            "baseline_majority": majority and majority[1] / verdicts["admitted"],
            "majority_class": majority and majority[0], "answers": dict(answers),
            "rejections": {k: v for k, v in rejected.most_common() if v}}


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--walks", type=int, default=400, help="distinct candidate chains per level")
    parser.add_argument("--check2", type=int, default=0,
                        help="chains per level N > 1 run through check (2), a seeded sample (0: all that pass check (1))")
    parser.add_argument("--levels", default="1,2,3,10")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-longest", action="store_true", help="skip the longest-chain search (3)")
    parser.add_argument("--pool", type=Path, help="cache of the verified pool (read if it exists)")
    parser.add_argument("--out", type=Path, help="write the report as JSON")
    args = parser.parse_args()
    domain = ComplexityDomain()
    rng = random.Random(args.seed)

    # 1. the pool
    atoms, drops, total, seconds = build_pool(args.workers, args.pool)
    by_id = {a.id: a for a in atoms}
    reasons = Counter(d["reason"] for d in drops)
    fits = Counter(a.payload["growth"] or "no fit" for a in atoms)
    types = Counter(f"{a.summary['in_type']}->{a.summary['out_type']}" for a in atoms)
    print(f"\nPOOL: {len(atoms)} atoms of {total} programs ({100 * len(atoms) / total:.1f}%; paper: 277 of "
          f"4,900), verified in {seconds:.0f}s with {args.workers} worker(s)")
    print("  dropped:", ", ".join(f"{r} {c}" for r, c in reasons.most_common()))
    labels = Counter(a.summary["label"] for a in atoms)
    print("  labels:", ", ".join(f"{k} {v}" for k, v in sorted(labels.items())))
    print("  output growth fits:", ", ".join(f"{k} {v}" for k, v in fits.most_common()))
    rules = Counter(a.payload["label_rule"] for a in atoms)
    cost_drops = sum(d["reason"] in COST_DROPS for d in drops)
    relabels = Counter(f"{a.payload['stated_label']}->{a.summary['label']}" for a in atoms
                       if a.payload["label_rule"] == "relabelled")
    print(f"  atom rule (measured cost class against the CodeComplex label): kept {rules['kept']}, relabelled "
          f"{rules['relabelled']}, dropped {cost_drops} (no class or an unlabelled one)")
    print("  relabelled:", ", ".join(f"{k} {v}" for k, v in relabels.most_common()))
    print("  types (size parameter -> return):", ", ".join(f"{t} {c}" for t, c in types.most_common(8)))
    report: dict = {"pool": {"atoms": len(atoms), "programs": total, "seconds": round(seconds, 1),
                             "dropped": dict(reasons), "growth_fits": dict(fits),
                             "atom_rule": {"kept": rules["kept"], "relabelled": rules["relabelled"],
                                           "dropped": cost_drops}, "relabelled": dict(relabels)}}

    # 2. candidates and admission per level
    edges = list(domain.edges(atoms))
    out: dict[str, list[str]] = defaultdict(list)
    for e in edges:
        out[e.src].append(e.dst)
    ids = sorted(by_id)
    print(f"\nGRAPH: {len(edges)} FEEDS edges; {sum(1 for i in ids if out[i])} atoms with successors")
    report["edges"] = len(edges)
    levels = [int(x) for x in args.levels.split(",")]
    print("\nADMISSION per level: check (1) on every composed candidate; check (2) on all N = 1 atoms\n"
          "and on every chain passing (1) above (--check2 K: on a seeded sample of K)")
    print(f"  {'N':>3} {'walked':>7} {'composed':>9} {'check (1)':>14} {'paper':>6} "
          f"{'check (2)':>12} {'admitted':>9} {'=stage 1':>9} {'=max':>6} {'majority':>20}  rejections")
    report["levels"] = {}
    for level in levels:
        chains = walks(ids, out, level, args.walks, rng)
        r = admission(domain, by_id, chains, None if level == 1 or not args.check2 else args.check2, rng)
        report["levels"][level] = r
        print(f"  {level:>3} {r['walked']:>7} {r['composed']:>9} {r['check1_passed']:>5} "
              f"({100 * r['check1_rate']:5.1f}%) {PAPER_CHECK1.get(level, float('nan')):>5}% "
              f"{r['check2_admitted']:>4}/{r['check2_run']:<3}"
              f"({100 * r['check2_rate']:3.0f}%) {100 * r['admitted_rate']:8.1f}% "
              f"{_pct(r['baseline_first']):>9} {_pct(r['baseline_max']):>6} "
              f"{_pct(r['baseline_majority']) + ' ' + (r['majority_class'] or ''):>20}  "
              + ", ".join(f"{k} {v}" for k, v in r["rejections"].items()))
    for level in levels:  # what a guesser would need to know: the admitted tasks' answers
        answers = report["levels"][level]["answers"]
        if answers:
            print(f"  N={level} admitted answers: " + ", ".join(f"{k} {v}" for k, v in
                                                               sorted(answers.items(), key=lambda kv: -kv[1])))

    print("\nBaselines: '=stage 1' is the share of admitted tasks whose answer is stage 1's label, '=max'\n"
          "the share whose answer is the largest label (check (1) rejects both for N > 1: the paper's Ref != max,\n"
          "and Ref != stage 1's label, as stage 1 alone reads the program's input; at N = 1 both are 100%);\n"
          "'majority' the share whose answer is the level's most common answer, and that answer (a guesser that\n"
          "knows it scores this much: the yield of a level says little unless its answers are spread)")

    # 3. longest chains
    if args.no_longest:
        levels_only(report, levels, args.out)
        return
    path = longest_path(ids, out, 20.0, rng)
    longest = {"path": len(path), "check1_level": 0, "admitted_level": 0}
    for level in (5, 10, 15, 20, 25, 30, 40, 60):
        groups = [[by_id[i] for i in c] for c in walks(ids, out, level, 300, rng)]
        passing = [g for g in groups if check1(domain, g) == ("composed", "")]
        if not passing:
            break
        longest["check1_level"] = level
        if any(domain.check_reference(domain.compose(g), g).ok for g in passing[:40]):  # stops at the first
            longest["admitted_level"] = level
    print(f"\nLONGEST: a simple FEEDS path of {longest['path']} atoms (randomized search, a lower bound);\n"
          f"walks (300 per level) find chains passing composition and check (1) up to N = "
          f"{longest['check1_level']},\nand admitted ones (check (2) on up to 40 of those) up to N = "
          f"{longest['admitted_level']} (trying N = 5, 10, 15, 20, 25, 30, 40, 60)")
    report["longest"] = longest

    # 4. tasks per level
    print("\nTASKS per level: distinct candidate chains, and how many the measured rates would admit")
    report["tasks"] = {}
    for level in levels:
        candidates = count_chains(ids, out, level)
        rate = report["levels"][level]["admitted_rate"]
        admissible = round(candidates * rate) if candidates is not None else None
        if candidates is None:
            print(f"  N={level}: too many chains to count; {100 * rate:.1f}% of walked ones are admitted, "
                  "so as many as the walk is run for")
        else:
            print(f"  N={level}: {candidates} chains, about {admissible} admissible")
        report["tasks"][level] = {"candidates": candidates, "admissible": admissible}
    if args.out:
        args.out.write_text(json.dumps(report, indent=2))


def levels_only(report: dict, levels: list[int], out: Path | None) -> None:
    if out:
        out.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
