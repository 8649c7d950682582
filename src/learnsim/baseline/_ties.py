"""How the held-out search check (:mod:`learnsim.baseline._search`) and its plain queries
(:mod:`learnsim.baseline._probe`) score a rule over a pool: its mix of base scores
(:func:`_mix`), and DCG with ties of scores counted at their mean gain (:func:`_dcg_over_ties`).

References
----------
McSherry, F. and Najork, M. (2008). Computing information retrieval performance measures
efficiently in the presence of tied scores. ECIR 2008, LNCS 4956, 414-421.
"""
from __future__ import annotations

import numpy as np


def _mix(bases, weights, columns):
    """sum of weight x base over a pool (``bases``: {name: scores}, ``weights``: {name: weight});
    a base's missing scores (-inf) count as 0, and the pool's empty columns (``columns`` < 0) stay
    -inf."""
    S = np.zeros(np.shape(columns))
    for name, w in weights.items():
        if w:
            S = S + w * np.where(np.isfinite(bases[name]), bases[name], 0.0)
    return np.where(np.asarray(columns) >= 0, S, -np.inf)


def _dcg_over_ties(T, G, disc):
    """DCG@k (k = ``disc.size``) of each row of scores T (-inf: not ranked) with gains G, every
    tie given its documents' mean gain at each of its places: the DCG expected over the orders the
    tie could take (McSherry and Najork 2008, "Computing information retrieval performance measures
    efficiently in the presence of tied scores").

    Why not one order: a tie broken by column breaks it by the order the documents came in, and a
    rule that ties much (a learned metric collapsed to a few values, every document BM25 does not
    match) then scored what that order gave: on a corpus that lists its judged documents first, a
    rule scoring every document alike read nDCG@10 1.0 and passed the held-out check."""
    m, width = T.shape
    k = disc.size
    rows = np.arange(m)[:, None]
    # the top k as one order would rank them (argpartition: a sort of every column costs 4x)
    top = np.argpartition(-T, k - 1, axis=1)[:, :k] if k < width else np.tile(np.arange(width), (m, 1))
    top = top[rows, np.argsort(-T[rows, top], axis=1, kind="stable")]
    values = T[rows, top]
    out = np.where(np.isfinite(values), G[rows, top], 0.0) @ disc
    # rows with a tie among their finite top k, or of their k-th score with a column outside it
    last = values[:, -1:]
    tied = (np.isfinite(values[:, 1:]) & (values[:, 1:] == values[:, :-1])).any(axis=1)
    tied |= np.isfinite(last[:, 0]) & ((T == last).sum(axis=1) > (values == last).sum(axis=1))
    if tied.any():
        out[tied] = _dcg_of_tied_rows(T[tied], G[tied], disc)
    return out


def _dcg_of_tied_rows(T, G, disc):
    """:func:`_dcg_over_ties` of rows with ties: every column sorted, each tie's mean gain."""
    m, width = T.shape
    rows = np.arange(m)[:, None]
    order = np.argsort(-T, axis=1, kind="stable")
    Ts = T[rows, order]
    Gs = np.where(np.isfinite(Ts), G[rows, order], 0.0)
    start = np.ones((m, width), dtype=bool)
    start[:, 1:] = Ts[:, 1:] != Ts[:, :-1]
    group = np.cumsum(start, axis=1) - 1 + rows * width      # one number for each tie of each row
    sums = np.bincount(group.ravel(), Gs.ravel(), minlength=m * width)
    counts = np.bincount(group.ravel(), minlength=m * width)
    top = group[:, :disc.size]
    return (sums[top] / counts[top]) @ disc
