"""Okapi BM25: the ranking baseline of paper 002 (Grangier & Bengio, sec. 2.1) and a fast scorer.

The score of document d for query q is (paper 002, eq. 2)::

    sim(q, d) = sum_i q_i * idf_i * tf_{i,d} * (k1 + 1) / (tf_{i,d} + k1 * (1 - b + b * dl_d / avgdl))

with ``tf_{i,d}`` the count of term i in d, ``dl_d`` the length of d (the sum of its counts) and
``avgdl`` the mean length of the indexed documents. The query weights ``q_i`` are binary (1 if
the term occurs in the query) as in the paper, or the raw query counts (``query_weights="counts"``,
as rank_bm25 does when a query repeats a term). The paper's constants are ``k1 = K = 1.5`` and
``b = B = 0.6`` (sec. 4.1).

Everything that does not depend on the query is computed once: :class:`BM25` stores the document
side of the sum as a sparse matrix W (n_documents x n_terms), so that the scores of a query are
``W @ q``. W is kept column-major (CSC): a term's column is its posting list, and scoring a query
adds up the posting lists of its terms, which costs the total length of those lists and never
touches the rest of the index (the "eager" scoring of bm25s).

idf variants (N indexed documents, df the number of them that contain the term):

``"okapi"``
    ``log(N - df + 0.5) - log(df + 0.5)``, and every value <= 0 (a term in half of the documents
    or more) replaced by ``epsilon`` times the mean idf over the terms that occur. This is
    rank_bm25's ``BM25Okapi`` (version 0.2.2) wherever no term is in exactly half of the
    documents and the mean idf is positive (every collection of natural text but a handful of
    documents). Two of its open issues are mended: a term in exactly half of the documents has
    idf 0 there (issue 39), floored here; and where the mean idf is not positive (a few
    documents sharing their words) its floor is <= 0, so a shared word adds nothing or lowers the
    score, and an exact copy of a document can score below an unrelated one (issue 43, PR 26):
    the floor is then ``epsilon`` times the mean of the ``"lucene"`` idf, which is positive.
``"lucene"``
    ``log(1 + (N - df + 0.5) / (df + 0.5))``, never negative: Lucene's and bm25s's default, and
    the idf of :class:`learnsim.text.TextVectorizer`'s ``"bm25"`` weighting.
``"robertson"``
    ``max(0, log((N - df + 0.5) / (df + 0.5)))``: bm25s's ``"robertson"`` idf (Robertson &
    Sparck Jones' weight, clipped at zero).

A term that occurs in none of the indexed documents has idf 0 under every variant, as in
rank_bm25 and bm25s: there is no statistic for it, and it cannot match an indexed document.

bm25s leaves the constant factor ``k1 + 1`` out of its ``"lucene"`` and ``"robertson"`` scores
(it does not change rankings); learnsim keeps the paper's formula, so its scores are bm25s's
times ``k1 + 1``.

Text handling stays in :class:`learnsim.text.TextVectorizer`: :class:`BM25` takes term *counts*,
e.g. ``TextVectorizer(weighting="tf")`` output for the documents and the queries::

    vec = TextVectorizer(weighting="tf").fit(documents)
    bm25 = BM25().fit(vec.transform(documents))
    indices, scores = bm25.search(vec.transform(queries), k=10)

:func:`tune_bm25` chooses k1 and b on validation queries with relevance judgments.

References
----------
.. [1] D. Grangier and S. Bengio, "Inferring Document Similarity from Hyper-links", IDIAP
   Research Report IDIAP-RR 05-21, IDIAP, Martigny, Switzerland, 2005 (paper 002 in
   ../shared/papers).
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from learnsim._utils.params import Checked, Options, validate_param, validate_params
from learnsim._utils.progress import progress
from learnsim._utils.validation import check_matrix, check_n_features, check_state_header, check_term_counts
from learnsim.evaluation._evaluation import _parse_measures, per_query_measures
from learnsim.search import DEFAULT_BLOCK_BYTES, _check_block_param, _check_k

__all__ = ["BM25", "BM25Tuning", "TermWeightIndex", "tune_bm25", "bm25_idf", "IDF_VARIANTS", "QUERY_WEIGHTS",
           "PAPER_PARAMS", "DEFAULT_K1_GRID", "DEFAULT_B_GRID"]

IDF_VARIANTS = ("okapi", "lucene", "robertson")
QUERY_WEIGHTS = ("binary", "counts")

#: Paper 002's constants (sec. 4.1: K = 1.5, B = 0.6), also BM25's defaults.
PAPER_PARAMS = {"k1": 1.5, "b": 0.6}

#: k1 from 0.25 to 1000, 25 values a factor sqrt(2) apart. Large values matter: with k1 -> inf
#: the tf part becomes linear in tf / (1 - b + b * dl / avgdl), and on link-based similar-page
#: search k1 = 200 did best.
DEFAULT_K1_GRID = np.geomspace(0.25, 1000.0, 25)
#: b from 0 to 1 by 0.1.
DEFAULT_B_GRID = np.arange(11) / 10.0

_STATE_VERSION = 1
# Size of the sample of a score row whose k-th best bounds the row's k-th best (see _largest_k).
_SELECTION_SAMPLE = 2048
# Elements gathered per block when tuning (a few float64/int64 arrays of this length).
_TUNE_BLOCK_ELEMENTS = 2 ** 22


# ------------------------------------------------------------------------------ checks

def _check_real(value, name):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number; got {value!r}")
    return float(value)


def _check_k1(k1, name="k1"):
    k1 = _check_real(k1, name)
    if k1 < 0:
        raise ValueError(f"{name} must be >= 0 (it scales the term-frequency saturation); got {k1}")
    return k1


def _check_b(b, name="b"):
    b = _check_real(b, name)
    if not 0.0 <= b <= 1.0:
        raise ValueError(f"{name} must lie in [0, 1] (the share of length normalisation); got {b}")
    return b


def _check_idf_variant(idf):
    if not isinstance(idf, str) or idf not in IDF_VARIANTS:
        raise ValueError(f"idf must be one of {', '.join(map(repr, IDF_VARIANTS))}; got {idf!r}")
    return idf


def _check_epsilon(epsilon):
    epsilon = _check_real(epsilon, "epsilon")
    if epsilon < 0:
        raise ValueError(f"epsilon must be >= 0 (negative okapi idfs become epsilon * mean idf); got {epsilon}")
    return epsilon


def _check_query_weights(query_weights):
    if not isinstance(query_weights, str) or query_weights not in QUERY_WEIGHTS:
        raise ValueError(f"query_weights must be one of {', '.join(map(repr, QUERY_WEIGHTS))}; "
                         f"got {query_weights!r}")
    return query_weights


def _check_dtype(dtype):
    try:
        dtype = np.dtype(dtype)
    except TypeError:
        raise ValueError(f"dtype must be np.float32 or np.float64; got {dtype!r}") from None
    if dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise ValueError(f"dtype must be np.float32 or np.float64; got {dtype}")
    return dtype


def _check_grid(values, name, check_one):
    arr = np.asarray(values, dtype=object if not isinstance(values, np.ndarray) else None)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D sequence of numbers; got shape {arr.shape}")
    return np.array([check_one(v, f"{name} entry") for v in arr.tolist()], dtype=np.float64)


# ------------------------------------------------------------------------------ formulas

def bm25_idf(document_frequency, n_documents, variant="okapi", epsilon=0.25):
    """idf of each term under one of :data:`IDF_VARIANTS` (formulas in the module docstring).

    Parameters
    ----------
    document_frequency : array-like of int, shape (n_terms,)
        Number of documents containing each term (0 <= df <= n_documents).
    n_documents : int
        Number of documents N (>= 1).
    variant : {"okapi", "lucene", "robertson"}
    epsilon : float
        ``"okapi"`` only: idfs <= 0 become ``epsilon`` times the mean idf of the terms with
        df > 0 (of their ``"lucene"`` idf where that mean is not positive).

    Returns
    -------
    ndarray of float64, shape (n_terms,); 0 for terms with df = 0.

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.text.bm25 import bm25_idf
    >>> np.round(bm25_idf([1, 5, 9], 10), 3).tolist()   # "okapi": an idf <= 0 is floored
    [1.846, 0.236, 0.236]
    >>> np.round(bm25_idf([1, 2, 8], 100), 3).tolist()  # the usual case: nothing to floor
    [4.195, 3.674, 2.387]
    """
    variant = _check_idf_variant(variant)
    epsilon = _check_epsilon(epsilon)
    if (isinstance(n_documents, (bool, np.bool_)) or not isinstance(n_documents, numbers.Integral)
            or n_documents < 1):
        raise ValueError(f"n_documents must be a positive integer; got {n_documents!r}")
    df = np.asarray(document_frequency)
    if df.ndim != 1 or (df.size and df.dtype.kind not in "iuf"):
        raise ValueError(f"document_frequency must be a 1-D array of counts; got shape {df.shape}, "
                         f"dtype {df.dtype}")
    df = df.astype(np.float64)
    if df.size and (not np.isfinite(df).all() or (df < 0).any() or (df > n_documents).any()
                    or (np.mod(df, 1.0) != 0).any()):
        raise ValueError(f"document_frequency must hold integers between 0 and n_documents={n_documents}")
    n = float(n_documents)
    occurs = df > 0
    idf = np.zeros(df.shape, dtype=np.float64)
    d = df[occurs]
    if variant == "lucene":
        idf[occurs] = np.log1p((n - d + 0.5) / (d + 0.5))
    elif variant == "robertson":
        idf[occurs] = np.log(np.maximum((n - d + 0.5) / (d + 0.5), 1.0))
    else:
        # the difference of two logs, written as rank_bm25 0.2.2 writes it (same rounding)
        raw = np.log(n - d + 0.5) - np.log(d + 0.5)
        if raw.size:
            floor = epsilon * raw.mean()
            if floor <= 0:
                # a collection of a few documents sharing their words: the mean idf is not
                # positive, and rank_bm25's floor would make a shared word count for nothing or
                # less than nothing (its issues 39 and 43, PR 26): an exact copy of a document
                # found nothing. The floor is then epsilon x the mean of Lucene's idf, > 0.
                floor = epsilon * np.log1p((n - d + 0.5) / (d + 0.5)).mean()
            # <= 0: a term in exactly half of the documents counts too (rank_bm25 gives it 0)
            raw = np.where(raw <= 0, floor, raw)
        idf[occurs] = raw
    return idf


def _length_norms(lengths, avgdl, b):
    """``1 - b + b * dl / avgdl`` of each document."""
    return (1.0 - b) + b * (lengths / avgdl)


def _weights_of_counts(X, idf, avgdl, k1, b):
    """BM25 document weights (float64 CSR with the structure of ``X``) of a canonical count CSR."""
    tf = X.data
    lengths = np.asarray(X.sum(axis=1)).ravel()
    norm = np.repeat(k1 * _length_norms(lengths, avgdl, b), np.diff(X.indptr))
    W = sp.csr_matrix((idf[X.indices] * tf * (k1 + 1.0) / (tf + norm), X.indices.copy(), X.indptr.copy()),
                      shape=X.shape)
    return W


def _query_vectors(Q, query_weights, dtype):
    Q = Q.astype(dtype)
    if query_weights == "binary":
        Q.data[:] = 1.0
    return Q


# ------------------------------------------------------------------------------ estimator

class _PostingListScorer:
    """Scoring and top-k search over a document weight matrix kept as posting lists (CSC).

    Subclasses set ``document_weights_`` (CSC, see :func:`_to_csc`), ``n_documents_``,
    ``n_features_in_`` and ``query_weights``, name themselves in ``_owner`` for error messages,
    and define ``_nonnegative_weights()``.
    """

    _owner = "this index"

    def _check_fitted_counts(self, X, name):
        check_is_fitted(self, "document_weights_")
        X = check_term_counts(X, name)
        check_n_features(X, self.n_features_in_, name=name, owner=self._owner)
        return X

    # -------------------------------------------------------------- scoring
    def _score_rows(self, Q, start, stop, out):
        """Scores of queries ``start:stop`` of the count matrix ``Q`` into ``out`` (zeroed).

        Sums the posting lists (columns of W) of each query's terms. ``np.add.at`` is a single
        pass over a posting list (``scores[docs] += weights`` is three: gather, add, scatter).
        """
        W = self.document_weights_
        w_indptr, w_indices, w_data = W.indptr, W.indices, W.data
        q_indptr, q_indices, q_data = Q.indptr, Q.indices, Q.data
        binary = self.query_weights == "binary"
        for row, i in enumerate(range(start, stop)):
            scores = out[row]
            for pos in range(q_indptr[i], q_indptr[i + 1]):
                term = q_indices[pos]
                lo, hi = w_indptr[term], w_indptr[term + 1]
                if lo == hi:
                    continue
                if binary:
                    np.add.at(scores, w_indices[lo:hi], w_data[lo:hi])
                else:
                    np.add.at(scores, w_indices[lo:hi], w_data.dtype.type(q_data[pos]) * w_data[lo:hi])
        return out

    def _blocks(self, n_queries, max_block_bytes, per_score_bytes):
        budget = DEFAULT_BLOCK_BYTES if max_block_bytes is None else _check_block_param(
            max_block_bytes, "max_block_bytes")
        rows = max(1, budget // (per_score_bytes * self.n_documents_))
        return range(0, n_queries, rows), rows

    def score(self, Q):
        """Scores of every indexed document for each query (a sum of posting lists).

        Parameters
        ----------
        Q : sparse matrix or array of shape (n_queries, n_features_in_)
            Term counts of the queries (binarised when ``query_weights="binary"``).

        Returns
        -------
        ndarray of shape (n_queries, n_documents_), dtype ``dtype``
            A query without any term scores 0 everywhere.
        """
        _check_query_weights(self.query_weights)
        Q = self._check_fitted_counts(Q, "Q")
        dtype = self.document_weights_.dtype
        S = np.zeros((Q.shape[0], self.n_documents_), dtype=dtype)
        self._score_rows(Q, 0, Q.shape[0], S)
        return S

    def search(self, Q, k, *, max_block_bytes=None):
        """The ``k`` best documents for each query, scored block by block.

        Parameters
        ----------
        Q : sparse matrix or array of shape (n_queries, n_features_in_), query term counts
        k : int
            ``1 <= k <= n_documents_``.
        max_block_bytes : int, optional
            Memory for one block of scores (default 64 MiB): the full n_queries x n_documents
            score matrix never exists.

        Returns
        -------
        indices : ndarray of int64, shape (n_queries, k)
            Best first; equal scores are ordered by ascending document index (so a query that
            matches fewer than ``k`` documents is padded with the lowest-numbered others).
        scores : ndarray of shape (n_queries, k), dtype ``dtype``
        """
        _check_query_weights(self.query_weights)
        Q = self._check_fitted_counts(Q, "Q")
        k = _check_k(k, self.n_documents_, False)
        dtype = self.document_weights_.dtype
        n_queries = Q.shape[0]
        # the block of scores is the only query-sized buffer: selection works row by row
        starts, rows = self._blocks(n_queries, max_block_bytes, dtype.itemsize)
        indices = np.empty((n_queries, k), dtype=np.int64)
        scores = np.empty((n_queries, k), dtype=dtype)
        buffer = np.empty((min(rows, n_queries), self.n_documents_), dtype=dtype)
        nonnegative = self._nonnegative_weights()
        for start in progress(starts, total=len(starts), desc="search"):
            stop = min(start + rows, n_queries)
            S = buffer[:stop - start]
            S.fill(0)
            self._score_rows(Q, start, stop, S)
            _largest_k(S, k, nonnegative, indices[start:stop], scores[start:stop])
        return indices, scores



class TermWeightIndex(_PostingListScorer, BaseEstimator):
    """Fast scoring of queries against any precomputed sparse document weights.

    The scorer of :class:`BM25` for a weighting learned elsewhere, e.g.
    ``LinkLearn.transform(corpus)`` (paper 002: learned document weights, binary queries).

    Parameters
    ----------
    query_weights : {"binary", "counts"}, default="binary"
    dtype : np.float32 or np.float64, default=np.float32

    Attributes
    ----------
    document_weights_ : scipy.sparse.csc_matrix (n_documents_, n_features_in_)
    n_documents_, n_features_in_ : int
    nonnegative_ : bool
        Whether every weight is >= 0 (lets the top-k search skip unmatched documents).

    References
    ----------
    .. [1] D. Grangier and S. Bengio, "Inferring Document Similarity from Hyper-links", IDIAP
       Research Report IDIAP-RR 05-21, IDIAP, Martigny, Switzerland, 2005 (paper 002 in
       ../shared/papers).

    Examples
    --------
    Score binary queries against document weights made elsewhere (here a tf.idf):

    >>> import numpy as np
    >>> from learnsim.text import TextVectorizer
    >>> docs = ["the cat sat on the mat", "the dog sat on the log", "cats and dogs",
    ...         "a cat and a dog", "the log cabin"]
    >>> vec = TextVectorizer("tf").fit(docs)
    >>> X = vec.transform(docs)                                  # term counts
    >>> Q = vec.transform(["cat mat", "dog log"])
    >>> from learnsim.text.bm25 import TermWeightIndex
    >>> W = TextVectorizer("tfidf", norm="l2").fit(docs).transform(docs)
    >>> index = TermWeightIndex().fit(W)
    >>> index.score(Q).shape
    (2, 5)
    >>> index.search(Q, 1)[0].ravel().tolist()
    [0, 1]
    """

    _parameter_constraints = {
        "query_weights": [Options(QUERY_WEIGHTS)],
        "dtype": [Checked(_check_dtype)],
    }

    def __init__(self, query_weights="binary", dtype=np.float32):
        self.query_weights = query_weights
        self.dtype = dtype

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True            # W: any finite sparse or dense matrix
        return tags

    def fit(self, W, y=None):
        """Index the document weights W (n_documents, n_terms): any finite sparse or dense matrix."""
        # the attributes rather than get_params: subclasses (CosineIndex, PowerQueryIndex) set
        # query_weights in their own fit instead of taking it as a parameter
        for name, allowed in TermWeightIndex._parameter_constraints.items():
            validate_param(name, getattr(self, name), allowed)
        dtype = _check_dtype(self.dtype)
        W = check_matrix(W, name="W (document weights)")
        W = sp.csr_matrix(W, dtype=dtype)
        W.eliminate_zeros()
        self.n_documents_, self.n_features_in_ = W.shape
        self.document_weights_ = _to_csc(W)
        # once here, not per query: a pass over every weight costs more than scoring a query
        self.nonnegative_ = bool(W.data.min(initial=0.0) >= 0)
        return self

    def _nonnegative_weights(self):
        return self.nonnegative_


class BM25(_PostingListScorer, BaseEstimator):
    """Okapi BM25 over a document-term count matrix, with the document side computed once.

    Parameters
    ----------
    k1 : float, default=1.5
        Term-frequency saturation (paper 002's K), ``k1 >= 0``. ``k1 = 0`` scores each matching
        term by its idf alone; large ``k1`` makes the score nearly linear in tf.
    b : float, default=0.6
        Length normalisation (paper 002's B), ``0 <= b <= 1``.
    idf : {"okapi", "lucene", "robertson"}, default="okapi"
        See the module docstring.
    epsilon : float, default=0.25
        ``idf="okapi"`` only: negative idfs become ``epsilon`` times the mean idf.
    query_weights : {"binary", "counts"}, default="binary"
        Weight of a query term: 1 (the paper's binary query weights), or its count in the query.
    dtype : np.float32 or np.float64, default=np.float32
        dtype of the document weights and the scores. float32 halves the memory and time of
        scoring; float64 reproduces the reference implementations to 1e-12.

    Attributes
    ----------
    document_weights_ : scipy.sparse.csc_matrix of shape (n_documents_, n_features_in_)
        W: the score of a query vector q (:meth:`transform_queries`) against all documents is
        ``W @ q``. Entries whose weight is exactly 0 (idf 0) are not stored.
    idf_ : ndarray of float64, shape (n_features_in_,)
    document_frequency_ : ndarray of int64, shape (n_features_in_,)
    avgdl_ : float
        Mean document length (sum of counts) of the fitted documents.
    n_documents_ : int
    n_features_in_ : int
        Number of terms (columns).

    References
    ----------
    .. [1] D. Grangier and S. Bengio, "Inferring Document Similarity from Hyper-links", IDIAP
       Research Report IDIAP-RR 05-21, IDIAP, Martigny, Switzerland, 2005 (paper 002 in
       ../shared/papers).

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.text import TextVectorizer
    >>> docs = ["the cat sat on the mat", "the dog sat on the log", "cats and dogs",
    ...         "a cat and a dog", "the log cabin"]
    >>> vec = TextVectorizer("tf").fit(docs)
    >>> X = vec.transform(docs)                                  # term counts
    >>> Q = vec.transform(["cat mat", "dog log"])
    >>> from learnsim.text.bm25 import BM25
    >>> bm25 = BM25(k1=1.2, b=0.75).fit(X)
    >>> scores = bm25.score(Q)
    >>> scores.shape
    (2, 5)
    >>> scores.argmax(axis=1).tolist()
    [0, 1]
    >>> ids, top = bm25.search(Q, 2)
    >>> ids[:, 0].tolist()
    [0, 1]
    """

    _owner = "this BM25 index"

    _parameter_constraints = {
        # k1, b and epsilon: the checks (and messages) shared with tune_bm25 and bm25_idf
        "k1": [Checked(_check_k1)],
        "b": [Checked(_check_b)],
        "idf": [Options(IDF_VARIANTS)],
        "epsilon": [Checked(_check_epsilon)],
        "query_weights": [Options(QUERY_WEIGHTS)],
        "dtype": [Checked(_check_dtype)],
    }

    def __init__(self, k1=1.5, b=0.6, idf="okapi", epsilon=0.25, query_weights="binary", dtype=np.float32):
        self.k1 = k1
        self.b = b
        self.idf = idf
        self.epsilon = epsilon
        self.query_weights = query_weights
        self.dtype = dtype

    def _check_params(self):
        validate_params(self)
        return (float(self.k1), float(self.b), self.idf, float(self.epsilon), self.query_weights,
                _check_dtype(self.dtype))

    # -------------------------------------------------------------- fitting
    def __sklearn_tags__(self):
        # fit takes a sparse matrix of term counts (refused otherwise): sparse and non-negative
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        return tags

    def fit(self, X, y=None):
        """Compute idf, avgdl and the document weights W of the documents ``X``.

        Parameters
        ----------
        X : scipy.sparse matrix or array of shape (n_documents, n_terms)
            Non-negative integer term counts (float counts such as ``2.0`` are accepted).
        y : ignored

        Returns
        -------
        self
        """
        k1, b, idf_variant, epsilon, _, dtype = self._check_params()
        X = check_term_counts(X, "X")
        n_docs, n_terms = X.shape
        lengths = np.asarray(X.sum(axis=1)).ravel()
        total = float(lengths.sum())
        if total == 0:
            raise ValueError(f"every one of the {n_docs} documents in X is empty (all counts are 0); "
                             "BM25 needs at least one term occurrence")
        df = np.bincount(X.indices, minlength=n_terms).astype(np.int64)
        idf = bm25_idf(df, n_docs, idf_variant, epsilon)
        avgdl = total / n_docs
        W = _weights_of_counts(X, idf, avgdl, k1, b).astype(dtype)
        W.eliminate_zeros()  # idf-0 terms: shorter postings, same scores
        self.idf_ = idf
        self.document_frequency_ = df
        self.avgdl_ = avgdl
        self.n_documents_ = n_docs
        self.n_features_in_ = n_terms
        self.document_weights_ = _to_csc(W)
        return self

    def fit_transform(self, X, y=None):
        """Fit on ``X`` and return its document weights W as a CSR matrix."""
        return self.fit(X).document_weights_.tocsr()

    def transform(self, X):
        """BM25 document weights of (new) documents under the fitted idf and avgdl.

        ``transform_queries(Q) @ transform(X).T`` scores the queries against documents ``X``
        that were not indexed, with the statistics of the indexed collection.

        Parameters
        ----------
        X : sparse matrix or array of shape (n_docs, n_features_in_), term counts

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_docs, n_features_in_), dtype ``dtype``
        """
        k1, b, _, _, _, dtype = self._check_params()
        X = self._check_fitted_counts(X, "X")
        W = _weights_of_counts(X, self.idf_, self.avgdl_, k1, b).astype(dtype)
        W.eliminate_zeros()
        return W

    def transform_queries(self, Q):
        """Query vectors q (binary or counts, see ``query_weights``) with ``score = W @ q``.

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_queries, n_features_in_), dtype ``dtype``
        """
        _, _, _, _, query_weights, dtype = self._check_params()
        Q = self._check_fitted_counts(Q, "Q")
        return _query_vectors(Q, query_weights, dtype)

    def _nonnegative_weights(self):
        return bool(self.idf_.min(initial=0.0) >= 0)

    # -------------------------------------------------------------- persistence
    def _get_state(self):
        check_is_fitted(self, "document_weights_")
        k1, b, idf_variant, epsilon, query_weights, dtype = self._check_params()
        meta = {
            "state_version": _STATE_VERSION,
            "params": {"k1": k1, "b": b, "idf": idf_variant, "epsilon": epsilon,
                       "query_weights": query_weights, "dtype": dtype.name},
            "avgdl": float(self.avgdl_),
            "n_documents": int(self.n_documents_),
            "n_features_in": int(self.n_features_in_),
        }
        arrays = {"document_weights": self.document_weights_.tocsr(), "idf": self.idf_,
                  "document_frequency": self.document_frequency_}
        return meta, arrays

    @classmethod
    def _from_state(cls, meta, arrays):
        check_state_header("BM25", meta, arrays, _STATE_VERSION, ("params", "avgdl", "n_documents", "n_features_in"),
                           version_optional=True)
        if set(arrays) != {"document_weights", "idf", "document_frequency"}:
            raise ValueError("BM25 state must hold exactly the arrays 'document_weights', 'idf' and "
                             f"'document_frequency'; got {sorted(arrays)}")
        params = meta["params"]
        if not isinstance(params, dict) or set(params) != set(cls().get_params()):
            raise ValueError(f"BM25 state: params must be a dict with the keys {sorted(cls().get_params())}")
        obj = cls(**params)
        dtype = obj._check_params()[-1]
        obj.dtype = dtype.type  # saved as its name; back to np.float32 / np.float64 like the default
        n_docs, n_terms, avgdl = meta["n_documents"], meta["n_features_in"], meta["avgdl"]
        for name, value in (("n_documents", n_docs), ("n_features_in", n_terms)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"BM25 state: {name} must be a positive int; got {value!r}")
        if isinstance(avgdl, bool) or not isinstance(avgdl, (int, float)) or not avgdl > 0 \
                or not math.isfinite(avgdl):
            raise ValueError(f"BM25 state: avgdl must be a positive number; got {avgdl!r}")
        W = arrays["document_weights"]
        if not sp.issparse(W) or W.shape != (n_docs, n_terms):
            shape = getattr(W, "shape", None)
            raise ValueError(f"BM25 state: document_weights must be a sparse ({n_docs}, {n_terms}) matrix; "
                             f"got {type(W).__name__} of shape {shape}")
        W = sp.csr_matrix(W)
        if W.dtype.kind != "f" or not np.isfinite(W.data).all():
            raise ValueError("BM25 state: document_weights must hold finite floats")
        idf = np.asarray(arrays["idf"])
        df = np.asarray(arrays["document_frequency"])
        if idf.shape != (n_terms,) or idf.dtype.kind != "f" or not np.isfinite(idf).all():
            raise ValueError(f"BM25 state: idf must be {n_terms} finite floats; got shape {idf.shape}, "
                             f"dtype {idf.dtype}")
        if df.shape != (n_terms,) or df.dtype.kind not in "iu" or (df.size and (df.min() < 0 or df.max() > n_docs)):
            raise ValueError(f"BM25 state: document_frequency must be {n_terms} integers in [0, n_documents]")
        obj.idf_ = idf.astype(np.float64)
        obj.document_frequency_ = df.astype(np.int64)
        obj.avgdl_ = float(avgdl)
        obj.n_documents_ = n_docs
        obj.n_features_in_ = n_terms
        obj.document_weights_ = _to_csc(W.astype(dtype))
        return obj


def _top_positions(values, k):
    """Positions of the ``k`` largest of the 1-D ``values``, best first, ties by ascending position.

    The one-row case of :func:`learnsim.search._smallest_k` with a few numpy calls fewer: a
    single query's search spends most of its time here.
    """
    if k >= values.size:
        return np.argsort(-values, kind="stable")
    negated = -values
    cut = negated[np.argpartition(negated, k - 1)[:k]].max()
    better = np.flatnonzero(negated < cut)
    # argpartition may keep any of several values equal to the cut: take the lowest positions
    tied = np.flatnonzero(negated == cut)[:k - better.size]
    chosen = np.concatenate([better, tied])
    chosen.sort()
    return chosen[np.argsort(negated[chosen], kind="stable")]


def _largest_k(S, k, nonnegative, out_indices, out_scores):
    """The ``k`` largest scores of each row of ``S`` and their columns, best first, ties by
    ascending column.

    Selecting in a whole row of a large collection is the slow part of a query, so the top k are
    looked for among the documents scoring at least ``t``, a lower bound of the k-th best score:
    the k-th best of an evenly spaced sample of the row (a subset cannot have a larger k-th
    best). Those candidates include every document of the top k and every tie at its cut, and
    are usually a few hundred. When the bound is useless (``t <= 0`` with non-negative weights:
    fewer matched documents than the sample needs), the candidates are the matched documents,
    the only ones scoring above 0.
    """
    n_cols = S.shape[1]
    stride = n_cols // _SELECTION_SAMPLE
    for r, row in enumerate(S):
        top = None
        if stride >= 4 and k <= _SELECTION_SAMPLE // 4:
            # negated so that the k-th element is near the front: argpartition is slow when its
            # kth is near the end of an array with many equal values (the unmatched zeros)
            bound = -np.partition(-row[::stride], k - 1)[k - 1]
            if bound > 0 or not nonnegative:
                candidates = np.flatnonzero(row >= bound)
                if candidates.size <= n_cols // 8:
                    top = candidates[_top_positions(row[candidates], k)]
        if top is None and nonnegative:
            matched = np.flatnonzero(row > 0)
            if matched.size >= k:
                top = matched[_top_positions(row[matched], k)]
            else:
                # the rest of the top k score 0: the lowest-numbered unmatched documents
                first = matched[np.argsort(-row[matched], kind="stable")]
                top = np.concatenate([first, np.flatnonzero(row == 0)[:k - matched.size]])
        if top is None:
            top = _top_positions(row, k)
        out_indices[r] = top
        out_scores[r] = row[top]


def _to_csc(W):
    W = sp.csc_matrix(W)
    W.sort_indices()
    # int32 postings halve the index memory and speed up the gathers when they fit
    if W.nnz < 2**31 - 1 and W.shape[0] < 2**31 - 1:
        W.indices = W.indices.astype(np.int32, copy=False)
        W.indptr = W.indptr.astype(np.int32, copy=False)
    return W


# ------------------------------------------------------------------------------ tuning

@dataclass
class BM25Tuning:
    """What :func:`tune_bm25` found.

    Attributes
    ----------
    k1, b : float
        The best pair (ties go to the smaller b, then the smaller k1).
    best_score : float
        Mean of the measure over the queries with a relevant document, at (k1, b).
    table : ndarray of shape (len(b_grid), len(k1_grid))
        The mean measure at every grid point: ``table[i, j]`` is for ``b_grid[i]``, ``k1_grid[j]``.
    k1_grid, b_grid : ndarray
    measure : str
    n_queries : int
        Queries averaged over (those with at least one relevant, non-excluded document).
    n_skipped_queries : int
    estimator : BM25
        A BM25 with the best (k1, b), fitted on the tuning documents.

    Examples
    --------
    What :func:`tune_bm25` returns:

    >>> import numpy as np
    >>> from learnsim.text import TextVectorizer
    >>> docs = ["the cat sat on the mat", "the dog sat on the log", "cats and dogs",
    ...         "a cat and a dog", "the log cabin"]
    >>> vec = TextVectorizer("tf").fit(docs)
    >>> X = vec.transform(docs)                                  # term counts
    >>> Q = vec.transform(["cat mat", "dog log"])
    >>> from learnsim.text.bm25 import tune_bm25
    >>> relevance = np.array([[1, 0, 0, 0, 0], [0, 1, 0, 0, 1]], dtype=bool)
    >>> tuning = tune_bm25(X, Q, relevance, k1_grid=[0.5, 1.2], b_grid=[0.0, 0.75])
    >>> tuning.table.shape, tuning.n_queries
    ((2, 2), 2)
    >>> type(tuning.estimator).__name__
    'BM25'
    """

    k1: float
    b: float
    best_score: float
    table: np.ndarray
    k1_grid: np.ndarray
    b_grid: np.ndarray
    measure: str
    n_queries: int
    n_skipped_queries: int
    estimator: BM25 = field(repr=False)

    def as_rows(self):
        """The table as a list of dicts ``{"k1", "b", <measure>}``, e.g. for pandas."""
        return [{"k1": float(k1), "b": float(b), self.measure: float(self.table[i, j])}
                for i, b in enumerate(self.b_grid) for j, k1 in enumerate(self.k1_grid)]


def _matrix_rows(M, start, stop):
    block = M[start:stop]
    return block.toarray() if sp.issparse(block) else block


def _check_judgments(M, name, shape):
    if M is None:
        raise ValueError(f"{name} is None; expected a boolean (n_queries, n_documents) matrix")
    if sp.issparse(M):
        M = sp.csr_matrix(M)
    else:
        M = np.asarray(M)
        if M.ndim != 2:
            raise ValueError(f"{name} must be a 2-D boolean matrix (n_queries, n_documents); got shape {M.shape}")
    if M.shape != shape:
        raise ValueError(f"{name} has shape {M.shape}, but there are {shape[0]} queries and {shape[1]} "
                         "documents; it must be (n_queries, n_documents)")
    return M


def tune_bm25(X, queries, relevance, *, k1_grid=None, b_grid=None, measure="average_precision",
              idf="okapi", epsilon=0.25, query_weights="binary", exclude=None, dtype=np.float32):
    """Choose BM25's k1 and b on validation queries with relevance judgments (grid search).

    Every grid point is exact: the scores are those of ``BM25(k1, b, ...).fit(X).score(queries)``
    (in float64). The work that does not depend on (k1, b) is done once per block of queries: the
    posting entries (query, document, tf, idf, document length) that a query touches are gathered,
    and each grid point only re-evaluates the tf part on them.

    Parameters
    ----------
    X : sparse matrix or array of shape (n_documents, n_terms)
        Term counts of the documents to rank.
    queries : sparse matrix or array of shape (n_queries, n_terms)
        Term counts of the validation queries.
    relevance : bool array or sparse matrix of shape (n_queries, n_documents)
        ``relevance[i, j]`` is True when document j is relevant to query i.
    k1_grid : sequence of float, optional
        Default :data:`DEFAULT_K1_GRID` (0.25 to 1000, log scale).
    b_grid : sequence of float, optional
        Default :data:`DEFAULT_B_GRID` (0, 0.1, ..., 1).
    measure : str, default="average_precision"
        A retrieval measure of :func:`learnsim.evaluation.per_query_measures` ("ap", "ap11",
        "r_precision", "p@10", ...); higher is better.
    idf, epsilon, query_weights
        As in :class:`BM25`.
    exclude : bool array or sparse matrix of shape (n_queries, n_documents), optional
        Documents left out of a query's ranking, e.g. the query's own page when the queries are
        indexed documents.
    dtype : dtype of the returned fitted estimator.

    Returns
    -------
    BM25Tuning

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.text import TextVectorizer
    >>> docs = ["the cat sat on the mat", "the dog sat on the log", "cats and dogs",
    ...         "a cat and a dog", "the log cabin"]
    >>> vec = TextVectorizer("tf").fit(docs)
    >>> X = vec.transform(docs)                                  # term counts
    >>> Q = vec.transform(["cat mat", "dog log"])
    >>> from learnsim.text.bm25 import tune_bm25
    >>> relevance = np.array([[1, 0, 0, 0, 0], [0, 1, 0, 0, 1]], dtype=bool)
    >>> tuning = tune_bm25(X, Q, relevance, k1_grid=[0.5, 1.2], b_grid=[0.0, 0.75])
    >>> tuning.k1 in (0.5, 1.2), tuning.b in (0.0, 0.75)
    (True, True)
    >>> bool(0.0 <= tuning.best_score <= 1.0)
    True
    """
    idf = _check_idf_variant(idf)
    epsilon = _check_epsilon(epsilon)
    query_weights = _check_query_weights(query_weights)
    _check_dtype(dtype)
    if not isinstance(measure, str):
        raise TypeError(f"measure must be the name of one retrieval measure; got {measure!r}")
    canon, _ = _parse_measures((measure,))[measure]
    if canon == "iprec":
        raise ValueError("measure 'iprec' is a curve, not a number; use e.g. 'ap11'")
    k1_grid = _check_grid(DEFAULT_K1_GRID if k1_grid is None else k1_grid, "k1_grid", _check_k1)
    b_grid = _check_grid(DEFAULT_B_GRID if b_grid is None else b_grid, "b_grid", _check_b)

    X = check_term_counts(X, "X")
    Q = check_term_counts(queries, "queries")
    n_docs, n_terms = X.shape
    check_n_features(Q, n_terms, name="queries", owner="the documents X")
    n_queries = Q.shape[0]
    relevance = _check_judgments(relevance, "relevance", (n_queries, n_docs))
    if exclude is not None:
        exclude = _check_judgments(exclude, "exclude", (n_queries, n_docs))

    lengths = np.asarray(X.sum(axis=1)).ravel()
    if lengths.sum() == 0:
        raise ValueError(f"every one of the {n_docs} documents in X is empty (all counts are 0); "
                         "BM25 needs at least one term occurrence")
    avgdl = float(lengths.sum()) / n_docs
    df = np.bincount(X.indices, minlength=n_terms)
    idf_values = bm25_idf(df, n_docs, idf, epsilon)
    Xc = X.tocsc()
    Xc.sort_indices()
    posting_length = np.diff(Xc.indptr)
    Qw = _query_vectors(Q, query_weights, np.float64)

    # query blocks: the gathered postings plus one dense row of scores per query within budget
    touched = np.add.reduceat(posting_length[Qw.indices], Qw.indptr[:-1]) if Qw.nnz else np.zeros(n_queries)
    touched = np.where(np.diff(Qw.indptr) > 0, touched, 0).astype(np.int64)
    cost = np.cumsum(touched + n_docs)
    blocks, start = [], 0
    while start < n_queries:
        base = cost[start - 1] if start else 0
        stop = max(start + 1, int(np.searchsorted(cost, base + _TUNE_BLOCK_ELEMENTS, side="right")))
        blocks.append((start, min(stop, n_queries)))
        start = stop

    sums = np.zeros((b_grid.size, k1_grid.size))
    n_defined = 0
    bar = progress(total=len(blocks) * b_grid.size * k1_grid.size, desc="BM25 tuning")
    try:
        for start, stop in blocks:
            target, weight, tf, ndl = _gather_postings(Qw, start, stop, Xc, idf_values, lengths / avgdl, n_docs)
            relevant = _matrix_rows(relevance, start, stop)
            excluded = None if exclude is None else _matrix_rows(exclude, start, stop)
            size = (stop - start) * n_docs
            weighted_tf = weight * tf
            defined = None
            for i, b in enumerate(b_grid):
                norm = (1.0 - b) + b * ndl
                for j, k1 in enumerate(k1_grid):
                    contribution = weighted_tf * (k1 + 1.0) / (tf + k1 * norm)
                    S = np.bincount(target, weights=contribution, minlength=size).reshape(stop - start, n_docs)
                    values = per_query_measures(S, relevant, exclude=excluded, measures=(measure,))[measure]
                    if defined is None:
                        # which queries have a relevant document does not depend on (k1, b)
                        defined = ~np.isnan(values)
                    sums[i, j] += values[defined].sum()
                    bar.update(1)
            n_defined += int(defined.sum())
    finally:
        bar.close()
    if n_defined == 0:
        raise ValueError(f"none of the {n_queries} queries has a relevant document; the measure "
                         f"{measure!r} is undefined and nothing can be tuned")
    table = sums / n_defined
    best = int(np.argmax(table))
    bi, kj = np.unravel_index(best, table.shape)
    estimator = BM25(k1=float(k1_grid[kj]), b=float(b_grid[bi]), idf=idf, epsilon=epsilon,
                     query_weights=query_weights, dtype=dtype).fit(X)
    return BM25Tuning(k1=float(k1_grid[kj]), b=float(b_grid[bi]), best_score=float(table[bi, kj]),
                      table=table, k1_grid=k1_grid, b_grid=b_grid, measure=measure,
                      n_queries=n_defined, n_skipped_queries=n_queries - n_defined, estimator=estimator)


def _gather_postings(Qw, start, stop, Xc, idf, normalised_lengths, n_docs):
    """The posting entries touched by queries ``start:stop``, as flat arrays.

    Returns ``target`` (query-in-block * n_docs + document), ``weight`` (query weight * idf),
    ``tf`` and ``ndl`` (document length / avgdl) of each entry.
    """
    lo, hi = Qw.indptr[start], Qw.indptr[stop]
    terms = Qw.indices[lo:hi]
    q_weight = Qw.data[lo:hi]
    rows = np.repeat(np.arange(stop - start, dtype=np.int64), np.diff(Qw.indptr[start:stop + 1]))
    first = Xc.indptr[terms].astype(np.int64)
    count = (Xc.indptr[terms + 1] - Xc.indptr[terms]).astype(np.int64)
    total = int(count.sum())
    offsets = np.cumsum(count) - count
    positions = np.arange(total, dtype=np.int64) + np.repeat(first - offsets, count)
    docs = Xc.indices[positions].astype(np.int64)
    target = docs + np.repeat(rows * n_docs, count)
    weight = np.repeat(q_weight * idf[terms], count)
    return target, weight, Xc.data[positions], normalised_lengths[docs]
