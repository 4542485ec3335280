"""`cw mine repair` on the fixture repository of tests/mine_fixture.py, whose main line holds a fix with its
test, a fix without tests, a test-only change, a merged branch, a flaky test, a renamed file and a fix
needing a new dependency. Real git, real pytest runs, real virtualenvs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codewalk.domains.repair.mine import default_name, documentation, infer_install_config, mine
from codewalk.loaders.diff import patch_files
from tests import mine_fixture
from tests.run_cw import cw

pytestmark = pytest.mark.usefixtures("shared_home")  # one home: virtualenvs and the mirror are built once


@pytest.fixture(scope="module")
def mined(tmp_path_factory, module_home):
    """The whole main line mined once (K = 3): the fixture, the rows by fix commit, the summary, the file."""
    root = tmp_path_factory.mktemp("mine")
    fx = mine_fixture.build(root)
    out = root / "rows.jsonl"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CODEWALK_HOME", str(module_home))
        summary = mine(str(fx.clone), out, name="calc/calc", workers=2)
    rows = {r["fix_commit"]: r for r in _rows(out)}
    return fx, rows, summary.as_dict(), out


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _state(out: Path) -> dict[str, dict]:
    return {s["commit"]: s for s in _rows(out.with_name(out.name + ".state"))}


def test_every_commit_of_the_main_line_gets_its_expected_outcome(mined):
    fx, rows, summary, out = mined
    state = _state(out)
    got = {name: (state[fx.commits[name]]["status"], state[fx.commits[name]]["reason"]) for name in mine_fixture.EXPECTED}
    assert got == mine_fixture.EXPECTED
    # the branch's own commit is not on the main line: only its merge is a candidate
    assert fx.commits["branch"] not in state
    assert summary["scanned"] == len(state) == 9  # with the initial (root) commit and the README commit
    assert (summary["candidates"], summary["kept"]) == (5, 5)
    assert summary["skipped"] == {"no_source_change": 1, "no_test_change": 2, "root_commit": 1}  # + README


def test_a_fix_with_its_test_becomes_a_row_whose_test_fails_before_and_passes_after(mined):
    fx, rows, _, _ = mined
    row = rows[fx.commits["fix"]]
    assert row["base_commit"] == fx.commits["initial"]
    assert row["FAIL_TO_PASS"] == ["tests/test_ops.py::test_add_negative"]
    assert row["PASS_TO_PASS"] == ["tests/test_ops.py::test_add_small", "tests/test_ops.py::test_sub_equal",
                                   "tests/test_ops.py::test_mul_one", "tests/test_ops.py::test_div_exact"]
    assert patch_files(row["patch"]) == ["calc/ops.py"]
    assert patch_files(row["test_patch"]) == ["tests/test_ops.py"]
    assert row["mined"]["left_out"] == ["CHANGELOG.md"]  # documentation is in neither patch
    assert row["created_at"] == "2024-05-02T10:00:00+00:00"
    assert row["instance_id"] == f"calc__calc-{fx.commits['fix'][:12]}"
    assert row["clone_from"] == str(fx.clone.resolve())
    assert row["environment_setup_commit"] == row["fix_commit"] == fx.commits["fix"]
    assert row["install_config"]["pip_packages"] == [] and row["install_config"]["inferred_from"] == ["pyproject.toml"]


def test_a_merged_branch_is_one_candidate_based_on_its_first_parent(mined):
    fx, rows, _, _ = mined
    row = rows[fx.commits["merge"]]
    assert row["mined"]["kind"] == "merge"
    assert row["base_commit"] == fx.commits["readme"]
    assert row["FAIL_TO_PASS"] == ["tests/test_ops.py::TestMul::test_by_zero"]
    assert patch_files(row["patch"]) == ["calc/ops.py"]  # the README change on main is not part of it


def test_a_flaky_test_is_dropped_from_the_row_and_counted(mined):
    fx, rows, summary, _ = mined
    row = rows[fx.commits["flaky"]]
    flip = "tests/test_ops.py::test_flips_every_run"
    assert row["mined"]["flaky"] == [flip]
    assert flip not in row["FAIL_TO_PASS"] + row["PASS_TO_PASS"]
    assert row["FAIL_TO_PASS"] == ["tests/test_ops.py::test_sub_order"]
    assert summary["flaky_tests"] == sum(len(r["mined"]["flaky"]) for r in rows.values()) >= 1


def test_a_renamed_file_is_a_deletion_and_an_addition_on_its_own_side(mined):
    fx, rows, _, _ = mined
    row = rows[fx.commits["rename"]]
    assert patch_files(row["patch"]) == ["calc/arith.py", "calc/ops.py"]
    assert patch_files(row["test_patch"]) == ["tests/test_arith.py", "tests/test_ops.py"]
    assert row["mined"]["test_files"] == ["tests/test_arith.py"]  # the old test file no longer exists
    # before the gold patch the new test module cannot import calc.arith: all of its tests are absent
    assert "tests/test_arith.py::test_div_true[1-2-0.5]" in row["FAIL_TO_PASS"]
    assert "tests/test_arith.py::test_add_small" in row["FAIL_TO_PASS"]
    assert row["PASS_TO_PASS"] == []


def test_a_gold_needing_a_new_dependency_is_kept_with_it_in_the_inferred_environment(mined):
    fx, rows, _, _ = mined
    row = rows[fx.commits["dependency"]]
    assert row["install_config"]["pip_packages"] == [f"tinydep @ {fx.wheel.as_uri()}"]
    # round 15a: the gold patch is the change's Python modules (the grader refuses any other file); the environment,
    # inferred at the fix, has the dependency all the same
    assert "pyproject.toml" not in patch_files(row["patch"]) and "pyproject.toml" in row["mined"]["left_out"]
    assert row["FAIL_TO_PASS"] == ["tests/test_twice.py::test_twice"]


def test_a_given_install_config_without_the_new_dependency_drops_that_candidate(mined, tmp_path, capsys):
    fx, _, _, _ = mined
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"python": "", "pip_packages": []}))
    out = tmp_path / "rows.jsonl"
    code, stdout, stderr = cw(capsys, "mine", "repair", str(fx.clone), "--out", str(out), "--name", "calc/calc",
                              "--since", fx.dates["dependency"], "--install-config", str(config), "--json")
    assert code == 0, stderr
    summary = json.loads(stdout)
    assert (summary["scanned"], summary["kept"], summary["dropped"]) == (1, 0, {"no_test_passes": 1})
    assert not out.exists() or _rows(out) == []


def test_a_killed_mine_resumes_without_duplicates(mined, tmp_path, capsys):
    fx, rows, _, out = mined
    copy = tmp_path / "rows.jsonl"
    kept = out.read_text().splitlines(keepends=True)
    states = out.with_name(out.name + ".state").read_text().splitlines(keepends=True)
    # killed after writing the last row, before its state line, and halfway through another row's line
    copy.write_text("".join(kept) + kept[0][:40])
    last = next(i for i, s in reversed(list(enumerate(states))) if json.loads(s)["status"] == "kept")
    Path(str(copy) + ".state").write_text("".join(states[:last] + states[last + 1:]) + states[0][:10])
    code, stdout, stderr = cw(capsys, "mine", "repair", str(fx.clone), "--out", str(copy), "--name", "calc/calc",
                              "--json")
    assert code == 0, stderr
    summary = json.loads(stdout)
    assert summary["resumed"] == summary["scanned"] == 9 and summary["kept"] == 5
    ids = [r["instance_id"] for r in _rows(copy)]
    assert sorted(ids) == sorted(r["instance_id"] for r in rows.values())


def test_mined_rows_load_with_no_option_and_a_walk_admits_a_pair(mined, tmp_path, capsys):
    fx, rows, _, _ = mined
    two = tmp_path / "two.jsonl"  # the fix and the merge share calc/ops.py: the graph's only pair
    two.write_text("".join(json.dumps(rows[fx.commits[n]]) + "\n" for n in ("fix", "merge")))
    store = str(tmp_path / "graph.lbug")
    code, stdout, stderr = cw(capsys, "--store", store, "load", "repair", str(two), "--json")
    assert code == 0, stderr
    assert json.loads(stdout)["atoms"] == 2
    code, stdout, stderr = cw(capsys, "--store", store, "walk", "--domain", "repair", "--n", "2", "--count", "1",
                              "--seed", "0", "--workers", "1", "--json")
    assert code == 0, stderr
    assert json.loads(stdout)["admitted"] == 1


def test_an_unknown_runtime_is_refused_with_a_usage_error(tmp_path, capsys):
    code, _, stderr = cw(capsys, "mine", "repair", str(tmp_path), "--out", str(tmp_path / "o.jsonl"),
                         "--runtime", "podman")
    assert code == 2
    assert "unknown runtime 'podman'" in stderr


@pytest.mark.parametrize("args, code, says", [
    (["--since", "last tuesday"], 2, "--since 'last tuesday' is not an ISO 8601 date"),
    (["--runs", "0"], 2, "--runs must be at least 1"),
    (["--install-config", "missing.json"], 3, "missing.json: cannot read the install config"),
    (["--install-config", "[1]"], 3, "--install-config: the install config must be a JSON object"),
    (["--install-config", "{oops"], 3, "--install-config: not JSON"),
])
def test_bad_options_are_refused_naming_what_is_wrong(tmp_path, capsys, args, code, says):
    got, _, stderr = cw(capsys, "mine", "repair", str(tmp_path), "--out", str(tmp_path / "o.jsonl"), *args)
    assert (got, says in " ".join(stderr.split())) == (code, True), stderr


def test_a_folder_that_is_not_a_git_repository_is_named_in_the_error(tmp_path, capsys):
    folder = tmp_path / "plain"
    folder.mkdir()
    code, _, stderr = cw(capsys, "mine", "repair", str(folder), "--out", str(tmp_path / "o.jsonl"))
    assert code == 3
    assert f"{folder}: not a git repository" in " ".join(stderr.split())


def test_the_environment_is_inferred_from_pyproject_setup_cfg_setup_py_and_requirements():
    files = {
        "pyproject.toml": '[project]\nname = "Pkg_A"\ndependencies = ["attrs>=22"]\n'
                          '[project.optional-dependencies]\ntests = ["freezegun", "pkg-a[extra]"]\ndocs = ["sphinx"]\n',
        "setup.cfg": "[options]\ninstall_requires =\n    six\n[options.extras_require]\ntesting = hypothesis\n",
        "setup.py": "from setuptools import setup\nsetup(install_requires=['click'], "
                    "extras_require={'test': ['mock'], 'dev': ['black']})\n",
        "requirements-test.txt": "# for the tests\n-r requirements/base.txt\npytest-timeout\n-e .\n",
        "requirements/base.txt": "idna\n",
    }
    config = infer_install_config(files.get, "owner/pkg-a")
    assert config["pip_packages"] == ["attrs>=22", "six", "click", "freezegun", "hypothesis", "mock", "idna",
                                      "pytest-timeout"]
    assert config["inferred_from"] == ["pyproject.toml", "setup.cfg", "setup.py", "requirements-test.txt"]
    assert any("'-e .'" in note for note in config["notes"])


def test_dev_requirements_are_used_only_without_test_requirements():
    files = {"pyproject.toml": '[project]\nname = "x"\n[dependency-groups]\ndev = ["pytest>=8"]\n'}
    assert infer_install_config(files.get, "o/x")["pip_packages"] == ["pytest>=8"]
    files["requirements-test.txt"] = "nose\n"
    assert infer_install_config(files.get, "o/x")["pip_packages"] == ["nose"]


@pytest.mark.parametrize("origin, name", [
    ("https://github.com/mahmoud/boltons.git", "mahmoud/boltons"),
    ("git@github.com:python-humanize/humanize.git", "python-humanize/humanize"),
    ("https://gitlab.example.org/group/tool", "group/tool"),
])
def test_the_default_name_comes_from_the_url(origin, name):
    assert default_name(origin) == name


def test_a_local_clone_without_an_origin_is_named_after_its_folder(mined):
    fx, rows, _, _ = mined
    assert default_name(str(fx.clone)) == "local/calc"


@pytest.mark.parametrize("path, prose", [
    ("CHANGELOG.md", True), ("docs/conf.py", True), ("doc/api.txt", True), ("README.rst", True),
    ("HISTORY", True), ("pkg/core.py", False), ("requirements.txt", False), ("pkg/docs_helper.py", False),
])
def test_documentation_is_told_from_source_by_folder_suffix_and_name(path, prose):
    assert documentation(path) is prose


def test_the_hint_gives_the_level_cw_walk_would_allow_on_the_mined_rows(mined, tmp_path, capsys):
    fx, rows, summary, out = mined
    # fix, merge, flaky and rename share calc/ops.py, rename and dependency calc/arith.py: one component
    assert (summary["largest_level"], summary["graph"]["calc/calc"]["atoms"]) == (5, 5)
    assert "cw walk --domain repair --n 2" in summary["next"] and "up to 5" in summary["next"]
    assert rows[fx.commits["fix"]]["mined"]["commits"] == [fx.commits["fix"]]
    store = str(tmp_path / "graph.lbug")
    code, _, stderr = cw(capsys, "--store", store, "load", "repair", str(out))
    assert code == 0, stderr
    code, _, stderr = cw(capsys, "--store", store, "walk", "--domain", "repair", "--n", "6", "--count", "1")
    assert code == 2 and "N <= 5" in stderr  # the walk's own bound, the same number


def test_the_pairs_mining_composes_are_rejected_by_a_walk_for_the_same_reasons(mined, tmp_path, capsys):
    fx, _, summary, out = mined
    composed = summary["graph"]["calc/calc"]["pairs_composed"]
    assert sum(composed.values()) == summary["graph"]["calc/calc"]["edges"] == 7  # every pair, each once
    accounted = {r["stage"]: r["count"] for r in summary["account"] if r["stage"].startswith("pairs: ")}
    assert accounted == {f"pairs: {k}": n for k, n in composed.items()}
    store = str(tmp_path / "graph.lbug")
    assert cw(capsys, "--store", store, "load", "repair", str(out))[0] == 0
    code, stdout, stderr = cw(capsys, "--store", store, "walk", "--domain", "repair", "--n", "2", "--count", "7",
                              "--max-attempts", "7", "--seed", "0", "--workers", "2", "--json")
    walked = json.loads(stdout)
    assert walked["attempted"] == 7, stderr
    before_tests = {k: n for k, n in walked["rejected"].items() if k != "composes" and k in composed}
    assert before_tests == {k: n for k, n in composed.items() if k != "composes"}
    assert walked["attempted"] - sum(before_tests.values()) == composed.get("composes", 0)
