"""The minimum-cluster-distortion metric: the paper's closed form, its singular case, our
shrinkage, the three eigen-solvers, sparse input, and the errors."""
import numpy as np
import scipy.linalg
import pytest
import scipy.sparse as sp

from learnsim.mcd._mcd import PAPER_PARAMS, MinimumClusterDistortion, _metric_weights
from registry import _blobs_dense, _wide_dense


def scatter(X, y, weights=None):
    """Eq. (7) written literally: sum over clusters of outer products of centred items."""
    X = np.asarray(X, dtype=float)
    A = np.zeros((X.shape[1], X.shape[1]))
    labels = [c for c in np.unique(y) if c >= 0]
    for c in labels:
        Z = X[y == c] - X[y == c].mean(axis=0)
        w = 1.0 if weights is None else weights[c] / sum(weights.values())
        A += w * Z.T @ Z
    return A


def test_full_rank_matches_eq6():
    X, y = _blobs_dense()
    A = scatter(X, y)
    n = A.shape[0]
    M_paper = np.linalg.det(A) ** (1.0 / n) * np.linalg.inv(A)           # eq. (6)
    m = MinimumClusterDistortion(**PAPER_PARAMS).fit(X, y)
    np.testing.assert_allclose(m.get_mahalanobis_matrix(), M_paper, rtol=1e-8, atol=1e-10)
    assert np.linalg.det(m.get_mahalanobis_matrix()) == pytest.approx(1.0, rel=1e-8)  # eq. (5)
    assert m.solver_ == "cholesky" and m.eigenvalues_ is None and m.rank_ == n


def test_cholesky_and_eigen_routes_agree_and_ill_conditioned_falls_back(monkeypatch):
    import learnsim.mcd._mcd as mcd
    X, y = _blobs_dense(seed=4)
    chol = MinimumClusterDistortion(**PAPER_PARAMS).fit(X, y)
    monkeypatch.setattr(mcd, "_cholesky_inverse_factor", lambda A, tol: None)
    eig = MinimumClusterDistortion(**PAPER_PARAMS).fit(X, y)
    monkeypatch.undo()
    assert (chol.solver_, eig.solver_) == ("cholesky", "covariance")
    np.testing.assert_allclose(chol.get_mahalanobis_matrix(), eig.get_mahalanobis_matrix(), rtol=1e-8)
    np.testing.assert_allclose(chol.transform(X) @ chol.transform(X).T, eig.transform(X) @ eig.transform(X).T,
                               rtol=1e-7, atol=1e-8)
    # a feature that is an exact copy of another makes A singular: the pseudo-inverse takes over
    Xs = np.hstack([X, X[:, :1]])
    m = MinimumClusterDistortion(**PAPER_PARAMS).fit(Xs, y)
    assert m.solver_ == "covariance" and m.rank_ == X.shape[1]


def test_minimises_distortion_among_unit_determinant_metrics():
    X, y = _blobs_dense(seed=3)
    A = scatter(X, y)
    M = MinimumClusterDistortion(**PAPER_PARAMS).fit(X, y).get_mahalanobis_matrix()
    objective = lambda M: np.trace(M @ A)  # eq. (4) = tr(M A)
    rng = np.random.default_rng(0)
    for _ in range(20):
        B = rng.normal(size=A.shape) * 0.1
        P = M + B @ B.T + 0.01 * np.eye(len(A))
        P /= np.linalg.det(P) ** (1.0 / len(A))
        assert objective(P) > objective(M)


def test_singular_uses_pseudo_inverse_of_appendix_b():
    X, y = _wide_dense()
    A = scatter(X, y)
    sig = np.linalg.eigvalsh(A)
    sig = sig[sig > 1e-9 * sig.max()]
    M_paper = np.prod(sig ** (1.0 / len(sig))) * scipy.linalg.pinvh(A, atol=0.0, rtol=1e-9)
    m = MinimumClusterDistortion(**PAPER_PARAMS).fit(X, y)
    assert m.solver_ == "gram"
    assert m.rank_ == len(m.eigenvalues_) == len(sig) == X.shape[0] - len(np.unique(y))
    np.testing.assert_allclose(m.get_mahalanobis_matrix(), M_paper, rtol=1e-6, atol=1e-8)


def test_cluster_weights_sec_4_3():
    X, y = _blobs_dense(seed=1)
    from learnsim.supervision import Clusters
    w = {0: 5.0, 1: 1.0, 2: 1.0, 3: 2.0, 4: 1.0, 5: 0.5}
    A = scatter(X, y, w)
    m = MinimumClusterDistortion(**PAPER_PARAMS).fit(X, Clusters(y, weights=w))
    n = A.shape[0]
    np.testing.assert_allclose(m.get_mahalanobis_matrix(),
                               np.linalg.det(A) ** (1 / n) * np.linalg.inv(A), rtol=1e-7)
    unweighted = MinimumClusterDistortion(**PAPER_PARAMS).fit(X, y).get_mahalanobis_matrix()
    assert not np.allclose(unweighted, m.get_mahalanobis_matrix(), rtol=1e-3)


def test_shrinkage_one_is_euclid_and_shrinkage_interpolates():
    X, y = _wide_dense(seed=2)
    m1 = MinimumClusterDistortion(baseline_holdout=None, n_basis=None, shrinkage=1.0, complement_weight=1.0).fit(X, y)
    np.testing.assert_allclose(m1.get_mahalanobis_matrix(), np.eye(X.shape[1]), atol=1e-10)
    A = scatter(X, y)
    alpha = 0.05
    lam = np.linalg.eigvalsh(A)
    mean_nonzero = lam[lam > 1e-9 * lam.max()].mean()
    Aa = (1 - alpha) * A / mean_nonzero + alpha * np.eye(len(A))
    expected = np.linalg.det(Aa) ** (1 / len(A)) * np.linalg.inv(Aa)
    # the ridge reading: outside A's range the inverse of alpha * I
    m = MinimumClusterDistortion(baseline_holdout=None, n_basis=None, shrinkage=alpha, complement_weight=1 / alpha).fit(X, y)
    np.testing.assert_allclose(m.get_mahalanobis_matrix(), expected, rtol=1e-6)


@pytest.mark.parametrize("alpha, gamma", [(0.0, 0.0), (0.2, 1.0)])
def test_sparse_equals_dense_and_routes_agree(alpha, gamma):
    X, y = _wide_dense(seed=4)
    X[np.abs(X) < 0.8] = 0.0
    dense = MinimumClusterDistortion(baseline_holdout=None, n_basis=None, shrinkage=alpha, complement_weight=gamma).fit(X, y)
    sparse = MinimumClusterDistortion(baseline_holdout=None, n_basis=None, shrinkage=alpha, complement_weight=gamma).fit(sp.csr_matrix(X), y)
    Q = X[:7]
    np.testing.assert_allclose(dense.pairwise_distances(Q, X), sparse.pairwise_distances(sp.csr_matrix(Q), X),
                               rtol=1e-7, atol=1e-6)
    # the covariance route (D <= n) against the Gram route on the same data
    Xs = X[:, :20]
    cov = MinimumClusterDistortion(baseline_holdout=None, n_basis=None, shrinkage=alpha, complement_weight=gamma).fit(Xs, y)
    import learnsim.mcd._mcd as mcd
    saved, mcd._MAX_COVARIANCE_DIM = mcd._MAX_COVARIANCE_DIM, 1
    try:
        gram = MinimumClusterDistortion(baseline_holdout=None, n_basis=None, shrinkage=alpha, complement_weight=gamma).fit(sp.csr_matrix(Xs), y)
    finally:
        mcd._MAX_COVARIANCE_DIM = saved
    assert cov.solver_ in ("covariance", "cholesky") and gram.solver_ == "gram"
    np.testing.assert_allclose(cov.pairwise_distances(Xs), gram.pairwise_distances(Xs), rtol=1e-6, atol=1e-6)


def test_randomized_solver_recovers_top_eigenpairs(monkeypatch):
    import learnsim.mcd._mcd as mcd
    X, y = _wide_dense(seed=5)
    exact = MinimumClusterDistortion(**PAPER_PARAMS).fit(X, y)
    monkeypatch.setattr(mcd, "_MAX_COVARIANCE_DIM", 1)
    monkeypatch.setattr(mcd, "_MAX_GRAM_ITEMS", 1)
    approx = MinimumClusterDistortion(**PAPER_PARAMS, n_components=5, random_state=0).fit(X, y)
    assert approx.solver_ == "randomized"
    np.testing.assert_allclose(approx.eigenvalues_, exact.eigenvalues_[:5], rtol=1e-6)
    overlap = np.abs(approx.factor_.T @ exact.factor_[:, :5])
    np.testing.assert_allclose(np.diag(overlap), 1.0, atol=1e-6)
    with pytest.raises(ValueError, match="n_components"):
        MinimumClusterDistortion(**PAPER_PARAMS).fit(X, y)


@pytest.mark.parametrize("params", [PAPER_PARAMS, dict(n_basis=None, shrinkage=0.3, complement_weight=1.0),
                                    dict(n_basis=5, shrinkage=0.1, complement_weight=0.3),
                                    dict(n_basis=5, shrinkage=0.0, complement_weight=0.0)])
def test_transform_components_and_distances_agree(params):
    X, y = _wide_dense(seed=6)
    m = MinimumClusterDistortion(**params).fit(X, y)
    E = m.transform(X)
    D = np.sqrt(((E[:, None, :] - E[None, :, :]) ** 2).sum(-1))
    np.testing.assert_allclose(m.pairwise_distances(X), D, rtol=1e-6, atol=1e-8)
    L = m.components_
    np.testing.assert_allclose(L.T @ L, m.get_mahalanobis_matrix(), rtol=1e-6, atol=1e-9)
    pairs = np.array([[0, 1], [2, 9], [5, 5]])
    np.testing.assert_allclose(m.pair_distance(pairs, X=X), D[pairs[:, 0], pairs[:, 1]], rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(m.pair_distance(np.stack([X[pairs[:, 0]], X[pairs[:, 1]]], axis=1)),
                               D[pairs[:, 0], pairs[:, 1]], rtol=1e-6, atol=1e-8)
    assert m.get_metric()(X[2], X[9]) == pytest.approx(D[2, 9], rel=1e-6)


def test_auto_selection_on_held_out_clusters():
    X, y = _blobs_dense(seed=7, n_clusters=12, per=10)
    m = MinimumClusterDistortion(random_state=0).fit(X, y)
    res = m.cv_results_
    n_candidates = len(set(res["n_basis"])) * len(m.shrinkage_grid) * len(m.complement_grid)
    assert len(res["score"]) == n_candidates
    scores = dict(zip(zip(res["n_basis"], res["shrinkage"], res["complement_weight"]), res["score"]))
    chosen = scores[(m.n_basis_, m.shrinkage_, m.complement_weight_)]
    # successive halving: the settings scored on every fold compete
    complete = [s for s, n in zip(res["score"], res["n_folds"]) if n == max(res["n_folds"])]
    assert chosen == pytest.approx(max(complete))
    # anisotropic noise: the learned metric must beat Euclid (alpha = gamma = 1) on held-out clusters
    euclid = scores[(m.n_basis_, 1.0, 1.0)]
    assert chosen > euclid + 0.02
    assert m.shrinkage_ < 1.0


def test_basis_mode_is_whitening_in_top_singular_coordinates():
    X, y = _wide_dense(seed=9)
    y = y.copy()
    y[-6:] = -1                                   # unlabelled rows still shape the basis
    k = 6
    _, _, Vt = np.linalg.svd(X, full_matrices=False)
    B = Vt[:k].T
    Y = X @ B
    C = scatter(Y, y)                             # eq. (7) in the basis coordinates
    expected_sub = np.linalg.det(C) ** (1 / k) * np.linalg.inv(C)
    m = MinimumClusterDistortion(baseline_holdout=None, n_basis=k, shrinkage=0.0, complement_weight=0.0).fit(X, y)
    assert m.solver_ == "basis" and m.n_basis_ == k
    D = m.pairwise_distances(X, squared=True)
    diff = Y[:, None, :] - Y[None, :, :]
    np.testing.assert_allclose(D, np.einsum("ijk,kl,ijl->ij", diff, expected_sub, diff), rtol=1e-6, atol=1e-8)
    # moving the unlabelled rows moves the basis, hence the metric
    X2 = X.copy()
    X2[-6:] = np.random.default_rng(1).normal(size=(6, X.shape[1])) * 10
    m2 = MinimumClusterDistortion(baseline_holdout=None, n_basis=k, shrinkage=0.0, complement_weight=0.0).fit(X2, y)
    assert not np.allclose(m2.pairwise_distances(X[:10]), m.pairwise_distances(X[:10]))


def test_basis_grid_capped_at_rank():
    X, y = _blobs_dense(seed=2)                   # 8 features
    m = MinimumClusterDistortion(basis_grid=(4, 50, 100), random_state=0).fit(X, y)
    assert set(m.cv_results_["n_basis"]) == {4, 8}


def test_determinism_and_unlabelled_items_ignored():
    X, y = _blobs_dense(seed=8)
    a = MinimumClusterDistortion(random_state=3).fit(X, y)
    b = MinimumClusterDistortion(random_state=3).fit(X, y)
    np.testing.assert_array_equal(a.weights_, b.weights_)
    assert a.cv_results_ == b.cv_results_
    y2 = y.copy()
    X2 = np.vstack([X, np.random.default_rng(0).normal(size=(10, X.shape[1])) * 100])
    y2 = np.concatenate([y, -np.ones(10, dtype=int)])
    c = MinimumClusterDistortion(**PAPER_PARAMS).fit(X2, y2)
    d = MinimumClusterDistortion(**PAPER_PARAMS).fit(X, y)
    np.testing.assert_allclose(c.get_mahalanobis_matrix(), d.get_mahalanobis_matrix(), rtol=1e-8)


def test_metric_weights_scale_is_unit_determinant():
    lam = np.array([5.0, 2.0, 0.5])
    w, beta, s = _metric_weights(lam, 0.1, 0.3, n_features=10)
    assert np.sum(np.log(w)) + 7 * np.log(beta) == pytest.approx(0.0, abs=1e-10)
    w0, beta0, _ = _metric_weights(lam, 0.0, 0.0, n_features=10)
    assert beta0 == 0.0 and np.sum(np.log(w0)) == pytest.approx(0.0, abs=1e-10)
    np.testing.assert_allclose(w0, np.exp(np.mean(np.log(lam))) / lam)       # Appendix B
    w1, beta1, _ = _metric_weights(lam, 1.0, 1.0, n_features=10)
    np.testing.assert_allclose(w1, 1.0) and beta1 == pytest.approx(1.0)


# ------------------------------------------------------------------------- errors
@pytest.mark.parametrize("X, y, match", [
    (np.zeros((0, 3)), np.zeros(0), "0 sample"),
    (np.array([[1.0, np.nan], [0, 1], [2, 2], [3, 3]]), [0, 0, 1, 1], "NaN"),
    (np.ones((6, 2)), [0, 0, 1, 1, 2], "6"),                        # wrong length
    (np.arange(12.0).reshape(6, 2), [0, 0, 1, 1, 2, 3], "fewer|at least|size"),  # clusters of one
    (np.arange(12.0).reshape(6, 2), [-1] * 6, "cluster"),
    (np.arange(6.0), [0, 0, 1, 1, 2, 2], "2-D"),
])
def test_bad_input_errors(X, y, match):
    with pytest.raises((ValueError, TypeError), match=match):
        MinimumClusterDistortion(**PAPER_PARAMS).fit(X, y)


@pytest.mark.parametrize("params, match", [
    ({"shrinkage": 1.5}, "shrinkage"), ({"shrinkage": "big"}, "shrinkage"),
    ({"shrinkage_grid": []}, "shrinkage_grid"), ({"cv": 1}, "cv"),
    ({"complement_weight": -1.0}, "complement_weight"), ({"n_basis": 0}, "n_basis"),
    ({"basis_grid": [0, 4]}, "basis_grid"), ({"complement_grid": [-1]}, "complement_grid"),
    ({"n_components": 0}, "n_components"), ({"selection_measure": "f1"}, "selection_measure"),
    # a grid given as one number (or None) was "'int' object is not iterable"
    ({"basis_grid": 32}, r"basis_grid must be a non-empty list .*; got 32"),
    ({"shrinkage_grid": 0.1}, r"shrinkage_grid must be a non-empty list .*; got 0.1"),
    ({"complement_grid": None}, r"complement_grid must be a non-empty list .*; got None"),
])
def test_bad_params(params, match):
    X, y = _blobs_dense()
    with pytest.raises(ValueError, match=match):
        MinimumClusterDistortion(**params).fit(X, y)


def test_unfitted_and_feature_mismatch():
    from sklearn.exceptions import NotFittedError
    X, y = _blobs_dense()
    m = MinimumClusterDistortion()
    for call in (lambda: m.transform(X), lambda: m.pairwise_distances(X), lambda: m.get_mahalanobis_matrix(),
                 lambda: m.pair_distance([[0, 1]], X=X)):
        with pytest.raises(NotFittedError):
            call()
    m.fit(X, y)
    with pytest.raises(ValueError, match="features"):
        m.transform(X[:, :3])
    with pytest.raises(ValueError, match="out of range"):
        m.pair_distance([[0, 1000]], X=X)


def test_missing_clusters_message():
    with pytest.raises(ValueError, match="requires y"):
        MinimumClusterDistortion().fit(np.ones((4, 2)))


@pytest.mark.parametrize("wide", [False, True])
def test_zero_scatter_has_rank_zero_and_falls_back_to_euclid(wide):
    rng = np.random.default_rng(0)
    X = np.repeat(rng.normal(size=(4, 30 if wide else 5)), 3, axis=0)   # every cluster is one point
    y = np.repeat(np.arange(4), 3)
    m = MinimumClusterDistortion(**PAPER_PARAMS).fit(X, y)
    assert m.rank_ == 0 and m.eigenvalues_.size == 0
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    np.testing.assert_allclose(m.pairwise_distances(X), D, rtol=1e-10, atol=1e-7)


def test_float32_input_is_as_precise_as_float64():
    X, y = _wide_dense(seed=3)
    m = MinimumClusterDistortion(baseline_holdout=None, n_basis=None, shrinkage=0.1, complement_weight=1.0).fit(X, y)
    X32 = X.astype(np.float32)
    D64 = m.pairwise_distances(X32.astype(np.float64))
    D32 = m.pairwise_distances(X32)
    np.testing.assert_allclose(D32, D64, rtol=1e-9, atol=1e-9)
    assert D32.dtype == np.float64


def test_get_metric_refuses_several_points():
    X, y = _blobs_dense()
    metric = MinimumClusterDistortion(**PAPER_PARAMS).fit(X, y).get_metric()
    with pytest.raises(ValueError, match="single points"):
        metric(X[:3], X[3:6])
    assert metric(X[0], X[3:4]) == pytest.approx(metric(X[0], X[3]))
