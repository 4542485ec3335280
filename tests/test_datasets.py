"""`cw data`: the pinned datasets, their status, and fetching them from upstream at the pinned commit.

Two kinds of test. Synthetic ones build a small git repository and a manifest that pins it, and run
every step for real (git fetch --depth 1 over file://, digests, refusals); they need only git. The
reproduction tests rebuild each real dataset from a local mirror of its upstream repositories and
compare with the digests in codewalk/datasets.json; they skip, saying why, when no mirror is on this
machine (CODEWALK_TEST_MIRRORS: a folder of `<owner>+<name>/repo` git dirs; unset, they skip).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from codewalk import datasets
from codewalk.datasets import DatasetError
from codewalk.errors import UsageError
from tests.run_cw import cw
from tests.shared_data import require

MIRRORS = os.environ.get("CODEWALK_TEST_MIRRORS", "")


def _mirror(repo: str) -> Path:
    if not MIRRORS:
        pytest.skip(f"no local mirror of {repo}: CODEWALK_TEST_MIRRORS is unset (a folder of <owner>+<name>/repo "
                    "git dirs)")
    path = Path(MIRRORS) / repo.replace("/", "+") / "repo"
    if not (path / "HEAD").exists():
        pytest.skip(f"no local mirror of {repo} at {path} (set CODEWALK_TEST_MIRRORS to a folder of "
                    "<owner>+<name>/repo git dirs)")
    return path


# -- the real datasets ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(datasets.manifest()))
def test_each_dataset_rebuilt_from_its_upstream_mirror_has_the_pinned_digest(name, tmp_path):
    dataset = datasets.get(name)
    sources = {s.repo: str(_mirror(s.repo)) for s in dataset.sources}
    result = datasets.fetch(name, sources, root=tmp_path)
    assert result.action == "fetched"
    for part in result.status.parts:
        if part.reproducible:
            assert (part.state, part.files, part.digest) == ("matches", part.expected_files, part.expected_digest)
        else:  # said, not pretended
            assert part.state == "missing" and any(w.startswith(part.name + ":") for w in result.not_reproduced)
    provenance = (tmp_path / name / "PROVENANCE.md").read_text()
    assert all(s.commit in provenance for s in dataset.sources)
    assert not list(tmp_path.glob(".*"))  # no staging folder left behind


def test_the_shared_datasets_match_their_pins():
    for name in sorted(datasets.manifest()):
        require(name)
    found = {s.name: s.state for s in datasets.status()}
    assert found == dict.fromkeys(found, "matches")


def test_every_reproducible_part_has_a_builder_and_every_builder_a_part():
    parts = {(d.name, p.name) for d in datasets.manifest().values() for p in d.parts if p.reproducible}
    assert parts == set(datasets.BUILDERS)


def test_the_tree_digest_is_what_sha256sum_prints_over_the_sorted_files(tmp_path):
    for rel, text in {"b.txt": "b\n", "a/z.txt": "z", "a/é.txt": "é", "A.txt": ""}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    shell = subprocess.run("find . -type f -printf '%P\\n' | LC_ALL=C sort | xargs -d '\\n' sha256sum | sha256sum",
                           shell=True, cwd=tmp_path, capture_output=True, text=True, check=True).stdout.split()[0]
    entries = [(rel, datasets.sha256_file(tmp_path / rel)) for rel in datasets.folder_files(tmp_path)]
    assert datasets.tree_digest(entries) == "sha256:" + shell


def test_codecomplex_python_rows_keep_the_code_between_the_rulers_and_skip_java():
    def row(code: str, label: str) -> str:
        user = "-" * 40 + "\n" + code + "\n" + "-" * 40 + "\nCalculate the time complexity ..."
        return json.dumps({"messages": [{"role": "system", "content": "s"}, {"role": "user", "content": user},
                                        {"role": "assistant", "content": f"complexity: {label}"}]})

    split = "\n".join([row("class A { public static void main(String[] a) {} }", "constant"),
                       row("print('标准')\n", "linear")]) + "\n"
    out = [json.loads(line) for line in datasets.codecomplex_python(split.encode()).decode().splitlines()]
    assert out == [{"id": "cc-simple-test-0001", "source_row": 1, "language": "python", "src": "print('标准')\n\n",
                    "complexity": "linear", "problem": None, "split": "codecomplex-simple/test"}]
    with pytest.raises(DatasetError, match=r"test_dataset.json:1: not the codecomplex-simple chat format"):
        datasets.codecomplex_python(b'{"messages": [{}, {"content": "x"}, {"content": "y"}]}\n')


# -- a synthetic upstream: every step for real, with git only ---------------------------------------
def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                          capture_output=True, text=True, check=True).stdout.strip()


NOTES_DIGEST = datasets.tree_digest([("notes/a.txt", hashlib.sha256(b"hello\n").hexdigest())])


@pytest.fixture
def upstream(tmp_path, monkeypatch):
    """A git repository laid out like microsoft/verus-proof-synthesis, a manifest pinning its first
    commit as 'verus-bench' (a later commit changes a file) with a second part no builder makes, and
    CODEWALK_SHARED and CODEWALK_CACHE in tmp_path."""
    repo = tmp_path / "upstream"
    files = {"LICENSE": "MIT\n", "benchmarks/Verus-Bench/tasks.jsonl": '{"task_id": 1}\n',
             "benchmarks/Verus-Bench/MBPP/verified/a.rs": "fn a() {}\n",
             "benchmarks/Verus-Bench/MBPP/unverified/a.rs": "fn a() {\n}\n",
             "benchmarks/Verus-Bench/MBPP/note": "not copied\n", "README.md": "not copied\n"}
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "pinned")
    commit = _git(repo, "rev-parse", "HEAD")
    kept = {dst: datasets.sha256_file(repo / src) for src, dst in
            [("LICENSE", "LICENSE")] + [(k, k.removeprefix("benchmarks/Verus-Bench/")) for k in files
                                        if k.endswith((".rs", ".jsonl"))]}
    (repo / "benchmarks/Verus-Bench/tasks.jsonl").write_text('{"task_id": 2}\n')
    _git(repo, "commit", "-qam", "later")
    pins = {"datasets": {"verus-bench": {
        "title": "t", "licence": "MIT", "citation": "c", "used_by": "proofs",
        "sources": [{"repo": "microsoft/verus-proof-synthesis", "commit": commit, "url": f"file://{repo}"}],
        "parts": [{"name": "notes", "files": ["notes/*"], "count": 1, "bytes": 6, "digest": NOTES_DIGEST,
                   "reproducible": False, "needed": False, "how": "written by hand here"},
                  {"name": "Verus-Bench", "files": ["*"], "count": len(kept), "bytes": 0,
                   "digest": datasets.tree_digest(kept.items()), "reproducible": True, "how": "copy"}]}}}
    manifest = tmp_path / "datasets.json"
    manifest.write_text(json.dumps(pins))
    monkeypatch.setattr(datasets, "MANIFEST", manifest)
    monkeypatch.setenv("CODEWALK_SHARED", str(tmp_path / "shared"))
    monkeypatch.setenv("CODEWALK_CACHE", str(tmp_path / "cache"))
    return repo


def test_fetch_by_url_takes_the_pinned_commit_not_the_newest(upstream, tmp_path):
    result = datasets.fetch("verus-bench")
    target = tmp_path / "shared" / "data" / "verus-bench"
    assert result.action == "fetched" and result.status.state == "matches" and Path(result.path) == target
    assert (target / "tasks.jsonl").read_text() == '{"task_id": 1}\n'
    assert sorted(datasets.folder_files(target)) == ["LICENSE", "MBPP/unverified/a.rs", "MBPP/verified/a.rs",
                                                     "PROVENANCE.md", "tasks.jsonl"]
    assert (tmp_path / "cache" / "datasets" / "microsoft+verus-proof-synthesis.git").is_dir()
    assert result.not_reproduced == ("notes: written by hand here",)  # and, not needed, it is no gap


def test_fetch_again_leaves_a_matching_folder_alone(upstream):
    first = datasets.fetch("verus-bench", {"microsoft/verus-proof-synthesis": str(upstream)})
    stamp = (Path(first.path) / "tasks.jsonl").stat().st_mtime_ns
    again = datasets.fetch("verus-bench", {"microsoft/verus-proof-synthesis": str(upstream)})
    assert again.action == "already present" and again.status.state == "matches"
    assert (Path(first.path) / "tasks.jsonl").stat().st_mtime_ns == stamp


def test_fetch_refuses_a_folder_that_differs_and_changes_nothing(upstream):
    target = Path(datasets.fetch("verus-bench", {"microsoft/verus-proof-synthesis": str(upstream)}).path)
    (target / "tasks.jsonl").write_text("edited by hand\n")
    with pytest.raises(DatasetError, match=r"verus-bench exists and is not the pinned verus-bench: part "
                                           r"Verus-Bench differs .*Move it aside"):
        datasets.fetch("verus-bench", {"microsoft/verus-proof-synthesis": str(upstream)})
    assert (target / "tasks.jsonl").read_text() == "edited by hand\n"
    assert datasets.status("verus-bench")[0].state == "differs"


def test_fetch_checks_the_pins_before_anything_lands(upstream, tmp_path):
    pins = json.loads(datasets.MANIFEST.read_text())
    pins["datasets"]["verus-bench"]["parts"][1]["digest"] = "sha256:" + "0" * 64
    datasets.MANIFEST.write_text(json.dumps(pins))
    with pytest.raises(DatasetError, match="the fetched files are not the pinned ones: part Verus-Bench"):
        datasets.fetch("verus-bench", {"microsoft/verus-proof-synthesis": str(upstream)})
    assert os.listdir(tmp_path / "shared" / "data") == []  # neither the dataset nor a staging folder


def test_fetch_names_a_commit_the_source_lacks_and_a_blob_missing_from_a_mirror(upstream, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    _git(other, "init", "-q")
    _git(other, "commit", "-q", "--allow-empty", "-m", "x")
    with pytest.raises(DatasetError, match=r"microsoft/verus-proof-synthesis: commit [0-9a-f]{40} is not in"):
        datasets.fetch("verus-bench", {"microsoft/verus-proof-synthesis": str(other)})
    # a mirror that lists a file whose content it lacks (as partial snapshots do); commits made here are loose
    broken = tmp_path / "broken.git"
    shutil.copytree(upstream / ".git", broken)
    blob = _git(upstream, "rev-parse", f"{datasets.get('verus-bench').sources[0].commit}:LICENSE")
    (broken / "objects" / blob[:2] / blob[2:]).unlink()
    with pytest.raises(DatasetError, match=rf"LICENSE \(blob {blob[:12]}\) is missing from"):
        datasets.fetch("verus-bench", {"microsoft/verus-proof-synthesis": str(broken)})
    assert os.listdir(tmp_path / "shared" / "data") == []


def test_copy_takes_the_parts_no_builder_makes_and_checks_their_pins(upstream, tmp_path):
    copy = tmp_path / "colleague" / "verus-bench"
    (copy / "notes").mkdir(parents=True)
    (copy / "notes" / "a.txt").write_text("hello\n")
    (copy / "tasks.jsonl").write_text("a rebuilt part is never copied\n")
    result = datasets.fetch("verus-bench", {"microsoft/verus-proof-synthesis": str(upstream)}, copy_from=copy)
    assert result.not_reproduced == () and [p.state for p in result.status.parts] == ["matches", "matches"]
    assert (Path(result.path) / "tasks.jsonl").read_text() == '{"task_id": 1}\n'
    shutil.rmtree(result.path)
    (copy / "notes" / "a.txt").write_text("edited\n")
    with pytest.raises(DatasetError, match="the fetched files are not the pinned ones: part notes"):
        datasets.fetch("verus-bench", {"microsoft/verus-proof-synthesis": str(upstream)}, copy_from=copy)
    assert not Path(result.path).exists()
    pins = json.loads(datasets.MANIFEST.read_text())
    pins["datasets"]["verus-bench"]["parts"][0]["needed"] = True
    datasets.MANIFEST.write_text(json.dumps(pins))
    shutil.rmtree(copy / "notes")
    with pytest.raises(DatasetError, match=r"--copy .*: no file of part notes \(notes/\*\) is there"):
        datasets.fetch("verus-bench", {"microsoft/verus-proof-synthesis": str(upstream)}, copy_from=copy)


def test_copy_completes_a_fetched_folder_with_its_absent_parts_only(upstream, tmp_path):
    first = datasets.fetch("verus-bench", {"microsoft/verus-proof-synthesis": str(upstream)})
    assert first.status.part("notes").state == "missing"
    copy = tmp_path / "colleague"
    (copy / "notes").mkdir(parents=True)
    (copy / "notes" / "a.txt").write_text("edited\n")
    with pytest.raises(DatasetError, match="the copied files are not the pinned ones: part notes"):
        datasets.fetch("verus-bench", copy_from=copy)
    assert not (Path(first.path) / "notes").exists()
    (copy / "notes" / "a.txt").write_text("hello\n")
    (copy / "tasks.jsonl").write_text("never copied over the fetched file\n")
    done = datasets.fetch("verus-bench", copy_from=copy)
    assert done.action == "completed" and [p.state for p in done.status.parts] == ["matches", "matches"]
    assert (Path(first.path) / "tasks.jsonl").read_text() == '{"task_id": 1}\n'
    assert datasets.fetch("verus-bench", copy_from=copy).action == "already present"


def test_fempd_from_its_two_mirrors_and_a_copy_of_its_index_is_the_whole_pinned_dataset(tmp_path):
    shared = require("fempd")
    sources = {s.repo: str(_mirror(s.repo)) for s in datasets.get("fempd").sources}
    result = datasets.fetch("fempd", sources, root=tmp_path, copy_from=shared)
    assert result.status.state == "matches" and {p.state for p in result.status.parts} == {"matches"}


def test_from_needs_owner_name_for_a_dataset_of_two_sources():
    fempd = datasets.get("fempd")
    assert datasets.origins(["YoshikiHigo/FEMP-X=/m/a", "PongphopLp/nopol_prep=https://x/y.git"], fempd) == {
        "YoshikiHigo/FEMP-X": "/m/a", "PongphopLp/nopol_prep": "https://x/y.git"}
    with pytest.raises(UsageError, match="has 2 sources; write --from OWNER/NAME=PATH_OR_URL"):
        datasets.origins(["/m/a"], fempd)
    with pytest.raises(UsageError, match="has no source 'someone/else'"):
        datasets.origins(["someone/else=/m/a"], fempd)
    assert datasets.origins(["https://mirror/v.git"], datasets.get("verus-bench")) == {
        "microsoft/verus-proof-synthesis": "https://mirror/v.git"}


def test_status_tells_missing_incomplete_and_unclaimed_files(tmp_path):
    acsl = datasets.get("acsl-bench")
    assert datasets.check(acsl, tmp_path / "nowhere").state == "missing"
    folder = tmp_path / "acsl-bench"
    (folder / "acsl-by-example").mkdir(parents=True)
    (folder / "acsl-by-example" / "x.c").write_text("int x;\n")
    (folder / "stray.txt").write_text("?")
    (folder / "PROVENANCE.md").write_text("docs, never digested")
    found = datasets.check(acsl, folder)
    assert found.state == "differs" and found.unclaimed == ("stray.txt",)
    fempd = datasets.get("fempd")
    (tmp_path / "fempd" / "labeled").mkdir(parents=True)
    assert datasets.check(fempd, tmp_path / "fempd").state == "incomplete"  # there, but no part in it


def test_a_malformed_manifest_names_the_file_and_the_dataset(tmp_path):
    bad = tmp_path / "datasets.json"
    bad.write_text(json.dumps({"datasets": {"x": {"title": "t"}}}))
    with pytest.raises(DatasetError, match=rf"{bad}: dataset 'x': malformed record \(KeyError"):
        datasets.manifest(bad)
    bad.write_text("{")
    with pytest.raises(DatasetError, match=rf"{bad}: cannot read the dataset manifest"):
        datasets.manifest(bad)


# -- the CLI ------------------------------------------------------------------------------------------
def test_cli_status_exits_8_unless_every_dataset_matches(capsys, upstream):
    code, out, _ = cw(capsys, "data", "status", "--json")
    assert code == 8 and [(d["name"], d["state"]) for d in json.loads(out)] == [("verus-bench", "missing")]
    code, out, err = cw(capsys, "data", "fetch", "verus-bench", "--from", str(upstream))
    assert code == 0 and "fetched" in out
    code, out, _ = cw(capsys, "data", "status")
    assert code == 0 and "matches" in out


def test_cli_fetch_prints_what_it_cannot_rebuild_and_takes_from_for_one_dataset_only(capsys, upstream):
    code, out, err = cw(capsys, "data", "fetch", "verus-bench", "--from", str(upstream))
    assert code == 0 and "verus-bench: not fetched: notes: written by hand here" in out
    assert "reading" in err and "wrote 4 files" in err
    code, _, err = cw(capsys, "data", "fetch", "all", "--from", str(upstream))
    assert code == 2 and "fetch them one by one" in err


def test_cli_fetch_of_a_two_source_dataset_wants_owner_name_in_from(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("CODEWALK_SHARED", str(tmp_path / "shared"))
    code, _, err = cw(capsys, "data", "fetch", "fempd", "--from", "/nowhere")
    assert code == 2 and "write --from OWNER/NAME=PATH_OR_URL for each" in err
    assert not (tmp_path / "shared").exists()


# -- installing from a copy, and fetch all -----------------------------------------------------------
def test_fetch_all_from_a_complete_copy_installs_every_dataset_without_going_upstream(capsys, tmp_path, monkeypatch):
    """The shared datasets as a colleague's copy: `cw data fetch all --copy DIR` installs each, checked
    against its pins, without opening any upstream repository (offline)."""
    copy = require("codecomplex").parent
    for name in datasets.manifest():
        require(name)

    def upstream(source, *_):
        raise AssertionError(f"went upstream for {source.repo}")

    monkeypatch.setattr(datasets, "open_source", upstream)
    monkeypatch.setenv("CODEWALK_SHARED", str(tmp_path / "shared"))
    code, out, err = cw(capsys, "data", "fetch", "codecomplex", "--copy", str(copy / "codecomplex"), "--json")
    assert code == 0 and [(r["name"], r["action"], r["state"]) for r in json.loads(out)] == [
        ("codecomplex", "copied", "matches")], err
    code, out, err = cw(capsys, "data", "fetch", "all", "--copy", str(copy), "--json")
    assert code == 0, err
    assert {(r["name"], r["action"], r["state"]) for r in json.loads(out)} == {
        ("codecomplex", "already present", "matches")} | {
        (n, "copied", "matches") for n in datasets.manifest() if n != "codecomplex"}
    assert cw(capsys, "data", "status")[0] == 0


def test_fetch_all_reports_every_dataset_and_exits_8_only_at_the_end(capsys, upstream, tmp_path):
    """A dataset whose upstream cannot be reached does not stop the others: each is reported, then exit 8."""
    pins = json.loads(datasets.MANIFEST.read_text())
    pins["datasets"]["aaa-unreachable"] = dict(pins["datasets"]["verus-bench"], sources=[
        {"repo": "microsoft/verus-proof-synthesis", "commit": "0" * 40, "url": f"file://{tmp_path}/nowhere"}])
    datasets.MANIFEST.write_text(json.dumps(pins))
    code, out, err = cw(capsys, "data", "fetch", "all")
    assert code == 8
    assert re.search(r"aaa-unreachable\s.*failed", out) and re.search(r"verus-bench\s.*fetched\s.*matches", out)
    assert "error: 1 of 2 datasets not fetched: aaa-unreachable: " in err
    assert datasets.status("verus-bench")[0].state == "matches"
