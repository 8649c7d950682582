"""Relative comparisons as supervision: :class:`Triplets` and :func:`check_triplets`."""
from __future__ import annotations

import numpy as np

from ._common import _check_n_items, _check_range, _index_array


class Triplets:
    """Relative comparisons ``(i, j, k)``: item ``i`` is closer to ``j`` than to ``k``.

    Only row indices into ``X`` are stored, never rows. A triplet with a repeated index is
    refused.

    Parameters
    ----------
    indices : array-like of int, shape (n_triplets, 3)

    Examples
    --------
    >>> from learnsim.supervision import Triplets
    >>> t = Triplets([[0, 1, 2], [3, 4, 0]])
    >>> t
    Triplets(n_triplets=2)
    >>> t.anchors, t.positives, t.negatives
    (array([0, 3]), array([1, 4]), array([2, 0]))
    """

    __slots__ = ("_indices",)

    def __init__(self, indices):
        if isinstance(indices, Triplets):
            self._indices = indices._indices
            return
        ind = _index_array(indices, 3, "triplets", "triplet")
        i, j, k = ind.T
        repeated = (i == j) | (i == k) | (j == k)
        if repeated.any():
            row = int(np.flatnonzero(repeated)[0])
            raise ValueError(f"triplets has {int(repeated.sum())} row(s) with a repeated index "
                             f"(e.g. row {row}: {tuple(int(v) for v in ind[row])}); each triplet (i, j, k) "
                             "needs three distinct items: i closer to j than to k")
        self._indices = ind

    @property
    def indices(self):
        return self._indices

    @property
    def anchors(self):
        return self._indices[:, 0]

    @property
    def positives(self):
        return self._indices[:, 1]

    @property
    def negatives(self):
        return self._indices[:, 2]

    @property
    def n_triplets(self):
        return int(self._indices.shape[0])

    def __len__(self):
        return self.n_triplets

    def __array__(self, dtype=None, copy=None):
        if copy:
            return np.array(self._indices, dtype=dtype, copy=True)
        return self._indices if dtype is None else self._indices.astype(dtype)

    def __repr__(self):
        return f"Triplets(n_triplets={self.n_triplets})"


def check_triplets(triplets, n_items):
    """Validate triplets (a :class:`Triplets` or an ``(m, 3)`` int array) for ``n_items`` rows.

    Examples
    --------
    >>> from learnsim.supervision import check_triplets
    >>> check_triplets([[0, 1, 2], [2, 1, 0]], n_items=3)
    Triplets(n_triplets=2)
    >>> check_triplets([[0, 1, 5]], n_items=3)
    Traceback (most recent call last):
        ...
    ValueError: ...
    """
    n_items = _check_n_items(n_items)
    triplets = triplets if isinstance(triplets, Triplets) else Triplets(triplets)
    _check_range(triplets.indices, n_items, "triplets")
    return triplets
