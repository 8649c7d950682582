"""Never below the baseline: the one validation protocol of every learner (:mod:`._gain` holds
the rule; :mod:`._split` and :mod:`._search` hold it out and measure it the way search is used).

The rule, the same for every method
-----------------------------------
Every learner's family contains its baseline: minimum cluster distortion with full shrinkage
is the Euclidean distance (the cosine on L2-normalised rows), FILM mixed with the input cosine
at w = 1 is the input cosine, relative-comparison weights W = 1 are the Euclidean distance,
and a learned term weighting falls back to the input weighting (tf.idf / BM25). So ``fit``

1. keeps back part of the supervision: whole clusters, whole anchors' triplets, whole
   components of pairs, or queries *and* documents (:func:`split_search`), never items of a
   training cluster;
2. fits on the rest and scores the learned similarity and the baseline on the held-out part,
   unit by unit (a held-out query's average precision or nDCG@10 over the whole collection, a
   triplet's or a pair's correctness);
3. keeps the learned part only when the whole confidence interval of its held-out gain over
   the baseline lies above zero; otherwise the fitted model *is* the baseline, and a
   :class:`BaselineWarning` says so;
4. reports the gain with a paired bootstrap confidence interval over the held-out units as the
   fitted attribute ``baseline_gain_`` (a :class:`BaselineGain`), in ``learnsim fit``'s output
   and in the saved model.

Search is measured the way use comes (issue 42). A learner that ranks documents for queries is
held out by query and by document (:func:`split_search`): a *cold* part whose relevant documents
no training supervision names, beside the *warm* part, so that remembering which documents were
judged does not pass for learning. It is compared with the strongest baseline a user has on the
same collection (:class:`SearchBaselines`: Okapi BM25, the tf.idf cosine, the encoder's cosine
when there is one, and their validated mix, the ones ``learnsim evaluate`` reports), and
:func:`check_search` keeps the learned rule only when it beats that baseline overall and does
not fall below it on the cold part.
"""
# The names load on first use (learnsim._utils.lazy): the rule (_gain) is light, the search
# baselines (_search) load the text vectorisers only when a fit asks for them.
from .._utils.lazy import attach

__all__ = ["BaselineGain", "BaselineWarning", "check_holdout", "choose", "compare", "cross_fitted", "cross_folds", "paired_bootstrap",
           "split_groups", "unchecked", "DEFAULT_HOLDOUT", "SearchSplit", "SearchRelation", "split_search", "search_relation", "text_units", "search_documents", "orient_pairs", "split_clusters", "too_few_held_clusters", "judged_queries", "judged_links", "judged_triplets", "SearchBaselines",
           "SearchCheck", "check_search", "validate_search", "baseline_of_judgements", "ndcg_at_k", "LexicalBaselines", "bm25_query_norms",
           "BASELINE_TITLES", "FOLDED_BELOW", "MAX_FOLDS", "MIN_HELD_GROUPS", "FoldedSplit", "FoldedPools", "fold_runs",
           "lexical_language", "probe_texts", "MAX_PROBES"]

__getattr__, __dir__ = attach(__name__, {
    "BaselineGain": "._gain", "BaselineWarning": "._gain", "check_holdout": "._gain", "choose": "._gain",
    "compare": "._gain", "cross_fitted": "._gain", "cross_folds": "._gain", "paired_bootstrap": "._gain", "split_groups": "._gain",
    "unchecked": "._gain", "DEFAULT_HOLDOUT": "._gain",
    "SearchSplit": "._split", "SearchRelation": "._split", "split_search": "._split", "search_relation": "._split",
    "text_units": "._split", "search_documents": "._split", "orient_pairs": "._split", "split_clusters": "._split", "too_few_held_clusters": "._search", "judged_queries": "._split", "judged_links": "._split", "judged_triplets": "._split",
    "SearchBaselines": "._search", "SearchCheck": "._search", "check_search": "._search", "validate_search": "._search", "baseline_of_judgements": "._search", "ndcg_at_k": "._search",
    "LexicalBaselines": "._search", "bm25_query_norms": "._search", "BASELINE_TITLES": "._search",
    "FOLDED_BELOW": "._search", "MAX_FOLDS": "._search", "MIN_HELD_GROUPS": "._search", "FoldedSplit": "._search", "FoldedPools": "._search",
    "fold_runs": "._search", "lexical_language": "._search", "probe_texts": "._probe", "MAX_PROBES": "._probe"})
