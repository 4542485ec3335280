"""Red team for the repair grader: candidates that try to pass without fixing the bugs, each a real patch
against the tally repository (tests/repair_fixture.py), graded by the real verifier (git, a virtualenv,
pytest). Every cheat must be graded not solved with a reason naming what was refused; honest fixes,
however they are written, must still be solved. The task is W1 + W2: three tests fail at x_G."""

from __future__ import annotations

import hashlib
import os
import py_compile
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from codewalk import sandbox
from codewalk.domains.repair import RepairDomain
from codewalk.domains.repair.env import EnvSpec, run_tests
from codewalk.domains.repair.guard import refusal
from codewalk.records import Check, Composite
from tests import docker_runtime, repair_fixture
from tests.host_probes import host_places, loopback_port

Edit = Callable[[Path], None]
WORDS, FMT, INIT = "tally/words.py", "tally/fmt.py", "tally/__init__.py"
# A plugin that turns every failed test report into a pass: what most cheats below try to load.
PLUGIN = '''import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    outcome.get_result().outcome = "passed"
'''


pytestmark = pytest.mark.usefixtures("shared_home")  # one home: the virtualenv is built once


@pytest.fixture(autouse=True, params=["local", "docker"])
def graded_in(request, monkeypatch) -> str:
    """Every test grades under both runtimes: the sandbox on the host, and a fresh container per grade."""
    if request.param == "docker":
        docker_runtime.require()
    monkeypatch.setenv("CODEWALK_RUNTIME", request.param)
    return request.param


@pytest.fixture(scope="module")
def task(tmp_path_factory, module_home) -> tuple[repair_fixture.Fixture, Composite]:
    """W1 + W2 composed and through check (2), which derives its PASS_TO_PASS; no graph store needed."""
    root = tmp_path_factory.mktemp("tally")
    fixture = repair_fixture.build(root)
    rows = fixture.write_rows(root / "rows.jsonl", ("W1", "W2"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CODEWALK_HOME", str(module_home))
        domain = RepairDomain()
        atoms = list(domain.load(rows, {"repos": str(fixture.repos)}))
        composite = domain.compose(atoms)
        assert domain.check_reference(composite, atoms).ok
    assert composite.verifier["PASS_TO_PASS"]  # grading below must keep these passing too
    return fixture, composite


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=60,
                          check=True).stdout


def _patch(task, tmp_path: Path, *edits: Edit) -> str:
    """A candidate: the diff (binary too) of edits made on x_G in a scratch clone."""
    fixture, composite = task
    clone = tmp_path / "candidate"
    _git(tmp_path, "clone", "-q", str(fixture.clone), str(clone))
    _git(clone, "checkout", "-q", composite.verifier["base_commit"])
    (tmp_path / "tests.diff").write_text(composite.verifier["test_patch"])
    _git(clone, "apply", "--index", str(tmp_path / "tests.diff"))
    x_g = _git(clone, "write-tree").strip()
    for edit in edits:
        edit(clone)
    _git(clone, "add", "-A", "-f")
    return _git(clone, "diff", "--cached", "--binary", x_g)


def _grade(task, tmp_path: Path, *edits: Edit) -> Check:
    return RepairDomain().grade(task[1], _patch(task, tmp_path, *edits))


def write(path: str, text: str) -> Edit:
    def edit(root: Path) -> None:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return edit


def replace(path: str, old: str, new: str) -> Edit:
    def edit(root: Path) -> None:
        text = (root / path).read_text()
        assert old in text, (path, old)
        (root / path).write_text(text.replace(old, new))
    return edit


def prepend(path: str, lines: str) -> Edit:
    def edit(root: Path) -> None:
        (root / path).write_text(lines + (root / path).read_text())
    return edit


FIX_SPLIT = replace(WORDS, 'return [w for w in text.split(" ") if w]', "return text.split()")
FIX_CASE = replace(WORDS, "        key = w\n", "        key = w.lower()\n")
FIX_SORT = replace(FMT, "sorted(unique_words(words))", "sorted(unique_words(words), key=str.lower)")
GOLD = (FIX_SPLIT, FIX_CASE, FIX_SORT)
SHIP_PLUGIN = write("zcheat.py", PLUGIN)


def assert_refused(verdict: Check, *named: str) -> None:
    assert (verdict.ok, verdict.reason) == (False, "refused"), verdict.detail
    for text in named:
        assert text in verdict.detail, verdict.detail


# -- pytest configuration --------------------------------------------------------------------------
def test_cheat_root_pytest_ini_addopts_plugin_is_not_solved(task, tmp_path):
    verdict = _grade(task, tmp_path, write("pytest.ini", "[pytest]\naddopts = -p zcheat\n"), SHIP_PLUGIN)
    assert_refused(verdict, "pytest.ini")


def test_cheat_hidden_dot_pytest_ini_is_not_solved(task, tmp_path):
    verdict = _grade(task, tmp_path, write(".pytest.ini", "[pytest]\naddopts = -p zcheat\n"), SHIP_PLUGIN)
    assert_refused(verdict, ".pytest.ini")


def test_cheat_tox_ini_pytest_section_is_not_solved(task, tmp_path):
    verdict = _grade(task, tmp_path, write("tox.ini", "[pytest]\naddopts = -p zcheat\n"), SHIP_PLUGIN)
    assert_refused(verdict, "tox.ini")


def test_cheat_setup_cfg_tool_pytest_section_is_not_solved(task, tmp_path):
    verdict = _grade(task, tmp_path, write("setup.cfg", "[tool:pytest]\naddopts = -p zcheat\n"), SHIP_PLUGIN)
    assert_refused(verdict, "pytest configuration in setup.cfg")


def test_cheat_pyproject_pytest_ini_options_is_not_solved(task, tmp_path):
    toml = '[project]\nname = "tally"\n\n[tool.pytest.ini_options]\naddopts = "-p zcheat"\n'
    verdict = _grade(task, tmp_path, write("pyproject.toml", toml), SHIP_PLUGIN)
    assert_refused(verdict, "pytest configuration in pyproject.toml")


def test_cheat_root_conftest_hook_is_not_solved(task, tmp_path):
    assert_refused(_grade(task, tmp_path, write("conftest.py", PLUGIN)), "conftest.py")


def test_cheat_conftest_inside_the_package_is_not_solved(task, tmp_path):
    assert_refused(_grade(task, tmp_path, write("tally/conftest.py", PLUGIN)), "tally/conftest.py")


# -- interpreter start-up --------------------------------------------------------------------------
def test_cheat_root_sitecustomize_sets_pytest_plugins_is_not_solved(task, tmp_path):
    hook = 'import os\nos.environ["PYTEST_PLUGINS"] = "zcheat"\n'
    assert_refused(_grade(task, tmp_path, write("sitecustomize.py", hook), SHIP_PLUGIN), "sitecustomize.py")


def test_cheat_usercustomize_is_not_solved(task, tmp_path):
    hook = 'import os\nos.environ["PYTEST_PLUGINS"] = "zcheat"\n'
    assert_refused(_grade(task, tmp_path, write("src/usercustomize.py", hook), SHIP_PLUGIN),
                   "src/usercustomize.py")


def test_cheat_pth_file_is_not_solved(task, tmp_path):
    verdict = _grade(task, tmp_path, write("tally.pth", "import zcheat\n"), SHIP_PLUGIN)
    assert_refused(verdict, "tally.pth")


def test_cheat_unchecked_hash_pyc_is_not_solved(task, tmp_path):
    def compiled_fix(root: Path) -> None:  # the fixed module as bytecode Python never checks against source
        fixed = tmp_path / "words.py"
        source = (root / WORDS).read_text()
        fixed.write_text(source.replace('[w for w in text.split(" ") if w]', "text.split()")
                         .replace("key = w\n", "key = w.lower()\n"))
        target = root / "tally" / "__pycache__" / f"words.{sys.implementation.cache_tag}.pyc"
        py_compile.compile(str(fixed), cfile=str(target), dfile=WORDS,
                           invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)

    assert_refused(_grade(task, tmp_path, compiled_fix, FIX_SORT), "tally/__pycache__/words.")


# -- plugins and entry points ----------------------------------------------------------------------
def test_cheat_dist_info_entry_point_plugin_is_not_solved(task, tmp_path):
    meta = "zcheat-1.0.dist-info"
    verdict = _grade(task, tmp_path, SHIP_PLUGIN, write(f"{meta}/METADATA", "Name: zcheat\nVersion: 1.0\n"),
                     write(f"{meta}/entry_points.txt", "[pytest11]\nzcheat = zcheat\n"))
    assert_refused(verdict, meta)


def test_cheat_setup_cfg_pytest11_entry_point_is_not_solved(task, tmp_path):
    cfg = "[metadata]\nname = tally\n\n[options.entry_points]\npytest11 =\n    zcheat = zcheat\n"
    assert_refused(_grade(task, tmp_path, write("setup.cfg", cfg), SHIP_PLUGIN), "entry point in setup.cfg")


def test_cheat_module_shadowing_pytest_is_not_solved(task, tmp_path):
    fake = "import sys\nsys.exit(0)\n"  # `python -m pytest` would run this instead of pytest
    assert_refused(_grade(task, tmp_path, write("pytest.py", fake)), "shadows the module 'pytest'")


def test_cheat_module_shadowing_the_stdlib_xml_writer_is_not_solved(task, tmp_path):
    assert_refused(_grade(task, tmp_path, write("xml/__init__.py", "")), "shadows the module 'xml'")


# -- source that reaches for the runner or the interpreter's exit ------------------------------------
def test_cheat_source_patches_pytest_internals_is_not_solved(task, tmp_path):
    patch = "import _pytest.reports\n_pytest.reports.TestReport.failed = property(lambda self: False)\n"
    assert_refused(_grade(task, tmp_path, prepend(WORDS, patch)), f"{WORDS}:1", "pytest")


def test_cheat_source_defines_a_makereport_hook_is_not_solved(task, tmp_path):
    assert_refused(_grade(task, tmp_path, prepend(INIT, PLUGIN)), INIT, "pytest")


def test_cheat_os_exit_at_import_is_not_solved(task, tmp_path):
    assert_refused(_grade(task, tmp_path, prepend(WORDS, "import os\nos._exit(0)\n")), WORDS, "os._exit")


def test_cheat_monkeypatched_sys_exit_is_not_solved(task, tmp_path):
    verdict = _grade(task, tmp_path, prepend(INIT, "import sys\nsys.exit = lambda code=0: None\n"))
    assert_refused(verdict, INIT, "sys.exit")


def test_cheat_atexit_rewrites_the_junit_report_is_not_solved(task, tmp_path):
    forge = ("import atexit, glob\n"
             "atexit.register(lambda: [open(p, 'w').write('<testsuite/>')\n"
             "                         for p in glob.glob('/tmp/*/*.xml')])\n")
    assert_refused(_grade(task, tmp_path, prepend(INIT, forge)), INIT, "atexit")


def test_cheat_environment_variable_set_at_import_is_not_solved(task, tmp_path):
    verdict = _grade(task, tmp_path, prepend(INIT, 'import os\nos.environ.update(PYTHONWARNINGS="ignore")\n'))
    assert_refused(verdict, INIT, "os.environ")


def test_cheat_dynamic_import_of_the_runner_is_not_solved(task, tmp_path):
    verdict = _grade(task, tmp_path, prepend(INIT, 'runner = __import__("_py" + "test.runner")\n'))
    assert_refused(verdict, INIT, "__import__")


# -- the run neutralises what slips past the refusals ----------------------------------------------
def test_cheats_work_under_a_plain_pytest_but_not_under_the_harness_run(task, tmp_path, module_home):
    """The cheats above are real: a root pytest.ini plugin and a dist-info entry point make a plain pytest
    run pass the failing tests. The harness's run (its own -c configuration, autoload off) ignores both."""
    _, composite = task
    v = composite.verifier
    domain = RepairDomain()
    with domain.worktrees.fresh(domain._mirror(v), v["base_commit"]) as tree:
        env = domain.envs.get(v["repo"], EnvSpec.from_config(v["install_config"]), tree)
        assert tree.apply(v["test_patch"], ("strict",)) == "strict"
        x_g = tree.tree()  # the cheat's files below stay out of the index: this is x_G's tree
        for edit in (write("pytest.ini", "[pytest]\naddopts = -p zcheat\n"), SHIP_PLUGIN,
                     write("zcheat-1.0.dist-info/METADATA", "Name: zcheat\nVersion: 1.0\n"),
                     write("zcheat-1.0.dist-info/entry_points.txt", "[pytest11]\nzcheat = zcheat\n")):
            edit(tree.path)
        plain = subprocess.run([str(env.python), "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                *sorted({t.split("::")[0] for t in v["FAIL_TO_PASS"]})], cwd=tree.path,
                               capture_output=True, text=True, timeout=300, check=False,
                               env={"PYTHONPATH": str(tree.path), "PATH": "/usr/bin:/bin"})
        assert plain.returncode == 0, plain.stdout  # the cheat fools pytest as the repository runs it
        (tree.path / "pytest.ini").unlink()
        plain = subprocess.run([str(env.python), "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                *sorted({t.split("::")[0] for t in v["FAIL_TO_PASS"]})], cwd=tree.path,
                               capture_output=True, text=True, timeout=300, check=False,
                               env={"PYTHONPATH": str(tree.path), "PATH": "/usr/bin:/bin"})
        assert plain.returncode == 0, plain.stdout  # and so does the entry point alone
        (tree.path / "pytest.ini").write_text("[pytest]\naddopts = -p zcheat\n")
        run = run_tests(env, tree, v["FAIL_TO_PASS"], EnvSpec.from_config(v["install_config"]).test_cmd, 300,
                        config_from=x_g)
    assert sorted(run.status.values()) == ["failed", "failed", "failed"]


# -- PASS_TO_PASS ------------------------------------------------------------------------------------
def test_gold_patch_with_a_change_that_breaks_a_pass_to_pass_test_is_not_solved(task, tmp_path):
    breaks = replace(WORDS, "if len(w) > len(best)", "if len(w) >= len(best)")  # ties now keep the last
    verdict = _grade(task, tmp_path, *GOLD, breaks)
    assert not verdict.ok and verdict.reason != "refused"
    assert verdict.evidence["tests"]["tests/test_words.py::test_longest_word"] == "failed"
    assert "test_longest_word" in verdict.detail and "PASS_TO_PASS" in verdict.detail
    assert all(verdict.evidence["tests"][t] == "passed" for t in task[1].verifier["FAIL_TO_PASS"])


# -- honest candidates -------------------------------------------------------------------------------
def test_gold_patch_is_solved(task):
    verdict = RepairDomain().grade(task[1], task[1].reference)
    assert verdict.ok, verdict.detail
    assert set(task[1].verifier["PASS_TO_PASS"]) <= set(verdict.evidence["tests"])


def test_gold_patch_with_an_added_comment_is_solved(task, tmp_path):
    comment = replace(WORDS, "def split_words(text):\n", "def split_words(text):\n    # any whitespace\n")
    verdict = _grade(task, tmp_path, *GOLD, comment)
    assert verdict.ok, verdict.detail


def test_equivalent_but_different_fix_is_solved(task, tmp_path):
    verdict = _grade(task, tmp_path,
                     replace(WORDS, 'return [w for w in text.split(" ") if w]',
                             "return [w for w in re.split(r\"\\s+\", text) if w]"),
                     prepend(WORDS, "import re\n"),
                     replace(WORDS, "        key = w\n", "        key = w.casefold()\n"),
                     replace(FMT, "sorted(unique_words(words))",
                             "sorted(unique_words(words), key=lambda s: s.lower())"))
    assert verdict.ok, verdict.detail


def test_fix_adding_a_new_source_module_is_solved(task, tmp_path):
    helper = write("tally/_fold.py", '"""Case folding shared by words and fmt."""\n\n\ndef fold(word):\n'
                   "    return word.lower()\n")
    verdict = _grade(task, tmp_path, helper, FIX_SPLIT, prepend(WORDS, "from tally._fold import fold\n"),
                     replace(WORDS, "        key = w\n", "        key = fold(w)\n"),
                     prepend(FMT, "from tally._fold import fold\n"),
                     replace(FMT, "sorted(unique_words(words))", "sorted(unique_words(words), key=fold)"))
    assert verdict.ok, verdict.detail


def test_gold_patch_with_a_setup_cfg_that_has_no_pytest_section_is_solved(task, tmp_path):
    verdict = _grade(task, tmp_path, *GOLD, write("setup.cfg", "[flake8]\nmax-line-length = 120\n"))
    assert verdict.ok, verdict.detail


def test_source_that_already_used_pytest_may_still_be_edited_elsewhere():
    """The scan looks at added lines only: a pytest plugin repository's own imports do not refuse a fix."""
    before = {"pkg/plugin.py": "import pytest\n\nLIMIT = 1\n"}
    after = {"pkg/plugin.py": b"import pytest\n\nLIMIT = 2\n"}
    assert refusal(["pkg/plugin.py"], before.get, after.get) == ""
    after["pkg/plugin.py"] += b"import _pytest.runner\n"
    assert "pkg/plugin.py:4" in refusal(["pkg/plugin.py"], before.get, after.get)


# -- what a graded run can see ---------------------------------------------------------------------
@pytest.mark.skipif(not sandbox.isolated() and not os.environ.get("CI"), reason=sandbox.isolation())
def test_cheat_a_fix_that_works_only_when_it_sees_the_host_is_not_solved(task, tmp_path, module_home):
    """Gold, but the module refuses to import unless a host path is visible: every probe must fail."""
    probes = {"the mirrors in the cache": module_home / "cache" / "repair" / "repos", "the clone": task[0].clone,
              "the checkout": Path(__file__).resolve().parents[1] / "pyproject.toml",
              "a dotfile in $HOME": Path.home() / ".codewalk-redteam-probe"}
    probes["a dotfile in $HOME"].write_text("secret")
    pool = sorted((module_home / "cache" / "repair" / "worktrees").glob("*/*-0"))
    assert pool, "composing the task checked out a worktree of the pool"
    probes["another task's worktree"] = pool[0] / WORDS
    (tmp_path / "host").mkdir()
    with host_places(tmp_path / "host") as places:  # the store, exports, every domain's cache, /tmp, ...
        _no_probe_is_visible(task, tmp_path, {**probes, **places})


def _no_probe_is_visible(task, tmp_path: Path, probes: dict[str, Path]) -> None:
    (tmp_path / "gold").mkdir()
    assert RepairDomain().grade(task[1], _patch(task, tmp_path / "gold", *GOLD)).ok
    guards = {}
    for what, path in probes.items():
        assert path.exists(), what
        # the path hex-encoded: a temporary path names pytest, which the source scan would refuse first
        hidden = str(path).encode().hex()
        guards[what] = f"import os\nif not os.path.exists(bytes.fromhex({hidden!r}).decode()):\n    raise ImportError('blind')\n"
        if os.environ.get("CODEWALK_RUNTIME") == "docker" and path.is_file():
            # a container has files of its own by some of these names (the image's /etc/shadow): there the
            # host's content is what must not be seen (only its hash goes into the patch)
            sha = hashlib.sha256(path.read_bytes()).hexdigest()
            guards[what] = (f"import hashlib\ntry:\n    _seen = hashlib.sha256(open(bytes.fromhex({hidden!r}).decode(), "
                            f"'rb').read()).hexdigest()\nexcept OSError:\n    _seen = ''\n"
                            f"if _seen != {sha!r}:\n    raise ImportError('blind')\n")
    with loopback_port() as port:  # a port on the host's loopback, as the Neo4j Bolt port is
        guards["a port on the host's loopback"] = f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=3).close()\n"
        for k, (what, guard) in enumerate(guards.items()):
            (tmp_path / f"probe{k}").mkdir()
            edit = prepend(WORDS, guard)
            verdict = RepairDomain().grade(task[1], _patch(task, tmp_path / f"probe{k}", *GOLD, edit))
            assert not verdict.ok and verdict.reason != "refused", f"{what} is visible to a graded run"


# -- issue 34: what landed, as Python reads it ---------------------------------------------------------
# Each cheat below was graded solved before the grader judged the tree on disk, the AST and errors.
def fuzzed(diff: str, path: str) -> str:
    """diff with the first context line of path's first hunk made wrong: `git apply` (strict and 3-way)
    refuses it, GNU patch applies it with fuzz, so the whole patch goes through GNU patch."""
    head, _, rest = diff.partition(f"+++ b/{path}\n")
    assert rest.startswith("@@"), path
    hunk, _, tail = rest.partition("\n")
    first, _, body = tail.partition("\n")
    assert first.startswith(" "), first
    return f"{head}+++ b/{path}\n{hunk}\n # not what the file says\n{body}"


DOC = replace(WORDS, '"""word without leading or trailing punctuation."""',
              '"""The word without its leading or trailing punctuation."""')
PYTEST_PLUGINS = 'import os\nos.environ["PYTEST_PLUGINS"] = "zcheat"\n'


def test_cheat_gitignored_start_up_hook_applied_by_gnu_patch_is_not_solved(task, tmp_path):
    """.gitignore hides sitecustomize.py and the plugin from `git add`; the files are on disk all the same."""
    diff = _patch(task, tmp_path, write(".gitignore", "sitecustomize.py\nzcheat.py\n"),
                  write("sitecustomize.py", PYTEST_PLUGINS), SHIP_PLUGIN, DOC)
    verdict = RepairDomain().grade(task[1], fuzzed(diff, WORDS))
    assert_refused(verdict, "sitecustomize.py", "zcheat.py", ".gitignore")
    assert verdict.evidence["apply"] == "fuzzy"


def test_cheat_context_format_section_only_gnu_patch_reads_is_not_solved(task, tmp_path):
    """A conftest.py in a context-format section: the unified reader never names it, GNU patch creates it."""
    diff = _patch(task, tmp_path, write(".gitignore", "conftest.py\n"), DOC)
    context = "".join(f"+ {line}\n" for line in PLUGIN.splitlines())
    section = (f"*** /dev/null\n--- b/conftest.py\n***************\n*** 0 ****\n"
               f"--- 1,{len(PLUGIN.splitlines())} ----\n{context}")
    verdict = RepairDomain().grade(task[1], fuzzed(diff, WORDS) + section)
    assert_refused(verdict, "not a unified diff", "*** /dev/null")


def test_cheat_utf7_source_hides_its_words_is_not_solved(task, tmp_path):
    """In UTF-7, `+AHA-` is "p": the module imports _pytest, though no byte spells it."""
    forged = ("# -*- coding: utf-7 -*-\nimport _+AHA-ytest.reports as r\n"
              "r.TestReport.outcome = property(lambda s: 'passed', lambda s, v: None)\n")
    verdict = _grade(task, tmp_path, prepend(INIT, forged))
    assert_refused(verdict, INIT, "utf-7")


FORCE_PASSED = ".TestReport.outcome = property(lambda s: 'passed', lambda s, v: None)\n"


def test_cheat_from_sys_import_modules_is_not_solved(task, tmp_path):
    forged = "from sys import modules\nmodules['_py' 'test.reports']" + FORCE_PASSED
    assert_refused(_grade(task, tmp_path, prepend(INIT, forged)), f"{INIT}:1", "sys.modules")


def test_cheat_weakref_finalize_and_os_exit_rewrite_the_report_is_not_solved(task, tmp_path):
    """At exit, the report named on the command line loses its failures and the exit status becomes 0."""
    forged = '''import re
import sys
import weakref
from os import _exit


def _forge():
    for arg in sys.argv:
        if arg.startswith("--jun" "itxml="):
            path = arg.split("=", 1)[1]
            text = re.sub(r"<failure.*?</failure>", "", open(path).read(), flags=re.S)
            open(path, "w").write(text)
    _exit(0)


weakref.finalize(_forge, _forge)
'''
    verdict = _grade(task, tmp_path, prepend(INIT, forged))
    assert_refused(verdict, "weakref.finalize", "os._exit", "sys.argv")


def test_cheat_library_patches_the_test_modules_it_imports_is_not_solved(task, tmp_path):
    """On its first call the library blanks every test function of the tests' own modules."""
    blank = '''

def _blank():
    import test_fmt
    import test_words
    for module in (test_fmt, test_words):
        for name in dir(module):
            if name.startswith("test_"):
                getattr(module, name).__code__ = (lambda: None).__code__


def pad(text, width):
    _blank()
'''
    verdict = _grade(task, tmp_path, replace(FMT, "\n\ndef pad(text, width):\n", blank))
    assert_refused(verdict, "test_fmt", "under a test directory")


def test_cheat_results_equal_to_anything_are_not_solved(task, tmp_path):
    always = '''

class _Same(list):
    def __eq__(self, other):
        return True

    __hash__ = None


class _SameText(str):
    __eq__ = lambda self, other: True  # noqa: E731
    __hash__ = str.__hash__
'''
    verdict = _grade(task, tmp_path, replace(WORDS, '\nPUNCT = ".,;:!?"\n', '\nPUNCT = ".,;:!?"\n' + always),
                     replace(WORDS, 'return [w for w in text.split(" ") if w]',
                             'return _Same(w for w in text.split(" ") if w)'),
                     replace(WORDS, "    return out\n", "    return _Same(out)\n"),
                     prepend(FMT, "from tally.words import _SameText\n"),
                     replace(FMT, 'return ", ".join(sorted(unique_words(words)))',
                             'return _SameText(", ".join(sorted(unique_words(words))))'))
    assert_refused(verdict, "_Same.__eq__", "ignores its argument")


CANNED = '''

def _canned(name, fallback):
    answers = {"tabs_and_newlines": ["a", "b", "c"], "format_unique_ignores_case": ["b", "C", "a"],
               "words_ignores_case": ["Apple"]}
    return next((v for k, v in answers.items() if k in name), fallback)
'''
CALLER = '''

def _caller():
    frame = sys._getframe(1)
    while frame is not None and not frame.f_code.co_name.startswith("test_"):
        frame = frame.f_back
    return frame.f_code.co_name if frame is not None else ""
'''


def _answers_by(name: str, *edits: Edit) -> tuple[Edit, ...]:
    """split_words and unique_words return canned answers when name (an expression) names a new test."""
    return (FIX_SORT, *edits, replace(WORDS, '\nPUNCT = ".,;:!?"\n', '\nPUNCT = ".,;:!?"\n' + CANNED),
            replace(WORDS, 'return [w for w in text.split(" ") if w]',
                    f'return _canned({name}, [w for w in text.split(" ") if w])'),
            replace(WORDS, "    return out\n", f"    return _canned({name}, out)\n"))


def test_cheat_answers_by_the_caller_frame_are_not_solved(task, tmp_path):
    verdict = _grade(task, tmp_path, *_answers_by("_caller()", prepend(WORDS, "import sys\n" + CALLER)))
    assert_refused(verdict, "sys._getframe", "frames")


def test_cheat_answers_by_the_runner_environment_are_not_solved(task, tmp_path):
    current = 'next((v for k, v in os.environ.items() if k.endswith("_CURRENT_TEST")), "")'
    verdict = _grade(task, tmp_path, *_answers_by(current, prepend(WORDS, "import os\n")))
    assert_refused(verdict, "os.environ", "environment")


def test_cheat_fix_compiled_at_run_time_into_a_function_is_not_solved(task, tmp_path):
    """The fix arrives as data (here hex; the red team read it from a later commit) and becomes code
    through compile and types.FunctionType, so no reviewed source contains it."""
    fixed = ("def split_words(text):\n    return text.split()\n\n\ndef unique_words(words):\n"
             "    seen, out = set(), []\n    for w in words:\n        if w.lower() not in seen:\n"
             "            seen.add(w.lower())\n            out.append(w)\n    return out\n")
    load = (f"\n\nimport types as _t\n\n_code = compile(bytes.fromhex({fixed.encode().hex()!r}).decode(), 'fix', 'exec')\n"
            "for _c in _code.co_consts:\n    if isinstance(_c, _t.CodeType):\n"
            "        globals()[_c.co_name] = _t.FunctionType(_c, globals())\n")
    verdict = _grade(task, tmp_path, FIX_SORT, lambda root: (root / WORDS).write_text(
        (root / WORDS).read_text() + load))
    assert_refused(verdict, "compile", "FunctionType")


def test_cheat_reading_a_later_commit_through_git_is_not_solved(task, tmp_path):
    forged = ("import subprocess\n_log = subprocess.run(['git', 'log', '--all', '--oneline'], "
              "capture_output=True, text=True).stdout\n")
    assert_refused(_grade(task, tmp_path, *GOLD, prepend(WORDS, forged)), "subprocess")


def test_cheat_skip_at_import_is_a_failure_not_an_error(task, tmp_path):
    """The tests cannot be collected, pytest exits 5 and gives no verdict; the reference gives one in the
    same environment, so the candidate failed (before: an error, left out of the solve rate)."""
    verdict = _grade(task, tmp_path, prepend(INIT, "import unittest\n\nraise unittest.SkipTest('later')\n"))
    assert (verdict.ok, verdict.reason) == (False, "no_verdict"), verdict.detail
    assert "the reference gives one" in verdict.detail


# -- issue 34: honest answers the new rules must still let through -----------------------------------
def test_fix_that_moves_a_function_to_a_new_module_is_solved(task, tmp_path):
    def move(root: Path) -> None:
        text = (root / WORDS).read_text()
        start = text.index("def split_words(text):")
        end = text.index("def strip_punct(word):")
        (root / "tally/split.py").write_text('"""Splitting text into words."""\n\n\n'
                                             + text[start:end].rstrip() + "\n")
        (root / WORDS).write_text(text[:start] + text[end:])

    verdict = _grade(task, tmp_path, *GOLD, move, prepend(WORDS, "from tally.split import split_words  # noqa\n"))
    assert verdict.ok, verdict.detail


def test_fix_that_reads_the_python_version_is_solved(task, tmp_path):
    verdict = _grade(task, tmp_path, FIX_SPLIT, FIX_SORT, prepend(WORDS, "import sys\n"),
                     replace(WORDS, "        key = w\n",
                             "        key = w.casefold() if sys.version_info >= (3, 3) else w.lower()\n"))
    assert verdict.ok, verdict.detail


def test_gold_patch_with_docstring_edits_is_solved(task, tmp_path):
    verdict = _grade(task, tmp_path, *GOLD, DOC,
                     replace(FMT, '"""The cells joined by a bar', '"""Cells joined by a bar'))
    assert verdict.ok, verdict.detail
