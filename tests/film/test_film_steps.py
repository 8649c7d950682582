"""FILM's public steps (issue 31): the pieces a fit that holds the anchors elsewhere (the Dask
fit) shares with FILM.fit - the SVD rank, the SVD without its zero directions, the objective's
f2 and gradient (FilmObjective), the random streams and Algorithm 1's optimisation."""
import numpy as np
import pytest

from learnsim.film import FILM, FilmObjective, choose_svd_rank, trim_svd


def _data(seed=0, n=40, dim=12):
    rng = np.random.default_rng(seed)
    X = np.abs(rng.normal(size=(n, dim)))
    labels = np.arange(n) % 4
    T = np.array([[i, (i + 4) % n, (i + 1) % n] for i in range(n)])
    return X, labels, T


def test_the_steps_in_a_row_are_fit():
    """random_streams, choose_svd_rank, the SVD, trim_svd and fit_objective on the in-memory
    objective give fit's map bit for bit: fit runs these steps."""
    from learnsim._utils.linalg import truncated_svd_with_u
    from learnsim.film._film import _FilmObjective

    X, _, T = _data()
    params = dict(n_components=3, baseline_holdout=None, random_state=0, max_iter=30)
    fitted = FILM(**params).fit(X, T)
    film = FILM(**params)
    rng, _ = film.random_streams()
    r = choose_svd_rank(3, None, *X.shape)
    Xn = FILM._normalize_rows(X, FILM._row_norms(X))
    V, sigma, Ut = trim_svd(*truncated_svd_with_u(Xn, r, int(rng.integers(2**31 - 1))), 3)
    film.fit_objective(_FilmObjective(np.ascontiguousarray(V), T, rng=rng), sigma, Ut, n_triplets=len(T),
                       n_items=X.shape[0], rng=rng)
    np.testing.assert_array_equal(film.components_, fitted.components_)
    np.testing.assert_array_equal(film.hinge_loss_curve_, fitted.hinge_loss_curve_)
    assert (film.n_iter_, film.svd_rank_, film.margin_) == (fitted.n_iter_, fitted.svd_rank_, fitted.margin_)


def test_random_streams():
    rng, check = FILM(random_state=3).random_streams()
    again, _ = FILM(random_state=3).random_streams()
    assert rng.integers(1 << 30) == again.integers(1 << 30)
    assert check is not rng
    gen = np.random.default_rng(5)
    rng, check = FILM(random_state=gen).random_streams()
    assert rng is gen


def test_choose_svd_rank():
    assert choose_svd_rank(4, None, 100, 1000) == 20
    assert choose_svd_rank(4, None, 10, 1000) == 10
    assert choose_svd_rank(4, 6, 100, 8) == 6
    with pytest.raises(ValueError, match="largest possible rank"):
        choose_svd_rank(9, None, 8, 100)
    with pytest.raises(ValueError, match="larger than svd_rank=3"):
        choose_svd_rank(4, 3, 100, 100)
    with pytest.raises(MemoryError, match="svd_rank=30000"):
        choose_svd_rank(4, 30000, 10**6, 10**6)


def test_trim_svd():
    V, s, Ut = np.eye(4, 3), np.array([2.0, 1.0, 1e-14]), np.eye(3, 5)
    tV, ts, tUt = trim_svd(V, s, Ut, 2)
    assert tV.shape == (4, 2) and ts.tolist() == [2.0, 1.0] and tUt.shape == (2, 5)
    full = np.array([2.0, 1.0, 0.5])
    assert trim_svd(V, full, Ut, 3)[1] is full           # nothing to drop: the same arrays
    with pytest.raises(ValueError, match="numerical rank of X \\(2"):
        trim_svd(V, s, Ut, 3)


def test_film_objective_contract():
    objective = FilmObjective(margin=0.5)
    objective.set_terms(np.array([[-2.0, 1.0], [0.0, -1.0]]), n_active=3.0)
    np.testing.assert_array_equal(objective.K_sym, [[-4.0, 1.0], [1.0, -2.0]])
    P = np.eye(2)
    f, G = objective(P)
    k = np.array([2.0, 1.0])
    mu = np.logaddexp(0.0, k)
    assert f == pytest.approx(-0.5 * k @ mu + 0.5 * 3.0)          # eq. (19)
    # eq. (28), against a finite difference along a tangent direction of St(2, 2)
    A = np.array([[0.0, 1.0], [-1.0, 0.0]])
    eps = 1e-6
    f2, _ = objective(P @ (np.eye(2) + eps * A))
    assert (f2 - f) / eps == pytest.approx(np.sum(G * (P @ A)), rel=1e-4)
    with pytest.raises(NotImplementedError):
        objective.refresh(P)
    z = np.array([-1.0, 0.0, 1.0])
    np.testing.assert_array_equal(FilmObjective.active_set(z, 0.5, 0.0), [0.0, 1.0, 1.0])
    np.testing.assert_allclose(FilmObjective.active_set(z, 0.5, 1.0), 1.0 / (1.0 + np.exp(-(z + 0.5))))
