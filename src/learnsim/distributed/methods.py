"""MinimumClusterDistortion and FILM fitted from a Dask collection of vectorised documents.

The collection is a ``dask.array.Array`` of shape (n_documents, n_features) made of full-width
row blocks, each a ``scipy.sparse.csr_matrix`` (or a dense ndarray), with known row chunk sizes
(:func:`from_local` builds one from a local matrix). Labels are small - one integer per
document - and are gathered to the driver; the rows never are (except where noted below).

* :func:`fit_mcd` returns the :class:`learnsim.mcd.MinimumClusterDistortion` that the
  single-process ``fit`` gives on the same rows and labels (to rounding): the per-cluster sums
  and counts are summed over partitions (map: each partition's sums per cluster it holds;
  reduce: their sum, so a cluster may span partitions), then the within-cluster scatter of
  eq. (7) is a sum of per-partition scatters about those centroids. The small eigenproblem or
  Cholesky factorisation of eq. (6) runs on the driver.
* :func:`fit_film` returns the :class:`learnsim.film.FILM` of the single-process fit: the
  truncated SVD of step 1 by a randomised subspace iteration (A^T A applied as a tree sum of
  per-partition products, QR-normalised at every step so that many iterations lose no
  precision), the triplets drawn on the driver
  from the labels with the single-process random stream, and every term of the objective that
  sums over anchors (K, tr(Lambda), the hinge loss, Algorithm 1 lines 3 and 6) summed over
  partitions. The r x r Stiefel optimisation runs on the driver.

What is not distributed, and why:

* The "auto" settings and the held-out check (``baseline_holdout``) of both estimators fit and
  score many times on held-out clusters; here the settings must be given (for example the ones a
  single-process fit chose on a sample) and ``baseline_holdout`` must be None: a clear
  ``ValueError`` says so.
* MinimumClusterDistortion's Gram route (more active features than 4,000 or than clustered
  items, at most 8,000 clustered items) gathers the clustered rows - at most 8,000, the
  single-process limit of that route - and runs the single-process solver on them.
  Its randomised route (over 8,000 clustered items and 4,000 active features) is refused: use a
  principal basis (``n_basis=k``), which is distributed.
* FILM's mini-batches (``batch_size``) are refused: every anchor takes part in every iteration.

Equality with the single-process fit holds to rounding where the single-process linear algebra
is exact (dense SVD, Gram or covariance eigenproblems: small or moderately wide data). Where the
single-process FILM uses its randomised SVD, or the subspace iteration has not converged, the two
subspaces agree only as far as both have converged: data with a clear spectral gap after the
rank r converge in a few iterations (``n_power_iter``).

References
----------
.. [1] D. Mochihashi, G. Kikui and K. Kita, "Learning Nonstructural Distance Metric by Minimum
   Cluster Distortions", Proceedings of EMNLP 2004 (paper 000 in ../shared/papers).
.. [2] X. Tang and A. Aw, "FILM: A Fast, Interpretable, and Low-rank Metric Learning Approach
   for Sentence Matching", arXiv:2001.05839, 2020 (paper 001 in ../shared/papers).
.. [3] Halko, Martinsson and Tropp (2011), Finding structure with randomness, SIAM Review 53(2):
   the subspace iteration of the truncated SVD.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from .._utils.validation import check_random_state
from ..mcd import MinimumClusterDistortion, scatter_solver
from ..supervision import check_clusters
from ._methods_common import DEFAULT_POWER_ITERATIONS, _ROW_STEP, _check_power_iter, _Collection, _columns, \
    _compute, _dask, _dense_rows, _fixed_settings, _local_labels, _on, _read_block, _svd, _tree_sum, from_local
from ._methods_film import fit_film_collection

__all__ = ["fit_mcd", "fit_film", "from_local", "DEFAULT_POWER_ITERATIONS"]

# Eigenvalues of a summed Gram matrix X^T X below this fraction of the largest are rounding
# noise (its entries carry errors of about eps * sigma_1^2).
_GRAM_TOL = 1e3 * np.finfo(np.float64).eps
# A principal basis over at most this many active features is exact: the eigenvectors of the
# summed X^T X (a D x D eigenproblem, as the single-process covariance route's bound).
_MAX_EXACT_BASIS_FEATURES = 4000


# ------------------------------------------------------------ MinimumClusterDistortion
def _mcd_sums(block, shape, index, name, pos, n_clusters, sparse):
    """Map step of the centroids: this partition's sum of rows per cluster it holds, and the
    features its rows (all, and the clustered ones) use."""
    X = _read_block(block, shape, index, name)
    rows = np.flatnonzero(pos >= 0)
    if sparse:
        active_all = np.unique(X.indices)
        active_clustered = np.unique(X[rows].indices)
    else:
        active_all = active_clustered = None
    present, local = np.unique(pos[rows], return_inverse=True)
    E = sp.csr_matrix((np.ones(rows.size), (local, rows)), shape=(present.size, X.shape[0]))
    sums = sp.csr_matrix(E @ X) if sparse else np.asarray(E @ X)
    with np.errstate(over="ignore", invalid="ignore"):
        sq = X[rows].multiply(X[rows]).sum() if sparse else np.einsum("ij,ij->", X[rows], X[rows])
    return {"active_all": active_all, "active_clustered": active_clustered, "present": present,
            "sums": sums, "sq_sum": float(sq)}


def _mcd_scatter(block, shape, index, name, pos, centroids, sqrt_w, active, n_features):
    """Reduce input of eq. (7): this partition's weighted scatter about the (global) centroids,
    sum_i w_i (x_i - c_i)(x_i - c_i)^T over its clustered rows, lower triangle (syrk)."""
    X = _read_block(block, shape, index, name)
    rows = np.flatnonzero(pos >= 0)
    Xa = _columns(X[rows], active, n_features)
    d = active.size
    A = np.zeros((d, d))
    for start in range(0, rows.size, _ROW_STEP):
        stop = min(start + _ROW_STEP, rows.size)
        p = pos[rows[start:stop]]
        C = centroids[p]
        Z = _dense_rows(Xa, start, stop) - (C.toarray() if sp.issparse(C) else C)
        Z *= sqrt_w[p][:, None]
        with np.errstate(over="ignore", invalid="ignore"):
            A += scipy.linalg.blas.dsyrk(1.0, np.asarray(Z.T, dtype=np.float64), lower=1)
    return A


def _used_features(block, shape, index, name):
    return np.unique(_read_block(block, shape, index, name).indices)


def _clustered_rows(block, shape, index, name, pos):
    X = _read_block(block, shape, index, name)
    return X[np.flatnonzero(pos >= 0)]


def _gram_part(block, shape, index, name, active, n_features):
    """This partition's Xa^T Xa (dense, active features): a term of the principal basis."""
    Xa = _columns(_read_block(block, shape, index, name), active, n_features)
    G = Xa.T @ Xa
    return G.toarray() if sp.issparse(G) else np.asarray(G)


def _basis_sums(block, shape, index, name, pos, n_clusters, components, active, n_features):
    """Per-cluster sums of this partition's basis coordinates and their squared norms."""
    Y = np.asarray(_columns(_read_block(block, shape, index, name), active, n_features) @ components)
    rows = np.flatnonzero(pos >= 0)
    sums = np.zeros((n_clusters, Y.shape[1]))
    np.add.at(sums, pos[rows], Y[rows])
    with np.errstate(over="ignore", invalid="ignore"):
        sq = float(np.einsum("ij,ij->", Y[rows], Y[rows]))
    return sums, sq


def _basis_scatter(block, shape, index, name, pos, centroids, sqrt_w, components, active, n_features):
    """This partition's weighted within-cluster scatter in basis coordinates (sec. 4.3)."""
    Y = np.asarray(_columns(_read_block(block, shape, index, name), active, n_features) @ components)
    rows = np.flatnonzero(pos >= 0)
    p = pos[rows]
    with np.errstate(over="ignore", invalid="ignore"):
        Z = (Y[rows] - centroids[p]) * sqrt_w[p][:, None]
        return Z.T @ Z


def fit_mcd(X, labels, *, client=None, n_power_iter=None, **params):
    """Fit :class:`learnsim.mcd.MinimumClusterDistortion` on a Dask collection.

    The result is the estimator ``MinimumClusterDistortion(**params).fit(X_local, labels)``
    gives (to rounding) with the same fixed settings; see the module docstring for what is
    summed over partitions and what is gathered.

    Parameters
    ----------
    X : dask.array.Array (n_documents, n_features)
        Full-width row blocks, CSR or dense, with known row chunk sizes.
    labels : array-like or dask array (n_documents,)
        One cluster label per row, -1 for rows in no cluster (or a
        :class:`learnsim.supervision.Clusters`, with weights).
    **params
        Parameters of :class:`~learnsim.mcd.MinimumClusterDistortion`. ``n_basis``,
        ``shrinkage`` and ``complement_weight`` must be given (not "auto") and
        ``baseline_holdout`` must be None.
    client : distributed.Client or None
        Where to compute; None: Dask's current scheduler (the default client, if any).
    n_power_iter : int or None
        Subspace iterations of the truncated SVD for a principal basis of more than 4,000
        active features (None: ``DEFAULT_POWER_ITERATIONS``); smaller bases are exact.

    Returns
    -------
    MinimumClusterDistortion
        Fitted, with ``solver_`` as the single-process fit names its route.

    References
    ----------
    .. [1] D. Mochihashi, G. Kikui and K. Kita, "Learning Nonstructural Distance Metric by
       Minimum Cluster Distortions", Proceedings of EMNLP 2004.

    Examples
    --------
    A small clustered corpus in three row blocks, with fixed settings, computed in this process
    (the synchronous scheduler):

    >>> import dask
    >>> import numpy as np
    >>> from learnsim.datasets import make_clustered_corpus
    >>> from learnsim.mcd import MinimumClusterDistortion
    >>> from learnsim.text import TextVectorizer
    >>> from learnsim.distributed import fit_mcd, from_local
    >>> corpus = make_clustered_corpus(n_clusters=4, docs_per_cluster=8, vocab_size=300, random_state=0)
    >>> X = TextVectorizer(norm="l2").fit_transform(corpus.data)
    >>> params = dict(n_basis=8, shrinkage=0.1, complement_weight=0.1, baseline_holdout=None)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     mcd = fit_mcd(from_local(X, 12), corpus.target, **params)
    >>> mcd.solver_
    'basis'

    The metric of the single-process fit:

    >>> local = MinimumClusterDistortion(**params).fit(X, corpus.target)
    >>> bool(np.allclose(mcd.pairwise_distances(X), local.pairwise_distances(X)))
    True
    """
    n_power_iter = _check_power_iter(DEFAULT_POWER_ITERATIONS if n_power_iter is None else n_power_iter)
    _fixed_settings(params, "fit_mcd", ("n_basis", "shrinkage", "complement_weight"))
    est = MinimumClusterDistortion(**params)
    est._check_params()
    coll = _Collection(X, "X", "fit_mcd")
    n, D = coll.shape
    if n < 2:
        raise ValueError(f"X has {n} sample(s); at least 2 required" + (" (empty input)" if n == 0 else ""))
    clus = check_clusters(_local_labels(labels, n, "labels"), n, min_cluster_size=est.min_cluster_size,
                          min_clusters=1)
    rng = check_random_state(est.random_state)
    lab = np.asarray(clus.labels)
    ids = np.asarray(clus.cluster_ids)
    weights = np.asarray(clus.normalized_weights(), dtype=float)
    pos = np.full(n, -1, dtype=np.int64)
    pos[lab >= 0] = np.searchsorted(ids, lab[lab >= 0])
    sqrt_w = np.sqrt(weights)

    spans = coll.spans()
    args = [(b, (e - s, D), i, "X") for (i, s, e), b in zip(spans, coll.blocks)]
    # the statistics are summed over partitions; the metric of the scatter is the estimator's own
    # step (MinimumClusterDistortion.fit_scatter: eq. 6 and its weights), on the driver
    with _on(client):
        if est.n_basis is None:
            return _distributed_scatter(coll, args, spans, pos, clus, sqrt_w, est)
        return _distributed_basis(coll, args, spans, pos, ids, sqrt_w, est, rng, n_power_iter)


def _distributed_scatter(coll, args, spans, pos, clus, sqrt_w, est):
    """``n_basis=None``: the centroids and the within-cluster scatter A of eq. (7) summed over
    partitions, then ``est.fit_scatter``; the Gram route fits the gathered clustered rows."""
    dask, _ = _dask()
    n_features = coll.shape[1]
    k = len(clus.cluster_ids)
    parts = _compute(*[dask.delayed(_mcd_sums)(*a, pos[s:e], k, coll.sparse) for a, (_, s, e) in zip(args, spans)])
    active = (np.unique(np.concatenate([p["active_clustered"] for p in parts])).astype(np.int64)
              if coll.sparse else np.arange(n_features))
    n = int((pos >= 0).sum())
    d = active.size
    data_scale = sum(p["sq_sum"] for p in parts) / n if n else 0.0
    stats = dict(n_items=n, n_clusters=k, n_features=n_features, data_scale=data_scale, active_features=active)
    if n - k <= 0 or d == 0:
        return est.fit_scatter(np.zeros((d, d)), **stats)      # no within-cluster scatter: "none"
    solver = scatter_solver(n, d)
    if solver == "randomized":
        raise ValueError(f"{n} clustered items with {d} active features: fit_mcd does not distribute the "
                         "randomised eigensolver of this size; use a principal basis (n_basis=k), which "
                         "is distributed, or fewer features")
    if solver == "gram":
        # the Gram route needs every pair of clustered rows: gather them (at most 8,000) and fit
        # them with the single-process solver
        rows = _compute(*[dask.delayed(_clustered_rows)(*a, pos[s:e]) for a, (_, s, e) in zip(args, spans)])
        Xc = sp.vstack(rows, format="csr") if coll.sparse else np.concatenate(rows)
        return est.fit(Xc, clus.subset(pos >= 0))
    # reduce: the cluster sums of every partition, then the centroids (a cluster may span partitions)
    sums = _sum_cluster_rows(parts, k, n_features)
    sizes = np.bincount(pos[pos >= 0], minlength=k).astype(float)
    if coll.sparse:
        centroids = sp.csr_matrix(sp.diags(1.0 / sizes) @ sums[:, active])
    else:
        centroids = sums / sizes[:, None]
    # each partition gets the centroids of its own clusters only
    # the centroids and the active features are one key each, read by every partition's task (a
    # copy pickled into each task grew the graph by partitions x centroids); each partition
    # takes the rows of its own clusters on the worker
    centroids_d, sqrt_w_d, active_d = (dask.delayed(v, pure=True) for v in (centroids, sqrt_w, active))
    take = dask.delayed(_take)
    tasks = []
    for a, (_, s, e) in zip(args, spans):
        present, p_local = _local_positions(pos[s:e], k)
        tasks.append(dask.delayed(_mcd_scatter)(*a, p_local, take(centroids_d, present), take(sqrt_w_d, present),
                                                active_d, n_features))
    # eq. (7), weighted as in sec. 4.3 (lower triangle); eq. (6) and the weights: the estimator's step
    return est.fit_scatter(_tree_sum(tasks), **stats)


def _take(rows, present):
    """The rows ``present`` of a shared array (on the worker: the centroids of a partition's clusters)."""
    return rows[present]


def _local_positions(pos, k):
    """The clusters a partition holds and its rows' positions among them (-1: no cluster), so
    that each partition is sent the centroids of its own clusters only."""
    present = np.unique(pos[pos >= 0])
    local = np.full(k, -1, dtype=np.int64)
    local[present] = np.arange(present.size)
    return present, np.where(pos >= 0, local[np.maximum(pos, 0)], -1)


def _sum_cluster_rows(parts, k, n_features):
    """Reduce: the per-partition sums of rows per cluster, added into one (k, n_features) matrix."""
    if not parts or sp.issparse(parts[0]["sums"]):
        coo = [sp.coo_matrix(p["sums"]) for p in parts]
        rows = np.concatenate([p["present"][c.row] for p, c in zip(parts, coo)] or [np.zeros(0, np.int64)])
        cols = np.concatenate([c.col for c in coo] or [np.zeros(0, np.int64)])
        vals = np.concatenate([c.data for c in coo] or [np.zeros(0)])
        return sp.csr_matrix((vals, (rows, cols)), shape=(k, n_features))
    total = np.zeros((k, n_features))
    for p in parts:
        total[p["present"]] += p["sums"]
    return total


def _distributed_basis(coll, args, spans, pos, ids, sqrt_w, est, rng, n_power_iter):
    """``n_basis=k``: the principal basis (the top right singular vectors of all rows), then the
    within-cluster scatter of the rows' coordinates (sec. 4.3), both as sums over partitions,
    then ``est.fit_scatter``."""
    dask, _ = _dask()
    n, n_features = coll.shape
    k = len(ids)
    # the single-process fit draws the basis' seed first; so does this one (same later stream)
    seed = int(rng.integers(2**31 - 1))
    if coll.sparse:
        found = _compute(*[dask.delayed(_used_features)(*a) for a in args])
        active = np.unique(np.concatenate(found)).astype(np.int64)
    else:
        active = np.arange(n_features)
    kk = max(1, min(int(est.n_basis), n, active.size))
    if active.size <= _MAX_EXACT_BASIS_FEATURES:
        # exact: the eigenvectors of X^T X (summed over partitions) are X's right singular vectors
        active_d = dask.delayed(active, pure=True)
        G = _tree_sum([dask.delayed(_gram_part)(*a, active_d, n_features) for a in args])
        # the full divide-and-conquer eigh: measured 20x faster than the subset (evr) one at 2,000
        lam, W = scipy.linalg.eigh(G, overwrite_a=True, check_finite=False, driver="evd")
        lam, W = lam[::-1][:kk], W[:, ::-1][:, :kk]
        s = np.sqrt(np.maximum(lam, 0.0))
        keep = (s > 1e-10 * max(s[0], 1e-300)) & (lam > _GRAM_TOL * max(lam[0], 0.0))
        components = np.ascontiguousarray(W[:, keep])
    else:
        _, s, Vt = _svd(coll, active, kk, n_power_iter, seed, left=False)
        keep = s > 1e-10 * max(s[0], 1e-300)
        components = np.ascontiguousarray(Vt[keep].T)
    # one key each for the basis (active x n_basis) and the active features, not a copy in every
    # partition's task: at 16 partitions of a 2,000-feature, 32-direction basis the fit's graph
    # was 8.6 MB of pickled tasks for 1.2 MB at 2
    components_d, active_d = dask.delayed(components, pure=True), dask.delayed(active, pure=True)
    parts = _compute(*[dask.delayed(_basis_sums)(*a, pos[s:e], k, components_d, active_d, n_features)
                       for a, (_, s, e) in zip(args, spans)])
    sums = sum(p[0] for p in parts)
    n_clustered = int((pos >= 0).sum())
    with np.errstate(over="ignore", invalid="ignore"):
        scale = sum(p[1] for p in parts) / max(n_clustered, 1)
    sizes = np.bincount(pos[pos >= 0], minlength=k)
    centroids = sums / np.maximum(sizes, 1)[:, None]
    centroids_d, sqrt_w_d = dask.delayed(centroids, pure=True), dask.delayed(sqrt_w, pure=True)
    take = dask.delayed(_take)
    tasks = []
    for a, (_, s, e) in zip(args, spans):
        present, p_local = _local_positions(pos[s:e], k)
        tasks.append(dask.delayed(_basis_scatter)(*a, p_local, take(centroids_d, present), take(sqrt_w_d, present),
                                                  components_d, active_d, n_features))
    return est.fit_scatter(_tree_sum(tasks), n_items=n_clustered, n_clusters=k, n_features=n_features,
                           data_scale=scale, active_features=active, components=components)


# ------------------------------------------------------------------------------ FILM
def fit_film(X, y, *, client=None, n_power_iter=DEFAULT_POWER_ITERATIONS, **params):
    """Fit :class:`learnsim.film.FILM` on a Dask collection.

    The result is ``FILM(**params).fit(X_local, y)`` (to rounding, where both SVDs have
    converged; see the module docstring): the same triplets, start point and iterations.

    Parameters
    ----------
    X : dask.array.Array (n_documents, n_features)
        Full-width row blocks, CSR or dense, with known row chunk sizes. Rows are
        L2-normalised per partition.
    y : array-like or dask array
        Triplets (n_triplets, 3) of row indices, or one class label per row (triplets are then
        drawn on the driver, as the single-process fit draws them).
    client : distributed.Client or None
        Where to compute; None: Dask's current scheduler (the default client, if any).
    n_power_iter : int, default=DEFAULT_POWER_ITERATIONS
        Subspace iterations of the truncated SVD (each a pass of A^T A, QR-normalised).
    **params
        Parameters of :class:`~learnsim.film.FILM`; ``baseline_holdout`` must be None and
        ``batch_size`` None.

    Returns
    -------
    FILM
        Fitted; ``timings_`` holds the seconds of the SVD and of the optimisation.

    References
    ----------
    .. [1] X. Tang and A. Aw, "FILM: A Fast, Interpretable, and Low-rank Metric Learning
       Approach for Sentence Matching", arXiv:2001.05839, 2020.

    Examples
    --------
    A small clustered corpus in two row blocks; the triplets are drawn from the labels, computed
    in this process (the synchronous scheduler):

    >>> import dask
    >>> import numpy as np
    >>> from learnsim.datasets import make_clustered_corpus
    >>> from learnsim.film import FILM
    >>> from learnsim.text import TextVectorizer
    >>> from learnsim.distributed import fit_film, from_local
    >>> corpus = make_clustered_corpus(n_clusters=4, docs_per_cluster=8, vocab_size=300, random_state=0)
    >>> X = TextVectorizer(norm="l2").fit_transform(corpus.data)
    >>> params = dict(n_components=4, max_iter=30, baseline_holdout=None, random_state=0)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     film = fit_film(from_local(X, 16), corpus.target, **params)
    >>> film.components_.shape == (4, X.shape[1]), film.n_triplets_
    (True, 160)

    The similarity of the single-process fit (to the rounding of the two SVDs):

    >>> local = FILM(**params).fit(X, corpus.target)
    >>> bool(np.allclose(film.similarity(X), local.similarity(X), atol=1e-3))
    True
    """
    _fixed_settings(params, "fit_film", ())
    n_power_iter = _check_power_iter(n_power_iter)
    from ..film import FILM

    est = FILM(**params)
    d, r_param, batch, per_item = est._check_params()
    if batch is not None:
        raise ValueError("fit_film runs full FILM (every anchor at every iteration); batch_size must be None")
    coll = _Collection(X, "X", "fit_film")
    n, n_features = coll.shape
    if n < 3:
        raise ValueError(f"X has {n} sample(s); at least 3 required" + (" (empty input)" if n == 0 else ""))
    with _on(client):
        return fit_film_collection(est, coll, y, d, r_param, per_item, n_power_iter)
