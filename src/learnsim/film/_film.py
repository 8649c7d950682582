"""FILM: fast, interpretable, low-rank metric learning from triplets (Tang & Aw, paper 001).

Notation of the paper (sec. 3.1) and how it maps onto the (n_items, n_features) arrays used here:

* The paper's data matrix is feature-by-sample, X_paper = X^T (D x n). Its rank-r SVD
  X_paper = U Sigma V^T (step 1) is computed here as X = V Sigma U^T, so the paper's
  V (n x r) is our left factor and U^T (r x D) is our ``Vt``.
* Triplets (i, j, k) say "i is more similar to j than to k" under sim(y_i, y_j) = y_i^T y_j
  (eq. 1). T_i is the set of triplets with anchor i and T = diag(1 / (|T_i| + 1)).
* C (n x n, eq. 8-9) has, per triplet, +1 at (j, i) and -1 at (k, i). Only its columns at the
  anchors are non-zero, so FILM keeps just D_i = sum_{t in T_i} (V_j - V_k) = (V^T C)[:, i]
  (one row of r numbers per anchor): Algorithm 1's constant matrix V^T C T is D^T diag(t).
* Y = B V^T (step 3), B^T B = P S P^T with P in St(d, r) (eq. 12). The learned map is
  L = sqrt(S) P^T Sigma^-1 U^T (Algorithm 1, output), of shape d x D, and y_i = L x_i.
* Lambda = diag(lambda(z_i + m)) with z_i the i-th diagonal element of -Y^T Y C T (step 2):
  the anchors whose averaged hinge loss is active. K = -V^T C T Lambda V (r x r, step 4).
* f2(P) = -1/2 sum_l k_l mu(k_l) + m tr(Lambda), k_l = -p_l^T K p_l, mu = softplus (eq. 18-19);
  its gradient with Lambda fixed is -(K + K^T) P diag(q), q_l = -(mu(k_l) + k_l sigma(k_l)) / 2
  (eq. 28). It is minimised over St(d, r) by :func:`learnsim.stiefel.minimize_stiefel`
  (Cayley transform with Barzilai-Borwein steps and a non-monotone line search, sec. 3.2).

No n x n or D x D matrix is formed: the SVD factors are n x r and r x D, K is r x r and the
triplets enter through the n_anchors x r matrix D, computed from the sparse C block by block at
every refresh when it would be large (``learnsim._film_blocks``), so that V is the only n x r
array a fit holds.

Where this implementation decides what the paper leaves open (see the notes on paper 001):

* Lambda and K depend on P and are re-estimated at every iteration (Algorithm 1, line 6). That
  happens in the objective's ``refresh``, which tells the optimiser that the function changed,
  so that its non-monotone line search restarts its reference value instead of comparing values
  of different functions (the literal algorithm's step size collapses).
* S is set to softplus(k) - the smoothed eq. (15) that matches the surrogate of eq. (19) -
  instead of max(0, k): with max the active set can flip between iterations and leave S = 0.
* Initialisation: P is random on St(d, r) (Algorithm 1, line 4); instead of a random S, S starts
  at softplus(k) with every anchor active (Lambda = I), which fixes the scale the margin needs.
* ``margin="auto"`` is a multiple of the mean squared norm of the initial embedding,
  tr(S_0) / n (the margin of eq. 2 has no meaning without a scale).
* The active set: with the paper's step function lambda (``hinge_smoothing=0``) 20-40% of the
  anchors flip at every iteration on small problems; the hinge loss never settles and the result
  depends on rounding (a 1e-16 difference between the sparse and dense normalised input became
  0.7 in L after 200 iterations). The default
  smooths it as step 5 smooths max(0, .): Lambda_ii = sigma((z_i + m) / tau), the derivative
  of the softplus-smoothed hinge tau mu((z_i + m) / tau), with tau = ``hinge_smoothing`` times
  the same unit as the "auto" margin. The iteration then converges (measured) to the same
  held-out triplet accuracy or better.
* The per-anchor hinge uses z_i + m, as in the paper's matrix form (eq. 10); the unused anchors'
  constant m in tr(Lambda) is dropped, so the loss only counts anchors.
* M-FILM (sec. 3.3, step 3): ``batch_size`` triplets per iteration, drawn as whole anchors (all
  the triplets of randomly ordered anchors, a new order every epoch) so that each anchor's z_i,
  |T_i| and Lambda_ii are exact; K and tr(Lambda) are scaled by n_anchors / n_batch_anchors, an
  unbiased estimate of the full K. Memory per iteration: the batch's anchors x r.

References
----------
.. [1] X. Tang and A. Aw, "FILM: A Fast, Interpretable, and Low-rank Metric Learning Approach
   for Sentence Matching", arXiv preprint, 2020 (paper 001 in ../shared/papers).
"""
from __future__ import annotations

import numbers
import time
import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ._blocks import _AnchorBlock
from .._utils.linalg import small_blas, svd_is_exact, truncated_svd_with_u
from .._utils.params import Checked, Interval, Options, validate_params
from .._utils.validation import check_matrix, check_random_state, state_array, state_number
from .._utils.metric import MetricMixin
from ..baseline import DEFAULT_HOLDOUT, BaselineGain, check_holdout, choose, split_groups, unchecked
from .hybrid import DEFAULT_WEIGHT_GRID, check_input_weight, hybrid_rows
from ._search_weight import cluster_weight_scores, triplet_weight_scores
from .stiefel import minimize_stiefel
from ..supervision import Clusters, Pairs, Triplets, check_clusters, check_triplets, clusters_to_triplets

__all__ = ["FILM", "FilmObjective", "choose_svd_rank", "trim_svd"]

# margin="auto" = this multiple of the mean squared norm of the initial embedding (tr(S_0) / n).
# Measured: 0.1 lets every training anchor clear the margin within a few iterations, Lambda
# becomes 0 and so does K, leaving S = log(2) I and an untrained P (held-out triplet accuracy
# 0.75-0.90 on a synthetic tf.idf corpus against 0.92-0.97 with 1.0); from about 3 up every
# anchor stays active, the plain linear objective, which was no better than 1.0.
AUTO_MARGIN_SCALE = 1.0
# Singular values below this fraction of the largest are numerically zero: Sigma^-1 would
# amplify rounding noise, so those directions are dropped from the rank r. The noise floor is
# about 1e-7, not machine epsilon: the texts' vectors are float32, and the Gram route of the SVD
# (eigenvalues of X X^T) finds sigma only to sqrt(eps) of the largest. At 1e-10, a fit on 96
# support questions kept 22 such directions: L's columns reached norms of 1e8, so a word's
# share of the learned cosine was in the millions (cancelling to a score of 0.3), and a new text
# that broke a training co-occurrence landed on a noise direction.
_RANK_TOL = 1e-6
# svd_rank=None uses r = this many times n_components (capped by the shape of X). The paper
# takes the full rank; but Sigma^-1 gives every one of the r directions equal footing, so the
# small, noisy ones are amplified: on held-out triplets (synthetic clusters, tf.idf corpora)
# r = 5 d did as well as or better than 2 d, 10 d and the full rank, and it keeps K (r x r,
# n_anchors x r^2 to build per iteration) small.
DEFAULT_RANK_PER_COMPONENT = 5
# The largest dense matrix (entries) FILM builds: K (r x r) at fit, M (D x D) on request.
_MAX_DENSE_ENTRIES = 400_000_000
# The held-out check (fit's baseline_holdout): the input weights w tried, from 0 (FILM's cosine
# alone) to 1 (the input cosine, the baseline, last).
_WEIGHT_GRID = tuple(float(w) for w in DEFAULT_WEIGHT_GRID)
_BASELINE = "input cosine"


def _softplus(x):
    """mu(x) = -log(sigma(-x)) = log(1 + e^x), eq. (18), without overflow."""
    return np.logaddexp(0.0, x)


class FilmObjective:
    """f2(P) of eq. (19) for :func:`~learnsim.film.stiefel.minimize_stiefel`, with K and Lambda
    fixed between refreshes: the part of FILM's objective that does not depend on where the
    anchors' terms are held.

    A subclass holds the anchors (their D_i, V_i and t_i) and implements :meth:`refresh` and
    :meth:`hinge`; it calls :meth:`set_terms` with K and tr(Lambda) whenever Lambda changes. The
    single-process fit holds them in memory; :func:`learnsim.distributed.fit_film` sums them over
    the partitions of a Dask collection. :meth:`FILM.fit_objective` optimises either.

    Parameters
    ----------
    margin : float or None, default=None
        m of eq. (2). None: :meth:`FILM.fit_objective` sets it (``margin="auto"`` needs the
        initial S).
    temperature : float, default=0.0
        tau of Lambda_ii = sigma((z_i + m) / tau); 0 gives the paper's step lambda(z_i + m).

    Attributes
    ----------
    K, K_sym : ndarray (r, r)
        K = -V^T C T Lambda V (step 4) and K + K^T.
    n_active : float
        tr(Lambda), the anchors whose hinge is active.
    hinge_history : list of float
        The hinge loss of eq. (7) at every refresh.

    Examples
    --------
    K fixed (every anchor active for good): f2 and its gradient on St(d, r).

    >>> import numpy as np
    >>> from learnsim.film import FilmObjective
    >>> objective = FilmObjective(margin=1.0)
    >>> objective.set_terms(np.diag([-3.0, -2.0, -1.0]), n_active=4.0)
    >>> P = np.eye(3)[:, :2]
    >>> objective.scales(P).round(3)            # S = softplus(k), k_l = -p_l^T K p_l
    array([3.049, 2.127])
    >>> f, G = objective(P)
    >>> round(f, 3), G.shape
    (-2.7, (3, 2))
    """

    def __init__(self, margin=None, temperature=0.0):
        self.margin = margin
        self.temperature = temperature
        self.hinge_history = []

    def set_terms(self, K, n_active):
        """K (step 4) and tr(Lambda) at the current Lambda."""
        self.K = K
        self.K_sym = K + K.T
        self.n_active = n_active

    @staticmethod
    def active_set(z, margin, temperature):
        """Lambda_ii for the anchors' z_i (step 2): the step lambda(z_i + m), or its smoothing
        sigma((z_i + m) / tau) when ``temperature`` tau > 0 (see the module notes)."""
        if temperature > 0.0:          # smoothed active set (see the module notes)
            return expit((z + margin) / temperature)
        return (z + margin > 0.0).astype(np.float64)   # Lambda = diag(lambda(z_i + m)), step 2

    def refresh(self, P):
        """Re-estimate Lambda and K at P (Algorithm 1, line 6); True when f2 changed."""
        raise NotImplementedError

    def hinge(self, P, s):
        """The hinge loss of eq. (7) at P (scales s)."""
        raise NotImplementedError

    def k_values(self, P):
        """k_l = -p_l^T K p_l (step 5) for every column p_l of P, and (K + K^T) P."""
        r, d = np.shape(P)
        with small_blas(2 * r * r * d):     # r x r by r x d: one thread (stiefel.py says why)
            KsP = self.K_sym @ P
        # p^T K p = p^T (K + K^T) p / 2 for any square K
        return -0.5 * np.einsum("rl,rl->l", P, KsP), KsP

    def scales(self, P):
        """S = diag(softplus(k)): the smoothed s* of eq. (15) (Algorithm 1, line 9)."""
        k, _ = self.k_values(P)
        return _softplus(k)

    def __call__(self, P):
        """f2(P) (eq. 19) and its gradient (eq. 28) with Lambda and K fixed."""
        k, KsP = self.k_values(P)
        mu = _softplus(k)
        # eq. (19): f2(P) = -1/2 sum_l k_l mu(k_l) + m tr(Lambda)
        f = -0.5 * float(np.dot(k, mu)) + self.margin * self.n_active
        # eq. (28): grad f2 = -(K + K^T) P diag(q), q_l = -(mu(k_l) + k_l sigma(k_l)) / 2
        q = -0.5 * (mu + k * expit(k))
        G = -KsP * q[None, :]
        return f, G


class _FilmObjective(FilmObjective):
    """:class:`FilmObjective` with the anchors' terms in memory (block by block when large).

    Parameters
    ----------
    V : ndarray (n, r)
        The paper's right singular vectors of X_paper (left ones of our X).
    triplets : ndarray (m, 3)
    margin : float or None
        None: set it later (``margin="auto"`` needs the initial S).
    temperature : float
        tau of Lambda_ii = sigma((z_i + m) / tau); 0 gives the paper's step lambda(z_i + m).
    batch_size : int or None
        None: every triplet at every iteration (FILM); an int: M-FILM.
    rng : numpy Generator
        Draws the M-FILM batches.
    """

    def __init__(self, V, triplets, margin=None, temperature=0.0, batch_size=None, rng=None):
        super().__init__(margin, temperature)
        self.V = V
        anchors_all = triplets[:, 0]
        order = np.argsort(anchors_all, kind="stable")
        self._sorted = triplets[order]
        self.anchors, self._starts, self.counts = np.unique(self._sorted[:, 0], return_index=True,
                                                            return_counts=True)
        self.n_anchors = self.anchors.size
        self.batch_size = batch_size
        self.rng = rng
        self._perm = None
        self._pos = 0
        if batch_size is None:
            self.block = self._make_block(np.arange(self.n_anchors))
        else:
            self.block = self._next_block()
        # the first refresh trains on this block instead of drawing the next one
        self._block_unused = True
        # Before Lambda can be estimated S must exist, and S = softplus(k) needs K: start with
        # every anchor active (Lambda = I), i.e. the hinge of eq. (5) taken as linear.
        self.lam = np.ones(self.block.anchors.size)
        self._set_K()

    # ----------------------------------------------------------------- the triplet batches
    def _make_block(self, positions):
        starts, counts = self._starts[positions], self.counts[positions]
        # the rows of the sorted triplets of these anchors: start_a, start_a + 1, ..., per anchor
        within = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        rows = np.repeat(starts, counts) + within
        chosen = self._sorted[rows]
        scale = self.n_anchors / positions.size
        return _AnchorBlock(self.V, self.anchors[positions], counts, chosen[:, 1], chosen[:, 2], scale)

    def _next_block(self):
        """The next M-FILM batch: whole anchors, in a fresh random order every epoch, until their
        triplets reach ``batch_size`` (the last batch of an epoch may be smaller)."""
        if self._perm is None or self._pos >= self.n_anchors:
            self._perm = self.rng.permutation(self.n_anchors)
            self._pos = 0
        cum = np.cumsum(self.counts[self._perm[self._pos:]])
        take = max(1, int(np.searchsorted(cum, self.batch_size, side="left")) + 1)
        take = min(take, cum.size)
        positions = np.sort(self._perm[self._pos:self._pos + take])
        self._pos += take
        return self._make_block(positions)

    # ----------------------------------------------------------------- the pieces of f2
    def _set_K(self, K=None):
        b = self.block
        # K = -V^T C T Lambda V (step 4) = -sum_i D_i t_i lambda_i V_i^T over the anchors,
        # scaled by n_anchors / n_batch_anchors in M-FILM (K: already computed at this Lambda).
        # tr(Lambda), estimated in M-FILM
        self.set_terms(b.k_matrix(self.lam) if K is None else K, float(self.lam.sum()) * b.scale)

    def z_values(self, P, s):
        """z_i = i-th diagonal element of -Y^T Y C T (step 2) for the block's anchors.

        With Y^T = V P sqrt(S): z_i = -t_i sum_l s_l (V_i p_l)(D_i p_l).
        """
        return self.block.z_values(P, s)

    def refresh(self, P):
        """Re-estimate Lambda and K at P (Algorithm 1, line 6); True when f2 changed."""
        s = self.scales(P)                 # S from the last step (line 9), under the K it used
        if self.batch_size is not None and not self._block_unused:
            self.block = self._next_block()
        self._block_unused = False
        b = self.block
        # D stored: z, then K only if Lambda moved (as before). Otherwise D's rows are computed
        # block by block, once for z, Lambda and K together (K dropped if Lambda did not move).
        z, lam, K = (b.z_values(P, s), None, None) if b.stored else b.refresh_terms(P, s, self._lambda)
        self.hinge_history.append(b.scale * float(np.maximum(z + self.margin, 0.0).sum()))
        lam = self._lambda(z) if lam is None else lam
        if self.batch_size is None and np.array_equal(lam, self.lam):
            return False
        self.lam = lam
        self._set_K(K)
        return True

    def hinge(self, P, s):
        """The hinge loss of eq. (7) at P (scales s) over the current block of anchors."""
        return self.block.scale * float(np.maximum(self.z_values(P, s) + self.margin, 0.0).sum())

    def _lambda(self, z):
        return self.active_set(z, self.margin, self.temperature)


class _HingePlateau:
    """Stop FILM when the hinge loss of eq. (7) stops falling (``n_iter_no_change``)."""

    def __init__(self, history, patience, rel_tol):
        self.history = history
        self.patience = patience
        self.rel_tol = rel_tol
        self.best = np.inf
        self.stale = 0
        self.stopped = False

    def __call__(self, iteration, P, f):
        if not self.history:
            return False
        h = self.history[-1]
        if h < self.best * (1.0 - self.rel_tol):
            self.best, self.stale = h, 0
        else:
            self.stale += 1
        self.stopped = self.stale >= self.patience
        return self.stopped


def _preview(items, limit=5):
    shown = ", ".join(str(int(i)) for i in items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _random_stiefel(rng, r, d):
    """A random point of St(d, r): the sign-fixed Q factor of a Gaussian r x d matrix."""
    Q, R = np.linalg.qr(rng.standard_normal((r, d)))
    signs = np.sign(np.diag(R))
    signs[signs == 0] = 1.0
    return Q * signs


# get_feature_names_out names transform's columns "film0", "film1", ... (scikit-learn's rule for
# new features); set_output is not offered (auto_wrap_output_keys=None): similarity and the
# distances embed through transform and take arrays, which a pandas output would break
class FILM(ClassNamePrefixFeaturesOutMixin, MetricMixin, TransformerMixin, BaseEstimator,
           auto_wrap_output_keys=None):
    """Fast, Interpretable and Low-rank Metric learning from triplets (Tang & Aw, sec. 3).

    Learns a linear map ``L`` (n_components x n_features) such that, for the training triplets
    (i, j, k), the embeddings y = L x satisfy y_i^T y_j > y_i^T y_k + margin for as many anchors
    as possible (the averaged hinge loss of eq. 5). The problem is restricted to the top
    ``svd_rank`` singular directions of the L2-normalised data and solved on a Stiefel manifold.

    Parameters
    ----------
    n_components : int, default=100
        d, the dimension of the learned representation (the paper's d = 100). At most the SVD
        rank r. Directions that separate nothing (k ~ 0) keep the weight S = softplus(0) = log 2,
        so a d well above the number of discriminative directions adds noise: on 20 Newsgroups
        (6000 training documents, class triplets) held-out triplet accuracy was 0.79 with d = 20,
        0.73 with 50 and 0.68 with 100 (tf.idf cosine: 0.61).
    svd_rank : int or None, default=None
        r, the rank of the truncated (randomised where large) SVD of the normalised X. None:
        ``DEFAULT_RANK_PER_COMPONENT * n_components`` (5 d). Capped at ``min(n_items, n_features)``
        and at the numerical rank. The paper uses the full rank; a smaller r regularises (L can
        only use r directions, and Sigma^-1 amplifies the small ones).
    margin : float >= 0 or "auto", default="auto"
        m of eq. (2), in units of the inner products y_i^T y_j. "auto":
        ``AUTO_MARGIN_SCALE`` times the mean squared norm of the initial embedding.
    hinge_smoothing : float >= 0, default=1.0
        0: the paper's active set, Lambda_ii = 1 if z_i + m > 0 else 0 (step 2). > 0:
        Lambda_ii = sigma((z_i + m) / tau) with tau = hinge_smoothing times the mean squared
        norm of the initial embedding, which makes the iteration converge (module notes).
    batch_size : int or None, default=None
        None: every triplet at every iteration (FILM). An int: M-FILM - each iteration uses about
        ``batch_size`` triplets, drawn as all the triplets of randomly ordered anchors (a new
        order every epoch), with K and tr(Lambda) scaled to estimate the full-data ones.
    max_iter : int, default=200
        Iterations of the Stiefel optimiser (one Lambda/K re-estimation each).
    tol : float, default=1e-5
        Stop when the Riemannian gradient norm of f2 falls below this. Lambda and K are
        re-estimated at every step, so near the end the gradient creeps down while the hinge
        loss is flat to 1e-4, and the step at which it crosses 1e-5 is set by rounding: 1e-14
        relative changes of X moved it from 110 to 341 steps on a 300-item problem. The plateau
        rule (``n_iter_no_change``) is what stops a default fit.
    n_iter_no_change : int or None, default=10
        Also stop when the hinge loss of eq. (7) (``hinge_loss_curve_``) has not fallen below
        ``(1 - loss_tol)`` times its best value for this many iterations. f2 is re-estimated
        with Lambda and K at every iteration, so the optimiser's own change tests compare
        different functions and rarely fire; the hinge loss is the quantity FILM minimises.
        On the Quora sample this stops after 40 to 85 iterations where 200 ran before the rule,
        with the same test accuracy. None: run until ``tol`` or ``max_iter``.
    loss_tol : float, default=1e-4
        The relative decrease of the hinge loss that counts as progress.
    triplets_per_item : int, default=5
        Only when ``y`` holds class labels: ``triplets_per_item * n_items`` triplets are drawn by
        :func:`learnsim.supervision.clusters_to_triplets` (the "from clusters" adapter).
    baseline_holdout : float in (0, 1) or None, default=0.2
        The share of the supervision held out to check the learned similarity against its
        baseline, the input cosine (:mod:`learnsim.baseline`): whole clusters (class labels) or
        all the triplets of whole anchors (triplets). FILM is fitted on the rest, and on the
        held-out part each input weight w of 0, 0.05, ..., 1 of the mix
        ``w cos(x, x') + (1 - w) cos(Lx, Lx')`` is scored: per held-out query, the average
        precision of its cluster among the held-out rows (labels; at most 5,000 rows and 1,000
        queries, sampled), or per held-out triplet, its correctness (ties count 0.5). The best
        w becomes ``input_weight_``, the weight :meth:`similarity` uses; its gain over w = 1 is
        cross-fitted (each unit judged by the w chosen on the other half) and reported with a
        bootstrap interval in ``baseline_gain_``. When w = 1 wins (ties included) or the gain is
        not certain (its interval reaches 0: the rule of :mod:`learnsim.baseline`), the model's
        similarity is the input cosine (status "baseline", with a
        :class:`~learnsim.baseline.BaselineWarning`). Where one split holds out fewer than six
        clusters or anchors (``learnsim.baseline.MIN_HELD_GROUPS``), further disjoint runs of as
        many are held out, each from its own fit on the others, until six are scored (at most
        five fits), and w is chosen and judged on all of them: over two held-out clusters the
        interval was the range of their two gains. With too few clusters or anchors (fewer than
        four) nothing is held out and the status is "unchecked" (warning), with w = 0. None: no
        check, fit on everything, ``input_weight_ = 0`` (the paper's learned cosine) and
        ``baseline_gain_ = None``.

        *Refit.* After the check FILM is fitted again on all the supervision (the held-out
        clusters or anchors too), with the same random stream as ``baseline_holdout=None``, and
        the w chosen on the held-out part is used with that map. So ``transform`` (the map
        alone) is the same with or without the check, and the kept learned part uses every
        cluster or anchor; the check costs one more fit on 80 % of the supervision (one a fold,
        up to five, where a split holds out fewer than six clusters or anchors). Measured
        (``benchmarks/film_baseline.py --n-train 1500 --n-test 800 --supervision triplets``,
        20 Newsgroups, d = 20): the check kept the learned part (held-out triplet accuracy
        0.883 against 0.631, w = 0.45) and the checked fit took 2.4 times the plain one; on
        the test messages the refitted model reached MAP 0.460, the held-out fit with the same
        w 0.451, the input cosine 0.187.

        *What held-out clusters measure.* Whole held-out clusters ask whether the learned
        similarity helps on groups it has never seen. From labels on the same data (the command
        above with ``--supervision labels``) it did not (average precision 0.461 against 0.464
        on the held-out groups), so the model fell back to the input cosine, although on test
        messages *of the training groups* FILM alone reached MAP 0.461 against the cosine's
        0.187. When the documents to compare belong to the training groups, give triplets
        (held-out anchors), or ``baseline_holdout=None`` and a test of your own.
    random_state : None, int or numpy Generator
        Seeds the SVD, the start point P, the M-FILM batches and label-to-triplet sampling. The
        held-out check draws from its own stream derived from it, so that the final fit is the
        one ``baseline_holdout=None`` gives.
    verbose : bool, default=False
        Progress bar over the iterations.

    Attributes
    ----------
    n_features_in_ : int
    components_ : ndarray (n_components, n_features)
        L = sqrt(S) P^T Sigma^-1 U^T (Algorithm 1, output): ``transform(X) = X @ L.T``.
    scales_ : ndarray (n_components,)
        diag(S), the squared scale of each learned direction.
    singular_values_ : ndarray (svd_rank_,)
        Sigma, of the L2-normalised training X.
    svd_rank_ : int
        r, the rank used.
    margin_ : float
        The margin m used.
    temperature_ : float
        tau of the smoothed active set (0 with ``hinge_smoothing=0``).
    n_triplets_ : int
        Number of training triplets.
    loss_curve_ : ndarray (n_iter_ + 1,)
        f2 (eq. 19) at the start and after each step, each under the Lambda/K it was computed
        with (the paper's Figure 1 "training loss").
    hinge_loss_curve_ : ndarray (n_iter_ + 1,)
        sum_i max(0, z_i + m) over the anchors (the objective of eq. 7 in the paper's matrix
        form) at the start of each iteration and at the end; an estimate from the batch with
        ``batch_size``.
    n_iter_ : int
    timings_ : dict
        Wall-clock seconds of the fit's stages: ``"svd"`` (step 1), ``"optimise"`` (the Stiefel
        iterations) of the final fit, and ``"baseline_check"`` (the held-out fit and scoring).
        Not saved with the model (a loaded model has an empty dict).
    converged_ : bool
    input_weight_ : float
        w of the similarity ``w cos(x, x') + (1 - w) cos(Lx, Lx')`` that :meth:`similarity` and
        :meth:`pair_similarity` use: chosen on held-out supervision (``baseline_holdout``), 1
        when the model fell back to the input cosine, 0 without a check.
    baseline_gain_ : BaselineGain or None
        Learned (at ``input_weight_``) against the input cosine on the held-out supervision,
        with its paired bootstrap interval (``baseline_holdout``); None when not checked.

    Notes
    -----
    Rows of X are L2-normalised before the SVD (the paper's sim is the cosine for unit-norm
    inputs); ``transform`` is the learned linear map x -> L x alone (not the mix with the input
    cosine), so give it L2-normalised rows as well (e.g. ``TextVectorizer(norm="l2")``) for
    distances on the training scale; ``pairwise_distances`` and ``components_`` are those of L.
    :meth:`similarity` is the validated mix of the input cosine and the cosine in the learned
    space (the paper's kNN matching uses the latter, ``input_weight_ = 0``); it does not depend
    on the norm of the input rows.

    References
    ----------
    .. [1] X. Tang and A. Aw, "FILM: A Fast, Interpretable, and Low-rank Metric Learning
       Approach for Sentence Matching", arXiv preprint, 2020 (paper 001 in ../shared/papers),
       sec. 3.

    Examples
    --------
    Learn an 8-dimensional map from triplets drawn from the clusters of a small synthetic corpus
    (``baseline_holdout=None`` skips the held-out check against the input cosine):

    >>> import numpy as np
    >>> from learnsim.datasets import make_clustered_corpus
    >>> from learnsim.text import TextVectorizer
    >>> from learnsim.film import FILM
    >>> corpus = make_clustered_corpus(n_clusters=6, docs_per_cluster=10, vocab_size=500, random_state=0)
    >>> X = TextVectorizer(norm="l2").fit_transform(corpus.data)
    >>> film = FILM(n_components=8, max_iter=50, baseline_holdout=None, random_state=0)
    >>> film = film.fit(X, corpus.target)
    >>> film.components_.shape
    (8, 475)
    >>> film.transform(X).shape
    (60, 8)
    >>> film.similarity(X[:2], X[:3]).shape
    (2, 3)

    Items 0 and 1 share a cluster, items 0 and 20 do not:

    >>> s = film.pair_similarity(np.array([[0, 1], [0, 20]]), X)
    >>> bool(s[0] > s[1])
    True
    """

    _parameter_constraints = {
        "n_components": [Interval(Integral, 1, None)],
        "svd_rank": [Interval(Integral, 1, None), None],
        "margin": [Options({"auto"}), Interval(Real, 0, None)],
        "hinge_smoothing": [Interval(Real, 0, None)],
        "batch_size": [Interval(Integral, 1, None), None],
        "max_iter": [Interval(Integral, 0, None)],
        "tol": [Interval(Real, 0, None)],
        "n_iter_no_change": [Interval(Integral, 1, None), None],
        "loss_tol": [Interval(Real, 0, 1, closed="left")],
        "triplets_per_item": [Interval(Integral, 1, None)],
        "baseline_holdout": [Checked(check_holdout)],
        "random_state": ["no_validation"],     # checked by check_random_state in fit, as before
        "verbose": ["no_validation"],          # used for its truth value
    }

    def __init__(self, n_components=100, *, svd_rank=None, margin="auto", hinge_smoothing=1.0,
                 batch_size=None, max_iter=200, tol=1e-5, n_iter_no_change=10, loss_tol=1e-4,
                 triplets_per_item=5, baseline_holdout=DEFAULT_HOLDOUT, random_state=None, verbose=False):
        self.n_components = n_components
        self.svd_rank = svd_rank
        self.margin = margin
        self.hinge_smoothing = hinge_smoothing
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.loss_tol = loss_tol
        self.triplets_per_item = triplets_per_item
        self.baseline_holdout = baseline_holdout
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------------------ parameters and input
    def _check_params(self):
        validate_params(self)
        return (int(self.n_components), None if self.svd_rank is None else int(self.svd_rank),
                None if self.batch_size is None else int(self.batch_size), int(self.triplets_per_item))

    def _supervision(self, y, n_items, zero_rows):
        """("triplets", an (m, 3) int array) from a Triplets or an (m, 3) array, or
        ("clusters", Clusters) from class labels (the triplets are drawn from them later).

        Labelled rows in ``zero_rows`` (all-zero, so without a direction) are left out of the
        clusters, with a warning; given triplets that use them are an error (``fit``).
        """
        if isinstance(y, Pairs):
            raise TypeError("FILM learns from triplets; convert pairs first, e.g. with "
                            "learnsim.supervision.duplicate_pairs_to_triplets or graded_pairs_to_triplets")
        if isinstance(y, Triplets):
            return "triplets", check_triplets(y, n_items).indices
        if isinstance(y, Clusters):
            labels = y
        else:
            if sp.issparse(y):
                raise TypeError("y must be triplets (an (m, 3) int array or Triplets) or one class label "
                                "per row; got a sparse matrix")
            arr = np.asarray(y)
            if arr.ndim == 2:
                if arr.shape[1] != 3:
                    raise ValueError(f"y must be triplets of shape (n_triplets, 3) or one label per row; "
                                     f"got a 2-D array of shape {arr.shape}")
                if arr.shape[0] == 0:
                    raise ValueError("no triplets: y has shape (0, 3); FILM needs at least one triplet "
                                     "(i, j, k)")
                return "triplets", check_triplets(arr, n_items).indices
            if arr.ndim != 1:
                raise ValueError(f"y must be triplets (n_triplets, 3) or one class label per row; "
                                 f"got an array of shape {arr.shape}")
            if arr.size == 0:
                # [] reads as 1-D, but an empty y is no supervision of either kind
                raise ValueError("no triplets: y is empty; FILM needs at least one triplet (i, j, k) "
                                 "or one class label per row")
            labels = arr
        clusters = check_clusters(labels, n_items)
        if zero_rows.size:
            labelled = zero_rows[clusters.labels[zero_rows] != -1]
            if labelled.size:
                warnings.warn(f"{labelled.size} labelled row(s) of X are all zero ({_preview(labelled)}) and "
                              "cannot be L2-normalised; they are left out of the triplets drawn from the "
                              "labels", UserWarning, stacklevel=3)
                ids = np.array(clusters.labels, copy=True)
                ids[labelled] = -1
                clusters = Clusters(ids)
        return "clusters", clusters

    @staticmethod
    def _row_norms(X):
        """Euclidean norm of every row of X.

        Summed over the non-zero entries in column order for dense and sparse X alike, so that
        both give bit-identical normalised rows: the optimisation amplifies rounding differences
        before it converges.
        """
        nz = X if sp.issparse(X) else sp.csr_matrix(X)
        if not nz.has_sorted_indices:
            nz = nz.sorted_indices()
        rows = np.repeat(np.arange(nz.shape[0]), np.diff(nz.indptr))
        return np.sqrt(np.bincount(rows, weights=nz.data * nz.data, minlength=nz.shape[0]))

    @staticmethod
    def _normalize_rows(X, norms):
        """X with every non-zero row scaled to unit length (a copy)."""
        safe = np.where(norms > 0, norms, 1.0)
        if sp.issparse(X):
            out = sp.csr_matrix(X, copy=True)
            out.data /= np.repeat(safe, np.diff(out.indptr))
            return out
        return X / safe[:, None]

    # ------------------------------------------------------------------------------ fitting
    def fit(self, X, y=None, *, triplets=None):
        """Learn L from triplets over the rows of X, and the weight of the input cosine that
        :meth:`similarity` mixes in, checked against the input cosine on held-out supervision.

        Parameters
        ----------
        X : array-like or sparse matrix (n_items, n_features)
            Every row must have a non-zero entry (rows are L2-normalised).
        y : Triplets, int array (n_triplets, 3), or class labels (n_items,)
            Triplets (i, j, k) of row indices: i is more similar to j than to k. One class
            label per row (or a :class:`~learnsim.supervision.Clusters`) is turned into
            ``triplets_per_item * n_items`` triplets by ``clusters_to_triplets``.
        triplets : alias of ``y``, for readability.

        Returns
        -------
        self
        """
        return self._fit(X, y, triplets)

    def _fit_for_weight(self, X, y, svd=None):
        """:meth:`fit`, for a caller that uses the map only through the similarity at the input
        weight chosen (the search check's fits on its training clusters,
        :func:`learnsim.fitting.fit_film`): where the held-out check chose w = 1, the input cosine
        alone, the map has weight 0 in that similarity and is not learned (``_map_learned``
        False; a fresh FILM's ``components_`` stay unset). The check and ``input_weight_`` are those of :meth:`fit`
        (the check draws from its own stream, the final fit after it). In a fit that ended as the
        tf.idf cosine (``learnsim fit --method film`` on examples/tickets.jsonl) each of the 4
        search folds' fits chose w = 1 and learned a map that no score read: 4 of its 20
        optimisations.

        ``svd``: a dict the caller keeps across such fits of the same ``X`` (step 1's exact SVD
        of its unit rows, as one fit's folds share it): the search check's 4 fits on tickets.jsonl
        each computed it again."""
        return self._fit(X, y, None, map_if_used=True, svd=svd)

    def _fit(self, X, y, triplets, map_if_used=False, svd=None):
        if triplets is not None:
            if y is not None:
                raise ValueError("give the triplets once: as y or as triplets=, not both")
            y = triplets
        if y is None:
            raise ValueError("FILM requires y to be passed, but the target y is None: it needs triplets "
                             "(i, j, k) of row indices, fit(X, triplets), or one class label per row")
        X = check_matrix(X, name="X", min_samples=3, dtype=np.float64)
        d, r_param, batch, per_item = self._check_params()
        holdout = check_holdout(self.baseline_holdout)
        rng, check_rng = self.random_streams()
        n, n_features = X.shape
        norms = self._row_norms(X)
        zero_rows = np.flatnonzero(norms == 0)
        kind, sup = self._supervision(y, n, zero_rows)
        if kind == "triplets":
            self._check_zero_rows(sup, zero_rows)
        r = choose_svd_rank(d, r_param, n, n_features)
        # L2-normalised rows (sec. 3.1: sim is the cosine for unit-norm inputs). An all-zero row
        # that no triplet uses stays zero: it adds nothing to the SVD or to the loss.
        Xn = self._normalize_rows(X, norms)

        # always on all the supervision: transform (the map alone) does not depend on the check.
        # Sampled first (its own random stream), so that clusters no triplet can come from (one
        # cluster: no negative) are refused before the check warns about anything
        if kind != "triplets" and len(sup.cluster_ids) < 2:
            # (the sampler's own words name its option negatives='any', which no FILM caller has)
            # items in no cluster are no negatives: say how many, since learnsim.fit and `learnsim
            # fit` put a label of one text there (49 labels of which 48 single read as "got 1")
            outside = int(np.sum(np.asarray(sup.labels) < 0))
            raise ValueError(f"FILM learns from clusters by contrasting them, a triplet's negative taken from another "
                             f"cluster: it needs two clusters or more; got {len(sup.cluster_ids)}"
                             + (f" ({outside} item(s) in no cluster: label -1, or a label no other text has, which "
                                "learnsim.fit and 'learnsim fit' leave out of the clusters)" if outside else ""))
        T = sup if kind == "triplets" else clusters_to_triplets(sup, per_item * n, random_state=rng).indices
        start = time.perf_counter()
        report, weight = None, 0.0
        # step 1's SVD is of Xn whatever the triplets: the check's folds and the final fit take
        # the same one where it is exact (the seed they draw changes nothing then). Computed at
        # every fit, it was 39 % of learnsim.fit(1,000 texts in ten clusters, method="film"): 16
        # SVDs, 4 of FILM's fit (3 folds and the refit) and 4 for each of the search check's 3.
        svd = {} if svd is None else svd
        if holdout is not None:
            report, weight = self._baseline_check(Xn, kind, sup, holdout, d, r, batch, per_item, check_rng, svd)
        check_seconds = time.perf_counter() - start
        # (after the check, so that nothing it draws depends on whether the map is learned)
        self._map_learned = not (map_if_used and weight == 1.0)
        if self._map_learned:
            self._learn(Xn, T, d, r, batch, rng, svd)
        else:
            self.timings_ = {}
        self.input_weight_ = float(weight)
        self.baseline_gain_ = report
        self.n_features_in_ = n_features
        self.timings_["baseline_check"] = check_seconds
        return self

    @staticmethod
    def _check_zero_rows(T, zero_rows):
        if zero_rows.size:
            used = np.isin(T, zero_rows)
            if used.any():
                t = int(np.flatnonzero(used.any(axis=1))[0])
                bad = np.unique(T[used])
                raise ValueError(f"X row(s) {_preview(bad)} are all zero and cannot be L2-normalised (FILM "
                                 f"works on unit-length rows), but triplets use them (e.g. triplet {t}: "
                                 f"{tuple(int(v) for v in T[t])}); drop those triplets or give the rows a "
                                 "feature")

    def _baseline_check(self, Xn, kind, sup, holdout, d, r, batch, per_item, rng, svd=None):
        """Hold out whole clusters or anchors, fit on the rest, and choose the input weight w on
        the held-out part (``learnsim.baseline``). Returns (report, w).

        Where one split holds out fewer than :data:`learnsim.baseline.MIN_HELD_GROUPS` clusters
        or anchors, further disjoint runs of as many are held out, each from its own fit on the
        others, until that many are scored or no whole run is left (at most MAX_FOLDS fits), as
        mcd's check and the search check do: the interval resamples whole groups, and over two
        it was the range of their two gains, above zero for about one rule in five that gains
        nothing on new clusters. w is chosen, and its gain judged, over every fold's units."""
        from ..baseline import MAX_FOLDS, MIN_HELD_GROUPS

        if kind == "triplets":
            split = split_groups(sup[:, 0], holdout, random_state=rng)
            what = "anchors"
        else:
            labels = np.asarray(sup.labels)
            sizes = np.bincount(labels[labels >= 0])
            split = split_groups(np.flatnonzero(sizes >= 2), holdout, random_state=rng)
            what = "clusters of two or more items"
        if split is None:
            return unchecked(f"too few {what} to hold any out (needs at least 4)", baseline_name=_BASELINE,
                             owner="FILM", stacklevel=4), 0.0
        ids, held = split
        parts = [self._checked_fold(Xn, kind, sup, ids[held], d, r, batch, per_item, rng, svd)]
        n_held = int(held.sum())
        if n_held < MIN_HELD_GROUPS:
            # drawn after the first fold, whose fit is as before
            rest = ids[~held][rng.permutation(int((~held).sum()))]
            wanted = min(MAX_FOLDS, -(-MIN_HELD_GROUPS // n_held)) - 1
            for i in range(min(wanted, rest.size // n_held)):
                parts.append(self._checked_fold(Xn, kind, sup, rest[i * n_held:(i + 1) * n_held], d, r, batch,
                                                per_item, rng, svd))
        candidates = np.concatenate([c for c, _ in parts], axis=1)
        groups = np.concatenate([g for _, g in parts])
        n_groups = n_held * len(parts)
        if kind == "triplets":
            measure, unit = "triplet accuracy", "held-out triplets (whole anchors"
        else:
            measure, unit = "average precision", "held-out queries (whole clusters"
        if len(parts) > 1:
            unit += f"; {len(parts)} folds of {n_held}, each held out of its own fit, {n_groups} in all"
        unit += ")"
        base = len(_WEIGHT_GRID) - 1                                  # w = 1: the input cosine
        finite = np.isfinite(candidates).all(axis=0)
        alone = float(np.mean(candidates[0][finite])) if finite.any() else None
        # the interval resamples whole anchors or clusters: their units are not independent
        chosen, report = choose(candidates, base, measure=measure, unit=unit, baseline_name=_BASELINE, owner="FILM",
                                groups=groups, random_state=rng, stacklevel=4,
                                detail=lambda c: {"input_weight": float(_WEIGHT_GRID[c]), "held_out_fraction": holdout,
                                                  "learned_alone_score": alone, "held_out_groups": int(n_groups)})
        if report.status == "unchecked":
            return report, 0.0
        return report, float(_WEIGHT_GRID[chosen])

    def _checked_fold(self, Xn, kind, sup, held_ids, d, r, batch, per_item, rng, svd=None):
        """(candidates, groups): FILM fitted without the anchors or clusters ``held_ids``, and
        each input weight's score on each of their units, with the unit's anchor or cluster."""
        n = Xn.shape[0]
        if kind == "triplets":
            out = np.isin(sup[:, 0], held_ids)
            T_train, held_out = sup[~out], sup[out]
        else:
            labels = np.asarray(sup.labels)
            held_rows = np.isin(labels, held_ids)
            train_labels = np.where(held_rows, -1, labels)
            T_train = clusters_to_triplets(Clusters(train_labels), per_item * n, random_state=rng).indices
        self._learn(Xn, T_train, d, r, batch, rng, svd)
        E = _unit_rows(np.asarray(Xn @ self._components.T))
        if kind == "triplets":
            return triplet_weight_scores(Xn, E, held_out, _WEIGHT_GRID), held_out[:, 0]
        candidates, queries = cluster_weight_scores(Xn, E, labels, np.flatnonzero(held_rows), _WEIGHT_GRID,
                                                    rng, return_queries=True)
        return candidates, labels[queries]

    def _learn(self, Xn, T, d, r, batch, rng, svd=None):
        """FILM (Algorithm 1) on the unit rows ``Xn`` and the triplets ``T``; sets the fitted
        attributes of the map. ``svd``: a dict keeping step 1's exact SVD of this ``Xn`` for the
        next call (the fits of one :meth:`fit`); read-only, as the map keeps its arrays."""
        n = Xn.shape[0]
        # Step 1 / Algorithm 1, line 2: X_paper = U Sigma V^T, computed as Xn = V Sigma U^T.
        svd_start = time.perf_counter()
        seed = int(rng.integers(2**31 - 1))     # drawn either way: the random stream stays as it was
        if svd is not None and r in svd:
            V, sigma, Ut = svd[r]
        else:
            V, sigma, Ut = truncated_svd_with_u(Xn, r, seed)
            if svd is not None and svd_is_exact(Xn, r):
                svd[r] = V, sigma, Ut
        svd_seconds = time.perf_counter() - svd_start
        V, sigma, Ut = trim_svd(V, sigma, Ut, d)
        V = np.ascontiguousarray(V)

        objective = _FilmObjective(V, T, batch_size=batch, rng=rng)
        self.fit_objective(objective, sigma, Ut, n_triplets=int(T.shape[0]), n_items=n, rng=rng,
                           svd_seconds=svd_seconds)

    def random_streams(self):
        """The fit's random stream and the held-out check's own, both from ``random_state``.

        The check (``baseline_holdout``) draws from the second, so that the final fit on all
        the supervision is the fit that ``baseline_holdout=None`` gives; a fit that runs no check
        (:func:`learnsim.distributed.fit_film`) takes both and uses the first, as :meth:`fit`.

        Returns
        -------
        rng, check_rng : numpy.random.Generator

        Examples
        --------
        >>> from learnsim.film import FILM
        >>> rng, check_rng = FILM(random_state=0).random_streams()
        >>> int(rng.integers(100)) == int(FILM(random_state=0).random_streams()[0].integers(100))
        True
        """
        rng = check_random_state(self.random_state)
        return rng, _child_rng(self.random_state, rng)

    def fit_objective(self, objective, singular_values, Ut, *, n_triplets, n_items, rng, svd_seconds=0.0):
        """Algorithm 1, lines 4-11: minimise f2 (eq. 19) over St(d, r) from a random start and set
        the learned map L = sqrt(S) P^T Sigma^-1 U^T; the step of :meth:`fit` after the SVD.

        :meth:`fit` calls it with its in-memory objective, :func:`learnsim.distributed.fit_film`
        with the anchors' terms summed over the partitions of a Dask collection. It sets the
        attributes of the map (``components_``, ``scales_``, ``singular_values_``, ``svd_rank_``,
        ``margin_``, ``temperature_``, ``n_triplets_``, the loss curves, ``n_iter_``,
        ``converged_``, ``timings_``); the caller sets ``n_features_in_``, ``input_weight_`` and
        ``baseline_gain_``.

        Parameters
        ----------
        objective : FilmObjective
            Its anchors' terms ready (K at Lambda = I, every anchor active); its margin and
            temperature are set here from the parameters.
        singular_values : ndarray (r,)
            Sigma of step 1 (the SVD of the L2-normalised rows), without zero values
            (:func:`trim_svd`).
        Ut : ndarray (r, n_features)
            The paper's U^T: the right singular vectors of the rows.
        n_triplets, n_items : int
            The training triplets and rows (the unit of the margin is per row).
        rng : numpy.random.Generator
            Draws the start point P (Algorithm 1, line 4).
        svd_seconds : float, default=0.0
            The SVD's wall-clock seconds, for ``timings_``.

        Returns
        -------
        self

        Examples
        --------
        >>> import numpy as np
        >>> from learnsim.film import FILM, FilmObjective
        >>> class Fixed(FilmObjective):         # every anchor active for good: K does not move
        ...     def refresh(self, P):
        ...         self.hinge_history.append(0.0)
        ...         return False
        ...     def hinge(self, P, s):
        ...         return 0.0
        >>> objective = Fixed()
        >>> objective.set_terms(np.diag([-3.0, -2.0, -1.0]), n_active=4.0)
        >>> film = FILM(n_components=2, max_iter=50).fit_objective(
        ...     objective, np.array([2.0, 1.0, 0.5]), np.eye(3, 5), n_triplets=4, n_items=6,
        ...     rng=np.random.default_rng(0))
        >>> film.components_.shape, film.svd_rank_
        ((2, 5), 3)
        """
        sigma, r = singular_values, int(np.shape(singular_values)[0])
        d = self._check_params()[0]
        P0 = _random_stiefel(rng, r, d)                  # Algorithm 1, line 4
        # mean_i |y_i|^2 = tr(V P S P^T V^T) / n = tr(S) / n, since V and P are orthonormal:
        # the unit of the margin and of the hinge smoothing
        unit = float(objective.scales(P0).sum()) / n_items
        margin = AUTO_MARGIN_SCALE * unit if isinstance(self.margin, str) else float(self.margin)
        objective.margin = margin
        objective.temperature = float(self.hinge_smoothing) * unit

        # Algorithm 1, lines 5-10: refresh() re-estimates Lambda and K (line 6), the optimiser
        # takes the gradient of eq. (28) (line 7) and a Cayley step, eq. (25) (line 8).
        optimise_start = time.perf_counter()
        plateau = _HingePlateau(objective.hinge_history, self.n_iter_no_change, float(self.loss_tol))
        result = minimize_stiefel(objective, P0, max_iter=self.max_iter, gtol=float(self.tol),
                                  callback=plateau if self.n_iter_no_change is not None else None,
                                  verbose=self.verbose)
        P = result.x
        s = objective.scales(P)                          # line 9: S = diag(s*) at the final P
        # one entry per iterate: a run that stops on tol has also refreshed at its last point
        hinge = objective.hinge_history[:result.n_iter]
        hinge.append(objective.hinge(P, s))

        # Algorithm 1, line 11: L = sqrt(S) P^T Sigma^-1 U^T   (d x r)(r x r)(r x D) = d x D
        # kept column-major: scipy's sparse @ dense product needs L.T C-contiguous and copies
        # it whole otherwise, on every transform (10 ms per 10 documents at 35k features)
        self._components = np.asfortranarray((np.sqrt(s)[:, None] * (P.T / sigma[None, :])) @ Ut)
        self.scales_ = s
        self.singular_values_ = sigma
        self.svd_rank_ = r
        self.margin_ = margin
        self.temperature_ = objective.temperature
        self.n_triplets_ = int(n_triplets)
        self.loss_curve_ = np.asarray(result.history["fun"], dtype=np.float64)
        self.hinge_loss_curve_ = np.asarray(hinge, dtype=np.float64)
        self.n_iter_ = int(result.n_iter)
        self.converged_ = bool(result.converged or plateau.stopped)
        # wall-clock seconds of this fit's two stages (not saved with the model)
        self.timings_ = {"svd": svd_seconds, "optimise": time.perf_counter() - optimise_start}
        return self

    # ---------------------------------------------------------------------------- using it
    @property
    def components_(self):
        """L (n_components x n_features): ``transform(X) = X @ L.T`` and M = L^T L."""
        check_is_fitted(self)
        return self._components

    @property
    def _n_features_out(self):
        # transform's width, read by get_feature_names_out (an AttributeError before fit: not fitted)
        return self._components.shape[0]

    def transform(self, X):
        """Embed X: x -> L x (dense, n_samples x n_components)."""
        X = self._check_input(X)
        return np.asarray(X @ self._components.T)

    def get_mahalanobis_matrix(self):
        """M = L^T L (n_features x n_features). Built on request only; refused when huge."""
        check_is_fitted(self)
        D = self.n_features_in_
        if D * D > _MAX_DENSE_ENTRIES:
            raise MemoryError(f"M would be a dense {D} x {D} matrix; use components_ (L, with M = L^T L)")
        return self._components.T @ self._components

    def _similarity_rows(self, X):
        """Rows whose inner products are the model's similarity: [sqrt(w) x/|x|, sqrt(1 - w)
        Lx/|Lx|] (:func:`learnsim.hybrid.hybrid_rows`); the unit rows of Lx when w = 0."""
        E = self.transform(X)
        w = self.input_weight_
        return _unit_rows(E) if w == 0.0 else hybrid_rows(X, E, w)

    def similarity(self, A, B=None):
        """The model's similarity between the rows of A and B (B defaults to A):
        ``w cos(a, b) + (1 - w) cos(La, Lb)`` with w = ``input_weight_``, chosen on held-out
        supervision (``baseline_holdout``); the cosine in the learned space alone (the paper's
        matching rule, sec. 3.3) when w = 0, the input cosine when the model fell back (w = 1).
        An all-zero row (or half of it) contributes 0.
        """
        HA = self._similarity_rows(self._check_input(A, "A"))
        HB = HA if B is None else self._similarity_rows(self._check_input(B, "B"))
        S = HA @ HB.T
        return S.toarray() if sp.issparse(S) else np.asarray(S)

    def learned_similarity(self, A, B=None):
        """The cosine in the learned space alone, cos(La, Lb), whatever ``input_weight_`` is (the
        paper's matching similarity, sec. 3.3; what ``learnsim explain`` decomposes)."""
        EA = _unit_rows(self.transform(self._check_input(A, "A")))
        EB = EA if B is None else _unit_rows(self.transform(self._check_input(B, "B")))
        return EA @ EB.T

    def pair_similarity(self, pairs, X=None):
        """The model's similarity (:meth:`similarity`) of each pair (same input forms as
        :meth:`pair_distance`: index pairs with ``X``, or an (n_pairs, 2, n_features) array)."""
        A, B = self._pair_rows(pairs, X)
        HA, HB = self._similarity_rows(A), self._similarity_rows(B)
        P = HA.multiply(HB) if sp.issparse(HA) else HA * HB
        return np.asarray(P.sum(axis=1), dtype=np.float64).ravel()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.required = True
        return tags

    # ---------------------------------------------------------------------------- persistence
    _ARRAYS = ("components", "scales", "singular_values", "loss_curve", "hinge_loss_curve")

    def _get_state(self):
        check_is_fitted(self)
        params = self.get_params()
        if not isinstance(params["random_state"], (numbers.Integral, type(None))):
            params["random_state"] = None
        elif params["random_state"] is not None:
            params["random_state"] = int(params["random_state"])
        meta = {"params": params, "n_features_in": int(self.n_features_in_), "svd_rank": int(self.svd_rank_),
                "margin": float(self.margin_), "temperature": float(self.temperature_),
                "n_triplets": int(self.n_triplets_),
                "n_iter": int(self.n_iter_), "converged": bool(self.converged_),
                "input_weight": float(self.input_weight_),
                "baseline_gain": None if self.baseline_gain_ is None else self.baseline_gain_.to_dict()}
        arrays = {"components": np.ascontiguousarray(self._components), "scales": self.scales_,
                  "singular_values": self.singular_values_, "loss_curve": self.loss_curve_,
                  "hinge_loss_curve": self.hinge_loss_curve_}
        return meta, arrays

    @classmethod
    def _from_state(cls, meta, arrays):
        missing = [k for k in cls._ARRAYS if k not in arrays]
        if missing:
            raise ValueError(f"saved FILM model lacks the arrays {missing}")
        for key in ("params", "n_features_in", "svd_rank", "margin", "temperature", "n_triplets", "n_iter",
                    "converged"):
            if key not in meta:
                raise ValueError(f"saved FILM model lacks the metadata entry {key!r}")
        name = "FILM"
        obj = cls(**meta["params"])
        obj._check_params()
        D = state_number(meta, "n_features_in", name, integer=True, low=1)
        r = state_number(meta, "svd_rank", name, integer=True, low=1)
        s = state_array(arrays, "scales", name, ndim=1, low=0.0).astype(np.float64)
        L = state_array(arrays, "components", name, shape=(s.shape[0], D)).astype(np.float64)
        sigma = state_array(arrays, "singular_values", name, shape=(r,), low=0.0).astype(np.float64)
        loss, hinge = (state_array(arrays, key, name, ndim=1).astype(np.float64)
                       for key in ("loss_curve", "hinge_loss_curve"))
        obj._components = np.asfortranarray(L)   # column-major, as fit leaves it (see fit)
        obj.n_features_in_ = D
        obj.scales_, obj.singular_values_ = s, sigma
        obj.svd_rank_ = r
        obj.margin_ = state_number(meta, "margin", name, low=0.0)
        obj.temperature_ = state_number(meta, "temperature", name, low=0.0)
        obj.n_triplets_ = state_number(meta, "n_triplets", name, integer=True, low=1)
        obj.n_iter_ = state_number(meta, "n_iter", name, integer=True, low=0)
        obj.converged_ = bool(meta["converged"])
        obj.loss_curve_, obj.hinge_loss_curve_ = loss, hinge
        # files written before the held-out check have neither: the paper's learned cosine
        obj.input_weight_ = check_input_weight(meta.get("input_weight", 0.0), "FILM state: input_weight")
        gain = meta.get("baseline_gain")
        obj.baseline_gain_ = None if gain is None else BaselineGain.from_dict(gain, owner="FILM")
        if obj.baseline_gain_ is not None and obj.baseline_gain_.status == "baseline" and obj.input_weight_ != 1.0:
            raise ValueError("FILM state: the model fell back to the input cosine (baseline_gain status "
                             f"'baseline') but its input_weight is {obj.input_weight_}, not 1")
        obj.timings_ = {}
        return obj


def choose_svd_rank(n_components, svd_rank, n_items, n_features):
    """r, the rank of FILM's truncated SVD (step 1), for its parameters and the shape of X.

    Parameters
    ----------
    n_components : int
        d.
    svd_rank : int or None
        The parameter: None takes ``DEFAULT_RANK_PER_COMPONENT * d`` (5 d).
    n_items, n_features : int
        The shape of X.

    Returns
    -------
    int
        r, capped at min(n_items, n_features). A ValueError when d exceeds it or the shape's
        largest rank, a MemoryError when the r x r matrix K would be too large.

    Examples
    --------
    >>> from learnsim.film import choose_svd_rank
    >>> choose_svd_rank(10, None, 1000, 5000), choose_svd_rank(10, None, 30, 5000), choose_svd_rank(3, 8, 30, 50)
    (50, 30, 8)
    """
    d, n, max_rank = n_components, n_items, min(n_items, n_features)
    if d > max_rank:
        raise ValueError(f"n_components={d} is larger than the largest possible rank of X, "
                         f"min(n_items, n_features) = min({n}, {n_features}) = {max_rank}: X has "
                         f"{n} sample(s) and {n_features} feature(s)")
    r = min(max_rank, DEFAULT_RANK_PER_COMPONENT * d if svd_rank is None else svd_rank)
    if d > r:
        raise ValueError(f"n_components={d} is larger than svd_rank={r}: the learned representation "
                         "lives in the span of the top svd_rank singular directions")
    if r * r > _MAX_DENSE_ENTRIES:
        raise MemoryError(f"svd_rank={r} needs an r x r matrix K of {r * r} entries; use a smaller "
                          "svd_rank")
    return r


def trim_svd(V, singular_values, Ut, n_components):
    """Step 1's rank-r SVD without its numerically zero singular values (below 1e-6 of the
    largest): Sigma^-1 in L = sqrt(S) P^T Sigma^-1 U^T would amplify their rounding noise.

    Parameters
    ----------
    V : array (n_items, r)
        The paper's V: the left singular vectors of the rows (a numpy or Dask array).
    singular_values : ndarray (r,)
        Sigma, descending.
    Ut : ndarray (r, n_features)
        The paper's U^T.
    n_components : int
        d: a ValueError when fewer singular values remain.

    Returns
    -------
    V, singular_values, Ut
        The same factors, or their leading columns (rows of ``Ut``) that are not zero.

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.film import trim_svd
    >>> X = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0]])
    >>> V, s, Ut = np.linalg.svd(X)
    >>> [a.shape for a in trim_svd(V, s, Ut, n_components=2)]
    [(3, 2), (2,), (2, 3)]
    """
    sigma = singular_values
    keep = sigma > _RANK_TOL * max(float(sigma[0]), np.finfo(float).tiny)
    if keep.all():
        return V, sigma, Ut
    V, sigma, Ut = V[:, keep], sigma[keep], Ut[keep]
    r = int(keep.sum())
    if n_components > r:
        raise ValueError(f"n_components={n_components} is larger than the numerical rank of X ({r} singular "
                         "values above 1e-6 of the largest): reduce n_components")
    return V, sigma, Ut


def _unit_rows(E):
    norms = np.sqrt(np.einsum("ij,ij->i", E, E))
    return E / np.where(norms > 0, norms, 1.0)[:, None]


def _child_rng(random_state, rng):
    """A generator for the held-out check that leaves ``rng`` (the final fit's) untouched when
    the seed is an int or None."""
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, numbers.Integral):
        return np.random.default_rng([int(random_state), 1])
    return np.random.default_rng(rng.integers(2**63 - 1))

