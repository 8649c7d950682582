"""The minimum-cluster-distortion metric of Mochihashi, Kikui & Kita (paper 000).

Given items grouped into clusters, the paper seeks the Mahalanobis matrix M that minimises the
summed squared distance of every item to its cluster centroid, eq. (4), under |M| = 1, eq. (5).
The closed-form answer is M = |A|^(1/n) A^-1, eq. (6), where A is the within-cluster scatter
matrix, eq. (7); with cluster weights (sec. 4.3) each cluster's scatter is scaled by its
normalised weight. When A is singular - the normal case for text - the paper uses the
Moore-Penrose pseudo-inverse and the product of the non-zero eigenvalues (Appendix B).

What this module adds beyond the paper, and why:

* **Never a D x D matrix.** A = Z^T Z, where the rows of Z are the (weighted) differences
  between items and their centroids, so A's range is spanned by at most ``n_items - n_clusters``
  directions. We compute the eigenpairs of A through whichever of Z^T Z (D x D, for small D)
  or Z Z^T (n x n, the Gram route) is smaller, or a randomised SVD of Z when both are large.
  The learned metric is stored as those r eigenvectors (only over features that occur in the
  training items) plus one weight for the orthogonal complement. This is exact, not an
  approximation: the metric lives in the span of the within-cluster scatter, and the identity
  part of the shrunk metric covers everything outside it.
* **Shrinkage toward the identity.** On text, the plain pseudo-inverse throws away every
  direction outside the training scatter and amplifies its smallest eigenvalues, and loses to
  cosine once the dimension approaches the rank of A. We use
  A_alpha = (1 - alpha) * A / mean_eig(A) + alpha * I, so alpha = 0 is the paper's metric and
  alpha = 1 is plain Euclid, and select alpha on held-out *clusters* (never held-out items of
  training clusters, which would reward memorising them).
"""
from __future__ import annotations

import numbers
import warnings

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ._progress import progress
from ._validation import check_matrix, check_random_state
from .base import MetricMixin, _dense_dot, _row_sq_norms
from .supervision import check_clusters

DEFAULT_SHRINKAGE_GRID = (0.0, 1e-4, 1e-3, 1e-2, 0.03, 0.1, 0.3, 1.0)

# Above this many features the covariance route (a D x D eigenproblem) is not used.
_MAX_COVARIANCE_DIM = 4000
# Above this many clustered items the Gram route (an n x n eigenproblem) is not used.
_MAX_GRAM_ITEMS = 8000
# The largest dense output (entries) transform() or get_mahalanobis_matrix() will build.
_MAX_DENSE_ENTRIES = 400_000_000


class MinimumClusterDistortion(MetricMixin, TransformerMixin, BaseEstimator):
    """Mahalanobis metric that minimises within-cluster distortion (Mochihashi et al., eq. 4-7).

    Parameters
    ----------
    shrinkage : float in [0, 1] or "auto", default="auto"
        alpha in A_alpha = (1 - alpha) A / mean_eig(A) + alpha I. 0 reproduces the paper
        (pseudo-inverse, Appendix B); 1 gives the Euclidean distance. "auto" picks the value of
        ``shrinkage_grid`` that maximises ``selection_measure`` on held-out clusters.
    shrinkage_grid : sequence of float, default=(0, 1e-4, 1e-3, 1e-2, 0.03, 0.1, 0.3, 1)
        Candidates for ``shrinkage="auto"``.
    cv : int, default=4
        Number of folds over *clusters* used to select the shrinkage.
    selection_measure : {"ap11", "r_precision", "ap"}, default="ap11"
        Leave-one-out cluster-retrieval measure used for the selection.
    max_validation_items : int, default=2000
        Held-out items scored per fold (whole clusters are sampled), bounding the cost of
        selection on large training sets.
    n_components : int or None, default=None
        Keep at most this many eigen-directions of A (the largest). None keeps every direction
        with a non-zero eigenvalue. A cap is required only when both the number of features and
        the number of clustered items are large (then a randomised SVD is used).
    min_cluster_size : int, default=2
        A cluster with fewer items has no scatter; it is an error (label such items -1).
    tol : float, default=1e-9
        Eigenvalues below ``tol * largest`` count as zero (the rank of A, Appendix B).
    random_state : int, Generator or None
        Seeds the cluster folds and the randomised SVD.
    verbose : bool, default=False
        Show a progress bar over the selection folds.

    Attributes
    ----------
    n_features_in_ : int
    eigenvalues_ : ndarray (r,)
        Non-zero eigenvalues of the within-cluster scatter A (eq. 7), descending.
    eigenvectors_ : ndarray (n_active, r)
        The corresponding orthonormal eigenvectors, over the features in ``active_features_``.
    active_features_ : ndarray of int
        Features that occur in the clustered training items; A is zero elsewhere.
    shrinkage_ : float
        The alpha used (selected or given).
    weights_ : ndarray (r,)
        M restricted to the eigen-directions: M = complement_weight_ * I
        + V diag(weights_ - complement_weight_) V^T.
    complement_weight_ : float
        Weight of every direction orthogonal to A's range (0 for the pure pseudo-inverse).
    scale_ : float
        The |A_alpha|^(1/n) factor of eq. (6) (geometric mean of the eigenvalues used).
    cv_scores_ : dict or None
        Mean held-out score of each candidate shrinkage when ``shrinkage="auto"``.
    solver_ : str
        "covariance", "gram" or "randomized": how the eigenproblem was solved.

    Notes
    -----
    Sparse input is accepted throughout. The metric is computed in the span of the
    within-cluster scatter of the training data (not of an LSI basis): see the module docstring.
    :meth:`transform` returns ``M^(1/2) x``: r-dimensional when ``complement_weight_ == 0``,
    else n_features-dimensional and dense; :meth:`pairwise_distances` and
    :func:`learnsim.search.top_k` on the learned distances never need it.
    """

    def __init__(self, shrinkage="auto", *, shrinkage_grid=DEFAULT_SHRINKAGE_GRID, cv=4,
                 selection_measure="ap11", max_validation_items=2000, n_components=None,
                 min_cluster_size=2, tol=1e-9, random_state=None, verbose=False):
        self.shrinkage = shrinkage
        self.shrinkage_grid = shrinkage_grid
        self.cv = cv
        self.selection_measure = selection_measure
        self.max_validation_items = max_validation_items
        self.n_components = n_components
        self.min_cluster_size = min_cluster_size
        self.tol = tol
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------------------ fitting
    def fit(self, X, y=None, *, clusters=None):
        """Learn M from clusters of the rows of X.

        Parameters
        ----------
        X : array-like or sparse matrix (n_items, n_features)
        y : array-like of labels (one per row, -1 = no cluster) or :class:`learnsim.supervision.Clusters`
            The clusters (``clusters=`` is an alias, for readability).
        """
        if clusters is not None:
            if y is not None:
                raise ValueError("give the clusters once: as y or as clusters=, not both")
            y = clusters
        if y is None:
            raise ValueError("MinimumClusterDistortion requires y to be passed, but the target y is None: "
                             "it needs clusters, fit(X, labels) with one cluster label per row "
                             "(-1 for items in no cluster)")
        X = check_matrix(X, name="X", min_samples=2)
        self._check_params()
        clus = check_clusters(y, X.shape[0], min_cluster_size=self.min_cluster_size, min_clusters=1)
        labels = np.asarray(clus.labels)
        cluster_weights = np.asarray(clus.normalized_weights(), dtype=float)
        rng = check_random_state(self.random_state)

        self.n_features_in_ = X.shape[1]
        self.cv_scores_ = None
        if self.shrinkage == "auto":
            alpha, self.cv_scores_ = self._select_shrinkage(X, labels, clus.cluster_ids,
                                                            cluster_weights, rng)
        else:
            alpha = float(self.shrinkage)
        eig = _scatter_eigen(X, labels, clus.cluster_ids, cluster_weights, self.n_components,
                             self.tol, rng)
        self.eigenvalues_, self.eigenvectors_, self.active_features_, self.solver_ = eig
        self.shrinkage_ = alpha
        self.weights_, self.complement_weight_, self.scale_ = _metric_weights(
            self.eigenvalues_, alpha, self.n_features_in_)
        return self

    def _check_params(self):
        if isinstance(self.shrinkage, str):
            if self.shrinkage != "auto":
                raise ValueError(f"shrinkage must be a number in [0, 1] or 'auto'; got {self.shrinkage!r}")
            grid = np.asarray(self.shrinkage_grid, dtype=float)
            if grid.ndim != 1 or grid.size == 0 or np.any((grid < 0) | (grid > 1)) or not np.all(np.isfinite(grid)):
                raise ValueError(f"shrinkage_grid must be a non-empty list of numbers in [0, 1]; got {self.shrinkage_grid!r}")
            if not isinstance(self.cv, numbers.Integral) or self.cv < 2:
                raise ValueError(f"cv must be an integer >= 2; got {self.cv!r}")
            if self.selection_measure not in ("ap11", "r_precision", "ap"):
                raise ValueError("selection_measure must be 'ap11', 'r_precision' or 'ap'; "
                                 f"got {self.selection_measure!r}")
        elif not isinstance(self.shrinkage, numbers.Real) or not 0.0 <= float(self.shrinkage) <= 1.0:
            raise ValueError(f"shrinkage must be a number in [0, 1] or 'auto'; got {self.shrinkage!r}")
        if self.n_components is not None and (not isinstance(self.n_components, numbers.Integral)
                                              or self.n_components < 1):
            raise ValueError(f"n_components must be a positive integer or None; got {self.n_components!r}")
        if not isinstance(self.min_cluster_size, numbers.Integral) or self.min_cluster_size < 2:
            raise ValueError(f"min_cluster_size must be an integer >= 2; got {self.min_cluster_size!r}")
        if not (isinstance(self.tol, numbers.Real) and 0 <= self.tol < 1):
            raise ValueError(f"tol must be in [0, 1); got {self.tol!r}")

    def _select_shrinkage(self, X, labels, cluster_ids, cluster_weights, rng):
        """Pick alpha by leave-clusters-out retrieval: fit A on some clusters, rank the items of
        the others, for every candidate alpha at once (one eigenproblem per fold)."""
        from .evaluation import cluster_retrieval_report

        grid = sorted(set(float(a) for a in self.shrinkage_grid))
        n_clusters = len(cluster_ids)
        if n_clusters < 2 * min(self.cv, n_clusters):
            n_folds = max(2, n_clusters // 2)
        else:
            n_folds = self.cv
        if n_clusters < 4:
            warnings.warn(f"only {n_clusters} clusters: too few to select the shrinkage on held-out "
                          "clusters; using shrinkage=0.1", UserWarning, stacklevel=3)
            return 0.1, None
        order = rng.permutation(n_clusters)
        folds = np.array_split(order, n_folds)
        weight_of = dict(zip(cluster_ids, cluster_weights))
        totals = np.zeros(len(grid))
        for fold in progress(folds, desc="mcd: selecting shrinkage", enabled=self.verbose or None):
            held = np.asarray(cluster_ids)[fold]
            # bound the cost: sample whole held-out clusters up to max_validation_items
            sizes = np.array([(labels == c).sum() for c in held])
            keep = rng.permutation(len(held))
            take = keep[np.cumsum(sizes[keep]) <= max(self.max_validation_items, sizes.max())]
            held = held[take] if take.size >= 2 else held[keep[:2]]
            is_held = np.isin(labels, held)
            train_labels = np.where(is_held, -1, labels)
            train_ids = np.array([c for c in cluster_ids if c not in set(held.tolist())])
            w = np.array([weight_of[c] for c in train_ids])
            evals, evecs, active, _ = _scatter_eigen(X, train_labels, train_ids, w / w.sum(),
                                                     self.n_components, self.tol, rng)
            Xv = X[np.flatnonzero(is_held)]
            yv = labels[is_held]
            P = _project(Xv, evecs, active)
            G = _dense_dot(Xv, Xv)
            sq = np.diag(G).copy()
            for gi, alpha in enumerate(grid):
                wts, beta, _ = _metric_weights(evals, alpha, X.shape[1])
                D2 = _bilinear_sq_dist(sq, sq, G, P, P, wts, beta)
                rep = cluster_retrieval_report(-D2, yv, measures=(self.selection_measure,))
                totals[gi] += rep[self.selection_measure]
        means = totals / len(folds)
        # ties go to the larger alpha: the simpler metric, closer to Euclid
        best = max(range(len(grid)), key=lambda i: (round(means[i], 12), grid[i]))
        return grid[best], dict(zip(grid, means.tolist()))

    # ---------------------------------------------------------------- using it
    def _pairwise_sq_distances(self, A, B):
        PA = _project(A, self.eigenvectors_, self.active_features_)
        PB = _project(B, self.eigenvectors_, self.active_features_)
        return _bilinear_sq_dist(_row_sq_norms(A), _row_sq_norms(B), _dense_dot(A, B), PA, PB,
                                 self.weights_, self.complement_weight_)

    def _paired_sq_distances(self, A, B):
        diff = A - B
        P = _project(diff, self.eigenvectors_, self.active_features_)
        sq = _row_sq_norms(diff)
        beta = self.complement_weight_
        return np.maximum(beta * sq + (P * P) @ (self.weights_ - beta), 0.0)

    def transform(self, X):
        """Map X to the space where the learned distance is Euclidean: x -> M^(1/2) x."""
        X = self._check_input(X)
        P = _project(X, self.eigenvectors_, self.active_features_)
        beta = self.complement_weight_
        if beta == 0.0:
            return P * np.sqrt(self.weights_)
        n, d = X.shape
        if n * d > _MAX_DENSE_ENTRIES:
            raise MemoryError(
                f"transform would build a dense {n} x {d} array (shrinkage > 0 keeps every feature); "
                "use pairwise_distances / learnsim.search on blocks, reduce the features (LSI), "
                "or use shrinkage=0")
        out = np.sqrt(beta) * (X.toarray() if sp.issparse(X) else np.array(X, dtype=float))
        out[:, self.active_features_] += P @ ((np.sqrt(self.weights_) - np.sqrt(beta))[:, None]
                                              * self.eigenvectors_.T)
        return out

    def get_mahalanobis_matrix(self):
        """The learned M (n_features x n_features). Built on request only; refused when huge."""
        check_is_fitted(self)
        d = self.n_features_in_
        if d * d > _MAX_DENSE_ENTRIES:
            raise MemoryError(f"M would be a dense {d} x {d} matrix; use the factored form "
                              "(eigenvectors_, weights_, complement_weight_) instead")
        M = np.eye(d) * self.complement_weight_
        V = self.eigenvectors_
        sub = (V * (self.weights_ - self.complement_weight_)) @ V.T
        M[np.ix_(self.active_features_, self.active_features_)] += sub
        return M

    @property
    def components_(self):
        """L with M = L^T L (metric-learn's convention), shape (n_out, n_features)."""
        check_is_fitted(self)
        if self.complement_weight_ == 0.0:
            L = np.zeros((len(self.weights_), self.n_features_in_))
            L[:, self.active_features_] = np.sqrt(self.weights_)[:, None] * self.eigenvectors_.T
            return L
        return self.transform(np.eye(self.n_features_in_)).T

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.required = True
        return tags

    # ---------------------------------------------------------------- persistence
    def _get_state(self):
        check_is_fitted(self)
        meta = {"params": self.get_params(), "n_features_in": int(self.n_features_in_),
                "shrinkage": float(self.shrinkage_), "complement_weight": float(self.complement_weight_),
                "scale": float(self.scale_), "solver": self.solver_,
                "cv_scores": None if self.cv_scores_ is None else {repr(k): v for k, v in self.cv_scores_.items()}}
        meta["params"]["shrinkage_grid"] = [float(a) for a in self.shrinkage_grid]
        meta["params"]["random_state"] = (self.random_state if isinstance(self.random_state, (int, type(None)))
                                          else None)
        arrays = {"eigenvalues": self.eigenvalues_, "eigenvectors": self.eigenvectors_,
                  "active_features": self.active_features_, "weights": self.weights_}
        return meta, arrays

    @classmethod
    def _from_state(cls, meta, arrays):
        for key in ("eigenvalues", "eigenvectors", "active_features", "weights"):
            if key not in arrays:
                raise ValueError(f"saved MinimumClusterDistortion lacks the array {key!r}")
        ev, V, act, w = (np.asarray(arrays[k]) for k in ("eigenvalues", "eigenvectors", "active_features", "weights"))
        d = int(meta["n_features_in"])
        r = ev.shape[0]
        if V.shape != (act.shape[0], r) or w.shape != (r,):
            raise ValueError(f"inconsistent saved metric: eigenvectors {V.shape}, eigenvalues {ev.shape}, "
                             f"weights {w.shape}, active_features {act.shape}")
        if act.size and (act.min() < 0 or act.max() >= d):
            raise ValueError("saved active_features index outside the number of features")
        params = dict(meta["params"])
        params["shrinkage_grid"] = tuple(params["shrinkage_grid"])
        obj = cls(**params)
        obj.n_features_in_ = d
        obj.eigenvalues_, obj.eigenvectors_, obj.active_features_, obj.weights_ = ev, V, act.astype(np.int64), w
        obj.shrinkage_ = float(meta["shrinkage"])
        obj.complement_weight_ = float(meta["complement_weight"])
        obj.scale_ = float(meta["scale"])
        obj.solver_ = meta["solver"]
        obj.cv_scores_ = (None if meta["cv_scores"] is None
                          else {float(k): v for k, v in meta["cv_scores"].items()})
        return obj


# ---------------------------------------------------------------------- linear algebra
def _metric_weights(eigenvalues, alpha, n_features):
    """Weights of M = s * A_alpha^-1 on A's eigen-directions and on their complement.

    mu_k = (1 - alpha) * lambda_k / mean(lambda) + alpha on the r eigen-directions and alpha
    elsewhere. s = |A_alpha|^(1/n) (eq. 6); for alpha = 0 the determinant is the product of
    the non-zero eigenvalues and n their number (Appendix B).
    """
    lam = np.asarray(eigenvalues, dtype=float)
    r = lam.size
    if r == 0:
        # no scatter at all: every cluster is a single point repeated; Euclid is all we can say
        return np.zeros(0), 1.0, 1.0
    mu = (1.0 - alpha) * lam / lam.mean() + alpha
    if alpha == 0.0:
        log_s = np.mean(np.log(mu))
        return np.exp(log_s) / mu, 0.0, float(np.exp(log_s))
    n_rest = max(n_features - r, 0)
    log_s = (np.sum(np.log(mu)) + n_rest * np.log(alpha)) / (r + n_rest)
    s = float(np.exp(log_s))
    return s / mu, s / alpha, s


def _project(X, eigenvectors, active):
    """V^T x for every row of X, with V given over the active features only."""
    if eigenvectors.shape[1] == 0:
        return np.zeros((X.shape[0], 0))
    Xa = X[:, active] if active.size != X.shape[1] else X
    out = Xa @ eigenvectors
    return np.asarray(out)


def _bilinear_sq_dist(sq_a, sq_b, G, PA, PB, weights, beta):
    """d^2(a, b) = beta * |a - b|^2 + sum_k (w_k - beta) * (v_k . (a - b))^2, all pairs."""
    c = weights - beta
    D2 = beta * (sq_a[:, None] + sq_b[None, :] - 2.0 * G) if beta else np.zeros(G.shape)
    if c.size:
        qa = (PA * PA) @ c
        qb = (PB * PB) @ c
        D2 += qa[:, None] + qb[None, :] - 2.0 * (PA * c) @ PB.T
    return np.maximum(D2, 0.0)


def _scatter_eigen(X, labels, cluster_ids, cluster_weights, n_components, tol, rng):
    """Non-zero eigenpairs of the weighted within-cluster scatter A (eq. 7, sec. 4.3).

    Returns (eigenvalues desc, eigenvectors over active features, active feature indices, solver).
    Never forms a D x D matrix unless D is small.
    """
    rows = np.flatnonzero(labels >= 0)
    Xc = X[rows]
    lab = labels[rows]
    ids = np.asarray(cluster_ids)
    pos = np.searchsorted(ids, lab)  # cluster_ids are sorted
    k = len(ids)
    n = len(rows)
    sizes = np.bincount(pos, minlength=k).astype(float)
    sqrt_w = np.sqrt(np.asarray(cluster_weights, dtype=float))[pos]

    if sp.issparse(Xc):
        active = np.unique(Xc.indices)
        Xa = Xc[:, active]
    else:
        active = np.arange(Xc.shape[1])
        Xa = Xc
    d = Xa.shape[1]
    # E: item -> cluster indicator; centroids C = diag(1/size) E^T X (eq. 4's c_i)
    E = sp.csr_matrix((np.ones(n), (np.arange(n), pos)), shape=(n, k))
    Cent = np.asarray((sp.diags(1.0 / sizes) @ (E.T @ Xa)).todense()) if sp.issparse(Xa) \
        else (E.T @ Xa) / sizes[:, None]
    max_rank = n - k
    if max_rank <= 0 or d == 0:
        return np.zeros(0), np.zeros((d, 0)), active, "none"
    cap = max_rank if n_components is None else min(n_components, max_rank)

    if d <= _MAX_COVARIANCE_DIM and d <= n:
        solver = "covariance"
        Z = (Xa.toarray() if sp.issparse(Xa) else Xa) - Cent[pos]
        Z *= sqrt_w[:, None]
        A = Z.T @ Z                                  # eq. (7), weighted as in sec. 4.3
        lam, V = scipy.linalg.eigh(A)
    elif n <= _MAX_GRAM_ITEMS:
        solver = "gram"
        # Z Z^T = W^1/2 (I - P) K (I - P) W^1/2, with P the within-cluster averaging operator
        K = _dense_dot(Xa, Xa)
        avg = (E @ sp.diags(1.0 / sizes)) @ E.T      # P, block diagonal
        PK = avg @ K
        G = K - PK - PK.T + avg @ PK.T
        G = (G + G.T) * 0.5
        G *= sqrt_w[:, None] * sqrt_w[None, :]
        lam, U = scipy.linalg.eigh(G)
        lam, U = lam[::-1], U[:, ::-1]
        keep = lam > max(tol, 1e-12) * max(lam[0], 1e-300)
        keep[cap:] = False
        lam, U = lam[keep], U[:, keep]
        # V = Z^T U / sqrt(lam), with Z^T U = X^T (I - P) W^1/2 U
        WU = sqrt_w[:, None] * U
        R = WU - avg @ WU
        V = np.asarray(Xa.T @ R) / np.sqrt(lam)[None, :]
        return lam, V, active, solver
    else:
        solver = "randomized"
        if n_components is None:
            raise ValueError(f"{n} clustered items with {d} active features: too large for an exact "
                             "eigendecomposition; set n_components (e.g. 1000) to use a randomised SVD")
        lam, V = _randomized_scatter_eigen(Xa, Cent, pos, sqrt_w, cap, rng)
        return lam, V, active, solver
    lam, V = lam[::-1], V[:, ::-1]
    keep = lam > max(tol, 1e-12) * max(lam[0], 1e-300)
    keep[cap:] = False
    return lam[keep], np.ascontiguousarray(V[:, keep]), active, solver


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
