"""learnsim.fit takes a Clusters with per-cluster weights (Kobayashi's xi_i, sec. 4.3) and fits
MinimumClusterDistortion on them as MCD's own fit does; a method that has no use for them
(film) refuses them saying what to do, rather than dropping them."""
import warnings

import numpy as np
import pytest

import learnsim
import learnsim.fitting
from learnsim.mcd import MinimumClusterDistortion
from learnsim.supervision import Clusters

TEXTS = [f"document {i} about topic{i % 3} word{i % 5} thing{i % 7} item{i % 4}" for i in range(48)]
LABELS = [f"c{i % 3}" for i in range(48)]
WEIGHTS = {"c0": 6.0, "c1": 1.0, "c2": 0.5}
FIXED = dict(n_basis=8, shrinkage=0.1, complement_weight=0.1)


def _fit(clusters, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return learnsim.fitting.fit(TEXTS, clusters=clusters, random_state=0, method="mcd", weighting="tfidf",
                            baseline_holdout=None, **FIXED, **kw)


def test_weighted_clusters_fit_the_model_mcd_fits_on_them():
    result = _fit(Clusters(LABELS, weights=WEIGHTS))
    pipe = result.pipeline
    X = pipe.vectorizer.transform(TEXTS)
    direct = MinimumClusterDistortion(**FIXED, baseline_holdout=None, random_state=0).fit(
        X, Clusters(LABELS, weights=WEIGHTS))
    np.testing.assert_allclose(pipe.metric.pairwise_distances(X[:6], X[6:12]),
                               direct.pairwise_distances(X[:6], X[6:12]), rtol=1e-7, atol=1e-9)
    assert result.report.get("cluster_weights") == "given"


def test_weights_change_the_model():
    weighted = _fit(Clusters(LABELS, weights=WEIGHTS)).pipeline
    plain = _fit(Clusters(LABELS)).pipeline
    X = plain.vectorizer.transform(TEXTS)
    a = weighted.metric.pairwise_distances(X[:6], X[6:12])
    b = plain.metric.pairwise_distances(X[:6], X[6:12])
    assert np.max(np.abs(np.asarray(a) - np.asarray(b))) > 1e-3


def test_equal_weights_fit_as_no_weights():
    a = _fit(Clusters(LABELS, weights={"c0": 2.0, "c1": 2.0, "c2": 2.0})).pipeline
    b = _fit(Clusters(LABELS)).pipeline
    X = b.vectorizer.transform(TEXTS)
    np.testing.assert_allclose(a.metric.pairwise_distances(X[:6], X), b.metric.pairwise_distances(X[:6], X),
                               rtol=1e-7, atol=1e-9)


def test_weighted_clusters_with_the_search_check_run():
    many = [f"c{i % 8}" for i in range(48)]
    weights = {f"c{k}": float(k + 1) for k in range(8)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = learnsim.fitting.fit(TEXTS, clusters=Clusters(many, weights=weights), random_state=0)
    assert result.report["cluster_weights"] == "given"
    assert result.report["clusters"] == 8


def test_film_refuses_cluster_weights_saying_what_to_do():
    with pytest.raises(ValueError, match=r"(?s)weights.*film.*mcd"):
        learnsim.fit(TEXTS, clusters=Clusters(LABELS, weights=WEIGHTS), method="film", random_state=0)


def test_clusters_read_as_one_label_with_other_weights_are_refused_naming_them():
    # 1 and "1" are one cluster to learnsim.fit (labels compared as text, as in a file): two weights
    labels = [1 if i % 2 else "1" for i in range(16)] + [f"c{i % 3}" for i in range(32)]
    weights = {1: 1.0, "1": 2.0, "c0": 1.0, "c1": 1.0, "c2": 1.0}
    with pytest.raises(ValueError, match=r"weights differ \(1, 2\)"):
        _fit(Clusters(labels, weights=weights))
