"""Red team for the ACSL grader: candidates that try to pass without proving, each refused before any
prover runs (`_no_prover` stands in for Frama-C) with a reason naming what was refused; and honest
candidates, however they are written, that must still pass (these run frama-c, on the two smallest
admitted level-1 tasks: clamp, no loop, and fill, one loop; 6 runs of 6-14 s each on a busy 2-core machine,
a graded run including WP's smoke tests on the requires).

Each cheat is the task's reference with one change: the prompt a model sees plus annotations, as a
model would return it. Every hole below was confirmed with Frama-C before the grader refused it.
"""

from __future__ import annotations

import os
import re
import shutil

import pytest

from codewalk.domains.proofs import ProofsDomain, acsl, read
from codewalk.domains.proofs.acsl import WPRun
from codewalk.records import Check, Composite
from tests.shared_data import dataset, require

ACSL = dataset("acsl-bench", "acsl-by-example")

needs_frama_c = pytest.mark.skipif(
    not shutil.which("frama-c") and os.environ.get("CI") != "true",
    reason="frama-c is not installed (apt-get install frama-c-base why3 z3 cvc5)",
)


@pytest.fixture(autouse=True, scope="module")
def _data():
    require("acsl-bench", "acsl-by-example")


@pytest.fixture(autouse=True)
def _shared_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("CODEWALK_CACHE", str(tmp_path_factory.getbasetemp() / "proofs-redteam-cache"))


@pytest.fixture(scope="module")
def atoms():
    _, found, _ = read(ACSL, {})
    return {a.payload["program"].split("/")[1]: a for a in found}


@pytest.fixture(scope="module")
def fill(atoms) -> Composite:
    return ProofsDomain().compose([atoms["fill"]])


@pytest.fixture(scope="module")
def clamp(atoms) -> Composite:
    return ProofsDomain().compose([atoms["clamp"]])


def _no_prover(*_):
    raise AssertionError("a refused candidate must not reach the prover")


@pytest.fixture
def no_prover(monkeypatch):
    monkeypatch.setattr(acsl, "verify", _no_prover)


def _edit(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


LOOP = "    loop variant n-i;\n"  # in fill's loop annotation
BODY = "  for (size_type i = 0u; i < n; ++i) {\n"  # fill's loop
PREDICATES = "/*@ predicate step1"  # the first step predicate, after the includes


def _refused(c: Composite, cheat: str, *words: str) -> Check:
    assert cheat != c.reference
    check = ProofsDomain().grade(c, cheat)
    assert not check.ok and check.reason == "bypass", check
    for w in words:
        assert w in check.detail, check.detail
    return check


# -- inconsistent logic ---------------------------------------------------------------------------
def test_an_inconsistent_recursive_logic_definition_with_ensures_false_is_refused(fill, no_prover):
    # the confirmed hole: WP takes `bad` as an axiom, so bad(0) == 0 and then \false prove
    cheat = _edit(fill.reference, PREDICATES, "/*@ logic integer bad(integer x) = bad(x) + 1; */\n" + PREDICATES)
    cheat = _edit(cheat, "  ensures    constant: AllEqual(a, n, v);", "  ensures \\false;")
    cheat = _edit(cheat, "  /*@\n    loop invariant bound:", "  //@ assert bad(0) == 0;\n  /*@\n    loop invariant bound:")
    _refused(fill, cheat, "logic", "\\false")


def test_a_new_predicate_is_refused(fill, no_prover):
    cheat = _edit(fill.reference, PREDICATES, "/*@ predicate Yes(integer x) = \\true; */\n" + PREDICATES)
    _refused(fill, cheat, "predicate")


def test_a_lemma_is_refused(fill, no_prover):
    cheat = _edit(fill.reference, PREDICATES, "/*@ lemma cheat: \\forall integer x; x == x + 1; */\n" + PREDICATES)
    _refused(fill, cheat, "lemma")


def test_an_axiomatic_block_is_refused(fill, no_prover):
    cheat = _edit(fill.reference, PREDICATES, "/*@ axiomatic Cheat { axiom c: 1 == 2; } */\n" + PREDICATES)
    _refused(fill, cheat, "axiomatic", "axiom")


def test_an_inductive_definition_is_refused(fill, no_prover):
    cheat = _edit(fill.reference, PREDICATES,
                  "/*@ inductive Odd(integer x) { case one: Odd(1); } */\n" + PREDICATES)
    _refused(fill, cheat, "inductive")


def test_a_global_invariant_is_refused(fill, no_prover):
    cheat = _edit(fill.reference, PREDICATES, "/*@ global invariant cheat: 1 == 1; */\n" + PREDICATES)
    _refused(fill, cheat, "global invariant")


def test_a_type_invariant_is_refused(fill, no_prover):
    cheat = _edit(fill.reference, PREDICATES, "/*@ type invariant small(value_type x) = x < 5; */\n" + PREDICATES)
    _refused(fill, cheat, "type invariant")


def test_ensures_false_is_refused(clamp, no_prover):
    cheat = _edit(clamp.reference, "  ensures    bound:  lower <= \\result <= upper;", "  ensures \\false;")
    _refused(clamp, cheat, "\\false")


def test_assert_false_is_refused(fill, no_prover):
    _refused(fill, _edit(fill.reference, BODY, "  //@ assert \\false;\n" + BODY), "\\false")


def test_admit_is_refused(fill, no_prover):
    _refused(fill, _edit(fill.reference, BODY, "  //@ admit AllEqual(a, n, v);\n" + BODY), "admit")


def test_ghost_code_is_refused(fill, no_prover):
    cheat = _edit(fill.reference, BODY, "  //@ ghost int g = 0;\n" + BODY)
    _refused(fill, cheat, "ghost")


def test_a_ghost_parameter_in_the_signature_is_refused(fill, no_prover):
    cheat = _edit(fill.reference, "value_type v)\n{", "value_type v /*@ ghost int g */)\n{")
    _refused(fill, cheat, "ghost")


def test_a_statement_contract_in_a_body_is_refused(fill, no_prover):
    # a statement contract's requires is a goal, but its ensures is assumed after the block under WP's
    # options: only loop annotations and asserts may be added in a body
    cheat = _edit(fill.reference, BODY, "  /*@ requires n >= 0; ensures AllEqual(a, n, v); */\n" + BODY)
    _refused(fill, cheat, "loop invariants/assigns/variants and asserts")


# -- the preprocessor ------------------------------------------------------------------------------
def test_a_define_inside_an_annotation_is_refused(fill, no_prover):
    # -pp-annot preprocesses annotations: this one rewrote the driver's assert into a trivial predicate
    cheat = _edit(fill.reference, PREDICATES, "/*@ predicate triv1{A, B}(value_type* a, size_type n, value_type v) ="
                  " \\true; */\n" + PREDICATES)
    cheat = _edit(cheat, LOOP, LOOP + "#define step1 triv1\n")
    _refused(fill, cheat, "preprocessor directives", "#define step1 triv1")


def test_a_token_pasting_macro_that_builds_a_banned_word_is_refused(fill, no_prover):
    # the text filter never sees `axiomatic`: the preprocessor builds it
    cheat = _edit(fill.reference, PREDICATES, "/*@\n#define CAT(x, y) x ## y\n*/\n"
                  "/*@ CAT(axi, omatic) Cheat { CAT(axi, om) cheat: \\false; } */\n" + PREDICATES)
    _refused(fill, cheat, "preprocessor directives", "#define CAT")


def test_a_define_in_a_plain_comment_is_refused(fill, no_prover):
    _refused(fill, _edit(fill.reference, BODY, "  /*\n  #define step1 triv1\n  */\n" + BODY), "preprocessor directives")


def test_a_digraph_directive_is_refused(fill, no_prover):
    # `%:` is `#` to a C99 preprocessor
    _refused(fill, _edit(fill.reference, LOOP, LOOP + "%:define step1 triv1\n"), "preprocessor directives")


def test_a_trigraph_directive_is_refused(fill, no_prover):
    _refused(fill, _edit(fill.reference, LOOP, LOOP + "??=define step1 triv1\n"), "preprocessor directives")


def test_a_directive_after_a_comment_on_its_line_is_refused(fill, no_prover):
    # a comment before `#` still leaves a directive: cpp reads a comment as one space
    cheat = _edit(fill.reference, "void chain_driver", "/* x */ #define step1 triv1\nvoid chain_driver")
    _refused(fill, cheat, "preprocessor directives", "#define step1 triv1")


def test_a_preprocessor_operator_inside_an_annotation_is_refused(fill, no_prover):
    cheat = _edit(fill.reference, "    loop invariant bound:    0 <= i <= n;", "    loop invariant bound:    0 <= i <= n; # x")
    _refused(fill, cheat, "preprocessor operator")


def test_a_new_include_is_refused(fill, no_prover):
    cheat = _edit(fill.reference, '#include "AllSomeNot.acsl"', '#include "AllSomeNot.acsl"\n#include "Cheat.h"')
    _refused(fill, cheat, "preprocessor directives", 'Cheat.h')


def test_a_changed_include_is_refused(fill, no_prover):
    _refused(fill, _edit(fill.reference, '#include "AllSomeNot.acsl"', '#include "Unchanged.acsl"'),
             "preprocessor directives", "Unchanged.acsl")


def test_a_line_splice_that_hides_code_in_a_line_annotation_is_refused(fill, no_prover):
    # `\` at the end of a `//@` line makes the next line part of the annotation for cpp
    cheat = _edit(fill.reference, "    a[i] = v;\n", "    //@ assert \\true; \\\n    a[i] = v;\n")
    _refused(fill, cheat, "splices lines")


def test_a_lone_carriage_return_before_a_directive_is_refused(fill, no_prover):
    # cpp takes a lone CR as a line break: the `#define` would start a line for it and not for us
    _refused(fill, _edit(fill.reference, LOOP, LOOP + "    \r#define step1 triv1\n"), "control character")


# -- what the task fixes ---------------------------------------------------------------------------
def test_a_changed_requires_is_refused(clamp, no_prover):
    cheat = _edit(clamp.reference, "requires   bound:  lower < upper;", "requires   bound:  lower <= upper;")
    _refused(clamp, cheat, "requires/assigns/terminates/exits")


def test_a_requires_in_a_behavior_is_refused(clamp, no_prover):
    cheat = _edit(clamp.reference, "    assumes          v < lower;", "    assumes          v < lower;\n    requires v == 0;")
    _refused(clamp, cheat, "requires clause in a behavior")


def test_a_changed_assigns_is_refused(fill, no_prover):
    cheat = _edit(fill.reference, "  assigns              a[0..n-1];", "  assigns              \\nothing;")
    _refused(fill, cheat, "requires/assigns/terminates/exits")


def test_a_changed_exits_is_refused(clamp, no_prover):
    _refused(clamp, _edit(clamp.reference, "  exits              \\false;", "  exits              \\true;"),
             "requires/assigns/terminates/exits")


def test_a_new_kind_of_contract_clause_is_refused(clamp, no_prover):
    _refused(clamp, _edit(clamp.reference, "  complete behaviors;", "  decreases 0;\n  complete behaviors;"),
             "adds a decreases clause")


def test_changed_code_is_refused(fill, no_prover):
    _refused(fill, _edit(fill.reference, "a[i] = v;", "a[i] = v + 0;"), "code of f1_fill() was changed")


def test_a_changed_driver_assert_is_refused(fill, no_prover):
    cheat = _edit(fill.reference, "//@ assert S1: step1{L1, Here}(a, n, v);", "//@ assert S1: \\true;")
    _refused(fill, cheat, "differs from the task", "\\true")


def test_a_changed_step_predicate_is_refused(fill, no_prover):
    _refused(fill, _edit(fill.reference, "\\at((AllEqual(a, n, v)),", "\\at((AllEqual(a, 0, v)),"),
             "differs from the task")


def test_a_directive_behind_an_annotation_at_sign_is_refused(fill, no_prover):
    _refused(fill, _edit(fill.reference, LOOP, LOOP + "    @ #define step1 triv1\n"), "preprocessor directives")


def test_a_global_annotation_without_a_banned_word_is_refused(fill, no_prover):
    # a logic type: no word the scan looks for, but not in the task, so the token comparison refuses it
    cheat = _edit(fill.reference, PREDICATES, "/*@ type Cheat = integer; */\n" + PREDICATES)
    _refused(fill, cheat, "differs from the task", "Cheat")


def test_a_new_function_outside_the_components_is_refused(fill, no_prover):
    cheat = _edit(fill.reference, "void chain_driver", "int helper(void) { return 0; }\n\nvoid chain_driver")
    _refused(fill, cheat, "differs from the task", "helper")


def test_a_fake_component_inside_a_comment_is_not_the_one_graded(fill, no_prover):
    # the first `f1_fill(` text is in a comment: comments go before components are looked up
    fake = "/*\nvoid f1_fill(value_type* a, size_type n,  value_type v)\n{\n}\n*/\n"
    cheat = _edit(fill.reference, PREDICATES, fake + PREDICATES)
    cheat = _edit(cheat, "a[i] = v;", "a[i] = v + 0;")
    _refused(fill, cheat, "code of f1_fill() was changed")


def test_a_candidate_missing_a_component_is_malformed(fill, no_prover):
    check = ProofsDomain().grade(fill, re.sub(r"void f1_fill.*?\n}\n", "", fill.reference, flags=re.DOTALL))
    assert (check.ok, check.reason) == (False, "malformed_candidate") and "f1_fill" in check.detail


# -- held-out audit, round 3: the contract region, literals, every clause -------------------------------
INVARIANTS = "    loop invariant bound:    0 <= i <= n;\n    loop invariant constant: AllEqual(a, i, v);\n"
ENSURES = "  ensures    constant: AllEqual(a, n, v);\n*/"


def _no_invariant(fill: Composite) -> str:
    return _edit(fill.reference, INVARIANTS, "")


def test_a_macro_after_the_contracts_end_that_makes_the_step_assert_a_tautology_is_refused(fill, no_prover):
    # graded solved before: `#` after `*/` starts a directive for cpp (the comment is one space), the line
    # did not start with `#`, and the guard read the contract as from the last `/*@` to the definition
    cheat = _edit(_no_invariant(fill), ENSURES, "  ensures \\true;\n*/ #define step1 1 || step1 //@ */")
    _refused(fill, cheat, "preprocessor directives", "#define step1 1 || step1")


def test_text_between_the_contract_and_the_definition_is_refused(fill, no_prover):
    # no directive this time: only the one annotation right before the definition is a contract
    cheat = _edit(fill.reference, ENSURES, ENSURES + " int hidden; //@ */")
    check = ProofsDomain().grade(fill, cheat)
    assert (check.ok, check.reason) == (False, "malformed_candidate"), check
    assert "no contract directly before its definition" in check.detail


def test_admit_after_a_string_holding_a_comment_marker_is_refused(fill, no_prover):
    # graded solved before: the guard stripped from `//` as from a comment, Frama-C read a string
    cheat = _edit(_no_invariant(fill), ENSURES,
                  '  ensures \\true || "//" == "//"; admit ensures AllEqual(a, n, v);\n*/')
    _refused(fill, cheat, "admit")


def test_a_char_literal_paren_hiding_a_requires_in_a_behavior_is_refused(clamp, no_prover):
    # `'('` opened a bracket for the old splitter, so the requires stayed inside the assumes
    cheat = _edit(clamp.reference, "    assumes          v < lower;",
                  "    assumes          v < lower || '(' == 'x'; requires v == 0;")
    _refused(clamp, cheat, "requires clause in a behavior")


def test_a_char_literal_paren_hiding_a_requires_after_the_ensures_is_refused(clamp, no_prover):
    cheat = _edit(clamp.reference, "  behavior lower_bound:", "  ensures '(' != 'x'; requires lower == 0;\n"
                  "  behavior lower_bound:")
    _refused(clamp, cheat, "requires/assigns/terminates/exits")


def test_a_char_literal_paren_hiding_a_terminates_is_refused(clamp, no_prover):
    cheat = _edit(clamp.reference, "  behavior lower_bound:", "  ensures '(' != 'x'; terminates \\true;\n"
                  "  behavior lower_bound:")
    _refused(clamp, cheat, "requires/assigns/terminates/exits")


def test_a_requires_hidden_behind_a_binder_is_refused(clamp, no_prover):
    # a clause that opens with a binder's `;` and goes on with a clause keyword is not split by guessing
    cheat = _edit(clamp.reference, "  behavior lower_bound:", "  ensures \\forall integer k; requires k == k;\n"
                  "  behavior lower_bound:")
    _refused(clamp, cheat, "holds `requires`")


def test_a_check_modifier_on_a_clause_is_refused(clamp, no_prover):
    cheat = _edit(clamp.reference, "  complete behaviors;", "  check requires lower < upper;\n  complete behaviors;")
    _refused(clamp, cheat, "adds a check clause")


def test_every_clause_of_a_body_annotation_is_checked(fill, no_prover):
    # the block opens with a loop invariant, as before; its second clause is a statement contract's
    cheat = _edit(fill.reference, "    loop variant n-i;\n", "    loop variant n-i;\n    ensures AllEqual(a, n, v);\n")
    _refused(fill, cheat, "loop invariants/assigns/variants and asserts", "ensures")


@needs_frama_c
def test_a_parse_error_frama_c_places_in_an_included_file_is_the_texts_failure():
    # grade() raised InfraError on such a candidate; a `#line` moves the error into AllSomeNot.acsl here
    _, found, _ = read(ACSL, {})
    fill = ProofsDomain().compose([next(a for a in found if a.payload["program"].split("/")[1] == "fill")])
    text = _edit(fill.reference, "  //@ assert S1:", '#line 3 "AllSomeNot.acsl"\n  //@ assert x y z;\n  //@ assert S1:')
    run = acsl.verify(text, fill.verifier)
    assert not run.well_formed and "AllSomeNot.acsl:3" in run.message, run


def test_a_failed_run_without_a_place_in_the_input_is_not_the_texts_failure():
    # a setup failure names no file of the task: no verdict (the caller raises InfraError)
    out = "[kernel] User Error: cannot load the Why3 configuration\n[kernel] Frama-C aborted: invalid user input.\n"
    assert not acsl._input_error(out, {"task.c", "AllSomeNot.acsl"})
    assert acsl._input_error("[kernel:annot-error] AllSomeNot.acsl:3: Warning: expecting ';'\n",
                             {"task.c", "AllSomeNot.acsl"})


# -- check (1) is per atom -------------------------------------------------------------------------
def test_check1_marks_a_position_unsolved_only_if_its_own_goals_fail(atoms, monkeypatch):
    d = ProofsDomain()
    c = d.compose([atoms["fill"], atoms["find"]])
    seen = []

    def fake_verify(text, spec, *_):  # only step 2's assert fails, whatever is stripped
        seen.append(text)
        return WPRun(True, 10, 9, ["chain_driver_assert_S2"])

    monkeypatch.setattr(acsl, "verify", fake_verify)
    first, second = d.check_unsolved(c, [], 0), d.check_unsolved(c, [], 1)
    assert (first.ok, first.reason) == (False, "atom_solved") and second.ok
    # position 1 is verified with find's reference annotations restored and fill's stripped, and back
    fill_stripped, find_stripped = seen
    fill_invariant, find_invariant = "AllEqual(a, i, v);", "0 <= k < i ==> a[k] != v;"
    assert fill_invariant not in fill_stripped and find_invariant in fill_stripped
    assert fill_invariant in find_stripped and find_invariant not in find_stripped


def test_check1_on_one_component_verifies_the_task_itself(clamp, monkeypatch):
    seen = []
    monkeypatch.setattr(acsl, "verify", lambda text, spec, *_: seen.append(text) or WPRun(True, 3, 2, ["chain_driver_assert_S1"]))
    assert acsl.check_unsolved(clamp, 0).ok
    assert seen == [clamp.prompt]  # the same text as the task: one cached run serves both


# -- honest candidates -----------------------------------------------------------------------------
def _passes(c: Composite, candidate: str) -> Check:
    check = ProofsDomain().grade(c, candidate)
    assert check.ok, check.detail
    return check


@needs_frama_c
def test_the_reference_passes(clamp):
    _passes(clamp, clamp.reference)


@needs_frama_c
def test_the_reference_with_comments_added_passes(clamp):
    candidate = clamp.prompt.split("#include", 1)[0] + clamp.reference  # the task's header comment kept
    candidate = _edit(candidate, "  return", "  // three cases, /* nested */ markers in a comment\n  return")
    candidate = _edit(candidate, "  complete behaviors;", "  // the behaviors cover every v\n  complete behaviors;")
    candidate = _edit(candidate, "void chain_driver", "/* the driver, unchanged */\nvoid chain_driver")
    _passes(clamp, candidate)


@needs_frama_c
def test_the_reference_with_clause_labels_dropped_or_renamed_and_reformatted_passes(clamp):
    candidate = _edit(clamp.reference, "ensures    bound:  lower", "ensures lower")
    candidate = candidate.replace("ensures result:  \\result", "ensures r:\\result")
    candidate = _edit(candidate, "  requires   bound:  lower < upper;", "  requires bound: lower<upper;")
    candidate = _edit(candidate, "return (v < lower) ?", "return(v<lower)?")  # the same tokens
    _passes(clamp, candidate)


@needs_frama_c
def test_an_equivalent_but_different_loop_invariant_passes(fill):
    candidate = _edit(fill.reference, "    loop invariant constant: AllEqual(a, i, v);",
                      "    loop invariant \\forall integer k; 0 <= k < i ==> a[k] == v;")
    candidate = _edit(candidate, "    loop invariant bound:    0 <= i <= n;", "    loop invariant i <= n;")
    _passes(fill, candidate)


@needs_frama_c
def test_let_at_unicode_symbols_and_comments_in_annotations_pass(fill):
    candidate = _edit(fill.reference, "  ensures    constant: AllEqual(a, n, v);",
                      "  ensures    constant: \\let m = n; AllEqual(a, m, v); // \\let binds m\n"
                      "  ensures \\forall integer k; 0 <= k < n ==> \\at(a[k], Post) == v;")
    candidate = _edit(candidate, "    loop invariant constant: AllEqual(a, i, v);",
                      "    loop invariant constant: ∀ ℤ k; 0 ≤ k < i ⇒ a[k] ≡ v;\n    loop invariant \\at(n, Pre) == n;")
    _passes(fill, candidate)


@needs_frama_c
def test_the_task_itself_is_graded_not_solved_by_the_prover(clamp):
    check = ProofsDomain().grade(clamp, clamp.prompt)
    assert not check.ok and not check.reason and "chain_driver_assert_S1" in check.detail


# -- smoke tests: the last line, should a definition get past the checks above ------------------------
@needs_frama_c
def test_smoke_tests_find_the_inconsistent_context_of_a_recursive_logic_definition(fill):
    # the first cheat, verified as if the grader had let its definition through: every goal proves but
    # the smoke test of f1_fill's requires, which derives \false
    text = _edit(fill.reference, PREDICATES, "/*@ logic integer bad(integer x) = bad(x) + 1; */\n" + PREDICATES)
    text = _edit(text, "  /*@\n    loop invariant bound:", "  //@ assert bad(0) == 0;\n  /*@\n    loop invariant bound:")
    run = acsl.verify(text, fill.verifier, True)
    assert run.well_formed and run.failed == ["f1_fill_wp_smoke_default_requires"], run


def test_a_candidate_whose_smoke_test_fails_is_graded_inconsistent(fill, monkeypatch):
    monkeypatch.setattr(acsl, "verify", lambda text, spec, *_: WPRun(True, 23, 22, ["f1_fill_wp_smoke_default_requires"]))
    monkeypatch.setattr(acsl, "frame_differs", lambda *_: None)
    monkeypatch.setattr(acsl, "task_goals", lambda *_: [])
    check = ProofsDomain().grade(fill, fill.reference)
    assert (check.ok, check.reason) == (False, "inconsistent_context") and "\\false" in check.detail


# -- issue 43: Frama-C's annotation transport, hostile bytes, the goal set, Frama-C's own reading -------------
# With -pp-annot, Frama-C 25 copies every annotation's text between marker lines into one file, runs cpp on it
# and reads the texts back line by line between markers; backslashes travel as a placeholder. Each cheat below
# was graded solved (or crashed `cw grade`, or got past a ban) on the guard before this section.
END, END_NL, END_COMMENT = ("////////////////__ANNOT_END__", "////////////////__ANNOT_END_NL__",
                            "////////////////__ANNOT_END_COMMENT__")
BEG = "////////////////__ANNOT_BEG__"
SLASH = "__ANNOT_BACKSLASH__"
MAX_VARIANT = "      loop variant n-i;\n"
MAX_BEHAVIORS_AS_ENSURES = """  ensures    result:  0 <= \\result <= n;
  ensures n == 0 ==> \\result == 0;
  ensures 0 < n ==> 0 <= \\result < n;
  ensures 0 < n ==> \\forall integer i; 0 <= i < n       ==> a[i] <= a[\\result];
  ensures 0 < n ==> \\forall integer i; 0 <= i < \\result ==> a[i] <  a[\\result];
"""


@pytest.fixture(scope="module")
def max_element(atoms) -> Composite:
    return ProofsDomain().compose([atoms["max_element"]])


def hidden_terminates(max_element: Composite, marker: str) -> str:
    """max_element without its loop variant, `terminates \\true` after a forged end marker: the guard reads the
    clause, Frama-C never does, so no termination goal is made (graded solved, 45/45, no variant)."""
    text = _edit(max_element.reference, MAX_VARIANT, "")
    start = text.index("  ensures    result:  0 <= \\result <= n;")
    end = text.index("  disjoint behaviors;\n*/") + len("  disjoint behaviors;\n")
    text = text[:start] + MAX_BEHAVIORS_AS_ENSURES + f"{marker}\n  terminates \\true;\n" + text[end:]
    return _edit(text, "  terminates         \\true;\n", "")


def quote_escaped_terminates(max_element: Composite) -> str:
    """The placeholder escapes the string's closing quote for Frama-C: `"\\" != "` is its string and the
    `//` the guard reads inside the next one comments `terminates \\true` out."""
    text = hidden_terminates(max_element, END).replace(f"{END}\n  terminates \\true;\n",
                                                       f'  ensures \\true || "{SLASH}" != "//"; terminates \\true;\n  ;\n')
    return text


def reslotted_clamp(clamp: Composite) -> str:
    """Forged markers cut clamp's contract in three: Frama-C gives the second piece to the next annotation's
    slot (the assert added in clamp's body, a statement contract there), the third (the requires) to the
    driver's contract, and that assert's text to the driver's `assert S1`, which becomes `assert \\true`; clamp
    has no requires left, so no call precondition either (graded solved, every goal proved, nothing proved)."""
    contract = ("/*@\n  terminates \\true;\n  exits \\false;\n  assigns \\nothing;\n"
                f"{END}\n{BEG}\n//\n  ensures \\true;\n{END}\n{BEG}\n//\n  requires bound: lower < upper;\n*/")
    text = _edit(clamp.prompt, "/*@\n  requires   bound: lower < upper;\n  terminates \\true;\n  exits      \\false;\n"
                 "  assigns    \\nothing;\n*/", contract)
    return _edit(text, "  return (v < lower)", "  //@ assert \\true;\n  return (v < lower)")


def _transport(c: Composite, cheat: str) -> Check:
    assert cheat != c.reference
    check = ProofsDomain().grade(c, cheat)
    assert (check.ok, check.reason) == (False, "transport_marker"), check
    return check


@pytest.mark.parametrize("marker", [END, END_NL, END_COMMENT])
def test_a_forged_end_marker_that_hides_the_terminates_clause_from_frama_c_is_refused(max_element, no_prover, marker):
    _transport(max_element, hidden_terminates(max_element, marker))


def test_forged_begin_and_end_markers_that_reslot_the_drivers_annotations_are_refused(clamp, fill, no_prover):
    _transport(clamp, reslotted_clamp(clamp))
    # in a loop annotation, the forged text for the driver's contract slot
    _transport(fill, _edit(fill.reference, LOOP, LOOP + f"{END}\n{BEG}\n//\n    loop invariant \\true;\n"))
    # a marker behind the annotation's `@` margin and one with blanks around it
    _transport(fill, _edit(fill.reference, LOOP, LOOP + f"@{END}\n"))
    _transport(fill, _edit(fill.reference, LOOP, LOOP + f"  {BEG}  \n"))


def test_the_backslash_placeholder_escaping_a_strings_closing_quote_is_refused(max_element, no_prover):
    _transport(max_element, quote_escaped_terminates(max_element))


@pytest.mark.parametrize("where,old,new", [
    ("ensures", "  ensures    result:  0 <= \\result <= n;", f"  ensures {SLASH}false;"),
    ("assert", "    return max;", f"    //@ assert {SLASH}false;\n    return max;"),
    ("loop invariant", "      loop invariant bound:  0 <= i <= n;", f"      loop invariant bound: {SLASH}false;"),
])
def test_the_backslash_placeholder_spelling_false_past_its_ban_is_refused(max_element, no_prover, where, old, new):
    _transport(max_element, _edit(max_element.reference, old, new))


@pytest.mark.parametrize("spelling", [f"'{SLASH}'", f'"{SLASH}"', f"{SLASH}at(n, Pre) == n"])
def test_the_backslash_placeholder_in_a_literal_or_a_word_is_refused(fill, no_prover, spelling):
    _transport(fill, _edit(fill.reference, LOOP, f"    loop invariant {spelling} == {spelling};\n" + LOOP))


@pytest.mark.parametrize("where", ["annotation comment", "plain comment", "string"])
def test_the_annotation_slot_marker_of_the_c_text_is_refused(fill, no_prover, where):
    slot = "__ANNOT_CONTENT__"
    new = {"annotation comment": f"    // {slot}\n", "plain comment": f"  /* {slot} */\n",
           "string": f'    loop invariant "{slot}" == "{slot}";\n'}[where]
    _transport(fill, _edit(fill.reference, LOOP, LOOP + new) if where != "plain comment"
               else _edit(fill.reference, BODY, new + BODY))


@pytest.mark.parametrize("where,old,new", [
    ("annotation string", LOOP, LOOP + '    loop invariant "\udc80" == "\udc80";\n'),
    ("comment", BODY, "  // \ud800 high half alone\n" + BODY),
    ("code", "a[i] = v;", "a[i] = v;\udfff"),
])
def test_a_lone_surrogate_gives_a_refusal_not_a_traceback(fill, no_prover, where, old, new):
    # `cw grade` stopped with a UnicodeEncodeError writing task.c, and stored nothing for the whole file
    check = ProofsDomain().grade(fill, _edit(fill.reference, old, new))
    assert (check.ok, check.reason) == (False, "malformed_candidate") and "UTF-8" in check.detail, check


def test_an_output_with_a_lone_surrogate_is_stored_with_its_grade(fill, no_prover, tmp_path):
    # the store could not hold it: `cw grade` stored nothing for the whole file
    from codewalk.grading import grade_row, verdict
    from codewalk.records import Task
    from codewalk.store import open_store

    output = _edit(fill.reference, LOOP, LOOP + '    loop invariant "\udc80" == "\udc80";\n')
    task = Task(id="t1", domain="proofs", atoms=("a",), status="admitted", reason="admitted", seed=0, run="r",
                created_at="now", generator_version="test", prompt=fill.prompt, reference=fill.reference,
                verifier=fill.verifier)
    row = grade_row("run", "model", task, output, verdict(ProofsDomain(), fill, output))
    assert row["props"]["status"] == "failed" and "\\udc80" in row["props"]["output"]
    store = open_store(str(tmp_path / "graph.lbug"))
    try:
        store.write_grades([row])
    finally:
        store.close()


def test_a_candidate_over_the_size_cap_is_refused(fill, no_prover):
    from codewalk.domains.proofs.acsl_guard import MAX_CHARS

    check = ProofsDomain().grade(fill, fill.reference + " " * MAX_CHARS)
    assert (check.ok, check.reason) == (False, "too_large"), check


@pytest.mark.parametrize("junk", ["/*\n", "/*@\n", "'\"\n"])
@pytest.mark.parametrize("where", ["body", "end"])
def test_a_flood_of_unclosed_comments_is_refused(fill, no_prover, junk, where):
    # 8,000 unclosed `/*` at the end took the guard 12 s (each one lexed to the end of the text), and what the
    # guard read as one trailing comment was let through; bench/proofs_guard.py times it
    flooded = (_edit(fill.reference, "a[i] = v;", "a[i] = v;" + junk * 8000) if where == "body"
               else fill.reference + junk * 8000)
    check = ProofsDomain().grade(fill, flooded)
    assert (check.ok, check.reason) == (False, "malformed_candidate") or junk == "'\"\n", check
    assert not check.ok


def test_a_check_that_cannot_read_the_candidate_refuses_it(fill, no_prover, monkeypatch):
    from codewalk.domains.proofs import acsl_guard

    def broken(*_):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(acsl_guard, "_refusal", broken)
    check = ProofsDomain().grade(fill, fill.reference)
    assert (check.ok, check.reason) == (False, "malformed_candidate") and "RecursionError" in check.detail


# -- the frame on Frama-C's reading: what the guard would let through is compared on Frama-C's print -----------
@needs_frama_c
def test_frama_c_reading_finds_the_hidden_terminates_clause(max_element):
    differs = acsl.frame_differs(max_element.prompt, hidden_terminates(max_element, END), max_element.verifier)
    assert differs is not None and differs[1] == "frame_differs" and "f1_max_element frame" in differs[0], differs
    differs = acsl.frame_differs(max_element.prompt, quote_escaped_terminates(max_element), max_element.verifier)
    assert differs is not None and differs[1] == "frame_differs", differs


@needs_frama_c
def test_frama_c_reading_finds_the_reslotted_driver(clamp):
    differs = acsl.frame_differs(clamp.prompt, reslotted_clamp(clamp), clamp.verifier)
    assert differs is not None and differs[1] in ("frame_differs", "ill_formed"), differs


@needs_frama_c
def test_frama_c_reading_of_the_reference_and_a_reordered_frame_is_the_tasks(clamp, fill):
    assert acsl.frame_differs(clamp.prompt, clamp.reference, clamp.verifier) is None
    reordered = _edit(clamp.reference, "  exits              \\false;\n  assigns            \\nothing;\n",
                      "  assigns            \\nothing;\n  exits              \\false;\n")  # ACSL allows this order
    assert acsl.frame_differs(clamp.prompt, reordered, clamp.verifier) is None
    assert acsl.frame_differs(fill.prompt, _edit(fill.reference, "    a[i] = v;\n", "    //@ assert i < n;\n    a[i] = v;\n"),
                              fill.verifier) is None


@needs_frama_c
@pytest.mark.parametrize("program", ["remove_copy3", "bubble_sort", "search_n"])
def test_asserts_in_branches_print_the_code_as_the_task(atoms, program):
    # an assert in an empty else keeps the else in Frama-C's print, one in a branch makes it a block: 139 of
    # the 496 references the guard accepts differed from their task on the print before the code was compared
    # without them (bench/proofs_guard.py --print)
    c = ProofsDomain().compose([atoms[program]])
    assert acsl.frame_differs(c.prompt, c.reference, c.verifier) is None


TASK_PRINT = """/*@ predicate step1{Before, After}(int x, int r) = \\at(r == x,After);
 */
/*@ requires x >= 0;
    assigns \\nothing; */
int f1_id(int x)
{
  return x;
}

/*@ requires x >= 0; */
void chain_driver(int x)
{
  int x1;
  L1: x1 = f1_id(x);
  /*@ assert S1: step1{L1, Here}(x, x1); */ ;
  return;
}
"""


@pytest.mark.parametrize("old,new,reason", [
    ("  return x;", "  /*@ admit x == 0; */\n  return x;", "bypass"),
    ("    ensures \\result == x; */", "    ensures \\result == x;\n    check ensures \\false; */", "bypass"),
    ("/*@ assert S1: step1{L1, Here}(x, x1); */", "/*@ assert S1: \\true; */", "frame_differs"),
    ("/*@ requires x >= 0;\n    assigns", "/*@ assigns", "frame_differs"),
    ("  return x;", "  return x + 0;", "frame_differs"),
    ("\nint f1_id", "\n/*@ lemma l: \\false; */\nint f1_id", "bypass"),  # read as the contract
    ("/*@ predicate step1", "/*@ lemma l: \\false; */\n/*@ predicate step1", "frame_differs"),
])
def test_what_frama_c_printed_is_compared_with_the_tasks_print(monkeypatch, old, new, reason):
    candidate = TASK_PRINT.replace("    assigns \\nothing; */", "    assigns \\nothing;\n    ensures \\result == x; */")
    candidate = candidate.replace(old, new, 1)
    assert candidate != TASK_PRINT
    prints = {"task": TASK_PRINT, "candidate": candidate}
    monkeypatch.setattr(acsl, "reading", lambda text, spec: {"well_formed": True, "message": "", "printed": prints[text]})
    spec = {"components": [{"name": "f1_id"}]}
    assert acsl.frame_differs("task", "task", spec) is None
    differs = acsl.frame_differs("task", "candidate", spec)
    assert differs is not None and differs[1] == reason, differs


# -- the goal set: the reference's frame goals, recorded at admission -----------------------------------------
MAX_GOALS = ["chain_driver:f1_max_element_requires_valid", "chain_driver_assert_S1",
             "chain_driver_wp_smoke_default_requires", "f1_max_element_assigns", "f1_max_element_ensures_result",
             "f1_max_element_loop_invariant_bound", "f1_max_element_loop_variant",
             "f1_max_element_not_empty_ensures_upper"]


def test_admission_records_the_references_frame_goals_in_the_verifier(atoms, monkeypatch):
    c = ProofsDomain().compose([atoms["max_element"]])
    monkeypatch.setattr(acsl, "verify", lambda *_: WPRun(True, 8, 8, [], MAX_GOALS))
    check = acsl.check_reference(c)
    assert check.ok and c.verifier["goals"] == check.evidence["goals"]
    assert c.verifier["goals"] == [
        {"kind": "driver", "name": "chain_driver:f1_max_element_requires_valid"},
        {"kind": "driver", "name": "chain_driver_assert_S1"},
        {"kind": "ensures", "name": "f1_max_element", "count": 1},
        {"kind": "loop_variant", "name": "f1_max_element", "count": 1}]


def test_a_label_that_spells_a_goal_kind_is_not_that_kind():
    goals = ["f1_x_loop_invariant_my_loop_variant", "f1_x_loop_invariant_my_ensures", "f1_x_assert_terminates",
             "f1_x_b_ensures_lab", "f1_x_ensures", "f1_x_loop_variant_2", "f1_x_terminates"]
    assert [acsl._count(goals, "f1_x", k) for k in ("loop_variant", "ensures", "terminates")] == [1, 2, 1]


@pytest.mark.parametrize("dropped,named", [
    ("f1_max_element_loop_variant", "f1_max_element loop_variant (0 of 1)"),
    ("chain_driver_assert_S1", "chain_driver_assert_S1"),
    ("chain_driver:f1_max_element_requires_valid", "chain_driver:f1_max_element_requires_valid"),
])
def test_a_run_without_a_goal_of_the_task_fails_naming_it(atoms, monkeypatch, dropped, named):
    c = ProofsDomain().compose([atoms["max_element"]])
    monkeypatch.setattr(acsl, "verify", lambda *_: WPRun(True, 8, 8, [], MAX_GOALS))
    assert acsl.check_reference(c).ok
    goals = [g for g in MAX_GOALS if g != dropped]
    monkeypatch.setattr(acsl, "verify", lambda *_: WPRun(True, 7, 7, [], goals))  # every goal it has proves
    monkeypatch.setattr(acsl, "frame_differs", lambda *_: None)
    check = ProofsDomain().grade(c, c.reference)
    assert (check.ok, check.reason) == (False, "missing_goal") and named in check.evidence["missing"], check


def test_a_task_stored_without_a_goal_set_grades_on_the_references_goals(atoms, monkeypatch):
    c = ProofsDomain().compose([atoms["max_element"]])  # as stored before goal sets: no "goals" in V_G
    assert "goals" not in c.verifier
    runs = []

    def fake_verify(text, spec, smoke=False):
        runs.append(smoke)
        return WPRun(True, 8, 8, [], MAX_GOALS if text == c.reference and not smoke else MAX_GOALS[1:])

    monkeypatch.setattr(acsl, "verify", fake_verify)
    monkeypatch.setattr(acsl, "frame_differs", lambda *_: None)
    check = ProofsDomain().grade(c, c.reference)
    assert (check.ok, check.reason) == (False, "missing_goal") and runs == [True, False], check
    assert check.evidence["missing"] == ["chain_driver:f1_max_element_requires_valid"]


@needs_frama_c
def test_frama_c_confirms_the_hidden_terminates_leaves_no_termination_goal(max_element):
    # the guard and the print check aside, the goal set alone fails it: no loop variant goal in its run
    goals = acsl.task_goals(max_element)
    assert {"kind": "loop_variant", "name": "f1_max_element", "count": 1} in goals
    run = acsl.verify(hidden_terminates(max_element, END), max_element.verifier, True)
    assert run.proved and acsl.missing_goals(run, goals) == ["f1_max_element loop_variant (0 of 1)"], run
