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

__all__ = ["SearchRule", "cluster_weight_scores", "triplet_weight_scores", "choose_lexical_weight",
           "LEXICAL_WEIGHT_GRID", "LEXICAL_KINDS"]

#: The weights of the lexical tf.idf cosine tried when a dense encoder's scoring is mixed with it
#: (0: the dense scoring alone, 1: the lexical cosine alone).
LEXICAL_WEIGHT_GRID = tuple(float(w) for w in np.round(np.linspace(0.0, 1.0, 21), 2))

#: What the lexical part of a search rule is: "tfidf", the tf.idf cosine over the searched
#: collection's vocabulary (mixed as ``lambda cos + (1 - lambda) dense``), or "bm25", Okapi BM25
#: over that vocabulary divided by the largest score the query can reach (``lambda BM25 / Z(q)
#: + (1 - lambda) dense``; :mod:`learnsim.scorer`). Model files saved before the kind hold "tfidf".
LEXICAL_KINDS = ("tfidf", "bm25")

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

    A model whose input is a dense sentence encoder can also mix a lexical part in:
    ``lexical_weight`` is the weight lambda of ``lambda cos_tfidf + (1 - lambda) dense`` (dense:
    the mixed cosine above over the encoder's vectors; the tf.idf over the searched
    collection's vocabulary), chosen on the same held-out queries by
    :meth:`with_lexical_weight` (:func:`choose_lexical_weight`); None where no lexical part
    was considered (term-vector models, whose input cosine is already lexical).
    ``lexical_kind`` says what that lexical part is (:data:`LEXICAL_KINDS`): ``"tfidf"`` the
    tf.idf cosine above, ``"bm25"`` Okapi BM25 (k1 1.5, b 0.6, binary queries, the searched
    collection's idf and mean length) divided by the largest score the query can reach,
    ``lambda BM25(q, d) / Z(q) + (1 - lambda) dense`` (:mod:`learnsim.scorer`). Over term vectors
    a BM25 mix's dense part is FILM's learned cosine alone: ``input_weight`` must then be None or
    0 (the input cosine would need a second collection vocabulary).

    Examples
    --------
    Choose the weight for search with every fifth item as a query (its "duplicates" are the
    other items of its cluster); ``check_baseline=False`` keeps the best weight unchecked:

    >>> import numpy as np
    >>> from learnsim.datasets import make_clustered_corpus
    >>> from learnsim.text import TextVectorizer
    >>> from learnsim.film import FILM
    >>> corpus = make_clustered_corpus(n_clusters=6, docs_per_cluster=10, vocab_size=500, random_state=0)
    >>> X = TextVectorizer(norm="l2").fit_transform(corpus.data)
    >>> film = FILM(n_components=8, max_iter=50, baseline_holdout=None, random_state=0).fit(X, corpus.target)
    >>> from learnsim.film import SearchRule
    >>> rule = SearchRule.select(film, X, np.arange(0, 60, 5), corpus.target, check_baseline=False)
    >>> rule.n_queries, len(rule.weight_grid), rule.weight_grid[-1]
    (12, 21, 1.0)
    >>> bool(0.0 <= rule.input_weight <= 1.0)
    True

    A rule that mixes normalised BM25 into an encoder's cosine, chosen elsewhere:

    >>> SearchRule(input_weight=1.0, lexical_weight=0.3, lexical_kind="bm25").describe()
    '0.3 x BM25 / its largest score for the query + 0.7 x dense (input weight 1)'
    """

    def __init__(self, input_weight=None, weight_grid=(), weight_scores=(), n_queries=0, baseline_gain=None,
                 lexical_weight=None, lexical_grid=(), lexical_scores=(), lexical_gain=None, lexical_kind="tfidf"):
        from .hybrid import check_input_weight

        if not isinstance(lexical_kind, str) or lexical_kind not in LEXICAL_KINDS:
            raise ValueError(f"lexical_kind must be one of {', '.join(map(repr, LEXICAL_KINDS))}; got {lexical_kind!r}")
        self.input_weight = input_weight
        self.weight_grid = tuple(float(w) for w in weight_grid)
        self.weight_scores = np.asarray(weight_scores, dtype=np.float64)
        self.n_queries = int(n_queries)
        self.baseline_gain = baseline_gain
        self.lexical_weight = None if lexical_weight is None else check_input_weight(lexical_weight, "lexical_weight")
        self.lexical_grid = tuple(float(w) for w in lexical_grid)
        self.lexical_scores = np.asarray(lexical_scores, dtype=np.float64)
        self.lexical_gain = lexical_gain
        self.lexical_kind = lexical_kind

    def with_lexical(self, weight, grid, scores, report, kind=None):
        """A copy with the lexical part's weight, its grid, held-out scores and report (and its
        ``kind``, by default this rule's)."""
        return SearchRule(self.input_weight, self.weight_grid, self.weight_scores, self.n_queries,
                          self.baseline_gain, weight, grid, scores, report,
                          self.lexical_kind if kind is None else kind)

    def describe(self):
        """One line: the scoring this rule makes (its lexical mix, and the input weight of the
        dense part)."""
        w = "none" if self.input_weight is None else f"{self.input_weight:g}"
        lam = self.lexical_weight
        if not lam:
            return f"dense alone (input weight {w})"
        lexical = "BM25 / its largest score for the query" if self.lexical_kind == "bm25" else "the tf.idf cosine"
        if lam == 1.0:
            return f"{lexical} alone"
        return f"{lam:g} x {lexical} + {1 - lam:g} x dense (input weight {w})"

    def dense_scores(self, metric, X, rows, columns=None):
        """The dense part's scores of ``rows`` of X against ``columns`` (default: all of X):
        ``w cos(x, x') + (1 - w) cos(Lx, Lx')`` with this rule's w."""
        w = 1.0 if self.input_weight is None else float(self.input_weight)
        Xu = _unit_rows(X)
        cols = Xu if columns is None else Xu[columns]
        S = w * _dense(Xu[rows] @ cols.T) if w > 0.0 else 0.0
        if w < 1.0:
            E = _unit_rows(np.asarray(metric.transform(X), dtype=np.float64))
            S = S + (1.0 - w) * (E[rows] @ (E if columns is None else E[columns]).T)
        return S

    def with_lexical_weight(self, metric, X, L, queries, components, grid=LEXICAL_WEIGHT_GRID, random_state=0,
                            check_baseline=True):
        """This rule with the weight of a lexical cosine chosen on held-out duplicate queries:
        each query's best hit in the whole collection (itself excluded) under ``lambda
        cos(l, l') + (1 - lambda) dense`` for every lambda of ``grid`` (rows of ``X``: the
        encoder's vectors; of ``L``: their tf.idf), recall@1 per query, and
        :func:`choose_lexical_weight`."""
        Lu = _unit_rows(L)
        hits = np.zeros((len(grid), len(queries)))
        step = max(1, _BLOCK_ENTRIES // max(X.shape[0], 1))
        lam = np.asarray(grid, dtype=np.float64)
        for start in range(0, len(queries), step):
            q = queries[start:start + step]
            Ci = _dense(Lu[q] @ Lu.T)
            Cd = np.array(self.dense_scores(metric, X, q), dtype=np.float64)
            rows = np.arange(len(q))
            Ci[rows, q] = -2.0
            Cd[rows, q] = -2.0
            best = _best_per_weight(Ci, Cd, lam)
            hits[:, start:start + len(q)] = components[best] == components[q][None, :]
        weight, report = choose_lexical_weight(hits, grid, measure="recall@1", unit="held-out duplicate queries",
                                               groups=components[queries] if len(queries) else None,
                                               check_baseline=check_baseline, random_state=random_state)
        return self.with_lexical(weight, grid, hits.mean(axis=1) if len(queries) else np.zeros(len(grid)), report)

    @staticmethod
    def query_hits(metric, X, queries, components, grid):
        """(len(grid), len(queries)) array: 1 where the query's best hit in the whole of X
        (itself excluded) under ``w cos(x, x') + (1 - w) cos(Lx, Lx')`` shares its component."""
        import scipy.sparse as sp

        Xu = _unit_rows(X)
        E = _unit_rows(np.asarray(metric.transform(X), dtype=np.float64))
        hits = np.zeros((len(grid), len(queries)))
        step = max(1, _BLOCK_ENTRIES // max(X.shape[0], 1))
        w = np.asarray(grid, dtype=np.float64)
        for start in range(0, len(queries), step):
            q = queries[start:start + step]
            Ci = Xu[q] @ Xu.T
            Ci = Ci.toarray() if sp.issparse(Ci) else np.asarray(Ci)
            Cl = E[q] @ E.T
            rows = np.arange(len(q))
            # the query itself never wins: below every mixture of two cosines (>= -1), and finite
            # so that a weight of 0 or 1 leaves no NaN
            Ci[rows, q] = -2.0
            Cl[rows, q] = -2.0
            best = _best_per_weight(Ci, Cl, w)
            hits[:, start:start + len(q)] = components[best] == components[q][None, :]
        return hits

    @classmethod
    def select(cls, metric, X, queries, components, grid=tuple(np.round(np.linspace(0.0, 1.0, 21), 2)),
               random_state=0, check_baseline=True):
        """Choose w on ``queries`` (rows of X) whose duplicates are the rows sharing their
        ``components`` label (>= 0), and check it against w = 1 (the last value of ``grid``
        must be 1). ``check_baseline=False``: the best w on all queries (ties to the smaller),
        unchecked (``baseline_gain`` None)."""
        from ..baseline import choose, unchecked

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
        meta = {"input_weight": self.input_weight, "weight_grid": list(self.weight_grid),
                "n_queries": self.n_queries, "baseline_gain": gain}
        arrays = {"weight_scores": self.weight_scores}
        if self.lexical_weight is not None:
            # written only where a lexical part was considered: other files stay as before
            meta.update(lexical_weight=self.lexical_weight, lexical_grid=list(self.lexical_grid),
                        lexical_gain=None if self.lexical_gain is None else self.lexical_gain.to_dict(),
                        lexical_kind=self.lexical_kind)
            arrays["lexical_scores"] = self.lexical_scores
        return meta, arrays

    @classmethod
    def _from_state(cls, meta, arrays):
        from ..baseline import BaselineGain
        from .hybrid import check_input_weight

        if not isinstance(meta, dict) or not isinstance(arrays, dict) or "weight_scores" not in arrays:
            raise ValueError("SearchRule state must be (meta, {'weight_scores': ...})")
        lexical = {}
        if meta.get("lexical_weight") is not None:
            weight = check_input_weight(meta["lexical_weight"], "SearchRule state: lexical_weight")
            if "lexical_scores" not in arrays:
                raise ValueError("SearchRule state: a lexical_weight without its 'lexical_scores'")
            lexical_gain = meta.get("lexical_gain")
            lexical_gain = None if lexical_gain is None else BaselineGain.from_dict(lexical_gain, owner="SearchRule")
            # files written before the kind: the tf.idf cosine (the constructor refuses an unknown
            # kind, naming it)
            lexical = {"lexical_weight": weight, "lexical_grid": meta.get("lexical_grid", ()),
                       "lexical_scores": arrays["lexical_scores"], "lexical_gain": lexical_gain,
                       "lexical_kind": meta.get("lexical_kind", "tfidf")}
        w = check_input_weight(meta.get("input_weight"), "SearchRule state: input_weight")
        gain = meta.get("baseline_gain")
        # files written before the check have none
        gain = None if gain is None else BaselineGain.from_dict(gain, owner="SearchRule")
        # a rule that fell back is the input cosine, unless its baseline holds BM25 (issue 42: BM25
        # alone, or mixed with the encoder's cosine), whose dense part may be FILM's
        bm25 = lexical.get("lexical_kind") == "bm25" and bool(lexical.get("lexical_weight"))
        if gain is not None and gain.status == "baseline" and w != 1.0 and not bm25:
            raise ValueError(f"SearchRule state: the rule fell back to the input cosine but its input_weight is {w}")
        return cls(w, meta.get("weight_grid", ()), arrays["weight_scores"], meta.get("n_queries", 0), gain, **lexical)


_SEARCH_BASELINE = "input cosine"
_DENSE_NAME = "dense scoring alone"
_LEXICAL_NAME = "lexical tf.idf cosine alone"


def choose_lexical_weight(units, grid, *, measure, unit, groups=None, check_baseline=True, random_state=0,
                          owner="lexical + dense search"):
    """The weight lambda of a lexical cosine mixed with a dense scoring, chosen on held-out units.

    ``units`` is (len(grid), n_units): each held-out unit's measure under ``lambda lexical +
    (1 - lambda) dense`` for every lambda of ``grid``, which must hold 0 (the dense scoring
    alone) and 1 (the lexical cosine alone). The baseline is whichever of the two ends has the
    better mean (ties to the dense one): a mix is kept only when the interval of its
    cross-fitted gain over the better end lies above 0 (:func:`learnsim.baseline.choose`), so the
    rule never scores below either part alone on the held-out units; otherwise that end is
    used. ``check_baseline=False``: the best lambda, unchecked (report None).

    Returns
    -------
    (float, BaselineGain or None)

    Examples
    --------
    Forty held-out queries: the lexical cosine alone finds half, the dense scoring 0.6, and the
    mix 0.5 finds every one:

    >>> import numpy as np, warnings
    >>> from learnsim.film._search_weight import choose_lexical_weight
    >>> units = np.vstack([np.r_[np.ones(24), np.zeros(16)], np.ones(40), np.r_[np.ones(20), np.zeros(20)]])
    >>> weight, report = choose_lexical_weight(units, (0.0, 0.5, 1.0), measure="recall@1",
    ...                                        unit="held-out duplicate queries")
    >>> weight, report.status, report.baseline
    (0.5, 'learned', 'dense scoring alone')
    """
    from ..baseline import choose, unchecked

    grid = tuple(float(w) for w in grid)
    if 0.0 not in grid or 1.0 not in grid:
        raise ValueError("the lexical weight grid must hold 0 (the dense scoring) and 1 (the lexical cosine)")
    C = np.asarray(units, dtype=np.float64)
    dense, lexical = grid.index(0.0), grid.index(1.0)
    if C.shape[1] == 0:
        report = unchecked("no held-out unit to choose the lexical weight on", baseline_name=_DENSE_NAME,
                           owner=owner, stacklevel=3) if check_baseline else None
        return 0.0, report
    means = C.mean(axis=1)
    if not check_baseline:
        return grid[int(np.argmax(means))], None
    base = lexical if means[lexical] > means[dense] else dense
    chosen, report = choose(C, base, measure=measure, unit=unit,
                            baseline_name=_LEXICAL_NAME if base == lexical else _DENSE_NAME, owner=owner,
                            groups=groups, random_state=random_state, stacklevel=3,
                            detail=lambda c: {"lexical_weight": grid[c]})
    return grid[chosen], report


def _dense(M):
    import scipy.sparse as sp

    return M.toarray() if sp.issparse(M) else np.asarray(M)


def _best_per_weight(Ci, Cl, w):
    """(len(w), rows) array: the column of the largest ``w Ci + (1 - w) Cl`` in each row, for
    each weight (ties to the lower column, as ``argmax``), without forming the 21 mixtures of
    the whole rows.

    A column can be a row's best at weight w only if its mixture reaches that of the row's best
    input-cosine and best learned-cosine columns there, so only if the larger of its two cosines
    reaches ``t = min_w max(mixture of those two columns)``: the columns below t are left out,
    exactly (ties included), and the mixtures are formed for the few that remain.
    """
    n = Ci.shape[0]
    r = np.arange(n)
    a, b = Ci.argmax(axis=1), Cl.argmax(axis=1)
    mix_a = w[:, None] * Ci[r, a] + (1.0 - w)[:, None] * Cl[r, a]
    mix_b = w[:, None] * Ci[r, b] + (1.0 - w)[:, None] * Cl[r, b]
    t = np.maximum(mix_a, mix_b).min(axis=0)
    # the rounding of a mixture can exceed both cosines by an ulp: keep a margin
    t = t - 1e-12 * np.maximum(1.0, np.abs(t))
    rows, cols = np.nonzero(np.maximum(Ci, Cl) >= t[:, None])
    ci, cl = Ci[rows, cols], Cl[rows, cols]
    out = np.empty((len(w), n), dtype=np.int64)
    for g, wg in enumerate(w):
        s = wg * ci + (1.0 - wg) * cl
        # per row: the largest s, then the lowest column (rows come sorted, columns ascending)
        order = np.lexsort((cols, -s, rows))
        first = np.ones(order.size, dtype=bool)
        first[1:] = rows[order][1:] != rows[order][:-1]
        out[g, rows[order][first]] = cols[order][first]
    return out


def _unit_rows(M):
    import scipy.sparse as sp

    if sp.issparse(M):
        from sklearn.preprocessing import normalize

        return normalize(sp.csr_matrix(M, dtype=np.float64), norm="l2")
    norms = np.sqrt(np.einsum("ij,ij->i", M, M))
    return M / np.where(norms > 0, norms, 1.0)[:, None]

def triplet_weight_scores(Xn, E, T, grid):
    """Per held-out triplet (i, j, k) and weight w: 1 when w cos(x_i, x_j) + (1 - w) cos(Lx_i, Lx_j)
    beats the same for (i, k), 0.5 on a tie, else 0. ``Xn`` and ``E`` have unit rows.

    Examples
    --------
    Two triplets over three unit vectors, scored at w = 0 (the learned cosine alone) and w = 1
    (the input cosine alone):

    >>> import numpy as np
    >>> from learnsim.film._search_weight import triplet_weight_scores
    >>> Xn = np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]])
    >>> E = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    >>> T = np.array([[0, 1, 2], [0, 2, 1]])
    >>> triplet_weight_scores(Xn, E, T, (0.0, 1.0)).tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
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
    member of its cluster among the ranked rows). ``return_queries``: also the queries' rows.

    Examples
    --------
    Twelve items in three clusters, an input and a (here random) learned embedding; every row
    is a query at each of three weights:

    >>> import numpy as np
    >>> from sklearn.preprocessing import normalize
    >>> from learnsim.film._search_weight import cluster_weight_scores
    >>> rng = np.random.default_rng(0)
    >>> labels = np.repeat([0, 1, 2], 4)
    >>> Xn = normalize(np.eye(3)[labels] + 0.3 * rng.random((12, 3)))
    >>> E = normalize(rng.normal(size=(12, 2)))
    >>> scores = cluster_weight_scores(Xn, E, labels, np.arange(12), (0.0, 0.5, 1.0), rng)
    >>> scores.shape
    (3, 12)
    >>> float(scores[2].mean())   # w = 1: the input cosine, which separates the clusters
    1.0
    """
    import scipy.sparse as sp

    if rows.size > _MAX_CHECK_ROWS:
        rows = np.sort(rng.choice(rows, _MAX_CHECK_ROWS, replace=False))
    queries = np.arange(rows.size)
    if queries.size > _MAX_CHECK_QUERIES:
        queries = np.sort(rng.choice(queries, _MAX_CHECK_QUERIES, replace=False))
    from ..evaluation import per_query_measures

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
