"""``learnsim fit --method linklearn``: a term weighting learned from hyperlinks (paper 002)."""
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


def fit_linklearn(args, model_path, summary):
    """--method linklearn: term counts of the --input documents, the --links among them, a
    held-out share for early stopping, and the learned weighting saved with its vectoriser."""
    import scipy.sparse as sp

    from .._progress import _default_enabled
    from ..linklearn import LinkLearn
    from ..supervision import Links, split_links
    from ..text import TextVectorizer, find_empty_rows

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
    settings = {"learning_rate": args.learning_rate or DEFAULT_LINKLEARN_RATE}
    if args.max_iter is not None:
        settings["max_iter"] = args.max_iter
    metric = LinkLearn(**settings, random_state=args.seed, verbose=_default_enabled())
    start = time.perf_counter()
    try:
        with stage("LinkLearn: learning the term weights"):
            metric.fit(X_train, L_train, validation=(X[valid], L_valid))
    except ValueError as exc:
        raise UsageError(f"LinkLearn cannot learn from these links: {exc}") from None
    metric_seconds = time.perf_counter() - start
    _save_model({"vectorizer": vectorizer, "metric": metric}, model_path)
    curve = metric.validation_curve_
    summary.update(documents=len(docs), links=links.n_links, features=int(X.shape[1]),
                   train_documents=int(X_train.shape[0]), train_links=L_train.n_links,
                   validation_documents=int(valid.size), validation_links=L_valid.n_links,
                   learning_rate=settings["learning_rate"], n_iter=metric.n_iter_, best_iter=metric.best_iter_,
                   validation_ap=float(np.max(curve["ap"])) if curve is not None else None,
                   vectorizer_seconds=vec_seconds, metric_seconds=metric_seconds,
                   fit_seconds=vec_seconds + metric_seconds)
    if args.json:
        _print_json(summary)
        return 0
    print(f"Fitted on {summary['documents']} documents with {summary['links']} links, {summary['features']} "
          f"terms: {summary['train_documents']} documents ({summary['train_links']} links) to learn from, "
          f"{summary['validation_documents']} ({summary['validation_links']} links) for early stopping.")
    print(f"LinkLearn: learning rate {settings['learning_rate']:g}, best validation AvgP "
          f"{summary['validation_ap']:.3f} after {metric.best_iter_} of {metric.n_iter_} drawn documents.")
    print(f"Fit in {summary['fit_seconds']:.2f} s (vectoriser {vec_seconds:.2f} s, weighting "
          f"{metric_seconds:.2f} s); saved {model_path}.")
    return 0
