"""The demo verifier runs for real: atoms verified at load, chains admitted or rejected by execution."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from codewalk.domains.demo import DemoDomain
from codewalk.errors import InfraError, InputError
from codewalk.loaders.demo import CATALOGUE
from codewalk.records import Atom

SHIPPED = [json.loads(line) for line in CATALOGUE.read_text().splitlines()]


@pytest.fixture(scope="module")
def domain() -> DemoDomain:
    return DemoDomain()


@pytest.fixture(scope="module")
def atoms(domain):
    return {atom.id.removeprefix("demo/"): atom for atom in domain.load(CATALOGUE, {})}


def chain(atoms, *names):
    return [atoms[name] for name in names]


def record(name: str, **changes) -> str:
    return json.dumps({**next(r for r in SHIPPED if r["name"] == name), **changes})


def catalogue(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "atoms.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


# -- loading ------------------------------------------------------------------------------------------
def test_shipped_catalogue_atoms_all_verify(atoms):
    assert sorted(atoms) == sorted(r["name"] for r in SHIPPED)
    digits = atoms["digits"]
    assert digits.id == "demo/digits" and digits.domain == "demo"
    assert digits.summary == {"title": "digits", "in_type": "int", "out_type": "list[int]"}
    assert set(digits.payload) == {"pre", "post", "buggy", "fixed", "examples"}


def test_load_keeps_only_atoms_whose_fix_passes_and_whose_bug_shows(domain, tmp_path):
    path = catalogue(
        tmp_path,
        record("dedupe"),
        record("negate", buggy=next(r for r in SHIPPED if r["name"] == "negate")["fixed"]),  # bug never shows
        record("digits", examples=[7, -1]),  # the fixed version breaks the contract on -1
        record("diffs", post="y == undefined_name"),  # a post that cannot hold
    )
    assert [a.id for a in domain.load(path, {})] == ["demo/dedupe"]


@pytest.mark.parametrize("bad_line, reason", [
    ('{"name": "digits", ', "not valid JSON"),
    ('["a list"]', "not a JSON object"),
    (json.dumps({"name": "x"}), "missing field"),
    (record("digits", in_type="float"), "in_type"),
    (record("digits", pre="x >="), "pre is not valid Python"),
    (record("digits", buggy="def other(x):\n    return x\n"), "single function digits(x)"),
    (record("digits", examples=[]), "examples"),
    (record("dedupe"), "duplicate atom name"),
])
def test_malformed_record_is_an_input_error_naming_its_line(domain, tmp_path, bad_line, reason):
    path = catalogue(tmp_path, record("dedupe"), "", bad_line)
    with pytest.raises(InputError, match=re.escape(reason)) as caught:
        list(domain.load(path, {}))
    assert (caught.value.source, caught.value.where) == (str(path), 3)


# -- edges --------------------------------------------------------------------------------------------
def test_feeds_edges_join_each_return_type_to_every_other_atom_taking_it(domain, atoms):
    edges = list(domain.edges(list(atoms.values())))
    pairs = {(e.src, e.dst) for e in edges}
    expected = {(a.id, b.id) for a in atoms.values() for b in atoms.values()
                if a is not b and a.summary["out_type"] == b.summary["in_type"]}
    assert pairs == expected and len(edges) == len(pairs)
    assert all(e.type == "FEEDS" and e.arg == 0 for e in edges)
    assert ("demo/digits", "demo/dedupe") in pairs and ("demo/dedupe", "demo/digits") not in pairs


# -- composition ----------------------------------------------------------------------------------------
def test_prompt_holds_the_buggy_stages_renamed_and_the_reference_the_fixed_ones(domain, atoms):
    group = chain(atoms, "digits", "dedupe", "diffs")
    composite = domain.compose(group)
    for module, _version in ((composite.prompt, "buggy"), (composite.reference, "fixed")):
        space: dict = {}
        exec(module, space)
        assert {"stage_1", "stage_2", "stage_3", "pipeline"} <= set(space)
        assert "def digits" not in module and "def stage_1(x: int) -> list[int]:" in module
        assert f"pre:  {group[0].payload['pre']}" in module
    space = {}
    exec(composite.reference, space)
    assert space["pipeline"](1213) == [1, 1]  # digits [1,2,1,3] -> dedupe [1,2,3] -> diffs [1,1]
    assert composite.verifier["inputs"] == group[0].payload["examples"]
    assert [s["pre"] for s in composite.verifier["stages"]] == [a.payload["pre"] for a in group]


def test_recursive_calls_are_renamed_with_the_function(domain, atoms):
    total = atoms["alt_sum"]
    recursive = "def alt_sum(x):\n    return x[0] - alt_sum(x[1:]) if x else 0\n"
    atom = Atom(total.id, "demo", total.summary, {**total.payload, "fixed": recursive})
    composite = domain.compose([atom])
    assert "alt_sum" not in composite.reference and "stage_1(x[1:])" in composite.reference
    assert domain.check_reference(composite, [atom]).ok


# -- admission checks -------------------------------------------------------------------------------------
def test_admitted_chain_reference_passes_and_every_atom_stays_unsolved(domain, atoms):
    group = chain(atoms, "digits", "dedupe", "diffs")
    composite = domain.compose(group)
    reference = domain.check_reference(composite, group)
    assert reference.ok and reference.evidence["failures"] == []
    for position in range(3):
        check = domain.check_unsolved(composite, group, position)
        assert check.ok, check.detail
        assert check.evidence["failures"][0]["stage"] >= position + 1


def test_masking_stage_leaves_a_later_bug_already_solved(domain, atoms):
    # count_distinct is only wrong on non-adjacent duplicates (digits of 1213), which dedupe removes first.
    alone = chain(atoms, "digits", "count_distinct")
    assert domain.check_unsolved(domain.compose(alone), alone, 1).ok
    masked = chain(atoms, "digits", "dedupe", "count_distinct")
    check = domain.check_unsolved(domain.compose(masked), masked, 2)
    assert not check.ok and "already solved" in check.detail
    assert check.evidence["failures"] == []


def test_reference_breaking_the_next_stages_precondition_fails_check_2(domain, atoms):
    group = chain(atoms, "digits", "negate", "histogram")  # negate makes negatives; histogram needs x >= 0
    check = domain.check_reference(domain.compose(group), group)
    assert not check.ok
    first = check.evidence["failures"][0]
    assert (first["stage"], first["condition"]) == (3, "pre")
    assert "all(v >= 0 for v in x)" in check.detail


# -- grading ------------------------------------------------------------------------------------------------
def test_grade_accepts_the_reference_and_rejects_the_prompt(domain, atoms):
    composite = domain.compose(chain(atoms, "words", "sort_by_len", "initials"))
    assert domain.grade(composite, composite.reference).ok
    verdict = domain.grade(composite, composite.prompt)
    assert not verdict.ok and verdict.evidence["failures"]


def test_exception_in_candidate_code_is_a_failure_not_an_error(domain, atoms):
    composite = domain.compose(chain(atoms, "digits", "dedupe"))
    candidate = composite.reference + "\n\ndef stage_2(x):\n    raise KeyError(x)\n"
    verdict = domain.grade(composite, candidate)
    assert not verdict.ok
    assert verdict.evidence["failures"][0]["condition"] == "raised" and "KeyError" in verdict.detail


def test_module_that_does_not_compile_or_lacks_a_stage_fails(domain, atoms):
    composite = domain.compose(chain(atoms, "digits", "dedupe"))
    assert "SyntaxError" in domain.grade(composite, "def stage_1(x:\n").detail
    assert "does not define" in domain.grade(composite, "def stage_1(x):\n    return [x]\n").detail


def test_wrong_return_type_is_a_failure_not_coerced(domain, atoms):
    composite = domain.compose(chain(atoms, "digits"))
    verdict = domain.grade(composite, "def stage_1(x):\n    return tuple(int(c) for c in str(x))\n")
    assert not verdict.ok and "returned a tuple" in verdict.detail


def test_candidate_prints_do_not_disturb_the_verdict(domain, atoms):
    composite = domain.compose(chain(atoms, "digits", "dedupe"))
    wrapper = "\n\nfixed = stage_2\n\ndef stage_2(x):\n    print(x)\n    return fixed(x)\n"
    noisy = 'print("{}")\n' + composite.reference + wrapper
    assert domain.grade(composite, noisy).ok


def test_candidate_that_runs_forever_is_an_infra_error_not_a_verdict(atoms):
    domain = DemoDomain()
    domain.timeout = 1.0
    composite = domain.compose(chain(atoms, "digits"))
    with pytest.raises(InfraError, match="timed out"):
        domain.grade(composite, "def stage_1(x):\n    while True:\n        pass\n")


def test_candidate_that_kills_the_interpreter_is_an_infra_error(domain, atoms):
    composite = domain.compose(chain(atoms, "digits"))
    with pytest.raises(InfraError, match="printed no JSON"):
        domain.grade(composite, "import os\nos._exit(0)\n")
