"""``learnsim fit --method relative``: a weighted metric from relative comparisons (paper 004).

Supervision, with --input documents that have ids (id<TAB>text, or .jsonl with "id"):

- ``--triplets FILE``: ``anchor<TAB>closer<TAB>farther`` document ids per line: the anchor is
  closer to the second document than to the third.
- ``--clicks-from DIR``: the click log of a served index (``learnsim serve --learn-from-clicks``):
  its documents, and the comparisons :func:`learnsim.feedback.click_comparisons` draws from it
  (inverse propensity weights). C is chosen, and the model checked against W = 1, on held-out
  *searches* instead of the held-out triplets below (:mod:`learnsim.feedback`'s fit_clicks: the
  clicks' propensity-weighted DCG, every query held out once); the vocabulary and idf are the
  documents' alone.
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

import numpy as np

from ..io import DocumentFormatError
from ._common import _save_model, check_input_file, UsageError, _print_json, note_unused_fields, read_documents
from ._fit_links import unique_ids
from ._fit_text import fit_options, fitted_model

# The C grid, the held-out anchors and the check against W = 1 are learnsim.relative.recipe.fit_relative's.
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


def _triplet_indices(args, ids, rows=None):
    """(texts to add to the collection, (n, 3) triplet indices into ids + those texts)."""
    kind = "triplets" if args.triplets is not None else "clicks"
    path = args.triplets if kind == "triplets" else (args.clicks or args.clicks_from)
    position = {doc_id: i for i, doc_id in enumerate(ids)}
    rows = read_triplet_rows(path, kind, args.encoding_errors) if rows is None else rows
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


def fit_relative(args, model_path, summary):
    """Read the documents and the triplets or clicks, fit (learnsim.relative.recipe.fit_relative, through
    learnsim.fitting.fit_relative), save and report."""
    from ..feedback import CLICK_DEFAULTS
    from ..fitting import fit_relative as _fit
    from ..relative.recipe import DEFAULT_RELATIVE_VALIDATION_FRACTION, check_anchors

    if args.triplets is None and args.clicks is None and args.clicks_from is None:
        raise UsageError("--method relative needs --triplets FILE (anchor<TAB>closer<TAB>farther ids), "
                         "--clicks FILE (query<TAB>clicked<TAB>skipped) or --clicks-from DIR (an index's click log)")
    chooser = None
    if args.clicks_from is not None:
        from ..feedback import click_supervision
        from .feedback import logged_clicks

        ids, doc_texts, impressions = logged_clicks(args.clicks_from)
        try:
            sup = click_supervision(ids, doc_texts, impressions=impressions, random_state=args.seed)
        except ValueError:
            raise UsageError(f"{args.clicks_from}: the click log gives no comparison yet (a click on a result "
                             "beside one that was not clicked); 'learnsim feedback stats' shows what it holds") from None
        texts, T, kind, n_queries, chooser = sup.texts, sup.triplets, "clicks", sup.n_queries, sup.chooser
    else:
        check_input_file(args.triplets if args.triplets is not None else args.clicks,
                         "--triplets" if args.triplets is not None else "--clicks")
        docs = read_documents(args.input, encoding_errors=args.encoding_errors, quoting=args.quoting)
        note_unused_fields(docs, args.input, uses_metadata=False)
        unique_ids(args.input, docs, "--method relative needs")
        ids, doc_texts = docs.ids, docs.texts
        query_texts, T, kind = _triplet_indices(args, ids)
        texts, n_queries = list(doc_texts) + query_texts, len(query_texts)
    check_anchors(T, args.validation_fraction or DEFAULT_RELATIVE_VALIDATION_FRACTION, args.seed)
    summary.update(documents=len(ids), queries=n_queries if kind == "clicks" else None, supervision=kind)
    options = fit_options(args)
    if kind == "clicks":
        # clicks rank a whole collection for short queries: the defaults of fit_clicks (tf-idf,
        # shrunk towards W = 1, ranked by the cosine in the learned weighting; docs/click_loop.md);
        # the vocabulary and idf of the documents alone, the queries only anchors
        options.weighting = options.weighting or CLICK_DEFAULTS["weighting"]
        options.prior, options.normalize = CLICK_DEFAULTS["prior"], CLICK_DEFAULTS["normalize"]
        options.n_documents = len(ids)
    result = _fit(options, texts, T, summary, chooser=chooser)
    _save_model(fitted_model(result, args), model_path)
    report, best_C, scores = result.details.report, result.details.C, result.details.scores
    vec_seconds, metric_seconds = result.details.vec_seconds, result.details.metric_seconds
    weighting = summary["weighting"]
    if args.json:
        _print_json(result.to_dict())
        return 0
    source = (f"{summary['triplets']} click triplets of {summary['queries']} queries" if kind == "clicks"
              else f"{summary['triplets']} triplets")
    from ._fit_film import _print_search_check, _why_baseline, ended_as_baseline

    if ended_as_baseline(summary):
        # the learner's features and its check against W = 1 are of a model not saved: the
        # baseline, why, and the checks that chose it (on held-out triplets, then as search)
        print(f"Fitted on {source} over {summary['documents']} documents.")
        print(f"The model is {result.pipeline.scoring}, the strongest baseline: what the weights learned "
              + _why_baseline(summary) + "; 'learnsim search' and 'learnsim index build' use it.")
        _print_triplet_check(summary)
        _print_search_check(summary, result.pipeline, "the weights", model_line=False)
        print(f"Fit in {summary['fit_seconds']:.2f} s (vectoriser {vec_seconds:.2f} s, metric "
              f"{metric_seconds:.2f} s); saved {model_path}.")
        return 0
    print(f"Fitted on {source} over {summary['documents']} documents, {summary['features']} features ({weighting}).")
    if "validation_searches" in summary:      # a click log: checked on held-out searches
        held = (f"the {summary['validation_searches']} searches of {summary['validation_queries']} queries, each "
                "held out once")
        measure = f"click DCG {scores[best_C]:.3f} against {summary['validation_accuracy_baseline']:.3f}, mean per query"
    else:
        held = f"the {summary['validation_triplets']} triplets of {summary['validation_anchors']} held-out anchors"
        measure = f"validation accuracy {scores[best_C]:.3f}, mean per anchor"
    if report.fell_back:
        plain = "the cosine of the features" if summary.get("normalize") else "the Euclidean distance on the features"
        if summary.get("model") in (None, "learned", "W = 1"):
            print(f"Relative comparisons: the model is W = 1 (every feature weighs 1: {plain}); the learned weights "
                  f"(best C = {best_C:g}) did not beat it on {held}.")
        else:   # the search check below replaced W = 1 by the strongest baseline: it says what the model is
            print(f"Relative comparisons: the learned weights (best C = {best_C:g}) did not beat W = 1 (every "
                  f"feature weighs 1: {plain}) on {held}.")
    else:
        print(f"Relative comparisons: C = {best_C:g}, chosen on {held} ({measure}); refitted on all triplets, "
              f"{summary['nonzero_weights']} features with a weight.")
    print(f"Against the baseline: {report.summary()}")
    _print_triplet_check(summary)
    _print_search_check(summary, result.pipeline, "the weights")
    print(f"Fit in {summary['fit_seconds']:.2f} s (vectoriser {vec_seconds:.2f} s, metric "
          f"{metric_seconds:.2f} s); saved {model_path}.")
    return 0


def _print_triplet_check(summary):
    """The held-out triplets scored against the strongest of BM25 and the tf.idf cosine."""
    if summary.get("triplet_baseline_gain") is not None:
        from ..baseline import BaselineGain

        print("Held-out triplets against the strongest of BM25 and the tf.idf cosine: "
              f"{BaselineGain.from_dict(summary['triplet_baseline_gain']).summary()}.")
