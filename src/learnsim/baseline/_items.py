"""Held-out items of every cluster, for clusters too few to hold whole ones out (stop 85).

Search on clusters is checked on whole held-out clusters (:func:`learnsim.baseline.split_clusters`),
whose bootstrap resamples the clusters: with 4 or 5 clusters no check could ever keep a learned
model (fewer than ``MIN_HELD_GROUPS`` groups), whatever it gained. Such a fit is used on new
documents of the same few clusters (four WebKB page topics, nine news categories), and that is
what this split holds out: a seeded share of each cluster's items, each searching the other
held-out items (and the unclustered texts) for its cluster mates; no training item is in the
collection searched, so remembering the training items cannot help, and the clusters are the
ones the model is used on, so the queries, not the clusters, are the units resampled.
(``benchmarks/check_honesty.py``: WebKB's four topics, 90 pages each from three universities,
fell back to BM25 on every seed for too few groups, while the learned metric searched
Wisconsin's pages at 1.08x to 1.12x BM25's nDCG@10, the interval above zero.)
"""
from __future__ import annotations

import numpy as np

from ._gain import DEFAULT_HOLDOUT, _rng
from ._split import SearchSplit

__all__ = ["split_cluster_items", "MIN_HELD_ITEMS", "MIN_TRAIN_ITEMS"]

MIN_HELD_ITEMS = 2       # a held-out item needs a held-out mate to find
MIN_TRAIN_ITEMS = 2      # and its cluster two items to learn from


def split_cluster_items(labels, fraction=DEFAULT_HOLDOUT, *, random_state=0, fold=0):
    """Hold out a seeded ``fraction`` of every cluster's items (at least 2, leaving at least 2).

    Parameters
    ----------
    labels : array of int (n_texts,)
        Cluster codes, -1 for a text in no cluster.
    fraction : float in (0, 1)
    fold : int, default 0
        Which run of each cluster's seeded order is held out (cross-fitting: the folds are
        disjoint); None past the last run that holds out some cluster's items.

    Returns
    -------
    (train_labels, SearchSplit) or None: the labels with the held-out items set to -1, and the
    held-out items as queries (``by`` "cluster items"), each searching the held-out items and the
    unclustered texts; None when no cluster can spare two items.

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.baseline._items import split_cluster_items
    >>> train, split = split_cluster_items(np.repeat(np.arange(4), 10), 0.2)
    >>> split.by, split.n_queries, int((train == -1).sum()), split.documents.size
    ('cluster items', 8, 8, 8)
    """
    y = np.asarray(labels)
    rng = _rng(random_state)
    held = np.zeros(y.size, dtype=bool)
    for c in np.unique(y[y >= 0]):
        members = np.flatnonzero(y == c)
        n = max(MIN_HELD_ITEMS, int(round(fraction * members.size)))
        if members.size - n < MIN_TRAIN_ITEMS:
            continue
        order = rng.permutation(members)        # drawn for every cluster, so that folds share it
        run = order[fold * n:(fold + 1) * n]
        if run.size >= MIN_HELD_ITEMS:
            held[run] = True
    if int(held.sum()) < 2:
        return None
    queries = np.flatnonzero(held)
    relevant = tuple({int(d): 1.0 for d in queries if d != q and y[d] == y[q]} for q in queries)
    documents = np.flatnonzero(held | (y < 0))
    split = SearchSplit(train=~held, held=held, queries=queries, relevant=relevant,
                        seen=tuple(frozenset() for _ in relevant), documents=documents,
                        groups=np.arange(queries.size, dtype=np.int64), by="cluster items",
                        n_cold_documents=int(held.sum()), judged=None,
                        named=np.flatnonzero((y >= 0) & ~held), judgements=np.flatnonzero(y >= 0))
    return np.where(held, -1, y), split
