"""Proof completion, Frama-C/WP backend: which atoms are walked and which chains the relation gives.

Loads a few ACSL by Example programs (`--opt programs=`), so only their own references are verified;
results are cached by content hash in one folder for this module: 6 frama-c runs (the level-2 admission
of fill -> max_element, which test_proofs_acsl no longer repeats with fill -> find, is most of it).
"""

from __future__ import annotations

import os
import random
import shutil
from itertools import islice

import pytest

from codewalk.admission import evaluate
from codewalk.domain import Settings, get_domain
from codewalk.domains.proofs import UNPROVEN, ProofsDomain
from codewalk.loading import load
from codewalk.store import open_store
from codewalk.walk import Walker
from tests.shared_data import dataset, require

ACSL = dataset("acsl-bench", "acsl-by-example")
# rotate's own reference does not prove under Frama-C 25 (rotate's `ensures rotate` is left unproved)
PROGRAMS = "Mutating/fill,Mutating/rotate,MinMax/max_element"

needs_frama_c = pytest.mark.skipif(
    not shutil.which("frama-c") and os.environ.get("CI") != "true",
    reason="frama-c is not installed (apt-get install frama-c-base why3 z3 cvc5)",
)


@pytest.fixture(autouse=True, scope="module")
def _data():
    require("acsl-bench", "acsl-by-example")


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("proofs-cache")


@pytest.fixture(autouse=True)
def _shared_cache(cache, monkeypatch):
    monkeypatch.setenv("CODEWALK_CACHE", str(cache))


@pytest.fixture
def store(tmp_path):
    s = open_store(str(tmp_path / "graph.lbug"))
    yield s
    s.close()


def _id(program: str) -> str:
    return f"proofs/acsl/{program}"


@needs_frama_c
def test_an_atom_whose_own_reference_fails_is_stored_with_the_reason_and_never_walked(store):
    domain = ProofsDomain()
    loaded = {a.id: a for a in domain.load(ACSL, {"programs": PROGRAMS})}
    rotate = loaded[_id("Mutating/rotate")]
    assert rotate.payload["reference_proves"] is False and rotate.summary["label"] == UNPROVEN
    assert "does not prove" in rotate.payload["reference"] and "rotate" in rotate.payload["reference"]
    assert loaded[_id("Mutating/fill")].payload["reference_proves"] is True
    report = domain.load_report()
    assert (report["reference_proves"], report["reference_fails"]) == (2, 1)
    assert report["not_walked"] == ["acsl:Mutating/rotate"]

    load(store, "proofs", ACSL, {"programs": PROGRAMS})  # the verdicts come from the cache now
    kept = store.get_atoms([rotate.id])[0]
    assert kept.payload["reference"] == rotate.payload["reference"]  # kept in the store, with its reason
    assert any(e.src == rotate.id for e in store.edges("proofs"))  # and with its edges: it feeds max_element
    for n in (1, 2):
        groups = list(islice(Walker(store, get_domain("proofs"), n, random.Random(n)), 40))
        walked = {x for g in groups for x in g}
        assert rotate.id not in walked
        assert _id("Mutating/fill") in walked


def test_references_trust_walks_every_atom_without_running_the_verifier(store, monkeypatch):
    from codewalk.domains.proofs import acsl

    monkeypatch.setattr(acsl, "verify", _no_prover)
    load(store, "proofs", ACSL, {"programs": PROGRAMS, "references": "trust"})
    walked = {x for g in islice(Walker(store, get_domain("proofs"), 1, random.Random(0)), 60) for x in g}
    assert _id("Mutating/rotate") in walked


def test_programs_option_names_an_unknown_program_in_its_error():
    from codewalk.errors import UsageError

    with pytest.raises(UsageError, match="Mutating/nosuch"):
        list(ProofsDomain().load(ACSL, {"programs": "Mutating/fill,Mutating/nosuch", "references": "trust"}))


def _no_prover(*_):
    raise AssertionError("references=trust must not run the verifier")


@needs_frama_c
def test_the_array_fill_writes_feeds_max_element_which_reads_it_and_the_chain_is_admitted(store):
    load(store, "proofs", ACSL, {"programs": PROGRAMS})
    fill, top = _id("Mutating/fill"), _id("MinMax/max_element")
    feeds = {(e.src, e.dst): e.arg for e in store.edges("proofs")}
    assert feeds[(fill, top)] == 0  # fill's output buffer enters at max_element's array parameter
    assert (fill, top) in set(islice(Walker(store, get_domain("proofs"), 2, random.Random(0)), 20))
    verdict = evaluate(ProofsDomain(), store.get_atoms([fill, top]))
    assert verdict.composite is not None
    assert "L2: x2 = f2_max_element(a, n);" in verdict.composite.prompt  # pointer and length passed on
    assert verdict.status == "admitted", verdict.evidence
    reference, (first, second) = verdict.evidence["reference"]["wp"], verdict.evidence["atoms"]
    assert reference["proved"] == reference["goals"]
    assert "chain_driver_assert_S1" in first["failed_here"] and "chain_driver_assert_S2" in second["failed_here"]
    assert any(g.startswith("f2_max_element") for g in second["failed_here"])  # its loop lost its invariants
    assert all(g.startswith(("f2_", "chain_driver:f2_")) or g.endswith("S2") for g in second["failed_here"])
    # the task's goal set, recorded at admission in the verifier and the evidence (issue 43)
    goals = verdict.composite.verifier["goals"]
    assert goals == verdict.evidence["reference"]["goals"]
    assert {"kind": "driver", "name": "chain_driver_assert_S2"} in goals
    assert {"kind": "driver", "name": "chain_driver:f1_fill_requires_valid"} in goals
    assert {"kind": "loop_variant", "name": "f2_max_element", "count": 1} in goals
    assert {"kind": "ensures", "name": "f1_fill", "count": 1} in goals


def test_a_function_needing_more_of_its_array_than_the_writer_states_is_not_fed_by_it():
    from codewalk.domains.proofs import read

    _, found, _ = read(ACSL, {"references": "trust"})
    by = {a.payload["program"]: a for a in found}
    pairs = {(e.src, e.dst) for e in ProofsDomain().edges(found)}
    sorted_by_heap_sort = _id("Sorting/heap_sort"), _id("BinarySearch/lower_bound")
    assert sorted_by_heap_sort in pairs  # heap_sort ensures Increasing(a, n), which lower_bound requires
    assert (_id("Mutating/fill"), _id("BinarySearch/lower_bound")) not in pairs  # fill's array is not sorted
    assert (_id("Heap/make_heap"), _id("Heap/sort_heap")) in pairs  # a heap, then heap -> sorted
    assert (_id("Mutating/fill"), _id("Heap/sort_heap")) not in pairs
    # A requirement on the length alone is the driver's to assume: the length is one of its inputs.
    assert (_id("Mutating/fill"), _id("Sorting/partial_sort")) in pairs
    driver = ProofsDomain().compose([by["Mutating/fill"], by["Sorting/partial_sort"]]).prompt.split("void chain_driver")[0]
    assert "requires 0 <= m_2 <= n;" in driver.rsplit("/*@", 1)[1]


def test_a_function_that_overwrites_its_buffer_without_reading_it_is_fed_by_nothing():
    """fill and iota write every cell of their array whatever it held: a stage before them would be cut
    off from the chain's result. In-place functions whose ensures speak of the old contents are fed."""
    from codewalk.domains.proofs import read

    _, found, _ = read(ACSL, {"references": "trust"})
    fed = {e.dst for e in ProofsDomain().edges(found)}
    assert _id("Mutating/fill") not in fed and _id("Numeric/iota") not in fed
    assert {_id("Mutating/reverse"), _id("Mutating/replace"), _id("Heap/make_heap")} <= fed


def test_a_function_without_a_loop_is_fed_by_nothing_but_may_start_a_chain():
    from codewalk.domains.proofs import read

    _, found, _ = read(ACSL, {"references": "trust"})
    edges = list(ProofsDomain().edges(found))
    fed = {e.dst for e in edges}
    # heap_parent(child) after any function returning an index: its proof is its step predicate restated
    assert _id("Heap/heap_parent") not in fed and _id("MinMax/clamp") not in fed
    assert _id("Sorting/heap_sort") not in fed and _id("Sorting/heap_sort") in {e.src for e in edges}
    assert _id("MinMax/max_element") in fed


def test_a_walk_in_a_store_holding_both_backends_follows_the_one_asked_for(store):
    load(store, "proofs", ACSL, {"programs": "Mutating/fill,MinMax/max_element", "references": "trust"})
    load(store, "proofs", require("verus-bench"), {})
    backends = {a.id: a.summary["label"] for a in store.get_atoms([x for x, *_ in store.atom_index("proofs")])}
    assert set(backends.values()) == {"acsl", "verus"}
    for asked, n in (("verus", 2), ("acsl", 2), ("verus", 1)):
        domain = get_domain("proofs", Settings(walk=ProofsDomain.parse_walk_options({"backend": asked})))
        walked = {x for g in islice(Walker(store, domain, n, random.Random(n)), 30) for x in g}
        assert walked and {backends[x] for x in walked} == {asked}
    default = get_domain("proofs")  # no option: acsl, the backend that runs here
    assert {backends[x] for g in islice(Walker(store, default, 1, random.Random(0)), 30) for x in g} == {"acsl"}


def test_an_unknown_walk_option_or_backend_is_a_usage_error():
    from codewalk.errors import UsageError

    with pytest.raises(UsageError, match=r"unknown walk --opt colour for proofs \(known: backend\)"):
        ProofsDomain.parse_walk_options({"colour": "red"})
    with pytest.raises(UsageError, match="one of verus, acsl"):
        ProofsDomain.parse_walk_options({"backend": "coq"})
