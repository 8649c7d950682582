"""The weight of a learned cosine mixed with the input cosine, chosen for search.

:class:`SearchRule` holds the weight w of ``w cos(x, x') + (1 - w) cos(Lx, Lx')`` (see
:mod:`learnsim.hybrid`) that ranks a collection best: chosen on held-out duplicates by recall@1.
``learnsim fit --method film --pairs`` stores one in the model file (part "search") and
``learnsim search`` ranks with it. It differs from the weight of
:class:`learnsim.matching.ThresholdMatcher`, chosen by the ROC AUC of pairs: on the Quora sample
the pair rule picks w = 0.5-0.65, while ranking 19,000 questions is best at w = 0.8-0.9.

:func:`triplet_weight_scores` and :func:`cluster_weight_scores` score each held-out unit
(a triplet, a query of a held-out cluster) under every weight of a grid: what
:class:`learnsim.film.FILM` chooses its own weight by (``baseline_holdout``, the rule of
:mod:`learnsim.baseline`).
"""
from __future__ import annotations

import numpy as np

__all__ = ["SearchRule", "cluster_weight_scores", "triplet_weight_scores"]

#: Entries of one (queries x collection) block of similarities.
_BLOCK_ENTRIES = 2 ** 22
# cluster_weight_scores ranks at most this many held-out rows, and at most this many of them
# are the queries (a random sample of each), so that FILM's held-out check costs seconds.
_MAX_CHECK_ROWS = 5000
_MAX_CHECK_QUERIES = 1000


class SearchRule:
    """The input-cosine weight w that FILM's search uses, chosen for search on held-out
    duplicate pairs: each held-out duplicate's text searches the whole fitted collection, and w
    (a grid from 0, FILM's cosine alone, to 1, the input cosine alone) maximises the share whose
    best hit is a duplicate (recall@1; ties to w = 1, the baseline). Saved in the model file as
    "search".

    The choice is checked against the input cosine (w = 1) by the rule of
    :mod:`learnsim.baseline`: per held-out query, recall@1 under the w chosen on the other half
    of the queries (cross-fitted) against recall@1 of the input cosine, with a paired bootstrap
    interval (``baseline_gain``). When the learned part does not pass that rule (e.g. the
    interval reaches 0), w = 1: search is the input cosine, and a
    :class:`~learnsim.baseline.BaselineWarning` says so.

    The duplicate rule (ThresholdMatcher) chooses its own w by the ROC AUC of pairs; the two
    differ: deciding a pair and ranking a whole collection are different tasks.
    """

    def __init__(self, input_weight=None, weight_grid=(), weight_scores=(), n_queries=0, baseline_gain=None):
        self.input_weight = input_weight
        self.weight_grid = tuple(float(w) for w in weight_grid)
        self.weight_scores = np.asarray(weight_scores, dtype=np.float64)
        self.n_queries = int(n_queries)
        self.baseline_gain = baseline_gain

    @staticmethod
    def query_hits(metric, X, queries, components, grid):
        """(len(grid), len(queries)) array: 1 where the query's best hit in the whole of X
        (itself excluded) under ``w cos(x, x') + (1 - w) cos(Lx, Lx')`` shares its component."""
        import scipy.sparse as sp

        Xu = _unit_rows(X)
        E = _unit_rows(np.asarray(metric.transform(X), dtype=np.float64))
        hits = np.zeros((len(grid), len(queries)))
        step = max(1, _BLOCK_ENTRIES // max(X.shape[0], 1))
        for start in range(0, len(queries), step):
            q = queries[start:start + step]
            Ci = Xu[q] @ Xu.T
            Ci = Ci.toarray() if sp.issparse(Ci) else np.asarray(Ci)
            Cl = E[q] @ E.T
            rows = np.arange(len(q))
            for g, w in enumerate(grid):
                S = w * Ci + (1.0 - w) * Cl
                S[rows, q] = -np.inf
                hits[g, start:start + len(q)] = components[S.argmax(axis=1)] == components[q]
        return hits

    @classmethod
    def select(cls, metric, X, queries, components, grid=tuple(np.round(np.linspace(0.0, 1.0, 21), 2)),
               random_state=0, check_baseline=True):
        """Choose w on ``queries`` (rows of X) whose duplicates are the rows sharing their
        ``components`` label (>= 0), and check it against w = 1 (the last value of ``grid``
        must be 1). ``check_baseline=False``: the best w on all queries (ties to the smaller),
        unchecked (``baseline_gain`` None)."""
        from .baseline import choose, unchecked

        grid = tuple(float(w) for w in grid)
        if not grid or grid[-1] != 1.0:
            raise ValueError("the weight grid must end with 1 (the input cosine, the baseline)")
        base = len(grid) - 1
        if not check_baseline:
            hits = cls.query_hits(metric, X, queries, components, grid) if len(queries) else np.zeros((len(grid), 1))
            means = hits.mean(axis=1)
            return cls(grid[int(np.argmax(means))], grid, means, len(queries), None)
        if len(queries) == 0:
            report = unchecked("no held-out duplicate to search with", baseline_name=_SEARCH_BASELINE,
                               owner="FILM search", stacklevel=3)
            return cls(1.0, grid, np.zeros(len(grid)), 0, report)
        hits = cls.query_hits(metric, X, queries, components, grid)
        # the interval resamples whole groups of duplicates (their queries are not independent)
        chosen, report = choose(hits, base, measure="recall@1", unit="held-out duplicate queries",
                                baseline_name=_SEARCH_BASELINE, owner="FILM search", groups=components[queries],
                                random_state=random_state, stacklevel=3,
                                detail=lambda c: {"input_weight": grid[c]})
        weight = grid[chosen]
        return cls(weight, grid, hits.mean(axis=1), len(queries), report)

    def _get_state(self):
        gain = None if self.baseline_gain is None else self.baseline_gain.to_dict()
        return ({"input_weight": self.input_weight, "weight_grid": list(self.weight_grid),
                 "n_queries": self.n_queries, "baseline_gain": gain}, {"weight_scores": self.weight_scores})

    @classmethod
    def _from_state(cls, meta, arrays):
        from .baseline import BaselineGain
        from .hybrid import check_input_weight

        if not isinstance(meta, dict) or not isinstance(arrays, dict) or "weight_scores" not in arrays:
            raise ValueError("SearchRule state must be (meta, {'weight_scores': ...})")
        w = check_input_weight(meta.get("input_weight"), "SearchRule state: input_weight")
        gain = meta.get("baseline_gain")
        # files written before the check have none
        gain = None if gain is None else BaselineGain.from_dict(gain, owner="SearchRule")
        if gain is not None and gain.status == "baseline" and w != 1.0:
            raise ValueError(f"SearchRule state: the rule fell back to the input cosine but its input_weight is {w}")
        return cls(w, meta.get("weight_grid", ()), arrays["weight_scores"], meta.get("n_queries", 0), gain)


_SEARCH_BASELINE = "input cosine"


def _unit_rows(M):
    import scipy.sparse as sp

    if sp.issparse(M):
        from sklearn.preprocessing import normalize

        return normalize(sp.csr_matrix(M, dtype=np.float64), norm="l2")
    norms = np.sqrt(np.einsum("ij,ij->i", M, M))
    return M / np.where(norms > 0, norms, 1.0)[:, None]

def triplet_weight_scores(Xn, E, T, grid):
    """Per held-out triplet (i, j, k) and weight w: 1 when w cos(x_i, x_j) + (1 - w) cos(Lx_i, Lx_j)
    beats the same for (i, k), 0.5 on a tie, else 0. ``Xn`` and ``E`` have unit rows."""
    import scipy.sparse as sp

    def dots(M, a, b):
        P = M[a].multiply(M[b]) if sp.issparse(M) else M[a] * M[b]
        return np.asarray(P.sum(axis=1)).ravel()

    i, j, k = T[:, 0], T[:, 1], T[:, 2]
    gap_in, gap_learned = dots(Xn, i, j) - dots(Xn, i, k), dots(E, i, j) - dots(E, i, k)
    out = np.empty((len(grid), T.shape[0]))
    for g, w in enumerate(grid):
        gap = w * gap_in + (1.0 - w) * gap_learned
        # a relative tolerance: the two sides of a tie are sums in a different order
        tie = np.abs(gap) <= 1e-12
        out[g] = np.where(tie, 0.5, (gap > 0).astype(np.float64))
    return out


def cluster_weight_scores(Xn, E, labels, rows, grid, rng, return_queries=False):
    """Per held-out query and weight w: the average precision, among the held-out rows, of the
    query's cluster under w cos(x, x') + (1 - w) cos(Lx, Lx') (NaN for a query without another
    member of its cluster among the ranked rows). ``return_queries``: also the queries' rows."""
    import scipy.sparse as sp

    if rows.size > _MAX_CHECK_ROWS:
        rows = np.sort(rng.choice(rows, _MAX_CHECK_ROWS, replace=False))
    queries = np.arange(rows.size)
    if queries.size > _MAX_CHECK_QUERIES:
        queries = np.sort(rng.choice(queries, _MAX_CHECK_QUERIES, replace=False))
    from .evaluation import per_query_measures

    Xh, Eh, lab = Xn[rows], E[rows], labels[rows]
    out = np.full((len(grid), queries.size), np.nan)
    m = rows.size
    step = max(1, 2**21 // max(m, 1))
    for start in range(0, queries.size, step):
        q = queries[start:start + step]
        Ci = Xh[q] @ Xh.T
        Ci = Ci.toarray() if sp.issparse(Ci) else np.asarray(Ci)
        Cl = Eh[q] @ Eh.T
        rel = lab[q][:, None] == lab[None, :]
        itself = np.zeros_like(rel)
        itself[np.arange(q.size), q] = True                      # a query does not retrieve itself
        for g, w in enumerate(grid):
            out[g, start:start + q.size] = per_query_measures(w * Ci + (1.0 - w) * Cl, rel, exclude=itself,
                                                              measures=("ap",))["ap"]
    return (out, rows[queries]) if return_queries else out


# ----------------------------------------------------------------------------- the duplicate rule

#: The duplicate rules ``choose_matcher`` can compare (besides the input-cosine threshold).
MATCHERS = ("threshold", "knn", "classifier")
_MATCH_BASELINE = "input cosine threshold"


class MatchRule:
    """Which duplicate rule a model uses and why: chosen on held-out pairs by
    :func:`choose_matcher`, saved in the model file as "match_rule" beside the matcher itself.

    Attributes
    ----------
    matcher : str
        ``"cosine"`` (a threshold on the input cosine, the baseline), ``"threshold"`` (a threshold
        on FILM's mixed cosine), ``"knn"`` (the paper's pairwise kNN rule), ``"classifier"`` or
        ``"classifier+film"`` (:class:`~learnsim.pair_classifier.PairClassifierMatcher` without
        or with FILM's embedding block).
    accuracies : dict
        Held-out pair accuracy of every candidate (cross-fitted for the rules fitted on the
        held-out pairs; the classifiers are trained on the training pairs).
    n_pairs : int
    baseline_gain : BaselineGain or None
        The chosen rule against the input-cosine threshold, per held-out pair (None: unchecked).
    mixed_input_weight : float or None
        The input-cosine weight that the mixed-cosine threshold rule chooses on all the held-out
        pairs (by ROC AUC), whichever rule is used: how much of FILM's cosine helps to decide
        pairs.
    """

    def __init__(self, matcher="cosine", accuracies=None, n_pairs=0, baseline_gain=None, mixed_input_weight=None):
        self.matcher = matcher
        self.accuracies = dict(accuracies or {})
        self.n_pairs = int(n_pairs)
        self.baseline_gain = baseline_gain
        self.mixed_input_weight = mixed_input_weight

    def _get_state(self):
        gain = None if self.baseline_gain is None else self.baseline_gain.to_dict()
        return ({"matcher": self.matcher, "accuracies": {k: float(v) for k, v in self.accuracies.items()},
                 "n_pairs": self.n_pairs, "baseline_gain": gain, "mixed_input_weight": self.mixed_input_weight}, {})

    @classmethod
    def _from_state(cls, meta, arrays):
        import numbers

        from .baseline import BaselineGain

        names = ("cosine", "threshold", "knn", "classifier", "classifier+film")
        if not isinstance(meta, dict) or meta.get("matcher") not in names:
            raise ValueError(f"MatchRule state: matcher must be one of {list(names)}")
        acc = meta.get("accuracies", {})
        if not isinstance(acc, dict) or not all(k in names and isinstance(v, numbers.Real) and 0 <= v <= 1
                                                for k, v in acc.items()):
            raise ValueError("MatchRule state: accuracies must map rule names to numbers in [0, 1]")
        n = meta.get("n_pairs", 0)
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 0:
            raise ValueError(f"MatchRule state: n_pairs must be a non-negative integer; got {n!r}")
        gain = meta.get("baseline_gain")
        gain = None if gain is None else BaselineGain.from_dict(gain, owner="MatchRule")
        w = meta.get("mixed_input_weight")
        if w is not None:
            from .hybrid import check_input_weight

            w = check_input_weight(w, "MatchRule state: mixed_input_weight")
        return cls(meta["matcher"], acc, n, gain, w)


def _half_split(labels, random_state):
    """Two halves of the pairs, each with both labels in proportion (None when a label has
    fewer than two pairs)."""
    rng = np.random.default_rng(random_state)
    halves = ([], [])
    for value in (False, True):
        members = rng.permutation(np.flatnonzero(labels == value))
        if members.size < 2:
            return None
        cut = members.size // 2
        halves[0].append(members[:cut])
        halves[1].append(members[cut:])
    return np.sort(np.concatenate(halves[0])), np.sort(np.concatenate(halves[1]))


def choose_matcher(metric, X, train, held, *, texts=None, vectorizer=None, candidates=MATCHERS,
                   check_baseline=True, random_state=0):
    """Choose the duplicate rule on held-out pairs and measure it against a threshold on the
    input cosine (the rule of :mod:`learnsim.baseline`).

    Candidates, each scored by its correctness on every held-out pair:

    - ``"cosine"`` (the baseline) and ``"threshold"`` (:class:`~learnsim.matching.ThresholdMatcher`
      on FILM's cosine mixed with the input cosine, weight chosen by ROC AUC) and ``"knn"``
      (:class:`~learnsim.matching.PairwiseKNNMatcher` in FILM's space, the paper's rule) are fitted
      on held-out pairs: each half of the held-out pairs is judged by the rule fitted on the
      other half (cross-fitted), since a threshold judged on the pairs that chose it is optimistic;
    - ``"classifier"`` and ``"classifier+film"`` (:class:`~learnsim.pair_classifier.PairClassifierMatcher`
      with its default features, and with FILM's embedding block as well) are trained on the
      training pairs and judged on all the held-out pairs.

    The rule with the best mean accuracy is chosen (ties to the baseline); the reported gain over
    the baseline is cross-fitted over the choice as well (:func:`learnsim.baseline.cross_fitted`).
    When the chosen rule does not beat the baseline, the baseline is used and a warning says so.

    Parameters
    ----------
    metric : fitted FILM
    X : the vectors of every text (rows the pairs index into)
    train, held : Pairs with labels
        The pairs FILM was trained on and the held-out ones.
    texts : sequence of str, optional
        The texts of the rows of X; needed by the classifiers.
    vectorizer : fitted TextVectorizer, optional
        The one that made X; the classifiers use it for their word features (None or an LSI
        vectoriser: the classifier fits its own tf.idf and has no FILM variant).
    candidates : sequence of names from :data:`MATCHERS`
    check_baseline : bool
        False: no baseline candidate and no report (``baseline_gain`` None).

    Returns
    -------
    (matcher, MatchRule)
        The chosen rule fitted for use: rules of the held-out pairs refitted on all of them
        (keeping only their rows as the collection), a classifier refitted on all the pairs.
    """
    import warnings

    from .baseline import choose, unchecked
    from .matching import PairwiseKNNMatcher, ThresholdMatcher
    from .supervision import Pairs

    unknown = [c for c in candidates if c not in MATCHERS]
    if unknown or not candidates:
        raise ValueError(f"candidates must be names from {MATCHERS}; got {list(candidates)}")
    labels = np.asarray(held.labels, dtype=bool)
    rows, inverse = np.unique(held.indices, return_inverse=True)
    local = inverse.reshape(held.indices.shape)
    Xh = X[rows]
    makers = {"cosine": lambda: ThresholdMatcher(metric, input_weight=1.0),
              "threshold": lambda: ThresholdMatcher(metric, input_weight="auto"),
              "knn": lambda: PairwiseKNNMatcher(metric)}
    names = (["cosine"] if check_baseline else []) + [c for c in ("threshold", "knn") if c in candidates]
    scores = {}
    halves = _half_split(labels, random_state)
    if halves is not None:
        for name in names:
            correct = np.empty(labels.size)
            for fit_on, judge in (halves, halves[::-1]):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")      # e.g. k values beyond a small collection
                    rule = makers[name]().fit(Xh, Pairs(local[fit_on], labels=labels[fit_on]))
                correct[judge] = rule.predict(local[judge]).astype(bool) == labels[judge]
            scores[name] = correct
    classifiers = {}
    if "classifier" in candidates:
        classifiers = _train_classifiers(metric, texts, vectorizer, train, random_state)
        for name, model in classifiers.items():
            scores[name] = model.predict(held).astype(bool) == labels
    if not scores:
        # too few held-out pairs of a kind to judge the rules fitted on them
        name = "threshold" if "threshold" in candidates else candidates[0]
        if name == "classifier":
            name = "threshold"
        report = unchecked(f"the {labels.size} held-out pairs hold fewer than two of a kind", baseline_name=_MATCH_BASELINE,
                           owner="FILM duplicate rule", stacklevel=2) if check_baseline else None
        matcher = makers[name]().fit(Xh, Pairs(local, labels=labels))
        return matcher, MatchRule(name, {}, labels.size, report, getattr(matcher, "input_weight_", None))
    order = list(scores)
    C = np.array([scores[n] for n in order], dtype=np.float64)
    accuracies = {n: float(scores[n].mean()) for n in order}
    report = None
    if check_baseline and "cosine" in scores:
        chosen, report = choose(C, 0, measure="pair accuracy", unit="held-out pairs", baseline_name=_MATCH_BASELINE,
                                owner="FILM duplicate rule", random_state=random_state, stacklevel=2,
                                detail=lambda c: {"matcher": order[c]})
    else:
        chosen = int(np.argmax(C.mean(axis=1)))
    name = order[chosen]
    if name in classifiers:
        everything = Pairs(np.vstack([train.indices, held.indices]),
                           labels=np.concatenate([np.asarray(train.labels, bool), labels]))
        matcher = _classifier(metric if name == "classifier+film" else None, vectorizer, random_state)
        matcher.fit(list(texts), everything)
    else:
        matcher = makers[name]().fit(Xh, Pairs(local, labels=labels))
    mixed = matcher if name == "threshold" else makers["threshold"]().fit(Xh, Pairs(local, labels=labels))
    return matcher, MatchRule(name, accuracies, labels.size, report, mixed.input_weight_)


def _classifier(embedding, vectorizer, random_state):
    from .pair_classifier import DEFAULT_FEATURES, PairClassifierMatcher

    features = DEFAULT_FEATURES + (("embedding",) if embedding is not None else ())
    return PairClassifierMatcher(vectorizer=vectorizer, embedding=embedding, features=features,
                                 random_state=random_state)


def _train_classifiers(metric, texts, vectorizer, train, random_state):
    """The pair classifiers trained on the training pairs: default features, and (when the
    vectoriser gives sparse term vectors, FILM's input) with FILM's embedding block."""
    if texts is None:
        raise ValueError("the 'classifier' candidate needs the texts")
    labels = np.asarray(train.labels, dtype=bool)
    if labels.sum() < 2 or (~labels).sum() < 2:      # its folds need two of each kind
        return {}
    sparse_terms = vectorizer is not None and getattr(vectorizer, "n_components_", None) is None
    if not sparse_terms:
        vectorizer = None
    texts = list(texts)
    models = {"classifier": _classifier(None, vectorizer, random_state).fit(texts, train)}
    if sparse_terms:
        models["classifier+film"] = _classifier(metric, vectorizer, random_state).fit(texts, train)
    return models
