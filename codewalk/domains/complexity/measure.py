"""Measurement of an entry function: counted runs on inputs of growing size, n = 2^e, a batch of sizes
per sandboxed interpreter, until a run costs more than COST_CAP; the points are fitted to the closed
set of classes (growth.py)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from codewalk.errors import InfraError

from . import growth, run
from .inputs import TooLarge, generate

# The sizes runs are measured at, n = 2^e: half powers of two up to 2^16 (a list of 65,536 elements);
# when the size parameter is one number its value goes on, doubling in bits, up to 2^4096, where log n
# is 4096 and (log n)^2 is 16 million, so logarithmic costs can be told from constant and from each other.
EXPONENTS = tuple(k / 2 for k in range(2, 33))
NUMBER_EXPONENTS = (24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096)
COST_CAP = 1_000_000  # counted steps (cost.py): the first run that costs more ends the measurement
# Wall-clock nets for C work the count does not see, far above what a run under the cap takes, so that the
# count, not the machine's load, ends a measurement: a run of 972,825 counted steps took 4.1 s at load 10,
# and at 5 s a quiet and a loaded build admitted different pairs (bench/README.md, complexity by level).
COST_LIMIT = 60.0  # seconds per run
COST_BUDGET = 300.0  # seconds of runs per measurement
COST_TOKENS = 140_000  # the largest input a measurement run is given (pairs of 65,536 rows)


def scale_of(e: float) -> int:
    """n = 2^e, exactly for a whole e (2^4096 is far beyond a float)."""
    return 1 << int(e) if e == int(e) else round(2 ** e)


def exponents(payload: dict[str, Any]) -> tuple[float, ...]:
    number = payload["params"][payload["size"]][1] == "int"
    return EXPONENTS + NUMBER_EXPONENTS if number else EXPONENTS


@dataclass
class Batches:
    """What a measurement ran: the sizes inputs were made for (in order), one result per run that
    finished or ended it, and whether the next size's input would have passed COST_TOKENS."""

    used: list[float] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)
    too_large: bool = False


def run_batches(exps: Sequence[float], make: Callable[[float], Any],
                run_batch: Callable[[list[Any], float], list[dict[str, Any]]],
                first_end: float = math.inf) -> Batches:
    """Make the input of each size n = 2^e (in order, so a seeded generator gives the same inputs however
    they are batched) and run them, a batch at a time, while every run ends within the cap.
    Most of a measurement's input text is for its largest sizes, and most measurements end at the cap
    well before them, so a caller that can tell where the cap will stop the runs gives `first_end`:
    inputs past it are made only if the runs get there (the next batch then goes to where the counts
    so far say the cap will stop them: next_end). A wrong guess costs a process start (~50 ms), not a
    different result.
    The list sizes and the larger numbers never share a batch: arithmetic on numbers of millions of bits
    can hold the interpreter past any limit (2 ** n at n = 2^32); the harness is then killed, and only
    that batch's results are lost. Each run executes the module afresh (run.py), so the batching does
    not change what a run counts. run_batch(inputs, seconds) runs inputs within what is left of
    COST_BUDGET."""
    out = Batches()
    pending = list(exps)
    spent = 0.0
    while pending and not out.too_large:
        end = first_end if not out.results else next_end(out) if first_end < math.inf else math.inf
        end = max(end, pending[0])  # at least one size a batch
        if pending[0] <= EXPONENTS[-1]:
            end = min(end, EXPONENTS[-1])
        batch = []
        while pending and pending[0] <= end:
            try:
                batch.append(make(pending[0]))
            except TooLarge:
                out.too_large = True
                break
            out.used.append(pending.pop(0))
        if not batch:
            break
        if spent >= COST_BUDGET:
            break  # fewer results than sizes made: stopped_by says the budget ran out
        try:
            got = run_batch(batch, COST_BUDGET - spent)
        except InfraError as err:
            # the interpreter died or hung: an end of the measurement (not the program's failure)
            out.results.append({"hung": str(err)[:120]} if end > EXPONENTS[-1] else
                               {"error": f"InfraError: {str(err)[:120]}"})
            break
        out.results += got
        spent += sum(r.get("seconds", 0.0) for r in got)
        if len(got) < len(batch) or any("count" not in r for r in got):
            break
    return out


def next_end(ran: Batches) -> float:
    """The size the next batch goes up to: where the last two counts, extended as a power of n, pass
    COST_CAP, and one doubling of n more (the draws vary); every size when the counts do not grow."""
    counts = [(e, r["count"]) for e, r in zip(ran.used, ran.results) if r.get("count")]
    if len(counts) < 2 or counts[-1][1] <= counts[-2][1]:
        return math.inf
    (e1, c1), (e2, c2) = counts[-2:]
    return e2 + math.log2(COST_CAP / c2) / (math.log2(c2 / c1) / (e2 - e1)) + 1.0


@dataclass(frozen=True)
class Measurement:
    """Counted runs of a function on inputs of growing size: its output size and its cost at each n =
    2^e, the classes they fit (None: no class of the closed set fits), and what ended the runs."""

    output_points: list[list[float]]  # [e, output size]
    cost_points: list[list[float]]  # [e, cost]
    output: growth.Growth | None
    output_error: float
    cost: growth.Growth | None
    cost_error: float
    stopped: str  # "cap" (the next size costs more than COST_CAP), "largest size", "input too large", an error

    @staticmethod
    def of(outputs: list[list[float]], costs: list[list[float]], stopped: str) -> Measurement:
        out_class, out_error = fit_points(outputs, margin=0.02)  # random outputs are noisy
        cost_class, cost_error = fit_points(costs)
        return Measurement(outputs, costs, out_class, out_error, cost_class, cost_error, stopped)

    def cost_evidence(self) -> dict[str, Any]:
        return {"points": self.cost_points, "class": self.cost and str(self.cost),
                "label": self.cost and growth.label(self.cost), "error": round_error(self.cost_error),
                "stopped": self.stopped, "cap": COST_CAP, "sizes": "n = 2^e; points are [e, count]"}


def round_error(error: float) -> float | None:
    return round(error, 4) if error != float("inf") else None


def fit_points(points: list[list[float]], margin: float = growth.COST_MARGIN) -> tuple[growth.Growth | None, float]:
    """The class of [e, value] points (n = 2^e); counted costs by default, output sizes with margin 0.02."""
    return growth.fit([(scale_of(e), v) for e, v in points], margin)


def stopped_by(results: list[dict[str, Any]], planned: int, too_large: bool) -> str:
    if results and "over" in results[-1]:  # the last size made may be the one past the cap
        return "cap"
    if results and "error" in results[-1]:
        return results[-1]["error"][:120]
    if results and "hung" in results[-1]:
        return f"the interpreter died or hung beyond n = 2^{EXPONENTS[-1]:g}"
    if results and "timeout" in results[-1]:
        return f"a run took more than {COST_LIMIT:g}s"
    if len(results) < planned:
        return f"the runs took more than {COST_BUDGET:g}s"
    return "input too large" if too_large else "largest size"


def measure(payload: dict[str, Any], strategy: str, source: str, entry: str, seed: str) -> Measurement:
    """Run the entry on inputs of growing size (fixed seed), counting each run's cost (cost.py)."""
    rng = random.Random(f"{seed}/measure")
    ran = run_batches(exponents(payload), lambda e: generate(payload, scale_of(e), strategy, rng,
                                                            max_tokens=COST_TOKENS)[1],
                      lambda batch, budget: run.run_calls(source, entry, batch, form="value", text=False,
                                                          limit=COST_LIMIT, budget=budget, cap=COST_CAP))
    used, results = ran.used, ran.results
    done = [(e, r) for e, r in zip(used, results, strict=False) if "count" in r]
    outputs = [[e, r["size"]] for e, r in done if r.get("size") is not None]
    return Measurement.of(outputs, [[e, r["count"]] for e, r in done], stopped_by(results, len(used), ran.too_large))

