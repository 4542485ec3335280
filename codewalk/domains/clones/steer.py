"""A task's own inputs for its check (2): drawn for `outer`'s signature, then steered through the stages.

Random inputs for a chain mostly end in the first stage's exception, so a check on them says little about
the values the whole chain computes. The draw works in rounds. Round 0 is type-driven inputs for the
whole signature of `outer` (inputs.generate; never the atoms' own suites). After each round every input
has a depth: how many stages both snippets completed without an exception (a probe copy of each snippet
reports it). The next round is steered: children of the deepest inputs, with the parameters of the stage
that threw (or of an earlier one, whose value it received) drawn again, half of the time from values that
already got through that stage. Drawing stops when AIM of INPUT_SET inputs run every stage, or after
ROUNDS rounds.

Every input drawn counts for the verdict. The task's input set (its evidence) is INPUT_SET of them: the
inputs that separate the snippets or are undecided first, then inputs that run every stage, up to AIM
of the set, then exception-path inputs (behaviour too), in the order drawn.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any

from .inputs import draw, generate

ROUNDS = 4  # the first draw and up to three steered ones
DRAW = 200  # inputs per round
INPUT_SET = 200  # the task's inputs, kept in its evidence
AIM = 0.75  # drawing stops once this share of INPUT_SET runs every stage
FROM_POOL = 0.5  # a redrawn parameter takes a value that already got through its stage this often


def first_draw(params: Sequence[str], seed: str) -> list[list[Any]]:
    return [list(row) for row in generate(list(params), seed, DRAW)]


def steered(params: Sequence[str], stages: Sequence[int], tried: Sequence[tuple[list[Any], int | None]],
            n_stages: int, rng: random.Random, count: int = DRAW) -> list[list[Any]]:
    """`count` new inputs bred from the deepest of `tried` (input, depth); `stages[k]` is the stage that
    takes parameter k (the first stage takes the first atom's parameters, stage i its extra ones)."""
    seen = {json.dumps(row) for row, _ in tried}
    known = [(row, d) for row, d in tried if d is not None]
    with_params = sorted(set(stages))
    if not known or not with_params:
        return []
    known.sort(key=lambda item: -item[1])
    parents = known[:max(10, len(known) // 5)]  # the deepest fifth
    # Values that got through their stage: parameter k of an input that completed stage stages[k].
    pools = [[row[k] for row, d in known if d > stages[k]] for k in range(len(params))]
    out: list[list[Any]] = []
    for _ in range(20 * count):
        if len(out) >= count:
            break
        parent, depth = rng.choice(parents)
        child = list(parent)
        failed = depth if depth < n_stages else rng.choice(with_params)  # a complete one: any stage
        earlier = [s for s in with_params if s <= failed]
        # The stage that threw when it has parameters of its own, else (or sometimes) an earlier one, whose
        # result it received.
        stage = failed if failed in with_params and rng.random() < 0.6 else rng.choice(earlier or with_params)
        for k, t in enumerate(params):
            if stages[k] == stage:
                child[k] = rng.choice(pools[k]) if pools[k] and rng.random() < FROM_POOL else draw(t, rng)
        text = json.dumps(child)
        if text not in seen:
            seen.add(text)
            out.append(child)
    return out


def input_set(first: Sequence[int], complete: Sequence[int], rest: Sequence[int],
              size: int = INPUT_SET) -> list[int]:
    """Positions (of the inputs drawn) of the task's input set: `first` (separating or undecided inputs), then
    inputs that run every stage up to AIM of the set, then the others, topped up with complete ones."""
    chosen: dict[int, None] = dict.fromkeys(first)
    aim = max(0, int(AIM * size) - sum(i in complete for i in chosen))
    for i in [i for i in complete if i not in chosen][:aim]:
        chosen[i] = None
    for i in (*rest, *complete):
        if len(chosen) >= size:
            break
        chosen.setdefault(i, None)
    return list(chosen)[:max(size, len(first))]
