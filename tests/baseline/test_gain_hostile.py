"""compare() and choose() under hostile scores: a learner that gives no score where it fails, ties
that a constant rule could win by the order of the items, identical items, every pair positive."""
import warnings

import numpy as np
import pytest

from learnsim.baseline import BaselineWarning, choose, compare


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_units_only_the_baseline_scores_are_not_dropped_in_the_learned_rules_favour(bad):
    # the learned rule scores 0.9 on the 10 units it wins and nothing (NaN, an infinity) on the 10
    # it fails: dropping those kept it on a +0.4 "gain" over the units it chose to score
    learned = np.array([0.9] * 10 + [bad] * 10)
    with pytest.warns(BaselineWarning, match="no score"):
        r = compare(learned, np.full(20, 0.5), measure="AP", unit="held-out queries", baseline_name="cosine",
                    owner="X")
    assert r.status == "baseline" and r.fell_back
    assert "10 of the 20 held-out queries" in r.reason


def test_units_neither_scores_are_still_dropped():
    # a query without a relevant held-out item: no score for either, not a failure of the learner
    learned = np.array([0.9] * 10 + [np.nan] * 3)
    base = np.array([0.5] * 10 + [np.nan] * 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", BaselineWarning)
        r = compare(learned, base, measure="AP", unit="held-out queries", baseline_name="cosine", owner="X")
    assert r.status == "learned" and r.n_units == 10


def test_a_learned_rule_that_scores_none_of_the_units_is_the_baseline_not_unchecked():
    # "unchecked" keeps the learned part (FILM then uses the learned cosine alone): a rule that
    # gave no score on any unit the baseline scores was kept so, without a word of why
    with pytest.warns(BaselineWarning, match="no score .* on any of the 5 held-out queries"):
        r = compare([np.nan] * 5, [0.5] * 5, measure="AP", unit="held-out queries", baseline_name="cosine",
                    owner="X")
    assert r.status == "baseline" and r.fell_back and r.gain == 0.0 and r.detail["learned_unscored"] == 5
    from learnsim.baseline import BaselineGain
    assert BaselineGain.from_dict(r.to_dict()) == r            # it can be saved with the model
    with pytest.warns(BaselineWarning):
        chosen, report = choose(np.vstack([np.full(8, 0.5), np.full(8, np.nan)]), 0, measure="AP",
                                unit="held-out queries", baseline_name="cosine", owner="X")
    assert chosen == 0 and report.fell_back


@pytest.mark.parametrize("folds, per_fold, size", [(1, 6, 10), (3, 2, 10), (1, 8, 5)])
def test_a_constant_learned_similarity_never_wins_through_the_order_of_the_items(folds, per_fold, size):
    # FILM's cluster check (AP among the held-out rows, ties by ascending index) of a learned
    # embedding that puts every item at the same point, over features that carry nothing, the
    # items listed cluster by cluster: the index order puts each fold's first cluster first, a
    # mean AP +0.08 to +0.12 above the input cosine's (measured), all of it on one cluster a fold.
    # The interval resamples whole clusters, so the check keeps it on no seed.
    from sklearn.preprocessing import normalize

    from learnsim.film._search_weight import cluster_weight_scores

    grid = (0.0, 0.5, 1.0)                        # w = 1: the input cosine, the baseline
    gains = []
    for seed in range(10):
        rng = np.random.default_rng(seed)
        parts, groups = [], []
        for f in range(folds):
            labels = np.repeat(np.arange(per_fold), size) + 100 * f
            Xn = normalize(rng.normal(size=(labels.size, 20)))
            E = np.tile(normalize(np.ones((1, 3))), (labels.size, 1))
            parts.append(cluster_weight_scores(Xn, E, labels, np.arange(labels.size), grid, rng))
            groups.append(labels)
        C = np.concatenate(parts, axis=1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", BaselineWarning)
            chosen, report = choose(C, 2, measure="AP", unit="held-out queries", baseline_name="input cosine",
                                    owner="X", groups=np.concatenate(groups), random_state=seed)
        assert chosen == 2 and report.fell_back
        gains.append(np.nanmean(C[0]) - np.nanmean(C[2]))
    assert np.mean(gains) > 0.05          # the order does favour the constant: the case is hostile


def test_identical_items_end_as_the_baseline():
    # every row the same: learned and Euclid tie on every pair, the gain is nil, never kept
    from learnsim.mcd import MinimumClusterDistortion

    labels = np.repeat(np.arange(8), 6)
    with pytest.warns(BaselineWarning):
        report = MinimumClusterDistortion(random_state=0).fit(np.ones((labels.size, 10)), labels).baseline_gain_
    assert report.status == "baseline" and report.gain == 0.0
