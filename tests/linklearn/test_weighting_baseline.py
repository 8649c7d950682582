"""LearnedBM25 against Okapi BM25 with the defaults on held-out articles (issue 13, section 1):
kept where it wins, exactly BM25 where it loses, the report saved with the model."""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from learnsim.baseline import BaselineGain, BaselineWarning
from learnsim.text.bm25 import BM25
from learnsim.persistence import load, save
from learnsim.supervision import Links
from learnsim.linklearn._weighting import START, LearnedBM25
from test_weighting import TRUE, _synthetic

QUICK = dict(document_fractions=(1.0,), length_spread=1.0, query_length=None)


def _links_of(member, X, k=5):
    """Links from each document to its k best under ``member`` (the document's counts as query)."""
    S = member.score(X, X)
    np.fill_diagonal(S, -np.inf)
    top = np.argsort(-S, axis=1, kind="stable")[:, :k]
    return sp.csr_matrix((np.ones(top.size), (np.repeat(np.arange(X.shape[0]), k), top.ravel())), shape=S.shape)


@pytest.fixture(scope="module")
def data():
    X = _synthetic()
    return X, _links_of(LearnedBM25.from_params(**TRUE), X), _links_of(LearnedBM25.from_params(), X)


def test_learned_parameters_kept_where_they_win_on_held_out_articles(data):
    X, A_true, _ = data
    with warnings.catch_warnings():
        warnings.simplefilter("error", BaselineWarning)
        model = LearnedBM25(**QUICK, max_evaluations=80).fit(X, A_true)
    report = model.baseline_gain_
    assert isinstance(report, BaselineGain) and model.variant_ == "bm25"
    assert report.status == "learned" and report.significant, report.summary()
    assert report.baseline == "Okapi BM25, k1 = 1.5, b = 0.6" and report.unit == "held-out articles"
    assert report.gain == pytest.approx(report.learned_score - report.baseline_score, abs=1e-12)
    # the held-out articles are a fifth of the corpus; only those with a held-out link are units
    assert 0 < report.n_units <= report.detail["held_out_articles"] == round(0.2 * X.shape[0])
    assert model.params_ != START


def test_a_losing_search_falls_back_to_exactly_bm25(data, tmp_path):
    """Links that BM25 with the defaults made, and a "learned" point held far from it (no idf,
    no saturation, squared query counts; measured: held-out AvgP 0.68 against BM25's 0.83): the
    model must fall back and score as BM25(1.5, 0.6)."""
    X, _, A_bm25 = data
    bad = {"k1": 1000.0, "b": 0.0, "idf_exponent": 0.0, "query_exponent": 2.0, "k1_length_exponent": 0.0}
    with pytest.warns(BaselineWarning, match="falls back to the baseline"):
        model = LearnedBM25(**QUICK, max_evaluations=30, fixed=bad).fit(X, A_bm25)
    assert model.baseline_gain_.status == "baseline" and model.baseline_gain_.ci_high < 0
    assert model.params_ == START
    assert model.train_ap_ > model.start_train_ap_         # train_ap_ is BM25's, not the bad point's
    rng = np.random.default_rng(7)
    D = sp.csr_matrix(rng.poisson(0.4, (50, X.shape[1])).astype(np.float64))
    Q = sp.csr_matrix(rng.poisson(0.3, (6, X.shape[1])).astype(np.float64))
    reference = BM25(1.5, 0.6, dtype=np.float64).fit(D).score(Q)
    np.testing.assert_allclose(model.score(Q, D), reference, rtol=0, atol=1e-10)
    np.testing.assert_allclose(model.index(D, dtype=np.float64).score(Q), reference, rtol=0, atol=1e-10)
    save(model, tmp_path / "w.npz")
    loaded = load(tmp_path / "w.npz")
    assert loaded.baseline_gain_ == model.baseline_gain_ and loaded.params_ == START
    np.testing.assert_allclose(loaded.score(Q, D), reference, rtol=0, atol=1e-10)


def test_report_in_the_state_is_checked(data):
    X, A_true, _ = data
    model = LearnedBM25(**QUICK, max_evaluations=20).fit(X, A_true)
    meta, arrays = model._get_state()
    assert meta["baseline_gain"] == model.baseline_gain_.to_dict()
    bad = dict(meta, baseline_gain={**meta["baseline_gain"], "status": "baseline", "gain": -0.1,
                                    "ci_low": -0.2, "ci_high": 0.0})
    with pytest.raises(ValueError, match="fell back to BM25"):
        LearnedBM25._from_state(bad, arrays)
    with pytest.raises(ValueError, match="baseline_gain"):
        LearnedBM25._from_state(dict(meta, baseline_gain=[1]), arrays)
    old = {k: v for k, v in meta.items() if k not in ("baseline_gain", "variant")}
    assert LearnedBM25._from_state(old, arrays).baseline_gain_ is None


def test_no_holdout_no_report_and_too_little_is_unchecked(data):
    X, A_true, _ = data
    assert LearnedBM25(**QUICK, max_evaluations=5, baseline_holdout=None).fit(X, A_true).baseline_gain_ is None
    assert LearnedBM25.from_params().baseline_gain_ is None and LearnedBM25.from_params().variant_ == "bm25"
    ring = Links.from_edges(np.column_stack([np.arange(12), (np.arange(12) + 1) % 12]), 12)
    with pytest.warns(BaselineWarning, match="not checked"):
        model = LearnedBM25(**QUICK, max_evaluations=5).fit(X[:12], ring)
    assert model.baseline_gain_.status == "unchecked"
    for bad in (0, 1.0, -1, "0.2", False):
        with pytest.raises(ValueError, match="baseline_holdout"):
            LearnedBM25(baseline_holdout=bad).fit(X, A_true)


def test_one_standard_error_rule_takes_the_smallest_indistinguishable_shrinkage():
    from learnsim.linklearn._weighting import _one_se_shrinkage

    rng = np.random.default_rng(0)
    base = rng.random(400)
    noise = 0.02 * rng.normal(size=(3, 400))
    noise -= noise.mean(axis=1, keepdims=True)
    best = base + 0.1 + noise[0]
    # AvgP rises to 0.5 and is flat after it (gaps of 3e-4 and 1e-4, standard errors about 1e-3):
    # 0.5 is within one standard error of the best
    per = {0.0: base, 0.25: base + 0.05 + noise[0], 0.5: best + noise[1] - 3e-4, 0.75: best + noise[2] - 1e-4,
           1.0: best}
    lam, table = _one_se_shrinkage(per)
    assert lam == 0.5
    assert table.shape == (5, 4) and table[:, 0].tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert table[2, 2] <= table[2, 3] and table[1, 2] > table[1, 3]
    # a clear rise to the search's point keeps it; NaN articles are left out of every factor
    per = {lam: base + lam * 0.2 for lam in (0.0, 0.5, 1.0)}
    per[0.5] = per[0.5].copy()
    per[0.5][:10] = np.nan
    assert _one_se_shrinkage(per)[0] == 1.0


def test_shrinkage_is_chosen_on_held_out_articles_and_saved(data, tmp_path):
    from learnsim.linklearn._weighting import SHRINKAGE_GRID, _shrunk

    X, A_true, _ = data
    model = LearnedBM25(**QUICK, max_evaluations=60).fit(X, A_true)
    assert model.shrinkage_ in SHRINKAGE_GRID and model.shrinkage_path_.shape == (len(SHRINKAGE_GRID), 4)
    gaps, ses = model.shrinkage_path_[:, 2], model.shrinkage_path_[:, 3]
    chosen = SHRINKAGE_GRID.index(model.shrinkage_)
    assert gaps[chosen] <= ses[chosen] + 1e-12 and np.all(gaps[:chosen] > ses[:chosen])
    assert model.baseline_gain_.detail["shrinkage"] == model.shrinkage_
    # the shrunk member lies between BM25 and the search's point, parameter by parameter
    unshrunk = LearnedBM25(**QUICK, max_evaluations=60, shrink=None).fit(X, A_true)
    assert unshrunk.shrinkage_ == 1.0 and unshrunk.shrinkage_path_.shape == (0, 4)
    expected = _shrunk(unshrunk.params_, model.shrinkage_, {})
    for name, value in model.params_.items():
        assert value == pytest.approx(expected[name], rel=1e-9, abs=1e-12)
    save(model, tmp_path / "s.npz")
    loaded = load(tmp_path / "s.npz")
    assert loaded.shrinkage_ == model.shrinkage_ and loaded.params_ == model.params_
    np.testing.assert_array_equal(loaded.shrinkage_path_, model.shrinkage_path_)
    meta, arrays = model._get_state()
    old = LearnedBM25._from_state({k: v for k, v in meta.items() if k != "shrinkage"},
                                  {k: v for k, v in arrays.items() if k != "shrinkage_path"})
    assert old.shrinkage_ is None and old.shrinkage_path_.shape == (0, 4)
    with pytest.raises(ValueError, match="shrink"):
        LearnedBM25(shrink="two-se").fit(X, A_true)
