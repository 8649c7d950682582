"""learnsim.baseline: the learned-against-baseline report, its interval and the honest choice."""
import math
import warnings

import numpy as np
import pytest

from learnsim.baseline import (BaselineGain, BaselineWarning, choose, compare, cross_fitted, paired_bootstrap,
                               split_groups, unchecked)


def test_bootstrap_interval_holds_the_mean_and_shrinks_with_more_units():
    rng = np.random.default_rng(0)
    small = rng.normal(0.1, 1.0, 50)
    large = rng.normal(0.1, 1.0, 5000)
    lo_s, hi_s = paired_bootstrap(small, random_state=1)
    lo_l, hi_l = paired_bootstrap(large, random_state=1)
    assert lo_s <= small.mean() <= hi_s and lo_l <= large.mean() <= hi_l
    assert (hi_l - lo_l) < (hi_s - lo_s) / 5
    # about 1.96 standard errors each side
    assert hi_l - lo_l == pytest.approx(2 * 1.96 * large.std() / math.sqrt(large.size), rel=0.15)


def test_cluster_bootstrap_widens_the_interval_of_correlated_units():
    rng = np.random.default_rng(0)
    groups = np.repeat(np.arange(10), 30)
    d = rng.normal(0.0, 1.0, 10)[groups] + rng.normal(0.0, 0.1, groups.size)   # units of a group agree
    lo, hi = paired_bootstrap(d, random_state=0)
    glo, ghi = paired_bootstrap(d, groups=groups, random_state=0)
    assert (ghi - glo) > 3 * (hi - lo)
    with pytest.raises(ValueError, match="one entry per difference"):
        paired_bootstrap(d, groups=groups[:-1])


@pytest.mark.parametrize("bad", [[], [np.nan, 1.0]])
def test_bootstrap_refuses_empty_or_nonfinite(bad):
    with pytest.raises(ValueError):
        paired_bootstrap(bad)


def test_compare_keeps_learned_on_a_gain_and_falls_back_with_a_warning_otherwise():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # six queries: the fewest on which a gain can be kept (tests/baseline/test_gain_few_units.py)
        kept = compare([0.6, 0.7, 0.8] * 2, [0.5, 0.5, 0.5] * 2, measure="AP", unit="queries",
                       baseline_name="cosine", owner="X")
    assert kept.status == "learned" and kept.gain == pytest.approx(0.2) and not kept.fell_back
    with pytest.warns(BaselineWarning, match="X: .*falls back"):
        lost = compare([0.5, 0.5], [0.5, 0.5], measure="AP", unit="queries", baseline_name="cosine", owner="X")
    assert lost.status == "baseline" and lost.fell_back and lost.gain == 0.0


def test_a_gain_the_interval_cannot_tell_from_zero_is_not_kept():
    with pytest.warns(BaselineWarning, match="does not help for certain"):
        r = compare([0.9, 0.1, 0.6, 0.55] * 2, [0.5, 0.5, 0.5, 0.5] * 2, measure="AP", unit="queries",
                    baseline_name="cosine", owner="X")
    assert r.gain > 0 and r.ci_low <= 0 and r.status == "baseline"


def test_compare_drops_unscorable_units_and_reports_none_scored():
    # a unit neither scores (a query without a relevant held-out item); one only the baseline
    # scores is the learned rule's failure (tests/baseline/test_gain_hostile.py)
    r = compare([np.nan, 0.9], [np.nan, 0.5], measure="AP", unit="queries", baseline_name="cosine", owner="X")
    assert r.n_units == 1 and r.gain == pytest.approx(0.4)
    with pytest.warns(BaselineWarning, match="not checked"):
        r = compare([np.nan], [np.nan], measure="AP", unit="queries", baseline_name="cosine", owner="X")
    assert r.status == "unchecked"


def test_cross_fitted_gain_is_not_inflated_by_the_choice():
    """Twenty candidates that are pure noise around the baseline: the in-sample best looks like a
    gain, the cross-fitted score of the choice does not, on average."""
    rng = np.random.default_rng(0)
    in_sample, honest = [], []
    for _ in range(200):
        C = rng.normal(0.0, 1.0, (20, 40))
        C[0] = 0.0                                   # the baseline
        chosen, scores = cross_fitted(C, 0, random_state=rng)
        in_sample.append(C.mean(axis=1).max())
        honest.append(scores.mean())
    assert np.mean(in_sample) > 0.2
    assert abs(np.mean(honest)) < 0.05


def test_cross_fitted_ties_go_to_the_baseline():
    C = np.ones((3, 10))
    chosen, scores = cross_fitted(C, 1)
    assert chosen == 1 and np.all(scores == 1)


def test_split_groups_holds_out_whole_groups_or_declines():
    ids, held = split_groups(np.repeat(np.arange(10), 3), 0.2, random_state=0)
    assert list(ids) == list(range(10)) and held.sum() == 2
    assert split_groups(np.arange(3), 0.2) is None


def test_report_round_trip_and_refusals():
    r = compare([0.6, 0.7, 0.8] * 2, [0.5, 0.5, 0.6] * 2, measure="AP", unit="queries", baseline_name="cosine",
                owner="X", detail={"w": 0.3})
    assert BaselineGain.from_dict(r.to_dict()) == r
    assert "kept the learned part" in r.summary()
    for key, value in [("status", "maybe"), ("gain", float("nan")), ("n_units", 0), ("detail", {"w": [1]}),
                       ("confidence", 1.5), ("gain", 9.0)]:
        with pytest.raises(ValueError, match="baseline_gain"):
            BaselineGain.from_dict(dict(r.to_dict(), **{key: value}))
    with pytest.raises(ValueError, match="unknown keys"):
        BaselineGain.from_dict(dict(r.to_dict(), extra=1))
    with pytest.warns(BaselineWarning):
        u = unchecked("3 clusters", baseline_name="Euclid", owner="X")
    assert BaselineGain.from_dict(u.to_dict()) == u and "not checked" in u.summary()


def test_choose_keeps_a_clear_winner_and_falls_back_on_a_loser():
    C = np.vstack([np.full(40, 0.5), np.full(40, 0.9)])
    chosen, report = choose(C, 0, measure="AP", unit="queries", baseline_name="cosine", owner="X",
                            detail=lambda c: {"chosen": int(c)})
    assert chosen == 1 and report.status == "learned" and report.detail == {"chosen": 1}
    with pytest.warns(BaselineWarning, match="the learned part does not help"):
        chosen, report = choose(np.vstack([np.full(40, 0.2), np.full(40, 0.5)]), 1, measure="AP", unit="queries",
                                baseline_name="cosine", owner="X", detail=lambda c: {"chosen": int(c)})
    assert chosen == 1 and report.fell_back and report.gain <= 0 and report.detail == {"chosen": 1}


def test_choose_uses_the_baseline_when_it_scores_best_on_all_units_and_says_why(monkeypatch):
    """The cross-fitted gain passes, but the candidate chosen on all units is the baseline: the
    model is the baseline and the report gives that reason, not the interval's."""
    import learnsim.baseline._gain as baseline

    monkeypatch.setattr(baseline, "cross_fitted", lambda C, base, **kw: (base, np.full(C.shape[1], 1.0)))
    C = np.vstack([np.zeros(10), np.ones(10)])
    with pytest.warns(BaselineWarning, match="the baseline itself scores best"):
        chosen, report = baseline.choose(C, 0, measure="AP", unit="queries", baseline_name="cosine", owner="X",
                                         detail=lambda c: {"chosen": int(c)})
    assert chosen == 0 and report.status == "baseline" and report.gain == 1.0 and report.ci_low > 0
    assert report.detail == {"chosen": 0}
    assert BaselineGain.from_dict(report.to_dict()) == report
