"""The graded learner's three pair regressions read the texts once.

choose_regressor fits the regression, the regression with FILM's cosine and the chosen one
again on every pair, all on the same texts with the same vectoriser: each read the texts again
(word analysis, the collection's statistics, the hashed characters), a third of a JSTS fit's
CPU after its ridge fits (cProfile of ``learnsim fit --pairs`` on 4,000 JSTS pairs: 11 of 96 s
in three _fit_representations). They now share the first fit's representations, as the
duplicate rule's classifiers do; the rule, the search weight and the saved regression are the
same as when each reads the texts itself.
"""
import numpy as np
import pytest

import learnsim.matching.pair_classifier as pair_classifier
from learnsim.datasets import make_clustered_corpus
from learnsim.film import FILM
from learnsim.matching._graded import choose_regressor
from learnsim.supervision import Pairs
from learnsim.text import TextVectorizer


@pytest.fixture(scope="module")
def graded():
    corpus = make_clustered_corpus(n_clusters=6, docs_per_cluster=15, random_state=4)
    rng = np.random.default_rng(4)
    texts, y = list(corpus.data), np.asarray(corpus.target)
    idx = rng.integers(len(texts), size=(400, 2))
    idx = idx[idx[:, 0] != idx[:, 1]]
    scores = np.where(y[idx[:, 0]] == y[idx[:, 1]], 4.0, 1.0) + rng.uniform(-1.5, 1.5, size=len(idx))
    vec = TextVectorizer("tfidf", norm="l2", dtype=np.float64).fit(texts)
    X = vec.transform(texts)
    half = len(idx) * 3 // 4
    train, held = Pairs(idx[:half], scores=scores[:half]), Pairs(idx[half:], scores=scores[half:])
    triplets = np.array([[i, j, int(rng.integers(len(texts)))] for (i, j), s in zip(train.indices, train.scores)
                         if s > 3.0])
    triplets = triplets[(triplets[:, 2] != triplets[:, 0]) & (triplets[:, 2] != triplets[:, 1])]
    film = FILM(n_components=8, max_iter=30, baseline_holdout=None, random_state=0).fit(X, triplets)
    return texts, X, vec, film, train, held


def _choose(graded, check_baseline):
    texts, X, vec, film, train, held = graded
    return choose_regressor(film, X, train, held, texts=texts, vectorizer=vec, check_baseline=check_baseline,
                            random_state=0)


@pytest.mark.parametrize("check_baseline", [False, True])
def test_the_regressions_hash_the_characters_and_transform_the_texts_once(monkeypatch, graded, check_baseline):
    calls = {"chars": 0, "transform": 0}
    original_chars = pair_classifier._PairModel._char_counts
    original_transform = TextVectorizer.transform

    def chars(self, texts):
        calls["chars"] += 1
        return original_chars(self, texts)

    def transform(self, texts, *args, **kwargs):
        calls["transform"] += 1
        return original_transform(self, texts, *args, **kwargs)
    monkeypatch.setattr(pair_classifier._PairModel, "_char_counts", chars)
    monkeypatch.setattr(TextVectorizer, "transform", transform)
    regressor, rule, _ = _choose(graded, check_baseline)
    assert rule.matcher in ("regression", "regression+film")      # a regression refitted, not the cosine
    # one fit's representation: the hashed characters once; the word tf.idf and the collection's
    # weighting once each (before: three times each)
    assert calls["chars"] == 1
    assert calls["transform"] == 2


def test_sharing_changes_no_figure_and_no_saved_array(monkeypatch, graded):
    shared = _choose(graded, True)
    real = pair_classifier.PairScoreRegressor._fit_scored

    def alone(self, X, pairs, y=None, shared=None):
        return real(self, X, pairs, y)
    monkeypatch.setattr(pair_classifier.PairScoreRegressor, "_fit_scored", alone)
    own = _choose(graded, True)
    (r1, rule1, search1), (r2, rule2, search2) = shared, own
    assert rule1.matcher == rule2.matcher and rule1.pearsons == rule2.pearsons
    assert search1.input_weight == search2.input_weight
    np.testing.assert_array_equal(search1.weight_scores, search2.weight_scores)
    assert r1.alpha_ == r2.alpha_
    meta1, arrays1 = r1._get_state()
    meta2, arrays2 = r2._get_state()
    assert meta1 == meta2 and sorted(arrays1) == sorted(arrays2)
    for name in arrays1:
        np.testing.assert_array_equal(arrays1[name], arrays2[name], err_msg=name)
