"""`cw release repair` on the tally fixture (tests/repair_fixture.py): tasks split by repository, SWE-bench rows,
the same bytes from two stores, and `cw release verify` running every reference through V_G."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from codewalk import release
from codewalk.loading import load
from codewalk.splits import Splits
from codewalk.store import open_store
from tests import repair_fixture
from tests.run_cw import cw

pytestmark = pytest.mark.usefixtures("shared_home")  # one home: the virtualenv is built once

PLAN = "seed = 4\n[levels]\n1 = 3\n2 = 2\n[splits]\nunit = \"repository\"\ntrain = 5\n"


@pytest.fixture(scope="module")
def built(tmp_path_factory, module_home) -> Path:
    """The fixture's release built in two stores (a/out, b/out) from the same rows and clones."""
    root = tmp_path_factory.mktemp("tally")
    fixture = repair_fixture.build(root)
    rows = fixture.write_rows(root / "rows.jsonl")
    (root / "plan.toml").write_text(PLAN)
    plan = release.read_plan("repair", root / "plan.toml")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("CODEWALK_HOME", str(module_home))
        for name in ("a", "b"):
            (root / name).mkdir()
            with open_store(root / name / "graph.lbug") as store:
                load(store, "repair", rows, {"repos": str(fixture.repos)})
                release.build(store, plan, root / name / "out", workers=2)
    return root


def test_a_repair_release_is_byte_identical_from_two_stores_and_keeps_the_repository_in_one_split(built):
    a, b = built / "a" / "out", built / "b" / "out"
    files = sorted(p.relative_to(a).as_posix() for p in a.rglob("*") if p.is_file())
    assert "repair/train.parquet" in files
    for name in files:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    splits = Splits.read(a / "splits.json")
    assert splits.unit == "repository" and splits.units == {"train": [repair_fixture.REPO]}
    manifest = json.loads((a / "manifest.json").read_text())
    assert manifest["inputs"]["graph"]["atoms"] == len(repair_fixture.BUGS)
    assert manifest["images"] and all(i["name"].startswith("codewalk-env/") for i in manifest["images"])
    # every atom must matter (repair's default): each admitted pair's reference failed V_G without either fix
    # every released task's reference was run through today's V_G again before the draw, and passed
    assert all(level["rechecked"] >= level["released"] and level["stale"] == 0 for level in manifest["levels"])
    two = next(level for level in manifest["levels"] if level["n"] == 2)
    assert two["checked"] >= 2 and two["checked"] - two["not_needed"] >= two["released"] == 2


def test_repair_release_rows_are_swe_bench_instances(built):
    rows = pq.read_table(built / "a" / "out" / "repair" / "train.parquet").to_pylist()
    assert sorted(r["level"] for r in rows) == [1, 1, 1, 2, 2]
    for row in rows:
        assert row["repo"] == repair_fixture.REPO and row["instance_id"] == row["id"]
        assert row["patch"] == row["reference"] and row["base_commit"] and row["image_name"]
        assert row["created_at"].startswith("2024-")  # SWE-bench's: the fix date, from the inputs
        assert json.loads(row["FAIL_TO_PASS"]) if isinstance(row["FAIL_TO_PASS"], str) else row["FAIL_TO_PASS"]
    card = (built / "a" / "out" / "README.md").read_text()
    assert "## Release" in card and repair_fixture.REPO in card


def test_verify_runs_every_repair_reference_through_v_g(built, capsys):
    code, out, err = cw(capsys, "release", "verify", str(built / "a" / "out"), "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["ok"] and len(report["tasks"]) == 5
    assert {t["status"] for t in report["tasks"]} == {"passed"}
