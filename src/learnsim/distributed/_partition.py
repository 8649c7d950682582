"""What a worker does with one partition of a distributed index: write its rows and texts,
and score queries against them. numpy, scipy and learnsim.index only (no Dask).

A partition directory ``partitions/<name>/`` holds a :mod:`learnsim.index._segments` segment (the
rows, ``seqs.npy`` being the local positions 0..n-1) and the partition's texts (and ids, when
given) as UTF-8 bytes with offsets, read with mmap, one text at a time:

- ``texts.npy`` uint8, ``text_offsets.npy`` int64 (n + 1): text i is bytes [off[i], off[i+1]);
- ``ids.npy``, ``id_offsets.npy``: the same for the ids (absent: ids are global positions + 1).

Everything read is checked like what a build writes (shapes, dtypes, offsets, UTF-8).
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np

from ..index._segments import IndexFormatError, Segment, write_segment
from ._dask import partition_items

__all__ = ["write_partition", "open_segment", "PartitionTexts", "search_partition", "merge_best"]

# A distance model's queries are scored in blocks from this many (fewer: one at a time, as
# Index.search does), with at most this many float64 distances held at once (32 MB).
_MIN_DISTANCE_BATCH = 4
_DISTANCE_BLOCK_SCORES = 1 << 22


def _utf8_blob(strings):
    encoded = [s.encode("utf-8", "surrogatepass") for s in strings]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    if encoded:
        np.cumsum([len(b) for b in encoded], out=offsets[1:])
    return np.frombuffer(b"".join(encoded), dtype=np.uint8), offsets


def _save(path, arr):
    np.save(path, arr, allow_pickle=False)
    with open(path, "rb+") as fh:
        os.fsync(fh.fileno())


def _id_hashes(ids):
    return np.asarray([int.from_bytes(hashlib.blake2b(i.encode("utf-8", "surrogatepass"), digest_size=8).digest(),
                                      "little", signed=True) for i in ids], dtype=np.int64)


def whole_strings(strings, what, partition):
    """``strings`` (a partition's texts or ids) as a list, a TextError (a ValueError) naming the
    partition and the item for one holding a lone surrogate: Index.build refuses such a text or
    id; here an id was stored, and a text refused only where the model's vocabulary read it, at
    its position inside its partition given as the collection's. Items that are not str are
    left to the checks that name their type."""
    strings = partition_items(strings, what, partition)
    for i, s in enumerate(strings):
        if isinstance(s, str) and not s.isascii():
            from .._utils.inputs import check_text

            check_text(s, f"{what} (partition {partition}, item {i})")
    return strings


def _checked_ids(ids, n, partition):
    ids = partition_items(ids, "ids", partition)
    if len(ids) != n:
        raise ValueError(f"partition {partition} of ids holds {len(ids)} ids for {n} texts: ids must be "
                         "partitioned like the texts")
    for i, x in enumerate(ids):
        if not isinstance(x, str) or not x:
            raise TypeError(f"partition {partition} of ids, item {i}: an id must be a non-empty str; got {x!r}")
    return whole_strings(ids, "ids", partition)


def write_partition(texts, ids, pipeline, statistics, directory, name, dtype, partition):
    """Vectorise one partition, write its rows and texts under ``directory/name``; returns
    ``(manifest entry, int64 hashes of its ids or None)``. An empty partition writes nothing."""
    from ._dask import ready
    from .text import _checked_texts, vectorize_partition

    texts = whole_strings(_checked_texts(texts, partition), "texts", partition)
    n = len(texts)
    ids = None if ids is None else _checked_ids(ids, n, partition)
    if n == 0:
        return {"name": name, "n": 0, "first_seq": 0, "last_seq": 0}, None
    pipeline = ready(pipeline)
    if statistics and "vocabulary" in statistics and texts:
        # the collection's vocabulary (issue 32): the rows an Index of the same texts stores
        rows = pipeline.document_rows(list(texts), statistics)
    else:
        X = vectorize_partition(texts, pipeline.vectorizer, partition)
        rows = pipeline.scorer.document_rows(X, statistics)
        del X
    entry = write_segment(directory, name, np.arange(n, dtype=np.int64), rows, dtype)
    del rows
    final = Path(directory) / name
    blob, offsets = _utf8_blob(texts)
    _save(final / "texts.npy", blob)
    _save(final / "text_offsets.npy", offsets)
    hashes = None
    if ids is not None:
        blob, offsets = _utf8_blob(ids)
        _save(final / "ids.npy", blob)
        _save(final / "id_offsets.npy", offsets)
        hashes = _id_hashes(ids)
    return entry, hashes


def open_segment(path, entry, manifest):
    """The segment of one partition, checked against the manifest (IndexFormatError if not)."""
    return Segment(Path(path) / "partitions", entry, kind=manifest["kind"], n_features=manifest.get("n_features"),
                   dense_dim=manifest.get("dense_dim"))


class PartitionTexts:
    """The texts (and ids) of one partition, mmapped and checked at open."""

    def __init__(self, directory, n):
        self.where = f"partition {Path(directory).name!r}"
        self.texts = self._strings(directory, "texts", "text_offsets", n, required=True)
        self.ids = self._strings(directory, "ids", "id_offsets", n, required=False)

    def _strings(self, directory, blob_name, offsets_name, n, required):
        directory = Path(directory)
        if not (directory / f"{blob_name}.npy").exists() and not required:
            return None
        from ..persistence import load_npy_file

        try:
            # headers checked against the files' sizes first: a forged one claiming 10^12 rows
            # made np.load of the offsets ask for 7.3 TiB (MemoryError); the texts stay mapped
            blob = load_npy_file(directory / f"{blob_name}.npy", mmap_mode="r")
            offsets = load_npy_file(directory / f"{offsets_name}.npy")
        except (OSError, ValueError) as exc:
            raise IndexFormatError(f"{self.where}: cannot read {blob_name}: {exc}") from None
        if (blob.dtype != np.uint8 or blob.ndim != 1 or offsets.dtype != np.int64 or offsets.shape != (n + 1,)
                or int(offsets[0]) != 0 or int(offsets[-1]) != blob.shape[0] or np.any(np.diff(offsets) < 0)):
            raise IndexFormatError(f"{self.where}: {blob_name}.npy and {offsets_name}.npy are inconsistent "
                                   f"(damaged or edited)")
        return blob, offsets

    @staticmethod
    def _get(pair, i, where, what):
        blob, offsets = pair
        try:
            return bytes(blob[offsets[i]:offsets[i + 1]]).decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            raise IndexFormatError(f"{where}: {what} {i} is not UTF-8 (damaged or edited)") from None

    def text(self, i):
        return self._get(self.texts, i, self.where, "text")

    def id(self, i):
        return None if self.ids is None else self._get(self.ids, i, self.where, "id")


def search_partition(path, entry, manifest, rows, k):
    """The k best rows of one partition for every query (ties to the lower position): a list of
    (global positions int64, higher-is-closer values float64), best first."""
    from ..index._batch import best_k_dense_batch, dense_batch_applies
    from ..index._scan import best_k

    seg = open_segment(path, entry, manifest)
    offset = int(entry["offset"])
    distance = manifest["kind"] == "distance"
    if dense_batch_applies([seg], rows, distance):
        # several dense queries: one matrix product for them all, as Index.search takes them
        seg.check()
        return [(order + offset, values) for order, values in best_k_dense_batch([seg], rows.dense, k)]
    if distance and len(rows) >= _MIN_DISTANCE_BATCH:
        seg.check()
        return [(order + offset, values) for order, values in _distance_batch(seg, rows, k)]
    out = []
    for i in range(len(rows)):
        s, d, q = rows.row(i)
        order, values = best_k([seg], s, d, q, distance, k)
        out.append((order + offset, values))
    return out


def _distance_batch(seg, rows, k):
    """The k closest rows of a distance model's segment for every query of ``rows``, as
    :func:`learnsim.index._scan.best_k` finds them one at a time (minus the distance, ties to the
    lower position), with the inner products of a block of queries in two matrix products (the
    posting lists read once for the block, not once a query): 93-165 ms a query at 500k rows in
    10 partitions before. The inner products differ from one at a time only by the order of the
    sums (float32 rows), so two rows that close may swap."""
    import scipy.sparse as sp

    from ..index._kernels import largest_k

    n = seg.n
    out = []
    if n == 0:
        return [(np.zeros(0, dtype=np.int64), np.zeros(0)) for _ in range(len(rows))]
    X = None
    if seg.indptr is not None:
        X = sp.csc_matrix((np.asarray(seg.data), np.asarray(seg.indices), np.asarray(seg.indptr)),
                          shape=(n, seg.indptr.shape[0] - 1))
    sq_rows = np.asarray(seg.sq, dtype=np.float64)
    step = max(1, _DISTANCE_BLOCK_SCORES // n)
    for lo in range(0, len(rows), step):
        block = range(lo, min(lo + step, len(rows)))
        inner = np.zeros((len(block), n))
        if X is not None:
            terms = [rows.sparse[i] for i in block]
            if any(t is not None and t[0].size for t in terms):
                lengths = [0 if t is None else t[0].size for t in terms]
                Q = sp.csr_matrix((np.concatenate([t[1] for t in terms if t is not None] or [np.zeros(0)]),
                                   np.concatenate([t[0] for t in terms if t is not None] or [np.zeros(0, dtype=np.int64)]),
                                   np.concatenate([[0], np.cumsum(lengths)])), shape=(len(block), X.shape[1]))
                inner += (X @ Q.T.astype(np.float64)).T.toarray()
        if rows.dense is not None and seg.dense is not None:
            Qd = np.ascontiguousarray(rows.dense[lo:lo + len(block)], dtype=seg.dense.dtype)
            inner += (Qd @ np.asarray(seg.dense).T).astype(np.float64)
        q_sq = np.array([rows.row(i)[2] for i in block], dtype=np.float64)
        values = -np.sqrt(np.maximum(q_sq[:, None] + sq_rows[None, :] - 2.0 * inner, 0.0))
        for row in range(len(block)):
            pos = largest_k(values[row], k, None, n)
            out.append((pos, values[row, pos]))
    return out


# values of one query within this of each other (relative to the largest, at least 1) are tied
# in merge_best: float32 products over a partition's rows differ from those over one index's
# by rounding (~1e-7; a copy's distance to its original came back 0 in one and 1.5e-8 in the other)
TIE_TOLERANCE = 1e-6
# a distance model's values are tied on the scale of the squared distances (what its products
# round on: |q|^2 + |x|^2 - 2 q.x), relative to the largest of them, by the rows' dtype. Its
# rows are float64 by default: 1e-6 of the farthest candidate's distance tied two documents
# 4e-5 apart at 111.8 (with k the whole collection) and gave the farther first
DISTANCE_TIE_TOLERANCE = {"float32": 1e-6, "float64": 1e-12}


def merge_best(parts, k, distance=False, dtype="float32"):
    """Merge partial top-k lists (one list of (positions, values) per query each): the k best
    per query, ties to the lower global position, as learnsim.index merges its segments.

    Values within :data:`TIE_TOLERANCE` of the next (a chain of them) are one tie: the matrix
    products of a partition round differently from those of the one index over the same rows,
    and copies of a text came back in another order than ``Index.search`` gives them (there,
    the one product gives them one value, and the lower position first). Their values are
    reported as computed, so within a tie they may be out of order by that much. With
    ``distance`` (values are minus the distances) the squared distances are compared, within
    :data:`DISTANCE_TIE_TOLERANCE` of the rows' ``dtype`` of the largest."""
    out = []
    for per_query in zip(*parts):
        pos = np.concatenate([p for p, _ in per_query])
        vals = np.concatenate([v for _, v in per_query])
        order = np.lexsort((pos, -vals))
        if order.size > 1:
            ranked = vals[order]
            if distance:
                ranked = -np.square(ranked)          # minus the squared distances, still descending
                tol = DISTANCE_TIE_TOLERANCE[dtype] * max(1.0, float(np.abs(ranked).max()))
            else:
                tol = TIE_TOLERANCE * max(1.0, float(np.abs(ranked).max()))
            tie = np.concatenate([[0], np.cumsum(ranked[:-1] - ranked[1:] > tol)])
            order = order[np.lexsort((pos[order], tie))]
        order = order[:k]
        out.append((pos[order], vals[order]))
    return out
