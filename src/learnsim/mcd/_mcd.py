"""The minimum-cluster-distortion metric of Mochihashi, Kikui & Kita (paper 000).

Given items grouped into clusters, the paper seeks the Mahalanobis matrix M that minimises the
summed squared distance of every item to its cluster centroid, eq. (4), under |M| = 1, eq. (5).
The closed-form answer is M = |A|^(1/n) A^-1, eq. (6), where A is the within-cluster scatter
matrix, eq. (7); with cluster weights (sec. 4.3) each cluster's scatter is scaled by its
normalised weight. When A is singular - the normal case for text - the paper uses the
Moore-Penrose pseudo-inverse and the product of the non-zero eigenvalues (Appendix B).

Every metric here has the factored form

    M = s * ( V diag(1 / mu) V^T + gamma * (I - V V^T) ),

with V orthonormal eigenvectors of a within-cluster scatter, mu their shrunk eigenvalues and
gamma the weight of every direction outside span(V); s fixes |M| = 1 (eq. 5). Nothing of size
D x D is ever formed. Where V comes from:

* ``n_basis=None`` - **the paper's space.** V spans the range of A itself (at most
  ``n_items - n_clusters`` directions), found through whichever of Z^T Z (D x D, small D),
  Z Z^T (n x n, "Gram") or a randomised SVD of Z is cheapest, where the rows of Z are the
  weighted differences of items from their centroids. With ``shrinkage=0`` and
  ``complement_weight=0`` this *is* the paper's pseudo-inverse metric (Appendix B).
* ``n_basis=k`` - **a principal (LSI) basis.** The scatter is whitened inside the span of the
  top-k right singular vectors of *all* rows of X - rows labelled -1 (no cluster) included, so
  an unlabelled collection that will be searched shapes the basis without adding supervision.
  This is the paper's own suggestion (sec. 5.2.2) to "consider metric induction and
  dimensionality reduction simultaneously": the full-space inverse amplifies the smallest,
  noisiest eigenvalues once the dimension approaches the rank of A, while a small basis keeps
  the discriminative low-variance directions that are well estimated.

Beyond the paper, mu_k = (1 - alpha) * lambda_k / mean(lambda) + alpha shrinks toward the
identity (alpha = 1 with gamma = 1 is plain Euclid), and k, alpha and gamma can be chosen
("auto") by leave-clusters-out retrieval on the training clusters - never on held-out items of
training clusters, which would reward memorising them.

References
----------
.. [1] D. Mochihashi, G. Kikui and K. Kita, "Learning Nonstructural Distance Metric by Minimum
   Cluster Distortions", Proceedings of the 2004 Conference on Empirical Methods in Natural
   Language Processing (EMNLP), 2004 (paper 000 in ../shared/papers).
"""
from __future__ import annotations

import itertools
import numbers

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ._fold_sampling import SampledFold as _SampledFold, sample_fold as _sample_fold  # noqa: F401  (the type it returns)
from ._fold_sampling import sample_check_fold as _sample_check_fold, sampled_query_values as _sampled_query_values
from ._fold_sampling import exact_fold as _exact_fold, still_rising as _still_rising
from ._fold_sampling import halving_survivors as _halving_survivors
from .._utils.linalg import _single_blas_thread
from ._linalg import _SCATTER, _PrincipalBasis, _bilinear_sq_dist, _cholesky_inverse_factor, _cross_sq_dists, \
    _eigh_desc, _eigh_lower, _project, active_columns as _active_columns, cluster_membership as _cluster_membership, \
    _randomized_scatter_eigen, _raw_weights, _zero_threshold
from .._utils.callers import warn_outside
from .._utils.progress import progress
from .._utils.validation import check_matrix, check_no_overflow, check_random_state, state_array, state_number
from .._utils.metric import MetricMixin, _dense_dot, _row_sq_norms
from ..baseline import DEFAULT_HOLDOUT, BaselineGain, check_holdout, compare, split_groups, unchecked
from ..supervision import check_clusters

DEFAULT_BASIS_GRID = (16, 32, 64, 128, 256)
DEFAULT_SHRINKAGE_GRID = (0.0, 1e-2, 0.1, 0.3, 1.0)
DEFAULT_COMPLEMENT_GRID = (0.0, 0.1, 0.3, 1.0)
#: The paper's metric exactly: full space, pseudo-inverse, nothing outside the range of A, fitted
#: on every cluster (no held-out check against Euclid, which the paper does not have).
PAPER_PARAMS = {"n_basis": None, "shrinkage": 0.0, "complement_weight": 0.0, "baseline_holdout": None}
# The selection's first stage tries the basis sizes up to this with a basis of this rank; the
# larger ones only when the largest of these wins it, by more than noise (see
# MinimumClusterDistortion._select).
_FIRST_STAGE_BASIS = 64
# ... up to this on at most _ALWAYS_SECOND_STAGE_ROWS rows, then 64 alone (on 3,000 sentences,
# where 16 wins, a rank-64 basis cost 3x the whole fit with fixed settings)
_SMALL_FIRST_STAGE_BASIS = 32
# the larger sizes are tried when the largest first-stage size beats the one below by this many
# standard errors of the per-fold differences (_still_rising), or always on at most
# _ALWAYS_SECOND_STAGE_ROWS rows: 4 folds give the test little power there (on Flickr8k it
# skipped bases that raised the reproduction's 11-pt AP at 3 % LSI from 0.557 to 0.577)
_RISING_T = 2.0
# On at most _ALWAYS_SECOND_STAGE_ROWS rows, a first stage whose largest size wins by this many
# standard errors goes straight to every larger size, with the widest basis: the rank-64 stage
# of its own costs more than it saves where the curve is steep (synthetic 3k:
# 32 beat 16 by 11.7 standard errors, 64 and 128 won next; the demo: 2.3, and 64 lost)
_STEEP_T = 4.0
_ALWAYS_SECOND_STAGE_ROWS = 5000
# On at most _ALWAYS_SECOND_STAGE_ROWS rows the first stage's basis is as wide as the middle
# stage's largest size (64) with this many power iterations, not 8: it costs little more than the
# rank-32 basis of the first stage's sizes did, and the middle stage then needs no basis of its
# own (a quarter of the demo's default fit, which was 3.0-3.7x the fixed one). Its leading
# directions converge with the gap to its 75th singular value: with 6 iterations its first 16
# and first 32 missed no more of the energy than the rank-32 basis's with 8 did, on 9 matrices
# (the demo, sentences 1k/3k, synthetic 1k/3k, a 20 Newsgroups and 3 Flickr8k reproduction
# sets); with 5 the first 16 missed up to 5x more on 4 of them, with 4 the first 32 up to 1.7x.
_SMALL_FIRST_BASIS_ITERATIONS = 6
_HALVING_MIN_GROUPS = 5      # from this many (basis size, shrinkage) groups, successive halving
# Above this many clustered rows the settings are selected on a seeded sample of whole clusters
# of at most this many rows, then the metric is fitted on every row with them: the selection
# costs what it costs on this many rows (issue 16: 6.8x the fixed fit at 100k sentences before;
# 3.85x on 100k synthetic documents with 50,000 rows).
_SELECTION_MAX_ROWS = 20_000
# Used when there are too few clusters to select on held-out ones: the paper's own metric.
_FALLBACK = {"shrinkage": 0.0, "complement_weight": 0.0}
# What the metric is measured against (see learnsim.baseline) and how its measures are called.
_BASELINE = "Euclidean distance on the input vectors"
_MEASURE_NAMES = {"ap11": "11-point average precision", "ap": "average precision"}
_SOLVERS = {"cholesky", "covariance", "gram", "randomized", "basis", "none"}

# Above this many features the covariance route (a D x D eigenproblem) is not used.
_MAX_COVARIANCE_DIM = 4000
# Above this many clustered items the Gram route (an n x n eigenproblem) is not used.
_MAX_GRAM_ITEMS = 8000
# The largest dense output (entries) transform() or get_mahalanobis_matrix() will build.
_MAX_DENSE_ENTRIES = 400_000_000
# The selection scores a fold exactly - every held-out item ranks all the others - while its
# held-out items (whole clusters) number at most this many: 200 x 200 distances, as many as the
# sampled estimate's 100 x 400 (_sample_fold) that larger folds get. (600 before: the default
# fit took 14.6x the fixed one on 3,000 synthetic documents in clusters of 30, same choice.)
_EXACT_SELECTION_ITEMS = 200
# Sampled queries per fold, and at most this many sampled items they rank (fewer when
# max_validation_items is smaller): 100 x 400 distances a candidate. The candidates share them,
# so their differences are paired; the estimate's spread comes from the queries, not the items
# (20 Newsgroups 5k: 1,000 items chose the same settings at 2.5x the cost).
_SELECTION_QUERIES = 100
_SELECTION_ITEMS = 400
_EXACT_CHECK_ITEMS = 2000   # the held-out check's exact bound: n x n matrices of 32 MB at most
_EXACT_CHECK_MIN_ITEMS = 600  # ... and the least it ranks exactly, whatever max_validation_items


# get_feature_names_out names transform's columns "minimumclusterdistortion0", ... (scikit-learn's
# rule for new features: even the n_features-wide map mixes the input features); set_output is not
# offered (auto_wrap_output_keys=None): the metric's own methods embed through transform
class MinimumClusterDistortion(ClassNamePrefixFeaturesOutMixin, MetricMixin, TransformerMixin, BaseEstimator,
                               auto_wrap_output_keys=None):
    """Mahalanobis metric that minimises within-cluster distortion (Mochihashi et al., eq. 4-7).

    Parameters
    ----------
    n_basis : int, None or "auto", default="auto"
        None: learn M in the full feature space, as the paper. An int k: whiten inside the top-k
        principal (LSI) directions of all rows of X (see the module docstring). "auto": pick k
        from ``basis_grid`` on held-out clusters, in stages: the sizes up to 64 first, the
        larger ones only when 64 (the largest so far) wins, so that the large basis is computed
        only when it may be chosen (on at most 5,000 rows: up to 32, then 64, then the rest, or
        all the rest at once where 32 beats 16 clearly). k is capped at the rank of X.
    shrinkage : float in [0, 1] or "auto", default="auto"
        alpha in mu_k = (1 - alpha) lambda_k / mean(lambda) + alpha. 0 is the paper's inverse.
    complement_weight : float >= 0 or "auto", default="auto"
        gamma: weight (relative to a direction of average within-cluster variance) of the
        directions outside span(V). 0 ignores them, as the pseudo-inverse does (Appendix B);
        1 treats them as having average variance; 1/alpha with ``n_basis=None`` gives the
        ridge-regularised inverse of A in the whole space.
    basis_grid, shrinkage_grid, complement_grid : sequences
        Candidates for the "auto" settings.
    cv : int, default=4
        Number of folds over *clusters* used for the selection.
    selection_measure : {"ap11", "r_precision", "ap"}, default="ap11"
        Leave-one-out cluster-retrieval measure maximised by the selection.
    max_validation_items : int, default=1000
        Bounds the held-out items scored per fold, hence the selection's cost. Whole held-out
        clusters up to this many items are taken; when they number at most 200 every one ranks
        all the others (the exact leave-one-out measure). Otherwise 100 sampled queries rank a
        sample of about this many items (at most 400) of the fold's held-out clusters (each gives
        at least 2, at most ``max_validation_items // 4`` clusters are drawn), which holds every sampled
        item of the query's cluster; the items ranked above each relevant one are counted with
        their inverse sampling rates, so the measure estimates the exact one on the whole fold.
        The held-out check (``baseline_holdout``) ranks whole clusters up to this many items (at
        least 600, at most 2,000); beyond, as many queries (drawn in proportion to the items they
        stand for) rank a sample of about as many items of every held-out cluster, in blocks.
    n_components : int or None, default=None
        With ``n_basis=None`` only: keep at most this many (largest) eigen-directions of A.
        Required when both the number of features and of clustered items are large.
    min_cluster_size : int, default=2
        A cluster with fewer items has no scatter and is an error (label such items -1).
    tol : float, default=1e-9
        Eigenvalues below ``tol * largest`` count as zero (the rank of A, Appendix B).
    random_state : int, Generator or None
        Seeds the cluster folds and randomised SVDs.
    verbose : bool, default=False
        Show a progress bar over the selection folds.
    baseline_holdout : float in (0, 1) or None, default=0.2
        Share of the clusters (whole clusters, at most ``max_validation_items`` items) kept back
        to measure the learned metric against the Euclidean distance on X (the cosine on
        L2-normalised rows), which the family contains (shrinkage = complement weight = 1). The
        metric is learned on the other clusters, scored on the held-out ones, then refitted on
        every cluster with the settings it chose (fewer than six held out, ``MIN_HELD_GROUPS``:
        further disjoint runs of as many, each from its own fit, until six are scored, at most
        five fits); when it does not beat Euclid there, the fitted
        metric *is* Euclid and a :class:`learnsim.baseline.BaselineWarning` says so. None fits on
        every cluster without the check (``baseline_gain_`` is None); the reproductions use it.
        See :mod:`learnsim.baseline`.

    Attributes
    ----------
    n_features_in_ : int
    n_basis_, shrinkage_, complement_weight_ : the settings used (selected or given).
    eigenvalues_ : ndarray (r,) or None
        Non-zero eigenvalues of the within-cluster scatter (eq. 7) in the space used, descending;
        None with the "cholesky" solver, which never needs them.
    factor_ : ndarray (n_active, r)
        V, over the features in ``active_features_``: orthonormal eigenvectors of the scatter, or,
        with the "cholesky" solver, L^-T where A = L L^T (then M = s L^-T L^-1 = s A^-1, eq. 6).
    rank_ : int
        Rank of the within-cluster scatter in the space used (Appendix B's R).
    active_features_ : ndarray of int
        Features that are non-zero somewhere in the data that defines V.
    weights_ : ndarray (r,)
        s / mu_k: the metric on the eigen-directions.
    residual_weight_ : float
        s * gamma: the metric on every direction orthogonal to V.
    scale_ : float
        s = the |.|^(1/n) factor of eq. (6) that makes |M| = 1.
    cv_results_ : dict of lists or None
        Every candidate setting with its mean held-out score and the number of folds it was
        scored on (``n_folds``: successive halving drops some), when something was "auto".
    baseline_gain_ : learnsim.baseline.BaselineGain or None
        Learned against Euclid on the held-out clusters: each held-out item queries the others
        (11-point average precision of its cluster), with a bootstrap interval of the gain.
    solver_ : str
        How A was factored: "cholesky" (the paper's settings with a full-rank A of moderate size:
        eq. 6 by a Cholesky factor, no eigendecomposition), "covariance" (eigh of A), "gram" (eigh
        of Z Z^T), "randomized" (randomised SVD of Z) or "basis" (eigh in the principal basis).

    Notes
    -----
    Sparse input is accepted throughout. :meth:`transform` returns ``M^(1/2) x``:
    r-dimensional when ``residual_weight_ == 0``, else dense with n_features columns;
    :meth:`pairwise_distances` and :func:`learnsim.search.top_k` need neither.

    References
    ----------
    .. [1] D. Mochihashi, G. Kikui and K. Kita, "Learning Nonstructural Distance Metric by Minimum
       Cluster Distortions", Proceedings of the 2004 Conference on Empirical Methods in Natural
       Language Processing (EMNLP), 2004 (paper 000 in ../shared/papers).

    Examples
    --------
    Learn a metric from the clusters of a small synthetic corpus (the settings are fixed here,
    so nothing is searched; ``baseline_holdout=None`` skips the held-out check against Euclid):

    >>> from learnsim.datasets import make_clustered_corpus
    >>> from learnsim.text import TextVectorizer
    >>> from learnsim.mcd import MinimumClusterDistortion
    >>> corpus = make_clustered_corpus(n_clusters=6, docs_per_cluster=10, vocab_size=500, random_state=0)
    >>> X = TextVectorizer(norm="l2").fit_transform(corpus.data)
    >>> mcd = MinimumClusterDistortion(n_basis=16, shrinkage=0.1, complement_weight=0.1,
    ...                                baseline_holdout=None).fit(X, corpus.target)
    >>> Z = mcd.transform(X)
    >>> Z.shape[0] == X.shape[0]
    True

    Items of one cluster are closer under the learned metric than items of different clusters:

    >>> import numpy as np
    >>> D = mcd.pairwise_distances(X)
    >>> same = corpus.target[:, None] == corpus.target[None, :]
    >>> bool(D[same].mean() < D[~same].mean())
    True
    """

    def __init__(self, n_basis="auto", shrinkage="auto", complement_weight="auto", *,
                 basis_grid=DEFAULT_BASIS_GRID, shrinkage_grid=DEFAULT_SHRINKAGE_GRID,
                 complement_grid=DEFAULT_COMPLEMENT_GRID, cv=4, selection_measure="ap11",
                 max_validation_items=1000, n_components=None, min_cluster_size=2, tol=1e-9,
                 random_state=None, verbose=False, baseline_holdout=DEFAULT_HOLDOUT):
        self.n_basis = n_basis
        self.shrinkage = shrinkage
        self.complement_weight = complement_weight
        self.basis_grid = basis_grid
        self.shrinkage_grid = shrinkage_grid
        self.complement_grid = complement_grid
        self.cv = cv
        self.selection_measure = selection_measure
        self.max_validation_items = max_validation_items
        self.n_components = n_components
        self.min_cluster_size = min_cluster_size
        self.tol = tol
        self.random_state = random_state
        self.verbose = verbose
        self.baseline_holdout = baseline_holdout

    # ------------------------------------------------------------------ fitting
    def fit(self, X, y=None, *, clusters=None):
        """Learn M from clusters of the rows of X.

        Parameters
        ----------
        X : array-like or sparse matrix (n_items, n_features)
            Rows labelled -1 take no part in the scatter but do shape the principal basis.
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
        grids = self._check_params()
        clus = check_clusters(y, X.shape[0], min_cluster_size=self.min_cluster_size, min_clusters=1)
        rng = check_random_state(self.random_state)
        self.n_features_in_ = X.shape[1]
        if self.baseline_holdout is None:
            self.baseline_gain_ = None
            return self._fit_clusters(X, clus, grids, rng)
        labels = np.asarray(clus.labels)
        # the selection of "auto" settings needs 4 training clusters of its own (see _select)
        min_train = 4 if any(len(g) > 1 for g in grids.values()) else 2
        split = split_groups(labels[labels >= 0], self.baseline_holdout, random_state=rng,
                             min_held=2, min_train=min_train)
        if split is None:
            self._fit_clusters(X, clus, grids, rng)
            self.baseline_gain_ = unchecked(
                f"{len(clus.cluster_ids)} cluster{'' if len(clus.cluster_ids) == 1 else 's'}; holding 2 out needs "
                f"{min_train + 2}"
                + (" (4 stay to select the 'auto' settings)" if min_train == 4 else ""),
                baseline_name=_BASELINE, owner="MinimumClusterDistortion", stacklevel=2)
            return self
        return self._fit_checked(X, clus, split, rng)

    def _fit_checked(self, X, clus, split, rng):
        """Learn on some clusters, score learned against Euclid on the others (whole clusters of
        at most max_validation_items items, or sampled: see that parameter), then refit on every
        cluster with the settings chosen (or keep Euclid). See :mod:`learnsim.baseline`.

        Where one split holds out fewer than :data:`learnsim.baseline.MIN_HELD_GROUPS` clusters,
        further disjoint runs of as many clusters are held out of probes fitted on the others
        (cross-fitting, as the search check does), until that many are scored or no whole run
        is left (at most MAX_FOLDS probes): the interval resamples whole clusters, and over two
        it was the range of their two gains, above zero for about one metric in five that gains
        nothing on new clusters. The first probe's settings are the refit's."""
        from ..baseline import MAX_FOLDS, MIN_HELD_GROUPS

        ids, held = split
        probe, part = self._checked_fold(X, clus, ids[held], rng)
        parts = [part]
        n_held = int(held.sum())
        if n_held < MIN_HELD_GROUPS:
            # drawn after the first fold, whose probe (and so the settings) is as before
            rest = ids[~held][rng.permutation(int((~held).sum()))]
            wanted = min(MAX_FOLDS, -(-MIN_HELD_GROUPS // n_held)) - 1
            for i in range(min(wanted, rest.size // n_held)):
                parts.append(self._checked_fold(X, clus, rest[i * n_held:(i + 1) * n_held], rng)[1])
        learned, euclid, yv = (np.concatenate([p[i] for p in parts]) for i in range(3))
        n_clusters = sum(p[3] for p in parts)
        unit = parts[0][4] if len(parts) == 1 else (
            f"held-out queries ({len(parts)} folds of held-out clusters, {n_clusters} clusters in all; the first: "
            + parts[0][4].removeprefix("held-out queries ("))
        self.baseline_gain_ = compare(
            learned, euclid, measure=_MEASURE_NAMES[self._check_measure()], unit=unit + "; the interval resamples "
            "whole clusters)", baseline_name=_BASELINE, owner="MinimumClusterDistortion", groups=yv,
            random_state=rng, stacklevel=3, detail={"n_basis": probe.n_basis_, "shrinkage": probe.shrinkage_,
                                                    "complement_weight": probe.complement_weight_,
                                                    "held_out_clusters": int(n_clusters)})
        chosen = {"n_basis": [probe.n_basis_], "shrinkage": [probe.shrinkage_],
                  "complement_weight": [probe.complement_weight_]}
        if self.baseline_gain_.fell_back:
            chosen.update(shrinkage=[1.0], complement_weight=[1.0])
        # the probe's basis is of the same rows (held-out rows shape it too): its leading
        # directions serve the refit, instead of a second truncated SVD
        self._fit_clusters(X, clus, chosen, rng, basis=probe.__dict__.pop("_basis", None))
        # the selection that chose the refit's settings, not the refit's one-point grid
        self.cv_results_ = probe.cv_results_
        return self

    def _check_measure(self):
        return self.selection_measure if self.selection_measure != "r_precision" else "ap"

    def _checked_fold(self, X, clus, held_ids, rng):
        """(probe, (learned, euclid, groups, n_clusters, unit)): a probe fitted without the
        clusters ``held_ids`` and the per-query values of it and of Euclid on them."""
        from ..evaluation import per_query_measures, relevance_from_labels
        from ..supervision import Clusters

        labels = np.asarray(clus.labels)
        ids = np.asarray(np.unique(labels[labels >= 0]))
        held = np.isin(ids, held_ids)
        is_held = np.isin(labels, held_ids)
        probe = MinimumClusterDistortion(**{**self.get_params(), "baseline_holdout": None})
        probe.set_params(random_state=int(rng.integers(2**31 - 1)))
        probe._keep_basis = True
        # the training clusters keep their weights (sec. 4.3)
        probe.fit(X, Clusters._from_parent(np.where(is_held, -1, labels), clus))
        # bound the n x n scoring: whole held-out clusters up to max_validation_items (<= limit) items
        # one count of every cluster (a pass over the labels per held-out cluster was n x clusters:
        # about 30 s of a 97 s fit at 1M documents in clusters of 1-5)
        sizes = np.bincount(np.searchsorted(ids, labels[labels >= 0]), minlength=ids.size)[held]
        held_ids = ids[held]
        order = rng.permutation(len(held_ids))
        budget = max(int(self.max_validation_items), int(sizes.max()))
        take = held_ids[order[np.cumsum(sizes[order]) <= budget]]
        take = take if take.size >= 2 else held_ids[order[:2]]
        rows = np.flatnonzero(np.isin(labels, take))
        measure = self._check_measure()
        limit = max(_EXACT_CHECK_MIN_ITEMS, min(int(self.max_validation_items), _EXACT_CHECK_ITEMS))
        if rows.size <= limit:
            Xv, yv = X[rows], labels[rows]
            rel = relevance_from_labels(yv, yv)
            learned = per_query_measures(-probe.pairwise_distances(Xv, squared=True), rel, exclude_self=True,
                                         measures=(measure,))[measure]
            G = _dense_dot(Xv, Xv)
            sq = np.diag(G).copy()
            euclid = per_query_measures(-(sq[:, None] + sq[None, :] - 2.0 * G), rel, exclude_self=True,
                                        measures=(measure,))[measure]
            n_clusters, unit = int(take.size), f"held-out queries (items of {take.size} held-out clusters"
        else:
            # a sample of every held-out cluster, ranked block by block of queries (no n x n matrix)
            design = _sample_check_fold(labels, held_ids, limit, limit, rng)
            Xv, yv, sq = X[design.rows], labels[design.rows[design.queries]], _row_sq_norms(X[design.rows])
            learned, euclid = _sampled_query_values(design, [
                lambda q: probe.pairwise_distances(Xv[q], Xv, squared=True),
                lambda q: sq[q][:, None] + sq[None, :] - 2.0 * _dense_dot(Xv[q], Xv)], measure)
            n_clusters, unit = design.cluster_sizes.size, (
                f"held-out queries ({design.queries.size} drawn from {design.cluster_sizes.sum()} items of "
                f"{design.cluster_sizes.size} held-out clusters, each ranking {design.rows.size} sampled items")
        return probe, (np.asarray(learned), np.asarray(euclid), np.asarray(yv), n_clusters, unit)

    def _fit_clusters(self, X, clus, grids, rng, basis=None):
        """The metric of all clusters in ``clus``, its settings chosen from ``grids``; ``basis``:
        a :class:`_PrincipalBasis` of these X to reuse, when it has the rank the grid asks for."""
        labels = np.asarray(clus.labels)
        ids = np.asarray(clus.cluster_ids)
        cluster_weights = np.asarray(clus.normalized_weights(), dtype=float)
        grids = dict(grids)

        seed = None if self.n_basis is None else int(rng.integers(2**31 - 1))

        def basis_of(k, n_iter=None):
            """A principal basis of rank k (or X's rank), the last one reused when it has it."""
            nonlocal basis
            if basis is None or basis.requested < k:
                basis = _PrincipalBasis(X, k, seed, n_iter)
            return basis

        basis_of = None if self.n_basis is None else basis_of
        self.cv_results_ = None
        if any(len(g) > 1 for g in grids.values()):
            sample = _selection_sample(labels, ids, cluster_weights, rng)
            if sample is None:
                setting, self.cv_results_ = self._select(X, basis_of, labels, ids, cluster_weights, grids, rng)
            else:
                # settings chosen on a sample of whole clusters (its own basis), the metric then
                # fitted on every row with them
                rows, sample_ids, sample_weights = sample
                Xs, sample_basis = X[rows], None

                def sample_basis_of(k, n_iter=None):
                    nonlocal sample_basis
                    if sample_basis is None or sample_basis.requested < k:
                        sample_basis = _PrincipalBasis(Xs, k, seed, n_iter)
                    return sample_basis

                setting, self.cv_results_ = self._select(Xs, basis_of and sample_basis_of, labels[rows], sample_ids,
                                                         sample_weights, grids, rng)
        else:
            setting = {key: g[0] for key, g in grids.items()}
            if basis_of is not None:
                setting["n_basis"] = min(setting["n_basis"], basis_of(setting["n_basis"]).rank)
        if basis_of is None:
            basis = None
        else:
            basis = basis_of(setting["n_basis"])
            setting["n_basis"] = min(setting["n_basis"], basis.rank)
        if self.__dict__.pop("_keep_basis", False):
            self._basis = basis     # for _fit_checked's refit only; it removes it
        self.n_basis_ = setting["n_basis"]
        self.shrinkage_ = float(setting["shrinkage"])
        self.complement_weight_ = float(setting["complement_weight"])

        if basis is None:
            return self._set_metric(*_scatter_eigen(X, labels, ids, cluster_weights, self.n_components, self.tol, rng,
                                                    exact_inverse=self._exact_inverse()))
        # the scatter of the rows' basis coordinates (eq. 7, sec. 4.3), whitened in the basis
        return self._metric_from_scatter(basis.scatter(labels, ids, cluster_weights, self.n_basis_),
                                         data_scale=basis.scale(labels), active=basis.active,
                                         components=basis.components)

    def fit_scatter(self, scatter, *, n_items, n_clusters, n_features, data_scale=0.0, active_features=None,
                    components=None):
        """Set the metric from a within-cluster scatter matrix (eq. 7): the step of :meth:`fit`
        that follows the scatter, for a caller that computed the scatter itself.

        :func:`learnsim.distributed.fit_mcd` sums the scatter over the partitions of a Dask
        collection and calls this; :meth:`fit` runs the same code on the scatter it computes.
        The settings must be fixed (``n_basis``, ``shrinkage`` and ``complement_weight`` not
        "auto": the selection needs held-out clusters); no held-out check is run
        (``baseline_gain_`` is None, as with ``baseline_holdout=None``).

        Parameters
        ----------
        scatter : ndarray (d, d)
            With ``n_basis=None``: the weighted within-cluster scatter A of eq. (7) (clusters
            weighted as in sec. 4.3) over the ``active_features``; only its lower triangle is
            read, and it is overwritten. With ``n_basis=k``: the same scatter of the clustered
            rows' coordinates in the principal basis ``components`` (at least k x k; its leading
            k x k block is used).
        n_items, n_clusters : int
            The clustered items and the clusters A sums over: A has rank at most
            ``n_items - n_clusters`` (Appendix B).
        n_features : int
            The features of the input rows (``n_features_in_``).
        data_scale : float, default=0.0
            The mean squared norm of the clustered rows (over the active features, or of their
            basis coordinates): eigenvalues below 1e-10 of it are rounding noise (rank 0).
        active_features : ndarray of int or None, default=None
            The features the rows of A (or of ``components``) stand for, ascending; None: all.
        components : ndarray (n_active, rank) or None, default=None
            With ``n_basis=k`` only: the principal basis, orthonormal columns (the top right
            singular vectors of all rows of X); ``n_basis_`` is k capped at its rank.

        Returns
        -------
        self
            Fitted, as :meth:`fit` leaves it with the same settings and ``baseline_holdout=None``.

        Examples
        --------
        >>> import numpy as np
        >>> from learnsim.mcd import PAPER_PARAMS, MinimumClusterDistortion
        >>> X = np.array([[0.0, 0.0], [2.0, 1.0], [5.0, 5.0], [5.0, 7.0]])
        >>> labels = np.array([0, 0, 1, 1])
        >>> Z = X - np.array([X[labels == c].mean(axis=0) for c in (0, 1)])[labels]
        >>> A = Z.T @ Z                         # eq. (7), the two clusters weighted equally
        >>> mcd = MinimumClusterDistortion(**PAPER_PARAMS).fit_scatter(
        ...     A, n_items=4, n_clusters=2, n_features=2, data_scale=float((X * X).sum(axis=1).mean()))
        >>> mcd.solver_
        'cholesky'
        >>> fitted = MinimumClusterDistortion(**PAPER_PARAMS).fit(X, labels)
        >>> bool(np.allclose(mcd.get_mahalanobis_matrix(), fitted.get_mahalanobis_matrix()))
        True
        """
        grids = self._check_params()
        auto = [key for key in ("n_basis", "shrinkage", "complement_weight")
                if isinstance(getattr(self, key), str) and getattr(self, key) == "auto"]
        if auto:
            verb = "is" if len(auto) == 1 else "are"
            raise ValueError(f"fit_scatter needs fixed settings; {' and '.join(auto)} {verb} 'auto' (the "
                             "selection fits on held-out clusters: use fit)")
        scatter = np.asarray(scatter, dtype=np.float64)
        active = np.arange(n_features) if active_features is None else np.asarray(active_features, dtype=np.int64)
        if (components is None) != (self.n_basis is None):
            raise ValueError("components are the principal basis of n_basis=k: give them with an integer n_basis, "
                             "and only then")
        d = active.size if components is None else np.shape(components)[1]
        if scatter.ndim != 2 or scatter.shape[0] != scatter.shape[1] or scatter.shape[0] < (
                d if components is None else min(int(self.n_basis), d)):
            raise ValueError(f"scatter must be a square matrix over the {d} active features or basis "
                             f"directions; got shape {scatter.shape}")
        self.n_features_in_ = int(n_features)
        self.baseline_gain_ = None
        self.cv_results_ = None
        self.n_basis_ = None if components is None else min(int(self.n_basis), d)
        self.shrinkage_ = float(grids["shrinkage"][0])
        self.complement_weight_ = float(grids["complement_weight"][0])
        return self._metric_from_scatter(scatter, data_scale=data_scale, active=active, components=components,
                                         max_rank=int(n_items) - int(n_clusters))

    def _exact_inverse(self):
        """The paper's settings: eq. (6)'s inverse exactly (a Cholesky factor serves)."""
        return self.shrinkage_ == 0.0 and self.complement_weight_ == 0.0

    def _metric_from_scatter(self, scatter, *, data_scale, active, components=None, max_rank=None):
        """The metric of the scatter ``scatter`` (eq. 7) with the settings chosen: in the full space
        (``components`` None; A over ``active``, at most ``max_rank`` non-zero eigenvalues) or in
        the first ``n_basis_`` directions of the principal basis ``components``."""
        if components is None:
            d = active.size
            if max_rank <= 0 or d == 0:
                return self._set_metric(np.zeros(0), np.zeros((d, 0)), active, "none")
            cap = max_rank if self.n_components is None else min(self.n_components, max_rank)
            lam, V, solver = _scatter_eigenpairs(scatter, self.tol, data_scale, cap,
                                                 self._exact_inverse() and self.n_components is None)
            return self._set_metric(lam, V, active, solver)
        k = self.n_basis_
        check_no_overflow(scatter, _SCATTER)
        lam, W = _eigh_desc(scatter[:k, :k], self.tol, data_scale)
        return self._set_metric(lam, components[:, :k] @ W, active, "basis")

    def _set_metric(self, lam, V, active, solver):
        """The fitted metric from the eigenpairs (lam, V) of the scatter, or from (log|A|, L^-T)
        with the "cholesky" solver, over the ``active`` features."""
        self.factor_, self.active_features_, self.solver_ = V, active, solver
        if solver == "cholesky":
            # lam holds log|A|: M = |A|^(1/n) A^-1 (eq. 6) = s L^-T L^-1
            s = float(np.exp(lam / V.shape[1]))
            self.eigenvalues_, self.rank_ = None, V.shape[1]
            self.weights_, self.residual_weight_, self.scale_ = np.full(V.shape[1], s), 0.0, s
        else:
            self.eigenvalues_, self.rank_ = lam, int(lam.size)
            self.weights_, self.residual_weight_, self.scale_ = _metric_weights(
                lam, self.shrinkage_, self.complement_weight_, self.n_features_in_)
        return self

    def _check_params(self):
        """Validate the parameters; return the candidate lists of the three settings."""
        def grid(value, candidates, name, grid_name, check, what):
            if isinstance(value, str) and value == "auto":
                try:
                    vals = list(candidates) if not isinstance(candidates, (str, bytes)) else None
                except TypeError:   # a number or None: named below, not "'int' object is not iterable"
                    vals = None
                if not vals or not all(check(v) for v in vals):
                    raise ValueError(f"{grid_name} must be a non-empty list of {what}; got {candidates!r}")
                return sorted(set(vals), key=float)
            if not check(value):
                raise ValueError(f"{name} must be {what} or 'auto'; got {value!r}")
            return [value]

        is_real = lambda v: isinstance(v, numbers.Real) and not isinstance(v, bool) and np.isfinite(v)
        grids = {
            "shrinkage": grid(self.shrinkage, self.shrinkage_grid, "shrinkage", "shrinkage_grid",
                              lambda v: is_real(v) and 0.0 <= v <= 1.0, "a number in [0, 1]"),
            "complement_weight": grid(self.complement_weight, self.complement_grid, "complement_weight", "complement_grid",
                                      lambda v: is_real(v) and v >= 0.0, "a number >= 0"),
        }
        if self.n_basis is None:
            grids["n_basis"] = [None]
        else:
            grids["n_basis"] = grid(self.n_basis, self.basis_grid, "n_basis", "basis_grid",
                                    lambda v: isinstance(v, numbers.Integral) and not isinstance(v, bool) and v >= 1,
                                    "a positive integer")
        if any(len(g) > 1 for g in grids.values()):
            if not isinstance(self.cv, numbers.Integral) or self.cv < 2:
                raise ValueError(f"cv must be an integer >= 2; got {self.cv!r}")
            if self.selection_measure not in ("ap11", "r_precision", "ap"):
                raise ValueError("selection_measure must be 'ap11', 'r_precision' or 'ap'; "
                                 f"got {self.selection_measure!r}")
            if not isinstance(self.max_validation_items, numbers.Integral) or self.max_validation_items < 4:
                raise ValueError(f"max_validation_items must be an integer >= 4; got {self.max_validation_items!r}")
        if self.n_components is not None and (not isinstance(self.n_components, numbers.Integral)
                                              or self.n_components < 1):
            raise ValueError(f"n_components must be a positive integer or None; got {self.n_components!r}")
        check_holdout(self.baseline_holdout)
        if not isinstance(self.min_cluster_size, numbers.Integral) or self.min_cluster_size < 2:
            raise ValueError(f"min_cluster_size must be an integer >= 2; got {self.min_cluster_size!r}")
        if not (isinstance(self.tol, numbers.Real) and 0 <= self.tol < 1):
            raise ValueError(f"tol must be in [0, 1); got {self.tol!r}")
        return grids

    def _select(self, X, basis_of, labels, ids, cluster_weights, grids, rng):
        """Choose (n_basis, shrinkage, complement_weight) by leave-clusters-out retrieval: fit the
        scatter on some clusters, rank the items of the others. One eigenproblem per fold and
        basis size serves every shrinkage and complement weight.

        The basis sizes are tried in stages on the same folds, each with a basis of its largest
        rank: those up to ``_FIRST_STAGE_BASIS``, then the larger ones, only when the best so far
        is the largest size tried and, above ``_ALWAYS_SECOND_STAGE_ROWS`` rows, beats the size
        below it by more than the folds' noise (:func:`_still_rising`). At or below that many rows
        the first stage stops at ``_SMALL_FIRST_STAGE_BASIS`` and ``_FIRST_STAGE_BASIS`` is a stage
        of its own, scored with the first stage's basis (computed that wide, with fewer power
        iterations: ``_SMALL_FIRST_BASIS_ITERATIONS``), unless the first stage's largest size
        wins by ``_STEEP_T`` standard errors: then every larger size follows at once, with the
        widest basis. Each stage is scored by successive halving (:meth:`_score_stage`).
        """
        n_clusters = len(ids)
        if n_clusters < 4:
            warn_outside(f"only {n_clusters} cluster{'' if n_clusters == 1 else 's'}: too few to select settings on held-out clusters; "
                         f"using shrinkage={_FALLBACK['shrinkage']}, complement_weight="
                         f"{_FALLBACK['complement_weight']} and the largest basis", UserWarning, stacklevel=3)
            setting = {"n_basis": max(grids["n_basis"], key=lambda k: -1 if k is None else k)}
            if basis_of is not None:
                setting["n_basis"] = min(setting["n_basis"], basis_of(setting["n_basis"]).rank)
            for key in ("shrinkage", "complement_weight"):
                setting[key] = grids[key][0] if len(grids[key]) == 1 else _FALLBACK[key]
            return setting, None
        n_folds = min(self.cv, n_clusters // 2)
        folds = np.array_split(rng.permutation(n_clusters), n_folds)
        weight_of = dict(zip(ids.tolist(), cluster_weights))
        grid = grids["n_basis"]
        caps = [_FIRST_STAGE_BASIS] if X.shape[0] > _ALWAYS_SECOND_STAGE_ROWS else [_SMALL_FIRST_STAGE_BASIS,
                                                                                  _FIRST_STAGE_BASIS]
        stages = [[k for k in grid if k is None or k <= caps[0]] or grid[:1]]
        stages += [[k for k in grid if k is not None and lo < k <= hi] for lo, hi in zip(caps, caps[1:] + [np.inf])]
        designs = [self._fold_design(labels, ids, weight_of, fold, rng) for fold in folds]
        if sp.issparse(X):      # once, not per fold (a fifth of a small fold's first scoring); the
            sq = _row_sq_norms(X)   # same sums: a sparse row's in its stored order, sliced or not
            for d in designs:
                d["sq"] = sq[d["rows"]]
        fold_scores, totals, tried = [{} for _ in designs], {}, []
        small = X.shape[0] <= _ALWAYS_SECOND_STAGE_ROWS
        # small data: the first basis serves the middle stage too (_SMALL_FIRST_BASIS_ITERATIONS)
        wide_first = max(stages[1]) if small and stages[1] else None
        stages = list(filter(None, stages))
        while stages:
            stage = stages.pop(0)
            if tried and not (basis_of is not None and best[0] == tried[-1] == requested and (
                    small or _still_rising(fold_scores, totals, tried, _RISING_T))):
                break           # the last stage's largest basis lost, or stopped rising, or was X's rank
            if len(tried) > 1 and small and stages and _still_rising(fold_scores, totals, tried, _STEEP_T):
                stage, stages = stage + [k for s in stages for k in s], []     # steep: the widest basis now
            requested = max(stage)
            # every stage's basis with the process's threads: the refit reuses the last one (the
            # selection's small matrices are scored on one BLAS thread, below)
            if basis_of is None:
                basis = None
            elif not tried and wide_first:
                basis = basis_of(wide_first, _SMALL_FIRST_BASIS_ITERATIONS)
            else:
                basis = basis_of(requested)
            sizes = sorted(set(stage if basis is None else [min(k, basis.rank) for k in stage]) - set(tried))
            with _single_blas_thread():
                scores = self._score_stage(X, basis, designs, grids, sizes, rng)
            totals.update({key: sum(f[key] for f in scores) for key in scores[-1]})    # on every fold
            fold_scores = [{**f, **e} for f, e in zip(fold_scores, scores)]
            best, tried = self._best(totals, n_folds), sorted(tried + sizes)
        keys = list(dict.fromkeys(key for f in fold_scores for key in f))     # every setting scored
        counts = [sum(key in f for f in fold_scores) for key in keys]
        results = {"n_basis": [k[0] for k in keys], "shrinkage": [k[1] for k in keys],
                   "complement_weight": [k[2] for k in keys], "n_folds": counts,
                   "score": [sum(f.get(k, 0.0) for f in fold_scores) / c for k, c in zip(keys, counts)]}
        return dict(zip(("n_basis", "shrinkage", "complement_weight"), best)), results

    def _score_stage(self, X, basis, designs, grids, sizes, rng):
        """Each fold's scores ({setting: score}) of the candidates with a basis size in ``sizes``,
        by successive halving (Jamieson & Talwalkar 2016): every (size, shrinkage) group on the
        first fold, the best third and each size's best on the next, the best third of those and
        each size's best on the rest (:func:`_halving_survivors`). 15 groups in 3 sizes cost about
        30 group scorings instead of 60."""
        groups = [(k, alpha) for k in sizes for alpha in grids["shrinkage"]]
        prune_after = ({1, -(-len(designs) // 2)} - {len(designs)}) if len(groups) >= _HALVING_MIN_GROUPS else set()
        keep, fold_scores = None, []
        for i, d in enumerate(progress(designs, desc="mcd: selecting settings", enabled=self.verbose or None)):
            fold_scores.append(self._score_fold(X, basis, d, grids, sizes, rng, keep=keep))
            if i + 1 in prune_after:
                keep = _halving_survivors(fold_scores, groups if keep is None else sorted(keep))
        return fold_scores

    @staticmethod
    def _best(totals, n_folds):
        """The best setting: ties go to the simpler metric, closer to Euclid (larger alpha,
        gamma), then the smaller basis."""
        return max(totals, key=lambda kk: (round(totals[kk] / n_folds, 12), kk[1], kk[2], -(kk[0] or 0)))

    def _fold_design(self, labels, ids, weight_of, fold, rng):
        """What one fold holds out and how it is scored: whole clusters of at most
        _EXACT_SELECTION_ITEMS items, every held-out item ranking all the others; otherwise
        sampled queries and items (:func:`_sample_fold`), so that no n_held x n_held matrix is
        built or sorted."""
        fold_ids = ids[fold]
        pos = np.searchsorted(ids, labels)          # ids are sorted; rows labelled -1 are masked
        clustered = labels >= 0
        sizes = np.bincount(pos[clustered], minlength=len(ids))[fold]
        order = rng.permutation(len(fold_ids))
        take = order[np.cumsum(sizes[order]) <= max(self.max_validation_items, sizes.max())]
        take = take if take.size >= 2 else order[:2]
        exact = int(sizes[take].sum()) <= _EXACT_SELECTION_ITEMS
        # the sampled estimate draws on every held-out cluster of the fold: more clusters, less
        # variance, at the same cost (the sample size does not depend on the fold's size)
        held = fold_ids[take] if exact else fold_ids
        is_held = np.isin(labels, held)
        train_ids = ids[~np.isin(ids, held)]
        w = np.array([weight_of[c] for c in train_ids.tolist()])
        if exact:
            rows = np.flatnonzero(is_held)
            sample = _exact_fold(rows, labels[rows])
        else:
            sample = _sample_fold(labels, held, min(int(self.max_validation_items), _SELECTION_ITEMS),
                                  _SELECTION_QUERIES, rng)
        return {"train_labels": np.where(is_held, -1, labels), "train_ids": train_ids, "weights": w / w.sum(),
                "rows": sample.rows, "sample": sample}

    def _score_fold(self, X, basis, design, grids, sizes, rng, keep=None):
        """Fit the scatter without the clusters of ``design``'s fold; return the score on them of
        every candidate of ``grids`` with a basis size in ``sizes`` (only those whose
        (size, shrinkage) is in ``keep``, and Euclid, when it is given): {setting: score}."""
        kept = (lambda k, alpha: True) if keep is None else (lambda k, alpha: (k, alpha) in keep)
        scores, has_euclid = {}, 1.0 in grids["shrinkage"] and 1.0 in grids["complement_weight"]
        rows, sample = design["rows"], design["sample"]
        train_labels, train_ids = design["train_labels"], design["train_ids"]
        if "D_full" not in design:      # |q - v|^2, queries x items: once per fold, for every stage
            Xv = X[rows]
            sq_v = design["sq"] if "sq" in design else _row_sq_norms(Xv)
            every = np.array_equal(sample.queries, np.arange(rows.size))      # no copy where every item queries
            Xq = Xv if every else Xv[sample.queries]
            design["D_full"] = sq_v[sample.queries][:, None] + sq_v[None, :] - 2.0 * _dense_dot(Xq, Xv)
        D_full = design["D_full"]
        if basis is None:
            lam, V, act, _ = _scatter_eigen(X, train_labels, train_ids, design["weights"],
                                            self.n_components, self.tol, rng)
            spaces = [(None, lam, _project(X[rows], V, act))]
        else:
            if "membership" not in design:
                design["membership"] = _cluster_membership(train_labels, train_ids)
            # the fold's scatter and scale, once per basis (on small data two stages share one)
            if design.get("scatter", (None,))[0] is not basis:
                design["scatter"] = (basis, basis.scatter(train_labels, train_ids, design["weights"],
                                                          membership=design["membership"]), basis.scale(train_labels))
            _, C, scale = design["scatter"]
            spaces = []
            for k in sizes:
                lam, W = _eigh_desc(C[:k, :k], self.tol, scale)
                spaces.append((k, lam, basis.coords[rows, :k] @ W))
        # shrinkage 1 with complement weight 1 is Euclid (every weight 1) whatever the basis: one
        # score of the input distances for all sizes, so that they tie exactly and the smallest
        # basis wins (sums of basis and complement parts differ in the last bits from size to size,
        # and those ties were broken by rounding: 64 and a second stage chosen for nothing)
        if has_euclid and "euclid" not in design:
            design["euclid"] = float(sample.scores(D_full[None], self.selection_measure)[0])
        for k, lam, P in spaces:
            Pq = P[sample.queries]
            # Rankings ignore the |M| = 1 scale, so per candidate:
            # d^2 = sum_k (p_k . diff)^2 / mu_k + gamma * (|diff|^2 - sum_k (p_k . diff)^2)
            D_out = D_full - _cross_sq_dists(Pq, P)
            if has_euclid:
                scores[(k, 1.0, 1.0)] = design["euclid"]
            for alpha in (a for a in grids["shrinkage"] if kept(k, a)):
                if not lam.size:
                    D_in = 0.0
                else:
                    s = np.sqrt(_raw_weights(lam, alpha))
                    D_in = _cross_sq_dists(Pq * s, P * s)
                gammas = [g for g in grids["complement_weight"] if not (alpha == 1.0 and g == 1.0)]
                if gammas:
                    # the complement weights' rankings in one batch (one sort, few numpy calls)
                    stack = sample.work_array("stack", (len(gammas),) + D_out.shape, np.float64)
                    for layer, gamma in zip(stack, gammas):
                        np.add(D_in, np.multiply(D_out, gamma, out=layer), out=layer)
                    for gamma, value in zip(gammas, sample.scores(stack, self.selection_measure)):
                        scores[(k, alpha, gamma)] = float(value)
        # in the grid's order
        return {key: scores[key] for key in itertools.product(sizes, grids["shrinkage"], grids["complement_weight"])
                if key in scores}

    # ---------------------------------------------------------------- using it
    def _pairwise_sq_distances(self, A, B):
        PA = _project(A, self.factor_, self.active_features_)
        PB = _project(B, self.factor_, self.active_features_)
        # _dense_dot's block is this call's own: a work block (_bilinear_sq_dist)
        return _bilinear_sq_dist(_row_sq_norms(A), _row_sq_norms(B), _dense_dot(A, B), PA, PB,
                                 self.weights_, self.residual_weight_, overwrite_g=True)

    def _paired_sq_distances(self, A, B):
        diff = A - B
        P = _project(diff, self.factor_, self.active_features_)
        beta = self.residual_weight_
        return np.maximum(beta * _row_sq_norms(diff) + (P * P) @ (self.weights_ - beta), 0.0)

    @property
    def _n_features_out(self):
        # transform's width (r, or every feature when residual_weight_ > 0), read by
        # get_feature_names_out; an AttributeError before fit: not fitted
        return len(self.weights_) if self.residual_weight_ == 0.0 else self.n_features_in_

    def transform(self, X):
        """Map X to the space where the learned distance is Euclidean: x -> M^(1/2) x."""
        X = self._check_input(X)
        P = _project(X, self.factor_, self.active_features_)
        beta = self.residual_weight_
        if beta == 0.0:
            return P * np.sqrt(self.weights_)
        n, d = X.shape
        if n * d > _MAX_DENSE_ENTRIES:
            raise MemoryError(
                f"transform would build a dense {n} x {d} array (complement_weight > 0 keeps every "
                "feature); use pairwise_distances / learnsim.search on blocks, reduce the features "
                "(LSI), or use complement_weight=0")
        out = np.sqrt(beta) * (X.toarray() if sp.issparse(X) else np.array(X, dtype=float))
        out[:, self.active_features_] += P @ ((np.sqrt(self.weights_) - np.sqrt(beta))[:, None]
                                              * self.factor_.T)
        return out

    def get_mahalanobis_matrix(self):
        """The learned M (n_features x n_features). Built on request only; refused when huge."""
        check_is_fitted(self)
        d = self.n_features_in_
        if d * d > _MAX_DENSE_ENTRIES:
            raise MemoryError(f"M would be a dense {d} x {d} matrix; use the factored form "
                              "(factor_, weights_, residual_weight_) instead")
        M = np.eye(d) * self.residual_weight_
        V = self.factor_
        M[np.ix_(self.active_features_, self.active_features_)] += (V * (self.weights_ - self.residual_weight_)) @ V.T
        return M

    @property
    def components_(self):
        """L with M = L^T L (metric-learn's convention), shape (n_out, n_features)."""
        check_is_fitted(self)
        if self.residual_weight_ == 0.0:
            L = np.zeros((len(self.weights_), self.n_features_in_))
            L[:, self.active_features_] = np.sqrt(self.weights_)[:, None] * self.factor_.T
            return L
        return self.transform(np.eye(self.n_features_in_)).T

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.required = True
        return tags

    # ---------------------------------------------------------------- persistence
    _ARRAYS = ("factor", "active_features", "weights")
    # the selection's diagnostics: a fold without a score leaves NaN there
    _STATE_NONFINITE = ("cv_results",)

    def _get_state(self):
        check_is_fitted(self)
        params = self.get_params()
        for key in ("basis_grid", "shrinkage_grid", "complement_grid"):
            params[key] = list(params[key])
        if not isinstance(params["random_state"], (int, type(None))):
            params["random_state"] = None
        meta = {"params": params, "n_features_in": int(self.n_features_in_), "n_basis": self.n_basis_,
                "shrinkage": self.shrinkage_, "complement_weight": self.complement_weight_,
                "residual_weight": float(self.residual_weight_), "scale": float(self.scale_),
                "solver": self.solver_, "rank": int(self.rank_), "cv_results": self.cv_results_,
                "baseline_gain": None if self.baseline_gain_ is None else self.baseline_gain_.to_dict()}
        arrays = {key: getattr(self, key + "_") for key in self._ARRAYS}
        if self.eigenvalues_ is not None:
            arrays["eigenvalues"] = self.eigenvalues_
        return meta, arrays

    @classmethod
    def _from_state(cls, meta, arrays):
        """Rebuild a fitted metric from :meth:`_get_state` output, checked as ``fit`` leaves it."""
        name = cls.__name__
        params = dict(meta["params"])
        for key in ("basis_grid", "shrinkage_grid", "complement_grid"):
            params[key] = tuple(params[key])
        obj = cls(**params)
        obj._check_params()
        d = state_number(meta, "n_features_in", name, integer=True, low=1)
        act = state_array(arrays, "active_features", name, ndim=1, kind="iu", low=0, high=d - 1)
        if act.size > 1 and np.any(np.diff(act) <= 0):
            raise ValueError(f"{name} state: active_features must be distinct feature indices in ascending order")
        w = state_array(arrays, "weights", name, ndim=1, low=0.0)
        r = w.shape[0]
        V = state_array(arrays, "factor", name, shape=(act.shape[0], r))
        solver = meta["solver"]
        if solver not in _SOLVERS:
            raise ValueError(f"{name} state: solver must be one of {sorted(_SOLVERS)}; got {solver!r}")
        # the Cholesky route keeps no eigenvalues; every other route keeps the r non-zero ones
        ev = None if solver == "cholesky" else state_array(arrays, "eigenvalues", name, shape=(r,), low=0.0,
                                                            low_open=True)
        if state_number(meta, "rank", name, integer=True, low=0) != r:
            raise ValueError(f"{name} state: rank {meta['rank']} differs from the {r} saved weights")
        n_basis = state_number(meta, "n_basis", name, integer=True, low=1, allow_none=True)
        obj.n_features_in_ = d
        obj.eigenvalues_, obj.factor_, obj.weights_, obj.rank_ = ev, V, w, r
        obj.active_features_ = act.astype(np.int64)
        obj.n_basis_ = n_basis
        obj.shrinkage_ = state_number(meta, "shrinkage", name, low=0.0, high=1.0)
        obj.complement_weight_ = state_number(meta, "complement_weight", name, low=0.0)
        obj.residual_weight_ = state_number(meta, "residual_weight", name, low=0.0)
        obj.scale_ = state_number(meta, "scale", name, low=0.0)
        obj.solver_ = solver
        obj.cv_results_ = meta["cv_results"]
        gain = meta.get("baseline_gain")
        obj.baseline_gain_ = None if gain is None else BaselineGain.from_dict(gain, owner=name)
        if obj.baseline_gain_ is not None and obj.baseline_gain_.fell_back and not (
                obj.shrinkage_ == 1.0 and obj.complement_weight_ == 1.0):
            raise ValueError(f"{name} state: the model fell back to Euclid (baseline_gain) but its "
                             "shrinkage and complement weight are not 1")
        return obj


def _selection_sample(labels, ids, cluster_weights, rng):
    """(rows, cluster ids, their weights) of whole clusters drawn in a seeded random order up to
    ``_SELECTION_MAX_ROWS`` clustered rows (at least 4 clusters), or None when every clustered
    row fits (then nothing is drawn from ``rng``)."""
    clustered = labels >= 0
    if int(clustered.sum()) <= _SELECTION_MAX_ROWS:
        return None
    sizes = np.bincount(np.searchsorted(ids, labels[clustered]), minlength=ids.size)
    order = rng.permutation(ids.size)
    n_take = max(4, int(np.searchsorted(np.cumsum(sizes[order]), _SELECTION_MAX_ROWS, side="right")))
    take = np.sort(order[:n_take])
    rows = np.flatnonzero(np.isin(labels, ids[take]))
    return rows, ids[take], np.asarray(cluster_weights)[take]


def _metric_weights(eigenvalues, alpha, gamma, n_features):
    """Weights of M on the eigen-directions and on their complement, normalised so |M| = 1.

    mu_k = (1 - alpha) * lambda_k / mean(lambda) + alpha; the raw metric is 1/mu_k on the
    eigen-directions and gamma on the n_features - r others. s makes the geometric mean of the
    non-zero weights 1, i.e. |M|^(1/n) = 1 over the space where M is non-zero: for alpha = 0
    and gamma = 0 that is the paper's (prod sigma)^(1/R) A^+ (eq. 6, Appendix B).
    Returns (weights, residual_weight, s).
    """
    lam = np.asarray(eigenvalues, dtype=float)
    r = lam.size
    if r == 0:
        # no within-cluster scatter at all: nothing was learned, fall back to Euclid
        return np.zeros(0), 1.0, 1.0
    raw = _raw_weights(lam, alpha)
    n_rest = max(n_features - r, 0) if gamma > 0 else 0
    log_gm = (np.sum(np.log(raw)) + (n_rest * np.log(gamma) if n_rest else 0.0)) / (r + n_rest)
    s = float(np.exp(-log_gm))
    return s * raw, s * gamma, s


def _scatter_eigen(X, labels, cluster_ids, cluster_weights, n_components, tol, rng, exact_inverse=False):
    """Non-zero eigenpairs of the weighted within-cluster scatter A (eq. 7, sec. 4.3).

    Returns (eigenvalues desc, eigenvectors over active features, active feature indices, solver).
    Never forms a D x D matrix unless D is small. With ``exact_inverse`` (the paper's settings)
    and a well-conditioned full-rank A it returns (log|A|, L^-T, active, "cholesky") instead:
    eq. (6) needs only A^-1 and |A|, which a Cholesky factor gives several times faster than an
    eigendecomposition.
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

    active = _active_columns(Xc)
    Xa = Xc[:, active] if sp.issparse(Xc) else Xc
    d = Xa.shape[1]
    # E: item -> cluster indicator; centroids C = diag(1/size) E^T X (eq. 4's c_i)
    E = sp.csr_matrix((np.ones(n), (np.arange(n), pos)), shape=(n, k))
    Cent = np.asarray((sp.diags(1.0 / sizes) @ (E.T @ Xa)).todense()) if sp.issparse(Xa) \
        else (E.T @ Xa) / sizes[:, None]
    with np.errstate(over="ignore", invalid="ignore"):
        data_scale = float(_row_sq_norms(Xa).mean()) if n else 0.0
    max_rank = n - k
    if max_rank <= 0 or d == 0:
        return np.zeros(0), np.zeros((d, 0)), active, "none"
    cap = max_rank if n_components is None else min(n_components, max_rank)

    solver = scatter_solver(n, d)
    if solver == "covariance":
        Z = (Xa.toarray() if sp.issparse(Xa) else Xa) - Cent[pos]
        Z *= sqrt_w[:, None]
        # eq. (7), weighted as in sec. 4.3: A = Z^T Z. syrk computes one triangle (half the
        # flops of a product); Z.T is a free Fortran-ordered view. cholesky/eigh read only it.
        A = scipy.linalg.blas.dsyrk(1.0, np.asarray(Z.T, dtype=np.float64), lower=1)
        lam, V, solver = _scatter_eigenpairs(A, tol, data_scale, cap, exact_inverse and n_components is None)
        return lam, V, active, solver
    elif solver == "gram":
        # Z Z^T = W^1/2 (I - P) K (I - P) W^1/2, with P the within-cluster averaging operator
        avg = (E @ sp.diags(1.0 / sizes)) @ E.T      # P, block diagonal
        with np.errstate(over="ignore", invalid="ignore"):
            K = _dense_dot(Xa, Xa)
            PK = avg @ K
            G = K - PK - PK.T + avg @ PK.T
            G = (G + G.T) * 0.5
            G *= sqrt_w[:, None] * sqrt_w[None, :]
        check_no_overflow(G, _SCATTER + " (as the Gram matrix of the centred rows)")
        lam, U = scipy.linalg.eigh(G)
        lam, U = lam[::-1], U[:, ::-1]
        keep = lam > _zero_threshold(lam, tol, data_scale)
        keep[cap:] = False
        lam, U = lam[keep], U[:, keep]
        # V = Z^T U / sqrt(lam), with Z^T U = X^T (I - P) W^1/2 U
        WU = sqrt_w[:, None] * U
        R = WU - avg @ WU
        V = np.asarray(Xa.T @ R) / np.sqrt(lam)[None, :]
        return lam, V, active, solver
    else:
        if n_components is None:
            raise ValueError(f"{n} clustered items with {d} active features: too large for an exact "
                             "eigendecomposition; set n_components (e.g. 1000) to use a randomised SVD")
        with np.errstate(over="ignore", invalid="ignore"):
            lam, V = _randomized_scatter_eigen(Xa, Cent, pos, sqrt_w, cap, rng)
        check_no_overflow(lam, _SCATTER + " (its randomised eigenvalues)")
        return lam, V, active, solver


def scatter_solver(n_items, n_features):
    """How :class:`MinimumClusterDistortion` with ``n_basis=None`` finds the eigenpairs of the
    within-cluster scatter A (eq. 7) of ``n_items`` clustered rows over ``n_features`` active
    features: the cheapest exact route, or the randomised one where none is affordable.

    Parameters
    ----------
    n_items : int
        Clustered rows.
    n_features : int
        Active features (those with a non-zero entry in a clustered row).

    Returns
    -------
    str
        "covariance": A itself (n_features x n_features), when n_features <= 4,000 and
        n_features <= n_items (the fit may factor it by Cholesky instead: ``solver_`` is then
        "cholesky"); "gram": the n_items x n_items Gram matrix of the centred rows, up to 8,000
        items; else "randomized" (a randomised SVD, which needs ``n_components``).

    Examples
    --------
    >>> from learnsim.mcd import scatter_solver
    >>> scatter_solver(10_000, 300), scatter_solver(3_000, 20_000), scatter_solver(50_000, 20_000)
    ('covariance', 'gram', 'randomized')
    """
    if n_features <= _MAX_COVARIANCE_DIM and n_features <= n_items:
        return "covariance"
    return "gram" if n_items <= _MAX_GRAM_ITEMS else "randomized"


def _scatter_eigenpairs(A, tol, data_scale, cap, cholesky):
    """The non-zero eigenpairs of the scatter A (eq. 7) from its lower triangle (A is overwritten),
    descending, at most ``cap`` of them, with the solver's name "covariance"; or, with
    ``cholesky`` and a well-conditioned full-rank A, (log|A|, L^-T, "cholesky"): eq. (6) needs only
    A^-1 and |A|, which a Cholesky factor gives several times faster than an eigendecomposition."""
    # eigh and cholesky run with check_finite=False, so an overflow must be caught here
    check_no_overflow(np.tril(A), _SCATTER)
    if cholesky:
        factor = _cholesky_inverse_factor(A, tol)
        if factor is not None:
            return factor[0], factor[1], "cholesky"
    lam, V = _eigh_lower(A)
    lam, V = lam[::-1], V[:, ::-1]
    keep = lam > _zero_threshold(lam, tol, data_scale)
    keep[cap:] = False
    return lam[keep], np.ascontiguousarray(V[:, keep]), "covariance"
