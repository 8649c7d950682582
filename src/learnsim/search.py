"""Exact nearest-neighbour search, written once for every learnsim metric and vectoriser.

:func:`top_k` finds, for each query, the ``k`` corpus items with the best score under one of
four metrics, without ever building the full ``n_queries x n_corpus`` score matrix: it walks
blocks of the corpus and of the queries whose size comes from a memory budget.

:class:`NeighborIndex` is the interface a search backend implements (``fit`` a corpus once,
``search`` it many times); :class:`ExactIndex` is the exact backend built on :func:`top_k`, and an
approximate (ANN) backend can plug in later by subclassing :class:`NeighborIndex`.
:class:`MetricSearch` puts a fitted transformer (a learnsim metric, a vectoriser, a pipeline)
in front of an index, so the corpus is transformed once at ``fit`` and queries at ``search``.

Scores and ordering
-------------------
``"sqeuclidean"`` and ``"euclidean"`` are distances: smaller is better and the returned scores
ascend along each row. ``"inner_product"`` and ``"cosine"`` are similarities: larger is better and
the scores descend. Equal scores are ordered by ascending corpus index, so results are
deterministic. For ``"cosine"`` an all-zero row has similarity 0 with everything (as in
:func:`sklearn.metrics.pairwise.cosine_similarity`).
"""
from __future__ import annotations

import numbers
from abc import ABC, abstractmethod

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, clone
from sklearn.preprocessing import normalize
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.validation import check_is_fitted

from ._utils.validation import check_matrix, check_n_features

__all__ = ["METRICS", "top_k", "NeighborIndex", "ExactIndex", "MetricSearch"]

DISTANCE_METRICS = ("sqeuclidean", "euclidean")
SIMILARITY_METRICS = ("inner_product", "cosine")
METRICS = DISTANCE_METRICS + SIMILARITY_METRICS

#: Default memory budget for one block of scores and its bookkeeping (bytes).
DEFAULT_BLOCK_BYTES = 64 * 2**20
# With fewer queries per block, BLAS spends its time on memory traffic; so a large corpus is
# split into chunks before the query blocks shrink below this.
_MIN_QUERY_BLOCK = 64
# Below this many corpus items per result, the block-minimum filter of _select_smallest keeps
# most of a row anyway, so selection goes through _smallest_k.
_FILTER_MIN_ITEMS_PER_K = 4
# Blocks per result in the one-row filter of _select_smallest_row.
_ROW_BLOCKS_PER_K = 8
# The arrays check_matrix returns unchanged: the dtypes it keeps (native byte order).
_FAST_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


_OVERFLOW_MESSAGE = ("scores overflowed to inf/NaN: the inputs are too large in magnitude for "
                     "{dtype}; rescale them (e.g. normalise the rows)")


def _check_metric(metric):
    if not isinstance(metric, str) or metric not in METRICS:
        raise ValueError(f"metric must be one of {', '.join(map(repr, METRICS))}; got {metric!r}")
    return metric


def _check_k(k, n_items, exclude_self):
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral):
        raise TypeError(f"k must be a positive integer; got {k!r}")
    k = int(k)
    if k <= 0:
        raise ValueError(f"k must be a positive integer; got {k}")
    available = n_items - 1 if exclude_self else n_items
    if k > available:
        raise ValueError(
            f"k={k} is larger than the {available} corpus item(s) available"
            + (" once each query's own item is excluded (exclude_self=True)" if exclude_self else "")
            + "; pass a smaller k")
    return k


def _check_block_param(value, name):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer; got {value!r}")
    return int(value)


class _PreparedCorpus:
    """The corpus in the form scoring needs, computed once: rows normalised for cosine and
    squared norms (in float64) for the Euclidean metrics."""

    def __init__(self, matrix, metric):
        self.metric = metric
        if metric == "cosine":
            matrix = normalize(matrix, norm="l2", copy=True)
        self.matrix = matrix
        self.sq_norms = _sq_row_norms(matrix) if metric in DISTANCE_METRICS else None

    @property
    def shape(self):
        return self.matrix.shape


def _sq_row_norms(X):
    """Squared L2 norm of each row, accumulated in float64 even for float32 input."""
    if sp.issparse(X):
        squares = sp.csr_matrix((X.data.astype(np.float64) ** 2, X.indices, X.indptr), shape=X.shape)
        return np.asarray(squares.sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", X, X, dtype=np.float64)


def _as_float64(X):
    if X.dtype == np.float64:
        return X
    return X.astype(np.float64)


def dense_queries_fast(X, n_features):
    """``X`` itself if it is already what ``check_matrix`` would return for queries of width
    ``n_features`` (a C-contiguous 2-D float32/float64 ndarray of finite values), else None.

    One query at a time, ``check_matrix`` costs as much as scoring it; this check is the part
    of it that applies to the common case. Anything else (lists, sparse, other dtypes, NaN, a
    wrong width) returns None, and the caller validates it fully for the usual clear error.
    """
    if (type(X) is np.ndarray and X.ndim == 2 and X.dtype in _FAST_DTYPES and X.flags.c_contiguous
            and X.shape[0] >= 1 and X.shape[1] == n_features and np.isfinite(X).all()):
        return X
    return None


def _block_sizes(n_queries, n_corpus, *, score_itemsize, block_size, max_block_bytes,
                 upcast_row_bytes):
    """Choose (queries per block, corpus items per chunk) so one block stays within budget.

    Per score we count the score itself, the int64 result of ``argpartition`` and the
    temporaries of the tie check (another score copy and a few bytes of masks).
    """
    bytes_per_score = 2 * score_itemsize + 8
    max_scores = max(1, max_block_bytes // bytes_per_score)
    if isinstance(block_size, tuple):
        if len(block_size) != 2:
            raise ValueError("block_size must be an int (queries per block) or a pair "
                             f"(queries per block, corpus items per chunk); got {block_size!r}")
        q_block = _check_block_param(block_size[0], "block_size[0]")
        c_chunk = _check_block_param(block_size[1], "block_size[1]")
        return min(q_block, n_queries), min(c_chunk, n_corpus)
    if block_size is not None:
        q_block = min(_check_block_param(block_size, "block_size"), n_queries)
        c_chunk = min(n_corpus, max(1, max_scores // q_block))
    else:
        c_chunk = min(n_corpus, max(1, max_scores // min(n_queries, _MIN_QUERY_BLOCK)))
    if upcast_row_bytes:
        # float32 data scored in float64 is copied chunk by chunk; keep that copy in budget too
        c_chunk = min(c_chunk, max(1, max_block_bytes // upcast_row_bytes))
    if block_size is None:
        q_block = min(n_queries, max(1, max_scores // c_chunk))
    return q_block, c_chunk


def _smallest_k(S, kk):
    """Column indices and values of the ``kk`` smallest entries of each row of ``S``, ordered by
    (value, column). ``argpartition`` alone may pick any of several equal values at the cut, so
    rows where the cut falls inside a run of ties are redone to keep the lowest columns."""
    n_cols = S.shape[1]
    if kk >= n_cols:
        cols = np.argsort(S, axis=1, kind="stable")
        return cols, np.take_along_axis(S, cols, axis=1)
    # .copy() so the full int64 partition is freed right away
    cols = np.argpartition(S, kk - 1, axis=1)[:, :kk].copy()
    vals = np.take_along_axis(S, cols, axis=1)
    cut = vals.max(axis=1)
    n_cut_kept = np.count_nonzero(vals == cut[:, None], axis=1)
    n_cut_all = np.count_nonzero(S == cut[:, None], axis=1)
    ambiguous = np.flatnonzero(n_cut_all > n_cut_kept)
    if ambiguous.size:
        rows = S[ambiguous]
        row_cut = cut[ambiguous, None]
        better = rows < row_cut
        at_cut = rows == row_cut
        n_needed = kk - np.count_nonzero(better, axis=1)
        keep = better | (at_cut & (np.cumsum(at_cut, axis=1, dtype=np.int32) <= n_needed[:, None]))
        cols[ambiguous] = np.nonzero(keep)[1].reshape(ambiguous.size, kk)
    cols.sort(axis=1)
    vals = np.take_along_axis(S, cols, axis=1)
    order = np.argsort(vals, axis=1, kind="stable")
    return np.take_along_axis(cols, order, axis=1), np.take_along_axis(vals, order, axis=1)


def _select_smallest(S, k):
    """What :func:`_smallest_k` returns (the ``k`` smallest entries of each row of finite ``S``,
    ordered by (value, column)), without partitioning whole rows.

    Each row is cut into ``k`` blocks; every block holds a value <= the largest block minimum,
    so at least ``k`` values are at or below it, and so is every value of the ``k`` smallest
    (ties at the cut included). Only those candidates, usually a small share of the row, are
    sorted by (value, column).
    """
    m, n = S.shape
    if n < _FILTER_MIN_ITEMS_PER_K * k:
        return _smallest_k(S, k)
    if m == 1:
        return _select_smallest_row(S[0], k)
    width = n // k
    # the last block runs to the end of the row; reduceat needs no copy of S
    threshold = np.minimum.reduceat(S, np.arange(0, width * k, width), axis=1).max(axis=1)
    # flatnonzero then divmod: several times faster than a 2-D np.nonzero
    flat = np.flatnonzero(S <= threshold[:, None])
    rows, cols = np.divmod(flat, n)
    vals = S.reshape(-1)[flat]
    order = np.lexsort((cols, vals, rows))
    starts = np.zeros(m, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=m)[:-1], out=starts[1:])
    take = order[starts[:, None] + np.arange(k)]
    return cols[take].astype(np.int64, copy=False), vals[take]


def _select_smallest_row(s, k):
    """:func:`_select_smallest` of one row (a single query), in a few numpy calls: its fixed cost
    is most of a small search's (measured: 60 us of 190 at 2,000 rows).

    The row is cut into up to ``_ROW_BLOCKS_PER_K * k`` blocks; the k-th smallest block minimum
    is at or above k distinct values, so the k smallest (ties at the cut included) are at or
    below it. More blocks than k make that bound tighter: about k to 2k candidates to sort.
    """
    n = s.shape[0]
    blocks = min(_ROW_BLOCKS_PER_K * k, n // _FILTER_MIN_ITEMS_PER_K)
    width = n // blocks
    minima = np.minimum.reduceat(s, np.arange(0, width * blocks, width))
    threshold = np.partition(minima, k - 1)[k - 1]
    cols = np.flatnonzero(s <= threshold)
    vals = s[cols]
    order = np.lexsort((cols, vals))[:k]
    return cols[order][None, :], vals[order][None, :]


def _score_block(Q_block, C_chunk, q_sq_norms, c_sq_norms, metric):
    """Scores of one block as a dense array where smaller is better (similarities negated).

    For the distance metrics the per-query constant ||q||^2 is left out (it does not change
    the ranking within a row and is added to the k winners only), and -2 is folded into the
    small query block instead of scaling the large score block: two fewer passes over it.
    """
    # overflow is reported by the caller as one clear error, not as numpy warnings
    with np.errstate(over="ignore", invalid="ignore"):
        # the similarities are negated in the query (exact: -q.d == (-q).d bit for bit), not in
        # the large score block: one pass fewer over it
        Q_block = Q_block * -2.0 if metric in DISTANCE_METRICS else -Q_block
        if Q_block.shape[0] == 1 and type(Q_block) is np.ndarray and type(C_chunk) is np.ndarray:
            # one dense query: a matrix-vector product. OpenBLAS's gemm with one row is slower
            # (measured, 36,825 x 100 float32 rows: 347 against 280 us a query)
            S = (C_chunk @ Q_block[0])[None, :]
        else:
            S = np.asarray(safe_sparse_dot(Q_block, C_chunk.T, dense_output=True))
        if not S.flags.writeable or not S.flags.c_contiguous:
            S = np.ascontiguousarray(S).copy()
        if metric in DISTANCE_METRICS:
            S += c_sq_norms[None, :]
            # ||q - d||^2 >= 0, i.e. S >= -||q||^2; rounding can cross that for near-equal points
            np.maximum(S, -q_sq_norms[:, None], out=S)
    return S


def _search_prepared(Q, corpus, k, *, exclude_self, block_size, max_block_bytes, return_scores):
    metric = corpus.metric
    C = corpus.matrix
    n_queries, n_corpus = Q.shape[0], C.shape[0]
    both_float32 = Q.dtype == np.float32 and C.dtype == np.float32
    out_dtype = np.float32 if both_float32 else np.float64
    # q.d in float32 loses the small differences that decide Euclidean neighbours
    # (||q||^2 + ||d||^2 - 2 q.d cancels), so those metrics are scored in float64.
    upcast_corpus = metric in DISTANCE_METRICS and C.dtype != np.float64
    upcast_queries = metric in DISTANCE_METRICS and Q.dtype != np.float64
    score_itemsize = 4 if (both_float32 and not upcast_corpus) else 8
    if upcast_corpus:
        row_items = C.shape[1] if not sp.issparse(C) else max(1, C.nnz // max(n_corpus, 1))
        upcast_row_bytes = 8 * row_items
    else:
        upcast_row_bytes = 0
    q_block, c_chunk = _block_sizes(
        n_queries, n_corpus, score_itemsize=score_itemsize, block_size=block_size,
        max_block_bytes=DEFAULT_BLOCK_BYTES if max_block_bytes is None else max_block_bytes,
        upcast_row_bytes=upcast_row_bytes)

    if (q_block == n_queries and c_chunk == n_corpus and metric in SIMILARITY_METRICS
            and not exclude_self):
        # every score fits in one block (e.g. a few queries): the same block as the loop below
        # scores, hence the same values, with no running best to merge into
        Q_block = normalize(Q, norm="l2", copy=True) if metric == "cosine" else Q
        S = _score_block(Q_block, C, None, None, metric)
        if not np.isfinite(S).all():
            raise ValueError(_OVERFLOW_MESSAGE.format(dtype=S.dtype))
        cols, vals = _select_smallest(S, k)
        if not return_scores:
            return cols
        np.negative(vals, out=vals)
        return cols, vals.astype(out_dtype, copy=False)

    # Running best k per query; the +inf / n_corpus sentinels always lose to real candidates,
    # and at least k real candidates exist (checked by _check_k).
    best_scores = np.full((n_queries, k), np.inf, dtype=np.float64 if score_itemsize == 8 else np.float32)
    best_idx = np.full((n_queries, k), n_corpus, dtype=np.int64)
    q_sq_all = np.zeros(n_queries) if metric in DISTANCE_METRICS else None
    q_starts = range(0, n_queries, q_block)
    for c0 in range(0, n_corpus, c_chunk):
        c1 = min(c0 + c_chunk, n_corpus)
        C_chunk = C[c0:c1]
        if upcast_corpus:
            C_chunk = _as_float64(C_chunk)
        c_sq = corpus.sq_norms[c0:c1] if corpus.sq_norms is not None else None
        kk = min(k, c1 - c0)
        for q0 in q_starts:
            q1 = min(q0 + q_block, n_queries)
            Q_block = Q[q0:q1]
            q_sq = None
            if metric == "cosine":
                Q_block = normalize(Q_block, norm="l2", copy=True)
            elif metric in DISTANCE_METRICS:
                if upcast_queries:
                    Q_block = _as_float64(Q_block)
                q_sq = _sq_row_norms(Q_block)
                q_sq_all[q0:q1] = q_sq
            S = _score_block(Q_block, C_chunk, q_sq, c_sq, metric)
            if not np.isfinite(S).all():
                raise ValueError(_OVERFLOW_MESSAGE.format(dtype=S.dtype))
            if exclude_self:
                own = np.arange(max(q0, c0), min(q1, c1))
                S[own - q0, own - c0] = np.inf
            cols, vals = _smallest_k(S, kk)
            cand_scores = np.concatenate([best_scores[q0:q1], vals], axis=1)
            cand_idx = np.concatenate([best_idx[q0:q1], cols.astype(np.int64) + c0], axis=1)
            order = np.lexsort((cand_idx, cand_scores), axis=-1)[:, :k]
            best_scores[q0:q1] = np.take_along_axis(cand_scores, order, axis=1)
            best_idx[q0:q1] = np.take_along_axis(cand_idx, order, axis=1)

    if not return_scores:
        return best_idx
    if metric in SIMILARITY_METRICS:
        np.negative(best_scores, out=best_scores)
    else:
        best_scores += q_sq_all[:, None]
        np.maximum(best_scores, 0.0, out=best_scores)
        if not np.isfinite(best_scores).all():
            raise ValueError(_OVERFLOW_MESSAGE.format(dtype=best_scores.dtype))
        if metric == "euclidean":
            np.sqrt(best_scores, out=best_scores)
    return best_idx, best_scores.astype(out_dtype, copy=False)


def top_k(queries, corpus, k, *, metric="sqeuclidean", block_size=None, exclude_self=False,
          return_scores=True, max_block_bytes=None):
    """The ``k`` best corpus items for each query, found exactly and block by block.

    Parameters
    ----------
    queries : array-like or scipy.sparse matrix of shape (n_queries, n_features)
    corpus : array-like or scipy.sparse matrix of shape (n_corpus, n_features)
        Dense and sparse inputs may be mixed. float32 input stays float32 for the
        similarity metrics; the Euclidean metrics are computed in float64 (block by block)
        because float32 cancellation would misorder close neighbours.
    k : int
        Number of neighbours, ``1 <= k <= n_corpus`` (``n_corpus - 1`` with ``exclude_self``).
        A larger ``k`` is an error rather than silently capped, so result shapes are what
        was asked for.
    metric : {"sqeuclidean", "euclidean", "inner_product", "cosine"}
    block_size : int or (int, int), optional
        Queries per block, or (queries per block, corpus items per chunk). By default both come
        from ``max_block_bytes``. Results do not depend on it.
    exclude_self : bool
        Query ``i`` is corpus item ``i`` (e.g. ``top_k(X, X, k, exclude_self=True)``): drop
        index ``i`` from its results. Requires as many queries as corpus items.
    return_scores : bool
        If False, return only the indices.
    max_block_bytes : int, optional
        Memory budget for one block of scores and its bookkeeping (default 64 MiB).

    Returns
    -------
    indices : ndarray of shape (n_queries, k), int64
        Best first; ties in score are ordered by ascending corpus index.
    scores : ndarray of shape (n_queries, k), float32 if both inputs are float32 else float64
        Distances (ascending) for the Euclidean metrics, similarities (descending) otherwise.

    Examples
    --------
    >>> import numpy as np
    >>> corpus = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0], [5.0, 5.0]])
    >>> queries = np.array([[0.9, 0.1], [4.0, 4.0]])
    >>> from learnsim.search import top_k
    >>> indices, scores = top_k(queries, corpus, 2)
    >>> indices.tolist()
    [[1, 0], [3, 2]]
    >>> np.round(scores, 2).tolist()                  # squared Euclidean distances, ascending
    [[0.02, 0.82], [2.0, 20.0]]
    >>> top_k(corpus, corpus, 1, exclude_self=True, return_scores=False).ravel().tolist()
    [1, 0, 0, 2]
    """
    metric = _check_metric(metric)
    Q = check_matrix(queries, name="queries")
    C = check_matrix(corpus, name="corpus")
    if Q.shape[1] != C.shape[1]:
        raise ValueError(f"queries has {Q.shape[1]} features but corpus has {C.shape[1]}; "
                         "both must be in the same feature space")
    if exclude_self and Q.shape[0] != C.shape[0]:
        raise ValueError("exclude_self=True means query i is corpus item i, so queries must be the "
                         f"corpus itself; got {Q.shape[0]} queries for {C.shape[0]} corpus items")
    k = _check_k(k, C.shape[0], exclude_self)
    if max_block_bytes is not None:
        max_block_bytes = _check_block_param(max_block_bytes, "max_block_bytes")
    return _search_prepared(Q, _PreparedCorpus(C, metric), k, exclude_self=exclude_self,
                            block_size=block_size, max_block_bytes=max_block_bytes,
                            return_scores=return_scores)


class NeighborIndex(BaseEstimator, ABC):
    """Interface of a nearest-neighbour backend: ``fit`` a corpus once, ``search`` it often.

    Subclasses set ``self.metric`` in ``__init__`` and implement ``_fit(corpus)`` and
    ``_search(queries, k, exclude_self)``; this base class validates the input, checks the
    index is fitted and the number of features matches, and sets ``n_items_`` and
    ``n_features_in_``. Scores follow :func:`top_k`: distances ascend, similarities descend.

    Examples
    --------
    :class:`ExactIndex` is the backend that ships with learnsim (the ``ann`` extra adds others):

    >>> import numpy as np
    >>> corpus = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0], [5.0, 5.0]])
    >>> queries = np.array([[0.9, 0.1], [4.0, 4.0]])
    >>> from learnsim.search import ExactIndex, NeighborIndex
    >>> index = ExactIndex("cosine").fit(corpus)
    >>> isinstance(index, NeighborIndex), index.n_items_, index.larger_is_better
    (True, 4, True)
    """

    @property
    def larger_is_better(self):
        """True when the metric is a similarity (scores descend), False for distances."""
        return self.metric in SIMILARITY_METRICS

    def fit(self, corpus, y=None):
        """Index ``corpus`` (n_items, n_features), dense or sparse. Returns self."""
        _check_metric(self.metric)
        corpus = check_matrix(corpus, name="corpus")
        self._fit(corpus)
        self.n_items_, self.n_features_in_ = corpus.shape
        return self

    def search(self, queries, k, *, exclude_self=False):
        """Indices (n_queries, k) and scores of the ``k`` best items for each query.

        With ``exclude_self=True`` query ``i`` is taken to be item ``i`` of the indexed corpus
        and is left out of its own results.
        """
        if "n_items_" not in self.__dict__:
            check_is_fitted(self, "n_items_")
        fast = dense_queries_fast(queries, self.n_features_in_)
        if fast is not None:
            queries = fast
        else:
            queries = check_matrix(queries, name="queries")
            check_n_features(queries, self.n_features_in_, name="queries",
                             owner=f"this {type(self).__name__}")
        if exclude_self and queries.shape[0] != self.n_items_:
            raise ValueError("exclude_self=True means query i is indexed item i, so there must be "
                             f"one query per item; got {queries.shape[0]} queries for "
                             f"{self.n_items_} items")
        k = _check_k(k, self.n_items_, exclude_self)
        return self._search(queries, k, exclude_self)

    @abstractmethod
    def _fit(self, corpus):
        """Build the index from a validated float ndarray or CSR matrix."""

    @abstractmethod
    def _search(self, queries, k, exclude_self):
        """Search validated queries; ``k`` is already checked against ``n_items_``."""


class ExactIndex(NeighborIndex):
    """Exact search by :func:`top_k`, with the corpus preparation (norms, normalisation) done once.

    Parameters
    ----------
    metric : {"sqeuclidean", "euclidean", "inner_product", "cosine"}
    block_size : int or (int, int), optional
        Passed to :func:`top_k`.
    max_block_bytes : int, optional
        Passed to :func:`top_k`.

    Attributes
    ----------
    corpus_ : ndarray or CSR matrix
        The indexed corpus as scored (rows L2-normalised for ``"cosine"``). It may share memory
        with the array given to ``fit``: do not modify that array afterwards.
    n_items_, n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> corpus = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0], [5.0, 5.0]])
    >>> queries = np.array([[0.9, 0.1], [4.0, 4.0]])
    >>> from learnsim.search import ExactIndex
    >>> index = ExactIndex("euclidean").fit(corpus)
    >>> ids, dist = index.search(queries, 1)
    >>> ids.ravel().tolist(), np.round(dist, 3).ravel().tolist()
    ([1, 3], [0.141, 1.414])
    """

    def __init__(self, metric="sqeuclidean", block_size=None, max_block_bytes=None):
        self.metric = metric
        self.block_size = block_size
        self.max_block_bytes = max_block_bytes

    def _fit(self, corpus):
        self._prepared = _PreparedCorpus(corpus, self.metric)
        self.corpus_ = self._prepared.matrix

    def _search(self, queries, k, exclude_self):
        max_bytes = self.max_block_bytes
        if max_bytes is not None:
            max_bytes = _check_block_param(max_bytes, "max_block_bytes")
        return _search_prepared(queries, self._prepared, k, exclude_self=exclude_self,
                                block_size=self.block_size, max_block_bytes=max_bytes,
                                return_scores=True)

    # persistence protocol (learnsim.persistence)
    def _get_state(self):
        check_is_fitted(self, "n_items_")
        block_size = list(self.block_size) if isinstance(self.block_size, tuple) else self.block_size
        meta = {"metric": self.metric, "block_size": block_size,
                "max_block_bytes": self.max_block_bytes}
        return meta, {"corpus": self.corpus_}

    @classmethod
    def _from_state(cls, meta, arrays):
        missing = {"metric", "block_size", "max_block_bytes"} - set(meta)
        if missing:
            raise ValueError(f"ExactIndex state lacks meta key(s) {sorted(missing)}")
        if set(arrays) != {"corpus"}:
            raise ValueError(f"ExactIndex state must hold exactly one array 'corpus'; got {sorted(arrays)}")
        block_size = meta["block_size"]
        if isinstance(block_size, list):
            block_size = tuple(block_size)
        for value in (block_size if isinstance(block_size, tuple) else (block_size,)):
            if value is not None:
                _check_block_param(value, "ExactIndex state: block_size")
        if meta["max_block_bytes"] is not None:
            _check_block_param(meta["max_block_bytes"], "ExactIndex state: max_block_bytes")
        index = cls(metric=_check_metric(meta["metric"]), block_size=block_size,
                    max_block_bytes=meta["max_block_bytes"])
        corpus = check_matrix(arrays["corpus"], name="ExactIndex state array 'corpus'")
        if index.metric == "cosine":
            # fit stores the rows L2-normalised (or zero), and search relies on it
            norms = np.sqrt(_sq_row_norms(corpus))
            tol = 1e-3 if corpus.dtype == np.float32 else 1e-8
            if np.any((norms > 0) & (np.abs(norms - 1.0) > tol)):
                raise ValueError("ExactIndex state: array 'corpus' of a cosine index must have rows of "
                                 "length 1 (or 0)")
        # the stored corpus is already prepared; re-normalising for cosine would be a no-op
        # up to rounding, so build the prepared form directly
        prepared = _PreparedCorpus.__new__(_PreparedCorpus)
        prepared.metric = index.metric
        prepared.matrix = corpus
        prepared.sq_norms = _sq_row_norms(corpus) if index.metric in DISTANCE_METRICS else None
        index._prepared = prepared
        index.corpus_ = corpus
        index.n_items_, index.n_features_in_ = corpus.shape
        return index


class MetricSearch(BaseEstimator):
    """Search a corpus under a learned metric or vectoriser.

    The corpus goes through ``transformer.transform`` once at :meth:`fit` and is indexed;
    queries go through it at each :meth:`search`. Because a learned Mahalanobis metric is the
    Euclidean distance after its ``transform``, the default ``ExactIndex("sqeuclidean")`` gives
    neighbours under the learned metric.

    Parameters
    ----------
    transformer : object with ``transform(X)``
        Already fitted (a learnsim metric, a text vectoriser, a pipeline of them).
    index : NeighborIndex, optional
        Unfitted template, cloned at ``fit``; defaults to ``ExactIndex("sqeuclidean")``.

    Attributes
    ----------
    index_ : NeighborIndex
        The fitted index over the transformed corpus.
    n_items_ : int

    Examples
    --------
    Search under a fitted transformer (a learned metric's ``transform``; here a fixed scaling that
    makes the second feature count ten times as much):

    >>> import numpy as np
    >>> corpus = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0], [5.0, 5.0]])
    >>> queries = np.array([[0.9, 0.1], [4.0, 4.0]])
    >>> from sklearn.preprocessing import FunctionTransformer
    >>> from learnsim.search import MetricSearch
    >>> stretch = FunctionTransformer(lambda X: X * np.array([1.0, 10.0])).fit(corpus)
    >>> ids, _ = MetricSearch(stretch).fit(corpus).search(np.array([[0.0, 0.3]]), 2)
    >>> ids.tolist()
    [[0, 1]]
    """

    def __init__(self, transformer, index=None):
        self.transformer = transformer
        self.index = index

    def fit(self, corpus, y=None):
        """Transform ``corpus`` once and index it. Returns self."""
        if not callable(getattr(self.transformer, "transform", None)):
            raise TypeError("transformer must have a transform(X) method (a fitted learnsim metric "
                            f"or vectoriser); got {type(self.transformer).__name__}")
        if self.index is None:
            index = ExactIndex("sqeuclidean")
        elif isinstance(self.index, NeighborIndex):
            index = clone(self.index)
        else:
            raise TypeError("index must be a learnsim.search.NeighborIndex (e.g. ExactIndex()); "
                            f"got {type(self.index).__name__}")
        self.index_ = index.fit(self.transformer.transform(corpus))
        self.n_items_ = self.index_.n_items_
        return self

    def search(self, queries, k, *, exclude_self=False):
        """Indices (n_queries, k) and scores of the best corpus items for each query."""
        check_is_fitted(self, "index_")
        return self.index_.search(self.transformer.transform(queries), k, exclude_self=exclude_self)
