"""Relations computed on columns, for domains whose sources hold millions of atoms.

`shares_file` is the SHARES_FILE relation (repair): two atoms of one group (a repository) are related
when their file lists meet. It is an inverted file index done with sorts instead of dicts: no Python
object is made per atom, per file or per edge, so 10^6 atoms give their 4.75x10^6 edges in seconds.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

FILES = pa.list_(pa.string())
SHARES_FILE_COLUMNS = pa.schema([("src", pa.string()), ("dst", pa.string()), ("files", FILES)])


def shares_file(ids: pa.Array | pa.ChunkedArray, groups: pa.Array | pa.ChunkedArray,
                files: pa.Array | pa.ChunkedArray) -> pa.Table:
    """One edge per pair of atoms of one group whose `files` meet: src < dst (string order), the shared
    files sorted and without repeats; edges sorted by (src, dst). `ids` must be distinct."""
    if not len(ids):
        return SHARES_FILE_COLUMNS.empty_table()
    by_id = pc.sort_indices(ids)  # atoms in id order: an atom's row is its rank, so pairs come out src < dst
    ids, groups, files = (_one_chunk(pc.take(c, by_id)) for c in (ids, groups, files))
    owner = pc.list_parent_indices(files).to_numpy()  # per (atom, file) entry: the atom's row, ascending
    names = pc.list_flatten(files)
    catalogue = pc.unique(names)
    catalogue = pc.take(catalogue, pc.sort_indices(catalogue))  # file codes in string order
    file_code = pc.index_in(names, value_set=catalogue).to_numpy()
    group_code = pc.dictionary_encode(groups).indices.to_numpy().astype(np.int64)
    key = group_code[owner] * len(catalogue) + file_code
    if not len(key):  # no atom names a file
        return SHARES_FILE_COLUMNS.empty_table()

    # Entries of one (group, file) in id order (a stable sort keeps the owners ascending), each listed
    # once; each pairs with the later entries of its key.
    order = np.argsort(key, kind="stable")
    key, owner, file_code = key[order], owner[order], file_code[order]
    keep = _starts(key, owner)
    key, owner, file_code = key[keep], owner[keep], file_code[keep]
    starts = np.flatnonzero(_starts(key))
    ends = np.r_[starts[1:], len(key)]
    later = np.repeat(ends, ends - starts) - np.arange(len(key)) - 1  # entries after each in its key's run
    first = np.repeat(np.arange(len(key)), later)
    second = first + 1 + np.arange(len(first)) - np.repeat(np.cumsum(later) - later, later)
    src, dst, shared = owner[first], owner[second], file_code[first]

    # One edge per (src, dst): its files are the run of rows with those ends. Pairs were made in key order,
    # so one pair's files come in code (= string) order already, and a stable sort keeps it.
    order = np.argsort(src * len(ids) + dst, kind="stable")
    src, dst, shared = src[order], dst[order], shared[order]
    new = _starts(src, dst)
    offsets = np.r_[np.flatnonzero(new), len(src)].astype(np.int32)
    edge_files = pa.ListArray.from_arrays(pa.array(offsets), pc.take(catalogue, pa.array(shared)))
    return pa.table({"src": pc.take(ids, pa.array(src[new])), "dst": pc.take(ids, pa.array(dst[new])),
                     "files": edge_files}, schema=SHARES_FILE_COLUMNS)


def _starts(*columns: np.ndarray) -> np.ndarray:
    """Where a run of equal rows begins, in sorted columns."""
    begins = np.zeros(len(columns[0]), dtype=bool)
    begins[:1] = True
    for column in columns:
        begins[1:] |= column[1:] != column[:-1]
    return begins


def _one_chunk(column: pa.Array | pa.ChunkedArray) -> pa.Array:
    return column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
