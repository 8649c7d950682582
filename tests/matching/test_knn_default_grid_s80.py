"""The kNN rule's default k_grid adapts to a small collection silently; only values the user gave
warn when dropped (a FILM fit on 120 pairs warned "k_grid values [50] exceed the 39 other items
... dropped" about a parameter nobody set)."""
import warnings

import numpy as np
import pytest

from learnsim.matching import PairwiseKNNMatcher


def _data(n_groups=10, seed=0):
    rng = np.random.default_rng(seed)
    X = np.repeat(rng.normal(size=(n_groups, 6)), 2, axis=0) + 0.05 * rng.normal(size=(2 * n_groups, 6))
    i = np.arange(n_groups)
    pairs = np.r_[np.c_[2 * i, 2 * i + 1], np.c_[2 * i, (2 * i + 3) % (2 * n_groups)]]
    y = np.r_[np.ones(n_groups), np.zeros(n_groups)].astype(int)
    return X, pairs, y


def test_the_default_grid_is_cut_to_a_small_collection_without_a_warning():
    X, pairs, y = _data()            # 20 items: 50 and 20 of the default grid exceed the 19 others
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        knn = PairwiseKNNMatcher().fit(X, pairs, y)
    assert max(knn.validation_curve_["k"]) <= 19
    assert 10 in knn.validation_curve_["k"].tolist()
    assert knn.predict(pairs).tolist() == y.tolist()


def test_values_the_user_gave_still_warn_when_dropped():
    X, pairs, y = _data()
    with pytest.warns(UserWarning, match=r"k_grid values \[20, 50\] exceed the 19 other items"):
        knn = PairwiseKNNMatcher(k_grid=(1, 5, 20, 50)).fit(X, pairs, y)
    assert knn.validation_curve_["k"].tolist() == [1, 5]


def test_a_saved_default_grid_stays_the_default(tmp_path):
    from learnsim.persistence import load, save

    X, pairs, y = _data(n_groups=30)
    knn = PairwiseKNNMatcher().fit(X, pairs, y)
    save(knn, tmp_path / "m.npz")
    back = load(tmp_path / "m.npz")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        back.fit(X[:20], pairs[:10].tolist() + [[0, 3]], np.r_[np.ones(10), 0].astype(int))
