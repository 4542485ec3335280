"""Relations computed on columns, for domains whose sources hold millions of atoms.

`shares_file` is the SHARES_FILE relation (repair): two atoms of one group (a repository) are related
when their file lists meet. It is an inverted file index done with sorts instead of dicts: no Python
object is made per atom, per file or per edge, so 10^6 atoms give their 4.75x10^6 edges in seconds.

`largest_level` is the largest level a relation supports: `cw walk` refuses a level above it before
walking, and `cw mine repair` states it for the atoms it mined.
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


# -- the largest level a relation supports (cw walk refuses a level above it; cw mine states it) ----------
def largest_level(start: np.ndarray, nxt: np.ndarray, symmetric: bool) -> tuple[int, str]:
    """An upper bound on the level a walk over this relation can reach, and why, from compressed sparse
    rows over atom ranks (`nxt[start[r]:start[r + 1]]` next to rank r: both directions when symmetric). A
    group lies inside one connected component (frontier walks), a chain inside a weakly connected one and,
    when the relation has no cycle, along its longest path. scipy's C code finds components; a chain's
    longest path comes from peeling the relation layer by layer (atoms with no incoming edge left)."""
    from scipy.sparse import csr_array
    from scipy.sparse.csgraph import connected_components

    n = len(start) - 1
    graph = csr_array((np.ones(len(nxt), np.int8), nxt, start), shape=(n, n))
    _, labels = connected_components(graph, directed=True, connection="weak")
    largest = int(np.bincount(labels).max()) if n else 0
    if symmetric:
        return largest, "size of the largest connected component"
    indegree = np.bincount(nxt, minlength=n)
    layer = np.flatnonzero(indegree == 0)
    layers, peeled = 0, 0
    while len(layer):
        layers, peeled = layers + 1, peeled + len(layer)
        spans = [nxt[start[r]:start[r + 1]] for r in layer]
        targets = np.concatenate(spans) if spans else np.zeros(0, np.int64)
        indegree -= np.bincount(targets, minlength=n)
        layer = np.flatnonzero((indegree == 0) & (np.bincount(targets, minlength=n) > 0))
    if peeled == n:  # acyclic: the longest chain has one atom per layer
        return layers, "atoms on the longest path of the relation (it has no cycle)"
    return largest, "size of the largest weakly connected component"


def largest_level_of_edges(n: int, src: np.ndarray, dst: np.ndarray, symmetric: bool) -> tuple[int, str]:
    """largest_level for n atoms and edges given as rank pairs (a small graph: one sort, no packing)."""
    src, dst = np.asarray(src, np.int64), np.asarray(dst, np.int64)
    if symmetric:
        src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
    order = np.lexsort((dst, src))
    start = np.concatenate([[0], np.cumsum(np.bincount(src, minlength=n))]).astype(np.int64)
    return largest_level(start, dst[order].astype(np.int32), symmetric)
