"""The sparse randomised SVD route of learnsim._linalg (used by FILM and MCD on large sparse X)."""
import numpy as np
import pytest
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from learnsim._utils import linalg as _linalg
from learnsim._utils.linalg import _sparse_randomized_svd, truncated_svd_with_u


def _low_rank_sparse(n=900, m=700, rank=30, density=0.02, seed=0):
    """A sparse matrix with a fast-decaying spectrum (the regime of tf-idf) plus sparse noise."""
    rng = np.random.default_rng(seed)
    A = sp.random(n, rank, density=0.3, random_state=rng) @ sp.diags(np.geomspace(10, 0.5, rank)) \
        @ sp.random(rank, m, density=0.3, random_state=rng)
    return sp.csr_matrix(A + 0.01 * sp.random(n, m, density=density, random_state=rng))


def test_sparse_route_matches_the_exact_svd():
    X = _low_rank_sparse()
    U, s, Vt = _sparse_randomized_svd(X, 10, seed=0)
    exact = np.linalg.svd(X.toarray(), compute_uv=False)[:10]
    np.testing.assert_allclose(s, exact, rtol=1e-6)
    assert U.shape == (900, 10) and Vt.shape == (10, 700)
    np.testing.assert_allclose(Vt @ Vt.T, np.eye(10), atol=1e-10)          # word side orthonormal
    np.testing.assert_allclose(U.T @ U, np.eye(10), atol=1e-6)
    np.testing.assert_allclose(X @ Vt.T, U * s, atol=1e-8)                 # U = X V / sigma


def test_sparse_route_of_a_rank_deficient_matrix_gives_zero_singular_values():
    rng = np.random.default_rng(1)
    X = sp.csr_matrix(sp.random(800, 5, density=0.5, random_state=rng) @ sp.random(5, 600, density=0.5,
                                                                                      random_state=rng))
    U, s, Vt = _sparse_randomized_svd(X, 8, seed=0)
    assert np.all(s[:5] > 1e-6) and np.all(s[5:] <= 1e-8 * s[0])
    assert np.allclose(U[:, 5:], 0.0)


def test_sparse_route_does_not_depend_on_the_thread_count():
    X = _low_rank_sparse(seed=2)
    with threadpool_limits(1):
        one = _sparse_randomized_svd(X, 6, seed=3)
    with threadpool_limits(2):
        two = _sparse_randomized_svd(X, 6, seed=3)
    for a, b in zip(one, two):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_truncated_svd_with_u_takes_the_sparse_route_for_large_sparse_input(monkeypatch):
    X = _low_rank_sparse(n=1500, m=1200, seed=4)
    monkeypatch.setattr(_linalg, "_DENSE_SVD_MAX_ELEMENTS", 0)
    monkeypatch.setattr(_linalg, "_DENSE_SVD_LARGE_RANK_MAX_ELEMENTS", 0)
    monkeypatch.setattr(_linalg, "_GRAM_MAX_ROWS", 0)
    called = []
    real = _linalg._sparse_randomized_svd
    monkeypatch.setattr(_linalg, "_sparse_randomized_svd", lambda *a, **k: called.append(1) or real(*a, **k))
    U, s, Vt = truncated_svd_with_u(X, 5, seed=0)
    assert called
    np.testing.assert_allclose(s, np.linalg.svd(X.toarray(), compute_uv=False)[:5], rtol=1e-6)
    assert U.shape == (1500, 5) and Vt.shape == (5, 1200)


@pytest.mark.parametrize("step", [1, 3, 8192])
def test_first_largest_abs_rows_is_numpys_argmax(step):
    """The blocked search gives np.argmax(np.abs(V), axis=0): ties (equal |entries|, of either
    sign, in several blocks) to the first row, and zero columns to row 0."""
    from learnsim._utils.linalg import first_largest_abs_rows

    rng = np.random.default_rng(0)
    V = np.round(rng.standard_normal((50, 7)), 1)
    V[:, 3] = 0.0
    V[[4, 20, 41], 5] = [-9.0, 9.0, -9.0]
    V[[30, 2], 6] = [8.5, -8.5]
    np.testing.assert_array_equal(first_largest_abs_rows(V, step=step), np.argmax(np.abs(V), axis=0))


def test_single_blas_thread_nests():
    """Inside a one-thread context another one changes nothing and costs nothing; leaving the
    outer one restores BLAS's threads."""
    controller = _linalg._blas_controller()
    if controller is None:
        pytest.skip("threadpoolctl is not installed")

    def blas_threads():
        return [i["num_threads"] for i in controller.info() if i["user_api"] == "blas"]

    with threadpool_limits(limits=2, user_api="blas"):
        before = blas_threads()
        with _linalg._single_blas_thread():
            assert set(blas_threads()) <= {1}
            with _linalg._single_blas_thread():
                assert set(blas_threads()) <= {1}
            assert set(blas_threads()) <= {1}
        assert blas_threads() == before
