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
