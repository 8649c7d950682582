"""The linear algebra of :mod:`learnsim.mcd` that needs none of its estimator: the principal
(LSI) basis shared by every fold of the selection, the small symmetric eigenproblems and the
Cholesky factor of eq. (6), the randomised eigenpairs of a large scatter, the squared
distances the selection ranks by, and the fitted metric's projection and pairwise distances.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from .._utils.linalg import _SPARSE_POWER_ITERATIONS, small_blas, truncated_svd_components
from .._utils.validation import check_no_overflow

_SCATTER = "the within-cluster scatter (eq. 7)"
# A basis wider than this many columns takes _WIDE_POWER_ITERATIONS applications of X^T X
# instead of the sparse SVD's usual 8 (it is the selection's second stage, 256 columns: 2.1 s
# of a 4.1 s fit on 23k synthetic documents). Its leading directions, which the smaller
# candidates use, converge with the gap to its last (266th) singular value, far faster than
# those of a narrower basis do; its trailing ones are the least accurate either way.
_WIDE_BASIS = 128
_WIDE_POWER_ITERATIONS = 4
# The scatter centres and weighs its rows' coordinates in blocks of this many entries (1 MB)
_SCATTER_BLOCK_ENTRIES = 2**17


class _PrincipalBasis:
    """The top right singular vectors of all rows of X (an LSI basis) and every row's
    coordinates in it; computed once per fit and shared by every fold of the selection.
    ``n_iter``: the randomised SVD's power iterations (default: 8, or _WIDE_POWER_ITERATIONS
    above rank _WIDE_BASIS)."""

    def __init__(self, X, k, seed, n_iter=None):
        self.active = active_columns(X)
        Xa = X[:, self.active] if sp.issparse(X) else X
        self.requested = k
        k = max(1, min(k, *Xa.shape))
        # V (n_active, k) as columns: no transposed copy of an n_active x k array (see there)
        if n_iter is None:
            n_iter = _WIDE_POWER_ITERATIONS if k > _WIDE_BASIS else _SPARSE_POWER_ITERATIONS
        s, V = truncated_svd_components(Xa, k, seed, n_iter, all_ritz_pairs=True)
        keep = s > 1e-10 * max(s[0], 1e-300)
        self.components = V if keep.all() else np.ascontiguousarray(V[:, keep])   # (n_active, rank)
        self.rank = int(keep.sum())
        self.coords = np.asarray(Xa @ self.components)          # (n_items, rank)

    def scale(self, labels):
        """Mean squared norm of the clustered rows in basis coordinates."""
        Y = self.coords[labels >= 0]
        with np.errstate(over="ignore", invalid="ignore"):
            return float(np.einsum("ij,ij->", Y, Y) / max(len(Y), 1))

    def scatter(self, labels, ids, cluster_weights, k=None, membership=None):
        """Weighted within-cluster scatter (eq. 7, sec. 4.3) in the first ``k`` (default: all)
        basis coordinates; ``membership``: :func:`cluster_membership` of (labels, ids), when the
        caller keeps it (a selection fold scores every stage with the same clusters)."""
        rows, pos, sizes, member = cluster_membership(labels, ids) if membership is None else membership
        Z = self.coords[rows, :k]           # a copy (fancy indexing): centred and weighted in place
        centroids = np.asarray(member @ Z)
        centroids /= np.maximum(sizes, 1)[:, None]
        root = np.sqrt(np.asarray(cluster_weights))
        # (Y - centroids[pos]) * sqrt(w[pos]) by blocks of rows, the same numbers: written whole
        # it made three more rows x k arrays (+180 MB at 30,000 rows and rank 256)
        step = max(1, _SCATTER_BLOCK_ENTRIES // max(Z.shape[1], 1))
        with np.errstate(over="ignore", invalid="ignore"), small_blas(float(Z.shape[0]) * Z.shape[1] ** 2):
            for start in range(0, Z.shape[0], step):
                block, at = Z[start:start + step], pos[start:start + step]
                block -= centroids[at]
                block *= root[at][:, None]
            A = Z.T @ Z
        return check_no_overflow(A, _SCATTER)


def active_columns(X):
    """The columns of X the metric can see, sorted: those with a stored entry of a sparse X
    (counted: np.unique's sort of every index is 10x slower), every column of a dense one."""
    if sp.issparse(X):
        return np.flatnonzero(np.bincount(X.indices, minlength=X.shape[1]))
    return np.arange(X.shape[1])


def cluster_membership(labels, ids):
    """The clustered rows (label >= 0), each one's position in the sorted ``ids``, the clusters'
    sizes, and the clusters x rows indicator matrix that sums them (sparse: np.add.at took 2.7
    of 8 s of the selection's scatters at 100k rows)."""
    rows = np.flatnonzero(labels >= 0)
    pos = np.searchsorted(ids, labels[rows])
    sizes = np.bincount(pos, minlength=len(ids))
    member = sp.csr_matrix((np.ones(pos.size), (pos, np.arange(pos.size))), shape=(len(ids), pos.size))
    return rows, pos, sizes, member


def _eigh_lower(A):
    """Eigen-decomposition of the symmetric A from its lower triangle (LAPACK syevd).

    A 1 x 1 A is its own decomposition: scipy < 1.13 asks syevd for too small a workspace there.
    """
    if A.shape[0] == 1:
        return A[0].copy(), np.ones((1, 1))
    return scipy.linalg.eigh(A, lower=True, overwrite_a=True, check_finite=False, driver="evd")


def _cholesky_inverse_factor(A, tol):
    """(log|A|, L^-T) for A = L L^T, or None when A is singular or too ill-conditioned for the
    inverse to be trusted (then the eigendecomposition and its pseudo-inverse take over)."""
    try:
        L = scipy.linalg.cholesky(A, lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        return None
    d = np.diag(L)
    # diag(L)^2 brackets the eigenvalues loosely; a tiny ratio means (near) singular
    if d.min() <= 0 or (d.min() / d.max()) ** 2 <= max(tol, 1e-12) * 10:
        return None
    L_inv, info = scipy.linalg.lapack.dtrtri(L, lower=1)
    if info != 0:
        return None
    return 2.0 * float(np.sum(np.log(d))), np.ascontiguousarray(L_inv.T)


def _eigh_desc(C, tol, data_scale=0.0):
    """Eigenpairs of a symmetric PSD matrix, descending, dropping the (numerically) zero ones."""
    # divide and conquer (syevd): 6.7 ms on 256 x 256 against syevr's 8.1, four times a selection;
    # C is a copy to overwrite (the selection passes views of one scatter)
    with small_blas(10.0 * C.shape[0] ** 3):
        lam, W = _eigh_lower(np.array(C))
    lam, W = lam[::-1], W[:, ::-1]
    keep = lam > _zero_threshold(lam, tol, data_scale)
    return lam[keep], np.ascontiguousarray(W[:, keep])


def _zero_threshold(lam, tol, data_scale):
    """Eigenvalues at or below this are zero: relative to the largest (the rank, Appendix B) and
    to the data's own scale - so that a scatter made only of rounding noise has rank 0."""
    # an infinite scale would silently make every eigenvalue zero, i.e. learn nothing
    check_no_overflow(data_scale, "the mean squared norm of the clustered rows")
    top = float(lam[0]) if len(lam) else 0.0
    return max(max(tol, 1e-12) * top, 1e-10 * data_scale, 1e-300)


def _raw_weights(eigenvalues, alpha):
    """1 / mu_k with mu_k = (1 - alpha) * lambda_k / mean(lambda) + alpha (before the |M| = 1 scale)."""
    lam = np.asarray(eigenvalues, dtype=float)
    return 1.0 / ((1.0 - alpha) * lam / lam.mean() + alpha)


def _cross_sq_dists(A, B):
    """|a - b|^2 for every row a of A and b of B (dense)."""
    return np.einsum("ij,ij->i", A, A)[:, None] + np.einsum("ij,ij->i", B, B)[None, :] - 2.0 * A @ B.T


def _randomized_scatter_eigen(Xa, Cent, pos, sqrt_w, rank, rng, n_oversamples=20, n_iter=4):
    """Top eigenpairs of A = Z^T Z by a randomised range finder on Z, applied as an operator
    (Z = W^1/2 (X - C[pos])) so that Z is never formed (Halko et al. 2011, alg. 4.4)."""
    n, d = Xa.shape
    k = min(rank + n_oversamples, min(n, d))

    def Z_mul(B):  # Z @ B, B: (d, j)
        return sqrt_w[:, None] * (np.asarray(Xa @ B) - (Cent @ B)[pos])

    def Zt_mul(B):  # Z^T @ B, B: (n, j)
        WB = sqrt_w[:, None] * B
        sums = np.zeros((Cent.shape[0], B.shape[1]))
        np.add.at(sums, pos, WB)
        return np.asarray(Xa.T @ WB) - Cent.T @ sums

    Q = Z_mul(rng.standard_normal((d, k)))
    Q, _ = np.linalg.qr(Q)
    for _ in range(n_iter):
        Q, _ = np.linalg.qr(Zt_mul(Q))
        Q, _ = np.linalg.qr(Z_mul(Q))
    Bt = Zt_mul(Q)                      # (d, k) = (Q^T Z)^T
    Uh, s, _ = np.linalg.svd(Bt.T @ Bt)  # small k x k eigenproblem of B B^T
    V = Bt @ (Uh / np.sqrt(np.maximum(s, 1e-300)))
    lam = s
    keep = lam > 1e-12 * lam[0]
    keep[rank:] = False
    return lam[keep], V[:, keep]


def _project(X, factor, active):
    """V^T x for every row of X, with V given over the active features only."""
    if factor.shape[1] == 0:
        return np.zeros((X.shape[0], 0))
    Xa = X[:, active] if active.size != X.shape[1] else X
    out = Xa @ factor
    return np.asarray(out)


def _bilinear_sq_dist(sq_a, sq_b, G, PA, PB, weights, beta, overwrite_g=False, qb=None):
    """d^2(a, b) = beta * |a - b|^2 + sum_k (w_k - beta) * (v_k . (a - b))^2, all pairs.

    ``overwrite_g``: G (the caller's own) is taken as a work block, and each step is made in
    place in the same order as the plain expressions: the same values with three blocks of
    len(A) x len(B) alive instead of six (the held-out search check scores 139 queries x 30,000
    documents a block, 33 MB each). ``qb``: (PB * PB) @ (weights - beta), where the caller keeps
    it for many blocks of A."""
    c = weights - beta
    if beta:
        D2 = sq_a[:, None] + sq_b[None, :]
        if overwrite_g:
            D2 -= np.multiply(G, 2.0, out=G)
            D2 *= beta
        else:
            D2 = beta * (D2 - 2.0 * G)
    else:
        D2 = np.zeros(G.shape)
    if c.size:
        qa = (PA * PA) @ c
        qb = (PB * PB) @ c if qb is None else qb
        if overwrite_g and beta:
            # G is no longer needed: it holds qa + qb - 2 (PA c) PB^T, summed as below
            U = np.add(qa[:, None], qb[None, :], out=G)
            M = 2.0 * (PA * c) @ PB.T
            D2 += np.subtract(U, M, out=U)
            del M
        else:
            D2 += qa[:, None] + qb[None, :] - 2.0 * (PA * c) @ PB.T
    return np.maximum(D2, 0.0, out=D2)
