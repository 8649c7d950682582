"""The anchors' constant terms of FILM (:mod:`learnsim.film`), held so that no second n x r
array lives next to the SVD factor V (issue 16, part 3).

Algorithm 1 needs, per anchor i, D_i = sum_{t in T_i} (V_j - V_k) = (V^T C)[:, i] (eq. 8) and
V_i. Stored, D is as large as V itself when every item is an anchor (2 GB at 500,000 items and
r = 500), V[anchors] is a third such array when the anchors are a subset, and K's product
``(D * weights).T @ V_A`` a fourth, temporary one. An :class:`_AnchorBlock` keeps only the
sparse C^T (two entries per triplet) and computes D's rows in blocks of ``_BLOCK_BYTES`` at
every use: the peak memory of a refresh is V plus a few blocks. The result changes only by
rounding (K is summed block by block; each row of D is the same sparse product as before), no
more than running the former code with another number of BLAS threads does (tests/
test_film_memory.py). When the anchors fit in one block, D and V[anchors] are stored as before,
so a small fit does not recompute D per iteration (with every item an anchor, its D P is
C^T (V P), the same terms in another order: :meth:`_AnchorBlock._projected`).

The price is one sparse product C^T V (two rows of V per triplet) and the gather of V[anchors]
per refresh of full FILM: measured (``benchmarks/bench_film_memory.py --refresh-timing``, r = 500,
2 threads) 1.36 times the CPU seconds of a refresh with D stored at 100,000 sentences (64,000
anchors) and 1.16 times at 300,000 (192,000 anchors), for a fit's peak memory of 1.8 GB instead
of 4.3 GB there. M-FILM batches of up to 16,000 anchors (at r = 500) stay one stored block.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._utils.linalg import small_blas

# One block of anchors holds at most this many bytes of D's rows (float64, n_block x r); the
# refresh holds about three such arrays (D_b, V[anchors_b] and D_b times the weights). 64 MiB is
# 16,000 anchors at r = 500: an M-FILM batch of the default size (bench_film_scale.py, 10,000
# triplets) stays one stored block, as before.
_BLOCK_BYTES = 64 * 2**20


def _block_rows(r):
    """Anchors per block at rank ``r``."""
    return max(1, _BLOCK_BYTES // (8 * max(int(r), 1)))


class _AnchorBlock:
    """The part of the constraint matrix C that a set of anchors contributes.

    Attributes: ``anchors`` (item ids, sorted and distinct), ``t`` = 1 / (|T_i| + 1) (the
    diagonal of T), ``scale`` (the M-FILM factor, 1 for the full set) and ``stored`` (True when
    the anchors fit in one block: D and V[anchors] are then kept). ``D`` (n_anchors x r) with
    D_i = sum_{t in T_i} (V_j - V_k) = (V^T C)[:, i] (eq. 8) and ``VA`` = V[anchors] are built
    on access when not stored (for inspection: the iteration reads them block by block through
    :meth:`blocks`).
    """

    __slots__ = ("anchors", "t", "scale", "stored", "_Ct", "_V", "_D", "_VA", "_rows")

    def __init__(self, V, anchors, counts, positives, negatives, scale):
        n_block = anchors.size
        rows = np.repeat(np.arange(n_block), counts)
        # C^T restricted to the block's anchors: +1 at (i, j), -1 at (i, k) for each triplet
        # (duplicates add up, as in C = sum_t C^(t)).
        Ct = sp.csr_matrix((np.concatenate([np.ones(rows.size), -np.ones(rows.size)]),
                            (np.concatenate([rows, rows]), np.concatenate([positives, negatives]))),
                           shape=(n_block, V.shape[0]))
        self.anchors = anchors
        self.t = 1.0 / (counts + 1.0)          # T = diag(1 / (|T_i| + 1)), eq. (10)
        self.scale = float(scale)
        self._Ct, self._V = Ct, V
        self._rows = _block_rows(V.shape[1])
        self.stored = n_block <= self._rows
        self._D = self._VA = None
        if self.stored:
            self._D = np.asarray(Ct @ V)       # rows of V^T C at the anchors (Algorithm 1, line 3)
            self._VA = self._rows_of_V(0, n_block)

    def _rows_of_V(self, lo, hi):
        # anchors are sorted and distinct: when every item is one, V[anchors] is V (a view, no copy)
        if self.anchors.size == self._V.shape[0]:
            return self._V[lo:hi]
        return self._V[self.anchors[lo:hi]]

    @property
    def D(self):
        return self._D if self.stored else np.asarray(self._Ct @ self._V)

    @property
    def VA(self):
        return self._VA if self.stored else self._rows_of_V(0, self.anchors.size)

    def blocks(self):
        """(lo, hi, D[lo:hi], VA[lo:hi]) for consecutive blocks of the anchors; one block, the
        stored arrays, when ``stored``. Each row of D is the same sparse product (same terms,
        same order) whatever the blocks."""
        if self.stored:
            yield 0, self.anchors.size, self._D, self._VA
            return
        for lo in range(0, self.anchors.size, self._rows):
            hi = min(lo + self._rows, self.anchors.size)
            yield lo, hi, np.asarray(self._Ct[lo:hi] @ self._V), self._rows_of_V(lo, hi)

    # ------------------------------------------------------------------ Algorithm 1's terms
    def _threads(self, width):
        """BLAS threads for products of the anchors' rows (n_anchors x r) with ``width`` columns:
        one thread when they are small (small_blas), as the optimiser's steps run (stiefel.py)."""
        return small_blas(2 * self.anchors.size * self._V.shape[1] * width)

    def _projected(self, P):
        """(lo, hi, D[lo:hi], VA[lo:hi], VA[lo:hi] P, D[lo:hi] P) for the blocks of :meth:`blocks`.

        When every item is an anchor and D is stored, D P = C^T (V P): the sparse C^T (two entries
        per triplet) times the V P that z needs anyway, instead of a second n x r by r x d product
        (a seventh of a refresh's flops at r = 5 d). The same terms summed in another order."""
        if self.stored and self.anchors.size == self._V.shape[0]:
            VP = self._VA @ P
            yield 0, self.anchors.size, self._D, self._VA, VP, np.asarray(self._Ct @ VP)
            return
        for lo, hi, D, VA in self.blocks():
            yield lo, hi, D, VA, VA @ P, D @ P

    def z_values(self, P, s):
        """z_i = -t_i sum_l s_l (V_i p_l)(D_i p_l) (step 2) for every anchor."""
        z = np.empty(self.anchors.size)
        with self._threads(2 * P.shape[1]):
            for lo, hi, _, _, VP, DP in self._projected(P):
                z[lo:hi] = -self.t[lo:hi] * np.einsum("il,il,l->i", VP, DP, s)
        return z

    def k_matrix(self, lam):
        """K = -V^T C T Lambda V (step 4) = -sum_i D_i t_i lambda_i V_i^T, times ``scale``."""
        weights = self.t * lam * self.scale
        K = None
        with self._threads(self._V.shape[1]):
            for lo, hi, D, VA in self.blocks():
                part = -(D * weights[lo:hi, None]).T @ VA
                if K is None:
                    K = part
                else:
                    K += part
        return K

    def refresh_terms(self, P, s, lambda_of):
        """z (step 2), Lambda = ``lambda_of(z)`` and K (step 4) in one pass over the blocks, so
        that each block's rows of D are computed once per refresh. Returns (z, lam, K)."""
        with self._threads(self._V.shape[1] + 2 * P.shape[1]):
            return self._refresh_terms(P, s, lambda_of)

    def _refresh_terms(self, P, s, lambda_of):
        z = np.empty(self.anchors.size)
        lam = np.empty(self.anchors.size)
        K = None
        for lo, hi, D, VA, VP, DP in self._projected(P):
            t = self.t[lo:hi]
            z[lo:hi] = -t * np.einsum("il,il,l->i", VP, DP, s)
            lam[lo:hi] = lambda_of(z[lo:hi])     # elementwise: the same on a block as on all
            part = -(D * (t * lam[lo:hi] * self.scale)[:, None]).T @ VA
            if K is None:
                K = part
            else:
                K += part
        return z, lam, K
