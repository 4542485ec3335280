"""`cw mine repair` over several repositories in one run: two copies of tests/mine_fixture.py's repository
(the same commits under two names, as a fork and its origin), their candidates on one executor, resumed per
repository. The window stops at the fixture's third commit: one candidate each (the fix), run once. Real git,
real pytest runs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from codewalk.domains.repair.mine import Source, mine, mine_many
from tests import mine_fixture
from tests.run_cw import cw

pytestmark = pytest.mark.usefixtures("shared_home")

NAMES = ("calc/one", "calc/two")


@pytest.fixture(scope="module")
def two(tmp_path_factory, module_home):
    """Two clones of the fixture, a --repos file naming them, the window, and each one mined alone."""
    root = tmp_path_factory.mktemp("many")
    clones = [mine_fixture.build(root / name.split("/")[1]) for name in NAMES]
    until = clones[0].dates["tests"]  # initial, fix, nofix, tests: the fix is the one candidate
    listing = root / "repos.txt"
    listing.write_text("# two copies of calc\n\n" + "".join(f"{fx.clone}  {name}  # {name}\n"
                                                           for fx, name in zip(clones, NAMES, strict=True)))
    alone = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CODEWALK_HOME", str(module_home))
        for fx, name in zip(clones, NAMES, strict=True):
            out = root / f"{name.split('/')[1]}.jsonl"
            mine(str(fx.clone), out, name=name, until=until, runs=1)
            alone.append(out)
    return clones, listing, until, alone


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def _state(out: Path) -> list[dict]:
    return _rows(out.with_name(out.name + ".state"))


def _same(row: dict) -> tuple:
    """What mining decided for a row (timings and environment paths aside)."""
    return (row["repo"], row["fix_commit"], row["base_commit"], row["patch"], row["test_patch"],
            tuple(row["FAIL_TO_PASS"]), tuple(row["PASS_TO_PASS"]))


def _decided(out: Path) -> list[tuple[str, str, str, str]]:
    return sorted((s["repo"], s["commit"], s["status"], s["reason"]) for s in _state(out))


def test_two_repositories_mined_in_one_call_give_the_rows_of_two_single_calls(two, tmp_path, capsys):
    clones, listing, until, alone = two
    out = tmp_path / "rows.jsonl"
    code, stdout, stderr = cw(capsys, "mine", "repair", "--repos", str(listing), "--out", str(out), "--until", until,
                              "--runs", "1", "--workers", "2", "--json")
    assert code == 0, stderr
    summary = json.loads(stdout)
    assert [(r["repo"], r["scanned"], r["candidates"], r["kept"]) for r in summary["repositories"]] == [
        (name, 4, 1, 1) for name in NAMES]
    assert sorted(map(_same, _rows(out))) == sorted(_same(r) for path in alone for r in _rows(path))
    assert _decided(out) == sorted(d for path in alone for d in _decided(path))
    # the same commits under two names: each decided once per repository
    assert len({s["commit"] for s in _state(out)}) == len(_state(out)) // 2 == 4


def test_a_rerun_after_an_interruption_decides_nothing_twice(two, tmp_path, capsys):
    clones, listing, until, alone = two
    out = tmp_path / "rows.jsonl"

    def stop_after_the_first(done: int, total: int, _: object) -> None:
        if done >= 1:
            raise KeyboardInterrupt

    sources = [Source(str(fx.clone), name) for fx, name in zip(clones, NAMES, strict=True)]
    with pytest.raises(KeyboardInterrupt):
        mine_many(sources, out, until=until, runs=1, on_progress=stop_after_the_first)
    first = _decided(out)
    assert [d[0] for d in first] == ["calc/one"]  # its root commit; calc/two's, the same commit, is not decided
    code, stdout, stderr = cw(capsys, "mine", "repair", "--repos", str(listing), "--out", str(out), "--until", until,
                              "--runs", "1", "--workers", "1")
    assert code == 0, stderr
    assert "calc/one" in stdout and "calc/two" in stdout  # one table, a line per repository
    assert _decided(out) == sorted(d for path in alone for d in _decided(path))  # each commit once per repository
    assert len(_rows(out)) == 2


def test_a_repository_mined_alone_before_is_resumed_and_the_other_mined(two, tmp_path, capsys):
    clones, listing, until, alone = two
    out = tmp_path / "rows.jsonl"
    shutil.copy(alone[0], out)
    shutil.copy(alone[0].with_name(alone[0].name + ".state"), out.with_name(out.name + ".state"))
    code, stdout, stderr = cw(capsys, "mine", "repair", "--repos", str(listing), "--out", str(out), "--until", until,
                              "--runs", "1", "--workers", "1", "--json")
    assert code == 0, stderr
    got = {r["repo"]: (r["resumed"], r["scanned"]) for r in json.loads(stdout)["repositories"]}
    assert got == {"calc/one": (4, 4), "calc/two": (0, 4)}
    assert _decided(out) == sorted(d for path in alone for d in _decided(path))


@pytest.mark.parametrize("line, says", [
    ("{clone} calc/one extra", "expected a repository and at most its owner/name, got 3 fields"),
    ("{clone} not-a-name", "'not-a-name' is not owner/name"),
    ("{clone}/missing", "repository not found"),
    ("{clone} calc/three", "is listed twice"),
])
def test_a_bad_repos_line_names_file_and_line_and_writes_nothing(two, tmp_path, capsys, line, says):
    clones, _, _, _ = two
    listing = tmp_path / "repos.txt"
    listing.write_text(f"# repositories\n\n{clones[0].clone} calc/one\n" + line.format(clone=clones[0].clone) + "\n")
    out = tmp_path / "rows.jsonl"
    code, _, stderr = cw(capsys, "mine", "repair", "--repos", str(listing), "--out", str(out))
    assert code == 2
    said = " ".join(stderr.split())
    assert f"{listing}:4: " in said and says in said, stderr
    assert list(tmp_path.iterdir()) == [listing]


def test_name_with_several_repositories_is_refused(two, tmp_path, capsys):
    clones, _, _, _ = two
    out = tmp_path / "rows.jsonl"
    code, _, stderr = cw(capsys, "mine", "repair", str(clones[0].clone), str(clones[1].clone), "--out", str(out),
                         "--name", "calc/one")
    assert code == 2 and "--name names a single REPO" in " ".join(stderr.split())
    code, _, stderr = cw(capsys, "mine", "repair", str(clones[0].clone), "--repos", str(tmp_path / "none.txt"),
                         "--out", str(out))
    assert code == 2 and "none.txt: cannot read it" in " ".join(stderr.split())
    assert not out.exists()
