"""The repair domain (paper Sec. 3.1): co-located multi-bug repair on real git repositories.

An atom is a SWE-bench-style bug instance b = (c_b, g_b, t_b, F_b). Two bugs of one repository are
related when their gold patches share a file (SHARES_FILE, built from an inverted file index). A group
is ordered by fix date d(b) (the row's created_at); c* is the base commit of the earliest bug; the task
x_G is c* with every test patch applied in that order; the reference Ref(G) is the gold patches applied
in the same order on top; V_G runs the union F of the FAIL_TO_PASS tests. Admission (1): at x_G each
F_i fails; (2): x_G with Ref(G) passes all of F, and the group's PASS_TO_PASS is re-derived there (the
members' tests that exist and pass before and after Ref(G)). Grading (guard, env) needs every
FAIL_TO_PASS and PASS_TO_PASS test to pass. Each patch is applied strict, else 3-way, else fuzzy, and
the method is recorded; a group whose test patch lands a hunk in the wrong function is rejected
even when the apply was clean (misplaced). Runs use the repository's own runner in a cached
virtualenv (the local runtime) or in a fresh container of the environment's image (the docker runtime:
containers), on a copy of x_G whose history is one commit, with outcomes read through the harness's
channel (channel). Not supported yet: non-Python repositories and conda environment files.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any

import pyarrow as pa

from codewalk import paths
from codewalk.domain import Domain, Option, Rejected, Settings
from codewalk.errors import InfraError, InputError
from codewalk.loaders import swebench
from codewalk.loaders.diff import parse_patch, patch_files
from codewalk.records import Atom, Check, Composite, Edge, Reason, Task
from codewalk.relations import FILES, shares_file
from codewalk.runtime import meter

from .channel import NoVerdict
from .env import Env, Envs, EnvSpec, Image, TestRun, importable_names, run_tests
from .git import Mirrors, Worktree, Worktrees, digest
from .guard import describe, importable_test_names, landed, own_modules, refused, snapshot, test_support
from .misplaced import touched, units
from .patch import is_test_path, not_unified, unsafe_path
from .rules import Refusal, Rule

# (mirror, base commit, test patch digest) -> the tree of c_b + t_b, in this process
_fix_trees: dict[tuple[str, str, str], str | None] = {}


class RepairDomain(Domain):
    name = "repair"
    relation = "SHARES_FILE"
    composer_version = "repair-2"  # 2: PASS_TO_PASS re-derived at c*
    data_source = "SWE-bench / SWE-rebench instance rows and the repositories they name"
    load_options = (Option("repos", "folder of git clones named owner__name (instead of cloning)"),
                    Option("remote", "URL template of a repository to clone (default https://github.com/{repo})"))
    description = "Bug instances of a repository whose gold patches share a file, present together at c*."
    test_timeout = 900.0  # seconds for one run of the tests
    memory_mb = 4096  # address-space limit of a test run

    runtimes = ("local", "docker")

    def __init__(self, cache: Path | None = None, settings: Settings | None = None):
        super().__init__(settings)
        self.runtime = self.settings.runtime  # where the tests run (codewalk.runtime)
        root = cache / "repair" if cache else paths.cache("repair")
        self.mirrors = Mirrors(root / "repos")
        self.worktrees = Worktrees(root / "worktrees")
        # pip's download cache is shared whatever the cache root: it holds only published wheels
        self.envs = Envs(root / "envs", Path(os.environ.get("PIP_CACHE_DIR") or paths.cache("pip")))
        self._xg_runs: dict[str, TestRun] = {}
        self._reference_runs: dict[str, TestRun] = {}  # the reference's run, when a candidate gave no verdict

    # -- source -> atoms -> edges ------------------------------------------------------------
    def load(self, source: Path, options: dict[str, str]) -> Iterator[Atom]:
        """Rows become atoms once their repository is mirrored and holds every base commit."""
        instances = swebench.read(source)
        by_repo: dict[str, list[swebench.Instance]] = defaultdict(list)
        for instance in instances:
            by_repo[instance.repo].append(instance)
        origins = {}
        for repo, group in by_repo.items():
            origin = swebench.clone_source(group[0], options, source)
            commits = [i.base_commit for i in group]
            try:
                mirror = self.mirrors.ensure(repo, origin, commits)
                missing = set(self.mirrors.missing(mirror, commits))
            except InfraError as e:
                raise InputError(str(source), group[0].line, f"cannot clone {repo} from {origin}: {e}") \
                    from None
            for instance in group:
                if instance.base_commit in missing:
                    raise InputError(str(source), instance.line,
                                     f"base_commit {instance.base_commit} is not in {origin}")
            origins[repo] = origin
        if self.runtime.containers:
            self._prepare_images(source, instances)
        for instance in instances:
            yield Atom(
                id=f"repair/{instance.instance_id}",
                domain=self.name,
                summary={"title": instance.instance_id, "repo": instance.repo, "files": list(instance.files)},
                payload={**instance.row, "clone_from": origins[instance.repo]},
            )

    def _prepare_images(self, source: Path, instances: list[swebench.Instance]) -> None:
        """docker: pull or build each environment's image now, so that walks find it (a failure names its row)."""
        from . import containers

        for instance in instances:
            row = instance.row
            v = {"repo": instance.repo, "base_commit": instance.base_commit,
                 "environment_setup_commit": row.get("environment_setup_commit") or instance.base_commit,
                 "image_name": row.get("image_name") or row.get("docker_image") or ""}
            spec = EnvSpec.from_config(row.get("install_config"))
            try:
                containers.image_for(v, spec, self.mirrors.path(instance.repo), no_pull=not self.runtime.pull)
            except InfraError as e:
                raise InputError(str(source), instance.line, f"cannot prepare its docker image: {e}") from None

    def edges(self, atoms: Sequence[Atom]) -> Iterable[Edge]:
        """b_i ~ b_j iff files(g_i) and files(g_j) meet, within a repository; edges keep the shared files
        (an inverted file index, on columns: codewalk.relations.shares_file)."""
        found = shares_file(pa.array([a.id for a in atoms], pa.string()),
                            pa.array([a.summary["repo"] for a in atoms], pa.string()),
                            pa.array([a.summary["files"] for a in atoms], FILES))
        for src, dst, files in zip(*(found.column(c).to_pylist() for c in ("src", "dst", "files")), strict=True):
            yield Edge(src, dst, "SHARES_FILE", files=tuple(files))

    # -- composition ------------------------------------------------------------------------------
    def compose(self, atoms: Sequence[Atom]) -> Composite:
        """x_G = c* with the test patches in fix-date order; Ref(G) = the gold patches on top, same order."""
        ordered = sorted(atoms, key=lambda a: (a.payload["created_at"], a.id))
        first = ordered[0]  # edges stay within a repository, so the whole group shares first's
        c_star = first.payload["base_commit"]
        mirror = self._mirror(first.payload)
        applied: list[dict[str, str]] = []
        conflict = ""
        with self.worktrees.checkout(mirror, c_star) as tree:
            for atom in ordered:
                method = tree.apply(atom.payload["test_patch"])
                if method is None:
                    raise Rejected(Reason.TEST_PATCH_CONFLICT,
                                   f"the test patch of {_title(atom)} applies to c* {c_star[:12]} by no method "
                                   "(strict, 3-way, fuzzy)" + _record(c_star, applied))
                applied.append({"atom": atom.id, "patch": "test", "method": method})
            x_g = tree.tree()
            wrong = self._misplaced(tree, mirror, ordered, applied)
            if wrong:
                raise Rejected(Reason.MISPLACED_HUNK, wrong + _record(c_star, applied))
            test_patch = tree.diff(c_star)
            for atom in ordered:
                method = tree.apply(atom.payload["patch"])
                if method is None:
                    conflict = (f"the gold patch of {_title(atom)} applies by no method (strict, 3-way, "
                                "fuzzy) on top of the test patches and the earlier gold patches")
                    break
                applied.append({"atom": atom.id, "patch": "gold", "method": method})
            reference = "" if conflict else tree.diff(x_g)
        by_atom = {a.id: a.payload["FAIL_TO_PASS"] for a in ordered}
        fail = list(dict.fromkeys(t for tests in by_atom.values() for t in tests))
        keep = [t for a in ordered for t in a.payload["PASS_TO_PASS"] if t not in fail]
        verifier = {
            "repo": first.summary["repo"], "clone_from": first.payload["clone_from"], "base_commit": c_star,
            "order": [a.id for a in ordered], "test_patch": test_patch, "FAIL_TO_PASS": fail,
            # the members' lists; check (2) keeps those that exist and pass before and after the gold patches
            "PASS_TO_PASS_listed": list(dict.fromkeys(keep)), "PASS_TO_PASS": list(dict.fromkeys(keep)),
            "fail_to_pass_by_atom": by_atom, "apply": applied,
            "install_config": first.payload.get("install_config"),
            "created_at": ordered[-1].payload["created_at"],
            # the environment: the row's (the group shares first's repository and c*), else the one built for it
            "environment_setup_commit": first.payload.get("environment_setup_commit") or c_star,
            "image_name": first.payload.get("image_name") or first.payload.get("docker_image") or "",
        }
        if not verifier["image_name"]:  # the image codewalk builds for this environment (named, not built here)
            from . import containers

            verifier["environment_image"] = containers.built_image_name(verifier, mirror)
        if conflict:
            verifier["reference_conflict"] = conflict
        return Composite(problem_statement(first.summary["repo"], c_star, fail), reference, verifier,
                         order=tuple(a.id for a in ordered))  # COMPOSES.position: the order patches apply

    leave_one_out = True

    def reference_without(self, composite: Composite, atoms: Sequence[Atom], position: int) -> str | None:
        """The gold patches of every atom but one, applied to x_G in the order of Ref(G) (None: they do not
        apply without it, so that atom is needed)."""
        v = composite.verifier
        by_id = {a.id: a for a in atoms}
        rest = [by_id[i] for k, i in enumerate(v["order"]) if k != position]
        with self.worktrees.checkout(self._mirror(v), v["base_commit"]) as tree:
            if tree.apply(v["test_patch"], ("strict",)) is None:
                raise InfraError(f"a stored patch no longer applies to {v['base_commit'][:12]}")
            x_g = tree.tree()
            for atom in rest:
                if tree.apply(atom.payload["patch"]) is None:
                    return None
            return tree.diff(x_g)

    def _misplaced(self, tree: Worktree, mirror: Path, ordered: list[Atom], applied: list[dict[str, str]]) \
            -> str:
        """Why a function a test patch touches is not, in x_G, what it is at that bug's fix; "" if all are."""
        expected: dict[tuple[str, str], tuple[Atom, list[str]]] = {}
        for atom in ordered:  # fix-date order: a later fix's version of a shared function wins
            patch = atom.payload["test_patch"]
            fix = self._fix_tree(tree, mirror, atom.payload["base_commit"], patch)
            if fix is None:
                raise Rejected(Reason.TEST_PATCH_CONFLICT, f"the test patch of {_title(atom)} does not apply "
                               f"strict to its own base commit {atom.payload['base_commit']}")
            for diff in parse_patch(patch):
                if not (diff.new and diff.new.endswith(".py") and diff.touched):
                    continue
                source = tree.show(fix, diff.new)
                found = units(source) if source is not None else None
                if found is None:
                    continue
                for name in touched(source or "", diff.touched):  # found is not None: source was read
                    expected[(diff.new, name)] = (atom, found[name])
        methods = {entry["atom"]: entry["method"] for entry in applied}
        for (path, name), (atom, texts) in sorted(expected.items()):
            file = tree.path / path
            now = units(file.read_text(encoding="utf-8", errors="replace")) if file.is_file() else None
            if now is None or now.get(name) != texts:
                state = ("cannot be read in x_G (its file is missing or does not parse)" if now is None
                         else "is missing from x_G" if name not in now
                         else "reads differently in x_G than at that bug's fix")
                return (f"{path}::{name}, changed by the test patch of {_title(atom)} (applied "
                        f"{methods[atom.id]}), {state}: a hunk landed in the wrong place")
        return ""

    def _fix_tree(self, tree: Worktree, mirror: Path, base: str, patch: str) -> str | None:
        key = (str(mirror), base, digest(patch))
        meter.reuse("repair: fix tree", key in _fix_trees)
        if key not in _fix_trees:
            _fix_trees[key] = tree.tree_with(base, patch)
        return _fix_trees[key]

    # -- admission ---------------------------------------------------------------------------------
    def check_reference(self, composite: Composite, atoms: Sequence[Atom]) -> Check:
        """(2): x_G with every gold patch passes all of F; F and the group's PASS_TO_PASS are derived here.

        The members' PASS_TO_PASS tests are run at x_G and with the gold patches: a test is kept only if
        it exists and passes in both (SWE-bench counts a missing one as failed, so a row listing it would
        fail its own gold patch). Each dropped test is in the evidence with why; the verifier keeps the
        derived list, which grading and the exported row use.
        """
        v = composite.verifier
        evidence: dict[str, Any] = {"c_star": v["base_commit"], "order": v["order"], "apply": v["apply"]}
        if v.get("reference_conflict"):
            return Check(False, v["reference_conflict"], evidence, reason=Reason.REFERENCE_CONFLICT)
        # The verifier that admits is the one that grades: a reference its rules refuse (a gold patch that
        # gains a capability, about 1 % of real commits) could not solve its own task.
        found = self.refusals(composite, composite.reference)
        if found:
            return Check(False, f"the grader would refuse the joint reference: {describe(found)}",
                         {**evidence, "rule": str(found[0].rule)}, reason=Reason.REFERENCE_REFUSED)
        wanted = list(dict.fromkeys(v["FAIL_TO_PASS"] + v["PASS_TO_PASS_listed"]))
        with self._session() as session:  # docker: the run with Ref(G) and the one at x_G share a container
            run, env = self._run(v, composite.reference, wanted, session)
            evidence.update(tests={t: run.status[t] for t in v["FAIL_TO_PASS"]}, seconds=run.seconds,
                            env=env.summary())
            failing = run.failing(v["FAIL_TO_PASS"])
            if failing:
                return Check(False, f"{len(failing)} of {len(v['FAIL_TO_PASS'])} tests of F do not pass with the "
                             f"gold patches: {_listing(failing, run)}", evidence)
            before = self._xg_run(v, wanted, session)
        listed = [t for t in wanted if t not in v["FAIL_TO_PASS"]]
        dropped = {t: (f"{before.status[t]} at x_G" if before.status[t] != "passed"
                       else f"{run.status[t]} with the gold patches")
                   for t in listed if before.status[t] != "passed" or run.status[t] != "passed"}
        v["PASS_TO_PASS"] = [t for t in listed if t not in dropped]
        evidence.update(pass_to_pass={t: "passed" for t in v["PASS_TO_PASS"]}, pass_to_pass_dropped=dropped)
        return Check(True, f"all {len(v['FAIL_TO_PASS'])} tests of F pass with the gold patches; "
                     f"{len(v['PASS_TO_PASS'])} PASS_TO_PASS tests pass before and after "
                     f"({len(dropped)} listed ones dropped)", evidence)

    def _xg_run(self, v: dict[str, Any], tests: list[str], session: Any = None) -> TestRun:
        key = digest(v["repo"], v["base_commit"], v["test_patch"], json.dumps(tests))
        meter.reuse("repair: tests at x_G", key in self._xg_runs)
        if key not in self._xg_runs:  # one run at x_G answers (1) for every position
            self._xg_runs[key] = self._run(v, "", tests, session)[0]
        return self._xg_runs[key]

    def _session(self) -> AbstractContextManager[Any]:
        """docker: a container the group's runs share (containers.Session); local: nothing to share."""
        if self.runtime.containers:
            from . import containers

            return containers.Session()
        return nullcontext()

    def check_unsolved(self, composite: Composite, atoms: Sequence[Atom], position: int) -> Check:
        """(1) for one atom: at x_G (no gold patch) at least one of its F_i tests fails."""
        v = composite.verifier
        wanted = list(dict.fromkeys(v["FAIL_TO_PASS"] + v["PASS_TO_PASS_listed"]))
        run = self._xg_run(v, wanted)  # the run check (2) made, when it came first
        atom = atoms[position]
        tests = v["fail_to_pass_by_atom"][atom.id]
        failing = run.failing(tests)
        evidence = {"tests": {t: run.status[t] for t in tests}}
        if failing:
            return Check(True, f"{_title(atom)}: {len(failing)} of {len(tests)} of its tests fail at x_G: "
                         f"{_listing(failing, run)}", evidence)
        return Check(False, f"{_title(atom)} is already solved at x_G: all {len(tests)} of its tests pass at "
                     f"c* {v['base_commit'][:12]}", evidence, reason=Reason.ATOM_SOLVED)

    def _run(self, v: dict[str, Any], patch: str, tests: list[str], session: Any = None) \
            -> tuple[TestRun, Env | Image]:
        """tests on x_G with patch applied (prepared in the cached worktree of c*, run in a one-commit copy);
        with a patch, the FAIL_TO_PASS tests also run renamed (channel.py)."""
        spec = EnvSpec.from_config(v["install_config"])
        with self.x_g(v, spec) as (tree, env, x_g):
            assert env is not None
            if tree.apply(patch, ("strict",)) is None:
                raise InfraError(f"a stored patch no longer applies to {v['base_commit'][:12]}")
            run = run_tests(env, tree, tests, spec.test_cmd, self.test_timeout, self.memory_mb, base=x_g,
                            renamed=v["FAIL_TO_PASS"] if patch else (), session=session, changed=_changed(patch))
        return run, env

    @contextmanager
    def x_g(self, v: Mapping[str, Any], spec: EnvSpec | None = None, *, fresh: bool = False) \
            -> Iterator[tuple[Worktree, Env | Image | None, str]]:
        """x_G, the one place it is made (the checks, grading, the agent's testbed and its candidate): c*'s
        worktree (the cached one, or a fresh one) with the task's test patches applied strictly, and x_G's
        tree id; with spec, the environment its tests run in too (prepared first: a local build runs in the
        pristine checkout)."""
        checkout = self.worktrees.fresh if fresh else self.worktrees.checkout
        with checkout(self._mirror(v), v["base_commit"]) as tree:
            env = self._env(v, spec, tree) if spec is not None else None
            if tree.apply(v["test_patch"], ("strict",)) is None:
                raise InfraError(f"the task's test patch no longer applies to {v['base_commit'][:12]}")
            yield tree, env, tree.tree()

    def write_x_g(self, v: Mapping[str, Any], into: Path, spec: EnvSpec | None = None) -> Env | Image | None:
        """x_G written to into (created) as every test run's tree is (Worktree.snapshot): a git repository
        whose one commit is x_G; the environment when spec is given."""
        with self.x_g(v, spec) as (tree, env, x_g):
            tree.snapshot(x_g, into)
        return env

    def _env(self, v: Mapping[str, Any], spec: EnvSpec, tree: Worktree) -> Env | Image:
        """Where the tests run: a cached virtualenv (local) or the task's image (docker)."""
        if self.runtime.containers:
            from . import containers  # the docker SDK only where the docker runtime is used

            image = containers.image_for(v, spec, self._mirror(v), no_pull=not self.runtime.pull)
            containers.prime(image, self.memory_mb)  # its start overlaps the preparation of the tree
            return image
        return self.envs.get(v["repo"], spec, tree)

    def _mirror(self, fields: Mapping[str, Any]) -> Path:
        return self.mirrors.ensure(fields["repo"], fields["clone_from"])

    def export_row(self, task: Task) -> dict[str, Any]:
        """The SWE-bench fields `cw tasks export` adds to a repair task's row; image_name is the row's image,
        else the one codewalk builds for the task's environment (codewalk-env/..., named at compose)."""
        return to_swebench_row(task)

    # -- grading -----------------------------------------------------------------------------------
    def grade(self, composite: Composite, candidate: str) -> Check:
        """V_G on a model patch (unified diff): applied to x_G in a fresh worktree, then F and P2P are run.

        Solved only if every FAIL_TO_PASS and every PASS_TO_PASS test passes. Refused: a patch that is not
        unified diff throughout, edits a test file, writes outside the repository (../, absolute, a
        symlink created or written through), or lands anything that decides how the interpreter or pytest
        starts or reports (guard.refusal, on every path that differs on disk from x_G: paths the diff does
        not name, configuration and start-up files, binary content, encodings other than utf-8, modules
        gaining capabilities such as frames, sys.modules or process control); the run neutralises the rest
        (env.run_tests), and its run-time guard watches the candidate's files while the tests run (a run it
        stops gives no verdict, its rule in evidence["rule"]). A run that gives no verdict is a failure when
        the reference gives one in the same environment (`_no_verdict`). The user's own clone is never touched: every worktree belongs to the
        codewalk mirror.
        """
        v = composite.verifier
        no_verdict: InfraError | None = None
        spec = EnvSpec.from_config(v["install_config"])
        tests = list(dict.fromkeys(v["FAIL_TO_PASS"] + v["PASS_TO_PASS"]))
        with self._landed(v, candidate, spec) as (tree, env, x_g, method, found):
            if found:
                return _refused(found, **({"apply": method} if method else {}))
            if method is None:
                return Check(False, "the patch does not apply to x_G (strict, 3-way or fuzzy)",
                             {"apply": None}, reason=Reason.DOES_NOT_APPLY)
            assert tree is not None and env is not None
            try:
                run = run_tests(env, tree, tests, spec.test_cmd, self.test_timeout, self.memory_mb,
                                config_from=x_g, renamed=v["FAIL_TO_PASS"], changed=_changed(candidate))
            except InfraError as e:
                no_verdict = e
        if no_verdict is not None:  # outside the candidate's worktree: the reference runs in its own
            return self._no_verdict(v, composite.reference, tests, no_verdict, method)
        failing = run.failing(tests)
        evidence = {"apply": method, "tests": run.status, "seconds": run.seconds, "env": env.summary(),
                    **_runtime_layer(run)}
        if failing:
            broken = [t for t in failing if t in v["PASS_TO_PASS"]]
            return Check(False, f"{len(failing)} of {len(tests)} tests fail ({len(broken)} of them "
                         f"PASS_TO_PASS): {_listing(failing, run)}", evidence)
        return Check(True, f"all {len(v['FAIL_TO_PASS'])} tests of F and {len(v['PASS_TO_PASS'])} "
                     "PASS_TO_PASS tests pass", evidence)

    def refusal(self, composite: Composite, candidate: str) -> str:
        """Why `grade` would refuse candidate, judged as it lands on x_G, without running a test ("" if none);
        each refusal names its rule in brackets (rules.Rule)."""
        return describe(self.refusals(composite, candidate))

    def refusals(self, composite: Composite, candidate: str) -> list[Refusal]:
        """Every refusal `grade` would make of candidate, without running a test ([] if none)."""
        with self._landed(composite.verifier, candidate, None) as (_, _, _, _, found):
            return found

    @contextmanager
    def _landed(self, v: dict[str, Any], candidate: str, spec: EnvSpec | None) \
            -> Iterator[tuple[Worktree | None, Env | Image | None, str, str | None, list[Refusal]]]:
        """(tree, env, x_g, apply method, refusals) with candidate applied on x_G in a fresh worktree; the
        environment only when spec is given (then a new top-level module is judged against what that
        environment imports without the tree, env.importable_names). Judged on what landed on disk (ignored and untracked files
        too), not on the patch text or the index: a tool may read a patch differently, and .gitignore
        hides files from `git add`."""
        protected = set(patch_files(v["test_patch"]))
        first = _refusal(candidate, protected)
        if first:
            yield None, None, "", None, [first]
            return
        with self.x_g(v, spec, fresh=True) as (tree, env, x_g):
            escapes = [p for d in parse_patch(candidate) for p in d.paths if _escapes(tree.path, p)]
            if escapes:
                yield tree, env, "", None, [Refusal(Rule.UNSAFE_PATH, escapes[0], 0, "writes through a symlink "
                                                    "out of the repository")]
                return
            at_x_g = snapshot(tree.path)
            method = tree.apply(candidate)
            if method is None:
                yield tree, env, x_g, None, []
                return
            now = snapshot(tree.path)
            paths = landed(at_x_g, now)
            changed = _changed_refusal(paths, tree.path, protected) or _not_source(paths, at_x_g, now)
            found = [changed] if changed else refused(
                paths, lambda p: tree.show(x_g, p), lambda p: _read(tree.path / p),
                named={p for d in parse_patch(candidate) for p in d.paths},
                tests=importable_test_names(list(at_x_g)), kinds=now, own=own_modules(at_x_g),
                importable=importable_names(env) if env is not None else frozenset(),
                tree=lambda: ((p, tree.show(x_g, p)) for p in at_x_g if p.endswith(".py") and not is_test_path(p)))
            found += [Refusal(Rule.TEST_SUPPORT, p, 0, why)
                      for p, why in test_support(paths, at_x_g, lambda p: tree.show(x_g, p), now)]
            yield tree, env, x_g, method, found

    def _no_verdict(self, v: dict[str, Any], reference: str, tests: list[str], error: InfraError, method: str) \
            -> Check:
        """A candidate's run that gives no verdict is a failure when the reference, run on x_G in the same
        environment, gives one; only when the reference cannot either is it an error (InfraError)."""
        key = digest(v["repo"], v["base_commit"], v["test_patch"], reference, json.dumps(tests))
        meter.reuse("repair: reference run", key in self._reference_runs)
        if key not in self._reference_runs:
            try:
                self._reference_runs[key] = self._run(v, reference, tests)[0]
            except InfraError as e:
                raise InfraError(f"no verdict for the candidate ({error}), nor for the reference ({e})") \
                    from None
        ref = self._reference_runs[key]
        evidence: dict[str, Any] = {"apply": method, "no_verdict": str(error), "reference_tests": ref.status}
        if isinstance(error, NoVerdict):  # the run-time guard stopped the run: its rule (and audit event)
            evidence["rule"] = error.rule
            if error.event:
                evidence["event"] = error.event
        return Check(False, f"the candidate's run gives no verdict ({error}); the reference gives one in the "
                     "same environment, so the candidate failed", evidence, reason=Reason.NO_VERDICT)


# -- export ------------------------------------------------------------------------------------------
def problem_statement(repo: str, c_star: str, tests: list[str]) -> str:
    """The task text in the style of the paper's App. A.1: the failing tests, maybe several bugs, not N."""
    listed = "\n".join(f"  {t}" for t in tests)
    return (f"The Python repository {repo} is checked out at commit {c_star[:12]}, with new tests added.\n"
            f"These tests FAIL:\n{listed}\n"
            "Fix the library source so that ALL of them pass. Note there may be more than one bug to fix.\n"
            "Do NOT edit the tests. Run a test with `python -m pytest <test id> -q`.\n")


def to_swebench_row(task: Task | Mapping[str, Any]) -> dict[str, Any]:
    """A SWE-bench compatible row for a repair task (a Task, or the dict `GraphStore.get_task` returns).

    created_at is the latest fix date of the group: the task exists only once every bug was fixed.
    """
    field = (lambda k: getattr(task, k)) if isinstance(task, Task) else task.__getitem__
    v = field("verifier")
    v = json.loads(v) if isinstance(v, str) else v
    return {
        "instance_id": field("id"), "repo": v["repo"], "base_commit": v["base_commit"],
        "patch": field("reference"), "test_patch": v["test_patch"], "problem_statement": field("prompt"),
        "FAIL_TO_PASS": v["FAIL_TO_PASS"], "PASS_TO_PASS": v["PASS_TO_PASS"], "created_at": v["created_at"],
        "environment_setup_commit": v.get("environment_setup_commit") or v["base_commit"],
        "image_name": v.get("image_name") or v.get("environment_image") or "", "install_config": v["install_config"],
        "atoms": v["order"], "apply_methods": v["apply"],
    }


# -- helpers -----------------------------------------------------------------------------------------
def _title(atom: Atom) -> str:
    return atom.summary.get("title") or atom.id


def _record(c_star: str, applied: list[dict[str, str]]) -> str:
    """What a rejection before any test run still records: c* and how each patch was applied so far."""
    done = "; ".join(f"{a['atom']} {a['patch']} {a['method']}" for a in applied) or "nothing"
    return f" [c* {c_star}; applied before: {done}]"


def _listing(failing: list[str], run: TestRun, most: int = 3) -> str:
    shown = ", ".join(f"{t} ({run.status.get(t, 'missing')})" for t in failing[:most])
    return shown + (f" and {len(failing) - most} more" if len(failing) > most else "")


def _refusal(candidate: str, protected: set[str]) -> Refusal | None:
    """Why a candidate patch is refused before it is applied, or None if it may be applied."""
    if not candidate.strip():
        return Refusal(Rule.EMPTY, "", 0, "the patch is empty")
    try:
        diffs = parse_patch(candidate)
    except ValueError as e:
        return Refusal(Rule.UNREADABLE_PATCH, "", 0, f"unreadable patch: {e}")
    if not diffs:
        return Refusal(Rule.EMPTY, "", 0, "no file diff found")
    why = not_unified(candidate)
    if why:
        return Refusal(Rule.BINARY if why.startswith("a binary change") else Rule.NOT_UNIFIED, "", 0,
                       f"it is not a unified diff throughout: {why}")
    for diff in diffs:
        if not diff.prefixed:
            return Refusal(Rule.UNPREFIXED, "", 0, "file paths must carry git's a/ and b/ prefixes")
        if diff.new_mode == "120000":
            return Refusal(Rule.SYMLINK, diff.new or "", 0, f"it creates the symlink {diff.new}")
        for path in diff.paths:
            why = unsafe_path(path)
            if why:
                return Refusal(Rule.UNSAFE_PATH, path, 0, why)
            if is_test_path(path) or path in protected:
                return Refusal(Rule.TEST_FILE, path, 0, f"it edits the test file {path}")
    return None


def _changed(patch: str) -> list[str]:
    """The files a patch writes: the run-time guard watches the frames of their code."""
    return sorted({p for d in parse_patch(patch) for p in d.paths}) if patch.strip() else []


def _runtime_layer(run: TestRun) -> dict[str, Any]:
    """What a verdict rests on at run time: the audit hook, or (Python 3.7 and older) the static layer alone;
    and what kept the tests from the process's files (/proc): the kernel (Landlock), or the hook alone; and
    what kept the test files from every process of the run: the kernel (Landlock), or the hook and digests; and
    what kept the runner's memory from the processes it starts: "not dumpable" (no ptrace, no process_vm_*)."""
    guard = {"proc_guard": run.proc_guard or "unknown: the harness did not say",
             "files_guard": run.files_guard or "unknown: the harness did not say",
             "memory_guard": run.memory_guard or "unknown: the runner did not say",
             "signal_guard": run.signal_guard or "unknown: the harness did not say",
             "data_kept": run.data_kept, "tree_kept": run.tree_kept}
    if run.audited:
        return {"runtime_guard": "audit hook and report path check", **guard}
    return {"runtime_guard": f"none: python {run.python} has no audit hooks (3.8+); graded on the static layer "
                             "and the report path check alone", **guard}


def _refused(found: list[Refusal], **evidence: Any) -> Check:
    """The verdict of a refused candidate: reason "refused", the first refusal's rule in evidence["rule"]."""
    why = describe(found)
    rules = list(dict.fromkeys(str(r.rule) for r in found))
    return Check(False, f"refused: {why}", {"refused": why, "rule": rules[0], "rules": rules, **evidence},
                 reason=Reason.REFUSED)


def _changed_refusal(changed: list[str], root: Path, protected: set[str]) -> Refusal | None:
    for path in changed:
        if is_test_path(path) or path in protected:
            return Refusal(Rule.TEST_FILE, path, 0, f"it changes the test file {path}")
        if (root / path).is_symlink():
            return Refusal(Rule.SYMLINK, path, 0, f"it creates the symlink {path}")
    return None


def _not_source(changed: list[str], before: dict, after: dict) -> Refusal | None:
    """A file's mode changed (round 15a: a candidate changes the content of Python modules only)."""
    for path in changed:
        old, new = before.get(path), after.get(path)
        if old and new and old[0] == new[0] == "file" and old[1] != new[1]:
            return Refusal(Rule.NOT_SOURCE, path, 0, "changes the file's mode")
    return None


def _read(file: Path) -> bytes | None:
    return file.read_bytes() if file.is_file() and not file.is_symlink() else None


def _escapes(root: Path, path: str) -> bool:
    """Whether writing path under root would land outside it (through a symlinked directory or file)."""
    return not (root / path).resolve().is_relative_to(root.resolve())
