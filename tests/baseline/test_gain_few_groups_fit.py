"""Fits whose check goes through compare() (anchors, clusters) on too few held-out units or groups
to tell a gain from chance end as the baseline and say so (tests/baseline/test_gain_few_units.py
holds the rule; here the estimators and learnsim's fit that reach it)."""
import warnings

import numpy as np
import pytest

from learnsim.baseline import BaselineWarning


def _random_triplets(rng, n_items, n_anchors, per_anchor):
    """Triplets drawn at random: supervision that says nothing, so no learned rule can beat W = 1
    (or a lexical baseline) on new anchors except by chance."""
    anchors = rng.choice(n_items, n_anchors, replace=False)
    return np.array([(a, *rng.choice(np.setdiff1d(np.arange(n_items), [a]), 2, replace=False))
                     for a in anchors for _ in range(per_anchor)])


def test_relative_comparisons_on_random_triplets_of_ten_anchors_never_keep_the_weights():
    # ten anchors hold two out: both gained on 7 of 40 seeds before (a 95 % check keeps a rule
    # that gains nothing on about one in forty), and the two-unit interval kept the weights
    from learnsim.relative import RelativeComparisonMetric

    kept = []
    for seed in range(20):
        rng = np.random.default_rng(seed)
        X = rng.random((60, 8))
        T = _random_triplets(rng, 60, 10, 5)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", BaselineWarning)
            report = RelativeComparisonMetric(random_state=seed).fit(X, T).baseline_gain_
        assert report.status == "baseline" and report.n_units == 2
        assert "only 2 held-out anchors" in report.reason and "at least 6" in report.reason
        kept.append(report.status == "learned")
    assert not any(kept)


@pytest.mark.parametrize("seed", [1, 3])
def test_learnsim_fit_of_random_triplets_over_texts_ends_as_a_lexical_baseline(seed):
    # learnsim.fit(texts, triplets=..., method="relative"): the search check fell back on too few
    # held-out anchors, but the held-out triplets' own check against BM25 / the tf.idf cosine
    # (compare over 2 anchors) kept the weights on these seeds, a gain of +0.25 to +0.33
    from learnsim.fitting import fit

    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(100)]
    texts = [" ".join(rng.choice(words, 12)) for _ in range(60)]
    T = [tuple(int(v) for v in t) for t in _random_triplets(rng, 60, 10, 6)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        report = fit(texts, triplets=T, method="relative", random_state=seed).report
    triplets = report["triplet_baseline_gain"]
    assert triplets["status"] == "baseline" and triplets["n_units"] == 2 and "too few" in triplets["reason"]
    assert report["model"] in ("bm25", "cosine")


def _subspace_clusters(seed, n, n_clusters, n_features=40):
    """Cluster centres in a 3-D subspace under isotropic noise (tests/film/test_film_baseline.py's)."""
    rng = np.random.default_rng(seed)
    basis = np.linalg.qr(rng.normal(size=(n_features, 3)))[0]
    labels = np.arange(n) % n_clusters
    X = rng.normal(scale=2.0, size=(n_clusters, 3))[labels] @ basis.T + rng.normal(size=(n, n_features))
    return X, labels


@pytest.mark.parametrize("n_clusters", [4, 5])
def test_film_on_four_or_five_clusters_scores_four_groups_and_ends_as_the_input_cosine(n_clusters):
    # four or five clusters: two held out, one more fold of two, four groups in all, which the
    # interval resamples whole: too few, whatever their gains
    from learnsim.film import FILM

    X, labels = _subspace_clusters(1, 40 * n_clusters, n_clusters)
    with pytest.warns(BaselineWarning, match="too few to tell a gain"):
        est = FILM(n_components=3, random_state=0).fit(X, labels)
    report = est.baseline_gain_
    assert report.status == "baseline" and report.detail["held_out_groups"] == 4
    assert "only 4 held-out groups" in report.reason and est.input_weight_ == 1.0
