"""cypher/ and loaders/ ship inside the codewalk distribution; nothing installs a top-level module
named `cypher` or `loaders`."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_wheel_holds_only_the_codewalk_package_with_its_queries_and_data(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(tmp_path), str(ROOT)],
                   check=True, capture_output=True)
    names = zipfile.ZipFile(next(tmp_path.glob("codewalk-*.whl"))).namelist()
    assert {n.split("/")[0] for n in names} == {"codewalk", next(n.split("/")[0] for n in names if ".dist-info" in n)}
    shipped = {n.removeprefix("codewalk/") for n in names}
    for query in ROOT.glob("cypher/**/*.cypher"):
        assert f"cypher/{query.relative_to(ROOT / 'cypher')}" in shipped
    assert "cypher/codewalk.grass" in shipped  # the Browser style `cw tasks show --browser` sends
    for data in ROOT.glob("loaders/*.jsonl"):
        assert f"loaders/{data.name}" in shipped
    assert "datasets.json" in shipped  # the dataset pins `cw data` checks against
    harness = list(ROOT.glob("codewalk/domains/clones/harness/*.java"))  # the clone domain compiles these at first use
    assert harness and all(f"domains/clones/harness/{java.name}" in shipped for java in harness)
    harness = list(ROOT.glob("codewalk/domains/repair/harness/*.py"))  # copied into every repair test run
    assert harness and all(f"domains/repair/harness/{script.name}" in shipped for script in harness)


def test_the_test_extra_bounds_boto3_to_the_botocore_that_aiobotocore_allows():
    """inspect_ai needs boto3 (any release) and, through s3fs, aiobotocore, which pins botocore to a few
    releases; a boto3 release needs its own botocore. Unbounded, pip tried every boto3 release newer than
    the one that fits (23 of them). The bound must admit a boto3 whose botocore aiobotocore accepts."""
    import tomllib
    from importlib.metadata import requires, version

    from packaging.requirements import Requirement

    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    bound = next((Requirement(r).specifier for r in extra if Requirement(r).name == "boto3"), None)
    assert bound and any(s.operator in ("<", "<=", "==", "~=") for s in bound), "boto3 has no upper bound"
    botocore = next(Requirement(r).specifier for r in requires("aiobotocore") or []
                    if Requirement(r).name == "botocore")
    assert version("boto3") in bound and version("botocore") in botocore
