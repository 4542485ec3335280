"""Proof completion on ACSL by Example: admitted tasks by level from seeded walks, beside the paper's yields.

    python bench/proofs_report.py [--levels 1,2,3,4] [--count 2=22,3=11] [--seed 0] [--workers 2]
                                  [--out bench/results/proofs_report.json]

What `cw load proofs` and `cw walk --domain proofs` do, into a fresh store in a temporary folder: the load
verifies every atom's own reference (atoms that do not prove are not walked), then for each level N a
seeded walk (seed + N) admits tasks until --count are admitted or 3 x count groups were tried. It prints,
per level: groups attempted, references that prove, tasks admitted, the seed, and the paper's Verus
reference-verification yields (App. B.2: 137/160, 200/350, 233/770); the share of admitted N = 2 tasks
whose last stage has no loop (a one-line stage is solved by restating its step predicate); how
generic cheaters fare on every admitted task (no invariants, with `ensures \\false`, the headers' `false`
macro, an inconsistent logic definition, a preprocessor macro or ghost code: the grader must refuse
each); and how every admitted reference fares graded as a model's output, WP smoke tests on (the count of
smoke-test false alarms). Verus-Bench is counted only (Verus cannot be installed here).

Frama-C runs are cached by content hash (codewalk.domains.proofs.cache, ~/.codewalk/cache/proofs), so a
re-run only pays for programs not verified before: the first run takes about an hour on 2 busy cores.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from codewalk import paths
from codewalk.admission import walk_and_admit
from codewalk.domains.proofs import ProofsDomain, read
from codewalk.loading import load
from codewalk.records import Composite, Reason
from codewalk.store import open_store

ACSL = paths.dataset("acsl-bench") / "acsl-by-example"
VERUS = paths.dataset("verus-bench")
PAPER = {1: (137, 160), 2: (200, 350), 3: (233, 770)}  # Verus reference-verification yields (App. B.2)
COUNT = {1: 60, 2: 24, 3: 12, 4: 3}  # admitted tasks wanted per level (N = 1: every walkable atom)
LOOP = re.compile(r"\b(for|while|do)\b")


def _with_ensures(task: dict, clause: str, head: str = "") -> str:
    """The task as given (no invariants, no postconditions) with `clause` added to every component's
    contract and `head` put before the program."""
    text = task["prompt"]
    for component in task["verifier"]["components"]:
        contract = component["contract"]
        text = text.replace(contract, contract[:-2] + f"  {clause}\n*/", 1)
    return head + text


# Generic cheaters, one per class of the red-team module (tests/test_proofs_acsl_redteam.py has them all,
# each on its own): none may be graded solved on any admitted task.
CHEATS = {
    "ensures \\false": lambda t: _with_ensures(t, "ensures \\false;"),
    "ensures false (the headers' macro)": lambda t: _with_ensures(t, "ensures false;"),
    "inconsistent logic": lambda t: _with_ensures(
        t, "ensures bad(0) == 0 && \\false;", "/*@ logic integer bad(integer x) = bad(x) + 1; */\n"),
    "preprocessor": lambda t: _with_ensures(
        t, "ensures CAT(\\fal, se);", "#define CAT(x, y) x ## y\n"),
    "ghost code": lambda t: _with_ensures(t, "ensures \\false;", "//@ ghost int g = 0;\n"),
}


def loop_free(atom_payload: dict) -> bool:
    return not LOOP.search(re.sub(r"/\*.*?\*/|//[^\n]*", "", atom_payload["definition"], flags=re.DOTALL))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", default="1,2,3,4")
    parser.add_argument("--count", default="", help=f"admitted tasks wanted, e.g. 2=22,3=11 (defaults: {COUNT})")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    counts = {**COUNT, **{int(k): int(v) for k, v in (p.split("=") for p in args.count.split(",") if p)}}
    levels = [int(x) for x in args.levels.split(",")]
    report: dict = {"seed": args.seed, "levels": {}}
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(str(Path(tmp) / "graph.lbug"))
        domain = ProofsDomain()
        loaded = load(store, "proofs", ACSL, {})
        report["load"] = {"atoms": loaded.atoms, "edges": loaded.edges, "seconds": round(loaded.seconds), **loaded.report}
        print(f"load: {loaded.atoms} atoms, {loaded.edges.get('FEEDS', 0)} FEEDS edges, "
              f"{loaded.report['reference_proves']} own references prove, {loaded.report['reference_fails']} "
              f"do not (not walked: {', '.join(loaded.report['not_walked'])}) [{loaded.seconds:.0f}s]", flush=True)
        atoms = {a.id: a for a in store.get_atoms([x for x, *_ in store.atom_index("proofs")])}
        for n in levels:
            seed = args.seed + n
            t = time.monotonic()
            summary = walk_and_admit(store, "proofs", n, counts[n], seed=seed, max_attempts=3 * counts[n],
                                     workers=args.workers, options={"backend": "acsl"})
            tasks = [store.get_task(i) for i in summary.admitted_ids]
            this_run = [store.get_task(r["id"]) for r in store.list_tasks("proofs", "", n, 100_000)
                        if r["run"] == summary.run]
            refs_ok = sum(1 for r in this_run if (r["evidence"].get("reference") or {}).get("passes"))
            loopless = sum(loop_free(atoms[t["atoms"][-1]].payload) for t in tasks)
            composites = [Composite(t["prompt"], t["reference"], t["verifier"]) for t in tasks]
            cheated = [domain.grade(c, cheat(t)) for c, t in zip(composites, tasks, strict=True)
                       for cheat in CHEATS.values()]
            solved_by_cheat = len({i // len(CHEATS) for i, c in enumerate(cheated) if c.ok})
            # Every admitted reference graded as a candidate: smoke tests on, as for a model's output.
            with ThreadPoolExecutor(args.workers) as pool:
                graded = list(pool.map(lambda c: domain.grade(c, c.reference), composites))
            row = {"seed": seed, "run": summary.run, "attempted": summary.attempted, "reference_proves": refs_ok,
                   "admitted": summary.admitted, "reasons": {str(k): v for k, v in summary.by_reason.items()}, "used_up": summary.used_up,
                   "last_stage_loop_free": loopless, "cheater_solved": solved_by_cheat,
                   "cheater_reasons": dict(Counter(c.reason or "graded" for c in cheated)),
                   "references_graded_solved": sum(g.ok for g in graded),
                   "smoke_false_alarms": sum(g.reason == Reason.INCONSISTENT_CONTEXT for g in graded),
                   "references_not_solved": {t["id"]: f"{g.reason}: {g.detail[:200]}"
                                             for t, g in zip(tasks, graded, strict=True) if not g.ok},
                   "chains": [" -> ".join(a.split("/")[-1] for a in t["atoms"]) for t in tasks],
                   "seconds": round(time.monotonic() - t)}
            report["levels"][n] = row
            print(f"N={n} seed {seed}: {row['admitted']} admitted of {row['attempted']} attempted, "
                  f"{refs_ok} references prove, {row['seconds']}s; reasons {row['reasons']}", flush=True)
        store.close()
    verus_atoms = len(read(VERUS, {"references": "trust"})[1]) if VERUS.exists() else 0
    report["verus_atoms"] = verus_atoms
    report["seconds"] = round(time.monotonic() - started)
    print_report(report)
    if args.out:
        args.out.write_text(json.dumps(report, indent=1))


def print_report(report: dict) -> None:
    print("\nACSL by Example under Frama-C 25/WP with Z3 and cvc5, seeded walks (`cw walk --opt backend=acsl`)")
    print(f"{'N':>2} {'seed':>4} {'tried':>6} {'ref ok':>7} {'admitted':>9} {'cheat':>6}  paper (Verus ref ok)")
    for n, row in report["levels"].items():
        n = int(n)
        paper = "{}/{} ({:.0%})".format(*PAPER[n], PAPER[n][0] / PAPER[n][1]) if n in PAPER else "-"
        ref = f"{row['reference_proves']}/{row['attempted']}"
        cheat_col = f"{row['cheater_solved']}/{row['admitted']}"
        print(f"{n:>2} {row['seed']:>4} {row['attempted']:>6} {ref:>7} {row['admitted']:>9} {cheat_col:>6}  {paper}")
    two = report["levels"].get(2) or report["levels"].get("2")
    if two and two["admitted"]:
        print(f"\nN = 2 tasks whose last stage has no loop: {two['last_stage_loop_free']}/{two['admitted']} "
              f"({two['last_stage_loop_free'] / two['admitted']:.0%})")
    print(f"cheat = admitted tasks on which any of {len(CHEATS)} generic cheaters (no invariants, nothing proved; "
          f"{'; '.join(CHEATS)}) is graded solved; their grades: "
          + "; ".join(f"N={n}: {row['cheater_reasons']}" for n, row in report["levels"].items()))
    graded = sum(row["admitted"] for row in report["levels"].values())
    solved = sum(row["references_graded_solved"] for row in report["levels"].values())
    alarms = sum(row["smoke_false_alarms"] for row in report["levels"].values())
    print(f"every admitted reference graded as a candidate (WP smoke tests on): {solved}/{graded} solved, "
          f"{alarms} smoke-test false alarms")
    for row in report["levels"].values():
        for task, why in row["references_not_solved"].items():
            print(f"  reference of {task} not solved: {why}")
    print(f"Verus-Bench: {report['verus_atoms']} atoms, counted only (Verus is not installed here)")
    for n, row in report["levels"].items():
        print(f"\nN={n} admitted ({row['admitted']}), rejections {row['reasons']}:")
        for chain in row["chains"]:
            print(f"  {chain}")
    print(f"\n[{report['seconds']}s in all]")


if __name__ == "__main__":
    sys.exit(main())
