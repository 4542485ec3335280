"""Full-data report of the clone domain: confirmed pairs against the paper, why they differ, admitted tasks.

1. Re-verifies all 2,194 labeled FEMPD pairs as `cw load clones` does: (a) type-driven inputs and, for
   the equivalent pairs (a) confirms, (b) EvoSuite cross-substitution. To show how the two methods agree,
   (b) also runs on the equivalent pairs (a) did not confirm.
2. Counts against the paper (App. B.4): 994 of 1,342 eq and 159 of 852 neq confirmed, 127 of those neq
   type-composable (here: with a FEEDS edge to or from a confirmed eq atom, so it can sit in a chain).
3. Why pairs were not kept, and how our verdicts compare with FEMP-X's LLM witness search (reported
   only; it never decides anything).
4. Admission: the confirmed atoms and their FEEDS edges go into an embedded store, and the real loop
   (`walk_and_admit`, one JVM per group as `cw walk` runs it) admits tasks at N = 1..10 until each level
   has --per-class positive and negative tasks (or --max-attempts per level), as the paper balances them.

Data: FEMPD / FEMP-X (CC BY-NC 4.0) from ../shared/data/fempd (or $CODEWALK_SHARED/data/fempd).
Run from the repository root: python bench/clones_report.py [--per-class 20] [--levels 10] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from codewalk.loaders import fempd

from codewalk.admission import walk_and_admit
from codewalk.domains.clones import REFERENCE, ClonesDomain, atom
from codewalk.domains.clones.verify import cross_substitute
from codewalk.store import open_store

FEMPD = Path(os.environ.get("CODEWALK_SHARED") or ROOT / ".." / "shared") / "data" / "fempd"
PAPER = {"eq": (994, 1342), "neq": (159, 852), "neq_composable": 127}


def table(title: str, rows: list[list], header: list[str]) -> None:
    widths = [max(len(str(x)) for x in column) for column in zip(header, *rows)]
    print(f"\n{title}")
    for row in [header, ["-" * w for w in widths], *rows]:
        print("  ".join(str(x).ljust(w) for x, w in zip(row, widths)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-class", type=int, default=20, help="admitted tasks per class (eq, neq) and level")
    parser.add_argument("--levels", type=int, default=10, help="levels 1..L")
    parser.add_argument("--max-attempts", type=int, default=300, help="groups tried per level at most")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--store", help="store for the tasks (default: a temporary embedded store)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    domain = ClonesDomain()
    figures: dict = {}

    # -- 1. verification -------------------------------------------------------------------------------
    started = time.monotonic()
    pairs = fempd.read(FEMPD)
    results = domain.verify(pairs)
    verify_s = time.monotonic() - started
    unconfirmed_eq = [r for r in results if r.pair.label == "eq" and r.b == "not_run" and r.pair.suites]
    cross_substitute(unconfirmed_eq, domain.java)
    print(f"verified {len(pairs)} pairs in {verify_s:.0f}s (+ (b) on {len(unconfirmed_eq)} more eq pairs "
          f"in {time.monotonic() - started - verify_s:.0f}s)")

    # -- 2. counts against the paper ------------------------------------------------------------------------
    atoms = [atom(r) for r in results if r.confirmed]
    edges = list(domain.edges(atoms))
    label = {a.id: a.summary["label"] for a in atoms}
    composable = {e.src for e in edges if label[e.dst] == "eq"} | {e.dst for e in edges if label[e.src] == "eq"}
    rows = []
    for lab in ("eq", "neq"):
        mine = [r for r in results if r.pair.label == lab]
        kept = sum(r.confirmed for r in mine)
        rows.append([lab, len(mine), sum(r.a != "unsupported_type" for r in mine),
                     sum(r.a == lab for r in mine), sum(r.b == "eq" for r in mine) if lab == "eq" else "no suites",
                     kept, f"{PAPER[lab][0]} / {PAPER[lab][1]}"])
    neq_composable = sum(1 for a in atoms if a.summary["label"] == "neq" and a.id in composable)
    table("Confirmed pairs (kept = label confirmed: eq by (a) and (b), neq by (a))", rows,
          ["label", "pairs", "types supported", "(a) confirms", "(b) confirms", "kept", "paper kept"])
    print(f"neq type-composable: {neq_composable} (paper {PAPER['neq_composable']}); "
          f"FEEDS edges among kept atoms: {len(edges)}")
    figures["confirmed"] = {lab: sum(r.confirmed for r in results if r.pair.label == lab) for lab in ("eq", "neq")}
    figures["neq_composable"] = neq_composable
    figures["edges"] = len(edges)

    # -- 3. reasons and FEMP-X agreement ---------------------------------------------------------------------
    reasons = Counter((r.pair.label, r.reason) for r in results if not r.confirmed)
    table("Not kept, by reason", [[lab, reason, n] for (lab, reason), n in sorted(reasons.items())],
          ["label", "reason", "pairs"])
    figures["reasons"] = {f"{lab} {reason}": n for (lab, reason), n in reasons.items()}
    methods = Counter((r.a, r.b) for r in results if r.pair.label == "eq" and r.pair.suites and r.a in ("eq", "neq"))
    table("eq pairs: (a) type-driven inputs vs (b) EvoSuite cross-substitution",
          [[a, b, n] for (a, b), n in sorted(methods.items())], ["(a)", "(b)", "pairs"])
    llm = Counter((r.pair.label, r.a, r.pair.llm_status) for r in results if r.a in ("eq", "neq"))
    table("Our (a) verdict vs FEMP-X's LLM witness search (reported only)",
          [[lab, a, status, n] for (lab, a, status), n in sorted(llm.items())],
          ["label", "(a) verdict", "FEMP-X llm_status", "pairs"])
    figures["llm_agreement"] = {" ".join(k): n for k, n in llm.items()}

    # -- 4. admission per level ---------------------------------------------------------------------------------
    with tempfile.TemporaryDirectory(prefix="clones-report-") as scratch:
        store = open_store(args.store or Path(scratch) / "graph.lbug")
        started = time.monotonic()
        store.write_graph(atoms, edges)
        print(f"\nwrote {len(atoms)} atoms and {len(edges)} FEEDS edges to {store.location} "
              f"in {time.monotonic() - started:.0f}s")
        rows = []
        figures["levels"] = {}
        for n in range(1, args.levels + 1):
            started = time.monotonic()
            admitted: Counter = Counter()
            rejected: Counter = Counter()
            attempted = 0

            def seen(task, summary, admitted=admitted, rejected=rejected) -> None:
                if task.status == "admitted":
                    admitted["eq" if task.reference == REFERENCE["eq"] else "neq"] += 1
                else:
                    rejected[task.reason] += 1

            for round_ in range(20):
                need = sum(max(0, args.per_class - admitted[c]) for c in ("eq", "neq"))
                if not need or attempted >= args.max_attempts:
                    break
                summary = walk_and_admit(store, "clones", n, need, seed=args.seed + 1000 * round_ + n,
                                         max_attempts=min(4 * need, args.max_attempts - attempted),
                                         workers=args.workers, on_task=seen)
                attempted += summary.attempted
                if not summary.attempted:
                    break
            balanced = 2 * min(admitted["eq"], admitted["neq"])
            rows.append([n, attempted, admitted["eq"], admitted["neq"], balanced,
                         ", ".join(f"{k} {v}" for k, v in sorted(rejected.items())) or "-",
                         f"{time.monotonic() - started:.0f}s"])
            figures["levels"][n] = {"attempted": attempted, "admitted_eq": admitted["eq"],
                                    "admitted_neq": admitted["neq"], "balanced": balanced,
                                    "rejected": dict(rejected), "seconds": round(time.monotonic() - started, 1)}
            print(f"level {n}: {rows[-1]}", flush=True)
        store.close()
    table(f"Admitted tasks per level (target {args.per_class} per class; paper: 86/82/84/166 balanced at "
          f"N = 1/2/3/10)", rows, ["N", "attempted", "admitted eq", "admitted neq", "balanced", "rejected", "time"])
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
