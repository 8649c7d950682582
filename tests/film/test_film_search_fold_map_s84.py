"""The search check's FILM fits on its training clusters (learnsim.fitting.fit_film's ``learn``)
learned their map even where their own held-out check chose w = 1, the input cosine alone: the
map then had weight 0 in every score, and 4 of the 20 optimisations of 'learnsim fit --method
film' on examples/tickets.jsonl were spent on it."""
import warnings

import numpy as np
import pytest

import learnsim.fitting
from learnsim.film import FILM


@pytest.fixture
def corpus():
    from learnsim.datasets import make_clustered_corpus

    c = make_clustered_corpus(n_clusters=10, docs_per_cluster=8, random_state=4)
    return [str(t) for t in c.data], np.asarray(c.target).tolist()


def _fit(texts, labels):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return learnsim.fitting.fit(texts, clusters=labels, method="film", n_components=6, max_iter=15)


def _force_input_weight_one(monkeypatch, learns, folds):
    real_check, real_fold, real_learn = FILM._baseline_check, FILM._checked_fold, FILM._learn

    def check(self, *args, **kwargs):
        report, _ = real_check(self, *args, **kwargs)
        return report, 1.0              # every check chooses the input cosine alone

    def fold(self, *args, **kwargs):
        folds[id(self)] = folds.get(id(self), 0) + 1
        return real_fold(self, *args, **kwargs)

    def learn(self, *args, **kwargs):
        learns[id(self)] = learns.get(id(self), 0) + 1
        return real_learn(self, *args, **kwargs)

    monkeypatch.setattr(FILM, "_baseline_check", check)
    monkeypatch.setattr(FILM, "_checked_fold", fold)
    monkeypatch.setattr(FILM, "_learn", learn)


def test_a_search_folds_film_that_chose_the_input_cosine_learns_no_map(monkeypatch, corpus):
    learns, folds = {}, {}
    _force_input_weight_one(monkeypatch, learns, folds)
    result = _fit(*corpus)
    assert "search_baseline_gain" in result.report
    fits = list(folds)                  # in order: the fit's own FILM, then each search fold's
    assert len(fits) >= 2
    # the fit's own FILM learns its map (its report and a kept model need it): its folds and the refit
    assert learns[fits[0]] == folds[fits[0]] + 1
    # each search fold's FILM: its check's folds only (failed before: one more, the unused refit)
    assert all(learns[f] == folds[f] for f in fits[1:])


def test_skipping_the_unused_map_changes_no_score_of_the_search_check(monkeypatch, corpus):
    reports = []
    for skip in (True, False):
        with monkeypatch.context() as m:
            _force_input_weight_one(m, {}, {})
            if not skip:                # the map learned as before
                def full(self, X, y, svd=None):
                    self.fit(X, y)
                    self._map_learned = True
                    return self
                m.setattr(FILM, "_fit_for_weight", full)
            reports.append(_fit(*corpus).report)
    skipped, learned = reports
    assert skipped["model"] == learned["model"]
    assert skipped["search_baseline_gain"] == learned["search_baseline_gain"]
    assert skipped["baseline_scores"] == learned["baseline_scores"]


def test_the_search_folds_films_share_one_svd_of_the_texts(monkeypatch, corpus):
    # each search fold's FILM computed step 1's (exact) SVD of the same texts again
    import learnsim.film._film as film_module

    calls, folds = [], []
    real_svd, real_fit = film_module.truncated_svd_with_u, FILM._fit_for_weight

    def svd(*args, **kwargs):
        calls.append(args[1])
        return real_svd(*args, **kwargs)

    def fit(self, *args, **kwargs):
        folds.append(self)
        return real_fit(self, *args, **kwargs)

    monkeypatch.setattr(film_module, "truncated_svd_with_u", svd)
    monkeypatch.setattr(FILM, "_fit_for_weight", fit)
    result = _fit(*corpus)
    assert "search_baseline_gain" in result.report and len(folds) >= 2
    # one for the fit's own FILM (its folds and refit share it), one for every search fold's
    assert len(calls) == 2
