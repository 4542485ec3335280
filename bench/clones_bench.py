"""Clone-domain throughput: atoms re-verified per second and level-10 groups admitted per second.

Our path runs a whole batch in one JVM (two side by side on a 2-core machine): every pair or composite
compiled once by javac inside it, every input called in a worker thread with a deadline. The baseline
starts one JVM per test input, as a script calling `java` per test would (its classes already compiled,
which favours it); it is measured on a few inputs and scaled to a full suite.

- atoms: a seeded sample of FEMPD pairs re-verified by (a) type-driven inputs and (b) EvoSuite
  cross-substitution, on an empty cache (compiling included), then again on the warm cache.
- level-10 groups: the sample's confirmed atoms go into an embedded store; seeded walks give level-10
  groups (half of them negative); each is composed and checked (2) in one batch (one JVM per round of
  drawing inputs), and, as `cw walk` does it, one group at a time. An admitted group is one whose reference check passes (check (1) reads the
  atoms' load-time record).

Data: FEMPD/FEMP-X pairs (CC BY-NC 4.0) from ../shared/data/fempd (or $CODEWALK_SHARED/data/fempd).
Run from the repository root: python bench/clones_bench.py [--pairs 300] [--groups 40] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from codewalk.domains.clones import DEADLINE_MS, ClonesDomain, atom
from codewalk.domains.clones.inputs import normalize
from codewalk.domains.clones.java import CallUnit, Java, cache_root
from codewalk.domains.clones.verify import DEADLINE_MS as ATOM_DEADLINE_MS
from codewalk.domains.clones.verify import pair_class, pair_inputs
from codewalk.loaders import fempd
from codewalk.store import open_store
from codewalk.store.columns import graph_tables
from codewalk.walk import Walker

FEMPD = Path(os.environ.get("CODEWALK_SHARED") or ROOT / ".." / "shared") / "data" / "fempd"


def per_input_jvm(java: Java, units: list[CallUnit], inputs: int, deadline_ms: int) -> float:
    """Seconds per test input when every input gets its own JVM (the unit already compiled)."""
    for unit in units:  # compile each once, untimed
        java.calls([CallUnit(unit.sources, unit.targets, unit.params, unit.inputs[:1])], deadline_ms)
    started, runs = time.monotonic(), 0
    for unit in units:
        for args in unit.inputs[:inputs]:
            java.calls([CallUnit(unit.sources, unit.targets, unit.params, [args])], deadline_ms)
            runs += 1
    return (time.monotonic() - started) / runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=300, help="FEMPD pairs in the sample")
    parser.add_argument("--groups", type=int, default=40, help="level-10 groups")
    parser.add_argument("--baseline", type=int, default=12, help="inputs run one JVM each, for the baseline")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    figures: dict[str, float | int | str] = {"load_average": " ".join(f"{x:.1f}" for x in os.getloadavg())}
    with tempfile.TemporaryDirectory(prefix="clones-bench-") as scratch:
        cache = Path(scratch) / "cache"
        if (cache_root() / "jars").exists():  # the jars only: nothing compiled is reused
            shutil.copytree(cache_root() / "jars", cache / "jars")
        java = Java(cache)
        domain = ClonesDomain(java)
        java.harness()

        # -- atoms ---------------------------------------------------------------------------------------
        pairs = fempd.read(FEMPD)
        random.Random(args.seed).shuffle(pairs)
        pairs = pairs[: args.pairs]
        started = time.monotonic()
        results = domain.verify(pairs)
        cold = time.monotonic() - started
        started = time.monotonic()
        domain.verify(pairs)
        warm = time.monotonic() - started
        confirmed = [r for r in results if r.confirmed]
        figures |= {"pairs": len(pairs), "confirmed": len(confirmed), "verify_cold_s": round(cold, 1),
                    "verify_warm_s": round(warm, 1), "atoms_per_s_cold": round(len(pairs) / cold, 2),
                    "atoms_per_s_warm": round(len(pairs) / warm, 2)}
        runnable = [r.pair for r in results if r.a != "unsupported_type"][:3]
        units = [CallUnit({f"{p.name}.java": pair_class(p)},
                          ((f"{p.package}.{p.name}", "method1"), (f"{p.package}.{p.name}", "method2")),
                          tuple(normalize(t) for t in p.param_types), pair_inputs(p, 0)) for p in runnable]
        per_input = per_input_jvm(java, units, max(1, args.baseline // len(units)), ATOM_DEADLINE_MS)
        inputs_per_pair = sum(r.a_evidence.get("inputs", 0) for r in results) / max(1, len(results))
        figures |= {"baseline_s_per_input_jvm": round(per_input, 3),
                    "baseline_atoms_per_s": round(1 / (per_input * inputs_per_pair), 4)}
        figures["atoms_speedup_warm"] = round(figures["atoms_per_s_warm"] / figures["baseline_atoms_per_s"], 1)

        # -- level-10 groups --------------------------------------------------------------------------------
        atoms = [atom(r) for r in confirmed]
        store = open_store(Path(scratch) / "graph.lbug")
        store.write(*graph_tables(atoms, list(domain.edges(atoms))))
        by_id = {a.id: a for a in atoms}
        walker = iter(Walker(store, domain, 10, random.Random(args.seed)))
        groups = [[by_id[i] for i in next(walker)] for _ in range(args.groups + 4)]
        store.close()
        composites = [domain.compose(g) for g in groups]
        started = time.monotonic()
        checks = domain.run_composites(composites[: args.groups])
        batch = time.monotonic() - started
        started = time.monotonic()
        for group, composite in zip(groups[args.groups:], composites[args.groups:]):
            domain.check_reference(composite, group)  # one group at a time, as the admission loop calls it
        one_jvm_each = (time.monotonic() - started) / 4
        outcome = Counter((c.verifier["label"], k.ok) for c, k in zip(composites, checks))
        reasons = Counter(f"{c.verifier['label']} {k.reason or 'admitted'}" for c, k in zip(composites, checks))
        figures["level10_outcomes"] = ", ".join(f"{reason}: {n}" for reason, n in sorted(reasons.items()))
        admitted = sum(k.ok for k in checks)
        # A check runs `outer` and the depth probes on every input it draws (steer.py): four calls per input.
        inputs_per_group = 2 * sum(k.evidence.get("drawn", 0) for k in checks) / len(checks)
        sample = [CallUnit({f"{s}.java": t for s, t in c.verifier["snippets"].items()},
                           (("SnippetA", "outer"), ("SnippetB", "outer")), tuple(c.verifier["params"]),
                           k.evidence["input_set"]) for c, k in zip(composites, checks) if "input_set" in k.evidence][:2]
        per_input = per_input_jvm(java, sample, max(1, args.baseline // 2), DEADLINE_MS)
        figures |= {"level10_groups": args.groups, "level10_admitted": admitted,
                    "level10_admitted_pos": outcome[("eq", True)], "level10_admitted_neg": outcome[("neq", True)],
                    "level10_batch_s": round(batch, 1), "groups_per_s_batch": round(args.groups / batch, 3),
                    "admitted_per_s_batch": round(admitted / batch, 3),
                    "s_per_group_one_jvm_each": round(one_jvm_each, 2),
                    "baseline_s_per_group": round(per_input * inputs_per_group, 1),
                    "admitted_per_s_baseline": round(admitted / args.groups / (per_input * inputs_per_group), 4)}
        figures["groups_speedup_batch"] = round(figures["baseline_s_per_group"] * args.groups / batch, 1)
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    for key, value in figures.items():
        print(f"{key:28} {value}")


if __name__ == "__main__":
    main()
