"""Evaluation measures shared by every experiment: ranked retrieval, triplet constraints,
clustering, pair classification and correlation.

Conventions
-----------
* Retrieval functions take a score matrix ``scores`` of shape (n_queries, n_docs) where a
  *higher* score means *more similar*; pass ``-distances`` for a distance.
* Ranking order is descending score, ties broken by ascending document index (a stable sort),
  so results are deterministic. trec_eval breaks ties differently (by descending document
  name), so the two agree exactly only when a query has no tied scores.
* Per-query functions return ``NaN`` for queries with no relevant document (the measures
  are undefined there); the reports skip those queries and count them.
* Measure names used across the project (and by the results writer): ``ap11``,
  ``r_precision``, ``ap``, ``map``, ``p@10``, ``bep``, ``error_rate``, ``accuracy``,
  ``log_loss``, ``pearson``, ``spearman``, ``clustering_precision``.

Large collections are evaluated in blocks of queries, and the cluster-recovery protocol
accepts a function that scores one block of rows at a time, so that an n x n score matrix
never has to exist.

The measures on vectors (triplets, clustering, pairs, correlation) are written in
:mod:`learnsim._measures` and re-exported here; import every measure from this module.
"""
from __future__ import annotations

import numbers
import re

import numpy as np
import scipy.sparse as sp

from learnsim.evaluation._measures import (_check_binary_values, _check_block_size, _check_labels, best_threshold,
                                evaluate_triplets, kmeans_clustering_precision, log_loss,
                                pair_classification_report, pairwise_clustering_precision, pearson, spearman,
                                triplet_accuracy, triplet_distances, triplet_error_rate)
from learnsim._utils.progress import progress
from learnsim._utils.validation import check_matrix

__all__ = [
    "RECALL_LEVELS",
    "MEASURE_NAMES",
    "relevance_from_labels",
    "per_query_measures",
    "retrieval_report",
    "cluster_retrieval_report",
    "average_precision",
    "r_precision",
    "precision_at_k",
    "interpolated_precision_at_recall",
    "ap11",
    "break_even_point",
    "precision_recall_curve",
    "triplet_accuracy",
    "triplet_error_rate",
    "constraint_error_rate",
    "triplet_distances",
    "evaluate_triplets",
    "pairwise_clustering_precision",
    "kmeans_clustering_precision",
    "best_threshold",
    "log_loss",
    "pair_classification_report",
    "pearson",
    "spearman",
]

#: The 11 standard recall levels 0.0, 0.1, ..., 1.0. Written as j / 10 (not
#: ``linspace``, which gives 0.30000000000000004) so that each level is the same double
#: as trec_eval's literal, which matters for its rounding rule (see per_query_measures).
RECALL_LEVELS = np.arange(11) / 10.0

MEASURE_NAMES = ("ap11", "r_precision", "ap", "map", "p@10", "bep", "error_rate", "accuracy",
                 "log_loss", "pearson", "spearman", "clustering_precision")

DEFAULT_MEASURES = ("ap11", "r_precision", "ap", "p@10", "bep")

# Scores per block of queries: a block holds a few (b, n) work arrays (the scores, a sorted
# copy, masks), about 30 bytes per score, so this keeps a block near 30 MB for any n.
_BLOCK_ELEMENTS = 2 ** 20

_ALIASES = {
    "ap": "ap", "map": "ap", "avgp": "ap", "average_precision": "ap",
    "ap11": "ap11", "11pt_avg": "ap11", "11pt": "ap11",
    "r_precision": "r_precision", "rprec": "r_precision", "r-precision": "r_precision",
    "bep": "bep", "break_even_point": "bep",
}
_P_AT_K = re.compile(r"^(?:p@|p_|precision@)(\d+)$")


# --------------------------------------------------------------------------- helpers

def _parse_measures(measures):
    """Map each requested name to its canonical form ("ap", "ap11", "p@k", ...)."""
    if isinstance(measures, str):
        measures = (measures,)
    try:
        measures = tuple(measures)
    except TypeError:
        raise TypeError(f"measures must be a name or a sequence of names; got {measures!r}") from None
    if not measures:
        raise ValueError("measures is empty; ask for at least one of "
                         "'ap11', 'r_precision', 'ap', 'map', 'p@10', 'bep'")
    parsed = {}
    for name in measures:
        if not isinstance(name, str):
            raise TypeError(f"measure names must be strings; got {name!r}")
        key = name.strip().lower()
        if key in _ALIASES:
            parsed[name] = (_ALIASES[key], None)
            continue
        match = _P_AT_K.match(key)
        if match:
            k = int(match.group(1))
            if k < 1:
                raise ValueError(f"measure {name!r}: the cutoff k must be at least 1")
            parsed[name] = ("p@k", k)
            continue
        if key in ("iprec", "interpolated_precision"):
            parsed[name] = ("iprec", None)
            continue
        raise ValueError(f"unknown retrieval measure {name!r}; known: 'ap' (alias 'map'), 'ap11', "
                         "'r_precision', 'bep', 'p@<k>' (e.g. 'p@10')")
    return parsed


def _call_block(func, rows, name):
    """``func(rows)`` as a dense 2-D array with one row per requested row, or a clear error."""
    block = func(rows)
    block = np.asarray(block.toarray() if sp.issparse(block) else block)
    if block.ndim != 2 or block.shape[0] != len(rows):
        raise ValueError(f"{name}(rows) must return an array of shape (len(rows), n_docs); "
                         f"got shape {block.shape} for {len(rows)} rows")
    return block


def _as_mask_source(obj, name):
    """Return (n_rows, n_cols, get_rows) for a boolean matrix given as array, sparse matrix
    or callable ``f(rows) -> (len(rows), n_cols)``; shapes of a callable are unknown (None)."""
    if callable(obj) and not sp.issparse(obj) and not isinstance(obj, np.ndarray):
        def get(rows):
            block = _call_block(obj, rows, name)
            _check_binary_values(block, f"{name}(rows)")
            return block.astype(bool, copy=False)
        return None, None, get
    if sp.issparse(obj):
        mat = sp.csr_matrix(obj)
        if mat.shape[0] == 0 or mat.shape[1] == 0:
            raise ValueError(f"{name} is empty (shape {mat.shape})")
        _check_binary_values(mat.data, name)
        return mat.shape[0], mat.shape[1], lambda rows: mat[rows].toarray().astype(bool)
    if obj is None:
        raise ValueError(f"{name} is None; expected a boolean matrix (n_queries, n_docs)")
    arr = np.asarray(obj)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D boolean matrix (n_queries, n_docs); got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape})")
    _check_binary_values(arr, name)
    arr = arr.astype(bool, copy=False)
    return arr.shape[0], arr.shape[1], lambda rows: arr[rows]


def _as_score_source(obj, name="scores"):
    """Return (n_rows, n_cols, get_rows) for a score matrix or a ``score_block(rows)`` callable."""
    if callable(obj) and not isinstance(obj, np.ndarray):
        def get(rows):
            return check_matrix(_call_block(obj, rows, name), name=f"{name}(rows)", accept_sparse=False)
        return None, None, get
    if sp.issparse(obj):
        raise TypeError(f"{name} is a sparse matrix; rankings need every score, pass a dense array "
                        "(or a function score_block(rows) returning dense blocks)")
    arr = check_matrix(obj, name=name, accept_sparse=False)
    return arr.shape[0], arr.shape[1], lambda rows: arr[rows]


# Up to this many documents per ranking, a vectorised argsort of the block is fastest.
_ARGSORT_MAX_DOCS = 4096


# Up to this many relevant documents per query, their ranks are counted instead of sorted.
_COUNT_MAX_RELEVANT = 4
# Entries of the (relevant document, row) comparisons made at once when counting.
_COUNT_BLOCK_ENTRIES = 1 << 22


def _counted_ranks(scores, relevant, n_rel):
    """``_relevant_ranks`` for queries with at most ``_COUNT_MAX_RELEVANT`` relevant documents
    each (small clusters, duplicate pairs; ``n_rel`` per query), or None. A relevant document's
    rank is the number of documents scored higher, plus those tied with it at a lower index, plus
    one: the order of a stable sort, by len(row) comparisons a relevant document instead of a
    sort of the row."""
    if n_rel.max(initial=0) > _COUNT_MAX_RELEVANT:
        return None
    rows, cols = np.nonzero(relevant)
    values = scores[rows, cols]
    if not np.isfinite(values).all():        # NaN and infinities: the sorting paths decide
        return None
    n = scores.shape[1]
    index = np.arange(n)
    ranks = np.empty(rows.size, dtype=np.int64)
    step = max(1, _COUNT_BLOCK_ENTRIES // max(n, 1))
    for lo in range(0, rows.size, step):
        r, c, v = rows[lo:lo + step], cols[lo:lo + step], values[lo:lo + step, None]
        row_scores = scores[r]
        ahead = (row_scores > v) | ((row_scores == v) & (index[None, :] < c[:, None]))
        ranks[lo:lo + step] = np.count_nonzero(ahead, axis=1) + 1
    order = np.lexsort((ranks, rows))
    return rows[order], ranks[order], n_rel


def _relevant_ranks(scores, relevant, exclude):
    """1-based ranks of the relevant, non-excluded documents of each query of a block.

    Returns ``(rows, ranks, n_rel)``: flat arrays of the query (row) of each relevant
    document and its rank, sorted by row then rank, and the number per row.

    Only the ranks of relevant documents are needed, so instead of an argsort of every row
    (the slow part) each row is sorted once and the relevant scores are located by binary
    search: rank = #(higher scores) + 1. A row where a relevant document ties with another
    document falls back to a stable argsort, which orders ties by ascending index.
    """
    if exclude is not None:
        # Excluded documents sink below every (finite) score, i.e. leave the ranking.
        scores = np.where(exclude, -np.inf, scores)
        relevant = relevant & ~exclude
    n = scores.shape[1]
    n_rel = np.count_nonzero(relevant, axis=1)
    counted = _counted_ranks(scores, relevant, n_rel)
    if counted is not None:
        return counted
    if n <= _ARGSORT_MAX_DOCS:
        # Moderate width: one stable argsort of the whole block (ties by ascending index) beats
        # a Python loop over the rows; nonzero() returns the hits ordered by row, then rank.
        keys = -scores
        order = np.argsort(keys, axis=1)          # introsort: ~4x faster than a stable sort
        ordered = np.take_along_axis(keys, order, axis=1)
        tied = ((ordered[:, 1:] == ordered[:, :-1]) & np.isfinite(ordered[:, 1:])).any(axis=1)
        if tied.any():                            # ties must go by ascending index: redo stably
            order[tied] = np.argsort(keys[tied], axis=1, kind="stable")
        rows, positions = np.nonzero(np.take_along_axis(relevant, order, axis=1))
        return rows, positions.astype(np.int64) + 1, n_rel
    ascending = np.sort(scores, axis=1)
    rows, cols = np.nonzero(relevant)
    bounds = np.concatenate(([0], np.cumsum(n_rel)))
    values = scores[rows, cols]
    ranks = np.empty(rows.size, dtype=np.int64)
    for row in np.nonzero(n_rel)[0]:
        lo, hi = bounds[row], bounds[row + 1]
        # sorted keys make the binary searches cache-friendly, and ranks come out sorted
        keys = np.sort(values[lo:hi])
        right = np.searchsorted(ascending[row], keys, side="right")
        # right - 1 is the last copy of the key; a tie if the one before is equal too
        before = ascending[row][np.maximum(right - 2, 0)]
        if np.any((right >= 2) & (before == keys)):
            order = np.argsort(-scores[row], kind="stable")
            position = np.empty(n, dtype=np.int64)
            position[order] = np.arange(1, n + 1)
            ranks[lo:hi] = np.sort(position[cols[lo:hi]])
        else:
            ranks[lo:hi] = (n + 1 - right)[::-1]
    return rows, ranks, n_rel


def _ranking_block(scores, relevant, exclude, parsed):
    """Compute the requested measures for one block of queries.

    ``scores`` (b, n) float, ``relevant`` / ``exclude`` (b, n) bool (exclude may be None).
    Documents are ranked by descending score, ties by ascending index; excluded documents
    are removed from the ranking. Returns a dict canonical-key -> (b,) or (b, 11) array,
    NaN for queries with no relevant document.
    """
    b = scores.shape[0]
    rows, ranks, n_rel = _relevant_ranks(scores, relevant, exclude)
    defined = n_rel > 0
    safe_n_rel = np.where(defined, n_rel, 1)
    first = np.concatenate(([0], np.cumsum(n_rel)[:-1]))
    # m-th relevant document of its query (1-based) and the precision at its rank
    m = np.arange(rows.size) - first[rows] + 1
    precision = m / ranks

    out = {}
    wanted = {canon for canon, _ in parsed.values()}
    if "ap" in wanted:
        out["ap"] = np.bincount(rows, weights=precision, minlength=b) / safe_n_rel
    if wanted & {"r_precision", "bep"}:
        at_r = np.bincount(rows, weights=ranks <= n_rel[rows], minlength=b) / safe_n_rel
        out["r_precision"] = at_r
        out["bep"] = at_r
    for canon, k in parsed.values():
        if canon == "p@k" and ("p@k", k) not in out:
            out[("p@k", k)] = np.bincount(rows, weights=ranks <= k, minlength=b) / k
    if wanted & {"ap11", "iprec"}:
        # Interpolated precision at level r is the maximum precision at any rank at or after
        # the m-th relevant document (precision only rises at relevant documents, so this is
        # the maximum over relevant documents m' >= m), where, as in trec_eval 9.0.7 and
        # pytrec_eval, m = (long)(r * R + 0.9): "recall >= r" with a tolerance that the
        # historical implementations used. The floating-point expression is reproduced
        # exactly (0.7 * 3 + 0.9 < 3 in doubles, so there m = 2) to match trec_eval.
        padded = np.zeros((b, max(int(n_rel.max()), 1)))
        padded[rows, m - 1] = precision
        tail_max = np.maximum.accumulate(padded[:, ::-1], axis=1)[:, ::-1]
        iprec = np.zeros((b, RECALL_LEVELS.size))
        qs = np.nonzero(defined)[0]
        for j, level in enumerate(RECALL_LEVELS):
            m_min = np.maximum(1, np.floor(level * n_rel[qs] + 0.9).astype(np.int64))
            iprec[qs, j] = tail_max[qs, m_min - 1]
        out["iprec"] = iprec
        out["ap11"] = iprec.mean(axis=1)
    for value in out.values():
        value[~defined] = np.nan
    return out


def _evaluate(score_src, relevant_src, exclude_src, *, query_rows, n_docs, exclude_self,
              parsed, block_size, desc):
    """Run the measures over ``query_rows`` block by block; returns canonical-key -> array
    aligned with ``query_rows``."""
    get_scores = score_src
    n_q = len(query_rows)
    if block_size is None:
        block_size = max(1, _BLOCK_ELEMENTS // n_docs) if n_docs else 64
    results = {}
    starts = range(0, n_q, block_size)
    for start in progress(starts, total=len(starts), desc=desc):
        rows = query_rows[start:start + block_size]
        scores = get_scores(rows)
        if n_docs is None:
            n_docs = scores.shape[1]
            if exclude_self and not np.all(query_rows < n_docs):
                raise ValueError(f"exclude_self=True means query i is document i, but there are "
                                 f"{n_docs} documents and query index {int(query_rows.max())}")
        if scores.shape[1] != n_docs:
            raise ValueError(f"scores for rows {start}..{start + len(rows) - 1} have "
                             f"{scores.shape[1]} columns; expected {n_docs} documents")
        relevant = relevant_src(rows)
        if relevant.shape != scores.shape:
            raise ValueError(f"relevant has shape {relevant.shape} for a block of scores of shape "
                             f"{scores.shape}; they must match")
        exclude = None
        if exclude_src is not None:
            exclude = exclude_src(rows)
            if exclude.shape != scores.shape:
                raise ValueError(f"exclude has shape {exclude.shape} for a block of scores of shape "
                                 f"{scores.shape}; they must match")
        if exclude_self:
            exclude = np.zeros(scores.shape, dtype=bool) if exclude is None else exclude.copy()
            exclude[np.arange(len(rows)), rows] = True
        block = _ranking_block(scores, relevant, exclude, parsed)
        for key, value in block.items():
            if key not in results:
                results[key] = np.empty((n_q,) + value.shape[1:])
            results[key][start:start + len(rows)] = value
    return results


def _resolve_sources(scores, relevant, exclude, exclude_self, n_queries):
    n_q_s, n_d_s, get_scores = _as_score_source(scores)
    n_q_r, n_d_r, get_relevant = _as_mask_source(relevant, "relevant")
    get_exclude = None
    n_q_e = n_d_e = None
    if exclude is not None:
        n_q_e, n_d_e, get_exclude = _as_mask_source(exclude, "exclude")
    shapes = {name: (q, d) for name, q, d in (("scores", n_q_s, n_d_s), ("relevant", n_q_r, n_d_r),
                                              ("exclude", n_q_e, n_d_e)) if q is not None}
    if len(set(shapes.values())) > 1:
        described = ", ".join(f"{name} {shape}" for name, shape in shapes.items())
        raise ValueError(f"shapes do not match: {described}; all must be (n_queries, n_docs)")
    if shapes:
        n_q, n_d = next(iter(shapes.values()))
        if n_queries is not None and n_queries != n_q:
            raise ValueError(f"n_queries={n_queries} but the matrices have {n_q} rows")
    else:
        if n_queries is None:
            raise ValueError("scores and relevant are both functions; pass n_queries=")
        if (not isinstance(n_queries, numbers.Integral) or isinstance(n_queries, bool)
                or n_queries < 1):
            raise ValueError(f"n_queries must be a positive integer; got {n_queries!r}")
        n_q, n_d = int(n_queries), None
    if not isinstance(exclude_self, (bool, np.bool_)):
        raise TypeError(f"exclude_self must be True or False; got {exclude_self!r}")
    if exclude_self and n_d is not None and n_q != n_d:
        raise ValueError(f"exclude_self=True means query i is document i, which needs a square "
                         f"matrix; got {n_q} queries and {n_d} documents")
    return n_q, n_d, get_scores, get_relevant, get_exclude


# --------------------------------------------------------------------------- retrieval API

def relevance_from_labels(query_labels, doc_labels, *, noise_label=-1):
    """Boolean relevance matrix ``query_labels[i] == doc_labels[j]``.

    Items whose label is ``noise_label`` (default -1, "no cluster") are never relevant,
    not even to each other. Pass ``noise_label=None`` to disable that rule.

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.evaluation import relevance_from_labels
    >>> relevance_from_labels(np.array([0, 1, -1]), np.array([0, 0, 1, -1])).astype(int).tolist()
    [[1, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0]]
    """
    q = _check_labels(query_labels, "query_labels")
    d = _check_labels(doc_labels, "doc_labels")
    rel = q[:, None] == d[None, :]
    if noise_label is not None:
        rel &= (d != noise_label)[None, :]
    return rel


def per_query_measures(scores, relevant, *, exclude=None, exclude_self=False,
                       measures=DEFAULT_MEASURES, block_size=None, n_queries=None):
    """Ranked-retrieval measures for each query.

    Parameters
    ----------
    scores : array (n_queries, n_docs) or callable
        Higher is more similar (pass negative distances). Documents are ranked by
        descending score, ties broken by ascending document index. A callable
        ``score_block(rows) -> (len(rows), n_docs)`` is called on blocks of query indices.
    relevant : bool array, 0/1 array, scipy.sparse matrix or callable
        ``relevant[i, j]`` is True when document j is relevant to query i. A callable
        ``relevant_block(rows)`` works like ``score_block``.
    exclude : bool array or sparse matrix, optional
        Documents to remove from query i's ranking (and from its relevant set).
    exclude_self : bool
        Leave-one-out: query i is document i and is removed from its own ranking.
    measures : sequence of str
        Any of ``"ap"`` (alias ``"map"``), ``"ap11"``, ``"r_precision"``, ``"bep"``,
        ``"p@<k>"`` (e.g. ``"p@10"``) and ``"iprec"`` (the 11 interpolated precisions,
        returned as an (n_queries, 11) array).
    block_size : int, optional
        Queries per block; by default chosen so that a block has about 2**20 scores.
    n_queries : int, optional
        Needed only when both ``scores`` and ``relevant`` are callables.

    Returns
    -------
    dict name -> ndarray of shape (n_queries,), keyed by the names as given; ``NaN`` for
    queries without any relevant (non-excluded) document.

    Notes
    -----
    Definitions follow trec_eval with every document retrieved: with R relevant documents,
    AP is the mean over relevant documents of the precision at their rank; R-precision is
    the precision at rank R; P@k divides by k even when fewer than k documents are ranked;
    ``iprec`` at recall level r (0.0, 0.1, ..., 1.0) is the maximum precision at any rank
    whose recall is >= r, and ``ap11`` is the mean of the 11 values. Like trec_eval 9.0.7
    (the version in pytrec_eval), "recall >= r" is taken as "at or after the m-th relevant
    document" with m = floor(r * R + 0.9) in floating point; this is ceil(r * R) except that
    fractional parts of about 0.1 or less are rounded down (e.g. R = 3, r = 0.7 gives
    m = 2). Newer trec_eval (9.0.8+) rounds r * R to the nearest integer instead, so its
    ``iprec_at_recall`` can differ slightly. ``bep``, the break-even point,
    is where precision equals recall; in one ranking that happens at rank R, where both are
    (relevant in the top R) / R, so the per-query BEP equals the R-precision
    (Manning, Raghavan & Schuetze 2008, sec. 8.4).

    References
    ----------
    .. [1] C. D. Manning, P. Raghavan and H. Schuetze, "Introduction to Information Retrieval",
       Cambridge University Press, 2008.

    Examples
    --------
    Two queries ranking four documents (higher score = better); query 0's relevant documents
    are 0 and 2, query 1's is 3:

    >>> import numpy as np
    >>> scores = np.array([[0.9, 0.8, 0.7, 0.1], [0.9, 0.8, 0.7, 0.1]])
    >>> relevant = np.array([[1, 0, 1, 0], [0, 0, 0, 1]], dtype=bool)
    >>> from learnsim.evaluation import per_query_measures
    >>> m = per_query_measures(scores, relevant, measures=("ap", "r_precision"))
    >>> sorted(m)
    ['ap', 'r_precision']
    >>> np.round(m["ap"], 3).tolist()
    [0.833, 0.25]
    """
    parsed = _parse_measures(measures)
    block_size = _check_block_size(block_size)
    n_q, n_d, get_scores, get_relevant, get_exclude = _resolve_sources(
        scores, relevant, exclude, exclude_self, n_queries)
    raw = _evaluate(get_scores, get_relevant, get_exclude, query_rows=np.arange(n_q), n_docs=n_d,
                    exclude_self=bool(exclude_self), parsed=parsed, block_size=block_size,
                    desc="retrieval evaluation")
    return _name_results(raw, parsed)


def _name_results(raw, parsed):
    out = {}
    for name, (canon, k) in parsed.items():
        out[name] = raw[("p@k", k)] if canon == "p@k" else raw[canon]
    return out


def _summarise(per_query, n_total):
    any_measure = next(iter(per_query.values()))
    defined = ~np.isnan(any_measure if any_measure.ndim == 1 else any_measure[:, 0])
    n_used = int(defined.sum())
    if n_used == 0:
        raise ValueError(f"none of the {n_total} queries has a relevant document; "
                         "the retrieval measures are undefined")
    report = {name: float(np.mean(values[defined])) for name, values in per_query.items()
              if values.ndim == 1}
    report["n_queries"] = n_used
    report["n_skipped_queries"] = int(n_total - n_used)
    return report


def retrieval_report(scores, relevant, *, exclude=None, exclude_self=False,
                     measures=DEFAULT_MEASURES, block_size=None, n_queries=None):
    """Means over queries of ranked-retrieval measures.

    Same arguments as :func:`per_query_measures` (``"iprec"`` is not allowed here; see
    :func:`precision_recall_curve`). Queries with no relevant document are skipped: the
    returned dict holds, besides one float per measure (keyed by the names as given, so
    ``"map"`` stays ``"map"``), ``"n_queries"`` (queries averaged over) and
    ``"n_skipped_queries"`` (queries left out because they had no relevant document).
    Raises ``ValueError`` when no query has a relevant document.

    Examples
    --------
    Two queries ranking four documents (higher score = better); query 0's relevant documents
    are 0 and 2, query 1's is 3:

    >>> import numpy as np
    >>> scores = np.array([[0.9, 0.8, 0.7, 0.1], [0.9, 0.8, 0.7, 0.1]])
    >>> relevant = np.array([[1, 0, 1, 0], [0, 0, 0, 1]], dtype=bool)
    >>> from learnsim.evaluation import retrieval_report
    >>> report = retrieval_report(scores, relevant, measures=("ap", "p@10"))
    >>> round(report["ap"], 3), report["n_queries"]
    (0.542, 2)
    """
    parsed = _parse_measures(measures)
    if any(canon == "iprec" for canon, _ in parsed.values()):
        raise ValueError("'iprec' is a curve, not a number; use precision_recall_curve()")
    per_query = per_query_measures(scores, relevant, exclude=exclude, exclude_self=exclude_self,
                                   measures=measures, block_size=block_size, n_queries=n_queries)
    n_total = len(next(iter(per_query.values())))
    return _summarise(per_query, n_total)


def _single(measure, scores, relevant, exclude, exclude_self, block_size):
    result = per_query_measures(scores, relevant, exclude=exclude, exclude_self=exclude_self,
                                measures=(measure,), block_size=block_size)
    return result[measure]


def average_precision(scores, relevant, *, exclude=None, exclude_self=False, block_size=None):
    """Average precision of each query (NaN where it has no relevant document); MAP is
    the mean over the defined values. See :func:`per_query_measures` for the arguments,
    the ranking order and the definition.

    Examples
    --------
    Two queries ranking four documents (higher score = better); query 0's relevant documents
    are 0 and 2, query 1's is 3:

    >>> import numpy as np
    >>> scores = np.array([[0.9, 0.8, 0.7, 0.1], [0.9, 0.8, 0.7, 0.1]])
    >>> relevant = np.array([[1, 0, 1, 0], [0, 0, 0, 1]], dtype=bool)
    >>> from learnsim.evaluation import average_precision
    >>> np.round(average_precision(scores, relevant), 3).tolist()
    [0.833, 0.25]
    """
    return _single("ap", scores, relevant, exclude, exclude_self, block_size)


def r_precision(scores, relevant, *, exclude=None, exclude_self=False, block_size=None):
    """Precision at rank R (R = number of relevant documents) of each query; NaN where R = 0.

    Examples
    --------
    Two queries ranking four documents (higher score = better); query 0's relevant documents
    are 0 and 2, query 1's is 3:

    >>> import numpy as np
    >>> scores = np.array([[0.9, 0.8, 0.7, 0.1], [0.9, 0.8, 0.7, 0.1]])
    >>> relevant = np.array([[1, 0, 1, 0], [0, 0, 0, 1]], dtype=bool)
    >>> from learnsim.evaluation import r_precision
    >>> np.round(r_precision(scores, relevant), 3).tolist()
    [0.5, 0.0]
    """
    return _single("r_precision", scores, relevant, exclude, exclude_self, block_size)


def precision_at_k(scores, relevant, k=10, *, exclude=None, exclude_self=False, block_size=None):
    """Precision among the top ``k`` documents of each query, divided by ``k`` even when
    fewer than ``k`` documents are ranked (as trec_eval's ``P_k``); NaN where the query
    has no relevant document.

    Examples
    --------
    Two queries ranking four documents (higher score = better); query 0's relevant documents
    are 0 and 2, query 1's is 3:

    >>> import numpy as np
    >>> scores = np.array([[0.9, 0.8, 0.7, 0.1], [0.9, 0.8, 0.7, 0.1]])
    >>> relevant = np.array([[1, 0, 1, 0], [0, 0, 0, 1]], dtype=bool)
    >>> from learnsim.evaluation import precision_at_k
    >>> precision_at_k(scores, relevant, k=2).tolist()
    [0.5, 0.0]
    """
    if not isinstance(k, numbers.Integral) or isinstance(k, bool) or k < 1:
        raise ValueError(f"k must be a positive integer; got {k!r}")
    return _single(f"p@{int(k)}", scores, relevant, exclude, exclude_self, block_size)


def interpolated_precision_at_recall(scores, relevant, *, exclude=None, exclude_self=False,
                                     block_size=None):
    """Interpolated precision at the 11 recall levels :data:`RECALL_LEVELS`, shape
    (n_queries, 11): at level r, the maximum precision at any rank whose recall is >= r,
    with trec_eval's rounding of r * R (see :func:`per_query_measures`), so the values equal
    trec_eval's ``iprec_at_recall``. Rows are NaN for queries with no relevant document.

    Examples
    --------
    Two queries ranking four documents (higher score = better); query 0's relevant documents
    are 0 and 2, query 1's is 3:

    >>> import numpy as np
    >>> scores = np.array([[0.9, 0.8, 0.7, 0.1], [0.9, 0.8, 0.7, 0.1]])
    >>> relevant = np.array([[1, 0, 1, 0], [0, 0, 0, 1]], dtype=bool)
    >>> from learnsim.evaluation import interpolated_precision_at_recall
    >>> P = interpolated_precision_at_recall(scores, relevant)
    >>> P.shape
    (2, 11)
    >>> np.round(P[0], 3).tolist()
    [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.667, 0.667, 0.667, 0.667, 0.667]
    """
    return _single("iprec", scores, relevant, exclude, exclude_self, block_size)


def ap11(scores, relevant, *, exclude=None, exclude_self=False, block_size=None):
    """11-point average precision of each query: the mean of its 11 interpolated
    precisions (trec_eval's ``11pt_avg``); NaN where the query has no relevant document.

    Examples
    --------
    Two queries ranking four documents (higher score = better); query 0's relevant documents
    are 0 and 2, query 1's is 3:

    >>> import numpy as np
    >>> scores = np.array([[0.9, 0.8, 0.7, 0.1], [0.9, 0.8, 0.7, 0.1]])
    >>> relevant = np.array([[1, 0, 1, 0], [0, 0, 0, 1]], dtype=bool)
    >>> from learnsim.evaluation import ap11
    >>> np.round(ap11(scores, relevant), 3).tolist()
    [0.848, 0.25]
    """
    return _single("ap11", scores, relevant, exclude, exclude_self, block_size)


def break_even_point(scores, relevant, *, exclude=None, exclude_self=False, block_size=None):
    """Break-even point of each query, where precision equals recall.

    In a single ranking with R relevant documents precision and recall are both
    (relevant in the top R) / R at rank R, so the break-even point is the R-precision
    (Manning, Raghavan & Schuetze 2008, sec. 8.4). NaN where R = 0.

    References
    ----------
    .. [1] C. D. Manning, P. Raghavan and H. Schuetze, "Introduction to Information Retrieval",
       Cambridge University Press, 2008.

    Examples
    --------
    Two queries ranking four documents (higher score = better); query 0's relevant documents
    are 0 and 2, query 1's is 3:

    >>> import numpy as np
    >>> scores = np.array([[0.9, 0.8, 0.7, 0.1], [0.9, 0.8, 0.7, 0.1]])
    >>> relevant = np.array([[1, 0, 1, 0], [0, 0, 0, 1]], dtype=bool)
    >>> from learnsim.evaluation import break_even_point
    >>> np.round(break_even_point(scores, relevant), 3).tolist()
    [0.5, 0.0]
    """
    return _single("bep", scores, relevant, exclude, exclude_self, block_size)


def precision_recall_curve(scores, relevant, *, exclude=None, exclude_self=False, block_size=None):
    """Interpolated precision at the 11 recall levels averaged over queries (for plots).

    Returns ``(recall_levels, mean_precision)``, two arrays of length 11. Queries with no
    relevant document are left out of the average; ``ValueError`` if none has one.

    Examples
    --------
    Two queries ranking four documents (higher score = better); query 0's relevant documents
    are 0 and 2, query 1's is 3:

    >>> import numpy as np
    >>> scores = np.array([[0.9, 0.8, 0.7, 0.1], [0.9, 0.8, 0.7, 0.1]])
    >>> relevant = np.array([[1, 0, 1, 0], [0, 0, 0, 1]], dtype=bool)
    >>> from learnsim.evaluation import precision_recall_curve
    >>> recall, precision = precision_recall_curve(scores, relevant)
    >>> recall.tolist()[:3], len(precision)
    ([0.0, 0.1, 0.2], 11)
    """
    iprec = interpolated_precision_at_recall(scores, relevant, exclude=exclude,
                                             exclude_self=exclude_self, block_size=block_size)
    defined = ~np.isnan(iprec[:, 0])
    if not defined.any():
        raise ValueError(f"none of the {len(iprec)} queries has a relevant document; "
                         "the precision-recall curve is undefined")
    return RECALL_LEVELS.copy(), iprec[defined].mean(axis=0)


def cluster_retrieval_report(scores, labels, *, measures=DEFAULT_MEASURES, block_size=None,
                             noise_label=-1, noise_queries=False, return_per_query=False):
    """Leave-one-out cluster recovery (Mochihashi et al. 2004, sec. 5).

    Every item of a test set queries all *other* items of the same set; the relevant
    documents are the items with the same cluster label, so R is the cluster size minus one
    and R-precision measures how well the cluster is recovered.

    Parameters
    ----------
    scores : array (n, n) or callable
        Full similarity matrix (higher = more similar), or ``score_block(rows)`` returning
        the (len(rows), n) similarities of the items ``rows`` to all n items, so that large
        test sets are scored block by block without an n x n matrix.
    labels : array (n,)
        Cluster label of each item. Items labelled ``noise_label`` (default -1, "no
        cluster") stay in every ranking as distractors but are never relevant.
    measures, block_size
        As in :func:`per_query_measures`.
    noise_queries : bool
        If False (default) noise items are not used as queries. If True they are, but
        having no relevant document they are skipped and counted in
        ``"n_skipped_queries"``. Items alone in their cluster are always skipped and counted.
    return_per_query : bool
        Also return the per-query dict (arrays of length n, NaN for items that were not
        evaluated).

    Returns
    -------
    report : dict
        Means over queries plus ``"n_queries"`` and ``"n_skipped_queries"``, as in
        :func:`retrieval_report`.
    per_query : dict, only if ``return_per_query``

    References
    ----------
    .. [1] D. Mochihashi, G. Kikui and K. Kita, "Learning Nonstructural Distance Metric by Minimum
       Cluster Distortions", Proceedings of the 2004 Conference on Empirical Methods in Natural
       Language Processing (EMNLP), 2004 (paper 000 in ../shared/papers).

    Examples
    --------
    Six items in two clusters; every item queries the other five:

    >>> import numpy as np
    >>> from learnsim.evaluation import cluster_retrieval_report
    >>> X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.3]])
    >>> labels = np.array([0, 0, 0, 1, 1, 1])
    >>> scores = -np.abs(X - X.T)                  # minus the distance: higher is closer
    >>> report = cluster_retrieval_report(scores, labels, measures=("ap", "r_precision"))
    >>> report["ap"], report["r_precision"], report["n_queries"]
    (1.0, 1.0, 6)
    """
    parsed = _parse_measures(measures)
    if any(canon == "iprec" for canon, _ in parsed.values()):
        raise ValueError("'iprec' is a curve, not a number; ask for 'ap11' instead")
    block_size = _check_block_size(block_size)
    labels = _check_labels(labels, "labels")
    n = labels.shape[0]
    if n < 2:
        raise ValueError(f"labels has {n} item(s); leave-one-out retrieval needs at least 2")
    n_rows, n_cols, get_scores = _as_score_source(scores)
    if n_rows is not None and (n_rows, n_cols) != (n, n):
        raise ValueError(f"scores has shape {(n_rows, n_cols)} but labels has {n} items; "
                         f"expected an ({n}, {n}) matrix")
    noise = (labels == noise_label) if noise_label is not None else np.zeros(n, dtype=bool)
    doc_relevant_ok = ~noise

    def get_relevant(rows):
        return (labels[rows][:, None] == labels[None, :]) & doc_relevant_ok[None, :]

    query_rows = np.arange(n) if noise_queries else np.nonzero(~noise)[0]
    if query_rows.size == 0:
        raise ValueError(f"every item is labelled noise_label={noise_label!r}; there are no queries")
    raw = _evaluate(get_scores, get_relevant, None, query_rows=query_rows, n_docs=n,
                    exclude_self=True, parsed=parsed, block_size=block_size,
                    desc="cluster retrieval")
    named = _name_results(raw, parsed)
    report = _summarise(named, len(query_rows))
    if not return_per_query:
        return report
    per_query = {}
    for name, values in named.items():
        full = np.full((n,) + values.shape[1:], np.nan)
        full[query_rows] = values
        per_query[name] = full
    return report, per_query


# --------------------------------------------------------------------------- triplets on rankings

def constraint_error_rate(scores, relevant, *, exclude=None, exclude_self=False, block_size=None):
    """Per query, the fraction of (relevant, non-relevant) document pairs ranked the wrong way:
    C^{0/1}_d of Grangier & Bengio (paper 002, eq. 3), I{sim(d, l+) < sim(d, l-)}; ties are not
    errors (the paper's strict inequality).

    Takes the same ``scores`` / ``relevant`` / ``exclude`` / ``exclude_self`` as
    :func:`per_query_measures`. Returns an array (n_queries,) with NaN for a query that has no
    relevant or no non-relevant document; the paper's C^{0/1} is its mean over the others.

    References
    ----------
    .. [1] D. Grangier and S. Bengio, "Inferring Document Similarity from Hyper-links", IDIAP
       Research Report IDIAP-RR 05-21, IDIAP, Martigny, Switzerland, 2005 (paper 002 in
       ../shared/papers).

    Examples
    --------
    Two queries ranking four documents (higher score = better); query 0's relevant documents
    are 0 and 2, query 1's is 3:

    >>> import numpy as np
    >>> scores = np.array([[0.9, 0.8, 0.7, 0.1], [0.9, 0.8, 0.7, 0.1]])
    >>> relevant = np.array([[1, 0, 1, 0], [0, 0, 0, 1]], dtype=bool)
    >>> from learnsim.evaluation import constraint_error_rate
    >>> np.round(constraint_error_rate(scores, relevant), 3).tolist()    # pairs ranked the wrong way
    [0.25, 1.0]
    """
    block_size = _check_block_size(block_size)
    n_q, n_d, get_scores, get_relevant, get_exclude = _resolve_sources(
        scores, relevant, exclude, exclude_self, None)
    out = np.full(n_q, np.nan)
    step = block_size or max(1, _BLOCK_ELEMENTS // max(n_d or 1, 1))
    for start in range(0, n_q, step):
        rows = np.arange(start, min(n_q, start + step))
        S = np.asarray(_call_block(get_scores, rows, "scores"), dtype=np.float64)
        R = _call_block(get_relevant, rows, "relevant")
        R = R.toarray() if sp.issparse(R) else np.asarray(R)
        keep = np.ones(S.shape, dtype=bool)
        if get_exclude is not None:
            E = _call_block(get_exclude, rows, "exclude")
            keep &= ~(E.toarray() if sp.issparse(E) else np.asarray(E)).astype(bool)
        if exclude_self:
            keep[np.arange(rows.size), rows] = False
        R = R.astype(bool)
        for b in range(rows.size):
            rel, non = R[b] & keep[b], ~R[b] & keep[b]
            if not rel.any() or not non.any():
                continue
            neg_sorted = np.sort(S[b, non])
            # negatives strictly above each positive
            above = neg_sorted.size - np.searchsorted(neg_sorted, S[b, rel], side="right")
            out[rows[b]] = above.sum() / (rel.sum() * float(non.sum()))
    return out
