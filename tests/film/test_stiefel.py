"""Tests of the Stiefel-manifold optimiser (Cayley transform, BB steps, non-monotone search)."""
from __future__ import annotations

import numpy as np
import pytest

from learnsim.film.stiefel import StiefelResult, cayley_step, minimize_stiefel


def _orthonormal(n, p, seed):
    return np.linalg.qr(np.random.default_rng(seed).standard_normal((n, p)))[0]


def _symmetric_with_spectrum(eigenvalues, seed):
    """Random symmetric matrix with the given (well separated) eigenvalues and its eigenvectors."""
    n = len(eigenvalues)
    basis = _orthonormal(n, n, seed)
    return (basis * eigenvalues) @ basis.T, basis


class NegativeTrace:
    """f(X) = -tr(X^T A X) (+ N weights: Brockett's -tr(X^T A X N)); G = -2 A X N."""

    def __init__(self, A, weights=None):
        self.A, self.weights = A, weights

    def __call__(self, X):
        AX = self.A @ X
        if self.weights is not None:
            AX = AX * self.weights
        return -np.sum(X * AX), -2.0 * AX


class ShiftingTrace:
    """f_j(X) = -tr(X^T A_j X) + c_j p, where (A_j, c_j) moves to the next pair every `every`
    iterations: the eigenvectors turn and the level jumps up by more than the range of f_{j-1},
    as when FILM re-estimates K. With announce=False, refresh() changes the function but
    reports no change (the literal algorithm of the paper)."""

    def __init__(self, mats, shifts, every, announce=True):
        self.mats, self.shifts, self.every, self.announce = mats, shifts, every, announce
        self.j = 0
        self.calls = 0

    def refresh(self, X):
        self.calls += 1
        j = min((self.calls - 1) // self.every, len(self.mats) - 1)
        changed = j != self.j
        self.j = j
        return changed if self.announce else False

    def __call__(self, X):
        AX = self.mats[self.j] @ X
        return -np.sum(X * AX) + self.shifts[self.j] * X.shape[1], -2.0 * AX


def _shifting_problem(announce, n=40, p=3, every=5):
    eigenvalues = np.linspace(1.0, 10.0, n)
    pairs = [_symmetric_with_spectrum(eigenvalues, seed) for seed in (11, 12, 13, 14)]
    # Shifts 60 apart exceed the range of -tr(X^T A X) on the manifold (at most 27 here), so an
    # unannounced change makes every point worse than the old reference value.
    objective = ShiftingTrace([A for A, _ in pairs], [0.0, 60.0, 120.0, 180.0], every, announce)
    return objective, pairs[-1][1][:, -p:], -eigenvalues[-p:].sum(), _orthonormal(n, p, 0)


def _dense_cayley(X, G, tau):
    W = G @ X.T - X @ G.T
    eye = np.eye(X.shape[0])
    return np.linalg.solve(eye + 0.5 * tau * W, (eye - 0.5 * tau * W) @ X)


# --- the Cayley step ------------------------------------------------------------------------

@pytest.mark.parametrize("tau", [1e-6, 0.1, 1.0, 37.0])
def test_low_rank_cayley_step_equals_dense_formula(tau):
    X = _orthonormal(12, 3, 1)
    G = np.random.default_rng(2).standard_normal((12, 3))
    Y = cayley_step(X, G, tau)
    np.testing.assert_allclose(Y, _dense_cayley(X, G, tau), atol=1e-10, rtol=0)
    assert np.linalg.norm(Y.T @ Y - np.eye(3)) < 1e-12
    assert np.linalg.norm(Y - X) > 1e-7  # it moved


def test_cayley_step_at_zero_is_identity_and_descends_for_small_tau():
    A, _ = _symmetric_with_spectrum(np.linspace(1, 5, 15), 3)
    objective = NegativeTrace(A)
    X = _orthonormal(15, 2, 4)
    f, G = objective(X)
    np.testing.assert_array_equal(cayley_step(X, G, 0.0), X)
    assert objective(cayley_step(X, G, 1e-3))[0] < f


def test_cayley_step_rejects_mismatched_gradient():
    with pytest.raises(ValueError, match="same shape"):
        cayley_step(np.eye(4, 2), np.zeros((4, 3)), 0.1)


# --- what it finds ----------------------------------------------------------------------------

def test_negative_trace_finds_top_eigenspace():
    eigenvalues = np.linspace(1.0, 10.0, 60)
    A, basis = _symmetric_with_spectrum(eigenvalues, 5)
    p = 4
    res = minimize_stiefel(NegativeTrace(A), _orthonormal(60, p, 6), gtol=1e-9, xtol=0, ftol=0)
    assert isinstance(res, StiefelResult)
    assert res.converged and "gtol" in res.message
    top = basis[:, -p:]
    # Cross-check the expected answer independently with eigh.
    w, v = np.linalg.eigh(A)
    np.testing.assert_allclose(np.abs(v[:, -p:].T @ top), np.eye(p), atol=1e-8)
    assert np.linalg.norm(res.x @ res.x.T - top @ top.T) < 1e-6
    assert res.fun == pytest.approx(-w[-p:].sum(), abs=1e-9)
    assert res.grad_norm < 1e-9
    assert len(res.history["fun"]) == res.n_iter + 1 == len(res.history["grad_norm"])
    assert len(res.history["tau"]) == res.n_iter == len(res.history["n_backtracks"])


def test_brockett_objective_recovers_eigenvectors_in_order():
    eigenvalues = np.linspace(1.0, 10.0, 40)
    A, basis = _symmetric_with_spectrum(eigenvalues, 7)
    p = 4
    weights = np.arange(p, 0, -1.0)  # N = diag(p, ..., 1)
    res = minimize_stiefel(NegativeTrace(A, weights), _orthonormal(40, p, 8), gtol=1e-9,
                           max_iter=5000)
    assert res.converged
    expected = basis[:, ::-1][:, :p]  # largest eigenvalue with the largest weight
    np.testing.assert_allclose(np.abs(np.sum(res.x * expected, axis=0)), np.ones(p), atol=1e-8)
    assert res.fun == pytest.approx(-np.dot(weights, eigenvalues[::-1][:p]), abs=1e-8)


def test_large_n_runs_without_dense_n_by_n_matrices():
    # n x n float64 would need 51 GB at this size: the run finishing shows none is formed.
    n, p = 80_000, 3
    B = np.random.default_rng(9).standard_normal((n, 5)) * np.array([5.0, 4.0, 3.0, 1.0, 0.5])

    def objective(X):
        BtX = B.T @ X
        return -np.sum(BtX * BtX), -2.0 * (B @ BtX)

    X0 = _orthonormal(n, p, 10)
    res = minimize_stiefel(objective, X0, max_iter=15)
    assert res.n_iter == 15
    assert res.fun < objective(X0)[0]
    assert np.linalg.norm(res.x.T @ res.x - np.eye(p)) < 1e-10


# --- feasibility and the line search ---------------------------------------------------------------

def test_columns_stay_orthonormal_over_2000_steps():
    n, p = 30, 5
    rng = np.random.default_rng(12)
    mats = []
    for _ in range(80):
        M = rng.standard_normal((n, n))
        mats.append(M + M.T)
    linear = rng.standard_normal((n, p))

    class Wandering:
        """A random quadratic plus linear term that is redrawn every 25 iterations, so the
        iterates keep travelling and every step is a real one."""

        def __init__(self):
            self.calls = 0

        def refresh(self, X):
            self.calls += 1
            return (self.calls - 1) % 25 == 0 and self.calls > 1

        def __call__(self, X):
            A = mats[((self.calls - 1) // 25) % len(mats)]
            AX = A @ X
            return np.sum(X * AX) + np.sum(linear * X), 2.0 * AX + linear

    errors, moves = [], []
    previous = [_orthonormal(n, p, 13)]

    def record(k, X, f):
        errors.append(np.linalg.norm(X.T @ X - np.eye(p)))
        moves.append(np.linalg.norm(X - previous[0]))
        previous[0] = X.copy()

    res = minimize_stiefel(Wandering(), previous[0], max_iter=2000, gtol=0, xtol=0, ftol=0,
                           callback=record)
    assert res.n_iter == 2000 == len(errors)
    assert max(errors) < 1e-10
    # Unchecked, rounding drift reaches about 1e-11 here; the optimiser restores it above 1e-12.
    assert max(errors) <= 1e-12 and res.n_reorth > 0
    assert sum(moves) > 100  # it went a long way along the manifold
    assert len(res.history["refreshes"]) == 79


def test_reference_values_non_increasing_and_steps_meet_the_armijo_condition():
    rng = np.random.default_rng(14)
    n, p = 25, 4
    M = rng.standard_normal((n, n))
    A = M + M.T
    linear = rng.standard_normal((n, p))

    def objective(X):  # indefinite quadratic + linear term: the line search has work to do
        AX = A @ X
        return np.sum(X * AX) + np.sum(linear * X), 2.0 * AX + linear

    iterates = [_orthonormal(n, p, 15)]
    res = minimize_stiefel(objective, iterates[0], max_iter=300, gtol=1e-8, rho=0.3,
                           callback=lambda k, X, f: iterates.append(X.copy()))
    h = res.history
    ref = np.array(h["reference"])
    assert np.all(np.diff(ref) <= 1e-12 * np.abs(ref[1:]))
    assert h["fun"][-1] < h["fun"][0]
    assert res.fun == h["fun"][-1]
    for k in range(res.n_iter):
        f, G = objective(iterates[k])
        W = G @ iterates[k].T - iterates[k] @ G.T
        slope = 0.5 * np.sum(W * W)  # -F'(Y(0)) for the Cayley curve
        assert h["fun"][k + 1] <= ref[k] - 0.3 * h["tau"][k] * slope + 1e-12
    assert sum(h["n_backtracks"]) > 0  # the test exercised backtracking


def test_step_sizes_alternate_long_and_short_barzilai_borwein():
    A, _ = _symmetric_with_spectrum(np.linspace(1.0, 10.0, 30), 16)
    objective = NegativeTrace(A)
    iterates = [_orthonormal(30, 3, 17)]
    res = minimize_stiefel(objective, iterates[0], max_iter=40, gtol=1e-12,
                           callback=lambda k, X, f: iterates.append(X.copy()))

    def riemannian_gradient(X):
        G = objective(X)[1]
        return G - X @ G.T @ X

    checked = {"long": 0, "short": 0}
    for j in range(1, res.n_iter):  # tau of step j+1 comes from steps j-1 -> j
        if res.history["n_backtracks"][j]:
            continue
        S = iterates[j] - iterates[j - 1]
        Y = riemannian_gradient(iterates[j]) - riemannian_gradient(iterates[j - 1])
        sy = abs(np.sum(S * Y))
        kind = "long" if j % 2 == 1 else "short"
        expected = np.sum(S * S) / sy if kind == "long" else sy / np.sum(Y * Y)
        assert res.history["tau"][j] == pytest.approx(expected, rel=1e-6)
        checked[kind] += 1
    assert checked["long"] > 3 and checked["short"] > 3


# --- objectives that change: the refresh() protocol ----------------------------------------------

def test_refresh_keeps_the_step_size_alive_and_reaches_the_final_optimum():
    objective, top, best, X0 = _shifting_problem(announce=True)
    res = minimize_stiefel(objective, X0, gtol=1e-9)
    assert res.converged
    assert res.history["refreshes"] == [5, 10, 15]
    assert min(res.history["tau"]) > 1e-8
    assert np.linalg.norm(res.x @ res.x.T - top @ top.T) < 1e-6
    assert res.fun == pytest.approx(best + 180.0 * 3, abs=1e-8)
    # Called at the start of every iteration, including the last (where gtol was checked).
    assert objective.calls == res.n_iter + 1


def test_unannounced_change_collapses_the_line_search():
    # The same run where refresh() hides the change: the reference value C_k belongs to the old
    # function, no step of the new one can get below it, and tau is cut down to tau_min.
    objective, _, _, X0 = _shifting_problem(announce=False)
    res = minimize_stiefel(objective, X0, gtol=1e-9)
    assert not res.converged
    assert res.n_iter == 5  # stuck at the first change
    assert res.message.startswith("line search failed at iteration 5")
    assert "refresh" in res.message
    # Backtracking from a BB step of order 1 down to tau_min=1e-20 by eta=0.2 takes about
    # log(1e20) / log(5) = 29 futile evaluations.
    assert res.n_fev - (res.n_iter + 1) > 25


def test_refresh_must_return_a_bool():
    class Forgetful(NegativeTrace):
        def refresh(self, X):
            pass

    with pytest.raises(TypeError, match=r"refresh\(X\) must return True or False.*None"):
        minimize_stiefel(Forgetful(np.eye(4)), np.eye(4, 2))


# --- stopping, bookkeeping ------------------------------------------------------------------------

def test_stall_criterion_stops_a_run_that_no_longer_moves():
    A, _ = _symmetric_with_spectrum(np.linspace(1.0, 10.0, 20), 18)
    res = minimize_stiefel(NegativeTrace(A), _orthonormal(20, 2, 19), gtol=0, xtol=1e-6,
                           ftol=1e-8, n_stall=3)
    assert res.converged and "xtol" in res.message
    assert res.n_iter < 1000


def test_max_iter_callback_and_zero_iterations():
    A, _ = _symmetric_with_spectrum(np.linspace(1.0, 10.0, 20), 20)
    X0 = _orthonormal(20, 2, 21)
    res = minimize_stiefel(NegativeTrace(A), X0, max_iter=3, gtol=0)
    assert (res.n_iter, res.converged) == (3, False) and "max_iter" in res.message
    res = minimize_stiefel(NegativeTrace(A), X0, max_iter=0)
    np.testing.assert_array_equal(res.x, X0)
    assert res.n_iter == 0 and res.fun == NegativeTrace(A)(X0)[0]
    res = minimize_stiefel(NegativeTrace(A), X0, callback=lambda k, X, f: k == 2)
    assert res.n_iter == 2 and "callback" in res.message


def test_x0_within_tolerance_is_cleaned_and_not_modified():
    X0 = _orthonormal(10, 3, 22)
    X0[0, 0] += 1e-9
    before = X0.copy()
    res = minimize_stiefel(NegativeTrace(np.diag(np.arange(10.0))), X0, max_iter=2)
    np.testing.assert_array_equal(X0, before)
    assert np.linalg.norm(res.x.T @ res.x - np.eye(3)) < 1e-12


def test_objective_receives_read_only_iterates():
    def vandal(X):
        X[0, 0] = 5.0
        return 0.0, np.zeros_like(X)

    with pytest.raises(ValueError, match="read-only"):
        minimize_stiefel(vandal, np.eye(3, 2))


def test_deterministic():
    A, _ = _symmetric_with_spectrum(np.linspace(1.0, 10.0, 30), 23)
    X0 = _orthonormal(30, 3, 24)
    a = minimize_stiefel(NegativeTrace(A), X0, gtol=1e-8)
    b = minimize_stiefel(NegativeTrace(A), X0, gtol=1e-8)
    np.testing.assert_array_equal(a.x, b.x)
    assert a.history == b.history and a.n_fev == b.n_fev


def test_verbose_shows_progress(capsys):
    A, _ = _symmetric_with_spectrum(np.linspace(1.0, 10.0, 10), 25)
    minimize_stiefel(NegativeTrace(A), _orthonormal(10, 2, 26), max_iter=5, gtol=0, verbose=True)
    assert "Stiefel" in capsys.readouterr().err
    minimize_stiefel(NegativeTrace(A), _orthonormal(10, 2, 26), max_iter=5, gtol=0)
    assert capsys.readouterr().err == ""


# --- bad input ---------------------------------------------------------------------------------------

def _quadratic(X):
    return float(np.sum(X * X)), 2.0 * X


@pytest.mark.parametrize("X0, pattern", [
    (np.ones(4), r"X0 must be a 2-D array .* shape \(4,\)"),
    (np.ones((2, 2, 2)), r"X0 must be a 2-D array"),
    (np.eye(2, 3), r"more columns \(3\) than rows \(2\)"),
    (np.ones((4, 2)), r"not orthonormal .*numpy\.linalg\.qr"),
    (np.full((3, 1), np.nan), r"NaN"),
    (np.zeros((3, 0)), r"empty"),
])
def test_bad_start(X0, pattern):
    with pytest.raises(ValueError, match=pattern):
        minimize_stiefel(_quadratic, X0)


def test_nan_value_names_the_iteration():
    A, _ = _symmetric_with_spectrum(np.linspace(1.0, 10.0, 6), 27)
    evaluations = []

    def breaks_on_fourth_call(X):
        evaluations.append(1)
        f, G = NegativeTrace(A)(X)
        return (np.nan if len(evaluations) == 4 else f), G

    with pytest.raises(ValueError, match=r"non-finite value f=nan at iteration [1-3] \(line search, tau="):
        minimize_stiefel(breaks_on_fourth_call, _orthonormal(6, 2, 28), gtol=0)
    with pytest.raises(ValueError, match=r"non-finite value f=nan at iteration 0 \(start point\)"):
        minimize_stiefel(lambda X: (np.nan, X), np.eye(3, 2))


def test_nan_or_misshapen_gradient():
    with pytest.raises(ValueError, match=r"gradient with NaN entries at iteration 0"):
        minimize_stiefel(lambda X: (0.0, np.full_like(X, np.nan)), np.eye(3, 2))
    with pytest.raises(ValueError, match=r"gradient of shape \(2, 3\) .* expected \(3, 2\)"):
        minimize_stiefel(lambda X: (0.0, np.zeros((2, 3))), np.eye(3, 2))
    with pytest.raises(TypeError, match=r"must return a pair \(f, G\)"):
        minimize_stiefel(lambda X: 1.0, np.eye(3, 2))
    with pytest.raises(ValueError, match=r"value f of shape \(2,\)"):
        minimize_stiefel(lambda X: (np.zeros(2), X), np.eye(3, 2))


@pytest.mark.parametrize("kwargs, pattern", [
    ({"max_iter": -1}, r"max_iter must be an integer >= 0"),
    ({"max_iter": 2.5}, r"max_iter must be an integer"),
    ({"rho": 1.5}, r"rho must be < 1"),
    ({"eta": 0}, r"eta must be > 0"),
    ({"gamma": -0.1}, r"gamma must be >= 0"),
    ({"tau0": np.nan}, r"tau0 must be a finite real number"),
    ({"tau_min": 1.0, "tau_max": 0.5}, r"tau_max must be >= 1"),
    ({"n_stall": 0}, r"n_stall must be an integer >= 1"),
    ({"gtol": -1}, r"gtol must be >= 0"),
])
def test_bad_parameters(kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        minimize_stiefel(_quadratic, np.eye(3, 2), **kwargs)


def test_bad_callables():
    with pytest.raises(TypeError, match="objective must be callable"):
        minimize_stiefel(np.eye(3), np.eye(3, 2))
    with pytest.raises(TypeError, match="callback must be callable"):
        minimize_stiefel(_quadratic, np.eye(3, 2), callback=3)
