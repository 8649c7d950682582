"""Linear algebra shared by the vectoriser (LSI) and the metric learners."""
from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from sklearn.utils.extmath import randomized_svd, svd_flip

# Below this many entries a dense SVD is cheap and exact.
_DENSE_SVD_MAX_ELEMENTS = 1_000_000
# A large share of the rank is wanted: a dense SVD beats the randomised one up to this size.
_DENSE_SVD_LARGE_RANK_MAX_ELEMENTS = 60_000_000
# With few rows, the Gram matrix X X^T gives the right singular vectors exactly and cheaply.
_GRAM_MAX_ROWS = 6000


def _gram_is_cheaper(X, k, n_iter=7, n_oversamples=10):
    """Rough flop counts: the Gram route costs the product X X^T and an n x n eigenproblem;
    the randomised SVD costs 2 * n_iter + 2 passes over X with k + p vectors plus QRs."""
    n = X.shape[0]
    nnz = X.nnz if sp.issparse(X) else X.size
    gram = nnz * min(n, nnz / max(X.shape[1], 1)) + 4.0 * n ** 3
    width = k + n_oversamples
    randomized = (2 * n_iter + 2) * nnz * width + (n_iter + 1) * 2.0 * (n + X.shape[1]) * width ** 2
    return gram <= randomized


def truncated_svd(X, k, seed=0):
    """Top-``k`` singular values and right singular vectors (rows of Vt) of dense or sparse X.

    Exact (dense SVD, or the eigenvectors of X X^T for few rows) where that is cheap, else
    randomised (Halko et al.). Signs are fixed (largest |loading| positive) so that results
    are reproducible. ``k`` must not exceed ``min(X.shape)``.
    """
    _, s, Vt = truncated_svd_with_u(X, k, seed)
    return s, Vt


def truncated_svd_with_u(X, k, seed=0):
    """Like :func:`truncated_svd`, but also returns the left singular vectors:
    ``(U, s, Vt)`` with U of shape (n, k), so that ``X ~ U diag(s) Vt``.

    The signs of U and Vt are flipped together, so the product is unchanged. In the Gram route a
    zero singular value has a zero row of Vt (its U column is still a unit eigenvector).
    """
    n, m = X.shape
    size = n * m
    rank = min(n, m)
    if size <= _DENSE_SVD_MAX_ELEMENTS or (2 * k >= rank and size <= _DENSE_SVD_LARGE_RANK_MAX_ELEMENTS):
        dense = X.toarray() if sp.issparse(X) else np.asarray(X)
        dense = dense.astype(np.float64, copy=False)
        try:
            U, s, Vt = scipy.linalg.svd(dense, full_matrices=False, lapack_driver="gesdd")
        except np.linalg.LinAlgError:  # gesdd occasionally fails to converge; gesvd is slower but robust
            U, s, Vt = scipy.linalg.svd(dense, full_matrices=False, lapack_driver="gesvd")
        U, s, Vt = U[:, :k], s[:k], Vt[:k]
    elif n <= _GRAM_MAX_ROWS and _gram_is_cheaper(X, k):
        K = X @ X.T
        K = K.toarray() if sp.issparse(K) else np.asarray(K)
        lam, U = scipy.linalg.eigh(K.astype(np.float64, copy=False), subset_by_index=(n - k, n - 1))
        lam, U = lam[::-1], U[:, ::-1]
        s = np.sqrt(np.maximum(lam, 0.0))
        safe = np.where(s > 0, s, 1.0)
        Vt = np.asarray((X.T @ U).T) / safe[:, None]
        Vt[s == 0] = 0.0
    else:
        U, s, Vt = randomized_svd(X.astype(np.float64), k, random_state=seed, flip_sign=False)
    U, Vt = svd_flip(U, Vt, u_based_decision=False)
    return U, s, Vt
