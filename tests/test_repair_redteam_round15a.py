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
HOLES: dict[str, tuple[str, ...] | None] = {kind: None for kind in KINDS if kind != "configuration_section_changed_by_the_diff"}
HOLES["configuration_section_changed_by_the_diff"] = ("setup.cfg [tally:tests]", "pyproject.toml [tool.tally.tests]")
# Refused by the static layer on main, before any run: (kind, spelling) -> rule code
STOPPED: dict[tuple[str, str], str] = {
    ("configuration_section_changed_by_the_diff", "tox.ini [tally:tests]"): "config_file",  # a pytest configuration
}


def _hole(kind: str, spelling: str) -> bool:
    return kind in HOLES and (HOLES[kind] is None or spelling in HOLES[kind])


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
    request.node.add_marker(pytest.mark.xfail(strict=True, reason=f"hole ({graded}): {ON_MAIN}"))
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
