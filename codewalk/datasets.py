"""`cw data`: the four real datasets, where codewalk looks for them, whether they are the pinned ones,
and the exact steps that rebuild each one from its public upstream repository.

The pins live in `datasets.json` beside this module: per dataset, its upstream repositories at a commit,
and its files split into parts. Each part has a file count, a byte count and a tree digest: the
SHA-256 of the lines `<sha256 of the file>  <path>\\n` over the part's files sorted by path (the format
`sha256sum` prints, paths relative to the dataset folder). A part either has a builder here (a copy of
listed upstream paths, or a derivation written out below) or is marked as not reproducible, with the
reason (FEMPD's index was derived from a third-party export by hand; ACSL's wp-demo was written for this
project). `PROVENANCE.md` is documentation, in no part.

Nothing here touches the network except `git fetch` of a pinned commit from a URL; `--from` points at a
local clone or bare mirror instead. The data never enters the repository.
"""

from __future__ import annotations

import ast
import fnmatch
import hashlib
import json
import os
import re
import shutil
import subprocess
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import gitsafe, paths
from .errors import CodewalkError, UsageError

MANIFEST = Path(__file__).with_name("datasets.json")
PROVENANCE = "PROVENANCE.md"  # documentation: in no part, never digested


class DatasetError(CodewalkError):
    """A dataset cannot be fetched, or a folder that is there is not the pinned one."""

    exit_code = 8


# -- the manifest --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Source:
    repo: str  # owner/name on GitHub
    commit: str
    url: str  # where `cw data fetch` gets it without --from

    def as_dict(self) -> dict[str, str]:
        return {"repo": self.repo, "commit": self.commit, "url": self.url}


@dataclass(frozen=True)
class Part:
    name: str
    files: tuple[str, ...]  # fnmatch patterns over paths relative to the dataset folder ('*' crosses '/')
    count: int
    bytes: int
    digest: str  # sha256:<hex> over the sorted "<sha256>  <path>" lines
    how: str  # what produces it, in words
    reproducible: bool  # False: no builder; `cw data fetch` says so and leaves it out
    needed: bool = True  # False: codewalk never reads it (notes kept beside the data)


@dataclass(frozen=True)
class Dataset:
    name: str
    title: str
    licence: str
    citation: str
    note: str  # what a user of tasks made from it should know (the exported card's limitations)
    used_by: str  # the domain that reads it, and what it needs installed
    sources: tuple[Source, ...]
    parts: tuple[Part, ...]
    license_id: str = "unknown"  # the Hugging Face card's `license:` value for tasks made from it
    atoms: Mapping[str, str] = field(default_factory=dict)  # domain, and payload values, of atoms read from it

    def made(self, domain: str, payload: Mapping[str, Any]) -> bool:
        """Whether an atom of `domain` with this payload was read from this dataset."""
        return self.atoms.get("domain") == domain and all(
            payload.get(k) == v for k, v in self.atoms.items() if k != "domain")

    def source(self, repo: str) -> Source:
        for s in self.sources:
            if s.repo == repo:
                return s
        raise UsageError(f"dataset {self.name!r} has no source {repo!r} "
                         f"(its sources: {', '.join(s.repo for s in self.sources)})")

    def part_of(self, path: str) -> Part | None:
        """The first part whose patterns match `path` (parts are listed most specific first)."""
        if path == PROVENANCE:
            return None
        for part in self.parts:
            if any(fnmatch.fnmatchcase(path, p) for p in part.files):
                return part
        return None


def manifest(path: Path | None = None) -> dict[str, Dataset]:
    """The pinned datasets, by name (default: the datasets.json beside this module). A malformed
    manifest names the file and the record."""
    path = path or MANIFEST
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise DatasetError(f"{path}: cannot read the dataset manifest: {e}") from None
    out: dict[str, Dataset] = {}
    for name, d in raw.get("datasets", {}).items():
        try:
            sources = tuple(Source(s["repo"], s["commit"], s.get("url") or f"https://github.com/{s['repo']}.git")
                            for s in d["sources"])
            parts = tuple(Part(p["name"], tuple(p["files"]), int(p["count"]), int(p["bytes"]), p["digest"],
                               p["how"], bool(p["reproducible"]), bool(p.get("needed", True)))
                          for p in d["parts"])
            out[name] = Dataset(name, d["title"], d["licence"], d["citation"], d.get("note", ""), d["used_by"], sources, parts,
                                d.get("license_id", "unknown"), dict(d.get("atoms", {})))
        except (KeyError, TypeError, ValueError) as e:
            raise DatasetError(f"{path}: dataset {name!r}: malformed record ({type(e).__name__}: {e})") from None
    return out


def get(name: str, pins: Mapping[str, Dataset] | None = None) -> Dataset:
    pins = manifest() if pins is None else pins
    if name not in pins:
        raise UsageError(f"unknown dataset {name!r}; choose one of {', '.join(sorted(pins))} or all")
    return pins[name]


def names(which: str, pins: Mapping[str, Dataset] | None = None) -> list[str]:
    pins = manifest() if pins is None else pins
    return sorted(pins) if which == "all" else [get(which, pins).name]


# -- digests -------------------------------------------------------------------------------------
def sha256_file(path: Path) -> str:
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def tree_digest(entries: Iterable[tuple[str, str]]) -> str:
    """sha256 over `<sha256>  <path>\\n` lines sorted by path: what
    `find . -type f -printf '%P\\n' | LC_ALL=C sort | xargs -d '\\n' sha256sum | sha256sum` prints."""
    h = hashlib.sha256()
    for path, digest in sorted(entries):
        h.update(f"{digest}  {path}\n".encode())
    return "sha256:" + h.hexdigest()


def folder_files(root: Path) -> list[str]:
    """Every regular file under root, as sorted posix paths relative to it (symlinks followed)."""
    found = []
    for dirpath, _dirs, files in os.walk(root, followlinks=True):
        for f in files:
            found.append((Path(dirpath) / f).relative_to(root).as_posix())
    return sorted(found)


@dataclass(frozen=True)
class PartStatus:
    name: str
    state: str  # matches | differs | missing
    files: int
    bytes: int
    digest: str
    expected_files: int
    expected_digest: str
    reproducible: bool
    needed: bool
    how: str

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class DatasetStatus:
    name: str
    path: str
    present: bool
    parts: tuple[PartStatus, ...]
    unclaimed: tuple[str, ...] = ()  # files no part lists (not digested; PROVENANCE.md excluded)

    @property
    def state(self) -> str:
        """missing: no folder; differs: a part is there but is not the pinned one; incomplete: a part
        codewalk reads is absent; matches: every part codewalk reads is the pinned one."""
        if not self.present:
            return "missing"
        if any(p.state == "differs" for p in self.parts):
            return "differs"
        if any(p.needed and p.state == "missing" for p in self.parts):
            return "incomplete"
        return "matches"

    def part(self, name: str) -> PartStatus:
        return next(p for p in self.parts if p.name == name)

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "path": self.path, "present": self.present, "state": self.state,
                "parts": [p.as_dict() for p in self.parts], "unclaimed": list(self.unclaimed)}


def check(dataset: Dataset, folder: Path) -> DatasetStatus:
    """Compare `folder` with the pins of `dataset`, part by part."""
    if not folder.is_dir():
        return DatasetStatus(dataset.name, str(folder), False, tuple(
            PartStatus(p.name, "missing", 0, 0, "", p.count, p.digest, p.reproducible, p.needed, p.how)
            for p in dataset.parts))
    by_part: dict[str, list[tuple[str, str]]] = {p.name: [] for p in dataset.parts}
    sizes: dict[str, int] = dict.fromkeys(by_part, 0)
    unclaimed = []
    for rel in folder_files(folder):
        part = dataset.part_of(rel)
        if part is None:
            if rel != PROVENANCE:
                unclaimed.append(rel)
            continue
        path = folder / rel
        by_part[part.name].append((rel, sha256_file(path)))
        sizes[part.name] += path.stat().st_size
    parts = []
    for p in dataset.parts:
        entries = by_part[p.name]
        digest = tree_digest(entries) if entries else ""
        state = "missing" if not entries else "matches" if digest == p.digest else "differs"
        parts.append(PartStatus(p.name, state, len(entries), sizes[p.name], digest, p.count, p.digest,
                                p.reproducible, p.needed, p.how))
    return DatasetStatus(dataset.name, str(folder), True, tuple(parts), tuple(unclaimed))


def status(which: str = "all", root: Path | None = None) -> list[DatasetStatus]:
    """Each dataset (or the one named) as found under CODEWALK_SHARED/data (or `root`)."""
    pins = manifest()
    return [check(pins[n], (root / n) if root else paths.dataset(n)) for n in names(which, pins)]


# -- reading a pinned commit ---------------------------------------------------------------------
class GitTree:
    """Read-only view of one commit of a git repository (bare or not) on this machine."""

    def __init__(self, gitdir: Path, commit: str, label: str):
        self.gitdir, self.commit, self.label = gitdir, commit, label
        if _git(gitdir, "cat-file", "-e", f"{commit}^{{commit}}", check=False).returncode != 0:
            raise DatasetError(f"{label}: commit {commit} is not in {gitdir}")
        listing = _git(gitdir, "ls-tree", "-r", "-z", "--full-tree", commit).stdout
        self.blobs: dict[str, str] = {}
        for entry in listing.split(b"\0"):
            if entry:
                meta, path = entry.split(b"\t", 1)
                mode, kind, sha = meta.split()
                if kind == b"blob":
                    self.blobs[path.decode()] = sha.decode()

    def paths(self, prefix: str = "") -> list[str]:
        return sorted(p for p in self.blobs if p.startswith(prefix))

    def read(self, path: str) -> bytes:
        return next(iter(self.read_many([path])))[1]

    def read_many(self, wanted: Iterable[str]) -> Iterator[tuple[str, bytes]]:
        """(path, content) in the order asked, through one `git cat-file --batch`."""
        wanted = list(wanted)
        for path in wanted:
            if path not in self.blobs:
                raise DatasetError(f"{self.label}: {path} is not in commit {self.commit[:12]}")
        if not wanted:
            return
        request = "".join(self.blobs[p] + "\n" for p in wanted).encode()
        proc = subprocess.run(gitsafe.argv(["--git-dir", str(self.gitdir), "cat-file", "--batch"]), input=request,
                              capture_output=True, check=False, env=_git_env())
        if proc.returncode != 0:
            raise DatasetError(f"{self.label}: git cat-file failed: {proc.stderr.decode(errors='replace')}")
        data, at = proc.stdout, 0
        for path in wanted:
            end = data.index(b"\n", at)
            header = data[at:end].split()
            if len(header) != 3:
                raise DatasetError(f"{self.label}: {path} (blob {self.blobs[path][:12]}) is missing from "
                                   f"{self.gitdir}: {data[at:end].decode(errors='replace')}")
            size = int(header[2])
            yield path, data[end + 1:end + 1 + size]
            at = end + 1 + size + 1


def _git(gitdir: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    proc = subprocess.run(gitsafe.argv(["--git-dir", str(gitdir), *args]), capture_output=True, check=False,
                          env=_git_env())
    if check and proc.returncode != 0:
        raise DatasetError(f"git {' '.join(args)} in {gitdir}: {proc.stderr.decode(errors='replace').strip()}")
    return proc


def _git_env() -> dict[str, str]:
    return {**gitsafe.clean_environ(), **gitsafe.env()}  # the network settings pass, GIT_* of the caller not


def _gitdir(path: Path) -> Path:
    """The git dir of a clone (its .git) or of a bare repository."""
    proc = subprocess.run(gitsafe.argv(["-C", str(path), "rev-parse", "--absolute-git-dir"]), capture_output=True,
                          text=True, check=False, env=_git_env())
    if proc.returncode != 0:
        raise UsageError(f"--from {path}: not a git repository ({proc.stderr.strip()})")
    return Path(proc.stdout.strip())


def open_source(source: Source, origin: str | None, log: Callable[[str], None]) -> GitTree:
    """The pinned commit of `source`: read in place from a local repository, else fetched (depth 1)
    from a URL into the cache (`$CODEWALK_CACHE/datasets/<owner>+<name>.git`)."""
    where = origin or source.url
    local = Path(where).expanduser()
    if "://" not in where and local.exists():
        log(f"{source.repo}@{source.commit[:12]}: reading {local}")
        return GitTree(_gitdir(local), source.commit, source.repo)
    if "://" not in where and not where.startswith("git@"):
        raise UsageError(f"--from {where}: no such folder")
    cache = paths.cache("datasets") / (source.repo.replace("/", "+") + ".git")
    if not (cache / "HEAD").exists():
        cache.mkdir(parents=True, exist_ok=True)
        _git(cache, "init", "--bare", "--quiet")
    if _git(cache, "cat-file", "-e", f"{source.commit}^{{commit}}", check=False).returncode != 0:
        log(f"{source.repo}: git fetch --depth 1 {where} {source.commit}")
        proc = subprocess.run(gitsafe.argv(["--git-dir", str(cache), "fetch", "--quiet", "--depth", "1", where,
                                            source.commit]), capture_output=True, text=True, check=False,
                              env=_git_env())
        if proc.returncode != 0:
            raise DatasetError(f"{source.repo}: cannot fetch commit {source.commit} from {where}: "
                               f"{proc.stderr.strip()} (a local clone or mirror can be named with --from)")
    return GitTree(cache, source.commit, source.repo)


# -- the builders: the exact steps, one per reproducible part ---------------------------------------
Trees = Mapping[str, GitTree]
Files = Iterator[tuple[str, bytes]]  # (path relative to the dataset folder, content)


def _copy(tree: GitTree, mapping: Mapping[str, str]) -> Files:
    """Upstream path -> dataset path, verbatim."""
    for (_, data), dst in zip(tree.read_many(mapping), mapping.values(), strict=True):
        yield dst, data


def _verus(trees: Trees) -> Files:
    tree = trees["microsoft/verus-proof-synthesis"]
    base = "benchmarks/Verus-Bench/"
    keep = re.compile(r"(CloverBench|Diffy|MBPP|Misc)/(verified|unverified)/[^/]+\.rs|tasks\.jsonl")
    mapping = {p: p[len(base):] for p in tree.paths(base) if keep.fullmatch(p[len(base):])}
    yield from _copy(tree, {"LICENSE": "LICENSE", **mapping})


def _acsl(trees: Trees) -> Files:
    tree = trees["fraunhoferfokus/acsl-by-example"]
    base = "StandardAlgorithms/"
    keep = re.compile(r".*\.(c|h|acsl)|(.*/)?(examples|subdirs)\.list|Logic/README\.txt")
    mapping = {p: "acsl-by-example/" + p[len(base):] for p in tree.paths(base) if keep.fullmatch(p[len(base):])}
    yield from _copy(tree, {"LICENSE.md": "acsl-by-example/LICENSE.md", **mapping})


CC_TEST = "LLM-qlora/codecomplex-simple/test_dataset.json"


def _codecomplex(trees: Trees) -> Files:
    tree = trees["sybaik1/CodeComplex"]
    yield from _copy(tree, {CC_TEST: "codecomplex-simple_test_dataset.json", "data/tag_types.txt": "tag_types.txt"})


def _codecomplex_python(trees: Trees) -> Files:
    """python_test.jsonl: the rows of the LLM test split whose code Python's ast accepts."""
    yield "python_test.jsonl", codecomplex_python(trees["sybaik1/CodeComplex"].read(CC_TEST))


def codecomplex_python(split: bytes) -> bytes:
    """One record per Python row of codecomplex-simple/test_dataset.json (JSON Lines of chat messages):
    the code between the two 40-dash rulers of the user message, the label after `complexity: `."""
    ruler = "-" * 40
    out = []
    for row, line in enumerate(split.decode("utf-8").split("\n")):  # not splitlines: rows hold U+2028
        if not line.strip():
            continue
        messages = json.loads(line)["messages"]
        user, answer = messages[1]["content"], messages[2]["content"]
        if not user.startswith(ruler + "\n") or not answer.startswith("complexity: "):
            raise DatasetError(f"{CC_TEST}:{row + 1}: not the codecomplex-simple chat format")
        code = user[len(ruler) + 1:user.index("\n" + ruler + "\n", len(ruler)) + 1]  # with its last newline
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # invalid escapes in old submissions
                ast.parse(code)
        except (SyntaxError, ValueError):
            continue  # Java
        out.append({"id": f"cc-simple-test-{row:04d}", "source_row": row, "language": "python", "src": code,
                    "complexity": answer[len("complexity: "):], "problem": None,
                    "split": "codecomplex-simple/test"})
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in out).encode("utf-8")


FEMPX, NOPOL = "YoshikiHigo/FEMP-X", "PongphopLp/nopol_prep"
_WITNESS = re.compile(r"ClonePair\d+(DifferenceFinding|NoDifference)Test\.java")


def _fempx(trees: Trees) -> Files:
    tree = trees[FEMPX]
    mapping = {"LICENSE": "LICENSE-FEMP-X.txt"}
    for label in ("equivalent", "inequivalent"):
        for p in tree.paths(f"src/main/java/{label}/"):
            mapping[p] = f"labeled/pairs/{label}/{p.rsplit('/', 1)[1]}"
    for folder in ("equivalent", "inequivalent", "support", "metadata"):
        for p in tree.paths(f"src/test/java/{folder}/"):
            mapping[p] = f"labeled/witness_tests/{folder}/{p.rsplit('/', 1)[1]}"
    for p in tree.paths("src/test/java/unverified/"):
        if not _WITNESS.fullmatch(p.rsplit("/", 1)[1]):  # the helpers; the 11,516 tests are in the index
            mapping[p] = f"unverified/test_support/{p.rsplit('/', 1)[1]}"
    yield from _copy(tree, mapping)


def _evosuite(trees: Trees) -> Files:
    """nopol_prep's Pair<k> is the k-th smallest FEMP-X id among the equivalent pairs."""
    ids = sorted(int(m.group(1)) for p in trees[FEMPX].paths("src/main/java/equivalent/")
                 if (m := re.fullmatch(r"ClonePair(\d+)\.java", p.rsplit("/", 1)[1])))
    mapping = {}
    for k, pair in enumerate(ids, 1):
        for method in (1, 2):
            for f in ("Target_ESTest.java", "Target_ESTest_scaffolding.java"):
                mapping[f"data/Pair{k}/Pair{k}_Method{method}/test/{f}"] = \
                    f"labeled/evosuite/ClonePair{pair}/method{method}/{f}"
    yield from _copy(trees[NOPOL], mapping)


BUILDERS: dict[tuple[str, str], Callable[[Trees], Files]] = {
    ("verus-bench", "Verus-Bench"): _verus,
    ("acsl-bench", "acsl-by-example"): _acsl,
    ("codecomplex", "upstream"): _codecomplex,
    ("codecomplex", "python_test"): _codecomplex_python,
    ("fempd", "femp-x"): _fempx,
    ("fempd", "evosuite"): _evosuite,
}


# -- fetch ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class FetchResult:
    name: str
    path: str
    action: str  # fetched | copied (all from --copy) | already present | completed (absent parts added from --copy)
    status: DatasetStatus
    not_reproduced: tuple[str, ...] = field(default=())  # parts no builder makes, with the reason

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "path": self.path, "action": self.action, "state": self.status.state,
                "not_reproduced": list(self.not_reproduced), "status": self.status.as_dict()}


def copy_of(folder: Path, name: str) -> Path | None:
    """The copy of dataset `name` in a folder holding copies of several: a shared folder (data/NAME) or a
    data folder (NAME); None when it holds none."""
    for candidate in (folder / "data" / name, folder / name):
        if candidate.is_dir():
            return candidate
    return None


def origins(values: list[str], dataset: Dataset) -> dict[str, str]:
    """`--from` values as {repo: where}: `owner/name=PATH_OR_URL`, or a bare PATH_OR_URL when the
    dataset has one source."""
    out: dict[str, str] = {}
    for value in values:
        repo, sep, where = value.partition("=")
        if sep and "/" in repo and "://" not in repo:
            out[dataset.source(repo).repo] = where
        elif len(dataset.sources) == 1:
            out[dataset.sources[0].repo] = value
        else:
            raise UsageError(f"--from {value}: dataset {dataset.name!r} has {len(dataset.sources)} sources; "
                             f"write --from OWNER/NAME=PATH_OR_URL for each "
                             f"({', '.join(s.repo for s in dataset.sources)})")
    return out


def fetch(name: str, sources: Mapping[str, str] | None = None, root: Path | None = None,
          log: Callable[[str], None] = lambda _: None, pins: Mapping[str, Dataset] | None = None,
          copy_from: Path | None = None) -> FetchResult:
    """Build dataset `name` from its pinned upstream commits into `root/<name>` (default
    CODEWALK_SHARED/data/<name>), check every part it builds against its pinned digest, and only then
    move it into place. With `copy_from` (a copy of the dataset folder, e.g. a colleague's), every part
    the copy holds as pinned is taken from it, so a complete copy installs with no upstream at all; only
    the rebuildable parts it lacks (or holds changed) are built from upstream, and the parts no builder
    makes must come from it. Without a copy those are named as not fetched. A folder already there is
    left alone: when its reproducible parts match the pins nothing is done; when they differ it is
    refused."""
    dataset = get(name, pins)
    sources = dict(sources or {})
    target = (root / name) if root else paths.dataset(name)
    if copy_from is not None and not copy_from.is_dir():
        raise UsageError(f"--copy {copy_from}: no such folder")
    skipped = tuple(f"{p.name}: {p.how}" for p in dataset.parts if not p.reproducible and copy_from is None)
    if target.exists():
        found = check(dataset, target)
        bad = [p for p in found.parts if p.reproducible and p.state != "matches"]
        absent = [p for p in dataset.parts if not p.reproducible and found.part(p.name).state == "missing"]
        if not bad and copy_from is not None and absent:
            return _fill_in(dataset, absent, copy_from, target, log)
        if not bad:
            return FetchResult(name, str(target), "already present", found, skipped)
        raise DatasetError(
            f"{target} exists and is not the pinned {name}: " + "; ".join(
                f"part {p.name} {p.state} ({p.files} of {p.expected_files} files, {p.digest or 'no digest'} "
                f"vs pinned {p.expected_digest})" for p in bad)
            + ". Move it aside (nothing was changed) and fetch again")
    pinned_in_copy = set() if copy_from is None else {
        p.name for p in check(dataset, copy_from).parts if p.state == "matches"}
    upstream = [p for p in dataset.parts if p.reproducible and p.name not in pinned_in_copy]
    if copy_from is not None:
        for part in upstream:
            log(f"{name}/{part.name}: not in {copy_from} as pinned: built from upstream")
    # upstream is opened (fetched, for a URL) only for parts the copy cannot give
    trees = {s.repo: open_source(s, sources.get(s.repo), log) for s in dataset.sources} if upstream else {}
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = target.parent / f".{name}.fetch-{os.getpid()}"
    if staging.exists():
        shutil.rmtree(staging)
    try:
        for part in dataset.parts:
            if copy_from is not None and (part.name in pinned_in_copy or not part.reproducible):
                copied = _copy_part(dataset, part, copy_from, staging)
                log(f"{name}/{part.name}: copied {copied} files from {copy_from}")
                continue
            if not part.reproducible:
                log(f"{name}/{part.name}: not reproducible from upstream ({part.how})")
                continue
            builder = BUILDERS.get((name, part.name))
            if builder is None:
                raise DatasetError(f"{name}: part {part.name} is marked reproducible but has no builder")
            count = 0
            for rel, data in builder(trees):
                out = staging / rel
                if dataset.part_of(rel) is not part:
                    raise DatasetError(f"{name}/{part.name}: built {rel}, which the manifest puts in another part")
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(data)
                count += 1
            log(f"{name}/{part.name}: wrote {count} files")
        if copy_from is not None and not upstream and (copy_from / PROVENANCE).is_file():
            shutil.copyfile(copy_from / PROVENANCE, staging / PROVENANCE)  # the copy's, which may say more
        else:
            (staging / PROVENANCE).write_text(provenance(dataset), encoding="utf-8")
        built = check(dataset, staging)
        wrong = [p for p in built.parts if p.state != "matches" and (p.reproducible or p.files)]
        if wrong:
            raise DatasetError(f"{name}: the fetched files are not the pinned ones: " + "; ".join(
                f"part {p.name}: {p.files} files, {p.digest} vs pinned {p.expected_files} files, "
                f"{p.expected_digest}" for p in wrong) + f". Nothing was written to {target}")
        staging.rename(target)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    action = "copied" if copy_from is not None and not upstream else "fetched"
    return FetchResult(name, str(target), action, check(dataset, target), skipped)


def _fill_in(dataset: Dataset, parts: list[Part], source: Path, target: Path,
             log: Callable[[str], None]) -> FetchResult:
    """Add the parts no builder makes, absent from `target`, from a copy; each is checked before any of
    its files lands, and no file already there is replaced."""
    staging = target.parent / f".{dataset.name}.fetch-{os.getpid()}"
    if staging.exists():
        shutil.rmtree(staging)
    try:
        for part in parts:
            copied = _copy_part(dataset, part, source, staging)
            log(f"{dataset.name}/{part.name}: copied {copied} files from {source}")
        staged = check(dataset, staging)
        wrong = [p for p in staged.parts if p.files and p.state != "matches"]
        if wrong:
            raise DatasetError(f"{dataset.name}: the copied files are not the pinned ones: " + "; ".join(
                f"part {p.name}: {p.files} files, {p.digest} vs pinned {p.expected_files} files, "
                f"{p.expected_digest}" for p in wrong) + f". Nothing was written to {target}")
        for rel in folder_files(staging):
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            os.replace(staging / rel, target / rel)  # absent parts only: nothing there is replaced
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return FetchResult(dataset.name, str(target), "completed", check(dataset, target))


def _copy_part(dataset: Dataset, part: Part, source: Path, staging: Path) -> int:
    """Copy the files of `part` from a copy of the dataset folder; a needed part it lacks is an error."""
    files = [rel for rel in folder_files(source) if dataset.part_of(rel) is part]
    if not files and part.needed:
        raise DatasetError(f"--copy {source}: no file of part {part.name} ({', '.join(part.files)}) is there")
    for rel in files:
        (staging / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / rel, staging / rel)
    return len(files)


def provenance(dataset: Dataset) -> str:
    """The PROVENANCE.md `cw data fetch` writes: where each part came from, and what it left out."""
    lines = [f"# {dataset.title}: provenance (written by `cw data fetch {dataset.name}`)", "",
             f"Licence: {dataset.licence}", "", f"Citation: {dataset.citation}", "", "## Sources", ""]
    lines += [f"- `{s.repo}` at commit `{s.commit}` ({s.url})" for s in dataset.sources]
    lines += ["", "## Parts", ""]
    for p in dataset.parts:
        made = "built by `cw data fetch`" if p.reproducible else "**not reproduced by `cw data fetch`**"
        lines.append(f"- `{p.name}` ({p.count} files, {p.digest}), {made}: {p.how}")
    return "\n".join(lines) + "\n"
