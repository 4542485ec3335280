"""The clone domain on real FEMPD pairs (CC BY-NC 4.0), compiled with javac and run on a real JVM.

A fixed subset keeps it fast: 10 pairs verified once per module (one JVM for the type-driven inputs, one
for the EvoSuite suites), then composed into level-3 chains that really run.
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
import time
from pathlib import Path

import pytest

from codewalk.domain import Rejected
from codewalk.domains import clones
from codewalk.domains.clones import REFERENCE, SYSTEM_PROMPT, ClonesDomain, atom, steer
from codewalk.domains.clones import inputs as inputs_module
from codewalk.domains.clones.inputs import generate
from codewalk.domains.clones.java import CallUnit, Java
from codewalk.domains.clones.verify import INPUTS, pair_class, suite_unit
from codewalk.errors import InputError
from codewalk.loaders import fempd
from tests.run_cw import cw
from tests.shared_data import dataset, require

FEMPD = dataset("fempd")
EQ, MISLABELED, LOOPS, EXITS = 3, 4803, 13060, 7156  # see each test
POSITIVE = (3062, 3869, 3951)  # double(String) -> double(double, double) -> double(double, double), all eq
NEGATIVE = (5765, 12380, 3723)  # boolean(String, boolean) -> String(String, boolean) -> boolean(String, String) [neq]
SUBSET = {EQ, MISLABELED, LOOPS, EXITS, *POSITIVE, *NEGATIVE}


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    """A cache of its own (as $CODEWALK_CACHE): everything compiles from scratch, the user's is left alone."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="module")
def domain(cache) -> ClonesDomain:
    require("fempd", fempd.INDEX)
    return ClonesDomain(Java(cache / "clones"))


@pytest.fixture(scope="module")
def verified(domain):
    return {r.pair.pair_id: r for r in domain.verify(fempd.read(FEMPD, SUBSET))}


@pytest.fixture(scope="module")
def atoms(verified):
    return {pair_id: atom(r) for pair_id, r in verified.items() if r.confirmed}


def chain(atoms, ids):
    return [atoms[i] for i in ids]


# -- atoms: re-verification by execution --------------------------------------------------------------------
def test_equivalent_pair_is_confirmed_by_inputs_and_by_its_evosuite_suites(verified):
    r = verified[EQ]  # getArg vs findOptionalStringValue: the same loop written twice
    assert (r.a, r.b, r.reason) == ("eq", "eq", "confirmed")
    # every input agrees: the INPUTS and, its parameters being Strings, the Unicode and numeric families
    assert r.a_evidence["agree"] == r.a_evidence["inputs"] == r.a_evidence["planned"] > INPUTS and r.witness is None
    for suite in ("method1", "method2"):  # each suite ran on its own method and on the other one
        evidence = r.b_evidence[suite]
        assert evidence["tests"] == 5 and evidence["own_passes"] == evidence["cross_passes"] == 5


def test_non_equivalent_pair_is_confirmed_with_a_witness_input_that_reproduces(domain, verified):
    r = verified[NEGATIVE[2]]
    assert (r.pair.label, r.a, r.reason) == ("neq", "neq", "confirmed")
    witness = r.witness
    assert witness["method1"] != witness["method2"]
    # Run the witness again, alone, in a fresh JVM: the same two outcomes come back.
    unit = CallUnit({f"{r.pair.name}.java": pair_class(r.pair)},
                    ((f"inequivalent.{r.pair.name}", "method1"), (f"inequivalent.{r.pair.name}", "method2")),
                    tuple(r.pair.param_types), [witness["input"]])
    again = domain.java.calls([unit])[0].outcomes[0]
    assert again["v"] == "differ" and again["again"] == [witness["method1"], witness["method2"]]


def test_mislabeled_looking_pair_is_rejected_with_its_witness(verified):
    r = verified[MISLABELED]  # labeled equivalent, but method1 pads with one character more (<= vs <)
    assert (r.pair.label, r.a, r.reason) == ("eq", "neq", "a:diverges")
    assert not r.confirmed
    first, second = json.loads(r.witness["method1"][2:]), json.loads(r.witness["method2"][2:])
    assert len(first) == len(second) + 1


def test_pair_that_loops_forever_on_some_input_is_rejected_on_a_behaviour_witness_not_the_timeout(verified):
    r = verified[LOOPS]  # replace-all: method1 never ends when the text to find is empty; method2 returns
    assert r.reason == "a:diverges"
    assert "t" not in (r.witness["method1"], r.witness["method2"])  # behaviour: a null gives NPE against a value


def test_system_exit_in_a_method_is_an_outcome_not_the_end_of_the_jvm(verified):
    r = verified[EXITS]  # method1 calls System.exit(1) where method2 calls System.exit(0)
    assert r.reason == "confirmed" and {r.witness["method1"], r.witness["method2"]} == {"e:1", "e:0"}
    assert r.a_evidence["abandoned"] == 0


def test_load_yields_only_confirmed_atoms_with_their_summary_and_evidence(domain):
    loaded = list(domain.load(FEMPD, {"pairs": f"{EQ},{MISLABELED}"}))
    assert [a.id for a in loaded] == [f"clones/ClonePair{EQ}"]
    a = loaded[0]
    assert a.summary == {"title": "ClonePair3: String(String[], String, String)", "in_type": "String[], String, String",
                         "out_type": "String", "label": "eq", "source": "labeled/pairs/equivalent/ClonePair3.java"}
    assert a.payload["method1"].lstrip().startswith("String method1(String[] args")
    assert a.payload["verification"]["b"] == "eq" and a.payload["femp_x"]["llm_status"] == "no_witness_found"


def test_evosuite_suite_catches_a_mutant_of_its_method(domain, verified):
    pair = verified[EQ].pair  # method2 with its loop bound off by one: args[i + 1] now fails one step late
    mutant = dataclasses.replace(pair, method2=pair.method2.replace("i < args.length", "i <= args.length"))
    own, cross = domain.java.suites([suite_unit(pair, "method1", "method1"), suite_unit(mutant, "method1", "method2")])
    assert set(own.tests.values()) == {"pass"}
    assert "pass" in cross.tests.values() and any(v.startswith("fail:") for v in cross.tests.values())


# -- relation and walk ---------------------------------------------------------------------------------------
def test_feeds_joins_a_return_type_to_the_first_parameter_of_that_type(domain, atoms):
    edges = {(e.src, e.dst): e.arg for e in domain.edges(list(atoms.values()))}
    brute = {(a.id, b.id): [t.replace("...", "[]") for t in b.payload["params"]].index(a.summary["out_type"])
             for a in atoms.values() for b in atoms.values()
             if a is not b and a.summary["out_type"] in [t.replace("...", "[]") for t in b.payload["params"]]}
    assert edges == brute
    assert edges[("clones/ClonePair5765", "clones/ClonePair12380")] == 1  # boolean into (String, boolean)


def test_chain_whose_types_do_not_match_is_refused(domain, atoms):
    double_out, takes_string = atoms[3062], atoms[5765]  # double(String) cannot feed boolean(String, boolean)
    assert (double_out.id, takes_string.id) not in {(e.src, e.dst) for e in domain.edges(list(atoms.values()))}
    with pytest.raises(Rejected) as refused:
        domain.compose([double_out, takes_string])
    assert refused.value.reason == "types_do_not_chain"


def test_walk_plan_puts_exactly_one_neq_at_a_random_position_in_half_the_walks(domain):
    rng = random.Random(7)
    plans = [domain.walk_plan(5, rng).labels for _ in range(2000)]
    negative = [p for p in plans if "neq" in p]
    assert all(p.count("neq") == 1 and p.count("eq") == 4 for p in negative)
    assert all(set(p) == {"eq"} for p in plans if "neq" not in p)
    assert 900 < len(negative) < 1100
    assert {p.index("neq") for p in negative} == {0, 1, 2, 3, 4}


# -- composition and admission --------------------------------------------------------------------------------
def test_composite_chains_each_side_under_a_driver_and_shows_the_paper_prompt(domain, atoms):
    composite = domain.compose(chain(atoms, NEGATIVE))
    a, b = composite.verifier["snippets"]["SnippetA"], composite.verifier["snippets"]["SnippetB"]
    assert "class SnippetA {" in a and "class SnippetB {" in b
    for side in (a, b):  # same driver on both sides; the chained value enters step3 at its first String
        assert "static boolean outer(String a1, boolean a2, String a3, String a4) {" in side
        assert "boolean x1 = step1(a1, a2);" in side and "String x2 = step2(a3, x1);" in side
        assert "boolean x3 = step3(x2, a4);" in side and "method1" not in side and "method2" not in side
    assert composite.prompt.startswith(SYSTEM_PROMPT) and "Snippet A:\n```java\nclass SnippetA" in composite.prompt
    assert composite.reference == REFERENCE["neq"] and composite.verifier["neq_position"] == 2


def test_level3_positive_composition_compiles_and_agrees_on_every_input(domain, atoms):
    group = chain(atoms, POSITIVE)
    composite = domain.compose(group)
    check = domain.check_reference(composite, group)
    assert check.ok, check.detail
    e = check.evidence
    assert composite.reference == "VERDICT: 1" and e["agree"] == e["drawn"] >= e["inputs"] == steer.INPUT_SET
    assert all(domain.check_unsolved(composite, group, k).ok for k in range(3))


def test_level3_negative_composition_compiles_and_diverges(domain, atoms):
    group = chain(atoms, NEGATIVE)
    composite = domain.compose(group)
    check = domain.check_reference(composite, group)
    assert check.ok, check.detail
    assert composite.reference == "VERDICT: 0"
    witness = check.evidence["witness"]
    assert check.evidence["differ"] >= 1 and witness["SnippetA"] != witness["SnippetB"]
    assert "t" not in (witness["SnippetA"], witness["SnippetB"])
    assert witness["depth"] >= composite.verifier["neq_position"] == 2  # it reaches the neq stage on both sides
    assert witness["input"] in check.evidence["input_set"]


def test_task_check_reports_the_share_of_inputs_that_run_every_stage_and_reach_the_last(domain, atoms):
    for ids in (POSITIVE, NEGATIVE):
        group = chain(atoms, ids)
        check = domain.check_reference(domain.compose(group), group)
        e = check.evidence
        assert check.ok and e["inputs"] == len(e["input_set"]) == steer.INPUT_SET
        assert e["complete_share"] == round(e["complete"] / e["inputs"], 3) >= clones.MIN_COMPLETE_SHARE
        assert e["complete"] <= e["reach_last"] and e["reach_last_share"] == round(e["reach_last"] / e["inputs"], 3)
        assert sum(e["drawn_by_round"]) == e["drawn"] and sum(e["complete_by_round"]) == e["drawn_complete"]


def test_steering_raises_the_share_of_inputs_that_run_every_stage_above_the_first_draw(domain, atoms):
    group = chain(atoms, POSITIVE)  # double(String) first: most drawn strings are not numbers
    e = domain.check_reference(domain.compose(group), group).evidence
    first_share = e["complete_by_round"][0] / e["drawn_by_round"][0]
    assert e["rounds"] > 1 and first_share < clones.MIN_COMPLETE_SHARE <= e["complete_share"]
    later = sum(e["complete_by_round"][1:]) / sum(e["drawn_by_round"][1:])
    assert later > first_share  # the steered rounds, not the first draw, found the inputs that run every stage


def test_task_inputs_are_drawn_for_the_task_not_taken_from_its_atoms_suites(domain, atoms, monkeypatch):
    group = chain(atoms, NEGATIVE)
    composite = domain.compose(group)
    asked = []
    original = inputs_module._generate
    monkeypatch.setattr(inputs_module, "_generate", lambda params, seed, count: asked.append((params, seed))
                        or original(params, seed, count))
    check = domain.check_reference(composite, group)
    assert check.ok and "inputs" not in composite.verifier
    assert set(asked) == {(tuple(composite.verifier["params"]), "\x1f".join(a.id for a in group))}


def test_task_below_the_complete_share_is_rejected(domain, atoms, monkeypatch):
    group = chain(atoms, POSITIVE)
    monkeypatch.setattr(clones, "MIN_COMPLETE_SHARE", 0.9)  # the draw aims at 0.75
    check = domain.check_reference(domain.compose(group), group)
    assert not check.ok and check.reason == "few_complete_runs" and check.evidence["complete_share"] < 0.9
    assert "0.9" in check.detail and "run every stage" in check.detail


def _claimed_negative(composite, old: str, new: str):
    """The composite with `old` replaced by `new` in Snippet B and its probe copy, claimed negative at stage 3."""
    v = composite.verifier
    assert old in v["snippets"]["SnippetB"] and old in v["probes"]["DepthB"]
    return type(composite)(composite.prompt, REFERENCE["neq"], {
        **v, "label": "neq", "neq_position": 2, "snippets": {**v["snippets"], "SnippetB": v["snippets"]["SnippetB"].replace(old, new)},
        "probes": {**v["probes"], "DepthB": v["probes"]["DepthB"].replace(old, new)}})


def test_negative_task_whose_snippets_differ_only_before_the_neq_stage_is_not_admitted(domain, atoms):
    group = chain(atoms, POSITIVE)  # Snippet B's first stage throws on null where A's returns 0
    composite = _claimed_negative(domain.compose(group), 'if (srcValue == null || srcValue.equals("")) return 0;',
                                  'if (srcValue == null) throw new IllegalStateException();\n'
                                  '        if (srcValue.equals("")) return 0;')
    check = domain.check_reference(composite, group)
    assert not check.ok and check.reason == "witness_before_neq_stage", check.detail
    early = check.evidence["early_witness"]
    assert early["input"][0] is None and early["depth"] == 0 and early["SnippetB"] == "x:java.lang.IllegalStateException"
    assert "witness" not in check.evidence


def test_negative_task_whose_snippets_differ_in_the_neq_stage_is_admitted_on_that_input(domain, atoms):
    group = chain(atoms, POSITIVE)  # Snippet B's third stage returns -1 for a large second argument
    head = "static double step3(double xDiff, double yDiff) {\n"
    composite = _claimed_negative(domain.compose(group), head, head + "        if (yDiff > 1000) return -1;\n")
    check = domain.check_reference(composite, group)
    assert check.ok, check.detail
    witness = check.evidence["witness"]
    assert witness["depth"] >= 2 and witness["SnippetB"] == "r:-1.0" and witness["input"][2] > 1000


def test_positive_task_whose_only_difference_is_time_is_undecided_not_admitted(domain, atoms, monkeypatch):
    group = chain(atoms, POSITIVE)
    composite = domain.compose(group)
    b = composite.verifier["snippets"]["SnippetB"]
    at = b.index("        double x1 = step1(")  # Snippet B never ends on strings longer than 3
    slow = b[:at] + "        if (a1 != null && a1.length() > 3) { while (a1 != null) { } }\n" + b[at:]
    claimed = type(composite)(composite.prompt, composite.reference,
                              {**composite.verifier, "snippets": {**composite.verifier["snippets"], "SnippetB": slow}})
    monkeypatch.setattr(clones, "DEADLINE_MS", 20)
    check = domain.check_reference(claimed, group)
    assert not check.ok and check.reason == "undecided_time" and check.evidence["slow"] >= 1
    assert check.evidence["slow_input"]["SnippetB"] == "t" and "witness" not in check.evidence


def test_positive_reference_that_diverges_is_rejected(domain, atoms):
    # The negative chain, claimed to be positive: check (2) must refuse it.
    group = chain(atoms, NEGATIVE)
    composite = domain.compose(group)
    claimed = type(composite)(composite.prompt, REFERENCE["eq"], {**composite.verifier, "label": "eq"})
    check = domain.check_reference(claimed, group)
    assert not check.ok and check.reason == "positive_diverges"


def test_composites_of_many_groups_run_in_one_jvm(domain, atoms):
    composites = [domain.compose(chain(atoms, POSITIVE)), domain.compose(chain(atoms, NEGATIVE))]
    assert [c.ok for c in domain.run_composites(composites)] == [True, True]


# -- grading ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("answer, ok, verdict", [
    ("VERDICT: 0", True, 0),
    ("The second step trims differently.\nverdict:0", True, 0),
    ("VERDICT: 1", False, 1),
    ("I think they differ.", False, None),
    ("VERDICT: 1 (equivalent) or VERDICT: 0 (not equivalent)", False, None),
    ("VERDICT: 10", False, None),
])
def test_grade_reads_one_verdict_and_scores_unparseable_answers_wrong(domain, atoms, answer, ok, verdict):
    composite = domain.compose(chain(atoms, NEGATIVE))
    graded = domain.grade(composite, answer)
    assert graded.ok is ok and graded.evidence["verdict"] == verdict and graded.evidence["class"] == "neq"


# -- loader -------------------------------------------------------------------------------------------------------
def _copy_index(tmp_path: Path, lines: list[str]) -> Path:
    (tmp_path / "labeled").mkdir()
    (tmp_path / "labeled" / "pairs").symlink_to(FEMPD / "labeled" / "pairs")
    (tmp_path / "labeled" / "index.jsonl").write_text("\n".join(lines) + "\n")
    return tmp_path


@pytest.mark.parametrize("change, reason", [
    (lambda r: "{not json", "not valid JSON"),
    (lambda r: json.dumps({k: v for k, v in r.items() if k != "label"}), "missing field(s): label"),
    (lambda r: json.dumps({**r, "label": "same"}), "label 'same'"),
    (lambda r: json.dumps({**r, "param_types": ["int"]}), "do not match"),
    (lambda r: json.dumps({**r, "pair_file": "labeled/pairs/equivalent/ClonePair0.java"}), "cannot read pair file"),
])
def test_malformed_index_record_is_an_input_error_naming_its_line(domain, tmp_path, change, reason):
    first, second = (FEMPD / fempd.INDEX).read_text().splitlines()[:2]
    source = _copy_index(tmp_path, [first, change(json.loads(second))])
    with pytest.raises(InputError, match=re.escape(reason)) as caught:
        fempd.read(source)
    assert caught.value.where == 2


def test_pair_file_is_split_into_its_two_methods_ignoring_braces_in_literals():
    text = ('package x;\npublic class ClonePair1 {\n    String method1(String s) {\n        return "}{" + \'}\';'
            ' // }\n    }\n\n    @SuppressWarnings("unused")\n    String method2(String t) { /* { */ return t; }\n}\n')
    methods = fempd.split_methods(text, "ClonePair1.java")
    assert methods["method1"].endswith("return \"}{\" + '}'; // }\n    }")
    assert methods["method2"].startswith('    @SuppressWarnings("unused")\n    String method2(String t)')
    assert fempd.parameters(methods["method2"], "x") == (["String"], ["t"])


# -- harness --------------------------------------------------------------------------------------------------
def test_inputs_are_seeded_and_start_with_boundary_values():
    first = generate(["int", "String[]"], "s", 50)
    assert first == generate(["int", "String[]"], "s", 50) != generate(["int", "String[]"], "t", 50)
    assert len({json.dumps(i) for i in first}) == 50
    assert any(i[1] is None for i in first) and any(i[0] == 2**31 - 1 for i in first)


def test_call_that_survives_thread_stop_ends_its_jvm_and_the_batch_resumes_after_it(domain):
    # A loop that swallows ThreadDeath cannot be stopped: the harness gives up that JVM; the next input runs.
    source = ("class Stubborn {\n    static int stubborn(int n) {\n        while (true) {\n            try {\n"
              "                while (n >= 0) { }\n                return n;\n            } catch (Throwable t) { }\n"
              "        }\n    }\n    static int plain(int n) { return n; }\n}\n")
    unit = CallUnit({"Stubborn.java": source}, (("Stubborn", "stubborn"), ("Stubborn", "plain")), ("int",),
                    [[-1], [1], [-2]])
    started = time.monotonic()
    result = domain.java.calls([unit])[0]
    assert time.monotonic() - started < 60
    assert result.outcomes[0]["v"] == "agree" and result.outcomes[1]["abandoned"]
    assert result.outcomes[2]["out"] == ["r:-2", "r:-2"]


# -- end to end through the CLI -----------------------------------------------------------------------------------
def test_cw_load_walk_and_grade_report_accuracy_per_level_and_class(domain, cache, tmp_path, capsys, monkeypatch):
    """`cw load clones`, `cw walk` and `cw grade --domain clones` on an embedded store: the load keeps only the
    confirmed pairs, the admitted level-3 tasks are the two chains of the subset, and grading scores a right
    verdict, a wrong one and an unparseable answer per class."""
    monkeypatch.setenv("CODEWALK_CACHE", str(cache))  # the module's compiled pairs: nothing compiles twice
    store = str(tmp_path / "graph.lbug")
    ids = ",".join(map(str, sorted(SUBSET)))
    code, out, err = cw(capsys, "--store", store, "load", "clones", str(FEMPD), "--opt", f"pairs={ids}", "--json")
    assert code == 0, err
    assert json.loads(out)["atoms"] == len(SUBSET) - 2  # the mislabeled-looking pair and the endless loop go
    code, out, err = cw(capsys, "--store", store, "walk", "--domain", "clones", "--n", "3", "--count", "2",
                        "--max-attempts", "40", "--seed", "3", "--json")
    assert code == 0, err
    tasks = {t["reference"]: t for t in _admitted(capsys, store)}
    assert set(tasks) == {REFERENCE["eq"], REFERENCE["neq"]}
    eq, neq = tasks[REFERENCE["eq"]], tasks[REFERENCE["neq"]]
    assert {int(a.removeprefix("clones/ClonePair")) for a in eq["atoms"]} == set(POSITIVE)  # the double chain
    assert sum(int(a.removeprefix("clones/ClonePair")) in (NEGATIVE[2], EXITS) for a in neq["atoms"]) == 1  # one neq
    predictions = tmp_path / "model.jsonl"
    predictions.write_text(json.dumps({"task_id": eq["id"], "output": "Same steps.\nVERDICT: 1"}) + "\n"
                           + json.dumps({"task_id": neq["id"], "output": "They look alike."}) + "\n")
    code, out, err = cw(capsys, "--store", store, "grade", str(predictions), "--domain", "clones", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert (report["graded"], report["passed"]) == (2, 1)
    assert report["by_class"] == [{"level": 3, "class": "eq", "graded": 1, "passed": 1, "accuracy": 1.0},
                                  {"level": 3, "class": "neq", "graded": 1, "passed": 0, "accuracy": 0.0}]


def _admitted(capsys, store: str) -> list[dict]:
    code, out, err = cw(capsys, "--store", store, "query",
                        "MATCH (t:Task {domain: 'clones', status: 'admitted'})-[c:COMPOSES]->(a:Atom) "
                        "RETURN t.id AS id, t.reference AS reference, c.position AS position, a.id AS atom "
                        "ORDER BY id, position", "--json")
    assert code == 0, err
    tasks: dict[str, dict] = {}
    for row in json.loads(out):
        tasks.setdefault(row["id"], {"id": row["id"], "reference": row["reference"], "atoms": []})["atoms"].append(row["atom"])
    return list(tasks.values())


@pytest.mark.parametrize("body, reason", [
    ("    int method1(int a) { return a; }\n", "expected methods method1 and method2, found ['method1']"),
    ("    int x;\n    int method1(int a) { return a; }\n    int method2(int b) { return b; }\n", "a field"),
    ("    int method1(int a) { return a; }\n    int method2(int b) { return b;\n", "unbalanced braces"),
])
def test_pair_file_that_is_not_two_methods_is_an_input_error_naming_the_file(tmp_path, body, reason):
    record = json.loads((FEMPD / fempd.INDEX).read_text().splitlines()[0]) if (FEMPD / fempd.INDEX).exists() else {}
    record = {**{k: None for k in fempd.FIELDS}, **record, "pair_id": 1, "label": "equivalent", "return_type": "int",
              "param_types": ["int"], "pair_file": "labeled/pairs/equivalent/ClonePair1.java", "evosuite": None}
    pair_file = tmp_path / record["pair_file"]
    pair_file.parent.mkdir(parents=True)
    pair_file.write_text(f"package equivalent;\n\npublic class ClonePair1 {{\n{body}}}\n")
    (tmp_path / fempd.INDEX).write_text(json.dumps(record) + "\n")
    with pytest.raises(InputError, match=re.escape(reason)) as caught:
        fempd.read(tmp_path)
    assert str(pair_file) in str(caught.value)


def test_a_class_poisoned_by_a_stopped_call_does_not_decide_later_inputs(domain):
    # A call stopped while a class initialises leaves that class broken for the rest of the JVM. The JDK's
    # own classes can be caught like this; here a class of the unit stands in for them. The next input that
    # meets the broken class is run again in a fresh JVM, where it gets its own outcome.
    source = ("class Poison {\n    static int slow(int n) { return Init.V + n; }\n"
              "    static int plain(int n) { return n; }\n}\n\n"
              "class Init {\n    static final int V;\n    static {\n        long k = 0;\n"
              "        while (k >= 0) k = (k + 1) & 0xff;\n        V = 1;\n    }\n}\n")
    unit = CallUnit({"Poison.java": source}, (("Poison", "slow"), ("Poison", "plain")), ("int",), [[1], [2]])
    result = domain.java.calls([unit])[0]
    assert result.outcomes[0]["out"] == ["t", "r:1"]
    assert result.outcomes[0]["again"] == ["x:java.lang.NoClassDefFoundError", "r:1"]  # the class is broken now
    # ... by this input's own stopped call: no outcome, so only time separates the targets, never a witness
    assert result.outcomes[0]["final"] == ["t", "r:1"] and result.outcomes[0]["v"] == "slow"
    assert result.outcomes[1]["out"] == ["t", "r:2"]  # not x:java.lang.NoClassDefFoundError from the first JVM


def _harness_in_a_worker(cache: str) -> str:
    return str(Java(Path(cache)).harness())


def test_two_workers_building_the_harness_on_an_empty_cache_both_get_it(tmp_path):
    """`cw walk --workers 2` on an empty cache: both workers want the harness at once. One builds it (the
    jars copied under names of their own, the build under a lock), the other waits and uses it; before,
    the second worker's jar rename failed on the first's `.part` file."""
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(2) as pool:
        built = list(pool.map(_harness_in_a_worker, [str(tmp_path)] * 2))
    assert built[0] == built[1] and Path(built[0]).is_file()
    assert not list((tmp_path / "jars").glob("*.part"))


# -- the verdict file -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("named", [True, False])
def test_cw_load_writes_the_verdict_file_beside_the_store_it_loads_whatever_codewalk_store_says(
        named, tmp_path, monkeypatch):
    """The folder comes from the store being loaded (cw load), not from the domain reading CODEWALK_STORE:
    beside a named embedded store, else in CODEWALK_HOME beside the default one."""
    from codewalk.loading import load
    from codewalk.store import open_store

    monkeypatch.setattr(fempd, "read", lambda source, only=None: [])  # no JDK or dataset: no pair to verify
    (tmp_path / "mine").mkdir()
    if named:  # as `cw --store mine/graph.lbug` with CODEWALK_STORE set to another store
        monkeypatch.setenv("CODEWALK_STORE", str(tmp_path / "elsewhere" / "graph.lbug"))
    store = open_store(tmp_path / "mine" / "graph.lbug" if named else None)
    try:  # no pair at all is an input error (an empty load), raised after every verdict is written
        with pytest.raises(InputError, match="no clones atom"):
            load(store, "clones", tmp_path, {})
    finally:
        store.close()
    home = tmp_path / "home"  # CODEWALK_HOME (conftest)
    assert (tmp_path / "mine" if named else home).joinpath("clones-verdicts.jsonl").exists()
    assert not (tmp_path / "elsewhere").exists()
