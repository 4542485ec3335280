"""`cw release` on the demo domain: plans, quotas, reuse of what the store admitted, byte-identical rebuilds,
the release folder, and `cw release verify` catching tampering."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from codewalk import release
from codewalk.errors import UsageError
from codewalk.loaders.demo import CATALOGUE
from codewalk.loading import load
from codewalk.records import Task
from codewalk.splits import Splits
from codewalk.store import open_store
from tests.run_cw import cw


def _plan(tmp_path: Path, text: str, name: str = "plan.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _demo_store(path: Path):
    store = open_store(path)
    load(store, "demo", Path(CATALOGUE))
    return store


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_every_built_in_domain_ships_a_default_plan_of_the_papers_shape():
    shapes = {"repair": {1: 200, 2: 200, 3: 168}, "proofs": {1: 100, 2: 100, 3: 100, 10: 100},
              "complexity": {1: 80, 2: 80, 3: 80, 10: 80}, "clones": {1: 86, 2: 82, 3: 84, 10: 166}}
    for domain, levels in shapes.items():
        plan = release.read_plan(domain)
        assert {lv.n: lv.tasks for lv in plan.levels} == levels
    repair = release.read_plan("repair")
    assert (repair.unit, repair.quotas) == ("repository", {"train": 161, "validation": 53, "test": 54})
    assert release.read_plan("clones").balance == "class"
    assert {lv.n: lv.per_program for lv in release.read_plan("proofs").levels}[10] == 2
    assert all(lv.pool == 2 * lv.tasks for lv in release.read_plan("complexity").levels)  # drawn from more
    assert release.read_plan("complexity").unit == "source program"
    assert release.read_plan("demo").levels and release.read_plan("demo", seed=7).seed == 7


@pytest.mark.parametrize(("text", "key"), [
    ("[levels]\n1 = 3\n[bogus]\nx = 1\n", "unknown key 'bogus'"),
    ("[levels]\n40 = 3\n", "levels.40: the graph of domain 'demo' supports N <= "),
    ("[levels]\n1 = 3\n[splits]\nunit = \"repository\"\n", "splits.unit: domain 'demo' has no 'repository'"),
    ("[levels]\n1 = 3\n[pool]\n2 = 6\n", "pool.2: level 2 is not in levels"),
    ("[levels]\n1 = 3\n[pool]\n1 = 2\n", "pool.1: 2 is fewer than the 3 tasks"),
    ("balance = \"class\"\n[levels]\n1 = 3\n", "balance: tasks of domain 'demo' have no class"),
    ("[levels]\nx = 3\n", "levels.x: a level is a whole number"),
    ("[levels]\n1 = -3\n", "levels.1: needs a whole number of at least 1"),
])
def test_a_bad_plan_is_one_line_naming_its_key_exit_2_and_nothing_written(capsys, tmp_path, text, key):
    store = tmp_path / "g.lbug"
    _demo_store(store).close()
    code, _, err = cw(capsys, "--store", str(store), "release", "demo", "--out", str(tmp_path / "out"),
                      "--plan", str(_plan(tmp_path, text)))
    assert code == 2
    assert key in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "out").exists()
    with open_store(store, reads=True) as graph:
        assert graph.count_tasks("demo") == 0  # nothing walked either


def test_the_same_graph_plan_and_seed_give_byte_identical_release_files_in_two_stores(tmp_path):
    plan = release.read_plan("demo")
    built = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        with _demo_store(tmp_path / name / "g.lbug") as store:
            release.build(store, plan, tmp_path / name / "out", workers=2 if name == "a" else 1)
        built.append(_files(tmp_path / name / "out"))
    assert sorted(built[0]) == ["README.md", "demo/test.parquet", "manifest.json", "report.md", "splits.json",
                              "yield.png"]
    assert built[0] == built[1]  # every byte, the data files' Parquet metadata included
    rows = pq.read_table(tmp_path / "a" / "out" / "demo" / "test.parquet").to_pylist()
    assert {r["level"] for r in rows} == {1, 2, 3} and len(rows) == 15
    assert not {"run", "created_at", "run_params"} & set(rows[0])  # what differs between two builds


def test_the_manifest_gives_versions_seeds_input_digests_and_every_files_sha256(tmp_path):
    import hashlib

    with _demo_store(tmp_path / "g.lbug") as store:
        release.build(store, release.read_plan("demo", seed=5), tmp_path / "out")
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["codewalk"]["version"] and manifest["codewalk"]["commit"]
    assert manifest["seeds"] == {"plan": 5, "levels": {"1": 6, "2": 7, "3": 8}, "splits": 5}
    assert manifest["inputs"]["graph"]["atoms"] == 30 and manifest["inputs"]["graph"]["digest"].startswith("sha256:")
    assert manifest["plan"]["digest"].startswith("sha256:") and manifest["tools"]["pyarrow"]
    for name, digest in manifest["files"].items():
        assert digest == "sha256:" + hashlib.sha256((tmp_path / "out" / name).read_bytes()).hexdigest()
    card = (tmp_path / "out" / "README.md").read_text()
    assert "## Release" in card and "| level | released | planned | paper |" in card
    splits = Splits.read(tmp_path / "out" / "splits.json")
    assert splits.unit == "source program" and len(splits.tasks["test"]) == 15


def test_tasks_the_store_already_admitted_count_and_a_larger_plan_walks_only_the_rest(tmp_path):
    small = _plan(tmp_path, "[levels]\n1 = 3\n", "small.toml")
    large = _plan(tmp_path, "[levels]\n1 = 5\n", "large.toml")
    with _demo_store(tmp_path / "g.lbug") as store:
        first = release.build(store, release.read_plan("demo", small), tmp_path / "one")
        again = release.build(store, release.read_plan("demo", small), tmp_path / "two")
        more = release.build(store, release.read_plan("demo", large), tmp_path / "three")
    assert first.levels[0].walked == 3 and again.levels[0].walked == 0  # nothing walked: the store had them
    assert more.levels[0].walked == 2 and more.levels[0].released == 5
    assert _files(tmp_path / "one") == _files(tmp_path / "two")


def test_an_interrupted_release_continues_on_rerun_and_gives_what_one_run_gives(tmp_path):
    plan = release.read_plan("demo")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with _demo_store(tmp_path / "a" / "g.lbug") as store:
        release.build(store, plan, tmp_path / "a" / "out")
    with _demo_store(tmp_path / "b" / "g.lbug") as store:
        seen = []

        def stop(task: Task, summary) -> None:
            seen.append(task.id)
            if summary.level == 2 and summary.admitted == 2:
                raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            release.build(store, plan, tmp_path / "b" / "out", on_task=stop)
        assert not (tmp_path / "b" / "out").exists()  # nothing half-written
        assert store.count_tasks("demo", "admitted", 2) == 2
        rerun = release.build(store, plan, tmp_path / "b" / "out")
    assert rerun.levels[0].walked == 0 and rerun.levels[1].walked < 7
    assert _files(tmp_path / "a" / "out") == _files(tmp_path / "b" / "out")


def test_a_level_the_graph_cannot_fill_stops_with_an_account_and_the_release_keeps_what_it_gave(capsys, tmp_path):
    store = tmp_path / "g.lbug"
    _demo_store(store).close()
    plan = _plan(tmp_path, "[levels]\n1 = 40\n2 = 2\n")  # 30 atoms: at most 30 tasks at N = 1
    code, out, err = cw(capsys, "--store", str(store), "release", "demo", "--out", str(tmp_path / "out"),
                        "--plan", str(plan), "--json")
    assert code == 7, err
    levels = json.loads(out)["levels"]
    assert levels[0]["released"] < 40 and levels[1]["released"] == 2
    assert "N=1:" in levels[0]["short"] and "the graph gave" in levels[0]["short"]
    assert "used up" in levels[0]["short"] and "N=1" in err
    assert "release N=2: 2 of 2 released" in err  # progress, a plain line per level off a terminal
    report = (tmp_path / "out" / "report.md").read_text()
    assert levels[0]["short"] in report
    code, _, _ = cw(capsys, "release", "verify", str(tmp_path / "out"))
    assert code == 0


def test_splits_keep_each_source_program_in_one_split_and_the_card_counts_them(tmp_path):
    plan = _plan(tmp_path, "seed = 3\n[levels]\n1 = 6\n[splits]\nunit = \"source program\"\ntrain = 4\ntest = 2\n")
    with _demo_store(tmp_path / "g.lbug") as store:
        summary = release.build(store, release.read_plan("demo", plan), tmp_path / "out")
    assert summary.splits == {"train": 4, "test": 2}
    splits = Splits.read(tmp_path / "out" / "splits.json")
    assert not splits.leaks() and splits.seed == 3
    for name in ("train", "test"):
        rows = pq.read_table(tmp_path / "out" / "demo" / f"{name}.parquet").to_pylist()
        assert sorted(r["id"] for r in rows) == splits.tasks[name]
    card = (tmp_path / "out" / "README.md").read_text()
    assert "- split: train\n    path: demo/train.parquet" in card and "splits: test 2, train 4" in card
    datasets = pytest.importorskip("datasets")
    loaded = datasets.load_dataset(str(tmp_path / "out"), "demo")
    assert {k: len(v) for k, v in loaded.items()} == {"train": 4, "test": 2}


def test_a_release_is_written_only_into_a_new_or_empty_folder(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "old.txt").write_text("x")
    with _demo_store(tmp_path / "g.lbug") as store, pytest.raises(UsageError, match="not an empty folder"):
        release.build(store, release.read_plan("demo"), tmp_path / "out")


def test_verify_catches_a_tampered_reference_and_a_tampered_data_file(capsys, tmp_path):
    plan = _plan(tmp_path, "[levels]\n1 = 3\n2 = 2\n[splits]\ntrain = 3\ntest = 2\n")
    with _demo_store(tmp_path / "g.lbug") as store:
        release.build(store, release.read_plan("demo", plan), tmp_path / "out")
    code, out, _ = cw(capsys, "release", "verify", str(tmp_path / "out"), "--json")
    assert code == 0 and json.loads(out)["ok"]
    # One reference changed, the manifest "fixed" to match: the digests agree, V_G does not.
    data = next((tmp_path / "out" / "demo").glob("*.parquet"))
    table = pq.read_table(data)
    rows = table.to_pylist()
    rows[0]["reference"] = rows[0]["reference"].replace("\n    return ", "\n    return 0 and ", 1)
    pq.write_table(table.from_pylist(rows, schema=table.schema), data)
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    manifest["files"] = release._digests(tmp_path / "out")
    (tmp_path / "out" / "manifest.json").write_text(json.dumps(manifest))
    # And another data file changed behind the manifest's back.
    (tmp_path / "out" / "splits.json").write_text((tmp_path / "out" / "splits.json").read_text() + " ")
    code, out, _ = cw(capsys, "release", "verify", str(tmp_path / "out"), "--json")
    report = json.loads(out)
    assert code == 1
    assert [f["file"] for f in report["files"] if not f["ok"]] == ["splits.json"]
    assert [t["task"] for t in report["tasks"] if not t["ok"]] == [rows[0]["id"]]
    code, out, err = cw(capsys, "release", "verify", str(tmp_path / "out"))
    assert code == 1 and "1 file(s) and 1 reference(s)" in err and "NO" in out


def test_verify_in_two_workers_gives_the_one_worker_table_in_the_same_order_and_catches_a_tampered_reference(
        capsys, tmp_path):
    plan = _plan(tmp_path, "[levels]\n1 = 3\n2 = 2\n")
    with _demo_store(tmp_path / "g.lbug") as store:
        release.build(store, release.read_plan("demo", plan), tmp_path / "out")
    data = next((tmp_path / "out" / "demo").glob("*.parquet"))
    table = pq.read_table(data)
    rows = table.to_pylist()
    rows[3]["reference"] = rows[3]["reference"].replace("\n    return ", "\n    return 0 and ", 1)
    pq.write_table(table.from_pylist(rows, schema=table.schema), data)
    one = release.verify(tmp_path / "out")
    two = release.verify(tmp_path / "out", workers=2)
    assert two.tasks == one.tasks and len(one.tasks) == 5
    assert [t["task"] for t in two.tasks if not t["ok"]] == [rows[3]["id"]]
    code, out, _ = cw(capsys, "release", "verify", str(tmp_path / "out"), "--workers", "2", "--json")
    assert code == 1 and json.loads(out)["tasks"] == one.tasks


def test_the_class_balance_draws_half_of_each_class_and_the_draw_is_seeded():
    def task(i: int, label: str) -> Task:
        return Task(id=f"t{i:03d}", domain="clones", atoms=("a",), status="admitted", reason="admitted", seed=0,
                    run="r", created_at="", generator_version="", prompt="p", reference="r",
                    verifier={"label": label})

    tasks = [task(i, "eq") for i in range(30)] + [task(100 + i, "neq") for i in range(10)]
    plan = release.Plan("clones", 1, 20, "class", (release.Level(1, 9, 9),), "source program", {}, "", "")
    drawn = release._draw(plan, plan.levels[0], tasks)
    assert sorted(t.verifier["label"] for t in drawn) == ["eq"] * 5 + ["neq"] * 4
    assert drawn == release._draw(plan, plan.levels[0], tasks)
    assert release._lacking(plan, release.Level(1, 30, 30), tasks) == [("neq", 5)]  # 15 wanted, 10 admitted


def test_a_task_whose_reference_passes_without_one_atom_is_dropped_and_the_report_gives_the_share(
        tmp_path, monkeypatch):
    from codewalk.domains.demo import DemoDomain

    plan = _plan(tmp_path, "every_atom_matters = true\nattempts = 3\n[levels]\n1 = 2\n2 = 2\n")
    with pytest.raises(UsageError, match="every_atom_matters: domain 'demo' cannot leave one atom"):
        release.read_plan("demo", plan)
    # A demo whose every atom is not needed: Ref(G) without any one atom's fix still passes V_G.
    monkeypatch.setattr(DemoDomain, "leave_one_out", True)
    monkeypatch.setattr(DemoDomain, "reference_without", lambda self, composite, atoms, position: composite.reference)
    with _demo_store(tmp_path / "g.lbug") as store:
        summary = release.build(store, release.read_plan("demo", plan), tmp_path / "out")
        admitted_2 = store.count_tasks("demo", "admitted", 2)
    one, two = summary.levels
    assert (one.released, one.checked) == (2, 0)  # one atom: nothing to leave out
    assert two.released == 0 and two.checked == two.not_needed == admitted_2 > 0
    assert "N=2: 0 of 2 tasks" in two.short
    assert f"{admitted_2} of {admitted_2} (100%)" in (tmp_path / "out" / "report.md").read_text()


def test_a_rerun_of_a_release_keeps_the_leave_one_out_verdicts_and_runs_none_again(tmp_path, monkeypatch):
    from codewalk.domains.demo import DemoDomain

    plan = _plan(tmp_path, "every_atom_matters = true\nattempts = 3\n[levels]\n2 = 2\n")
    monkeypatch.setattr(DemoDomain, "leave_one_out", True)
    runs: list[int] = []

    def without(self, composite, atoms, position):
        runs.append(position)
        return None  # that text cannot be made: the atom is needed

    monkeypatch.setattr(DemoDomain, "check_without", without)
    with _demo_store(tmp_path / "g.lbug") as store:
        first = release.build(store, release.read_plan("demo", plan), tmp_path / "one")
        ran = len(runs)
        second = release.build(store, release.read_plan("demo", plan), tmp_path / "two")
    assert ran == 2 * first.levels[0].checked > 0  # each admitted task's two atoms, each left out once
    assert len(runs) == ran and second.levels[0].checked == first.levels[0].checked
    assert first.levels[0].released == second.levels[0].released == 2


def test_verify_with_a_store_checks_the_input_graph_against_the_manifest(capsys, tmp_path):
    plan = _plan(tmp_path, "[levels]\n1 = 2\n")
    with _demo_store(tmp_path / "g.lbug") as store:
        release.build(store, release.read_plan("demo", plan), tmp_path / "out")
    code, out, _ = cw(capsys, "--store", str(tmp_path / "g.lbug"), "release", "verify", str(tmp_path / "out"), "--json")
    assert code == 0
    assert [f["ok"] for f in json.loads(out)["files"] if f["file"].startswith("(input graph")] == [True]
    open_store(tmp_path / "other.lbug").close()  # no demo atoms: not the inputs the release was made from
    code, out, _ = cw(capsys, "--store", str(tmp_path / "other.lbug"), "release", "verify", str(tmp_path / "out"),
                      "--json")
    assert code == 1
    assert [f["ok"] for f in json.loads(out)["files"] if f["file"].startswith("(input graph")] == [False]


def test_a_level_no_walk_can_make_stops_short_with_its_account_and_the_other_levels_are_released(tmp_path):
    from codewalk.records import Atom, Edge
    from codewalk.store.columns import graph_tables

    plan = _plan(tmp_path, "[levels]\n1 = 2\n4 = 1\n")  # a <-> b, b -> c, b -> d: no chain of 4
    with open_store(tmp_path / "cycle.lbug") as store:
        store.write(*graph_tables([Atom(f"toychain/{x}", "toychain", {}) for x in "abcd"],
                                  [Edge(f"toychain/{s}", f"toychain/{d}", "FEEDS")
                                   for s, d in [("a", "b"), ("b", "a"), ("b", "c"), ("b", "d")]]))
        summary = release.build(store, release.read_plan("toychain", plan), tmp_path / "out", workers=1)
    one, four = summary.levels
    assert one.released == 2 and not one.short
    assert four.released == 0 and "the walks find no group of N=4 atoms" in four.short
    assert summary.tasks == 2 and (tmp_path / "out" / "toychain" / "test.parquet").exists()


def test_a_full_level_drawn_from_a_smaller_pool_than_planned_is_not_short_but_says_so(tmp_path):
    plan = _plan(tmp_path, "[levels]\n1 = 3\n[pool]\n1 = 40\n")  # 30 atoms: the pool cannot reach 40
    with _demo_store(tmp_path / "g.lbug") as store:
        summary = release.build(store, release.read_plan("demo", plan), tmp_path / "out")
    [one] = summary.levels
    assert one.released == 3 and not one.short and not summary.short
    assert "N=1: drawn from" in one.pool_short and "not 40" in one.pool_short and "used up" in one.pool_short
    assert one.pool_short in (tmp_path / "out" / "report.md").read_text()


class _Daemon:
    """A docker client holding some images (name -> id), as `release._images` asks it."""

    def __init__(self, ids: dict[str, str]):
        self.images = self
        self.ids = ids

    def get(self, name: str):
        from docker.errors import ImageNotFound

        if name not in self.ids:
            raise ImageNotFound(name)
        return type("Image", (), {"id": self.ids[name], "attrs": {"RepoDigests": [f"{name}@sha256:feed"]}})()


def test_the_manifest_gives_each_image_its_id_on_the_daemon_and_the_proofs_verify_image_when_it_is_there(
        monkeypatch):
    from codewalk.domains.proofs.image import image_tag

    proofs = image_tag()
    monkeypatch.setattr(release, "client", lambda: _Daemon({"codewalk-env/a:1": "sha256:aaa", proofs: "sha256:ppp"}))
    images = release._images("repair", {"codewalk-env/a:1", "swebench/b:2"}, "docker")
    assert images == [{"name": "codewalk-env/a:1", "id": "sha256:aaa", "repo_digests": ["codewalk-env/a:1@sha256:feed"]},
                      {"name": "swebench/b:2", "id": None, "repo_digests": []}]
    assert release._images("proofs", set(), "docker") == [
        {"name": proofs, "id": "sha256:ppp", "repo_digests": [f"{proofs}@sha256:feed"],
         "use": "the verify step of codewalk/proofs_agent under docker"}]
    monkeypatch.setattr(release, "client", lambda: _Daemon({}))
    assert release._images("proofs", set(), "docker") == []  # never built here: not named
    monkeypatch.delenv("DOCKER_HOST", raising=False)
    monkeypatch.setattr(release, "client", lambda: pytest.fail("a local build with no DOCKER_HOST asks no daemon"))
    assert release._images("repair", {"codewalk-env/a:1"}, "local") == [
        {"name": "codewalk-env/a:1", "id": None, "repo_digests": []}]


def test_tasks_of_an_older_composer_are_neither_released_nor_counted(tmp_path, monkeypatch):
    from codewalk.domains.demo import DemoDomain

    plan = release.read_plan("demo", _plan(tmp_path, "[levels]\n1 = 3\n"))
    with _demo_store(tmp_path / "g.lbug") as store:
        release.build(store, plan, tmp_path / "old")
        before = store.count_tasks("demo", "", 1)
        monkeypatch.setattr(DemoDomain, "composer_version", "demo-next")  # codewalk upgraded: a new composer
        summary = release.build(store, plan, tmp_path / "new")
        after = store.count_tasks("demo", "", 1)
    [one] = summary.levels
    assert one.released == 3 and one.walked > 0 and one.attempted == after - before  # this composer's only
    rows = pq.read_table(tmp_path / "new" / "demo" / "test.parquet").to_pylist()
    assert {r["generator_version"].rsplit("/ ", 1)[1] for r in rows} == {"demo-next"}


def test_leave_one_out_runs_without_a_verdict_are_counted_in_the_report_not_hidden_in_a_zero_share(
        tmp_path, monkeypatch):
    from codewalk.domains.demo import DemoDomain
    from codewalk.errors import InfraError

    def no_verdict(self, composite, atoms, position):
        raise InfraError("the audit hook denied open")

    plan = _plan(tmp_path, "every_atom_matters = true\nattempts = 3\n[levels]\n2 = 2\n")
    monkeypatch.setattr(DemoDomain, "leave_one_out", True)
    monkeypatch.setattr(DemoDomain, "check_without", no_verdict)
    with _demo_store(tmp_path / "g.lbug") as store:
        summary = release.build(store, release.read_plan("demo", plan), tmp_path / "out")
    (two,) = summary.levels
    assert two.released == 2 and two.not_needed == 0  # no verdict: each atom counts as needed
    assert two.unchecked_runs == 2 * two.checked > 0
    report = (tmp_path / "out" / "report.md").read_text()
    assert f"0 of {two.checked} (0%); {two.unchecked_runs} runs gave no verdict (atom counted as needed)" in report


# A stricter V_G than the one that admitted the stored tasks, as a later round's run-time guard: candidates run
# without `sorted` and `sum`, so a reference that calls them now fails (stage_i raised NameError).
DENIED = ("sorted", "sum")


def _stricter_trace(monkeypatch) -> None:
    from codewalk.domains import demo

    guarded = demo.TRACE.replace(
        '    space = {"__name__": "candidate"}\n',
        '    import builtins\n'
        f'    space = {{"__name__": "candidate", "__builtins__": {{k: getattr(builtins, k) for k in dir(builtins) '
        f'if k not in {DENIED!r}}}}}\n')
    assert guarded != demo.TRACE
    monkeypatch.setattr(demo, "TRACE", guarded)


def _denied(store, task: Task) -> bool:
    """Whether the task's reference calls a builtin the stricter V_G denies (an atom's fixed code does)."""
    import re

    return any(re.search(rf"\b({'|'.join(DENIED)})\(", a.payload["fixed"]) for a in store.get_atoms(list(task.atoms)))


def _counting_rechecks(monkeypatch) -> list[str]:
    """The tasks `release.Recheck` runs through V_G again (the real runs, counted as they go)."""
    runs: list[str] = []
    real = release.recheck_in_worker

    def counted(domain, settings, composite, atoms, reference_passed=False):
        runs.append(composite.reference)
        return real(domain, settings, composite, atoms, reference_passed)

    monkeypatch.setattr(release, "recheck_in_worker", counted)
    return runs


def test_a_release_drops_admitted_tasks_whose_reference_fails_todays_v_g_refills_the_level_and_verifies(
        capsys, tmp_path, monkeypatch):
    from codewalk.admission import walk_and_admit

    path = _plan(tmp_path, "[levels]\n1 = 3\n2 = 2\n")
    plan = release.read_plan("demo", path)
    with _demo_store(tmp_path / "g.lbug") as store:
        for level in plan.levels:  # admitted before the stricter V_G, by the walks the release itself makes
            walk_and_admit(store, "demo", level.n, level.tasks, seed=plan.seed + level.n)
        before = {n: [Task.from_row(r) for r in store.select_tasks("demo", "admitted", n)] for n in (1, 2)}
        stale = {n: sorted(t.id for t in tasks if _denied(store, t)) for n, tasks in before.items()}
        assert stale[1] and stale[2]  # this seed's walks admitted some of each level
        _stricter_trace(monkeypatch)
        runs = _counting_rechecks(monkeypatch)
        summary = release.build(store, plan, tmp_path / "out")
        first_runs = len(runs)
    released = [r["id"] for r in pq.read_table(tmp_path / "out" / "demo" / "test.parquet").to_pylist()]
    assert len(released) == 5 and not set(released) & set(stale[1] + stale[2])
    for account in summary.levels:
        n = account.n
        assert account.stale == len(stale[n]) and account.rechecked >= len(before[n])
        assert account.released == account.wanted and not account.short  # refilled from groups not attempted
        assert account.walked > 0 and sum(account.stale_reasons.values()) == account.stale
        assert all("raised NameError" in reason for reason in account.stale_reasons)
    report = (tmp_path / "out" / "report.md").read_text()
    assert f"N=1: {len(stale[1])} admitted before fail today's V_G" in report
    assert "| reference fails today |" in (tmp_path / "out" / "README.md").read_text()
    code, out, err = cw(capsys, "release", "verify", str(tmp_path / "out"), "--json")
    assert code == 0, err
    assert {t["status"] for t in json.loads(out)["tasks"]} == {"passed"}
    # The rerun finds every verdict in the home's cache: no reference is run again, the same release.
    code, out, err = cw(capsys, "--store", str(tmp_path / "g.lbug"), "release", "demo", "--out",
                        str(tmp_path / "again"), "--plan", str(path), "--json")
    assert code == 0, err
    assert first_runs >= len(before[1]) + len(before[2]) and len(runs) == first_runs
    assert [a["stale"] for a in json.loads(out)["levels"]] == [len(stale[1]), len(stale[2])]
    assert "release N=2: 2 of 2 released (2 admitted of " in err and f"; {len(stale[2])} admitted before fail" in err
    assert _files(tmp_path / "out") == _files(tmp_path / "again")


def test_recheck_verdicts_of_other_grading_code_are_not_reused(tmp_path, monkeypatch):
    plan = release.read_plan("demo", _plan(tmp_path, "[levels]\n1 = 3\n"))
    with _demo_store(tmp_path / "g.lbug") as store:
        old = release.build(store, plan, tmp_path / "old")
        stale = [Task.from_row(r) for r in store.select_tasks("demo", "admitted", 1)]
        stale = [t.id for t in stale if _denied(store, t)]
        # codewalk upgraded: new source whose V_G is stricter; the old source's verdicts say nothing of it
        monkeypatch.setattr(release, "grading_code", lambda: "a-later-source")
        _stricter_trace(monkeypatch)
        runs = _counting_rechecks(monkeypatch)
        new = release.build(store, plan, tmp_path / "new")
    kept = [r["id"] for r in pq.read_table(tmp_path / "new" / "demo" / "test.parquet").to_pylist()]
    assert stale and len(kept) == 3 and not set(kept) & set(stale)
    assert old.levels[0].stale == 0 and new.levels[0].stale == len(stale)
    assert len(runs) >= old.levels[0].rechecked


def test_a_reference_without_a_verdict_today_is_stale_for_this_build_and_checked_again_by_the_next(
        tmp_path, monkeypatch):
    from codewalk.admission import walk_and_admit
    from codewalk.domains import demo

    plan = release.read_plan("demo", _plan(tmp_path, "[levels]\n1 = 3\n"))
    with _demo_store(tmp_path / "g.lbug") as store:
        walk_and_admit(store, "demo", 1, 3, seed=plan.seed + 1)
        admitted = [Task.from_row(r) for r in store.select_tasks("demo", "admitted", 1)]
        stale = sorted(t.id for t in admitted if _denied(store, t))
        # a guard that stops the candidate run (no verdict, as round 6's audit hook on boltons' own test file)
        guard = ("def trace(job):\n    import ast\n"
                 f"    if any(isinstance(n, ast.Name) and n.id in {DENIED!r} for n in ast.walk(ast.parse(job['source']))):\n"
                 "        sys.exit('the guard denied it')\n")
        monkeypatch.setattr(demo, "TRACE", demo.TRACE.replace("def trace(job):\n", guard, 1))
        runs = _counting_rechecks(monkeypatch)
        first = release.build(store, plan, tmp_path / "one")
        ran = len(runs)
        second = release.build(store, plan, tmp_path / "two")
    assert stale and first.levels[0].stale == second.levels[0].stale == len(stale)
    assert all(r.startswith("no verdict: candidate run exited") for r in first.levels[0].stale_reasons)
    assert len(runs) - ran == len(stale)  # only the tasks without a verdict ran again


def test_the_grading_code_digest_follows_codewalk_source_and_not_the_checkouts_commit(tmp_path, monkeypatch):
    """The recheck cache's key: a change to any file of the package changes it; nothing else does."""
    package = tmp_path / "codewalk"
    (package / "domains").mkdir(parents=True)
    (package / "release.py").write_text("x = 1\n")
    (package / "domains" / "boot.py").write_text("y = 2\n")
    monkeypatch.setattr(release, "__file__", str(package / "release.py"))
    first = release.grading_code()
    (tmp_path / "README.md").write_text("docs change\n")
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "release.cpython-311.pyc").write_bytes(b"\0")
    assert release.grading_code() == first
    (package / "domains" / "boot.py").write_text("y = 3\n")
    assert release.grading_code() != first


def test_tasks_a_build_admits_are_not_graded_again_by_its_recheck(tmp_path, monkeypatch):
    """Admission's check (2) just ran on their reference by today's grading: the recheck counts them without
    running V_G again (it still runs leave-one-out, which admission does not)."""
    plan = release.read_plan("demo", _plan(tmp_path, "[levels]\n1 = 3\n"))
    runs = _counting_rechecks(monkeypatch)
    with _demo_store(tmp_path / "g.lbug") as store:
        summary = release.build(store, plan, tmp_path / "out")
    assert summary.levels[0].rechecked == 3 and summary.levels[0].stale == 0
    assert runs == []
