"""Proof completion, Frama-C/WP backend, on the real ACSL by Example sources.

Admission runs for real: frama-c with Z3 and cvc5. Results are cached by content hash in one folder
for this module, so each distinct program is proved once: 5 frama-c runs, about 40 s of CPU (2.5 min
of wall time on a busy 2-core machine).
"""

from __future__ import annotations

import os
import re
import shutil

import pytest

from codewalk.admission import evaluate
from codewalk.domains.proofs import ProofsDomain, acsl, read
from codewalk.errors import InfraError, InputError, UsageError
from codewalk.loading import load
from codewalk.store import open_store
from tests.shared_data import dataset, require

ACSL = dataset("acsl-bench", "acsl-by-example")


@pytest.fixture(autouse=True, scope="module")
def _data():  # before the module-scoped fixtures that read it
    require("acsl-bench", "acsl-by-example")


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
def atoms():
    backend, found, _ = read(ACSL, {})
    assert backend == "acsl"
    return {a.payload["program"].split("/")[1]: a for a in found}  # find2..find5 also define find()


def test_loader_keeps_functions_with_a_postcondition_and_a_chainable_output():
    _, found, skipped = read(ACSL, {})
    by = {a.payload["program"].split("/")[1]: a for a in found}
    assert len(found) == 54
    assert by["fill"].payload["output"] == {"kind": "array", "ptr": "a", "len": "n"}
    assert by["copy"].payload["output"] == {"kind": "array", "ptr": "b", "len": "n"}
    assert by["find"].payload["output"] == {"kind": "scalar", "type": "size_type"}
    reasons = dict(skipped)
    assert "Stack*" in reasons["Stack/stack_push"]
    assert "size_type_pair" in reasons["MinMax/minmax_element"]


def test_an_example_without_its_definition_is_an_input_error_naming_the_file(tmp_path):
    (tmp_path / "subdirs.list").write_text("Demo\n")
    (tmp_path / "Demo").mkdir()
    (tmp_path / "Demo" / "examples.list").write_text("f\n")
    (tmp_path / "Demo" / "f.h").write_text("/*@ assigns \\nothing; ensures \\result == 1; */\nint f(void);\n")
    (tmp_path / "Demo" / "f.c").write_text('#include "f.h"\n')
    with pytest.raises(InputError, match=r"f\.c.*no definition of f\(\)"):
        read(tmp_path, {})


def test_edges_link_an_array_producer_to_its_consumers_never_backwards_or_within_a_program(atoms):
    edges = list(ProofsDomain().edges(list(atoms.values())))
    pairs = {(e.src, e.dst) for e in edges}
    fill, find, copy = atoms["fill"].id, atoms["find"].id, atoms["copy"].id
    assert (fill, find) in pairs and (fill, copy) in pairs
    assert (find, fill) not in pairs  # an index is not an array
    source = {a.id: a.summary["source"] for a in atoms.values()}
    assert all(source[s] != source[d] for s, d in pairs)


def test_task_strips_postconditions_and_proof_annotations_and_keeps_requires_predicates_and_driver(atoms):
    c = ProofsDomain().compose([atoms["fill"], atoms["find"]])
    task_components = c.prompt.split("predicate step2")[1].split("void chain_driver")[0]
    assert "ensures" not in task_components and "loop" not in task_components and "behavior" not in task_components
    assert "requires   valid: \\valid(a + (0..n-1));" in task_components
    for text in (c.prompt, c.reference):
        assert "predicate step1{Before, After}(value_type* a, size_type n, value_type v)" in text
        assert "//@ assert S1: step1{L1, Here}(a, n, v);" in text
        assert "L2: x2 = f2_find(a, n, v_2);" in text
        assert "//@ assert S2: step2{L2, Here}(a, n, v_2, x2);" in text
    assert "loop invariant constant: AllEqual(a, i, v);" in c.reference
    assert "ensures    constant: AllEqual(a, n, v);" in c.reference
    # the driver does not assume what the chain must establish: find's requires is on the chained array
    driver = c.prompt.split("void chain_driver")[0].rsplit("/*@", 1)[1]
    assert driver.count("requires") == 1


def test_a_copy_step_gets_an_output_buffer_from_the_driver_separated_from_the_input(atoms):
    c = ProofsDomain().compose([atoms["fill"], atoms["copy"], atoms["find"]])
    assert "requires \\valid(b_2 + (0..n-1));" in c.prompt
    assert "requires \\separated(b_2 + (0..n-1), a + (0..n-1));" in c.prompt
    assert "L3: x3 = f3_find(b_2, n, v_3);" in c.prompt


@needs_frama_c
def test_level1_chain_is_admitted_reference_proves_and_stripped_task_fails(atoms):
    verdict = evaluate(ProofsDomain(), [atoms["clamp"]])
    assert verdict.status == "admitted", verdict.evidence
    assert verdict.evidence["reference"]["wp"]["proved"] == verdict.evidence["reference"]["wp"]["goals"]
    # clamp has no loop: without its ensures, only the driver's assert of S1 is left unproved
    assert verdict.evidence["atoms"][0]["failed_here"] == ["chain_driver_assert_S1"]


@needs_frama_c
def test_chain_whose_reference_does_not_prove_is_rejected(atoms):
    # remove's own reference leaves goals unproved (it is not walked; composed here by hand)
    verdict = evaluate(ProofsDomain(), [atoms["fill"], atoms["remove"]])
    assert (verdict.status, verdict.reason) == ("rejected", "reference_fails"), verdict.evidence
    unproved = verdict.evidence["reference"]["wp"]["unproved"]
    assert any(g.startswith("f2_remove_") for g in unproved)
    assert not any(g.startswith("f1_") for g in unproved)


@needs_frama_c
def test_grade_accepts_the_reference_and_caches_its_verdict(atoms):
    d = ProofsDomain()
    c = d.compose([atoms["fill"], atoms["find"]])
    check = d.grade(c, c.reference)  # a run of its own: grading adds smoke tests to admission's command
    assert check.ok, check.detail
    assert not check.evidence["wp"]["cached"] and d.grade(c, c.reference).evidence["wp"]["cached"]


def test_grade_refuses_admit_without_running_the_prover(atoms, monkeypatch):
    c = ProofsDomain().compose([atoms["fill"], atoms["find"]])
    monkeypatch.setattr(acsl, "verify", _no_prover)
    cheat = c.reference.replace("  for (size_type i = 0u; i < n; i++) {", "  //@ admit \\false;\n  for (size_type i = 0u; i < n; i++) {")
    assert cheat != c.reference
    check = ProofsDomain().grade(c, cheat)
    assert (check.ok, check.reason) == (False, "bypass") and "admit" in check.detail


def test_grade_refuses_changed_requires_changed_code_and_axioms(atoms, monkeypatch):
    d = ProofsDomain()
    c = d.compose([atoms["fill"], atoms["find"]])
    monkeypatch.setattr(acsl, "verify", _no_prover)
    weaker = c.reference.replace("requires   valid:   \\valid(a + (0..n-1));", "requires   valid:   \\valid(a + (0..n-1));\n  requires n == 0;", 1)
    recoded = c.reference.replace("a[i] = v;", "a[i] = v + 0;")
    axiom = c.reference.replace("/*@\n  requires   valid:   \\valid", "/*@ axiomatic Cheat { axiom c: \\false; } */\n/*@\n  requires   valid:   \\valid", 1)
    for cheat, words in ((weaker, "requires"), (recoded, "code"), (axiom, "axiom")):
        assert cheat != c.reference
        check = d.grade(c, cheat)
        assert not check.ok and words in check.detail, check.detail


def test_grade_fails_a_candidate_that_omits_a_component(atoms, monkeypatch):
    c = ProofsDomain().compose([atoms["fill"], atoms["find"]])
    monkeypatch.setattr(acsl, "verify", _no_prover)
    check = ProofsDomain().grade(c, re.sub(r"size_type f2_find.*", "", c.reference, flags=re.DOTALL))
    assert not check.ok and "f2_find" in check.detail


def test_load_writes_acsl_atoms_and_feeds_edges_into_the_store(tmp_path):
    store = open_store(str(tmp_path / "graph.lbug"))
    try:
        # references=trust: the atoms' own references are verified in test_proofs_acsl_chains (54 runs here)
        summary = load(store, "proofs", ACSL, {"references": "trust"})
        assert summary.atoms == 54 and summary.edges["FEEDS"] > 0
    finally:
        store.close()


def test_unknown_option_is_a_usage_error():
    with pytest.raises(UsageError, match="unknown --opt verbose for proofs"):
        ProofsDomain().parse_options({"verbose": "1"})


def _no_prover(*_):
    raise AssertionError("a refused candidate must not reach the prover")


def test_every_atom_and_every_edge_composes(atoms):
    d = ProofsDomain()
    by_id = {a.id: a for a in atoms.values()}
    for atom in atoms.values():
        assert "void chain_driver(" in d.compose([atom]).prompt
    for e in d.edges(list(atoms.values())):
        assert "//@ assert S2: step2{L2, Here}(" in d.compose([by_id[e.src], by_id[e.dst]]).prompt


@needs_frama_c
def test_a_frama_c_environment_failure_is_an_infra_error_and_is_not_cached(atoms, monkeypatch, tmp_path):
    d = ProofsDomain()
    c = d.compose([atoms["clamp"]])
    broken = tmp_path / "why3.conf"
    broken.write_text("this is not a Why3 configuration\n")
    monkeypatch.setattr(acsl, "_why3_config", lambda: broken)
    monkeypatch.setenv("CODEWALK_CACHE", str(tmp_path / "fresh-cache"))
    with pytest.raises(InfraError, match="environment"):
        d.check_reference(c, [])
    monkeypatch.undo()
    monkeypatch.setenv("CODEWALK_CACHE", str(tmp_path / "fresh-cache"))
    assert d.check_reference(c, []).ok  # the failure left no verdict behind


@needs_frama_c
def test_a_program_that_does_not_parse_is_ill_formed_not_an_infra_error(atoms):
    c = ProofsDomain().compose([atoms["clamp"]])
    run = acsl.verify(c.reference.replace("return", "return ) (", 1), c.verifier.get("spec", c.verifier))
    assert not run.well_formed and "syntax error" in run.message


def _why3_config_in_a_worker(cache: str) -> str:
    os.environ["CODEWALK_CACHE"] = cache
    acsl._why3_config.cache_clear()  # a forked worker inherits the test process's answer
    return acsl._why3_config().read_text()


@needs_frama_c
def test_two_workers_detecting_provers_on_an_empty_cache_both_get_one_whole_config(tmp_path):
    """`cw walk proofs --workers 2` on a fresh machine: both workers want the Why3 configuration at once.
    Before, both ran `why3 config detect` into the same file, and one worker's first group failed."""
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(2) as pool:
        configs = list(pool.map(_why3_config_in_a_worker, [str(tmp_path)] * 4))
    assert len(set(configs)) == 1
    assert configs[0].count("[main]") == 1  # one detection, not two written into one file
    assert not list(tmp_path.rglob("*.tmp"))


@needs_frama_c
def test_loading_acsl_with_its_references_checked_reports_each_atom_as_progress(tmp_path):
    """A newcomer's `cw load proofs` of ACSL by Example printed nothing for six minutes."""
    from codewalk.loading import read as read_graph

    shutil.copytree(ACSL / "MinMax", tmp_path / "MinMax")
    (tmp_path / "subdirs.list").write_text("MinMax\n")
    for shared in ("Logic",):  # the predicates the examples include
        shutil.copytree(ACSL / shared, tmp_path / shared)
    seen: list[tuple[int, int]] = []
    graph = read_graph("proofs", tmp_path, on_progress=lambda done, total: seen.append((done, total)))
    n = graph.atoms.num_rows
    assert n > 0 and seen == [(k, n) for k in range(1, n + 1)], (n, seen)
