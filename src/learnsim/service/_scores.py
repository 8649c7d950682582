"""What the service's answers say of their scores (their name, and which way is better) and of
the model's duplicate rule (a match answer's ``"warnings"``), from the index and its model."""
from __future__ import annotations


def _score_names(index):
    """(name, higher_is_better) of the scores each kind of answer carries, from the index's
    manifest (no model load): ``"similar"``, the first stage's (similar documents, /v1/info's
    ``"score"``); ``"search"``, a search's and a text match's hits (a re-ranked search gives the
    learned pair model's probability)."""
    first = (index.column, bool(index.higher_is_closer))
    reranked = index.manifest.get("rerank") is not None
    return {"similar": first, "search": ("probability", True) if reranked else first}


# what the ``score`` of a duplicate rule's decision is, by the rule's class
_RULE_SCORES = {"ThresholdMatcher": "similarity", "PairClassifierMatcher": "decision",
                "PairwiseKNNMatcher": "mutual_neighbours", "PairScoreRegressor": "predicted_score"}


def _rule_warnings(pipeline):
    """What a match answer (and /v1/info) says of the model's duplicate rule (``"warnings"``, a
    list of sentences): a rule whose threshold is infinite calls no pair a duplicate but an exact
    copy, as ``learnsim fit`` and ``learnsim match`` say; without a word the answer's zeros read as
    findings. And the pairwise kNN rule an old ``--matcher auto`` chose, which the model's load
    warns of (``learnsim match`` prints it): a service's load warns only into the server's log, so
    its clients got that rule's decisions of two texts alone (always duplicates) without it."""
    from ..matching._duplicates import DuplicateRule
    from ..matching._rule import OLD_AUTO_KNN

    if getattr(pipeline, "matcher", None) is None:     # no duplicate rule (/v1/info of any model)
        return []
    rule = getattr(pipeline, "match_rule", None)
    old_knn = [OLD_AUTO_KNN] if getattr(rule, "knn_chosen_by_auto", False) else []
    try:
        said = DuplicateRule(pipeline.matcher, pipeline.match_rule).never_duplicate()
    except ValueError:      # a matcher learnsim match does not know: nothing to say of it
        return old_knn
    return ([said] if said else []) + old_knn


def _rule_score_name(matcher):
    """The name of a duplicate rule's ``score`` (POST /v1/match with pairs): the pair's
    similarity for a threshold, the classifier's decision value, 1/0 for mutual neighbours, the
    predicted score of a model fitted on graded pairs; higher is more alike in each."""
    return _RULE_SCORES.get(type(matcher).__name__, "score")
