"""RelativeComparisonMetric against its baseline W = 1 (issue 13, section 1; learnsim.baseline):
held-out anchors, the fall-back that *is* the Euclidean distance, the unchecked and the
all-zero cases, and the report in the saved model."""
import json
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics.pairwise import euclidean_distances

import learnsim.relative._relative as relative
from learnsim.baseline import BaselineGain, BaselineWarning
from learnsim.evaluation import evaluate_triplets
from learnsim.persistence import load, save
from learnsim.relative import RelativeComparisonMetric, anchor_means, triplet_outcomes
from learnsim.supervision import sample_label_triplets
from test_relative import _topic_data   # clusters told apart by a few features: weights help


def _euclid_truth(Z, m=600, seed=0):
    """Triplets labelled by the Euclidean distance between rows of Z itself: W = 1 is exact, a
    weighting learned from a few hundred of them can only approximate it."""
    rng = np.random.default_rng(seed)
    Zd = Z.toarray() if sp.issparse(Z) else np.asarray(Z)
    T = np.array([rng.choice(Zd.shape[0], 3, replace=False) for _ in range(m)])
    d_ij = ((Zd[T[:, 0]] - Zd[T[:, 1]]) ** 2).sum(1)
    d_ik = ((Zd[T[:, 0]] - Zd[T[:, 2]]) ** 2).sum(1)
    keep = d_ij != d_ik
    T = T[keep]
    swap = d_ij[keep] > d_ik[keep]
    T[swap, 1], T[swap, 2] = T[swap, 2], T[swap, 1].copy()
    return T


def test_learned_wins_on_held_out_anchors_and_is_refitted_on_all(monkeypatch):
    X, y = _topic_data()
    T = sample_label_triplets(y, 3000, random_state=0).indices
    seen, splits = [], []
    real_solve, real_split = relative._solve_identity, relative.split_groups

    def spy_solve(Xs, T_, *args):
        seen.append(np.array(T_))
        return real_solve(Xs, T_, *args)

    def spy_split(groups, *args, **kw):
        out = real_split(groups, *args, **kw)
        splits.append((np.array(groups), out))
        return out

    monkeypatch.setattr(relative, "_solve_identity", spy_solve)
    monkeypatch.setattr(relative, "split_groups", spy_split)
    model = RelativeComparisonMetric(tol=1e-9, random_state=0).fit(X, T)
    report = model.baseline_gain_
    assert report.status == "learned" and report.gain > 0.05 and report.significant, report
    # the held-out units are the triplets of whole anchors, and the first fit saw none of them
    (groups, (ids, held)), = splits
    np.testing.assert_array_equal(groups, T[:, 0])
    held_anchors = ids[held]
    # one unit per held-out anchor, scored over all its triplets
    assert report.n_units == held.sum() == round(0.2 * ids.size)
    n_held = np.isin(T[:, 0], held_anchors).sum()
    assert report.detail["held_out_triplets"] == n_held > report.n_units
    first, second = seen
    assert not np.isin(first[:, 0], held_anchors).any() and len(first) == len(T) - n_held
    # ... and the kept model is the fit on every triplet, as without the check
    np.testing.assert_array_equal(second, T)
    monkeypatch.undo()
    plain = RelativeComparisonMetric(tol=1e-9, random_state=0, baseline_holdout=None).fit(X, T)
    assert plain.baseline_gain_ is None
    np.testing.assert_allclose(model.weights_, plain.weights_, rtol=1e-4, atol=1e-6 * plain.weights_.max())
    assert report.ci_low <= report.gain <= report.ci_high
    assert report.learned_score == pytest.approx(report.baseline_score + report.gain)


@pytest.mark.parametrize("sparse", [True, False])
def test_falls_back_to_exactly_the_euclidean_distance(sparse):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 12)) * np.geomspace(0.3, 3, 12)
    T = _euclid_truth(X)
    Xin = sp.csr_matrix(X) if sparse else X
    with pytest.warns(BaselineWarning, match="falls back to the baseline"):
        model = RelativeComparisonMetric(random_state=0).fit(Xin, T)
    report = model.baseline_gain_
    assert report.status == "baseline" and report.fell_back and report.gain <= 0
    assert report.baseline_score == 1.0                      # W = 1 is the truth here
    # the model IS W = 1: transform, distances and scores are Euclid's
    np.testing.assert_array_equal(model.weights_, np.ones(12))
    Z = model.transform(Xin)
    np.testing.assert_array_equal(Z.toarray() if sparse else Z, X)
    np.testing.assert_allclose(model.pairwise_distances(Xin), euclidean_distances(X), rtol=1e-12, atol=1e-12)
    T_new = _euclid_truth(X, seed=5)
    assert model.score(Xin, T_new) == evaluate_triplets(T_new, X)["accuracy"] == 1.0
    # the solver's attributes describe the learned fit that lost
    assert model.dual_coef_.size < len(T)


def test_kernel_fall_back_is_the_unweighted_kernel_feature_distance():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 5))
    # n_basis=None: every row is a basis point, so the kernel features are X X^T
    K = X @ X.T
    T = _euclid_truth(K, m=500)
    with pytest.warns(BaselineWarning, match="falls back"):
        model = RelativeComparisonMetric(kernel="linear", random_state=0).fit(X, T)
    assert model.baseline_gain_.fell_back and "kernel features" in model.baseline_gain_.baseline
    np.testing.assert_array_equal(model.weights_, np.ones(40))
    np.testing.assert_allclose(model.transform(X), K, rtol=1e-12, atol=1e-12)


def test_too_few_anchors_is_unchecked_and_says_so():
    X, y = _topic_data()
    T = sample_label_triplets(y, 3000, random_state=0).indices
    T = T[np.isin(T[:, 0], np.unique(T[:, 0])[:3])]            # three anchors
    with pytest.warns(BaselineWarning, match="not checked against the baseline"):
        model = RelativeComparisonMetric(random_state=0).fit(X, T)
    report = model.baseline_gain_
    assert report.status == "unchecked" and "3 anchor(s)" in report.reason and report.gain is None
    plain = RelativeComparisonMetric(random_state=0, baseline_holdout=None).fit(X, T)
    np.testing.assert_array_equal(model.weights_, plain.weights_)
    assert "not checked" in report.summary()


def _hopeless():
    """Triplets no weighting can satisfy: the farther item k is an empty row and the anchor and
    the closer item share no feature, so every Delta_t <= 0 (eq. 7) and the optimum is w = 0."""
    rng = np.random.default_rng(0)
    X = np.zeros((30, 20))
    for i in range(1, 30):
        X[i, rng.choice(10, 3, replace=False) + (0 if i % 2 else 10)] = 1.0
    odd, even = np.arange(1, 30, 2), np.arange(2, 30, 2)
    T = np.array([[a, rng.choice(even if a % 2 else odd), 0] for a in range(1, 30)])
    return sp.csr_matrix(X), T


def test_all_zero_weights_are_never_kept_by_a_checked_fit():
    X, T = _hopeless()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = RelativeComparisonMetric(random_state=0).fit(X, T)
    messages = [str(w.message) for w in caught if issubclass(w.category, BaselineWarning)]
    assert any("weights are all 0" in m for m in messages), messages
    np.testing.assert_array_equal(model.weights_, np.ones(20))
    assert model.baseline_gain_.status == "baseline" and model.baseline_gain_.detail["all_weights_zero"]
    # the few-triplet case: unchecked, and the reason says what happened
    with pytest.warns(BaselineWarning):
        small = RelativeComparisonMetric(random_state=0).fit(X, T[:3])
    assert small.baseline_gain_.status == "unchecked" and "weights are all 0" in small.baseline_gain_.reason
    np.testing.assert_array_equal(small.weights_, np.ones(20))
    # a report attached after a fit without the check (learnsim fit's path) does the same
    with pytest.warns(RuntimeWarning, match="weights are all 0"):
        raw = RelativeComparisonMetric(random_state=0, baseline_holdout=None).fit(X, T)
    with pytest.warns(BaselineWarning, match="weights are all 0"):
        raw._with_report(BaselineGain(status="unchecked", reason="few anchors"))
    np.testing.assert_array_equal(raw.weights_, np.ones(20))
    assert "weights are all 0" in raw.baseline_gain_.reason


def test_without_the_check_the_paper_method_keeps_zero_weights_and_says_so():
    # baseline_holdout=None is eq. (8) as it stands (the reproduction's Figure 1, example 2)
    X, T = _hopeless()
    with pytest.warns(RuntimeWarning, match="weights are all 0"):
        model = RelativeComparisonMetric(random_state=0, baseline_holdout=None).fit(X, T)
    assert model.baseline_gain_ is None and not model.weights_.any()
    again = RelativeComparisonMetric._from_state(*model._get_state())
    assert not again.weights_.any()


def test_triplet_outcomes_counts_ties_as_half_and_anchor_means_average_them():
    Z = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [3.0, 0.0]])
    T = np.array([[0, 1, 3], [0, 3, 1], [0, 1, 2], [3, 1, 0]])
    np.testing.assert_array_equal(triplet_outcomes(T, Z), [1.0, 0.0, 0.5, 1.0])
    np.testing.assert_array_equal(triplet_outcomes(T, sp.csr_matrix(Z)), [1.0, 0.0, 0.5, 1.0])
    np.testing.assert_allclose(anchor_means(T, triplet_outcomes(T, Z)), [0.5, 1.0])


def test_saved_model_keeps_the_report(tmp_path):
    X, y = _topic_data()
    T = sample_label_triplets(y, 1500, random_state=0).indices
    model = RelativeComparisonMetric(random_state=0).fit(X, T)
    save(model, tmp_path / "m.npz")
    again = load(tmp_path / "m.npz")
    assert again.baseline_gain_ == model.baseline_gain_
    assert again.baseline_gain_.to_dict() == json.loads(json.dumps(model.baseline_gain_.to_dict()))


def _state(**kw):
    X, y = _topic_data()
    model = RelativeComparisonMetric(random_state=0, **kw).fit(X, sample_label_triplets(y, 1500, random_state=0))
    return model._get_state()


def test_damaged_or_inconsistent_state_is_refused():
    meta, arrays = _state()
    bad = dict(meta, baseline_gain={**meta["baseline_gain"], "status": "baseline"})
    with pytest.raises(ValueError, match="fell back to W = 1, but weights_ are not all 1"):
        RelativeComparisonMetric._from_state(bad, arrays)
    bad = dict(meta, baseline_gain={**meta["baseline_gain"], "gain": 5.0})
    with pytest.raises(ValueError, match="outside its interval"):
        RelativeComparisonMetric._from_state(bad, arrays)
    with pytest.raises(ValueError, match="baseline_gain must be a dict"):
        RelativeComparisonMetric._from_state(dict(meta, baseline_gain=[1]), arrays)
    with pytest.raises(ValueError, match="weights_ are all 0"):
        RelativeComparisonMetric._from_state(meta, dict(arrays, weights_=np.zeros_like(arrays["weights_"])))
    bad = dict(meta, params={**meta["params"], "baseline_holdout": 2.0})
    with pytest.raises(ValueError, match="baseline_holdout"):
        RelativeComparisonMetric._from_state(bad, arrays)


def test_a_file_from_before_the_check_loads_as_unchecked():
    meta, arrays = _state()
    old = {k: v for k, v in meta.items() if k != "baseline_gain"}
    old["params"] = {k: v for k, v in meta["params"].items() if k != "baseline_holdout"}
    est = RelativeComparisonMetric._from_state(old, arrays)
    assert est.baseline_gain_ is None and est.baseline_holdout is None


@pytest.mark.parametrize("value, error", [(0, ValueError), (1.0, ValueError), (-0.1, ValueError),
                                          (True, ValueError), ("0.2", ValueError)])
def test_bad_baseline_holdout(value, error):
    X, y = _topic_data()
    with pytest.raises(error, match="baseline_holdout"):
        RelativeComparisonMetric(baseline_holdout=value).fit(X, sample_label_triplets(y, 100, random_state=0))


def test_select_C_candidates_skip_the_check():
    X, y = _topic_data()
    T = sample_label_triplets(y, 600, random_state=0).indices
    with warnings.catch_warnings():
        warnings.simplefilter("error", BaselineWarning)
        best, scores = relative.select_C(X, T[:400], T[400:], Cs=(1e-2, 1.0), random_state=0)
    assert best in scores
