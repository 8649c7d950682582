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

BENCHMARKS_DIR = Path(__file__).resolve().parents[2] / "benchmarks"


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


# --------------------------------------------------------------------------------------------
# FILM against metric-learn's SCML (benchmarks/bench_scml.py): the benchmark's triplet splits
# must be item-disjoint and correct, and both methods must learn something on a small problem.

@pytest.fixture(scope="module")
def bench_scml(metric_learn):
    sys.path.insert(0, str(BENCHMARKS_DIR))
    try:
        import bench_scml
    finally:
        sys.path.remove(str(BENCHMARKS_DIR))
    return bench_scml


def _assert_partition(whole, *parts):
    joined = np.concatenate(parts)
    assert joined.size == np.unique(joined).size, "parts overlap"
    np.testing.assert_array_equal(np.sort(joined), np.sort(whole))


def _assert_split_is_item_disjoint(split, n_items):
    _assert_partition(np.arange(n_items), split.train_items, split.held_out_items)
    _assert_partition(split.train_items, split.fit_items, split.validation_items)
    for triplets, items in ((split.train, split.train_items), (split.held_out, split.held_out_items),
                            (split.fit, split.fit_items), (split.validation, split.validation_items)):
        assert triplets.ndim == 2 and triplets.shape[1] == 3 and triplets.shape[0] > 0
        assert np.isin(triplets, items).all()


def test_class_triplet_split_is_item_disjoint_and_follows_the_labels(bench_scml):
    labels = np.repeat(np.arange(4), 15)
    split = bench_scml.class_triplet_split(labels, triplets_per_item=3, random_state=0)
    _assert_split_is_item_disjoint(split, labels.size)
    assert split.held_out_items.size == round(0.3 * labels.size)
    for T, items in ((split.train, split.train_items), (split.held_out, split.held_out_items)):
        assert T.shape[0] == 3 * items.size
        i, j, k = T.T
        assert (i != j).all()
        assert (labels[i] == labels[j]).all() and (labels[i] != labels[k]).all()
    # a different seed gives a different split (the seed reaches the sampler)
    other = bench_scml.class_triplet_split(labels, triplets_per_item=3, random_state=1)
    assert not np.array_equal(other.held_out_items, split.held_out_items)
    with pytest.raises(ValueError, match="held_out_fraction"):
        bench_scml.class_triplet_split(labels, held_out_fraction=1.0)


def test_pair_triplet_split_keeps_components_together_and_mines_near_negatives(bench_scml):
    from learnsim.supervision import Pairs
    rng = np.random.default_rng(0)
    n = 120
    X = rng.random((n, 30))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    duplicates = [(i, i + 1) for i in range(0, 80, 2)] + [(1, 2)]      # (0, 1, 2, 3) is one duplicate chain
    non_duplicates = [(i, i + 1) for i in range(80, n - 1, 2)] + [(0, 81)]
    pairs = Pairs(np.array(duplicates + non_duplicates),
                  labels=np.array([True] * len(duplicates) + [False] * len(non_duplicates)))
    k = 5
    split = bench_scml.pair_triplet_split(pairs, X, hard_negatives=k, random_state=0)
    _assert_split_is_item_disjoint(split, n)
    chain = {0, 1, 2, 3}
    for T, items in ((split.train, split.train_items), (split.held_out, split.held_out_items),
                     (split.fit, split.fit_items), (split.validation, split.validation_items)):
        part = set(items.tolist())
        for a, b, c in T:
            assert (a, b) in set(duplicates) or (b, a) in set(duplicates)
            assert c not in ({a, b} | (chain if a in chain else set()))
            # c is one of the k most similar items of the part outside a's duplicate component
            excluded = chain if a in chain else {a, b}
            candidates = np.array(sorted(part - excluded))
            sims = X[candidates] @ X[a]
            assert (sims > sims[candidates == c][0]).sum() < k
        # a pair never straddles two parts
        inside = np.isin(pairs.indices, items)
        assert (inside.all(axis=1) | ~inside.any(axis=1)).all()


def test_film_and_scml_both_learn_on_the_benchmark_path(bench_scml, metric_learn):
    # 4 classes separated in 3 of 12 dimensions; the other 9 are loud noise, so the unlearned
    # Euclidean distance orders the held-out triplets little better than chance
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(4), 40)
    centres = rng.normal(scale=2.0, size=(4, 3))
    X = np.hstack([centres[y] + rng.normal(scale=0.5, size=(y.size, 3)), rng.normal(scale=2.0, size=(y.size, 9))])
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    split = bench_scml.class_triplet_split(y, random_state=0)
    from learnsim.evaluation import evaluate_triplets
    baseline = evaluate_triplets(split.held_out, X)["accuracy"]
    assert baseline < 0.75
    candidates = [bench_scml.Candidate("film", "d=3", {"n_components": 3}),
                  bench_scml.Candidate("scml", "small", {"n_basis": 240}),
                  bench_scml.Candidate("scml", "lda", {"basis": "lda"})]   # the array-basis shim in peers.py
    for cand in candidates:
        model, wall, cpu, _ = bench_scml.fit_candidate(cand, X, split.train, metric_learn=metric_learn, seed=0,
                                                       labels=y, label_items=split.train_items)
        acc = bench_scml.accuracy(model, X, split.held_out)
        assert wall > 0 and cpu >= 0
        assert acc > max(0.8, baseline + 0.1), (cand.label, acc, baseline)


@pytest.mark.filterwarnings("ignore:The number of bases with nonzero weight")
def test_scml_array_basis_shim(metric_learn):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4))
    T = np.array([[i, (i + 1) % 30, (i + 15) % 30] for i in range(30)])
    basis = np.eye(4)
    scml = metric_learn.SCML(basis=basis, preprocessor=X, max_iter=200, output_iter=100, random_state=0).fit(T)
    assert scml.components_.shape[1] == 4
    with pytest.raises(ValueError, match="dimensionality"):
        metric_learn.SCML(basis=np.eye(3), preprocessor=X, max_iter=200, output_iter=100).fit(T)
