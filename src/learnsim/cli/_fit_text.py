"""The part of ``learnsim fit`` that mcd and FILM share: read labelled documents or pairs,
vectorise them, and print what was fitted on."""
from __future__ import annotations

import time

import numpy as np

from ._common import _note, _read_clusters, _read_pairs


def read_and_vectorize(args, summary):
    """(vectorizer, X, labels, pairs, seconds) from --input (labelled documents) or --pairs."""
    from ..text import TextVectorizer

    args.weighting = args.weighting or "tfidf"
    pairs = labels = None
    if args.pairs is not None:
        data = _read_pairs(args.pairs, args.encoding_errors, args.columns)
        texts, pairs = data.texts, data.pairs
        summary.update(documents=len(texts), pairs=pairs.n_pairs, duplicate_pairs=int(pairs.labels.sum()))
    else:
        docs, labels, names, n_singletons = _read_clusters(args.input, args.encoding_errors)
        if n_singletons:
            _note(f"{n_singletons} label(s) with a single document are treated as unlabelled (-1)")
        texts = docs.texts
        summary.update(documents=len(docs), clustered_documents=int((labels >= 0).sum()),
                       clusters=len(names), single_document_labels=n_singletons)
    vectorizer = TextVectorizer(weighting=args.weighting, norm=None if args.no_norm else "l2",
                                stop_words=args.stop_words, stem="porter" if args.stem else None,
                                n_components=args.lsi, random_state=args.seed)
    start = time.perf_counter()
    X = vectorizer.fit_transform(texts)
    X = X.astype(np.float64) if X.dtype != np.float64 else X
    seconds = time.perf_counter() - start
    summary.update(features=int(X.shape[1]), weighting=args.weighting, lsi_components=vectorizer.n_components_)
    return vectorizer, X, labels, pairs, seconds


def print_fitted_on(summary, args, vectorizer, pairs):
    """The first line of the human output: the supervision and the features."""
    features = (f"{summary['features']} features ({args.weighting}"
                f"{', LSI' if vectorizer.n_components_ else ''})")
    if pairs is not None:
        print(f"Fitted on {summary['pairs']} pairs ({summary['duplicate_pairs']} duplicates) of "
              f"{summary['documents']} distinct texts, {features}.")
    else:
        print(f"Fitted on {summary['documents']} documents ({summary['clustered_documents']} in "
              f"{summary['clusters']} clusters), {features}.")
