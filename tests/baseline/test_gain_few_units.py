"""compare() and choose() (clusters, anchors, pairs, links, relative comparisons) under the rule of
the search check: a percentile bootstrap interval lies above zero whenever every held-out unit (or
group the interval resamples) gains, however few they are, and a rule that gains nothing gains on
all n of them one time in 2^n; below the fewest n for which that is rarer than the interval's
lower tail (6 at 95 %), a gain is not evidence and the model ends as the baseline."""
import warnings

import numpy as np
import pytest

from learnsim.baseline import BaselineWarning, choose, compare


def _compare(learned, baseline, **kw):
    return compare(learned, baseline, measure="AP", unit="held-out queries", baseline_name="cosine", owner="X",
                   **kw)


@pytest.mark.parametrize("n", [1, 2, 5])
def test_a_gain_on_every_one_of_fewer_than_six_units_is_not_kept(n):
    learned, base = np.full(n, 0.9), np.linspace(0.1, 0.3, n)
    with pytest.warns(BaselineWarning, match="too few to tell a gain"):
        r = _compare(learned, base)
    assert r.status == "baseline" and r.fell_back
    # the figures are still reported, and the reason says how many there were and how many it needs
    assert r.gain > 0.5 and r.n_units == n
    assert f"only {n} held-out queries" in r.reason and "at least 6" in r.reason


def test_the_same_gain_on_six_units_is_kept():
    with warnings.catch_warnings():
        warnings.simplefilter("error", BaselineWarning)
        r = _compare(np.full(6, 0.9), np.linspace(0.1, 0.3, 6))
    assert r.status == "learned" and r.reason is None and r.ci_low > 0


def test_units_in_fewer_than_six_groups_count_as_their_groups():
    # 400 queries of 4 held-out clusters, every one gaining: four independent units, not 400
    rng = np.random.default_rng(0)
    groups = np.repeat(np.arange(4), 100)
    base = rng.random(400)
    with pytest.warns(BaselineWarning, match="too few"):
        r = _compare(base + 0.2, base, groups=groups)
    assert r.status == "baseline" and r.n_units == 400
    assert "only 4 held-out groups (each resampled whole) scored" in r.reason and "at least 6" in r.reason
    six = np.repeat(np.arange(6), 100)
    base = rng.random(600)
    assert _compare(base + 0.2, base, groups=six).status == "learned"


def test_one_group_holding_every_unit_is_not_a_gain():
    # a single group: the bootstrap interval is the one mean, above zero whenever it gains
    base = np.random.default_rng(1).random(300)
    with pytest.warns(BaselineWarning, match="only 1 held-out group"):
        r = _compare(base + 0.3, base, groups=np.zeros(300, dtype=int))
    assert r.status == "baseline"


def test_units_that_cannot_be_scored_do_not_count():
    # ten units of which only three are scored (by either): three, too few
    learned = np.array([0.9, 0.9, 0.9] + [np.nan] * 7)
    with pytest.warns(BaselineWarning, match="only 3 held-out queries"):
        r = _compare(learned, np.array([0.2, 0.2, 0.2] + [np.nan] * 7))
    assert r.status == "baseline" and r.n_units == 3


def test_a_stricter_confidence_needs_more_units():
    # at 99 % the lower tail is 0.5 %: 2^-7 is above it, 2^-8 below, so 8 units
    with pytest.warns(BaselineWarning, match="at least 8"):
        r = _compare(np.full(7, 0.9), np.full(7, 0.2), confidence=0.99)
    assert r.status == "baseline"
    assert _compare(np.full(8, 0.9), np.full(8, 0.2), confidence=0.99).status == "learned"


@pytest.mark.parametrize("n", [2, 3, 5])
def test_choose_on_fewer_than_six_units_uses_the_baseline(n):
    # below four units choose() cannot even cross-fit: the best of many candidates in sample
    base = np.full(n, 0.3)
    candidates = np.vstack([base, base + 0.1, base + 0.5])
    with pytest.warns(BaselineWarning, match="too few"):
        chosen, report = choose(candidates, 0, measure="accuracy", unit="held-out pairs", baseline_name="cosine",
                                owner="X")
    assert chosen == 0 and report.fell_back and f"only {n} held-out pairs" in report.reason


def test_the_summary_says_why_in_words():
    with pytest.warns(BaselineWarning):
        r = _compare(np.full(3, 0.9), np.full(3, 0.2))
    s = r.summary()
    assert "on 3 held-out queries" in s and "too few to tell a gain" in s and "falls back to the baseline" in s


@pytest.mark.parametrize("confidence", [0.8, 0.9, 0.95, 0.99, 0.999])
def test_compare_and_the_search_check_need_the_same_fewest_units(confidence):
    # compare() and the search check take the one rule from _chance (_gain may not import
    # _search, which imports it)
    from learnsim.baseline._chance import fewest_units
    from learnsim.baseline._search import _fewest_units

    assert fewest_units(confidence) == _fewest_units(confidence)
