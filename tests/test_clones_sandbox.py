"""What clone code can see (sandbox by allow-list). The harness JVM runs the dataset's methods and the
composites' snippets; a hostile method that checks whether a host path exists, or connects to the Neo4j
Bolt port, must find nothing: of the host only the system directories, the JDK, the clone cache and its
work directory. The harness build (javac) and its class-data run see no more.

One harness per module (compiled from scratch in a cache of its own, the jars copied from the user's).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from codewalk.domains.clones.java import JVM, CallUnit, Java, cache_root
from codewalk.runtime import sandbox
from tests.host_probes import host_places, loopback_port

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(not sandbox._bwrap_works() and not os.environ.get("CI"),
                                reason=f"this machine gives: {sandbox.isolation()}")
BOLT = 7687  # Neo4j's Bolt port on the host's loopback


@pytest.fixture(scope="module")
def calls() -> list[dict]:
    """Every sandbox.run the clone toolchain makes while the module's harness is built and used."""
    return []


@pytest.fixture(scope="module")
def java(tmp_path_factory, calls) -> Iterator[Java]:
    cache = tmp_path_factory.mktemp("cache") / "clones"
    if (cache_root() / "jars").exists():  # no download: the jars are the one thing taken from the user's cache
        shutil.copytree(cache_root() / "jars", cache / "jars")
    original = sandbox.run

    def recorded(cmd, **kw):
        calls.append({"cmd": cmd, **kw})
        return original(cmd, **kw)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sandbox, "run", recorded)
        java = Java(cache)
        java.harness()
        yield java


def _probe_source(places: dict[str, Path], ports: list[int]) -> str:
    """Candidate code: `probe` returns what it saw (a JSON list of names), `main` prints it."""
    checks = "".join(f'        if (new File({json.dumps(str(p))}).exists()) seen.add({json.dumps(what)});\n'
                     for what, p in places.items())
    connects = "".join(f"        connect(seen, {port});\n" for port in ports)
    return ("import java.io.File;\nimport java.net.InetSocketAddress;\nimport java.net.Socket;\n"
            "import java.util.ArrayList;\nimport java.util.List;\n\n"
            "class Probe {\n"
            "    static String probe(int n) {\n        List<String> seen = new ArrayList<>();\n" + checks +
            "        String here = new File(System.getProperty(\"user.dir\")).getName();\n"
            "        String[] tmp = new File(\"/tmp\").list();\n"
            "        if (tmp != null) for (String name : tmp) if (!name.equals(here)) seen.add(\"/tmp/\" + name);\n"
            + connects +
            "        StringBuilder out = new StringBuilder(\"[\");\n"
            "        for (String s : seen) out.append(out.length() > 1 ? \",\" : \"\").append('\"').append(s).append('\"');\n"
            "        return out.append(\"]\").toString();\n    }\n\n"
            "    static void connect(List<String> seen, int port) {\n"
            "        try (Socket s = new Socket()) {\n"
            "            s.connect(new InetSocketAddress(\"127.0.0.1\", port), 2000);\n"
            "            seen.add(\"port \" + port);\n"
            "        } catch (Exception refused) {\n        }\n    }\n\n"
            "    public static void main(String[] args) {\n        System.out.println(probe(0));\n    }\n}\n")


def _allowed_tmp(java: Java) -> set[str]:
    """What of /tmp a run may list besides its own folder: the top folder of the clone cache, when it is there."""
    parts = java.cache.parts
    return {f"/tmp/{parts[2]}"} if parts[1:2] == ("tmp",) else set()


def test_clone_code_in_the_harness_sees_none_of_the_host_nor_the_bolt_port(java, tmp_path):
    with host_places(tmp_path) as places, loopback_port() as port:
        source = _probe_source(places, [BOLT, port])
        unit = CallUnit({"Probe.java": source}, (("Probe", "probe"), ("Probe", "probe")), ("int",), [[0]])
        [result] = java.calls([unit], 10_000)
    assert result.errors is None, result.errors
    out = result.outcomes[0]["out"][0]
    assert out.startswith("r:"), out
    seen = set(json.loads(json.loads(out[2:])))
    assert not seen - _allowed_tmp(java), f"visible to clone code: {sorted(seen - _allowed_tmp(java))}"


def test_a_jvm_under_the_harness_view_without_its_guard_sees_none_of_the_host_nor_the_bolt_port(java, tmp_path):
    """The sandbox alone (no security manager in the way): the same view as the harness JVM's."""
    with host_places(tmp_path) as places, loopback_port() as port, sandbox.workdir() as work:
        (work / "Probe.java").write_text(_probe_source(places, [BOLT, port]))
        done = java.isolated([java.java, *JVM, "Probe.java"], cwd=work, timeout=120, writable=[java.cache])
    assert done.returncode == 0, done.stderr
    seen = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert not seen - _allowed_tmp(java), f"visible to a JVM under the harness view: {sorted(seen - _allowed_tmp(java))}"


def test_every_javac_and_jvm_run_of_the_clone_toolchain_is_allow_listed(java, calls):
    """The harness build (javac), its class-data run and the harness JVM: isolated, and what each sees is the
    JDK, the clone cache and its work directory; never the checkout the harness sources ship in, nor $HOME."""
    java.calls([CallUnit({"A.java": "class A {\n    static int f(int x) { return x; }\n}\n"}, (("A", "f"), ("A", "f")),
                         ("int",), [[1]])])
    runs = [c for c in calls if Path(c["cmd"][0]).name != "mvn"]  # fetching the jars: the one unisolated step
    assert {"javac", "java"} <= {Path(c["cmd"][0]).name for c in runs} and len(runs) >= 3  # build, archive, harness
    cache = java.cache.resolve()
    for c in runs:
        assert c.get("isolate", True) and c.get("sees") is not None, c["cmd"][:3]
        for seen in c["sees"]:
            assert Path(seen).resolve() == java.jdk or Path(seen).resolve().is_relative_to(cache), seen
        for writable in c.get("writable", ()):
            assert Path(writable).resolve().is_relative_to(cache), writable
        cwd = Path(c["cwd"]).resolve()
        assert cwd.is_relative_to(cache) or (cwd.parent == Path(tempfile.gettempdir()).resolve()
                                             and cwd.name.startswith("codewalk-")), cwd  # a fresh work directory
        assert not any(str(REPO) in arg for arg in c["cmd"]), c["cmd"]  # javac reads its copy in the cache
