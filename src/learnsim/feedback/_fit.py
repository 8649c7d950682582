"""Refitting from the click log: the relative-comparison metric of paper 004 learned from the
comparisons of :func:`learnsim.feedback.click_comparisons`, as ``learnsim fit --method relative
--clicks-from DIR`` learns it (each distinct query text joins the collection as the anchor of
its triplets ``(query, clicked, skipped)``; the held-out check against W = 1 is the fit's own).
"""
from __future__ import annotations

__all__ = ["fit_clicks", "CLICK_DEFAULTS"]

#: The options a fit from clicks takes unless told otherwise (``fit_clicks``, ``learnsim fit
#: --method relative --clicks/--clicks-from``). Clicks rank a whole collection for short queries,
#: where paper 004's distance over binary features, shrunk towards 0, ranks badly: a document
#: whose words got small weights is close to every query. tf-idf features, weights shrunk towards
#: W = 1 and the ranking by the cosine in the learned weighting fix that
#: (``benchmarks/bench_click_loop.py``, docs/click_loop.md); the fit's held-out check then compares
#: with the plain tf-idf cosine.
CLICK_DEFAULTS = {"weighting": "tfidf", "prior": "one", "normalize": True}


def fit_clicks(ids, texts, comparisons, *, random_state=0, **options):
    """Fit the relative-comparison metric from click comparisons (the Python side of
    ``learnsim fit --method relative --clicks-from``).

    Parameters
    ----------
    ids, texts : sequence of str
        The collection's documents; comparisons naming another id are left out.
    comparisons : sequence of (str, str, str)
        ``(query text, clicked id, skipped id)``: :func:`click_comparisons` of a log, or the
        rows of a ``--clicks`` file.
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
    >>> result = fit_clicks(ids, texts, rows)     # too few queries to check: warns
    >>> type(result.pipeline.metric).__name__
    'RelativeComparisonMetric'
    """
    from ..fitting import fit

    position = {doc_id: i for i, doc_id in enumerate(ids)}
    queries, triplets = {}, []
    for query, closer, farther in comparisons:
        if closer not in position or farther not in position or closer == farther:
            continue
        anchor = queries.setdefault(query, len(position) + len(queries))
        triplets.append((anchor, position[closer], position[farther]))
    if not triplets:
        raise ValueError("no comparison names two documents of the collection")
    return fit(list(texts) + list(queries), triplets=triplets, method="relative", random_state=random_state,
               **{**CLICK_DEFAULTS, **options})
