"""A threshold rule's probability lay on the other side of its decision: ThresholdMatcher (and the
pair classifier) chose the threshold for accuracy and fitted Platt scaling apart, whose 0.5 point
was elsewhere, so 'learnsim match' printed P(dup) 0.587 beside 'different' (on the Quora sample's
test pairs, 1,449 of 10,000 with a tf.idf cosine threshold fitted on dev). The calibration is now
centred on the threshold: P(duplicate) >= 0.5 exactly where the rule says duplicate, as
scikit-learn's predict == (predict_proba[:, 1] >= 0.5)."""
import warnings

import numpy as np
import pytest

from learnsim.matching import PairClassifierMatcher, ThresholdMatcher


def _collection(seed, n=60, d=8):
    """Rows i and n + i a pair: a noisy copy for the duplicates (about 40 %), unrelated otherwise;
    the noise is large enough that no threshold separates the two kinds."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(2 * n, d))
    dup = rng.random(n) < 0.4
    dup[:2], dup[2:4] = True, False
    noisy = X[:n] + rng.uniform(0.3, 1.5) * rng.normal(size=(n, d))
    X[n:] = np.where(dup[:, None], noisy, X[n:])
    pairs = np.c_[np.arange(n), n + np.arange(n)]
    others = np.c_[rng.integers(0, 2 * n, 400), rng.integers(0, 2 * n, 400)]
    return X, pairs, dup, np.r_[pairs, others[others[:, 0] != others[:, 1]]]


@pytest.mark.parametrize("metric", ["cosine", "euclidean", "inner_product"])
def test_the_threshold_rule_s_probability_is_on_the_side_of_its_decision(metric):
    for seed in range(25):
        X, pairs, dup, asked = _collection(seed)
        m = ThresholdMatcher(metric=metric).fit(X, pairs, dup)
        decision = m.predict(asked).astype(bool)
        p = m.predict_proba(asked)[:, 1]
        assert np.array_equal(decision, p >= 0.5), (seed, p[decision != (p >= 0.5)][:3], m.threshold_)
        # still a probability that grows with the score: not a 0/1 answer
        s = m.pair_score(asked)
        order = np.argsort(s, kind="stable")
        assert np.all(np.diff(p[order]) >= 0) and 0.0 < p.min() and p.max() < 1.0
        if np.isfinite(m.threshold_):       # (inf: no pair a duplicate did best, all under 0.5)
            assert p.max() - p.min() > 0.2


def test_at_the_threshold_the_probability_is_one_half():
    X, pairs, dup, _ = _collection(3)
    m = ThresholdMatcher().fit(X, pairs, dup)
    p = m._proba_from_decision(np.array([m.threshold_, np.nextafter(m.threshold_, -np.inf),
                                         m.threshold_ + 1e-9, m.threshold_ - 1e-9]))
    assert p[0] == 0.5 and p[1] < 0.5 and p[2] >= 0.5 and p[3] < 0.5
    assert abs(p[2] - 0.5) < 1e-6 and abs(p[3] - 0.5) < 1e-6
    assert m.slope_ > 0


def test_the_mixed_cosine_rule_agrees_too():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(4, 8))

    def transform(X):
        return np.asarray(X) @ A.T
    for seed in range(10):
        X, pairs, dup, asked = _collection(seed)
        m = ThresholdMatcher(transform, input_weight="auto").fit(X, pairs, dup)
        p = m.predict_proba(asked)[:, 1]
        assert np.array_equal(m.predict(asked).astype(bool), p >= 0.5)


def test_a_rule_that_calls_no_pair_a_duplicate_gives_no_probability_above_one_half():
    X, pairs, dup, asked = _collection(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = ThresholdMatcher().fit(np.ones_like(X), pairs, dup)      # every score ties
    p = m.predict_proba(asked, X=X)[:, 1]
    decision = m.predict(asked, X=X).astype(bool)
    assert np.array_equal(decision, p >= 0.5)


def test_the_calibration_is_still_a_calibration():
    """Centred on the threshold, the probability keeps following the share of duplicates: the pairs
    given P >= 0.8 are mostly duplicates, those given P <= 0.2 mostly not."""
    rng = np.random.default_rng(7)
    n = 3000
    X = rng.normal(size=(2 * n, 8))
    dup = rng.random(n) < 0.5
    X[n:] = np.where(dup[:, None], X[:n] + rng.uniform(0.5, 2.0, size=(n, 1)) * rng.normal(size=(n, 8)), X[n:])
    pairs = np.c_[np.arange(n), n + np.arange(n)]
    m = ThresholdMatcher().fit(X[:, :], pairs[:1500], dup[:1500])
    p = m.predict_proba(pairs[1500:])[:, 1]
    held = dup[1500:]
    assert held[p >= 0.8].mean() > 0.75 and held[p <= 0.2].mean() < 0.25
    # the mean probability is near the share of duplicates
    assert abs(p.mean() - held.mean()) < 0.06


TEXTS = ["how do i learn python", "how can i learn python", "what is the capital of france",
         "which city is the capital of france", "best way to lose weight", "how to lose weight fast",
         "how do i cook rice", "what is a good laptop", "how to learn python quickly", "capital city of france",
         "how do i cook pasta", "what laptop should i buy", "fastest way to lose weight", "rice cooking tips",
         "python for beginners", "france capital city name"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_pair_classifier_s_probability_is_on_the_side_of_its_decision(seed):
    rng = np.random.default_rng(seed)
    groups = [[0, 1, 8, 14], [2, 3, 9, 15], [4, 5, 12], [6, 13, 10], [7, 11]]
    where = {t: g for g, members in enumerate(groups) for t in members}
    every = np.array([(i, j) for i in range(len(TEXTS)) for j in range(i + 1, len(TEXTS))])
    y = np.array([where[i] == where[j] for i, j in every])
    # noisy labels: no rule decides every pair right
    flip = rng.random(y.size) < 0.15
    y_noisy = y ^ flip
    clf = PairClassifierMatcher(C=1.0, n_splits=3, random_state=seed).fit(TEXTS, every, y_noisy)
    p = clf.predict_proba(every)[:, 1]
    assert np.array_equal(clf.predict(every).astype(bool), p >= 0.5)
    assert np.array_equal(clf.probability_of(clf.decision_function(every)), p)


def test_a_model_calibrated_apart_from_its_threshold_is_said_once_and_agrees():
    """A model file saved before the calibration was centred holds a free Platt fit: its
    probabilities stop at 0.5 on the side of the decision, and the duplicate rule says so once."""
    from learnsim.matching._duplicates import DuplicateRule
    from learnsim.matching._matchers import _fit_platt

    X, pairs, dup, asked = _collection(0)
    m = ThresholdMatcher().fit(X, pairs, dup)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        DuplicateRule(m)
    assert not caught
    m.slope_, m.intercept_ = _fit_platt(m.pair_score(pairs), dup)       # the old calibration
    assert abs(-m.intercept_ / m.slope_ - m.threshold_) > 0.01
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rule = DuplicateRule(m)
        DuplicateRule(m)
    said = [str(w.message) for w in caught]
    assert len(said) == 1 and "centred on its threshold" in said[0] and "learnsim fit" in said[0]
    p = rule.predict_proba(asked, X)[:, 1]
    assert np.array_equal(rule.predict(asked, X).astype(bool), p >= 0.5)
