"""The search check of a fit on 4 or 5 clusters: held-out items of each cluster (stop 85).

:func:`learnsim._search_checks.checked_cluster_search` holds whole clusters out and resamples
them; 4 or 5 clusters give fewer groups than a check needs (``MIN_HELD_GROUPS``), so every such
fit ended as the strongest baseline, however much it gained. Used, so few clusters are the ones
searched for (new pages of four WebKB topics), and this check asks that question: a seeded share
of each cluster's items held out (:func:`learnsim.baseline._items.split_cluster_items`), in folds
as judgements are where they are few, each fold's learner fitted on the other items; the held-out
items search one another (never a training item) under the learned rule and the strongest
baseline, and the rule is kept only where :func:`learnsim.baseline.check_search` says so.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ._fit_common import report_dict as _report
from ._utils.progress import stage

__all__ = ["checked_cluster_item_search"]


def checked_cluster_item_search(o, texts, y, X, learn, owner, summary, fitted, baseline_model):
    """As :func:`learnsim._search_checks.checked_cluster_search`, on held-out items of the
    clusters ``y``; None where no cluster can spare two items (the caller's check then runs).
    ``baseline_model``: the caller's (:func:`learnsim._search_checks.baseline_model`), passed in
    so that this module imports nothing that imports it."""
    from .baseline import FoldedPools, FoldedSplit, SearchBaselines, check_search, fold_runs, lexical_language
    from .baseline._items import split_cluster_items

    got = split_cluster_items(y, o.baseline_holdout, random_state=o.random_state)
    if got is None:
        return None
    parts, offset = [], 0
    for k in range(fold_runs(got[1].n_queries)):
        more = got if k == 0 else split_cluster_items(y, o.baseline_holdout, random_state=o.random_state, fold=k)
        if more is None:
            break
        train_labels, split = more
        # each held-out item is its own unit, across the folds too (their bootstrap resamples items)
        parts.append((train_labels, dataclasses.replace(split, groups=split.groups + offset)))
        offset += split.n_queries
    language = lexical_language(o.language)
    dense = o.encoder is not None
    with stage("checking search on held-out items of the clusters against the strongest baseline"):
        pools = []
        for train_labels, split in parts:
            # the collection a fold searches is its own held-out items: baselines of those documents
            baselines = SearchBaselines(texts, split.documents, encoder_vectors=X if dense else None,
                                        analysis=o.analysis, language=language)
            to_all = learn(train_labels)
            columns = split.documents

            def learned(q, to_all=to_all, columns=columns):
                return np.asarray(to_all(q))[:, columns]
            pools.append(baselines.pool(split, learned={"learned": learned}, random_state=o.random_state))
        pool = pools[0] if len(pools) == 1 else FoldedPools(pools)
        split = parts[0][1] if len(parts) == 1 else FoldedSplit([s for _, s in parts])
        check = check_search(pool, [{"learned": 1.0}], owner=owner, random_state=o.random_state, stacklevel=5)
    summary.update(search_baseline_gain=_report(check.report), held_out=split.describe(),
                   strongest_baseline=check.baseline, baseline_scores=check.scores,
                   model="learned" if not check.fell_back else check.baseline)
    if check.fell_back:
        every = SearchBaselines(texts, np.arange(len(texts)), analysis=o.analysis, language=language)
        fitted.parts = dict(baseline_model(o, check, texts, every).parts)
    return fitted
