"""``learnsim fit --method linklearn``: a term weighting learned from hyperlinks (paper 002).

Two variants (``args.variant``, ``--variant`` where the parser offers it):

* ``paper``: paper 002's eq. (5) (:class:`learnsim.linklearn.LinkLearn`), the in-domain model:
  on the collection it was trained on it is the strongest (Wikispeedia test third: +13.6 % AvgP
  over BM25 tuned there, ``learnsim reproduce linklearn``), but transferred to collections of short
  abstracts it falls to 0.59x (CISI) and 0.91x (Cranfield) of the tf.idf cosine; it warns
  (CollectionShiftWarning) when applied to a collection far from its training one.
* ``bm25``: :class:`learnsim.weighting.LearnedBM25`, the transferable family that contains
  Okapi BM25: transferred from Wikispeedia, 1.02x the cosine on CISI and 0.98x on Cranfield;
  in-domain, on the Wikispeedia test third, AvgP 0.386 where eq. (5) reaches 0.418 (BM25 tuned
  there 0.368; ``benchmarks/bench_weighting_transfer.py``).

The default is ``paper``: ``learnsim fit`` learns from the user's own linked collection and
``learnsim search`` / ``evaluate`` score that collection, the in-domain case where eq. (5)
measured best; the warning names the ``bm25`` variant when the model meets a collection far from
its training one. Either way ``fit`` keeps back a
share of the training documents with their links and keeps the learned weighting only where it
clearly beats its baseline there (the tf.idf cosine for ``paper``, BM25 for ``bm25``; learnsim.baseline).
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from .._progress import stage

from ..io import DocumentFormatError
from ._common import _save_model, UsageError, _note, _print_json, read_documents

# LinkLearn's settings when not given: the learning rate chosen on Wikispeedia's validation
# third (docs/reproductions/linklearn.md) and the share of documents held out for early stopping.
DEFAULT_LINKLEARN_RATE = 0.03
DEFAULT_VALIDATION_FRACTION = 0.25
#: ``--variant``: "paper" (eq. 5, in-domain) or "bm25" (LearnedBM25, transferable); see above.
VARIANTS = ("paper", "bm25")
DEFAULT_VARIANT = "paper"


def read_links(path, ids, encoding_errors="replace"):
    """Hyperlinks source_id<TAB>target_id between the documents ``ids``, as Links."""
    from ..io import decoded_lines
    from ..supervision import Links

    position = {doc_id: i for i, doc_id in enumerate(ids)}
    edges = []
    for number, line in decoded_lines(path, encoding_errors=encoding_errors):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != 2:
            raise DocumentFormatError(f"{path}, line {number}: expected source_id<TAB>target_id, got {line[:60]!r}")
        source, target = (f.strip() for f in fields)
        if number == 1 and (source, target) == ("source", "target") and "source" not in position:
            continue
        for doc_id in (source, target):
            if doc_id not in position:
                raise UsageError(f"{path}, line {number}: link to unknown document {doc_id!r} (not an id of "
                                 "--input)")
        if source != target:        # a page linking to itself says nothing about similarity
            edges.append((position[source], position[target]))
    if not edges:
        raise UsageError(f"{path}: no link between two different documents; LinkLearn learns from links")
    return Links.from_edges(np.asarray(edges, dtype=np.int64), len(ids))


def linklearn_stemming(args):
    """"porter" (the paper's stemming) unless --no-stem, or when PyStemmer is missing (then a note
    says the fit is unstemmed); --stem insists on it (an error without PyStemmer)."""
    if args.stem is False:
        return None
    if args.stem is True:
        return "porter"
    try:
        import Stemmer  # noqa: F401  (PyStemmer)
    except ImportError:
        _note("PyStemmer is not installed: fitting without Porter stemming (pip install learnsim[stem] "
              "for the paper's stemming)")
        return None
    return "porter"


def unique_ids(path, docs, what="--method linklearn needs"):
    """Every document has an id, and no two the same (the links name them)."""
    missing = [i for i, doc_id in enumerate(docs.ids) if doc_id is None]
    if missing:
        raise UsageError(f"{path}: {what} an id for every document (id<TAB>text, or "
                         f'"id" in .jsonl); document {missing[0] + 1} has none')
    seen = {}
    for i, doc_id in enumerate(docs.ids):
        if doc_id in seen:
            raise UsageError(f"{path}: id {doc_id!r} is used by documents {seen[doc_id] + 1} and {i + 1}")
        seen[doc_id] = i


def _variant(args):
    variant = getattr(args, "variant", None) or DEFAULT_VARIANT
    if variant not in VARIANTS:
        raise UsageError(f"--variant must be one of {', '.join(VARIANTS)}; got {variant!r}")
    if variant == "bm25" and args.learning_rate is not None:
        raise UsageError("--learning-rate applies to --variant paper (LinkLearn's SGD) only; the bm25 variant "
                         "searches its five parameters directly")
    return variant


def fit_linklearn(args, model_path, summary):
    """--method linklearn: term counts of the --input documents, the --links among them, a
    held-out share for early stopping (paper) or for the validation AvgP (bm25), and the learned
    weighting saved with its vectoriser."""
    import scipy.sparse as sp

    from .._progress import _default_enabled
    from ..linklearn import LinkLearn
    from ..supervision import Links, split_links
    from ..text import TextVectorizer, find_empty_rows
    from ..weighting import LearnedBM25

    variant = _variant(args)

    docs = read_documents(args.input, encoding_errors=args.encoding_errors)
    unique_ids(args.input, docs)
    links = read_links(Path(args.links), docs.ids, args.encoding_errors)
    vectorizer = TextVectorizer("tf", stop_words=args.stop_words or "english", stem=linklearn_stemming(args),
                                min_df=2, dtype=np.float64)
    start = time.perf_counter()
    X = sp.csr_matrix(vectorizer.fit_transform(docs.texts), dtype=np.float64)
    vec_seconds = time.perf_counter() - start
    fraction = args.validation_fraction or DEFAULT_VALIDATION_FRACTION
    try:
        (train, L_train), (valid, L_valid) = split_links(links, fractions=(1.0 - fraction, fraction),
                                                         random_state=args.seed)
    except ValueError as exc:
        raise UsageError(f"cannot hold out {fraction:g} of the documents for early stopping: {exc}") from None
    X_train = X[train]
    empty = find_empty_rows(X_train)
    if empty.size:
        _note(f"{empty.size} training document(s) have no vocabulary term; they and their links are left out")
        keep = np.setdiff1d(np.arange(X_train.shape[0]), empty)
        X_train, L_train = X_train[keep], Links(L_train.adjacency[keep][:, keep])
    if variant == "paper":
        settings = {"learning_rate": args.learning_rate or DEFAULT_LINKLEARN_RATE}
        if args.max_iter is not None:
            settings["max_iter"] = args.max_iter
        metric = LinkLearn(**settings, random_state=args.seed, verbose=_default_enabled())
        title = "LinkLearn: learning the term weights"
    else:
        settings = {} if args.max_iter is None else {"max_evaluations": max(1, args.max_iter)}
        metric = LearnedBM25(**settings, random_state=args.seed)
        title = "LearnedBM25: searching the five weighting parameters"
    start = time.perf_counter()
    try:
        with stage(title):
            metric.fit(X_train, L_train, validation=(X[valid], L_valid))
    except ValueError as exc:
        raise UsageError(f"{type(metric).__name__} cannot learn from these links: {exc}") from None
    metric_seconds = time.perf_counter() - start
    _save_model({"vectorizer": vectorizer, "metric": metric}, model_path)
    report = metric.baseline_gain_
    summary.update(documents=len(docs), links=links.n_links, features=int(X.shape[1]),
                   train_documents=int(X_train.shape[0]), train_links=L_train.n_links,
                   validation_documents=int(valid.size), validation_links=L_valid.n_links, variant=variant)
    if variant == "paper":
        curve = metric.validation_curve_
        summary.update(learning_rate=settings["learning_rate"], n_iter=metric.n_iter_, best_iter=metric.best_iter_,
                       validation_ap=float(np.max(curve["ap"])) if curve is not None else None)
    else:
        summary.update(weighting=dict(metric.params_), n_evaluations=metric.n_evaluations_,
                       validation_ap=metric.validation_ap_)
    summary.update(baseline_gain=None if report is None else report.to_dict(), vectorizer_seconds=vec_seconds,
                   metric_seconds=metric_seconds, fit_seconds=vec_seconds + metric_seconds)
    if args.json:
        _print_json(summary)
        return 0
    use = "early stopping" if variant == "paper" else "the validation AvgP"
    detail = report.detail if report is not None else {}
    held = detail.get("held_out_documents", detail.get("held_out_articles"))
    judged = "" if held is None else f" ({held} of them held out to judge learned against baseline)"
    print(f"Fitted on {summary['documents']} documents with {summary['links']} links, {summary['features']} "
          f"terms: {summary['train_documents']} documents ({summary['train_links']} links) to learn from{judged}, "
          f"{summary['validation_documents']} ({summary['validation_links']} links) for {use}.")
    if variant == "paper":
        print(f"LinkLearn (paper 002's eq. 5, in-domain): learning rate {settings['learning_rate']:g}, best "
              f"validation AvgP {summary['validation_ap']:.3f} after {metric.best_iter_} of {metric.n_iter_} drawn "
              "documents.")
    else:
        print(f"LearnedBM25 (transferable): {metric.describe()}; validation AvgP {metric.validation_ap_:.3f} "
              f"(thinned copies, sampled queries) after {metric.n_evaluations_} evaluations.")
    if report is not None:
        print(f"Against the baseline: {report.summary()}")
    print(f"Fit in {summary['fit_seconds']:.2f} s (vectoriser {vec_seconds:.2f} s, weighting "
          f"{metric_seconds:.2f} s); saved {model_path}.")
    return 0
