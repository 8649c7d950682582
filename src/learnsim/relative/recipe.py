"""The relative-comparison metric's fitting recipe (paper 004): C chosen, and the learned
weights checked against W = 1, on the triplets of held-out anchors (``learnsim fit --method
relative``, :func:`learnsim.fit` with ``triplets=``, :func:`learnsim.feedback.fit_clicks`).

:mod:`learnsim.fitting` checks the triplets and the options and calls :func:`fit_relative`; it
returns a :class:`learnsim._fit_common.Fitted` (the report, the parts and the timings), which
``fitting`` wraps into its :class:`learnsim.fitting.FitResult`.
"""
from __future__ import annotations

import time

import numpy as np

from .._fit_common import Fitted, reading
from .._utils.progress import stage

__all__ = ["C_GRID", "TOL", "DEFAULT_RELATIVE_VALIDATION_FRACTION", "check_anchors", "fit_relative"]

#: relative: the C candidates (those of the relative reproduction, and the paper's 1) and the
#: solver's gap; the held-out scores count a tie as 1/2 and are averaged per anchor.
C_GRID = (1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1, 1.0)
TOL = 1e-3
DEFAULT_RELATIVE_VALIDATION_FRACTION = 0.25


def check_anchors(T, fraction, seed):
    """A ValueError when the triplets have a single anchor (C is chosen on held-out anchors)."""
    if np.unique(T[:, 0]).size < 2:
        _split_by_anchor(T, fraction, seed)


def _split_by_anchor(T, fraction, seed):
    """Too few anchors for the check (fewer than four): one or more held out to choose C."""
    anchors = np.unique(T[:, 0])
    if anchors.size < 2:
        raise ValueError("the triplets have a single anchor: C is chosen on triplets of held-out anchors, "
                         "give triplets of two or more anchors")
    rng = np.random.default_rng(seed)
    n_held = min(max(int(round(fraction * anchors.size)), 1), anchors.size - 1)
    held = rng.permutation(anchors)[:n_held]
    mask = np.isin(T[:, 0], held)
    return T[~mask], T[mask]


def _held_out_scores(X, fit_T, valid_T, seed, prior="zero", normalize=False):
    """Rows: W = 1, then each C of C_GRID fitted on fit_T; columns: the anchors of valid_T, each
    the mean over its triplets of 1 (right), 1/2 (tie), 0 (wrong). With ``normalize`` every row
    is scored as it is served, on unit rows: W = 1 is then the features' plain cosine."""
    from sklearn.preprocessing import normalize as unit_rows      # (a zero row stays zero)

    from ._relative import RelativeComparisonMetric, anchor_means, triplet_outcomes

    rows = [anchor_means(valid_T, triplet_outcomes(valid_T, unit_rows(X) if normalize else X))]
    for c in C_GRID:
        model = RelativeComparisonMetric(C=c, tol=TOL, random_state=seed, baseline_holdout=None,
                                         prior=prior, normalize=normalize).fit(X, fit_T)
        rows.append(anchor_means(valid_T, triplet_outcomes(valid_T, model.transform(X))))
    return np.vstack(rows)


def _choose(X, T, fraction, seed, prior="zero", normalize=False):
    """C and the check against W = 1 on the triplets of held-out anchors (see fit_relative).

    Returns
    -------
    (C of the refit, report, held-out triplets, {C: mean held-out score}, W = 1's mean score)
    """
    return _choose_with_scores(X, T, fraction, seed, prior, normalize)[0]


def _choose_with_scores(X, T, fraction, seed, prior="zero", normalize=False):
    """:func:`_choose`'s answer and the held-out scores it chose by (rows: W = 1, then each C of
    C_GRID; columns: the held-out anchors in sorted order), which the search check's probes
    choose their C from without the anchors they are checked on (:func:`_search_probe`)."""
    from ..baseline import choose, split_groups, unchecked
    from ._relative import BASELINE_MEASURE, BASELINE_NAME, BASELINE_NAME_NORMALIZED

    owner = "learnsim fit --method relative"
    baseline_name = BASELINE_NAME_NORMALIZED if normalize else BASELINE_NAME
    split = split_groups(T[:, 0], fraction, random_state=seed)
    if split is None:
        fit_T, valid_T = _split_by_anchor(T, fraction, seed)
        rows = _held_out_scores(X, fit_T, valid_T, seed, prior, normalize)
        means = rows.mean(axis=1)
        report = unchecked(f"the triplets have {np.unique(T[:, 0]).size} anchors: at least 4 are needed to hold "
                           "the triplets of 2 out and learn from 2", baseline_name=baseline_name, owner=owner,
                           stacklevel=3)
        return (C_GRID[int(np.argmax(means[1:]))], report, valid_T, dict(zip(C_GRID, means[1:].tolist())),
                float(means[0])), rows
    ids, held = split
    is_held = np.isin(T[:, 0], ids[held])
    fit_T, valid_T = T[~is_held], T[is_held]
    rows = _held_out_scores(X, fit_T, valid_T, seed, prior, normalize)
    means = rows.mean(axis=1)
    # the C of a learned model: the chosen one or, when W = 1 is used, the best learned
    # candidate (kept in the saved model's parameters and reported beside the fall-back)
    best_learned = C_GRID[int(np.argmax(means[1:]))]
    chosen, report = choose(rows, 0, measure=BASELINE_MEASURE, unit=f"held-out anchors ({len(valid_T)} triplets)",
                            baseline_name=baseline_name, owner=owner, random_state=seed, stacklevel=3,
                            detail=lambda c: {"C": C_GRID[c - 1] if c else best_learned,
                                              "chosen": f"C = {C_GRID[c - 1]:g}" if c else "W = 1",
                                              "held_out_triplets": len(valid_T),
                                              "training_triplets": int(fit_T.shape[0]), "cross_fitted": True})
    best_C = C_GRID[chosen - 1] if chosen else best_learned
    return (best_C, report, valid_T, dict(zip(C_GRID, means[1:].tolist())), float(means[0])), rows


def fit_relative(o, texts, T, summary, chooser=None):
    """A weighted metric from relative comparisons (paper 004): the triplets ``T`` ((n, 3) indices
    into ``texts``: the anchor is closer to the second than to the third).

    ``o.n_documents``: when the texts are a collection's documents followed by queries that are
    only anchors (comparisons from clicks), the vocabulary and its statistics (idf) are those of
    the first ``n_documents`` texts, the collection the model will rank, and the queries are only
    transformed: the fall-back W = 1 is then the collection's own cosine, the ranking the log was
    served with, and not one whose idf the query texts moved (docs/click_loop.md).

    The triplets of a seeded ``o.validation_fraction`` of the anchors (default 0.25; whole
    anchors, at least 2 held out and 2 kept) are held out. Every C of C_GRID is fitted on the
    others and each held-out anchor is scored (mean over its triplets of 1 right, 1/2 tie, 0
    wrong) under each fit and under W = 1, the unweighted Euclidean distance; the best candidate
    is chosen (ties to W = 1) and its gain over W = 1 cross-fitted
    (:func:`learnsim.baseline.cross_fitted`). A learned C with a clearly positive gain is refitted
    on all the triplets; otherwise the metric is W = 1 and a warning says so. With fewer than four
    anchors C is chosen on one held-out anchor and the report says the check is unchecked.
    Features: binary term presence, not normalised (``o.weighting`` changes them).

    ``chooser``: another way to choose C and check against W = 1, called as ``_choose`` is,
    ``chooser(X, T, fraction, seed, prior, normalize)``, and returning what it returns (plus,
    optionally, a sixth item: a dict merged into the summary), or None to leave it to the
    held-out triplets. The click log's
    (:func:`learnsim.feedback.fit_clicks`) scores held-out searches, not held-out triplets.

    Returns a :class:`learnsim._fit_common.Fitted` (:func:`learnsim.fitting.fit_relative`: a
    FitResult); its details: report, C, scores ({C: held-out score}), valid_T.
    """
    import scipy.sparse as sp

    from ..text import TextVectorizer
    from ._relative import RelativeComparisonMetric

    weighting = o.weighting or "binary"
    prior = o.prior or "zero"
    normalize = bool(o.normalize)
    stop_words, stem = reading(o, texts)
    vectorizer = TextVectorizer(weighting, norm="l2" if weighting in ("tfidf", "bm25") and o.norm is not None else None,
                                stop_words=stop_words, stem=stem, dtype=np.float64,
                                **o.analysis)
    start = time.perf_counter()
    if o.n_documents is None:
        X = vectorizer.fit_transform(texts)
    elif o.n_documents > len(texts):
        raise ValueError(f"n_documents is {o.n_documents}, more than the {len(texts)} texts")
    else:
        X = vectorizer.fit(list(texts[:o.n_documents])).transform(list(texts))
    X = sp.csr_matrix(X, dtype=np.float64)
    vec_seconds = time.perf_counter() - start
    fraction = o.validation_fraction or DEFAULT_RELATIVE_VALIDATION_FRACTION
    check_anchors(T, fraction, o.random_state)                  # the error before any fitting
    start = time.perf_counter()
    held_out = getattr(chooser, "held_out", "held-out anchors")
    with stage(f"relative: choosing C and checking against W = 1 on {held_out}"):
        chosen = None if chooser is None else chooser(X, T, fraction, o.random_state, prior, normalize)
        by_triplets = chosen is None
        if by_triplets:         # no chooser, or one that cannot hold anything out: the held-out triplets
            chosen, rows = _choose_with_scores(X, T, fraction, o.random_state, prior, normalize)
        best_C, report, valid_T, scores, baseline_score = chosen[:5]
        extra = chosen[5] if len(chosen) > 5 else {}
    with stage("relative: learning the metric"):
        metric = RelativeComparisonMetric(C=best_C, tol=TOL, random_state=o.random_state, baseline_holdout=None,
                                          prior=prior, normalize=normalize)
        metric.fit(X, T)._with_report(report)
    report = metric.baseline_gain_
    probe = None
    if by_triplets:         # (a click log's chooser checks held-out searches against the ranking served)
        probe = _search_probe(X, T, valid_T, rows, metric, report, o.random_state, prior, normalize)
    metric_seconds = time.perf_counter() - start
    summary.update(triplets=int(T.shape[0]), validation_triplets=int(valid_T.shape[0]),
                   validation_anchors=int(np.unique(valid_T[:, 0]).size),
                   features=int(X.shape[1]), weighting=weighting, C=best_C, prior=prior, normalize=normalize,
                   validation_accuracy=scores[best_C], validation_accuracy_by_C=scores,
                   validation_accuracy_baseline=baseline_score, model="W = 1" if report.fell_back else "learned",
                   training_accuracy=float(metric.score(X, T)), nonzero_weights=int(np.count_nonzero(metric.weights_)),
                   baseline_gain=report.to_dict())
    summary.setdefault("validation_measure", "triplet accuracy, mean per anchor")
    summary.update(extra)
    return Fitted(summary, {"vectorizer": vectorizer, "metric": metric}, vec_seconds, metric_seconds,
                   report=report, C=best_C, scores=scores, valid_T=valid_T, held_out=probe)


def _search_probe(X, T, valid_T, rows, metric, report, seed, prior, normalize):
    """What the search check needs (:func:`learnsim.fitting.fit_relative`): the training and
    held-out triplets of the check, and the metric as it would serve fitted without the held-out
    anchors, as a list of (held-out anchors, metric): each anchor is searched by a metric whose C
    was chosen on the other half of the held-out anchors (``rows``, :func:`_choose_with_scores`),
    as :func:`learnsim.baseline.cross_fitted` scores the choice. The C of the refit was chosen on
    every held-out anchor; checked on the same anchors, that choice among C_GRID was scored with
    its own anchors in view. (W = 1, the model itself, for every anchor when it fell back: it
    learned nothing.) None when nothing was held out (fewer than four anchors)."""
    from ..baseline import cross_folds
    from ._relative import RelativeComparisonMetric

    if report.status == "unchecked":
        return None
    anchors = np.unique(valid_T[:, 0])
    fit_T = T[~np.isin(T[:, 0], anchors)]
    if report.fell_back:
        return fit_T, valid_T, [(anchors, metric)]
    probes, fitted = [], {}
    for mine, other in cross_folds(anchors.size, random_state=seed):
        c = C_GRID[int(np.argmax(rows[1:, other].mean(axis=1)))]
        if c not in fitted:
            with stage(f"relative: learning the metric at C = {c:g} without the held-out anchors, for the search "
                       "check"):
                fitted[c] = RelativeComparisonMetric(C=c, tol=TOL, random_state=seed, baseline_holdout=None,
                                                     prior=prior, normalize=normalize).fit(X, fit_T)
        probes.append((anchors[mine], fitted[c]))
    return fit_T, valid_T, probes