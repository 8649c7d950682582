"""Minus the learned distance from query rows to a fixed set of rows, block after block: the
``learned`` scores of the held-out search check (:meth:`learnsim.baseline.SearchBaselines.pool`).

``metric.pairwise_distances(X[q], X)`` projected all 30,000 documents again for every block of
139 queries (a 30,000 x 256 array and its square, 61 MB each, beside the block's own) and made
three more copies of the block (its clip, square root and sign). Here the documents' side
(their checked rows, squared norms and projection) is made once, and the block's steps are made
in place, in the same order: the same values as ``-metric.pairwise_distances(X[q], X)``.
"""
from __future__ import annotations

import numpy as np

from .._utils.metric import _dense_dot, _row_sq_norms
from ._linalg import _bilinear_sq_dist, _project


def minus_distances_to(metric, B):
    """callable(rows A) -> -metric.pairwise_distances(A, B) (float64), B's side kept between calls."""
    from ._mcd import MinimumClusterDistortion

    if not isinstance(metric, MinimumClusterDistortion) or \
            type(metric)._pairwise_sq_distances is not MinimumClusterDistortion._pairwise_sq_distances:
        def plain(A):
            D = np.array(metric.pairwise_distances(A, B), dtype=np.float64)
            return np.negative(D, out=D)
        return plain
    Bc = metric._check_input(B, "B")
    sq_b = _row_sq_norms(Bc)
    PB = _project(Bc, metric.factor_, metric.active_features_)
    c = metric.weights_ - metric.residual_weight_
    qb = (PB * PB) @ c if c.size else None

    def scores(A):
        A = metric._check_input(A, "A")
        PA = _project(A, metric.factor_, metric.active_features_)
        D2 = _bilinear_sq_dist(_row_sq_norms(A), sq_b, _dense_dot(A, Bc), PA, PB, metric.weights_,
                               metric.residual_weight_, overwrite_g=True, qb=qb)
        # pairwise_distances' clip (again: its own copy), square root and the sign, in place
        np.maximum(D2, 0.0, out=D2)
        np.sqrt(D2, out=D2)
        return np.negative(D2, out=D2)
    return scores
