"""Red team, round 15 part a (issue 51): the expected values changed by the diff itself -- a candidate diff that
rewrites, adds, renames or shadows a file W1's test reads its expected values from, a file no test path names (test
data at the root, the package's data, a folder the test globs, a configuration section, a helper module at the root,
a data module of the package) -- built against main 10dcd65 before any change. The kinds and their spellings are in
tests/redteam_round15a_cheats.py; every spelling is graded on one W1 + W2 task whose W1 test reads every place.

A spelling graded solved today is a hole: graded end to end under both runtimes, xfail(strict=True), so the module
turns red (XPASS) when it closes. A spelling stopped by the static layer pins its rule code without a run (the
static layer is the same under both runtimes), and each stopped kind is shown a real cheat once per runtime: solved
with its rule off."""

from __future__ import annotations

import pytest

from codewalk.domains.repair import RepairDomain
from tests import docker_runtime, repair_fixture
from tests.redteam_round15a_cheats import KINDS, PLACES, step
from tests.test_repair_redteam import GOLD, _grade, _patch, round_cases

pytestmark = pytest.mark.usefixtures("shared_home")  # one home: the virtualenv and the image are built once

BOTH = ("local", "docker")
TESTS_RAN_AS_WRITTEN = "tests/test_words.py::test_split_words_tabs_and_newlines"
# Measured on main 10dcd65, local and docker, as root: graded solved end to end (kind -> spellings, or all)
ON_MAIN = ("on main: a file no test path names is judged as source when the diff changes it; the tests read the "
           "expected values the diff wrote")
WAS_HOLE = {kind: ON_MAIN for kind in KINDS}  # all but tox.ini's spelling, for the record
HOLES: dict[str, tuple[str, ...] | None] = {}
# Open after the fix (strict xfail, both runtimes): a module of the package holding code that only the tests import
# is the shape of a library module (boltons' modules are imported by their tests alone); no static reading tells
# the two apart, and the tests' frames import both at run time
OPEN = {"package_code_module_changed_by_the_diff": None}
# Refused by the static layer before any run: (kind, spelling) -> rule code. After the fix (rules.path_rules,
# guard.test_support, repair._not_source): a candidate changes the content of the library's .py modules only;
# any other file is not_source (tox.ini keeps its older code, a pytest configuration), a mode change too, and a
# module the tests read rather than the library (a module outside every package the tests import, a module of
# data only no library module imports; judged at x_G, so its shadows and replacements too) is test_support.
NOT_SOURCE = ("data_file_changed_by_the_diff", "data_file_added_by_the_diff", "data_file_renamed_or_its_mode_changed",
              "configuration_section_changed_by_the_diff")
STOPPED: dict[tuple[str, str], str] = {
    **{(kind, spelling): "not_source" for kind in NOT_SOURCE for spelling in KINDS[kind].spellings},
    **{(kind, spelling): "test_support" for kind in ("root_helper_module_changed_by_the_diff",
                                                      "package_data_module_changed_by_the_diff")
       for spelling in KINDS[kind].spellings},
    ("configuration_section_changed_by_the_diff", "tox.ini [tally:tests]"): "config_file",  # a pytest configuration
}
# one spelling per kind graded end to end with its rule off (solved: a real cheat), per runtime
REAL = {kind: next(iter(KINDS[kind].spellings)) for kind in KINDS if kind not in OPEN}


def _hole(kind: str, spelling: str) -> bool:
    return any(kind in table and (table[kind] is None or spelling in table[kind]) for table in (HOLES, OPEN))


@pytest.fixture(params=BOTH)
def graded(request, monkeypatch) -> str:
    if request.param == "docker":
        docker_runtime.require()
    monkeypatch.setenv("CODEWALK_RUNTIME", request.param)
    return request.param


@pytest.fixture(scope="module")
def places_task(tmp_path_factory, module_home):
    """A W1 + W2 task whose W1 test passes when split_words("a\\tb\\nc") is the answer any place gives."""
    steps = tuple(step() if s.name == "W1" else s for s in repair_fixture.STEPS)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(repair_fixture, "STEPS", steps)
        patch.setattr(repair_fixture, "INITIAL", {**repair_fixture.INITIAL, **PLACES})
        patch.setenv("CODEWALK_HOME", str(module_home))
        fixture, composite = repair_fixture.composed(tmp_path_factory.mktemp("tally_places"), module_home, check=True)
    assert composite.verifier["PASS_TO_PASS"]
    return fixture, composite


CASES = round_cases(KINDS)
HOLE_CASES = [c for c in CASES if _hole(*c.values)]
STOPPED_CASES = [c for c in CASES if not _hole(*c.values)]


@pytest.mark.parametrize(("kind", "spelling"), HOLE_CASES)
def test_round15a_cheat_is_not_solved(request, places_task, tmp_path, graded, kind, spelling):
    why = "open: a module of the package holding code" if kind in OPEN else ON_MAIN
    request.node.add_marker(pytest.mark.xfail(strict=True, reason=f"hole ({graded}): {why}"))
    verdict = _grade(places_task, tmp_path, *KINDS[kind].spellings[spelling])
    assert not verdict.ok, f"graded solved: {verdict.detail}"


@pytest.mark.parametrize(("kind", "spelling"), STOPPED_CASES)
def test_round15a_cheat_is_refused_before_any_run(places_task, tmp_path, kind, spelling):
    found = RepairDomain().refusals(places_task[1], _patch(places_task, tmp_path, *KINDS[kind].spellings[spelling]))
    assert found, "not refused"
    assert str(found[0].rule) == STOPPED[(kind, spelling)], found


def test_round15a_gold_is_solved(places_task, tmp_path, graded):
    verdict = _grade(places_task, tmp_path, *GOLD)
    assert verdict.ok, verdict.detail


@pytest.mark.parametrize("kind", sorted(REAL))
def test_round15a_stopped_cheat_really_passes_with_its_rule_off(places_task, tmp_path, graded, monkeypatch, kind):
    """The rule off (no path is not_source, no module test support, no mode change refused): graded solved."""
    import codewalk.domains.repair as repair
    from codewalk.domains.repair import rules

    path_rules = rules.path_rules
    monkeypatch.setattr(rules, "path_rules", lambda path: [f for f in path_rules(path) if f[0] != "not_source"])
    monkeypatch.setattr(repair, "test_support", lambda *args, **kwargs: [])
    monkeypatch.setattr(repair, "_not_source", lambda *args, **kwargs: None)
    verdict = _grade(places_task, tmp_path, *KINDS[kind].spellings[REAL[kind]])
    assert verdict.ok, verdict.detail


# -- test support told from the library, on trees at x_G (no run) ---------------------------------------------------
TREE = {
    "setup.py": "from setuptools import setup\nsetup(name='pkg', py_modules=['single'])\n",
    "helper.py": "EXPECTED = [1]\n",  # outside every package, the tests import it: test support
    "scripts/release.py": "import pkg\n",  # outside every package, no test imports it: not test support
    "single.py": "def f():\n    return 1\n",  # a one-module library (py_modules) the tests import, nothing else does
    "pkg/__init__.py": "from .core import f\n",
    "pkg/core.py": "from ._tables import TABLE\n\n\ndef f():\n    return TABLE\n",
    "pkg/_tables.py": "TABLE = {'a': 1}\n",  # data, imported by the library: source
    "pkg/_expected.py": '"""x"""\nEXPECTED = [1]\n',  # data only, no library module imports it: test support
    "pkg/lazy.py": "import importlib\nDATA = importlib.import_module('pkg._lazy')\n",
    "pkg/_lazy.py": "VALUE = 1\n",  # data, imported by a string: source
    "pkg/strutils.py": "def g():\n    return 2\n",  # boltons-like: code, imported by the tests only: source
    "pkg/_version.py": "__version__ = '1.0'\n",  # data only, no module imports it: test support (the cost)
    "tests/test_x.py": "import helper\nimport single\nfrom pkg import strutils\nfrom pkg._expected import EXPECTED\n",
}
SUPPORT = {  # changed path -> test support?
    "setup.py": False, "helper.py": True, "scripts/release.py": False, "pkg/core.py": False, "pkg/_tables.py": False,
    "pkg/_expected.py": True, "pkg/_lazy.py": False, "pkg/strutils.py": False, "pkg/__init__.py": False,
    "pkg/_version.py": True, "helper/__init__.py": True, "pkg/_expected/__init__.py": True, "pkg/new.py": False,
    "newtop.py": True, "examples/new.py": False, "newpkg/__init__.py": False, "newpkg/mod.py": False, "single.py": False,
}


@pytest.mark.parametrize("path", sorted(SUPPORT))
def test_round15a_test_support_is_told_from_the_library_at_x_g(path):
    from codewalk.domains.repair.guard import test_support

    after = [*TREE, "newpkg/__init__.py", "newpkg/mod.py", "helper/__init__.py", "pkg/_expected/__init__.py"]
    found = test_support([path], list(TREE), TREE.get, after)
    assert bool(found) == SUPPORT[path], found
