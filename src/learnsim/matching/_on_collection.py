"""A pair model with its collection fixed, as a scikit-learn estimator whose samples are the pairs.

The matchers take ``fit(X, pairs, y)``: X the collection (vectors or texts), the pairs row
indices into it. scikit-learn's model selection splits the first argument of ``fit`` and ``y``
along their rows, so ``GridSearchCV(ThresholdMatcher(), ...).fit(X, pairs, y)`` failed ("got
multiple values for argument 'y'") and ``.fit(pairs, y)`` took the pairs for the collection.
And every clone (one per candidate and fold) made the fitted transformer a matcher is given
an unfitted copy (``sklearn.base.clone`` clones every estimator parameter), so that even a
hand-made loop over ``clone(matcher)`` failed at the first transform.

:class:`OnCollection` holds the matcher and the collection: ``fit(pairs, y)``,
``predict(pairs)``, ``predict_proba(pairs)``, ``score(pairs, y)``, so the pairs are the
samples that the folds split, and its clone clones the matcher's settings but keeps its fitted
parts (``transformer``, ``vectorizer``, ``embedding``, ``encoder``: used as they are, never
fitted by the matcher) and the collection itself (not a deep copy per clone).
"""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone
from sklearn.utils.validation import check_is_fitted

__all__ = ["OnCollection", "OnCollectionRegressor"]

# the matchers' parameters that are fitted objects used as they are (never fitted by the matcher):
# a clone keeps them, as an unfitted copy cannot transform
_FITTED_PARTS = ("transformer", "vectorizer", "embedding", "encoder")


def _clone_keeping_fitted_parts(matcher):
    params = matcher.get_params(deep=False)
    return type(matcher)(**{name: value if name in _FITTED_PARTS else clone(value, safe=False)
                            for name, value in params.items()})


class _OnCollectionBase(BaseEstimator):
    def __init__(self, matcher, X):
        self.matcher = matcher
        self.X = X

    def __sklearn_clone__(self):
        # the collection shared and the fitted parts kept (see the module docstring)
        return type(self)(_clone_keeping_fitted_parts(self.matcher), self.X)

    def _check_matcher(self, graded):
        from .pair_classifier import PairScoreRegressor

        is_graded = isinstance(self.matcher, PairScoreRegressor)
        if is_graded != graded:
            other = "OnCollectionRegressor" if is_graded else "OnCollection"
            raise TypeError(f"{type(self).__name__} takes a {'pair regressor' if graded else 'duplicate matcher'}; "
                            f"got a {type(self.matcher).__name__}: use {other}")

    def fit(self, pairs, y=None):
        """Fit a clone of ``matcher`` on ``(X, pairs, y)``; the fitted one is ``matcher_``."""
        self._check_matcher(self._graded)
        self.matcher_ = _clone_keeping_fitted_parts(self.matcher).fit(self.X, pairs, y)
        return self

    def predict(self, pairs):
        check_is_fitted(self)
        return self.matcher_.predict(pairs)

    def score(self, pairs, y=None):
        """The matcher's own score: accuracy of the duplicate decisions, or the Pearson correlation
        of a regression's predicted scores."""
        check_is_fitted(self)
        return self.matcher_.score(pairs, y)


class OnCollection(ClassifierMixin, _OnCollectionBase):
    """A duplicate matcher (:class:`~learnsim.matching.ThresholdMatcher`,
    :class:`~learnsim.matching.PairwiseKNNMatcher`,
    :class:`~learnsim.matching.PairClassifierMatcher`) with its collection ``X`` fixed: a
    scikit-learn classifier whose samples are the pairs, for ``GridSearchCV``,
    ``cross_val_score`` and the like. Its parameters are ``matcher__<name>``.

    Parameters
    ----------
    matcher : unfitted matcher
        Its fitted parts (``transformer``, ``vectorizer``, ``embedding``, ``encoder``) are kept
        by every clone; its other settings are cloned.
    X : the collection the pairs index into (as the matcher's ``fit`` takes it)
        Shared by every clone, not copied. For the kNN rule it is also the collection the
        neighbours are searched in, whichever fold's pairs are decided.

    Attributes
    ----------
    matcher_ : the fitted matcher
    classes_ : ndarray, [0, 1]

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.model_selection import GridSearchCV
    >>> from learnsim.matching import OnCollection, ThresholdMatcher
    >>> rng = np.random.default_rng(0)
    >>> X = np.repeat(rng.normal(size=(20, 5)), 2, axis=0) + 0.3 * rng.normal(size=(40, 5))
    >>> pairs = np.array([[2 * i, 2 * i + 1] for i in range(20)] + [[2 * i, (2 * i + 3) % 40] for i in range(20)])
    >>> y = np.r_[np.ones(20), np.zeros(20)].astype(int)
    >>> search = GridSearchCV(OnCollection(ThresholdMatcher(), X), {"matcher__metric": ["cosine", "euclidean"]}, cv=4)
    >>> search.fit(pairs, y).best_estimator_.predict(pairs[:2]).tolist()
    [1, 1]
    """

    _graded = False

    def fit(self, pairs, y=None):
        super().fit(pairs, y)
        self.classes_ = np.array([0, 1])
        return self

    def predict_proba(self, pairs):
        check_is_fitted(self)
        return self.matcher_.predict_proba(pairs)

    def score(self, pairs, y=None):
        return _OnCollectionBase.score(self, pairs, y)


class OnCollectionRegressor(RegressorMixin, _OnCollectionBase):
    """:class:`OnCollection` for a :class:`~learnsim.matching.PairScoreRegressor` (graded pairs):
    ``score`` is the matcher's Pearson correlation, not R²."""

    _graded = True

    def score(self, pairs, y=None):
        return _OnCollectionBase.score(self, pairs, y)
