"""A FILM fit on pairs chose the paper's pairwise kNN rule (a pair is a duplicate when its two texts
are mutual nearest neighbours among the texts decided together) on held-out pairs where every
text's duplicate was present: on 60 Chinese notes of 3 topics it scored 1.000 against the input
cosine threshold's 0.879 and the classifier's 0.939. Used by 'learnsim match', it then called a
phone note and a weather note duplicates (two texts given alone are always each other's nearest),
each with the same P = 0.929. Chosen among several rules, the duplicate rule now decides a pair by
its two texts alone (a threshold or the classifier, probability per pair); the kNN rule is still
measured and reported, and used when asked for alone."""
import warnings

import numpy as np
import pytest

from learnsim.matching import choose_matcher
from learnsim.supervision import Pairs


def _identity(X):
    return np.asarray(X, dtype=np.float64)


def _two_densities(seed=0, n=12, d=24):
    """A tight topic (its texts alike: non-duplicates at cosine ~0.9, duplicates ~0.99) and a loose
    one (non-duplicates ~0, duplicates ~0.7): no one threshold separates the pairs, the mutual
    nearest neighbours do while each text's duplicate is among the texts."""
    rng = np.random.default_rng(seed)
    centre = rng.normal(size=d)
    tight = centre + 0.35 * rng.normal(size=(n, d))
    loose = rng.normal(size=(n, d))
    base = np.vstack([tight, loose])
    twins = np.vstack([tight + 0.05 * rng.normal(size=(n, d)), loose + 0.7 * rng.normal(size=(n, d))])
    X = np.vstack([base, twins])                  # row i and row 2n + i are duplicates
    m = 2 * n
    dup = np.c_[np.arange(m), m + np.arange(m)]
    within = np.r_[np.c_[np.arange(n), (np.arange(n) + 1) % n],
                   np.c_[n + np.arange(n), n + (np.arange(n) + 1) % n]]
    P = np.r_[dup, within]
    y = np.r_[np.ones(m), np.zeros(m)].astype(bool)
    return X, P, y, n


def test_the_premise_the_knn_rule_wins_on_held_out_pairs_with_every_duplicate_present():
    X, P, y, n = _two_densities()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, rule = choose_matcher(_identity, X, Pairs(P, labels=y), Pairs(P, labels=y),
                                 candidates=("threshold", "knn"), check_baseline=True)
    assert rule.accuracies["knn"] >= rule.accuracies["cosine"] + 0.15
    assert rule.accuracies["knn"] >= rule.accuracies["threshold"] + 0.15


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_rule_chosen_among_several_does_not_call_two_unrelated_texts_duplicates(seed):
    X, P, y, n = _two_densities(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        matcher, rule = choose_matcher(_identity, X, Pairs(P, labels=y), Pairs(P, labels=y),
                                       candidates=("threshold", "knn"), check_baseline=True)
    assert rule.matcher != "knn"
    assert "knn" in rule.accuracies             # measured and reported all the same
    # a text of the tight topic and one of the loose topic, decided alone, and among others
    unrelated = np.array([[0, 1]])
    for rows in (X[[0, n]], X[[0, n, 2 * n + 3, 3]]):
        assert matcher.predict(unrelated, X=rows).tolist() == [0]
        p = matcher.predict_proba(unrelated, X=rows)[0, 1]
        assert p < 0.5
    # the probability is the pair's own: a near copy is more probably a duplicate than a loose pair
    probs = matcher.predict_proba(np.array([[0, 1], [2, 3]]), X=X[[0, 2 * n, n + 1, 3 * n + 1]])[:, 1]
    assert probs[0] > probs[1] + 0.05


def test_the_knn_rule_asked_for_alone_is_still_the_papers_rule():
    X, P, y, n = _two_densities()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        matcher, rule = choose_matcher(_identity, X, Pairs(P, labels=y), Pairs(P, labels=y),
                                       candidates=("knn",), check_baseline=False)
    assert rule.matcher == "knn" and type(matcher).__name__ == "PairwiseKNNMatcher"
