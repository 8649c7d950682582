"""Exact dense search through an int8 copy of the rows: a quarter of the bytes read, the same hits.

A dense scan of a large segment is bound by memory bandwidth: 100,000 rows of 100 float32 are
40 MB, read once per query (one core of a 2-core EPYC: 1.4 ms, faiss ``IndexFlatIP`` as much).
So a segment searched often keeps, in memory, each row quantized to int8 per dimension
(``x_ij = round((d_ij - c_j) / s_j)``, ``c_j`` the middle of the dimension's range and ``s_j`` its
width / 254), and a search reads that copy first (10 MB: 0.6 ms), then the float32 rows of the
few candidates it leaves. The idea is the VA-file's (Weber, Schek and Blott, 1998): an
approximation with a bound on its error, so that nothing is lost.

The bound. For a query q (the float32 query the exact scan uses) the approximate score
``a_i = sum_j q_j (c_j + s_j x_ij)`` differs from the exact one ``sum_j q_j d_ij`` by at most
``eps = sum_j |q_j| e_j``, where ``e_j`` is the largest reconstruction error of dimension j over
the segment's rows, measured when the copy is made (at most ``s_j / 2``). If ``T`` is the k-th
largest approximate score among the allowed rows, k rows score at least ``T - eps`` exactly, so
the exact k-th best is at least ``T - eps``, and a row among the k best has ``a_i >= T - 2 eps``.
Every row that passes that test is scored exactly, with the float32 loop of the full scan (the
same summation, the same score), and the k best of them are the hits of the full scan. Float
rounding of both sums (at most ``(d + 2) 2^-24`` times their absolute terms, whatever the order
a SIMD loop adds them in) is added to the margin, four times over.

Cost: the copy is built on first use in a process that searches often (a server, a batch: see
:mod:`learnsim.index._kernels`), never for a one-off search; it takes n x d bytes of memory
(a quarter of the float32 rows; 10 MB at 100k x 100) and about 0.5 us a row to build (50 ms at
100k). ``LEARNSIM_PREFILTER=0`` turns it off. An index of fewer than ``PREFILTER_MIN_ROWS`` rows,
segments of fewer than ``PREFILTER_MIN_SEGMENT_ROWS`` rows (the copy's fixed cost a query, about
20 us, does not pay), float64 rows and rows of fewer than ``PREFILTER_MIN_DIM`` dimensions are
scanned directly. On the rows and queries of ``benchmarks/bench_index.py`` (d = 100, one core of
a 2-core Xeon, the copy in blocks as :class:`Int8Rows` keeps it), a search of the copy took 1.29x
the direct scan's time at 2,048 rows, 0.84x at 4,096, 0.60x at 8,192 and 16,384, 0.58x at 32,768
and 0.25x at 65,536 (whose float32 rows no longer stay in the cache). With the row-major copy of
before (each row's products summed across SIMD lanes) the direct scan was as fast up to 20k rows.

References
----------
.. [1] Weber, R., Schek, H.-J. and Blott, S. (1998). A quantitative analysis and performance
   study for similarity-search methods in high-dimensional spaces. VLDB, 194-205.
"""
from __future__ import annotations

import os

import numpy as np

__all__ = ["Int8Rows", "prefilter_of", "BLOCK", "PREFILTER_MIN_ROWS", "PREFILTER_MIN_SEGMENT_ROWS", "PREFILTER_MIN_DIM"]

# Below these the float32 scan is as fast (few rows, which stay in the cache; a small segment's
# rows are few to save; few bytes a row to save)
PREFILTER_MIN_ROWS = 8_192
PREFILTER_MIN_SEGMENT_ROWS = 4_096
PREFILTER_MIN_DIM = 16
# rows quantized at a time: the float64 temporaries of a chunk (a few of 8 MB at d = 128) are
# what the copy costs in memory beyond its n x d bytes
_CHUNK = 8_192
# rows a block of the copy holds (see Int8Rows); _CHUNK is a multiple of it
BLOCK = 256


class Int8Rows:
    """The int8 copy of a float32 row matrix ``D`` (n, d) and what bounds its error.

    The codes are kept in blocks of ``BLOCK`` rows, each block dimension-major (``blocks[b, j, l]``
    is the code of row ``b * BLOCK + l`` in dimension j; the last block padded with zeros): an
    approximate score is then a sum of whole vectors, ``w_j * blocks[b, j, :]`` over j, with no
    sum across SIMD lanes a row. A row-major copy summed each row's d products into one value
    (a horizontal sum and a remainder a row, at d = 100): 0.18-0.22 ms at 10k rows and
    2.2 ms at 100k against 0.06 and 0.7-1.1 ms this way (one core of a 2-core Xeon).

    Attributes
    ----------
    blocks : ndarray of int8, shape (ceil(n / BLOCK), d, BLOCK)
    center, scale : ndarray of float64, shape (d,)
        ``D[i, j]`` is about ``center[j] + scale[j] * codes[i, j]``.
    error : ndarray of float64, shape (d,)
        The largest ``|D[i, j] - (center[j] + scale[j] * codes[i, j])|`` over the rows, measured.
    magnitude : ndarray of float64, shape (d,)
        The largest ``|D[i, j]|`` (what the rounding of a float32 sum is bounded by).
    """

    def __init__(self, D):
        D = np.asarray(D)
        n, d = D.shape
        self.n = n
        lo = D.min(axis=0).astype(np.float64) if n else np.zeros(d)
        hi = D.max(axis=0).astype(np.float64) if n else np.zeros(d)
        self.center = (lo + hi) / 2.0
        width = hi - lo
        self.scale = np.where(width > 0, width / 254.0, 1.0)
        self.blocks = np.zeros((-(-n // BLOCK), d, BLOCK), dtype=np.int8)
        self.error = np.zeros(d)
        for start in range(0, n, _CHUNK):
            block = np.asarray(D[start:start + _CHUNK], dtype=np.float64)
            codes = np.clip(np.rint((block - self.center) / self.scale), -127, 127)
            np.maximum(self.error, np.abs(block - (self.center + self.scale * codes)).max(axis=0), out=self.error)
            m = codes.shape[0]
            padded = np.zeros((-(-m // BLOCK) * BLOCK, d), dtype=np.int8)
            padded[:m] = codes
            first = start // BLOCK        # _CHUNK is a multiple of BLOCK
            self.blocks[first:first + padded.shape[0] // BLOCK] = padded.reshape(-1, BLOCK, d).transpose(0, 2, 1)
        self.magnitude = np.maximum(np.abs(lo), np.abs(hi))
        # what |q| weighs to bound the float32 rounding of both sums (top_k), the same every query
        self._rounding_terms = 127.0 * self.scale + np.abs(self.center) + self.magnitude

    @property
    def codes(self):
        """The codes as rows, (n, d) int8 (a copy: what the bound is stated in)."""
        d = self.blocks.shape[1]
        return self.blocks.transpose(0, 2, 1).reshape(-1, d)[:self.n]

    @property
    def nbytes(self):
        return self.blocks.nbytes

    def top_k(self, kernels, D, q, k, mask, use_mask, out_pos, out_vals):
        """Fill ``out_pos`` / ``out_vals`` with the k best allowed rows of ``D`` by the float32
        inner product with ``q`` (float32), as the full scan does; returns how many."""
        n, d = self.n, self.blocks.shape[1]
        weights = np.empty(d, dtype=np.float32)
        approx = np.empty(self.blocks.shape[0] * BLOCK, dtype=np.float32)
        best = np.empty(k, dtype=np.float32)
        candidates = np.empty(n, dtype=np.int64)
        # the query's weights, offset and margin (_kernels._q8_prepare_kernel: the bound above),
        # the sums, then the k-th best, the rows within the margin of it and their exact scores;
        # three calls: with the top k's loop in the same function as the sums numba's code summed
        # a third as fast
        base, margin = kernels["q8_prepare"](q, self.scale, self.center, self.error, self._rounding_terms, weights)
        kernels["q8_blocks"](self.blocks, weights, base, approx)
        return kernels["q8_finish"](approx, n, k, mask, use_mask, best, margin, D, q, candidates, out_pos, out_vals)


def prefilter_of(seg, often, n_total=None):
    """The segment's :class:`Int8Rows` (built on first use), or None where a direct scan is the
    way: the process is not searching ``often`` yet (:func:`learnsim.index._kernels.searching_often`),
    the index (``n_total`` rows; None: the segment's) or the segment is small, its rows are not
    float32 or have few dimensions, or ``LEARNSIM_PREFILTER=0``."""
    cached = getattr(seg, "_prefilter", None)
    if cached is not None:
        return cached
    D = seg.dense
    rows = seg.n if n_total is None else n_total
    if (seg.n < PREFILTER_MIN_SEGMENT_ROWS or rows < PREFILTER_MIN_ROWS
            or D is None or D.dtype != np.float32 or D.ndim != 2 or D.shape[1] < PREFILTER_MIN_DIM or os.environ.get("LEARNSIM_PREFILTER", "") == "0"
            or not often):
        return None
    seg._prefilter = rows = Int8Rows(D)
    return rows
