"""A matcher's fitted part given unfitted, as sklearn.base.clone (and GridSearchCV,
cross_validate) hands it on: scikit-learn's 'This FILM instance is not fitted yet' from inside
the transform, naming neither the matcher's argument nor why it is unfitted (helper h-api's
sweep of the API)."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from learnsim.film import FILM
from learnsim.matching import ThresholdMatcher
from learnsim.matching.pair_classifier import PairClassifierMatcher
from learnsim.supervision import Pairs
from learnsim.text import TextVectorizer

TEXTS = ["reset my password", "forgot my password", "charged twice for one order", "refund a double charge",
         "app crashes at start", "crash after the update", "password reset link", "double charge on my card"]
PAIRS = Pairs([[0, 1], [2, 3], [4, 5], [0, 2], [1, 4], [3, 5], [0, 6], [3, 7], [6, 7]],
              labels=[1, 1, 1, 0, 0, 0, 1, 1, 0])


def test_a_cloned_threshold_matcher_names_its_unfitted_transformer():
    X = TextVectorizer("tfidf", norm="l2").fit_transform(TEXTS)
    film = FILM(n_components=2, random_state=0, max_iter=5).fit(X, np.array([0, 0, 1, 1, 2, 2, 0, 1]))
    ThresholdMatcher(film).fit(X, PAIRS)        # fitted as given: fine
    with pytest.raises(NotFittedError, match=r"ThresholdMatcher's transformer= \(FILM\) is not fitted.*clone"):
        clone(ThresholdMatcher(film)).fit(X, PAIRS)


def test_a_cloned_pair_classifier_names_its_unfitted_vectorizer():
    vec = TextVectorizer("tfidf", norm="l2").fit(TEXTS)
    with pytest.raises(NotFittedError, match=r"PairClassifierMatcher's vectorizer= \(TextVectorizer\) is not fitted.*clone"):
        clone(PairClassifierMatcher(vectorizer=vec)).fit(TEXTS, PAIRS)
