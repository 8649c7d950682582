"""A learned term weighting that contains Okapi BM25 exactly and transfers across collections
(issue 13, section 2).

The score of document d for query q is

    sim(q, d) = sum_t qtf_t^c * idf_t^a * tf (k + 1) / (tf + k (1 - b + b l_d / avgdl)),
    k = k1 * (avgdl / L0)^g,

with tf the count of t in d, l_d the length of d (sum of its counts), avgdl the mean length of
the indexed collection, idf the BM25 idf of :func:`learnsim.bm25.bm25_idf` (``"okapi"`` by
default) and L0 a fixed reference length (``reference_length``, 100 terms). Five numbers are
learned: k1 (tf saturation), g (how the saturation constant follows the collection's mean
length), b (length normalisation), a (an exponent on idf) and c (an exponent on query term
counts: c = 0 binary queries, c = 1 raw counts).

Why this family, and not paper 002's eq. (5)
--------------------------------------------
Eq. (5) (``learnsim.linklearn.LinkLearn``, kept as the paper's variant) multiplies f_tf(tf) by
f_l(l): its saturation cannot depend on the length, so on short abstracts the transferred
weighting is close to a sum of matched idf (docs/reproductions/linklearn.md). Here the saturation
constant scales with l_d / avgdl and with the collection's avgdl, and Okapi BM25 is exactly the
member g = 0, a = 1, c = 0 (``LearnedBM25.from_params(k1, b)`` scores as ``BM25(k1, b)`` to
rounding). Every parameter is a number one can read and compare with BM25's; the curves are
drawn by :func:`plot_weighting_curves`.

How it is trained
-----------------
From hyperlinks as LinkLearn is (paper 002, sec. 3.1): each linked training article is a query
whose relevant documents are the articles it links with (direction ignored, itself excluded).
Two changes make the length dependence learnable and the queries query-like:

* the documents are *thinned copies* of the articles (each occurrence kept with probability r,
  one copy per r in ``document_fractions``): every copy is a collection with its own mean length,
  so g is identified (with one collection, k1 and g cannot be told apart);
* within a copy each article's rate is r times a factor drawn log-uniformly in
  [1 / length_spread, length_spread] (capped at 1): lengths then vary independently of the links,
  as verbosity does. On Wikispeedia long articles are also the most linked ones, and without
  this spread the search learns almost no length normalisation (b 0.29 instead of 0.54);
* each query is a random sample of ``query_length`` occurrences of its article (without
  replacement), so that frequent terms repeat in it as they do in real queries.

The objective is the mean average precision over the copies, optimised *directly* by a
coordinate search on the five parameters (a hinge surrogate did not land on the best AvgP in a
prototype). The AvgP of the held-out validation links is recorded in ``validation_ap_``.

Never below BM25 (:mod:`learnsim.baseline`)
-------------------------------------------
``fit`` keeps back ``baseline_holdout`` of the articles with their links (links across the split
dropped), searches on the rest, and builds the same thinned copies and sampled queries from the
held-out articles: each held-out article with a held-out link is a unit, scored by its AvgP
(mean over the copies) under the learned parameters and under Okapi BM25 with the defaults
(k1 = 1.5, b = 0.6, binary queries: the search's starting point, a member of the family). Unless
the learned parameters win clearly (the interval of the held-out gain lies above zero,
:func:`learnsim.baseline.compare`), ``params_`` *is* BM25 with the defaults, so ``transform``,
``score`` and ``index`` score exactly as :class:`learnsim.bm25.BM25` ``(1.5, 0.6)``, and a
:class:`learnsim.baseline.BaselineWarning` says so. The report is ``baseline_gain_``.

Before that check, ``shrink="one-se"`` chooses on the same held-out articles how far to move from
BM25 with the defaults: the members at 0, 0.25, 0.5, 0.75 and 1 of the way to the search's point
(k1 on a log scale, fixed parameters kept) are scored there, and the smallest share whose AvgP
lies within one standard error of the best share's is kept (``shrinkage_``, ``shrinkage_path_``):
a departure the held-out links cannot tell from a smaller one is not taken. On Wikispeedia the
held-out AvgP rises up to the search's point (0.184 to 0.210, the last step 0.0018 against a
standard error of 0.0009), so the whole point is kept (``benchmarks/transfer_user_path.py``).

In-domain and transferable
--------------------------
Paper 002's eq. (5) (:class:`learnsim.linklearn.LinkLearn`, ``variant_ == "paper"``) is the
in-domain model: it warns when applied to a collection far from its training one. This family
(``variant_ == "bm25"``) is the transferable one: transferred from Wikispeedia without retraining
it reaches 1.02x the tf.idf cosine on CISI and 0.98x on Cranfield, where eq. (5) reaches 0.59x and
0.91x; on the Wikispeedia test third itself eq. (5) is the stronger, AvgP 0.418 against 0.386
(``benchmarks/bench_weighting_transfer.py``).

References
----------
.. [1] D. Grangier and S. Bengio, "Inferring Document Similarity from Hyper-links", IDIAP
   Research Report IDIAP-RR 05-21, IDIAP, Martigny, Switzerland, 2005 (paper 002 in
   ../shared/papers).
"""
from __future__ import annotations

import numbers
import time
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from .._utils.params import Checked, Interval, Options, validate_params
from .._utils.validation import check_n_features, check_random_state, check_term_counts, state_number
from ..baseline import DEFAULT_HOLDOUT, BaselineGain, check_holdout, compare, unchecked
from ..text.bm25 import IDF_VARIANTS, PAPER_PARAMS, TermWeightIndex, bm25_idf
from ._linklearn import LinkedTermCountsTags, _as_links, holdout_documents, linked_pairs

__all__ = ["LearnedBM25", "PowerQueryIndex", "PARAMETER_NAMES", "PARAMETER_BOUNDS", "plot_weighting_curves"]

#: The five learned numbers, in the order of ``LearnedBM25.params_``.
PARAMETER_NAMES = ("k1", "k1_length_exponent", "b", "idf_exponent", "query_exponent")
#: Bounds of the search (inclusive).
PARAMETER_BOUNDS = {"k1": (0.01, 1000.0), "k1_length_exponent": (-2.0, 2.0), "b": (0.0, 1.0),
                    "idf_exponent": (0.0, 3.0), "query_exponent": (0.0, 2.0)}
#: The search starts at BM25 with the project's defaults and binary queries.
START = {"k1": PAPER_PARAMS["k1"], "k1_length_exponent": 0.0, "b": PAPER_PARAMS["b"], "idf_exponent": 1.0,
         "query_exponent": 0.0}
#: The baseline of the family (its member START) and what it falls back to.
BASELINE_NAME = "Okapi BM25, k1 = 1.5, b = 0.6"
#: The shrinkage factors tried on the held-out articles, from BM25 (0) to the search's point (1).
SHRINKAGE_GRID = (0.0, 0.25, 0.5, 0.75, 1.0)
SHRINK_OPTIONS = ("one-se",)
# initial steps of the coordinate search (k1 moves on a log scale)
_STEPS = {"k1": np.log(4.0), "k1_length_exponent": 0.5, "b": 0.25, "idf_exponent": 0.5, "query_exponent": 0.5}


# --------------------------------------------------------------------------- checks
def _real(name, value):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite number; got {value!r}")
    return float(value)


def _check_parameters(params):
    """The five parameters as a dict of floats within ``PARAMETER_BOUNDS``, or a ValueError."""
    unknown = set(params) - set(PARAMETER_NAMES)
    if unknown:
        raise ValueError(f"unknown weighting parameter(s) {sorted(unknown)}; expected {list(PARAMETER_NAMES)}")
    out = {}
    for name in PARAMETER_NAMES:
        value = _real(name, params.get(name, START[name]))
        lo, hi = PARAMETER_BOUNDS[name]
        if not lo <= value <= hi and not (name == "k1" and value == 0):
            raise ValueError(f"{name} must lie in [{lo:g}, {hi:g}]; got {value!r}")
        out[name] = value
    return out


def _signed_power(x, p):
    if p == 1.0:
        return x
    return np.sign(x) * np.abs(x) ** p


def _query_power(data, c):
    if c == 0.0:
        return np.ones_like(data)
    return data if c == 1.0 else data ** c


def _tf_part(tf, normalised_length, avgdl, params, reference_length):
    """tf (k + 1) / (tf + k (1 - b + b l / avgdl)), k = k1 (avgdl / L0)^g."""
    k = params["k1"] * (avgdl / reference_length) ** params["k1_length_exponent"]
    b = params["b"]
    return tf * (k + 1.0) / (tf + k * ((1.0 - b) + b * normalised_length))


# --------------------------------------------------------------------------- scorer
def _shrunk(point, lam, fixed):
    """The member ``lam`` of the way from BM25 with the defaults (``START``, 0) to ``point`` (1):
    k1 on a log scale, the other parameters linearly; ``fixed`` parameters keep their values."""
    out = {}
    for name in PARAMETER_NAMES:
        if name in fixed:
            out[name] = point[name]
        elif name == "k1":
            out[name] = float(np.exp(np.log(START[name]) + lam * (np.log(point[name]) - np.log(START[name]))))
        else:
            out[name] = float(START[name] + lam * (point[name] - START[name]))
    return out


def _one_se_shrinkage(per_lambda):
    """The smallest shrinkage whose held-out AvgP is within one standard error of the best one's
    (the paired difference over the articles both score): ``(lambda, table)``, the table's rows
    (lambda, mean AvgP, gap to the best, standard error of that gap)."""
    lams = sorted(per_lambda)
    finite = np.all([np.isfinite(per_lambda[lam]) for lam in lams], axis=0)
    means = {lam: float(np.mean(per_lambda[lam][finite])) if finite.any() else float("nan") for lam in lams}
    best = max(lams, key=lambda lam: (means[lam], lam))
    rows, chosen = [], None
    for lam in lams:
        diff = per_lambda[best][finite] - per_lambda[lam][finite]
        se = float(np.std(diff, ddof=1) / np.sqrt(diff.size)) if diff.size > 1 else 0.0
        gap = float(np.mean(diff)) if diff.size else 0.0
        rows.append([lam, means[lam], gap, se])
        if chosen is None and gap <= se:
            chosen = lam
    return (best if chosen is None else chosen), np.asarray(rows, dtype=np.float64)


def _check_statistics(statistics, n_terms):
    """(document frequencies, number of documents, avgdl) of a collection_statistics dict."""
    try:
        df = np.asarray(statistics["document_frequency"])
        n = int(np.asarray(statistics["n_documents"]))
        avgdl = float(np.asarray(statistics["avgdl"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"statistics must be a dict of document_frequency, n_documents and avgdl "
                         f"(LearnedBM25.collection_statistics); {exc}") from None
    if df.shape != (n_terms,) or df.dtype.kind not in "iu" or (df < 0).any() or n < 1 or (df > n).any():
        raise ValueError(f"statistics['document_frequency'] must hold {n_terms} counts in [0, n_documents]")
    if not (np.isfinite(avgdl) and avgdl > 0):
        raise ValueError(f"statistics['avgdl'] must be a positive number; got {avgdl}")
    return df, n, avgdl


def _fractions(value):
    """``document_fractions`` as a 1-D float array of numbers in (0, 1], or a ValueError."""
    fractions = np.atleast_1d(np.asarray(value, dtype=np.float64)) if not isinstance(value, str) \
        else np.array([np.nan])
    if fractions.ndim != 1 or fractions.size == 0 or not np.all((fractions > 0) & (fractions <= 1)):
        raise ValueError(f"document_fractions must be a non-empty sequence of numbers in (0, 1]; got {value!r}")
    return fractions


def _query_length(ql):
    """``query_length`` as None or a pair of ints ``1 <= lo <= hi``, or a ValueError."""
    if ql is None:
        return None
    if (not isinstance(ql, (tuple, list)) or len(ql) != 2
            or not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in ql)
            or not 1 <= ql[0] <= ql[1]):
        raise ValueError(f"query_length must be None or a pair of integers 1 <= lo <= hi; got {ql!r}")
    return int(ql[0]), int(ql[1])


def _check_fixed(fixed):
    """``fixed``: None or a dict of weighting parameters within their bounds, or a ValueError."""
    if fixed is None:
        return
    if not isinstance(fixed, dict):
        raise ValueError(f"fixed must be None or a dict of parameter values; got {fixed!r}")
    _check_parameters(fixed)


class PowerQueryIndex(TermWeightIndex):
    """:class:`learnsim.bm25.TermWeightIndex` whose query weights are ``count ** query_exponent``
    (0: binary, 1: raw counts), the query side of :class:`LearnedBM25`.

    Examples
    --------
    Document weights from anywhere (here the counts themselves); the queries' counts are raised
    to ``query_exponent`` (0: each query term counts once):

    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from learnsim.linklearn import PowerQueryIndex
    >>> W = sp.csr_matrix(np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 3.0]]))
    >>> index = PowerQueryIndex(query_exponent=0.0).fit(W)
    >>> index.score(sp.csr_matrix(np.array([[5, 1, 0]]))).tolist()
    [[3.0, 1.0]]
    """

    # its own: TermWeightIndex's query_weights is set by fit from query_exponent
    _parameter_constraints = {
        "query_exponent": [Interval(Real, 0, None)],
        "dtype": ["no_validation"],            # checked by TermWeightIndex.fit
    }

    def __init__(self, query_exponent=1.0, dtype=np.float32):
        self.query_exponent = query_exponent
        self.dtype = dtype

    def fit(self, W, y=None):
        validate_params(self)
        self.query_weights = "binary" if float(self.query_exponent) == 0 else "counts"
        return super().fit(W)

    def _check_fitted_counts(self, X, name):
        X = super()._check_fitted_counts(X, name)
        c = float(self.query_exponent)
        if name == "Q" and c not in (0.0, 1.0):
            X = X.copy()
            X.data = _query_power(X.data, c)
        return X


# --------------------------------------------------------------------------- training data
#: Scores held at once while a copy is evaluated: its queries times a block of documents.
_SCORE_BLOCK_ELEMENTS = 2**21


class _Copy:
    """One training collection: queries sampled from articles against thinned articles.

    Why blocks of documents: the scores of every query against every document (and, before,
    the posting entries summed into them, several times more), kept for every copy, made the
    fit's memory grow with the collection, gigabytes at tens of thousands of documents. AvgP
    needs only the rank of each relevant document, i.e. how many documents beat it. So a copy keeps its documents' counts in blocks, scores one
    block at a time (``n_queries x block_docs``) and adds to each (query, relevant document)
    pair the number of the block's documents ranked above it. Ranks, ties (by ascending index),
    exclusions and the AvgP formula are those of :func:`learnsim.evaluation.per_query_measures`
    on the whole matrix, and every score is summed in the same order (each query's terms in
    turn, whichever block), so the AvgP values are the same.
    """

    def __init__(self, D, Qc, relevant, exclude, idf_variant, epsilon, block_docs=None):
        D = sp.csr_matrix(D)
        n_docs, n_terms = D.shape
        lengths = np.asarray(D.sum(axis=1)).ravel()
        self.avgdl = max(float(lengths.sum()) / n_docs, 1e-12)
        df = np.bincount(D.indices, minlength=n_terms)
        self.Q = sp.csr_matrix(Qc, dtype=np.float64, copy=True)
        self.idf = bm25_idf(df, n_docs, idf_variant, epsilon)[self.Q.indices]
        self.shape = (self.Q.shape[0], n_docs)
        self.ndl = lengths / self.avgdl
        if block_docs is None:
            block_docs = max(1, _SCORE_BLOCK_ELEMENTS // max(self.shape[0], 1))
        self.block_docs = int(block_docs)
        # (query, document) pairs: the relevant ones less the excluded, and the excluded
        relevant = sp.csr_matrix(relevant, dtype=bool).astype(np.int8)
        exclude = sp.csr_matrix(exclude, dtype=bool).astype(np.int8)
        kept = (relevant - relevant.multiply(exclude)).tocoo()
        kept.eliminate_zeros()
        order = np.lexsort((kept.col, kept.row))
        self.rel_query = kept.row[order].astype(np.int64)
        self.rel_doc = kept.col[order].astype(np.int64)
        self.n_relevant = np.bincount(self.rel_query, minlength=self.shape[0])
        ex = exclude.tocoo()
        self.ex_query, self.ex_doc = ex.row.astype(np.int64), ex.col.astype(np.int64)
        # terms x documents per block: the CSR a query-by-query product walks term by term
        self.blocks = [self._block(D, np.arange(start, min(start + self.block_docs, n_docs)))
                       for start in range(0, n_docs, self.block_docs)]
        # the relevant documents alone, whose scores every block is compared with
        targets = np.unique(self.rel_doc)
        self.target_docs = targets
        self.target_blocks = [self._block(D, targets[i:i + self.block_docs])
                              for i in range(0, targets.size, self.block_docs)]

    def _block(self, D, docs):
        B = D[docs].T.tocsr()
        B.sort_indices()
        return docs, B

    def _weighted(self, blocks, Qw, params, reference_length):
        for docs, B in blocks:
            W = sp.csr_matrix((_tf_part(B.data, self.ndl[docs[B.indices]], self.avgdl, params, reference_length),
                               B.indices, B.indptr), shape=B.shape)
            # scipy's CSR product sums each (query, document) over the query's terms in order,
            # the order the former whole-matrix bincount summed them in
            yield docs, (Qw @ W).toarray()

    def _query_weights(self, params):
        Qw = self.Q.copy()
        # qtf^c idf^a first, then times the tf part: the former product's association
        Qw.data = _query_power(self.Q.data, params["query_exponent"]) * _signed_power(self.idf, params["idf_exponent"])
        return Qw

    def scores(self, params, reference_length):
        """The whole (n_queries, n_docs) score matrix (small collections and tests only)."""
        Qw = self._query_weights(params)
        return np.hstack([S for _, S in self._weighted(self.blocks, Qw, params, reference_length)])

    def mean_ap(self, params, reference_length):
        ap = self.per_query_ap(params, reference_length)
        return float(np.nanmean(ap)) if np.isfinite(ap).any() else float("nan")

    def per_query_ap(self, params, reference_length):
        """Each query's AvgP (NaN for a query without a relevant document in this copy)."""
        rq, rd = self.rel_query, self.rel_doc
        Qw = self._query_weights(params)
        value = np.empty(rq.size)
        for docs, S in self._weighted(self.target_blocks, Qw, params, reference_length):
            inside = (rd >= docs[0]) & (rd <= docs[-1])
            value[inside] = S[rq[inside], np.searchsorted(docs, rd[inside])]
        above = np.zeros(rq.size, dtype=np.int64)
        for docs, S in self._weighted(self.blocks, Qw, params, reference_length):
            start, width = int(docs[0]), S.shape[1]
            inside = (self.ex_doc >= start) & (self.ex_doc < start + width)
            S[self.ex_query[inside], self.ex_doc[inside] - start] = -np.inf      # out of the ranking
            here = np.flatnonzero((rd >= start) & (rd < start + width))
            # ties with a document of this block go by index: those rows, before they are sorted
            local = S[rq[here]]
            S.sort(axis=1)
            greater, tied = _count_above(S, rq, value)
            above += greater
            # a tied document of this block ranks above a relevant one of a later block
            later = rd >= start + width
            above[later] += tied[later]
            if here.size:
                lower = np.arange(width) < (rd[here] - start)[:, None]
                above[here] += ((local == value[here, None]) & lower).sum(axis=1)
        return _average_precision(rq, above + 1, self.n_relevant)


def _count_above(S, rows, values):
    """For each pair (row, value): how many entries of the ascending row ``S[row]`` are greater
    than the value and how many equal it (binary searches on every pair at once)."""
    width = S.shape[1]

    def search(strict):
        lo = np.zeros(rows.size, dtype=np.int64)
        hi = np.full(rows.size, width, dtype=np.int64)
        active = lo < hi
        while active.any():
            mid = (lo + hi) // 2
            v = S[rows, np.minimum(mid, width - 1)]
            right = active & ((v <= values) if strict else (v < values))
            lo = np.where(right, mid + 1, lo)
            hi = np.where(active & ~right, mid, hi)
            active = lo < hi
        return lo

    after = search(strict=True)            # the first entry greater than the value
    return width - after, after - search(strict=False)


def _average_precision(rows, ranks, n_relevant):
    """AvgP of each query from the ranks of its relevant documents (NaN without one), the
    formula of :func:`learnsim.evaluation.per_query_measures`."""
    order = np.lexsort((ranks, rows))
    rows, ranks = rows[order], ranks[order]
    first = np.concatenate(([0], np.cumsum(n_relevant)[:-1]))
    m = np.arange(rows.size) - first[rows] + 1
    ap = np.bincount(rows, weights=m / ranks, minlength=n_relevant.size) / np.where(n_relevant > 0, n_relevant, 1)
    return np.where(n_relevant > 0, ap, np.nan)


def _thin(X, fraction, rng, spread=1.0):
    """Each occurrence kept with probability ``fraction`` times a per-document factor drawn
    log-uniformly from [1 / spread, spread] (at most 1): lengths that vary independently of the
    links, as verbosity does."""
    if spread > 1.0:
        factor = np.exp(rng.uniform(-np.log(spread), np.log(spread), X.shape[0]))
        rate = np.minimum(1.0, fraction * factor)
    else:
        rate = np.full(X.shape[0], min(1.0, fraction))
    if np.all(rate >= 1.0):
        return X.copy()
    T = X.copy()
    per_entry = np.repeat(rate, np.diff(T.indptr))
    T.data = rng.binomial(np.rint(T.data).astype(np.int64), per_entry).astype(np.float64)
    T.eliminate_zeros()
    return T


def _sample_queries(X, rows, query_length, rng):
    """Each chosen article as a query: all its counts, or ``n`` occurrences drawn without
    replacement with n uniform in ``query_length`` (lo, hi)."""
    Q = X[rows].tocsr().astype(np.float64)
    if query_length is None:
        return Q
    lo, hi = query_length
    data = Q.data.copy()
    for i in range(Q.shape[0]):
        a, z = Q.indptr[i], Q.indptr[i + 1]
        counts = np.rint(data[a:z]).astype(np.int64)
        n = min(int(rng.integers(lo, hi + 1)), int(counts.sum()))
        data[a:z] = rng.multivariate_hypergeometric(counts, n) if n > 0 else 0
    Q.data = data
    Q.eliminate_zeros()
    return Q


def _per_article_ap(copies, params, reference_length):
    """Each query article's AvgP averaged over the copies (NaN where no copy scores it)."""
    ap = np.vstack([c.per_query_ap(params, reference_length) for c in copies])
    counted = np.isfinite(ap).sum(axis=0)
    total = np.where(np.isfinite(ap), ap, 0.0).sum(axis=0)
    return np.where(counted > 0, total / np.maximum(counted, 1), np.nan)


def _as_adjacency(links, n, name):
    """The symmetric adjacency of ``links`` over ``n`` documents (LinkLearn's checks)."""
    return _as_links(links, n, name).symmetric().adjacency.tocsr()


class LearnedBM25(LinkedTermCountsTags, BaseEstimator):
    """A five-parameter term weighting containing Okapi BM25, learned from hyperlinks by direct
    optimisation of average precision (module docstring: the family, its training, and why).

    One estimator, not a ``LinkLearn`` variant: the parameters are few and interpretable, the
    training is a search on AvgP (no gradient), and the fitted object is a BM25-like scorer of any
    collection (``index``, ``score``). ``from_params`` gives any member without training, so
    ``LearnedBM25.from_params(k1=1.5, b=0.6)`` is :class:`learnsim.bm25.BM25` ``(1.5, 0.6)``.

    Parameters
    ----------
    document_fractions : sequence of float in (0, 1], default=(1.0, 0.2, 0.05, 0.02)
        One thinned copy of the training articles per fraction (the collections trained on).
    length_spread : float >= 1, default=4.0
        Within a copy, each document's fraction is multiplied by a factor drawn log-uniformly
        from [1 / length_spread, length_spread] (capped at 1), so that a document's length varies
        independently of its links (verbosity); 1 thins every document alike.
    query_length : (int, int) or None, default=(8, 60)
        Range of the number of occurrences sampled from an article to form its query; None uses
        the whole article.
    max_queries : int, default=600
        Linked articles used as queries (a random subset when there are more).
    reference_length : float, default=100.0
        L0 of k = k1 (avgdl / L0)^g.
    idf : {"okapi", "lucene", "robertson"}, default="okapi"
    epsilon : float, default=0.25
        As in :class:`learnsim.bm25.BM25`.
    max_evaluations : int, default=200
        Budget of objective evaluations (each one scores every query of every copy).
    fixed : dict, optional
        Parameters held at the given values instead of learned, e.g. ``{"idf_exponent": 1.0}``
        to keep BM25's idf (the search starts there and never moves them).
    baseline_holdout : float in (0, 1) or None, default=0.2
        Share of the articles kept back, with their links, to measure the learned parameters
        against BM25 with the defaults (module notes); the search runs on the rest. None skips
        the check (``baseline_gain_`` is None) and searches on every article.
    shrink : {"one-se"} or None, default="one-se"
        How far the parameters move from BM25's defaults, chosen on the held-out articles
        (``baseline_holdout``): the members of the way from BM25 (0) to the search's point (1)
        at the factors ``SHRINKAGE_GRID`` are scored there, and the smallest factor whose
        held-out AvgP lies within one standard error of the best factor's is kept (the one
        standard error rule: a departure from BM25 that the held-out links cannot tell from a
        smaller one is not taken; module notes). None keeps the search's point.
    random_state : int, Generator or None, default=0

    Attributes
    ----------
    baseline_gain_ : learnsim.baseline.BaselineGain or None
        Held-out AvgP of the learned parameters against BM25 (k1 = 1.5, b = 0.6), with a paired
        bootstrap interval over the held-out articles; ``status == "baseline"``: ``params_`` are
        BM25's. None for ``from_params`` members and ``baseline_holdout=None``.
    held_out_ : (ndarray of int, Links) or None
        The articles the held-out check kept back (rows of the ``X`` given to ``fit``) with their
        links among them: the model never saw them, so a fit's recipe checks its search there
        over a whole collection (:mod:`learnsim.fitting`). Not saved with the model.
    variant_ : str
        ``"bm25"``: the transferable family (paper 002's eq. 5 is LinkLearn, ``"paper"``).
    params_ : dict
        The learned ``k1, k1_length_exponent, b, idf_exponent, query_exponent``.
    train_ap_ : float
        Mean AvgP over the training copies at ``params_``.
    start_train_ap_ : float
        The same at the starting point (BM25 with the project's defaults, binary queries).
    validation_ap_ : float or None
        Mean AvgP of the validation copies at ``params_`` (when ``validation`` was given).
    n_evaluations_ : int
    search_path_ : ndarray (n_accepted, 6)
        The accepted points of the search: the five parameters and the training AvgP.
    training_lengths_ : ndarray
        The mean lengths of the training copies (the range g was fitted on); ``transform`` warns
        when a collection's mean length lies more than a factor 4 outside it.
    shrinkage_ : float or None
        The factor kept by ``shrink`` (1: the search's point, 0: BM25's defaults); None for
        ``from_params`` members, 1.0 without a held-out share or with ``shrink=None``.
    shrinkage_path_ : ndarray (n_factors, 4)
        Per factor of ``SHRINKAGE_GRID``: the factor, its held-out AvgP, its gap to the best
        factor's and the standard error of that gap (empty without a held-out share).

    References
    ----------
    .. [1] D. Grangier and S. Bengio, "Inferring Document Similarity from Hyper-links", IDIAP
       Research Report IDIAP-RR 05-21, IDIAP, Martigny, Switzerland, 2005 (paper 002 in
       ../shared/papers).

    Examples
    --------
    Any member of the family scores without training; the defaults are Okapi BM25:

    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from learnsim.datasets import make_clustered_corpus
    >>> from learnsim.text import TextVectorizer
    >>> from learnsim.linklearn import LearnedBM25
    >>> corpus = make_clustered_corpus(n_clusters=4, docs_per_cluster=8, vocab_size=400, random_state=0)
    >>> X = TextVectorizer("tf").fit_transform(corpus.data)          # term counts
    >>> bm25 = LearnedBM25.from_params(k1=1.5, b=0.6)
    >>> bm25.score(X[:3], X).shape
    (3, 32)

    Learn the parameters from links (each document links to the next one of its cluster; a short
    search, and ``baseline_holdout=None`` skips the held-out check against BM25):

    >>> i = np.arange(32)
    >>> links = sp.csr_matrix((np.ones(32), (i, np.where(i % 8 == 7, i - 7, i + 1))), shape=(32, 32))
    >>> model = LearnedBM25(max_evaluations=20, max_queries=50, baseline_holdout=None).fit(X, links)
    >>> sorted(model.params_)
    ['b', 'idf_exponent', 'k1', 'k1_length_exponent', 'query_exponent']
    >>> ids, scores = model.index(X).search(X[:2], 3)
    >>> ids.shape
    (2, 3)
    """

    _parameter_constraints = {       # in the order of the checks before them (the first failure is reported)
        "document_fractions": [Checked(_fractions)],
        "query_length": [Checked(_query_length)],
        "max_queries": [Interval(Integral, 1, None, description="an integer >= 1")],
        "max_evaluations": [Interval(Integral, 1, None, description="an integer >= 1")],
        "length_spread": [Interval(Real, 1, None, description=(
            "a finite number >= 1 (1: every document of a copy thinned alike)"))],
        "reference_length": [Interval(Real, 0, None, closed="neither")],
        "idf": [Options(IDF_VARIANTS)],
        "epsilon": [Interval(Real, 0, None)],
        "fixed": [Checked(_check_fixed)],
        "baseline_holdout": [Checked(check_holdout)],
        "shrink": [Options(SHRINK_OPTIONS), None],
        "random_state": ["no_validation"],     # checked by check_random_state in fit, as before
    }

    def __init__(self, document_fractions=(1.0, 0.2, 0.05, 0.02), query_length=(8, 60), max_queries=600,
                 length_spread=4.0, reference_length=100.0, idf="okapi", epsilon=0.25, max_evaluations=200,
                 fixed=None, baseline_holdout=DEFAULT_HOLDOUT, shrink="one-se", random_state=0):
        self.document_fractions = document_fractions
        self.length_spread = length_spread
        self.query_length = query_length
        self.max_queries = max_queries
        self.reference_length = reference_length
        self.idf = idf
        self.epsilon = epsilon
        self.max_evaluations = max_evaluations
        self.fixed = fixed
        self.baseline_holdout = baseline_holdout
        self.shrink = shrink
        self.random_state = random_state

    # ------------------------------------------------------------------ checks
    def _check_params(self):
        validate_params(self)
        return _fractions(self.document_fractions), _query_length(self.query_length), float(self.reference_length)

    # ------------------------------------------------------------------ members
    @classmethod
    def from_params(cls, k1=START["k1"], b=START["b"], k1_length_exponent=0.0, idf_exponent=1.0,
                    query_exponent=0.0, **estimator_params):
        """A member of the family with the given parameters, ready to score (no training).

        With the defaults it is Okapi BM25 (k1 = 1.5, b = 0.6, binary queries) exactly;
        ``query_exponent=1`` is BM25 with query term counts.
        """
        obj = cls(**estimator_params)
        obj._check_params()
        obj.params_ = _check_parameters({"k1": k1, "b": b, "k1_length_exponent": k1_length_exponent,
                                         "idf_exponent": idf_exponent, "query_exponent": query_exponent})
        obj.train_ap_ = obj.start_train_ap_ = obj.validation_ap_ = None
        obj.n_evaluations_ = 0
        obj.search_path_ = np.zeros((0, 6))
        obj.training_lengths_ = np.zeros(0)
        obj.baseline_gain_ = None
        obj.shrinkage_ = None
        obj.shrinkage_path_ = np.zeros((0, 4))
        obj.variant_ = "bm25"
        return obj

    # ------------------------------------------------------------------ training
    def _copies(self, views, adjacency, fractions, query_length, rng):
        X = views[0]
        degrees = np.diff(adjacency.indptr)
        anchors = np.flatnonzero(degrees > 0)
        if anchors.size == 0:
            raise ValueError("no document has a link: LearnedBM25 needs links to learn from")
        if anchors.size > self.max_queries:
            anchors = np.sort(rng.choice(anchors, self.max_queries, replace=False))
        # sparse: a dense n_queries x n_docs mask per copy grew with the collection
        relevant = adjacency[anchors].tocsr()
        exclude = sp.csr_matrix((np.ones(anchors.size, dtype=bool), (np.arange(anchors.size), anchors)),
                                shape=relevant.shape)
        copies = []
        for view in views:
            for r in fractions:
                Q = _sample_queries(X, anchors, query_length, rng)
                copies.append(_Copy(_thin(view, float(r), rng, float(self.length_spread)), Q, relevant, exclude,
                                    self.idf, float(self.epsilon)))
        return copies

    @staticmethod
    def _views(X, name):
        """One count matrix, or a list of count matrices of the same documents (e.g. whole articles
        and their leads), as a list of integer count CSRs of one shape."""
        views = list(X) if isinstance(X, (list, tuple)) else [X]
        if not views:
            raise ValueError(f"{name} is an empty list; give a count matrix or a list of them")
        out = []
        for i, V in enumerate(views):
            where = name if len(views) == 1 else f"{name}[{i}]"
            V = check_term_counts(V, where)
            if V.nnz and np.any(V.data != np.rint(V.data)):
                raise ValueError(f"{where} must hold integer term counts (the articles are thinned occurrence "
                                 "by occurrence)")
            if out and V.shape != out[0].shape:
                raise ValueError(f"{where} has shape {V.shape} but {name}[0] has {out[0].shape}: the views must "
                                 "be of the same documents over one vocabulary")
            out.append(V.astype(np.float64))
        return out

    @staticmethod
    def _objective(copies, params, L0):
        return float(np.mean([c.mean_ap(params, L0) for c in copies]))

    def fit(self, X, links, *, validation=None):
        """Learn the five parameters from a linked corpus.

        Parameters
        ----------
        X : sparse matrix (n_docs, n_terms), or a list of them
            Term counts of the training articles (integers). A list gives several views of the
            same articles (e.g. whole texts and their first 100 words): the queries are sampled
            from the first, and every view is thinned into ``document_fractions`` copies.
        links : Links or square adjacency matrix
            Hyperlinks between them; direction is ignored.
        validation : tuple (X_valid, links_valid), optional
            Held-out linked articles: their AvgP (same copies and queries) is ``validation_ap_``.
            The ``baseline_holdout`` part is kept back from ``X``, never from ``validation``.

        Returns
        -------
        self

        Warns
        -----
        learnsim.baseline.BaselineWarning
            When the learned parameters do not clearly beat BM25 on the held-out articles (``params_`` are
            then BM25's), or when too few articles or links are left to hold any out.
        """
        fractions, query_length, L0 = self._check_params()
        holdout = check_holdout(self.baseline_holdout)
        views = self._views(X, "X")
        X = views[0]
        link_set = _as_links(links, X.shape[0], "links")
        adjacency = link_set.symmetric().adjacency.tocsr()
        rng = check_random_state(self.random_state)
        start_time = time.perf_counter()
        held_copies, report = None, None
        self.held_out_ = None
        if holdout is not None:
            split = holdout_documents(link_set, holdout, int(rng.integers(2**31 - 1)))
            if isinstance(split, str):
                report = unchecked(split + "; searched on every article", baseline_name=BASELINE_NAME,
                                   owner="LearnedBM25", stacklevel=3)
            else:
                train, L_train, held, L_held = split
                # the articles the model never sees, for a check of its search over a whole
                # collection by the fit's recipe (learnsim.fitting); not saved with the model
                self.held_out_ = (np.asarray(held), L_held)
                held_copies = self._copies([V[held] for V in views], L_held.symmetric().adjacency.tocsr(), fractions,
                                           query_length, rng)
                views = [V[train] for V in views]
                adjacency = L_train.symmetric().adjacency.tocsr()
        copies = self._copies(views, adjacency, fractions, query_length, rng)
        val_copies = None
        if validation is not None:
            if not isinstance(validation, (tuple, list)) or len(validation) != 2:
                raise TypeError("validation must be a pair (X_valid, links_valid)")
            Xv = self._views(validation[0], "validation X")
            val_copies = self._copies(Xv, _as_adjacency(validation[1], Xv[0].shape[0], "validation links"),
                                      fractions, query_length, rng)

        names = PARAMETER_NAMES
        cache = {}

        def evaluate(point):
            key = tuple(round(point[n], 10) for n in names)
            if key not in cache:
                cache[key] = self._objective(copies, point, L0)
            return cache[key]

        fixed = {} if self.fixed is None else {k: float(v) for k, v in self.fixed.items()}
        point = {**START, **fixed}
        best = evaluate(point)
        start_ap = best
        path = [[point[n] for n in names] + [best]]
        steps = dict(_STEPS)
        shrinks = 0
        while len(cache) < self.max_evaluations and shrinks < 4:
            improved = False
            for name in names:
                if name in fixed:
                    continue
                for sign in (1.0, -1.0):
                    trial = dict(point)
                    lo, hi = PARAMETER_BOUNDS[name]
                    if name == "k1":
                        trial[name] = float(np.clip(np.exp(np.log(point[name]) + sign * steps[name]), lo, hi))
                    else:
                        trial[name] = float(np.clip(point[name] + sign * steps[name], lo, hi))
                    if trial[name] == point[name]:
                        continue
                    if len(cache) >= self.max_evaluations:
                        break
                    value = evaluate(trial)
                    if value > best + 1e-6:
                        point, best, improved = trial, value, True
                        path.append([point[n] for n in names] + [best])
                        break
                if len(cache) >= self.max_evaluations:
                    break
            if not improved:
                steps = {n: s / 2.0 for n, s in steps.items()}
                shrinks += 1

        shrinkage, shrinkage_path = 1.0, np.zeros((0, 4))
        if held_copies is not None:
            base = _per_article_ap(held_copies, START, L0)
            if self.shrink == "one-se":
                members = {lam: _shrunk(point, lam, fixed) for lam in SHRINKAGE_GRID}
                per_lambda = {lam: (base if m == START else _per_article_ap(held_copies, m, L0))
                              for lam, m in members.items()}
                shrinkage, shrinkage_path = _one_se_shrinkage(per_lambda)
                learned = per_lambda[shrinkage]
                if shrinkage != 1.0:
                    point = _shrunk(point, shrinkage, fixed)
                    best = evaluate(point)
                    path.append([point[n] for n in names] + [best])
            else:
                learned = _per_article_ap(held_copies, point, L0)
            report = compare(learned, base, measure="average precision", unit="held-out articles",
                             baseline_name=BASELINE_NAME, owner="LearnedBM25", random_state=0,
                             detail={"held_out_articles": int(held.size), "held_out_links": linked_pairs(L_held),
                                     "copies": len(held_copies), "shrinkage": float(shrinkage)}, stacklevel=3)
            if report.fell_back:
                point = dict(START)
                best = evaluate(point)
        self.baseline_gain_ = report
        self.shrinkage_ = float(shrinkage)
        self.shrinkage_path_ = shrinkage_path
        self.variant_ = "bm25"
        self.params_ = _check_parameters(point)
        self.train_ap_ = float(best)
        self.start_train_ap_ = float(start_ap)
        self.validation_ap_ = None if val_copies is None else self._objective(val_copies, self.params_, L0)
        self.n_evaluations_ = len(cache)
        self.search_path_ = np.asarray(path, dtype=np.float64)
        self.training_lengths_ = np.asarray([c.avgdl for c in copies], dtype=np.float64)
        self.n_features_in_ = X.shape[1]
        self.fit_seconds_ = time.perf_counter() - start_time
        return self

    # ------------------------------------------------------------------ using it
    def _fitted(self):
        check_is_fitted(self, "params_")
        return self.params_

    def collection_statistics(self, X):
        """What :meth:`transform` takes from a collection as a whole: its document frequencies,
        number of documents and mean length (a dict of arrays). An index computes them once at
        build time and weights the documents it adds later with them (``statistics=``)."""
        self._fitted()
        X = check_term_counts(X, "X")
        n_docs, n_terms = X.shape
        total = float(X.sum())
        if total == 0:
            raise ValueError(f"every one of the {n_docs} documents in X is empty (all counts are 0)")
        return {"document_frequency": np.bincount(X.indices, minlength=n_terms).astype(np.int64),
                "n_documents": np.asarray(n_docs, dtype=np.int64), "avgdl": np.asarray(total / n_docs)}

    def transform(self, X, statistics=None):
        """The document weights idf^a tf (k + 1) / (tf + k (1 - b + b l / avgdl)) of a collection
        (float64 CSR), with its own idf, lengths and avgdl, or with the idf and avgdl of
        ``statistics`` (:meth:`collection_statistics` of a larger collection X belongs to)."""
        params = self._fitted()
        _, _, L0 = self._check_params()
        X = check_term_counts(X, "X")
        n_docs, n_terms = X.shape
        lengths = np.asarray(X.sum(axis=1)).ravel()
        if statistics is not None:
            df, n_collection, avgdl = _check_statistics(statistics, n_terms)
            W = sp.csr_matrix((_signed_power(bm25_idf(df, n_collection, self.idf, float(self.epsilon)),
                                             params["idf_exponent"])[X.indices]
                               * _tf_part(X.data, np.repeat(lengths / avgdl, np.diff(X.indptr)), avgdl, params, L0),
                               X.indices.copy(), X.indptr.copy()), shape=X.shape)
            W.eliminate_zeros()
            return W
        total = float(lengths.sum())
        if total == 0:
            raise ValueError(f"every one of the {n_docs} documents in X is empty (all counts are 0)")
        avgdl = total / n_docs
        fitted_on = self.training_lengths_
        if fitted_on.size and params["k1_length_exponent"] != 0 and not (
                fitted_on.min() / 4.0 <= avgdl <= fitted_on.max() * 4.0):
            import warnings
            warnings.warn(f"this collection's mean length {avgdl:.3g} lies far outside the mean lengths "
                          f"{fitted_on.min():.3g}-{fitted_on.max():.3g} that k1's length dependence was fitted on; "
                          "k1 = k1 (avgdl / L0)^g is extrapolated (refit with document_fractions that reach "
                          "this length)", UserWarning, stacklevel=2)
        df = np.bincount(X.indices, minlength=n_terms)
        idf = _signed_power(bm25_idf(df, n_docs, self.idf, float(self.epsilon)), params["idf_exponent"])
        ndl = np.repeat(lengths / avgdl, np.diff(X.indptr))
        W = sp.csr_matrix((idf[X.indices] * _tf_part(X.data, ndl, avgdl, params, L0), X.indices.copy(),
                           X.indptr.copy()), shape=X.shape)
        W.eliminate_zeros()
        return W

    def transform_queries(self, Q):
        """Query weights qtf^c (float64 CSR)."""
        params = self._fitted()
        Q = check_term_counts(Q, "Q").astype(np.float64)
        Q.data = _query_power(Q.data, params["query_exponent"])
        return Q

    def score(self, Q, X):
        """Scores (n_queries, n_docs), float64, of the queries' counts against the collection X."""
        W = self.transform(X)
        Qw = self.transform_queries(Q)
        check_n_features(Qw, W.shape[1], name="Q", owner="the documents X")
        return np.asarray((Qw @ W.T).toarray(), dtype=np.float64)

    def index(self, X, dtype=np.float32):
        """A :class:`PowerQueryIndex` of the collection X: posting lists of its learned weights,
        scoring query counts with the learned query exponent (``score``, ``search``)."""
        params = self._fitted()
        return PowerQueryIndex(query_exponent=params["query_exponent"], dtype=dtype).fit(self.transform(X))

    def weight_curves(self, tf, normalised_length=1.0, avgdl=100.0, idf=None):
        """The learned tf part at the given tf (and l / avgdl, collection avgdl), and idf^a at
        the given idf values: ``{"tf": ..., "idf": ...}``."""
        params = self._fitted()
        _, _, L0 = self._check_params()
        tf = np.asarray(tf, dtype=np.float64)
        out = {"tf": _tf_part(tf, float(normalised_length), float(avgdl), params, L0)}
        if idf is not None:
            out["idf"] = _signed_power(np.asarray(idf, dtype=np.float64), params["idf_exponent"])
        return out

    def describe(self):
        """One line: the learned parameters."""
        p = self._fitted()
        return (f"k1 = {p['k1']:.3g} (avgdl / {self.reference_length:g})^{p['k1_length_exponent']:.3g}, "
                f"b = {p['b']:.3g}, idf^{p['idf_exponent']:.3g}, qtf^{p['query_exponent']:.3g}")

    # ------------------------------------------------------------------ persistence
    def _get_state(self):
        params = self._fitted()
        est = {k: v for k, v in self.get_params().items() if k != "random_state"}
        est["document_fractions"] = [float(v) for v in np.atleast_1d(est["document_fractions"])]
        est["query_length"] = None if est["query_length"] is None else [int(v) for v in est["query_length"]]
        est["fixed"] = None if est["fixed"] is None else {k: float(v) for k, v in est["fixed"].items()}
        meta = {"params": est, "weighting": dict(params), "n_evaluations": int(self.n_evaluations_),
                "train_ap": self.train_ap_, "start_train_ap": self.start_train_ap_,
                "validation_ap": self.validation_ap_, "variant": self.variant_,
                "shrinkage": getattr(self, "shrinkage_", None),
                "baseline_gain": None if self.baseline_gain_ is None else self.baseline_gain_.to_dict()}
        arrays = {"search_path": np.asarray(self.search_path_, dtype=np.float64),
                  "shrinkage_path": np.asarray(getattr(self, "shrinkage_path_", np.zeros((0, 4))), dtype=np.float64),
                  "training_lengths": np.asarray(self.training_lengths_, dtype=np.float64)}
        return meta, arrays

    @classmethod
    def _from_state(cls, meta, arrays):
        name = cls.__name__
        for key in ("params", "weighting", "n_evaluations"):
            if key not in meta:
                raise ValueError(f"{name} state lacks {key!r}")
        est = meta["params"]
        if not isinstance(est, dict) or set(est) - set(cls().get_params()):
            raise ValueError(f"{name} state: params must be a dict of the estimator's parameters")
        est = dict(est)
        if isinstance(est.get("query_length"), list):
            est["query_length"] = tuple(est["query_length"])
        if isinstance(est.get("document_fractions"), list):
            est["document_fractions"] = tuple(est["document_fractions"])
        weighting = meta["weighting"]
        if not isinstance(weighting, dict) or set(weighting) != set(PARAMETER_NAMES):
            raise ValueError(f"{name} state: weighting must give exactly {list(PARAMETER_NAMES)}")
        obj = cls.from_params(**weighting, **est)
        obj.n_evaluations_ = state_number(meta, "n_evaluations", name, integer=True, low=0)
        for key in ("train_ap", "start_train_ap", "validation_ap"):
            value = state_number(meta, key, name, low=0.0, high=1.0, allow_none=True) if key in meta else None
            setattr(obj, key + "_", value)
        from .._utils.validation import state_array
        path = state_array(arrays, "search_path", name, ndim=2, optional=True)
        if path is not None and path.shape[1] != 6:
            raise ValueError(f"{name} state: search_path must have 6 columns; got shape {path.shape}")
        obj.search_path_ = np.zeros((0, 6)) if path is None else path.astype(np.float64)
        lengths = state_array(arrays, "training_lengths", name, ndim=1, low=0.0, optional=True)
        obj.training_lengths_ = np.zeros(0) if lengths is None else lengths.astype(np.float64)
        # files written before the held-out shrinkage lack it: None, an empty path
        obj.shrinkage_ = state_number(meta, "shrinkage", name, low=0.0, high=1.0, allow_none=True) \
            if "shrinkage" in meta else None
        shrink_path = state_array(arrays, "shrinkage_path", name, ndim=2, optional=True)
        if shrink_path is not None and shrink_path.size and shrink_path.shape[1] != 4:
            raise ValueError(f"{name} state: shrinkage_path must have 4 columns; got shape {shrink_path.shape}")
        obj.shrinkage_path_ = np.zeros((0, 4)) if shrink_path is None or not shrink_path.size \
            else shrink_path.astype(np.float64)
        # files written before issue 13 lack the report: unchecked
        if meta.get("variant", "bm25") != "bm25":
            raise ValueError(f"{name} state: variant must be 'bm25'; got {meta.get('variant')!r}")
        gain = meta.get("baseline_gain")
        obj.baseline_gain_ = None if gain is None else BaselineGain.from_dict(gain, owner=name)
        if obj.baseline_gain_ is not None and obj.baseline_gain_.fell_back and obj.params_ != START:
            raise ValueError(f"{name} state: the model fell back to BM25 but its weighting is not BM25's "
                             f"{START}")
        return obj


# --------------------------------------------------------------------------- curves
def plot_weighting_curves(model, path, *, lengths=(0.5, 1.0, 2.0), avgdls=(60.0, 1500.0), bm25=(1.5, 0.6),
                          max_tf=10):
    """Draw the learned tf saturation (at a few l / avgdl and collection avgdl) and the idf curve
    beside BM25's (k1, b) and save a PNG at ``path``. Needs matplotlib (imported here only).

    Examples
    --------
    Okapi BM25 with k1 = 1.2 and b = 0.75 beside the default BM25 (k1 = 1.5, b = 0.6); the
    figure is written to ``curves.png`` (needs matplotlib):

    >>> from learnsim.linklearn import LearnedBM25, plot_weighting_curves
    >>> plot_weighting_curves(LearnedBM25.from_params(k1=1.2, b=0.75), "curves.png")  # doctest: +SKIP
    """
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    reference = LearnedBM25.from_params(k1=bm25[0], b=bm25[1])
    tf = np.arange(1, max_tf + 1, dtype=np.float64)
    fig, axes = plt.subplots(1, len(avgdls) + 1, figsize=(4.2 * (len(avgdls) + 1), 3.6))
    for ax, avgdl in zip(axes, avgdls):
        for i, rel in enumerate(lengths):
            colour = f"C{i}"
            ax.plot(tf, model.weight_curves(tf, rel, avgdl)["tf"], color=colour, label=f"learned, l/avgdl={rel:g}")
            ax.plot(tf, reference.weight_curves(tf, rel, avgdl)["tf"], color=colour, linestyle="--",
                    label=f"BM25 k1={bm25[0]:g} b={bm25[1]:g}" if i == 0 else None)
        ax.set_title(f"tf part, collection avgdl = {avgdl:g}")
        ax.set_xlabel("tf")
        ax.legend(fontsize=7)
    idf = np.linspace(0.05, 8.0, 100)
    axes[-1].plot(idf, model.weight_curves([1.0], idf=idf)["idf"], label="learned idf^a")
    axes[-1].plot(idf, idf, linestyle="--", label="BM25 idf")
    axes[-1].set_xlabel("BM25 idf")
    axes[-1].set_title("idf curve")
    axes[-1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return path
