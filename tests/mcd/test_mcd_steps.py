"""MinimumClusterDistortion's public steps (issue 31): fit_scatter sets the metric of a scatter
the caller computed (the Dask fit sums it over partitions) as fit does; scatter_solver names the
route fit takes to the scatter's eigenpairs."""
import numpy as np
import pytest

from learnsim.mcd import PAPER_PARAMS, MinimumClusterDistortion, scatter_solver
from learnsim.supervision import Clusters

ATTRS = ("solver_", "rank_", "n_basis_", "shrinkage_", "complement_weight_", "residual_weight_", "scale_")


def _data(seed=0, n_clusters=5, per=8, dim=6):
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(n_clusters, dim)) * 3
    X = np.repeat(centres, per, axis=0) + rng.normal(size=(n_clusters * per, dim)) * rng.uniform(0.2, 2.0, dim)
    y = np.repeat(np.arange(n_clusters), per)
    y[::9] = -1
    return X, y


def _scatter(X, y, weights=None):
    """eq. (7) with the weights of sec. 4.3, the clustered rows' mean squared norm, and counts."""
    ids = np.unique(y[y >= 0])
    w = np.full(ids.size, 1.0 / ids.size) if weights is None else np.asarray(weights) / np.sum(weights)
    rows = y >= 0
    Xc, pos = X[rows], np.searchsorted(ids, y[rows])
    C = np.array([Xc[pos == c].mean(axis=0) for c in range(ids.size)])
    Z = (Xc - C[pos]) * np.sqrt(w[pos])[:, None]
    return Z.T @ Z, float((Xc * Xc).sum(axis=1).mean()), int(rows.sum()), ids.size


def _same(a, b):
    for name in ATTRS:
        x, y = getattr(a, name), getattr(b, name)
        assert (x == y) if isinstance(x, (str, type(None))) else x == pytest.approx(y, rel=1e-9), name
    np.testing.assert_array_equal(a.active_features_, b.active_features_)
    np.testing.assert_allclose(a.weights_, b.weights_, rtol=1e-9)
    np.testing.assert_allclose(a.get_mahalanobis_matrix(), b.get_mahalanobis_matrix(), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("params", [
    dict(PAPER_PARAMS),
    dict(n_basis=None, shrinkage=0.1, complement_weight=0.3, baseline_holdout=None),
    dict(n_basis=None, shrinkage=0.0, complement_weight=0.0, n_components=3, baseline_holdout=None),
], ids=["cholesky", "covariance", "capped"])
def test_fit_scatter_equals_fit_in_the_full_space(params):
    X, y = _data()
    A, scale, n, k = _scatter(X, y)
    step = MinimumClusterDistortion(**params).fit_scatter(A, n_items=n, n_clusters=k, n_features=X.shape[1],
                                                          data_scale=scale)
    _same(step, MinimumClusterDistortion(**params).fit(X, y))
    assert step.baseline_gain_ is None and step.cv_results_ is None
    assert step.solver_ == ("cholesky" if params == PAPER_PARAMS else "covariance")


def test_fit_scatter_with_weighted_clusters():
    X, y = _data(1)
    weights = [1.0, 3.0, 0.5, 2.0, 1.0]
    A, scale, n, k = _scatter(X, y, weights)
    params = dict(n_basis=None, shrinkage=0.3, complement_weight=1.0, baseline_holdout=None)
    step = MinimumClusterDistortion(**params).fit_scatter(A, n_items=n, n_clusters=k, n_features=X.shape[1],
                                                          data_scale=scale)
    _same(step, MinimumClusterDistortion(**params).fit(X, Clusters(y, weights=weights)))


def test_fit_scatter_in_a_principal_basis():
    """A basis of every direction of X (exact SVD here): the metric is fit's, whatever the signs
    and rotation of the basis vectors."""
    X, y = _data(2)
    _, _, Vt = np.linalg.svd(X, full_matrices=False)
    components = Vt.T
    A, _, n, k = _scatter(X @ components, y)
    Y = (X @ components)[y >= 0]
    params = dict(n_basis=10, shrinkage=0.1, complement_weight=0.3, baseline_holdout=None)
    step = MinimumClusterDistortion(**params).fit_scatter(
        A, n_items=n, n_clusters=k, n_features=X.shape[1], data_scale=float((Y * Y).sum(axis=1).mean()),
        components=components)
    assert step.n_basis_ == X.shape[1]          # capped at the basis' rank
    _same(step, MinimumClusterDistortion(**params, random_state=0).fit(X, y))


def test_fit_scatter_without_scatter_learns_nothing():
    step = MinimumClusterDistortion(**PAPER_PARAMS).fit_scatter(np.zeros((3, 3)), n_items=4, n_clusters=4,
                                                                n_features=3)
    assert step.solver_ == "none" and step.rank_ == 0
    np.testing.assert_allclose(step.get_mahalanobis_matrix(), np.eye(3))


def test_fit_scatter_refuses_what_it_cannot_do():
    A = np.eye(3)
    with pytest.raises(ValueError, match="shrinkage and complement_weight are 'auto'"):
        MinimumClusterDistortion(n_basis=None).fit_scatter(A, n_items=9, n_clusters=2, n_features=3)
    with pytest.raises(ValueError, match="components"):
        MinimumClusterDistortion(**PAPER_PARAMS).fit_scatter(A, n_items=9, n_clusters=2, n_features=3,
                                                             components=np.eye(3))
    with pytest.raises(ValueError, match="components"):
        MinimumClusterDistortion(n_basis=2, shrinkage=0.0, complement_weight=0.0).fit_scatter(
            A, n_items=9, n_clusters=2, n_features=3)
    with pytest.raises(ValueError, match="square matrix over the 4"):
        MinimumClusterDistortion(**PAPER_PARAMS).fit_scatter(A, n_items=9, n_clusters=2, n_features=4)
    with pytest.raises(ValueError, match="tol"):
        MinimumClusterDistortion(**PAPER_PARAMS, tol=2.0).fit_scatter(A, n_items=9, n_clusters=2, n_features=3)


def test_scatter_solver_names_fit_s_route():
    assert scatter_solver(100, 100) == "covariance"
    assert scatter_solver(99, 100) == "gram"
    assert scatter_solver(8000, 4001) == "gram"
    assert scatter_solver(8001, 4001) == "randomized"
    X, y = _data()
    fitted = MinimumClusterDistortion(n_basis=None, shrinkage=0.1, complement_weight=0.0,
                                      baseline_holdout=None).fit(X, y)
    assert fitted.solver_ == scatter_solver(int((y >= 0).sum()), X.shape[1])
