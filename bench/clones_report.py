"""Full-data report of the clone domain: confirmed pairs against the paper, why they differ, admitted tasks.

1. Re-verifies all 2,194 labeled FEMPD pairs as `cw load clones` does: (a) type-driven inputs and, for
   the equivalent pairs (a) confirms, (b) EvoSuite cross-substitution. To show how the two methods agree,
   (b) also runs on the equivalent pairs (a) did not confirm.
   Every pair's verdict is written to --verdicts (default: clones-verdicts.jsonl beside the store).
2. Counts against the paper (App. B.4): 994 of 1,342 eq and 159 of 852 neq confirmed, 127 of those neq
   type-composable (here: with a FEEDS edge to or from a confirmed eq atom, so it can sit in a chain);
   beside them the previous check's counts (bench/results/clones_verdicts_before.jsonl: 120 inputs, one
   parameter varied at a time, no argument state, a timeout taken as a difference), the labels the
   stronger check overturned, the pairs undecided by time, and confirmed neq pairs resting on a timeout.
3. Why pairs were not kept, and how our verdicts compare with FEMP-X's LLM witness search (reported
   only; it never decides anything).
4. Admission: the confirmed atoms and their FEEDS edges go into an embedded store, and the real loop
   (`walk_and_admit`, one group at a time as `cw walk` runs it) admits tasks at N = 1..10 until each level
   has --per-class positive and negative tasks (or --max-attempts per level), as the paper balances them.
   Per level: how the admitted tasks' input sets run the chain (complete_share: the share that runs every
   stage on both sides; reach_last_share: that reaches the last stage), and how many groups were rejected
   for a complete_share below MIN_COMPLETE_SHARE.

Data: FEMPD / FEMP-X (CC BY-NC 4.0) from ../shared/data/fempd (or $CODEWALK_SHARED/data/fempd).
Run from the repository root: python bench/clones_report.py [--per-class 20] [--levels 10] [--workers 2]
(--levels 0: verification and counts only; --reuse: the stored verdicts instead of re-verifying, then
counts and admission as above; --show PAIR_ID: one pair's stored verdict and the previous check's; --tasks-store
STORE: the admitted clone tasks there that hold an atom whose label changed against --previous.)
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

from codewalk import paths
from codewalk.admission import walk_and_admit
from codewalk.domains.clones import MIN_COMPLETE_SHARE, REFERENCE, ClonesDomain, atom, verdicts
from codewalk.domains.clones.inputs import exhausted
from codewalk.domains.clones.steer import INPUT_SET
from codewalk.domains.clones.verify import INPUTS, MIN_TERMINATING, Verification, cross_substitute
from codewalk.loaders import fempd
from codewalk.records import Reason
from codewalk.store import open_store
from codewalk.store.columns import graph_tables

FEMPD = Path(os.environ.get("CODEWALK_SHARED") or ROOT / ".." / "shared") / "data" / "fempd"
PAPER = {"eq": (994, 1342), "neq": (159, 852), "neq_composable": 127}
PREVIOUS = ROOT / "bench" / "results" / "clones_verdicts_before.jsonl"  # the previous label check (120 inputs,
# one parameter varied at a time, no argument state, a timeout counted as a difference)


def _on_time(record: dict) -> bool:
    """A confirmed neq pair whose witness is a side running out of time or memory (a resource, not behaviour)."""
    w = record.get("witness") or {}
    return record["status"] == "confirmed" and record["label"] == "neq" and any(
        exhausted(w.get(side) or "") for side in ("method1", "method2"))


def _signed_zero_only(record: dict) -> bool:
    """A witness whose two outcomes differ only in the sign of a zero."""
    w = record.get("witness") or {}
    strip = lambda o: (o or "").replace("-0.0", "0.0")
    return bool(w) and w["method1"] != w["method2"] and strip(w["method1"]) == strip(w["method2"])


def audit(records: dict[int, dict], previous: dict[int, dict], figures: dict) -> None:
    """Confirmed counts beside the paper's, and what the stronger check overturned against the previous one."""
    rows = []
    for lab in ("eq", "neq"):
        mine = [r for r in records.values() if r["label"] == lab]
        before = [r for r in previous.values() if r["label"] == lab]
        rows.append([lab, len(mine), sum(r["status"] == "confirmed" for r in before),
                     sum(r["status"] == "confirmed" for r in mine), f"{PAPER[lab][0]} of {PAPER[lab][1]}"])
    table("Confirmed labels: previous check, this check, paper", rows,
          ["label", "pairs", "confirmed before", "confirmed now", "paper"])
    overturned = Counter()
    examples: dict[tuple, list[int]] = {}
    for pid, r in sorted(records.items()):
        old = previous.get(pid)
        if old and old["status"] != r["status"]:
            key = (r["label"], f"{old['status']} -> {r['status']}", r["reason"] if r["status"] == "rejected" else old["reason"])
            overturned[key] += 1
            examples.setdefault(key, []).append(pid)
    table("Labels overturned against the previous check", [[*k, n, " ".join(map(str, examples[k][:6]))]
                                                           for k, n in sorted(overturned.items())],
          ["label", "status", "reason (new if rejected, old if confirmed)", "pairs", "e.g."])
    figures["changed"] = changed(records, previous)
    print("\nEvery label that changed, with the witness input and both outcomes (JSON, non-ASCII escaped)")
    for c in figures["changed"]:
        w = c["witness"] or {}
        print(f"  {c['pair_id']} {c['label']}: {c['before']} -> {c['now']}; input {json.dumps(w.get('input'))}; "
              f"method1 {json.dumps(w.get('method1'))}; method2 {json.dumps(w.get('method2'))}")
    tried_now = sum(r["inputs_tried"] for r in records.values())
    tried_before = sum(previous[pid]["inputs_tried"] for pid in records if pid in previous)
    print(f"inputs run, all pairs: {tried_now} (previous check {tried_before}, {tried_now - tried_before:+d})")
    figures["inputs_tried"] = {"now": tried_now, "before": tried_before}
    undecided = Counter(r["label"] for r in records.values() if r["reason"] == "a:undecided_time")
    starved = Counter(r["label"] for r in records.values() if r["reason"] == "a:undecided_exhausted")
    zero = sum(_signed_zero_only(r) for r in records.values() if r["label"] == "eq" and r["reason"] == "a:diverges")
    print(f"\nundecided by time (rejected, a:undecided_time): eq {undecided['eq']}, neq {undecided['neq']}")
    print(f"undecided for want of inputs that finish on both sides (rejected, a:undecided_exhausted: fewer than "
          f"{MIN_TERMINATING} agreeing inputs on which both methods finished): eq {starved['eq']}, neq {starved['neq']}")
    print(f"confirmed neq resting on a timeout witness: before {sum(map(_on_time, previous.values()))}, "
          f"now {sum(map(_on_time, records.values()))}")
    print(f"eq rejected on a signed-zero difference only (-0.0 vs 0.0): {zero}")
    budget = Counter(r["a_evidence"].get("end") for r in records.values() if r["a_evidence"])
    tried = [r["inputs_tried"] for r in records.values() if r["a"] not in ("unsupported_type", "does_not_compile")]
    print(f"inputs tried per runnable pair: min {min(tried, default=0)}, median "
          f"{sorted(tried)[len(tried) // 2] if tried else 0}, max {max(tried, default=0)}; pair ended by {dict(budget)}")
    # Why a pair ran fewer inputs than planned: a neq pair stops at its third witness; any pair stops when its
    # time budget is spent or after ten inputs on which both sides ran out (then it is confirmed only on
    # MIN_TERMINATING agreeing inputs that finished).
    short = Counter((r["label"], r["status"], r["a_evidence"].get("end")) for r in records.values()
                    if r["a_evidence"].get("planned") and r["inputs_tried"] < r["a_evidence"]["planned"])
    table("Pairs that stopped before their last input, by why they ended", [[*k, n] for k, n in sorted(short.items())],
          ["label", "status", "ended by", "pairs"])
    small = sorted(r["a_evidence"]["planned"] for r in records.values()
                   if r["a_evidence"].get("planned") and r["a_evidence"]["planned"] < r["planned_inputs"])
    print(f"pairs whose whole input space is smaller than {INPUTS} inputs (all of it is run): {len(small)}, "
          f"the smallest {small[0] if small else '-'}")
    eq_tried = sorted(r["a_evidence"].get("agree_terminating", r["inputs_tried"]) for r in records.values()
                      if r["label"] == "eq" and r["status"] == "confirmed")
    print(f"confirmed eq pairs: agreeing inputs on which both finished, min {eq_tried[0] if eq_tried else 0}, "
          f"median {eq_tried[len(eq_tried) // 2] if eq_tried else 0}")
    figures["undecided_exhausted"] = dict(starved)
    figures["short_runs"] = {" | ".join(map(str, k)): n for k, n in short.items()}
    figures["confirmed_before"] = {lab: sum(r["status"] == "confirmed" and r["label"] == lab for r in previous.values())
                                   for lab in ("eq", "neq")}
    figures["overturned"] = {" | ".join(k): n for k, n in overturned.items()}
    figures["undecided_time"] = dict(undecided)
    figures["neq_on_timeout"] = sum(map(_on_time, records.values()))


def changed(records: dict[int, dict], previous: dict[int, dict]) -> list[dict]:
    """The pairs whose status changed against the previous check: label, both statuses with reasons, witness."""
    return [{"pair_id": pid, "label": r["label"], "before": f"{previous[pid]['status']} ({previous[pid]['reason']})",
             "now": f"{r['status']} ({r['reason']})", "witness": r["witness"] or r["a_evidence"].get("slow_input")}
            for pid, r in sorted(records.items()) if pid in previous and previous[pid]["status"] != r["status"]]


def affected_tasks(location: str, pairs: set[int]) -> list[dict]:
    """Admitted clone tasks in a store that hold an atom of one of `pairs` (whose label changed)."""
    with open_store(location) as store:
        rows = store.select_tasks("clones", status="admitted")
    ids = {f"clones/ClonePair{pid}" for pid in pairs}
    return [{"task": r["id"], "level": len(r["atoms"]), "reference": r["reference"],
             "changed_atoms": [a for a in r["atoms"] if a in ids]} for r in rows if ids & set(r["atoms"])]


def _spread(values: list[float]) -> list[str]:
    """min, quartiles, max of sorted values ('-' when there are none)."""
    if not values:
        return ["-"] * 5
    at = lambda q: values[min(len(values) - 1, int(q * len(values)))]
    return [f"{v:.2f}" for v in (values[0], at(0.25), at(0.5), at(0.75), values[-1])]


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
    parser.add_argument("--verdicts", type=Path, default=None,
                        help="where every pair's verdict is written (default: clones-verdicts.jsonl beside "
                             "$CODEWALK_STORE's embedded store, else in CODEWALK_HOME)")
    parser.add_argument("--previous", type=Path, default=PREVIOUS, help="verdicts of the previous check, to compare")
    parser.add_argument("--show", type=int, metavar="PAIR_ID", help="print one pair's stored verdict and exit")
    parser.add_argument("--tasks-store", help="a store whose admitted clone tasks are checked for atoms whose "
                                              "label changed against --previous (reported; nothing is removed)")
    parser.add_argument("--reuse", action="store_true",
                        help="read the stored verdicts instead of re-verifying (counts and admission still run)")
    args = parser.parse_args()
    args.verdicts = args.verdicts or paths.beside_store(os.environ.get("CODEWALK_STORE")) / verdicts.NAME
    domain = ClonesDomain()
    figures: dict = {}
    previous = verdicts.read(args.previous) if args.previous.exists() else {}
    if args.show is not None:
        record = verdicts.read(args.verdicts).get(args.show)
        print(json.dumps(record, indent=2) if record else f"no stored verdict for pair {args.show}")
        if args.show in previous:
            print(f"previous check: {previous[args.show]['status']} ({previous[args.show]['reason']})")
        return
    # -- 1. verification -------------------------------------------------------------------------------
    pairs = fempd.read(FEMPD)
    if args.reuse:
        stored = verdicts.read(args.verdicts)
        results = [Verification.from_record(p, stored[p.pair_id]) for p in pairs if p.pair_id in stored]
        print(f"verdicts of {len(results)} of {len(pairs)} pairs read from "
              f"{args.verdicts}: nothing re-verified")
    else:
        started = time.monotonic()
        results = domain.verify(pairs)
        verify_s = time.monotonic() - started
        unconfirmed_eq = [r for r in results if r.pair.label == "eq" and r.b == "not_run" and r.pair.suites]
        cross_substitute(unconfirmed_eq, domain.java)
        print(f"verified {len(pairs)} pairs in {verify_s:.0f}s (+ (b) on {len(unconfirmed_eq)} more eq pairs "
              f"in {time.monotonic() - started - verify_s:.0f}s)")
        figures["verify_seconds"] = round(verify_s, 1)
        where = verdicts.save([r.record() for r in results], args.verdicts)
        print(f"every pair's verdict: {where}")
    audit({r.pair.pair_id: r.record() for r in results}, previous, figures)
    if args.tasks_store:
        hit = affected_tasks(args.tasks_store, {c["pair_id"] for c in figures["changed"]})
        print(f"\nadmitted clone tasks in {args.tasks_store} holding an atom whose label changed: {len(hit)}")
        for t in hit:
            print(f"  {t['task']} (N = {t['level']}, {t['reference']}): {', '.join(t['changed_atoms'])}")
        figures["affected_tasks"] = hit

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
        store.write(*graph_tables(atoms, edges))
        print(f"\nwrote {len(atoms)} atoms and {len(edges)} FEEDS edges to {store.location} "
              f"in {time.monotonic() - started:.0f}s")
        rows, share_rows = [], []
        figures["levels"] = {}
        for n in range(1, args.levels + 1):
            started = time.monotonic()
            admitted: Counter = Counter()
            rejected: Counter = Counter()
            # (complete_share, reach_last_share, complete share of every input drawn) per admitted task
            shares: list[tuple[float, float, float]] = []
            attempted = 0

            def seen(task, summary, admitted=admitted, rejected=rejected, shares=shares) -> None:
                if task.status == "admitted":
                    admitted["eq" if task.reference == REFERENCE["eq"] else "neq"] += 1
                    ref = task.evidence["reference"]
                    shares.append((ref["complete_share"], ref["reach_last_share"], ref["drawn_complete"] / ref["drawn"]))
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
            complete = sorted(c for c, _, _ in shares)
            reach = sorted(r for _, r, _ in shares)
            drawn = sorted(d for _, _, d in shares)
            share_rows.append([n, len(shares), *_spread(complete), *_spread(reach)[2:3], *_spread(drawn)[2:3],
                               rejected[Reason.FEW_COMPLETE_RUNS]])
            figures["levels"][n] = {"attempted": attempted, "admitted_eq": admitted["eq"],
                                    "admitted_neq": admitted["neq"], "balanced": balanced,
                                    "rejected": dict(rejected), "seconds": round(time.monotonic() - started, 1),
                                    "complete_share": complete, "reach_last_share": reach, "drawn_complete_share": drawn}
            print(f"level {n}: {rows[-1]}", flush=True)
        store.close()
    if args.levels:
        table(f"Admitted tasks per level (target {args.per_class} per class; paper: 86/82/84/166 balanced at "
              f"N = 1/2/3/10)", rows, ["N", "attempted", "admitted eq", "admitted neq", "balanced", "rejected", "time"])
        table(f"Admitted tasks' input sets: share that runs every stage on both sides (complete_share; admission "
              f"needs {MIN_COMPLETE_SHARE}) and median share that reaches the last stage; groups rejected for "
              f"complete_share < {MIN_COMPLETE_SHARE}; the share is over the task's input set of {INPUT_SET}, chosen from every input "
              f"drawn, whose own complete share is the column before last", share_rows,
              ["N", "admitted", "min", "q1", "median", "q3", "max", "median reach_last", "median of all drawn",
               "rejected: share"])
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
