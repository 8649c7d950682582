"""Minimisation over the Stiefel manifold St(n, p) = {X in R^{n x p} : X^T X = I_p}.

This is the optimiser of FILM (Tang & Aw, sec. 3.2), written for any smooth objective: the
curvilinear search of Wen & Yin (2013, "A feasible method for optimization with
orthogonality constraints") along the Cayley transform, with alternating Barzilai-Borwein
step sizes and the non-monotone line search of Zhang & Hager (2004).

Notation (the paper calls the matrix P, of shape r x d; here it is X, of shape n x p):

* G is the Euclidean gradient of f at X and A = G X^T - X G^T is skew-symmetric (n x n, never
  formed). A X = G - X G^T X is the Riemannian gradient (the gradient of the Lagrangian,
  eq. 21 of the paper).
* The Cayley curve Y(tau) = (I + tau/2 A)^{-1} (I - tau/2 A) X (eq. 24) stays on the manifold
  for every tau. With U = [G, X] and V = [X, -G] (so A = U V^T) the Sherman-Morrison-Woodbury
  formula gives eq. 25, Y(tau) = X - tau U (I_2p + tau/2 V^T U)^{-1} V^T X, which costs
  O(n p^2 + p^3) instead of O(n^3): only p x p Gram matrices and a 2p x 2p solve.
* Y'(0) = -A X, so F'(Y(0)) = -<G, A X> = -||A||_F^2 / 2 (A is skew, so only the skew part of
  G X^T survives the inner product).

Objectives that change between iterations (FILM re-estimates its Lambda and K at every step)
may define ``objective.refresh(X) -> bool``; see :func:`minimize_stiefel`.

References
----------
.. [1] X. Tang and A. Aw, "FILM: A Fast, Interpretable, and Low-rank Metric Learning Approach
   for Sentence Matching", arXiv preprint, 2020 (paper 001 in ../shared/papers).
.. [2] Z. Wen and W. Yin, "A feasible method for optimization with orthogonality constraints",
   Mathematical Programming 142(1-2), 2013.
.. [3] H. Zhang and W. W. Hager, "A nonmonotone line search technique and its application to
   unconstrained optimization", SIAM Journal on Optimization 14(4), 2004.
"""
from __future__ import annotations

import numbers
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from .._utils.linalg import small_blas
from .._utils.progress import progress

__all__ = ["StiefelResult", "minimize_stiefel", "cayley_step"]

# X0 must be orthonormal to this (Frobenius norm of X^T X - I): a looser start is a caller's
# mistake (e.g. an unnormalised random matrix), not rounding.
_START_TOL = 1e-8
# The Cayley step preserves X^T X in exact arithmetic, but rounding in the update
# X - tau U c grows with tau ||G||: measured drift is 1e-14 to 1e-13 per long BB step. A QR
# above this (every ten or so steps) keeps iterates well under 1e-10 and keeps the value
# error it causes (about ||G|| times the drift) negligible.
_REORTH_TOL = 1e-12


def _step_flops(n, p):
    """About the flops of one step's own products: the p x p Gram blocks and A X of a point
    (8 n p^2), the 2p x 2p solve of eq. (25) and its n x 2p by 2p x p product per trial."""
    return 12 * n * p * p + 16 * p ** 3


@dataclass
class StiefelResult:
    """Outcome of :func:`minimize_stiefel`.

    Attributes
    ----------
    x : ndarray of shape (n, p)
        Final iterate (orthonormal columns).
    fun : float
        Objective value at ``x`` (under the objective as it was when ``x`` was evaluated).
    n_iter : int
        Number of accepted steps.
    converged : bool
        True when a tolerance (``gtol``, or ``xtol`` together with ``ftol``) was met.
    message : str
        Why the run stopped.
    history : dict of lists
        ``"fun"`` and ``"grad_norm"``: value and Riemannian gradient norm ||A X||_F at the
        start point and after each step (``n_iter + 1`` entries). ``"tau"``,
        ``"n_backtracks"`` and ``"reference"`` (the non-monotone reference value C_k the step
        was compared with): one entry per step. ``"refreshes"``: iterations at which
        ``objective.refresh`` reported a change.
    grad_norm : float
        ||A X||_F at ``x``.
    n_fev : int
        Number of objective evaluations.
    n_reorth : int
        Number of re-orthonormalisations (QR) needed to correct rounding drift.

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.film.stiefel import StiefelResult, minimize_stiefel
    >>> def objective(X):          # f(X) = -tr(X^T X) is constant on the manifold
    ...     return -float(np.sum(X * X)), -2 * X
    >>> result = minimize_stiefel(objective, np.eye(4)[:, :2])
    >>> isinstance(result, StiefelResult), result.converged, result.x.shape
    (True, True, (4, 2))
    >>> round(result.fun, 6)
    -2.0
    """

    x: np.ndarray
    fun: float
    n_iter: int
    converged: bool
    message: str
    history: dict = field(default_factory=dict)
    grad_norm: float = float("nan")
    n_fev: int = 0
    n_reorth: int = 0


class _Point:
    """An evaluated iterate with the p x p products every step needs."""

    __slots__ = ("X", "f", "G", "XtX", "XtG", "GtG", "AX", "grad_norm", "slope")

    def __init__(self, X, f, G, XtX):
        self.X, self.f, self.G, self.XtX = X, f, G, XtX
        self.XtG = X.T @ G
        self.GtG = G.T @ G
        # The measured X^T X (not I) makes A X and the curve exact for the X we hold, so
        # rounding drift is carried along unchanged instead of being amplified.
        self.AX = G @ XtX - X @ self.XtG.T
        self.grad_norm = float(np.linalg.norm(self.AX))
        # -F'(Y(0)) = <G, A X> = ||A||_F^2 / 2 >= 0; clip the rounding noise near a critical point.
        self.slope = max(float(np.vdot(G, self.AX)), 0.0)


class _CayleyCurve:
    """Y(tau) = X - tau U (I_2p + tau/2 V^T U)^{-1} V^T X with U = [G, X], V = [X, -G].

    V^T U and V^T X are assembled from the p x p blocks X^T G, X^T X and G^T G, so a trial
    step size costs one 2p x 2p solve and one n x 2p by 2p x p product.
    """

    def __init__(self, point):
        p = point.X.shape[1]
        self.X, self.G, self.p = point.X, point.G, p
        XtG, XtX, GtG = point.XtG, point.XtX, point.GtG
        self.VtU = np.block([[XtG, XtX], [-GtG, -XtG.T]])
        self.VtX = np.vstack([XtX, -XtG.T])
        self.eye = np.eye(2 * p)

    def __call__(self, tau):
        try:
            coef = np.linalg.solve(self.eye + (0.5 * tau) * self.VtU, self.VtX)
        except np.linalg.LinAlgError:
            return None
        if not np.isfinite(coef).all():
            return None
        p = self.p
        # U @ coef without materialising U = [G, X].
        return self.X - tau * (self.G @ coef[:p] + self.X @ coef[p:])


def cayley_step(X, G, tau):
    """Point at step size ``tau`` on the Cayley curve from ``X`` along ``-A X``.

    Parameters
    ----------
    X : ndarray of shape (n, p)
        Current point, with orthonormal columns.
    G : ndarray of shape (n, p)
        Euclidean gradient of the objective at ``X``.
    tau : float
        Step size (any real value; the curve stays on the manifold).

    Returns
    -------
    Y : ndarray of shape (n, p)
        ``(I + tau/2 A)^{-1} (I - tau/2 A) X`` with ``A = G X^T - X G^T``, computed by the
        low-rank formula (eq. 25 of Tang & Aw) without forming any n x n matrix.

    References
    ----------
    .. [1] X. Tang and A. Aw, "FILM: A Fast, Interpretable, and Low-rank Metric Learning Approach
       for Sentence Matching", arXiv preprint, 2020 (paper 001 in ../shared/papers).

    Examples
    --------
    Any step stays on the manifold:

    >>> import numpy as np
    >>> from learnsim.film.stiefel import cayley_step
    >>> rng = np.random.default_rng(0)
    >>> X = np.linalg.qr(rng.normal(size=(6, 2)))[0]
    >>> G = rng.normal(size=(6, 2))
    >>> Y = cayley_step(X, G, 0.5)
    >>> Y.shape, np.allclose(Y.T @ Y, np.eye(2))
    ((6, 2), True)
    >>> np.allclose(cayley_step(X, G, 0.0), X)
    True
    """
    X = np.asarray(X, dtype=np.float64)
    G = np.asarray(G, dtype=np.float64)
    if X.ndim != 2 or G.shape != X.shape:
        raise ValueError(f"X and G must be 2-D arrays of the same shape; got {X.shape} and {G.shape}")
    Y = _CayleyCurve(_Point(X, 0.0, G, X.T @ X))(float(tau))
    if Y is None:
        raise np.linalg.LinAlgError(f"the Cayley system is singular at tau={tau!r}")
    return Y


def _orthonormalize(Y):
    """Q factor of Y with signs chosen so that Q is the orthonormal matrix nearest Y's columns."""
    Q, R = np.linalg.qr(Y)
    signs = np.sign(np.diag(R))
    signs[signs == 0] = 1.0
    return Q * signs


def _feasible(Y):
    """Return (Y, Y^T Y, corrected), re-orthonormalised when drift exceeds _REORTH_TOL."""
    YtY = Y.T @ Y
    if np.linalg.norm(YtY - np.eye(Y.shape[1])) <= _REORTH_TOL:
        return Y, YtY, False
    Y = _orthonormalize(Y)
    return Y, Y.T @ Y, True


def _read_only(X):
    view = X.view()
    view.flags.writeable = False
    return view


def _evaluate(objective, X, iteration, context):
    """Call the objective and check what it returns; the error names the iteration."""
    where = f"at iteration {iteration} ({context})"
    out = objective(_read_only(X))
    try:
        f, G = out
    except (TypeError, ValueError):
        raise TypeError(f"objective(X) must return a pair (f, G) of the value and the Euclidean "
                        f"gradient; got {type(out).__name__} {where}") from None
    if np.ndim(f) != 0:
        raise ValueError(f"objective returned a value f of shape {np.shape(f)} {where}; expected a scalar")
    try:
        f = float(f)
        G = np.array(G, dtype=np.float64)  # a copy: objectives may reuse their output buffer
    except (TypeError, ValueError) as exc:
        raise TypeError(f"objective returned a non-numeric value or gradient {where}: {exc}") from None
    if G.shape != X.shape:
        raise ValueError(f"objective returned a gradient of shape {G.shape} {where}; expected "
                         f"{X.shape}, the shape of X")
    if not np.isfinite(f):
        raise ValueError(f"objective returned a non-finite value f={f} {where}")
    if not np.isfinite(G).all():
        bad = "NaN" if np.isnan(G).any() else "infinite"
        raise ValueError(f"objective returned a gradient with {bad} entries {where}")
    return f, G


def _check_start(X0):
    try:
        X = np.array(X0, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"X0 could not be read as a 2-D float array: {exc}") from None
    if X.ndim != 2:
        raise ValueError(f"X0 must be a 2-D array (n, p) with orthonormal columns; got shape {X.shape}")
    n, p = X.shape
    if p == 0 or n == 0:
        raise ValueError(f"X0 is empty (shape {X.shape}); it needs at least one column")
    if p > n:
        raise ValueError(f"X0 has more columns ({p}) than rows ({n}); at most {n} orthonormal "
                         f"columns exist in R^{n}")
    if not np.isfinite(X).all():
        raise ValueError("X0 contains NaN or infinite values")
    err = float(np.linalg.norm(X.T @ X - np.eye(p)))
    if err > _START_TOL:
        raise ValueError(f"X0 columns are not orthonormal (||X0^T X0 - I||_F = {err:.3g} > "
                         f"{_START_TOL:g}); orthonormalise it first, e.g. X0 = numpy.linalg.qr(X0)[0]")
    if err > _REORTH_TOL:
        X = _orthonormalize(X)
    return X


def _check_real(name, value, low=None, high=None, low_open=False, high_open=False):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite real number; got {value!r}")
    value = float(value)
    if low is not None and (value < low or (low_open and value == low)):
        raise ValueError(f"{name} must be {'>' if low_open else '>='} {low:g}; got {value!r}")
    if high is not None and (value > high or (high_open and value == high)):
        raise ValueError(f"{name} must be {'<' if high_open else '<='} {high:g}; got {value!r}")
    return value


def _check_int(name, value, low):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}; got {value!r}")
    return int(value)


def minimize_stiefel(objective, X0, *, max_iter=1000, tau0=1e-3, rho=1e-4, gamma=0.85, eta=0.2,
                     tau_min=1e-20, tau_max=1e20, gtol=1e-5, xtol=1e-10, ftol=1e-12, n_stall=5,
                     callback=None, verbose=False):
    """Minimise ``f(X)`` subject to ``X^T X = I`` by Cayley-transform curvilinear search.

    Each iteration moves along the Cayley curve Y(tau) from X_k in the direction -A X_k
    (eq. 24-25 of Tang & Aw; Wen & Yin 2013) with a Barzilai-Borwein trial step,
    backtracked until the non-monotone Armijo condition holds. No n x n matrix is formed:
    a step costs O(n p^2 + p^3) plus the objective evaluations.

    Parameters
    ----------
    objective : callable
        ``objective(X) -> (f, G)``: the value and the Euclidean gradient (same shape as X) at
        ``X``, which is passed read-only. It may have a method ``refresh(X) -> bool``, called
        at the start of every iteration with the current point: an objective that depends on
        quantities re-estimated from X (FILM's Lambda and K) re-estimates them there and
        returns True when the function has changed. The optimiser then re-evaluates f(X_k)
        and G(X_k) under the new function and restarts the non-monotone reference
        (C_k = f(X_k), Q_k = 1), because a line search comparing values of different functions
        can ask for a decrease that no step gives, and the step size collapses. Between two
        refreshes the objective must be a fixed function of X.
    X0 : array-like of shape (n, p)
        Start, with ``p <= n`` orthonormal columns (to 1e-8; it is re-orthonormalised by QR
        if needed beyond 1e-12).
    max_iter : int, default=1000
        Maximum number of steps.
    tau0 : float, default=1e-3
        Trial step size of the first iteration (later ones come from Barzilai-Borwein).
    rho : float, default=1e-4
        Sufficient-decrease constant: a step tau is accepted when
        ``f(Y(tau)) <= C_k - rho * tau * ||A||_F^2 / 2``. ``-||A||_F^2 / 2`` is exactly the
        slope F'(Y(0)) of f along the Cayley curve, so this is the Armijo condition of Wen &
        Yin's analysis (their code uses ``||A X||_F^2``, which differs from ``||A||_F^2 / 2``
        by ``2 ||skew(X^T G)||_F^2`` and is not a slope).
    gamma : float, default=0.85
        Non-monotone weight in [0, 1]: ``Q_{k+1} = gamma Q_k + 1``,
        ``C_{k+1} = (gamma Q_k C_k + f_{k+1}) / Q_{k+1}``. 0 gives a monotone search.
    eta : float, default=0.2
        Backtracking factor in (0, 1).
    tau_min, tau_max : float, default=1e-20, 1e20
        Barzilai-Borwein steps are clipped to this range; a line search that has to go below
        ``tau_min`` fails and stops the run (``converged=False``).
    gtol : float, default=1e-5
        Stop when the Riemannian gradient norm ``||A X||_F`` falls below this (absolute).
    xtol, ftol : float, default=1e-10, 1e-12
        Stop when, averaged over the last ``n_stall`` steps, both
        ``||X_{k+1} - X_k||_F / sqrt(n) < xtol`` and ``|f_{k+1} - f_k| / (|f_k| + 1) < ftol``.
    n_stall : int, default=5
        Window of the ``xtol``/``ftol`` test.
    callback : callable, optional
        ``callback(iteration, X, f)`` after every step (X read-only); returning True stops.
    verbose : bool, default=False
        Show a progress bar on stderr.

    Returns
    -------
    StiefelResult

    Notes
    -----
    Step sizes alternate between the long and the short Barzilai-Borwein formulas (eq. 26 on
    odd steps, eq. 27 on even ones) with S = X_k - X_{k-1} and Y = A_k X_k - A_{k-1} X_{k-1}.
    The Cayley transform is orthogonal, so X^T X is preserved up to rounding; it is measured
    after every step and restored by a sign-fixed QR above 1e-12, so iterates stay within
    1e-10 of the manifold.

    References
    ----------
    .. [1] X. Tang and A. Aw, "FILM: A Fast, Interpretable, and Low-rank Metric Learning Approach
       for Sentence Matching", arXiv preprint, 2020 (paper 001 in ../shared/papers).
    .. [2] Z. Wen and W. Yin, "A feasible method for optimization with orthogonality constraints",
       Mathematical Programming 142(1-2), 2013.

    Examples
    --------
    The two leading eigenvectors of a symmetric matrix maximise tr(X^T A X) over orthonormal X:

    >>> import numpy as np
    >>> from learnsim.film.stiefel import minimize_stiefel
    >>> A = np.diag([5.0, 4.0, 3.0, 2.0, 1.0])
    >>> def objective(X):
    ...     return -np.trace(X.T @ A @ X), -2 * A @ X
    >>> X0 = np.linalg.qr(np.random.default_rng(0).normal(size=(5, 2)))[0]
    >>> result = minimize_stiefel(objective, X0)
    >>> result.converged
    True
    >>> round(result.fun, 4)          # minus the sum of the two largest eigenvalues
    -9.0
    >>> np.allclose(result.x.T @ result.x, np.eye(2))
    True
    """
    if not callable(objective):
        raise TypeError(f"objective must be callable, returning (f, G); got {type(objective).__name__}")
    refresh = getattr(objective, "refresh", None)
    if refresh is not None and not callable(refresh):
        raise TypeError("objective.refresh exists but is not callable; it must be a method refresh(X) -> bool")
    if callback is not None and not callable(callback):
        raise TypeError(f"callback must be callable; got {type(callback).__name__}")
    max_iter = _check_int("max_iter", max_iter, 0)
    n_stall = _check_int("n_stall", n_stall, 1)
    tau_min = _check_real("tau_min", tau_min, 0, low_open=True)
    tau_max = _check_real("tau_max", tau_max, tau_min)
    tau0 = _check_real("tau0", tau0, 0, low_open=True)
    rho = _check_real("rho", rho, 0, 1, low_open=True, high_open=True)
    gamma = _check_real("gamma", gamma, 0, 1)
    eta = _check_real("eta", eta, 0, 1, low_open=True, high_open=True)
    gtol = _check_real("gtol", gtol, 0)
    xtol = _check_real("xtol", xtol, 0)
    ftol = _check_real("ftol", ftol, 0)
    X = _check_start(X0)
    n = X.shape[0]
    # The step's own products are small (FILM: r x d with r <= a few thousand): on one BLAS thread
    # where small_blas says so. OpenBLAS's threads, left spinning between such products, made a
    # FILM fit on a shared 2-core machine several times slower (benchmarks/bench_film_pairs.py).
    # The objective and its refresh choose their own threads.
    flops = _step_flops(n, X.shape[1])

    history = {"fun": [], "grad_norm": [], "tau": [], "n_backtracks": [], "reference": [],
               "refreshes": []}
    stall = deque(maxlen=n_stall)
    tau = min(max(tau0, tau_min), tau_max)
    point = None
    C = Q = None
    n_fev = n_reorth = 0
    k = 0
    converged = False
    bar = progress(total=max_iter, desc="Stiefel", enabled=True) if verbose else None
    try:
        while True:
            at_limit = k >= max_iter
            changed = False
            # No refresh after the last step: it would change the function the result refers to.
            if refresh is not None and not (at_limit and point is not None):
                changed = refresh(_read_only(point.X if point is not None else X))
                if not isinstance(changed, (bool, np.bool_)):
                    raise TypeError(f"objective.refresh(X) must return True or False (whether the "
                                    f"function changed); got {changed!r} at iteration {k}")
                if changed and point is not None:
                    history["refreshes"].append(k)
            if point is None or changed:
                Xk = X if point is None else point.X
                f, G = _evaluate(objective, Xk, k, "start point" if point is None else "after refresh")
                n_fev += 1
                fresh = point is None
                with small_blas(flops):
                    point = _Point(Xk, f, G, Xk.T @ Xk)
                C, Q = point.f, 1.0
                if fresh:
                    history["fun"].append(point.f)
                    history["grad_norm"].append(point.grad_norm)
            if point.grad_norm < gtol:
                converged, message = True, f"gradient norm {point.grad_norm:.3g} below gtol={gtol:g}"
                break
            if at_limit:
                message = f"max_iter={max_iter} reached (gradient norm {point.grad_norm:.3g})"
                break

            # Curvilinear non-monotone line search along the Cayley curve.
            with small_blas(flops):
                curve = _CayleyCurve(point)
            target_slope = rho * point.slope
            n_backtracks = 0
            trial = tau
            new = None
            while True:
                with small_blas(flops):
                    Y = curve(trial)
                    if Y is not None:
                        Y, YtY, corrected = _feasible(Y)
                if Y is not None:
                    n_reorth += corrected
                    f, G = _evaluate(objective, Y, k, f"line search, tau={trial:.3g}")
                    n_fev += 1
                    if f <= C - trial * target_slope:
                        with small_blas(flops):
                            new = _Point(Y, f, G, YtY)
                        break
                trial *= eta
                n_backtracks += 1
                if trial < tau_min:
                    break
            if new is None:
                message = (f"line search failed at iteration {k}: no step size >= tau_min={tau_min:g} "
                           f"met the decrease condition (f={point.f:.6g}, reference C={C:.6g}); the "
                           "gradient may not match the objective, or the objective changed without "
                           "objective.refresh() returning True")
                break

            history["tau"].append(trial)
            history["n_backtracks"].append(n_backtracks)
            history["reference"].append(C)
            history["fun"].append(new.f)
            history["grad_norm"].append(new.grad_norm)

            S = new.X - point.X
            x_change = float(np.linalg.norm(S)) / np.sqrt(n)
            f_change = abs(point.f - new.f) / (abs(point.f) + 1.0)
            stall.append((x_change, f_change))

            # Barzilai-Borwein on the Riemannian gradients A X (eq. 26-27): long on odd steps,
            # short on even ones. A degenerate pair (no motion, or no change in the gradient)
            # carries no curvature information: keep the step that was just accepted.
            Ydiff = new.AX - point.AX
            sy = abs(float(np.vdot(S, Ydiff)))
            if (k + 1) % 2 == 1:
                bb = float(np.vdot(S, S)) / sy if sy > 0 else np.inf
            else:
                yy = float(np.vdot(Ydiff, Ydiff))
                bb = sy / yy if yy > 0 else np.inf
            tau = min(max(bb, tau_min), tau_max) if (np.isfinite(bb) and bb > 0) else trial

            Q_next = gamma * Q + 1.0
            C = (gamma * Q * C + new.f) / Q_next
            Q = Q_next
            point = new
            k += 1
            if bar is not None:
                bar.update(1)
            if callback is not None and callback(k, _read_only(point.X), point.f):
                message = f"stopped by callback at iteration {k}"
                break
            if len(stall) == n_stall:
                mean_x, mean_f = np.mean(stall, axis=0)
                if mean_x < xtol and mean_f < ftol:
                    converged = True
                    message = (f"relative changes in X ({mean_x:.3g}) and f ({mean_f:.3g}) below "
                               f"xtol={xtol:g} and ftol={ftol:g} over the last {n_stall} steps")
                    break
    finally:
        if bar is not None:
            bar.close()

    return StiefelResult(x=point.X, fun=point.f, n_iter=k, converged=converged, message=message,
                         history=history, grad_norm=point.grad_norm, n_fev=n_fev,
                         n_reorth=n_reorth)
