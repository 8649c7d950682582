"""The graded pair regression's ridge fits run on one BLAS thread.

Each of PairScoreRegressor's ridge fits (sparse design: scikit-learn's conjugate gradients) is
thousands of products of a vector of the features' length (a JSTS fit of 4,000 pairs: 20,000
word-pair columns). OpenBLAS ran each of those dot products on two threads: on the loaded 2-core
machine each took 0.8-2 ms instead of 0.03 (a cProfile of ``learnsim fit --pairs`` on 4,000 JSTS
pairs: 216 of its 337 s in 108 ridge fits). PairClassifierMatcher's logistic fits were already
held to one thread. These tests check where the limit applies, without timing anything, and that
the fitted regression is the one BLAS's threads give, up to rounding.
"""
import contextlib

import numpy as np
import pytest

import learnsim.matching.pair_classifier as pair_classifier
from blas_threads import blas_threads as _blas_threads
from learnsim.datasets import make_clustered_corpus
from learnsim.matching import PairScoreRegressor

threadpoolctl = pytest.importorskip("threadpoolctl")


def _graded(n_pairs=120, seed=0):
    corpus = make_clustered_corpus(n_clusters=5, docs_per_cluster=10, random_state=seed)
    rng = np.random.default_rng(seed)
    texts, y = list(corpus.data), np.asarray(corpus.target)
    idx = rng.integers(len(texts), size=(n_pairs, 2))
    idx = idx[idx[:, 0] != idx[:, 1]]
    scores = np.where(y[idx[:, 0]] == y[idx[:, 1]], 4.0, 1.0) + rng.uniform(-0.8, 0.8, size=len(idx))
    return texts, idx, scores


def test_every_ridge_fit_of_the_graded_regression_runs_on_one_blas_thread(monkeypatch, two_blas_threads):
    texts, idx, scores = _graded()
    seen = []
    original = pair_classifier.Ridge.fit

    def spied(self, *args, **kwargs):
        seen.append(_blas_threads())
        return original(self, *args, **kwargs)
    monkeypatch.setattr(pair_classifier.Ridge, "fit", spied)
    model = PairScoreRegressor(random_state=0).fit(texts, idx, scores)
    # the cross-validated alphas (5 folds x the grid) and the final fit
    assert len(seen) == 5 * len(model.alpha_grid) + 1
    assert all(threads == {1} for threads in seen)
    # and the limit is lifted afterwards
    assert _blas_threads() == {2}


def test_the_regression_is_the_one_blas_threads_give(monkeypatch, two_blas_threads):
    texts, idx, scores = _graded(seed=1)
    one = PairScoreRegressor(random_state=0).fit(texts, idx, scores)

    monkeypatch.setattr(pair_classifier, "one_blas_thread", contextlib.nullcontext)
    two = PairScoreRegressor(random_state=0).fit(texts, idx, scores)
    assert one.alpha_ == two.alpha_
    np.testing.assert_allclose(one.coef_, two.coef_, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(one.predict(idx), two.predict(idx), rtol=1e-7, atol=1e-9)
