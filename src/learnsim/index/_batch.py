"""Several dense queries in one pass over the rows: numpy (BLAS) only.

A search of one query against a dense-only similarity index (FILM) is a matrix-vector product:
it reads every row (100,000 x 100 float32 = 40 MB) to do two flops per value read, so its time
is the memory's, not the processor's. A server batches the queries that arrive together; scoring
B of them as one matrix product ``Q @ D.T`` reads the rows once for all B, and the BLAS matrix
product is bound by the processor instead (one thread of a 2-core EPYC, 100k x 100 rows: a
query's scores take 1.9 ms alone, 10 GFLOP/s; 0.36 ms in a batch of 64, 55 GFLOP/s). The rows
are taken in blocks, so that the B x block scores (the only new memory) stay bounded.

The k best of each query are then chosen block by block with the same
:func:`learnsim.index._kernels.largest_k` as a single search (ties to the lower position, the
allowed mask honoured), and merged across blocks and segments as
:func:`learnsim.index._scan.best_k` merges segments: the hits are those of one search at a time.
With the kernels (numba), the blocks are small enough for their scores to stay in the
processor's cache (``FUSED_BLOCK_SCORES``), and one kernel call a block adds them to every
query's best k (:func:`learnsim.index._kernels.block_top_k`, the same order): the scores of a
whole segment are never written to memory and read back query by query.
The scores differ only by the summation order of the matrix product (float32 rounding, about
1e-7 of a unit vector's score), so two documents whose scores are that close may swap.

A segment with an approximate structure (:mod:`learnsim.index._ann`) is searched through it,
the whole batch in one call, its candidates scored exactly as one search at a time scores them.

Everything else (sparse or mixed rows, distance models, fewer than ``MIN_BATCH`` queries) takes
the one-at-a-time path of :func:`learnsim.index._scan.best_k`.
"""
from __future__ import annotations

import numpy as np

__all__ = ["dense_batch_applies", "best_k_dense_batch", "BLOCK_SCORES", "MIN_BLOCK_ROWS", "MIN_BATCH",
           "FUSED_BLOCK_SCORES", "FUSED_MIN_BLOCK_ROWS"]

# Scores held at once (queries x rows of a block, float32: 32 MB): the only new memory, whatever
# the batch (1,000 queries over a 1M-row segment would otherwise hold 4 GB of scores). Measured on
# a 2-core EPYC (32 MB L3), 100k x 100 float32 rows, one BLAS thread: the product costs the same
# per query for blocks of 16k rows or more, but the per-query top-k costs a call per block
# (about 10 us each, against 1 ns a row), so a block is as large as this bound allows: 64
# queries take 100k rows in one block (0.48 ms a query, 0.57 in blocks of 16k rows).
BLOCK_SCORES = 1 << 23
# ... and never fewer rows than this, so that the calls stay paid for: past 512 queries the
# scores outgrow the bound above (64 kB a query)
MIN_BLOCK_ROWS = 16384
# With the kernels (numba), the scores are taken in blocks of about this many (queries x rows,
# float32: 512 kB, within a core's L2 cache) and each query's best k kept across blocks by one
# kernel call a block; never fewer rows than FUSED_MIN_BLOCK_ROWS, so that the calls stay paid for
FUSED_BLOCK_SCORES = 1 << 17
FUSED_MIN_BLOCK_ROWS = 1024
# Fewer queries go one at a time: OpenBLAS's sgemm with 2 query rows is slower than 2
# matrix-vector products (3.3 against 1.9 ms a query, same machine); from 4 rows it is faster.
MIN_BATCH = 4


def dense_batch_applies(segments, rows, distance):
    """Whether :func:`best_k_dense_batch` gives the hits of ``rows`` (a
    :class:`learnsim.index._query.QueryRows`) over ``segments``.

    Parameters
    ----------
    segments : list of Segment or MemorySegment
        The index's segments, in order.
    rows : QueryRows
        The query rows of the batch.
    distance : bool
        Whether the model ranks by distance (those take the one-at-a-time path).

    Returns
    -------
    bool
        True for ``MIN_BATCH`` or more similarity queries with a dense part and no sparse part against
        segments that hold dense rows and no posting lists.
    """
    if distance or len(rows) < MIN_BATCH or rows.dense is None:
        return False
    if any(s is not None for s in rows.sparse):
        return False
    # an empty segment is skipped whatever it holds; any other needs dense rows only (a mixed
    # segment adds its posting lists' scores, which only the one-at-a-time path computes)
    return all(seg.n == 0 or (_has(seg, "dense") and not _has(seg, "indptr")) for seg in segments)


def _has(seg, key):
    """Whether a segment has the array ``key``, without reading it (Segment.has; any object
    with the arrays as attributes otherwise)."""
    has = getattr(seg, "has", None)
    return has(key) if has is not None else getattr(seg, key, None) is not None


def _excluded(exclude, i):
    """The global positions query ``i`` must not return, sorted (int64), or None."""
    if exclude is None:
        return None
    e = np.unique(np.asarray(exclude[i], dtype=np.int64).ravel())
    return e if e.size else None


def _without_placeless(segments, allowed, n_total):
    """``allowed`` (a mask over all rows, or None: all) less the rows without a place in the
    model's space (every part zero), which a search leaves out as one at a time
    (:func:`learnsim.index._scan.best_k`) does."""
    from ._scan import _placeless

    gone, offset = [], 0
    for seg in segments:
        if seg.n:
            found = _placeless(seg, False)
            if found.size:
                gone.append(found + offset)
        offset += seg.n
    if not gone:
        return allowed
    allowed = np.ones(n_total, dtype=bool) if allowed is None else np.array(allowed, dtype=bool)
    allowed[np.concatenate(gone)] = False
    return allowed


def best_k_dense_batch(segments, Q, k, allowed=None, exclude=None, ann=None):
    """The k best rows over ``segments`` for each dense query of ``Q``, as
    :func:`learnsim.index._scan.best_k` gives them one query at a time.

    Parameters
    ----------
    segments : list of Segment or MemorySegment
        Segments with dense rows and no posting lists (see :func:`dense_batch_applies`), in order.
    Q : ndarray of shape (B, d)
        The queries' dense rows (cast to each segment's dtype, as a single search casts them).
    k : int
        Hits per query.
    allowed : ndarray of bool of shape (n_total,), optional
        The rows that may be returned (all when None).
    exclude : sequence of length B, optional
        For each query, a global position (or an array of them) it must not return (the
        document itself, for :meth:`learnsim.index.Index.more_like`).
    ann : learnsim.index._ann.AnnSearch, optional
        Search the segments that have an approximate structure through it, the whole batch in
        one call of the structure (None: every segment is scanned).

    Returns
    -------
    list of (ndarray of int64, ndarray of float64)
        For each query, the global positions and the inner products of its hits, best first, ties
        to the lower position; fewer than k when fewer rows are allowed.
    """
    from ._kernels import _MAX_KERNEL_K, _kernels, block_top_k, largest_k, note_search

    Q = np.asarray(Q)
    B = Q.shape[0]
    for _ in range(B):
        # each query counts as a search, as it would one at a time (numba's warm-up rule)
        note_search()
    n_total = sum(seg.n for seg in segments)
    allowed = _without_placeless(segments, allowed, n_total)
    excluded = [_excluded(exclude, i) for i in range(B)]
    cand_pos = [[] for _ in range(B)]
    cand_val = [[] for _ in range(B)]
    step = max(MIN_BLOCK_ROWS, BLOCK_SCORES // max(B, 1))
    cast = {}
    offset = 0
    for seg in segments:
        seg.check()
        n = seg.n
        if n == 0:
            continue
        todo = range(B)
        if ann is not None and getattr(seg, "ann_meta", None) is not None:
            from ._ann import ann_batch_best

            local = [None if e is None else e[(e >= offset) & (e < offset + n)] - offset for e in excluded]
            found = ann_batch_best(seg, Q, k, None if allowed is None else allowed[offset:offset + n], local, ann)
            if found is not None:
                for i, hit in enumerate(found):
                    if hit is not None:
                        cand_pos[i].append(hit[0] + offset)
                        cand_val[i].append(hit[1])
                # the queries the structure could not answer scan the segment
                todo = [i for i, hit in enumerate(found) if hit is None]
                if not todo:
                    offset += n
                    continue
        D = seg.dense
        Qs = cast.get(D.dtype)
        if Qs is None:
            Qs = cast[D.dtype] = np.ascontiguousarray(Q, dtype=D.dtype)
        Qt = Qs if len(todo) == B else Qs[list(todo)]
        kernels = _kernels(n_total)
        if (kernels is not None and 0 < k <= _MAX_KERNEL_K and D.ndim == 2
                and all(excluded[i] is None or not ((excluded[i] >= offset) & (excluded[i] < offset + n)).any()
                        for i in todo)):
            # blocks whose scores stay in the processor's cache, each query's best k kept across
            # them by one kernel call a block (the scores of a whole segment, 20 MB for 50
            # queries over 100k rows, were written to memory and read back once per query)
            m = len(todo)
            best_pos, best_val = np.empty((m, k), dtype=np.int64), np.empty((m, k), dtype=D.dtype)
            counts = np.zeros(m, dtype=np.int64)
            rows = max(FUSED_MIN_BLOCK_ROWS, FUSED_BLOCK_SCORES // m)
            # (rows, queries): OpenBLAS's gemm on the rows as they lie and the queries as
            # contiguous columns took 18 ms for 50 queries over 100k rows of 100, against 28 ms
            # for (queries, rows) (one core)
            QT = np.ascontiguousarray(Qt.T)
            for lo in range(0, n, rows):
                hi = min(n, lo + rows)
                S = D[lo:hi] @ QT
                block_top_k(kernels, S, lo, k, None if allowed is None else allowed[offset + lo:offset + hi],
                            best_pos, best_val, counts)
            for row, i in enumerate(todo):
                c = int(counts[row])
                cand_pos[i].append(best_pos[row, :c] + offset)
                cand_val[i].append(best_val[row, :c].astype(np.float64))
            offset += n
            continue
        for lo in range(offset, offset + n, step):
            hi = min(offset + n, lo + step)
            # (B, hi - lo) in the rows' dtype: one BLAS gemm reads the block's rows once for all
            S = Qt @ D[lo - offset:hi - offset].T
            mask = None if allowed is None else allowed[lo:hi]
            for row, i in enumerate(todo):
                e = excluded[i]
                extra = None
                if e is not None:
                    inside = e[(e >= lo) & (e < hi)]
                    extra = inside - lo if inside.size else None
                # an excluded row can take at most one of the k places: ask for that many more
                # and drop it, rather than copy the mask for each query
                want = k if extra is None else k + extra.shape[0]
                pos = largest_k(S[row], want, mask, n_total)
                if extra is not None:
                    pos = pos[~np.isin(pos, extra)][:k]
                cand_pos[i].append(pos + lo)
                cand_val[i].append(np.asarray(S[row, pos], dtype=np.float64))
        offset += n
    out = []
    for i in range(B):
        if not cand_pos[i]:
            out.append((np.zeros(0, dtype=np.int64), np.zeros(0)))
            continue
        pos, vals = np.concatenate(cand_pos[i]), np.concatenate(cand_val[i])
        if len(cand_pos[i]) > 1:
            # each block's list is best first already; across blocks, as best_k merges segments
            order = np.lexsort((pos, -vals))[:k]
            pos, vals = pos[order], vals[order]
        out.append((pos, vals))
    return out
