"""``learnsim fit --method relative``: a weighted metric from relative comparisons (paper 004).

Supervision, with --input documents that have ids (id<TAB>text, or .jsonl with "id"):

- ``--triplets FILE``: ``anchor<TAB>closer<TAB>farther`` document ids per line: the anchor is
  closer to the second document than to the third.
- ``--clicks FILE``: ``query<TAB>clicked<TAB>skipped`` per line, the query's *text* and two
  document ids: the clicked document is closer to the query than the skipped one (a click-through
  log, as in the paper's motivation). Each distinct query text joins the collection the
  vectoriser and the metric see; it becomes the anchor of the triplet (query, clicked, skipped).

The triplets of a seeded --validation-fraction of the anchors (default 0.25; whole anchors, at
least 2 held out and 2 kept) are held out. Every C of a grid is fitted on the other triplets, and
each held-out triplet is scored under each fit and under W = 1, the unweighted Euclidean distance
on the features that the family contains (1 when the anchor is closer to the closer document, 1/2
on a tie, 0 otherwise); a held-out anchor scores the mean over its triplets (the anchors, not the
triplets that share one, are the independent units). The rule of :mod:`learnsim.baseline`, with
W = 1 as one more candidate: the candidate with the best mean over the anchors is chosen (ties go
to W = 1), and its gain over W = 1 is cross-fitted (:func:`learnsim.baseline.cross_fitted`: each
held-out anchor is scored by the candidate chosen on the other half of the anchors), so that
choosing C on the same anchors does not inflate it.
When a learned C is chosen and its cross-fitted gain is positive, the metric is refitted with that
C on all the triplets; otherwise the saved metric is W = 1 and a warning says so. The report
(``baseline_gain`` in --json, the line "Against the baseline:", and the saved model's
``baseline_gain_``) gives the gain with a bootstrap interval. With fewer than four anchors
nothing is measured: C is chosen on one held-out anchor, the model is fitted on all triplets and
the report says it is unchecked. Features: binary term presence, not normalised, as the paper's
learned metric (--weighting changes them).
"""
from __future__ import annotations

import time

import numpy as np

from .._progress import stage

from ..io import DocumentFormatError
from ._common import _save_model, UsageError, _print_json, read_documents
from ._fit_links import unique_ids

#: The C candidates (those of the relative reproduction, and the paper's 1) and the solver's gap.
#: The held-out scores count a tie as 1/2 and are averaged per anchor (learnsim.relative.triplet_outcomes,
#: anchor_means).
C_GRID = (1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1, 1.0)
TOL = 1e-3
DEFAULT_VALIDATION_FRACTION = 0.25
_HEADERS = ({"anchor", "closer", "farther"}, {"query", "clicked", "skipped"})


def read_triplet_rows(path, kind, encoding_errors):
    """(line number, three fields) of a triplets or clicks file; a header line is skipped."""
    from ..io import decoded_lines

    layout = "anchor<TAB>closer<TAB>farther" if kind == "triplets" else "query<TAB>clicked<TAB>skipped"
    rows = []
    for number, line in decoded_lines(path, encoding_errors=encoding_errors):
        if not line.strip():
            continue
        fields = [f.strip() for f in line.split("\t")]
        if len(fields) != 3 or not all(fields):
            raise DocumentFormatError(f"{path}, line {number}: expected {layout}, got {line[:60]!r}")
        if not rows and {f.lower() for f in fields} in _HEADERS:
            continue
        rows.append((number, fields))
    if not rows:
        raise DocumentFormatError(f"{path}: contains no {kind}")
    return rows


def _triplet_indices(args, ids):
    """(texts to add to the collection, (n, 3) triplet indices into ids + those texts)."""
    kind = "triplets" if args.triplets is not None else "clicks"
    path = args.triplets if kind == "triplets" else args.clicks
    position = {doc_id: i for i, doc_id in enumerate(ids)}
    rows = read_triplet_rows(path, kind, args.encoding_errors)
    queries, T = {}, []
    for number, fields in rows:
        if kind == "clicks":
            query, rest = fields[0], fields[1:]
            anchor = queries.setdefault(query, len(ids) + len(queries))
        else:
            rest, anchor = fields, None
        idx = []
        for doc_id in rest if kind == "clicks" else fields:
            if doc_id not in position:
                raise UsageError(f"{path}, line {number}: unknown document {doc_id!r} (not an id of --input)")
            idx.append(position[doc_id])
        if kind == "clicks":
            idx = [anchor] + idx
        if len(set(idx)) < 3:
            raise UsageError(f"{path}, line {number}: the three items must differ, got {fields}")
        T.append(idx)
    return list(queries), np.asarray(T, dtype=np.int64), kind


def _split_by_anchor(T, fraction, seed):
    """Too few anchors for the check (fewer than four): one or more held out to choose C."""
    anchors = np.unique(T[:, 0])
    if anchors.size < 2:
        raise UsageError("the triplets have a single anchor: C is chosen on triplets of held-out anchors, "
                         "give triplets of two or more anchors")
    rng = np.random.default_rng(seed)
    n_held = min(max(int(round(fraction * anchors.size)), 1), anchors.size - 1)
    held = rng.permutation(anchors)[:n_held]
    mask = np.isin(T[:, 0], held)
    return T[~mask], T[mask]


def _held_out_scores(X, fit_T, valid_T, seed):
    """Rows: W = 1, then each C of C_GRID fitted on fit_T; columns: the anchors of valid_T, each
    the mean over its triplets of 1 (right), 1/2 (tie), 0 (wrong)."""
    from ..relative import RelativeComparisonMetric, anchor_means, triplet_outcomes

    rows = [anchor_means(valid_T, triplet_outcomes(valid_T, X))]
    for c in C_GRID:
        model = RelativeComparisonMetric(C=c, tol=TOL, random_state=seed, baseline_holdout=None).fit(X, fit_T)
        rows.append(anchor_means(valid_T, triplet_outcomes(valid_T, model.transform(X))))
    return np.vstack(rows)


def _choose(X, T, fraction, seed):
    """C and the check against W = 1 on the triplets of held-out anchors (module docstring).

    Returns
    -------
    (C of the refit, report, held-out triplets, {C: mean held-out score}, W = 1's mean score)
    """
    from ..baseline import choose, split_groups, unchecked
    from ..relative import BASELINE_MEASURE, BASELINE_NAME

    owner = "learnsim fit --method relative"
    split = split_groups(T[:, 0], fraction, random_state=seed)
    if split is None:
        fit_T, valid_T = _split_by_anchor(T, fraction, seed)
        rows = _held_out_scores(X, fit_T, valid_T, seed)
        means = rows.mean(axis=1)
        report = unchecked(f"the triplets have {np.unique(T[:, 0]).size} anchors: at least 4 are needed to hold "
                           "the triplets of 2 out and learn from 2", baseline_name=BASELINE_NAME, owner=owner,
                           stacklevel=3)
        return (C_GRID[int(np.argmax(means[1:]))], report, valid_T, dict(zip(C_GRID, means[1:].tolist())),
                float(means[0]))
    ids, held = split
    is_held = np.isin(T[:, 0], ids[held])
    fit_T, valid_T = T[~is_held], T[is_held]
    rows = _held_out_scores(X, fit_T, valid_T, seed)
    means = rows.mean(axis=1)
    # the C of a learned model: the chosen one or, when W = 1 is used, the best learned
    # candidate (kept in the saved model's parameters and reported beside the fall-back)
    best_learned = C_GRID[int(np.argmax(means[1:]))]
    chosen, report = choose(rows, 0, measure=BASELINE_MEASURE, unit=f"held-out anchors ({len(valid_T)} triplets)",
                            baseline_name=BASELINE_NAME, owner=owner, random_state=seed, stacklevel=3,
                            detail=lambda c: {"C": C_GRID[c - 1] if c else best_learned,
                                              "chosen": f"C = {C_GRID[c - 1]:g}" if c else "W = 1",
                                              "held_out_triplets": len(valid_T),
                                              "training_triplets": int(fit_T.shape[0]), "cross_fitted": True})
    best_C = C_GRID[chosen - 1] if chosen else best_learned
    return best_C, report, valid_T, dict(zip(C_GRID, means[1:].tolist())), float(means[0])


def fit_relative(args, model_path, summary):
    import scipy.sparse as sp

    from ..relative import RelativeComparisonMetric
    from ..text import TextVectorizer

    if args.triplets is None and args.clicks is None:
        raise UsageError("--method relative needs --triplets FILE (anchor<TAB>closer<TAB>farther ids) or "
                         "--clicks FILE (query<TAB>clicked<TAB>skipped)")
    docs = read_documents(args.input, encoding_errors=args.encoding_errors)
    unique_ids(args.input, docs, "--method relative needs")
    query_texts, T, kind = _triplet_indices(args, docs.ids)
    texts = list(docs.texts) + query_texts
    weighting = args.weighting or "binary"
    vectorizer = TextVectorizer(weighting, norm="l2" if weighting in ("tfidf", "bm25") and not args.no_norm else None,
                                stop_words=args.stop_words, stem="porter" if args.stem else None, dtype=np.float64)
    start = time.perf_counter()
    X = sp.csr_matrix(vectorizer.fit_transform(texts), dtype=np.float64)
    vec_seconds = time.perf_counter() - start
    fraction = args.validation_fraction or DEFAULT_VALIDATION_FRACTION
    if np.unique(T[:, 0]).size < 2:
        _split_by_anchor(T, fraction, args.seed)               # the usage error, before any fitting
    start = time.perf_counter()
    with stage("relative: choosing C and checking against W = 1 on held-out anchors"):
        best_C, report, valid_T, scores, baseline_score = _choose(X, T, fraction, args.seed)
    with stage("relative: learning the metric"):
        metric = RelativeComparisonMetric(C=best_C, tol=TOL, random_state=args.seed, baseline_holdout=None)
        metric.fit(X, T)._with_report(report)
    metric_seconds = time.perf_counter() - start
    report = metric.baseline_gain_
    _save_model({"vectorizer": vectorizer, "metric": metric}, model_path)
    summary.update(documents=len(docs), queries=len(query_texts) if kind == "clicks" else None,
                   supervision=kind, triplets=int(T.shape[0]), validation_triplets=int(valid_T.shape[0]),
                   validation_anchors=int(np.unique(valid_T[:, 0]).size),
                   features=int(X.shape[1]), weighting=weighting, C=best_C,
                   validation_accuracy=scores[best_C], validation_accuracy_by_C=scores,
                   validation_accuracy_baseline=baseline_score, model="W = 1" if report.fell_back else "learned",
                   training_accuracy=float(metric.score(X, T)), nonzero_weights=int(np.count_nonzero(metric.weights_)),
                   baseline_gain=report.to_dict(), vectorizer_seconds=vec_seconds, metric_seconds=metric_seconds,
                   fit_seconds=vec_seconds + metric_seconds)
    if args.json:
        _print_json(summary)
        return 0
    source = (f"{summary['triplets']} click triplets of {summary['queries']} queries" if kind == "clicks"
              else f"{summary['triplets']} triplets")
    print(f"Fitted on {source} over {summary['documents']} documents, {summary['features']} features ({weighting}).")
    if report.fell_back:
        print(f"Relative comparisons: the model is W = 1 (every feature weighs 1: the Euclidean distance on the "
              f"features); the learned weights (best C = {best_C:g}) did not beat it on "
              f"the {summary['validation_triplets']} triplets of {summary['validation_anchors']} held-out anchors.")
    else:
        print(f"Relative comparisons: C = {best_C:g}, chosen on the {summary['validation_triplets']} triplets of "
              f"{summary['validation_anchors']} held-out anchors (validation accuracy {scores[best_C]:.3f}, mean per "
              f"anchor); refitted on all triplets, "
              f"{summary['nonzero_weights']} features with a weight.")
    print(f"Against the baseline: {report.summary()}")
    print(f"Fit in {summary['fit_seconds']:.2f} s (vectoriser {vec_seconds:.2f} s, metric "
          f"{metric_seconds:.2f} s); saved {model_path}.")
    return 0
