"""The stores' columnar layout: atoms and edges as Arrow tables, built column by column, and the exact
dedupe both bulk paths apply (Ladybug's COPY, Neo4j's importer), as MERGE would. GraphStore.write takes
these tables; `graph_tables` makes them from records."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import compress, islice
from operator import attrgetter

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..records import SUMMARY_FIELDS, Atom, Edge
from . import payload_json

SEP = "\x00"  # joins the file names of a SHARES_FILE edge into one string: no path can hold it
_LIST = pa.list_(pa.string())
ATOM_SCHEMA = pa.schema([("id", pa.string()), ("domain", pa.string()),
                         *((k, _LIST if t is list else pa.string()) for k, t in SUMMARY_FIELDS.items()),
                         ("payload", pa.string())])  # Ladybug's Atom table's columns, in order; unset = ""
# Edge tables: src, dst, then the relationship's properties in table order. SHARES_FILE.files is one
# string, not STRING[]: in Ladybug 10^6 atoms with 4.75x10^6 edges commit in 10 s that way, 99 s with a list.
EDGE_SCHEMA = {
    "SHARES_FILE": pa.schema([("src", pa.string()), ("dst", pa.string()), ("files", pa.string())]),
    "FEEDS": pa.schema([("src", pa.string()), ("dst", pa.string()), ("arg", pa.int64()), ("via", pa.string())]),
}


def atom_table(atoms: Sequence[Atom]) -> pa.Table:
    """Atoms as an Arrow table of ATOM_SCHEMA, built column by column (what atom_row gives, row by row)."""
    summaries = list(map(_SUMMARY, atoms))
    columns: dict[str, list] = {"id": list(map(_ID, atoms)), "domain": list(map(_DOMAIN, atoms))}
    for name, kind in SUMMARY_FIELDS.items():  # a field's values are str or list: unset, "" and [] are blank
        blank = [] if kind is list else ""
        columns[name] = [s.get(name) or blank for s in summaries]
    columns["payload"] = [payload_json(p) for p in map(_PAYLOAD, atoms)]
    return pa.table(columns, schema=ATOM_SCHEMA)


_ID, _DOMAIN, _SUMMARY, _PAYLOAD = (attrgetter(name) for name in ("id", "domain", "summary", "payload"))
_SRC, _DST, _TYPE, _FILES, _ARG, _VIA = (attrgetter(n) for n in ("src", "dst", "type", "files", "arg", "via"))


def edge_table(rel: str, edges: Sequence[Edge]) -> pa.Table:
    """Edges of one type as an Arrow table of EDGE_SCHEMA[rel], built column by column."""
    columns: dict[str, list] = {"src": list(map(_SRC, edges)), "dst": list(map(_DST, edges))}
    if rel == "SHARES_FILE":
        columns["files"] = list(map(SEP.join, map(_FILES, edges)))
    else:
        columns["arg"] = [0 if a is None else a for a in map(_ARG, edges)]
        columns["via"] = [v or "" for v in map(_VIA, edges)]
    return pa.table(columns, schema=EDGE_SCHEMA[rel])


def edge_tables(edges: Iterable[Edge], size: int) -> Iterator[tuple[str, pa.Table]]:
    """Edges of any types as (type, table) pairs of up to `size` rows, each type's in the order given."""
    it = iter(edges)
    while batch := list(islice(it, size)):
        types = list(map(_TYPE, batch))
        for rel in EDGE_SCHEMA:
            if types.count(rel) == len(batch):  # the usual case: a relation has one edge type
                yield rel, edge_table(rel, batch)
            elif rel in types:
                yield rel, edge_table(rel, list(compress(batch, (t == rel for t in types))))


def graph_tables(atoms: Iterable[Atom], edges: Iterable[Edge], size: int = 500_000
                 ) -> tuple[Iterator[pa.Table], Iterator[tuple[str, pa.Table]]]:
    """Records as what GraphStore.write takes, made as the write reads them: a table of `size` atoms
    (then of 10 x `size` edges) at a time, so a stream of records is never held whole."""
    it = iter(atoms)
    return (atom_table(chunk) for chunk in iter(lambda: list(islice(it, size)), [])), edge_tables(edges, 10 * size)


def as_atom_table(table: pa.Table) -> pa.Table:
    """A domain's atom columns (id, domain, any summary fields, payload as JSON text) in ATOM_SCHEMA:
    a column not given is blank, a list of names stays a list."""
    n = table.num_rows
    blank = {"payload": "{}"}
    columns = []
    for f in ATOM_SCHEMA:
        if f.name in table.column_names:
            column = table.column(f.name).cast(f.type)
            columns.append(pc.fill_null(column, blank.get(f.name, "")) if f.type == pa.string() else column)
        else:
            columns.append(pa.nulls(n, f.type).fill_null(blank.get(f.name, "")) if f.type == pa.string()
                           else pa.array([[]] * n, f.type))
    return pa.table(columns, schema=ATOM_SCHEMA)


def as_edge_table(rel: str, table: pa.Table) -> pa.Table:
    """A domain's edge columns (SHARES_FILE: src, dst, files as a list; FEEDS: src, dst, arg, via) in
    EDGE_SCHEMA[rel]: the file names joined by SEP, an arg or via not given 0 and blank."""
    n = table.num_rows
    columns: dict[str, pa.Array | pa.ChunkedArray] = {"src": table.column("src"), "dst": table.column("dst")}
    if rel == "SHARES_FILE":
        files = table.column("files")
        columns["files"] = files if pa.types.is_string(files.type) else pc.binary_join(files, SEP)
    else:
        columns["arg"] = pc.fill_null(table.column("arg"), 0) if "arg" in table.column_names else pa.array([0] * n)
        columns["via"] = pc.fill_null(table.column("via"), "") if "via" in table.column_names else pa.array([""] * n)
    return pa.table(columns).cast(EDGE_SCHEMA[rel])


def hashes(keys: pa.Table) -> np.ndarray:
    """64-bit hashes of the rows of a table."""
    import pandas as pd  # here, not at the top: a walking process need not carry pandas (~40 MB)

    return pd.util.hash_pandas_object(keys.to_pandas(), index=False).to_numpy()


def distinct(keys: pa.Table) -> bool:
    """Whether no row of a table (of one or two string columns) repeats: each column's dictionary
    codes, combined into one integer per row, compared exactly (cheaper than hashing the strings)."""
    row = np.zeros(keys.num_rows, dtype=np.int64)
    for column in keys.columns:
        codes = pc.dictionary_encode(column.combine_chunks())  # one dictionary for all chunks
        row = row * len(codes.dictionary) + codes.indices.to_numpy()
    row.sort()
    return not (row[1:] == row[:-1]).any()


def last_per_key(table: pa.Table, keys: list[str]) -> pa.Table:
    """The table with only the last row of each key (the common case, every key distinct, as it is)."""
    if distinct(table.select(keys)):
        return table
    rows = table.select(keys).append_column("row", pa.array(np.arange(table.num_rows)))
    last = rows.group_by(keys, use_threads=False).aggregate([("row", "max")]).column("row_max")
    return table.take(pc.take(last, pc.sort_indices(last)))  # in table order
