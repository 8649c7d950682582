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
