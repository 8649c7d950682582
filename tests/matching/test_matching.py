"""Tests of the duplicate-detection rules in learnsim.matching (FILM paper, sec. 3.3)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from conftest import require_corpus
from learnsim import persistence
from learnsim.evaluation import log_loss
from learnsim.matching import PairwiseKNNMatcher, ThresholdMatcher, pair_similarity
from learnsim.supervision import Pairs

MATCHERS = [PairwiseKNNMatcher, ThresholdMatcher]


def _make(Matcher, **params):
    """A matcher for a small collection: the kNN rule gets a grid that fits in it."""
    if Matcher is PairwiseKNNMatcher:
        params.setdefault("k_grid", (1, 2, 3, 5))
    return Matcher(**params)


# ----------------------------------------------------------------------------- data

def _duplicate_data(seed=0, n_groups=120, d=16, noise=0.35):
    """A collection of 2 * n_groups items: each base item and a noisy copy of it.

    Duplicates are (base, its copy); non-duplicates pair a base with the copy of another base.
    """
    rng = np.random.default_rng(seed)
    base = rng.normal(size=(n_groups, d))
    X = np.vstack([base, base + noise * rng.normal(size=(n_groups, d))])
    dup = np.column_stack([np.arange(n_groups), np.arange(n_groups) + n_groups])
    other = (np.arange(n_groups) + rng.integers(1, n_groups, n_groups)) % n_groups
    non = np.column_stack([np.arange(n_groups), other + n_groups])
    idx = np.vstack([dup, non])
    y = np.r_[np.ones(n_groups, bool), np.zeros(n_groups, bool)]
    order = rng.permutation(len(y))
    return X, Pairs(idx[order], labels=y[order])


def _angles(degrees):
    rad = np.deg2rad(np.asarray(degrees, dtype=float))
    return np.column_stack([np.cos(rad), np.sin(rad)])


# Six unit vectors (angles in degrees) whose neighbour ranks can be worked out by hand.
#   A=0  B=10  C=15  D=90  E=100  F=200
# nearest neighbour: A->B, B->C, C->B, D->E, E->D, F->E.
# Seen from E, A and F are both 100 degrees away: a tie, behind D (10), C (85) and B (90).
TINY = _angles([0, 10, 15, 90, 100, 200])
A, B, C, D, E, F = range(6)
TINY_PAIRS = np.array([[A, B], [B, C], [D, E], [E, F], [A, D]])
TINY_LABELS = np.array([1, 1, 1, 0, 0])


def _brute_force_ranks(E, idx):
    """Ranks from the full similarity matrix: 1 + other items strictly more similar."""
    En = E / np.linalg.norm(E, axis=1, keepdims=True)
    S = En @ En.T
    ranks = np.empty(idx.shape, dtype=np.int64)
    for r, (a, b) in enumerate(idx):
        for side, (q, p) in enumerate(((a, b), (b, a))):
            others = np.delete(S[q], [q, p])
            ranks[r, side] = 1 + np.sum(others > S[q, p] + 1e-9)
    return ranks


# ----------------------------------------------------------------------------- the kNN rule

def test_tiny_example_mutual_neighbours_exact_predictions():
    knn = PairwiseKNNMatcher(k=1).fit(TINY, TINY_PAIRS, TINY_LABELS)
    # (A,B): B is A's nearest, but B's nearest is C -> not mutual at k=1
    assert knn.predict(TINY_PAIRS).tolist() == [0, 1, 1, 0, 0]
    # at k=2 A is B's second neighbour; F is E's fourth (the tie with A does not push it down)
    expected = {1: [0, 1, 1, 0, 0], 2: [1, 1, 1, 0, 0], 3: [1, 1, 1, 0, 0], 4: [1, 1, 1, 1, 1]}
    for k, want in expected.items():
        assert PairwiseKNNMatcher(k=k).fit(TINY, TINY_PAIRS, TINY_LABELS).predict(TINY_PAIRS).tolist() == want
    ranks = PairwiseKNNMatcher(k=5).fit(TINY, TINY_PAIRS, TINY_LABELS).pair_ranks(TINY_PAIRS, max_rank=5)
    assert ranks.tolist() == [[1, 2], [1, 1], [1, 1], [4, 1], [3, 4]]


def test_ranks_are_censored_above_max_rank():
    knn = PairwiseKNNMatcher(k=1).fit(TINY, TINY_PAIRS, TINY_LABELS)
    assert knn.pair_ranks(TINY_PAIRS, max_rank=2).tolist() == [[1, 2], [1, 1], [1, 1], [3, 1], [3, 3]]
    assert knn.ranks_.max() <= max(knn.k_grid) + 1


def test_tied_items_do_not_depend_on_row_order():
    X, pairs = _duplicate_data(seed=3, n_groups=40)
    # exact copies of some rows: ties everywhere around them
    X = np.vstack([X, X[:10], X[:10]])
    knn = PairwiseKNNMatcher(k=3).fit(X, pairs)
    perm = np.random.default_rng(0).permutation(X.shape[0])
    inverse = np.argsort(perm)
    permuted_pairs = inverse[pairs.indices]
    knn_perm = PairwiseKNNMatcher(k=3).fit(X[perm], Pairs(permuted_pairs, labels=pairs.labels))
    assert np.array_equal(knn.predict(pairs), knn_perm.predict(permuted_pairs))
    assert np.array_equal(knn.ranks_, knn_perm.ranks_)


def test_blocked_search_matches_full_similarity_matrix():
    X, pairs = _duplicate_data(seed=1, n_groups=60, noise=0.8)
    expected = _brute_force_ranks(X, pairs.indices)
    for block_size in (None, 1, (3, 7), (50, 11)):
        knn = PairwiseKNNMatcher(k_grid=(1, 2, 3, 5, 10), block_size=block_size).fit(X, pairs)
        assert np.array_equal(knn.ranks_, np.minimum(expected, 11))
        assert np.array_equal(knn.predict(pairs), (expected.max(axis=1) <= knn.k_).astype(int))


def test_sparse_input_gives_the_same_rule():
    X, pairs = _duplicate_data(seed=2, n_groups=50)
    X = np.where(np.abs(X) > 0.8, X, 0.0)
    dense = PairwiseKNNMatcher(k=2).fit(X, pairs)
    sparse = PairwiseKNNMatcher(k=2, block_size=(4, 9)).fit(sp.csr_matrix(X), pairs)
    assert np.array_equal(dense.predict(pairs), sparse.predict(pairs))
    assert np.array_equal(dense.ranks_, sparse.ranks_)


def test_euclidean_metric_matches_brute_force():
    X, pairs = _duplicate_data(seed=4, n_groups=40, noise=0.9)
    D = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    knn = PairwiseKNNMatcher(k=3, metric="euclidean").fit(X, pairs)
    for (a, b), got in zip(pairs.indices, knn.ranks_):
        want_ab = 1 + np.sum(np.delete(D[a], [a, b]) < D[a, b])
        want_ba = 1 + np.sum(np.delete(D[b], [a, b]) < D[a, b])
        assert got.tolist() == [min(want_ab, 51), min(want_ba, 51)]


def test_k_selection_minimises_validation_cross_entropy_brute_force():
    # data on which the most accurate k is not the one of lowest cross-entropy
    X, pairs = _duplicate_data(seed=13, n_groups=80, noise=1.1)
    grid = (1, 2, 3, 4, 6, 8, 12, 20)
    knn = PairwiseKNNMatcher(k_grid=grid).fit(X, pairs)
    y = pairs.labels
    worst = _brute_force_ranks(X, pairs.indices).max(axis=1)
    losses = []
    for k in grid:
        match = worst <= k
        p_match = (np.sum(y & match) + 1) / (match.sum() + 2)
        p_no = (np.sum(y & ~match) + 1) / ((~match).sum() + 2)
        losses.append(log_loss(y, np.where(match, p_match, p_no)))
        assert np.isclose(knn.validation_curve_["accuracy"][grid.index(k)], np.mean(match == y))
    np.testing.assert_allclose(knn.validation_curve_["log_loss"], losses)
    assert knn.k_ == grid[int(np.argmin(losses))]
    assert knn.k_ != grid[int(np.argmax(knn.validation_curve_["accuracy"]))]
    assert knn.k_ not in (grid[0], grid[-1])


def test_validation_curve_is_consistent():
    X, pairs = _duplicate_data(seed=6, n_groups=60, noise=1.0)
    curve = PairwiseKNNMatcher().fit(X, pairs).validation_curve_
    assert curve["k"].tolist() == [1, 2, 3, 5, 10, 20, 50]
    np.testing.assert_allclose(curve["tpr"] + curve["fnr"], 1.0)
    np.testing.assert_allclose(curve["tnr"] + curve["fpr"], 1.0)
    # a larger neighbourhood can only call more pairs duplicates
    assert np.all(np.diff(curve["n_match"]) >= 0)
    assert np.all(np.diff(curve["tpr"]) >= 0)


def test_fixed_k_is_used_and_reported():
    X, pairs = _duplicate_data(seed=7)
    knn = PairwiseKNNMatcher(k=7, k_grid=(1, 2)).fit(X, pairs)
    assert knn.k_ == 7
    assert 7 in knn.validation_curve_["k"]
    report = knn.report(pairs)
    assert report["k"] == 7
    proba = knn.predict_proba(pairs)
    assert set(np.round(proba[:, 1], 12)) <= {round(knn.p_duplicate_match_, 12),
                                               round(knn.p_duplicate_no_match_, 12)}


# ----------------------------------------------------------------------------- both rules

@pytest.mark.parametrize("Matcher", MATCHERS)
def test_clear_duplicate_structure_beats_chance(Matcher):
    X_val, val = _duplicate_data(seed=10)
    X_test, test = _duplicate_data(seed=11)
    model = Matcher().fit(X_val, val)
    # the test pairs live in their own collection
    accuracy = model.score(test, X=X_test)
    assert accuracy > 0.9
    assert model.predict(test, X=X_test).dtype.kind == "i"


@pytest.mark.parametrize("Matcher", MATCHERS)
def test_report_contents(Matcher):
    X, pairs = _duplicate_data(seed=12, noise=0.9)
    model = Matcher().fit(X, pairs)
    report = model.report(pairs)
    pred = model.predict(pairs).astype(bool)
    y = pairs.labels
    assert report["accuracy"] == pytest.approx(model.score(pairs))
    assert report["accuracy"] == pytest.approx(np.mean(pred == y))
    assert report["tpr"] == pytest.approx(np.mean(pred[y]))
    assert report["tnr"] == pytest.approx(np.mean(~pred[~y]))
    assert report["fpr"] == pytest.approx(1 - report["tnr"])
    assert report["fnr"] == pytest.approx(1 - report["tpr"])
    assert report["log_loss"] == pytest.approx(log_loss(y, model.predict_proba(pairs)[:, 1]))
    assert report["n_pairs"] == len(y) and report["n_duplicates"] == int(y.sum())
    assert ("threshold" in report) == (Matcher is ThresholdMatcher)
    proba = model.predict_proba(pairs)
    assert proba.shape == (len(y), 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


@pytest.mark.parametrize("Matcher", MATCHERS)
def test_transformer_object_and_function_give_the_same_rule(Matcher):
    X, pairs = _duplicate_data(seed=13, noise=0.8)
    rng = np.random.default_rng(0)
    W = rng.normal(size=(X.shape[1], 5))

    class Linear:
        def transform(self, Z):
            return np.asarray(Z) @ W

    direct = Matcher().fit(X @ W, pairs)
    for transformer in (Linear(), lambda Z: np.asarray(Z) @ W):
        model = Matcher(transformer=transformer).fit(X, pairs)
        assert np.array_equal(model.predict(pairs), direct.predict(pairs))
        np.testing.assert_allclose(model.predict_proba(pairs, X=X[::-1] * 1.0)[:, 1],
                                   direct.predict_proba(pairs, X=(X @ W)[::-1])[:, 1])


def test_threshold_matcher_rule_and_calibration():
    X_val, val = _duplicate_data(seed=14, noise=1.2)
    X_test, test = _duplicate_data(seed=15, noise=1.2)
    model = ThresholdMatcher().fit(X_val, val)
    scores = model.pair_score(test, X=X_test)
    np.testing.assert_allclose(scores, pair_similarity(X_test, test.indices))
    assert np.array_equal(model.predict(test, X=X_test), (scores >= model.threshold_).astype(int))
    p = model.predict_proba(test, X=X_test)[:, 1]
    assert np.all(np.diff(p[np.argsort(scores)]) >= 0)  # more similar, more likely duplicate
    constant = log_loss(test.labels, np.full(len(p), val.labels.mean()))
    assert log_loss(test.labels, p) < constant - 0.1


@pytest.mark.parametrize("grid, match", [
    (0.5, r"weight_grid must be a sequence of weights in \[0, 1\]; got 0.5"),
    (None, r"weight_grid must be a sequence of weights in \[0, 1\]; got None"),
    ("0.5", r"weight_grid must be a sequence of weights in \[0, 1\]; got '0.5'"),
    ([0.5, 2.0], r"every weight of weight_grid must be a number in \[0, 1\]; got 2.0"),
])
def test_a_weight_grid_that_is_no_sequence_of_weights_is_refused_by_name(grid, match):
    # one number was "'float' object is not iterable" at fit, a str was read letter by letter,
    # and a bad weight was blamed on "grid", a name the caller never wrote
    X, pairs = _duplicate_data(seed=17)
    with pytest.raises(ValueError, match=match):
        ThresholdMatcher(transformer=lambda Z: 2.0 * Z[:, ::-1], input_weight="auto", weight_grid=grid).fit(X, pairs)


def test_threshold_calibration_stays_finite_on_separable_scores():
    X, pairs = _duplicate_data(seed=16, noise=0.05)
    model = ThresholdMatcher().fit(X, pairs)
    assert model.validation_accuracy_ == 1.0
    assert np.isfinite(model.slope_) and model.slope_ > 0
    p = model.predict_proba(pairs)[:, 1]
    assert 0 < p.min() and p.max() < 1


@pytest.mark.parametrize("metric", ["cosine", "inner_product", "euclidean", "sqeuclidean"])
def test_pair_similarity_metrics(metric):
    X = np.array([[3.0, 4.0], [0.0, 1.0], [0.0, 0.0]])
    idx = np.array([[0, 1], [1, 2]])
    want = {"cosine": [0.8, 0.0], "inner_product": [4.0, 0.0],
            "euclidean": [-np.sqrt(18.0), -1.0], "sqeuclidean": [-18.0, -1.0]}[metric]
    np.testing.assert_allclose(pair_similarity(X, idx, metric), want)


@pytest.mark.parametrize("Matcher", MATCHERS)
def test_clone_and_params(Matcher):
    model = Matcher(metric="euclidean")
    assert clone(model).get_params()["metric"] == "euclidean"


# ----------------------------------------------------------------------------- persistence

@pytest.mark.parametrize("Matcher", MATCHERS)
def test_save_and_load_round_trip(Matcher, tmp_path):
    X, pairs = _duplicate_data(seed=17, noise=0.9)
    model = Matcher().fit(sp.csr_matrix(X), pairs)
    path = tmp_path / "matcher.npz"
    persistence.save(model, path)
    loaded = persistence.load(path)
    assert np.array_equal(loaded.predict(pairs), model.predict(pairs))
    np.testing.assert_allclose(loaded.predict_proba(pairs), model.predict_proba(pairs))
    assert loaded.report(pairs) == model.report(pairs)


def test_save_with_a_learnsim_transformer(tmp_path):
    from learnsim.text import TextVectorizer
    texts = ["how do i learn python", "what is the best way to learn python",
             "how to cook rice", "best way to cook rice", "why is the sky blue", "what makes the sky blue",
             "how tall is everest", "how high is mount everest"]
    pairs = Pairs([[0, 1], [2, 3], [4, 5], [6, 7], [0, 3], [2, 5], [4, 7], [1, 6]],
                  labels=[1, 1, 1, 1, 0, 0, 0, 0])
    vectorizer = TextVectorizer(norm="l2").fit(texts)
    for Matcher in MATCHERS:
        model = _make(Matcher, transformer=vectorizer).fit(texts, pairs)
        persistence.save(model, tmp_path / "m.npz")
        loaded = persistence.load(tmp_path / "m.npz")
        assert np.array_equal(loaded.predict(pairs, X=texts), model.predict(pairs, X=texts))


def test_save_refuses_a_foreign_transformer(tmp_path):
    X, pairs = _duplicate_data(seed=18)
    model = ThresholdMatcher(transformer=lambda Z: Z).fit(X, pairs)
    with pytest.raises(TypeError, match="only learnsim objects"):
        persistence.save(model, tmp_path / "m.npz")


def test_from_state_checks_what_it_receives():
    X, pairs = _duplicate_data(seed=19)
    meta, arrays = PairwiseKNNMatcher().fit(X, pairs)._get_state()
    with pytest.raises(ValueError, match="arrays"):
        PairwiseKNNMatcher._from_state(meta, {"embedding": arrays["embedding"]})
    bad = dict(meta, k=10_000)
    with pytest.raises(ValueError, match="exceeds"):
        PairwiseKNNMatcher._from_state(bad, arrays)
    meta, arrays = ThresholdMatcher().fit(X, pairs)._get_state()
    with pytest.raises(ValueError, match="slope"):
        ThresholdMatcher._from_state(dict(meta, slope=float("nan")), arrays)
    with pytest.raises(ValueError, match="version"):
        ThresholdMatcher._from_state(dict(meta, state_version=99), arrays)


# ----------------------------------------------------------------------------- errors

@pytest.mark.parametrize("Matcher", MATCHERS)
def test_not_fitted(Matcher):
    with pytest.raises(NotFittedError):
        Matcher().predict([[0, 1]])
    with pytest.raises(NotFittedError):
        Matcher().report([[0, 1]], [1])


@pytest.mark.parametrize("Matcher", MATCHERS)
def test_bad_pairs_and_labels(Matcher):
    X, pairs = _duplicate_data(seed=20, n_groups=10)
    idx, y = pairs.indices, pairs.labels
    with pytest.raises(ValueError, match="out of range"):
        Matcher().fit(X, np.vstack([idx, [0, 99]]), np.r_[y, True])
    with pytest.raises(ValueError, match="itself"):
        Matcher().fit(X, np.vstack([idx, [3, 3]]), np.r_[y, True])
    with pytest.raises(ValueError, match="empty"):
        Matcher().fit(X, np.empty((0, 2), int), [])
    with pytest.raises(ValueError, match="no duplicate"):
        Matcher().fit(X, idx, np.zeros(len(idx), bool))
    with pytest.raises(ValueError, match="no non-duplicate"):
        Matcher().fit(X, idx, np.ones(len(idx), bool))
    with pytest.raises(ValueError, match="y is required"):
        Matcher().fit(X, idx)
    with pytest.raises(ValueError, match="once"):
        Matcher().fit(X, pairs, y)
    with pytest.raises(ValueError, match="y has 3 entries"):
        Matcher().fit(X, idx, y[:3])
    with pytest.raises(ValueError, match="graded"):
        Matcher().fit(X, Pairs(idx, scores=np.arange(len(idx), dtype=float)))
    with pytest.raises(ValueError, match=r"shape \(n, 2\)"):
        Matcher().fit(X, idx[:, :1], y)
    with pytest.raises(ValueError, match="metric"):
        Matcher(metric="manhattan").fit(X, pairs)
    model = _make(Matcher).fit(X, pairs)
    with pytest.raises(ValueError, match="out of range"):
        model.predict([[0, X.shape[0]]])
    with pytest.raises(ValueError, match="features"):
        model.predict(idx, X=X[:, :3])


@pytest.mark.parametrize("Matcher", MATCHERS)
def test_bad_collections_and_transformers(Matcher):
    X, pairs = _duplicate_data(seed=21, n_groups=10)
    with pytest.raises(TypeError, match="text"):
        Matcher().fit(["a question", "another"], [[0, 1], [1, 0]], [1, 0])
    with pytest.raises(TypeError, match="transform"):
        Matcher(transformer=42).fit(X, pairs)
    with pytest.raises(ValueError, match="one row per item"):
        Matcher(transformer=lambda Z: Z[:-1]).fit(X, pairs)
    with pytest.raises(ValueError, match="NaN"):
        Matcher(transformer=lambda Z: Z * np.nan).fit(X, pairs)


def test_knn_bad_k():
    X, pairs = _duplicate_data(seed=22, n_groups=10)
    for k in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="k must be a positive integer"):
            PairwiseKNNMatcher(k=k).fit(X, pairs)
    with pytest.raises(ValueError, match="'auto'"):
        PairwiseKNNMatcher(k="best").fit(X, pairs)
    with pytest.raises(ValueError, match="larger than the 19 other items"):
        PairwiseKNNMatcher(k=20).fit(X, pairs)
    with pytest.raises(ValueError, match="k_grid is empty"):
        PairwiseKNNMatcher(k_grid=()).fit(X, pairs)
    with pytest.raises(ValueError, match="every value of k_grid exceeds"):
        PairwiseKNNMatcher(k_grid=(50, 100)).fit(X, pairs)
    with pytest.warns(UserWarning, match=r"\[50\].*dropped"):
        knn = PairwiseKNNMatcher(k_grid=(1, 5, 50)).fit(X, pairs)
    assert knn.validation_curve_["k"].tolist() == [1, 5]
    with pytest.raises(ValueError, match="3 texts are too few, it needs at least 6"):
        PairwiseKNNMatcher(k=5).fit(X, pairs).predict([[0, 1]], X=X[:3])


# ----------------------------------------------------------------------------- real data

@pytest.mark.corpus
def test_quora_sample_tfidf_smoke():
    require_corpus("quora-sample/dev.tsv")
    require_corpus("quora-sample/test.tsv")
    from learnsim.datasets import load_quora_pairs
    from learnsim.text import TextVectorizer

    dev, test = load_quora_pairs("dev"), load_quora_pairs("test")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a few questions have no vocabulary term
        vectorizer = TextVectorizer(weighting="tfidf", norm="l2").fit(dev.texts)
    X_dev, X_test = vectorizer.transform(dev.texts), vectorizer.transform(test.texts)
    knn = PairwiseKNNMatcher().fit(X_dev, dev.pairs)
    threshold = ThresholdMatcher().fit(X_dev, dev.pairs)
    # the test pairs are matched within the test questions (the paper's step 6)
    knn_report = knn.report(test.pairs, X=X_test)
    threshold_report = threshold.report(test.pairs, X=X_test)
    assert knn_report["accuracy"] > 0.55
    assert threshold_report["accuracy"] > 0.55
    assert threshold_report["log_loss"] < np.log(2)  # better than the 50/50 base rate


# ----------------------------------------------------------------------------- kNN rule: distinct texts

def _knn_rule(k):
    """A kNN DuplicateRule over a TextVectorizer, and a decide(list of text pairs) as
    Pipeline.match builds its collection (a pair of identical texts holds a copy)."""
    from learnsim.datasets import read_pairs
    from learnsim.matching._duplicates import DuplicateRule
    from learnsim.text import TextVectorizer

    base = [f"w{i} w{i + 1} w{i + 2} common{i % 3}" for i in range(0, 60, 3)]
    near = [t + " extra" for t in base]
    vec = TextVectorizer().fit(base + near)
    n = len(base)
    pairs = np.array([[i, n + i] for i in range(n)] + [[i, n + (i + 1) % n] for i in range(n)])
    y = np.array([1] * n + [0] * n)
    rule = DuplicateRule(PairwiseKNNMatcher(k=k).fit(vec.transform(base + near), pairs, y))

    def decide(rows):
        data = read_pairs(rows)
        texts = [str(t) for t in data.texts]
        return rule.decide(np.asarray(data.indices), vec.transform(texts), texts)
    return base, near, decide


def test_knn_rule_counts_a_copy_of_a_text_once():
    base, near, decide = _knn_rule(1)
    alone = decide([(base[0], near[0])])
    # the pair (t, t) adds a copy of t to the collection: it must not stand before t's neighbour
    score, proba, decision = decide([(base[0], near[0]), (base[0], base[0])])
    assert alone[2][0] and decision.tolist() == [True, True]
    assert score.tolist() == [1.0, 1.0] and proba[0] == pytest.approx(alone[1][0]) and proba[1] == 1.0
    # copies alone: each a duplicate, nothing to rank
    assert decide([(base[3], base[3])])[2].tolist() == [True]


def test_knn_rule_too_few_counts_distinct_texts():
    base, _, decide = _knn_rule(5)
    # six texts given, five of them distinct: too few for k = 5
    with pytest.raises(ValueError, match="5 texts are too few, it needs at least 6"):
        decide([(base[0], base[1]), (base[2], base[3]), (base[4], base[4])])
    assert decide([(base[0], base[1]), (base[2], base[3]), (base[4], base[5])])[2].shape == (3,)


def test_choose_matcher_picks_k_among_distinct_texts():
    """The held-out pairs' collection counts a text once when choose_matcher picks k: a pair of
    two identical texts holds a copy of its text (datasets.pairs), and the copy stood before every
    other neighbour of its text, so k = 1 lost the text's duplicates and a larger k was chosen
    on a collection the rule never decides among (DuplicateRule decides among distinct texts)."""
    from learnsim.datasets import read_pairs
    from learnsim.film import FILM
    from learnsim.matching import choose_matcher
    from learnsim.text import TextVectorizer

    base, near, _ = _knn_rule(1)
    n = len(base)
    rows = ([(base[i], near[i], 1) for i in range(n)] + [(base[i], near[(i + 1) % n], 0) for i in range(n)]
            + [(base[i], base[i], 1) for i in range(n)])
    data = read_pairs(rows)
    texts = [str(t) for t in data.texts]
    assert len(texts) == 3 * n                              # each base text, its near text, one copy
    vec = TextVectorizer().fit(texts)
    X = vec.transform(texts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        film = FILM(n_components=4, baseline_holdout=None, random_state=0, max_iter=20).fit(
            X, np.array([[texts.index(base[i]), texts.index(near[i]), texts.index(near[(i + 1) % n])] for i in range(n)]))
        held = Pairs(np.asarray(data.indices), labels=np.asarray(data.labels, dtype=bool))
        matcher, rule = choose_matcher(film, X, held, held, texts=texts, candidates=("knn",), check_baseline=False)
    distinct = np.sort([texts.index(t) for t in base + near])
    two = np.searchsorted(distinct, np.asarray(data.indices)[:2 * n])
    # the rule fitted on the distinct texts alone, on the pairs of two texts
    want = PairwiseKNNMatcher(film).fit(X[distinct], Pairs(two, labels=np.asarray(data.labels[:2 * n], bool)))
    assert matcher.n_items_ == 2 * n and matcher.k_ == want.k_ == 1
    np.testing.assert_array_equal(matcher.validation_curve_["log_loss"], want.validation_curve_["log_loss"])


@pytest.mark.parametrize("labels, predicted", [([1, 0, 1, 0], 0), ([1, 1, 1, 0], 1)])
def test_threshold_matcher_warns_when_every_fitted_score_ties(labels, predicted):
    """Pairs of identical rows all score the same: the fit learned an infinite threshold (or one
    calling every pair a duplicate) and said nothing, a rule that never looks at a pair. It now
    warns, naming the cause."""
    pairs = Pairs(np.array([[0, 1], [2, 3], [4, 5], [6, 7]]), labels=np.array(labels, bool))
    with pytest.warns(UserWarning, match=r"every one of the 4 fitted pairs has the same score") as caught:
        model = ThresholdMatcher().fit(np.ones((10, 4)), pairs)
    assert ("no pair a duplicate" in str(caught[-1].message)) == (predicted == 0)
    assert caught[-1].filename == __file__      # the caller's line, not learnsim's
    assert model.predict(pairs).tolist() == [predicted] * 4


def test_threshold_matcher_says_nothing_of_scores_that_differ():
    X, pairs = _duplicate_data(seed=18)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ThresholdMatcher().fit(X, pairs)
