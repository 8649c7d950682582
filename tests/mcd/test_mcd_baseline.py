"""MinimumClusterDistortion against its baseline (Euclid) on held-out clusters (learnsim.baseline)."""
import warnings

import numpy as np
import pytest

from learnsim.baseline import BaselineGain, BaselineWarning
from learnsim.mcd import MinimumClusterDistortion
from learnsim.persistence import load, save


def _clusters(n_clusters=12, per=10, *, signal_dim, seed=0):
    """Cluster means apart along ``signal_dim`` only. Within every cluster, dimension 0 varies
    with sd 10 and dimension 1 with sd 0.01. With the signal on dimension 1 (means 0.1 apart)
    Euclid drowns it in dimension 0's spread and whitening finds it; with the signal on
    dimension 0 (means 100 apart) Euclid separates the clusters and whitening ranks by
    dimension 1's noise."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(n_clusters), per)
    X = rng.normal(size=(y.size, 2)) * np.array([10.0, 0.01])
    X[:, signal_dim] += y * (100.0 if signal_dim == 0 else 0.1)
    return X, y


def test_learned_kept_when_it_wins_and_refit_on_every_cluster():
    X, y = _clusters(signal_dim=1)
    m = MinimumClusterDistortion(n_basis=None, random_state=0).fit(X, y)
    g = m.baseline_gain_
    assert g.status == "learned" and g.gain > 0.3 and g.significant
    assert g.ci_low <= g.gain <= g.ci_high
    assert g.learned_score > g.baseline_score
    # the final metric uses every cluster: the same as a fit without the check, with the
    # settings the check chose
    ref = MinimumClusterDistortion(n_basis=None, shrinkage=m.shrinkage_, complement_weight=m.complement_weight_,
                                   baseline_holdout=None).fit(X, y)
    np.testing.assert_allclose(m.pairwise_distances(X[:5], X), ref.pairwise_distances(X[:5], X), rtol=1e-9)


def test_falls_back_to_euclid_with_a_warning_when_learning_hurts():
    X, y = _clusters(signal_dim=0)
    with pytest.warns(BaselineWarning, match="falls back to the baseline"):
        m = MinimumClusterDistortion(n_basis=None, random_state=0).fit(X, y)
    g = m.baseline_gain_
    assert g.status == "baseline" and g.fell_back and g.gain <= 0
    assert m.shrinkage_ == 1.0 and m.complement_weight_ == 1.0
    diff = X[:6, None, :] - X[None, :, :]
    np.testing.assert_allclose(m.pairwise_distances(X[:6], X, squared=True), np.einsum("ijk,ijk->ij", diff, diff),
                               rtol=1e-9, atol=1e-9)


def test_too_few_clusters_is_unchecked_and_says_so():
    X, y = _clusters(n_clusters=3, signal_dim=1)
    with pytest.warns(BaselineWarning, match="not checked"):
        m = MinimumClusterDistortion(n_basis=None, shrinkage=0.0, complement_weight=0.0).fit(X, y)
    assert m.baseline_gain_.status == "unchecked" and "3 clusters" in m.baseline_gain_.reason


def test_none_skips_the_check():
    X, y = _clusters(signal_dim=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", BaselineWarning)
        m = MinimumClusterDistortion(n_basis=None, baseline_holdout=None, random_state=0).fit(X, y)
    assert m.baseline_gain_ is None


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.1, "0.2", True])
def test_bad_holdout_is_refused(bad):
    X, y = _clusters(signal_dim=1)
    with pytest.raises(ValueError, match="baseline_holdout"):
        MinimumClusterDistortion(baseline_holdout=bad).fit(X, y)


def test_the_report_is_saved_and_checked_on_load(tmp_path):
    X, y = _clusters(signal_dim=0)
    with pytest.warns(BaselineWarning):
        m = MinimumClusterDistortion(n_basis=None, random_state=0).fit(X, y)
    path = tmp_path / "m.npz"
    save(m, path)
    back = load(path)
    assert back.baseline_gain_ == m.baseline_gain_
    assert isinstance(back.baseline_gain_, BaselineGain)
    np.testing.assert_allclose(back.pairwise_distances(X[:3], X), m.pairwise_distances(X[:3], X))


def test_a_report_that_contradicts_the_metric_is_refused():
    X, y = _clusters(signal_dim=1)
    m = MinimumClusterDistortion(n_basis=None, random_state=0).fit(X, y)
    meta, arrays = m._get_state()
    meta["baseline_gain"] = dict(meta["baseline_gain"], status="baseline")
    with pytest.raises(ValueError, match="fell back"):
        MinimumClusterDistortion._from_state(meta, arrays)
    meta["baseline_gain"] = dict(meta["baseline_gain"], gain=5.0)
    with pytest.raises(ValueError, match="outside its interval"):
        MinimumClusterDistortion._from_state(meta, arrays)


def test_a_check_of_few_held_out_clusters_is_cross_fitted_to_six():
    """Ten clusters hold two out a split: over two, the cluster bootstrap's interval was the range
    of their two gains; the check now scores MIN_HELD_GROUPS clusters over disjoint folds (the
    search check's minimum), each an item of one fold only."""
    from learnsim.baseline import MIN_HELD_GROUPS

    X, y = _clusters(n_clusters=10, per=10, signal_dim=1)
    g = MinimumClusterDistortion(n_basis=None, random_state=0).fit(X, y).baseline_gain_
    assert g.detail["held_out_clusters"] >= MIN_HELD_GROUPS
    assert g.n_units == 10 * g.detail["held_out_clusters"]         # every item of each, once
    assert "folds" in g.unit and g.status == "learned"
    # enough held-out clusters in one split: one split, as before
    X, y = _clusters(n_clusters=30, per=10, signal_dim=1)
    g = MinimumClusterDistortion(n_basis=None, random_state=0).fit(X, y).baseline_gain_
    assert g.detail["held_out_clusters"] == 6 and "folds" not in g.unit
