"""The matchers were not GridSearchCV-able: their fit takes (X, pairs, y), so GridSearchCV's
fit(X, pairs, y) failed ("got multiple values for argument 'y'") and fit(pairs, y) took the pairs
for the collection; and sklearn.base.clone, once per candidate and fold, unfitted the fitted
transformer a matcher uses as it is. OnCollection fixes the collection and makes the pairs the
samples; its clones keep the fitted parts and share the collection."""
import numpy as np
import pytest
from sklearn.base import clone, is_classifier, is_regressor
from sklearn.model_selection import GridSearchCV, cross_val_score

from learnsim.matching import (OnCollection, OnCollectionRegressor, PairClassifierMatcher, PairScoreRegressor,
                               PairwiseKNNMatcher, ThresholdMatcher)


class _Projection:
    """A fitted transformer (as FILM is): clone would give an unfitted copy."""

    def fit(self, X, y=None):
        self.A_ = np.random.default_rng(0).normal(size=(np.asarray(X).shape[1], 4))
        return self

    def transform(self, X):
        if not hasattr(self, "A_"):
            raise RuntimeError("not fitted")
        return np.asarray(X) @ self.A_

    def get_params(self, deep=True):
        return {}

    def set_params(self, **params):
        return self


def _collection(seed=0, n=40, d=6):
    rng = np.random.default_rng(seed)
    X = np.repeat(rng.normal(size=(n, d)), 2, axis=0) + 0.4 * rng.normal(size=(2 * n, d))
    pairs = np.array([[2 * i, 2 * i + 1] for i in range(n)] + [[2 * i, (2 * i + 3) % (2 * n)] for i in range(n)])
    y = np.r_[np.ones(n), np.zeros(n)].astype(int)
    return X, pairs, y


def test_the_plain_matcher_is_not_usable_by_gridsearchcv():
    """The premise (why OnCollection exists): the plain signature cannot be split by folds."""
    X, pairs, y = _collection()
    with pytest.raises(TypeError, match="multiple values"):
        GridSearchCV(ThresholdMatcher(), {"metric": ["cosine"]}, cv=3).fit(X, pairs, y=y)


@pytest.mark.parametrize("make, grid", [
    (lambda: ThresholdMatcher(_Projection().fit(np.zeros((1, 6)))), {"matcher__metric": ["cosine", "euclidean"]}),
    (lambda: PairwiseKNNMatcher(_Projection().fit(np.zeros((1, 6)))), {"matcher__k": [1, 3]}),
])
def test_gridsearchcv_over_a_matcher_with_a_fitted_transformer(make, grid):
    X, pairs, y = _collection()
    est = OnCollection(make(), X)
    assert is_classifier(est)
    search = GridSearchCV(est, grid, cv=4).fit(pairs, y)
    assert search.best_score_ > 0.65            # chance: 0.5
    best = search.best_estimator_
    assert best.matcher_.transformer is est.matcher.transformer       # the fitted part kept, not unfitted
    assert np.mean(best.predict(pairs) == y) > 0.65
    p = best.predict_proba(pairs)
    assert p.shape == (len(pairs), 2) and list(best.classes_) == [0, 1]


def test_a_clone_shares_the_collection_and_keeps_fitted_parts():
    X, pairs, y = _collection()
    est = OnCollection(ThresholdMatcher(_Projection().fit(X), metric="euclidean"), X)
    twin = clone(est)
    assert twin.X is X and twin.matcher is not est.matcher
    assert twin.matcher.transformer is est.matcher.transformer
    assert twin.get_params()["matcher__metric"] == "euclidean"
    twin.set_params(matcher__metric="cosine")
    assert est.matcher.metric == "euclidean"           # the original untouched
    scores = cross_val_score(twin, pairs, y, cv=3, scoring="roc_auc")
    assert scores.min() > 0.8


def test_the_pair_classifier_and_regressor_on_texts():
    texts = ["how do i learn python", "how can i learn python", "what is the capital of france",
             "which city is the capital of france", "best way to lose weight", "how to lose weight fast",
             "how do i cook rice", "rice cooking tips", "what is a good laptop", "what laptop should i buy"]
    pairs = np.array([(i, j) for i in range(10) for j in range(i + 1, 10)])
    same = pairs[:, 0] // 2 == pairs[:, 1] // 2
    search = GridSearchCV(OnCollection(PairClassifierMatcher(n_splits=2, random_state=0), texts),
                          {"matcher__C": [0.1, 1.0]}, cv=2).fit(pairs, same.astype(int))
    assert search.best_params_["matcher__C"] in (0.1, 1.0)
    graded = np.where(same, 4.0, 1.0) + 0.1 * (pairs[:, 0] % 3)
    reg = OnCollectionRegressor(PairScoreRegressor(n_splits=2, random_state=0), texts)
    assert is_regressor(reg)
    assert np.isfinite(cross_val_score(reg, pairs, graded, cv=2)).all()
    with pytest.raises(TypeError, match="OnCollectionRegressor"):
        OnCollection(PairScoreRegressor(), texts).fit(pairs, graded)
