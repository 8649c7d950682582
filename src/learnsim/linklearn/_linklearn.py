"""LinkLearn: a term weighting learned from hyperlinks (Grangier & Bengio, "Inferring Document
Similarity from Hyper-links", IDIAP-RR 05-21, paper 002).

The weight of term i in document d is (eq. 5)

    d_i = f_tf(tf_{d,i}) * f_idf(idf_i) * f_l(l_d),

where tf is the count of i in d, idf_i = log(N / df_i) (sec. 2.1) and l_d the number of term
occurrences in d; each f is a one-input MLP with k tanh hidden units and a softplus output
(sec. 3.2), so every weight is positive. Two documents are compared by the inner product of
their weight vectors. Training minimises the ranking hinge cost of eq. (4),

    C_d = 1 / (|L(d)| |not L(d)|) * sum_{l+ in L(d), l- not in L(d)} max(0, 1 - sim(d, l+) + sim(d, l-)),

by stochastic gradient descent, one randomly drawn training document d at a time with every
other training document used as l+ or l- (Algorithm 1), and stops early on the validation
average precision (sec. 3.3).

Implementation notes
--------------------
* The three MLPs are evaluated on the distinct values of tf, idf and l only (the paper's reason
  for three one-input MLPs): a step costs a few passes over the non-zeros of the training
  count matrix, never an MLP call per non-zero.
* All pairs (l+, l-) of a document are handled exactly, without enumerating them: with the
  positives' margins sorted, the number of negatives that violate the margin against each
  positive (and the reverse) comes from one ``searchsorted`` of the negatives among them and
  two bin counts (``_hinge_coefficients``); the negatives are not sorted.
* Each MLP's input is shifted and scaled by the mean and standard deviation of its training
  values (an affine change the first layer could absorb: the function class is the paper's),
  so that the tanh units start in their linear range whatever the scale of tf or l.
* Queries use binary weights (sec. 2.1): after training, :meth:`LinkLearn.index` turns a corpus
  into one sparse weight matrix kept as posting lists, and scoring a query adds up the postings
  of its terms (:class:`learnsim.bm25.TermWeightIndex`, the scorer of :class:`learnsim.bm25.BM25`).
* The weighting depends only on (tf, idf, l), so it applies to any other corpus without
  retraining: ``transform(X)`` computes idf and lengths from the corpus it is given. It is an
  *in-domain* weighting all the same (``variant_ == "paper"``): f_l and f_idf are learned on the
  lengths and idfs of the training collection, and eq. (5) cannot express BM25's
  length-dependent saturation, so on collections of much shorter documents it falls to 0.73-0.91
  of BM25 (issue 13). ``transform`` warns (:class:`CollectionShiftWarning`) when a collection's
  mean length or vocabulary is far from the training collection's, and names the transferable
  family, :class:`learnsim.weighting.LearnedBM25` (``variant_ == "bm25"``).

Never below the baseline (:mod:`learnsim.baseline`)
---------------------------------------------------
``fit`` keeps back ``baseline_holdout`` of the training documents *with their links* (links that
cross the split are dropped, so no held-out document is seen in training), learns on the rest,
and scores every held-out document that has a held-out link: its average precision of its
linked documents among the held-out documents, under the learned weighting and under the tf.idf
cosine on the same counts (idf log(N / df) of the held-out documents). This part is separate
from ``validation`` (early stopping), so the gain is not measured where the stopping looked.
Unless the learned weighting wins clearly (the interval of its held-out gain lies above zero,
:func:`learnsim.baseline.compare`), the fitted model *is* the tf.idf cosine:
``transform`` gives L2-normalised tf.idf rows, ``similarity`` their cosine, and ``index`` scores
queries by the cosine (:class:`CosineIndex`); a :class:`learnsim.baseline.BaselineWarning` says
so. The report is ``baseline_gain_``.

References
----------
.. [1] D. Grangier and S. Bengio, "Inferring Document Similarity from Hyper-links", IDIAP
   Research Report IDIAP-RR 05-21, IDIAP, Martigny, Switzerland, 2005 (paper 002 in
   ../shared/papers).
"""
from __future__ import annotations

import time
import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from scipy.special import expit
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from ._step import hinge_coefficients as _hinge_coefficients
from ._step import postings_of as _postings_of
from .._utils.params import Checked, Interval, validate_params
from .._utils.progress import progress
from .._utils.validation import check_random_state, check_term_counts, state_array, state_number
from ..exceptions import CollectionShiftWarning  # noqa: F401  (defined there; importable here as in 0.1)
from ..baseline import DEFAULT_HOLDOUT, BaselineGain, check_holdout, compare, unchecked
from ..text.bm25 import TermWeightIndex
from ..text import CosineIndex, document_lengths, idf_from_counts, tfidf_cosine_weights  # noqa: F401  (their home; importable here as in 0.1)
from ..supervision import Links, split_links

__all__ = ["LinkLearn", "CosineIndex", "CollectionShiftWarning", "idf_from_counts", "document_lengths",
           "link_hinge_loss", "tfidf_cosine_weights", "SHIFT_LENGTH_FACTOR", "SHIFT_MIN_OVERLAP"]

_FACTORS = ("tf", "idf", "length")
# The validation's similarities are computed by blocks of queries of about this many entries
# (float64: 32 MB), so that its memory does not grow as n_val^2 (issue 16, part 3).
_VALIDATION_BLOCK_ELEMENTS = 1 << 22
# The validation and the held-out check rank every document for at most this many query
# documents (a seeded sample of those with links; all of them below it), so that their cost
# grows like n, not n^2: at 1M documents the held-out fifth would otherwise score 4e10 pairs.
# The mean AvgP of 2,000 queries estimates the whole part's to about +-0.005 (its spread over
# queries is about 0.25 on Wikispeedia), well inside the held-out check's own interval.
_MAX_VALIDATION_QUERIES = 2000


def linked_pairs(links):
    """How many pairs of documents ``links`` links: a link a->b and its reverse b->a are one, as
    paper 002's L(d) is the set of documents linked with d (referring to d or referred to by d),
    and as LinkLearn and LearnedBM25 learn from the symmetric links."""
    A = links.adjacency
    return int(A.maximum(A.T).nnz // 2)


def _query_rows(adjacency, seed):
    """The query documents of a validation or held-out part: every row, or a seeded sample of
    ``_MAX_VALIDATION_QUERIES`` of the rows with a link (sorted) when there are more."""
    n = adjacency.shape[0]
    linked = np.flatnonzero(np.diff(sp.csr_matrix(adjacency).indptr) > 0)
    if linked.size <= _MAX_VALIDATION_QUERIES:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).choice(linked, _MAX_VALIDATION_QUERIES, replace=False))


def _block_ap(score_rows, adjacency, queries, measures):
    """Per-query measures (each query ranking every document but itself) of the rows
    ``queries``, scored by blocks of about ``_VALIDATION_BLOCK_ELEMENTS`` similarities."""
    from ..evaluation import per_query_measures

    n = adjacency.shape[0]
    step = max(1, _VALIDATION_BLOCK_ELEMENTS // max(n, 1))
    out = {m: [] for m in measures}
    for start in range(0, queries.size, step):
        rows = queries[start:start + step]
        S = score_rows(rows)
        # each query leaves its own ranking (exclude_self, with the block's own indices)
        own = sp.csr_matrix((np.ones(rows.size, dtype=bool), (np.arange(rows.size), rows)), shape=S.shape)
        found = per_query_measures(S, adjacency[rows], exclude=own, measures=measures)
        for m in measures:
            out[m].append(found[m])
    return {m: np.concatenate(v) if v else np.zeros(0) for m, v in out.items()}
#: The baseline of LinkLearn and what it falls back to.
BASELINE_NAME = "tf.idf cosine"
#: ``transform`` warns when a collection's mean length differs from the training collection's by
#: more than this factor (either way) ...
SHIFT_LENGTH_FACTOR = 2.0
#: ... or when less than this share of its term occurrences are of terms seen in training.
SHIFT_MIN_OVERLAP = 0.5
#: The shift check needs a collection, not a few queries.
SHIFT_MIN_DOCUMENTS = 10


# --------------------------------------------------------------------------- corpus statistics
def _float_counts(X, name, allow_empty_rows=True):
    """Term counts (:func:`learnsim._validation.check_term_counts`) as float64 CSR; with
    ``allow_empty_rows=False`` a document without terms is an error."""
    X = check_term_counts(X, name)
    X = X if X.dtype == np.float64 else X.astype(np.float64)
    if not allow_empty_rows:
        empty = np.flatnonzero(np.diff(X.indptr) == 0)
        if empty.size:
            shown = ", ".join(str(int(i)) for i in empty[:5]) + (f" and {empty.size - 5} more" if empty.size > 5 else "")
            raise ValueError(f"{name}: document(s) {shown} have no terms (after the vocabulary's filtering); "
                             "a document without terms has similarity 0 to everything: drop it or keep more terms")
    return X


def _softplus(x):
    return np.logaddexp(0.0, x)


# --------------------------------------------------------------------------- the three MLPs
class _ScalarMLP:
    """y = softplus(v0 + sum_h v_h tanh(c_h + a_h * (x - shift) / scale)) (sec. 3.2, Figure 1).

    The parameters live in a slice of the model's flat vector: [a (k), c (k), v (k), v0].
    """

    def __init__(self, k, shift, scale):
        self.k = int(k)
        self.shift = float(shift)
        self.scale = float(scale)

    @property
    def size(self):
        return 3 * self.k + 1

    def split(self, theta):
        k = self.k
        return theta[:k], theta[k:2 * k], theta[2 * k:3 * k], theta[3 * k]

    def forward(self, theta, x):
        a, c, v, v0 = self.split(theta)
        u = (np.asarray(x, dtype=np.float64) - self.shift) / self.scale
        h = np.tanh(c[None, :] + u[:, None] * a[None, :])
        o = v0 + h @ v
        return _softplus(o), (u, h, o)

    def backward(self, theta, cache, dy):
        """Gradient of sum(dy * y) with respect to this MLP's parameters."""
        a, c, v, v0 = self.split(theta)
        u, h, o = cache
        do = dy * expit(o)
        dz = (do[:, None] * v[None, :]) * (1.0 - h * h)
        return np.concatenate([dz.T @ u, dz.sum(axis=0), h.T @ do, [do.sum()]])

    def init(self, rng):
        k = self.k
        # hidden units spread over the standardised input range; a small output layer, so that
        # the weighting starts close to a constant (binary weights) and learns its shape
        a = rng.normal(0.0, 1.0, k)
        c = rng.normal(0.0, 0.5, k)
        v = rng.normal(0.0, 0.1, k)
        return np.concatenate([a, c, v, [0.0]])


class _Codes:
    """A count matrix seen as codes into the distinct values of tf, idf and l (per non-zero)."""

    def __init__(self, X, idf=None):
        self.X = X
        self.n_docs, self.n_terms = X.shape
        self.idf = idf_from_counts(X) if idf is None else idf
        self.lengths = document_lengths(X)
        self.rows = np.repeat(np.arange(self.n_docs), np.diff(X.indptr))
        self.tf_values, self.tf_code = np.unique(X.data, return_inverse=True)
        self.idf_values, idf_code_term = np.unique(self.idf, return_inverse=True)
        self.idf_code = idf_code_term[X.indices]
        self.length_values, self.length_code_doc = np.unique(self.lengths, return_inverse=True)
        self.length_code = self.length_code_doc[self.rows]
        self.idf_code_term = idf_code_term
        self._postings = None

    @property
    def postings(self):
        """The column view (which documents hold each term, with their tf codes), built once."""
        if self._postings is None:
            Xc = sp.csr_matrix((self.tf_code.astype(np.float64) + 1.0, self.X.indices, self.X.indptr),
                               shape=self.X.shape).tocsc()
            Xc.sort_indices()
            self._postings = (Xc.indptr, np.diff(Xc.indptr), Xc.indices, Xc.data.astype(np.int64) - 1)
        return self._postings

    def values(self, name):
        return getattr(self, f"{name}_values")

    def codes(self, name):
        return getattr(self, f"{name}_code")


# --------------------------------------------------------------------------- the cost of eq. (4)
def link_hinge_loss(scores, positive, negative):
    """C_d of eq. (4) for one document from its scores sim(d, .) (a reference for tests).

    Examples
    --------
    Document 0 links to document 1 only; the mean of max(0, 1 - s(l+) + s(l-)) over the pairs
    (1, 2) and (1, 3) is (0 + 0.5) / 2:

    >>> import numpy as np
    >>> from learnsim.linklearn import link_hinge_loss
    >>> scores = np.array([0.0, 2.0, 0.5, 1.5])
    >>> link_hinge_loss(scores, np.array([1]), np.array([2, 3]))
    0.25
    """
    return _hinge_coefficients(np.asarray(scores, dtype=np.float64), positive, negative)[0]


def _curve_array_name(key):
    return "validation_" + key.replace("@", "_at_")


def holdout_documents(links, fraction, random_state):
    """Split the documents of ``links`` into a training part and a held-out part of about
    ``fraction`` of them, with the links inside each part (those across are dropped).

    Returns ``(train, links_train, held, links_held)`` (sorted document indices and the Links
    inside each part), or the reason (a string) why no useful held-out part exists (too few
    documents or links, or fewer than 2 held-out documents with a held-out link).
    """
    try:
        (train, L_train), (held, L_held) = split_links(links, fractions=(1.0 - fraction, fraction),
                                                       random_state=random_state)
    except ValueError as exc:
        return f"cannot hold out {fraction:g} of the documents with their links: {exc}"
    degrees = np.diff(L_held.symmetric().adjacency.indptr)
    if np.count_nonzero(degrees) < 2:
        return f"the {held.size} held-out documents have fewer than 2 with a link among them"
    return train, L_train, held, L_held


def _as_links(links, n_items, name):
    if not isinstance(links, Links):
        if sp.issparse(links) or isinstance(links, np.ndarray):
            shape = np.shape(links)
            if len(shape) == 2 and shape != (n_items, n_items) and shape[1] == 2:
                # (source, target) rows, the form learnsim.fit(links=) takes: Links' own
                # 'adjacency must be square' named neither this argument nor the way to give them
                raise ValueError(f"{name} is an array of shape {shape}, not a square ({n_items}, {n_items}) adjacency "
                                 f"matrix over the rows of X: for (source, target) index pairs give "
                                 f"Links.from_edges({name.split()[-1]}, n_items={n_items}) (learnsim.supervision.Links)")
            links = Links(links)
        else:
            raise TypeError(f"{name} must be a learnsim.supervision.Links (or a square adjacency matrix); "
                            f"got {type(links).__name__}")
    if links.n_items != n_items:
        raise ValueError(f"{name} is over {links.n_items} documents but the count matrix has {n_items} rows: "
                         "a link refers to a document that is not in the corpus, or a document is missing")
    return links


class LinkedTermCountsTags:
    """The scikit-learn tags of the link weightings (LinkLearn, LearnedBM25): fit takes term
    counts, sparse or dense (check_term_counts: non-negative), and the links."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        tags.target_tags.required = True
        return tags


class LinkLearn(LinkedTermCountsTags, BaseEstimator):
    """A term weighting d_i = f_tf(tf) f_idf(idf) f_l(l) learned so that linked documents score
    above unlinked ones (Grangier & Bengio, paper 002, eq. 4-5, Algorithm 1).

    Parameters
    ----------
    hidden_tf, hidden_idf, hidden_length : int, default=5, 10, 10
        k_tf, k_idf and k_l, the hidden units of the three MLPs (the paper's Table 3).
    learning_rate : float, default=0.001
        lambda of the update theta <- theta - lambda dC_d/dtheta (Table 3).
    batch_size : int, default=1
        Documents per step. 1 is the paper's Algorithm 1; a larger batch averages the gradients
        of several documents (one sparse product for all of them).
    max_iter : int, default=100000
        Most documents drawn (with replacement), counted in documents, not steps.
    validation_interval : int, default=1000
        Documents drawn between two evaluations of the validation average precision.
    n_iter_no_change : int, default=10
        Early stopping: stop after this many evaluations without a better validation AvgP, and
        keep the parameters of the best one (sec. 3.3). Without validation data the last
        parameters are kept and training runs ``max_iter`` documents.
    tol : float, default=1e-4
        An evaluation counts as better when it beats the best AvgP by more than ``tol``.
    baseline_holdout : float in (0, 1) or None, default=0.2
        Share of the training documents kept back, with their links, to measure the learned
        weighting against the tf.idf cosine (module notes); the weighting is learned on the
        rest. None skips the check (``baseline_gain_`` is None) and learns on every document.
    random_state : None, int or numpy Generator
        Seeds the initial parameters, the order of the drawn documents and the held-out split.
    verbose : bool, default=False
        Progress bar over the drawn documents.

    Attributes
    ----------
    baseline_gain_ : learnsim.baseline.BaselineGain or None
        Held-out average precision of the learned weighting against the tf.idf cosine, with a
        paired bootstrap interval over the held-out documents. ``status == "baseline"``: the
        learned weighting lost, and this model scores as the tf.idf cosine.
    baseline_only_ : bool
        True for :meth:`from_baseline` models: the tf.idf cosine, nothing learned.
    held_out_ : (ndarray of int, Links) or None
        The documents the held-out check kept back (rows of the ``X`` given to ``fit``) with their
        links among them: the model never saw them, so a fit's recipe checks its search there
        over a whole collection (:mod:`learnsim.fitting`). Not saved with the model.
    variant_ : str
        ``"paper"``: eq. (5), an in-domain weighting (the transferable family is
        :class:`learnsim.weighting.LearnedBM25`, ``variant_ == "bm25"``).
    training_mean_length_ : float
        Mean length (term occurrences) of the training documents; with
        ``training_vocabulary_`` (bool per term: seen in a training document) what ``transform``
        compares a collection with before warning of a shift.
    coef_ : ndarray
        The flat parameter vector of the three MLPs, [tf, idf, length], each [a, c, v, v0].
    input_scaling_ : ndarray (3, 2)
        (shift, scale) of each MLP's input (module notes).
    n_features_in_ : int
    n_iter_ : int
        Documents drawn until the stop.
    best_iter_ : int
        Documents drawn when the kept parameters were reached.
    validation_curve_ : dict of ndarray or None
        ``"iteration"``, ``"ap"``, ``"p@10"`` and ``"error_rate"`` (C^{0/1}, eq. 3) on the
        validation corpus at every evaluation (the paper's Figure 2).
    train_loss_curve_ : ndarray
        The mean C_d of the drawn documents over each validation interval.
    timings_ : dict
        Wall-clock seconds: ``"train"`` and ``"validation"``. Not saved with the model.

    References
    ----------
    .. [1] D. Grangier and S. Bengio, "Inferring Document Similarity from Hyper-links", IDIAP
       Research Report IDIAP-RR 05-21, IDIAP, Martigny, Switzerland, 2005 (paper 002 in
       ../shared/papers).

    Examples
    --------
    A small linked corpus: each document links to the next one of its cluster (a short run of
    training; ``baseline_holdout=None`` skips the held-out check against the tf.idf cosine):

    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from learnsim.datasets import make_clustered_corpus
    >>> from learnsim.text import TextVectorizer
    >>> from learnsim.linklearn import LinkLearn
    >>> corpus = make_clustered_corpus(n_clusters=4, docs_per_cluster=8, vocab_size=400, random_state=0)
    >>> X = TextVectorizer("tf").fit_transform(corpus.data)          # term counts
    >>> i = np.arange(32)
    >>> links = sp.csr_matrix((np.ones(32), (i, np.where(i % 8 == 7, i - 7, i + 1))), shape=(32, 32))
    >>> model = LinkLearn(max_iter=500, validation_interval=250, baseline_holdout=None,
    ...                   random_state=0).fit(X, links)
    >>> model.transform(X).shape
    (32, 352)
    >>> model.similarity(X[:2], X).shape
    (2, 32)

    Search the corpus with binary queries, as the paper does:

    >>> ids, scores = model.index(X).search(X[:3], 2)
    >>> ids.shape, scores.shape
    ((3, 2), (3, 2))
    >>> sorted(model.weight_functions(tf=[1, 2, 4]))
    ['tf']
    """

    _parameter_constraints = {
        "hidden_tf": [Interval(Integral, 1, None)],
        "hidden_idf": [Interval(Integral, 1, None)],
        "hidden_length": [Interval(Integral, 1, None)],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "batch_size": [Interval(Integral, 1, None)],
        "max_iter": [Interval(Integral, 0, None)],
        "validation_interval": [Interval(Integral, 1, None)],
        "n_iter_no_change": [Interval(Integral, 1, None)],
        "tol": [Interval(Real, 0, None)],
        "baseline_holdout": [Checked(check_holdout)],
        "random_state": ["no_validation"],     # checked by check_random_state in fit, as before
        "verbose": ["no_validation"],          # used for its truth value
    }

    def __init__(self, hidden_tf=5, hidden_idf=10, hidden_length=10, *, learning_rate=1e-3, batch_size=1,
                 max_iter=100_000, validation_interval=1000, n_iter_no_change=10, tol=1e-4,
                 baseline_holdout=DEFAULT_HOLDOUT, random_state=None, verbose=False):
        self.hidden_tf = hidden_tf
        self.hidden_idf = hidden_idf
        self.hidden_length = hidden_length
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.validation_interval = validation_interval
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.baseline_holdout = baseline_holdout
        self.random_state = random_state
        self.verbose = verbose

    @classmethod
    def from_baseline(cls, n_features_in=1):
        """A LinkLearn that is its baseline without training: the tf.idf cosine (raw tf x log
        N/df, the collection's own idf; :func:`tfidf_cosine_weights`), scored and indexed as a
        fitted LinkLearn that fell back to it (``baseline_only_`` is True, ``baseline_gain_``
        None: nothing was compared). What a fit that ends as the tf.idf cosine is.

        Parameters
        ----------
        n_features_in : int, default=1
            The width of the term counts it is meant for (recorded; the weights take any width).

        Examples
        --------
        >>> import numpy as np
        >>> import scipy.sparse as sp
        >>> from learnsim.linklearn import LinkLearn, tfidf_cosine_weights
        >>> X = sp.csr_matrix(np.array([[2, 1, 0], [0, 1, 3], [1, 0, 1]]))
        >>> cosine = LinkLearn.from_baseline(3)
        >>> bool(np.allclose(cosine.transform(X).toarray(), tfidf_cosine_weights(X).toarray(), atol=1e-7))
        True
        """
        obj = cls()
        hidden = obj._check_params()
        if isinstance(n_features_in, bool) or not isinstance(n_features_in, Integral) or n_features_in < 1:
            raise ValueError(f"n_features_in must be an integer >= 1; got {n_features_in!r}")
        # the state of a fitted model (never used: the baseline scores), so that it saves and loads
        obj.coef_ = np.zeros(sum(3 * k + 1 for k in hidden))
        obj.input_scaling_ = np.tile([0.0, 1.0], (3, 1))
        obj.hidden_sizes_, obj.n_features_in_ = hidden, int(n_features_in)
        obj.n_iter_ = obj.best_iter_ = 0
        obj.validation_curve_, obj.train_loss_curve_, obj.timings_ = None, np.zeros(0), {}
        obj.variant_, obj.training_mean_length_, obj.training_vocabulary_ = "paper", None, None
        obj.baseline_gain_, obj.baseline_only_ = None, True
        return obj

    # ------------------------------------------------------------------ parameters
    def _check_params(self):
        validate_params(self)
        return int(self.hidden_tf), int(self.hidden_idf), int(self.hidden_length)

    def _mlps(self, hidden, scaling):
        return [_ScalarMLP(k, shift, scale) for k, (shift, scale) in zip(hidden, scaling)]

    def _slices(self, mlps):
        ends = np.cumsum([0] + [m.size for m in mlps])
        return [slice(int(a), int(b)) for a, b in zip(ends[:-1], ends[1:])]

    # ------------------------------------------------------------------ forward / backward
    def _factor_values(self, theta, mlps, codes):
        out = []
        for mlp, sl, name in zip(mlps, self._slices(mlps), _FACTORS):
            y, cache = mlp.forward(theta[sl], codes.values(name))
            out.append((y, cache))
        return out

    def _batch_gradient(self, theta, mlps, codes, adjacency, docs):
        """Mean C_d over ``docs`` and its gradient with respect to theta (eq. 4, 5).

        s_j = sum_t W_jt W_dt involves only the terms of d, so a step touches only the postings
        of d's terms (the documents sharing a term with d), not the whole count matrix: the
        other documents score 0 and get no gradient through W_j.

        The postings are the bulk of the work (a few times n for a corpus with common words), so
        eq. (5)'s factors are taken out of the sums over them wherever they can be: with
        v_t = f_idf(idf_t) W_dt, s_j = f_l(l_j) u_j where u_j = sum_t f_tf(tf_jt) v_t, so f_l is
        applied per document, not per posting, and the gradients need one gather and three
        passes over the postings.
        """
        factors = self._factor_values(theta, mlps, codes)
        f_tf, f_idf, f_len = (y for y, _ in factors)
        dy = [np.zeros(codes.values(name).size) for name in _FACTORS]
        X = codes.X
        col_ptr, col_len, col_rows, col_tf = codes.postings
        l_doc = f_len[codes.length_code_doc]                # f_l(l_j) of every document
        total = 0.0
        for d in docs:
            lo, hi = X.indptr[d], X.indptr[d + 1]
            terms = X.indices[lo:hi]
            tf_d, idf_d = codes.tf_code[lo:hi], codes.idf_code_term[terms]
            len_d = codes.length_code_doc[d]
            a_d, b_d = f_tf[tf_d], f_idf[idf_d]
            w_d = a_d * b_d * f_len[len_d]
            v = b_d * w_d
            # the postings of d's terms, term after term; every segment holds d itself, so none
            # is empty (reduceat below)
            counts = col_len[terms]
            rows, tf_p = _postings_of(terms, counts, col_ptr, col_rows, col_tf)
            a_p = f_tf[tf_p]
            v_p = np.repeat(v, counts)
            u = np.bincount(rows, weights=a_p * v_p, minlength=codes.n_docs)
            scores = l_doc * u
            linked = adjacency.indices[adjacency.indptr[d]:adjacency.indptr[d + 1]]
            is_neg = np.ones(codes.n_docs, dtype=bool)
            is_neg[linked] = False
            is_neg[d] = False
            loss, coef = _hinge_coefficients(scores, linked, np.flatnonzero(is_neg))
            total += loss
            # dC/ds_j = c_j. Through the postings: dC/df_tf(tf_jt) = c_j f_l(l_j) v_t,
            # dC/df_l(l_j) = c_j u_j, and sum_j c_j W_jt = f_idf(idf_t) R_t with
            # R_t = sum_j c_j f_l(l_j) f_tf(tf_jt), which is dC/dW_dt (c_d = 0)
            cl_p = (coef * l_doc)[rows]
            dy[0] += np.bincount(tf_p, weights=cl_p * v_p, minlength=dy[0].size)
            dy[2] += np.bincount(codes.length_code_doc, weights=coef * u, minlength=dy[2].size)
            R = np.add.reduceat(cl_p * a_p, np.cumsum(counts) - counts)
            g_d = b_d * R
            # d's own entries W_dt = f_tf(tf_dt) f_idf(idf_t) f_l(l_d)
            dy[0] += np.bincount(tf_d, weights=g_d * b_d * f_len[len_d], minlength=dy[0].size)
            per_term_idf = w_d * R + g_d * a_d * f_len[len_d]
            dy[1] += np.bincount(idf_d, weights=per_term_idf, minlength=dy[1].size)
            dy[2][len_d] += float(np.dot(g_d, a_d * b_d))
        n = len(docs)
        grad = np.empty_like(theta)
        for (mlp, sl), (_, cache), g in zip(zip(mlps, self._slices(mlps)), factors, dy):
            grad[sl] = mlp.backward(theta[sl], cache, g / n)
        return total / n, grad

    # ------------------------------------------------------------------ validation
    def _validation_scores(self, theta, mlps, codes, adjacency, queries):
        from ..evaluation import constraint_error_rate

        W = self._weighted(theta, mlps, codes)
        Wt = W.T.tocsc()
        adjacency = sp.csr_matrix(adjacency)
        errors = []

        def score_rows(rows):
            S = (W[rows] @ Wt).toarray()
            own = sp.csr_matrix((np.ones(rows.size, dtype=bool), (np.arange(rows.size), rows)), shape=S.shape)
            errors.append(constraint_error_rate(S, adjacency[rows], exclude=own))
            return S

        m = _block_ap(score_rows, adjacency, queries, ("ap", "p@10"))
        ap, err = m["ap"], np.concatenate(errors)
        keep = ~np.isnan(ap)
        finite_err = err[~np.isnan(err)]
        # on links too few to hold out a scoreable query, every score is nan: say nan without
        # numpy's "Mean of empty slice" RuntimeWarning reaching the user's fit
        return {"ap": float(np.mean(ap[keep])) if keep.any() else float("nan"),
                "p@10": float(np.mean(m["p@10"][keep])) if keep.any() else float("nan"),
                "error_rate": float(np.mean(finite_err)) if finite_err.size else float("nan")}

    def _weighted(self, theta, mlps, codes):
        """W of eq. (5) on the pattern of the counts."""
        f_tf, f_idf, f_len = (y for y, _ in self._factor_values(theta, mlps, codes))
        data = f_tf[codes.tf_code] * f_idf[codes.idf_code] * f_len[codes.length_code]
        return sp.csr_matrix((data, codes.X.indices, codes.X.indptr), shape=codes.X.shape)

    # ------------------------------------------------------------------ fit
    def fit(self, X, links, *, validation=None):
        """Learn the weighting from a linked training corpus.

        Parameters
        ----------
        X : sparse matrix (n_docs, n_terms)
            Term counts of the training documents (e.g. ``TextVectorizer("tf")``). Every
            document needs at least one term.
        links : Links or square adjacency matrix (n_docs, n_docs)
            Hyperlinks between the training documents; direction is ignored: L(d) holds the
            documents d links to and those linking to d (sec. 3.1).
        validation : tuple (X_valid, links_valid), optional
            A separate linked corpus (the paper's D_valid) for early stopping on average
            precision. Its idf and lengths are its own. The ``baseline_holdout`` part that judges
            learned against baseline is kept back from ``X``, never from ``validation``.

        Returns
        -------
        self

        Warns
        -----
        learnsim.baseline.BaselineWarning
            When the learned weighting does not clearly beat the tf.idf cosine on the held-out documents
            (the model falls back to the cosine), or when too few documents or links are left to
            hold any out (the model is not checked).
        """
        hidden = self._check_params()
        holdout = check_holdout(self.baseline_holdout)
        X = _float_counts(X, "X", allow_empty_rows=False)
        links = _as_links(links, X.shape[0], "links")
        rng = check_random_state(self.random_state)
        # what transform compares a collection with (CollectionShiftWarning): all of X
        training_mean_length = float(document_lengths(X).mean())
        training_vocabulary = np.flatnonzero(np.bincount(X.indices, minlength=X.shape[1]) > 0)
        held, report = None, None
        self.held_out_ = None
        if holdout is not None:
            split = holdout_documents(links, holdout, int(rng.integers(2**31 - 1)))
            if isinstance(split, str):
                report = unchecked(split + "; learned on every document", baseline_name=BASELINE_NAME,
                                   owner="LinkLearn", stacklevel=3)
            else:
                train, L_train, held_rows, L_held = split
                held = (X[held_rows], L_held)
                X, links = X[train], L_train
                # the documents the model never sees, for a check of its search over a whole
                # collection by the fit's recipe (learnsim.fitting); not saved with the model
                self.held_out_ = (np.asarray(held_rows), L_held)
        adjacency = links.symmetric().adjacency
        degrees = np.diff(adjacency.indptr)
        anchors = np.flatnonzero((degrees > 0) & (degrees < X.shape[0] - 1))
        if anchors.size == 0:
            raise ValueError("no training document has both linked and unlinked documents: LinkLearn needs "
                             "links that separate some documents from others")
        val = None
        if validation is not None:
            if not isinstance(validation, (tuple, list)) or len(validation) != 2:
                raise TypeError("validation must be a pair (X_valid, links_valid)")
            Xv = _float_counts(validation[0], "validation X", allow_empty_rows=True)
            if Xv.shape[1] != X.shape[1]:
                raise ValueError(f"validation X has {Xv.shape[1]} terms but X has {X.shape[1]}: use one vocabulary")
            links_v = _as_links(validation[1], Xv.shape[0], "validation links")
            adjacency_v = links_v.symmetric().adjacency
            val = (_Codes(Xv), adjacency_v, _query_rows(adjacency_v, 0))

        codes = _Codes(X)
        scaling = []
        for name, per_entry in (("tf", X.data), ("idf", codes.idf[X.indices]), ("length", codes.lengths)):
            scale = float(np.std(per_entry))
            scaling.append((float(np.mean(per_entry)), scale if scale > 0 else 1.0))
        mlps = self._mlps(hidden, scaling)
        theta = np.concatenate([m.init(rng) for m in mlps])

        lr = float(self.learning_rate)
        batch = int(self.batch_size)
        best_theta, best_ap, best_iter, stale = theta.copy(), -np.inf, 0, 0
        curve = {"iteration": [], "ap": [], "p@10": [], "error_rate": []}
        train_losses, interval_losses = [], []
        t_val = 0.0
        start = time.perf_counter()

        def evaluate(iteration):
            nonlocal best_theta, best_ap, best_iter, stale, t_val
            t0 = time.perf_counter()
            res = self._validation_scores(theta, mlps, *val)
            t_val += time.perf_counter() - t0
            curve["iteration"].append(iteration)
            for key in ("ap", "p@10", "error_rate"):
                curve[key].append(res[key])
            if res["ap"] > best_ap + self.tol:
                best_theta, best_ap, best_iter, stale = theta.copy(), res["ap"], iteration, 0
            else:
                stale += 1
            return stale >= self.n_iter_no_change

        if val is not None:
            evaluate(0)
        drawn = 0
        next_eval = self.validation_interval
        bar = progress(total=self.max_iter, desc="LinkLearn", enabled=None if self.verbose else False)
        stopped = False
        while drawn < self.max_iter and not stopped:
            docs = anchors[rng.integers(0, anchors.size, size=min(batch, self.max_iter - drawn))]
            loss, grad = self._batch_gradient(theta, mlps, codes, adjacency, docs)
            if not np.all(np.isfinite(grad)):
                raise FloatingPointError(f"the gradient became non-finite after {drawn} documents; lower "
                                         f"learning_rate (now {lr:g})")
            theta -= lr * grad
            drawn += docs.size
            interval_losses.append(loss)
            bar.update(docs.size)
            if drawn >= next_eval:
                next_eval += self.validation_interval
                train_losses.append(float(np.mean(interval_losses)))
                interval_losses = []
                if val is not None:
                    stopped = evaluate(drawn)
        bar.close()
        if interval_losses:
            train_losses.append(float(np.mean(interval_losses)))
        if val is not None and (not curve["iteration"] or curve["iteration"][-1] != drawn):
            evaluate(drawn)
        if val is None:
            best_theta, best_iter = theta, drawn

        self.coef_ = np.asarray(best_theta, dtype=np.float64)
        self.input_scaling_ = np.asarray(scaling, dtype=np.float64)
        self.hidden_sizes_ = hidden
        self.n_features_in_ = X.shape[1]
        self.n_iter_ = int(drawn)
        self.best_iter_ = int(best_iter)
        self.validation_curve_ = ({k: np.asarray(v, dtype=np.float64) for k, v in curve.items()}
                                  if val is not None else None)
        self.train_loss_curve_ = np.asarray(train_losses, dtype=np.float64)
        total = time.perf_counter() - start
        self.timings_ = {"train": total - t_val, "validation": t_val}
        self.variant_ = "paper"
        self.training_mean_length_ = training_mean_length
        self.training_vocabulary_ = training_vocabulary
        self.baseline_only_ = False
        if held is not None:
            learned, base = self._held_out_ap(self.coef_, mlps, *held)
            report = compare(learned, base, measure="average precision", unit="held-out documents",
                             baseline_name=BASELINE_NAME, owner="LinkLearn", random_state=0,
                             detail={"held_out_documents": int(held[0].shape[0]),
                                     "held_out_links": linked_pairs(held[1])}, stacklevel=3)
        self.baseline_gain_ = report
        return self

    def _held_out_ap(self, theta, mlps, X, links):
        """Each held-out query document's AvgP of its linked documents among the held-out
        documents, under the learned weighting (theta) and under the tf.idf cosine (NaN without
        a link); the same queries (all, or a seeded sample: ``_MAX_VALIDATION_QUERIES``) for both."""
        adjacency = links.symmetric().adjacency.tocsr()
        queries = _query_rows(adjacency, 0)
        out = []
        for W in (self._weighted(theta, mlps, _Codes(X)), tfidf_cosine_weights(X)):
            W = W.tocsr()
            WT = W.T.tocsc()
            # block by block: a held-out part of a large corpus never needs its whole score matrix
            out.append(_block_ap(lambda rows, W=W, WT=WT: (W[rows] @ WT).toarray(), adjacency, queries,
                                 ("ap",))["ap"])
        return out

    # ------------------------------------------------------------------ using it
    def _fitted_mlps(self):
        check_is_fitted(self, "coef_")
        return self._mlps(self.hidden_sizes_, self.input_scaling_)

    def weight_functions(self, tf=None, idf=None, length=None):
        """The learned f_tf, f_idf and f_l at the given values (the paper's Figure 3).

        Returns a dict with an array for each argument given.
        """
        mlps = self._fitted_mlps()
        out = {}
        for mlp, sl, name, x in zip(mlps, self._slices(mlps), _FACTORS, (tf, idf, length)):
            if x is not None:
                x = np.atleast_1d(np.asarray(x, dtype=np.float64))
                if x.ndim != 1 or not np.all(np.isfinite(x)):
                    raise ValueError(f"{name} values must be a finite 1-D array")
                out[name] = mlp.forward(self.coef_[sl], x)[0]
        return out

    def transform(self, X, idf=None):
        """The learned document weights d_i of eq. (5) as a sparse matrix (float32).

        Parameters
        ----------
        X : sparse matrix (n_docs, n_terms)
            Term counts of any corpus (the weighting transfers without retraining).
        idf : array (n_terms,), optional
            idf_i = log(N / df_i); by default computed from X itself (the corpus being indexed).
        """
        mlps = self._fitted_mlps()
        X = _float_counts(X, "X")
        if idf is None:
            if X.shape[0] < 2:
                raise ValueError("idf is computed from X, which needs at least 2 documents; pass idf= for a "
                                 "single document (e.g. the idf_from_counts of its corpus)")
        else:
            idf = np.asarray(idf, dtype=np.float64)
            if idf.shape != (X.shape[1],) or not np.all(np.isfinite(idf)):
                raise ValueError(f"idf must be a finite array of shape ({X.shape[1]},); got shape {idf.shape}")
        if self._fell_back():
            return tfidf_cosine_weights(X, idf).astype(np.float32)
        self._check_shift(X)
        codes = _Codes(X, idf)
        W = self._weighted(self.coef_, mlps, codes)
        return W.astype(np.float32)

    def _fell_back(self):
        if getattr(self, "baseline_only_", False):
            return True
        gain = getattr(self, "baseline_gain_", None)
        return gain is not None and gain.fell_back

    def _check_shift(self, X):
        """Warn (CollectionShiftWarning) when X is a collection far from the training one: the
        weighting of eq. (5) is in-domain (module notes)."""
        mean_train = getattr(self, "training_mean_length_", None)
        if mean_train is None or X.shape[0] < SHIFT_MIN_DOCUMENTS or X.nnz == 0:
            return
        mean = float(document_lengths(X).mean())
        reasons = []
        if not mean_train / SHIFT_LENGTH_FACTOR <= mean <= mean_train * SHIFT_LENGTH_FACTOR:
            reasons.append(f"its mean document length is {mean:.3g} term occurrences against {mean_train:.3g} "
                           "in training")
        vocabulary = getattr(self, "training_vocabulary_", None)
        if vocabulary is not None and X.shape[1] == self.n_features_in_:
            seen = np.zeros(X.shape[1], dtype=bool)
            seen[vocabulary] = True
            overlap = float(X.data[seen[X.indices]].sum() / X.data.sum())
            if overlap < SHIFT_MIN_OVERLAP:
                reasons.append(f"only {overlap:.0%} of its term occurrences are of terms seen in training")
        if reasons:
            warnings.warn("LinkLearn's paper variant (eq. 5) is an in-domain weighting, and this collection differs "
                          "widely from the one it was trained on: " + "; ".join(reasons) + ". The transferable "
                          "weighting is learnsim.weighting.LearnedBM25 (variant 'bm25', which contains Okapi "
                          "BM25): fit it on the same links", CollectionShiftWarning, stacklevel=3)

    def similarity(self, A, B=None):
        """sim(a, b) = inner product of the learned weights of two corpora's documents (dense);
        the tf.idf cosine (each corpus with its own idf) when the model fell back to it."""
        WA = self.transform(A)
        WB = WA if B is None else self.transform(B)
        return (WA @ WB.T).toarray()

    def index(self, X, idf=None):
        """A :class:`~learnsim.bm25.TermWeightIndex` of the corpus X in the learned weighting:
        binary queries (sec. 2.1) are then scored by adding up posting lists, like BM25's.

        The weights are computed once (``transform``), with X's own idf and lengths by default.
        When the model fell back to its baseline, a :class:`CosineIndex`: queries are scored by
        their tf.idf cosine (idf of X, or ``idf``) with the documents.
        """
        if self._fell_back():
            Xc = _float_counts(X, "X")
            idf = idf_from_counts(Xc) if idf is None else np.asarray(idf, dtype=np.float64)
            return CosineIndex(idf=idf).fit(self.transform(Xc, idf=idf))
        return TermWeightIndex(query_weights="binary").fit(self.transform(X, idf=idf))

    @staticmethod
    def score_queries(queries, document_weights):
        """Scores of binary-weighted queries (sec. 2.1) against precomputed document weights.

        ``queries``: term counts (n_queries, n_terms); ``document_weights``: ``transform(corpus)``.
        Returns a dense (n_queries, n_docs) float32 array. This is eq. (5)'s scoring of given
        weights, whatever a model's ``baseline_gain_``; ``index`` follows a fitted model's fallback.
        """
        return TermWeightIndex(query_weights="binary").fit(document_weights).score(queries)

    # ------------------------------------------------------------------ persistence
    def _get_state(self):
        check_is_fitted(self, "coef_")
        meta = {"params": {k: v for k, v in self.get_params().items() if k != "random_state"},
                "hidden_sizes": list(self.hidden_sizes_), "n_features_in": int(self.n_features_in_),
                "n_iter": self.n_iter_, "best_iter": self.best_iter_, "variant": self.variant_,
                "training_mean_length": self.training_mean_length_,
                "baseline_gain": None if self.baseline_gain_ is None else self.baseline_gain_.to_dict()}
        arrays = {"coef": self.coef_, "input_scaling": self.input_scaling_, "train_loss_curve": self.train_loss_curve_}
        if self.training_vocabulary_ is not None:
            arrays["training_vocabulary"] = np.asarray(self.training_vocabulary_, dtype=np.int64)
        if self.validation_curve_ is not None:
            for key, value in self.validation_curve_.items():
                arrays[_curve_array_name(key)] = value
        if getattr(self, "baseline_only_", False):
            meta["baseline_only"] = True        # written only then: other files stay as before
        return meta, arrays

    # a validation set without a scorable query leaves NaN in its curve
    _STATE_NONFINITE = tuple(_curve_array_name(key) for key in ("ap", "p@10", "error_rate"))

    @classmethod
    def _from_state(cls, meta, arrays):
        name = cls.__name__
        for key in ("params", "hidden_sizes", "n_features_in", "n_iter", "best_iter"):
            if key not in meta:
                raise ValueError(f"LinkLearn state lacks {key!r}")
        obj = cls(**meta["params"])
        obj._check_params()
        hidden = tuple(int(h) for h in meta["hidden_sizes"])
        if len(hidden) != 3 or min(hidden) < 1:
            raise ValueError(f"LinkLearn state: hidden_sizes must be 3 positive ints; got {meta['hidden_sizes']}")
        # the shape first, so that a message about values is never about a mis-shaped array
        coef = state_array(arrays, "coef", name, shape=(sum(3 * k + 1 for k in hidden),))
        scaling = state_array(arrays, "input_scaling", name, shape=(3, 2))
        if np.any(scaling[:, 1] <= 0):
            raise ValueError("LinkLearn state: input_scaling must have positive scales (its second column)")
        obj.coef_, obj.input_scaling_, obj.hidden_sizes_ = coef.astype(np.float64), scaling.astype(np.float64), hidden
        obj.n_features_in_ = state_number(meta, "n_features_in", name, integer=True, low=1)
        obj.n_iter_ = state_number(meta, "n_iter", name, integer=True, low=0)
        obj.best_iter_ = state_number(meta, "best_iter", name, integer=True, low=0)
        curve = state_array(arrays, "train_loss_curve", name, ndim=1, optional=True)
        obj.train_loss_curve_ = np.zeros(0) if curve is None else curve.astype(np.float64)
        keys = ("iteration", "ap", "p@10", "error_rate")
        obj.validation_curve_ = ({k: np.asarray(arrays[_curve_array_name(k)]) for k in keys}
                                 if all(_curve_array_name(k) in arrays for k in keys) else None)
        if obj.validation_curve_ is not None and len({v.shape for v in obj.validation_curve_.values()}) != 1:
            raise ValueError("LinkLearn state: the validation curves must be 1-D arrays of one length")
        obj.timings_ = {}
        # files written before issue 13 lack these: no held-out check, no shift check
        gain = meta.get("baseline_gain")
        obj.baseline_gain_ = None if gain is None else BaselineGain.from_dict(gain, owner=name)
        if meta.get("variant", "paper") != "paper":
            raise ValueError(f"LinkLearn state: variant must be 'paper'; got {meta.get('variant')!r}")
        obj.variant_ = "paper"
        obj.training_mean_length_ = (state_number(meta, "training_mean_length", name, low=0.0, low_open=True,
                                                  allow_none=True) if "training_mean_length" in meta else None)
        vocabulary = state_array(arrays, "training_vocabulary", name, ndim=1, kind="iu", low=0,
                                 high=obj.n_features_in_ - 1, optional=True)
        if vocabulary is not None and np.any(np.diff(vocabulary) <= 0):
            raise ValueError("LinkLearn state: training_vocabulary must hold increasing term indices")
        obj.training_vocabulary_ = None if vocabulary is None else vocabulary.astype(np.int64)
        baseline_only = meta.get("baseline_only", False)
        if not isinstance(baseline_only, bool):
            raise ValueError(f"LinkLearn state: baseline_only must be true or false; got {baseline_only!r}")
        obj.baseline_only_ = baseline_only
        return obj
