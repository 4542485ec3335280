"""Proof completion, Verus backend, on the real Verus-Bench programs: parsing, relation, composition
and grading's refusals run without Verus; admission without Verus stops with a UsageError."""

from __future__ import annotations

import pytest

from codewalk.admission import evaluate
from codewalk.domains.proofs import ProofsDomain, read, verus
from codewalk.errors import InputError, UsageError
from codewalk.loaders import verus_scan, verusbench
from tests.shared_data import dataset, require

VERUS_BENCH = dataset("verus-bench")


@pytest.fixture(autouse=True, scope="module")
def _data():  # before the module-scoped fixtures that read it
    require("verus-bench")



@pytest.fixture(scope="module")
def atoms():
    backend, found, _ = read(VERUS_BENCH, {})
    assert backend == "verus"
    return {a.id.removeprefix("proofs/verus/"): a for a in found}


@pytest.fixture(scope="module")
def a4(atoms):
    """Paper App. A.4: extract_rear_chars (MBPP 424) feeding contains_z (MBPP 454)."""
    chain = [atoms["MBPP/task_id_424/extract_rear_chars"], atoms["MBPP/task_id_454/contains_z"]]
    return chain, ProofsDomain().compose(chain)


def test_loader_keeps_exec_functions_with_a_named_result_and_ensures(atoms):
    _, _, skipped = read(VERUS_BENCH, {})
    assert len(atoms) == 108
    assert len({a.payload["program"] for a in atoms.values()}) == 95
    reasons = dict(skipped)
    assert reasons["Diffy/brs1::myfun"] == "returns nothing"
    assert "&mut" in reasons["Misc/cell_2_sum::myfun"]
    assert "Option<usize>" in reasons["MBPP/task_id_733::find_first_occurrence"]


def test_strip_reproduces_the_benchmarks_own_unverified_programs():
    """Our proof stripper, keeping ensures, gives the same tokens as Verus-Bench's unverified/ files."""
    same = total = 0
    for path in sorted(VERUS_BENCH.glob("*/verified/*.rs")):
        task = path.parent.parent / "unverified" / path.name
        if not task.exists():
            continue
        mine = {it.name: it for it in verusbench.program_items(path.read_text(), str(path)) if it.fn and it.fn.mode == "exec"}
        theirs = {it.name: it for it in verusbench.program_items(task.read_text(), str(task)) if it.fn}
        for name, item in mine.items():
            if name != "main" and name in theirs:
                total += 1
                same += verus_scan.tokens(verusbench.strip(item.text, keep_ensures=True)) == verus_scan.tokens(theirs[name].text)
    # the 15 others differ in the benchmark itself (code edited between the two files, a kept ghost let, ...)
    assert (same, total) == (145, 160)


def test_a_vec_result_reaches_slice_and_borrowed_vec_parameters_and_never_the_same_program(atoms):
    edges = list(ProofsDomain().edges(list(atoms.values())))
    by_pair = {(e.src, e.dst): e for e in edges}
    rear, z = atoms["MBPP/task_id_424/extract_rear_chars"].id, atoms["MBPP/task_id_454/contains_z"].id
    assert (by_pair[(rear, z)].arg, by_pair[(rear, z)].via) == (0, "as_slice")
    assert {e.via for e in edges} == {None, "borrow", "as_slice"}
    source = {a.id: a.summary["source"] for a in atoms.values()}
    assert all(source[e.src] != source[e.dst] for e in edges)
    assert not any(e.src == z for e in edges if e.dst == rear)  # bool feeds no &Vec<Vec<u8>>


def test_composition_of_424_and_454_has_the_structure_of_app_a4(a4):
    _, c = a4
    for text in (c.prompt, c.reference):
        assert "spec fn step1(s: Seq<Vec<u8>>, outp: Seq<u8>) -> bool {" in text
        assert "(s.len() == outp.len())" in text
        assert "outp[i] == #[trigger] s[i][s[i].len() - 1]" in text
        assert "spec fn step2(text: Seq<u8>, outp: bool) -> bool {" in text
        assert "fn chain_driver(s: &Vec<Vec<u8>>) -> (r_final: bool)" in text
        assert "exists|v1: Seq<u8>| #[trigger] step1(s@, v1) && step2(v1, r_final)," in text
        assert "let x1 = f1_extract_rear_chars(s);" in text
        assert "let x2 = f2_contains_z(x1.as_slice());" in text
        assert "assert(step1(s@, x1@));" in text and "assert(step2(x1@, x2));" in text
    # the nonempty-input precondition stays, on the component and on the driver
    assert c.prompt.count("forall|i: int| 0 <= i < s.len() ==> #[trigger] s[i].len() > 0,") == 2
    components = c.prompt.split("verus! {")[1].split("spec fn step1")[0]
    assert "invariant" not in components and "ensures" not in components
    assert "while index < s.len() {" in components and "rear_chars.push(seq[seq.len() - 1]);" in components
    assert "rear_chars.len() == index," in c.reference  # the restored loop invariant
    assert "result == (exists|i: int| 0 <= i < text.len() && (text[i] == 90 || text[i] == 122))," in c.reference


def test_a_vec_moved_into_the_next_call_is_asserted_through_a_ghost_snapshot(atoms):
    src = next(a for a in atoms.values() if a.payload["ret"][1] == "Vec<i32>" and not a.payload["requires"])
    dst = next(a for a in atoms.values() if a.payload["params"][0][1] == "Vec<i32>"
               and verus.connect(src, a) == (0, "direct") and a.summary["source"] != src.summary["source"])
    c = ProofsDomain().compose([src, dst])
    assert "let ghost x1_view = x1@;" in c.prompt
    assert "assert(step1(" in c.prompt and "x1_view));" in c.prompt


def test_a_later_precondition_on_the_chained_value_is_not_assumed_by_the_driver(atoms):
    pairs = [(src, dst) for src in atoms.values() for dst in atoms.values()
             if dst.payload["requires"] and src.summary["source"] != dst.summary["source"]
             and not src.payload["requires"] and verus.connect(src, dst)]
    src, dst = pairs[0]
    c = ProofsDomain().compose([src, dst])
    driver = c.prompt.split("fn chain_driver")[1].split("ensures")[0]
    chained = dst.payload["params"][verus.connect(src, dst)[0]][0]
    assert all(chained in r for r in dst.payload["requires"])
    assert "requires" not in driver  # upstream contracts must establish it


def test_admission_without_verus_is_a_usage_error_saying_verus_is_needed(a4, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    chain, _ = a4
    with pytest.raises(UsageError, match="needs Verus"):
        evaluate(ProofsDomain(), chain)


def test_grade_refuses_proof_bypasses_before_running_verus(a4, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # no verus: a refusal must not need it
    _, c = a4
    d = ProofsDomain()
    cheats = {
        "assume": c.reference.replace("rear_chars\n}", "proof { assume(false); }\n    rear_chars\n}", 1),
        "admit": c.reference.replace("rear_chars\n}", "proof { admit(); }\n    rear_chars\n}", 1),
        "external_body": c.reference.replace("fn f2_contains_z", "#[verifier::external_body]\nfn f2_contains_z", 1),
        "exec_allows_no_decreases": c.reference.replace("fn f2_contains_z", "#[verifier::exec_allows_no_decreases]\nfn f2_contains_z", 1),
    }
    for word, cheat in cheats.items():
        assert cheat != c.reference
        check = d.grade(c, cheat)
        assert (check.ok, check.reason) == (False, "bypass") and word in check.detail, (word, check.detail)


def test_grade_refuses_changed_requires_or_code_and_a_missing_component(a4, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    _, c = a4
    d = ProofsDomain()
    weaker = c.reference.replace("#[trigger] s[i].len() > 0,\n    ensures", "#[trigger] s[i].len() > 1,\n    ensures", 1)
    recoded = c.reference.replace("index += 1;\n    }\n    false", "index += 2;\n    }\n    false", 1)
    for cheat, what in ((weaker, "the requires clauses of f1_extract_rear_chars were changed"),
                        (recoded, "the code of f2_contains_z was changed")):
        assert cheat != c.reference
        check = d.grade(c, cheat)
        assert (check.ok, check.reason) == (False, "bypass") and what in check.detail, check.detail
    check = d.grade(c, c.reference.replace("fn f2_contains_z", "fn contains_z"))
    assert not check.ok and "omits f2_contains_z" in check.detail


def test_walk_plan_allows_each_source_program_at_most_twice(atoms):
    import random

    assert ProofsDomain().walk_plan(3, random.Random(0)).max_per_source == 2


def test_every_atom_and_every_edge_composes(atoms):
    d = ProofsDomain()
    edges = list(d.edges(list(atoms.values())))
    by_id = {a.id: a for a in atoms.values()}
    for atom in atoms.values():
        assert "fn chain_driver(" in d.compose([atom]).prompt
    for e in edges:
        assert f"f2_{by_id[e.dst].payload['name']}(" in d.compose([by_id[e.src], by_id[e.dst]]).prompt


def test_a_malformed_program_is_an_input_error_naming_file_and_line(tmp_path):
    (tmp_path / "G" / "verified").mkdir(parents=True)
    bad = tmp_path / "G" / "verified" / "bad.rs"
    bad.write_text("use vstd::prelude::*;\nfn main() {}\nverus! {\n\nfn f(x: u8) -> (r: u8)\n    ensures r == x,\n\n}\n")
    with pytest.raises(InputError, match=r"bad\.rs:5: item does not end inside the verus! block"):
        read(tmp_path, {})


_STUB = """#!/bin/sh
# A stand-in for verus (not a verifier): it "verifies" a file that has loop invariants and fails one that
# has none, printing verus's own summary line, so the plumbing around the real tool is exercised.
if [ "$1" = "--version" ]; then echo "verus-stub 0.0"; exit 0; fi
found=0
while IFS= read -r line; do
  t="${line#"${line%%[![:space:]]*}"}"
  case "$t" in invariant*) found=1;; esac
done < "$1"
if [ $found = 1 ]; then echo "verification results:: 4 verified, 0 errors"; exit 0; fi
echo "error: postcondition not satisfied"
echo "verification results:: 2 verified, 2 errors"
exit 1
"""


def test_admission_and_grading_run_the_verus_named_by_codewalk_verus(a4, monkeypatch, tmp_path):
    stub = tmp_path / "verus-stub"
    stub.write_text(_STUB)
    stub.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # not found on PATH: only the variable names it
    monkeypatch.setenv("CODEWALK_VERUS", str(stub))
    monkeypatch.setenv("CODEWALK_CACHE", str(tmp_path / "cache"))
    verus._version.cache_clear()
    chain, c = a4
    verdict = evaluate(ProofsDomain(), chain)
    assert verdict.status == "admitted", verdict.evidence
    assert verdict.evidence["reference"]["verus"]["verified"] == 4
    assert verdict.evidence["atoms"][0]["verus"]["errors"] == 2
    check = ProofsDomain().grade(c, c.reference)
    assert check.ok, check.detail
    check = ProofsDomain().grade(c, c.prompt)  # the task itself: no invariants, so it fails
    assert not check.ok and "2 error" in check.detail


def test_a_verus_run_sees_verus_and_the_rust_toolchains_only(tmp_path, monkeypatch):
    """Verus's view is an allow-list (Verus itself is not installed here: this pins the list, not a run):
    its own folder, RUSTUP_HOME and rustup's binaries; not the home folder nor CARGO_HOME, whose
    credentials file may hold a registry token."""
    from codewalk.domains.proofs import verus

    home = tmp_path / "home"
    for folder in ("verus-x86-linux", ".rustup/toolchains", ".cargo/bin"):
        (home / folder).mkdir(parents=True)
    (home / "verus-x86-linux" / "verus").write_text("")
    (home / ".cargo" / "credentials.toml").write_text("token")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("RUSTUP_HOME", raising=False)
    monkeypatch.delenv("CARGO_HOME", raising=False)
    sees, env = verus.view(str(home / "verus-x86-linux" / "verus"))
    assert sees == [home / "verus-x86-linux", home / ".rustup", home / ".cargo" / "bin"]
    assert env["RUSTUP_HOME"] == str(home / ".rustup") and "HOME" not in env
