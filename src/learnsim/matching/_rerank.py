"""Learned re-ranking, the second stage of search: the first stage (the validated search rule:
the input cosine, or FILM's mixed cosine) retrieves each query's ``n_candidates`` closest texts,
and a pair classifier trained for ranking re-scores them.

Why a classifier of its own: the duplicate rule's classifier learns from the labelled pairs
alone, whose non-duplicates were chosen by whoever labelled them (Quora's are questions a
reader might confuse). Among a query's nearest texts it ranks worse than the cosine (Quora
sample, held-out duplicate queries: recall@1 0.619 against 0.666). The re-ranker learns from
the same pairs plus the mistakes the first stage can make: for each text of a training
duplicate, its ``n_negatives`` nearest texts under the first stage that the training duplicates
do not join to it, as non-duplicates (recall@1 0.72 there).

It is kept only where it helps: :func:`select_reranker` scores the first stage alone and the
re-ranker at each C of ``C_grid`` on held-out duplicate queries (recall@1 in the whole
collection, the query itself excluded) and keeps the re-ranker when the 95 % interval of its
cross-fitted gain over the first stage lies above zero (:func:`learnsim.baseline.choose`).
Its probabilities are Platt-scaled on those held-out candidate lists, the pairs it re-scores
in use.
"""
from __future__ import annotations

import numbers

import numpy as np

__all__ = ["Reranker", "select_reranker", "DEFAULT_N_CANDIDATES"]

#: Candidates of the first stage re-scored per query.
DEFAULT_N_CANDIDATES = 50
#: First-stage neighbours of each training duplicate taken as non-duplicates.
DEFAULT_N_NEGATIVES = 20
#: Inverse regularisation tried (stronger than the duplicate rule's: the negatives are many
#: and alike, and C = 0.03 to 0.1 ranked best on the Quora sample's held-out queries).
DEFAULT_C_GRID = (0.01, 0.03, 0.1)
#: Held-out duplicate queries of the check, and training duplicates whose neighbours give
#: negatives, at most (seeded samples above): each searches the whole collection.
MAX_QUERIES = 2_000
MAX_NEGATIVE_ANCHORS = 10_000
_STATE_VERSION = 1
_BASELINE = "first stage"

_DENSE_NAMES = {"input_cosine": ("input cosine",), "char_cosine": ("character n-gram cosine",),
                "overlap": ("word Jaccard", "shared words / fewer words", "shared words / more words",
                            "shared tf-idf weight"),
                "length": ("difference in words", "difference in characters", "log fewer words",
                           "log more words"),
                "encoder_cosine": ("encoder cosine",)}


class Reranker:
    """The second stage of search: re-scores a query's first-stage candidates with a pair
    classifier trained for ranking (module notes), chosen on held-out duplicate queries by
    :func:`select_reranker` and saved in the model as ``"rerank"``.

    Parameters
    ----------
    model : fitted PairClassifierMatcher
        Scores a pair of texts; its Platt scaling gives the hit's probability.
    n_candidates : int, default=50
        First-stage hits re-scored per query (a search for k > n_candidates re-scores k).
    baseline_gain : BaselineGain or None
        Recall@1 of the re-ranked search against the first stage on held-out duplicate queries.
    n_queries : int
        Held-out duplicate queries of that check.

    Examples
    --------
    A re-ranker re-scores the candidates of each query (here a classifier fitted on twelve
    pairs, ``C`` fixed):

    >>> import numpy as np
    >>> from learnsim.matching import PairClassifierMatcher, Reranker
    >>> texts = ["how do i learn python", "how can i learn python", "what is the capital of france",
    ...          "which city is the capital of france", "best way to lose weight", "how to lose weight fast",
    ...          "how do i cook rice", "what is a good laptop", "how to learn python quickly",
    ...          "capital city of france"]
    >>> pairs = np.array([[0, 1], [2, 3], [4, 5], [0, 8], [2, 9], [0, 2], [1, 6], [3, 7], [4, 6],
    ...                   [5, 7], [8, 9], [6, 7]])
    >>> y = np.array([1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0])
    >>> reranker = Reranker(PairClassifierMatcher(C=1.0, random_state=0).fit(texts, pairs, y), n_candidates=3)
    >>> order, proba = reranker.rerank("learning python fast", ["capital of france", "learn python quickly"])
    >>> order.tolist()
    [1, 0]
    >>> bool(proba[1] > proba[0])
    True
    """

    def __init__(self, model, n_candidates=DEFAULT_N_CANDIDATES, baseline_gain=None, n_queries=0):
        from .pair_classifier import PairClassifierMatcher

        if not isinstance(model, PairClassifierMatcher) or not hasattr(model, "coef_"):
            raise TypeError(f"model must be a fitted PairClassifierMatcher; got {type(model).__name__}")
        self.model = model
        self.n_candidates = _check_positive_int(n_candidates, "n_candidates")
        self.baseline_gain = baseline_gain
        self.n_queries = int(n_queries)

    def __repr__(self):
        return f"Reranker(n_candidates={self.n_candidates}, C={self.model.C_:g})"

    # ------------------------------------------------------------------ use
    def probabilities(self, query, texts):
        """P(duplicate) of ``query`` with each of ``texts`` (the re-ranked hit's score)."""
        if not texts:
            return np.zeros(0)
        idx = np.column_stack([np.zeros(len(texts), dtype=np.int64), np.arange(1, len(texts) + 1)])
        # the Platt scaling as it is: it ranks the hits (no threshold of the model's decides here)
        return self.model._raw_probability(self.model.decision_function(idx, X=[query, *texts]))

    def rerank(self, query, texts):
        """(order, probabilities): the positions of ``texts`` (a query's first-stage hits, best
        first) by decreasing probability, ties kept in the first stage's order, and the
        probability of each text (in the given order)."""
        proba = self.probabilities(query, list(texts))
        return np.argsort(-proba, kind="stable"), proba

    def explain(self, query, text, n_top=10):
        """What the re-ranker's decision value for (``query``, ``text``) is made of: the
        intercept plus each feature's weight x standardised value, the shared words and the
        words of one text only listed one by one. The contributions and ``"rest"`` sum to
        ``"decision"`` (to rounding); ``"probability"`` is its Platt scaling."""
        m = self.model
        Z, _ = m._features_of(np.array([[0, 1]]), [query, text])
        z = np.asarray(Z.toarray() if hasattr(Z, "toarray") else Z).ravel()
        parts = z * m.coef_
        names = _dense_names(m)
        n = len(names)
        words = [(int(j), float(parts[n + j])) for j in np.flatnonzero(parts[n:])]
        terms = m.vectorizer_.get_feature_names_out() if words else ()
        return decision_explanation(names, parts[:n], words, terms, float(m.intercept_), float(m.slope_),
                                    float(m.calibration_intercept_), n_top)

    # ------------------------------------------------------------------ persistence
    _STATE_NESTED = ("transformer",)

    def _get_state(self):
        from ..persistence import transformer_state

        t_meta, t_arrays = transformer_state(self.model)
        gain = None if self.baseline_gain is None else self.baseline_gain.to_dict()
        return ({"state_version": _STATE_VERSION, "n_candidates": self.n_candidates, "n_queries": self.n_queries,
                 "baseline_gain": gain, "transformer": t_meta}, t_arrays)

    @classmethod
    def _from_state(cls, meta, arrays):
        from ..baseline import BaselineGain
        from ..persistence import transformer_from_state
        from .._utils.validation import check_state_header
        from .pair_classifier import PairClassifierMatcher

        check_state_header("Reranker", meta, {}, _STATE_VERSION, ("n_candidates", "n_queries", "transformer"))
        model = transformer_from_state(meta["transformer"], arrays)
        if not isinstance(model, PairClassifierMatcher):
            raise ValueError("Reranker state: 'transformer' must be a saved PairClassifierMatcher")
        n = meta["n_queries"]
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 0:
            raise ValueError(f"Reranker state: n_queries must be a non-negative integer; got {n!r}")
        gain = meta.get("baseline_gain")
        gain = None if gain is None else BaselineGain.from_dict(gain, owner="Reranker")
        try:
            return cls(model, meta["n_candidates"], gain, n)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"Reranker state: {exc}") from None


def _check_positive_int(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer; got {value!r}")
    return int(value)


def decision_explanation(names, dense_parts, words, terms, intercept, slope, calibration_intercept, n_top):
    """The explanation :meth:`Reranker.explain` returns, from the dense features' contributions
    (aligned with ``names``) and ``words``: (column, contribution) of the word-pair block's
    non-zero columns, column j < len(terms) the shared word j, else word j - len(terms) of one
    text only. Shared with the index's re-ranker (:mod:`learnsim.index._rerank`)."""
    items = [{"feature": name, "contribution": float(c)} for name, c in zip(names, dense_parts)]
    n_terms = len(terms)
    for j, c in words:
        items.append({"feature": f"{'shared' if j < n_terms else 'in one text only'}: {terms[j % n_terms]}",
                      "contribution": float(c)})
    decision = float(np.sum(dense_parts) + sum(c for _, c in words) + intercept)
    items.sort(key=lambda item: -abs(item["contribution"]))
    listed = items[:n_top]
    rest = float(decision - intercept - sum(item["contribution"] for item in listed))
    proba = float(1.0 / (1.0 + np.exp(-(slope * decision + calibration_intercept))))
    return {"decision": decision, "probability": proba, "intercept": float(intercept), "features": listed,
            "rest": rest}


def dense_feature_names(features):
    """The names of the dense features of the blocks ``features`` that have fixed sizes (not
    ``"lowrank"`` or ``"embedding"``), in order."""
    names = []
    for block in features:
        if block in _DENSE_NAMES:
            names.extend(_DENSE_NAMES[block])
        elif block == "embedding_cosine":
            names.append("learned cosine")
        elif block in ("lowrank", "embedding"):
            raise ValueError(f"the {block!r} block's size depends on the fitted model")
    return names


def _dense_names(model):
    from .pair_classifier import FEATURE_BLOCKS

    names = []
    # the dense features come in the order of FEATURE_BLOCKS, whatever the order of features_
    blocks = [block for block in FEATURE_BLOCKS if block in model.features_]
    for position, block in enumerate(blocks):
        if block in _DENSE_NAMES or block == "embedding_cosine":
            names.extend(dense_feature_names((block,)))
        elif block == "lowrank":
            d = model.lsi_components_.shape[0]
            names.extend([f"LSI |u - v| {i}" for i in range(d)] + [f"LSI u * v {i}" for i in range(d)]
                         + ["LSI cosine"])
        elif block == "embedding":
            # the blocks after it hold one feature each (the cosines)
            after = sum(1 for later in blocks[position + 1:] if later != "word_pairs")
            d = (len(model.feature_mean_) - len(names) - after) // 2
            names.extend([f"embedding |u - v| {i}" for i in range(d)] + [f"embedding u * v {i}" for i in range(d)]
                         + ["embedding cosine"])
    return names


def _mixed_closeness(scorer, X):
    """For FILM's mixed cosine on sparse input vectors, ``rows -> w cos_X + (1 - w) cos_E``
    computed as a sparse and a dense product apart (the scorer's single product of the mixed
    rows, sparse with dense columns, was 20x slower); None for other scorers."""
    import scipy.sparse as sp

    w = getattr(scorer, "input_weight", None)
    if getattr(scorer, "kind", None) != "cosine" or w is None or not 0.0 < w < 1.0 or not sp.issparse(X):
        return None
    from sklearn.preprocessing import normalize

    Xu = normalize(sp.csr_matrix(X, dtype=np.float64))
    E = np.asarray(scorer.metric.transform(X), dtype=np.float64)
    norms = np.sqrt(np.einsum("ij,ij->i", E, E))
    Eu = E / np.where(norms > 0, norms, 1.0)[:, None]

    def closeness(rows):
        S = w * (Xu[rows] @ Xu.T).toarray()
        S += (1.0 - w) * (Eu[rows] @ Eu.T)
        return S

    return closeness


class _prepared:
    """``scorer`` prepared on X when first needed (the neighbour lists are often known already,
    or found by :func:`_mixed_closeness`): ``closeness_of(rows)`` of rows of X (and of the
    ``lexical`` vectors of a scorer that mixes a lexical part in)."""

    def __init__(self, scorer, X, lexical=None):
        if getattr(scorer, "corpus", None) is not X:
            scorer.prepare(X, lexical)
        self.scorer, self.X, self.lexical = scorer, X, lexical

    def closeness_of(self, rows):
        return self.scorer.closeness(self.X[rows], None if self.lexical is None else self.lexical[rows])


def _neighbours(scorer, X, rows, k, known=None, lexical=None):
    """The k closest rows of X (the first stage, ``scorer``, prepared on X here if it is not) of each of ``rows``,
    the row itself excluded: an (len(rows), k) array, best first. ``known``: every row's
    closest rows under the first stage, best first, when they were found already."""
    from ..scorer import block_rows

    k = min(k, X.shape[0] - 1)
    if known is not None and known.shape[1] >= k:
        found = np.asarray(known[rows, :k], dtype=np.int64)
        if (found >= 0).all():          # -1: a row the lists were not found for
            return found
    closeness = (None if lexical is not None else _mixed_closeness(scorer, X)) \
        or _prepared(scorer, X, lexical).closeness_of
    out = np.empty((len(rows), k), dtype=np.int64)
    step = max(1, block_rows(X.shape[0]))
    for start in range(0, len(rows), step):
        q = rows[start:start + step]
        S = closeness(q)
        S[np.arange(len(q)), q] = -np.inf
        # the k best, then in order (ties to the lower index, as the search breaks them)
        part = np.argpartition(-S, k - 1, axis=1)[:, :k] if k < S.shape[1] else np.tile(np.arange(S.shape[1]), (len(q), 1))
        vals = np.take_along_axis(S, part, axis=1)
        order = np.lexsort((part, -vals), axis=1)
        out[start:start + len(q)] = np.take_along_axis(part, order, axis=1)
    return out


def select_reranker(texts, X, scorer, train, held, all_pairs, *, shared=None, vectorizer=None,
                    n_candidates=DEFAULT_N_CANDIDATES, n_negatives=DEFAULT_N_NEGATIVES, C_grid=DEFAULT_C_GRID,
                    check_baseline=True, random_state=0, neighbours=None, model_params=None, lexical=None):
    """Train the re-ranker on the training pairs and check it on held-out duplicate queries.

    Parameters
    ----------
    texts : list of str
        The collection (rows of X); the pairs index into it.
    X : the vectoriser's rows of ``texts``
    scorer : learnsim.scorer.Scorer
        The first stage (the validated search rule); prepared on X where it is needed.
    train, held : Pairs with labels
        The pairs the rest of the model learned from and the held-out ones.
    all_pairs : Pairs
        Both: chains of duplicate pairs define which texts are each query's duplicates.
    shared : fitted PairClassifierMatcher of ``texts``, optional
        Its word and character representations are reused (the duplicate rule's classifier).
    vectorizer : fitted TextVectorizer, optional
        The word tf-idf of the classifier (None: its own).
    n_candidates, n_negatives : int
    C_grid : sequence of float
    check_baseline : bool
        False: the best C on the held-out queries, kept unchecked.
    neighbours : (n_texts, depth) int array, optional
        Each text's closest texts under the first stage, best first, when they are known (the
        input cosine's, found with FILM's hard negatives); found here otherwise.
    model_params : dict, optional
        More parameters of the re-ranker's PairClassifierMatcher: with a pre-trained encoder,
        ``encoder=``, ``embedding=`` (FILM on its vectors) and the features that use them.
    lexical : optional
        The lexical vectors of ``texts`` of a first stage that mixes a lexical cosine with a
        dense one (the ``lexical`` of :meth:`learnsim.scorer.Scorer.prepare`).

    Returns
    -------
    (Reranker or None, BaselineGain or None, dict)
        The re-ranker when it is kept (None when the first stage alone is as good), the report
        of the check, and the held-out recall@1 of each candidate (``"first stage"``, ``"C=..."``).

    Examples
    --------
    See :func:`learnsim.fit`: a FILM fitted on labelled pairs runs it, and its report names the
    choice (``report.summary["rerank"]``). Run directly, on a small synthetic collection:

    >>> import numpy as np, warnings
    >>> from learnsim.datasets import make_clustered_corpus
    >>> from learnsim.supervision import Pairs, split_pairs
    >>> from learnsim.text import TextVectorizer
    >>> from learnsim.film import FILM
    >>> from learnsim.scorer import Scorer
    >>> from learnsim.matching import select_reranker
    >>> corpus = make_clustered_corpus(n_clusters=20, docs_per_cluster=6, vocab_size=1000, random_state=0)
    >>> texts = list(corpus.data)
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, len(texts), 600); b = rng.integers(0, len(texts), 600)
    >>> keep = a != b
    >>> pairs = Pairs(np.c_[a, b][keep], labels=(corpus.target[a] == corpus.target[b])[keep])
    >>> train, held = split_pairs(pairs, held_out=0.3, random_state=0)
    >>> vec = TextVectorizer("tfidf", sublinear_tf=True, norm="l2", dtype=np.float64).fit(texts)
    >>> X = vec.transform(texts)
    >>> film = FILM(n_components=8, max_iter=30, baseline_holdout=None, random_state=0).fit(X, corpus.target)
    >>> scorer = Scorer(film).prepare(X)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     reranker, report, recall = select_reranker(texts, X, scorer, train, held, pairs, vectorizer=vec,
    ...                                                n_candidates=10)
    >>> sorted(recall)
    ['C=0.01', 'C=0.03', 'C=0.1', 'first stage']
    >>> report.measure
    'recall@1'
    """
    from ..baseline import choose, unchecked
    from ..supervision import pairs_to_clusters
    from .pair_classifier import PairClassifierMatcher

    n_candidates = _check_positive_int(n_candidates, "n_candidates")
    n_negatives = _check_positive_int(n_negatives, "n_negatives")
    labels = np.asarray(train.labels, dtype=bool)
    n = X.shape[0]
    components = np.asarray(pairs_to_clusters(all_pairs, n).labels)
    queries = np.unique(held.indices[np.asarray(held.labels, dtype=bool)].ravel())
    queries = queries[components[queries] >= 0]
    rng = np.random.default_rng(random_state)
    if len(queries) > MAX_QUERIES:
        queries = np.sort(rng.choice(queries, MAX_QUERIES, replace=False))
    if n < 3 or labels.sum() < 2 or (~labels).sum() < 2 or len(queries) == 0:
        reason = "too few pairs or held-out duplicate queries to train and check a re-ranker"
        report = unchecked(reason, baseline_name=_BASELINE, owner="search re-ranking", stacklevel=2) \
            if check_baseline else None
        return None, report, {}
    # training: the labelled pairs, and the first stage's mistakes among each training
    # duplicate's nearest texts (not joined to it by training duplicates)
    joined = np.asarray(pairs_to_clusters(train, n).labels)
    anchors = np.unique(train.indices[labels].ravel())
    if len(anchors) > MAX_NEGATIVE_ANCHORS:
        anchors = np.sort(rng.choice(anchors, MAX_NEGATIVE_ANCHORS, replace=False))
    near = _neighbours(scorer, X, anchors, n_negatives, neighbours, lexical)
    a = np.repeat(anchors, near.shape[1])
    b = near.ravel()
    wrong = joined[a] != joined[b]
    negatives = np.column_stack([a[wrong], b[wrong]])
    idx = np.vstack([np.asarray(train.indices, dtype=np.int64), negatives])
    y = np.concatenate([labels, np.zeros(len(negatives), dtype=bool)])
    # held out: each query's first-stage candidates
    cand = _neighbours(scorer, X, queries, n_candidates, neighbours, lexical)
    hit = components[cand] == components[queries][:, None]
    held_idx = np.column_stack([np.repeat(queries, cand.shape[1]), cand.ravel()])
    rows = [hit[:, 0].astype(np.float64)]
    models, decisions = [], []
    texts = list(texts)
    # the pairs' features once, for every C; the candidates' once too
    Zh = None
    for C in C_grid:
        if not models:
            model = PairClassifierMatcher(**{"vectorizer": vectorizer, **(model_params or {})}, C=float(C),
                                          random_state=random_state)
            model._fit_labelled(texts, idx, y, shared=shared, calibrate=False)
            Zh, _ = model._features_of(held_idx, None)
        else:
            model = models[0]._with_C(C)
        d = (np.asarray(Zh @ model.coef_).ravel() + model.intercept_).reshape(cand.shape)
        best = np.argmax(d, axis=1)
        rows.append(hit[np.arange(len(queries)), best].astype(np.float64))
        models.append(model)
        decisions.append(d)
    names = [_BASELINE] + [f"C={float(C):g}" for C in C_grid]
    C = np.vstack(rows)
    recall = {name: float(r.mean()) for name, r in zip(names, C)}
    if check_baseline:
        chosen, report = choose(C, 0, measure="recall@1", unit="held-out duplicate queries", baseline_name=_BASELINE,
                                owner="search re-ranking", groups=components[queries], random_state=random_state,
                                stacklevel=2, detail=lambda c: {"reranker": names[c]})
    else:
        chosen, report = 1 + int(np.argmax(C[1:].mean(axis=1))), None
    if chosen == 0:
        return None, report, recall
    for m in models:
        m.__dict__.pop("_design_cache", None)
    model = models[chosen - 1]
    # calibrated on the pairs it re-scores in use: the held-out queries' candidate lists
    model._calibrate(decisions[chosen - 1].ravel(), hit.ravel())
    return Reranker(model, n_candidates, report, len(queries)), report, recall
