"""A weighted distance learned from relative comparisons (Schultz & Joachims, paper 004).

d_{A,W}(x, y) = sqrt((x - y)^T A W A^T (x - y)) with W diagonal and non-negative (eq. 1-2),
learned from triplets (i, j, k), "x_i is closer to x_j than to x_k", by the soft-margin quadratic
program (8)::

    min_w  1/2 w^T L w + C sum_t xi_t   s.t.  w^T Delta_t >= 1 - xi_t,  xi_t >= 0,  w >= 0,
    Delta_t = (A^T x_i - A^T x_k)^2 - (A^T x_i - A^T x_j)^2      (element-wise, eq. 6-7)

with L = I for A = I (a weighted Euclidean distance) and L = (A^T A) * (A^T A) for A = Phi, the
kernel map over basis points, eq. (3)-(4): the features of x become K(x, b_1), ..., K(x, b_n).

The solver (A = I)
------------------
Eliminating the multipliers of w >= 0 in closed form leaves the dual

    max_{0 <= alpha <= C}  D(alpha) = sum_t alpha_t - 1/2 ||max(0, v)||^2,   v = sum_t alpha_t Delta_t,

with w = max(0, v). It is solved by dual coordinate ascent (Hsieh et al. 2008) with shrinking:
each step maximises D exactly along one alpha_t. Because of max(0, .), that 1-D problem is
concave and piecewise quadratic; a safeguarded Newton search on its monotone piecewise-linear
derivative finds the exact maximiser. Delta_t is never stored for all triplets: one step builds
it from the CSR rows of x_i, x_j, x_k, using Delta = (x_k - x_j) * (x_k + x_j - 2 x_i), whose
support lies in supp(x_j) U supp(x_k), in O(nnz_i + nnz_j + nnz_k). Every time the shrunken
passes have converged, a full pass recomputes v from scratch and the primal and dual values:
optimality is certified by the relative duality gap (P(w) - D(alpha)) / P(w) <= ``tol``.
Coordinate ascent converges linearly, at a rate set by C: on WebKB (150,000 triplets, 48,000
binary features) C = 1e-3, the value validation picks there, reaches a gap of 1e-6 in about ten
seconds, while the paper's C = 1 takes minutes to 2e-4 (see benchmarks/README.md).

The kernels are compiled with numba when it is installed (``pip install learnsim[fast]``);
without it the same code runs as plain python: correct, but some hundred times slower.

The solver (general L, kernel variant)
--------------------------------------
A kernel matrix is badly conditioned, which makes coordinate ascent crawl, so (8) with a
general L is solved by a primal-dual interior-point method: each step solves one n_basis x
n_basis positive definite system, and a few dozen steps reach the relative gap ``tol``,
certified against the Lagrangian dual sum alpha - 1/2 (D^T alpha + mu)^T L^{-1} (D^T alpha + mu).
A singular L gets the smallest ridge (from 1e-12 of its mean diagonal up) that makes it
factorable, reported as ``ridge_``. A step costs O(n_triplets n_basis^2), so the kernel
variant is meant for a basis of a few hundred to a few thousand points.

References
----------
.. [1] M. Schultz and T. Joachims, "Learning a Distance Metric from Relative Comparisons",
   Advances in Neural Information Processing Systems 16 (NIPS 2003), MIT Press, 2004 (paper
   004 in ../shared/papers).
"""
from __future__ import annotations

import dataclasses
import time
import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from .._utils.params import Checked, Interval, Options, validate_params
from .._utils.validation import check_matrix, check_random_state, state_array, state_number
from .._utils.metric import MetricMixin
from ..baseline import DEFAULT_HOLDOUT, BaselineGain, check_holdout, BaselineWarning, compare, split_groups, unchecked
from ..supervision import check_triplets

try:
    import numba as _numba

    _njit = _numba.njit(cache=True, nogil=True)
    HAVE_NUMBA = True
except ImportError:             # the same code as plain python
    HAVE_NUMBA = False

    def _njit(func):
        func.py_func = func
        return func

__all__ = ["RelativeComparisonMetric", "select_C", "triplet_outcomes", "anchor_means", "HAVE_NUMBA"]

_KERNELS = ("rbf", "linear")
#: The baseline in words (W = 1 in eq. 2: the unweighted distance the family contains).
BASELINE_NAME = "W = 1, the unweighted Euclidean distance on the features"
#: The baseline of a ``normalize=True`` metric (W = 1 on unit rows: the features' plain cosine).
BASELINE_NAME_NORMALIZED = "W = 1 on unit rows, the unweighted cosine of the features"
#: The per-unit measure of the held-out check: a held-out anchor's share of its triplets right.
BASELINE_MEASURE = "triplet accuracy (mean per anchor, a tie counts 1/2)"
_warned_no_numba = False


# --------------------------------------------------------------------------- compiled kernels
@_njit
def _delta(indptr, indices, data, i, j, k, xi, out_idx, out_val):
    """Delta_t = (x_i - x_k)^2 - (x_i - x_j)^2 of one triplet (eq. 7) into out_idx/out_val;
    returns its number of non-zeros. xi is a zeroed dense scratch vector."""
    for p in range(indptr[i], indptr[i + 1]):
        xi[indices[p]] = data[p]
    pj, ej, pk, ek = indptr[j], indptr[j + 1], indptr[k], indptr[k + 1]
    s = 0
    while pj < ej or pk < ek:
        if pk >= ek or (pj < ej and indices[pj] < indices[pk]):
            f = indices[pj]
            xj = data[pj]
            xk = 0.0
            pj += 1
        elif pj >= ej or indices[pk] < indices[pj]:
            f = indices[pk]
            xk = data[pk]
            xj = 0.0
            pk += 1
        else:
            f = indices[pj]
            xj = data[pj]
            xk = data[pk]
            pj += 1
            pk += 1
        d = (xk - xj) * (xk + xj - 2.0 * xi[f])
        if d != 0.0:
            out_idx[s] = f
            out_val[s] = d
            s += 1
    for p in range(indptr[i], indptr[i + 1]):
        xi[indices[p]] = 0.0
    return s


@_njit
def _line_search(v, idx, val, s, lo, hi):
    """argmax over d in [lo, hi] of d - 1/2 sum_f max(0, v_f + d val_f)^2: the root of the
    monotone piecewise-linear derivative, by Newton steps on the current piece, safeguarded by
    bisection of the bracket (exact once the right piece is reached)."""
    a, b, d = lo, hi, 0.0
    for _ in range(100):
        g, right, left, scale = 1.0, 0.0, 0.0, 1.0
        for p in range(s):
            q = val[p]
            u = v[idx[p]] + d * q
            if u > 0.0:
                g -= q * u
                right += q * q
                left += q * q
                scale += abs(q * u)
            elif u == 0.0:
                if q > 0.0:
                    right += q * q
                else:
                    left += q * q
        if abs(g) <= 1e-13 * scale:
            return d
        if g > 0.0:
            a = d
            if d >= hi:
                return hi
            nxt = d + g / right if right > 0.0 else b
        else:
            b = d
            if d <= lo:
                return lo
            nxt = d + g / left if left > 0.0 else a
        if not (a < nxt < b):
            if nxt >= b and b == hi and g > 0.0:
                nxt = hi
            elif nxt <= a and a == lo and g < 0.0:
                nxt = lo
            else:
                nxt = 0.5 * (a + b)
        if nxt == d:
            return d
        d = nxt
        if b - a <= 1e-15 * max(1.0, abs(a), abs(b)):
            return d
    return d


@_njit
def _epoch(indptr, indices, data, T, order, n_active, alpha, v, C, xi, out_idx, out_val, pg_max_old,
           pg_min_old):
    """One pass of dual coordinate ascent over the active triplets, with liblinear's shrinking
    (a triplet at a bound whose gradient points out of the box by more than last pass's extreme
    projected gradient leaves the active set)."""
    pg_max, pg_min = -np.inf, np.inf
    t_ = 0
    n = n_active
    while t_ < n:
        t = order[t_]
        s = _delta(indptr, indices, data, T[t, 0], T[t, 1], T[t, 2], xi, out_idx, out_val)
        g = 1.0
        for p in range(s):
            u = v[out_idx[p]]
            if u > 0.0:
                g -= out_val[p] * u
        G = -g
        a = alpha[t]
        pg = 0.0
        if a == 0.0:
            if G > pg_max_old:
                n -= 1
                order[t_], order[n] = order[n], order[t_]
                continue
            elif G < 0.0:
                pg = G
        elif a == C:
            if G < pg_min_old:
                n -= 1
                order[t_], order[n] = order[n], order[t_]
                continue
            elif G > 0.0:
                pg = G
        else:
            pg = G
        pg_max = max(pg_max, pg)
        pg_min = min(pg_min, pg)
        t_ += 1
        if pg != 0.0:
            step = _line_search(v, out_idx, out_val, s, -a, C - a)
            new = min(max(a + step, 0.0), C)
            step = new - a
            if step != 0.0:
                alpha[t] = new
                for p in range(s):
                    v[out_idx[p]] += step * out_val[p]
    return n, pg_max, pg_min


@_njit
def _full_pass(indptr, indices, data, T, alpha, w0, xi, out_idx, out_val):
    """v = w0 + sum_t alpha_t Delta_t from scratch (no drift) and every margin Delta_t . max(0, v)."""
    m = T.shape[0]
    v = w0.copy()
    for t in range(m):
        if alpha[t] != 0.0:
            s = _delta(indptr, indices, data, T[t, 0], T[t, 1], T[t, 2], xi, out_idx, out_val)
            for p in range(s):
                v[out_idx[p]] += alpha[t] * out_val[p]
    margins = np.empty(m)
    for t in range(m):
        s = _delta(indptr, indices, data, T[t, 0], T[t, 1], T[t, 2], xi, out_idx, out_val)
        total = 0.0
        for p in range(s):
            u = v[out_idx[p]]
            if u > 0.0:
                total += out_val[p] * u
        margins[t] = total
    return v, margins


# --------------------------------------------------------------------------- solvers
class _Workspace:
    def __init__(self, X, T):
        self.indptr = X.indptr.astype(np.int64)
        self.indices = X.indices.astype(np.int64)
        self.data = X.data.astype(np.float64)
        self.T = T
        self.n_features = X.shape[1]
        row_nnz = np.diff(self.indptr)
        longest = int(np.max(row_nnz[T[:, 1]] + row_nnz[T[:, 2]])) if len(T) else 0
        self.xi = np.zeros(self.n_features)
        self.out_idx = np.empty(max(longest, 1), np.int64)
        self.out_val = np.empty(max(longest, 1))

    def full_pass(self, alpha, w0):
        return _full_pass(self.indptr, self.indices, self.data, self.T, alpha, w0, self.xi,
                          self.out_idx, self.out_val)



def _objectives(alpha, v, margins, C, w0):
    """Primal value at w = max(0, v), dual value, and their relative gap (the regulariser
    1/2 |w - w0|^2: w0 = 0 is eq. 8's)."""
    w = np.maximum(v, 0.0)
    ww = float(w @ w)
    primal = 0.5 * float((w - w0) @ (w - w0)) + C * float(np.maximum(0.0, 1.0 - margins).sum())
    dual = float(alpha.sum()) - 0.5 * ww + 0.5 * float(w0 @ w0)
    return primal, dual, (primal - dual) / max(abs(primal), 1e-300)


def _solve_identity(X, T, C, tol, max_iter, rng, verbose, w0=None):
    """Problem (8) with L = I, its regulariser 1/2 |w - w0|^2 (``w0`` None: 0, the paper's);
    returns (alpha, w, info).

    With w0 the Lagrangian's stationarity gives w = max(0, w0 + sum_t alpha_t Delta_t) (the
    paper's with w0 = 0), and the dual is the paper's plus the constant |w0|^2 / 2: the same
    coordinate ascent, started from v = w0."""
    ws = _Workspace(X, T)
    m = len(T)
    alpha = np.zeros(m)
    w0 = np.zeros(ws.n_features) if w0 is None else np.asarray(w0, dtype=np.float64)
    v = w0.copy()
    order = np.arange(m)
    n_active = m
    pg_max_old, pg_min_old = np.inf, -np.inf
    eps = 0.1
    info = {"epochs": 0, "gap": np.inf}
    start = time.perf_counter()
    best = None
    for epoch in range(max_iter):
        sub = order[:n_active]
        rng.shuffle(sub)
        order[:n_active] = sub
        n_active, pg_max, pg_min = _epoch(ws.indptr, ws.indices, ws.data, T, order, n_active, alpha, v, float(C),
                                          ws.xi, ws.out_idx, ws.out_val, pg_max_old, pg_min_old)
        info["epochs"] = epoch + 1
        if pg_max - pg_min <= eps or n_active == 0:
            v, margins = ws.full_pass(alpha, w0)
            primal, dual, gap = _objectives(alpha, v, margins, C, w0)
            if best is None or gap < best[0]:
                best = (gap, alpha.copy(), v.copy(), margins, primal, dual)
            if verbose:
                print(f"[relative] epoch {epoch + 1}: relative gap {gap:.2e}, primal {primal:.8g}, "
                      f"{int(((alpha > 0) & (alpha < C)).sum())} free, {int((alpha == C).sum())} at C, "
                      f"{int((v > 0).sum())} weights > 0 ({time.perf_counter() - start:.1f} s)", flush=True)
            if gap <= tol:
                break
            eps = eps * 0.1 if n_active == m else eps
            n_active = m
            pg_max_old, pg_min_old = np.inf, -np.inf
            continue
        pg_max_old = pg_max if pg_max > 0 else np.inf
        pg_min_old = pg_min if pg_min < 0 else -np.inf
    else:
        v, margins = ws.full_pass(alpha, w0)
        primal, dual, gap = _objectives(alpha, v, margins, C, w0)
        if best is None or gap < best[0]:
            best = (gap, alpha, v, margins, primal, dual)
    gap, alpha, v, margins, primal, dual = best
    info.update(gap=gap, primal=primal, dual=dual, margins=margins)
    return alpha, np.maximum(v, 0.0), info


def _solve_general(Z, T, L, C, tol, max_iter, rng, verbose):
    """Problem (8) with a general positive semi-definite L on dense features Z (n, b): a
    primal-dual interior-point method on the KKT system of (8), each step a Cholesky solve of
    a b x b system (L + D^T diag(1/g) D + diag(nu/w)); returns (alpha, w, info). Exact to the
    relative duality gap ``tol`` in a few dozen steps, whatever the conditioning of L, which
    coordinate ascent over the dual cannot promise for a kernel matrix."""
    from scipy.linalg import cho_factor, cho_solve

    b = Z.shape[1]
    D = (Z[T[:, 0]] - Z[T[:, 2]]) ** 2 - (Z[T[:, 0]] - Z[T[:, 1]]) ** 2          # (m, b), eq. (7)
    m = len(T)
    scale = float(np.mean(np.diag(L))) or 1.0
    ridge = 0.0
    try:
        L_factor = cho_factor(L)
    except np.linalg.LinAlgError:
        # the dual bound below needs L^{-1}; a singular kernel matrix gets the smallest ridge that
        # makes it factorable, reported as ridge_
        ridge = 1e-12 * scale
        while True:
            try:
                L_factor = cho_factor(L + ridge * np.eye(b))
                break
            except np.linalg.LinAlgError:
                ridge *= 10
        L = L + ridge * np.eye(b)
    w = np.ones(b)
    xi = np.maximum(1.0 - D @ w, 0.0) + 1.0
    s = D @ w + xi - 1.0
    lam = np.full(m, 0.5 * C)
    nu = np.ones(b)
    info = {"epochs": 0, "ridge": ridge}
    start = time.perf_counter()
    best = None
    for it in range(max_iter):
        eta = C - lam
        # a dual-feasible bound: the Lagrangian dual at (lam in [0, C], nu >= 0)
        u = D.T @ lam + nu
        dual = float(lam.sum() - 0.5 * u @ cho_solve(L_factor, u))
        margins = D @ w
        primal = float(0.5 * w @ L @ w + C * np.maximum(0.0, 1.0 - margins).sum())
        gap = (primal - dual) / max(abs(primal), 1e-300)
        if best is None or gap < best[0]:
            best = (gap, lam.copy(), w.copy(), primal, dual, margins)
        info["epochs"] = it + 1
        if verbose:
            print(f"[relative] interior point {it + 1}: relative gap {gap:.2e} ({time.perf_counter() - start:.1f} s)",
                  flush=True)
        if gap <= tol:
            break
        mu = (lam @ s + eta @ xi + nu @ w) / (2 * m + b)
        tau = 0.1 * mu
        r1 = L @ w - D.T @ lam - nu
        r3 = D @ w + xi - 1.0 - s
        g = xi / eta + s / lam
        h = -r3 - (tau - eta * xi) / eta + (tau - lam * s) / lam
        H = L + (D.T * (1.0 / g)) @ D + np.diag(nu / w)
        rhs = -r1 + D.T @ (h / g) + (tau - nu * w) / w
        dw = cho_solve(cho_factor(H), rhs)
        dlam = (h - D @ dw) / g
        ds = (tau - lam * s - s * dlam) / lam
        dxi = (tau - eta * xi + xi * dlam) / eta
        dnu = (tau - nu * w - nu * dw) / w
        step = 1.0
        for x, dx in ((w, dw), (xi, dxi), (s, ds), (lam, dlam), (nu, dnu), (eta, -dlam)):
            neg = dx < 0
            if neg.any():
                step = min(step, 0.99 * float(np.min(-x[neg] / dx[neg])))
        w, xi, s, lam, nu = w + step * dw, xi + step * dxi, s + step * ds, lam + step * dlam, nu + step * dnu
    gap, lam, w, primal, dual, margins = best
    info.update(gap=gap, primal=primal, dual=dual, margins=margins)
    return lam, np.maximum(w, 0.0), info


# --------------------------------------------------------------------------- the estimator
def _check_C(C):
    if isinstance(C, (bool, np.bool_)) or not isinstance(C, (int, float, np.integer, np.floating)):
        raise TypeError(f"C must be a positive number; got {C!r}")
    if not np.isfinite(C) or C <= 0:
        raise ValueError(f"C must be a positive finite number (the slack weight of eq. 8); got {C!r}")
    return float(C)


class RelativeComparisonMetric(MetricMixin, BaseEstimator):
    """Weighted distance from relative comparisons (Schultz & Joachims 2003, eq. 1-8).

    Parameters
    ----------
    C : float, default=1.0
        Weight of the slacks in problem (8) (the paper uses 1). It weighs the sum over all
        triplets, so the best C falls as their number grows; choose it on held-out triplets with
        :func:`select_C` (on WebKB with 150,000 triplets validation picks about 1e-3, which also
        makes the fit far faster).
    kernel : None, "rbf" or "linear", default=None
        None: A = I, a weighted Euclidean distance over the input features (L = I). "rbf" /
        "linear": A = Phi over basis points drawn from the training rows, eq. (3)-(4), with
        L = K_bb * K_bb.
    gamma : float, optional
        RBF width, K(x, y) = exp(-gamma |x - y|^2). Default: 1 / the median squared distance
        between basis points.
    n_basis : int, optional
        Kernel only: the number of training rows used as basis points (drawn with
        ``random_state``); default all of them.
    tol : float, default=1e-6
        Stop when the relative duality gap (P - D) / P is at most ``tol``.
    max_iter : int, default=200000
        Most passes over the triplets.
    random_state : None, int or numpy Generator
        Order of the coordinate passes, the basis points and the held-out anchors.
    verbose : bool, default=False
    prior : {"zero", "one"}, default="zero"
        What the weights are shrunk towards: "zero", eq. (8)'s 1/2 |w|^2, the paper's; "one",
        1/2 |w - 1|^2, towards W = 1 (the unweighted distance), A = I only. Under "zero" a feature
        no triplet mentions gets the weight 0, which suits the paper's setting (triplets over the
        items compared) but not a search over a whole collection learned from a few triplets: a
        document made of unmentioned words then sits close to every query. Under "one" those
        features keep their weight 1, and the triplets move the others away from it; the same
        dual coordinate ascent, started from v = 1 (``_solve_identity``). Measured in
        ``benchmarks/bench_click_loop.py`` (20 Newsgroups, 20,000 comparisons from the true
        labels, query-to-document search), neither prior beat the tf-idf cosine (nDCG@10 0.27
        with "zero", 0.24 with "one", against 0.37): see ``docs/click_loop.md``; ranking by the
        weighted cosine (``normalize=True``) does.
    normalize : bool, default=False
        False: the map is x -> sqrt(w) x and the distance eq. (2)'s. True: the map is
        x -> sqrt(w) x / |sqrt(w) x| (a row whose weighted norm is 0 stays 0), so that for two
        non-zero rows d(x, y) = sqrt(2 - 2 cos_w(x, y)) with the weighted cosine
        cos_w(x, y) = sum_k w_k x_k y_k / (|sqrt(w) x| |sqrt(w) y|): ranking by this distance is
        ranking by cos_w. The weights are learned as before (problem 8 on the features as given);
        the held-out check compares the normalised learned map with the normalised W = 1 map
        (the plain cosine), the scoring that is served. A weighted Euclidean distance between a
        short query and a document counts the document's own words, so a document whose words
        got low weights is close to every query (hubness); the cosine does not. Measured with
        ``benchmarks/bench_click_loop.py``'s collection (20 Newsgroups, 3,000 documents, 500
        held-out subject-line queries, 20,000 comparisons from the true labels, tf-idf
        features, fitted by :func:`learnsim.feedback.fit_clicks`): nDCG@10 0.409 with prior
        "one" and 0.340 with prior "zero" by the weighted cosine, against 0.367 for the tf-idf
        cosine and 0.27 / 0.24 by the distance (run 3 of that benchmark's history, the query
        texts then in the vocabulary; with the collection's vocabulary alone, ``fit_clicks``'
        default since, prior "one" by the weighted cosine reaches 0.417). A = I only.
    baseline_holdout : float in (0, 1) or None, default=0.2
        Share of the anchors whose triplets (all of them: whole anchors, never single triplets
        of a training anchor) are kept back to measure the learned metric against W = 1, the
        unweighted distance that the family of eq. (2) contains (the Euclidean distance on the
        features; with a kernel, the Euclidean distance between the kernel features
        K(x, b_1), ..., K(x, b_n) of eq. 3). The weights are learned on the other anchors'
        triplets; each held-out triplet scores 1 when the distance puts the anchor closer to
        the closer item, 1/2 on a tie, 0 otherwise, and each held-out anchor, the unit of the
        comparison and of its bootstrap interval, scores the mean over its triplets (they share
        the anchor: they are not independent draws). When the learned weights win on average,
        the metric is refitted on all the triplets (the paper's method uses all its supervision)
        and the report of the held-out fit is kept; otherwise the fitted metric *is* W = 1 and a
        :class:`learnsim.baseline.BaselineWarning` says so. With fewer than four anchors
        nothing can be held out: the metric is fitted on all triplets and the report says it is
        unchecked. None fits on all triplets without the check (``baseline_gain_`` is None),
        as the reproduction of the paper does. See :mod:`learnsim.baseline`.

    Attributes
    ----------
    weights_ : ndarray (n_features_in_,) or (n_basis,)
        The diagonal of W, all >= 0.
    basis_ : ndarray or sparse matrix, kernel only
    gamma_ : float, RBF only
    objective_, dual_objective_, duality_gap_ : float
        The primal value of (8), the dual value and their relative gap at the returned solution.
    n_iter_ : int
        Passes over the triplets.
    n_support_, n_bounded_ : int
        Triplets with alpha > 0 and with alpha = C.
    dual_coef_ : ndarray (n_triplets,)
        alpha, the multipliers of the triplet constraints (0 <= alpha <= C).
    ridge_ : float
        Kernel only: the ridge added to a singular L (0 when none was needed).
    fit_time_ : float
    baseline_gain_ : learnsim.baseline.BaselineGain or None
        The learned weights against W = 1 on the triplets of the held-out anchors: triplet
        accuracy (a tie counts 1/2) averaged per anchor, the gain with a paired bootstrap
        interval over the held-out anchors, and ``status``: "learned" (refitted on all triplets), "baseline" (the model is
        W = 1: ``weights_`` are all 1, the solver's attributes describe the rejected learned
        fit) or "unchecked". None when ``baseline_holdout`` is None.

    Notes
    -----
    Learned weights that are all 0 put every item at distance 0 from every other, which orders
    nothing (the optimum of eq. 8 when no weighting satisfies any triplet, e.g. the paper's
    Figure 1, example 2 with A = I). A checked fit (``baseline_holdout`` set) never keeps them:
    the model becomes W = 1 and a :class:`learnsim.baseline.BaselineWarning` says so. With
    ``baseline_holdout=None`` the fit is the paper's method as it stands: the weights stay 0 and a
    RuntimeWarning says so.

    References
    ----------
    .. [1] M. Schultz and T. Joachims, "Learning a Distance Metric from Relative Comparisons",
       Advances in Neural Information Processing Systems 16 (NIPS 2003), MIT Press, 2004 (paper
       004 in ../shared/papers).
    .. [2] C.-J. Hsieh, K.-W. Chang, C.-J. Lin, S. S. Keerthi and S. Sundararajan, "A Dual
       Coordinate Descent Method for Large-scale Linear SVM", Proceedings of the 25th
       International Conference on Machine Learning (ICML), 2008.

    Examples
    --------
    Thirty items in three classes: the first three features carry the class, the last three are
    noise. Triplets "i is closer to j (same class) than to k (another class)":

    >>> import numpy as np
    >>> from learnsim.supervision import sample_label_triplets
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1, 2], 10)
    >>> X = np.hstack([np.eye(3)[y] + 0.5 * rng.normal(size=(30, 3)), 2 * rng.normal(size=(30, 3))])
    >>> T = sample_label_triplets(y, 200, random_state=0)
    >>> from learnsim.relative import RelativeComparisonMetric
    >>> metric = RelativeComparisonMetric(baseline_holdout=None, random_state=0).fit(X, T)
    >>> w = np.diag(metric.get_mahalanobis_matrix())
    >>> bool(w[3:].max() < w[:3].min())        # the noise features weigh less
    True
    >>> bool(metric.score(X, T) > 0.8)
    True
    >>> metric.transform(X).shape
    (30, 6)
    """

    _parameter_constraints = {
        "C": [Checked(_check_C)],          # shared with select_C's candidates
        "kernel": [Options(_KERNELS), None],
        "gamma": [Interval(Real, 0, None, closed="neither"), None],
        "n_basis": [Interval(Integral, 1, None), None],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None)],
        "random_state": ["random_state"],
        "verbose": ["no_validation"],      # used for its truth value
        "baseline_holdout": [Checked(check_holdout)],
        "prior": [Options({"zero", "one"})],
        "normalize": ["boolean"],
    }

    def __init__(self, C=1.0, kernel=None, gamma=None, n_basis=None, tol=1e-6, max_iter=200_000, random_state=None,
                 verbose=False, baseline_holdout=DEFAULT_HOLDOUT, prior="zero", normalize=False):
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.n_basis = n_basis
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.verbose = verbose
        self.baseline_holdout = baseline_holdout
        self.prior = prior
        self.normalize = normalize

    def _check_params(self):
        validate_params(self)
        C = float(self.C)
        check_holdout(self.baseline_holdout)
        if self.prior == "one" and self.kernel is not None:
            raise ValueError('prior="one" shrinks the weights of the input features towards 1: kernel=None only')
        if self.normalize and self.kernel is not None:
            raise ValueError("normalize=True scores by the weighted cosine of the input features: kernel=None only")
        return C

    def _kernel_matrix(self, A, B):
        if self.kernel == "linear":
            K = A @ B.T
            return K.toarray() if sp.issparse(K) else np.asarray(K)
        from sklearn.metrics.pairwise import rbf_kernel
        return rbf_kernel(A, B, gamma=self.gamma_)

    def fit(self, X, triplets):
        """Learn the weights from triplets (i, j, k): row i is closer to row j than to row k.

        With ``baseline_holdout`` set (the default), the triplets of a share of the anchors are
        held out first to measure the learned weights against W = 1 (see the parameter and
        ``baseline_gain_``).

        Parameters
        ----------
        X : array or sparse matrix (n_items, n_features)
        triplets : Triplets or int array (n_triplets, 3)
            Row indices into X.

        Returns
        -------
        self
        """
        global _warned_no_numba
        C = self._check_params()
        X = check_matrix(X, name="X", accept_sparse=True, dtype=np.float64)
        if X.shape[1] == 0 or X.shape[0] == 0:
            raise ValueError(f"X is empty (shape {X.shape}); the metric needs items with features")
        if triplets is None:
            raise ValueError("RelativeComparisonMetric requires triplets (i, j, k) as y; y is None")
        T = np.ascontiguousarray(check_triplets(triplets, X.shape[0]).indices, dtype=np.int64)
        if len(T) == 0:
            raise ValueError("triplets is empty; the metric is learned from at least one triplet")
        if not HAVE_NUMBA and not _warned_no_numba:
            warnings.warn("numba is not installed: the solver runs as plain python, which is much slower "
                          "(pip install learnsim[fast])", RuntimeWarning, stacklevel=2)
            _warned_no_numba = True
        rng = check_random_state(self.random_state)
        start = time.perf_counter()
        self.n_features_in_ = X.shape[1]
        if self.baseline_holdout is None:
            self._solve(X, T, C, rng)
            self.baseline_gain_ = None
            self._all_zero = not np.any(self.weights_ > 0)
            if self._all_zero:
                warnings.warn(f"{type(self).__name__}: the learned weights are all 0: every distance is 0 (no "
                              "non-negative weighting of the features satisfies any triplet); with "
                              "baseline_holdout set the model would be W = 1", RuntimeWarning, stacklevel=2)
        else:
            self._fit_checked(X, T, C, rng)
            self._refuse_zero_weights()
        self.fit_time_ = time.perf_counter() - start
        return self

    def _baseline_name(self):
        if self.kernel is None:
            return BASELINE_NAME_NORMALIZED if self.normalize else BASELINE_NAME
        return f"W = 1, the unweighted Euclidean distance on the {self.kernel} kernel features K(x, b) (eq. 3)"

    def _fit_checked(self, X, T, C, rng):
        """Learned weights against W = 1 on the triplets of held-out anchors, then the refit on
        all triplets or the fall-back to W = 1 (the rule of :mod:`learnsim.baseline`)."""
        owner = type(self).__name__
        anchors = T[:, 0]
        split = split_groups(anchors, self.baseline_holdout, random_state=rng)
        if split is None:
            self._solve(X, T, C, rng, stacklevel=4)
            n = np.unique(anchors).size
            self.baseline_gain_ = unchecked(
                f"the triplets have {n} anchor(s): at least 4 are needed to hold the triplets of 2 out "
                "and learn from 2", baseline_name=self._baseline_name(), owner=owner, stacklevel=4)
            return
        ids, held = split
        is_held = np.isin(anchors, ids[held])
        # one seed for the held-out fit and the refit: a kernel fit then draws the same basis in
        # both, so the W = 1 measured on held-out triplets is the W = 1 a fall-back would keep
        seed = int(rng.integers(2**31 - 1))
        self._solve(X, T[~is_held], C, np.random.default_rng(seed), stacklevel=4)
        Z = self._features(X)
        # one unit per held-out anchor: its triplets share the anchor and are not independent
        # draws, so a bootstrap over triplets would give too narrow an interval (on WebKB's
        # University triplets about a third of the width of one that resamples anchors)
        T_held = T[is_held]
        learned = anchor_means(T_held, triplet_outcomes(T_held, self._scaled(Z)))
        baseline = anchor_means(T_held, triplet_outcomes(T_held, _unit_rows(Z) if self.normalize else Z))
        report = compare(
            learned, baseline, measure=BASELINE_MEASURE, unit=f"held-out anchors ({len(T_held)} triplets)",
            baseline_name=self._baseline_name(), owner=owner, random_state=rng, stacklevel=4,
            detail={"C": C, "held_out_triplets": len(T_held), "training_triplets": int((~is_held).sum()),
                    "weighted_features_held_out_fit": int(np.count_nonzero(self.weights_))})
        if report.status == "learned":
            # the paper's method learns from all its supervision: refit on every triplet
            self._solve(X, T, C, np.random.default_rng(seed), stacklevel=4)
        else:
            self.weights_ = np.ones_like(self.weights_)
        self.baseline_gain_ = report

    def _refuse_zero_weights(self, stacklevel=3):
        """All-zero weights put every item at distance 0: such a model orders nothing, so a checked
        model replaces them by W = 1 and says so (a 4-triplet fit was once saved that way without
        a word)."""
        self._all_zero = not np.any(self.weights_ > 0)
        if not self._all_zero:
            return
        self.weights_ = np.ones_like(self.weights_)
        self.baseline_gain_ = self._zero_note(self.baseline_gain_)
        warnings.warn(f"{type(self).__name__}: {self._zero_reason()}", BaselineWarning, stacklevel=stacklevel)

    def _zero_reason(self):
        return ("the learned weights are all 0 (every distance would be 0, ordering nothing), so the model is "
                + self._baseline_name())

    def _zero_note(self, report):
        """``report`` told that the learned weights were all 0 and replaced by W = 1."""
        if report is not None and report.status == "unchecked":
            return dataclasses.replace(report, reason=f"{report.reason}; {self._zero_reason()}")
        if report is not None and report.status == "learned":
            return dataclasses.replace(report, status="baseline", reason="the learned weights are all 0",
                                       detail={**report.detail, "all_weights_zero": True})
        return report

    def _with_report(self, report):
        """Attach the report of a check made outside ``fit`` (``learnsim fit`` measures W = 1 beside
        its candidates for C on the same held-out anchors and fits this model with
        ``baseline_holdout=None``); a report that falls back makes the model W = 1."""
        check_is_fitted(self, "weights_")
        if not isinstance(report, BaselineGain):
            raise TypeError(f"report must be a BaselineGain; got {type(report).__name__}")
        self.baseline_gain_ = report
        if report.fell_back:
            self.weights_ = np.ones_like(self.weights_)
        else:
            self._refuse_zero_weights(stacklevel=4)
        return self

    def _solve(self, X, T, C, rng, stacklevel=3):
        """Problem (8) on the triplets T: sets weights_, the solver's attributes and, for a
        kernel, basis_ and gamma_."""
        self.ridge_ = 0.0
        if self.kernel is None:
            Xs = X.tocsr() if sp.issparse(X) else sp.csr_matrix(X)
            Xs.sort_indices()
            w0 = np.ones(Xs.shape[1]) if self.prior == "one" else None
            alpha, w, info = _solve_identity(Xs, T, C, float(self.tol), int(self.max_iter), rng, self.verbose, w0)
        else:
            n_basis = X.shape[0] if self.n_basis is None else min(int(self.n_basis), X.shape[0])
            rows = np.sort(rng.choice(X.shape[0], size=n_basis, replace=False))
            self.basis_ = X[rows]
            if self.kernel == "rbf":
                if self.gamma is None:
                    from sklearn.metrics.pairwise import euclidean_distances
                    d2 = euclidean_distances(self.basis_, squared=True)
                    off = d2[~np.eye(n_basis, dtype=bool)]
                    median = float(np.median(off[off > 0])) if np.any(off > 0) else 1.0
                    self.gamma_ = 1.0 / median
                else:
                    self.gamma_ = float(self.gamma)
            K_bb = self._kernel_matrix(self.basis_, self.basis_)
            Z = self._kernel_matrix(X, self.basis_)
            L = K_bb * K_bb                     # (A^T A) * (A^T A), element-wise (sec. 4)
            alpha, w, info = _solve_general(Z, T, L, C, float(self.tol), int(self.max_iter), rng, self.verbose)
            self.ridge_ = float(info["ridge"])
        self.weights_ = w
        self.objective_ = float(info["primal"])
        self.dual_objective_ = float(info["dual"])
        self.duality_gap_ = float(info["gap"])
        self.n_iter_ = int(info["epochs"])
        self.n_support_ = int(np.count_nonzero(alpha > 0))
        self.n_bounded_ = int(np.count_nonzero(alpha >= C))
        self.dual_coef_ = alpha
        if self.duality_gap_ > self.tol:
            warnings.warn(f"the solver stopped after {self.n_iter_} passes at relative duality gap "
                          f"{self.duality_gap_:.2e} > tol = {self.tol:g}; raise max_iter", RuntimeWarning,
                          stacklevel=stacklevel)

    # ------------------------------------------------------------------ using it
    def _features(self, X):
        """A^T x: X itself for A = I, the kernel values against the basis otherwise."""
        if self.kernel is None:
            return X
        return self._kernel_matrix(X, self.basis_)

    def transform(self, X):
        """The map x -> sqrt(w) * A^T x (divided by its norm with ``normalize``), in which the
        learned distance is Euclidean (sparse in, sparse out for A = I)."""
        return self._embed(self._check_input(X))

    def _embed(self, X):
        """transform without the input check, for callers that have checked X already."""
        return self._scaled(self._features(X))

    def _scaled(self, Z):
        """sqrt(w) * Z for features Z = A^T x (eq. 2: d^2 = (x - y)^T A W A^T (x - y)), each row
        then divided by its norm with ``normalize`` (a zero row stays zero)."""
        scale = np.sqrt(self.weights_)
        if sp.issparse(Z):
            E = sp.csr_matrix(Z @ sp.diags(scale))
        else:
            E = np.asarray(Z) * scale
        return _unit_rows(E) if getattr(self, "normalize", False) else E

    def _row_scales(self, Z):
        """The factor each row of features Z = A^T x is multiplied by after sqrt(w): 1 /
        |sqrt(w) z| with ``normalize`` (0 for a row whose weighted norm is 0), else 1. An
        explanation of the normalised distance splits diag(w) over the rows scaled by it."""
        Z = sp.csr_matrix(Z) if sp.issparse(Z) else np.atleast_2d(np.asarray(Z, dtype=np.float64))
        if not getattr(self, "normalize", False):
            return np.ones(Z.shape[0])
        E = Z @ sp.diags(np.sqrt(self.weights_)) if sp.issparse(Z) else Z * np.sqrt(self.weights_)
        return _inverse_norms(E)

    def get_mahalanobis_matrix(self):
        """M = diag(w) over the input features (A = I only): d(x, y)^2 = (x - y)^T M (x - y)."""
        check_is_fitted(self, "weights_")
        if self.kernel is not None:
            raise AttributeError("a kernel metric has no Mahalanobis matrix over the input features")
        return np.diag(self.weights_)

    def unit_inputs(self, X, projection=None):
        """Rows of X (sparse in, CSR out) scaled to unit weighted norm, |sqrt(w) x| = 1 (of the
        model's inputs ``X @ projection.T`` with an LSI projection): with ``normalize`` the learned
        distance is diag(w)'s between these rows, which an explanation (``Pipeline.explain``)
        splits over the words; without it, X as it is."""
        X = sp.csr_matrix(X, dtype=np.float64)
        if not getattr(self, "normalize", False):
            return X
        Z = X if projection is None else X @ np.asarray(projection, dtype=np.float64).T
        return sp.csr_matrix(sp.diags(self._row_scales(Z)) @ X)

    @property
    def components_(self):
        """L = diag(sqrt(w)) with M = L^T L (A = I only; a dense n_features^2 matrix).

        With ``normalize`` this is the linear part of the map only: ``transform`` then divides
        each row L x by its norm, so the distance is that of the scaled rows x / |L x| under M
        (and the cosine of L x and L y is the similarity ranked)."""
        check_is_fitted(self, "weights_")
        if self.kernel is not None:
            raise AttributeError("a kernel metric has no linear map of the input features")
        return np.diag(np.sqrt(self.weights_))

    def score(self, X, triplets):
        """Fraction of triplets (i, j, k) with d(i, j) < d(i, k) strictly (ties are errors)."""
        from ..evaluation import evaluate_triplets

        X = self._check_input(X)
        T = check_triplets(triplets, X.shape[0]).indices
        return evaluate_triplets(T, self._embed(X))["accuracy"]

    # ------------------------------------------------------------------ persistence
    def _get_state(self):
        check_is_fitted(self, "weights_")
        meta = {"params": self.get_params(), "n_features_in_": int(self.n_features_in_),
                "objective_": self.objective_, "dual_objective_": self.dual_objective_,
                "duality_gap_": self.duality_gap_, "n_iter_": self.n_iter_, "n_support_": self.n_support_,
                "n_bounded_": self.n_bounded_, "fit_time_": self.fit_time_, "ridge_": self.ridge_}
        meta["params"]["normalize"] = bool(self.normalize)
        report = getattr(self, "baseline_gain_", None)
        meta["baseline_gain"] = None if report is None else report.to_dict()
        arrays = {"weights_": self.weights_, "dual_coef_": self.dual_coef_}
        if self.kernel is not None:
            arrays["basis_"] = self.basis_
            if self.kernel == "rbf":
                meta["gamma_"] = self.gamma_
        return meta, arrays

    @classmethod
    def _from_state(cls, meta, arrays):
        name = cls.__name__
        params = dict(meta["params"])
        # files from before the held-out check were fitted on all triplets without it
        params.setdefault("baseline_holdout", None)
        # files from before normalize ranked by the distance of eq. (2)
        params.setdefault("normalize", False)
        est = cls(**params)
        C = est._check_params()
        w = state_array(arrays, "weights_", name, ndim=1, low=0.0).astype(np.float64)
        report = meta.get("baseline_gain")
        est.baseline_gain_ = None if report is None else BaselineGain.from_dict(report, owner=name)
        if est.baseline_gain_ is not None and not np.any(w > 0):
            raise ValueError(f"{name} state: weights_ are all 0, a metric that puts every item at distance 0, "
                             "which a checked fit never keeps; refit the model")
        if est.baseline_gain_ is not None and est.baseline_gain_.fell_back and not np.all(w == 1.0):
            raise ValueError(f"{name} state: baseline_gain says the model fell back to W = 1, "
                             "but weights_ are not all 1")
        est.n_features_in_ = state_number(meta, "n_features_in_", name, integer=True, low=1)
        if est.kernel is None and w.shape[0] != est.n_features_in_:
            raise ValueError(f"weights_ has {w.shape[0]} entries for {est.n_features_in_} features")
        if est.kernel is not None:
            if "basis_" not in arrays:
                raise ValueError("a saved kernel RelativeComparisonMetric needs 'basis_'")
            basis = check_matrix(arrays["basis_"], name=f"{name} state array 'basis_'")
            if basis.shape != (w.shape[0], est.n_features_in_):
                raise ValueError(f"basis_ has shape {basis.shape}; expected ({w.shape[0]}, {est.n_features_in_})")
            est.basis_ = basis
            if est.kernel == "rbf":
                est.gamma_ = state_number(meta, "gamma_", name, low=0.0, low_open=True)
        est.weights_ = w
        alpha = state_array(arrays, "dual_coef_", name, ndim=1, low=0.0, high=C, optional=True)
        est.dual_coef_ = np.zeros(0) if alpha is None else alpha.astype(np.float64)
        for key in ("objective_", "dual_objective_", "duality_gap_", "ridge_"):
            setattr(est, key, state_number(meta, key, name))
        est.fit_time_ = state_number(meta, "fit_time_", name, low=0.0)
        for key in ("n_iter_", "n_support_", "n_bounded_"):
            setattr(est, key, state_number(meta, key, name, integer=True, low=0))
        return est


# --------------------------------------------------------------------------- normalised rows
def _inverse_norms(E):
    """1 / the Euclidean norm of each row of E (0 for a zero row)."""
    sq = np.asarray(E.multiply(E).sum(axis=1)).ravel() if sp.issparse(E) else np.einsum("ij,ij->i", E, E)
    norms = np.sqrt(sq)
    return np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)


def _unit_rows(E):
    """Each row of E divided by its Euclidean norm (a zero row stays zero); sparse stays CSR."""
    inv = _inverse_norms(E)
    if sp.issparse(E):
        return sp.csr_matrix(sp.diags(inv) @ E)
    return np.asarray(E) * inv[:, None]


# --------------------------------------------------------------------------- held-out triplets
def triplet_outcomes(triplets, Z):
    """Each triplet (i, j, k) under the Euclidean distance between rows of Z: 1 when row i is
    closer to row j than to row k, 1/2 on a tie, 0 otherwise.

    The per-unit score of the held-out check (:mod:`learnsim.baseline`): pass the learned map
    (``transform``) for the learned metric, the features themselves for W = 1. Ties matter
    there: under W = 1 on binary features many distances are equal integers, and a metric with
    no weight on the features that tell two items apart ties them. Distances within a relative
    1e-12 of each other are a tie (rounding of the same sum in another order).

    Parameters
    ----------
    triplets : int array (n, 3) of row indices into Z
    Z : array or sparse matrix (n_items, n_features)

    Returns
    -------
    ndarray (n,) of 0, 0.5 and 1.

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.relative import triplet_outcomes
    >>> Z = np.array([[0.0], [1.0], [3.0], [-1.0]])
    >>> triplet_outcomes(np.array([[0, 1, 2], [0, 2, 1], [0, 1, 3]]), Z).tolist()
    [1.0, 0.0, 0.5]
    """
    from ..evaluation import triplet_distances

    d_ij, d_ik = triplet_distances(np.asarray(triplets), Z)
    tie = np.abs(d_ij - d_ik) <= 1e-12 * np.maximum(d_ij, d_ik)
    return np.where(tie, 0.5, (d_ij < d_ik).astype(np.float64))


def anchor_means(triplets, values):
    """Mean of ``values`` (one per triplet) over each anchor's triplets, anchors in sorted order.

    The held-out check's units: the triplets of one anchor are not independent draws (on WebKB a
    held-out anchor has some 160), the anchors are.

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.relative import anchor_means
    >>> triplets = np.array([[2, 0, 1], [0, 1, 2], [2, 1, 0]])
    >>> anchor_means(triplets, np.array([1.0, 0.0, 0.5])).tolist()    # anchors 0, then 2
    [0.0, 0.75]
    """
    _, codes = np.unique(np.asarray(triplets)[:, 0], return_inverse=True)
    values = np.asarray(values, dtype=np.float64)
    return np.bincount(codes, values) / np.bincount(codes)


# --------------------------------------------------------------------------- choosing C
def select_C(X, triplets, validation_triplets, Cs=(1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1, 1.0), **params):
    """Choose the slack weight C of problem (8) on held-out triplets.

    Fits ``RelativeComparisonMetric(C=c, **params)`` on ``triplets`` for every c in ``Cs`` and
    scores each on ``validation_triplets`` (the share satisfied). For a metric meant for unseen
    items, draw the validation triplets from items that no training triplet uses: C weighs the
    sum of the slacks, so the best C falls as the number of training triplets grows, and with many
    triplets over few items a large C fits item-specific features (see
    ``docs/reproductions/relative.md``).

    Parameters
    ----------
    X : array or sparse matrix (n_items, n_features)
    triplets, validation_triplets : Triplets or int arrays (n, 3) of row indices into X
    Cs : sequence of positive floats
    **params : other parameters of RelativeComparisonMetric (tol, random_state, ...)
        ``baseline_holdout`` defaults to None here: each candidate is judged on the validation
        triplets already, and a held-out check inside every candidate fit would only cost time.

    Returns
    -------
    best_C : float
        The C with the highest validation accuracy (the smallest such C on ties).
    scores : dict
        C -> validation accuracy.

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.supervision import sample_label_triplets
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1, 2], 10)
    >>> X = np.hstack([np.eye(3)[y] + 0.5 * rng.normal(size=(30, 3)), 2 * rng.normal(size=(30, 3))])
    >>> T = sample_label_triplets(y, 200, random_state=0)
    >>> from learnsim.relative import select_C
    >>> T = np.asarray(T)
    >>> best_C, scores = select_C(X, T[:150], T[150:], Cs=(0.01, 1.0), random_state=0)
    >>> best_C in (0.01, 1.0), sorted(scores)
    (True, [0.01, 1.0])
    """
    Cs = [_check_C(c) for c in Cs]
    if not Cs:
        raise ValueError("Cs is empty; give at least one positive C")
    if "C" in params:
        raise TypeError("select_C chooses C itself; pass the candidates as Cs, not C")
    params.setdefault("baseline_holdout", None)
    scores = {}
    for c in sorted(set(Cs)):
        model = RelativeComparisonMetric(C=c, **params).fit(X, triplets)
        scores[c] = float(model.score(X, validation_triplets))
    best = max(scores.values())
    return min(c for c, acc in scores.items() if acc == best), scores
