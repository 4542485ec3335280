"""What the harness's test process looks like to honest tests, under both runtimes (issue 51): the same
sys.path as plain `pytest` once pytest has loaded (a tests package imports its own modules, the harness's
folder is on no path), and syntax trees parsed in two threads at once (pytest formatting a failure while a
thread formats a traceback) are no INTERNALERROR on the interpreters whose converter shares one counter.
Each runs through env.run_tests, as the grader runs the tests, in x_G of the tally fixture's W1 + W2."""

from __future__ import annotations

import pytest

from codewalk.domain import Settings
from codewalk.domains.repair import RepairDomain
from codewalk.domains.repair.env import EnvSpec, run_tests
from codewalk.records import Composite
from codewalk.runtime import build
from tests import docker_runtime, repair_fixture

pytestmark = pytest.mark.usefixtures("shared_home")  # one home: the virtualenv and the image are built once


@pytest.fixture(params=["local", "docker"])
def runtime(request) -> str:
    if request.param == "docker":
        docker_runtime.require()
    return request.param


@pytest.fixture(scope="module")
def task(tmp_path_factory, module_home) -> Composite:
    return repair_fixture.composed(tmp_path_factory.mktemp("tally"), module_home)[1]


def _run(task: Composite, runtime: str, files: dict[str, str], test: str, changed: tuple[str, ...] = ()):
    """files written on x_G, then one test run by the harness, as grade() runs it."""
    v = task.verifier
    domain = RepairDomain(settings=Settings(runtime=build(runtime)))
    with domain.worktrees.fresh(domain._mirror(v), v["base_commit"]) as tree:
        env = domain._env(v, EnvSpec.from_config(v["install_config"]), tree)
        assert tree.apply(v["test_patch"], ("strict",)) == "strict"
        x_g = tree.tree()
        for path, text in files.items():
            (tree.path / path).parent.mkdir(parents=True, exist_ok=True)
            (tree.path / path).write_text(text)
        return run_tests(env, tree, [test], "pytest", 300, config_from=x_g, changed=list(changed))


# The test compares its own sys.path with the one plain pytest (the environment's console script, started
# with the PYTHONPATH the tests see) gives a test of the same tree: equal, entry for entry.
PATHS_TEST = '''\
import json
import os
import subprocess
import sys

from tests.base import X


def test_sys_path_is_plain_pytests():
    assert X == "base"
    out = os.path.join(os.environ["HOME"], "inner-path.json")
    script = os.path.join(os.path.dirname(sys.executable), "pytest")
    done = subprocess.run([script, "-q", "-p", "no:cacheprovider", "tests/inner_paths.py"],
                          env={**os.environ, "INNER_OUT": out}, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    with open(out) as handle:
        plain = json.load(handle)
    assert sys.path == plain, (sys.path, plain)
    assert not [p for p in sys.path if os.path.isfile(os.path.join(p, "boot.py"))]
'''
INNER = '''\
import json
import os
import sys


def test_inner():
    with open(os.environ["INNER_OUT"], "w") as handle:
        json.dump(sys.path, handle)
'''


def test_a_tests_package_imports_its_own_modules_and_sys_path_is_plain_pytests(task, runtime):
    files = {"tests/__init__.py": "", "tests/base.py": 'X = "base"\n',
             "tests/conftest.py": "from tests.base import X  # noqa: F401\n",
             "tests/test_zz_paths.py": PATHS_TEST, "tests/inner_paths.py": INNER}
    test = "tests/test_zz_paths.py::test_sys_path_is_plain_pytests"
    run = _run(task, runtime, files, test)
    assert run.status == {test: "passed"}


# CPython 3.11.0-3.11.7 and 3.12.0-3.12.1 (gh-106905; the fixture's interpreter and the docker base image's,
# 3.11.2, among them): a finalizer run by the GC in the middle of one thread's conversion lets another
# thread's conversion reset the shared depth counter, and the first ends in SystemError. Under pytest the
# first one is its failure report (it parses the test's module), the second a thread's traceback (3.11's
# carets parse the line): an INTERNALERROR, no verdict. Reproduced directly, 20 times over.
RACE_TEST = '''\
import ast
import threading


class _Finalized:
    def __del__(self):
        sum(range(200))  # Python code the GC runs in the middle of a conversion


def test_two_threads_parse_at_once():
    source = "\\n".join(f"def f{i}(x):\\n    return [x + {i} for y in range(3) if y]" for i in range(1000))
    stop = []

    def other():
        while not stop:
            ast.parse("a[b] + c")

    thread = threading.Thread(target=other)
    thread.start()
    try:
        for _ in range(20):
            for _ in range(50):
                cycle = _Finalized()
                cycle.me = cycle
            del cycle
            ast.parse(source)
    finally:
        stop.append(True)
        thread.join()
'''


def test_syntax_trees_parsed_in_two_threads_at_once_keep_the_verdict(task, runtime):
    test = "tests/test_zz_parse.py::test_two_threads_parse_at_once"
    run = _run(task, runtime, {"tests/test_zz_parse.py": RACE_TEST}, test)
    assert run.status == {test: "passed"}

