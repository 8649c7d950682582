"""Duplicate / paraphrase detection on top of any embedding: decide whether two items match.

Two decision rules, written once for every representation learnsim produces (a FILM or
:class:`~learnsim.mcd.MinimumClusterDistortion` metric, an LSI or tf-idf vectoriser, a
pipeline of them, a plain function, or embeddings computed elsewhere):

* :class:`PairwiseKNNMatcher`, the *Pairwise kNN rule* of Tang & Aw (FILM, sec. 3.3, steps
  5-6): a pair ``(a, b)`` is a match when ``b`` is among the ``k`` nearest neighbours of ``a``
  and ``a`` among those of ``b``, with ``k`` chosen on validation pairs by cross-entropy.
* :class:`ThresholdMatcher`: a pair is a match when its similarity in the embedding reaches a
  threshold chosen for validation accuracy, with probabilities from Platt scaling.

Both take the items as a matrix ``X`` (one row per item; raw input when a ``transformer`` is
given, e.g. a list of questions with a fitted :class:`~learnsim.text.TextVectorizer`) and the
pairs as row indices into it: a :class:`~learnsim.supervision.Pairs` with labels, or an
``(n_pairs, 2)`` array with ``y``. Predictions are 0/1 (1 = duplicate) and ``predict_proba``
follows scikit-learn (columns: P(not duplicate), P(duplicate)).

The reference collection of the kNN rule
----------------------------------------
Whether ``b`` is among ``a``'s ``k`` nearest neighbours depends on *which* items compete:
the rule searches the neighbours among **all rows of the X given** (to ``fit`` for the
validation pairs, to ``predict`` for new pairs, defaulting to the fitted X), which is the
paper's setting when X holds every sentence of the pair set. Rows that are in no pair still
compete, so a collection can be enlarged with unlabelled items; ``k`` tuned on one collection
is only meaningful on collections of similar size and density.

References
----------
.. [1] X. Tang and A. Aw, "FILM: A Fast, Interpretable, and Low-rank Metric Learning Approach
   for Sentence Matching", arXiv preprint, 2020 (paper 001 in ../shared/papers).
"""
from __future__ import annotations

import numbers
import warnings
from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError
from sklearn.metrics import roc_auc_score
from sklearn.utils.validation import check_is_fitted

from ._pair_inputs import (_check_metric, _check_pair_indices, _check_pair_labels, _confusion_rates,
                           _embed, _require_both_classes, _row_norms, _rowwise_dot, _unfitted_part)
from ..persistence import TRANSFORMER_PREFIX as _TRANSFORMER_PREFIX
from ..persistence import transformer_from_state as _transformer_from_state, transformer_state as _transformer_state
from .._utils.callers import warn_outside
from .._utils.params import Checked, Interval, Options, validate_params
from .._utils.validation import check_matrix, check_state_header, state_array, state_number
from ..evaluation import best_threshold, log_loss, pair_classification_report
from ..film.hybrid import DEFAULT_WEIGHT_GRID, check_input_weight, hybrid_rows, select_input_weight
from ..search import DISTANCE_METRICS, top_k

__all__ = ["PairwiseKNNMatcher", "ThresholdMatcher", "pair_similarity"]

# Scores closer than this many units in the last place of the computation count as tied: the
# search's blocked matrix products and a direct row-by-row product round differently.
_TIE_ULPS = 64
# Pairs handled at once when ranks are read off the neighbour lists (bounds the memory).
_RANK_CHUNK = 65536
# pair_similarity of a sparse E takes pairs in chunks of about this many stored entries of
# their rows: E[a], E[b] and their product are copies of those rows (65,536 pairs of short
# documents' character n-grams, ~150 a row, made 500 MB of a 1,080 MB learnsim.fit on pairs).
# A pair's value is its two rows' alone, so the chunking changes no bit of it.
_SPARSE_PAIR_ENTRIES = 2**20
#: The kNN rule's default candidates for k: values above a collection's other items are dropped
#: silently (they are the default's, not the user's; a warning about them named a parameter the
#: user never set, e.g. on every FILM fit on 120 pairs).
DEFAULT_K_GRID = (1, 2, 3, 5, 10, 20, 50)


# ----------------------------------------------------------------------------- pair similarity

def pair_similarity(E, pairs, metric="cosine"):
    """Similarity of each pair of rows of an embedding ``E`` (higher = more alike).

    ``"cosine"`` and ``"inner_product"`` as they are (an all-zero row has cosine 0 with
    everything, as in :func:`learnsim.search.top_k`); ``"euclidean"`` and ``"sqeuclidean"``
    negated, so that a larger value always means more similar. Computed in float64, in
    chunks of pairs, without any ``n x n`` matrix.

    Examples
    --------
    >>> import numpy as np
    >>> from learnsim.matching import pair_similarity
    >>> E = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 2.0]])
    >>> np.round(pair_similarity(E, np.array([[0, 1], [0, 2]])), 3).tolist()
    [0.707, 0.0]
    >>> np.round(pair_similarity(E, np.array([[0, 1], [1, 2]]), metric="sqeuclidean"), 6).tolist()
    [-1.0, -2.0]
    """
    metric = _check_metric(metric)
    E = check_matrix(E, name="E")
    idx = _check_pair_indices(pairs, E.shape[0])
    norms = _row_norms(E) if metric in ("cosine",) + DISTANCE_METRICS else None
    out = np.empty(idx.shape[0])
    step = _RANK_CHUNK
    if sp.issparse(E):
        step = int(max(1, min(step, _SPARSE_PAIR_ENTRIES * E.shape[0] // max(E.nnz, 1))))
    for start in range(0, idx.shape[0], step):
        a, b = idx[start:start + step, 0], idx[start:start + step, 1]
        dot = _rowwise_dot(E[a], E[b])
        if metric == "inner_product":
            s = dot
        elif metric == "cosine":
            denom = norms[a] * norms[b]
            s = np.divide(dot, denom, out=np.zeros_like(dot), where=denom > 0)
        else:
            s = -np.maximum(norms[a] ** 2 + norms[b] ** 2 - 2.0 * dot, 0.0)
            if metric == "euclidean":
                s = -np.sqrt(-s)
        out[start:start + len(a)] = s
    return out


# ----------------------------------------------------------------------------- persistence

_STATE_VERSION = 1
def _common_state(matcher, params):
    check_is_fitted(matcher)
    t_meta, t_arrays = _transformer_state(matcher.transformer)
    meta = {"state_version": _STATE_VERSION, "params": params, "transformer": t_meta}
    arrays = dict(t_arrays)
    arrays["embedding"] = matcher.embedding_
    return meta, arrays


def _check_common_state(cls, meta, arrays, required_meta, required_arrays):
    name = cls.__name__
    check_state_header(name, meta, arrays, _STATE_VERSION, ("params", "transformer") + tuple(required_meta))
    own = {key for key in arrays if not key.startswith(_TRANSFORMER_PREFIX)}
    expected = {"embedding"} | set(required_arrays)
    if own != expected:
        raise ValueError(f"{name} state must hold the arrays {sorted(expected)} (plus the "
                         f"transformer's); got {sorted(own)}")
    params = meta["params"]
    valid = set(cls().get_params()) - {"transformer"}
    if not isinstance(params, dict) or set(params) != valid:
        raise ValueError(f"{name} state: 'params' must give exactly {sorted(valid)}")
    E = check_matrix(arrays["embedding"], name=f"{name} state array 'embedding'")
    obj = cls(transformer=_transformer_from_state(meta["transformer"], arrays), **params)
    _check_metric(obj.metric)
    obj._set_collection(E)
    return obj


# ----------------------------------------------------------------------------- shared base

class _PairMatcher(BaseEstimator):
    """Input handling, scoring and reporting shared by the matchers."""

    #: Whether a pair's decision depends on the other texts decided with it (the kNN rule's
    #: neighbours are searched among them): such a rule must be given all the pairs of one
    #: request at once, never in pieces, or two surfaces decide the same pair differently.
    decides_together = False

    # the transformer's state is checked by its own class (persistence._restore)
    _STATE_NESTED = ("transformer",)

    def __sklearn_tags__(self):
        # X, the collection the pairs index into, may be sparse (a TextVectorizer's rows)
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _collection(self, X):
        """The embedded collection to use: the fitted one, or the embedding of a new X."""
        check_is_fitted(self)
        if X is None:
            return self.embedding_
        E = _embed(self.transformer, X, "X")
        if E.shape[1] != self.n_embedding_features_:
            raise ValueError(f"the embedding of X has {E.shape[1]} features, but this "
                             f"{type(self).__name__} was fitted on embeddings with "
                             f"{self.n_embedding_features_}; use the same transformer")
        return E

    def _fit_inputs(self, X, pairs, y):
        try:
            E = _embed(self.transformer, X, "X")
        except NotFittedError as exc:
            # the transformer's own check (any transformer: its class decides what fitted is)
            if exc.args and type(self.transformer).__name__ in str(exc.args[0]):
                raise _unfitted_part(self.transformer, "transformer", type(self).__name__) from None
            raise
        idx = _check_pair_indices(pairs, E.shape[0])
        labels = _check_pair_labels(pairs, y, idx.shape[0])
        _require_both_classes(labels)
        return E, idx, labels

    def _set_collection(self, E):
        self.embedding_ = E
        self.n_items_, self.n_embedding_features_ = E.shape

    def predict(self, pairs, X=None):
        """1 (duplicate) or 0 for each pair of rows of ``X`` (default: the fitted collection)."""
        raise NotImplementedError

    def predict_proba(self, pairs, X=None):
        raise NotImplementedError

    def score(self, pairs, y=None, X=None):
        """Accuracy of :meth:`predict` on labelled pairs (labels in ``pairs`` or ``y``)."""
        check_is_fitted(self)
        E = self._collection(X)
        idx = _check_pair_indices(pairs, E.shape[0])
        labels = _check_pair_labels(pairs, y, idx.shape[0])
        return float(np.mean(self._predict_indices(idx, E) == labels))

    def report(self, pairs, y=None, X=None):
        """Accuracy, error rate, log loss, TPR, TNR, FPR, FNR on labelled pairs.

        Rates are fractions: TPR = duplicates predicted duplicate / duplicates, TNR =
        non-duplicates predicted non-duplicate / non-duplicates, FPR = 1 - TNR, FNR = 1 - TPR.
        Also ``n_pairs``, ``n_duplicates`` and the rule's setting (``k`` or ``threshold``).
        """
        check_is_fitted(self)
        E = self._collection(X)
        idx = _check_pair_indices(pairs, E.shape[0])
        labels = _check_pair_labels(pairs, y, idx.shape[0])
        decision, threshold = self._decision_scores(idx, E)
        proba = self._proba_from_decision(decision)
        result = pair_classification_report(decision, labels, threshold, probabilities=proba)
        del result["threshold"]  # only meaningful for the threshold rule, which adds it back
        result.update(_confusion_rates(labels, decision >= threshold))
        result["n_pairs"] = int(idx.shape[0])
        result["n_duplicates"] = int(labels.sum())
        result.update(self._setting())
        return result

    def _predict_indices(self, idx, E):
        decision, threshold = self._decision_scores(idx, E)
        return decision >= threshold


def _warn_tied(scores, threshold):
    """A warning where every fitted pair has the same score: no threshold separates any of them,
    and best_threshold's answer (inf, as ties go to no duplicate, or every pair a duplicate) was
    a silent rule that never looked at a pair."""
    top, low = float(scores.max()), float(scores.min())
    if top - low > _tie_eps(np.float64) * max(1.0, abs(top)):
        return
    rule = ("it calls no pair a duplicate (threshold_ is inf: ties go to no duplicate)" if np.isposinf(threshold)
            else "it calls every pair a duplicate")
    warn_outside(f"every one of the {scores.size} fitted pairs has the same score ({top:.6g}), so no threshold "
                 f"separates duplicates from the other pairs and {rule}; are the rows of X (or the transformer's "
                 "embedding) all alike?", UserWarning)


# ----------------------------------------------------------------------------- kNN rule

def _tie_eps(dtype):
    return _TIE_ULPS * float(np.finfo(dtype).eps)


def _neighbour_ranks(E, idx, max_rank, metric, block_size=None):
    """Censored neighbour ranks of each pair: ``(rank of b among a's neighbours, rank of a
    among b's)`` in the collection ``E``, or ``max_rank + 1`` when above ``max_rank``.

    Rank = 1 + the number of *other* items (neither a nor b) strictly more similar to the
    query than its partner; items whose similarity equals the partner's (within rounding)
    do not push it down, so ties cannot make the rule depend on the order of the rows.
    The neighbour lists come from :func:`learnsim.search.top_k` (blocked, exact), asking
    for ``max_rank + 1`` items so that the query itself may be among them.
    """
    n_items = E.shape[0]
    queries = np.unique(idx)
    k_search = min(max_rank + 1, n_items)
    nbr_idx, nbr_scores = top_k(E[queries], E, k_search, metric=metric, block_size=block_size)
    is_distance = metric in DISTANCE_METRICS
    # Compare in the space the search scores in: squared distances for the Euclidean metrics
    # (computed in float64 there), similarities otherwise.
    if is_distance:
        goodness = -(nbr_scores.astype(np.float64) ** 2 if metric == "euclidean" else
                     nbr_scores.astype(np.float64))
        eps = _tie_eps(np.float64)
        sq_norms = _row_norms(E) ** 2
    else:
        goodness = nbr_scores.astype(np.float64)
        eps = _tie_eps(nbr_scores.dtype)
        norms = np.ones(n_items) if metric == "cosine" else _row_norms(E)
    partner_metric = "sqeuclidean" if is_distance else metric

    ranks = np.empty(idx.shape, dtype=np.int64)
    # a few (chunk, k_search) float64 work arrays per chunk: keep each near 32 MB
    chunk_size = max(1, min(_RANK_CHUNK, _RANK_CHUNK * 64 // k_search))
    for start in range(0, idx.shape[0], chunk_size):
        chunk = idx[start:start + chunk_size]
        g_pair = pair_similarity(E, chunk, partner_metric)
        for side in (0, 1):
            q, partner = chunk[:, side], chunk[:, 1 - side]
            rows = np.searchsorted(queries, q)
            cand, cand_good = nbr_idx[rows], goodness[rows]
            # rounding noise of the two computations of a score, in the units they are made of
            if is_distance:
                tol = eps * (2 * sq_norms[q][:, None] + sq_norms[partner][:, None] + sq_norms[cand])
            else:
                tol = eps * norms[q][:, None] * (norms[partner][:, None] + norms[cand])
            better = ((cand_good > g_pair[:, None] + tol)
                      & (cand != q[:, None]) & (cand != partner[:, None]))
            n_better = better.sum(axis=1)
            ranks[start:start + len(chunk), side] = np.where(n_better < max_rank, n_better + 1,
                                                             max_rank + 1)
    return ranks


def _check_k_value(k, name):
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral) or k < 1:
        raise ValueError(f"{name} must be a positive integer; got {k!r}")
    return int(k)


def _check_k_grid(k_grid):
    """The values of ``k_grid`` as ints (each a positive integer), or a ValueError."""
    try:
        return [_check_k_value(v, "every value of k_grid") for v in k_grid]
    except TypeError:
        raise ValueError(f"k_grid must be a sequence of positive integers; got {k_grid!r}") from None


def _bucket_probabilities(mutual, labels, smoothing=1.0):
    """P(duplicate | the rule says match) and P(duplicate | it does not), add-one smoothed."""
    n_mutual = int(mutual.sum())
    pos_mutual = int(np.sum(mutual & labels))
    n_rest = mutual.size - n_mutual
    pos_rest = int(labels.sum()) - pos_mutual
    p_match = (pos_mutual + smoothing) / (n_mutual + 2 * smoothing)
    p_no_match = (pos_rest + smoothing) / (n_rest + 2 * smoothing)
    return p_match, p_no_match


class PairwiseKNNMatcher(_PairMatcher):
    """The Pairwise kNN rule (Tang & Aw, FILM, sec. 3.3): a pair ``(a, b)`` is a duplicate when
    ``b`` is among ``a``'s ``k`` nearest neighbours and ``a`` among ``b``'s.

    Neighbours are searched, by ``metric`` in the embedding, among **all rows of the
    collection X** (see the module docstring): the X given to :meth:`fit` for the validation
    pairs, the X given to :meth:`predict` (default: the fitted one) for new pairs. The search
    is exact and blocked (:func:`learnsim.search.top_k`), so no ``n x n`` matrix is built.

    Parameters
    ----------
    transformer : None, fitted object with ``transform(X)``, or callable, default=None
        Maps the rows of X to the embedding (a fitted FILM / MCD metric, a
        :class:`~learnsim.text.TextVectorizer`, a pipeline, a function). It is used as it is,
        never fitted here. None: X is the embedding.
    k : int or "auto", default="auto"
        Neighbourhood size. "auto" picks, among ``k_grid``, the k whose calibrated rule has the
        lowest cross-entropy on the fitted (validation) pairs (paper, steps 5-6); ties go to
        the smaller k.
    k_grid : sequence of int, default=(1, 2, 3, 5, 10, 20, 50)
        Candidates for "auto", and the points of ``validation_curve_`` (the paper's Figure 4).
        Values above ``n_items - 1`` cannot be neighbourhoods and are dropped: silently from the
        default grid (it adapts to the collection), with a warning for a grid given (when
        ``k="auto"``).
    metric : {"cosine", "inner_product", "euclidean", "sqeuclidean"}, default="cosine"
    block_size : int or (int, int), optional
        Passed to :func:`~learnsim.search.top_k`; results do not depend on it.

    Attributes
    ----------
    k_ : int
        The neighbourhood size used by :meth:`predict`.
    ranks_ : ndarray of shape (n_pairs, 2)
        Censored neighbour ranks of the fitted pairs (see :meth:`pair_ranks`).
    validation_curve_ : dict of ndarray
        Per candidate ``"k"`` on the fitted pairs: ``"accuracy"``, ``"tpr"``, ``"tnr"``,
        ``"fpr"``, ``"fnr"`` of the hard rule, ``"log_loss"`` of its calibrated probabilities,
        ``"n_match"`` (pairs the rule calls duplicates), ``"p_duplicate_match"`` and
        ``"p_duplicate_no_match"`` (the two calibrated probabilities).
    p_duplicate_match_, p_duplicate_no_match_ : float
        The probabilities :meth:`predict_proba` gives, at ``k_``.
    embedding_ : ndarray or CSR matrix
        The embedded fitted collection (the default reference collection).
    n_items_, n_embedding_features_ : int

    Notes
    -----
    *Ranks and ties.* The rank of ``b`` for query ``a`` is 1 + the number of other items
    strictly more similar to ``a`` than ``b`` is (so the query itself and the partner never
    count, and items tied with ``b`` do not push it out). ``b`` is among ``a``'s ``k``
    nearest neighbours iff that rank is at most ``k``. The rule is symmetric in ``a`` and
    ``b`` and does not depend on the order of the rows.

    *Probabilities.* The rule itself is a hard 0/1 decision, whose log loss would only be a
    rescaled error rate (each error costs ``-log(eps)``). So, as the probability, each k gets
    the frequency of duplicates among the validation pairs that the rule calls duplicates,
    and among those it does not, with add-one (Laplace) smoothing:
    ``P(dup | match) = (duplicates among matches + 1) / (matches + 2)``. The cross-entropy used
    to choose k is the log loss of these probabilities on the validation pairs, i.e. how
    much the rule at that k tells about the label (the conditional entropy of the label
    given the rule's decision); it does not favour a rule just because it is confident.
    ``predict`` stays the paper's rule (mutual neighbours), which agrees with
    ``predict_proba >= 0.5`` whenever a match makes a duplicate more likely than not and a
    non-match less likely.

    *When the rule is weak.* It sees only ranks, never how similar the two items are. If the
    non-duplicate pairs are themselves related items (as Quora's are) and the collection is
    sparse (each question in about one pair), a question's partner is often its nearest
    neighbour whatever the label, so non-duplicates pass the rule too; a paraphrase in other
    words is also pushed out by any item with more words in common. There a threshold on
    the similarity (:class:`ThresholdMatcher`) is usually more accurate; compare the two
    with :meth:`report` on held-out pairs.

    References
    ----------
    .. [1] X. Tang and A. Aw, "FILM: A Fast, Interpretable, and Low-rank Metric Learning Approach
       for Sentence Matching", arXiv preprint, 2020 (paper 001 in ../shared/papers).

    Examples
    --------
    Twenty vectors, rows 2i and 2i + 1 near-duplicates; ten duplicate and ten other pairs:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = np.repeat(rng.normal(size=(10, 5)), 2, axis=0) + 0.1 * rng.normal(size=(20, 5))
    >>> pairs = np.array([[2 * i, 2 * i + 1] for i in range(10)] + [[2 * i, (2 * i + 3) % 20] for i in range(10)])
    >>> y = np.r_[np.ones(10), np.zeros(10)].astype(int)
    >>> from learnsim.matching import PairwiseKNNMatcher
    >>> knn = PairwiseKNNMatcher(k=1).fit(X, pairs, y)
    >>> knn.predict(pairs).tolist() == y.tolist()
    True
    >>> knn.predict(np.array([[0, 1], [0, 2]])).tolist()
    [1, 0]
    """

    _parameter_constraints = {
        "transformer": ["no_validation"],      # None (X is the embedding) or checked by _embed when used
        "k": [Interval(Integral, 1, None), Options({"auto"})],
        "k_grid": [Checked(_check_k_grid)],
        "metric": [Checked(_check_metric)],
        "block_size": ["no_validation"],       # checked by the search where it is used
    }

    decides_together = True

    def __init__(self, transformer=None, k="auto", k_grid=DEFAULT_K_GRID, metric="cosine",
                 block_size=None):
        self.transformer = transformer
        self.k = k
        self.k_grid = k_grid
        self.metric = metric
        self.block_size = block_size

    def _candidate_ks(self, n_items):
        max_k = n_items - 1
        if max_k < 1:
            raise ValueError(f"X has {n_items} item(s); the kNN rule needs at least 2")
        # k and k_grid were checked by validate_params in fit
        fixed = None if isinstance(self.k, str) else int(self.k)
        if fixed is not None and fixed > max_k:
            raise ValueError(f"k={fixed} is larger than the {max_k} other items of the collection "
                             "(X has " + str(n_items) + " rows); pass a smaller k")
        grid = sorted(set(_check_k_grid(self.k_grid)))
        if not grid and fixed is None:
            raise ValueError("k_grid is empty; give candidate neighbourhood sizes for k='auto'")
        too_big = [v for v in grid if v > max_k]
        if too_big:
            grid = [v for v in grid if v <= max_k]
            if fixed is None and not grid:
                raise ValueError(f"every value of k_grid exceeds the {max_k} other items of the "
                                 f"collection (X has {n_items} rows); give smaller values")
            # with a fixed k the grid only feeds validation_curve_; the default grid adapts to the
            # collection (compared by value: a clone or a saved model holds a copy of it)
            if fixed is None and tuple(grid + too_big) != DEFAULT_K_GRID:
                warnings.warn(f"k_grid values {too_big} exceed the {max_k} other items of the "
                              "collection and were dropped", UserWarning, stacklevel=3)
        if fixed is not None and fixed not in grid:
            grid = sorted(grid + [fixed])
        return np.asarray(grid, dtype=np.int64), fixed

    def fit(self, X, pairs, y=None):
        """Compute the neighbour ranks of the validation pairs and choose ``k``.

        Parameters
        ----------
        X : array-like, sparse matrix, or whatever ``transformer`` takes, n_items rows
            The collection: every item of the pairs, plus any other item that should compete
            as a neighbour.
        pairs : Pairs with labels, or array-like of shape (n_pairs, 2)
            Validation pairs as row indices into X. Both duplicates and non-duplicates needed.
        y : array-like of shape (n_pairs,), optional
            Duplicate flags (bool, 0/1 or -1/1) when ``pairs`` is an index array.

        Returns
        -------
        self
        """
        validate_params(self)
        E, idx, labels = self._fit_inputs(X, pairs, y)
        grid, fixed = self._candidate_ks(E.shape[0])
        ranks = _neighbour_ranks(E, idx, int(grid.max()), self.metric, self.block_size)
        worst = ranks.max(axis=1)
        curve = {key: [] for key in ("k", "accuracy", "tpr", "tnr", "fpr", "fnr", "log_loss",
                                     "n_match", "p_duplicate_match", "p_duplicate_no_match")}
        for k in grid:
            match = worst <= k
            p_match, p_no = _bucket_probabilities(match, labels)
            rates = _confusion_rates(labels, match)
            curve["k"].append(int(k))
            curve["accuracy"].append(float(np.mean(match == labels)))
            for key in ("tpr", "tnr", "fpr", "fnr"):
                curve[key].append(rates[key])
            curve["log_loss"].append(log_loss(labels, np.where(match, p_match, p_no)))
            curve["n_match"].append(int(match.sum()))
            curve["p_duplicate_match"].append(p_match)
            curve["p_duplicate_no_match"].append(p_no)
        self.validation_curve_ = {key: np.asarray(values) for key, values in curve.items()}
        if fixed is None:
            # argmin returns the first minimum: the smallest k among equally good ones
            self.k_ = int(grid[int(np.argmin(self.validation_curve_["log_loss"]))])
        else:
            self.k_ = fixed
        at = int(np.flatnonzero(grid == self.k_)[0])
        self.p_duplicate_match_ = float(self.validation_curve_["p_duplicate_match"][at])
        self.p_duplicate_no_match_ = float(self.validation_curve_["p_duplicate_no_match"][at])
        self.ranks_ = ranks
        self._set_collection(E)
        return self

    def pair_ranks(self, pairs, X=None, max_rank=None):
        """Neighbour ranks ``(rank of b for a, rank of a for b)`` of each pair, shape (n_pairs, 2).

        Ranks above ``max_rank`` (default ``k_``) are reported as ``max_rank + 1``. See the
        class notes for the definition; the rule is ``pair_ranks(...).max(axis=1) <= k_``.
        """
        E = self._collection(X)
        idx = _check_pair_indices(pairs, E.shape[0])
        if max_rank is None:
            max_rank = self.k_
        max_rank = _check_k_value(max_rank, "max_rank")
        max_rank = min(max_rank, E.shape[0] - 1)
        if max_rank < 1:
            raise ValueError(f"X has {E.shape[0]} item(s); the kNN rule needs at least 2")
        return _neighbour_ranks(E, idx, max_rank, self.metric, self.block_size)

    def _decision_scores(self, idx, E):
        if self.k_ > E.shape[0] - 1:
            raise ValueError(f"the kNN duplicate rule decides among the texts given together (a pair is a duplicate "
                             f"when each text is among the other's {self.k_} nearest): {E.shape[0]} texts are too "
                             f"few, it needs at least {self.k_ + 1}; give more texts together (matching against an "
                             f"index: k of at least {self.k_}), or refit with a smaller k")
        ranks = _neighbour_ranks(E, idx, self.k_, self.metric, self.block_size)
        return (ranks.max(axis=1) <= self.k_).astype(np.float64), 1.0

    def _proba_from_decision(self, decision):
        return np.where(decision >= 1.0, self.p_duplicate_match_, self.p_duplicate_no_match_)

    def _setting(self):
        return {"k": self.k_}

    def predict(self, pairs, X=None):
        """1 where the two items are mutual ``k_``-nearest neighbours in X, else 0.

        Parameters
        ----------
        pairs : Pairs or array-like of shape (n_pairs, 2)
            Row indices into X (labels, if any, are ignored).
        X : optional
            The collection the neighbours are searched in (raw input when a transformer is
            set); default: the fitted collection.
        """
        E = self._collection(X)
        idx = _check_pair_indices(pairs, E.shape[0])
        return self._predict_indices(idx, E).astype(np.int64)

    def predict_proba(self, pairs, X=None):
        """Columns P(not duplicate), P(duplicate): the calibrated probabilities of the rule's
        two outcomes (see the class notes)."""
        E = self._collection(X)
        idx = _check_pair_indices(pairs, E.shape[0])
        decision, _ = self._decision_scores(idx, E)
        p = self._proba_from_decision(decision)
        return np.column_stack([1.0 - p, p])

    # persistence protocol (learnsim.persistence)
    def _get_state(self):
        grid = self.k_grid
        params = {"k": self.k if isinstance(self.k, str) else int(self.k),
                  "k_grid": [int(v) for v in grid], "metric": self.metric,
                  "block_size": list(self.block_size) if isinstance(self.block_size, tuple)
                  else self.block_size}
        meta, arrays = _common_state(self, params)
        meta.update({"k": int(self.k_), "p_duplicate_match": self.p_duplicate_match_,
                     "p_duplicate_no_match": self.p_duplicate_no_match_,
                     "validation_curve": {key: value.tolist()
                                          for key, value in self.validation_curve_.items()}})
        arrays["ranks"] = self.ranks_
        return meta, arrays

    @classmethod
    def _from_state(cls, meta, arrays):
        name = cls.__name__
        obj = _check_common_state(cls, meta, arrays, ("k", "p_duplicate_match", "p_duplicate_no_match",
                                                      "validation_curve"), ("ranks",))
        if isinstance(obj.block_size, list):
            obj.block_size = tuple(obj.block_size)
        obj.k_grid = tuple(obj.k_grid)
        obj.k_ = _check_k_value(meta["k"], f"{name} state: k")
        if obj.k_ > obj.n_items_ - 1:
            raise ValueError(f"{name} state: k={obj.k_} exceeds the {obj.n_items_ - 1} other items "
                             "of the saved collection")
        for key in ("p_duplicate_match", "p_duplicate_no_match"):
            value = state_number(meta, key, name)
            if not 0.0 < value < 1.0:
                raise ValueError(f"{name} state: {key} must lie in (0, 1); got {value}")
            setattr(obj, key + "_", value)
        curve = meta["validation_curve"]
        if not isinstance(curve, dict) or "k" not in curve:
            raise ValueError(f"{name} state: 'validation_curve' must be a dict with a 'k' entry")
        obj.validation_curve_ = {key: np.asarray(value) for key, value in curve.items()}
        lengths = {value.shape for value in obj.validation_curve_.values()}
        if len(lengths) != 1 or len(next(iter(lengths))) != 1:
            raise ValueError(f"{name} state: every validation_curve entry must be 1-D of one length")
        ranks = state_array(arrays, "ranks", name, ndim=2, kind="iu", low=1)
        if ranks.shape[1] != 2:
            raise ValueError(f"{name} state: array 'ranks' must have shape (n_pairs, 2); got {ranks.shape}")
        obj.ranks_ = ranks.astype(np.int64)
        return obj


# ----------------------------------------------------------------------------- threshold rule

def _check_optional_input_weight(value):
    if value is not None:
        check_input_weight(value, allow_auto=True)


def _check_weight_grid(weight_grid):
    """Each value of ``weight_grid`` a weight in [0, 1] (as ``_check_k_grid``): one number was
    "'float' object is not iterable" at fit, and a str was read letter by letter."""
    if isinstance(weight_grid, (str, bytes)):
        raise ValueError(f"weight_grid must be a sequence of weights in [0, 1]; got {weight_grid!r}")
    try:
        return [check_input_weight(w, "every weight of weight_grid") for w in weight_grid]
    except TypeError:
        raise ValueError(f"weight_grid must be a sequence of weights in [0, 1]; got {weight_grid!r}") from None


def _fit_platt(scores, labels, max_iter=100, tol=1e-10):
    """Platt scaling: (slope, intercept) of P(dup) = 1 / (1 + exp(-(slope * s + intercept))).

    Fitted by Newton's method with backtracking on Platt's smoothed targets
    (``(n_pos + 1) / (n_pos + 2)`` for duplicates, ``1 / (n_neg + 2)`` for the others), which
    keep the slope finite even when the scores separate the classes perfectly (Platt 1999;
    Lin, Lin & Weng 2007). The scores are standardised first for a well-conditioned problem.
    """
    n_pos = int(labels.sum())
    n_neg = labels.size - n_pos
    target = np.where(labels, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    centre = float(np.mean(scores))
    spread = float(np.std(scores))
    if spread == 0.0:
        # constant scores carry no information: predict the (smoothed) base rate
        prior = float(np.mean(target))
        return 0.0, float(np.log(prior / (1.0 - prior)))
    z = (scores - centre) / spread
    design = np.column_stack([z, np.ones_like(z)])

    def objective(w):
        t = design @ w
        # log(1 + exp(t)) - target * t, written to avoid overflow
        return float(np.sum(np.logaddexp(0.0, t) - target * t))

    w = np.array([0.0, np.log(np.mean(target) / (1.0 - np.mean(target)))])
    value = objective(w)
    for _ in range(max_iter):
        p = 1.0 / (1.0 + np.exp(-(design @ w)))
        grad = design.T @ (p - target)
        hess = (design * (p * (1.0 - p))[:, None]).T @ design + 1e-12 * np.eye(2)
        step = np.linalg.solve(hess, grad)
        t = 1.0
        while True:
            candidate = w - t * step
            new_value = objective(candidate)
            if new_value <= value - 1e-4 * t * float(grad @ step) or t < 1e-10:
                break
            t /= 2.0
        converged = abs(value - new_value) <= tol * max(1.0, abs(value))
        w, value = candidate, new_value
        if converged:
            break
    slope = w[0] / spread
    return float(slope), float(w[1] - slope * centre)


def _fit_calibration(scores, labels):
    """(threshold, accuracy, slope, intercept): the accuracy-optimal threshold on ``scores``
    (:func:`learnsim.evaluation.best_threshold`) and a logistic calibration whose 0.5 point is
    that threshold, P(dup) = 1 / (1 + exp(-slope (s - threshold))), so that P(dup) >= 0.5
    exactly where the rule says duplicate.

    A free Platt fit put its 0.5 point elsewhere (where the logistic's likelihood, not the
    accuracy, is best): on random pairs of 40 synthetic collections 505 of 14,291 pairs were
    called different at P(dup) up to 0.60 or duplicates below 0.5. Only the slope is fitted here
    (Newton's method on Platt's smoothed targets, which keep it finite when the scores separate
    the classes at the threshold), and it is kept positive: a higher score is never less
    probably a duplicate. An infinite threshold (no pair a duplicate did best) has no point to
    centre on: the free Platt fit, whose probabilities stop just under 0.5 (:func:`_agreeing`),
    or, where its slope is not positive, the smoothed share of duplicates for every pair.
    """
    threshold, accuracy = best_threshold(scores, labels)
    scores = np.asarray(scores, dtype=np.float64)
    labels = np.asarray(labels, dtype=bool)
    n_pos = int(labels.sum())
    n_neg = labels.size - n_pos
    target = np.where(labels, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    if not np.isfinite(threshold):
        slope, intercept = _fit_platt(scores, labels)
        if slope > 0:
            return threshold, accuracy, slope, intercept
        prior = float(np.mean(target))
        return threshold, accuracy, 0.0, float(np.log(prior / (1.0 - prior)))
    spread = float(np.std(scores))
    if spread == 0.0:
        # every fitted pair at the threshold: nothing to scale by; 0.5 there, just under below it
        return threshold, accuracy, 0.0, 0.0
    z = (scores - threshold) / spread
    a = _centred_slope(z, target)
    slope = a / spread
    return threshold, accuracy, float(slope), float(-(slope * threshold))


# the smallest slope (in units of the scores' spread) a calibration keeps: above 0 so that a
# higher score is more probably a duplicate, however the fitted pairs fell
_MIN_SLOPE = 1e-6


def _centred_slope(z, target, max_iter=100, tol=1e-12):
    """The a >= _MIN_SLOPE minimising sum(log(1 + exp(a z)) - target a z) (convex in a)."""
    def objective(a):
        t = a * z
        return float(np.sum(np.logaddexp(0.0, t) - target * t))

    # at a = 0 the derivative is sum((0.5 - target) z): not negative, the best positive slope is ~0
    if float(np.sum((0.5 - target) * z)) >= 0.0:
        return _MIN_SLOPE
    a, value = 1.0, objective(1.0)
    for _ in range(max_iter):
        p = _sigmoid(a * z)
        grad = float(np.sum((p - target) * z))
        hess = float(np.sum(p * (1.0 - p) * z * z)) + 1e-12
        step, t = grad / hess, 1.0
        while True:
            candidate = max(a - t * step, _MIN_SLOPE)
            new_value = objective(candidate)
            if new_value <= value or t < 1e-10:
                break
            t /= 2.0
        converged = abs(value - new_value) <= tol * max(1.0, abs(value)) and abs(candidate - a) <= 1e-9 * max(1.0, a)
        a, value = candidate, new_value
        if converged:
            break
    return a


_BELOW_HALF = float(np.nextafter(0.5, 0.0))


def _agreeing(p, decided):
    """The probabilities ``p`` on the side of 0.5 of the decisions ``decided``: at least 0.5
    where the rule says duplicate, just under 0.5 at most where it does not. A calibration
    centred on the threshold (:func:`_fit_calibration`) needs this only where rounding puts a
    score just under the threshold at exactly 0.5; a model saved before it (a free Platt fit)
    gave the pairs between its threshold and its 0.5 point a probability on the other side of
    their decision, which now stops at 0.5 (DuplicateRule warns of such a model)."""
    p = np.asarray(p, dtype=np.float64)
    decided = np.asarray(decided, dtype=bool)
    return np.where(decided, np.maximum(p, 0.5), np.minimum(p, _BELOW_HALF))


def _sigmoid(t):
    out = np.empty_like(t)
    pos = t >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-t[pos]))
    e = np.exp(t[~pos])
    out[~pos] = e / (1.0 + e)
    return out


class ThresholdMatcher(_PairMatcher):
    """A pair is a duplicate when its similarity in the embedding reaches a threshold.

    The score of a pair is its cosine (or inner product, or minus its (squared) Euclidean
    distance) in the embedding; the threshold is the one that maximises accuracy on the
    fitted (validation) pairs (:func:`learnsim.evaluation.best_threshold`), and
    probabilities come from Platt scaling, a logistic regression on the score alone, fitted
    on the same pairs with its 0.5 point at the threshold, so that ``predict_proba`` and its
    log loss are meaningful and ``predict == (predict_proba[:, 1] >= 0.5)``.

    Parameters
    ----------
    transformer : None, fitted object with ``transform(X)``, or callable, default=None
        As in :class:`PairwiseKNNMatcher`. None: X is the embedding.
    metric : {"cosine", "inner_product", "euclidean", "sqeuclidean"}, default="cosine"
    input_weight : None, float in [0, 1] or "auto", default=None
        None: the score is the similarity in the embedding. A weight w (needs a transformer,
        a numeric X and the cosine): the score is ``w cos(x_a, x_b) + (1 - w) cos(T(x_a),
        T(x_b))``, the transformer's cosine mixed with the cosine of its own input
        (:mod:`learnsim.hybrid`: a low-rank learned metric loses the input's exact overlap).
        "auto": w is the value of ``weight_grid`` with the best ``weight_criterion`` on the
        fitted pairs. Fit on pairs the transformer was not trained on: on its training pairs the learned
        cosine looks better than it is and "auto" would under-weight the input.
    weight_grid : sequence of floats in [0, 1], default=0, 0.05, ..., 1
        The weights "auto" tries.
    weight_criterion : {"auc", "accuracy"}, default="auc"
        What "auto" maximises on the fitted pairs: the area under the ROC curve of the mixed
        score, or the accuracy at its best threshold. The AUC uses every pair's rank rather
        than the side of one threshold, so it varies less from one validation sample to
        another: on the Quora sample (six split and seed choices) it picked weights whose
        test accuracy was 0.4 points higher on average.

    Attributes
    ----------
    input_weight_ : float or None
        The w used (None without mixing).
    weight_scores_ : ndarray or None
        With "auto": the fitted pairs' ``weight_criterion`` for every weight of ``weight_grid``.
    threshold_ : float
        Pairs with ``pair_score >= threshold_`` are predicted duplicates; inf (none) where no
        threshold did better than calling every fitted pair not a duplicate (ties go to no
        duplicate). A fit whose pairs all have the same score warns: no threshold separates them.
    validation_accuracy_ : float
        Accuracy of that threshold on the fitted pairs (optimistic: chosen on them).
    slope_, intercept_ : float
        Platt scaling: P(duplicate) = 1 / (1 + exp(-(slope_ * score + intercept_))), with
        ``intercept_ = -slope_ * threshold_`` (a finite threshold; see the notes).
    embedding_ : ndarray or CSR matrix
        The embedded fitted collection (the default X of :meth:`predict`).
    n_items_, n_embedding_features_ : int

    Notes
    -----
    ``predict`` uses the accuracy-optimal threshold and ``predict_proba`` a logistic fit whose
    0.5 point is that threshold (only its slope is fitted), so the two always agree: P(duplicate)
    >= 0.5 exactly where ``predict`` gives 1. A free Platt fit put its 0.5 point elsewhere (on
    the Quora sample's test pairs, with a tf.idf cosine threshold fitted on dev, 0.408 against
    0.522: 1,449 of 10,000 pairs had a probability on the other side of their decision); centred,
    its test log loss is 0.633 instead of 0.621, the price of the agreement. A model saved
    before this keeps its calibration, and its probabilities stop at 0.5 (just under 0.5 on the
    'different' side) between its threshold and its old 0.5 point. With an infinite threshold
    (no pair a duplicate) every probability is under 0.5.

    Examples
    --------
    Twenty vectors, rows 2i and 2i + 1 near-duplicates; ten duplicate and ten other pairs:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = np.repeat(rng.normal(size=(10, 5)), 2, axis=0) + 0.1 * rng.normal(size=(20, 5))
    >>> pairs = np.array([[2 * i, 2 * i + 1] for i in range(10)] + [[2 * i, (2 * i + 3) % 20] for i in range(10)])
    >>> y = np.r_[np.ones(10), np.zeros(10)].astype(int)
    >>> from learnsim.matching import ThresholdMatcher
    >>> matcher = ThresholdMatcher().fit(X, pairs, y)
    >>> matcher.predict(pairs).tolist() == y.tolist()
    True
    >>> matcher.predict_proba(pairs).shape
    (20, 2)
    """

    _parameter_constraints = {             # input_weight first: its errors came first before the constraints
        "input_weight": [Checked(_check_optional_input_weight)],
        "weight_criterion": [Options(("auc", "accuracy"))],
        "transformer": ["no_validation"],      # None (X is the embedding) or checked by _embed when used
        "metric": [Checked(_check_metric)],
        "weight_grid": [Checked(_check_weight_grid)],   # its emptiness: by select_input_weight, with 'auto'
    }

    def __init__(self, transformer=None, metric="cosine", input_weight=None, weight_grid=DEFAULT_WEIGHT_GRID,
                 weight_criterion="auc"):
        self.transformer = transformer
        self.metric = metric
        self.input_weight = input_weight
        self.weight_grid = weight_grid
        self.weight_criterion = weight_criterion

    def _check_mixing(self):
        """The checked input_weight (None, a float or "auto")."""
        validate_params(self)
        if self.input_weight is None:
            return None
        w = check_input_weight(self.input_weight, allow_auto=True)
        if self.transformer is None:
            raise ValueError("input_weight mixes the transformer's cosine with the cosine of its input; "
                             "it needs a transformer (with transformer=None X is already the embedding)")
        if self.metric != "cosine":
            raise ValueError(f"input_weight mixes cosines; it needs metric='cosine', got {self.metric!r}")
        return w

    def _weight_criterion(self, labels):
        # weight_criterion was checked by validate_params; _fit_inputs made sure both kinds of
        # pairs are present, so the AUC is defined
        if self.weight_criterion == "auc":
            return lambda s: roc_auc_score(labels, s)
        return lambda s: best_threshold(s, labels)[1]

    def _mixed_embedding(self, X, weight):
        """The hybrid rows of X (its unit rows beside its embedding's) and the embedding."""
        Xm = check_matrix(X, name="X (input_weight needs numeric rows: the transformer's input)")
        E = _embed(self.transformer, Xm, "X")
        return hybrid_rows(Xm, E, weight), E

    def _collection(self, X):
        check_is_fitted(self)
        if X is None or self.input_weight_ is None:
            return super()._collection(X)
        H, E = self._mixed_embedding(X, self.input_weight_)
        if E.shape[1] != self._n_learned_features:
            raise ValueError(f"the embedding of X has {E.shape[1]} features, but this ThresholdMatcher was "
                             f"fitted on embeddings with {self._n_learned_features}; use the same transformer")
        return H

    @property
    def _n_learned_features(self):
        """Features of the transformer's embedding (the hybrid rows also hold the input's)."""
        return self.n_embedding_features_ - self.n_input_features_

    @property
    def _score_metric(self):
        # the hybrid rows hold two unit-length halves: their inner product is the mix exactly (a
        # cosine would renormalise the rows where one half is zero)
        return self.metric if self.input_weight_ is None else "inner_product"

    def fit(self, X, pairs, y=None):
        """Choose the threshold (and the input weight) and fit the calibration on labelled
        (validation) pairs.

        Parameters are as in :meth:`PairwiseKNNMatcher.fit` (no other item than those of the
        pairs matters here, as the score of a pair depends on its two items only).

        Returns
        -------
        self
        """
        weight = self._check_mixing()
        self.weight_scores_ = None
        if weight is None:
            E, idx, labels = self._fit_inputs(X, pairs, y)
            self.input_weight_ = None
            self.n_input_features_ = 0
        else:
            Xm = check_matrix(X, name="X (input_weight needs numeric rows: the transformer's input)")
            learned, idx, labels = self._fit_inputs(Xm, pairs, y)
            if weight == "auto":
                cos_input = pair_similarity(Xm, idx, "cosine")
                cos_learned = pair_similarity(learned, idx, "cosine")
                weight, self.weight_scores_ = select_input_weight(
                    cos_input, cos_learned, self._weight_criterion(labels), self.weight_grid)
            self.input_weight_ = float(weight)
            self.n_input_features_ = int(Xm.shape[1])
            E = hybrid_rows(Xm, learned, self.input_weight_)
        scores = pair_similarity(E, idx, self._score_metric)
        self.threshold_, self.validation_accuracy_, self.slope_, self.intercept_ = _fit_calibration(scores, labels)
        _warn_tied(scores, self.threshold_)
        self._set_collection(E)
        return self

    def pair_score(self, pairs, X=None):
        """The similarity of each pair in the embedding (higher = more alike); the mixed
        cosine with ``input_weight``."""
        E = self._collection(X)
        idx = _check_pair_indices(pairs, E.shape[0])
        return pair_similarity(E, idx, self._score_metric)

    def _decision_scores(self, idx, E):
        return pair_similarity(E, idx, self._score_metric), self.threshold_

    def _proba_from_decision(self, scores):
        scores = np.asarray(scores, dtype=np.float64)
        return _agreeing(_sigmoid(self.slope_ * scores + self.intercept_), scores >= self.threshold_)

    def _setting(self):
        setting = {"threshold": self.threshold_}
        if self.input_weight_ is not None:
            setting["input_weight"] = self.input_weight_
        return setting

    def predict(self, pairs, X=None):
        """1 where the pair's score reaches ``threshold_``, else 0 (X defaults to the fitted
        collection)."""
        E = self._collection(X)
        idx = _check_pair_indices(pairs, E.shape[0])
        return self._predict_indices(idx, E).astype(np.int64)

    def predict_proba(self, pairs, X=None):
        """Columns P(not duplicate), P(duplicate) from Platt scaling of the pair score, centred on
        ``threshold_``: P(duplicate) >= 0.5 exactly where :meth:`predict` gives 1."""
        p = self._proba_from_decision(self.pair_score(pairs, X))
        return np.column_stack([1.0 - p, p])

    # persistence protocol (learnsim.persistence)
    # best_threshold returns inf when predicting no duplicate at all is best
    _STATE_NONFINITE = ("threshold",)

    def _get_state(self):
        grid = [float(w) for w in self.weight_grid]
        meta, arrays = _common_state(self, {"metric": self.metric, "input_weight": self.input_weight,
                                            "weight_grid": grid, "weight_criterion": self.weight_criterion})
        meta.update({"threshold": self.threshold_, "validation_accuracy": self.validation_accuracy_,
                     "slope": self.slope_, "intercept": self.intercept_, "input_weight_fitted": self.input_weight_,
                     "n_input_features": self.n_input_features_})
        if self.weight_scores_ is not None:
            arrays["weight_scores"] = self.weight_scores_
        return meta, arrays

    @classmethod
    def _from_state(cls, meta, arrays):
        name = cls.__name__
        scores = None
        if isinstance(arrays, dict):
            arrays = dict(arrays)
            scores = arrays.pop("weight_scores", None)
        obj = _check_common_state(cls, meta, arrays,
                                  ("threshold", "validation_accuracy", "slope", "intercept",
                                   "input_weight_fitted", "n_input_features"), ())
        w = meta["input_weight_fitted"]
        obj.input_weight_ = None if w is None else check_input_weight(w, f"{name} state: input_weight_fitted")
        n_input = meta["n_input_features"]
        if isinstance(n_input, bool) or not isinstance(n_input, numbers.Integral) or n_input < 0 \
                or (w is not None and not 0 < n_input < obj.n_embedding_features_):
            raise ValueError(f"{name} state: n_input_features must fit the embedding; got {n_input!r}")
        obj.n_input_features_ = int(n_input)
        if scores is not None:
            scores = state_array({"weight_scores": scores}, "weight_scores", name,
                                 shape=(len(obj.weight_grid),)).astype(np.float64)
        obj.weight_scores_ = scores
        threshold = meta["threshold"]
        # best_threshold returns inf when predicting no duplicate at all is best
        if not (isinstance(threshold, numbers.Real) and not isinstance(threshold, bool)
                and not np.isnan(threshold)):
            raise ValueError(f"{name} state: threshold must be a number; got {threshold!r}")
        obj.threshold_ = float(threshold)
        obj.validation_accuracy_ = state_number(meta, "validation_accuracy", name, low=0.0, high=1.0)
        obj.slope_ = state_number(meta, "slope", name)
        obj.intercept_ = state_number(meta, "intercept", name)
        return obj
