"""The sampled estimate of leave-one-out cluster retrieval that
:class:`learnsim.mcd.MinimumClusterDistortion`'s selection uses on large held-out folds: a fixed
number of sampled queries rank a weighted sample of the fold's items, so the cost of scoring a
candidate setting does not grow with the size of the clusters (issue 16, part 3); and the rule
that decides whether the selection's second stage (the larger bases) runs."""
from __future__ import annotations

import numpy as np

from ..evaluation._evaluation import _COUNT_MAX_RELEVANT

__all__ = ["SampledFold", "exact_fold", "halving_survivors", "sample_check_fold", "sample_fold",
           "sampled_query_values", "still_rising"]


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
    The queries' mean is weighted by n_c / m_c, each query standing for that many items, unless
    ``query_weight`` gives the weights (ones where the queries were drawn in proportion to the
    items they stand for, :func:`sample_check_fold`).
    """

    def __init__(self, rows, cluster, n_c, m_c, factor, queries, query_weight=None):
        self.rows, self.queries = rows, queries
        self.cluster_sizes = np.asarray(n_c)                                # n_c of the drawn clusters
        qc = cluster[queries]
        n_c, m_c = np.asarray(n_c, dtype=float), np.asarray(m_c, dtype=float)
        # the ranked items' cluster and weight, looked up by position after each sort: (n_sampled,)
        self.cluster = cluster.astype(np.intp)
        self.qc = qc.astype(np.intp)
        self.col_weight = factor * (n_c / m_c)[cluster]
        self.rel_scale = (n_c[qc] - 1) / (m_c[qc] - 1)                    # m_c >= 2
        self.n_rel = (m_c[qc] - 1).astype(np.int64)                       # sampled relevant
        self.true_rel = (n_c[qc] - 1).astype(float)                       # R of the exact measure
        self.query_weight = (n_c / m_c)[qc] if query_weight is None else np.asarray(query_weight, dtype=float)
        # the low bits of a sort key hold the item's position (see _sort_keys)
        self._index_bits = max(1, int(rows.size).bit_length())
        # every item and relevant item stands for itself (an exact fold, or a sample that drew
        # every item): the precision at the m-th relevant item, ranked j-th (from 0), is then
        # m / (j + 1), with no running weight of the other items (see _fill_precisions)
        self._unweighted = bool(np.all(self.col_weight == 1.0) and np.all(self.rel_scale == 1.0))

    _PER_QUERY = ("queries", "qc", "rel_scale", "n_rel", "true_rel", "query_weight")

    def query_block(self, start, stop):
        """The same fold with only the queries ``start:stop`` (the sampled items and their
        weights shared): scoring the queries block by block bounds the distances held at once
        to (stop - start) x n_sampled."""
        part = object.__new__(type(self))
        part.__dict__.update(self.__dict__)
        for name in ("_relevant", "_relevant_valid", "_tiles"):     # per query: computed again for the block
            part.__dict__.pop(name, None)
        for name in self._PER_QUERY:
            setattr(part, name, getattr(self, name)[start:stop])
        return part

    def score(self, D2, measure):
        """Weighted mean over the sampled queries of ``measure`` ("ap11", "ap" or
        "r_precision") with the (n_queries, n_sampled) squared distances ``D2``."""
        return float(self.scores(np.asarray(D2)[None], measure)[0])

    def scores(self, D2, measure):
        """:meth:`score` of each of a stack of candidates' (n_candidates, n_queries, n_sampled)
        squared distances, in one pass: an array of n_candidates scores."""
        return self.query_values(D2, measure) @ self.query_weight / np.sum(self.query_weight)

    def query_values(self, D2, measure):
        """The estimated measure of every sampled query under each of a stack of candidates'
        (n_candidates, n_queries, n_sampled) squared distances: (n_candidates, n_queries).

        The items are ordered by integer keys (the distance's bits, the lowest replaced by the
        item's position) instead of an argsort: about twice as fast. Equal distances (duplicate
        documents) rank by position in the sample, as :mod:`learnsim.evaluation` ranks ties by
        index; so do distances within ~1e-12 relative of each other, below the rounding of the
        distances themselves. Where every query has at most ``_COUNT_MAX_RELEVANT`` sampled
        relevant items and every item stands for as many (``col_weight`` constant: small
        clusters drawn whole), the items ahead of each relevant one are counted instead of sorted
        (:meth:`_counted_precisions`): the same keys, the same ranks. Elsewhere only the nearest
        ``_PREFIX_PER_RELEVANT`` x R items of a row are sorted where they hold all of its
        relevant ones (a partition first), and the row whole where not: the same values.
        """
        D2 = np.asarray(D2, dtype=np.float64)
        c, q, n = D2.shape
        keys = _sort_keys(D2, self._index_bits, out=self.work_array("keys", D2.shape, np.uint64))
        keys[:, np.arange(q), self.queries] = np.iinfo(np.uint64).max   # the query leaves its ranking: last
        rows = c * q
        rel_scale, true_rel, n_rel, qc, levels = self._tiled(c)
        if measure != "r_precision" and self._countable():
            # (rows, R): the m-th relevant item's precision, 0 past a query's n_rel
            padded = np.where(np.tile(self._relevant_valid, (c, 1)),
                              self._counted_precisions(keys).reshape(rows, -1), 0.0)
            return (padded.sum(axis=1) / n_rel if measure == "ap" else _ap11(padded, n_rel, levels)).reshape(c, q)
        keys = keys.reshape(rows, n)
        prefix = _PREFIX_PER_RELEVANT * int(n_rel.max()) if n_rel.size else n
        missed = self.__dict__.get("_prefix_missed", 0.0)
        if measure == "r_precision" or 2 * prefix > n or missed > 0.5:
            self._prefix_missed = missed / 2      # try the prefix again in a call or two
            return self._sorted_values(keys, qc, rel_scale, true_rel, n_rel, measure, levels).reshape(c, q)
        # the `prefix` nearest items of each row, sorted, rank all of its relevant items in most
        # rows (well separated clusters); the other rows are sorted whole. That costs more than
        # sorting every row where over about half of them miss some: then the next call does
        # (Euclid's ranking of a fold of synthetic 3k missed in 30-40 % of its rows, the learned
        # metrics' in 5-10 %)
        head = np.partition(keys, prefix - 1, axis=1)[:, :prefix]
        head.sort(axis=1)
        rel, cum_other = self._relevance(head, qc)
        padded = np.zeros((rows, int(n_rel.max())))
        complete = rel.sum(axis=1) == n_rel
        done, whole = np.flatnonzero(complete), np.flatnonzero(~complete)
        self._prefix_missed = whole.size / rows
        _fill_precisions(padded, done, rel[done], None if cum_other is None else cum_other[done], n_rel, rel_scale)
        if whole.size:
            _fill_precisions(padded, whole, *self._relevance(np.sort(keys[whole], axis=1)[:, :-1], qc[whole],
                                                             work=False), n_rel, rel_scale)
        return _ap_from_padded(padded, n_rel, measure, levels).reshape(c, q)

    def _tiled(self, c):
        """The per-query arrays repeated for a stack of ``c`` candidates, and the 11-point
        levels' positions (see _ap11): computed once per stack height (a fold ranks 10-20 stacks
        of one height, and the copies were a twentieth of a ranking)."""
        tiles = self.__dict__.setdefault("_tiles", {})
        if c not in tiles:
            n_rel = np.tile(self.n_rel, c)
            tiles[c] = (np.tile(self.rel_scale, c), np.tile(self.true_rel, c), n_rel, np.tile(self.qc, c),
                        _level_positions(n_rel))
        return tiles[c]

    def _relevance(self, sorted_keys, qc, work=True, need_weights=False):
        """For rows of sorted keys (the query's own key left out): whether each ranked item is
        relevant to its row's query, and the weight of the other items up to it (inclusive);
        in the fold's work arrays (overwritten at the next call) unless ``work`` is False. On an
        unweighted fold the weights are None unless ``need_weights`` (its precisions need only
        the positions: see _fill_precisions; r_precision needs the weights)."""
        pos = np.bitwise_and(sorted_keys, np.uint64((1 << self._index_bits) - 1), out=sorted_keys).view(np.intp)
        buffer = (lambda name, dtype: self.work_array(name, pos.shape, dtype)) if work else \
            (lambda name, dtype: np.empty(pos.shape, dtype))
        rel = np.equal(np.take(self.cluster, pos, out=buffer("cluster", np.intp), mode="clip"),
                       qc[:, None], out=buffer("rel", bool))
        if self._unweighted and not need_weights:
            return rel, None
        other = np.take(self.col_weight, pos, out=buffer("other", np.float64), mode="clip")
        np.copyto(other, 0.0, where=rel)
        return rel, np.cumsum(other, axis=1, out=other)

    def _sorted_values(self, keys, qc, rel_scale, true_rel, n_rel, measure, levels=None):
        """query_values from whole sorted rows of keys (rows, n_sampled)."""
        keys.sort(axis=1)
        rel, cum_other = self._relevance(keys[:, :-1], qc, need_weights=measure == "r_precision")   # own key last
        rows = keys.shape[0]
        if measure == "r_precision":
            # estimated relevant among the top R: at the last position whose estimated rank <= R
            cum_rel = np.cumsum(rel, axis=1)
            est_rank = cum_rel * rel_scale[:, None] + cum_other
            last = (est_rank <= true_rel[:, None] * (1 + 1e-12)).sum(axis=1)
            got = np.where(last > 0, cum_rel[np.arange(rows), np.maximum(last - 1, 0)], 0)
            return np.minimum(got * rel_scale / true_rel, 1.0)
        padded = np.zeros((rows, int(n_rel.max())))
        _fill_precisions(padded, np.arange(rows), rel, cum_other, n_rel, rel_scale)
        return _ap_from_padded(padded, n_rel, measure, levels)

    def work_array(self, name, shape, dtype):
        """A work array of this fold, kept from call to call (its contents are not reset): a
        fresh array of a few MB costs more in page faults than the arithmetic done on it (a
        ranking's keys: 0.6 of 1.0 ms), and a fold ranks 10-20 candidate stacks of one shape."""
        work = self.__dict__.setdefault("_work_arrays", {})
        key = (name, tuple(shape), np.dtype(dtype).str)
        if key not in work:
            work[key] = np.empty(shape, dtype)
        return work[key]

    def _countable(self):
        """Whether :meth:`_counted_precisions` applies: few relevant items a query, and one
        weight for every item. Computes (once) each query's relevant positions."""
        if not hasattr(self, "_relevant"):
            self._relevant = None
            R = int(self.n_rel.max()) if self.n_rel.size else 0
            if 0 < R <= _COUNT_MAX_RELEVANT and np.all(self.col_weight == self.col_weight[0]):
                q = np.arange(self.queries.size)
                rel = self.cluster[None, :] == self.qc[:, None]
                rel[q, self.queries] = False
                r, col = np.nonzero(rel)        # row by row, positions ascending
                m = _rank_in_row(r, self.n_rel) - 1
                # a query short of R relevant items is padded with itself: its key is the largest
                relevant = np.repeat(self.queries[:, None], R, axis=1)
                relevant[r, m] = col
                self._relevant = relevant
                self._relevant_valid = np.arange(R)[None, :] < self.n_rel[:, None]
        return self._relevant is not None

    def _counted_precisions(self, keys):
        """(Not :func:`learnsim.evaluation._counted_ranks`, which finds each query's relevant
        items in a boolean matrix and copies a row per item at every call: 2.5x the time here,
        where a fold's relevant positions serve all of its ~10 candidate stacks.)

        Precision at each relevant item, (n_candidates, n_queries, R), from the sort keys
        (the queries' own keys already largest) without sorting the rows: the m-th relevant item
        (by key) has m - 1 relevant items and (items with a smaller key) - (m - 1) others ahead
        of it, each other standing for ``col_weight`` items. Entries past a query's n_rel are
        padding. The ranks are those of the sort, so the values equal the sort path's up to the
        order of summation."""
        c, q, _ = keys.shape
        relevant_keys = keys[:, np.arange(q)[:, None], self._relevant]      # (c, q, R)
        relevant_keys.sort(axis=2)
        ahead = keys[:, :, None, :] < relevant_keys[..., None]               # (c, q, R, n)
        m = np.arange(1, relevant_keys.shape[2] + 1)
        others = np.einsum("cqrn->cqr", ahead.view(np.uint8), dtype=np.int64) - (m - 1)
        est_rel = m * self.rel_scale[:, None]
        return est_rel / (est_rel + others * self.col_weight[0])


def _rank_in_row(r, n_rel):
    """For flat entries grouped by row ``r`` (row i holding n_rel[i] of them, in order), the
    1-based position of each entry within its row."""
    return np.arange(r.size) - np.concatenate(([0], np.cumsum(n_rel)[:-1]))[r] + 1


def _fill_precisions(padded, rows, rel, cum_other, n_rel, rel_scale):
    """Write into ``padded[rows]`` the estimated precision at each relevant item, in rank order,
    from ``rel`` and ``cum_other`` of those rows (see SampledFold._relevance), each of which
    holds all of its row's n_rel relevant items: the mask reads them row by row.

    ``cum_other`` None: an unweighted fold (every weight and relevance scale 1), where the m-th
    relevant item at position j (from 0) has j + 1 - m others up to it, a sum of ones that is
    exact in floating point, so m / (m + (j + 1 - m)) = m / (j + 1) is the same value."""
    if cum_other is None:
        width = rel.shape[1]
        flat = np.flatnonzero(rel)          # (a flat index and a division: half the time of nonzero)
        r = flat // width
        m = _rank_in_row(r, n_rel[rows])
        padded[rows[r], m - 1] = m / (flat - r * width + 1.0)
        return
    r = np.repeat(np.arange(rows.size), n_rel[rows])
    m = _rank_in_row(r, n_rel[rows])
    est_rel = m * rel_scale[rows][r]       # m-th sampled relevant item of its query
    padded[rows[r], m - 1] = est_rel / (est_rel + cum_other[rel])


def _ap_from_padded(padded, n_rel, measure, levels=None):
    """"ap" or "ap11" of each row of ``padded`` (see :func:`_ap11`, which ``levels`` is passed
    to); the average precision sums each row's precisions in rank order."""
    if measure == "ap":
        valid = np.arange(padded.shape[1])[None, :] < n_rel[:, None]
        r = np.repeat(np.arange(padded.shape[0]), n_rel)
        return np.bincount(r, weights=padded[valid], minlength=padded.shape[0]) / n_rel
    return _ap11(padded, n_rel, levels)


def _level_positions(n_rel):
    """(11, rows): the column of each row's precision at each of the 11 recall levels, with
    trec_eval's m = floor(level * R + 0.9) on the sampled R (see learnsim.evaluation._ranking_block)."""
    return np.maximum(1, np.floor((np.arange(11) / 10.0)[:, None] * n_rel[None, :] + 0.9).astype(np.int64)) - 1


def _ap11(padded, n_rel, positions=None):
    """11-point interpolated precision of each row of ``padded`` (the m-th relevant item's
    precision in column m - 1, zeros after the row's ``n_rel``) at the recall levels'
    ``positions`` (default: :func:`_level_positions` of ``n_rel``)."""
    rows = np.arange(padded.shape[0])
    tail_max = np.maximum.accumulate(padded[:, ::-1], axis=1)[:, ::-1]
    positions = _level_positions(n_rel) if positions is None else positions
    values = np.zeros(padded.shape[0])
    for at_level in tail_max[rows[None, :], positions]:      # level by level: the same sums as before
        values += at_level
    return values / 11.0


def _sort_keys(D, index_bits, out=None):
    """uint64 keys that sort like the float64 ``D`` along its last axis, with the lowest
    ``index_bits`` bits replaced by each entry's position on that axis (a tie-break that also
    recovers the position after a plain sort); written to ``out`` (uint64, D's shape) if given."""
    keys = np.empty(D.shape, np.uint64) if out is None else out
    np.copyto(keys.view(np.float64), D)
    # IEEE 754: flip every bit of a negative number (-0.0 included), only the sign bit of the
    # others: the arithmetic shift of the sign gives all ones or none
    flip = np.right_shift(keys.view(np.int64), 63).view(np.uint64)
    flip |= np.uint64(1 << 63)
    keys ^= flip
    keys &= ~np.uint64((1 << index_bits) - 1)
    keys |= np.arange(D.shape[-1], dtype=np.uint64)
    return keys


def _draw_items(labels, held, n_items, rng):
    """The sampled items of a fold over the clusters ``held`` (see :func:`sample_fold`):
    (rows, cluster of each row among the drawn clusters, n_c, m_c, factor)."""
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
    return rows, cluster, n_c, m_c, factor


def exact_fold(rows, row_labels):
    """The fold over the held-out ``rows`` (their cluster labels ``row_labels``) with nothing
    left out: every item of a cluster of at least 2 items queries, and ranks every other row, in
    row order. Its :meth:`SampledFold.scores` is the exact leave-one-out measure (the plain mean
    over the queries), with the sampled folds' batched ranking; draws nothing."""
    _, cluster = np.unique(row_labels, return_inverse=True)
    n_c = np.bincount(cluster)
    return SampledFold(rows, cluster, n_c, n_c, 1.0, np.flatnonzero(n_c[cluster] >= 2))


def sample_fold(labels, held, n_items, n_queries, rng):
    """Draw the items and queries of a sampled selection fold over the clusters ``held``:
    about ``n_items`` items (at least 2 of every drawn cluster, at most n_items // 4 clusters,
    the rest in proportion to the clusters' sizes) and at most ``n_queries`` queries among them,
    uniformly. Returns a :class:`SampledFold`."""
    rows, cluster, n_c, m_c, factor = _draw_items(labels, held, n_items, rng)
    queries = np.arange(rows.size) if rows.size <= n_queries \
        else np.sort(rng.choice(rows.size, n_queries, replace=False))
    return SampledFold(rows, cluster, n_c, m_c, factor, queries)


def sample_check_fold(labels, held, n_items, n_queries, rng):
    """Draw a sampled fold for a held-out check that compares per-query values (e.g.
    :func:`learnsim.baseline.compare`, which weighs every unit alike): the items as in
    :func:`sample_fold`, and ``n_queries`` queries drawn with replacement, each sampled item with
    probability proportional to the items it stands for (n_c / m_c). The plain mean of the
    queries' values then estimates the mean over every item of the clusters, as the exact
    leave-one-out measure weighs them (:func:`sample_fold`'s uniform queries would give the
    small clusters, whose m_c is raised to 2, more than their share). Returns a
    :class:`SampledFold` whose queries all weigh 1 (a query drawn twice counts twice).
    """
    rows, cluster, n_c, m_c, factor = _draw_items(labels, held, n_items, rng)
    stands_for = (n_c / m_c)[cluster]
    queries = np.sort(rng.choice(rows.size, n_queries, replace=True, p=stands_for / stands_for.sum()))
    return SampledFold(rows, cluster, n_c, m_c, factor, queries, query_weight=np.ones(queries.size))


# The sort path ranks first the nearest (this many x the most relevant items a query has) items
# of each row, and sorts a row whole only where they miss some of its relevant items: on
# synthetic 3k's selection folds the nearest 64 of 400 held all of them in 90 % of the rows
_PREFIX_PER_RELEVANT = 3

# The sampled check scores its queries in blocks of at most this many distances per candidate.
_BLOCK_ENTRIES = 2**20


def sampled_query_values(design, distances, measure, max_entries=None):
    """The estimated measure of every query of ``design`` under each of ``distances``:
    (n_candidates, n_queries).

    ``distances`` are functions of an array of query positions (indices into ``design.rows``)
    that return those queries' squared distances to every sampled item, (n_block, n_sampled).
    The queries go in blocks of at most ``max_entries`` distances each, so the memory does not
    grow with the number of queries (default ``_BLOCK_ENTRIES``).
    """
    max_entries = _BLOCK_ENTRIES if max_entries is None else max_entries
    step = max(1, int(max_entries) // max(int(design.rows.size), 1))
    values = []
    for start in range(0, design.queries.size, step):
        part = design.query_block(start, start + step)
        values.append(part.query_values(np.stack([f(part.queries) for f in distances]), measure))
    return np.concatenate(values, axis=1)


def still_rising(fold_scores, totals, sizes, t):
    """Whether the largest basis size tried (``sizes[-1]``) beats the next smaller one by more
    than the folds' noise, for :class:`learnsim.mcd.MinimumClusterDistortion`'s two-stage
    selection: the per-fold differences of their best settings (best over all folds) average
    more than ``t`` standard errors, and more than zero. ``fold_scores`` holds each fold's score
    of every (n_basis, shrinkage, complement_weight) key, ``totals`` their sums.

    A plateau, or a difference that changes sign from fold to fold, says that a basis 2-4x
    wider (at 3-5x the cost) has little to find: on 30k sentences in small clusters the
    differences were +0.016, +0.010, -0.016, +0.001 (0.4 standard errors); on 10k-30k synthetic
    documents whose best basis is 128 they were 5-9 standard errors.
    """
    if len(sizes) < 2:
        return True
    top = max((key for key in totals if key[0] == sizes[-1]), key=totals.get)
    below = max((key for key in totals if key[0] == sizes[-2]), key=totals.get)
    d = np.array([f[top] - f[below] for f in fold_scores])
    se = float(np.std(d, ddof=1)) / np.sqrt(d.size) if d.size > 1 else 0.0
    return bool(d.mean() > t * se and d.mean() > 0)


def halving_survivors(fold_scores, groups):
    """The (basis size, shrinkage) ``groups`` that successive halving scores on the next folds,
    from the folds' ``fold_scores`` so far ({(size, shrinkage, complement): score} each): the
    best third by their best complement weight's total, and the best group of each size. Keeping
    each size's best matters: without it Flickr8k's reproduction lost 0.008 of 11-pt AP at 4 %
    LSI (sizes dropped after the first fold would have won over the four); and
    :func:`still_rising` compares sizes on every fold."""
    wanted = set(groups)
    partial = {key: sum(f[key] for f in fold_scores) for key in fold_scores[-1] if key[:2] in wanted}
    group_best = {g: max(v for key, v in partial.items() if key[:2] == g) for g in groups}
    keep = set(sorted(groups, key=lambda g: -group_best[g])[:-(-len(groups) // 3)])
    keep.update(max((g for g in groups if g[0] == k), key=group_best.get) for k in {g[0] for g in groups})
    return keep
