"""Shared behaviour of every learned Mahalanobis-type metric in learnsim.

A learner only has to provide ``transform`` (the map L with M = L^T L) or, when an explicit
embedding would be wasteful, ``_pairwise_sq_distances``; pair distances, pair scores, a metric
function and pairwise distance matrices are written once here.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from .validation import check_matrix, check_indices, check_n_features


class MetricMixin:
    """Mixin giving metric-learn-like pair methods to a fitted metric learner.

    Subclasses implement ``transform(X)`` and may override ``_pairwise_sq_distances(A, B)``.
    """

    def __sklearn_tags__(self):
        # every metric learner takes scipy.sparse text vectors (_check_input accepts them)
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _check_input(self, X, name="X"):
        check_is_fitted(self)
        # float64 throughout: |a|^2 + |b|^2 - 2 a.b cancels badly in float32 for near neighbours
        X = check_matrix(X, name=name, accept_sparse=True, dtype=np.float64)
        check_n_features(X, self.n_features_in_, name=name, owner=type(self).__name__)
        return X

    def _pairwise_sq_distances(self, A, B):
        EA, EB = self.transform(A), self.transform(B)
        return _sq_euclidean(EA, EB)

    def pairwise_distances(self, A, B=None, *, squared=False):
        """Distance matrix d_M(a_i, b_j) between the rows of A and B (B defaults to A).

        Builds a ``len(A) x len(B)`` matrix: for large collections use
        :func:`learnsim.search.top_k` or evaluate in blocks of rows.
        """
        A = self._check_input(A, "A")
        same = B is None
        B = A if same else self._check_input(B, "B")
        D2 = np.maximum(self._pairwise_sq_distances(A, B), 0.0)
        if same:
            # |a|^2 + |a|^2 - 2 a.a cancels to rounding noise, not to the exact 0 users expect
            np.fill_diagonal(D2, 0.0)
        return D2 if squared else np.sqrt(D2)

    def pair_distance(self, pairs, X=None):
        """Distance of each pair.

        ``pairs`` is either an array (n_pairs, 2, n_features) of points, as in metric-learn,
        or, when ``X`` is given, an (n_pairs, 2) array of row indices into ``X``.
        """
        A, B = self._pair_rows(pairs, X)
        return np.sqrt(np.maximum(self._paired_sq_distances(A, B), 0.0))

    def _pair_rows(self, pairs, X=None):
        """The two sides (A, B) of each pair, checked: rows of X for index pairs, or the points
        of an (n_pairs, 2, n_features) array."""
        check_is_fitted(self)
        if X is not None:
            X = self._check_input(X)
            idx = check_indices(pairs, X.shape[0], name="pairs", width=2)
            return X[idx[:, 0]], X[idx[:, 1]]
        P = np.asarray(pairs, dtype=float)
        if P.ndim != 3 or P.shape[1] != 2:
            raise ValueError("pairs must have shape (n_pairs, 2, n_features), or be index pairs "
                             f"(n_pairs, 2) with X given; got shape {P.shape}")
        return self._check_input(P[:, 0], "pairs[:, 0]"), self._check_input(P[:, 1], "pairs[:, 1]")

    def pair_score(self, pairs, X=None):
        """Similarity of each pair: the opposite of :meth:`pair_distance` (higher = more similar)."""
        return -self.pair_distance(pairs, X)

    def _paired_sq_distances(self, A, B):
        EA, EB = self.transform(A), self.transform(B)
        diff = EA - EB
        if sp.issparse(diff):
            return np.asarray(diff.multiply(diff).sum(axis=1)).ravel()
        return np.einsum("ij,ij->i", diff, diff)

    def get_metric(self):
        """A function ``metric(u, v) -> float`` computing the learned distance of two 1-D points."""
        check_is_fitted(self)

        def metric(u, v):
            u, v = np.asarray(u, dtype=float), np.asarray(v, dtype=float)
            for name, p in (("u", u), ("v", v)):
                if p.ndim > 2 or (p.ndim == 2 and p.shape[0] != 1):
                    raise ValueError(f"metric(u, v) takes two single points; {name} has shape {p.shape} "
                                     "(use pairwise_distances or pair_distance for many)")
            u, v = np.atleast_2d(u), np.atleast_2d(v)
            return float(np.sqrt(max(self._paired_sq_distances(self._check_input(u, "u"),
                                                               self._check_input(v, "v"))[0], 0.0)))
        return metric


def _row_sq_norms(X):
    if sp.issparse(X):
        return np.asarray(X.multiply(X).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", X, X)


def _dense_dot(A, B):
    """A @ B.T as a dense ndarray for any mix of dense and sparse inputs."""
    out = A @ B.T
    return out.toarray() if sp.issparse(out) else np.asarray(out)


def _sq_euclidean(A, B):
    D2 = _row_sq_norms(A)[:, None] + _row_sq_norms(B)[None, :] - 2.0 * _dense_dot(A, B)
    return np.maximum(D2, 0.0)
