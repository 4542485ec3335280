"""Proof completion, Frama-C/WP backend: which atoms are walked and which chains the relation gives.

Loads a few ACSL by Example programs (`--opt programs=`), so only their own references are verified;
results are cached by content hash in one folder for this module.
"""

from __future__ import annotations

import os
import random
import shutil
from itertools import islice

import pytest

from codewalk.domain import get_domain
from codewalk.domains.proofs import UNPROVEN, ProofsDomain
from codewalk.loading import load
from codewalk.store import open_store
from codewalk.walk import Walker
from tests.shared_data import dataset, require

ACSL = dataset("acsl-bench", "acsl-by-example")
# rotate's own reference does not prove under Frama-C 25 (rotate's `ensures rotate` is left unproved)
PROGRAMS = "Mutating/fill,Mutating/rotate,Nonmutating/find"

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
    assert any(e.dst == rotate.id for e in store.edges("proofs"))  # and with its edges: fill feeds it
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
