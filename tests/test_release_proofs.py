"""Every atom must matter, for proofs: Ref(G) with one atom's proof left out (its component as x_G has it) is a
candidate the grader reads, and fails V_G; a release of the small ACSL fixture (fill -> max_element, as
tests/test_proofs_acsl_chains.py loads it) checks each admitted chain so. Frama-C runs are cached by content
hash in one folder for this module: about 10 runs, most of them the load's and admission's."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from codewalk import release
from codewalk.domains.proofs import ProofsDomain, acsl, acsl_guard, read, verus_guard
from codewalk.grading import verdict
from codewalk.loading import load
from codewalk.store import open_store
from tests.shared_data import dataset, require

ACSL = dataset("acsl-bench", "acsl-by-example")
VERUS_BENCH = dataset("verus-bench")
PROGRAMS = "Mutating/fill,Mutating/rotate,MinMax/max_element"  # rotate's own reference does not prove

needs_frama_c = pytest.mark.skipif(
    not shutil.which("frama-c") and os.environ.get("CI") != "true",
    reason="frama-c is not installed (apt-get install frama-c-base why3 z3 cvc5)",
)


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("proofs-cache")


@pytest.fixture(autouse=True)
def _shared_cache(cache, monkeypatch):
    monkeypatch.setenv("CODEWALK_CACHE", str(cache))


@pytest.fixture(scope="module")
def acsl_chain():
    require("acsl-bench", "acsl-by-example")
    _, found, _ = read(ACSL, {"programs": "Mutating/fill,MinMax/max_element"})
    by = {a.payload["program"]: a for a in found}
    atoms = [by["Mutating/fill"], by["MinMax/max_element"]]
    return atoms, ProofsDomain().compose(atoms)


def test_acsl_reference_without_one_atom_is_that_component_as_the_task_has_it_and_the_others_proofs(acsl_chain):
    atoms, c = acsl_chain
    names = [x["name"] for x in c.verifier["components"]]
    for position, name in enumerate(names):
        without = ProofsDomain().reference_without(c, atoms, position)
        assert without is not None
        for other in names:
            source = c.prompt if other == name else c.reference
            assert acsl_guard.candidate_component(without, other)[:2] == \
                acsl_guard.candidate_component(source, other)[:2], (position, other)
        # a candidate the grader reads (not refused before the prover): the check is V_G's, not the guard's
        assert isinstance(acsl_guard.structure(c.prompt, without, c.verifier["components"]), acsl_guard.Accepted)


def test_verus_reference_without_one_atom_strips_its_function_and_drops_its_lemmas_only():
    require("verus-bench")
    _, found, _ = read(VERUS_BENCH, {})
    by = {a.id.removeprefix("proofs/verus/"): a for a in found}
    atoms = [by["MBPP/task_id_424/extract_rear_chars"], by["MBPP/task_id_454/contains_z"]]  # paper App. A.4
    c = ProofsDomain().compose(atoms)
    names = [x["name"] for x in c.verifier["components"]]
    for position in range(2):
        without = ProofsDomain().reference_without(c, atoms, position)
        assert without is not None and without != c.reference
        assert isinstance(verus_guard.structure(c.prompt, without, names), verus_guard.Accepted)
    # with both left out, one after the other, the reference is the task's code again (the header aside)
    first = ProofsDomain().reference_without(c, atoms, 0)
    assert first is not None
    both = ProofsDomain().reference_without(c.__class__(c.prompt, first, c.verifier), atoms, 1)
    assert both is not None
    assert [t.text for t in verus_guard.lex(both)] == [t.text for t in verus_guard.lex(c.prompt)]


@needs_frama_c
def test_acsl_reference_without_either_atom_fails_v_g(acsl_chain):
    atoms, c = acsl_chain
    d = ProofsDomain()
    assert d.check_reference(c, atoms).ok  # records the goal set V_G grades against
    for position in range(2):
        status, detail, _ = verdict(d, c, d.reference_without(c, atoms, position))
        assert status == "failed", (position, detail)


@needs_frama_c
def test_acsl_leave_one_out_verifies_check_one_s_program_so_admission_s_runs_answer_it(acsl_chain, monkeypatch):
    atoms, c = acsl_chain
    d = ProofsDomain()
    assert d.check_reference(c, atoms).ok
    for position in range(2):  # admission's check (1), each position's run kept by the verdict cache
        assert d.check_unsolved(c, atoms, position).ok
    runs = []
    monkeypatch.setattr(acsl, "_run", lambda *a, **k: runs.append(a) or pytest.fail("frama-c ran again"))
    for position in range(2):
        check = d.check_without(c, atoms, position)
        assert check is not None and not check.ok, (position, check and check.detail)
    # a position whose annotations the task kept (here: a task that is its reference) is not needed
    whole = c.__class__(c.reference, c.reference, c.verifier)
    check = d.check_without(whole, atoms, 0)
    assert check is not None and check.ok, check and check.detail
    assert runs == []


@needs_frama_c
def test_a_proofs_release_checks_every_atom_of_each_chain_by_default(tmp_path):
    require("acsl-bench", "acsl-by-example")
    (tmp_path / "plan.toml").write_text("[levels]\n1 = 2\n2 = 1\n")
    plan = release.read_plan("proofs", tmp_path / "plan.toml")
    assert plan.every_atom_matters  # the proofs domain can leave one atom's proof out: on by default
    with open_store(tmp_path / "g.lbug") as store:
        load(store, "proofs", ACSL, {"programs": PROGRAMS})
        summary = release.build(store, plan, tmp_path / "out")
    one, two = summary.levels
    assert (one.released, one.checked) == (2, 0)
    assert (two.released, two.checked, two.not_needed, two.unchecked_runs) == (1, 1, 0, 0)
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["plan"]["every_atom_matters"] is True


def test_verus_reference_without_an_atom_with_lemmas_is_the_task_again():
    require("verus-bench")
    _, found, _ = read(VERUS_BENCH, {})
    [atom] = [a for a in found if a.id == "proofs/verus/MBPP/task_id_161/remove_elements"]
    assert any(item["kind"] == "proof" for item in atom.payload["support"])  # it proves with a lemma
    c = ProofsDomain().compose([atom])
    without = ProofsDomain().reference_without(c, [atom], 0)
    assert without is not None and "lemma" in c.reference and "lemma" not in without
    assert [t.text for t in verus_guard.lex(without)] == [t.text for t in verus_guard.lex(c.prompt)]
