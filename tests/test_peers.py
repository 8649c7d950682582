"""Cross-check against a peer library: metric-learn's RCA learns the paper's metric up to scale.

Relevant Component Analysis (Shental et al. 2002) learns M = C^-1, with C the within-chunklet
covariance. When the chunklets are the clusters and the data are full rank, C = A / n with A the
within-cluster scatter of eq. (7), so RCA's M is the paper's |A|^(1/d) A^-1 (eq. 6) times a
positive scalar - and, because eq. (5) fixes |M| = 1, that scalar is known: |M_rca|^(-1/d).

What metric-learn 0.7.0's ``RCA.fit(X, chunks)`` does, and why the comparison below is exact:

* it centres every chunk on its own mean (``_chunk_mean_centering``), drops the rows with
  chunk -1, and takes ``np.cov(..., bias=1)`` of the centred rows. np.cov subtracts the mean
  again, but the per-chunk-centred rows already have mean zero, so C = A / n_chunked exactly;
* there is no PCA step in 0.7.0 (older releases had ``pca_comps``). The only projection is a
  Fisher-discriminant one, taken when ``n_components < d`` or when C is rank deficient
  (it then also warns that M may contain NaN). We leave ``n_components=None`` and use
  full-rank data, so that branch is never entered - the tests turn its warning into an error;
* M = components_^T components_ with components_ = C^(-1/2) from an eigendecomposition.

MCD's default cluster weights are uniform (1/k each), which scales A by a constant and so does
not change |A|^(1/d) A^-1.
"""
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_iris, load_wine
from sklearn.preprocessing import StandardScaler

from learnsim.mcd import PAPER_PARAMS, MinimumClusterDistortion

pytest.importorskip("metric_learn", reason="metric-learn is not installed (pip install learnsim[bench])")

BENCHMARKS_DIR = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def metric_learn():
    # peers.py patches metric-learn 0.7.0 for scikit-learn >= 1.8; it lives beside the benchmarks
    sys.path.insert(0, str(BENCHMARKS_DIR))
    try:
        from peers import import_metric_learn
    finally:
        sys.path.remove(str(BENCHMARKS_DIR))
    return import_metric_learn()


def _gaussian_clusters(seed=0, n_clusters=5, per_cluster=40, d=20):
    """Clusters sharing one anisotropic, rotated covariance (condition number 1e4)."""
    rng = np.random.default_rng(seed)
    rotation, _ = np.linalg.qr(rng.normal(size=(d, d)))
    scales = np.geomspace(0.1, 10.0, d)
    centres = rng.normal(scale=5.0, size=(n_clusters, d))
    noise = (rng.normal(size=(n_clusters * per_cluster, d)) * scales) @ rotation.T
    X = np.repeat(centres, per_cluster, axis=0) + noise
    return X, np.repeat(np.arange(n_clusters), per_cluster)


def _iris():
    return load_iris(return_X_y=True)


def _wine():
    return load_wine(return_X_y=True)


def _wine_standardised():
    X, y = load_wine(return_X_y=True)
    return StandardScaler().fit_transform(X), y


DATASETS = {"iris": _iris, "wine": _wine, "wine-standardised": _wine_standardised,
            "gaussian-d20": _gaussian_clusters}


def _fit_rca(metric_learn, X, y):
    with warnings.catch_warnings():
        # RCA's "inner covariance matrix is not invertible" warning means its Fisher/NaN branch
        # ran: the data would not be full rank and the comparison would be meaningless
        warnings.filterwarnings("error", message=".*not invertible")
        return metric_learn.RCA().fit(X, y).get_mahalanobis_matrix()


def _fit_scale(M, R):
    """The least-squares c in M ~ c R, and the largest entry of |M - c R| relative to max |M|."""
    c = np.vdot(R, M) / np.vdot(R, R)
    return c, np.abs(M - c * R).max() / np.abs(M).max()


@pytest.mark.parametrize("name", list(DATASETS))
def test_paper_metric_is_rca_up_to_scale(metric_learn, name):
    X, y = DATASETS[name]()
    mcd = MinimumClusterDistortion(**PAPER_PARAMS).fit(X, y)
    assert mcd.rank_ == X.shape[1], "test data must give a full-rank scatter"
    M = mcd.get_mahalanobis_matrix()
    R = _fit_rca(metric_learn, X, y)
    c, rel_err = _fit_scale(M, R)
    assert c > 0
    assert rel_err < 1e-6
    # eq. (5): |M| = 1 fixes the scale, so RCA's matrix scaled to unit determinant is MCD's
    sign, logdet = np.linalg.slogdet(R)
    assert sign > 0
    assert c == pytest.approx(np.exp(-logdet / X.shape[1]), rel=1e-6)


def test_unclustered_items_are_ignored_by_both(metric_learn):
    # label -1 is "no cluster" for MCD and "no chunklet" for RCA; shifting those rows far away
    # must change neither metric, and the two must still agree
    X, y = _gaussian_clusters(seed=1)
    y = y.copy()
    y[::7] = -1
    X = X.copy()
    X[y == -1] += 100.0
    M = MinimumClusterDistortion(**PAPER_PARAMS).fit(X, y).get_mahalanobis_matrix()
    R = _fit_rca(metric_learn, X, y)
    c, rel_err = _fit_scale(M, R)
    assert c > 0 and rel_err < 1e-6
    keep = y >= 0
    M_clustered = MinimumClusterDistortion(**PAPER_PARAMS).fit(X[keep], y[keep]).get_mahalanobis_matrix()
    np.testing.assert_allclose(M, M_clustered, rtol=1e-8, atol=1e-12)


def test_comparison_detects_a_different_metric(metric_learn):
    # the check above is not vacuous: a shrunk metric is not a multiple of RCA's
    X, y = _gaussian_clusters(seed=2)
    params = dict(PAPER_PARAMS, shrinkage=0.5)
    M = MinimumClusterDistortion(**params).fit(X, y).get_mahalanobis_matrix()
    _, rel_err = _fit_scale(M, _fit_rca(metric_learn, X, y))
    assert rel_err > 1e-2
