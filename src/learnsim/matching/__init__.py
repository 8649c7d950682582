"""Duplicate detection on top of any embedding: the threshold and k-nearest-neighbour matchers
(``_matchers``), the pair classifier (:mod:`learnsim.matching.pair_classifier`), the rule that
chooses among them on held-out pairs (``_rule``), the saved rule behind one interface
(``_duplicates``), search's learned second stage (``_rerank``), and a pair model with its collection
fixed as a scikit-learn estimator on pairs, for GridSearchCV (``_on_collection``).
"""
# The names load on first use (learnsim._utils.lazy): a light helper of this package imported
# alone does not load the rest.
from .._utils.lazy import attach

__all__ = ["PairwiseKNNMatcher", "ThresholdMatcher", "pair_similarity", "MATCHERS", "MatchRule", "choose_matcher", "PairClassifierMatcher", "PairScoreRegressor", "Reranker", "select_reranker", "OnCollection", "OnCollectionRegressor"]

__getattr__, __dir__ = attach(__name__, {"PairwiseKNNMatcher": "._matchers",
    "ThresholdMatcher": "._matchers", "pair_similarity": "._matchers", "MATCHERS": "._rule",
    "MatchRule": "._rule", "choose_matcher": "._rule", "PairClassifierMatcher": ".pair_classifier",
    "PairScoreRegressor": ".pair_classifier", "Reranker": "._rerank", "select_reranker": "._rerank",
    "OnCollection": "._on_collection", "OnCollectionRegressor": "._on_collection"})
