"""FILM against its baseline, the input cosine, on held-out supervision (issue 13, section 1):
the chosen input weight, the fallback, the report and its persistence."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import average_precision_score

from learnsim.baseline import BaselineWarning
from learnsim.film import FILM
from learnsim.persistence import load, save
from learnsim.film._search_weight import cluster_weight_scores, triplet_weight_scores
from learnsim.supervision import clusters_to_triplets


def _unit(X):
    X = X.toarray() if sp.issparse(X) else np.asarray(X)
    n = np.linalg.norm(X, axis=1, keepdims=True)
    return X / np.where(n > 0, n, 1.0)


def _subspace_clusters(seed=1, n=300, n_features=40, n_clusters=6):
    """Cluster centres in a 3-D subspace under isotropic noise in 40 dimensions: the input
    cosine is mostly noise, FILM's 3-D map finds the subspace."""
    rng = np.random.default_rng(seed)
    basis = np.linalg.qr(rng.normal(size=(n_features, 3)))[0]
    labels = np.arange(n) % n_clusters
    X = rng.normal(scale=2.0, size=(n_clusters, 3))[labels] @ basis.T + rng.normal(size=(n, n_features))
    return X + 2.0 * rng.normal(size=n_features) / np.sqrt(n_features), labels


@pytest.fixture(scope="module")
def learned():
    # 600 items: enough held-out anchors for the gain's interval to clear 0 (measured: +0.047
    # to +0.115; with 300 items it reached below 0 and the model fell back)
    X, labels = _subspace_clusters(n=600)
    T = clusters_to_triplets(labels, 5 * len(labels), random_state=0).indices
    return X, T, FILM(n_components=3, random_state=0).fit(X, T)


def _cosine_triplets(X, n_triplets=600, seed=0):
    """Triplets that the input cosine orders perfectly (j is always the closer one)."""
    rng = np.random.default_rng(seed)
    C = _unit(X) @ _unit(X).T
    T = rng.integers(0, X.shape[0], size=(n_triplets, 3))
    T = T[(T[:, 0] != T[:, 1]) & (T[:, 0] != T[:, 2]) & (T[:, 1] != T[:, 2])]
    swap = C[T[:, 0], T[:, 1]] < C[T[:, 0], T[:, 2]]
    T[swap, 1], T[swap, 2] = T[swap, 2], T[swap, 1].copy()
    return T


def test_the_learned_part_is_kept_where_it_helps_on_held_out_anchors(learned):
    X, T, est = learned
    report = est.baseline_gain_
    assert report.status == "learned" and not report.fell_back
    assert 0.0 <= est.input_weight_ < 1.0
    assert report.measure == "triplet accuracy" and "anchors" in report.unit
    # about a fifth of the anchors' triplets are held out
    assert 0.1 * len(T) < report.n_units < 0.3 * len(T)
    assert report.gain > 0 and report.ci_low <= report.gain <= report.ci_high
    assert report.detail["input_weight"] == est.input_weight_
    # refitted on every triplet: the same map as a fit without the check
    plain = FILM(n_components=3, random_state=0, baseline_holdout=None).fit(X, T)
    np.testing.assert_array_equal(est.components_, plain.components_)
    assert est.n_triplets_ == len(T)
    assert plain.baseline_gain_ is None and plain.input_weight_ == 0.0


def test_similarity_is_the_validated_mix_and_transform_the_map_alone(learned):
    X, _, est = learned
    w = est.input_weight_
    E = X[:20] @ est.components_.T
    np.testing.assert_allclose(est.transform(X[:20]), E, rtol=1e-12)
    want = w * _unit(X[:20]) @ _unit(X).T + (1 - w) * _unit(E) @ _unit(X @ est.components_.T).T
    S = est.similarity(X[:20], X)
    np.testing.assert_allclose(S, want, atol=1e-12)
    idx = np.array([[0, 1], [2, 9], [4, 4]])
    np.testing.assert_allclose(est.pair_similarity(idx, X=X), S[idx[:, 0], idx[:, 1]], atol=1e-12)
    np.testing.assert_allclose(est.learned_similarity(X[:20], X), _unit(E) @ _unit(X @ est.components_.T).T,
                               atol=1e-12)
    # sparse input gives the same similarity
    np.testing.assert_allclose(est.similarity(sp.csr_matrix(X[:20]), sp.csr_matrix(X)), S, atol=1e-12)


def test_the_model_falls_back_to_the_input_cosine_with_a_warning():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 30))
    T = _cosine_triplets(X)
    with pytest.warns(BaselineWarning, match="falls back to the baseline"):
        est = FILM(n_components=1, random_state=0).fit(X, T)
    assert est.baseline_gain_.status == "baseline" and est.baseline_gain_.fell_back
    assert est.input_weight_ == 1.0 and est.baseline_gain_.detail["input_weight"] == 1.0
    assert est.baseline_gain_.baseline_score == 1.0          # the triplets are the input cosine's
    np.testing.assert_allclose(est.similarity(X[:10], X), _unit(X[:10]) @ _unit(X).T, atol=1e-12)
    # transform stays the learned map, fitted on every triplet as without the check (documented)
    plain = FILM(n_components=1, random_state=0, baseline_holdout=None).fit(X, T)
    np.testing.assert_array_equal(est.components_, plain.components_)


def test_held_out_clusters_are_scored_by_average_precision():
    X, labels = _subspace_clusters(n=480, n_clusters=12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        est = FILM(n_components=3, random_state=0).fit(X, labels)
    report = est.baseline_gain_
    assert report.measure == "average precision" and "clusters" in report.unit
    # 12 clusters of 40: a fifth (2) are held out a fold, in three folds to reach six (every row
    # of a held-out cluster a query, once)
    assert report.n_units == 40 * report.detail["held_out_groups"] == 240
    assert 0.0 <= report.baseline_score <= 1.0 and 0.0 <= report.learned_score <= 1.0
    assert est.n_triplets_ == 5 * len(labels)


@pytest.mark.parametrize("make_y", [lambda lab: lab[:] % 3, lambda lab: np.array([[0, 1, 2], [3, 4, 5]] * 3)],
                         ids=["three-clusters", "two-anchors"])
def test_too_little_supervision_is_unchecked_with_a_warning(make_y):
    X, labels = _subspace_clusters(n=60)
    with pytest.warns(BaselineWarning, match="not checked"):
        est = FILM(n_components=2, random_state=0).fit(X, make_y(labels))
    assert est.baseline_gain_.status == "unchecked" and est.input_weight_ == 0.0


def test_training_triplets_never_hold_a_held_out_anchor(monkeypatch):
    X, labels = _subspace_clusters()
    T = clusters_to_triplets(labels, 1500, random_state=0).indices
    seen = []
    original = FILM._learn

    def spy(self, Xn, T_fit, *args):
        seen.append(T_fit.copy())
        return original(self, Xn, T_fit, *args)

    monkeypatch.setattr(FILM, "_learn", spy)
    est = FILM(n_components=3, random_state=0).fit(X, T)
    train_anchors = np.unique(seen[0][:, 0])
    held = np.setdiff1d(np.unique(T[:, 0]), train_anchors)
    # every triplet of a held-out anchor is out of the held-out fit, and all of them are scored
    assert not np.isin(seen[0][:, 0], held).any()
    assert est.baseline_gain_.n_units == int(np.isin(T[:, 0], held).sum())
    assert len(seen) == 2 and len(seen[1]) == len(T)          # then refitted on every triplet


@pytest.mark.parametrize("value", [0, 1, 1.5, -0.2, True, "0.2"])
def test_bad_baseline_holdout_is_refused(value):
    X, labels = _subspace_clusters(n=60)
    with pytest.raises(ValueError, match="baseline_holdout must be a number in"):
        FILM(n_components=2, baseline_holdout=value).fit(X, labels)


def test_the_check_and_the_weight_are_saved_and_checked_on_load(learned, tmp_path):
    X, _, est = learned
    loaded = load(save(est, tmp_path / "film.npz"))
    assert loaded.input_weight_ == est.input_weight_
    assert loaded.baseline_gain_ == est.baseline_gain_
    np.testing.assert_array_equal(loaded.similarity(X[:5], X), est.similarity(X[:5], X))
    meta, arrays = est._get_state()
    old = {k: v for k, v in meta.items() if k not in ("input_weight", "baseline_gain")}
    legacy = FILM._from_state(old, arrays)           # a file from before the check
    assert legacy.input_weight_ == 0.0 and legacy.baseline_gain_ is None
    with pytest.raises(ValueError, match="input_weight must be a number in"):
        FILM._from_state(dict(meta, input_weight=1.5), arrays)
    fell_back = dict(meta["baseline_gain"], status="baseline")
    with pytest.raises(ValueError, match="fell back to the input cosine"):
        FILM._from_state(dict(meta, baseline_gain=fell_back, input_weight=0.3), arrays)
    with pytest.raises(ValueError, match="baseline_gain"):
        FILM._from_state(dict(meta, baseline_gain={"status": "won"}), arrays)


def test_triplet_scores_count_ties_as_half():
    Xn = _unit(np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]))
    E = _unit(np.array([[1.0], [1.0], [1.0], [-1.0]]))
    T = np.array([[0, 1, 2], [0, 2, 1], [0, 1, 3]])
    scores = triplet_weight_scores(Xn, E, T, (0.0, 1.0))
    # w = 0: the learned cosine ties (0, 1) with (0, 2); w = 1: the input cosine orders them
    np.testing.assert_array_equal(scores, [[0.5, 0.5, 1.0], [1.0, 0.0, 1.0]])


def test_cluster_scores_are_average_precision_among_the_held_out_rows():
    rng = np.random.default_rng(3)
    X, E = _unit(rng.normal(size=(40, 6))), _unit(rng.normal(size=(40, 2)))
    labels = np.repeat(np.arange(8), 5)
    rows = np.arange(10, 30)
    scores = cluster_weight_scores(X, E, labels, rows, (0.0, 0.5, 1.0), rng)
    for g, w in enumerate((0.0, 0.5, 1.0)):
        S = w * X[rows] @ X[rows].T + (1 - w) * E[rows] @ E[rows].T
        for q in range(rows.size):
            others = np.arange(rows.size) != q
            want = average_precision_score(labels[rows][others] == labels[rows][q], S[q, others])
            assert scores[g, q] == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("kind", ["clusters", "anchors"])
def test_a_check_of_few_held_out_groups_is_cross_fitted_to_six(kind, monkeypatch):
    """Ten clusters (or anchors) hold two out a split: over two, the cluster bootstrap's interval
    was the range of their two gains; the check now scores MIN_HELD_GROUPS of them over disjoint
    folds, each from its own fit (mcd's rule and the search check's), every unit once."""
    from learnsim.baseline import MIN_HELD_GROUPS

    X, labels = _subspace_clusters(n=200, n_clusters=10)
    if kind == "clusters":
        y = labels
    else:
        # ten anchors, the first row of each cluster, with 20 triplets each
        rng = np.random.default_rng(0)
        rows = [np.flatnonzero(labels == c) for c in range(10)]
        y = np.array([[rows[c][0], rng.choice(rows[c][1:]), rng.choice(rows[(c + 1 + t % 9) % 10])]
                      for c in range(10) for t in range(20)])
    fits = []
    original = FILM._learn
    monkeypatch.setattr(FILM, "_learn", lambda self, *a: (fits.append(a[1]), original(self, *a))[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        report = FILM(n_components=3, random_state=0).fit(X, y).baseline_gain_
    n_groups = report.detail["held_out_groups"]
    assert n_groups >= MIN_HELD_GROUPS and "3 folds" in report.unit
    assert len(fits) == 3 + 1                                 # a fit a fold, then the refit
    assert report.n_units == 20 * n_groups                  # every unit of each, once
    # each fold's fit left out its own groups: together the folds never trained on all of them
    held = [np.setdiff1d(np.unique(y if kind == "clusters" else y[:, 0]),
                         np.unique(labels[np.unique(T)] if kind == "clusters" else T[:, 0])) for T in fits[:3]]
    assert all(h.size == 2 for h in held) and np.unique(np.concatenate(held)).size == 6


def test_enough_held_out_clusters_keep_one_split():
    X, labels = _subspace_clusters(n=300, n_clusters=30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BaselineWarning)
        report = FILM(n_components=3, random_state=0).fit(X, labels).baseline_gain_
    assert report.detail["held_out_groups"] == 6 and "folds" not in report.unit


def test_the_check_and_the_refit_take_one_exact_svd_and_the_same_model(monkeypatch):
    """Step 1's SVD is of the unit rows whatever the triplets, and exact here (a dense SVD): the
    check's three folds and the final fit computed it four times over. Once now, and the model
    is the one computing it every time gives."""
    import learnsim.film._film as film_module

    X, labels = _subspace_clusters(n=200, n_clusters=10)
    original = film_module.truncated_svd_with_u
    calls = []
    monkeypatch.setattr(film_module, "truncated_svd_with_u", lambda *a: (calls.append(1), original(*a))[1])

    def fit():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", BaselineWarning)
            return FILM(n_components=3, random_state=0).fit(X, labels)

    once = fit()
    assert len(calls) == 1 and "3 folds" in once.baseline_gain_.unit
    monkeypatch.setattr(film_module, "svd_is_exact", lambda *a: False)     # computed at every fit, as before
    every = fit()
    assert len(calls) == 1 + 4
    assert np.array_equal(once.components_, every.components_) and once.input_weight_ == every.input_weight_
    assert once.baseline_gain_.to_dict() == every.baseline_gain_.to_dict()
    # the final fit is still the one without a check (its own random stream)
    alone = FILM(n_components=3, random_state=0, baseline_holdout=None).fit(X, labels)
    assert np.array_equal(once.components_, alone.components_)
