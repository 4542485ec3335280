"""Red team for the Verus grader: candidates that try to pass without proving, each refused by the
structural comparison with the task before Verus would run (`no_verus` stands in for it) with a reason
naming what was refused; and honest candidates, however they are written, that must pass it and reach
the verifier with the task's own support, step predicates and driver around them.

Verus cannot be installed on the development machines, so these checks are structural: a cheat is
refused whatever Verus would have made of it. Each cheat is a task's reference with one change, as a
model would return it, on real Verus-Bench programs: MBPP 424 feeding MBPP 454 (the paper's App. A.4),
MBPP 161 (a lemma and a ghost counter) and MBPP 412 (`reveal`).
"""

from __future__ import annotations

import random

import pytest

from codewalk.domains.proofs import ProofsDomain, read, verus, verus_guard
from codewalk.domains.proofs.verus import VerusRun
from codewalk.domains.proofs.verus_guard import Accepted
from codewalk.loaders.verus_scan import lex, render
from codewalk.records import Check, Composite
from tests.shared_data import dataset, require

VERUS_BENCH = dataset("verus-bench")


@pytest.fixture(autouse=True, scope="module")
def _data():
    require("verus-bench")


@pytest.fixture(scope="module")
def atoms():
    _, found, _ = read(VERUS_BENCH, {})
    return {a.id.removeprefix("proofs/verus/"): a for a in found}


@pytest.fixture(scope="module")
def a4(atoms) -> Composite:
    """extract_rear_chars (MBPP 424) then contains_z (MBPP 454): two loops, a requires, no lemma."""
    return ProofsDomain().compose([atoms["MBPP/task_id_424/extract_rear_chars"], atoms["MBPP/task_id_454/contains_z"]])


@pytest.fixture(scope="module")
def lemma(atoms) -> Composite:
    """remove_elements (MBPP 161): a lemma the task removed, a ghost counter, a proof block."""
    return ProofsDomain().compose([atoms["MBPP/task_id_161/remove_elements"]])


@pytest.fixture(scope="module")
def reveal(atoms) -> Composite:
    """remove_odds (MBPP 412): asserts and `reveal(Seq::filter)` in the body."""
    return ProofsDomain().compose([atoms["MBPP/task_id_412/remove_odds"]])


@pytest.fixture(scope="module")
def colon(atoms) -> Composite:
    """replace_with_colon (MBPP 732): a spec fn the step predicate uses, kept in the task."""
    return ProofsDomain().compose([atoms["MBPP/task_id_732/replace_with_colon"]])


def _no_verus(*_):
    raise AssertionError("a refused candidate must not reach Verus")


@pytest.fixture(params=["every check", "the comparison alone"])
def no_verus(request, monkeypatch, tmp_path) -> str:
    """Verus replaced by a failure; run twice: as graded, and with the whole-file scan for added
    constructs turned off, so that the token comparison and the slot rules must refuse each cheat alone."""
    monkeypatch.setattr(verus, "verify", _no_verus)
    monkeypatch.setenv("PATH", str(tmp_path))  # and no verus to find either
    if request.param == "the comparison alone":
        monkeypatch.setattr(verus_guard, "_added", lambda *_: [])
    return request.param


def _edit(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


LOOP_424 = "    {\n        let seq = &s[index];"  # the body of extract_rear_chars's loop, after its invariant
END_424 = "        index += 1;\n    }\n    rear_chars\n}"  # the end of extract_rear_chars
CONTAINS_Z = "fn f2_contains_z(text: &[u8]) -> (result: bool)"
DRIVER = "fn chain_driver("


def _refused(mode: str, c: Composite, cheat: str, *words: str, reason: str = "bypass") -> Check:
    """The cheat is refused with the reason code; as graded, its detail names what was found."""
    assert cheat != c.reference
    check = ProofsDomain().grade(c, cheat)
    assert not check.ok and check.reason in (reason, "bypass"), check
    if mode == "every check":
        assert check.reason == reason, check
        for w in words:
            assert w in check.detail, check.detail
    assert check.evidence["refused"] == check.detail  # the reason is kept with the grade
    return check


# -- Verus's escapes -------------------------------------------------------------------------------
def test_assume_false_in_a_proof_block_is_refused(a4, no_verus):
    _refused(no_verus, a4, _edit(a4.reference, END_424, "        index += 1;\n    }\n    proof { assume(false); }\n    rear_chars\n}"),
             "`assume`")


def test_admit_is_refused(a4, no_verus):
    _refused(no_verus, a4, _edit(a4.reference, LOOP_424, "    {\n        proof { admit(); }\n        let seq = &s[index];"), "`admit`")


def test_the_builtin_assume_function_called_by_its_path_is_refused(a4, no_verus):
    # what `assume(..)` expands to, under a name the old word filter did not know
    cheat = _edit(a4.reference, LOOP_424, "    {\n        proof { builtin::assume_(false); }\n        let seq = &s[index];")
    _refused(no_verus, a4, cheat, "`builtin`", "`assume_`")


def test_external_body_on_a_component_is_refused(a4, no_verus):
    _refused(no_verus, a4, _edit(a4.reference, CONTAINS_Z, "#[verifier::external_body]\n" + CONTAINS_Z),
             "the attribute `#[verifier::external_body]`")


def test_an_external_body_lemma_that_ensures_false_is_refused(a4, no_verus):
    cheat = _edit(a4.reference, CONTAINS_Z, "#[verifier::external_body]\nproof fn cheat() ensures false {}\n\n" + CONTAINS_Z)
    _refused(no_verus, a4, cheat, "#[verifier::external_body]")


def test_exec_allows_no_decreases_clause_is_refused(a4, no_verus):
    cheat = _edit(a4.reference, CONTAINS_Z, "#[verifier::exec_allows_no_decreases_clause]\n" + CONTAINS_Z)
    _refused(no_verus, a4, cheat, "exec_allows_no_decreases_clause")


def test_a_verifier_attribute_on_a_statement_is_refused(a4, no_verus):
    cheat = _edit(a4.reference, LOOP_424, "    {\n        #[verifier::spinoff_prover] assert(true);\n        let seq = &s[index];")
    _refused(no_verus, a4, cheat, "#[verifier::spinoff_prover]")


def test_an_inner_attribute_before_the_verus_block_is_refused(a4, no_verus):
    _refused(no_verus, a4, "#![verifier::loop_isolation(false)]\n" + a4.reference, "#![verifier::loop_isolation(false)]")


def test_a_cfg_attribute_that_removes_a_component_for_a_fake_is_refused(a4, no_verus):
    fake = "fn f2_contains_z(text: &[u8]) -> (result: bool)\n    ensures false,\n{\n    loop {}\n}\n\n#[cfg(any())]\n"
    _refused(no_verus, a4, _edit(a4.reference, CONTAINS_Z, fake + CONTAINS_Z), "#[cfg(any())]")


def test_assume_specification_is_refused(a4, no_verus):
    cheat = _edit(a4.reference, CONTAINS_Z, "pub assume_specification[ f2_contains_z ](text: &[u8]) -> (result: bool) ensures false;\n\n" + CONTAINS_Z)
    _refused(no_verus, a4, cheat, "`assume_specification`")


# -- new definitions -------------------------------------------------------------------------------
def test_a_broadcast_lemma_is_refused(a4, no_verus):
    cheat = _edit(a4.reference, CONTAINS_Z, "broadcast proof fn everything(x: int) ensures #[trigger] (x + 0) == x {}\n\n" + CONTAINS_Z)
    _refused(no_verus, a4, cheat, "`broadcast`")


def test_broadcast_use_is_refused(a4, no_verus):
    _refused(no_verus, a4, _edit(a4.reference, CONTAINS_Z, "broadcast use vstd::seq_lib::group_seq_properties;\n\n" + CONTAINS_Z),
             "`broadcast`", "`use`")


def test_an_axiom_is_refused(a4, no_verus):
    _refused(no_verus, a4, _edit(a4.reference, CONTAINS_Z, "axiom fn cheat() ensures false;\n\n" + CONTAINS_Z), "`axiom`")


def test_an_uninterpreted_function_is_refused(a4, no_verus):
    _refused(no_verus, a4, _edit(a4.reference, CONTAINS_Z, "uninterp spec fn oracle(x: int) -> bool;\n\n" + CONTAINS_Z), "`uninterp`")


def test_a_new_spec_fn_is_refused(a4, no_verus):
    # not removed by the task, so not a slot: a helper definition would be a new fact to trust
    cheat = _edit(a4.reference, CONTAINS_Z, "spec fn bad(x: int) -> int { bad(x) + 1 }\n\n" + CONTAINS_Z)
    _refused(no_verus, a4, cheat, "`spec fn` bad", "only lemmas")


def test_a_new_exec_function_is_refused(a4, no_verus):
    cheat = _edit(a4.reference, CONTAINS_Z, "fn helper() -> (r: bool) ensures r { true }\n\n" + CONTAINS_Z)
    _refused(no_verus, a4, cheat, "`fn` helper", "only lemmas")


def test_a_function_nested_in_a_lemma_is_refused(a4, no_verus):
    cheat = _edit(a4.reference, CONTAINS_Z, "proof fn l() {\n    fn inner() {}\n}\n\n" + CONTAINS_Z)
    _refused(no_verus, a4, cheat, "the body of the lemma l", "`fn`")


def test_a_new_use_declaration_is_refused(a4, no_verus):
    _refused(no_verus, a4, _edit(a4.reference, CONTAINS_Z, "use vstd::arithmetic::power::*;\n\n" + CONTAINS_Z), "`use`")


def test_an_impl_block_is_refused(a4, no_verus):
    _refused(no_verus, a4, _edit(a4.reference, CONTAINS_Z, "struct S;\nimpl S {}\n\n" + CONTAINS_Z), "`struct`", "`impl`")


# -- macros, unsafe code, literals that hide tokens --------------------------------------------------
def test_macro_rules_that_builds_an_assume_is_refused(a4, no_verus):
    macro = "macro_rules! hold { () => { assume(false) } }\n\n"
    cheat = _edit(_edit(a4.reference, CONTAINS_Z, macro + CONTAINS_Z), END_424,
                  "        index += 1;\n    }\n    proof { hold!(); }\n    rear_chars\n}")
    _refused(no_verus, a4, cheat, "`macro_rules`", "the macro `hold!`", "`assume`")


def test_a_macro_call_that_pastes_a_banned_word_is_refused(a4, no_verus):
    # `paste` builds `assume` out of two harmless identifiers: no banned word appears in the text
    cheat = _edit(a4.reference, END_424, "        index += 1;\n    }\n    proof { paste::paste!{ [<ass ume>](false) } }\n    rear_chars\n}")
    _refused(no_verus, a4, cheat, "the macro `paste!`")


def test_include_is_refused(a4, no_verus):
    _refused(no_verus, a4, _edit(a4.reference, CONTAINS_Z, 'include!("/tmp/cheat.rs");\n\n' + CONTAINS_Z), "the macro `include!`")


def test_unsafe_code_in_a_proof_block_is_refused(a4, no_verus):
    cheat = _edit(a4.reference, END_424, "        index += 1;\n    }\n    proof { unsafe { core::hint::unreachable_unchecked() } }\n    rear_chars\n}")
    _refused(no_verus, a4, cheat, "`unsafe`")


def test_an_extern_block_is_refused(a4, no_verus):
    _refused(no_verus, a4, _edit(a4.reference, CONTAINS_Z, 'extern "C" { fn cheat() -> bool; }\n\n' + CONTAINS_Z), "`extern`")


def test_an_assume_hidden_behind_a_raw_string_is_refused(a4, no_verus):
    # an ordinary string to a lexer without raw strings (`\"` an escape): rustc ends the raw string at
    # the second quote and reads `assume(false);` as code; the old word filter, on that masked view, did not
    cheat = _edit(a4.reference, END_424, '        index += 1;\n    }\n    proof { let _ = r"\\"; assume(false); //"; }\n    rear_chars\n}')
    _refused(no_verus, a4, cheat, "raw string", reason="malformed_candidate")


def test_a_raw_identifier_is_refused(a4, no_verus):
    cheat = _edit(a4.reference, LOOP_424, "    {\n        proof { r#assume(false); }\n        let seq = &s[index];")
    _refused(no_verus, a4, cheat, "raw identifier", reason="malformed_candidate")


def test_a_homoglyph_of_a_keyword_is_refused(a4, no_verus):
    # a Cyrillic `а`: another identifier to rustc, and no word any filter knows
    cheat = _edit(a4.reference, LOOP_424, "    {\n        proof { \u0430ssume(false); }\n        let seq = &s[index];")
    _refused(no_verus, a4, cheat, "U+0430", reason="malformed_candidate")


def test_a_string_in_a_proof_is_refused(a4, no_verus):
    cheat = _edit(a4.reference, LOOP_424, '    {\n        proof { let ghost s = "x"; }\n        let seq = &s[index];')
    _refused(no_verus, a4, cheat, 'the string literal "x"')


def test_control_flow_out_of_a_proof_block_is_refused(a4, no_verus):
    # a `return` in ghost code would skip the exec code after it
    cheat = _edit(a4.reference, LOOP_424, "    {\n        proof { return; }\n        let seq = &s[index];")
    _refused(no_verus, a4, cheat, "`return`")


# -- false postconditions and assertions --------------------------------------------------------------
def test_ensures_false_on_a_component_is_refused(a4, no_verus):
    cheat = _edit(a4.reference, "        result == (exists|i: int| 0 <= i < text.len() && (text[i] == 90 || text[i] == 122)),\n{",
                  "        false,\n{")
    _refused(no_verus, a4, cheat, "the ensures clause of f2_contains_z is `false`")


def test_assert_false_is_refused(a4, no_verus):
    cheat = _edit(a4.reference, LOOP_424, "    {\n        assert(false);\n        let seq = &s[index];")
    _refused(no_verus, a4, cheat, "asserts `false`")


# -- what the task fixes ---------------------------------------------------------------------------
def test_a_weakened_requires_is_refused(a4, no_verus):
    cheat = _edit(a4.reference, "#[trigger] s[i].len() > 0,\n    ensures", "#[trigger] s[i].len() >= 0,\n    ensures")
    _refused(no_verus, a4, cheat, "the requires clauses of f1_extract_rear_chars were changed")


def test_requires_false_added_to_a_component_is_refused(a4, no_verus):
    _refused(no_verus, a4, _edit(a4.reference, CONTAINS_Z + "\n", CONTAINS_Z + "\n    requires false,\n"),
             "f2_contains_z adds a `requires` clause")


def test_a_recommends_clause_is_refused(a4, no_verus):
    _refused(no_verus, a4, _edit(a4.reference, CONTAINS_Z + "\n", CONTAINS_Z + "\n    recommends text.len() > 0,\n"),
             "adds a `recommends` clause")


def test_changed_code_is_refused(a4, no_verus):
    _refused(no_verus, a4, _edit(a4.reference, "rear_chars.push(seq[seq.len() - 1]);", "rear_chars.push(seq[0]);"),
             "the code of f1_extract_rear_chars was changed")


def test_an_exec_let_turned_ghost_is_refused(a4, no_verus):
    # a `let ghost` is a slot, so the exec `let` it replaces is missing from the code
    cheat = _edit(a4.reference, "    let mut index = 0;\n    while index < text.len()", "    let ghost mut index = 0;\n    while index < text.len()")
    _refused(no_verus, a4, cheat, "the code of f2_contains_z was changed")


def test_a_changed_signature_is_refused(a4, no_verus):
    _refused(no_verus, a4, _edit(a4.reference, CONTAINS_Z, "fn f2_contains_z(text: &[u8]) -> (result: u8)"),
             "the signature of f2_contains_z was changed")


def test_a_changed_step_predicate_is_refused(a4, no_verus):
    cheat = _edit(a4.reference, "(outp == (exists|i: int| 0 <= i < text.len() && (text[i] == 90 || text[i] == 122)))", "(true)")
    _refused(no_verus, a4, cheat, "the step predicate step2 was changed")


def test_a_changed_driver_assert_is_refused(a4, no_verus):
    _refused(no_verus, a4, _edit(a4.reference, "assert(step2(x1@, x2));", "assert(true);"), "chain_driver was changed")


def test_a_changed_support_spec_fn_is_refused(colon, no_verus):
    # the step predicate calls it: a weaker definition would weaken the goal
    cheat = _edit(colon.reference, "    (c == 32) || (c == 44) || (c == 46)\n", "    true\n")
    _refused(no_verus, colon, cheat, "f1_is_space_comma_dot_spec was changed")


def test_proof_added_to_chain_driver_is_refused(a4, no_verus):
    # the driver is the task's, proof included: a candidate proves the components, not the chain
    cheat = _edit(a4.reference, "        assert(step2(x1@, x2));\n", "        assert(step2(x1@, x2));\n        assert(x1@.len() == s.len());\n")
    _refused(no_verus, a4, cheat, "chain_driver was changed")


def test_a_lemma_named_after_a_step_predicate_is_refused(a4, no_verus):
    cheat = _edit(a4.reference, CONTAINS_Z, "proof fn step1() {}\n\n" + CONTAINS_Z)
    _refused(no_verus, a4, cheat, "defines step1 twice")


def test_tracked_assume_new_is_refused(a4, no_verus):
    # vstd's way to conjure a tracked value: an assume under another name
    cheat = _edit(a4.reference, LOOP_424, "    {\n        let tracked t: Tracked<int> = Tracked::assume_new();\n        let seq = &s[index];")
    _refused(no_verus, a4, cheat, "`assume_new`")


def test_a_second_driver_is_refused(a4, no_verus):
    second = "fn chain_driver(s: &Vec<Vec<u8>>) -> (r_final: bool) { true }\n\n"
    _refused(no_verus, a4, _edit(a4.reference, DRIVER, second + DRIVER), "defines chain_driver twice")


def test_a_candidate_missing_a_component_is_malformed(a4, no_verus):
    start, end = a4.reference.index(CONTAINS_Z), a4.reference.index("spec fn step1")
    cheat = a4.reference[:start] + a4.reference[end:]
    _refused(no_verus, a4, cheat, "omits f2_contains_z", reason="malformed_candidate")


def test_a_reference_the_grader_would_refuse_is_not_admitted(a4, no_verus):
    # a task no honest candidate could pass: refused at admission, before Verus
    broken = Composite(a4.prompt, _edit(a4.reference, CONTAINS_Z, "#[verifier::external_body]\n" + CONTAINS_Z), a4.verifier)
    check = verus.check_reference(broken)
    assert (check.ok, check.reason) == (False, "reference_refused") and "external_body" in check.detail


# -- honest candidates -------------------------------------------------------------------------------
@pytest.fixture
def verified(monkeypatch) -> list[str]:
    """The texts the grader hands to Verus, which "verifies" them all."""
    seen: list[str] = []
    monkeypatch.setattr(verus, "verify", lambda text, spec: seen.append(text) or VerusRun(True, 5, 0))
    return seen


def _passes(c: Composite, candidate: str, verified: list[str]) -> str:
    check = ProofsDomain().grade(c, candidate)
    assert check.ok, check.detail
    text = verified[-1]
    for fixed in (c.verifier["steps"], c.verifier["driver"]):  # the task's own, as it wrote them
        assert fixed in text
    return text


def test_the_reference_passes(a4, verified):
    text = _passes(a4, a4.reference, verified)
    assert [t.text for t in lex(text)] == [t.text for t in lex(a4.reference)]  # the same program


def test_the_task_itself_passes_the_structure_and_goes_to_verus(a4, verified):
    _passes(a4, a4.prompt, verified)


def test_the_reference_with_comments_added_and_layout_changed_passes(a4, verified):
    candidate = a4.prompt.split("use vstd", 1)[0] + a4.reference  # the task's header comment kept
    candidate = _edit(candidate, LOOP_424, "    {\n        // the last byte of each /* nested /* comment */ */\n"
                      "        let seq = &s[index];")
    candidate = _edit(candidate, "rear_chars.push(seq[seq.len() - 1]);", "rear_chars.push( seq[ seq.len()-1 ] ) ;")
    candidate = _edit(candidate, DRIVER, "/// the driver, unchanged\n" + DRIVER)
    candidate = candidate.replace("\n    ", "\n\t")  # tabs for indentation
    text = _passes(a4, candidate, verified)
    assert "nested" not in text and "the last byte" not in text  # comments do not reach Verus


def test_a_different_loop_invariant_passes(a4, verified):
    candidate = _edit(a4.reference, "            0 <= index <= s.len(),\n            rear_chars.len() == index,",
                      "            index <= s.len(),\n            rear_chars@.len() == index as int,\n"
                      "            forall|k: int| #![trigger s[k]] 0 <= k < s.len() ==> s[k].len() > 0,\n"
                      "            forall|k: int| #![auto] 0 <= k < index ==> rear_chars[k] == s[k][s[k].len() - 1],")
    text = _passes(a4, candidate, verified)
    assert "rear_chars @ . len ( ) == index as int" in text


def test_an_extra_assert_and_proof_block_pass(a4, verified):
    candidate = _edit(a4.reference, LOOP_424, "    {\n        assert(index < s.len());\n        let seq = &s[index];")
    candidate = _edit(candidate, END_424, "        index += 1;\n    }\n    proof {\n        assert(rear_chars.len() == s.len()) by {\n"
                      "            assert(index == s.len());\n        }\n    }\n    rear_chars\n}")
    candidate = _edit(candidate, "    false\n}", "    assert forall|k: int| 0 <= k < text.len() implies #[trigger] text[k] != 90 by {\n"
                      "        assert(text[k] != 90);\n    }\n    false\n}")
    text = _passes(a4, candidate, verified)
    assert "assert ( index < s . len ( ) ) ;" in text and "assert forall" in text


def test_the_reference_with_its_lemma_and_ghost_counter_passes(lemma, verified):
    text = _passes(lemma, lemma.reference, verified)
    assert "proof fn f1_lemma_vec_push" in text and "let ghost mut output_len" in text


def test_a_lemma_of_the_candidates_own_passes(lemma, verified):
    own = ("proof fn my_lemma(a: Seq<i32>, x: i32)\n    ensures\n        a.push(x).len() == a.len() + 1,\n"
           "    decreases a.len(),\n{\n    assert(a.push(x).len() == a.len() + 1) by (nonlinear_arith);\n}\n\n")
    candidate = _edit(lemma.reference, "fn f1_contains", own + "fn f1_contains")
    assert "proof fn my_lemma" in _passes(lemma, candidate, verified)


def test_reveal_and_asserts_in_a_body_pass(reveal, verified):
    candidate = _edit(reveal.reference, "        reveal(Seq::filter);", "        reveal_with_fuel(Seq::filter, 2);\n        reveal(Seq::filter);")
    text = _passes(reveal, candidate, verified)
    assert "reveal ( Seq :: filter ) ;" in text


def test_a_call_of_a_vstd_axiom_lemma_passes(a4, verified):
    # vstd's axiom_* lemmas are its trusted base: calling one is a proof step, not an axiom of the candidate's
    candidate = _edit(a4.reference, LOOP_424, "    {\n        proof { vstd::seq::axiom_seq_push_len(rear_chars@, 0u8); }\n"
                      "        let seq = &s[index];")
    _passes(a4, candidate, verified)


def test_garbled_candidates_are_refused_or_graded_never_crash(a4, verified):
    # tokens deleted, duplicated or swapped at random: the grader answers with a Check every time
    toks = [t.text for t in lex(a4.reference)]
    rng = random.Random(16)
    refused = 0
    for _ in range(150):
        mutated = list(toks)
        k = rng.randrange(len(mutated))
        op = rng.choice(("delete", "duplicate", "swap"))
        if op == "delete":
            del mutated[k]
        elif op == "duplicate":
            mutated.insert(k, mutated[k])
        else:
            j = rng.randrange(len(mutated))
            mutated[k], mutated[j] = mutated[j], mutated[k]
        check = ProofsDomain().grade(a4, " ".join(mutated))
        refused += not check.ok
        assert check.ok or check.reason in ("bypass", "malformed_candidate"), check
    assert refused > 100  # most changes touch the code, the contracts or the driver


def test_every_reference_of_the_benchmark_passes_the_structure(atoms):
    d = ProofsDomain()
    edges = sorted(d.edges(list(atoms.values())), key=lambda e: (e.src, e.dst))
    pairs = random.Random(16).sample(edges, 40)
    by_id = {a.id: a for a in atoms.values()}
    for chain in [[atom] for atom in atoms.values()] + [[by_id[e.src], by_id[e.dst]] for e in pairs]:
        c = d.compose(chain)
        shape = verus_guard.structure(c.prompt, c.reference, [x["name"] for x in c.verifier["components"]])
        assert isinstance(shape, Accepted), ([a.id for a in chain], shape)
        for text in shape.components + shape.lemmas:  # what Verus would read lexes back to the same tokens
            assert render(lex(text)) == text
