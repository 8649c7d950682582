"""``learnsim fit --method relative``: a weighted metric from relative comparisons (paper 004).

Supervision, with --input documents that have ids (id<TAB>text, or .jsonl with "id"):

- ``--triplets FILE``: ``anchor<TAB>closer<TAB>farther`` document ids per line: the anchor is
  closer to the second document than to the third.
- ``--clicks FILE``: ``query<TAB>clicked<TAB>skipped`` per line, the query's *text* and two
  document ids: the clicked document is closer to the query than the skipped one (a click-through
  log, as in the paper's motivation). Each distinct query text joins the collection the
  vectoriser and the metric see; it becomes the anchor of the triplet (query, clicked, skipped).

A seeded --validation-fraction of the anchors (default 0.25) and their triplets are held out: the
slack weight C is the one of a grid whose fit on the other triplets satisfies the most held-out
triplets (:func:`learnsim.relative.select_C`, as ``learnsim reproduce relative``), then the
metric is refitted with that C on all the triplets. Features: binary term presence, not
normalised, as the paper's learned metric (--weighting changes them).
"""
from __future__ import annotations

import time

import numpy as np

from .._progress import stage

from ..io import DocumentFormatError
from ._common import _save_model, UsageError, _print_json, read_documents
from ._fit_links import unique_ids

#: The C candidates (those of the relative reproduction, and the paper's 1) and the solver's gap.
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
    anchors = np.unique(T[:, 0])
    if anchors.size < 2:
        raise UsageError("the triplets have a single anchor: C is chosen on triplets of held-out anchors, "
                         "give triplets of two or more anchors")
    rng = np.random.default_rng(seed)
    n_held = min(max(int(round(fraction * anchors.size)), 1), anchors.size - 1)
    held = rng.permutation(anchors)[:n_held]
    mask = np.isin(T[:, 0], held)
    return T[~mask], T[mask]


def fit_relative(args, model_path, summary):
    import scipy.sparse as sp

    from ..relative import RelativeComparisonMetric, select_C
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
    fit_T, valid_T = _split_by_anchor(T, fraction, args.seed)
    start = time.perf_counter()
    with stage("relative: choosing C on held-out triplets"):
        best_C, scores = select_C(X, fit_T, valid_T, Cs=C_GRID, tol=TOL, random_state=args.seed)
    with stage("relative: learning the metric"):
        metric = RelativeComparisonMetric(C=best_C, tol=TOL, random_state=args.seed).fit(X, T)
    metric_seconds = time.perf_counter() - start
    _save_model({"vectorizer": vectorizer, "metric": metric}, model_path)
    summary.update(documents=len(docs), queries=len(query_texts) if kind == "clicks" else None,
                   supervision=kind, triplets=int(T.shape[0]), validation_triplets=int(valid_T.shape[0]),
                   features=int(X.shape[1]), weighting=weighting, C=best_C,
                   validation_accuracy=scores[best_C], validation_accuracy_by_C=scores,
                   training_accuracy=float(metric.score(X, T)), nonzero_weights=int(np.count_nonzero(metric.weights_)),
                   vectorizer_seconds=vec_seconds, metric_seconds=metric_seconds,
                   fit_seconds=vec_seconds + metric_seconds)
    if args.json:
        _print_json(summary)
        return 0
    source = (f"{summary['triplets']} click triplets of {summary['queries']} queries" if kind == "clicks"
              else f"{summary['triplets']} triplets")
    print(f"Fitted on {source} over {summary['documents']} documents, {summary['features']} features ({weighting}).")
    print(f"Relative comparisons: C = {best_C:g}, chosen on {summary['validation_triplets']} triplets of held-out "
          f"anchors (validation accuracy {scores[best_C]:.3f}); refitted on all triplets, "
          f"{summary['nonzero_weights']} features with a weight.")
    print(f"Fit in {summary['fit_seconds']:.2f} s (vectoriser {vec_seconds:.2f} s, metric "
          f"{metric_seconds:.2f} s); saved {model_path}.")
    return 0
