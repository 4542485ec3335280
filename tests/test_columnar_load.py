"""The columnar load path (`Domain.load_columns`, `edge_columns`, `codewalk.relations`): the same relation,
the same checks and the same stored graph as the record path, with no record per atom or edge."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from itertools import combinations
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from codewalk.domain import Domain
from codewalk.errors import InputError
from codewalk.loading import load
from codewalk.records import Atom, Edge
from codewalk.relations import FILES, shares_file
from codewalk.store import open_store


def _all_pairs(rows: list[tuple[str, str, list[str]]]) -> list[tuple[str, str, tuple[str, ...]]]:
    """The relation by its definition: every pair of one repository whose files meet."""
    out = []
    for (a, repo_a, files_a), (b, repo_b, files_b) in combinations(sorted(rows), 2):
        shared = sorted(set(files_a) & set(files_b))
        if repo_a == repo_b and shared:
            out.append((a, b, tuple(shared)))
    return out


def _columns(rows):
    ids, repos, files = zip(*rows, strict=True) if rows else ((), (), ())
    return pa.array(ids, pa.string()), pa.array(repos, pa.string()), pa.array(files, FILES)


_rows = st.lists(st.tuples(st.sampled_from(["r1", "r2", "r3"]),
                           st.lists(st.sampled_from(["a.py", "b.py", "c/d.py", "é.py", "Z.py"]), max_size=4)),
                 max_size=25)


@given(_rows)
def test_shares_file_on_columns_is_every_pair_whose_files_meet(drawn):
    # ids out of order, files repeated within an atom and empty lists all occur
    rows = [(f"x{(7 * i) % 31:02d}", repo, files) for i, (repo, files) in enumerate(drawn)]
    found = shares_file(*_columns(rows))
    got = list(zip(found["src"].to_pylist(), found["dst"].to_pylist(), map(tuple, found["files"].to_pylist()),
                   strict=True))
    assert got == _all_pairs(rows)


def test_shares_file_of_no_atoms_is_no_edges():
    assert shares_file(*_columns([])).num_rows == 0


class ToyColumns(Domain):
    """Repair-like atoms from JSON lines {id, repo, files}, through either path: `columns` says which."""

    name = "toycolumns"
    relation = "SHARES_FILE"
    composer_version = "toy-1"
    columns = True
    extra_edges: list[dict] = []  # what a faulty relation would add

    def _rows(self, source: Path) -> list[dict]:
        return [json.loads(line) for line in source.read_text().splitlines()]

    def load(self, source: Path, options) -> Iterator[Atom]:
        for r in self._rows(source):
            yield Atom(r["id"], r.get("domain", self.name), {"repo": r["repo"], "files": r["files"]},
                       r.get("payload", {}))

    def edges(self, atoms: Sequence[Atom]) -> list[Edge]:
        rows = [(a.id, a.summary["repo"], a.summary["files"]) for a in atoms]
        return [Edge(s, d, "SHARES_FILE", files=f) for s, d, f in _all_pairs(rows)] + \
            [Edge(e["src"], e["dst"], "SHARES_FILE", files=("x.py",)) for e in self.extra_edges]

    def load_columns(self, source: Path, options) -> pa.Table | None:
        if not self.columns:
            return None
        rows = self._rows(source)
        return pa.table({"id": [r["id"] for r in rows], "domain": [r.get("domain", self.name) for r in rows],
                         "repo": [r["repo"] for r in rows], "files": pa.array([r["files"] for r in rows], FILES),
                         "payload": [json.dumps(r["payload"]) if "payload" in r else None for r in rows]})

    def edge_columns(self, atoms: pa.Table):
        found = shares_file(atoms["id"], atoms["repo"], atoms["files"])
        extra = pa.table({"src": [e["src"] for e in self.extra_edges], "dst": [e["dst"] for e in self.extra_edges],
                          "files": [["x.py"]] * len(self.extra_edges)}, schema=found.schema)
        yield "SHARES_FILE", pa.concat_tables([found, extra])

    def compose(self, atoms):
        raise NotImplementedError

    def check_reference(self, composite, atoms):
        raise NotImplementedError

    def check_unsolved(self, composite, atoms, position):
        raise NotImplementedError


DOMAINS = (ToyColumns,)

ROWS = [{"id": f"c/{i:02d}", "repo": f"r{i % 3}", "files": [f"m{(i * 5) % 4}.py", f"m{i % 2}.py"],
         **({"payload": {"n": i}} if i % 4 else {})} for i in range(20)]


def _source(tmp_path: Path, rows: list[dict]) -> Path:
    path = tmp_path / "atoms.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _graph(store):
    ids = [i for i, _, _ in store.atom_index("toycolumns")]
    return store.get_atoms(ids) if ids else [], store.edges("toycolumns")


@pytest.fixture
def small_chunks(monkeypatch):
    """Seven rows a COPY, so 20 atoms cross chunk boundaries in the embedded store."""
    monkeypatch.setattr("codewalk.store.ladybug.CHUNK", 7)
    monkeypatch.setattr("codewalk.store.ladybug.EDGE_CHUNK", 7)


def test_a_columnar_load_stores_what_the_record_path_stores(store, tmp_path, monkeypatch, small_chunks):
    source = _source(tmp_path, ROWS)
    summary = load(store, "toycolumns", source)
    with open_store(tmp_path / "records.lbug") as reference:
        monkeypatch.setattr(ToyColumns, "columns", False)
        expected = load(reference, "toycolumns", source)
        assert (summary.atoms, summary.edges) == (expected.atoms, expected.edges) == (20, {"SHARES_FILE": 24})
        assert _graph(store) == _graph(reference)
    atoms, _ = _graph(store)
    assert atoms[1].payload == {"n": 1} and atoms[0].payload == {}


def test_a_columnar_load_twice_changes_nothing(store, tmp_path, small_chunks):
    source = _source(tmp_path, ROWS)
    load(store, "toycolumns", source)
    before = _graph(store)
    load(store, "toycolumns", source)
    assert _graph(store) == before


@pytest.mark.parametrize("change, record, reason", [
    (lambda rows: rows + [dict(rows[3], files=["other.py"])], "c/03", "duplicate atom id"),
    (lambda rows: rows[:5] + [dict(rows[5], domain="demo")] + rows[6:], "c/05", "atom of domain 'demo'"),
    (lambda rows: rows[:7] + [dict(rows[7], id="")] + rows[8:], "row 8", "atom without an id"),
])
def test_a_bad_atom_fails_the_columnar_load_naming_it_and_stores_nothing(store, tmp_path, change, record, reason):
    load(store, "toycolumns", _source(tmp_path, ROWS[:4]))
    before = _graph(store)
    with pytest.raises(InputError, match=reason) as failure:
        load(store, "toycolumns", _source(tmp_path, change(ROWS)))
    assert failure.value.where == record
    assert _graph(store) == before


@pytest.mark.parametrize("edge", [{"src": "c/01", "dst": "c/99"}, {"src": "c/02", "dst": "c/02"}])
def test_an_edge_of_the_relation_to_an_unknown_or_the_same_atom_fails_the_load(store, tmp_path, monkeypatch, edge):
    monkeypatch.setattr(ToyColumns, "extra_edges", [edge])
    with pytest.raises(InputError, match="edge between unknown or identical atoms") as failure:
        load(store, "toycolumns", _source(tmp_path, ROWS))
    assert failure.value.where == f"{edge['src']}->{edge['dst']}"
    assert store.domains() == {}
