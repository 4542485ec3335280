"""`cw tasks export`: one schema per domain, rows that carry what grading and reproduction need, and the
formats evaluators read (JSONL, Parquet, a Hugging Face dataset folder, inspect_ai samples)."""

from __future__ import annotations

import json
from importlib.metadata import entry_points

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from codewalk import card
from codewalk.admission import walk_and_admit
from codewalk.domain import get_domain
from codewalk.errors import StoreError, UsageError
from codewalk.export import export_tasks
from codewalk.loading import load
from codewalk.records import Atom
from codewalk.store import open_store
from tests.run_cw import cw as run_cw
from tests.shared_data import require
from tests.toy import ToyChain

GENERIC = ["id", "domain", "level", "atoms", "prompt", "reference", "verifier", "status", "seed", "run",
           "run_params", "created_at", "generator_version", "data_source", "data_revision"]


class ToyExport(ToyChain):
    """A domain with its own export rows, the way repair gives SWE-bench instances."""

    name = "toyexport"
    data_source = "toy source v1"

    def export_row(self, task):
        return {"instance_id": task.id, "problem_statement": task.prompt,
                "FAIL_TO_PASS": json.dumps(task.atoms)}


class ToyDated(ToyChain):
    """Atoms that carry a fix date and a repository, as repair's do (payload created_at, summary repo)."""

    name = "toydated"
    data_source = "toy dated rows"

    def load(self, source, options):
        for i, atom in enumerate(super().load(source, options)):
            yield Atom(atom.id, atom.domain, {**atom.summary, "repo": f"own/r{i % 2}"},
                       {**atom.payload, "created_at": f"2021-0{i + 1}-15T00:00:00+00:00"})


DOMAINS = (ToyExport, ToyDated)  # registered for this module's tests by conftest's `_domains`


def _jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_jsonl_rows_carry_atoms_in_order_verifier_and_reproducibility(demo_store_path, tmp_path):
    with open_store(demo_store_path) as store:
        summary = export_tasks(store, "demo", tmp_path / "demo.jsonl")
        rows = _jsonl(tmp_path / "demo.jsonl")
        assert summary.tasks == len(rows) == 9 and summary.by_level == {1: 3, 2: 3, 3: 3}
        for row in rows:
            task = store.get_task(row["id"])
            assert list(row) == GENERIC and row["status"] == "admitted"
            assert row["atoms"] == task["atoms"] and row["level"] == len(task["atoms"])
            assert json.loads(row["verifier"]) == task["verifier"] and row["reference"] == task["reference"]
            assert row["seed"] == task["seed"] and row["run"] == task["run"]
            assert json.loads(row["run_params"])["n"] == row["level"]
            assert row["generator_version"].startswith("codewalk ")
            assert row["data_revision"].startswith("sha256:")
        # the data revision is a content hash: the same on every export, different between different atoms
        export_tasks(store, "demo", tmp_path / "again.jsonl")
    again = _jsonl(tmp_path / "again.jsonl")
    assert [r["data_revision"] for r in again] == [r["data_revision"] for r in rows]
    assert len({r["data_revision"] for r in rows}) > 1


def test_parquet_inspect_and_level_filter(demo_store_path, tmp_path):
    with open_store(demo_store_path) as store:
        export_tasks(store, "demo", tmp_path / "demo.parquet", "parquet")
        export_tasks(store, "demo", tmp_path / "inspect.jsonl", "inspect", level=3)
    table = pq.read_table(tmp_path / "demo.parquet")
    assert table.column_names == GENERIC and table.num_rows == 9
    assert str(table.schema.field("atoms").type) == "list<element: string>"
    samples = _jsonl(tmp_path / "inspect.jsonl")
    assert len(samples) == 3 and all(list(s) == ["id", "input", "target", "metadata"] for s in samples)
    assert all(s["metadata"]["level"] == 3 and len(s["metadata"]["atoms"]) == 3 for s in samples)
    assert samples[0]["input"].startswith('"""Fix the bugs') and "def pipeline" in samples[0]["target"]


def test_hf_folder_loads_with_datasets_one_config_per_domain(demo_store_path, tmp_path):
    datasets = pytest.importorskip("datasets")
    out, cache = tmp_path / "hf", tmp_path / "hf-cache"
    with open_store(demo_store_path) as store:
        export_tasks(store, "demo", out, "hf")
        alone = datasets.load_dataset(str(out), split="test", cache_dir=str(cache))
        assert alone.num_rows == 9 and alone.column_names == GENERIC and alone[0]["atoms"]
        source = tmp_path / "toy.txt"
        source.write_text("".join(f"a{i}\n" for i in range(6)))
        load(store, "toyexport", source)
        walk_and_admit(store, "toyexport", 2, count=2, seed=1)
        export_tasks(store, "toyexport", out, "hf")
    card = (out / "README.md").read_text()
    assert "config_name: demo" in card and "config_name: toyexport" in card
    demo = datasets.load_dataset(str(out), "demo", split="test", cache_dir=str(cache))
    toy = datasets.load_dataset(str(out), "toyexport", split="test", cache_dir=str(cache))
    assert demo.num_rows == 9 and toy.num_rows == 2
    assert set(toy.column_names) == {*GENERIC, "instance_id", "problem_statement", "FAIL_TO_PASS"}


def test_domain_export_row_extends_the_generic_row(tmp_path):
    source = tmp_path / "toy.txt"
    source.write_text("".join(f"a{i}\n" for i in range(6)))
    with open_store(tmp_path / "g.lbug") as store:
        load(store, "toyexport", source)
        walk_and_admit(store, "toyexport", 2, count=2, seed=1)
        export_tasks(store, "toyexport", tmp_path / "out.jsonl")
    for row in _jsonl(tmp_path / "out.jsonl"):
        assert list(row) == GENERIC + ["instance_id", "problem_statement", "FAIL_TO_PASS"]
        assert row["instance_id"] == row["id"] and json.loads(row["FAIL_TO_PASS"]) == row["atoms"]
        assert row["data_source"] == "toy source v1"


def test_refuses_an_empty_selection_bad_options_and_a_partly_stored_task(demo_store_path, tmp_path):
    with open_store(demo_store_path) as store:
        with pytest.raises(UsageError, match="no admitted tasks of domain 'demo' at level 7"):
            export_tasks(store, "demo", tmp_path / "x.jsonl", level=7)
        with pytest.raises(UsageError, match="unknown format 'csv'"):
            export_tasks(store, "demo", tmp_path / "x.jsonl", "csv")
        with pytest.raises(UsageError, match="unknown status 'done'"):
            export_tasks(store, "demo", tmp_path / "x.jsonl", status="done")
        with pytest.raises(UsageError, match="is a folder; --format parquet writes a file"):
            export_tasks(store, "demo", tmp_path, "parquet")
        task = store.list_tasks("demo", "admitted", 3)[0]["id"]
        store.run("MATCH (:Task {id: $id})-[c:COMPOSES {position: 1}]->(:Atom) DELETE c", {"id": task})
        partial = f"task {task} is stored incompletely: level 3 but atom positions \\[0, 2\\]"
        with pytest.raises(StoreError, match=partial):
            export_tasks(store, "demo", tmp_path / "x.jsonl")
    assert not (tmp_path / "x.jsonl").exists()


def test_refuses_domain_rows_of_different_shapes(tmp_path, monkeypatch):
    source = tmp_path / "toy.txt"
    source.write_text("".join(f"a{i}\n" for i in range(6)))
    monkeypatch.setattr(ToyExport, "export_row", lambda self, task: {f"only_{task.id}": 1})
    with open_store(tmp_path / "g.lbug") as store:
        load(store, "toyexport", source)
        walk_and_admit(store, "toyexport", 2, count=2, seed=1)
        with pytest.raises(UsageError, match="one schema per domain"):
            export_tasks(store, "toyexport", tmp_path / "out.jsonl")


def test_cli_export_prints_the_counts_and_exits_2_on_an_empty_selection(capsys, demo_store_path, tmp_path):
    def cw(*args):
        return run_cw(capsys, "--store", str(demo_store_path), *args)

    code, out, _ = cw("tasks", "export", "--domain", "demo", "--format", "parquet",
                      "--out", str(tmp_path / "d.parquet"))
    assert code == 0 and "N=1: 3, N=2: 3, N=3: 3" in out
    code, out, _ = cw("tasks", "export", "--domain", "demo", "--status", "rejected",
                      "--out", str(tmp_path / "r.jsonl"), "--json")
    assert code == 0 and json.loads(out)["tasks"] == len(_jsonl(tmp_path / "r.jsonl")) > 0
    code, _, err = cw("tasks", "export", "--domain", "demo", "--level", "9",
                      "--out", str(tmp_path / "n.jsonl"))
    assert code == 2 and "nothing to export" in err


def test_every_installed_domain_says_where_its_atoms_come_from():
    """Exported tasks carry `data_source`; a domain without one would export rows nobody can trace."""
    installed = [ep.name for ep in entry_points(group="codewalk.domains")]
    assert "demo" in installed
    assert [name for name in installed if not get_domain(name).data_source] == []


# -- the dataset card (README.md of --format hf) --------------------------------------------------------
def _front_matter(out):
    text = (out / "README.md").read_text()
    assert text.startswith("---\n")
    head, _, body = text[4:].partition("\n---\n")
    return yaml.safe_load(head), body


def test_hf_card_of_a_real_codecomplex_export_names_licence_source_generation_citation_and_limits(tmp_path):
    data = require("codecomplex", "python_test.jsonl")
    ids = ",".join(f"cc-simple-test-{row}" for row in ("0501", "0505", "0512"))
    with open_store(tmp_path / "g.lbug") as store:
        load(store, "complexity", data, {"ids": ids, "workers": 2})
        walk_and_admit(store, "complexity", 1, count=2, seed=5, workers=1)
        export_tasks(store, "complexity", tmp_path / "hf", "hf")
    meta, body = _front_matter(tmp_path / "hf")
    assert meta["license"] == "unknown"  # CodeComplex states none
    assert meta["source_datasets"] == ["github.com/sybaik1/CodeComplex@75ec12fc611349dfb051d86ae86e6ab368dc8978"]
    assert meta["configs"][0]["config_name"] == "complexity" and "codewalk" in meta["tags"]
    assert "| complexity | CodeComplex (LLM test split, Python rows) | github.com/sybaik1/CodeComplex@75ec12fc" in body
    assert "none stated upstream" in body
    assert "- seeds: 5\n- levels (N): 1\n" in body and "composer version: complexity-1" in body
    assert '"n": 1' in body and "runs: 1, with parameters:" in body
    assert "the atoms carry no dates" in body
    assert "arXiv:2610.15345" in body and "Baik et al., CodeComplex" in body
    assert "## Limitations" in body and "490 Python programs" in body and "research and testing use only" in body


def test_hf_card_gives_the_date_window_and_repositories_of_dated_atoms_beside_another_config(
        demo_store_path, tmp_path):
    out = tmp_path / "hf"
    source = tmp_path / "toy.txt"
    source.write_text("".join(f"a{i}\n" for i in range(6)))
    with open_store(demo_store_path) as store:
        export_tasks(store, "demo", out, "hf")
        load(store, "toydated", source)
        walk_and_admit(store, "toydated", 2, count=2, seed=3)
        used = {a for t in store.list_tasks("toydated", "admitted", 2) for a in store.get_task(t["id"])["atoms"]}
        dates = sorted(a.payload["created_at"] for a in store.get_atoms(sorted(used)))
        export_tasks(store, "toydated", out, "hf")
    meta, body = _front_matter(out)
    assert meta["license"] == ["mit", "unknown"]  # demo's own MIT; the toy domain states no licence
    assert [c["config_name"] for c in meta["configs"]] == ["demo", "toydated"]
    assert (f"Date window of the atoms (`created_at`, {len(used)} of {len(used)} atoms dated): "
            f"{dates[0]} to {dates[-1]}.") in body
    assert "Repositories: own/r0, own/r1." in body
    assert "| toydated | toy dated rows |" in body and "not stated by the domain" in body
    assert "### demo" in body and "composer version: demo-1" in body


def test_card_facts_give_fempd_cc_by_nc_and_proofs_its_backend_s_dataset():
    def atom(domain, **payload):
        return Atom(f"{domain}/x", domain, {"title": "x"}, payload)

    clones = card.facts("clones", "FEMPD", [atom("clones", pair_id=3)])
    assert [(s["name"], s["license_id"]) for s in clones["sources"]] == [("fempd", "cc-by-nc-4.0")]
    assert "CC BY-NC 4.0" in clones["sources"][0]["licence"] and "Higo" in clones["sources"][0]["citation"]
    acsl = card.facts("proofs", "", [atom("proofs", backend="acsl")])
    both = card.facts("proofs", "", [atom("proofs", backend="acsl"), atom("proofs", backend="verus")])
    assert [s["name"] for s in acsl["sources"]] == ["acsl-bench"]
    assert sorted(s["name"] for s in both["sources"]) == ["acsl-bench", "verus-bench"]
    repair = card.facts("repair", "rows", [atom("repair", created_at="2020-01-01T00:00:00+00:00")])
    assert repair["sources"][0]["license_id"] == "other" and repair["dates"]["first"] == "2020-01-01T00:00:00+00:00"


def test_hf_card_says_what_an_older_export_did_not_record(demo_store_path, tmp_path):
    out = tmp_path / "hf"
    (out / "old").mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist([{"level": 1, "status": "admitted", "seed": 0, "run": "r", "run_params": "",
                                          "generator_version": "codewalk 0.0.1"}]), out / "old" / "test.parquet")
    with open_store(demo_store_path) as store:
        export_tasks(store, "demo", out, "hf")
    meta, body = _front_matter(out)
    assert [c["config_name"] for c in meta["configs"]] == ["demo", "old"]
    assert "| old | not recorded by this export |" in body
    assert "Sources, licence and dates: not recorded by the codewalk that exported this config." in body
    assert "composer version: not recorded" in body
