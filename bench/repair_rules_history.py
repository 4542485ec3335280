"""What the repair grader's static rules cost honest fixes: the rules run over real repositories' histories.

Each non-merge commit that changes both a non-test `.py` file and a test file (SWE-bench's notion: under
`test/`, `tests/`, `testing/`, `test_*.py`, `*_test.py`, `conftest.py`) is taken as a task whose gold
patch is the commit's change to its non-test `.py` files, on x_G = its parent. The rules judge that gold
patch as the grader would judge a candidate's: (path, source at x_G or None, source at the commit or None)
for each changed module, the repository's own top-level module names at x_G, its test files at x_G,
and the names the task's environment can import. A refused commit is an honest fix the grader would
refuse. Target (issue 51): at most 2 % refused.

The rules come from the code tree given by --code (default: the repository this script sits in), so the
same corpus can be judged by today's main and by a branch:
- a tree whose `codewalk/domains/repair/rules.py` has `refusals` (the allow-list's entry point) is judged
  by it, given what guard.refused gives it (guard.own_modules, guard.importable_test_names);
- otherwise by `capabilities.new_uses` (the deny-list), with guard's encoding and shadowing checks.

The environment's importable names (the shadowing rule) are those of the interpreter running this script:
`sys.stdlib_module_names`, `sys.builtin_module_names` and the top-level names of its installed
distributions (`importlib.metadata.packages_distributions()`), less those of the repository's own
distribution (DISTRIBUTIONS) and of any distribution that provides one of its modules at x_G (a task's
environment has the repository at x_G, not a release of it). No pytest session is run to measure more.

The repositories are local git clones (here, public snapshots brought by the search tool's fetch); their
code is read with git and never written under bench/. The extracted corpus is cached (default
~/.cache/codewalk-bench/repair_rules_history/, one file per repository and HEAD), so a rerun only runs the
rules. Results: bench/results/repair_rules_history.{txt,json}, every refused commit listed.

    python bench/repair_rules_history.py [--code DIR [--commit SHA]] [--mirrors DIR]
        [--repos owner/name ...] [--repo owner/name=GITDIR ...] [--out bench/results/repair_rules_history]
        [--workers 1] [--judgements OUT.judged.tsv] [--render]

Each refused commit is listed with its findings and, when OUT.judged.tsv judges it, a verdict: wrong (an
honest fix refused wrongly), unusual (frames, code from text, the import system, the process, the test
runner) or era (Python 2 code). --render only attaches the judgements to existing results.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import functools
import gzip
import importlib
import importlib.metadata
import inspect
import json
import os
import pickle
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "repair_rules_history"
# Each refused commit judged, in OUT.judged.tsv beside the results (the findings differ between rule sets):
# repo, sha (12), verdict, one line. Verdicts: "wrong" (an honest fix the rules refuse wrongly), "unusual"
# (genuinely unusual code: frames, code from text, the import system, the process, the test runner), "era"
# (Python 2 code a Python 3 grader cannot read or import).
VERDICTS = ("wrong", "unusual", "era")
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "codewalk-bench" / "repair_rules_history"
REPOS = ["pallets/click", "psf/requests", "mahmoud/boltons", "python-attrs/attrs", "pytoolz/toolz",
         "more-itertools/more-itertools", "pallets/jinja", "pallets/werkzeug", "marshmallow-code/marshmallow"]
# The distribution each repository is released as: a release of it installed in this interpreter is not in
# the task's environment, which has the repository itself at x_G (Jinja2 here would make jinja's rename of
# its package to jinja2 shadow an installed distribution).
DISTRIBUTIONS = {"pallets/jinja": "Jinja2", "pallets/werkzeug": "Werkzeug", "psf/requests": "requests",
                 "python-attrs/attrs": "attrs", "pallets/click": "click", "mahmoud/boltons": "boltons",
                 "pytoolz/toolz": "toolz", "more-itertools/more-itertools": "more-itertools",
                 "marshmallow-code/marshmallow": "marshmallow"}
CORPUS_VERSION = 2  # bump when what is extracted changes
TEST_DIRS = {"test", "tests", "testing"}
TARGET = 0.02
FIX = re.compile(r"\bfix|\bbug|\bissue|#\d+|\berror|\bcorrect|\bbroken|\bregression", re.IGNORECASE)

Changed = tuple[str, bytes | None, bytes | None]  # (path, source at x_G, source at the commit)


def is_test_path(path: str) -> bool:
    """SWE-bench's notion of a test file (as codewalk.domains.repair.patch.is_test_path)."""
    parts = PurePosixPath(path).parts
    name = parts[-1] if parts else ""
    return (any(p.lower() in TEST_DIRS for p in parts[:-1]) or name.startswith("test_")
            or name.endswith(("_test.py", "_tests.py")) or name in ("conftest.py", "tests.py"))


# -- the corpus: extracted once per repository and HEAD, then cached ---------------------------------------

@dataclass
class Commit:
    sha: str
    parent: str
    date: str
    subject: str
    files: list[tuple[str, str | None, str | None]]  # (path, blob at x_G, blob at the commit)
    tops: list[str]  # the paths at x_G cut to 3 parts: enough for the top-level module names
    tests: list[str]  # the test .py files at x_G


@dataclass
class Corpus:
    repo: str
    head: str
    commits: list[Commit]
    blobs: dict[str, bytes] = field(default_factory=dict)

    def changed(self, commit: Commit) -> list[Changed]:
        return [(p, self.blobs[a] if a else None, self.blobs[b] if b else None) for p, a, b in commit.files]


class Git:
    def __init__(self, gitdir: Path):
        self.gitdir = gitdir
        self._cat: subprocess.Popen[bytes] | None = None

    def run(self, *args: str) -> str:
        return subprocess.run(["git", "--git-dir", str(self.gitdir), *args], capture_output=True, text=True,
                              check=True).stdout

    def blob(self, sha: str) -> bytes:
        if self._cat is None:
            self._cat = subprocess.Popen(["git", "--git-dir", str(self.gitdir), "cat-file", "--batch"],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self._cat.stdin and self._cat.stdout
        self._cat.stdin.write(sha.encode() + b"\n")
        self._cat.stdin.flush()
        header = self._cat.stdout.readline().split()
        if len(header) < 3 or header[1] != b"blob":
            raise SystemExit(f"{self.gitdir}: {sha} is not a blob ({header!r})")
        data = self._cat.stdout.read(int(header[2]))
        self._cat.stdout.read(1)
        return data

    def close(self) -> None:
        if self._cat is not None:
            self._cat.communicate()


def top_level_names(paths: list[str]) -> frozenset[str]:
    """The repository's top-level module names (for a code tree without guard.own_modules): top-level
    .py files and directories, at the root or under src/."""
    names: set[str] = set()
    for path in paths:
        parts = PurePosixPath(path).parts
        if parts[0] == "src" and len(parts) > 1:
            parts = parts[1:]
        if len(parts) == 1 and parts[0].endswith((".py", ".pyw")):
            names.add(parts[0].split(".")[0])
        elif len(parts) > 1:
            names.add(parts[0])
    return frozenset(n for n in names if n.isidentifier())


def extract(repo: str, gitdir: Path) -> Corpus:
    """Every non-merge commit of HEAD's history changing a non-test .py file and a test file."""
    git = Git(gitdir)
    head = git.run("rev-parse", "HEAD").strip()
    log = git.run("log", "--no-merges", "--no-renames", "--raw", "--no-abbrev", "--format=%x01%H %P%x02%cI%x02%s",
                  "HEAD")
    corpus = Corpus(repo, head, [])
    trees: dict[str, list[str]] = {}

    def tree(sha: str) -> list[str]:
        if sha not in trees:
            trees[sha] = git.run("ls-tree", "-r", "--name-only", "-z", sha).split("\0")[:-1]
        return trees[sha]

    for block in log.split("\x01")[1:]:
        head_line, _, raw = block.partition("\n")
        shas, date, subject = head_line.split("\x02", 2)
        sha, *parents = shas.split()
        if len(parents) != 1:  # a root commit has no x_G
            continue
        files: list[tuple[str, str | None, str | None]] = []
        touches_tests = False
        for line in raw.splitlines():
            if not line.startswith(":"):
                continue
            meta, _, path = line.partition("\t")
            old_mode, new_mode, old_blob, new_blob, _status = meta[1:].split()
            if path.startswith('"'):  # git quotes unusual names; none of them is a module we read
                continue
            if is_test_path(path):
                touches_tests = True
            elif path.endswith(".py") and {old_mode, new_mode} <= {"000000", "100644", "100755"}:
                files.append((path, None if set(old_blob) == {"0"} else old_blob,
                              None if set(new_blob) == {"0"} else new_blob))
        if not (files and touches_tests):
            continue
        for _, a, b in files:
            for blob in (a, b):
                if blob and blob not in corpus.blobs:
                    corpus.blobs[blob] = git.blob(blob)
        at_parent = tree(parents[0])
        tops = sorted({"/".join(PurePosixPath(p).parts[:3]) for p in at_parent})
        corpus.commits.append(Commit(sha, parents[0], date, subject, files, tops,
                                     [p for p in at_parent if p.endswith(".py") and is_test_path(p)]))
        if len(trees) > 64:
            trees.clear()
    git.close()
    return corpus


def load_corpus(repo: str, gitdir: Path, cache: Path) -> tuple[Corpus, bool]:
    """The repository's corpus, from the cache when its HEAD was extracted before; (corpus, cached)."""
    head = Git(gitdir).run("rev-parse", "HEAD").strip()
    path = cache / f"{repo.replace('/', '+')}-{head[:12]}-v{CORPUS_VERSION}.pickle.gz"
    if path.exists():
        with gzip.open(path, "rb") as handle:
            return pickle.load(handle), True  # our own cache file, written below
    corpus = extract(repo, gitdir)
    cache.mkdir(parents=True, exist_ok=True)
    part = path.with_suffix(f".{os.getpid()}.part")  # another run may be writing the same corpus
    with gzip.open(part, "wb", compresslevel=5) as handle:
        pickle.dump(corpus, handle)
    part.replace(path)
    return corpus, False


# -- the rules: imported from the code tree under test ----------------------------------------------------

@dataclass
class Finding:
    rule: str
    path: str
    line: int
    what: str


# (changed modules, paths at x_G cut to 3 parts, test files at x_G, environment names) -> findings
Judge = Callable[[list[Changed], list[str], list[str], frozenset[str]], list[Finding]]


@functools.cache
def _provides() -> dict[str, list[str]]:
    return dict(importlib.metadata.packages_distributions())


def environment_names() -> frozenset[str]:
    """What this interpreter imports without the tree: stdlib, builtin modules, installed distributions."""
    installed = set(_provides())
    return frozenset({*sys.stdlib_module_names, *sys.builtin_module_names, *installed})


def without_the_repository(env: frozenset[str], own: frozenset[str]) -> frozenset[str]:
    """env less every name of an installed distribution that provides one of the repository's own modules:
    a task's environment has the repository at x_G, not a release of it installed beside (this interpreter
    has toolz installed, whose release also installs `tlz`, a package toolz's history adds)."""
    provides = _provides()
    dists = {d for name in own for d in provides.get(name, ())}
    return env - {name for name, of in provides.items() if dists & set(of)}


@functools.cache
def environment_for(repo: str) -> frozenset[str]:
    """environment_names() less the names of the repository's own distribution (DISTRIBUTIONS)."""
    dist = _canonical(DISTRIBUTIONS.get(repo, repo.split("/")[-1]))
    return environment_names() - {name for name, of in _provides().items() if dist in map(_canonical, of)}


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def import_rules(code: Path) -> tuple[str, Any]:
    """(kind, module) of the rules in the code tree: ("allow-list", guard) when its rules.py has the
    static layer's entry point `refusals`, else ("deny-list", guard)."""
    sys.path.insert(0, str(code))
    for name in [m for m in sys.modules if m == "codewalk" or m.startswith("codewalk.")]:
        del sys.modules[name]
    try:
        rules = importlib.import_module("codewalk.domains.repair.rules")
    except ModuleNotFoundError:
        rules = None
    guard = importlib.import_module("codewalk.domains.repair.guard")
    if not Path(guard.__file__ or "").resolve().is_relative_to(code.resolve()):
        raise SystemExit(f"imported {guard.__file__}, not the code tree {code}")
    return ("allow-list" if rules is not None and hasattr(rules, "refusals") else "deny-list"), guard


NEW_USE = re.compile(r"^(?P<path>.+?):(?P<line>\d+) gains (?P<what>.+) \((?P<rule>[^()]+)\), which the changed "
                     r"modules did not use at x_G$")


def deny_list_judge(guard: Any) -> Judge:
    """Today's main: capabilities.new_uses, plus guard's utf-8 and shadowing checks on the .py files."""
    def judge(changed: list[Changed], tops: list[str], tests: list[str], env: frozenset[str]) -> list[Finding]:
        found: list[Finding] = []
        modules: list[tuple[str, str | None, bytes | None]] = []
        for path, old, new in changed:
            if new is None:
                modules.append((path, _text(old), new))
                continue
            if old is None and getattr(guard, "_shadows", None) and guard._shadows(path):
                found.append(Finding("shadows", path, 0, guard._shadows(path)))
            declared = guard.encoding(new)
            if declared not in ("utf-8", "utf-8-sig") and (old is None or guard.encoding(old) != declared):
                found.append(Finding("encoding", path, 0, f"declares the source encoding {declared}"))
                continue
            modules.append((path, _text(old), new))
        for line in guard.new_uses(modules, guard.importable_test_names(tests)):
            m = NEW_USE.match(line)
            if m:
                found.append(Finding(m["rule"], m["path"], int(m["line"]), m["what"]))
            else:
                found.append(Finding("unparseable", line.split(" ", 1)[0], 0, line))
        return found
    return judge


def allow_list_judge(guard: Any) -> Judge:
    """The allow-list: rules.refusals, the static layer's entry point, given what guard.refused gives it:
    own = guard.own_modules of the paths at x_G, tests = guard.importable_test_names of the tests at x_G."""
    rules = importlib.import_module("codewalk.domains.repair.rules")

    own_modules = getattr(guard, "own_modules", top_level_names)

    reads_the_tree = "tree" in inspect.signature(rules.refusals).parameters  # round 13 on

    def judge(changed: list[Changed], tops: list[str], tests: list[str], env: frozenset[str]) -> list[Finding]:
        own = frozenset(own_modules(tops))
        more = {"tree": _tree_at_x_g} if reads_the_tree and _X_G is not None else {}
        out = rules.refusals([(p, _text(old), new) for p, old, new in changed], own,
                             without_the_repository(env, own), tests=guard.importable_test_names(tests), **more)
        return [Finding(str(r.rule), r.path, int(r.line or 0), r.what) for r in out]
    return judge


def _tree_at_x_g() -> list[tuple[str, str | None]]:
    """The repository's .py files at the judged commit's x_G (path, text), read from its mirror when the rules ask
    (round 13: only when a third-party import would be refused)."""
    assert _X_G is not None
    gitdir, parent = _X_G
    git = Git(Path(gitdir))
    try:
        listing = git.run("ls-tree", "-r", "-z", parent).split("\0")[:-1]
        blobs = [(path, meta.split()[2]) for meta, _, path in (e.partition("\t") for e in listing)
                 if path.endswith(".py") and meta.split()[1] == "blob" and not is_test_path(path)]
        return [(path, _text(git.blob(blob))) for path, blob in blobs]
    finally:
        git.close()


def _text(source: bytes | None) -> str | None:
    """x_G's source as the grader reads it (git show, text)."""
    return None if source is None else source.decode("utf-8", errors="replace")


# -- running ----------------------------------------------------------------------------------------------

_JUDGE: Judge | None = None
_ENV: frozenset[str] = frozenset()
_X_G: tuple[str, str] | None = None  # (git dir, x_G) of the commit being judged, for _tree_at_x_g


def _init(code: str) -> None:
    global _JUDGE, _ENV
    kind, module = import_rules(Path(code))
    _JUDGE = allow_list_judge(module) if kind == "allow-list" else deny_list_judge(module)
    _ENV = environment_names()


def _judge_batch(batch: list[tuple[list[Changed], list[str], list[str], str, tuple[str, str]]]) \
        -> list[tuple[list[dict[str, Any]], str]]:
    """(findings, error) per commit."""
    global _X_G
    assert _JUDGE is not None
    out: list[tuple[list[dict[str, Any]], str]] = []
    for changed, tops, tests, repo, x_g in batch:
        _X_G = x_g
        try:
            out.append(([f.__dict__ for f in _JUDGE(changed, tops, tests, environment_for(repo))], ""))
        except Exception as e:  # noqa: BLE001 - a crash of the rules is a finding of this benchmark
            out.append(([], f"{type(e).__name__}: {e}"))
    return out


def syntax_errors(corpora: list[Corpus], cache: Path) -> dict[str, str]:
    """Why each blob does not parse with this Python ("" if it does), cached by blob."""
    path = cache / f"syntax-py{sys.version_info[0]}.{sys.version_info[1]}.pickle.gz"
    known: dict[str, str] = {}
    if path.exists():
        with gzip.open(path, "rb") as handle:
            known = pickle.load(handle)  # our own cache file, written below
    missing = {sha: data for corpus in corpora for sha, data in corpus.blobs.items() if sha not in known}
    if missing:
        known.update({sha: _syntax_error(data) for sha, data in missing.items()})
        part = path.with_suffix(f".{os.getpid()}.part")
        with gzip.open(part, "wb") as handle:
            pickle.dump(known, handle)
        part.replace(path)
    return known


def unreadable(commit: Commit, errors: dict[str, str]) -> str:
    """Why a changed module does not parse with this Python at x_G or at the commit ("" if all do)."""
    return next((f"{path}{' at x_G' if blob == old else ''}: {errors[blob]}" for path, old, new in commit.files
                 for blob in (old, new) if blob and errors[blob]), "")


def _syntax_error(source: bytes) -> str:
    try:
        ast.parse(source)
        return ""
    except SyntaxError as e:
        return f"{e.msg} (line {e.lineno})"
    except ValueError as e:
        return str(e)


def batches(items: list[Any], size: int) -> Iterator[list[Any]]:
    for k in range(0, len(items), size):
        yield items[k:k + size]


def tree_version(code: Path) -> str:
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(code), *args], capture_output=True, text=True).stdout.strip()
    sha = git("rev-parse", "--short", "HEAD")
    branch = git("rev-parse", "--abbrev-ref", "HEAD")
    dirty = git("status", "--porcelain", "--untracked-files=no", "--", "codewalk")
    return f"{branch} {sha}{' (uncommitted changes under codewalk/)' if dirty else ''}" if sha else "not a git tree"


def checkout(code: Path, commit: str, cache: Path) -> tuple[Path, str]:
    """The codewalk package of one commit of code's history, unpacked under cache; (folder, its version)."""
    def git(*args: str) -> bytes:
        return subprocess.run(["git", "-C", str(code), *args], capture_output=True, check=True).stdout
    sha = git("rev-parse", "--short", f"{commit}^{{commit}}").decode().strip()
    folder = cache / f"code-{sha}"
    if not folder.exists():
        part = cache / f"code-{sha}.{os.getpid()}.part"
        part.mkdir(parents=True, exist_ok=True)
        subprocess.run(["tar", "-x", "-C", str(part)], input=git("archive", sha, "codewalk"), check=True)
        try:
            part.replace(folder)
        except OSError:  # another run unpacked it first
            shutil.rmtree(part)
    subject = git("log", "-1", "--format=%s", sha).decode().strip()
    return folder, f"commit {sha}: {subject[:100]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", type=Path, default=ROOT, help="the codewalk tree whose rules are run")
    parser.add_argument("--commit", help="run the rules of this commit of --code's git history (not its work tree)")
    parser.add_argument("--mirrors", type=Path, default=os.environ.get("CODEWALK_BENCH_MIRRORS"),
                        help="folder of clones named OWNER+NAME/repo (default: CODEWALK_BENCH_MIRRORS)")
    parser.add_argument("--repos", nargs="*", default=REPOS, help="owner/name of each repository, under --mirrors")
    parser.add_argument("--repo", action="append", default=[], metavar="OWNER/NAME=GITDIR",
                        help="a repository elsewhere (repeatable; replaces --repos)")
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--out", type=Path, default=RESULTS, help="results stem (.txt and .json are written)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--judgements", type=Path, help="the refused commits judged (default: OUT.judged.tsv)")
    parser.add_argument("--recheck", type=Path, metavar="RECORD.json",
                        help="judge only the commits RECORD refused and those a change of the rules can newly refuse "
                             "(an added line matching --tokens); every other commit keeps RECORD's verdict (admitted)")
    parser.add_argument("--tokens", default=RECHECK_TOKENS,
                        help="with --recheck: what the tightened rules read, as a regular expression over added lines")
    parser.add_argument("--render", action="store_true",
                        help="only attach --judgements to the results at --out and write them again (no rules run)")
    args = parser.parse_args()
    args.judgements = args.judgements or args.out.with_name(args.out.name + ".judged.tsv")
    if args.render:
        record = json.loads(args.out.with_suffix(".json").read_text())
        write(attach(record, args.judgements), args.out)
        return
    if not args.repo and args.mirrors is None:
        parser.error("say where the repositories are: --mirrors DIR (or CODEWALK_BENCH_MIRRORS), or --repo")
    sources = [(r.split("=", 1)[0], Path(r.split("=", 1)[1])) for r in args.repo] or \
        [(r, args.mirrors / r.replace("/", "+") / "repo") for r in args.repos]

    start = time.monotonic()
    corpora = []
    for repo, gitdir in sources:
        t = time.monotonic()
        corpus, cached = load_corpus(repo, gitdir, args.cache)
        corpora.append(corpus)
        print(f"{repo}: {len(corpus.commits)} commits{' (cached)' if cached else ''} "
              f"in {time.monotonic() - t:.1f} s", file=sys.stderr)
    extract_seconds = time.monotonic() - start

    code = args.code.resolve()
    version = tree_version(code)
    if args.commit:
        code, version = checkout(code, args.commit, args.cache)
    _init(str(code))  # in this process too: fails early, and names the kind of rules
    kind = "allow-list (rules.refusals)" if _JUDGE and "allow" in _JUDGE.__qualname__ else \
        "deny-list (capabilities.new_uses, guard's encoding and shadowing checks)"
    errors = syntax_errors(corpora, args.cache)
    jobs = [(c, corpus.changed(c), c.tops, c.tests) for corpus in corpora for c in corpus.commits]
    repos = [corpus.repo for corpus in corpora for _ in corpus.commits]
    gitdirs = {repo: str(gitdir) for repo, gitdir in sources}
    work = [(changed, tops, tests, repo, (gitdirs[repo], commit.parent))
            for (commit, changed, tops, tests), repo in zip(jobs, repos, strict=True)]
    kept = rechecked(args.recheck, args.tokens, jobs, repos) if args.recheck else [False] * len(work)
    todo = [w for w, keep in zip(work, kept, strict=True) if not keep]
    t = time.monotonic()
    fresh: list[tuple[list[dict[str, Any]], str]] = []
    with ProcessPoolExecutor(args.workers, initializer=_init, initargs=(str(code),)) if args.workers > 1 \
            else contextlib.nullcontext() as pool:
        for batch in (pool.map(_judge_batch, batches(todo, 50)) if pool else map(_judge_batch, batches(todo, 50))):
            fresh += batch
            if len(fresh) % 500 == 0:
                print(f"{len(fresh)} of {len(todo)} commits judged, {time.monotonic() - t:.0f} s", file=sys.stderr)
    rules_seconds = time.monotonic() - t
    answers = iter(fresh)
    judged = [([], "") if keep else next(answers) for keep in kept]  # kept: admitted in the earlier record
    judged_with = [(found, unreadable(commit, errors), error)
                   for (commit, *_), (found, error) in zip(jobs, judged, strict=True)]

    # the record says how it was made, not where: this machine's folders as the option names them
    command = "python bench/repair_rules_history.py " + " ".join(
        {str(args.mirrors): "MIRRORS", str(args.code): "CODE"}.get(a, a) for a in map(shlex.quote, sys.argv[1:]))
    record = report(corpora, jobs, judged_with, command=command, code=f"--code ({version})", kind=kind,
                    env_size=len(_ENV), seconds=(extract_seconds, rules_seconds))
    if args.recheck:
        record["rechecked"] = {"record": str(args.recheck.name), "tokens": args.tokens, "judged": len(todo),
                               "kept": len(work) - len(todo)}
    write(attach(record, args.judgements), args.out)


# What the third round's tightenings read (issue 51): a namespace of `cls`/`self`, a dunder from-imported from
# the repository, a logger's stack_info/stacklevel/findCaller, logging beyond a module's logger; and what its
# allowances read, since a spelling allowed now no longer excuses a new node of the same capability at x_G
# (getattr & co, namespaces, three-argument type(), __setattr__).
RECHECK_TOKENS = (r"__dict__|stacklevel|stack_info|findCaller|import\s+__|logging|getattr|setattr|delattr|globals"
                  r"|locals|vars\(|type\(|__getattr__|__setattr__|__delattr__|super\(")


def rechecked(path: Path, tokens: str, jobs: list[tuple[Commit, list[Changed], list[str], list[str]]],
              repos: list[str]) -> list[bool]:
    """For --recheck: per commit, whether it keeps the earlier record's verdict (admitted there, and no added
    line matches tokens; a module holding `logging` with an added line naming a logger counts as matching,
    since the module-logger rule reads every use in the module)."""
    earlier = json.loads(path.read_text())
    refused = {(x["repo"], x["sha"]) for x in earlier["refused"]}
    pattern, logger = re.compile(tokens.encode()), re.compile(rb"log", re.IGNORECASE)

    def touched(changed: list[Changed]) -> bool:
        for _, old, new in changed:
            if new is None:
                continue
            before = set((old or b"").splitlines())
            for line in new.splitlines():
                if line not in before and (pattern.search(line) or b"logging" in new and logger.search(line)):
                    return True
        return False

    return [(repo, commit.sha) not in refused and not touched(changed)
            for (commit, changed, _, _), repo in zip(jobs, repos, strict=True)]


def write(record: dict[str, Any], out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(record, indent=1) + "\n")
    text = render(record)
    out.with_suffix(".txt").write_text(text)
    print(text)


def attach(record: dict[str, Any], path: Path) -> dict[str, Any]:
    """The record with each refused commit's judgement (from path, if it judges it) and their counts."""
    judged: dict[tuple[str, str], dict[str, str]] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                repo, sha, verdict, note = line.split("\t", 3)
                judged[(repo, sha[:12])] = {"verdict": verdict, "note": note}
    counts = Counter[str]()
    for x in record["refused"]:
        x["judgement"] = judged.get((x["repo"], x["sha"][:12]))
        counts[x["judgement"]["verdict"] if x["judgement"] else "not judged"] += 1
    record["judgements"] = {"file": str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path),
                            "counts": dict(counts)}
    return record


def report(corpora: list[Corpus], jobs: list[tuple[Commit, list[Changed], list[str], list[str]]],
           judged: list[tuple[list[dict[str, Any]], str, str]], *, command: str, code: str, kind: str,
           env_size: int, seconds: tuple[float, float]) -> dict[str, Any]:
    repo_of = {id(c): corpus.repo for corpus in corpora for c in corpus.commits}
    per_repo: dict[str, Counter[str]] = {corpus.repo: Counter() for corpus in corpora}
    per_rule: dict[str, Counter[str]] = {}
    only = Counter[str]()  # commits refused by this rule alone
    frequent = Counter[tuple[str, str]]()  # (rule, what without its particulars): commits
    refused = []
    errors = []
    for (commit, changed, _, _), (findings, syntax, error) in zip(jobs, judged, strict=True):
        readable = not syntax
        repo = repo_of[id(commit)]
        counts = per_repo[repo]
        counts["examined"] += 1
        counts["readable"] += readable
        named_fix = bool(FIX.search(commit.subject))
        counts["fix_named"] += named_fix
        if error:
            errors.append({"repo": repo, "sha": commit.sha, "error": error})
            counts["errors"] += 1
        if not findings:
            continue
        counts["refused"] += 1
        counts["refused_readable"] += readable
        counts["refused_fix_named"] += named_fix
        rules = sorted({f["rule"] for f in findings})
        for rule in rules:
            per_rule.setdefault(rule, Counter())[repo] += 1
        if len(rules) == 1:
            only[rules[0]] += 1
        frequent.update({(f["rule"], _kind(f["what"])) for f in findings})
        refused.append({"repo": repo, "sha": commit.sha, "date": commit.date, "subject": commit.subject,
                        "files": [p for p, _, _ in changed], "findings": findings, "syntax": syntax})
    total = Counter[str]()
    for counts in per_repo.values():
        total.update(counts)
    return {
        "command": command, "code": code, "rules": kind,
        "when": datetime.now(UTC).isoformat(timespec="minutes"),
        "python": sys.version.split()[0],
        "environment": f"{env_size} names: sys.stdlib_module_names, sys.builtin_module_names and the top-level "
                       f"names of the distributions installed for the interpreter that ran it, less the repository's own "
                       "distribution and any that provides one of its modules at x_G (the deny-list reads only the "
                       "standard library and the harness's modules)",
        "seconds": {"extract_or_load": round(seconds[0], 1), "rules": round(seconds[1], 1)},
        "target": TARGET,
        "repos": {r: {**dict(c), "head": next(x.head for x in corpora if x.repo == r)} for r, c in per_repo.items()},
        "total": dict(total),
        "rules_by_repo": {rule: dict(c) for rule, c in sorted(per_rule.items())},
        "rule_alone": dict(only),
        "frequent": [{"rule": rule, "what": what, "commits": n} for (rule, what), n in frequent.most_common()],
        "refused": refused,
        "errors": errors,
    }


def _kind(what: str) -> str:
    """A finding's text without its particulars (the allow-list's reminder, the spelling it was found as)."""
    return re.sub(r" \(as [^()]*\)$", "", re.sub(r", which (is|are) not in the allow-list.*", "", what))


def _judgement_line(r: dict[str, Any]) -> str:
    counts = r.get("judgements", {}).get("counts", {})
    parts = [f"{counts.get(v, 0)} {v}" for v in (*VERDICTS, "not judged") if counts.get(v)]
    wrong = counts.get("wrong", 0)
    return (f"refused commits as judged ({r.get('judgements', {}).get('file', '-')}: triage by the kind of "
            f"finding, read by hand where in doubt): {', '.join(parts) or 'none'}; wrong refusals "
            f"{_rate(wrong, r['total']['examined'])} of the examined commits (wrong: an honest fix refused wrongly; "
            "unusual: frames, code from text, the import system, the process or the test runner; era: Python 2 code)")


def _rate(refused: int, examined: int) -> str:
    return f"{refused / examined:.2%}" if examined else "-"


def render(r: dict[str, Any]) -> str:
    t = r["total"]
    lines = [
        f"command: {r['command']}",
        f"code: {r['code']}",
        f"rules: {r['rules']}",
        f"when: {r['when']} UTC; Python {r['python']}; extract/load {r['seconds']['extract_or_load']} s, "
        f"rules {r['seconds']['rules']} s",
        f"environment (shadowing): {r['environment']}",
        "corpus: every non-merge commit of each repository's HEAD history changing a non-test .py file and a "
        "test file; gold patch = its non-test .py changes, x_G = its parent",
        "readable: every changed module parses with this Python at x_G and at the commit (the others are "
        "mostly Python 2 era, a few use syntax newer than this Python's; the rules read nothing in a module "
        "that does not parse)",
        "",
        f"TOTAL: {t.get('refused', 0)} of {t['examined']} commits refused ({_rate(t.get('refused', 0), t['examined'])}; "
        f"target at most {r['target']:.0%}); of the {t['readable']} readable, {t.get('refused_readable', 0)} "
        f"({_rate(t.get('refused_readable', 0), t['readable'])}); rule crashes {t.get('errors', 0)}",
        _judgement_line(r),
        f"of the {t['fix_named']} whose subject names a fix (fix, bug, issue, #N, error, correct, broken, "
        f"regression): {t.get('refused_fix_named', 0)} refused ({_rate(t.get('refused_fix_named', 0), t['fix_named'])})",
        "",
        f"{'repository':32} {'examined':>8} {'refused':>8} {'rate':>7} {'readable':>8} {'refused':>8} {'rate':>7}",
    ]
    for repo, c in r["repos"].items():
        lines.append(f"{repo:32} {c['examined']:>8} {c.get('refused', 0):>8} "
                     f"{_rate(c.get('refused', 0), c['examined']):>7} {c.get('readable', 0):>8} "
                     f"{c.get('refused_readable', 0):>8} {_rate(c.get('refused_readable', 0), c.get('readable', 0)):>7}")
    lines += ["", "by rule: commits refused with at least one finding of the rule (a commit may count under several), "
              "and by that rule alone:"]
    width = max((len(rule) for rule in r["rules_by_repo"]), default=0)
    for rule, by_repo in r["rules_by_repo"].items():
        n = sum(by_repo.values())
        detail = ", ".join(f"{repo} {k}" for repo, k in sorted(by_repo.items(), key=lambda x: -x[1]))
        lines.append(f"  {rule:{width}} {n:>4} ({_rate(n, t['examined'])}), alone {r['rule_alone'].get(rule, 0):>4}  "
                     f"{detail}")
    lines += ["", "most frequent findings (commits refused with one):"]
    lines += [f"  {x['commits']:>4} {x['rule']}: {x['what']}" for x in r["frequent"][:40]]
    lines += ["", f"refused commits ({len(r['refused'])}): repo sha date subject / judgement / | rule path:line what"]
    for x in r["refused"]:
        lines.append(f"{x['repo']} {x['sha'][:12]} {x['date'][:10]} {x['subject'][:90]}")
        if x.get("judgement"):
            lines.append(f"    judged {x['judgement']['verdict']}: {x['judgement']['note']}")
        if x["syntax"]:
            lines.append(f"    (not readable by Python {r['python']}: {x['syntax']})")
        for f in x["findings"]:
            lines.append(f"    | {f['rule']} {f['path']}:{f['line']} {f['what']}")
    if r["errors"]:
        lines += ["", "rule crashes:"] + [f"{e['repo']} {e['sha'][:12]} {e['error']}" for e in r["errors"]]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
