"""Models as a learnsim before s81 saved them when `learnsim fit --matcher auto` chose the pairwise
kNN rule (built with the current code: the rule fitted by name, then auto's record written in),
for the tests of what loading and serving one says."""
import warnings

import learnsim
from learnsim.matching import MatchRule
from learnsim.pipeline import Pipeline


def old_auto_knn(texts, pairs):
    """(old, named): a FILM fitted on ``pairs`` with the kNN rule as the old auto recorded it
    (every candidate measured), and the same fit with the rule named (``--matcher knn``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        named = learnsim.fit(texts, pairs=pairs, method="film", matcher="knn", n_components=8, random_state=0,
                             baseline_holdout=None)      # the kNN rule kept whatever the input cosine does
    parts = dict(named.parts)
    assert type(parts["matcher"]).__name__ == "PairwiseKNNMatcher"
    rule = parts["match_rule"]
    old_rule = MatchRule("knn", {"cosine": 0.879, "threshold": 0.9, "knn": 1.0, "classifier": 0.939},
                         rule.n_pairs, rule.baseline_gain, rule.mixed_input_weight, rule.cosine_threshold)
    return Pipeline(**dict(parts, match_rule=old_rule)), named
