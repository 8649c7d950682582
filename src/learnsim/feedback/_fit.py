"""Refitting from the click log: the relative-comparison metric of paper 004 learned from the
comparisons of :func:`learnsim.feedback.click_comparisons`, as ``learnsim fit --method relative
--clicks-from DIR`` learns it (each distinct query text joins the collection as the anchor of
its triplets ``(query, clicked, skipped)``).

How a fit from a click log chooses C and checks itself against W = 1 (the cosine of the
collection): on held-out *searches*, not held-out triplets. The queries are split into K seeded
folds (K = 1 / validation_fraction, 4 by default), each held out once. For each fold, W = 1 and
the metric fitted with each C of :data:`CLICK_C_GRID` on the other folds' comparisons rank, for
each held-out search, the results it showed together with the candidate's own top results from
the whole collection; the search scores the clicks' discounted gain in that ranking, each click
weighted by the inverse of its position's examination probability: the propensity-weighted DCG
of Joachims, Swaminathan and Schnabel (WSDM 2017), an unbiased estimate, under the
position-based click model, of how high a ranking puts what users find relevant among the
results they saw. A document the search did not show has no click and counts as not relevant,
so the estimate leans towards the ranking the log was served with: a candidate that brings
unseen documents above what users clicked pays for it, which is the side a check against that
ranking should err on. A query scores the mean over its searches; the C with the best mean over
all the queries is chosen and its gain over W = 1 cross-fitted (:func:`learnsim.baseline.choose`);
it must be clearly positive, as everywhere in learnsim, or the model is W = 1.

Why not held-out triplet accuracy: on the 20 Newsgroups simulation (docs/click_loop.md) it moved
by +0.006 for a model 0.04 better in nDCG@10 on new queries, and it rose for the Joachims pairs'
models that turned the shown ranking round. Why not the shown results alone, re-ranked: that
measure rose with C while the nDCG@10 of new queries fell (it cannot see what a model brings in
from the rest of the collection). Why every query held out once: with one held-out quarter of the
queries, 2 fits of 4 learned on seed 0 of the simulation and 0 of 4 on seed 1; with every query
held out once, 6 of 6 and 2 of 6 (logs of 1,000-9,000 sessions).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._utils.progress import with_show_progress_bar

__all__ = ["fit_clicks", "click_supervision", "ClickSupervision", "CLICK_DEFAULTS", "CLICK_C_GRID"]

#: The options a fit from clicks takes unless told otherwise (``fit_clicks``, ``learnsim fit
#: --method relative --clicks/--clicks-from``). Clicks rank a whole collection for short queries,
#: where paper 004's distance over binary features, shrunk towards 0, ranks badly: a document
#: whose words got small weights is close to every query. tf-idf features, weights shrunk towards
#: W = 1 and the ranking by the cosine in the learned weighting fix that
#: (``benchmarks/bench_click_loop.py``, docs/click_loop.md); the fit's held-out check then compares
#: with the plain tf-idf cosine.
CLICK_DEFAULTS = {"weighting": "tfidf", "prior": "one", "normalize": True}

#: The C candidates of a fit from a click log, most shrunk towards W = 1 first. Weights shrunk
#: towards 1 need C an order or two above the relative method's own grid's low end to move at all.
CLICK_C_GRID = (1e-2, 3e-2, 1e-1, 3e-1, 1.0, 3.0)


@with_show_progress_bar
def fit_clicks(ids, texts, comparisons=None, *, impressions=None, random_state=0, **options):
    """Fit the relative-comparison metric from click comparisons (the Python side of
    ``learnsim fit --method relative --clicks-from``).

    Parameters
    ----------
    ids, texts : sequence of str
        The collection's documents; comparisons naming another id are left out.
    comparisons : sequence of (str, str, str), optional
        ``(query text, clicked id, skipped id)``, e.g. the rows of a ``--clicks`` file: C is
        chosen, and the model checked against W = 1, on the triplets of held-out queries.
    impressions : iterable of dict, optional
        A click log's searches, as :meth:`FeedbackLog.impressions` gives them (``query``,
        ``shown``, ``clicks``, ``client``), in place of ``comparisons``: the fit learns from
        :func:`click_comparisons` of them (inverse propensity weights) and chooses C, and checks
        itself against W = 1, on held-out searches (module notes). Give one of the two.
    random_state : int, default=0
    **options
        Options of :func:`learnsim.fit` for method "relative" (``weighting``, ``prior``,
        ``normalize``, ``validation_fraction``, ``show_progress_bar``, ...); by default
        :data:`CLICK_DEFAULTS` (tf-idf, shrunk towards W = 1, ranked by the weighted cosine).

    Returns
    -------
    learnsim.fitting.FitResult
        ``pipeline`` (the model, checked against W = 1 on held-out queries) and ``report``
        (``report["baseline_gain"]`` says how it fared).

    Examples
    --------
    >>> from learnsim.feedback import fit_clicks
    >>> ids = ["d1", "d2", "d3", "d4"]
    >>> texts = ["reset my password", "password reset link", "charged twice", "refund a double charge"]
    >>> rows = [("password", "d1", "d3"), ("password help", "d2", "d4"), ("charge", "d3", "d1"),
    ...         ("refund", "d4", "d2"), ("reset", "d1", "d4")]
    >>> result = fit_clicks(ids, texts, rows)     # two held-out queries: the check warns
    >>> result.pipeline.scoring                   # the weights did not beat it: the baseline
    'BM25'

    References
    ----------
    .. [1] M. Schultz and T. Joachims, "Learning a Distance Metric from Relative Comparisons",
       NIPS 2003 (paper 004).
    .. [2] T. Joachims, A. Swaminathan and T. Schnabel, "Unbiased Learning-to-Rank with Biased
       Feedback", WSDM 2017.
    """
    from ..fitting import FitOptions, fit, fit_relative

    sup = click_supervision(ids, texts, comparisons=comparisons, impressions=impressions, random_state=random_state)
    options = {**CLICK_DEFAULTS, "n_documents": sup.n_documents, **options}
    if sup.chooser is None:
        return fit(sup.texts, triplets=sup.triplets.tolist(), method="relative", random_state=random_state,
                   **options)
    if isinstance(random_state, bool) or not isinstance(random_state, (int, np.integer)) or random_state < 0:
        raise TypeError(f"random_state must be a non-negative integer; got {random_state!r}")
    o = FitOptions.from_keywords("relative", options, int(random_state))
    return fit_relative(o, sup.texts, sup.triplets, {"method": "relative"}, chooser=sup.chooser)


class ClickSupervision(NamedTuple):
    """What a fit from clicks learns from (:func:`click_supervision`)."""

    #: the collection's texts, then each distinct query text once (the anchors)
    texts: list
    #: (n, 3) int64 indices into ``texts``: (query, clicked, skipped)
    triplets: np.ndarray
    #: how many of ``texts`` are the collection (its vocabulary and idf)
    n_documents: int
    n_queries: int
    #: how :func:`learnsim.relative.recipe.fit_relative` chooses C from a log (held-out searches); None
    #: for comparisons (held-out triplets)
    chooser: object


def click_supervision(ids, texts, *, comparisons=None, impressions=None, random_state=0):
    """The triplets a fit from clicks learns from, and for a log the way it checks itself (the
    seam between :func:`fit_clicks` and ``learnsim fit --method relative --clicks-from``).

    Parameters
    ----------
    ids, texts : sequence of str
        The collection; comparisons naming another id are left out.
    comparisons : sequence of (str, str, str), optional
    impressions : iterable of dict, optional
        One of the two, as :func:`fit_clicks` takes them.
    random_state : int, default=0

    Returns
    -------
    ClickSupervision

    Examples
    --------
    >>> from learnsim.feedback import click_supervision
    >>> sup = click_supervision(["d1", "d2"], ["reset password", "refund"],
    ...                         comparisons=[("password", "d1", "d2"), ("money back", "d2", "d1")])
    >>> sup.texts[2:], sup.triplets.tolist(), sup.chooser is None
    (['password', 'money back'], [[2, 0, 1], [3, 1, 0]], True)
    """
    from ._clicks import check_impressions, click_comparisons

    if (comparisons is None) == (impressions is None):
        raise TypeError("give comparisons or impressions (a click log's searches), one of the two")
    texts = list(texts)
    if len(ids) != len(texts):
        raise ValueError(f"ids and texts differ in length ({len(ids)} and {len(texts)})")
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"texts[{i}] must be a str; got {type(text).__name__}")
    if impressions is not None:
        impressions = [imp for imp in check_impressions(impressions) if imp["clicks"]]
        comparisons = click_comparisons(impressions, random_state=random_state)
    position = {doc_id: i for i, doc_id in enumerate(ids)}
    queries, triplets = {}, []
    for query, closer, farther in comparisons:
        if closer not in position or farther not in position or closer == farther:
            continue
        anchor = queries.setdefault(query, len(texts) + len(queries))
        triplets.append((anchor, position[closer], position[farther]))
    if not triplets:
        raise ValueError("no comparison names two documents of the collection")
    chooser = None if impressions is None else _HeldOutSearches(impressions, queries, position, len(texts))
    return ClickSupervision(texts + list(queries), np.asarray(triplets, dtype=np.int64), len(texts), len(queries),
                            chooser)


class _HeldOutSearches:
    """fit_relative's chooser for a click log (module notes): C and the check against W = 1 on
    the re-ranked clicks of the held-out queries' searches."""

    #: what the fit's progress line says it checks on
    held_out = f"held-out searches (every query once; {len(CLICK_C_GRID)} values of C a fold)"

    def __init__(self, impressions, anchors, position, n_documents, eta=1.0, propensity_clip=10):
        self.position, self.n_documents = position, int(n_documents)
        self.eta, self.clip = float(eta), int(propensity_clip)
        # each query's searches that can be scored: a click on a shown document of the collection
        self.searches = {}
        for imp in impressions:
            anchor = anchors.get(imp["query"])
            if anchor is not None:
                search = self._search(imp)
                if search is not None:
                    self.searches.setdefault(anchor, []).append(search)

    def __call__(self, X, T, fraction, seed, prior, normalize):
        from sklearn.preprocessing import normalize as unit_rows

        from ..baseline import choose, split_groups
        from ..relative import RelativeComparisonMetric
        from ..relative._relative import BASELINE_NAME, BASELINE_NAME_NORMALIZED
        from ..relative.recipe import TOL

        split = split_groups(T[:, 0], fraction, random_state=seed)
        if split is None:               # too few queries to hold any out: the triplets' rule (unchecked)
            return None
        # every query held out once: K folds of whole queries, K = 1 / fraction (4 by default)
        anchors = np.unique(T[:, 0])
        n_folds = int(min(max(2, round(1.0 / fraction)), anchors.size))
        fold_of = dict(zip(np.random.default_rng(seed).permutation(anchors).tolist(),
                           np.arange(anchors.size) % n_folds))
        folds = [[a for a in anchors.tolist() if fold_of[a] == f and a in self.searches] for f in range(n_folds)]
        units = [a for fold in folds for a in fold]
        if not units:                   # no held-out search to score: the triplets' rule
            return None
        pairs, owners, gains = [], [], []
        for u, anchor in enumerate(units):
            for rows, gain in self.searches[anchor]:
                pairs.append((anchor, rows))
                owners.append(u)
                gains.append(gain)
        rows = np.empty((1 + len(CLICK_C_GRID), len(units)))
        rows[0] = self._scores(unit_rows(X) if normalize else X, pairs, owners, gains, len(units))
        fold_T = np.array([fold_of[a] for a in T[:, 0].tolist()])
        start = 0
        for f, fold in enumerate(folds):
            cols = slice(start, start + len(fold))
            start += len(fold)
            if not fold:
                continue
            mine = [k for k, u in enumerate(owners) if cols.start <= u < cols.stop]
            part = ([pairs[k] for k in mine], [owners[k] - cols.start for k in mine], [gains[k] for k in mine])
            for c_index, c in enumerate(CLICK_C_GRID):
                model = RelativeComparisonMetric(C=c, tol=TOL, random_state=seed, baseline_holdout=None, prior=prior,
                                                 normalize=normalize).fit(X, T[fold_T != f])
                rows[1 + c_index, cols] = self._scores(model.transform(X), *part, len(fold))
        valid_T = T                         # every triplet's query was held out once
        means = rows.mean(axis=1)
        best_learned = CLICK_C_GRID[int(np.argmax(means[1:]))]
        searches = len(pairs)
        chosen, report = choose(rows, 0, measure=MEASURE, unit=f"held-out queries ({searches} searches)",
                                baseline_name=BASELINE_NAME_NORMALIZED if normalize else BASELINE_NAME,
                                owner="learnsim fit --method relative (clicks)", random_state=seed, stacklevel=4,
                                detail=lambda c: {"C": CLICK_C_GRID[c - 1] if c else best_learned,
                                                  "chosen": f"C = {CLICK_C_GRID[c - 1]:g}" if c else "W = 1",
                                                  "held_out_searches": searches, "held_out_queries": len(units),
                                                  "folds": n_folds, "cross_fitted": True,
                                                  })
        best_C = CLICK_C_GRID[chosen - 1] if chosen else best_learned
        scores = dict(zip(CLICK_C_GRID, means[1:].tolist()))
        return (best_C, report, valid_T, scores, float(means[0]),
                {"validation_measure": MEASURE, "validation_searches": searches, "validation_queries": len(units)})

    def _search(self, imp):
        """(rows of the shown documents that are in the collection, in shown order; the clicks'
        inverse propensity weights, 0 for a result not clicked), or None without a click there."""
        shown = [(r, self.position[d]) for r, d in enumerate(imp["shown"]) if d in self.position]
        clicked = {c["doc_id"] for c in imp["clicks"]}
        weight = np.array([min(r + 1, self.clip) ** self.eta if imp["shown"][r] in clicked else 0.0
                           for r, _ in shown])
        if not weight.any():
            return None
        return np.array([row for _, row in shown], dtype=np.int64), weight

    def _scores(self, Z, pairs, owners, gains, n_units):
        """Each held-out query's mean over its searches of the clicks' weighted DCG in the model's
        ranking of the results shown together with the model's own top results from the whole
        collection (as many as were shown): a document the search did not show has no click and
        counts as not relevant, so a model that brings unseen documents above what users clicked
        pays for it (the measure leans towards the ranking the log was served with, as a check
        against it should)."""
        import scipy.sparse as sp

        Z = sp.csr_matrix(Z) if sp.issparse(Z) else np.asarray(Z)
        docs = Z[:self.n_documents]
        if sp.issparse(Z):
            sq = np.asarray(docs.multiply(docs).sum(axis=1)).ravel()
        else:
            sq = np.einsum("ij,ij->i", docs, docs)
        total, count = np.zeros(n_units), np.zeros(n_units)
        searches_of = {}
        for (anchor, rows), u, gain in zip(pairs, owners, gains):
            searches_of.setdefault(anchor, []).append((rows, u, gain))
        anchors = sorted(searches_of)
        block = max(1, (1 << 22) // max(1, self.n_documents))   # queries x documents of bounded memory
        for start in range(0, len(anchors), block):
            part = anchors[start:start + block]
            dots = docs @ Z[part].T
            dots = np.asarray(dots.todense() if sp.issparse(dots) else dots).T
            for row, anchor in enumerate(part):
                d = sq - 2.0 * dots[row]            # squared distance up to the query's own |q|^2
                for rows, u, gain in searches_of[anchor]:
                    k = min(len(rows), d.size)
                    top = np.argpartition(d, k - 1)[:k] if k < d.size else np.arange(d.size)
                    pool = d[np.union1d(top, rows)]
                    clicked = gain > 0
                    ranks = np.array([np.count_nonzero(pool < d[r]) for r in rows[clicked]])
                    total[u] += float(np.sum(gain[clicked] / np.log2(ranks + 2.0)))
                    count[u] += 1
        return np.divide(total, count, out=np.zeros(n_units), where=count > 0)


#: What the held-out searches measure (the report's ``measure``).
MEASURE = ("click DCG of held-out searches (inverse propensity weighted), the results shown ranked with the "
           "model's own top results")
