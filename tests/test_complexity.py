"""Complexity domain, executed for real: atoms checked against their programs, growth measured, chains
composed, admitted or rejected by running the composite, and answers graded."""

from __future__ import annotations

import dataclasses
import math

import pytest

from codewalk.admission import evaluate
from codewalk.domain import Rejected
from codewalk.domains.complexity import (
    INSTRUCTION,
    ComplexityDomain,
    extract,
    growth,
    measure,
    parse_label,
    verify,
)
from codewalk.loaders import codecomplex as loader
from codewalk.records import Atom
from tests.shared_data import dataset, require

DATA = dataset("codecomplex", "python_test.jsonl")
# A fixed subset of real programs (row ids), chosen for the chains below.
SUBSET = ("0501", "0505", "0512", "0515", "0525", "0526", "0550", "0596")


@pytest.fixture(scope="module")
def domain() -> ComplexityDomain:
    return ComplexityDomain()


@pytest.fixture(scope="module")
def atoms(domain):
    require("codecomplex", "python_test.jsonl")
    ids = ",".join(f"cc-simple-test-{row}" for row in SUBSET)
    return {a.summary["source"][-4:]: a for a in domain.load(DATA, {"ids": ids, "workers": 2})}


def chain(atoms, *rows):
    return [atoms[row] for row in rows]


def program(src: str, label: str = "linear") -> loader.Program:
    return loader.Program("synthetic", label, src)


# -- atoms ---------------------------------------------------------------------------------------------------
def test_subset_loads_with_signatures_labels_and_measured_growth(atoms):
    assert sorted(atoms) == sorted(SUBSET)
    cube = atoms["0501"]
    assert cube.id == "complexity/cc-simple-test-0501" and cube.domain == "complexity"
    assert cube.summary == {"title": "solve(n: int) -> int", "in_type": "int", "out_type": "int",
                            "label": "constant", "source": "cc-simple-test-0501"}
    assert cube.payload["growth"] == "cubic" and len(cube.payload["growth_points"]) >= 10  # it counts triples
    assert atoms["0550"].summary["title"] == "solve(rows: list[list[int]]) -> int"
    assert atoms["0550"].payload["growth"] == "linear"
    assert atoms["0525"].payload["growth"] == "logn"  # f"{n - 8} 8": a constant plus the digits of n


def test_a_function_that_differs_from_its_program_is_dropped(monkeypatch):
    src = "n = int(input())\nprint(n * n)\n"
    real = extract.extract(src)
    assert not isinstance(verify.verify(program(src)), verify.Drop)
    wrong = dataclasses.replace(real, source=real.source.replace("n * n", "n * n + (n > 5)"))
    monkeypatch.setattr(verify, "extract", lambda _: wrong)
    drop = verify.verify(program(src))
    assert isinstance(drop, verify.Drop) and drop.reason == "output_mismatch"


def test_a_program_that_fails_on_every_generated_input_is_dropped():
    drop = verify.verify(program("n = int(input())\nprint(10 // (n - n))\n"))
    assert isinstance(drop, verify.Drop) and drop.reason == "no_valid_input"
    assert "ZeroDivisionError" in drop.detail


@pytest.mark.parametrize("src, expected", [
    ("n = int(input())\nprint(n * (n - 1) // 2)\n", "quadratic"),  # a count of pairs
    ("n = int(input())\nprint(*range(n))\n", "linear"),  # n numbers
    ("n = int(input())\nprint(n.bit_length())\n", "logn"),
    ("a = list(map(int, input().split()))\nprint(max(a) > 1 and 'YES' or 'NO')\n", "constant"),
    ("n = int(input())\nprint(2 ** n)\n", "np"),
])
def test_output_growth_is_measured_by_running_the_function(src, expected):
    _, payload = verify.verify(program(src))
    assert payload["growth"] == expected, payload["growth_points"]


# -- relation and composition --------------------------------------------------------------------------------
def test_feeds_edges_join_a_return_type_to_a_single_parameter_of_that_type(domain, atoms):
    edges = {(e.src[-4:], e.dst[-4:]): e for e in domain.edges(list(atoms.values()))}
    assert ("0501", "0515") in edges and edges["0501", "0515"].arg == 0  # int -> int
    assert ("0525", "0505") in edges  # str -> str
    assert ("0550", "0512") not in edges  # int -> list[int]
    assert ("0501", "0526") not in edges  # solve(a: int, b: int) reads an input of its own
    assert ("0596", "0515") in edges  # a value of about n digits... feeds a stage
    assert ("0526", "0501") not in edges and ("0512", "0501") not in edges  # constant-size values feed none
    assert all(e.type == "FEEDS" for e in edges.values())


def test_a_chain_whose_types_do_not_match_is_refused(domain, atoms):
    with pytest.raises(Rejected) as caught:
        domain.compose(chain(atoms, "0550", "0512"))
    assert caught.value.reason == "type_mismatch" and "takes list[int]" in caught.value.detail


def test_a_later_stage_with_inputs_of_its_own_is_refused(domain, atoms):
    with pytest.raises(Rejected) as caught:
        domain.compose(chain(atoms, "0501", "0526"))
    assert caught.value.reason == "reads_own_inputs" and "takes int, int" in caught.value.detail


def test_composite_is_the_renamed_functions_and_a_driver_under_the_paper_prompt(domain, atoms):
    composite = domain.compose(chain(atoms, "0501", "0515"))
    assert composite.prompt.endswith(INSTRUCTION) and "def solve_1(n: int) -> int:" in composite.prompt
    assert "def solve_2(n: int) -> str:" in composite.prompt
    # solve_2 returns everything the original printed (several lines), so the driver prints it as it is.
    assert composite.verifier["driver"].splitlines() == [
        "n = int(input())", "x1 = solve_1(n)", "result = solve_2(x1)", "print(result, end='')"]
    # A linear stage that counts up to the cubic number of triples its predecessor returns.
    assert composite.reference == "cubic"
    assert composite.verifier["derivation"] == ["stage 1: input size n, cost 1",
                                                "stage 2: input size n^3, cost n^3"]


# -- admission -----------------------------------------------------------------------------------------------
def test_a_chain_through_a_constant_size_value_is_refused_as_trivial(domain, atoms):
    # A constant-size value into a cubic stage would starve it: the answer would be constant whatever
    # the later labels, a trivial baseline. Such a chain has no edge and is refused at composition.
    with pytest.raises(Rejected) as caught:
        domain.compose(chain(atoms, "0512", "0501"))
    assert caught.value.reason == "constant_link" and "0512" in caught.value.detail


def test_a_chain_through_a_growing_value_is_admitted_with_its_measured_link(domain, atoms):
    group = chain(atoms, "0501", "0515")  # n^3 triples counted by a linear stage: cubic
    verdict = evaluate(domain, group)
    assert (verdict.status, verdict.composite.reference) == ("admitted", "cubic")
    link = verdict.evidence["reference"]["links"][0]
    assert (link["derived"], link["measured"], link["agrees"]) == ("n^3", "n^3", True)


def test_check_1_runs_before_check_2_and_nothing_runs_when_it_fails(domain, atoms, monkeypatch):
    group = chain(atoms, "0596", "0515")  # linear: the largest label, check (1) fails
    composite = domain.compose(group)
    from codewalk.domains.complexity import run as runner

    def no_runs(*args, **kwargs):
        raise AssertionError("check (2) ran the composite although check (1) fails")

    monkeypatch.setattr(runner, "run_driver", no_runs)
    check = domain.check_reference(composite, group)
    assert not check.ok and check.reason == "ref_equals_max_label" and check.evidence["check_1_first"]


def test_check_1_rejects_a_chain_whose_answer_is_its_largest_label(domain, atoms):
    group = chain(atoms, "0596", "0515")  # constant, emits ~n; linear on it: linear, the largest label
    composite = domain.compose(group)
    assert composite.reference == "linear"
    check = domain.check_unsolved(composite, group, 1)
    assert not check.ok and check.reason == "ref_equals_max_label"
    assert domain.check_unsolved(composite, group, 0).ok  # the constant stage gives nothing away
    assert evaluate(domain, group).reason == "ref_equals_max_label"


def test_check_1_rejects_a_chain_whose_answer_is_stage_1s_label(domain, atoms):
    group = chain(atoms, "0550", "0525", "0505")  # linear; then constant on a log-size value; quadratic on that
    composite = domain.compose(group)
    assert composite.reference == "linear" and group[2].summary["label"] == "quadratic"  # not the max label
    check = domain.check_unsolved(composite, group, 0)
    assert not check.ok and check.reason == "ref_equals_first_label"
    assert domain.check_unsolved(composite, group, 1).ok and domain.check_unsolved(composite, group, 2).ok
    assert evaluate(domain, group).reason == "ref_equals_first_label"


def test_check_2_needs_the_reference_class_on_the_inputs_of_every_seed(domain, atoms, monkeypatch):
    """A class that holds on one draw of inputs only is rejected as cost_unstable (the second draw is
    made to measure quadratic here: a stage that returns early on one draw and not on another)."""
    import codewalk.domains.complexity as complexity

    group = chain(atoms, "0501", "0515")
    composite = domain.compose(group)
    assert domain.check_reference(composite, group).ok  # cubic on both seeds
    real = complexity.measure_composite

    def second_draw_quadratic(composite, atoms, seed=0, cap_at=None):
        measured = real(composite, atoms, seed, cap_at)
        return measured if seed == 0 else dataclasses.replace(measured, cost=growth.Growth(2, 0))

    monkeypatch.setattr(complexity, "measure_composite", second_draw_quadratic)
    check = domain.check_reference(composite, group)
    assert not check.ok and check.reason == "cost_unstable" and "seed 1" in check.detail
    assert check.evidence["other_seeds"][0]["seed"] == 1


def test_how_a_measurement_is_batched_does_not_change_what_it_counts(domain, atoms):
    """Inputs are made per batch, up to where the cap should stop the runs (measure_composite's cap_at):
    a guess far too low (a new harness for every size) and no guess (every size in one harness) give
    the same points. They would not if a run left state behind for the next one in its harness."""
    import codewalk.domains.complexity as complexity

    group = chain(atoms, "0501", "0515")
    composite = domain.compose(group)
    one = complexity.measure_composite(composite, group, 0, cap_at=math.inf)
    many = complexity.measure_composite(composite, group, 0, cap_at=-1.0)
    assert one.stopped == "cap" and len(one.points) > 5
    assert (many.points, many.stopped, many.links) == (one.points, one.stopped, one.links)


def fake_runs(over_at: float, ran: list[list[float]]):
    """run_batch for run_batches: counts 2^e, and the first size at or past over_at goes over the cap."""
    def run_batch(batch: list[float], budget: float) -> list[dict]:
        ran.append(batch)
        out = []
        for e in batch:
            out.append({"over": True} if e >= over_at else {"count": 2 ** e, "seconds": 0.0})
            if e >= over_at:
                break
        return out
    return run_batch


def test_inputs_past_where_the_cap_stops_the_runs_are_never_made():
    made: list[float] = []
    ran: list[list[float]] = []
    out = measure.run_batches(measure.EXPONENTS, lambda e: made.append(e) or e, fake_runs(9.0, ran),
                                 first_end=9.0)  # a guess just right: the last size made is the one over the cap
    assert made == [e for e in measure.EXPONENTS if e <= 9.0] and len(ran) == 1
    assert measure.stopped_by(out.results, len(out.used), out.too_large) == "cap"


def test_a_guess_too_low_goes_on_to_the_cap_in_another_batch():
    ran: list[list[float]] = []
    out = measure.run_batches(measure.EXPONENTS, lambda e: e, fake_runs(12.0, ran), first_end=4.0)
    assert ran[0][-1] == 4.0 and len(ran) >= 2
    assert [r.get("count") for r in out.results[:-1]] == [2 ** e for e in measure.EXPONENTS if e < 12.0]
    assert measure.stopped_by(out.results, len(out.used), out.too_large) == "cap"


def test_the_cap_predicted_from_the_atoms_is_where_the_chain_passes_it(domain, atoms):
    import codewalk.domains.complexity as complexity

    group = chain(atoms, "0501", "0515")
    measured = complexity.measure_composite(domain.compose(group), group, 0)
    over = measure.exponents(group[0].payload)[len(measured.points)]  # the first size past the cap
    assert abs(complexity.predicted_cap(group) - over) <= 1.0


def test_a_single_atom_is_its_own_task(domain, atoms):
    verdict = evaluate(domain, chain(atoms, "0550"))
    assert (verdict.status, verdict.composite.reference) == ("admitted", "linear")


def test_a_reference_derived_from_a_wrong_stored_growth_is_refuted_by_the_counted_cost(domain, atoms):
    liar = atoms["0596"]  # emits about n; claim it emits n^2 elements
    liar = Atom(liar.id, liar.domain, liar.summary, {**liar.payload, "growth": "quadratic"})
    group = [liar, atoms["0515"]]
    composite = domain.compose(group)
    assert composite.reference == "quadratic"
    check = domain.check_reference(composite, group)
    assert not check.ok and check.reason == "reference_mismatch"
    assert check.evidence["cost"]["label"] == "linear"  # the composite really is linear
    assert independent_cost_class(composite, group) == "linear"  # and the independent measure says so too
    assert check.evidence["links"][0]["measured"] == "n" and not check.evidence["links"][0]["agrees"]


def test_a_composite_that_crashes_fails_check_2(domain, atoms):
    summary, payload = verify.verify(program("n = int(input())\nprint(n if n < 1000 else [][0])\n",
                                             label="constant"))
    fragile = Atom("complexity/fragile", "complexity", {**summary, "label": "linear"}, payload)
    group = [atoms["0501"], fragile]  # n^3 reaches 1000 soon
    check = domain.check_reference(domain.compose(group), group)
    assert not check.ok and check.reason == "composite_fails" and "IndexError" in check.detail


def test_a_derived_class_outside_the_labels_is_rejected_at_composition(domain, atoms):
    squarer = verify.verify(program("n = int(input())\nprint(n * n)\n", label="constant"))
    square = Atom("complexity/square", "complexity", *squarer)
    with pytest.raises(Rejected) as caught:
        domain.compose([square, atoms["0501"], atoms["0515"]])  # n -> n^2 -> n^6 triples -> a loop over them
    assert caught.value.reason == "ref_outside_labels" and "n^6" in caught.value.detail


# -- grading -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("answer, label", [
    ("quadratic", "quadratic"), ("  NlogN\n", "nlogn"), ("The answer: np", "np"),
    ("It looks linear at first, but overall:\nquadratic", "quadratic"),
    ("O(n^2)", None), ("linear or quadratic", None), ("", None), ("nlog n", None),
    # a label joined by a hyphen is not that label: neither says linear or np
    ("non-linear", None), ("NP-hard", None), ("np-complete", None), ("It is non-linear:\nquadratic", "quadratic"),
])
def test_the_predicted_label_is_one_of_the_seven_words(answer, label):
    assert parse_label(answer) == label


def test_grade_scores_the_reference_right_and_anything_else_wrong(domain, atoms):
    composite = domain.compose(chain(atoms, "0501", "0515"))
    assert domain.grade(composite, "cubic").ok
    wrong = domain.grade(composite, "linear")
    assert not wrong.ok and wrong.reason == "wrong_label" and wrong.evidence["predicted"] == "linear"
    assert not domain.grade(composite, "non-linear").ok
    unparseable = domain.grade(composite, "O(1)")
    assert not unparseable.ok and unparseable.reason == "unparseable"
    assert unparseable.evidence["predicted"] is None


# -- references re-measured independently of check (2) ----------------------------------------------------------
def independent_cost_class(composite, group, cap=300_000):
    """The composite run here, in this process, with its own line counter (no harness, no driver
    wrapping, no check (2) code), on stage 1's inputs at n = 2^e until a run costs more than `cap`."""
    import io
    import math
    import random
    import sys

    from codewalk.domains.complexity import composite_input, cost, growth
    from codewalk.domains.complexity.measure import exponents, scale_of

    class Over(Exception):
        pass

    tally = [0]

    def charge(k):
        tally[0] += k
        if tally[0] > cap:
            raise Over

    def walk(m, kind):
        return m if kind == "m" else int(m * max(1.0, math.log2(m or 1))) if kind == "mlogm" else int(math.log2(m + 1))

    def arg(v, kind):
        v = v if hasattr(v, "__len__") else list(v)
        charge(walk(len(v), kind))
        return v

    def self_(v, kind):
        if isinstance(v, (list, tuple, str, dict, set)):
            charge(walk(len(v), kind))
        return v

    def sized(v):
        if isinstance(v, (list, tuple, str)):
            charge(len(v))
        return v

    def tracer(frame, event, _):
        if frame.f_code.co_filename != "functions":
            return None

        def line(frame, event, _):
            if event == "line":
                charge(1)
            return line
        return line

    functions = compile(cost.instrument(composite.verifier["functions"]), "functions", "exec")
    driver = compile(composite.verifier["driver"], "driver", "exec")
    rng = random.Random(7)  # not check (2)'s seed: other inputs of the same sizes
    points = []
    for e in exponents(group[0].payload):
        space = {"_cw_arg": arg, "_cw_self": self_, "_cw_in": sized, "_cw_op": sized}
        exec(functions, space)
        sys.stdin, out = io.StringIO(composite_input(group, scale_of(e), rng)), sys.stdout
        sys.stdout = io.StringIO()
        tally[0] = 0
        sys.settrace(tracer)
        try:
            exec(driver, space)
        except Over:
            break
        finally:
            sys.settrace(None)
            sys.stdin, sys.stdout = sys.__stdin__, out
        points.append((scale_of(e), tally[0]))
    fitted, _ = growth.fit(points, growth.COST_MARGIN)
    return fitted and growth.label(fitted)


def test_admitted_references_equal_the_class_measured_independently_of_check_2(domain, atoms):
    """Every chain of N = 1..3 the relation allows over the subset goes through admission; each admitted
    task's reference is re-measured here, outside check (2) (independent_cost_class: its own counter in
    this process, another seed's inputs, the atom's whole size range). Costs are counted, not timed, so
    the class does not depend on the machine's load."""
    out: dict[str, list[str]] = {}
    for edge in domain.edges(list(atoms.values())):
        out.setdefault(edge.src, []).append(edge.dst)
    by_id = {a.id: a for a in atoms.values()}
    chains = [[a] for a in by_id]
    chains += [[a, b] for a in by_id for b in out.get(a, [])]
    chains += [[a, b, c] for a, b in (x for x in chains if len(x) == 2) for c in out.get(b, []) if c not in (a, b)]
    admitted = [group for group in ([by_id[i] for i in c] for c in chains) if evaluate(domain, group).status == "admitted"]
    assert sum(len(g) > 1 for g in admitted) >= 3 and sum(len(g) == 3 for g in admitted) >= 2
    for group in admitted:
        composite = domain.compose(group)
        assert independent_cost_class(composite, group) == composite.reference, [a.id for a in group]
