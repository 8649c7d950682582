"""Scoring every document of an index for a query, and the k best: numpy only."""
from __future__ import annotations

import numpy as np

__all__ = ["MemorySegment", "closeness", "top_k"]


class MemorySegment:
    """Rows held in memory (documents added after the last segment): the interface of
    :class:`learnsim.index._segments.Segment`."""

    def __init__(self, seqs, rows, dtype):
        import scipy.sparse as sp

        self.name = "(in memory)"
        self.seqs = np.asarray(seqs, dtype=np.int64)
        self.n = self.seqs.shape[0]
        self.dtype = np.dtype(dtype)
        self.dense = None if rows.dense is None else np.ascontiguousarray(rows.dense, dtype=self.dtype)
        self.indptr = None
        if rows.sparse is not None:
            csc = sp.csc_matrix(rows.sparse, dtype=self.dtype)
            csc.sort_indices()
            self.indptr = csc.indptr.astype(np.int64)
            self.indices = csc.indices.astype(np.int32)
            self.data = csc.data
        self.sq = None if rows.sq is None else np.asarray(rows.sq, dtype=np.float64)

    def check(self):
        return None

    def inner(self, q_sparse, q_dense):
        from ._segments import Segment

        return Segment.inner(self, q_sparse, q_dense)


def closeness(segments, q_sparse, q_dense, q_sq, distance):
    """Higher-is-closer values (float64) of one query against every row of ``segments``, in
    order: inner products, or minus the distances sqrt(|q|^2 + |d|^2 - 2 q.d)."""
    parts = []
    for seg in segments:
        inner = seg.inner(q_sparse, q_dense)
        if distance:
            inner = -np.sqrt(np.maximum(q_sq + np.asarray(seg.sq) - 2.0 * inner, 0.0))
        parts.append(inner)
    return np.concatenate(parts) if parts else np.zeros(0)


def top_k(values, k, allowed=None):
    """Positions of the k largest ``values`` (ties to the lower position, as a stable sort), among
    the positions where ``allowed`` is True (all when None); fewer when fewer are allowed."""
    values = np.asarray(values, dtype=np.float64)
    if allowed is not None:
        values = np.where(allowed, values, -np.inf)
        n_ok = int(np.count_nonzero(allowed))
    else:
        n_ok = values.shape[0]
    k = min(int(k), n_ok)
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    if k >= values.shape[0]:
        order = np.argsort(-values, kind="stable")
    else:
        # the k-th largest value; everything above it is in, ties at it go to the lower positions
        kth = np.partition(values, values.shape[0] - k)[values.shape[0] - k]
        above = np.flatnonzero(values > kth)
        above = above[np.argsort(-values[above], kind="stable")]
        at = np.flatnonzero(values == kth)[:k - above.shape[0]]
        order = np.concatenate([above, at])
    order = order[:k]
    if allowed is not None:
        order = order[np.isfinite(values[order])]
    return order
