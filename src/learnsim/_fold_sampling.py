"""The sampled estimate of leave-one-out cluster retrieval that
:class:`learnsim.mcd.MinimumClusterDistortion`'s selection uses on large held-out folds: a fixed
number of sampled queries rank a weighted sample of the fold's items, so the cost of scoring a
candidate setting does not grow with the size of the clusters (issue 16, part 3)."""
from __future__ import annotations

import numpy as np

__all__ = ["SampledFold", "sample_fold"]


class SampledFold:
    """The selection's sampled estimate of leave-one-out cluster retrieval on one fold.

    ``rows`` are the sampled items (indices into X), drawn cluster by cluster: cluster c of the
    fold's n_c items gives m_c of them, and when the fold has more clusters than are drawn, the
    other clusters are a uniform sample of those of the fold. ``queries`` index the sampled
    items that query (each ranks every sampled item but itself). For a query of cluster c the
    sampled relevant items are m_c - 1 of its n_c - 1; an item of another cluster c' stands for
    ``other_weight`` = f * n_c' / m_c' items of the fold (f: the clusters' sampling factor), so
    the estimated rank of the query's j-th sampled relevant item is
    j (n_c - 1) / (m_c - 1) + (weighted count of the other items above it): the measure at the
    estimated ranks estimates the exact one, and is the exact one when nothing is left out.
    The queries' mean is weighted by n_c / m_c, each query standing for that many items.
    """

    def __init__(self, rows, cluster, n_c, m_c, factor, queries):
        self.rows, self.queries = rows, queries
        qc = cluster[queries]
        self.relevant = qc[:, None] == cluster[None, :]
        self.relevant[np.arange(queries.size), queries] = False           # leave-one-out
        n_c, m_c = np.asarray(n_c, dtype=float), np.asarray(m_c, dtype=float)
        other = factor * (n_c / m_c)[cluster]
        self.other_weight = np.where(self.relevant, 0.0, other[None, :])
        self.other_weight[np.arange(queries.size), queries] = 0.0
        self.rel_scale = (n_c[qc] - 1) / (m_c[qc] - 1)                    # m_c >= 2
        self.n_rel = (m_c[qc] - 1).astype(np.int64)                       # sampled relevant
        self.true_rel = (n_c[qc] - 1).astype(float)                       # R of the exact measure
        self.query_weight = (n_c / m_c)[qc]

    def score(self, D2, measure):
        """Weighted mean over the sampled queries of ``measure`` ("ap11", "ap" or
        "r_precision") with the (n_queries, n_sampled) squared distances ``D2``."""
        q = self.queries.size
        D2 = np.array(D2, dtype=float)
        D2[np.arange(q), self.queries] = np.inf        # the query leaves its own ranking
        # introsort, ~2x faster than a stable sort; which of two tied items comes first is
        # immaterial to an estimate (the exact path keeps evaluation's ties by ascending index)
        order = np.argsort(D2, axis=1)
        rel = np.take_along_axis(self.relevant, order, axis=1)
        cum_other = np.cumsum(np.take_along_axis(self.other_weight, order, axis=1), axis=1)
        if measure == "r_precision":
            # estimated relevant among the top R: at the last position whose estimated rank <= R
            cum_rel = np.cumsum(rel, axis=1)
            est_rank = cum_rel * self.rel_scale[:, None] + cum_other
            last = (est_rank <= self.true_rel[:, None] * (1 + 1e-12)).sum(axis=1)
            got = np.where(last > 0, cum_rel[np.arange(q), np.maximum(last - 1, 0)], 0)
            values = np.minimum(got * self.rel_scale / self.true_rel, 1.0)
        else:
            r, c = np.nonzero(rel)                    # by query, then rank
            first = np.concatenate(([0], np.cumsum(self.n_rel)[:-1]))
            m = np.arange(r.size) - first[r] + 1      # m-th sampled relevant item of its query
            est_rel = m * self.rel_scale[r]
            precision = est_rel / (est_rel + cum_other[r, c])
            if measure == "ap":
                values = np.bincount(r, weights=precision, minlength=q) / self.n_rel
            else:
                # 11-point interpolated precision, with trec_eval's m = floor(level * R + 0.9) on
                # the sampled R (see learnsim.evaluation._ranking_block)
                padded = np.zeros((q, int(self.n_rel.max())))
                padded[r, m - 1] = precision
                tail_max = np.maximum.accumulate(padded[:, ::-1], axis=1)[:, ::-1]
                values = np.zeros(q)
                for level in np.arange(11) / 10.0:
                    m_min = np.maximum(1, np.floor(level * self.n_rel + 0.9).astype(np.int64))
                    values += tail_max[np.arange(q), m_min - 1]
                values /= 11.0
        return float(np.sum(values * self.query_weight) / np.sum(self.query_weight))


def sample_fold(labels, held, n_items, n_queries, rng):
    """Draw the items and queries of a sampled selection fold over the clusters ``held``:
    about ``n_items`` items (at least 2 of every drawn cluster, at most n_items // 4 clusters,
    the rest in proportion to the clusters' sizes) and at most ``n_queries`` queries among them,
    uniformly. Returns a :class:`SampledFold`."""
    n_clusters = len(held)
    max_clusters = max(2, n_items // 4)
    if n_clusters > max_clusters:
        drawn = np.sort(rng.choice(n_clusters, max_clusters, replace=False))
        # given its query's cluster, the other drawn clusters are a uniform sample of the others
        factor = (n_clusters - 1) / (max_clusters - 1)
    else:
        drawn, factor = np.arange(n_clusters), 1.0
    members = [np.flatnonzero(labels == c) for c in np.asarray(held)[drawn]]
    n_c = np.array([len(m) for m in members], dtype=np.int64)
    m_c = np.minimum(n_c, np.maximum(2, np.ceil(n_items * n_c / n_c.sum()).astype(np.int64)))
    picked = [m if len(m) == k else np.sort(rng.choice(m, k, replace=False)) for m, k in zip(members, m_c)]
    rows = np.concatenate(picked)
    cluster = np.repeat(np.arange(len(drawn)), m_c)
    queries = np.arange(rows.size) if rows.size <= n_queries \
        else np.sort(rng.choice(rows.size, n_queries, replace=False))
    return SampledFold(rows, cluster, n_c, m_c, factor, queries)
