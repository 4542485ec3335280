"""Environments and test runs for the repair domain.

A virtualenv per (repository, environment spec), built once and cached, with the interpreter the spec
asks for when this machine has one (the current interpreter otherwise, and the environment says so).
The build runs the repository's code (setup.py, build backends, the row's install command), so it runs
in the sandbox as the tests do, with the network: it sees the system directories, the interpreter, the
checkout, the environment and the pip cache (those three writable), nothing else of the host.
The repository under test is never installed into a worktree-specific place: its worktree goes first on
PYTHONPATH, so one environment serves every worktree and commit of the repository. Each test run is
the repository's runner (pytest, or the row's test_cmd, which must accept pytest's options) on the
instance test files only, in the sandbox with a timeout; results come from its JUnit XML.
"""

from __future__ import annotations

import ast
import glob
import json
import logging
import os
import platform
import re
import secrets
import shlex
import shutil
import sys
from collections.abc import Sequence
from functools import cache
from pathlib import Path, PurePosixPath
from typing import Any, NamedTuple, cast
from urllib.parse import unquote

from codewalk.errors import InfraError
from codewalk.runtime import meter, sandbox
from codewalk.runtime.locks import locked

from . import channel
from .git import Worktree, digest, network_env
from .guard import walk
from .junit import node_key
from .patch import TEST_DIRS
from .runs import Env, EnvSpec, Image, TestRun, in_container

log = logging.getLogger(__name__)
MARKER = "codewalk-env.json"  # written last: an environment without it is unfinished


@cache
def find_python(version: str) -> tuple[str, str, str]:
    """(executable, full version, note) for the asked version; the note says when it is not here."""
    here = platform.python_version()
    if not version or _matches(here, version):
        return sys.executable, here, ""
    pyenv = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")
    minor = ".".join(version.split(".")[:2])
    found = sorted(glob.glob(str(pyenv / "versions" / f"{version}*" / "bin" / f"python{minor}")),
                   key=_version_key, reverse=True)
    for exe in [shutil.which(f"python{version}"), *found]:
        if not exe:
            continue
        # pyenv shims and broken links fail here; the interpreter reports its own real path.
        probe = "import platform, sys; print(platform.python_version(), sys.executable)"
        with sandbox.workdir() as scratch:
            done = sandbox.run([exe, "-c", probe], cwd=scratch, timeout=30, isolate=False)
        parts = done.stdout.split()
        if done.returncode == 0 and len(parts) == 2 and _matches(parts[0], version):
            return parts[1], parts[0], ""
    note = f"python {version} is not on this machine: the environment uses python {here} ({sys.executable})"
    return sys.executable, here, note


def _matches(full: str, asked: str) -> bool:
    return full == asked or full.startswith(asked + ".")


def _version_key(path: str) -> tuple[int, ...]:
    m = re.search(r"versions/(\d+(?:\.\d+)*)", path)
    return tuple(int(p) for p in m.group(1).split(".")) if m else ()


class Envs:
    """The virtualenv cache: root/<owner__name>-<key>, key = hash of (repo, spec, interpreter version)."""

    def __init__(self, root: Path, pip_cache: Path, timeout: float = 1800.0):
        self.root, self.pip_cache, self.timeout = root, pip_cache, timeout

    def get(self, repo: str, spec: EnvSpec, tree: Worktree) -> Env:
        """The environment, built in tree (a pristine checkout) the first time; tree is reset after."""
        exe, used, note = find_python(spec.python)
        key = digest(repo, json.dumps(spec.identity(), sort_keys=True), used)
        path = self.root / f"{repo.replace('/', '__')}-{key}"
        env = _read_marker(path)
        meter.reuse("repair: environment", env is not None)
        if env:
            return env
        with locked(self.root / f"{path.name}.lock"):
            env = _read_marker(path)
            if env:
                return env
            if note:
                log.warning("%s: %s", repo, note)
            env = self._build(path, exe, spec, used, [note] if note else [], tree)
        tree.reset()
        return env

    def _build(self, path: Path, exe: str, spec: EnvSpec, used: str, notes: list[str], tree: Worktree) -> Env:
        sandbox.remove_tree(path)  # a failed build's: install commands ran there
        path.mkdir(parents=True)  # it exists before the sandbox binds it writable
        self.pip_cache.mkdir(parents=True, exist_ok=True)
        self._step([exe, "-m", "venv", str(path)], tree.path, "create the virtualenv", path, exe)
        wanted = ["pytest", *spec.pip_packages]
        if spec.packages == "requirements.txt":
            for req in spec.reqs_path or ("requirements.txt",):
                if (tree.path / req).is_file():
                    wanted += ["-r", req]
                else:
                    notes.append(f"requirements file {req} is not in the repository at {tree.commit[:12]}")
        elif spec.packages == "environment.yml":
            notes.append("conda environment files are not supported: environment.yml was not installed")
        elif spec.packages:
            wanted += spec.packages.split()  # conda package names; most are the same on PyPI
        self._step([str(path / "bin" / "python"), "-m", "pip", "install", "--quiet", *wanted], tree.path,
                   "install the test dependencies", path, exe, local_archives(wanted))
        if spec.pre_install:
            notes.append("pre_install commands were not run (they change the host system): "
                         + "; ".join(spec.pre_install))
        if spec.install:
            self._step(["bash", "-c", spec.install], tree.path, f"run the install command {spec.install!r}",
                       path, exe)
        env = Env(path, spec.python, used, tuple(notes))
        (path / MARKER).write_text(json.dumps(env.summary(), indent=1))
        return env

    def _step(self, cmd: list[str], cwd: Path, what: str, venv: Path, exe: str, archives: Sequence[Path] = ()) \
            -> None:
        # The repository's code runs here: in the sandbox, with the network (packages come from an index),
        # writing only the checkout, the environment, the pip cache and a scratch HOME.
        network = network_env()
        with sandbox.workdir() as home:
            done = sandbox.run(cmd, cwd=cwd, timeout=self.timeout, memory_mb=16384, max_file_mb=1 << 16,
                               network=True, writable=[venv, self.pip_cache, home],
                               sees=[*build_view(exe), *_named_files(network), *archives],
                               env={**network, **_venv_env(venv), "PIP_CACHE_DIR": str(self.pip_cache),
                                    "HOME": str(home), "TMPDIR": str(home), "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
        if done.timed_out or done.returncode != 0:
            why = f"timed out after {self.timeout:g}s" if done.timed_out else f"exited {done.returncode}"
            raise InfraError(f"could not {what} ({why}): {(done.stderr or done.stdout).strip()[-800:]}")


def build_view(exe: str) -> list[Path]:
    """What a build sees of the interpreter it makes the environment with: its installation, and the
    one it was made from when it is itself a virtualenv (the current interpreter may be one)."""
    seen = [Path(exe).parent.parent, Path(exe).resolve().parent.parent]
    if Path(exe) == Path(sys.executable):
        seen += sandbox.python_runtime()
    return list(dict.fromkeys(seen))


ARCHIVES = (".whl", ".tar.gz", ".tgz", ".tar.bz2", ".zip")


def local_archives(wanted: Sequence[str]) -> list[Path]:
    """Package files on this machine that the requirements name (`name @ file:///…/x.whl`, an absolute
    path): the build sees those files read-only, and nothing else outside its view; only package archives,
    so a requirement cannot show the build an arbitrary file of the user's."""
    found = []
    for word in wanted:
        where = word.split(" @ ", 1)[-1].strip()
        where = unquote(where.removeprefix("file://")) if where.startswith("file:///") else where
        if where.startswith("/") and where.endswith(ARCHIVES) and Path(where).is_file():
            found.append(Path(where))
    return found


def _named_files(settings: dict[str, str]) -> list[Path]:
    """Files the network settings name (a pip configuration, a CA bundle): the build must read them."""
    return [Path(v) for v in settings.values() if v.startswith("/") and Path(v).exists()]


def _read_marker(path: Path) -> Env | None:
    try:
        data = json.loads((path / MARKER).read_text())
    except (OSError, ValueError):
        return None
    return Env(path, data["python_asked"], data["python_used"], tuple(data["notes"]))


def venv_runtime(venv: Path) -> list[Path]:
    """What a test run needs to see besides its worktree: the environment and the interpreter it was made
    from (pyvenv.cfg's `home`), nothing else of the cache (other worktrees, the gold-patched trees)."""
    seen = [venv]
    for line in (venv / "pyvenv.cfg").read_text(encoding="utf-8").splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "home" and value.strip():
            seen.append(Path(value.strip()).resolve().parent)  # .../bin -> the installation
    return seen


def _venv_env(venv: Path) -> dict[str, str]:
    path = os.environ.get("PATH", os.defpath)
    return {"VIRTUAL_ENV": str(venv), "PATH": f"{venv / 'bin'}{os.pathsep}{path}"}


# Where pytest looks for its configuration, in its own order; the first that holds a pytest section wins.
CONFIGS = (("pytest.ini", "[pytest]"), (".pytest.ini", "[pytest]"), ("pyproject.toml", "[tool.pytest"),
           ("tox.ini", "[pytest]"), ("setup.cfg", "[tool:pytest]"))


def run_tests(env: Env | Image, tree: Worktree, tests: list[str], test_cmd: str, timeout: float,
              memory_mb: int = 4096, config_from: str = "", *, base: str = "", renamed: Sequence[str] = (),
              session: Any = None, fresh: bool = True, changed: Sequence[str] = ()) -> TestRun:
    """Run the files holding tests and report each test's outcome; InfraError when there is no verdict.

    The run is the harness's, not the repository's. It runs in a copy of the tree whose git history is one
    commit (base, default config_from, else the tree as it stands: x_G) with what changed since left
    uncommitted; in the local runtime (env: a virtualenv) in the sandbox, in the docker runtime (env: an
    image) in a fresh container. pytest gets its configuration with -c from a copy the harness made (the
    repository's own at config_from, which a graded candidate may not change), plugins load only from the
    trusted environment (autoload off, each installed one named with -p), and outcomes come through the
    harness's channel (channel.py), never from a file or output the tests can write. Each test of
    `renamed` also runs as a renamed copy and passes only if both pass. `session` (docker: a
    containers.Session) lets several runs of one group share a container. fresh=False (mining, local
    runtime only) runs in the worktree itself, so repeated runs of one state see what earlier ones left
    there, as mining's flakiness check wants.

    The runner is the harness's boot.py in place of pytest (test_cmd must start with pytest, py.test or
    `python -m pytest`): pytest loads before the tree is importable, and on Python 3.8+ an audit hook
    watches the frames of `changed` (the candidate's files, relative to the tree): what it denies, a
    changed report path, a forged channel or a test file changed by the run give no verdict (NoVerdict,
    with the rule code). TestRun.audited says whether the hook was there. Under the guard each test module's
    __file__ names a stand-in of its file (its size and lines, none of its text) while the tests run, so a
    test may open its own __file__ (channel.stand_ins); the real test files stay pytest's to read. The test
    files, the copies, the conftests and the test data beside them (test_data: every other file beneath the
    folders holding test files) are kept by the kernel from every process of the run and digested after it
    (harness/run.py; issue 51, round 13b).
    """
    files = sorted({t.split("::")[0] for t in tests})
    present = [f for f in files if (tree.path / f).is_file()]
    if not present:  # the tests' files do not exist: every one of them is missing, a verdict without a run
        return TestRun({t: "missing" for t in tests}, None, 0.0)
    with sandbox.workdir() as scratch:
        work, harness = scratch / "tree", scratch / "harness"
        if fresh or in_container(env):
            tree.snapshot(base or config_from or tree.tree(), work)
        else:
            work = tree.path
        copies = channel.renamed_copies(work, [t for t in renamed if t in tests])
        harness.mkdir()
        channel.prepare(harness)
        watched = [p for p in changed if p.endswith(".py")]
        settings: dict[str, Any] = {}
        if config_from:  # what each changed file imported at x_G, which it may import first under the guard
            settings["imported_at_x_g"] = imported_at(tree, config_from, watched)
        # each test module's __file__ names a stand-in of its file during the tests (channel.stand_ins): what
        # a test opens by its own __file__ holds no expected value, so the guard need not stop it
        stand_ins = channel.stand_ins(work, [*present, *copies.files]) if watched else {}
        settings["stand_ins"] = stand_ins
        (harness / GUARD_FILE).write_text(json.dumps(settings))
        config = _config_copy(tree, config_from, harness)
        command = (f"{_runner(test_cmd)} -c {{harness}}/{config.name} --rootdir=. -p no:cacheprovider {{plugins}} "
                   + " ".join(shlex.quote(f) for f in [*present, *copies.files]))
        token = secrets.token_hex(16)
        # the tests' files, the copies and every conftest.py, digested before and after the run; not when
        # the run is in the worktree itself (mining), whose files stay writable
        walked = tree_files(work, present) if fresh or in_container(env) else None  # one walk for the three
        protected = [*present, *copies.files, *walked.conftests] if walked is not None else []
        data = test_data(work, present, {*protected, *stand_ins.values()}, walked=walked) if protected else []
        guard = {"changed": watched, "protected": protected, "data": data,
                 "tree": landed(work, present, {*protected, *stand_ins.values(), *changed}, walked=walked)
                 if protected else []}
        try:
            if in_container(env):
                from . import containers  # the docker SDK only where the docker runtime is used

                report = containers.run_in_container(env, work, harness, token, command, timeout, memory_mb,
                                                     session, guard=guard)
            else:
                report = _run_local(cast(Env, env), work, harness, token, command, timeout, memory_mb, guard)
        finally:  # in the worktree itself (mining) they would stay; a snapshot goes with the scratch folder
            for name in stand_ins.values():
                (work / name).unlink(missing_ok=True)
    found = channel.outcomes(report)
    status = {t: found.get(t, "missing") for t in tests}
    for copy, original in copies.nodes.items():
        if status[original] == "passed" and found.get(copy) != "passed":
            status[original] = f"renamed copy {found.get(copy, 'missing')}"
    cases = {node_key(node): outcome for node, outcome in found.items() if node not in copies.nodes}
    return TestRun(status, report.exit, round(report.seconds, 3), unsigned=report.unsigned, python=report.python,
                   cases=cases, audited=channel.audited(report), proc_guard=report.proc_guard,
                   files_guard=report.files_guard, memory_guard=channel.memory_guard(report),
                   signal_guard=report.signal_guard, data_kept=report.data_kept, tree_kept=report.tree_kept)


class Walked(NamedTuple):
    """What one walk of a run's tree finds (tree_files): its conftests, and its plain files (no link) beneath the
    folders holding the test files (`data`, for test_data) and elsewhere (`landed`, for landed), unfiltered;
    `tops`, the test folders the walk reached (one it did not, under a link or `.git`, test_data walks itself)."""
    conftests: list[str]
    data: list[str]
    landed: list[str]
    tops: frozenset[str]


def tree_files(work: Path, files: Sequence[str]) -> Walked:
    """One walk of work (the tree of a run, `files` its test files) for what run_tests used to walk it three
    times for: every conftest.py (no `.git` on its path), and the plain files test_data and landed keep before
    they leave out what a run protects already. Their results are the same as with their own walks
    (tests/test_repair_env_walk.py)."""
    tops = set(_test_tops(files))
    conftests: list[str] = []
    data: list[str] = []
    found: list[str] = []
    reached: set[str] = set()
    for folder, dirs, names in walk(work):
        here = PurePosixPath(Path(folder).relative_to(work))
        dirs[:] = [d for d in dirs if d != ".git"]  # nothing beneath a .git is a conftest, data or landed
        rel = str(here)
        if rel in tops:
            reached.add(rel)
        inside = any(rel == top or rel.startswith(top + "/") for top in tops)
        if "conftest.py" in names:
            conftests.append(str(here / "conftest.py"))
        for name in names:
            full = Path(folder, name)
            if full.is_file() and not full.is_symlink():
                (data if inside else found).append(str(here / name) if rel != "." else name)
    return Walked(sorted(conftests), data, found, frozenset(reached))


def test_data(work: Path, files: Sequence[str], protected: set[str] | frozenset[str] = frozenset(), *,
              walked: Walked | None = None) -> list[str]:
    """The test data of a run (issue 51, round 13b): every plain file beneath the folder of each test file in
    `files` (relative to work) that holds its tests, and its subfolders: the highest folder on its path named
    like a test folder (tests/unit/test_a.py: all of tests/, so tests/data/ beside tests/unit/ too; a diff may
    change nothing there), else the file's own folder; never the tree's root (it holds the package), nor what
    is in `protected` already; no `.git`, no link (a link's target may be anywhere). What a test reads to
    compare with (a fixture file, expected output, a helper module) is kept by the kernel from every process
    open it as before. Sorted; every one (round 14b: the digests read the content of the first HASHED bytes
    and take the identity of the rest, harness/run.py)."""
    found: set[str] = set()
    if walked is not None:  # the run's one walk (tree_files), with the folders it did not reach walked here
        found.update(path for path in walked.data if path not in protected)
    for top in _test_tops(files):
        if walked is not None and top in walked.tops:
            continue
        for folder, dirs, names in walk(work / top):
            dirs[:] = [d for d in dirs if d != ".git"]
            for name in names:
                full = Path(folder, name)
                path = str(full.relative_to(work))
                if path not in protected and full.is_file() and not full.is_symlink():
                    found.add(path)
    return sorted(found)


def _test_tops(files: Sequence[str]) -> list[str]:
    """The folders test_data walks for the test files `files`: never the tree's root."""
    return sorted({_tests_folder(PurePosixPath(f).parent) for f in files} - {"", "."})


def landed(work: Path, files: Sequence[str], kept: set[str] | frozenset[str] = frozenset(), *,
           walked: Walked | None = None) -> list[str]:
    """Every other plain file of the tree as it landed (issue 51, round 14b): the tree's root, the package and its
    data, docs, a configuration the tests read -- every plain file beneath work but those test_data lists (the
    folders holding the test files of `files`) and those of `kept` (the files the run keeps already, and the
    files the candidate's diff changed: its own to write); no `.git` at any level, no link. The tree as it landed
    is what is graded, so no process of the run may change what a test reads from it: the harness keeps these
    as it keeps the test data (read-only, the kernel, the digests). A new file (pytest's and Python's caches, what
    a test writes) is no landed file."""
    if walked is not None:  # the run's one walk (tree_files)
        return sorted(path for path in walked.landed if path not in kept)
    tops = [PurePosixPath(t) for t in _test_tops(files)]
    found: list[str] = []
    for folder, dirs, names in walk(work):
        here = PurePosixPath(Path(folder).relative_to(work))
        dirs[:] = [d for d in dirs if d != ".git" and here / d not in tops]
        for name in names:
            full = Path(folder, name)
            path = str(here / name) if str(here) != "." else name
            if path not in kept and full.is_file() and not full.is_symlink():
                found.append(path)
    return sorted(found)


def _tests_folder(folder: PurePosixPath) -> str:
    """The highest folder from the tree's root down to folder named like a test folder, else folder."""
    parts = folder.parts
    first = next((k for k, part in enumerate(parts) if part.lower() in TEST_DIRS), None)
    return str(PurePosixPath(*parts[:first + 1])) if first is not None else str(folder)


GUARD_FILE = "guard.json"  # beside boot.py, which reads it (harness/boot.py, _places and _stand_ins)


def imported_at(tree: Worktree, commit: str, paths: Sequence[str]) -> dict[str, list[str]]:
    """The top-level modules each file imports at commit (any import statement in it, absolute): the run-time
    guard lets a changed module import first what its own file imported at x_G, as the static layer does."""
    found: dict[str, list[str]] = {}
    for path in paths:
        text = tree.show(commit, path)
        try:
            module = ast.parse(text) if text is not None else None
        except (SyntaxError, ValueError):
            module = None
        if module is None:
            continue
        tops: set[str] = set()
        for node in ast.walk(module):
            if isinstance(node, ast.Import):
                tops.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                tops.add(node.module.split(".")[0])
        found[path] = sorted(tops)
    return found


def _runner(test_cmd: str) -> str:
    """The test command with pytest replaced by the harness's runner (boot.py, without PYTHONPATH: the tree
    is not on sys.path until pytest and its plugins have loaded); InfraError for a command that is not
    pytest. Variables the command sets before pytest are kept, PYTHONPATH aside."""
    words = shlex.split(test_cmd or "pytest")
    assignments = []  # VAR=value words before the command, kept for bash
    while words and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0]):
        word = words.pop(0)
        if not word.startswith("PYTHONPATH="):  # the harness's own: the tree joins once pytest has loaded
            assignments.append(shlex.quote(word))
    if words[:1] in (["pytest"], ["py.test"]):
        rest = words[1:]
    elif len(words) >= 3 and re.fullmatch(r"(\S*/)?python[\d.]*", words[0]) and words[1:3] == ["-m", "pytest"]:
        rest = words[3:]
    else:
        raise InfraError(f"the test command {test_cmd!r} does not start with pytest: the harness runs pytest only")
    return " ".join([*assignments, "{python}", "-s", "{harness}/" + channel.BOOT, *(shlex.quote(w) for w in rest)])


def _run_local(env: Env, work: Path, harness: Path, token: str, command: str, timeout: float,
               memory_mb: int, guard: dict[str, list[str]] | None = None) -> channel.Report:
    """The harness in the sandbox: the tree writable, the harness and the environment read-only."""
    home = harness.parent / "home"  # beside the harness, in the run's scratch folder
    home.mkdir()
    paths = [str(work)] + ([str(work / "src")] if (work / "src").is_dir() else [])  # as plain pytest's, no harness
    run_env = {**_venv_env(env.path), "PYTHONPATH": os.pathsep.join(paths), "HOME": str(home), "TMPDIR": str(home),
               "PYTHONDONTWRITEBYTECODE": "1", "PYTHONNOUSERSITE": "1", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    argv = ["bash", "-c", command.replace("{harness}", shlex.quote(str(harness)))]
    guard = guard or {}
    stdin = channel.config(token, argv, str(work), run_env, timeout, changed=guard.get("changed", ()),
                           protected=guard.get("protected", ()), data=guard.get("data", ()),
                           tree=guard.get("tree", ()))
    done = sandbox.run([str(env.python), "-I", str(harness / channel.RUNNER)], cwd=work, timeout=timeout + 60,
                       memory_mb=memory_mb, max_file_mb=256, writable=[home], sees=[*venv_runtime(env.path), harness],
                       stdin=stdin, env=run_env)
    if done.timed_out:
        raise InfraError(f"the tests timed out after {timeout:g}s")
    return channel.read(done.stdout, token, done.returncode)


def _config_copy(tree: Worktree, config_from: str, into: Path) -> Path:
    """The repository's pytest configuration copied into the harness's directory (an empty one if none)."""
    for name, section in CONFIGS:
        file = tree.path / name
        text = tree.show(config_from, name) if config_from else (
            file.read_text(encoding="utf-8", errors="replace") if file.is_file() else None)
        if text is not None and section in text:
            (into / name).write_text(text, encoding="utf-8")
            return into / name
    (into / "pytest.ini").write_text("[pytest]\n")
    return into / "pytest.ini"


@cache
def installed_plugins(venv: str) -> tuple[str, ...]:
    """The modules of the pytest plugins installed in the environment (pytest11 entry points), read
    without the worktree on sys.path, so a candidate cannot add one."""
    # entry_points(group=...) is 3.10+; 3.8 and 3.9 return a dict by group; 3.7 and older have only
    # pkg_resources. Environments of every one of them are graded.
    probe = ("try:\n"
             "    from importlib.metadata import entry_points\n"
             "except ImportError:\n"
             "    import pkg_resources\n"
             "    found = [ep.module_name for ep in pkg_resources.iter_entry_points('pytest11')]\n"
             "else:\n"
             "    eps = entry_points()\n"
             "    eps = eps.select(group='pytest11') if hasattr(eps, 'select') else eps.get('pytest11', ())\n"
             "    found = [ep.value.split(':')[0] for ep in eps]\n"
             "print('\\n'.join(found))")
    with sandbox.workdir() as scratch:
        done = sandbox.run([str(Path(venv) / "bin" / "python"), "-I", "-c", probe], cwd=scratch, timeout=60,
                           env=_venv_env(Path(venv)))
    if done.returncode != 0:
        raise InfraError(f"cannot list the pytest plugins of {venv}: {done.stderr.strip()[-300:]}")
    return tuple(sorted(set(done.stdout.split())))


# What an empty pytest session imports in an environment, the tree nowhere on sys.path: the names a new
# top-level module of a candidate must not take (it would shadow them once the tree is on sys.path).
IMPORTABLE_PROBE = """
import json, os, pkgutil, sys, tempfile
tried = set()  # every top-level name anything asks for, found or not (copy.py tries `org`)
class Recorder(object):
    def find_spec(self, name, path=None, target=None):
        tried.add(name.split(".")[0])
    def find_module(self, name, path=None):  # Python 2 era finders' protocol, for old interpreters
        tried.add(name.split(".")[0])
sys.meta_path.insert(0, Recorder())
names = set(sys.builtin_module_names) | set(getattr(sys, "stdlib_module_names", ()))
names |= {m[1] for m in pkgutil.iter_modules()}
empty = tempfile.mkdtemp()
os.chdir(empty)
with open("pytest.ini", "w") as f:
    f.write("[pytest]\\n")
try:
    import pytest
    pytest.main(["-q", "-p", "no:cacheprovider", empty])
except BaseException:
    pass
names |= {m.split(".")[0] for m in list(sys.modules)} | tried
sys.stdout.write("\\ncodewalk-importable " + json.dumps(sorted(names)) + "\\n")
"""


@cache
def importable_names(env: Env | Image) -> frozenset[str]:
    """The top-level names the environment imports without the tree: its standard library, every installed
    distribution's modules, and what an empty pytest session imports or tries to import there (site hooks,
    plugins, optional imports such as copy.py's `org`), measured
    by running one with the environment's interpreter under the same runtime; cached per environment."""
    if in_container(env):
        out = _probe_in_image(env, IMPORTABLE_PROBE)
    else:
        venv = cast(Env, env)  # the local runtime's
        with sandbox.workdir() as scratch:
            done = sandbox.run([str(venv.python), "-I", "-c", IMPORTABLE_PROBE], cwd=scratch, timeout=300,
                               env={**_venv_env(venv.path), "TMPDIR": str(scratch), "HOME": str(scratch)},
                               sees=venv_runtime(venv.path) if (venv.path / "pyvenv.cfg").is_file() else None)
        out = done.stdout
    for line in reversed(out.splitlines()):
        if line.startswith("codewalk-importable "):
            return frozenset(json.loads(line.split(" ", 1)[1]))
    raise InfraError(f"cannot list what {env.summary()} imports without the tree: {out.strip()[-300:]}")


def _probe_in_image(image: Image, source: str) -> str:
    """The output of `python -I -c source` in a fresh container of image (no network, the tests' user), with
    the interpreter a test run's container uses (containers.BOOT)."""
    from docker.errors import DockerException

    from codewalk import runtime

    from . import containers  # the docker SDK only where the docker runtime is used

    name = runtime.container_name("probe")
    try:
        out = runtime.client().containers.run(
            image.tag, name=name, entrypoint=["/bin/sh", "-c", containers.BOOT, "codewalk-probe", source],
            command=[], network_mode="none", user=str(image.user), working_dir="/tmp", remove=True,
            stdout=True, stderr=False, environment={"HOME": "/tmp", "PATH": "/usr/local/bin:/usr/bin:/bin"},
            labels=runtime.labels("probe"), mem_limit="2048m")
    except DockerException as e:
        raise InfraError(f"cannot probe {image.tag}: {str(e).strip()[-300:]}") from None
    finally:
        runtime.forget_later(name)
    return out.decode("utf-8", errors="replace") if isinstance(out, bytes) else str(out)
